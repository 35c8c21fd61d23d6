// force_win: can the winner force the win before a draw rule ends the game? Checked against
// databases solved in memory (KKKvK, KKvKK, KMvK and all they lead to) and, case by case, against
// BruteForce (forced_win_support.hpp): the definition played out with copies of the real
// DrawRuleTracker, every move of both sides, no distance to win, no memo shortcuts. Where a case
// is also settled by hand, the comment says how.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include "adjudicate/adjudicator.hpp"
#include "probe/forced_win.hpp"
#include "rules/notation.hpp"
#include "rules/pdn.hpp"
#include "tests/adjudicate/forced_win_support.hpp"

namespace dtb {
namespace {

using ::testing::HasSubstr;
using test_support::BruteForce;
using test_support::reach;
using test_support::walk_to;

const InMemoryTables& tables() {
    static const InMemoryTables t = test_support::solve_closure(
        {*parse_material("KKKvK"), *parse_material("KKvKK"), *parse_material("KMvK")});
    return t;
}

const Oracle& oracle() {
    static const Oracle o = test_support::table_oracle(tables());
    return o;
}

DrawRuleOptions keep_earlier() { return DrawRuleOptions{CountChange::KeepEarlier}; }

// The brute-force answer; fails the test if it needs more than a million positions.
bool brute_force(const DrawRuleTracker& t, Color winner) {
    BruteForce b(oracle(), winner, 1'000'000);
    const std::optional<bool> r = b.wins(t);
    EXPECT_TRUE(r.has_value()) << "brute force gave up on " << to_fen(t.position());
    return r.value_or(false);
}

// The DTW the databases give the side to move.
int dtw_of(const std::string& fen) { return oracle()(parse_fen(fen)).dtw.value_or(-1); }

// force_win where the tracker stands, expected to give `answer` for white, turning on `by`; the
// brute force must agree.
ForcedWin expect_forced(const DrawRuleTracker& t, Forced answer, Decider by) {
    const ForcedWin f = force_win(t, oracle());
    EXPECT_EQ(f.answer, answer) << to_fen(t.position());
    EXPECT_EQ(f.winner, Color::White);
    EXPECT_EQ(f.decided_by, by);
    EXPECT_EQ(brute_force(t, Color::White), answer == Forced::Yes);
    return f;
}

// The same `plies` into the counts at `fen`, under either reading of a 16-to-5 change.
void expect_forced_either_reading(const std::string& fen, int plies, int count_left, Forced answer, Decider by) {
    for (const DrawRuleOptions options : {DrawRuleOptions{}, keep_earlier()}) {
        const DrawRuleTracker t = reach(fen, plies, options);
        ASSERT_EQ(t.state().ending_plies_remaining, count_left);
        expect_forced(t, answer, by);
    }
}

// ----- the 16-move count (6.3), three kings against a king -----

TEST(ForcedWin, WinOnTheLastPlyTheSixteenMoveCountLeaves) {
    // 19 plies into the count, 13 remain; the databases give a win in 13. No capture can be
    // forced on white, so the shortest win is played out in time.
    const std::string fen = "W:WK23,K31,K41:BK3";
    ASSERT_EQ(dtw_of(fen), 13);
    expect_forced_either_reading(fen, 19, 13, Forced::Yes, Decider::Distance);
    const ForcedWin f = force_win(reach(fen, 19), oracle());
    EXPECT_EQ(f.dtw, 13);
    EXPECT_EQ(f.plies_without_events, 13);
    // Without the bound of the 5-move materials the search has to look, since the lone king could
    // in principle take a king and start a 5-move count; with it (every such position is decided
    // within 10 plies) that count cannot stop the shortest win, and no position is expanded.
    EXPECT_GT(force_win(reach(fen, 19), test_support::table_oracle(tables(), false)).nodes, 0u);
    EXPECT_EQ(f.nodes, 0u);
}

TEST(ForcedWin, WinTooSlowForTheSixteenMoveCount) {
    // 21 plies into the count, 11 remain; the win takes 15. By hand under KeepEarlier: no capture
    // can lengthen the count (a 5-move count never outlasts the 16-move one), so the defender's
    // longest resistance reaches the end of the count first. Under Restart the brute force shows
    // that no sacrifice helps either.
    const std::string fen = "W:WK14,K32,K33:BK25";
    ASSERT_EQ(dtw_of(fen), 15);
    expect_forced_either_reading(fen, 21, 11, Forced::No, Decider::Distance);
}

TEST(ForcedWin, LoneKingsForcedCaptureRestartsTheCount) {
    // 20 plies into the count, 12 remain; the win takes 15. White can force the lone king to take
    // a king: under Restart that starts a 5-move count, and white wins within it; under
    // KeepEarlier the 5-move count ends with the 16-move one, so (by hand, as above) the win is
    // too slow. The brute force confirms both.
    const std::string fen = "W:WK19,K33,K37:BK48";
    ASSERT_EQ(dtw_of(fen), 15);
    const DrawRuleTracker restart = reach(fen, 20);
    ASSERT_EQ(restart.state().ending_plies_remaining, 12);
    expect_forced(restart, Forced::Yes, Decider::Capture);
    expect_forced(reach(fen, 20, keep_earlier()), Forced::No, Decider::Distance);
}

// ----- the 5-move count (6.4) -----

TEST(ForcedWin, CaptureThatLeavesTheTableStopsTheCount) {
    // A king and a man against a king, 4 plies of the 5-move count left, a win in 5: white makes
    // the lone king take its king; a man against a king is no counted ending, so the count stops
    // and the man wins (a capture decides, under either reading of 16-to-5).
    const std::string fen = "W:WK12,50:BK6";
    ASSERT_EQ(dtw_of(fen), 5);
    expect_forced_either_reading(fen, 6, 4, Forced::Yes, Decider::Capture);
}

// ----- 25 king moves each (6.2): two kings against two, no counted ending -----

TEST(ForcedWin, TwentyFiveKingMoveRuleLeavesNoTime) {
    // 49 king moves without capture: the next one draws. White cannot capture now (so must make
    // a king move) and cannot win in one ply (DTW 3): a draw, by hand.
    const std::string fen = "W:WK13,K16:BK29,K49";
    ASSERT_EQ(dtw_of(fen), 3);
    ASSERT_FALSE(has_capture(parse_fen(fen)));
    const DrawRuleTracker t = reach(fen, 49);
    ASSERT_FALSE(t.state().ending.has_value());
    ASSERT_EQ(t.state().king_move_plies_remaining(), 1);
    EXPECT_EQ(expect_forced(t, Forced::No, Decider::Distance).plies_without_events, 1);
}

TEST(ForcedWin, CaptureResetsTheKingMoveCountInTime) {
    // 48 king moves: 2 plies left, a win in 3. A capture within those two plies resets the count
    // (and starts a 5-move count, which leaves time).
    const std::string fen = "W:WK1,K26:BK22,K45";
    ASSERT_EQ(dtw_of(fen), 3);
    expect_forced(reach(fen, 48), Forced::Yes, Decider::Capture);
}

// ----- threefold repetition (6.1) -----

// 12 plies into a 6.3 count at B:WK6,K30,K49:BK16, then a cycle that brings both positions of the
// 21-49 move round twice: W:WK6,K21,K30:BK16 (white to move) now stands for the second time.
DrawRuleTracker twice_repeated() {
    DrawRuleTracker t = reach("B:WK6,K30,K49:BK16", 12);
    for (const char* m : {"16-7", "49-21", "7-16", "21-49", "16-7", "49-21", "7-16"}) t.play(parse_move(t.position(), m));
    EXPECT_EQ(to_fen(t.position()), "W:WK6,K21,K30:BK16");
    EXPECT_EQ(t.state().repetitions, 2);
    return t;
}

TEST(ForcedWin, ThirdRepetitionBarsTheWin) {
    // A win in 7 with 13 plies left; but after the cycle this position and B:WK6,K30,K49:BK16,
    // where 21-49 leads, have occurred twice, and no win in time avoids a third occurrence (the
    // brute force plays the real 6.1 with the whole history). Reached without repetitions, the
    // same position with the same counts is a win in time.
    const DrawRuleTracker t = twice_repeated();
    ASSERT_EQ(dtw_of("W:WK6,K21,K30:BK16"), 7);
    ASSERT_EQ(t.state().ending_plies_remaining, 13);
    expect_forced(t, Forced::No, Decider::Repetition);

    const DrawRuleTracker fresh = reach("W:WK6,K21,K30:BK16", 19);
    ASSERT_EQ(fresh.state().ending_plies_remaining, 13);
    expect_forced(fresh, Forced::Yes, Decider::Distance);
}

// ----- against the brute force on random positions -----

TEST(ForcedWin, AgreesWithTheBruteForceOnRandomEndings) {
    struct Family {
        const char* white;
        const char* black;
        int min_plies, max_plies;  // how far into the counts
    };
    const Family families[] = {
        {"KKK", "K", 14, 28},  // 6.3, and 6.4 after the lone king's capture
        {"KM", "K", 3, 9},     // 6.4, leaving the table when the lone king takes the king
        {"KK", "K", 2, 9},     // 6.4
        {"KK", "KK", 40, 49},  // 6.2, then 6.4 after a capture
        {"KK", "KK", 20, 39},  // 6.2 leaving more time than a 5-move count started by a capture
    };
    std::mt19937 rng(2024);
    int compared = 0, yes = 0, no = 0, by_capture = 0, readings_differ = 0, gave_up = 0, pruned = 0;
    // The same search without the counted endings' bounds: the same answers, after more positions.
    const Oracle unbounded = test_support::table_oracle(tables(), false);
    for (const Family& fam : families) {
        for (int found = 0; found < 60;) {
            const Position p = test_support::random_position(rng, fam.white, fam.black);
            if (generate_moves(p).empty() || has_capture(p)) continue;
            const Assessment a = oracle()(p);
            if (a.value == Value::Draw || a.dtw.value_or(0) < 3) continue;
            const int plies = fam.min_plies + static_cast<int>(rng() % (fam.max_plies - fam.min_plies + 1));
            std::optional<DrawRuleTracker> restart, keep;
            try {
                restart = reach(to_fen(p), plies);
                keep = reach(to_fen(p), plies, keep_earlier());
            } catch (const std::runtime_error&) {
                continue;  // no way back that long
            }
            if (restart->state().draw) continue;
            ++found;
            Forced answers[2];
            for (int i = 0; i < 2; ++i) {
                const DrawRuleTracker& t = i == 0 ? *restart : *keep;
                const ForcedWin f = force_win(t, oracle());
                answers[i] = f.answer;
                const ForcedWin slow = force_win(t, unbounded);
                EXPECT_EQ(slow.answer, f.answer) << to_fen(t.position());
                pruned += f.nodes < slow.nodes;
                BruteForce b(oracle(), *f.winner, 200'000);
                const std::optional<bool> expected = b.wins(t);
                if (!expected) {
                    ++gave_up;
                    continue;
                }
                ++compared;
                EXPECT_EQ(f.answer, *expected ? Forced::Yes : Forced::No)
                    << to_fen(t.position()) << " after " << plies << " plies, " << (i ? "KeepEarlier" : "Restart");
                (*expected ? yes : no) += 1;
                by_capture += f.decided_by == Decider::Capture;
            }
            readings_differ += answers[0] != answers[1];
        }
    }
    // Enough cases, and of every kind, for the comparison to mean something.
    EXPECT_GE(compared, 400) << gave_up << " cases too large for the brute force";
    EXPECT_GE(yes, 40);
    EXPECT_GE(no, 40);
    EXPECT_GE(by_capture, 10);
    EXPECT_GE(readings_differ, 4);
    EXPECT_GE(pruned, 4) << "the bound of the 5-move ending never shortened the search";
}

// ----- the counted endings' bounds -----

TEST(ForcedWin, CountedEndingBoundsAreWithinTheCounts) {
    // Every position of two kings, king and man or a king against a lone king (either side to
    // move) is decided within the 10 plies of 6.4: a 5-move count starting afresh never stops a
    // shortest win. The 16-move materials with men are not in these tables: no bound for 6.3.
    const CountedEndingBounds b = oracle().counted_bounds;
    ASSERT_TRUE(b.five_moves.has_value());
    EXPECT_LE(*b.five_moves, kFiveMovePlies);
    EXPECT_GE(*b.five_moves, dtw_of("W:WK1,K2:BK45"));  // the longest win of KKvK, 7 plies (dtb stats)
    EXPECT_FALSE(b.sixteen_moves.has_value());
}

// ----- Unknown, never a guess -----

TEST(ForcedWin, UnknownWithoutAValueAtTheRoot) {
    const DrawRuleTracker t(parse_fen("W:WK23,K31,K41:BK3"));
    const ForcedWin f = force_win(t, [](const Position&) { return Assessment{}; });
    EXPECT_EQ(f.answer, Forced::Unknown);
    EXPECT_EQ(f.unknown_reason, "no value for W:WK23,K31,K41:BK3");
    const ForcedWin no_dtw = force_win(t, [](const Position& p) { return Assessment{oracle()(p).value, std::nullopt}; });
    EXPECT_EQ(no_dtw.answer, Forced::Unknown);
    EXPECT_THAT(no_dtw.unknown_reason, HasSubstr("no distance to win for"));
}

TEST(ForcedWin, UnknownWhenTheDecisiveLineLeavesTheDatabases) {
    // The restart case above, with the databases of two kings against one (and king against king)
    // hidden: the win goes through the lone king's capture into them.
    const DrawRuleTracker t = reach("W:WK19,K33,K37:BK48", 20);
    const Oracle partial = [](const Position& p) {
        return count_bits(p.occupied()) < 4 ? Assessment{} : oracle()(p);
    };
    const ForcedWin f = force_win(t, partial);
    EXPECT_EQ(f.answer, Forced::Unknown);
    EXPECT_THAT(f.unknown_reason, HasSubstr("no value for "));
}

TEST(ForcedWin, UnknownWhenTheBudgetRunsOut) {
    const DrawRuleTracker t = reach("W:WK19,K33,K37:BK48", 20);
    const ForcedWin f = force_win(t, oracle(), ForcedWinOptions{1});
    EXPECT_EQ(f.answer, Forced::Unknown);
    EXPECT_EQ(f.unknown_reason, "budget exceeded: the search stopped at its limit of 1 positions");
    EXPECT_TRUE(f.budget_exceeded);
    EXPECT_EQ(f.nodes, 1u);
    const ForcedWin enough = force_win(t, oracle(), ForcedWinOptions{1000});
    EXPECT_EQ(enough.answer, Forced::Yes);
    EXPECT_FALSE(enough.budget_exceeded);
    EXPECT_GT(enough.memory_bytes, 0u);
}

TEST(ForcedWin, UnknownWhenTheTimeRunsOut) {
    const DrawRuleTracker t = reach("W:WK19,K33,K37:BK48", 20);
    const ForcedWin f = force_win(t, oracle(), {.max_nodes = 0, .max_seconds = 1e-9, .max_memory_mb = 256});
    EXPECT_EQ(f.answer, Forced::Unknown);
    EXPECT_TRUE(f.budget_exceeded);
    EXPECT_EQ(f.unknown_reason, "budget exceeded: the search stopped at its limit of 1e-09 s");
    EXPECT_LT(f.seconds, 1.0);
    // Without bounds at all: the answer.
    EXPECT_EQ(force_win(t, oracle(), {.max_nodes = 0, .max_seconds = 0, .max_memory_mb = 0}).answer, Forced::Yes);
}

TEST(ForcedWin, SettledPositions) {
    // Black has no move: the game is won already.
    const ForcedWin won = force_win(DrawRuleTracker(parse_fen("B:WK1:B")), oracle());
    EXPECT_EQ(won.answer, Forced::Yes);
    EXPECT_EQ(won.winner, Color::White);
    // A draw in the databases: nobody wins.
    const ForcedWin draw = force_win(DrawRuleTracker(parse_fen("W:WK3:BK48")), oracle());
    EXPECT_EQ(draw.answer, Forced::No);
    EXPECT_FALSE(draw.winner.has_value());
    // A win the game has already drawn: 21-49 repeats B:WK6,K30,K49:BK16 a third time.
    DrawRuleTracker drawn = twice_repeated();
    drawn.play(parse_move(drawn.position(), "21-49"));
    ASSERT_EQ(drawn.state().draw, DrawRule::Repetition);
    const ForcedWin late = force_win(drawn, oracle());
    EXPECT_EQ(late.answer, Forced::No);
    EXPECT_EQ(late.winner, Color::White);
}

// ----- the verdicts analyse_game draws from it -----

std::string game_text(const test_support::Walk& w, const std::vector<std::string>& more, const std::string& result) {
    std::string text = "[GameType \"20\"]\n[FEN \"" + to_fen(w.start) + "\"]\n[Result \"" + result + "\"]\n";
    Position pos = w.start;
    for (const Move& m : w.moves) {
        text += move_to_string(pos, m) + ' ';
        pos = apply_move(pos, m);
    }
    for (const std::string& m : more) text += m + ' ';
    return text + result + '\n';
}

GameAnalysis analyse(const std::string& text, AnalysisOptions options = {}) {
    const auto games = read_pdn(text, "test.pdn");
    EXPECT_EQ(games.size(), 1u);
    EXPECT_FALSE(games[0].error.has_value()) << games[0].error->to_string();
    return analyse_game(games[0], oracle(), options);
}

TEST(ForcedWinVerdict, CaptureRestartingTheCountSavesTheWin) {
    const std::string text = game_text(walk_to("W:WK19,K33,K37:BK48", 20), {}, "2-0");
    const GameAnalysis a = analyse(text);
    EXPECT_EQ(a.consistency, Consistency::Consistent) << a.explanation;
    EXPECT_EQ(a.forced_win, Forced::Yes);
    EXPECT_THAT(a.explanation, HasSubstr("white wins in 15 plies, more than the 12 plies the 6.3 16-move ending count "
                                         "leaves, but it can force black's lone king to make a capture that changes "
                                         "the count, and win in time"));
    AnalysisOptions keep;
    keep.rules = keep_earlier();
    const GameAnalysis k = analyse(text, keep);
    EXPECT_EQ(k.consistency, Consistency::Inconsistent) << k.explanation;
    EXPECT_THAT(k.explanation, HasSubstr("white wins in 15 plies, but not within the 12 plies the 6.3 16-move ending "
                                         "count leaves: a draw under the rules, but the game was scored 2-0"));
}

TEST(ForcedWinVerdict, RepetitionBarringTheWin) {
    const std::string text = game_text(walk_to("B:WK6,K30,K49:BK16", 12),
                                       {"16-7", "49-21", "7-16", "21-49", "16-7", "49-21", "7-16"}, "1-1");
    const GameAnalysis a = analyse(text);
    EXPECT_EQ(a.consistency, Consistency::Consistent) << a.explanation;
    EXPECT_THAT(a.explanation, HasSubstr("white wins in 7 plies, within the 13 plies the 6.3 16-move ending count leaves, "
                                         "but only through a position that has already occurred twice (6.1): a draw"));
}

TEST(ForcedWinVerdict, KingMoveRuleDrawsTheWin) {
    const GameAnalysis a = analyse(game_text(walk_to("W:WK13,K16:BK29,K49", 49), {}, "2-0"));
    EXPECT_EQ(a.consistency, Consistency::Inconsistent) << a.explanation;
    EXPECT_THAT(a.explanation, HasSubstr("white wins in 3 plies, but not within the 1 ply the 6.2 25 king moves each "
                                         "count leaves: a draw under the rules, but the game was scored 2-0"));
}

TEST(ForcedWinVerdict, ExhaustedSearchIsUndecided) {
    AnalysisOptions tiny;
    tiny.search.max_nodes = 1;
    const GameAnalysis a = analyse(game_text(walk_to("W:WK19,K33,K37:BK48", 20), {}, "2-0"), tiny);
    EXPECT_EQ(a.consistency, Consistency::Undecided) << a.explanation;
    EXPECT_EQ(a.forced_win, Forced::Unknown);
    EXPECT_THAT(a.explanation, HasSubstr("whether it can force the win before a draw rule ends the game is not known: "
                                         "budget exceeded: the search stopped at its limit of 1 positions"));
    ASSERT_TRUE(a.search);
    EXPECT_TRUE(a.search->budget_exceeded);
}

}  // namespace
}  // namespace dtb
