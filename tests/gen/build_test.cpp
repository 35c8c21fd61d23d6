// dtb gen as a builder: resumption, and refusal of unsafe situations.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <tbb/global_control.h>
#include <unistd.h>

#include "tests/gen/build_fixture.hpp"
#include "tests/gen/in_memory_tables.hpp"
#include "gen/builder.hpp"
#include "gen/dtw_solver.hpp"
#include "gen/verify.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"
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

TEST_F(BuildTest, CopiesOfFinishedTablesAreRemovedAtTheEndUnlessKept) {
    const auto materials = materials_in_build_order(3);
    const std::string saved = "scratch copies for a resumed build: " + std::to_string(materials.size()) + " saved";
    build_into(root_ / "plain", 3);
    EXPECT_FALSE(fs::exists(root_ / "plain" / ".dtb-spill"));
    EXPECT_THAT(log_, HasSubstr(saved));
    EXPECT_THAT(log_, HasSubstr(".dtb-spill removed"));
    keep_copies_ = true;
    build_into(root_ / "kept", 3);
    EXPECT_THAT(log_, HasSubstr(".dtb-spill kept"));
    for (const Material& m : materials)
        EXPECT_TRUE(fs::exists(root_ / "kept" / ".dtb-spill" / (m.name() + ".wdl"))) << m.name();
}

// A resumed build takes the finished tables back from the copies the first one kept instead of
// reading their files (and searching their capture positions again), and writes the same bytes.
TEST_F(BuildTest, AResumedBuildStartsFromTheCopiesOfFinishedTables) {
    only_ = {*parse_material("KKvKK")};  // reads KvKK only: a fast four-piece build
    build_into(root_ / "plain", 4);
    keep_copies_ = true;
    only_.clear();
    build_into(root_ / "kept", 3);
    only_ = {*parse_material("KKvKK")};
    build_into(root_ / "kept", 4);
    EXPECT_THAT(log_, HasSubstr("KvKK.wdl       scratch copy loaded"));
    EXPECT_THAT(log_, ::testing::Not(HasSubstr("reading from the folder")));
    EXPECT_EQ(read_bytes(root_ / "kept" / "KKvKK.wdl"), read_bytes(root_ / "plain" / "KKvKK.wdl"));
}

// A copy whose finished file has changed since (rebuilt, replaced), or that is damaged, is not
// used: the file is read as without copies, and the bytes written are the same.
TEST_F(BuildTest, ACopyOfAnotherFileOrADamagedCopyIsNotUsed) {
    only_ = {*parse_material("KKvKK")};
    build_into(root_ / "plain", 4);
    keep_copies_ = true;
    only_.clear();
    build_into(root_ / "kept", 3);
    // The same values in other bytes: KvKK.wdl of another build, at another compression level.
    {
        BuildOptions o;
        o.dir = root_ / "other";
        o.max_pieces = 3;
        o.write.zstd_level = 1;
        std::ostringstream ignored;
        build(o, ignored);
    }
    const fs::path kvkk = root_ / "kept" / "KvKK.wdl";
    ASSERT_NE(read_bytes(root_ / "other" / "KvKK.wdl"), read_bytes(kvkk));
    fs::copy_file(root_ / "other" / "KvKK.wdl", kvkk, fs::copy_options::overwrite_existing);
    // KvKK's captures reach KvK: its copy, damaged, is not used either.
    const fs::path kvk_copy = root_ / "kept" / ".dtb-spill" / "KvK.wdl";
    std::string copy = read_bytes(kvk_copy);
    copy[copy.size() / 3] ^= 0x20;
    std::ofstream(kvk_copy, std::ios::binary | std::ios::trunc) << copy;
    only_ = {*parse_material("KKvKK")};
    build_into(root_ / "kept", 4);
    EXPECT_THAT(log_, HasSubstr("KvKK.wdl: reading from the folder"));
    EXPECT_THAT(log_, HasSubstr("KvK.wdl: scratch copy not used"));
    EXPECT_THAT(log_, HasSubstr("KvK.wdl: reading from the folder"));
    EXPECT_EQ(read_bytes(root_ / "kept" / "KKvKK.wdl"), read_bytes(root_ / "plain" / "KKvKK.wdl"));
}

