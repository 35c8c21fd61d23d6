// Unit tests of the probing library on synthetic tables written by the test itself: values,
// capture resolution, soft probes, per-move values, the cache, and damaged or missing files.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>

#include "index/position_index.hpp"
#include "probe/table_file.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "tests/probe/test_tables.hpp"

namespace dtb {
namespace {

using test::reference_value;

constexpr std::uint32_t kBlock = 500;  // small blocks: many per file

class TablebaseTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = test::fresh_dir("unit");
        test::write_synthetic_tables(dir_, 3, kBlock);
    }
    static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

    // Fills `copy` with a copy of the tables, to damage.
    static void copy_tables(const std::filesystem::path& copy) {
        std::filesystem::copy(dir_, copy,
                              std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
    }

    // Random valid positions of up to 3 pieces, either side to move.
    static std::vector<Position> random_positions(int n, unsigned seed) {
        std::mt19937_64 rng(seed);
        const auto materials = materials_in_build_order(3);
        std::vector<Position> out;
        while (static_cast<int>(out.size()) < n) {
            const PositionIndex index(materials[rng() % materials.size()]);
            const Position p = index.position(rng() % index.size());
            out.push_back(rng() % 2 ? flip_colors(p) : p);
        }
        return out;
    }

    static std::filesystem::path dir_;
};
std::filesystem::path TablebaseTest::dir_;

// Collects log messages (the callback may be called from any probing thread).
struct LogSink {
    std::shared_ptr<std::vector<std::string>> lines = std::make_shared<std::vector<std::string>>();
    std::function<void(std::string_view)> callback() {
        auto l = lines;
        return [l](std::string_view s) { l->emplace_back(s); };
    }
};

TEST_F(TablebaseTest, ListsMaterialsAndMaxPieces) {
    const Tablebase tb(dir_);
    EXPECT_EQ(tb.max_pieces(), 3);
    EXPECT_EQ(tb.materials(), materials_in_build_order(3));
    EXPECT_TRUE(tb.has_table(*parse_material("KMvK")));
    EXPECT_FALSE(tb.has_table(*parse_material("KKvKK")));
    const Tablebase two(dir_, {.max_pieces = 2});
    EXPECT_EQ(two.max_pieces(), 2);
    EXPECT_EQ(two.materials(), materials_in_build_order(2));
}

TEST_F(TablebaseTest, MissingFolderThrows) {
    EXPECT_THROW(Tablebase(dir_ / "no-such-folder"), std::runtime_error);
    EXPECT_THROW(Tablebase(dir_ / "KvK.wdl"), std::runtime_error);  // a file, not a folder
}

TEST_F(TablebaseTest, EmptyFolderCoversNothing) {
    const test::TempDir empty("empty");
    const Tablebase tb(empty);
    EXPECT_EQ(tb.max_pieces(), 0);
    const ProbeResult r = tb.probe_wdl(parse_fen("W:WK46:BK5"));
    EXPECT_EQ(r.value, Value::Unknown);
    EXPECT_EQ(r.error, ProbeError::TooManyPieces);
}

TEST_F(TablebaseTest, EveryStoredValueOfSmallMaterials) {
    const Tablebase tb(dir_);
    for (const Material& m : materials_in_build_order(2)) {
        const PositionIndex index(m);
        for (std::uint64_t i = 0; i < index.size(); ++i) {
            const Position p = index.position(i);
            const Value expected = reference_value(p);
            ASSERT_EQ(tb.probe_wdl(p).value, expected) << to_fen(p);
            ASSERT_EQ(tb.probe_wdl(flip_colors(p)).value, expected) << to_fen(flip_colors(p));
        }
    }
}

TEST_F(TablebaseTest, RandomPositionsIncludingCaptures) {
    const Tablebase tb(dir_, {.cache_mb = 1});
    int captures = 0;
    for (const Position& p : random_positions(20000, 1)) {
        const ProbeResult r = tb.probe_wdl(p);
        ASSERT_TRUE(r.known()) << to_fen(p) << ": " << r.reason;
        EXPECT_EQ(r.error, ProbeError::None);
        EXPECT_TRUE(r.reason.empty());
        ASSERT_EQ(r.value, reference_value(p)) << to_fen(p);
        captures += has_capture(p);
    }
    EXPECT_GT(captures, 1000);  // the sample does exercise capture resolution
}

TEST_F(TablebaseTest, CaptureIntoSmallerDatabases) {
    const Tablebase tb(dir_);
    // White's man on 28 takes the last black piece: a win whatever the tables hold.
    EXPECT_EQ(tb.probe_wdl(parse_fen("W:W28:B23")).value, Value::Win);
    // Black to move must take: same thing seen from black.
    EXPECT_EQ(tb.probe_wdl(parse_fen("B:W28:B23")).value, Value::Win);
    // Four pieces (no 4-piece table) where white must capture into 3 pieces: still answered.
    const Position four = parse_fen("W:W28,K46:B23,K5");
    ASSERT_TRUE(has_capture(four));
    const ProbeResult r = tb.probe_wdl(four);
    ASSERT_TRUE(r.known()) << r.reason;
    EXPECT_EQ(r.value, reference_value(four));
}

TEST_F(TablebaseTest, NoPiecesLoses) {
    const Tablebase tb(dir_);
    EXPECT_EQ(tb.probe_wdl(parse_fen("W:W:B1")).value, Value::Loss);
    EXPECT_EQ(tb.probe_wdl(parse_fen("B:W31:B")).value, Value::Loss);
    EXPECT_EQ(tb.probe_wdl(parse_fen("W:W31:B")).value, Value::Win);
}

TEST_F(TablebaseTest, TooManyPiecesWithoutCapture) {
    LogSink log;
    const Tablebase tb(dir_, {.log = log.callback()});
    const ProbeResult r = tb.probe_wdl(parse_fen("W:WK46,K47:BK5,K4"));
    EXPECT_EQ(r.value, Value::Unknown);
    EXPECT_EQ(r.error, ProbeError::TooManyPieces);
    EXPECT_FALSE(r.reason.empty());
    EXPECT_STREQ(probe_error_name(r.error), "too-many-pieces");
}

TEST_F(TablebaseTest, InvalidPositions) {
    const Tablebase tb(dir_);
    const auto expect_invalid = [&](const Position& p) {
        const ProbeResult r = tb.probe_wdl(p);
        EXPECT_EQ(r.value, Value::Unknown);
        EXPECT_EQ(r.error, ProbeError::InvalidPosition);
        EXPECT_FALSE(r.reason.empty());
        EXPECT_EQ(tb.probe_wdl_soft(p).error, ProbeError::InvalidPosition);
        EXPECT_THROW(tb.probe_moves(p), std::invalid_argument);
    };
    expect_invalid({square_bit(28), square_bit(28) | square_bit(1), 0, Color::White});  // overlap
    expect_invalid({square_bit(3), square_bit(40), 0, Color::White});                   // white man on 1-5
    expect_invalid({square_bit(30), square_bit(48), 0, Color::White});                  // black man on 46-50
    expect_invalid({square_bit(30), square_bit(20), square_bit(25), Color::White});     // king on no piece
    expect_invalid({square_bit(30) | (Bitboard{1} << 10), square_bit(20), 0, Color::White});  // ghost bit
    expect_invalid({square_bit(30), square_bit(20), 0, static_cast<Color>(2)});
    EXPECT_EQ(position_problem(parse_fen("W:W31-50:B1-20")), nullptr);
}

TEST_F(TablebaseTest, SoftProbeAnswersOnlyFromCache) {
    const Tablebase tb(dir_);
    const auto positions = random_positions(2000, 2);
    for (const Position& p : positions) {
        const ProbeResult soft = tb.probe_wdl_soft(p);
        if (soft.known()) {  // possible once an earlier probe cached the blocks it needs
            EXPECT_EQ(soft.value, reference_value(p));
            continue;
        }
        EXPECT_EQ(soft.error, ProbeError::NotCached);
        EXPECT_FALSE(soft.reason.empty());
        const ProbeResult hard = tb.probe_wdl(p);
        ASSERT_TRUE(hard.known());
        const ProbeResult again = tb.probe_wdl_soft(p);
        ASSERT_TRUE(again.known()) << to_fen(p);
        EXPECT_EQ(again.value, hard.value);
    }
}

TEST_F(TablebaseTest, SoftProbeNeverReadsTheDisk) {
    const Tablebase tb(dir_, {.cache_mb = 0});
    for (const Position& p : random_positions(500, 3)) {
        const ProbeResult r = tb.probe_wdl_soft(p);
        // Only captures that run out of pieces can be answered without tables.
        if (r.known()) {
            EXPECT_TRUE(has_capture(white_to_move(p))) << to_fen(p);
            EXPECT_EQ(r.value, reference_value(p)) << to_fen(p);
        } else {
            EXPECT_EQ(r.error, ProbeError::NotCached);
        }
    }
    EXPECT_EQ(tb.cache_stats().blocks, 0u);
}

// Every position of up to 3 pieces, either side to move: a quiet position gets probe_wdl's answer,
// a capture position is reported, never answered with the synthetic byte stored for it.
TEST_F(TablebaseTest, QuietProbeAgreesOnQuietPositionsAndReportsCaptures) {
    const Tablebase tb(dir_);
    std::uint64_t quiet = 0, captures = 0, stored_byte_wrong = 0;
    for (const Material& m : materials_in_build_order(3)) {
        const PositionIndex index(m);
        for (std::uint64_t i = 0; i < index.size(); ++i) {
            Position other_side = index.position(i);
            other_side.side_to_move = Color::Black;  // same board, black to move
            for (const Position& p : {index.position(i), other_side}) {
                const ProbeResult q = tb.probe_wdl_quiet(p);
                if (has_capture(p)) {
                    ASSERT_EQ(q.value, Value::Unknown) << to_fen(p);
                    ASSERT_EQ(q.error, ProbeError::Capture) << to_fen(p);
                    ASSERT_FALSE(q.reason.empty());
                    const Position w = white_to_move(p);
                    const Material wm = material_of(w);
                    stored_byte_wrong += test::synthetic_value(wm, PositionIndex(wm).index(w)) != tb.probe_wdl(p).value;
                    ++captures;
                    continue;
                }
                const ProbeResult r = tb.probe_wdl(p);
                ASSERT_TRUE(r.known()) << to_fen(p);
                ASSERT_EQ(q.value, r.value) << to_fen(p);
                ASSERT_EQ(q.error, ProbeError::None);
                ASSERT_TRUE(q.reason.empty());
                ++quiet;
            }
        }
    }
    EXPECT_GT(quiet, 1'000'000u);
    EXPECT_GT(captures, 100'000u);
    EXPECT_GT(stored_byte_wrong, 10'000u);  // returning the stored byte would be caught above
    EXPECT_STREQ(probe_error_name(ProbeError::Capture), "capture");
}

TEST_F(TablebaseTest, QuietProbeBeyondTheTablesAndOnInvalidPositions) {
    const Tablebase tb(dir_);
    // Four pieces: a capture is reported as such (it is not looked up), a quiet position is beyond the tables.
    const ProbeResult capture = tb.probe_wdl_quiet(parse_fen("W:W28,K46:B23,K5"));
    EXPECT_EQ(capture.error, ProbeError::Capture);
    const ProbeResult beyond = tb.probe_wdl_quiet(parse_fen("W:WK46,K47:BK5,K4"));
    EXPECT_EQ(beyond.value, Value::Unknown);
    EXPECT_EQ(beyond.error, ProbeError::TooManyPieces);
    // A side without pieces is decided by the rules.
    EXPECT_EQ(tb.probe_wdl_quiet(parse_fen("W:W:B1")).value, Value::Loss);
    EXPECT_EQ(tb.probe_wdl_quiet(parse_fen("W:W31:B")).value, Value::Win);
    const ProbeResult invalid = tb.probe_wdl_quiet({square_bit(28), square_bit(28) | square_bit(1), 0, Color::White});
    EXPECT_EQ(invalid.error, ProbeError::InvalidPosition);
}

TEST_F(TablebaseTest, QuietProbeOfAMissingTable) {
    const test::TempDir copy("quiet-missing");
    copy_tables(copy);
    std::filesystem::remove(copy.path() / "KvK.wdl");
    const Tablebase tb(copy);
    const ProbeResult r = tb.probe_wdl_quiet(parse_fen("W:WK1:BK50"));
    EXPECT_EQ(r.value, Value::Unknown);
    EXPECT_EQ(r.error, ProbeError::MissingTable);
}

TEST_F(TablebaseTest, ProbeMovesBestFirst) {
    const Tablebase tb(dir_);
    for (const Position& p : random_positions(3000, 4)) {
        const auto moves = tb.probe_moves(p);
        const MoveList legal = generate_moves(p);
        ASSERT_EQ(moves.size(), legal.size());
        for (std::size_t i = 0; i < moves.size(); ++i) {
            const Value expected = negate(reference_value(apply_move(p, moves[i].move)));
            ASSERT_EQ(moves[i].result.value, expected);
            if (i > 0) {
                const auto rank = [](Value v) { return v == Value::Win ? 0 : v == Value::Draw ? 1 : 2; };
                EXPECT_LE(rank(moves[i - 1].result.value), rank(moves[i].result.value));
            }
        }
        // The best move's value is the position's value where it is computed from the moves (the
        // synthetic values of other positions are arbitrary).
        if (has_capture(p)) {
            EXPECT_EQ(moves.front().result.value, tb.probe_wdl(p).value) << to_fen(p);
        }
    }
}

TEST_F(TablebaseTest, CacheHitsAndBound) {
    const Tablebase tb(dir_, {.cache_mb = 1});
    const auto positions = random_positions(5000, 5);
    for (const Position& p : positions) tb.probe_wdl(p);
    const CacheStats first = tb.cache_stats();
    EXPECT_GT(first.misses, 0u);
    EXPECT_LE(first.bytes, first.capacity_bytes);
    for (const Position& p : positions) tb.probe_wdl(p);
    const CacheStats second = tb.cache_stats();
    EXPECT_GT(second.hits, first.hits);
    EXPECT_LE(second.bytes, second.capacity_bytes);
    tb.clear_cache();
    EXPECT_EQ(tb.cache_stats().blocks, 0u);
    EXPECT_EQ(tb.cache_stats().bytes, 0u);
}

TEST_F(TablebaseTest, ZeroCacheKeepsNothingButAnswers) {
    const Tablebase tb(dir_, {.cache_mb = 0});
    for (const Position& p : random_positions(1000, 6)) ASSERT_EQ(tb.probe_wdl(p).value, reference_value(p));
    EXPECT_EQ(tb.cache_stats().blocks, 0u);
    EXPECT_EQ(tb.cache_stats().hits, 0u);
}

TEST_F(TablebaseTest, OneOpenFileAtATime) {
    const Tablebase tb(dir_, {.cache_mb = 0, .max_open_files = 1});
    for (const Position& p : random_positions(2000, 7)) ASSERT_EQ(tb.probe_wdl(p).value, reference_value(p));
}

// ----------------------------------------------------------------------------------------------
// Damaged and missing files: Unknown with a reason, a log line, never a value, never a crash.

struct Damage {
    std::filesystem::path dir;
    Material material;
    // Every position of `material` with white to move, a move, and no capture: the ones whose value
    // only the file can give (no move at all is a loss, file or not).
    std::vector<Position> positions;
};

Damage positions_of(const std::filesystem::path& dir, const char* name) {
    Damage d{dir, *parse_material(name), {}};
    const PositionIndex index(d.material);
    for (std::uint64_t i = 0; i < index.size(); ++i)
        if (const Position p = index.position(i); !has_capture(p) && count_moves(p) > 0) d.positions.push_back(p);
    return d;
}

void expect_unknown(const Tablebase& tb, const Position& p, ProbeError error, const std::string& mention) {
    const ProbeResult r = tb.probe_wdl(p);
    EXPECT_EQ(r.value, Value::Unknown) << to_fen(p);
    EXPECT_EQ(r.error, error) << to_fen(p) << ": " << r.reason;
    EXPECT_NE(std::string(r.reason).find(mention), std::string::npos) << r.reason;
    EXPECT_EQ(r.reason.data()[r.reason.size()], '\0');  // usable as a C string
}

// Other materials answer normally.
void expect_others_fine(const Tablebase& tb) {
    EXPECT_TRUE(tb.probe_wdl(parse_fen("W:WK46:BK5")).known());
    EXPECT_TRUE(tb.probe_wdl(parse_fen("W:WK46,K50:BK5")).known());
}

TEST_F(TablebaseTest, MissingFile) {
    const test::TempDir tmp("missing");
    copy_tables(tmp);
    const std::filesystem::path& dir = tmp;
    std::filesystem::remove(dir / "KMvK.wdl");
    LogSink log;
    const Tablebase tb(dir, {.log = log.callback()});
    EXPECT_FALSE(tb.has_table(*parse_material("KMvK")));
    EXPECT_EQ(tb.max_pieces(), 3);
    const Damage d = positions_of(dir, "KMvK");
    for (int i = 0; i < 50; ++i) {
        const Position& p = d.positions[i * 97];
        expect_unknown(tb, p, ProbeError::MissingTable, "KMvK.wdl");
    }
    ASSERT_EQ(log.lines->size(), 1u);  // said once
    EXPECT_NE(log.lines->front().find("KMvK.wdl"), std::string::npos);
    expect_others_fine(tb);
}

TEST_F(TablebaseTest, FlippedByteInBlock) {
    const test::TempDir tmp("flipped");
    copy_tables(tmp);
    const std::filesystem::path& dir = tmp;
    const Damage d = positions_of(dir, "KKvK");
    const PositionIndex index(d.material);
    const Position victim = d.positions[d.positions.size() / 2];
    const std::uint64_t bad_block = index.index(victim) / kBlock;
    test::flip_block_byte(dir / "KKvK.wdl", bad_block);
    LogSink log;
    const Tablebase tb(dir, {.log = log.callback()});
    for (int round = 0; round < 3; ++round) {
        int bad = 0, good = 0;
        for (const Position& p : d.positions) {
            if (index.index(p) / kBlock == bad_block) {
                expect_unknown(tb, p, ProbeError::BadTable, "block " + std::to_string(bad_block));
                ++bad;
            } else {
                ASSERT_EQ(tb.probe_wdl(p).value, reference_value(p));
                ++good;
            }
        }
        EXPECT_GT(bad, 0);
        EXPECT_GT(good, 0);
    }
    ASSERT_EQ(log.lines->size(), 1u);
    EXPECT_NE(log.lines->front().find("KKvK.wdl"), std::string::npos);
}

TEST_F(TablebaseTest, TruncatedFile) {
    const test::TempDir tmp("truncated");
    copy_tables(tmp);
    const std::filesystem::path& dir = tmp;
    const auto path = dir / "KvKM.wdl";
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
    LogSink log;
    const Tablebase tb(dir, {.log = log.callback()});
    const Damage d = positions_of(dir, "KvKM");
    for (int i = 0; i < 20; ++i) {
        const Position& p = d.positions[i * 101];
        expect_unknown(tb, p, ProbeError::BadTable, "truncated");
    }
    EXPECT_EQ(log.lines->size(), 1u);
    expect_others_fine(tb);
}

TEST_F(TablebaseTest, TruncatedToNothing) {
    const test::TempDir tmp("empty-file");
    copy_tables(tmp);
    const std::filesystem::path& dir = tmp;
    std::filesystem::resize_file(dir / "KvKM.wdl", 0);
    const Tablebase tb(dir);
    const Damage d = positions_of(dir, "KvKM");
    expect_unknown(tb, d.positions[7], ProbeError::BadTable, "KvKM.wdl");
}

TEST_F(TablebaseTest, OtherFormatVersion) {
    const test::TempDir tmp("version");
    copy_tables(tmp);
    const std::filesystem::path& dir = tmp;
    test::set_format_version(dir / "MvM.wdl", format::kFormatVersion + 1);
    LogSink log;
    const Tablebase tb(dir, {.log = log.callback()});
    const Damage d = positions_of(dir, "MvM");
    for (int i = 0; i < 20; ++i) expect_unknown(tb, d.positions[i * 31], ProbeError::BadTable, "version");
    EXPECT_EQ(log.lines->size(), 1u);
    expect_others_fine(tb);
}

// KvK in blocks of 500 positions, each block all wins or all draws by its parity: full blocks
// compress to frames of one length, so one can take another's place in the file.
void write_alternating_kvk(const std::filesystem::path& dir, std::uint32_t format_version) {
    test::write_table(
        dir, *parse_material("KvK"), kBlock, [](std::uint64_t i) { return (i / kBlock) % 2 ? Value::Draw : Value::Win; },
        format_version);
}

// Copies the frame of block `from` over the frame of block `to`, which must be as long.
void copy_frame(const std::filesystem::path& p, std::uint64_t from, std::uint64_t to) {
    auto bytes = test::read_bytes(p);
    const std::uint64_t length = test::block_offset(bytes, from + 1) - test::block_offset(bytes, from);
    ASSERT_EQ(test::block_offset(bytes, to + 1) - test::block_offset(bytes, to), length);
    std::memmove(bytes.data() + test::block_offset(bytes, to), bytes.data() + test::block_offset(bytes, from), length);
    test::write_bytes(p, bytes);
}

TEST_F(TablebaseTest, VersionOneCannotTellABlockMovedWithinTheFile) {
    // Why version 2 exists: a version-1 file takes a valid frame in another block's place.
    const test::TempDir tmp("moved-v1");
    write_alternating_kvk(tmp, 1);
    copy_frame(tmp.path() / "KvK.wdl", 1, 0);
    const TableFile file(tmp.path() / "KvK.wdl");
    std::vector<std::uint8_t> block;
    file.read_block(0, block);
    EXPECT_EQ(format::unpack_value(block.data(), 0), Value::Draw);  // block 1's value, not block 0's win
}

TEST_F(TablebaseTest, BlockMovedWithinTheFileIsRefused) {
    const test::TempDir tmp("moved");
    write_alternating_kvk(tmp, format::kFormatVersion);
    copy_frame(tmp.path() / "KvK.wdl", 1, 0);
    const TableFile file(tmp.path() / "KvK.wdl");
    std::vector<std::uint8_t> block;
    try {
        file.read_block(0, block);
        FAIL() << "block 0 holds block 1's frame and was read";
    } catch (const TableError& e) {
        EXPECT_NE(std::string(e.what()).find("block 0 is corrupt (its block check"), std::string::npos) << e.what();
    }
    file.read_block(1, block);
    EXPECT_EQ(format::unpack_value(block.data(), 0), Value::Draw);
    file.read_block(2, block);
    EXPECT_EQ(format::unpack_value(block.data(), 0), Value::Win);

    const Tablebase tb(tmp.path());
    const PositionIndex index(*parse_material("KvK"));
    for (std::uint64_t i = 0; i < 3 * kBlock; i += 7) {
        const Position p = index.position(i);
        if (has_capture(p)) continue;  // answered by its captures, without reading the block
        const ProbeResult r = tb.probe_wdl(p);
        if (i < kBlock)
            EXPECT_EQ(r.error, ProbeError::BadTable) << i;
        else
            EXPECT_EQ(r.value, (i / kBlock) % 2 ? Value::Draw : Value::Win) << i;
    }
}

TEST_F(TablebaseTest, VersionOneFilesAreStillRead) {
    const test::TempDir tmp("v1");
    for (const Material& m : materials_in_build_order(3))
        test::write_table(tmp, m, kBlock, [&](std::uint64_t i) { return test::synthetic_value(m, i); }, 1);
    EXPECT_EQ(TableFile(tmp.path() / "KvK.wdl").header().format_version, 1u);
    LogSink log;
    const Tablebase tb(tmp.path(), {.log = log.callback()});
    for (const Position& p : random_positions(3000, 11)) ASSERT_EQ(tb.probe_wdl(p).value, reference_value(p));
    ASSERT_EQ(log.lines->size(), 1u);  // said once for the folder, not once a file
    EXPECT_NE(log.lines->front().find("format version 1"), std::string::npos) << log.lines->front();
    EXPECT_NE(log.lines->front().find("dtb upgrade --db"), std::string::npos) << log.lines->front();
}

TEST_F(TablebaseTest, WrongMaterialInFile) {
    const test::TempDir tmp("renamed");
    copy_tables(tmp);
    const std::filesystem::path& dir = tmp;
    std::filesystem::copy_file(dir / "KvM.wdl", dir / "MvK.wdl", std::filesystem::copy_options::overwrite_existing);
    const Tablebase tb(dir);
    const Damage d = positions_of(dir, "MvK");
    expect_unknown(tb, d.positions[3], ProbeError::BadTable, "holds material");
}

TEST_F(TablebaseTest, CaptureIntoMissingTableIsUnknownUnlessAWinIsFound) {
    const test::TempDir tmp("capture-missing");
    copy_tables(tmp);
    const std::filesystem::path& dir = tmp;
    std::filesystem::remove(dir / "KvKK.wdl");
    const Tablebase tb(dir);
    // White's king on 46 must take 28 (landing on 23, 19, 14, 10 or 5): black, to move with a king
    // against two, is in KvKK once flipped.
    const Position p = parse_fen("W:WK46,K50:B28,K1");
    ASSERT_TRUE(has_capture(p));
    const ProbeResult r = tb.probe_wdl(p);
    if (r.known()) {
        // Only possible through a line that wins regardless of the missing table.
        EXPECT_EQ(r.value, Value::Win);
        EXPECT_EQ(r.value, reference_value(p));
    } else {
        EXPECT_EQ(r.error, ProbeError::MissingTable);
    }
}

// ----------------------------------------------------------------------------------------------
// Hostile folders: what stands under a database file's name is not always a database file.

// Runs `work` and ends the test program if it has not returned within 20 seconds: a probe that
// blocks (opening a named pipe waits for a writer) must fail the test, not hang it.
template <typename Work>
void within_seconds(Work&& work) {
    std::promise<void> finished;
    std::thread watchdog([done = finished.get_future()] {
        if (done.wait_for(std::chrono::seconds(20)) == std::future_status::ready) return;
        std::fprintf(stderr, "FAIL: blocked for 20 seconds\n");
        std::_Exit(1);
    });
    work();
    finished.set_value();
    watchdog.join();
}

// Opening `path` throws a TableError that mentions `mention`.
void expect_open_refused(const std::filesystem::path& path, const std::string& mention) {
    try {
        const TableFile file(path);
        ADD_FAILURE() << path << " opened";
    } catch (const TableError& e) {
        EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
}

// KMvK.wdl of a copy of the tables replaced by `make_bad`; its positions must be Unknown (BadTable)
// with a reason that mentions `mention`, said once, and the other materials must still answer.
void expect_table_refused(const test::TempDir& tmp, const std::function<void(const std::filesystem::path&)>& make_bad,
                          const std::string& mention) {
    const std::filesystem::path& dir = tmp;
    const auto path = dir / "KMvK.wdl";
    std::filesystem::remove(path);
    make_bad(path);
    LogSink log;
    const Tablebase tb(dir, {.log = log.callback()});
    const Damage d = positions_of(dir, "KMvK");
    within_seconds([&] {
        for (int i = 0; i < 10; ++i) expect_unknown(tb, d.positions[i * 53], ProbeError::BadTable, mention);
        expect_others_fine(tb);
    });
    ASSERT_EQ(log.lines->size(), 1u);
    EXPECT_NE(log.lines->front().find("KMvK.wdl"), std::string::npos) << log.lines->front();
    within_seconds([&] { expect_open_refused(path, mention); });
}

TEST_F(TablebaseTest, NamedPipeIsRefusedWithoutBlocking) {
    const test::TempDir tmp("fifo");
    copy_tables(tmp);
    expect_table_refused(
        tmp, [](const std::filesystem::path& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); },
        "not a regular file (a named pipe)");
}

TEST_F(TablebaseTest, FolderIsRefusedAsNotARegularFile) {
    const test::TempDir tmp("folder");
    copy_tables(tmp);
    expect_table_refused(
        tmp, [](const std::filesystem::path& p) { std::filesystem::create_directory(p); },
        "not a regular file (a folder)");
}

TEST_F(TablebaseTest, DeviceThroughASymlinkIsRefusedAsNotARegularFile) {
    const test::TempDir tmp("device");
    copy_tables(tmp);
    expect_table_refused(
        tmp, [](const std::filesystem::path& p) { std::filesystem::create_symlink("/dev/zero", p); },
        "not a regular file (a character device)");
}

TEST_F(TablebaseTest, HeaderClaimingAbsurdBlockCountsIsRefused) {
    // 128-byte files whose header checksum holds and whose block count matches their position
    // count: 2^61 and 2^27 blocks of 5 positions, where KMvK has a few thousand positions.
    for (const std::uint64_t blocks : {std::uint64_t{1} << 61, std::uint64_t{1} << 27}) {
        const test::TempDir tmp("absurd-blocks");
        copy_tables(tmp);
        expect_table_refused(
            tmp,
            [&](const std::filesystem::path& p) { test::write_header_only(p, *parse_material("KMvK"), blocks * 5, 5); },
            "header claims " + std::to_string(blocks * 5) + " positions, material KMvK has " +
                std::to_string(PositionIndex(*parse_material("KMvK")).size()));
    }
}

TEST_F(TablebaseTest, BlockTableLongerThanTheFileIsRefused) {
    const test::TempDir tmp("short-table");
    copy_tables(tmp);
    const Material m = *parse_material("KMvK");
    const std::uint64_t positions = PositionIndex(m).size();
    expect_table_refused(
        tmp, [&](const std::filesystem::path& p) { test::write_header_only(p, m, positions, 5); },
        "header claims " + std::to_string((positions + 4) / 5) + " blocks, more than a file of 128 bytes can hold");
}

TEST_F(TablebaseTest, HeaderWithAnImpossibleMaterialOrBlockSizeIsRefused) {
    const test::TempDir tmp("impossible");
    const auto path = tmp.path() / "KvK.wdl";
    test::write_header_only(path, Material{30, 0, 0, 1}, 1000, 5);
    expect_open_refused(path, "impossible material");
    test::write_header_only(path, *parse_material("KvK"), PositionIndex(*parse_material("KvK")).size(), 1u << 30);
    expect_open_refused(path, "invalid block size");
}

TEST_F(TablebaseTest, DtwFilesWithoutWdlFilesCoverNothing) {
    // The DTW files are used up to the WDL files' piece count: none here.
    const test::TempDir tmp("dtw-only");
    test::write_bytes(tmp.path() / "KKKvKK.dtw", {'x'});
    const Tablebase tb(tmp);
    EXPECT_EQ(tb.max_pieces(), 0);
    EXPECT_EQ(tb.max_dtw_pieces(), 0);
    const DtwResult r = tb.probe_dtw(parse_fen("W:WK46,K47,K48:BK5,K4"));
    EXPECT_EQ(r.value, Value::Unknown);
}

TEST_F(TablebaseTest, CacheSizeBeyondTheAddressSpaceIsUnbounded) {
    // 2^44 MiB is 2^64 bytes: it used to wrap to a cache of nothing.
    const Tablebase tb(dir_, {.cache_mb = std::size_t{1} << 44});
    EXPECT_EQ(tb.cache_stats().capacity_bytes, std::numeric_limits<std::size_t>::max());
    const Position p = parse_fen("W:WK46,K50:BK5");
    ASSERT_TRUE(tb.probe_wdl(p).known());
    ASSERT_TRUE(tb.probe_wdl(p).known());
    EXPECT_GE(tb.cache_stats().hits, 1u);
}

// The value the probe must give beyond the 3-piece tables: searched over every capture without
// pruning nor bound; Unknown where a line ends quiet with more than 3 pieces (unless the side to
// move there has no move), as the library's reasons say.
Value reference_value_beyond(const Position& pos) {
    const Position w = white_to_move(pos);
    if (w.white == 0) return Value::Loss;
    if (w.black == 0) return Value::Win;
    if (!has_capture(w)) {
        if (count_bits(w.white | w.black) <= 3) return reference_value(w);
        return count_moves(w) == 0 ? Value::Loss : Value::Unknown;
    }
    Value best = Value::Loss;
    bool unknown = false;
    for (const Move& mv : generate_moves(w)) {
        const Value after = reference_value_beyond(apply_move(w, mv));
        if (after == Value::Unknown) {
            unknown = true;
            continue;
        }
        const Value v = negate(after);
        if (v == Value::Win) return v;
        if (v == Value::Draw) best = v;
    }
    return unknown ? Value::Unknown : best;
}

// Random positions of `pieces` pieces (kings or men at random) whose side to move must capture.
std::vector<Position> random_capture_positions(int n, int pieces, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::vector<Position> out;
    while (static_cast<int>(out.size()) < n) {
        Position p{0, 0, 0, rng() % 2 ? Color::White : Color::Black};
        for (int placed = 0; placed < pieces;) {
            const int s = 1 + static_cast<int>(rng() % 50);
            const Bitboard b = square_bit(s);
            if ((p.white | p.black) & b) continue;
            const bool white = placed % 2 == 0, king = rng() % 3 == 0;
            if (!king && (white ? s <= 5 : s >= 46)) continue;
            (white ? p.white : p.black) |= b;
            if (king) p.kings |= b;
            ++placed;
        }
        if (has_capture(p)) out.push_back(p);
    }
    return out;
}

// Once a capture's line is unknown the search only looks for a win among the others: it must
// still answer exactly what the full search answers, no more known and no less.
TEST_F(TablebaseTest, PrunedCaptureSearchAnswersAsTheFullSearch) {
    const Tablebase tb(dir_, {.capture_search_nodes = 0});
    int known = 0, unknown = 0;
    for (const int pieces : {4, 5, 6, 7})
        for (const Position& p : random_capture_positions(400, pieces, 7 + pieces)) {
            const Value expected = reference_value_beyond(p);
            const ProbeResult r = tb.probe_wdl(p);
            ASSERT_EQ(r.value, expected) << to_fen(p);
            if (r.known()) {
                ++known;
                continue;
            }
            ++unknown;
            EXPECT_EQ(r.error, ProbeError::TooManyPieces) << to_fen(p);
            EXPECT_FALSE(r.reason.empty());
        }
    EXPECT_GT(known, 100);  // both kinds of answer are exercised
    EXPECT_GT(unknown, 100);
}

// Forty kings that can keep capturing: the capture tree is astronomically large, yet the first
// quiet line beyond the databases leaves only wins to look for, and each of those fails at once.
TEST_F(TablebaseTest, CaptureSearchFarBeyondTheTablesIsQuick) {
    const Tablebase tb(dir_, {.capture_search_nodes = 0});
    const auto start = std::chrono::steady_clock::now();
    for (const char* fen : {"B:WK1-15,K17-20,K27:BK31-50", "W:WK1-20:BK31-50"}) {
        const Position p = parse_fen(fen);
        const ProbeResult r = tb.probe_wdl(p);
        EXPECT_EQ(r.value, Value::Unknown) << fen;
        EXPECT_EQ(r.error, ProbeError::TooManyPieces) << fen;
        for (const MoveValue& m : tb.probe_moves(p)) EXPECT_FALSE(m.result.known()) << fen;
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
}

// The bound on the capture search: past it, Unknown with ProbeError::SearchLimit and a reason
// that says so, from probe_wdl, the soft probe, probe_moves and probe_dtw alike.
TEST_F(TablebaseTest, CaptureSearchStopsAtItsBound) {
    // White's king takes on a long diagonal; then black must capture back, and so on: a few dozen
    // positions, all within the 3-piece tables at the end.
    const Position p = parse_fen("W:WK46,K50,37:B28,K1,K19");
    ASSERT_TRUE(has_capture(p));
    const Tablebase unbounded(dir_, {.capture_search_nodes = 0});
    const ProbeResult full = unbounded.probe_wdl(p);
    ASSERT_TRUE(full.known()) << full.reason;
    EXPECT_EQ(full.value, reference_value(p));

    LogSink log;
    const Tablebase tb(dir_, {.capture_search_nodes = 2, .log = log.callback()});
    const ProbeResult r = tb.probe_wdl(p);
    EXPECT_EQ(r.value, Value::Unknown);
    EXPECT_EQ(r.error, ProbeError::SearchLimit);
    EXPECT_EQ(r.reason, "capture search exceeded 2 positions");
    EXPECT_STREQ(probe_error_name(r.error), "search-limit");
    EXPECT_EQ(tb.probe_wdl_soft(p).error, ProbeError::SearchLimit);
    EXPECT_EQ(tb.probe_dtw(p).error, ProbeError::SearchLimit);
    ASSERT_EQ(log.lines->size(), 1u);  // said once
    EXPECT_EQ(log.lines->front(), "capture search exceeded 2 positions");
    // A quiet position needs one: the bound does not get in its way.
    EXPECT_TRUE(tb.probe_wdl(parse_fen("W:WK46:BK5,10")).known());
    // Enough for the whole tree: the same value as without a bound.
    const Tablebase enough(dir_, {.capture_search_nodes = 100'000});
    EXPECT_EQ(enough.probe_wdl(p).value, full.value);
}

}  // namespace
}  // namespace dtb
