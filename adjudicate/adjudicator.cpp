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

// The value a counted ending (6.3/6.4) leaves to the side to move: a win that cannot be completed
// within the plies the count allows is a draw under the rules. Needs the DTW; without it the
// tablebase value stands and `undecided` is set.
Value value_under_count(const Assessment& a, const DrawState& state, bool& undecided) {
    if (!state.ending || a.value == Value::Draw || a.value == Value::Unknown) return a.value;
    if (!a.dtw) {
        undecided = true;
        return a.value;
    }
    return *a.dtw <= state.ending_plies_remaining ? a.value : Value::Draw;
}

class GameAnalyser {
public:
    GameAnalyser(const PdnGame& game, const Oracle& oracle) : game_(game), oracle_(oracle), tracker_(game.start) {}

    GameAnalysis run() {
        out_.white = std::string(game_.tag("White").value_or(""));
        out_.black = std::string(game_.tag("Black").value_or(""));
        out_.result = std::string(to_string(game_.result));
        out_.plies = static_cast<int>(game_.moves.size());
        out_.error = game_.error;
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
            if (recorded == Outcome::Draw) return decide(Consistency::Consistent, "drawn by rule " + rule + " " + when);
            return decide(Consistency::Inconsistent,
                          "the game was drawn by rule " + rule + " " + when + ", but was scored " + out_.result);
        }
        if (state.winner) {
            const std::string s = "the side to move has no legal move " + where + ": " + side_name(*state.winner) + " wins";
            return decide(recorded == win_for(*state.winner) ? Consistency::Consistent : Consistency::Inconsistent,
                          recorded == win_for(*state.winner) ? s : s + ", but the game was scored " + out_.result);
        }
        if (final_assessment.value == Value::Unknown)
            return decide(Consistency::Undecided, "the final position (" + where + ") is beyond the databases");
        if (recorded == Outcome::Other) return decide(Consistency::Undecided, "no result was recorded");
        judge_final(final_assessment, recorded, where);
    }

    void judge_final(const Assessment& a, Outcome recorded, const std::string& where) {
        const DrawState& state = tracker_.state();
        bool count_undecided = false;
        const Value v = value_under_count(a, state, count_undecided);
        const Color to_move = tracker_.position().side_to_move;
        const Outcome theoretical = v == Value::Draw ? Outcome::Draw : win_for(v == Value::Win ? to_move : opponent(to_move));
        std::string s = where + " " + describe(a, to_move, state);
        if (count_undecided) {
            s += "; whether the win fits within the " + std::string(to_string(state.ending->rule)) +
                 " count needs the distance to win, which is not available";
            return decide(Consistency::Undecided, s);
        }
        if (theoretical == recorded) return decide(Consistency::Consistent, s);
        decide(Consistency::Inconsistent, s + ", but the game was scored " + out_.result);
    }

    static std::string describe(const Assessment& a, Color to_move, const DrawState& state) {
        if (a.value == Value::Draw) return "the position is a draw";
        const Color winner = a.value == Value::Win ? to_move : opponent(to_move);
        std::string s = std::string(side_name(winner)) + " wins";
        if (a.dtw) s += " in " + std::to_string(*a.dtw) + " plies";
        if (state.ending && a.dtw) {
            const bool in_time = *a.dtw <= state.ending_plies_remaining;
            s += in_time ? ", within" : ", but not within";
            s += " the " + std::to_string(state.ending_plies_remaining) + " plies the " +
                 std::string(to_string(state.ending->rule)) + " count leaves";
            if (!in_time) s += ": a draw under the rules";
        }
        return s;
    }

    void decide(Consistency c, std::string why) {
        out_.consistency = c;
        out_.explanation = std::move(why);
    }

    const PdnGame& game_;
    const Oracle& oracle_;
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

GameAnalysis analyse_game(const PdnGame& game, const Oracle& oracle) { return GameAnalyser(game, oracle).run(); }

}  // namespace dtb
