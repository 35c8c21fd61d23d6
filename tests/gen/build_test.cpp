// dtb gen as a builder: resumption, and refusal of unsafe situations.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <tbb/global_control.h>
#include <unistd.h>

#include "tests/gen/build_fixture.hpp"
#include "gen/builder.hpp"
#include "gen/dtw_solver.hpp"
#include "gen/verify.hpp"
#include "rules/fen.hpp"
#include "probe/table_file.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST_F(BuildTest, SummaryLinePerMaterial) {
    build_into(root_, 3);
    for (const Material& m : materials_in_build_order(3)) EXPECT_THAT(log_, HasSubstr(m.name() + " "));
    EXPECT_THAT(log_, HasSubstr("positions 2450 captures 408 wins 16 draws 2024 losses 2"));
}

TEST_F(BuildTest, ResumesAfterAnInterruptionAndRebuildsOnlyWhatIsMissing) {
    build_into(root_, 3);
    const std::string kmvk = read_bytes(root_ / "KMvK.wdl");
    const auto kvk_time = fs::last_write_time(root_ / "KvK.wdl");
    // A build killed while writing leaves a temporary file and no final one.
    fs::remove(root_ / "KMvK.wdl");
    std::ofstream(root_ / "KMvK.wdl.tmp") << "half a file";
    build_into(root_, 3);
    EXPECT_EQ(read_bytes(root_ / "KMvK.wdl"), kmvk);
    EXPECT_FALSE(fs::exists(root_ / "KMvK.wdl.tmp"));
    EXPECT_EQ(fs::last_write_time(root_ / "KvK.wdl"), kvk_time);  // finished files are reused
    EXPECT_THAT(log_, HasSubstr("KMvK "));
    EXPECT_THAT(log_, ::testing::Not(HasSubstr("KvK ")));
}

TEST_F(BuildTest, RefusesACorruptFinishedFile) {
    build_into(root_, 2);
    const fs::path f = root_ / "KvK.wdl";
    std::string bytes = read_bytes(f);
    bytes[bytes.size() - 3] ^= 0x40;
    std::ofstream(f, std::ios::binary | std::ios::trunc) << bytes;
    try {
        build_into(root_, 3);
        FAIL() << "a corrupt KvK.wdl was used";
    } catch (const std::exception& e) {
        EXPECT_THAT(e.what(), HasSubstr("KvK.wdl"));
        EXPECT_THAT(e.what(), HasSubstr("corrupt"));
    }
    EXPECT_EQ(read_bytes(f), bytes);  // nothing is deleted or overwritten
}

TEST_F(BuildTest, RefusesFilesOfAnotherFormatVersion) {
    build_into(root_, 2);
    const fs::path f = root_ / "KvK.wdl";
    std::string bytes = read_bytes(f);
    bytes[8] = 7;  // format version field
    std::ofstream(f, std::ios::binary | std::ios::trunc) << bytes;
    try {
        build_into(root_, 3);
        FAIL() << "a file of another version was accepted";
    } catch (const TableError& e) {
        EXPECT_THAT(e.what(), HasSubstr("format version 7"));
    }
    EXPECT_EQ(read_bytes(f), bytes);
}

