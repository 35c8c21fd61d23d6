// The generator against hand-worked values and its own guarantees (determinism, resume, safety).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "gen/builder.hpp"
#include "tests/gen/in_memory_tables.hpp"
#include "gen/solver.hpp"
#include "probe/table_file.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;

constexpr int kLongDiagonal[] = {5, 10, 14, 19, 23, 28, 32, 37, 41, 46};

bool on_long_diagonal(int square) {
    for (int s : kLongDiagonal)
        if (s == square) return true;
    return false;
}

int king_square(Bitboard b) { return square_of_bit(lowest_bit(b)); }

ValueTables solve_all(int pieces) { return std::move(solve_in_memory(pieces, false).wdl); }

// King against king, worked out by hand: the side to move wins by capture when it can; it loses
// when its king stands in a corner of the long diagonal (5 or 46) and the other king in the other
// corner, since it must step along the diagonal and is taken; it wins when the other king stands
// in a corner and its own king on the long diagonal can reach the opposite corner (putting the
// opponent in that same trap). Everything else is a draw.
TEST(Solver, KingAgainstKingMatchesHandAnalysis) {
    const ValueTables tables = solve_all(2);
    const PositionIndex index(Material{0, 1, 0, 1});
    int wins = 0, losses = 0;
    for (std::uint64_t i = 0; i < index.size(); ++i) {
        const Position p = index.position(i);
        const int white = king_square(p.white), black = king_square(p.black);
        Value expected = Value::Draw;
        if (has_capture(p))
            expected = Value::Win;
        else if ((white == 5 && black == 46) || (white == 46 && black == 5))
            expected = Value::Loss;
        else if ((black == 5 || black == 46) && on_long_diagonal(white))
            expected = Value::Win;
        wins += expected == Value::Win && !has_capture(p);
        losses += expected == Value::Loss;
        EXPECT_EQ(tables.value_of(p), expected) << to_fen(p);
    }
    EXPECT_EQ(wins, 16);
    EXPECT_EQ(losses, 2);
    EXPECT_EQ(tables.value_of(parse_fen("W:WK46:BK5")), Value::Loss);
    EXPECT_EQ(tables.value_of(parse_fen("W:WK5:BK46")), Value::Loss);
}

// The builder frees the tables no material still to be built needs; freeing one must leave the
// others as they were.
TEST(ValueTables, RemoveFreesOneMaterialOnly) {
    InMemoryTables t = solve_in_memory(3, true);
    const Material kk_k{0, 2, 0, 1};
    const Position kk_k_pos = parse_fen("W:WK1,K50:BK23");
    const Value kk_k_value = t.wdl.value_of(kk_k_pos);
    const Dtw kk_k_dtw = t.dtw.dtw_of(kk_k_pos);
    const std::uint64_t wdl_bytes = t.wdl.bytes(), dtw_bytes = t.dtw.bytes();
    const Material k_k{0, 1, 0, 1};

    t.wdl.remove(k_k);
    t.dtw.remove(k_k);
    t.wdl.remove(k_k);  // removing twice is harmless

    EXPECT_FALSE(t.wdl.contains(k_k));
    EXPECT_FALSE(t.dtw.contains(k_k));
    EXPECT_EQ(t.wdl.bytes(), wdl_bytes - (PositionIndex(k_k).size() + 3) / 4);
    EXPECT_EQ(t.dtw.bytes(), dtw_bytes - PositionIndex(k_k).size() * sizeof(Dtw));
    EXPECT_THROW(t.wdl.value_of(parse_fen("W:WK1:BK50")), std::logic_error);
    ASSERT_TRUE(t.wdl.contains(kk_k));
    EXPECT_EQ(t.wdl.value_of(kk_k_pos), kk_k_value);
    EXPECT_EQ(t.dtw.dtw_of(kk_k_pos), kk_k_dtw);
}

// The builder may add a table it already holds (a pair's table read back, then solved): the
// second replaces the first, and bytes() (which --memory is checked against) counts it once.
TEST(ValueTables, AddingATableAgainCountsItsBytesOnce) {
    InMemoryTables t = solve_in_memory(3, true);
    const Material k_k{0, 1, 0, 1};
    const std::uint64_t wdl_bytes = t.wdl.bytes(), dtw_bytes = t.dtw.bytes();
    const PackedValues values = *t.wdl.table(k_k);
    const std::vector<Dtw> dtw = *t.dtw.table(k_k);
    const Position k_k_pos = parse_fen("W:WK1:BK50");
    const Value k_k_value = t.wdl.value_of(k_k_pos);

    t.wdl.add(k_k, values);
    t.dtw.add(k_k, dtw);

    EXPECT_EQ(t.wdl.bytes(), wdl_bytes);
    EXPECT_EQ(t.dtw.bytes(), dtw_bytes);
    EXPECT_EQ(t.wdl.value_of(k_k_pos), k_k_value);
    t.wdl.remove(k_k);
    EXPECT_EQ(t.wdl.bytes(), wdl_bytes - values.bytes());
}

