// The 16-move verdicts on a real 2-4 piece build with distances to win: the folder named by
// DTB_ADJUDICATE_DB (dtb gen --pieces 4 --dtw, the ctest fixture adjudicate_dtw4) and the games of
// DTB_ADJUDICATE_PDN/sixteen_move_wins.pdn. Each final position's DTW is the one `dtb probe --db
// DIR --dtw FEN` prints (listed in the file's header), each answer of the search is checked
// against the brute force of forced_win_support.hpp on the same files.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <cstdlib>
#include <random>

#include "adjudicate/adjudicator.hpp"
#include "probe/tablebase.hpp"
#include "rules/pdn.hpp"
#include "tests/adjudicate/forced_win_support.hpp"

namespace dtb {
namespace {

using test_support::env;

const Oracle& oracle() { return test_support::dtw4_oracle(); }

const std::vector<PdnGame>& games() {
    static const std::vector<PdnGame> g = read_pdn_file(env("DTB_ADJUDICATE_PDN") + "/sixteen_move_wins.pdn");
    return g;
}

struct Expected {
    const char* final_fen;
    int dtw;
    Forced forced;
    Consistency verdict;
    const char* explanation;
};

// In the order of the file.
const Expected kExpected[] = {
    {"W:WK23,K31,K41:BK3", 13, Forced::Yes, Consistency::Inconsistent,
     "after 10... 8-3 white wins in 13 plies, within the 13 plies the 6.3 16-move ending count leaves, but the game was "
     "scored 1-1"},
    {"W:WK14,K32,K33:BK25", 15, Forced::No, Consistency::Consistent,
     "after 11... 34-25 white wins in 15 plies, but not within the 11 plies the 6.3 16-move ending count leaves: a draw "
     "under the rules"},
    {"W:WK14,K32,K33:BK25", 15, Forced::No, Consistency::Inconsistent,
     "after 11... 34-25 white wins in 15 plies, but not within the 11 plies the 6.3 16-move ending count leaves: a draw "
     "under the rules, but the game was scored 2-0"},
    {"W:WK19,K33,K37:BK48", 15, Forced::Yes, Consistency::Consistent,
     "after 10... 34-48 white wins in 15 plies, more than the 12 plies the 6.3 16-move ending count leaves, but it can "
     "force black's lone king to make a capture that changes the count, and win in time"},
    {"W:W16,K24,K50:BK40", 17, Forced::Yes, Consistency::Consistent,
     "after 7... 7-40 white wins in 17 plies, within the 18 plies the 6.3 16-move ending count leaves"},
    {"W:WK6,K19,45:BK2", 23, Forced::No, Consistency::Consistent,
     "after 8... 11-2 white wins in 23 plies, but not within the 17 plies the 6.3 16-move ending count leaves: a draw "
     "under the rules"},
};

DrawRuleTracker final_state(const PdnGame& g, DrawRuleOptions options = {}) {
    DrawRuleTracker t(g.start, options);
    for (const PdnMove& m : g.moves) t.play(m.move);
    return t;
}

TEST(SixteenMoveWins, VerdictsOfTheGames) {
    ASSERT_EQ(games().size(), std::size(kExpected));
    for (std::size_t i = 0; i < games().size(); ++i) {
        const Expected& e = kExpected[i];
        SCOPED_TRACE(std::string(games()[i].tag("Event").value_or("")));
        ASSERT_FALSE(games()[i].error.has_value()) << games()[i].error->to_string();
        EXPECT_EQ(to_fen(final_state(games()[i]).position()), e.final_fen);
        const Assessment a = oracle()(parse_fen(e.final_fen));
        EXPECT_EQ(a.value, Value::Win);
        EXPECT_EQ(a.dtw, e.dtw);
        const GameAnalysis g = analyse_game(games()[i], oracle());
        EXPECT_EQ(g.forced_win, e.forced);
        EXPECT_EQ(g.consistency, e.verdict) << g.explanation;
        EXPECT_EQ(g.explanation, e.explanation);
    }
}

TEST(SixteenMoveWins, TheOtherReadingOfACountChange) {
    // Under KeepEarlier the 5-move count the lone king's capture starts ends with the 16-move
    // count: the win of game 4 no longer fits.
    AnalysisOptions keep;
    keep.rules.sixteen_to_five = CountChange::KeepEarlier;
    const GameAnalysis g = analyse_game(games().at(3), oracle(), keep);
    EXPECT_EQ(g.forced_win, Forced::No);
    EXPECT_EQ(g.consistency, Consistency::Inconsistent);
    EXPECT_THAT(g.explanation, ::testing::HasSubstr("white wins in 15 plies, but not within the 12 plies"));
}

TEST(SixteenMoveWins, SearchAgreesWithTheBruteForce) {
    for (const PdnGame& game : games())
        for (const CountChange change : {CountChange::Restart, CountChange::KeepEarlier}) {
            const DrawRuleTracker t = final_state(game, DrawRuleOptions{change});
            SCOPED_TRACE(to_fen(t.position()));
            const ForcedWin f = force_win(t, oracle());
            ASSERT_NE(f.answer, Forced::Unknown) << f.unknown_reason;
            test_support::BruteForce b(oracle(), *f.winner, 2'000'000);
            const std::optional<bool> expected = b.wins(t);
            ASSERT_TRUE(expected.has_value());
            EXPECT_EQ(f.answer, *expected ? Forced::Yes : Forced::No);
        }
}

// The bounds tablebase_oracle derives from the .dtw headers (and the captures' materials) hold the
// longest distance of every counted material, as an exhaustive scan of the same materials solved
// in memory finds it, and both fit within the counts: the fact the search prunes with.
TEST(CountedEndingBounds, HeadersCoverEveryPositionAndFitTheCounts) {
    const CountedEndingBounds headers = oracle().counted_bounds;
    ASSERT_TRUE(headers.sixteen_moves && headers.five_moves);
    const InMemoryTables solved = test_support::solve_closure(
        {*parse_material("KKKvK"), *parse_material("KKMvK"), *parse_material("KMMvK")});
    const CountedEndingBounds exact = test_support::counted_bounds_by_scan(solved);
    ASSERT_TRUE(exact.sixteen_moves && exact.five_moves);
    EXPECT_LE(*exact.sixteen_moves, *headers.sixteen_moves);
    EXPECT_LE(*exact.five_moves, *headers.five_moves);
    EXPECT_LE(*headers.sixteen_moves, kSixteenMovePlies);
    EXPECT_LE(*headers.five_moves, kFiveMovePlies);
    // The longest wins `dtb stats` lists for KKMvK and KMvK.
    EXPECT_GE(*exact.sixteen_moves, 31);
    EXPECT_GE(*exact.five_moves, 9);
}

// Positions where a count can start later (a capture, or the defender's man crowning into a lone
// king), searched with and without the bounds and by the brute force: one answer.
TEST(CountedEndingBounds, SearchWithThemAgreesWithTheBruteForce) {
    const std::pair<const char*, const char*> families[] = {{"KKK", "M"}, {"KKM", "M"}, {"KK", "KM"}, {"KM", "KK"}};
    const Oracle unbounded(oracle().assess);
    std::mt19937 rng(7);
    int compared = 0, pruned = 0, gave_up = 0;
    for (const auto& [white, black] : families) {
        for (int found = 0; found < 15;) {
            const Position p = test_support::random_position(rng, white, black);
            if (generate_moves(p).empty()) continue;
            const Assessment a = oracle()(p);
            if ((a.value != Value::Win && a.value != Value::Loss) || a.dtw.value_or(0) < 12) continue;
            ++found;
            const DrawRuleTracker t(p);
            SCOPED_TRACE(to_fen(p));
            const ForcedWin f = force_win(t, oracle(), ForcedWinOptions{0, 0, 0});
            const ForcedWin slow = force_win(t, unbounded, ForcedWinOptions{0, 0, 0});
            ASSERT_NE(f.answer, Forced::Unknown) << f.unknown_reason;
            EXPECT_EQ(slow.answer, f.answer);
            pruned += f.nodes < slow.nodes;
            test_support::BruteForce b(oracle(), *f.winner, 100'000);
            const std::optional<bool> expected = b.wins(t);
            if (!expected) {
                ++gave_up;
                continue;
            }
            ++compared;
            EXPECT_EQ(f.answer, *expected ? Forced::Yes : Forced::No);
        }
    }
    EXPECT_GE(compared, 40) << gave_up << " cases too large for the brute force";
    EXPECT_GE(pruned, 30) << "the bounds shortened too few searches to test them";
}

}  // namespace
}  // namespace dtb
