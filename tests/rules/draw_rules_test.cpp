// Tests of the FMJD draw rules (article 6). The games live in tests/data/pdn/draw_*.pdn and are
// read with the PDN reader, so every one of them is checked to be legal.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rules/draw_rules.hpp"
#include "rules/fen.hpp"
#include "rules/notation.hpp"
#include "rules/pdn.hpp"

namespace dtb {
namespace {

std::vector<PdnGame> read_games(const std::string& name) {
    const auto games = read_pdn_file(std::string(DTB_PDN_TEST_DATA) + "/" + name);
    for (const PdnGame& g : games) {
        EXPECT_FALSE(g.error) << g.error->to_string();
        EXPECT_TRUE(g.warnings.empty());
    }
    return games;
}

// The state after each move: states[0] is the start, states[k] the state after ply k.
std::vector<DrawState> track(const PdnGame& game, DrawRuleOptions options = {}) {
    DrawRuleTracker tracker(game.start, options);
    std::vector<DrawState> states{tracker.state()};
    for (const PdnMove& m : game.moves) states.push_back(tracker.play(m.move));
    return states;
}

// The state after playing `moves` (written as in PDN) from `fen`.
DrawState play(const std::string& fen, const std::vector<std::string>& moves, DrawRuleOptions options = {}) {
    DrawRuleTracker tracker(parse_fen(fen), options);
    for (const std::string& m : moves) tracker.play(parse_move(tracker.position(), m));
    return tracker.state();
}

// The first ply at which a draw was declared, with its rule.
void expect_draw_at(const std::vector<DrawState>& states, DrawRule rule, int ply) {
    ASSERT_LT(ply, static_cast<int>(states.size()));
    EXPECT_FALSE(states[ply - 1].draw) << "drawn too early, by " << to_string(*states[ply - 1].draw);
    ASSERT_TRUE(states[ply].draw) << "no draw at ply " << ply;
    EXPECT_EQ(*states[ply].draw, rule) << to_string(*states[ply].draw);
    EXPECT_EQ(states[ply].draw_ply, ply);
}

// ----- material classification -----

TEST(CountedEnding, ClassifiesMaterialForEitherColour) {
    struct Case {
        const char* fen;
        std::optional<CountedEnding> expected;
    };
    const CountedEnding w16{DrawRule::SixteenMoves, Color::White};
    const CountedEnding b16{DrawRule::SixteenMoves, Color::Black};
    const CountedEnding w5{DrawRule::FiveMoves, Color::White};
    const CountedEnding b5{DrawRule::FiveMoves, Color::Black};
    const std::vector<Case> cases = {
        {"W:WK1,K2,K3:BK50", w16},        // three kings
        {"B:WK1,K2,30:BK50", w16},        // two kings and a man
        {"W:WK1,30,31:BK50", w16},        // a king and two men
        {"W:WK1:BK46,K47,K48", b16},      // Black strong
        {"W:WK1:BK46,20,21", b16},
        {"W:WK1,K2:BK50", w5},            // two kings
        {"W:WK1,30:BK50", w5},            // a king and a man
        {"W:WK5:BK46,20", b5},
        {"W:WK1:BK50", w5},               // king against king: White by convention
        {"B:WK1:BK50", w5},
        {"W:WK1,K2,K3,K4:BK50", std::nullopt},   // four pieces
        {"W:WK1,30,31,32:BK50", std::nullopt},
        {"W:W30,31:BK50", std::nullopt},         // no king on the strong side
        {"W:W30:BK50", std::nullopt},
        {"W:WK1,K2,K3:BK50,20", std::nullopt},   // the weak side is not a lone king
        {"W:WK1,K2:B20", std::nullopt},
        {"W:W31-50:B1-20", std::nullopt},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.fen);
        const Position p = parse_fen(c.fen);
        EXPECT_EQ(counted_ending(p), c.expected);
        const auto kings = [&](Color side) { return count_bits(p.kings_of(side)); };
        const auto men = [&](Color side) { return count_bits(p.men(side)); };
        EXPECT_EQ(counted_ending(kings(Color::White), men(Color::White), kings(Color::Black), men(Color::Black)),
                  c.expected);
    }
}

// ----- 6.1 repetition -----

TEST(DrawRules, ThirdRepetitionAfterAManMoveResetTheHistory) {
    const auto games = read_games("draw_repetition.pdn");
    ASSERT_EQ(games.size(), 1u);
    const auto states = track(games[0]);
    EXPECT_EQ(states[4].repetitions, 2);  // the start position again
    EXPECT_EQ(states[5].repetitions, 1);  // 3. 39-33: a man move, nothing before it can recur
    EXPECT_EQ(states[6].repetitions, 1);
    EXPECT_EQ(states[10].repetitions, 2);
    EXPECT_EQ(states[14].repetitions, 3);
    expect_draw_at(states, DrawRule::Repetition, 14);
    EXPECT_EQ(games[0].moves[13].number, 7);  // reported at 7... 9-4
}

TEST(DrawRules, RepetitionNeedsTheSameSideToMove) {
    // The kings return to their squares after 2 plies, but with the other side to move.
    const DrawState s = play("W:WK47:BK4", {"47-42", "4-9", "42-47"});
    EXPECT_EQ(s.repetitions, 1);
}

// ----- 6.2 25 king moves each -----

TEST(DrawRules, TwentyFiveKingMovesEach) {
    const auto games = read_games("draw_king_moves.pdn");
    ASSERT_EQ(games.size(), 2u);
    const auto states = track(games[0]);
    EXPECT_FALSE(states[50].ending);  // three kings against two: only 6.2 counts
    EXPECT_EQ(states[49].king_move_plies, 49);
    EXPECT_EQ(states[49].king_move_plies_remaining(), 1);
    expect_draw_at(states, DrawRule::KingMoves, 50);
}

TEST(DrawRules, ManMoveRestartsTheKingMoveCount) {
    const auto games = read_games("draw_king_moves.pdn");
    const auto states = track(games[1]);
    EXPECT_EQ(states[20].king_move_plies, 20);
    EXPECT_EQ(states[21].king_move_plies, 0);  // 11. 36-31
    expect_draw_at(states, DrawRule::KingMoves, 71);
}

// ----- 6.3 16 moves -----

TEST(DrawRules, SixteenMovesWithThreeKingsAgainstOne) {
    const auto games = read_games("draw_sixteen_moves.pdn");
    ASSERT_EQ(games.size(), 2u);
    const auto states = track(games[0]);
    const CountedEnding expected{DrawRule::SixteenMoves, Color::White};
    EXPECT_EQ(states[0].ending, expected);
    EXPECT_EQ(states[0].ending_plies_remaining, 32);
    EXPECT_EQ(states[1].ending_plies_remaining, 31);
    EXPECT_EQ(states[31].ending_plies_remaining, 1);
    expect_draw_at(states, DrawRule::SixteenMoves, 32);
    EXPECT_EQ(states[32].ending_plies_remaining, 0);
}

TEST(DrawRules, PromotionWithinSixteenMoveMaterialKeepsTheCount) {
    const auto games = read_games("draw_sixteen_moves.pdn");
    const auto states = track(games[1]);
    EXPECT_EQ(games[1].moves[6].text, "9-3");  // ply 7: king and two men become two kings and a man
    EXPECT_EQ(states[7].ending->rule, DrawRule::SixteenMoves);
    EXPECT_EQ(states[7].ending_start_ply, 0);
    EXPECT_EQ(states[7].ending_plies_remaining, 25);
    EXPECT_EQ(states[7].king_move_plies, 0);  // a man move
    expect_draw_at(states, DrawRule::SixteenMoves, 32);
}

// ----- 6.4 5 moves -----

TEST(DrawRules, FiveMovesWithTwoKingsAgainstOne) {
    const auto games = read_games("draw_five_moves.pdn");
    ASSERT_EQ(games.size(), 4u);
    const auto states = track(games[0]);
    EXPECT_EQ(states[0].ending_plies_remaining, 10);
    expect_draw_at(states, DrawRule::FiveMoves, 10);
}

TEST(DrawRules, PromotionWithinFiveMoveMaterialKeepsTheCount) {
    const auto games = read_games("draw_five_moves.pdn");
    const auto states = track(games[1]);
    EXPECT_EQ(games[1].moves[4].text, "9-3");
    EXPECT_EQ(states[5].ending_start_ply, 0);
    EXPECT_EQ(states[5].ending_plies_remaining, 5);
    expect_draw_at(states, DrawRule::FiveMoves, 10);
}

TEST(DrawRules, KingAgainstKingWithBlackMovingFirst) {
    const auto games = read_games("draw_five_moves.pdn");
    const auto states = track(games[2]);
    EXPECT_EQ(games[2].start.side_to_move, Color::Black);
    expect_draw_at(states, DrawRule::FiveMoves, 10);
    EXPECT_EQ(games[2].moves[9].number, 6);  // 1... to 6.: five moves each, White moving last
}

TEST(DrawRules, WinWithinTheCountIsNoDraw) {
    const auto games = read_games("draw_five_moves.pdn");
    const auto states = track(games[3]);
    // 2... 1x34 takes a king: two kings against one become king against king, same count.
    EXPECT_EQ(states[4].ending->rule, DrawRule::FiveMoves);
    EXPECT_EQ(states[4].ending_start_ply, 0);
    EXPECT_EQ(states[4].ending_plies_remaining, 6);
    // 3. 45x29 takes the last black piece.
    EXPECT_EQ(states[5].winner, Color::White);
    EXPECT_FALSE(states[5].draw);
    EXPECT_FALSE(states[5].ending);
    EXPECT_EQ(games[3].result, PdnResult::WhiteWins);
}

// ----- interplay of the counts -----

TEST(DrawRules, SixteenMoveEndingBecomingFiveMoveEndingRestartsTheCount) {
    const auto games = read_games("draw_interplay.pdn");
    ASSERT_EQ(games.size(), 2u);
    const auto states = track(games[0]);
    EXPECT_EQ(games[0].moves[27].text, "18x9");  // ply 28: the lone king takes a king
    EXPECT_EQ(states[27].ending->rule, DrawRule::SixteenMoves);
    EXPECT_EQ(states[27].ending_plies_remaining, 5);
    EXPECT_EQ(states[28].ending->rule, DrawRule::FiveMoves);
    EXPECT_EQ(states[28].ending->strong, Color::White);
    EXPECT_EQ(states[28].ending_start_ply, 28);
    EXPECT_EQ(states[28].ending_plies_remaining, 10);
    EXPECT_EQ(states[28].king_move_plies, 0);
    expect_draw_at(states, DrawRule::FiveMoves, 38);
}

TEST(DrawRules, KeepEarlierOptionEndsAtTheSixteenMoveLimit) {
    const auto games = read_games("draw_interplay.pdn");
    const auto states = track(games[0], DrawRuleOptions{CountChange::KeepEarlier});
    EXPECT_EQ(states[28].ending->rule, DrawRule::FiveMoves);
    EXPECT_EQ(states[28].ending_plies_remaining, 4);  // what the 16-move count had left
    expect_draw_at(states, DrawRule::FiveMoves, 32);
}

TEST(DrawRules, CaptureIntoSixteenMoveMaterialStartsTheCount) {
    const auto games = read_games("draw_interplay.pdn");
    const auto states = track(games[1]);
    EXPECT_FALSE(states[12].ending);  // three kings against two
    EXPECT_EQ(states[12].king_move_plies, 12);
    EXPECT_EQ(games[1].moves[12].text, "36x9");  // ply 13 leaves a lone black king
    EXPECT_EQ(states[13].ending->rule, DrawRule::SixteenMoves);
    EXPECT_EQ(states[13].ending_start_ply, 13);
    EXPECT_EQ(states[13].ending_plies_remaining, 32);
    EXPECT_EQ(states[13].king_move_plies, 0);
    expect_draw_at(states, DrawRule::SixteenMoves, 45);
}

TEST(DrawRules, LeavingTheTableStopsTheCountAndReenteringStartsAFreshOne) {
    // A king and two men against a king (6.3); the lone king takes the king, leaving two men.
    const DrawState left = play("B:WK28,6,11:BK46", {"46x23"});
    EXPECT_FALSE(left.ending);
    EXPECT_EQ(left.ending_plies_remaining, 0);
    // A man promotes: a king and a man against a king (6.4), counted from here.
    const DrawState back = play("B:WK28,6,11:BK46", {"46x23", "6-1"});
    EXPECT_EQ(back.ending, (CountedEnding{DrawRule::FiveMoves, Color::White}));
    EXPECT_EQ(back.ending_start_ply, 2);
    EXPECT_EQ(back.ending_plies_remaining, 10);
}

TEST(DrawRules, SimultaneousRulesReportTheLowestArticle) {
    // King against king: the position after 1... 4-9 recurs at plies 6 and 10, and ply 10 also
    // ends the 5-move count.
    const DrawState s = play("W:WK47:BK4", {"47-42", "4-9", "42-38", "9-13", "38-42", "13-9", "42-38", "9-13",
                                            "38-42", "13-9"});
    EXPECT_EQ(s.repetitions, 3);
    EXPECT_EQ(s.ending_plies_remaining, 0);
    EXPECT_EQ(s.draw, DrawRule::Repetition);
    EXPECT_EQ(s.draw_ply, 10);
}

// ----- the tracker itself -----

TEST(DrawRuleTracker, DrawStaysDeclaredWhenPlayContinues) {
    const auto games = read_games("draw_five_moves.pdn");
    DrawRuleTracker tracker(games[0].start);
    for (const PdnMove& m : games[0].moves) tracker.play(m.move);
    ASSERT_EQ(tracker.state().draw, DrawRule::FiveMoves);
    for (int i = 0; i < 4; ++i) tracker.play(generate_moves(tracker.position())[0]);
    EXPECT_EQ(tracker.state().ply, 14);
    EXPECT_EQ(tracker.state().draw, DrawRule::FiveMoves);
    EXPECT_EQ(tracker.state().draw_ply, 10);
}

TEST(DrawRuleTracker, HistoryHoldsThePositionsSinceTheLastManMoveOrCapture) {
    // What 6.1 compares, and what the forced-win search takes the earlier repetitions from.
    DrawRuleTracker tracker(parse_fen("W:WK47,35:BK4"));
    for (const char* m : {"47-42", "4-9", "42-47", "9-4"}) tracker.play(parse_move(tracker.position(), m));
    ASSERT_EQ(tracker.history().size(), 5u);
    EXPECT_EQ(tracker.history().front(), tracker.position());
    EXPECT_EQ(tracker.state().repetitions, 2);
    tracker.play(parse_move(tracker.position(), "35-30"));  // a man move
    ASSERT_EQ(tracker.history().size(), 1u);
    EXPECT_EQ(tracker.history().back(), tracker.position());
}

TEST(DrawRuleTracker, RefusesIllegalMoves) {
    const Position start = parse_fen("W:W31-50:B1-20");
    DrawRuleTracker tracker(start);
    const Move black_move = parse_move(apply_move(start, parse_move(start, "32-28")), "19-23");
    EXPECT_THROW(tracker.play(black_move), std::invalid_argument);
    EXPECT_EQ(tracker.state().ply, 0);
}

TEST(DrawRuleTracker, StartWithoutLegalMoveIsLost) {
    DrawRuleTracker tracker(parse_fen("W:W:BK1"));
    EXPECT_EQ(tracker.state().winner, Color::Black);
}

TEST(DrawRuleTracker, OrdinaryGameHasNoDraw) {
    const auto games = read_pdn_file(std::string(DTB_SAMPLES_DIR) + "/sample.pdn");
    ASSERT_EQ(games.size(), 3u);
    const auto opening = track(games[0]);
    EXPECT_FALSE(opening.back().draw);
    EXPECT_FALSE(opening.back().ending);
    const auto endgame = track(games[1]);
    expect_draw_at(endgame, DrawRule::SixteenMoves, 32);
    const auto win = track(games[2]);
    EXPECT_EQ(win.back().winner, Color::White);
    EXPECT_EQ(win[0].ending_plies_remaining, 32);
    EXPECT_LE(static_cast<int>(games[2].moves.size()), win[0].ending_plies_remaining);
}

TEST(DrawRuleNames, AreDistinct) {
    EXPECT_EQ(to_string(DrawRule::Repetition), "6.1 threefold repetition");
    EXPECT_NE(to_string(DrawRule::KingMoves), to_string(DrawRule::SixteenMoves));
    EXPECT_NE(to_string(DrawRule::SixteenMoves), to_string(DrawRule::FiveMoves));
}

}  // namespace
}  // namespace dtb