TEST(Solver, SideWithoutLegalMoveLoses) {
    const ValueTables tables = solve_all(3);
    // A white man on 6 can only step to 1, where a black king stands and cannot be taken.
    const Position blocked = parse_fen("W:W6:BK1");
    ASSERT_EQ(generate_moves(blocked).size(), 0u);
    EXPECT_EQ(tables.value_of(blocked), Value::Loss);
    // Black's only man, on 45, can only step to 50, where a white king stands.
    const Position black_blocked = parse_fen("B:WK50,K35:B45");
    ASSERT_EQ(generate_moves(black_blocked).size(), 0u);
    EXPECT_EQ(tables.value_of(white_to_move(black_blocked)), Value::Loss);
}

// Every position of m has the value its successors imply: a win if one of them is lost for the
// opponent, else a draw if one is drawn, else a loss.
void expect_consistent_with_successors(const ValueTables& tables, const Material& m) {
    const PositionIndex index(m);
    for (std::uint64_t i = 0; i < index.size(); ++i) {
        const Position p = index.position(i);
        Value best = Value::Loss;
        for (const Move& mv : generate_moves(p)) {
            const Value v = tables.value_after(apply_move(p, mv));
            if (v == Value::Win || (v == Value::Draw && best == Value::Loss)) best = v;
        }
        ASSERT_EQ(tables.value_of(p), best) << to_fen(p);
    }
}

TEST(Solver, ValuesAreConsistentWithSuccessorsUpToThreePieces) {
    const ValueTables tables = solve_all(3);
    for (const Material& m : materials_in_build_order(3)) expect_consistent_with_successors(tables, m);
}

// The three ways of solving a large subgame give the same values: queued by one thread (the
// default below kQueuedSubgamePositions), in frontier rounds over all threads with counters (the
// default from there up; alone, one subgame at a time, from kAloneSubgamePositions up), and held
// compact (four bits a position, no counters, alone); each forced here for every large subgame,
// the first two also with every round pushed from the frontier and with every one pulled from the
// unknown positions (Pulling). Every 4-piece pair whose subgames reach the size where the compact
// form is used, position by position, values and capture flags; and the compact values of the
// kings-only pair KKKvK consistent with their successors.
TEST(Solver, QueuedRoundsAndCompactLargeSubgamesGiveTheSameValues) {
    const ValueTables finished = solve_all(4);
    SolverOptions queue;
    queue.queued_subgame_positions = std::uint64_t{1} << 32;
    SolverOptions rounds;
    rounds.queued_subgame_positions = kLargeSubgamePositions;
    SolverOptions rounds_alone = rounds;
    rounds_alone.alone_subgame_positions = kLargeSubgamePositions;
    SolverOptions compact;
    compact.compact_large_subgames = true;
    const auto expect_same = [](const std::vector<SolvedMaterial>& a, const std::vector<SolvedMaterial>& b, const char* how) {
        ASSERT_EQ(a.size(), b.size()) << how;
        for (std::size_t side = 0; side < a.size(); ++side) {
            const std::uint64_t n = a[side].values.positions();
            ASSERT_EQ(b[side].values.positions(), n) << how;
            std::uint64_t mismatches = 0;
            for (std::uint64_t i = 0; i < n; ++i) mismatches += a[side].value_byte(i) != b[side].value_byte(i);
            EXPECT_EQ(mismatches, 0u) << a[side].material.name() << " " << how;
        }
    };
    for (const char* name : {"KKKvK", "KKvKK", "KKvKM", "KKMvK"}) {
        const Material m = *parse_material(name);
        ASSERT_GE(PairLayout::largest_subgame(m), kLargeSubgamePositions) << name << " would not use the compact form";
        const auto queued = solve_material_pair(m, finished, {}, queue);
        expect_same(queued, solve_material_pair(m, finished, {}, rounds), "in rounds");
        expect_same(queued, solve_material_pair(m, finished, {}, rounds_alone), "in rounds, alone");
        expect_same(queued, solve_material_pair(m, finished, {}, compact), "compact");
        for (const Pulling pulling : {Pulling::Never, Pulling::Always}) {
            const char* way = pulling == Pulling::Never ? "pushed" : "pulled";
            for (auto [options, how] : {std::pair{queue, "queued"}, std::pair{rounds, "in rounds"}, std::pair{rounds_alone, "in rounds, alone"}}) {
                options.pulling = pulling;
                expect_same(queued, solve_material_pair(m, finished, {}, options), (std::string(how) + ", " + way).c_str());
            }
        }
    }
    ValueTables tables = solve_all(3);
    for (SolvedMaterial& s : solve_material_pair(*parse_material("KKKvK"), tables, {}, compact))
        tables.add(s.material, std::move(s.values));
    for (const char* name : {"KKKvK", "KvKKK"}) expect_consistent_with_successors(tables, *parse_material(name));
}

