// Every legal move at a game's root, ranked under the FMJD draw rules: what an engine needs to play
// an endgame out from the databases without letting a count or a repetition turn a win into a
// draw, or missing that the rules save a lost position.
#pragma once

#include <string>
#include <vector>

#include "probe/forced_win.hpp"
#include "probe/tablebase.hpp"
#include "rules/draw_rules.hpp"

namespace dtb {

struct RootMove {
    Move move;
    Position after;
    // For the side to move at the root, under the draw rules: Win when the win can be forced
    // before a rule draws the game, Loss when the opponent can force it, Draw otherwise (by the
    // databases, or by a rule), Unknown when the databases or the search budget cannot tell.
    Value value = Value::Unknown;
    // Plies to the end of the game with best play by the databases' distance to win (the move
    // included; odd for a win, even for a loss); -1 for a draw by the databases or when unknown.
    int dtw = -1;
    // The databases' win or loss that the draw rules turn into a draw (value is then Draw).
    bool drawn_by_rules = false;
    std::string reason;  // for Unknown: why
};

struct RootOptions {
    DrawRuleOptions rules;     // what a 16-to-5-move change does to the count
    ForcedWinOptions search;   // the forced-win search's budget, per move
};

// Every legal move of `pos`, the game's counts having run as `counts` says: wins first, quickest
// (by dtw) first; then draws, plain ones before those the rules make; then losses, slowest first;
// unknowns last. Needs .dtw files for the material after the moves (without them a decided move is
// Unknown). Throws std::invalid_argument for an invalid position or counts.
std::vector<RootMove> probe_root(const Tablebase& tb, const Position& pos, const RunningCounts& counts,
                                 const RootOptions& options = {});

}  // namespace dtb
