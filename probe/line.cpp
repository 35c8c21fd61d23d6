#include "probe/line.hpp"

#include "rules/movegen.hpp"

namespace dtb {
namespace {

// The winner's shortest win, or the loser's longest resistance, among the successors of a position
// of value `value`; the first successor without a distance, if any, in `missing`.
const LineMove* best_move(const std::vector<LineMove>& successors, Value value, const LineMove*& missing) {
    const LineMove* best = nullptr;
    for (const LineMove& s : successors) {
        if (!has_distance(s.result)) {
            missing = &s;
            return nullptr;
        }
        if (value == Value::Win) {
            if (s.result.value == Value::Loss && (!best || s.result.dtw < best->result.dtw)) best = &s;
        } else if (!best || s.result.dtw > best->result.dtw) {
            best = &s;
        }
    }
    return best;
}

}  // namespace

OptimalLine optimal_line(const Tablebase& tb, const Position& pos) {
    OptimalLine line;
    line.start = tb.probe_dtw(pos);
    if (!has_distance(line.start)) return line;
    Position now = pos;
    DtwResult value = line.start;
    while (value.value != Value::Draw && value.dtw > 0) {
        std::vector<LineMove> successors;
        for (const Move& m : generate_moves(now)) {
            const Position after = apply_move(now, m);
            successors.push_back({m, after, tb.probe_dtw(after)});
        }
        const LineMove* missing = nullptr;
        const LineMove* best = best_move(successors, value.value, missing);
        if (!best) {
            // No successor of the value's kind: only inconsistent files give that.
            line.stopped = missing ? missing->result
                                   : DtwResult{.error = ProbeError::BadTable,
                                               .reason = "no successor has the distance the position's value implies"};
            return line;
        }
        line.moves.push_back(*best);
        now = best->after;
        value = best->result;
    }
    line.complete = true;
    return line;
}

}  // namespace dtb
