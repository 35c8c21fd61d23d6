#include "probe/line.hpp"

#include <stdexcept>

#include "rules/fen.hpp"

namespace dtb {
namespace {

bool distance_known(const DtwResult& d) { return d.known() && (d.value == Value::Draw || d.dtw >= 0); }

// The winner's shortest win, or the loser's longest resistance, among the moves of `pos`. Nothing
// when the distance after some move is unknown (the best one could be that move).
std::optional<LineMove> best_move(const Tablebase& tb, const Position& pos, Value value) {
    std::optional<LineMove> best;
    for (const Move& m : generate_moves(pos)) {
        const LineMove candidate{m, pos, tb.probe_dtw(apply_move(pos, m))};
        const DtwResult& after = candidate.after;
        if (!distance_known(after)) return std::nullopt;
        if (value == Value::Win) {
            if (after.value == Value::Loss && (!best || after.dtw < best->after.dtw)) best = candidate;
        } else if (!best || after.dtw > best->after.dtw) {
            best = candidate;
        }
    }
    return best;
}

}  // namespace

OptimalLine optimal_line(const Tablebase& tb, const Position& pos) {
    if (const char* problem = position_problem(pos)) throw std::invalid_argument(problem);
    OptimalLine line;
    line.start = tb.probe_dtw(pos);
    if (!distance_known(line.start)) {
        line.problem = to_fen(pos) + ": no distance to win: " + std::string(line.start.reason);
        return line;
    }
    if (line.start.value == Value::Draw) return line;
    Position now = pos;
    DtwResult distance = line.start;
    while (distance.dtw > 0) {
        const std::optional<LineMove> best = best_move(tb, now, distance.value);
        if (!best) {
            line.problem = "a successor of " + to_fen(now) + " has no distance to win";
            return line;
        }
        line.moves.push_back(*best);
        now = apply_move(now, best->move);
        distance = best->after;
    }
    return line;
}

}  // namespace dtb