// Flips a bit in the last block of a finished file; returns the file's new bytes.
std::string corrupt_last_block(const fs::path& f) {
    std::string bytes = read_bytes(f);
    bytes[bytes.size() - 3] ^= 0x40;
    std::ofstream(f, std::ios::binary | std::ios::trunc) << bytes;
    return bytes;
}

TEST_F(BuildTest, RefusesACorruptFinishedFile) {
    build_into(root_, 2);
    const fs::path f = root_ / "KvK.wdl";
    const std::string bytes = corrupt_last_block(f);
    try {
        build_into(root_, 3);
        FAIL() << "a corrupt KvK.wdl was used";
    } catch (const std::exception& e) {
        EXPECT_THAT(e.what(), HasSubstr("KvK.wdl"));
        EXPECT_THAT(e.what(), HasSubstr("corrupt"));
    }
    EXPECT_EQ(read_bytes(f), bytes);  // nothing is deleted or overwritten
}

// A finished file that no material still to build reads is checked too: rerunning the same build
// must not call a damaged folder finished.
TEST_F(BuildTest, RefusesACorruptBlockInAFileNothingReadsAgain) {
    build_into(root_, 2);
    const fs::path f = root_ / "KvK.wdl";
    const std::string bytes = corrupt_last_block(f);
    try {
        build_into(root_, 2);
        FAIL() << "a build over a corrupt KvK.wdl called it finished";
    } catch (const TableError& e) {
        EXPECT_THAT(e.what(), HasSubstr("KvK.wdl"));
        EXPECT_THAT(e.what(), HasSubstr("delete the file"));
    }
    EXPECT_EQ(read_bytes(f), bytes);
}

