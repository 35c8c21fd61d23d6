// A 2-4 piece build with distances to win in the default encoding (the losses' distances only, the
// wins' found by one ply of search), read back two ways: the builder's loader (dtb gen resume,
// dtb verify) must give the in-memory solver's DTW at every position of every material, and
// Tablebase::probe_dtw on a sample of each material, both sides to move, capture positions
// included. About a minute on two cores.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "gen/dtw_solver.hpp"
#include "gen/loader.hpp"
#include "index/position_index.hpp"
#include "probe/table_file.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "tests/gen/build_fixture.hpp"
#include "tests/gen/in_memory_tables.hpp"

namespace dtb {
namespace {

using LossesOnlyDtwFiles = BuildTest;

// The files of `dtb gen --pieces 4 --dtw`: ctest's fixture adjudicate_dtw4 (DTB_DTW4), or built here.
std::filesystem::path two_to_four_dtw_build(const std::filesystem::path& scratch) {
    if (const char* shared = std::getenv("DTB_DTW4"); shared != nullptr && *shared != '\0') return shared;
    BuildOptions o;
    o.dir = scratch;
    o.max_pieces = 4;
    o.dtw = true;
    std::ostringstream log;
    build(o, log);
    return scratch;
}

// Solved once for the suite (about half a minute on two cores).
const InMemoryTables& two_to_four_in_memory() {
    static const InMemoryTables solved = solve_in_memory(4, true);
    return solved;
}

TEST_F(LossesOnlyDtwFiles, TwoToFourPiecesReadBackAsSolved) {
    const std::filesystem::path dir = two_to_four_dtw_build(root_);
    const InMemoryTables& solved = two_to_four_in_memory();
    DtwTables loaded;
    const Tablebase tb(dir);
    std::uint64_t probed = 0;
    for (const Material& m : materials_in_build_order(4)) {
        const TableFile file(dir / format::dtw_file_name(m), format::FileKind::Dtw);
        EXPECT_FALSE(file.header().dtw_stores_wins()) << m.name();
        if (!loaded.contains(m)) load_finished_dtw_pair(dir, m, solved.wdl, loaded);
        const std::vector<Dtw>& expected = *solved.dtw.table(m);
        ASSERT_TRUE(*loaded.table(m) == expected) << m.name();
        const PositionIndex index(m);
        for (std::uint64_t i = m.name().size(); i < index.size(); i += 211) {  // a different offset per name length
            const Position p = index.position(i);
            for (const Position& q : {p, flip_colors(p)}) {
                const DtwResult r = tb.probe_dtw(q);
                ASSERT_EQ(r.value, dtw_value(expected[i])) << to_fen(q) << ' ' << r.reason;
                ASSERT_EQ(r.dtw, expected[i] == kDtwDraw ? -1 : int{expected[i]}) << to_fen(q);
                ++probed;
            }
        }
    }
    EXPECT_GT(probed, 400'000u);
}

// Every 2-4 piece subgame through the parallel settling that large subgames take (frontier bits;
// losses that a man move bounds beyond the next distance, queued apart, which only 4-piece
// materials with men have): the same distances as the default split.
TEST(LargeSubgameSettling, SameDistancesOnEveryFourPieceSubgame) {
    const InMemoryTables& solved = two_to_four_in_memory();
    DtwSolverOptions every_subgame;
    every_subgame.parallel_settle_positions = 1;
    for (const Material& m : materials_in_build_order(4)) {
        if (m.pieces() < 4 || m > m.mirror()) continue;
        for (const DtwMaterial& d : solve_dtw_pair(m, solved.wdl, solved.dtw, {}, every_subgame))
            ASSERT_TRUE(d.dtw == *solved.dtw.table(d.material)) << d.material.name();
    }
}

// The one-pass solver (values and distances found together) against the two passes on every
// 2-4 piece pair, both ways of settling: the same distances and values at every position.
TEST(OnePassSolver, SameValuesAndDistancesOnEveryFourPiecePair) {
    const InMemoryTables& solved = two_to_four_in_memory();
    DtwSolverOptions every_subgame;
    every_subgame.parallel_settle_positions = 1;
    for (const DtwSolverOptions& options : {DtwSolverOptions{}, every_subgame}) {
        for (const Material& m : materials_in_build_order(4)) {
            if (m.pieces() < 4 || m > m.mirror()) continue;
            for (const SolvedWithDistances& s : solve_pair_with_distances(m, solved.dtw, {}, options)) {
                ASSERT_TRUE(s.dtw.dtw == *solved.dtw.table(s.dtw.material)) << s.dtw.material.name();
                const PackedValues& values = *solved.wdl.table(s.wdl.material);
                ASSERT_TRUE(std::ranges::equal(s.wdl.values.raw(), values.raw())) << s.wdl.material.name();
            }
        }
    }
}

}  // namespace
}  // namespace dtb
