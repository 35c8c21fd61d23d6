#include "probe/root.hpp"

#include <algorithm>
#include <stdexcept>

#include "probe/oracle.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace {

RootMove judge_move(const DrawRuleTracker& root, const Move& m, const Oracle& oracle, const ForcedWinOptions& search) {
    const Color mover = root.position().side_to_move;
    DrawRuleTracker t = root;
    const DrawState& s = t.play(m);
    RootMove out;
    out.move = m;
    out.after = t.position();
    if (s.winner) {  // the opponent has no move left
        out.value = Value::Win;
        out.dtw = 1;
        return out;
    }
    const ForcedWin f = force_win(t, oracle, search);
    if (f.winner && f.dtw) out.dtw = *f.dtw + 1;
    const bool mover_wins = f.winner == mover;
    switch (f.answer) {
        case Forced::Yes:
            out.value = mover_wins ? Value::Win : Value::Loss;
            break;
        case Forced::No:
            out.value = Value::Draw;
            out.drawn_by_rules = f.winner.has_value();  // a decided position the rules draw
            if (!f.winner) out.dtw = -1;
            break;
        case Forced::Unknown:
            out.reason = f.unknown_reason;
            out.dtw = -1;
            break;
    }
    return out;
}

// Lower ranks first: wins, plain draws, draws by rule, losses, unknowns.
int rank(const RootMove& m) {
    switch (m.value) {
        case Value::Win: return 0;
        case Value::Draw: return m.drawn_by_rules ? 2 : 1;
        case Value::Loss: return 3;
        default: return 4;
    }
}

}  // namespace

std::vector<RootMove> probe_root(const Tablebase& tb, const Position& pos, const RunningCounts& counts,
                                 const RootOptions& options) {
    if (const char* problem = position_problem(pos)) throw std::invalid_argument(problem);
    const DrawRuleTracker root(pos, counts, options.rules);
    if (root.state().draw) throw std::invalid_argument("the game is already drawn by the counts given");
    const Oracle oracle = tablebase_oracle(tb);
    std::vector<RootMove> moves;
    for (const Move& m : generate_moves(pos)) moves.push_back(judge_move(root, m, oracle, options.search));
    std::stable_sort(moves.begin(), moves.end(), [](const RootMove& a, const RootMove& b) {
        if (rank(a) != rank(b)) return rank(a) < rank(b);
        if (a.value == Value::Win) return a.dtw < b.dtw;
        if (a.value == Value::Loss) return a.dtw > b.dtw;
        return false;
    });
    return moves;
}

}  // namespace dtb
