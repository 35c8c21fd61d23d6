// For `dtb verify`: what the quiet king moves of every position of a material lead to, found for
// all positions at once.
//
// The positions that differ only in where one white king stands form a family: the king's moves
// from any of them end on the same few dozen squares, in positions that differ only in that
// square. So each family looks up the position after a move to each empty square once, and every
// member takes the best of its own destinations from that. A position with k white kings belongs
// to k families. This replaces, for king moves, the position-by-position generation, indexing and
// lookup of every move (about twenty king moves a position in the many-king materials).
#pragma once

#include <cstdint>
#include <functional>

#include "gen/value_tables.hpp"
#include "gen/zero_pages.hpp"
#include "index/material.hpp"
#include "index/position_index.hpp"

namespace dtb {

class KingMoveValues {
public:
    // Whether the families of m can be worked through in parallel (white has a king, and m has men
    // or more than one white king to split the work by).
    static bool applies(const Material& m);

    // Looks up the positions after the king moves in `mirror_values`, the values of m.mirror()
    // (m's own for a symmetric material), for the positions whose men stand where `wanted` says.
    // `progress` (optional) is told the share done now and then, from any of the threads at once.
    KingMoveValues(const Material& m, const PackedValues& mirror_values,
                   const std::function<bool(const MenConfig&)>& wanted,
                   const std::function<void(double)>& progress = {});

    // The best value for white (to move) after a quiet move of one of its kings in position `index`
    // of m: a loss when it has no king move. Meaningless where white must capture, and for
    // positions whose men `wanted` left out.
    Value best(std::uint64_t index) const {
        const unsigned code = (codes_[index >> 2] >> ((index & 3) * 2)) & 3;
        return code == kWinCode ? Value::Win : static_cast<Value>(code);
    }

private:
    // Codes whose bitwise or is the best of the values: loss 0, draw 1, win 3.
    static constexpr unsigned kWinCode = 3;

    void add_families(std::uint64_t men_index, std::uint64_t others_rank, const PackedValues& mirror_values);

    Material material_;
    PositionIndex index_, mirror_index_;
    ZeroPages<std::uint8_t> codes_;  // two bits a position
};

}  // namespace dtb