// The rule the solver and the memory plan share: compact only from kLargeSubgamePositions up and
// when asked; otherwise queued below the limit, which cannot pass 2^32 (a queued position's local
// number takes 32 bits), and in rounds from there up.
TEST(Solver, SubgameSolvingFollowsSizeAndOptions) {
    const SolverOptions defaults;
    EXPECT_EQ(subgame_solving(kQueuedSubgamePositions - 1, defaults), SubgameSolving::Queued);
    EXPECT_EQ(subgame_solving(kQueuedSubgamePositions, defaults), SubgameSolving::InRounds);
    const SolverOptions compact{.compact_large_subgames = true};
    EXPECT_EQ(subgame_solving(kLargeSubgamePositions - 1, compact), SubgameSolving::Queued);
    EXPECT_EQ(subgame_solving(kLargeSubgamePositions, compact), SubgameSolving::Compact);
    const SolverOptions beyond_32_bits{.queued_subgame_positions = std::uint64_t{1} << 40};
    EXPECT_EQ(subgame_solving((std::uint64_t{1} << 32) - 1, beyond_32_bits), SubgameSolving::Queued);
    EXPECT_EQ(subgame_solving(std::uint64_t{1} << 32, beyond_32_bits), SubgameSolving::InRounds);
    // Alone: in rounds from kAloneSubgamePositions up, and held compact whatever the size.
    EXPECT_FALSE(solved_alone(kQueuedSubgamePositions, defaults));
    EXPECT_FALSE(solved_alone(kAloneSubgamePositions - 1, defaults));
    EXPECT_TRUE(solved_alone(kAloneSubgamePositions, defaults));
    EXPECT_FALSE(solved_alone(kLargeSubgamePositions - 1, compact));
    EXPECT_TRUE(solved_alone(kLargeSubgamePositions, compact));
    const SolverOptions queued_up_to_32_bits{.queued_subgame_positions = std::uint64_t{1} << 40};
    EXPECT_FALSE(solved_alone(kAloneSubgamePositions, queued_up_to_32_bits)) << "queued subgames are never alone";
    // The smallest subgame solved alone, below which the memory plan counts one a thread.
    EXPECT_EQ(smallest_subgame_solved_alone(defaults), kAloneSubgamePositions);
    EXPECT_EQ(smallest_subgame_solved_alone(compact), kLargeSubgamePositions);
    const SolverOptions queued_past_alone{.queued_subgame_positions = 2 * kAloneSubgamePositions};
    EXPECT_EQ(smallest_subgame_solved_alone(queued_past_alone), 2 * kAloneSubgamePositions);
    EXPECT_FALSE(solved_alone(2 * kAloneSubgamePositions - 1, queued_past_alone));
    EXPECT_TRUE(solved_alone(2 * kAloneSubgamePositions, queued_past_alone));
}

// Published longest wins of the 2- and 3-piece materials (Grimminck's statistics): each is a
// win for white, the side to move (some start with a capture, resolved by search).
TEST(Solver, PublishedLongestWinsAreWins) {
    const ValueTables tables = solve_all(3);
    for (const char* fen : {"W:W33:B2", "W:WK42:B22", "W:W10:BK46", "W:WK10:BK5", "W:W40,44:B3", "W:WK2,11:B45",
                            "W:WK7,K30:B45", "W:W6,7:BK45", "W:WK2,6:BK50", "W:WK1,K7:BK50", "W:W21:B3,4",
                            "W:WK38:B4,18", "W:W18:B5,K23", "W:WK26:B23,K42", "W:W14:BK10,K46", "W:WK10:BK5,K23",
                            "W:W23:B5,6"}) {
        const Position p = parse_fen(fen);
        EXPECT_EQ(tables.value_of(p), Value::Win) << fen;
        EXPECT_EQ(tables.value_of(flip_colors(p)), Value::Win) << fen << " seen from black";
    }
}

}  // namespace
}  // namespace dtb
