// The DTW solver against published longest wins and its own definition (2 and 3 pieces).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <tbb/global_control.h>

#include "gen/dtw_solver.hpp"
#include "index/position_index.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"
#include "tests/gen/in_memory_tables.hpp"

namespace dtb {
namespace {

using SolvedTables = InMemoryTables;

// Solved once for the whole suite (well under a second in Release).
class DtwTest : public ::testing::Test {
protected:
    static const SolvedTables& tables() {
        static const SolvedTables solved = solve_in_memory(3, true);
        return solved;
    }
    static const DtwTables& dtw() { return tables().dtw; }
    static const ValueTables& wdl() { return tables().wdl; }
};

// The longest win (largest odd DTW) among the white-to-move positions of a material.
Dtw longest_win(const DtwTables& tables, const Material& m) {
    Dtw longest = 0;
    for (const Dtw d : *tables.table(m))
        if (dtw_is_win(d)) longest = std::max(longest, d);
    return longest;
}

struct PublishedWin {
    const char* fen;
    Dtw plies;
    bool longest_of_material;
};

// Grimminck's statistics of the 2- and 3-piece endings: the longest win of each material, white
// to move, in plies; and one further long win of MvMM.
constexpr PublishedWin kPublishedWins[] = {
    {"W:W33:B2", 17, true},        {"W:WK42:B22", 7, true},      {"W:W10:BK46", 3, true},
    {"W:WK10:BK5", 3, true},       {"W:W40,44:B3", 23, true},    {"W:WK2,11:B45", 11, true},
    {"W:WK7,K30:B45", 9, true},    {"W:W6,7:BK45", 7, true},     {"W:WK2,6:BK50", 9, true},
    {"W:WK1,K7:BK50", 7, true},    {"W:W21:B3,4", 33, true},     {"W:WK38:B4,18", 27, true},
    {"W:W18:B5,K23", 17, true},    {"W:WK26:B23,K42", 9, true},  {"W:W14:BK10,K46", 3, true},
    {"W:WK10:BK5,K23", 3, true},   {"W:W23:B5,6", 29, false},
};

TEST_F(DtwTest, PublishedLongestWins) {
    for (const PublishedWin& w : kPublishedWins) {
        const Position p = parse_fen(w.fen);
        EXPECT_EQ(dtw().dtw_of(p), w.plies) << w.fen;
        EXPECT_EQ(dtw().dtw_of(flip_colors(p)), w.plies) << w.fen << " seen from black";
        if (w.longest_of_material) {
            EXPECT_EQ(longest_win(dtw(), material_of(p)), w.plies) << w.fen << ": longest win of " << material_of(p).name();
        }
    }
}

TEST_F(DtwTest, KingAgainstKing) {
    // White's king must step along the long diagonal and is taken: two plies.
    EXPECT_EQ(dtw().dtw_of(parse_fen("W:WK46:BK5")), 2);
    EXPECT_EQ(dtw().dtw_of(parse_fen("B:WK5:BK46")), 2);
    // A capture that takes the last piece ends the game at once.
    EXPECT_EQ(dtw().dtw_of(parse_fen("W:WK46:BK41")), 1);
    EXPECT_EQ(dtw().dtw_of(parse_fen("W:WK1:BK50")), kDtwDraw);
}

TEST_F(DtwTest, SideWithoutLegalMoveHasLostAlready) {
    EXPECT_EQ(dtw().dtw_of(parse_fen("W:W6:BK1")), 0);
    EXPECT_EQ(dtw().dtw_of(parse_fen("B:WK50,K35:B45")), 0);
    // A move that took black's last piece: black, to move, has lost.
    EXPECT_EQ(dtw().dtw_after(parse_fen("B:W6:B")), 0);
}

// Every position of m, from the definition: a win is 1 + the shortest successor lost for the
// opponent, a loss 1 + the longest successor, no move 0; wins odd, losses even, and the classes
// those give agree with the WDL tables.
void expect_consistent_with_successors(const Material& m, const DtwTables& dtw, const ValueTables& wdl) {
    const PositionIndex index(m);
    const std::vector<Dtw>& table = *dtw.table(m);
    for (std::uint64_t i = 0; i < index.size(); ++i) {
        const Position p = index.position(i);
        Dtw shortest_loss = kDtwDraw, longest_win = 0;
        bool any_draw = false;
        const MoveList moves = generate_moves(p);
        for (const Move& mv : moves) {
            const Dtw after = dtw.dtw_after(apply_move(p, mv));
            if (after == kDtwDraw)
                any_draw = true;
            else if (after % 2 == 0)
                shortest_loss = std::min(shortest_loss, after);
            else
                longest_win = std::max(longest_win, after);
        }
        Dtw expected = kDtwDraw;
        if (moves.empty())
            expected = 0;
        else if (shortest_loss != kDtwDraw)
            expected = static_cast<Dtw>(shortest_loss + 1);
        else if (!any_draw)
            expected = static_cast<Dtw>(longest_win + 1);
        ASSERT_EQ(table[i], expected) << to_fen(p);
        ASSERT_EQ(dtw_value(table[i]), wdl.value_of(p)) << to_fen(p);
    }
}

TEST_F(DtwTest, ConsistentWithSuccessorsUpToThreePieces) {
    for (const Material& m : materials_in_build_order(3)) expect_consistent_with_successors(m, dtw(), wdl());
}

// KKvKK is one subgame of C(50,2) C(48,2) = 1,381,800 positions: the only one up to 4 pieces large enough to settle
// its distances in parallel from frontier bits rather than from a queue.
TEST(DtwSolver, LargeKingsOnlySubgameConsistentWithSuccessors) {
    InMemoryTables t;
    for (const char* name : {"KvK", "KKvK", "KKvKK"}) {
        const Material m = parse_material(name).value();
        for (SolvedMaterial& s : solve_material_pair(m, t.wdl)) t.wdl.add(s.material, std::move(s.values));
        for (DtwMaterial& d : solve_dtw_pair(m, t.wdl, t.dtw)) t.dtw.add(d.material, std::move(d.dtw));
    }
    const Material kings = parse_material("KKvKK").value();
    ASSERT_EQ(PositionIndex(kings).size(), 1'381'800u);
    expect_consistent_with_successors(kings, t.dtw, t.wdl);
}

// What a ProgressCallback received, and whether two calls ever overlapped.
struct ProgressCalls {
    std::mutex mutex;
    std::vector<std::pair<double, std::string>> calls;
    std::atomic<int> inside{0};
    std::atomic<bool> overlapped{false};

