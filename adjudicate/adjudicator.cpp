#include "adjudicate/adjudicator.hpp"

#include "rules/fen.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace {

const char* side_name(Color c) { return c == Color::White ? "white" : "black"; }

// Which side the recorded result gives the game to; nullopt for a draw; Unknown for others.
enum class Outcome { WhiteWins, BlackWins, Draw, Other };

Outcome recorded_outcome(PdnResult r) {
    switch (r) {
        case PdnResult::WhiteWins: return Outcome::WhiteWins;
        case PdnResult::BlackWins: return Outcome::BlackWins;
        case PdnResult::Draw: return Outcome::Draw;
        default: return Outcome::Other;
    }
}

Outcome win_for(Color c) { return c == Color::White ? Outcome::WhiteWins : Outcome::BlackWins; }

// Describes the position reached after `plies` moves, e.g. "after 54. 18-12" or "at the start".
std::string after_move(const PdnGame& game, int plies) {
    if (plies == 0) return "at the start";
    const PdnMove& m = game.moves[static_cast<std::size_t>(plies - 1)];
    const bool black = m.before.side_to_move == Color::Black;
    return "after " + std::to_string(m.number) + (black ? "... " : ". ") + m.text;
}

// "1 ply", "13 plies".
std::string plies(int n) { return std::to_string(n) + (n == 1 ? " ply" : " plies"); }

// Whether a draw rule can stop a win even without DTW being consulted: a 6.3/6.4 count runs, or
// only kings are left, so that only captures reset the 25-king-move count (6.2).
bool rules_in_play(const Position& pos, const DrawState& state) { return state.ending || pos.kings == pos.occupied(); }

// The count that binds if nothing changes it, e.g. "the 20 plies the 6.3 16-move ending count
// leaves" or "the 6 plies the 6.2 25 king moves each count leaves".
std::string count_left(const DrawState& state) {
    if (state.ending)
        return "the " + plies(state.ending_plies_remaining) + " the " +
               std::string(to_string(state.ending->rule)) + " count leaves";
    return "the " + plies(state.king_move_plies_remaining()) + " the " +
           std::string(to_string(DrawRule::KingMoves)) + " count leaves";
}

// How a win of `f.dtw` plies fares against the draw rules, as a clause after "white wins in N plies".
std::string against_the_rules(const ForcedWin& f, const Position& pos, const DrawState& state) {
    const std::string loser = side_name(opponent(*f.winner));
    const bool kings_only = pos.kings == pos.occupied();
    if (f.answer == Forced::Yes) {
        if (f.decided_by == Decider::Distance) return state.ending ? ", within " + count_left(state) : "";
        if (!state.ending && !kings_only) return "";  // man moves reset 6.2 on the way: nothing to add
        std::string s = ", more than " + count_left(state) + ", but it can force ";
        if (state.ending && state.ending->strong == *f.winner)
            s += loser + "'s lone king to make a capture that changes the count";
        else
            s += "a capture that " + std::string(state.ending ? "changes the count" : "resets it");
        return s + ", and win in time";
    }
    const std::string draw = ": a draw under the rules";
    switch (f.decided_by) {
        case Decider::Distance: return ", but not within " + count_left(state) + draw;
        case Decider::Repetition:
            return (state.ending || kings_only ? ", within " + count_left(state) : std::string()) +
                   ", but only through a position that has already occurred twice (6.1)" + draw;
        case Decider::CaptureOrRepetition:
            return ", but a capture that changes the counts, or a third repetition, prevents it" + draw;
        case Decider::Capture: break;
    }
    if (state.ending)
        return ", within " + count_left(state) + ", but " + loser +
               " can force a capture that changes the count, after which the win no longer fits" + draw;
    return ", but " + loser + " can force a capture or promotion that starts a 6.3/6.4 count the win does not fit in" +
           draw;
}

