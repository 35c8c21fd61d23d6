// Scratch copies of finished tables (gen/spill.hpp): exact round trips across chunk boundaries,
// and a damaged, truncated or unwritable copy refused with an error, never read as other bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include <unistd.h>

#include "gen/chunked_file.hpp"
#include "gen/spill.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kTag = 0x1234'5678'9abc'def0ULL;

class SpillTest : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("dtb-spill-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(root_);
    }
    void TearDown() override { fs::remove_all(root_); }

    // Bytes shaped like a DTW table: long runs of one value (draws) between random stretches.
    static std::vector<std::uint8_t> table_like(std::size_t size, unsigned seed) {
        std::mt19937 random(seed);
        std::vector<std::uint8_t> out(size, 0xFF);
        for (std::size_t i = 0; i < size; ++i)
            if ((i / 4096) % 3 != 0) out[i] = static_cast<std::uint8_t>(random() % 40);
        return out;
    }

    // Overwrites one byte of `file` in place.
    static void put_byte(const fs::path& file, std::uint64_t offset, char byte) {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(offset));
        f.put(byte);
    }

    fs::path root_;
};

TEST_F(SpillTest, RoundTripsExactlyAcrossChunkBoundaries) {
    SpillFolder spill(root_);
    // 16 MiB is one chunk: sizes below, at and beyond it, and a single byte.
    const std::size_t chunk = std::size_t{16} << 20;
    for (const std::size_t size : {std::size_t{1}, std::size_t{70001}, chunk, chunk + 3, 2 * chunk + 12345}) {
        const std::string name = std::to_string(size) + ".dtw";
        const auto bytes = table_like(size, static_cast<unsigned>(size));
        spill.save(name, bytes, kTag);
        ASSERT_TRUE(spill.contains(name, kTag));
        std::vector<std::uint8_t> back(size, 0x55);
        spill.load(name, back, kTag);
        EXPECT_TRUE(back == bytes) << size;
    }
    EXPECT_GT(spill.bytes_on_disk(), 0u);
    EXPECT_LT(spill.bytes_on_disk(), 4 * chunk);  // compressed
}

// The reader of one part decompresses as it goes (a window, not a whole 16 MiB chunk): reads of
// any sizes, across chunks and into the next part's bytes, give the part exactly; a damaged frame
// anywhere in the part is refused, and so is a read past its end.
TEST_F(SpillTest, APartIsStreamedExactlyAcrossChunksAndDamageIsRefused) {
    fs::create_directories(root_);
    const fs::path file = root_ / "parts";
    const std::size_t chunk = std::size_t{16} << 20;
    const auto first = table_like(3, 1), second = table_like(2 * chunk + 777, 2), third = table_like(5000, 3);
    const std::span<const std::uint8_t> parts[] = {first, second, third};
    write_chunked_file(file, parts, kTag);
    std::mt19937 random(7);
    ChunkedPartReader reader(file, 1, kTag);
    ASSERT_EQ(reader.size(), second.size());
    std::vector<std::uint8_t> back;
    while (back.size() < second.size()) {
        std::vector<std::uint8_t> piece(std::min<std::size_t>(second.size() - back.size(), 1 + random() % 3000000));
        reader.read(piece);
        back.insert(back.end(), piece.begin(), piece.end());
    }
    EXPECT_TRUE(back == second);
    std::uint8_t one = 0;
    EXPECT_THROW(reader.read({&one, 1}), DamagedScratchFile);
    // A byte changed in the second chunk of the second part: found when that chunk is read.
    const auto size = fs::file_size(file);
    put_byte(file, size / 2, '\x5a');
    ChunkedPartReader damaged(file, 1, kTag);
    std::vector<std::uint8_t> all(second.size());
    EXPECT_THROW(damaged.read(all), DamagedScratchFile);
}

TEST_F(SpillTest, SavingAgainReplacesTheCopy) {
    SpillFolder spill(root_);
    spill.save("A.wdl", table_like(5000, 1), kTag);
    const auto second = table_like(5000, 2);
    spill.save("A.wdl", second, kTag);
    std::vector<std::uint8_t> back(5000);
    spill.load("A.wdl", back, kTag);
    EXPECT_TRUE(back == second);
}

TEST_F(SpillTest, WrongSizeOrUnknownNameIsRefused) {
    SpillFolder spill(root_);
    spill.save("A.wdl", table_like(1000, 1), kTag);
    std::vector<std::uint8_t> back(999);
    EXPECT_THROW(spill.load("A.wdl", back, kTag), std::logic_error);
    EXPECT_THROW(spill.load("B.wdl", back, kTag), std::logic_error);
}

