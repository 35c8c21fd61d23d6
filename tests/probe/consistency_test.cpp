// Exhaustive successor consistency of real databases (made by `dtb gen`, see probe_tests.cmake):
// for every position of every material of up to DTB_PROBE_DB_PIECES pieces, with either side to
// move, capture positions included, probe_wdl equals the best over the legal moves of the negated
// value after the move, and a side without moves has lost. No answer may be unknown.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "index/position_index.hpp"
#include "probe/resident_table.hpp"
#include "probe/table_file.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"

namespace dtb {
namespace {

const char* db_dir() { return std::getenv("DTB_PROBE_DB"); }

int db_pieces() {
    const char* s = std::getenv("DTB_PROBE_DB_PIECES");
    return s ? std::atoi(s) : 4;
}

// What the position's value must be given its successors' values; Unknown if any is unknown.
Value from_successors(const Tablebase& tb, const Position& p) {
    const MoveList moves = generate_moves(p);
    Value best = Value::Loss;
    for (const Move& m : moves) {
        const ProbeResult r = tb.probe_wdl(apply_move(p, m));
        if (!r.known()) return Value::Unknown;
        const Value v = negate(r.value);
        if (v == Value::Win) return v;
        if (v == Value::Draw) best = v;
    }
    return best;
}

class Consistency : public ::testing::Test {
protected:
    void SetUp() override {
        if (!db_dir()) GTEST_SKIP() << "DTB_PROBE_DB is not set (run through ctest)";
    }
};

TEST_F(Consistency, FindsAllMaterials) {
    const Tablebase tb(db_dir());
    EXPECT_EQ(tb.max_pieces(), db_pieces());
    EXPECT_EQ(tb.materials(), materials_in_build_order(db_pieces()));
}

TEST_F(Consistency, EveryPositionAgreesWithItsSuccessors) {
    const Tablebase tb(db_dir(), {.cache_mb = 256});
    struct Chunk {
        Material material;
        std::uint64_t begin, end;
    };
    std::vector<Chunk> chunks;
    constexpr std::uint64_t kChunk = 1 << 16;
    for (const Material& m : materials_in_build_order(db_pieces())) {
        const std::uint64_t size = PositionIndex(m).size();
        for (std::uint64_t b = 0; b < size; b += kChunk) chunks.push_back({m, b, std::min(size, b + kChunk)});
    }

    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> checked{0}, failures{0}, captures{0};
    std::mutex examples_mutex;
    std::vector<std::string> examples;
    const auto work = [&] {
        for (std::size_t c; (c = next++) < chunks.size();) {
            const PositionIndex index(chunks[c].material);
            std::uint64_t local_checked = 0, local_failures = 0, local_captures = 0;
            for (std::uint64_t i = chunks[c].begin; i < chunks[c].end; ++i) {
                const Position white = index.position(i);
                Position black = white;
                black.side_to_move = Color::Black;  // same board, other side to move
                for (const Position& p : {white, black}) {
                    const ProbeResult r = tb.probe_wdl(p);
                    const Value expected = from_successors(tb, p);
                    local_captures += has_capture(p);
                    ++local_checked;
                    if (r.known() && expected != Value::Unknown && r.value == expected) continue;
                    ++local_failures;
                    std::lock_guard lock(examples_mutex);
                    if (examples.size() < 20)
                        examples.push_back(to_fen(p) + ": probe " + value_name(r.value) + " (" + std::string(r.reason) +
                                           "), successors say " + value_name(expected));
                }
            }
            checked += local_checked;
            failures += local_failures;
            captures += local_captures;
        }
    };
    std::vector<std::thread> threads;
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned t = 0; t < n; ++t) threads.emplace_back(work);
    for (auto& t : threads) t.join();