    ProgressCallback callback() {
        return [this](double fraction, const std::string& note) {
            if (inside.fetch_add(1) != 0) overlapped = true;
            {
                const std::lock_guard lock(mutex);
                calls.emplace_back(fraction, note);
            }
            inside.fetch_sub(1);
        };
    }

    void expect_notes_of_a_large_subgame(const char* solver) {
        EXPECT_FALSE(overlapped) << solver;
        ASSERT_FALSE(calls.empty()) << solver;
        EXPECT_EQ(calls.back(), std::make_pair(1.0, std::string())) << solver;
        bool first_pass_noted = false;
        for (std::size_t i = 0; i < calls.size(); ++i) {
            if (i > 0) {
                EXPECT_GE(calls[i].first, calls[i - 1].first) << solver;
            }
            first_pass_noted |= calls[i].second.starts_with("subgame of 1381800 positions: first pass ");
        }
        EXPECT_TRUE(first_pass_noted) << solver;
    }
};

// KKvKK is one subgame, the whole pair: without notes from inside it a kings-only pair shows no
// progress at all (at 7 pieces, for hours). Both solvers note their first pass through it, on two
// threads, one call at a time.
TEST(SolverProgress, NotesFromInsideALargeSubgame) {
    const tbb::global_control two_threads(tbb::global_control::max_allowed_parallelism, 2);
    InMemoryTables t;
    for (const char* name : {"KvK", "KKvK"}) {
        const Material m = parse_material(name).value();
        for (SolvedMaterial& s : solve_material_pair(m, t.wdl)) t.wdl.add(s.material, std::move(s.values));
        for (DtwMaterial& d : solve_dtw_pair(m, t.wdl, t.dtw)) t.dtw.add(d.material, std::move(d.dtw));
    }
    const Material kings = parse_material("KKvKK").value();
    ProgressCalls wdl_calls;
    for (SolvedMaterial& s : solve_material_pair(kings, t.wdl, wdl_calls.callback()))
        t.wdl.add(s.material, std::move(s.values));
    wdl_calls.expect_notes_of_a_large_subgame("wdl");
    ProgressCalls dtw_calls;
    solve_dtw_pair(kings, t.wdl, t.dtw, dtw_calls.callback());
    dtw_calls.expect_notes_of_a_large_subgame("dtw");
}

// Every subgame up to 3 pieces through the parallel settling of large subgames (frontier bits,
// losses bounded by a man move queued beyond the next distance), on both thread counts.
TEST_F(DtwTest, SameResultWhenEverySubgameSettlesAsALargeOne) {
    DtwSolverOptions every_subgame;
    every_subgame.parallel_settle_positions = 1;
    for (const int threads : {1, 2}) {
        const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
        for (const Material& m : materials_in_build_order(3)) {
            if (m > m.mirror()) continue;
            for (const DtwMaterial& d : solve_dtw_pair(m, wdl(), dtw(), {}, every_subgame))
                EXPECT_EQ(d.dtw, *dtw().table(d.material)) << d.material.name() << ", threads " << threads;
        }
    }
}

// The one-pass solver, without the WDL values, against the two passes (solve_material_pair, then
// solve_dtw_pair knowing the values): the same values, distances and capture bits at every
// position up to 3 pieces, whichever way the subgames settle and on either thread count.
TEST_F(DtwTest, OnePassGivesTheValuesAndDistancesOfTheTwoPasses) {
    DtwSolverOptions every_subgame;
    every_subgame.parallel_settle_positions = 1;
    for (const int threads : {1, 2}) {
        const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
        for (const DtwSolverOptions& options : {DtwSolverOptions{}, every_subgame}) {
            for (const Material& m : materials_in_build_order(3)) {
                if (m > m.mirror()) continue;
                const std::vector<SolvedWithDistances> solved = solve_pair_with_distances(m, dtw(), {}, options);
                ASSERT_EQ(solved.size(), m == m.mirror() ? 1u : 2u);
                for (const SolvedWithDistances& s : solved) {
                    const PositionIndex index(s.dtw.material);
                    const PackedValues& expected_values = *wdl().table(s.wdl.material);
                    EXPECT_EQ(s.dtw.dtw, *dtw().table(s.dtw.material)) << s.dtw.material.name() << ", threads " << threads;
                    for (std::uint64_t i = 0; i < index.size(); ++i) {
                        ASSERT_EQ(s.wdl.values.get(i), expected_values.get(i)) << to_fen(index.position(i));
                        ASSERT_EQ(s.wdl.captures.test(i), has_capture(index.position(i))) << to_fen(index.position(i));
                    }
                }
            }
        }
    }
}

TEST_F(DtwTest, SameResultWithOneThread) {
    const tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    for (const Material& m : materials_in_build_order(3)) {
        if (m.pieces() < 3 || m > m.mirror()) continue;
        for (const DtwMaterial& d : solve_dtw_pair(m, wdl(), dtw()))
            EXPECT_EQ(d.dtw, *dtw().table(d.material)) << d.material.name();
    }
}

// The solver marks exactly the capture positions (the writer trusts these marks instead of
// searching every position again).
TEST_F(DtwTest, CaptureBitsMarkExactlyTheCapturePositions) {
    for (const Material& m : materials_in_build_order(3)) {
        if (m > m.mirror()) continue;
        for (const DtwMaterial& d : solve_dtw_pair(m, wdl(), dtw())) {
            const PositionIndex index(d.material);
            ASSERT_EQ(d.captures.positions(), index.size()) << d.material.name();
            for (std::uint64_t i = 0; i < index.size(); ++i)
                ASSERT_EQ(d.captures.test(i), has_capture(index.position(i))) << to_fen(index.position(i));
        }
    }
}

// A WDL table that calls a lost position drawn leaves the winning moves into it without a
// finite distance: the solver refuses it rather than return distances.
TEST(DtwSolver, RefusesInconsistentWdlValues) {
    const Material kvk{0, 1, 0, 1};
    ValueTables wdl;
    const std::vector<SolvedMaterial> solved = solve_material_pair(kvk, wdl);
    ASSERT_EQ(solved.size(), 1u);
    const PositionIndex index(kvk);
    const std::uint64_t trapped = index.index(parse_fen("W:WK46:BK5"));
    PackedValues packed(index.size());
    for (std::uint64_t i = 0; i < index.size(); ++i)
        packed.set(i, i == trapped ? Value::Draw : solved[0].values.get(i));
    wdl.add(kvk, std::move(packed));
    EXPECT_THROW(solve_dtw_pair(kvk, wdl, DtwTables{}), std::logic_error);
}

TEST(DtwBest, CombinesSuccessors) {
    DtwBest none;
    EXPECT_EQ(none.result(), 0);
    DtwBest mixed;
    for (Dtw d : {Dtw{5}, kDtwDraw, Dtw{8}, Dtw{2}}) mixed.add(d);
    EXPECT_EQ(mixed.result(), 3);
    DtwBest drawn;
    for (Dtw d : {Dtw{5}, kDtwDraw}) drawn.add(d);
    EXPECT_EQ(drawn.result(), kDtwDraw);
    DtwBest lost;
    for (Dtw d : {Dtw{5}, Dtw{1}, Dtw{9}}) lost.add(d);
    EXPECT_EQ(lost.result(), 10);
}

}  // namespace
}  // namespace dtb
