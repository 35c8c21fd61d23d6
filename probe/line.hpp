// An optimal line from a position to the end of the game, from the distance-to-win databases: the
// winner takes the shortest win, the loser the longest resistance (`dtb line`, the explorer of
// `dtb serve`).
#pragma once

#include <string>
#include <vector>

#include "probe/tablebase.hpp"

namespace dtb {

struct LineMove {
    Move move;
    Position before;  // the position the move is played in
    DtwResult after;  // probe_dtw of the position after the move, for the side then to move
};

struct OptimalLine {
    DtwResult start;              // probe_dtw of the first position
    std::vector<LineMove> moves;  // to the end of the game; empty for a draw
    // Empty when the line is complete (or the start is a draw); otherwise why it stops short: the
    // start or a successor of a position on the line has no known distance.
    std::string problem;

    bool complete() const { return problem.empty(); }
};

// The optimal line from `pos`. Throws std::invalid_argument if position_problem(pos) is not null.
OptimalLine optimal_line(const Tablebase& tb, const Position& pos);

}  // namespace dtb