TEST_F(BuildTest, RefusesAnInvalidBlockSizeBeforeSolvingAnything) {
    BuildOptions o;
    o.dir = root_;
    o.max_pieces = 2;
    o.write.positions_per_block = 7;
    std::ostringstream log;
    EXPECT_THROW(build(o, log), std::invalid_argument);
    EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(BuildTest, RemovesOnlyTheTemporaryFilesItMakes) {
    for (const char* name : {"KMvK.wdl.tmp", "KvK.dtw.tmp", "notes.tmp", "KvK.tmp", "XvY.wdl.tmp"})
        std::ofstream(root_ / name) << "someone's bytes";
    build_into(root_, 2);
    EXPECT_FALSE(fs::exists(root_ / "KMvK.wdl.tmp"));
    EXPECT_FALSE(fs::exists(root_ / "KvK.dtw.tmp"));
    for (const char* name : {"notes.tmp", "KvK.tmp", "XvY.wdl.tmp"}) EXPECT_TRUE(fs::exists(root_ / name)) << name;
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
    solved[0].values.set(index.index(p), Value::Draw);
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

// Verify finds what a position's king moves lead to family by family (KingMoveValues) where white
// has several kings: a value tampered with there must still show in the positions moving into it.
TEST_F(BuildTest, VerifyCatchesATamperedValueReachedByKingMoves) {
    build_into(root_, 3);
    const Material two_kings{0, 2, 0, 1}, one_king{0, 1, 0, 2};  // KKvK and its mirror KvKK
    const InMemoryTables t = solve_in_memory(3, false);
    // A drawn KKvK position with a king move into a drawn KvKK position: storing the latter as a
    // loss gives the former a winning move.
    const PositionIndex kk(two_kings), k(one_king);
    std::optional<std::pair<Position, Position>> found;
    for (std::uint64_t i = 0; i < kk.size() && !found; ++i) {
        const Position before = kk.position(i);
        if (has_capture(before) || t.wdl.value_of(before) != Value::Draw) continue;
        for (const Move& move : generate_quiet_moves(before)) {
            const Position after = white_to_move(apply_move(before, move));
            if (!has_capture(after) && t.wdl.value_of(after) == Value::Draw) {
                found.emplace(before, after);
                break;
            }
        }
    }
    ASSERT_TRUE(found);
    auto solved = solve_material_pair(two_kings, t.wdl);
    for (SolvedMaterial& s : solved) {
        if (s.material != one_king) continue;
        s.values.set(k.index(found->second), Value::Loss);
        fs::remove(root_ / format::wdl_file_name(one_king));
        write_wdl_file(root_, s, WriteOptions{});
    }
    std::ostringstream log;
    const VerifyReport bad = verify_folder(root_, {}, log, 100000);
    EXPECT_FALSE(bad.ok());
    const auto reported = [&](const Position& p, Value stored, Value implied) {
        return std::any_of(bad.inconsistencies.begin(), bad.inconsistencies.end(), [&](const Inconsistency& i) {
            return i.fen == to_fen(p) && i.stored == stored && i.implied == implied;
        });
    };
    EXPECT_TRUE(reported(found->second, Value::Loss, Value::Draw));  // the tampered position
    EXPECT_TRUE(reported(found->first, Value::Draw, Value::Win));    // and a king move into it
}

// Rewrites the .dtw file of `m` with `stored` at position `index` instead of its true distance,
// in the encoding of `store_wins`, and returns dtb verify's report.
VerifyReport verify_with_tampered_distance(const fs::path& dir, const Material& m, std::uint64_t index, Dtw stored,
                                           bool store_wins, std::ostream& log) {
    const InMemoryTables t = solve_in_memory(2, true);
    DtwMaterial tampered{m, *t.dtw.table(m)};
    tampered.dtw.at(index) = stored;
    fs::remove(dir / format::dtw_file_name(m));
    WriteOptions options;
    options.dtw_store_wins = store_wins;
    write_dtw_file(dir, tampered, options);
    return verify_folder(dir, {}, log, 1000);
}

bool reports(const VerifyReport& r, const std::string& fen, int stored_dtw, int implied_dtw) {
    return std::any_of(r.inconsistencies.begin(), r.inconsistencies.end(), [&](const Inconsistency& c) {
        return c.fen == fen && c.stored_dtw == stored_dtw && c.implied_dtw == implied_dtw;
    });
}

bool names_file(const VerifyReport& r, const std::string& name) {
    return std::any_of(r.errors.begin(), r.errors.end(), [&](const std::string& e) { return e.find(name) != std::string::npos; });
}

// A loss stored longer or shorter than its successors imply is caught, in both encodings. Where only
// the losses are stored, a wrong loss may also change the wins found from it, so that they no
// longer match the header's longest win: the file is then refused as a whole.
TEST_F(BuildTest, VerifyChecksDistancesToWinAndCatchesATamperedOne) {
    const Material kvk{0, 1, 0, 1}, mvm{1, 0, 1, 0};
    const std::uint64_t lost_king = PositionIndex(kvk).index(parse_fen("W:WK46:BK5"));  // lost in 2 plies
    // The first position of MvM lost in 2 plies without a capture (16 plies shorter than its longest win).
    const InMemoryTables t = solve_in_memory(2, true);
    const PositionIndex mvm_index(mvm);
    std::uint64_t lost_man = 0;
    while (t.dtw.table(mvm)->at(lost_man) != 2 || has_capture(mvm_index.position(lost_man))) ++lost_man;
    const std::string lost_man_fen = to_fen(mvm_index.position(lost_man));
    ASSERT_EQ(t.dtw.table(kvk)->at(lost_king), 2);
    for (const bool store_wins : {false, true}) {
        SCOPED_TRACE(store_wins ? "wins stored" : "losses only");
        const fs::path dir = root_ / (store_wins ? "all" : "losses");
        BuildOptions o;
        o.dir = dir;
        o.max_pieces = 3;
        o.dtw = true;
        o.write.dtw_store_wins = store_wins;
        std::ostringstream log;
        build(o, log);
        EXPECT_TRUE(verify_folder(dir, {}, log).ok());
        const VerifyReport shorter = verify_with_tampered_distance(dir, mvm, lost_man, 0, store_wins, log);
        EXPECT_TRUE(reports(shorter, lost_man_fen, 0, 2)) << (shorter.errors.empty() ? "" : shorter.errors[0]);
        EXPECT_FALSE(shorter.ok());
        const VerifyReport longer = verify_with_tampered_distance(dir, kvk, lost_king, 4, store_wins, log);
        EXPECT_FALSE(longer.ok());
        if (store_wins)
            EXPECT_TRUE(reports(longer, "W:WK46:BK5", 4, 2));
        else  // the wins moving into it would take 5 plies, beyond KvK's longest win (3)
            EXPECT_TRUE(names_file(longer, "KvK.dtw"));
    }
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
