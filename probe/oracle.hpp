// What the databases say of a position, as the adjudication code asks for it: through a function,
// so that the analysis does not depend on how values are stored (files, memory).
#pragma once

#include <concepts>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include "probe/format.hpp"
#include "rules/draw_rules.hpp"
#include "rules/position.hpp"

namespace dtb {

// The value of a position for the side to move. Value::Unknown: beyond the databases (or a file
// is unavailable). dtw: plies to the end of the game under optimal play, when known.
struct Assessment {
    Value value = Value::Unknown;
    std::optional<int> dtw;
};

// For each counted ending (6.3, 6.4): an upper bound, in plies, on the distance to win of every
// position of every material the count applies to, either side to move, capture positions
// included. When it is within the count (32, 10 plies), a count that starts afresh never stops a
// winner who plays the shortest win (docs/DRAW_RULES.md). nullopt: not known.
struct CountedEndingBounds {
    std::optional<int> sixteen_moves;
    std::optional<int> five_moves;

    std::optional<int> of(DrawRule counted_rule) const {
        return counted_rule == DrawRule::SixteenMoves ? sixteen_moves : five_moves;
    }
};

// Answers for positions, plus what is known of the counted endings as a whole. Any callable
// taking a Position and giving an Assessment converts to an Oracle (with no bounds known).
struct Oracle {
    std::function<Assessment(const Position&)> assess;
    CountedEndingBounds counted_bounds;

    Oracle() = default;
    template <typename F>
        requires std::is_invocable_r_v<Assessment, F&, const Position&> && (!std::same_as<std::decay_t<F>, Oracle>)
    Oracle(F f, CountedEndingBounds bounds = {}) : assess(std::move(f)), counted_bounds(bounds) {}

    Assessment operator()(const Position& pos) const { return assess(pos); }
};

class Tablebase;

// The value and distance to win from the .dtw files where they cover the position; the value
// alone from the .wdl files elsewhere. The counted bounds come from the .dtw files' headers of the
// counted materials and of those their captures lead to. `tb` must outlive the oracle.
Oracle tablebase_oracle(const Tablebase& tb);

}  // namespace dtb