class GameAnalyser {
public:
    GameAnalyser(const PdnGame& game, const Oracle& oracle, const AnalysisOptions& options)
        : game_(game), oracle_(oracle), options_(options), tracker_(game.start, options.rules) {}

    GameAnalysis run() {
        out_.white = player("White");
        out_.black = player("Black");
        out_.result = std::string(to_string(game_.result));
        if (is_chess_result(game_.result_written)) out_.result_written = game_.result_written;
        out_.plies = static_cast<int>(game_.moves.size());
        out_.final_fen = to_fen(game_.final_position());
        out_.error = game_.error;
        out_.warnings = game_.warnings;
        Assessment current = assess(game_.start, 0);
        note_rules(tracker_.state(), false, 0);
        for (std::size_t i = 0; i < game_.moves.size(); ++i) {
            const PdnMove& m = game_.moves[i];
            const bool drawn_before = tracker_.state().draw.has_value();
            const DrawState& state = tracker_.play(m.move);
            const int ply = static_cast<int>(i) + 1;
            note_rules(state, drawn_before, ply);
            const Assessment next = assess(apply_move(m.before, m.move), ply);
            note_change(m, static_cast<int>(i), current, next);
            current = next;
        }
        judge(current);
        return std::move(out_);
    }

private:
    std::optional<std::string> player(std::string_view tag) const {
        const auto name = game_.tag(tag);
        if (!name || name->empty()) return std::nullopt;
        return std::string(*name);
    }

    // Whether the recorded result says who won or that it was a draw: "*" and no result say nothing.
    bool claims_a_result() const { return game_.result != PdnResult::Unknown && game_.result != PdnResult::None; }

    std::string no_claim() const {
        return game_.result == PdnResult::Unknown ? "the game was scored *, which claims no result"
                                                  : "no result was recorded";
    }

    Assessment assess(const Position& pos, int ply) {
        const Assessment a = oracle_(pos);
        if (a.value != Value::Unknown && !out_.first_known_ply) {
            out_.first_known_ply = ply;
            out_.first_known_fen = to_fen(pos);
            out_.first_known = a;
        }
        return a;
    }

    void note_rules(const DrawState& state, bool drawn_before, int ply) {
        if (state.ending && state.ending_start_ply == ply)  // a count starts with this position
            out_.rules.push_back({state.ending->rule, ply, false, state.ending_plies_remaining});
        if (state.draw && !drawn_before) out_.rules.push_back({*state.draw, state.draw_ply, true, 0});
    }

    void note_change(const PdnMove& m, int index, const Assessment& before, const Assessment& after) {
        if (before.value == Value::Unknown || after.value == Value::Unknown) return;
        const Value mover_after = negate(after.value);
        if (static_cast<int>(mover_after) >= static_cast<int>(before.value)) return;
        out_.changes.push_back({index, m.number, m.text, to_fen(m.before), before.value, mover_after, before.dtw});
    }

    void judge(const Assessment& final_assessment) {
        const Outcome recorded = recorded_outcome(game_.result);
        const DrawState& state = tracker_.state();
        const std::string where = after_move(game_, out_.plies);
        if (game_.error) return decide(Consistency::Undecided, "the game could not be read to its end");
        if (state.draw) {
            const std::string rule(to_string(*state.draw));
            const std::string when = after_move(game_, state.draw_ply);
            if (!claims_a_result()) return decide(Consistency::Undecided, no_claim() + "; it was drawn by rule " + rule + " " + when);
            if (recorded == Outcome::Draw) return decide(Consistency::Consistent, "drawn by rule " + rule + " " + when);
            return decide(Consistency::Inconsistent,
                          "the game was drawn by rule " + rule + " " + when + ", but was scored " + out_.result);
        }
        if (state.winner) {
            const std::string s = "the side to move has no legal move " + where + ": " + side_name(*state.winner) + " wins";
            if (!claims_a_result()) return decide(Consistency::Undecided, no_claim() + "; " + s);
            return decide(recorded == win_for(*state.winner) ? Consistency::Consistent : Consistency::Inconsistent,
                          recorded == win_for(*state.winner) ? s : s + ", but the game was scored " + out_.result);
        }
        if (final_assessment.value == Value::Unknown)
            return decide(Consistency::Undecided, "the final position (" + where + ") is beyond the databases");
        if (!claims_a_result())
            return decide(Consistency::Undecided, no_claim() + "; " + where + " the position is " +
                                                      board_value(final_assessment.value) + " under perfect play");
        if (recorded == Outcome::Other)
            return decide(Consistency::Undecided, "the game was scored 0-0 (both players lose: an arbiter's decision, not an outcome of play)");
        judge_final(final_assessment, recorded, where);
    }

