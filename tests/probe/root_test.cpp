// probe_root: every legal move ranked under the FMJD draw rules, on a real 2-4 piece build with
// distances to win (the ctest fixture adjudicate_dtw4, folder in DTB_ADJUDICATE_DB). Checked
// against the brute force of tests/adjudicate/forced_win_support.hpp (the rules played out by
// their definition), against the forced-win search at the root (the best move wins exactly when
// the position is won under the rules), and against probe_moves where no count can matter.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "probe/root.hpp"
#include "rules/notation.hpp"
#include "rules/pdn.hpp"
#include "tests/adjudicate/forced_win_support.hpp"

namespace dtb {
namespace {

using test_support::env;

const Tablebase& tablebase() { return test_support::dtw4_tablebase(); }
const Oracle& oracle() { return test_support::dtw4_oracle(); }

const RootMove& find(const std::vector<RootMove>& moves, const Position& pos, const std::string& text) {
    for (const RootMove& m : moves)
        if (move_to_string(pos, m.move) == text) return m;
    throw std::runtime_error("no move " + text);
}

// Whether the side to move at `root` wins by playing `text`, by the brute force.
bool brute_force_wins_with(const DrawRuleTracker& root, const std::string& text) {
    DrawRuleTracker after = root;
    after.play(parse_move(root.position(), text));
    test_support::BruteForce b(oracle(), root.position().side_to_move, 2'000'000);
    const std::optional<bool> r = b.wins(after);
    EXPECT_TRUE(r.has_value());
    return r.value_or(false);
}

// The order probe_root promises: wins (quickest first), plain draws, draws by rule, losses
// (slowest first), unknowns.
void expect_ranked(const std::vector<RootMove>& moves) {
    const auto rank = [](const RootMove& m) {
        switch (m.value) {
            case Value::Win: return 0;
            case Value::Draw: return m.drawn_by_rules ? 2 : 1;
            case Value::Loss: return 3;
            default: return 4;
        }
    };
    for (std::size_t i = 1; i < moves.size(); ++i) {
        const RootMove &a = moves[i - 1], &b = moves[i];
        EXPECT_LE(rank(a), rank(b));
        if (a.value == Value::Win && b.value == Value::Win) {
            EXPECT_LE(a.dtw, b.dtw);
        }
        if (a.value == Value::Loss && b.value == Value::Loss) {
            EXPECT_GE(a.dtw, b.dtw);
        }
    }
}

// The counts of `t`'s state as an engine would pass them.
RunningCounts counts_of(const DrawRuleTracker& t) {
    const DrawState& s = t.state();
    RunningCounts c;
    c.king_move_plies = s.king_move_plies;
    if (s.ending) c.counted_plies = plies_allowed(s.ending->rule) - s.ending_plies_remaining;
    std::map<std::tuple<Bitboard, Bitboard, Bitboard, Color>, int> seen;
    for (const Position& p : t.history())
        if (++seen[{p.white, p.black, p.kings, p.side_to_move}] == 2) c.occurred_twice.push_back(p);
    return c;
}

TEST(ProbeRoot, TheShortestWinLosesToTheCountAnotherWins) {
    // 29 plies into the 16-move count of three kings against a king: 3 plies left. The databases'
    // shortest win, 44-50 (5 plies), runs out of time; 12-1 (7 plies) makes the lone king capture
    // into a 5-move ending whose fresh count leaves time. Under KeepEarlier that count ends with
    // the 16-move one and nothing wins.
    const Position pos = parse_fen("W:WK12,K40,K44:BK6");
    RunningCounts counts;
    counts.counted_plies = 29;
    const std::vector<RootMove> moves = probe_root(tablebase(), pos, counts);
    ASSERT_FALSE(moves.empty());
    EXPECT_EQ(move_to_string(pos, moves[0].move), "12-1");
    EXPECT_EQ(moves[0].value, Value::Win);
    EXPECT_EQ(moves[0].dtw, 7);
    const RootMove& shortest = find(moves, pos, "44-50");
    EXPECT_EQ(shortest.value, Value::Draw);
    EXPECT_TRUE(shortest.drawn_by_rules);
    EXPECT_EQ(shortest.dtw, 5);
    expect_ranked(moves);

    const DrawRuleTracker root(pos, counts);
    EXPECT_TRUE(brute_force_wins_with(root, "12-1"));
    EXPECT_FALSE(brute_force_wins_with(root, "44-50"));

    RootOptions keep;
    keep.rules.sixteen_to_five = CountChange::KeepEarlier;
    const std::vector<RootMove> kept = probe_root(tablebase(), pos, counts, keep);
    EXPECT_NE(kept[0].value, Value::Win);
    EXPECT_TRUE(find(kept, pos, "12-1").drawn_by_rules);
    EXPECT_FALSE(brute_force_wins_with(DrawRuleTracker(pos, counts, keep.rules), "12-1"));
}

TEST(ProbeRoot, ARepetitionBarsTheShortestWin) {
    // With a fresh count 44-50 is the shortest win; if the position it leads to has occurred twice
    // already, playing it draws by 6.1 and another win comes first.
    const Position pos = parse_fen("W:WK12,K40,K44:BK6");
    const Move shortest = parse_move(pos, "44-50");
    EXPECT_EQ(move_to_string(pos, probe_root(tablebase(), pos, {})[0].move), "44-50");
    RunningCounts counts;
    counts.occurred_twice.push_back(apply_move(pos, shortest));
    const std::vector<RootMove> moves = probe_root(tablebase(), pos, counts);
    EXPECT_EQ(moves[0].value, Value::Win);
    EXPECT_NE(moves[0].move, shortest);
    EXPECT_TRUE(find(moves, pos, "44-50").drawn_by_rules);
}

TEST(ProbeRoot, RanksLikeTheDatabasesWhenNoCountHasRun) {
    // Every counted material is decided within its count (the .dtw headers say so; see
    // CountedEndingBounds), so with fresh counts the rules change no move's value.
    std::mt19937 rng(11);
    const std::pair<const char*, const char*> families[] = {{"KKK", "K"}, {"KKM", "K"}, {"KMM", "K"}, {"K", "KK"}, {"KM", "K"}};
    int wins = 0;
    for (const auto& [white, black] : families)
        for (int found = 0; found < 20;) {
            const Position p = test_support::random_position(rng, white, black);
            if (generate_moves(p).empty() || position_problem(p)) continue;
            ++found;
            const std::vector<RootMove> ranked = probe_root(tablebase(), p, {});
            const std::vector<MoveValue> plain = tablebase().probe_moves(p, true);
            ASSERT_EQ(ranked.size(), plain.size());
            for (const MoveValue& mv : plain) {
                const RootMove& r = find(ranked, p, move_to_string(p, mv.move));
                EXPECT_EQ(r.value, mv.result.value) << to_fen(p) << ' ' << move_to_string(p, mv.move);
                EXPECT_FALSE(r.drawn_by_rules);
                if (mv.after.dtw >= 0) {
                    EXPECT_EQ(r.dtw, mv.after.dtw + 1);
                }
                wins += r.value == Value::Win;
            }
            EXPECT_EQ(ranked[0].value, plain[0].result.value);
        }
    EXPECT_GE(wins, 50);
}

TEST(ProbeRoot, BestMoveAgreesWithTheForcedWinAtTheRoot) {
    // The endings of tests/data/pdn/sixteen_move_wins.pdn, at their final positions with the
    // counts their games ran: the side to move can force the win under the rules exactly when its
    // best-ranked move is a win, and is lost under them exactly when every move is a loss.
    const std::vector<PdnGame> games = read_pdn_file(env("DTB_ADJUDICATE_PDN") + "/sixteen_move_wins.pdn");
    int judged = 0, won = 0;
    for (const PdnGame& g : games) {
        DrawRuleTracker t(g.start);
        for (const PdnMove& m : g.moves) t.play(m.move);
        SCOPED_TRACE(to_fen(t.position()));
        if (t.state().draw || t.state().winner) continue;
        const ForcedWin f = force_win(t, oracle());
        ASSERT_NE(f.answer, Forced::Unknown);
        const RunningCounts counts = counts_of(t);
        const std::vector<RootMove> moves = probe_root(tablebase(), t.position(), counts);
        const bool mover_wins = f.winner == t.position().side_to_move && f.answer == Forced::Yes;
        const bool mover_loses = f.winner && f.winner != t.position().side_to_move && f.answer == Forced::Yes;
        EXPECT_EQ(moves[0].value == Value::Win, mover_wins);
        EXPECT_EQ(moves[0].value == Value::Loss, mover_loses);
        expect_ranked(moves);
        ++judged;
        won += mover_wins;
    }
    EXPECT_GE(judged, 5);
    EXPECT_GE(won, 2);
    EXPECT_LT(won, judged);  // some of the wins the count turns into draws
}

TEST(ProbeRoot, RefusesCountsOutOfRange) {
    const Position pos = parse_fen("W:WK12,K40,K44:BK6");
    RunningCounts counts;
    counts.counted_plies = 32;
    EXPECT_THROW(probe_root(tablebase(), pos, counts), std::invalid_argument);
    counts.counted_plies = 0;
    counts.king_move_plies = 50;
    EXPECT_THROW(probe_root(tablebase(), pos, counts), std::invalid_argument);
    counts.king_move_plies = 0;
    counts.occurred_twice.push_back(pos);
    EXPECT_THROW(probe_root(tablebase(), pos, counts), std::invalid_argument);
    RunningCounts uncounted;
    uncounted.counted_plies = 1;  // two kings against two: no 16- or 5-move count
    EXPECT_THROW(probe_root(tablebase(), parse_fen("W:WK1,K2:BK45,K50"), uncounted), std::invalid_argument);
}

}  // namespace
}  // namespace dtb
