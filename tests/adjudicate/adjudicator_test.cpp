// The game analysis against in-memory 2-3 piece databases (WDL and DTW solved in the test).
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include "adjudicate/adjudicator.hpp"
#include "gen/dtw_solver.hpp"
#include "gen/solver.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "tests/gen/in_memory_tables.hpp"

namespace dtb {
namespace {

using ::testing::HasSubstr;

const InMemoryTables& databases() {
    static const InMemoryTables db = solve_in_memory(3, true);
    return db;
}

// The databases of up to 3 pieces; anything larger is beyond them.
Assessment oracle(const Position& pos) {
    if (pos.pieces(pos.side_to_move) == 0) return {Value::Loss, 0};  // its last piece was taken
    if (count_bits(pos.occupied()) > 3) return {};
    const Dtw d = databases().dtw.dtw_of(pos);
    return {databases().wdl.value_of(pos), d == kDtwDraw ? std::nullopt : std::optional<int>(d)};
}

// A PDN game from a set-up position, its moves and the given result.
std::string game_text(const std::string& fen, const std::vector<std::string>& moves, const std::string& result) {
    std::string text = "[GameType \"20\"]\n[White \"W\"]\n[Black \"B\"]\n[FEN \"" + fen + "\"]\n[Result \"" + result + "\"]\n";
    Position pos = parse_fen(fen);
    int number = 1;
    for (std::size_t i = 0; i < moves.size(); ++i) {
        if (pos.side_to_move == Color::White) text += std::to_string(number) + ". ";
        else if (i == 0) text += std::to_string(number) + "... ";
        text += moves[i] + " ";
        const Move m = parse_move(pos, moves[i]);
        pos = apply_move(pos, m);
        if (pos.side_to_move == Color::White) ++number;
    }
    return text + result + "\n";
}

GameAnalysis analyse(const std::string& text) {
    const auto games = read_pdn(text, "test.pdn");
    EXPECT_EQ(games.size(), 1u);
    EXPECT_FALSE(games[0].error.has_value()) << games[0].error->to_string();
    return analyse_game(games[0], oracle);
}

// The shortest win for the winner, the longest resistance for the loser.
std::vector<std::string> optimal_line(Position pos, int max_plies) {
    std::vector<std::string> line;
    for (int i = 0; i < max_plies; ++i) {
        const MoveList moves = generate_moves(pos);
        if (moves.empty()) break;
        const Move* best = nullptr;
        Dtw best_dtw = 0;
        const bool winning = oracle(pos).value == Value::Win;
        for (const Move& m : moves) {
            const Position next = apply_move(pos, m);
            const Dtw d = next.pieces(next.side_to_move) == 0 ? 0 : databases().dtw.dtw_of(next);
            const bool good = winning ? (dtw_is_loss(d) && (!best || d < best_dtw)) : (!best || (d != kDtwDraw && d > best_dtw));
            if (good) best = &m, best_dtw = d;
        }
        line.push_back(move_to_string(pos, *best));
        pos = apply_move(pos, *best);
    }
    return line;
}

TEST(Adjudicator, WinPlayedOutWithinTheFiveMoveCountIsConsistent) {
    // A king and a man against a king: a 6.4 ending (10 plies); the published longest win takes 9.
    const std::string fen = "W:WK2,6:BK50";
    const auto line = optimal_line(parse_fen(fen), 20);
    EXPECT_EQ(line.size(), 9u);
    const GameAnalysis a = analyse(game_text(fen, line, "2-0"));
    EXPECT_EQ(a.consistency, Consistency::Consistent) << a.explanation;
    EXPECT_THAT(a.explanation, HasSubstr("white wins"));
    ASSERT_TRUE(a.first_known_ply.has_value());
    EXPECT_EQ(*a.first_known_ply, 0);
    EXPECT_EQ(a.first_known.dtw, 9);
    EXPECT_TRUE(a.changes.empty());
    ASSERT_FALSE(a.rules.empty());
    EXPECT_EQ(a.rules[0].rule, DrawRule::FiveMoves);
    EXPECT_EQ(a.rules[0].ply, 0);
    EXPECT_EQ(a.rules[0].plies_allowed, 10);
}

TEST(Adjudicator, WinAdjudicatedAsDrawIsInconsistent) {
    const GameAnalysis a = analyse(game_text("W:WK2,6:BK50", {}, "1-1"));
    EXPECT_EQ(a.consistency, Consistency::Inconsistent);
    EXPECT_THAT(a.explanation, HasSubstr("white wins in 9 plies, within the 10 plies"));
    EXPECT_THAT(a.explanation, HasSubstr("scored 1-1"));
}

TEST(Adjudicator, WinTooSlowForTheCountIsADrawUnderTheRules) {
    // A king and a man against a king (6.4, 10 plies): white keeps the win but takes the slowest winning
    // move each time, until the win no longer fits in what the count leaves.
    Position pos = parse_fen("W:WK2,6:BK50");
    DrawRuleTracker tracker(pos);
    std::vector<std::string> moves;
    while (moves.size() < 10) {
        const Assessment now = oracle(pos);
        ASSERT_TRUE(now.dtw.has_value());
        if (*now.dtw > tracker.state().ending_plies_remaining) break;
        const MoveList legal = generate_moves(pos);
        const Move* chosen = nullptr;
        int chosen_dtw = -1;
        for (const Move& m : legal) {
            const Assessment next = oracle(apply_move(pos, m));
            // White: the slowest move that keeps the win; black: the longest resistance.
            const bool keeps = now.value == Value::Win ? next.value == Value::Loss : next.value == Value::Win;
            if (keeps && next.dtw && *next.dtw > chosen_dtw) chosen = &m, chosen_dtw = *next.dtw;
        }
        ASSERT_NE(chosen, nullptr);
        moves.push_back(move_to_string(pos, *chosen));
        tracker.play(*chosen);
        pos = apply_move(pos, *chosen);
    }
    ASSERT_GT(*oracle(pos).dtw, tracker.state().ending_plies_remaining) << "no slow line found";
    ASSERT_FALSE(tracker.state().draw.has_value());
    const GameAnalysis drawn = analyse(game_text("W:WK2,6:BK50", moves, "1-1"));
    EXPECT_EQ(drawn.consistency, Consistency::Consistent) << drawn.explanation;
    EXPECT_THAT(drawn.explanation, HasSubstr("but not within"));
    EXPECT_THAT(drawn.explanation, HasSubstr("a draw under the rules"));
    const GameAnalysis won = analyse(game_text("W:WK2,6:BK50", moves, "2-0"));
    EXPECT_EQ(won.consistency, Consistency::Inconsistent) << won.explanation;
}

TEST(Adjudicator, DetectsTheMoveThatLetTheWinGo) {
    // From a won position, a move after which the opponent is no longer lost.
    const Position start = parse_fen("W:W33:B2");  // a win in 17 (published)
    std::optional<Move> blunder;
    for (const Move& m : generate_moves(start))
        if (oracle(apply_move(start, m)).value != Value::Loss) blunder = m;
    ASSERT_TRUE(blunder.has_value());
    const std::string text = move_to_string(start, *blunder);
    const GameAnalysis a = analyse(game_text("W:W33:B2", {text}, "1-1"));
    ASSERT_EQ(a.changes.size(), 1u);
    EXPECT_EQ(a.changes[0].ply, 0);
    EXPECT_EQ(a.changes[0].move, text);
    EXPECT_EQ(a.changes[0].before, Value::Win);
    EXPECT_EQ(a.changes[0].dtw_before, 17);
    EXPECT_NE(a.changes[0].after, Value::Win);
}

TEST(Adjudicator, RepetitionDrawsAndIsReported) {
    const GameAnalysis a =
        analyse(game_text("W:WK1:BK50", {"1-7", "50-45", "7-1", "45-50", "1-7", "50-45", "7-1", "45-50"}, "1-1"));
    EXPECT_EQ(a.consistency, Consistency::Consistent) << a.explanation;
    bool repetition = false;
    for (const RuleEvent& e : a.rules) repetition |= e.draw && e.rule == DrawRule::Repetition && e.ply == 8;
    EXPECT_TRUE(repetition);
    const GameAnalysis wrong =
        analyse(game_text("W:WK1:BK50", {"1-7", "50-45", "7-1", "45-50", "1-7", "50-45", "7-1", "45-50"}, "2-0"));
    EXPECT_EQ(wrong.consistency, Consistency::Inconsistent);
    EXPECT_THAT(wrong.explanation, HasSubstr("repetition"));
}

TEST(Adjudicator, PositionsBeyondTheDatabasesAreNotGuessed) {
    const GameAnalysis a = analyse(game_text("W:W31,32:B1,2", {}, "1-1"));
    EXPECT_EQ(a.consistency, Consistency::Undecided);
    EXPECT_THAT(a.explanation, HasSubstr("beyond the databases"));
    EXPECT_FALSE(a.first_known_ply.has_value());
}

TEST(Adjudicator, AGameThatStoppedOnAnErrorIsUndecided) {
    const auto games = read_pdn("[FEN \"W:WK2,6:BK50\"]\n1. 2-99 1-1\n", "bad.pdn");
    ASSERT_EQ(games.size(), 1u);
    ASSERT_TRUE(games[0].error.has_value());
    const GameAnalysis a = analyse_game(games[0], oracle);
    EXPECT_EQ(a.consistency, Consistency::Undecided);
    EXPECT_TRUE(a.error.has_value());
}

// The same databases without distances to win, as with WDL files only.
Assessment wdl_only_oracle(const Position& pos) { return {oracle(pos).value, std::nullopt}; }

TEST(Adjudicator, AnUnscoredGameIsNeverInconsistent) {
    // "*" claims no result: the facts are reported, the verdict is undecided.
    const std::vector<std::string> repeated = {"1-7", "50-45", "7-1", "45-50", "1-7", "50-45", "7-1", "45-50"};
    const GameAnalysis repetition = analyse(game_text("W:WK1:BK50", repeated, "*"));
    EXPECT_EQ(repetition.consistency, Consistency::Undecided) << repetition.explanation;
    EXPECT_THAT(repetition.explanation, HasSubstr("scored *, which claims no result"));
    EXPECT_THAT(repetition.explanation, HasSubstr("drawn by rule 6.1"));

    const GameAnalysis no_pieces = analyse(game_text("W:W28:B23", {"28x19"}, "*"));  // black has nothing left
    EXPECT_EQ(no_pieces.consistency, Consistency::Undecided) << no_pieces.explanation;
    EXPECT_THAT(no_pieces.explanation, HasSubstr("no legal move after 1. 28x19: white wins"));

    const GameAnalysis won = analyse(game_text("W:W33:B2", {}, "*"));
    EXPECT_EQ(won.consistency, Consistency::Undecided) << won.explanation;
    EXPECT_THAT(won.explanation, HasSubstr("at the start the position is won by white"));

    const GameAnalysis both_lose = analyse(game_text("W:W33:B2", {}, "0-0"));  // a sanction, not a claim on play
    EXPECT_EQ(both_lose.consistency, Consistency::Undecided) << both_lose.explanation;
    EXPECT_THAT(both_lose.explanation, HasSubstr("scored 0-0 (both players lose"));

    const auto games = read_pdn("[FEN \"W:W28:B23\"]\n1. 28x19\n", "t.pdn");  // neither marker nor tag
    const GameAnalysis none = analyse_game(games[0], oracle);
    EXPECT_EQ(none.consistency, Consistency::Undecided);
    EXPECT_THAT(none.explanation, HasSubstr("no result was recorded"));
}

TEST(Adjudicator, WithoutDistancesAWinForTheLosingSideIsStillInconsistent) {
    // A king and a man against a king, the 6.4 count running: without DTW, whether white wins in time
    // is unknown, but black cannot have won.
    const auto judged = [](const std::string& result) {
        const auto games = read_pdn(game_text("W:WK2,6:BK50", {}, result), "t.pdn");
        return analyse_game(games[0], wdl_only_oracle);
    };
    const GameAnalysis black_won = judged("0-2");
    EXPECT_EQ(black_won.consistency, Consistency::Inconsistent) << black_won.explanation;
    EXPECT_THAT(black_won.explanation, HasSubstr("white wins; the draw rules can at most make it a draw"));
    EXPECT_THAT(black_won.explanation, HasSubstr("scored 0-2"));
    EXPECT_EQ(judged("1-1").consistency, Consistency::Undecided);
    EXPECT_EQ(judged("2-0").consistency, Consistency::Undecided);
}

TEST(Adjudicator, ChessResultsAreJudgedAsTheirDraughtsResult) {
    const GameAnalysis chess = analyse(game_text("W:WK2,6:BK50", {}, "1/2-1/2"));
    const GameAnalysis draughts = analyse(game_text("W:WK2,6:BK50", {}, "1-1"));
    EXPECT_EQ(chess.result, "1-1");
    EXPECT_EQ(chess.result_written, "1/2-1/2");
    EXPECT_EQ(draughts.result_written, "");
    EXPECT_EQ(chess.consistency, Consistency::Inconsistent);
    EXPECT_EQ(chess.explanation, draughts.explanation);
    EXPECT_EQ(analyse(game_text("W:W33:B2", {}, "1-0")).result, "2-0");
    EXPECT_EQ(analyse(game_text("W:W33:B2", {}, "0-1")).result, "0-2");
}

TEST(Adjudicator, ReportsPlayersFinalPositionAndTheReadersWarnings) {
    const auto games = read_pdn("[White \"\"]\n[Black \"Roe, R.\"]\n[FEN \"W:W28:B23\"]\n[Result \"2-0\"]\n1. 28x19 0-2\n",
                                "t.pdn");
    const GameAnalysis a = analyse_game(games[0], oracle);
    EXPECT_FALSE(a.white.has_value());  // empty: missing
    EXPECT_EQ(a.black, "Roe, R.");
    EXPECT_EQ(a.final_fen, "B:W19:B");
    ASSERT_EQ(a.warnings.size(), 1u);
    EXPECT_EQ(a.warnings[0].line, 5);
    EXPECT_THAT(a.warnings[0].message, HasSubstr("disagrees with the Result tag 2-0"));
    EXPECT_FALSE(analyse_game(read_pdn("1. 32-28 *", "t.pdn")[0], oracle).black.has_value());  // no tag
}

}  // namespace
}  // namespace dtb