    // "a draw", "won by white", "won by black": the value for the side to move, said of the board.
    std::string board_value(Value v) const {
        if (v == Value::Draw) return "a draw";
        const Color to_move = tracker_.position().side_to_move;
        return std::string("won by ") + side_name(v == Value::Win ? to_move : opponent(to_move));
    }

    // Where the draw rules are not settled, the winner under perfect play either wins or draws:
    // a win recorded for the other side is inconsistent all the same.
    bool reject_win_of_the_loser(Color winner, Outcome recorded, const std::string& wins) {
        if (recorded != win_for(opponent(winner))) return false;
        decide(Consistency::Inconsistent, wins + "; the draw rules can at most make it a draw, but the game was scored " +
                                              out_.result);
        return true;
    }

    void judge_final(const Assessment& a, Outcome recorded, const std::string& where) {
        const Position& pos = tracker_.position();
        const DrawState& state = tracker_.state();
        const Color to_move = pos.side_to_move;
        if (a.value == Value::Draw) return conclude(Outcome::Draw, recorded, where + " the position is a draw");
        const Color winner = a.value == Value::Win ? to_move : opponent(to_move);
        const std::string wins = where + " " + side_name(winner) + " wins";
        if (!a.dtw) {
            if (!rules_in_play(pos, state)) return conclude(win_for(winner), recorded, wins);
            if (reject_win_of_the_loser(winner, recorded, wins)) return;
            const DrawRule rule = state.ending ? state.ending->rule : DrawRule::KingMoves;
            return decide(Consistency::Undecided, wins + "; whether the win fits within the " + std::string(to_string(rule)) +
                                                      " count needs the distance to win, which is not available");
        }
        const ForcedWin f = force_win(tracker_, oracle_, options_.search);
        out_.forced_win = f.answer;
        out_.search = f;
        const std::string s = wins + " in " + plies(*a.dtw);
        if (f.answer == Forced::Unknown && reject_win_of_the_loser(winner, recorded, s)) return;
        if (f.answer == Forced::Unknown)
            return decide(Consistency::Undecided,
                          s + "; whether it can force the win before a draw rule ends the game is not known: " + f.unknown_reason);
        conclude(f.answer == Forced::Yes ? win_for(winner) : Outcome::Draw, recorded, s + against_the_rules(f, pos, state));
    }

    void conclude(Outcome theoretical, Outcome recorded, const std::string& s) {
        if (theoretical == recorded) return decide(Consistency::Consistent, s);
        decide(Consistency::Inconsistent, s + ", but the game was scored " + out_.result);
    }

    void decide(Consistency c, std::string why) {
        out_.consistency = c;
        out_.explanation = std::move(why);
    }

    const PdnGame& game_;
    const Oracle& oracle_;
    const AnalysisOptions& options_;
    DrawRuleTracker tracker_;
    GameAnalysis out_;
};

}  // namespace

const char* to_string(Consistency c) {
    switch (c) {
        case Consistency::Consistent: return "consistent";
        case Consistency::Inconsistent: return "inconsistent";
        default: return "undecided";
    }
}

GameAnalysis analyse_game(const PdnGame& game, const Oracle& oracle, const AnalysisOptions& options) {
    return GameAnalyser(game, oracle, options).run();
}

}  // namespace dtb