    std::uint64_t expected_positions = 0;
    for (int k = 2; k <= db_pieces(); ++k) expected_positions += 2 * positions_with_pieces(k);
    EXPECT_EQ(checked.load(), expected_positions);
    EXPECT_GT(captures.load(), 0u);
    EXPECT_EQ(failures.load(), 0u);
    for (const auto& e : examples) ADD_FAILURE() << e;
    std::printf("checked %llu positions (%llu with a capture)\n", static_cast<unsigned long long>(checked.load()),
                static_cast<unsigned long long>(captures.load()));
}

// The resident form of every file (its codes as bytes, in the prefix code, and its value bytes
// held directly) gives position by position the value stored in its blocks.
TEST_F(Consistency, ResidentTablesHoldEveryStoredValue) {
    const auto materials = materials_in_build_order(db_pieces());
    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> checked{0}, failures{0};
    const auto work = [&] {
        std::vector<std::uint8_t> block;
        for (std::size_t k; (k = next++) < materials.size();) {
            const TableFile file(std::filesystem::path(db_dir()) / format::wdl_file_name(materials[k]));
            using Coding = detail::ResidentTable::Coding;
            const detail::ResidentTable in_bytes(file, 0, Coding::Bytes), in_bits(file, 0, Coding::Bits),
                direct(file, 0, Coding::Direct);
            const format::Header& h = file.header();
            std::uint64_t local_failures = 0;
            for (std::uint64_t b = 0; b < h.block_count; ++b) {
                file.read_block(b, block);
                const std::uint64_t first = b * h.positions_per_block;
                const std::uint64_t n = std::min<std::uint64_t>(h.positions_per_block, h.positions - first);
                for (std::uint64_t j = 0; j < n; ++j) {
                    const Value stored = format::unpack_value(block.data(), j);
                    local_failures += (in_bytes.value(first + j) != stored) + (in_bits.value(first + j) != stored) +
                                      (direct.value(first + j) != stored);
                }
            }
            checked += h.positions;
            failures += local_failures;
        }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) threads.emplace_back(work);
    for (auto& t : threads) t.join();
    std::uint64_t expected = 0;
    for (int k = 2; k <= db_pieces(); ++k) expected += positions_with_pieces(k);
    EXPECT_EQ(checked.load(), expected);
    EXPECT_EQ(failures.load(), 0u);
}

TEST_F(Consistency, ProbeMovesAgreesWithProbe) {
    const Tablebase tb(db_dir());
    for (const char* fen : {"W:W28:B23", "W:W6:B1", "W:WK46:BK5", "B:WK46:BK5", "W:W31,K10:B19,20"}) {
        const Position p = parse_fen(fen);
        const auto moves = tb.probe_moves(p);
        const ProbeResult r = tb.probe_wdl(p);
        ASSERT_TRUE(r.known()) << fen;
        if (moves.empty()) EXPECT_EQ(r.value, Value::Loss) << fen;
        else EXPECT_EQ(moves.front().result.value, r.value) << fen;
    }
}

TEST_F(Consistency, KnownValues) {
    const Tablebase tb(db_dir());
    EXPECT_EQ(tb.probe_wdl(parse_fen("W:W28:B23")).value, Value::Win);    // takes the last piece
    EXPECT_EQ(tb.probe_wdl(parse_fen("W:W6:B1")).value, Value::Loss);     // white cannot move
    // Kings on the long diagonal: every move of the king on 46 stays on it, and the flying king on
    // 5 takes it. The same seen from black.
    EXPECT_EQ(tb.probe_wdl(parse_fen("W:WK46:BK5")).value, Value::Loss);
    EXPECT_EQ(tb.probe_wdl(parse_fen("B:WK46:BK5")).value, Value::Loss);
    EXPECT_EQ(tb.probe_wdl(parse_fen("W:WK1:BK50")).value, Value::Draw);  // king against king
    EXPECT_EQ(tb.probe_wdl(parse_fen("B:WK1:BK50")).value, Value::Draw);
}

}  // namespace
}  // namespace dtb
