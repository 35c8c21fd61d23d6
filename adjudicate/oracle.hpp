// What the databases say of a position, as the adjudication code asks for it: through a function,
// so that the analysis does not depend on how values are stored (files, memory).
#pragma once

#include <functional>
#include <optional>

#include "probe/format.hpp"
#include "rules/position.hpp"

namespace dtb {

// The value of a position for the side to move. Value::Unknown: beyond the databases (or a file
// is unavailable). dtw: plies to the end of the game under optimal play, when known.
struct Assessment {
    Value value = Value::Unknown;
    std::optional<int> dtw;
};
using Oracle = std::function<Assessment(const Position&)>;

class Tablebase;

// The value and distance to win from the .dtw files where they cover the position; the value
// alone from the .wdl files elsewhere. `tb` must outlive the oracle.
Oracle tablebase_oracle(const Tablebase& tb);

}  // namespace dtb
