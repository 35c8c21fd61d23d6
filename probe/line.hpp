// An optimal line from a position to the end of the game, from the DTW databases: the winner takes
// the shortest win, the loser the longest resistance (what `dtb line` prints).
#pragma once

#include <vector>

#include "probe/tablebase.hpp"

namespace dtb {

// Whether `d` holds a value and, for a win or a loss, its distance.
inline bool has_distance(const DtwResult& d) { return d.known() && (d.value == Value::Draw || d.dtw >= 0); }

struct LineMove {
    Move move{};
    Position after;    // the position after the move
    DtwResult result;  // probe_dtw(after): for the side to move after the move (the mover's opponent)
};

struct OptimalLine {
    DtwResult start;  // probe_dtw of the position itself
    // The moves of the line, in order; empty for a draw (it has no forced end).
    std::vector<LineMove> moves;
    // True when the line reaches the end of the game, or the position is a draw. False when the
    // position has no value or distance (start says why), or when some successor of the last
    // position reached has none (so the best move there cannot be told): the line stops there.
    bool complete = false;
    // When the line stops short after the start: the first successor of the last position reached
    // that has no distance (its error and reason say why).
    DtwResult stopped;
};

// The line from `pos`. Every value and distance comes from probe_dtw; none is guessed.
OptimalLine optimal_line(const Tablebase& tb, const Position& pos);

}  // namespace dtb