TEST_F(BuildTest, RefusesAnUnwritableFolder) {
    if (::geteuid() == 0) GTEST_SKIP() << "root writes everywhere; covered by the disk-full CLI test";
    fs::permissions(root_, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(build_into(root_, 2), std::exception);
}

TEST_F(BuildTest, RefusesASecondBuildInTheSameFolder) {
    fs::create_directories(root_);
    // Hold the lock as a concurrent dtb gen would.
    const fs::path lock = root_ / ".dtb-gen.lock";
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
    try {
        build_into(root_, 2);
        FAIL() << "two builds shared a folder";
    } catch (const std::exception& e) {
        EXPECT_THAT(e.what(), HasSubstr("another dtb gen"));
    }
    ::close(fd);
}

TEST_F(BuildTest, VerifyPassesOnABuildAndCatchesATamperedValue) {
    build_into(root_, 3);
    std::ostringstream log;
    const VerifyReport good = verify_folder(root_, {}, log);
    EXPECT_TRUE(good.ok());
    EXPECT_GT(good.positions_checked, 600000u);
    // Rewrite KvK with one non-capture value changed: checksums hold, the values must not.
    // W:WK46:BK5 is a loss; store it as a draw.
    // (Done through the writer so that the file itself is well formed.)
    const PositionIndex index(Material{0, 1, 0, 1});
    ValueTables empty;
    auto solved = solve_material_pair(Material{0, 1, 0, 1}, empty);
    Position p;
    p.white = p.kings = square_bit(46);
    p.black = square_bit(5);
    p.kings |= p.black;
    solved[0].values[index.index(p)] = static_cast<std::uint8_t>(Value::Draw);
    fs::remove(root_ / "KvK.wdl");
    write_wdl_file(root_, solved[0], WriteOptions{});
    const VerifyReport bad = verify_folder(root_, {}, log, 1000);
    EXPECT_FALSE(bad.ok());
    // The tampered position, and the positions moving into it (now implied draws), are reported.
    bool found = false;
    for (const Inconsistency& i : bad.inconsistencies)
        if (i.fen == "W:WK46:BK5") found = i.stored == Value::Draw && i.implied == Value::Loss;
    EXPECT_TRUE(found);
    EXPECT_GE(bad.inconsistency_count, 2u);
    EXPECT_LE(bad.inconsistency_count, 20u);
}

TEST_F(BuildTest, VerifyChecksDistancesToWinAndCatchesATamperedOne) {
    BuildOptions o;
    o.dir = root_;
    o.max_pieces = 3;
    o.dtw = true;
    std::ostringstream log;
    build(o, log);
    const VerifyReport good = verify_folder(root_, {}, log);
    EXPECT_TRUE(good.ok());
    // W:WK46:BK5 is lost in 2 plies; store 4.
    ValueTables wdl;
    for (SolvedMaterial& s : solve_material_pair(Material{0, 1, 0, 1}, wdl)) wdl.add(s.material, pack_values(s.values));
    auto solved = solve_dtw_pair(Material{0, 1, 0, 1}, wdl, DtwTables{});
    const PositionIndex index(Material{0, 1, 0, 1});
    const std::uint64_t i = index.index(parse_fen("W:WK46:BK5"));
    ASSERT_EQ(solved[0].dtw[i], 2);
    solved[0].dtw[i] = 4;
    fs::remove(root_ / "KvK.dtw");
    write_dtw_file(root_, solved[0], WriteOptions{});
    const VerifyReport bad = verify_folder(root_, {}, log, 1000);
    EXPECT_FALSE(bad.ok());
    bool found = false;
    for (const Inconsistency& c : bad.inconsistencies)
        if (c.fen == "W:WK46:BK5") found = c.stored_dtw == 4 && c.implied_dtw == 2;
    EXPECT_TRUE(found);
}

TEST_F(BuildTest, VerifyReportsMissingAndTruncatedFiles) {
    build_into(root_, 3);
    fs::remove(root_ / "KvM.wdl");
    fs::resize_file(root_ / "KKvK.wdl", fs::file_size(root_ / "KKvK.wdl") - 10);
    std::ostringstream log;
    const VerifyReport r = verify_folder(root_, {}, log);
    EXPECT_FALSE(r.ok());
    std::string all;
    for (const auto& e : r.errors) all += e + "\n";
    EXPECT_THAT(all, HasSubstr("KKvK.wdl"));
    EXPECT_THAT(all, HasSubstr("truncated"));
    EXPECT_THAT(all, HasSubstr("missing file"));
}

}  // namespace
}  // namespace dtb