TEST_F(SpillTest, DamagedCopyIsRefused) {
    SpillFolder spill(root_);
    const auto bytes = table_like(200000, 3);
    spill.save("A.dtw", bytes, kTag);
    put_byte(root_ / "A.dtw", 100, '\x5a');
    put_byte(root_ / "A.dtw", 101, '\xa5');
    std::vector<std::uint8_t> back(bytes.size());
    EXPECT_THROW(spill.load("A.dtw", back, kTag), std::runtime_error);
}

TEST_F(SpillTest, DamagedFrameSizeIsRefusedWithoutReadingWhatItSays) {
    SpillFolder spill(root_);
    const auto bytes = table_like(200000, 7);
    // Before the footer (three 8-byte fields) sit the part's size, then the last frame's: make
    // each huge in turn (the top byte of each little-endian number).
    const std::uint64_t footer = 24;
    std::vector<std::uint8_t> back(bytes.size());
    for (const std::uint64_t from_end : {footer + 1, footer + 8 + 1}) {
        spill.save("A.dtw", bytes, kTag);
        put_byte(root_ / "A.dtw", fs::file_size(root_ / "A.dtw") - from_end, '\x7f');
        EXPECT_THROW(spill.load("A.dtw", back, kTag), std::runtime_error) << from_end;
    }
}

TEST_F(SpillTest, TruncatedCopyIsRefused) {
    SpillFolder spill(root_);
    const auto bytes = table_like(200000, 4);
    spill.save("A.dtw", bytes, kTag);
    fs::resize_file(root_ / "A.dtw", fs::file_size(root_ / "A.dtw") / 2);
    std::vector<std::uint8_t> back(bytes.size());
    EXPECT_THROW(spill.load("A.dtw", back, kTag), std::runtime_error);
    fs::resize_file(root_ / "A.dtw", 3);
    EXPECT_THROW(spill.load("A.dtw", back, kTag), std::runtime_error);
}

TEST_F(SpillTest, FullDiskIsAnErrorAndStoresNothing) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
    SpillFolder spill(root_);
    fs::create_symlink("/dev/full", root_ / "A.dtw.partial");  // every write there fails with ENOSPC
    try {
        spill.save("A.dtw", table_like(100000, 5), kTag);
        ADD_FAILURE() << "saved on a full disk";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(spill.contains("A.dtw", kTag));
}

TEST_F(SpillTest, ACopyOutlivesItsFolderObjectAndIsTakenBackOnlyUnderItsTag) {
    const auto bytes = table_like(300000, 6);
    { SpillFolder(root_).save("KvK.wdl", bytes, kTag); }  // a killed build leaves its copies
    SpillFolder spill(root_);
    EXPECT_TRUE(spill.contains("KvK.wdl", kTag));
    EXPECT_FALSE(spill.contains("KvK.wdl", kTag + 1));  // its finished file has changed since
    std::vector<std::uint8_t> back(bytes.size());
    EXPECT_THROW(spill.load("KvK.wdl", back, kTag + 1), std::logic_error);
    spill.load("KvK.wdl", back, kTag);
    EXPECT_TRUE(back == bytes);
    spill.remove_all();
    EXPECT_FALSE(fs::exists(root_));
}

TEST_F(SpillTest, PartialAndForeignFilesLeftInTheFolderAreRemoved) {
    fs::create_directories(root_);
    std::ofstream(root_ / "KKvKK.dtw") << "left by an older dtb, or anything else";
    std::ofstream(root_ / "KvK.wdl.partial") << "a copy killed while it was written";
    {
        SpillFolder(root_).save("KMvK.wdl", table_like(1000, 8), kTag);
        // A complete copy cut short afterwards (a damaged disk) is not adopted either.
        fs::resize_file(root_ / "KMvK.wdl", fs::file_size(root_ / "KMvK.wdl") - 5);
    }
    SpillFolder spill(root_);
    EXPECT_FALSE(fs::exists(root_ / "KKvKK.dtw"));
    EXPECT_FALSE(fs::exists(root_ / "KvK.wdl.partial"));
    EXPECT_FALSE(fs::exists(root_ / "KMvK.wdl"));
    EXPECT_FALSE(spill.contains("KKvKK.dtw", kTag));
    EXPECT_FALSE(spill.contains("KMvK.wdl", kTag));
}

TEST(ContentTag, FollowsTheBytesOfTheFile) {
    const fs::path file = fs::temp_directory_path() / ("dtb-tag-" + std::to_string(::getpid()));
    std::ofstream(file, std::ios::binary) << "finished table";
    const std::uint64_t first = content_tag(file);
    EXPECT_EQ(content_tag(file), first);
    std::ofstream(file, std::ios::binary) << "finished tablf";
    EXPECT_NE(content_tag(file), first);
    fs::remove(file);
    try {
        content_tag(file);
        ADD_FAILURE() << "a hash of a missing file";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "cannot open " + file.string() + ": No such file or directory");
    }
}

}  // namespace
}  // namespace dtb
