// Kings-only positions numbered up to the symmetries of the board, for solvers that would not
// hold one value a position in memory.
//
// Without men nothing tells the board's directions apart except its shape: the 180-degree turn
// and the reflections in its two diagonals (a1-j10, the long diagonal, and a10-j1, through light
// squares) keep the playable squares and their diagonals, so positions they map onto each other
// have the same value. A class of such positions gets one number: its key side's kings stand on
// the representative of their set's orbit, and the other side's kings are ranked among the
// squares left. Classes number a quarter of the positions and a little more: where a symmetry
// keeps the key set, the numbers of a few positions stay unused (a fifth more for a lone king, a
// few hundredths for three or more).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "index/position_index.hpp"

namespace dtb {

// The four symmetries of the playable squares: identity, 180-degree turn, reflection in the
// a10-j1 diagonal, reflection in the a1-j10 diagonal. Each maps a diagonal step to a diagonal step.
inline constexpr int kBoardSymmetries = 4;
Bitboard apply_symmetry(int symmetry, Bitboard squares);

// The number of orbits of k-sets of squares under the four symmetries (Burnside's count), without
// enumerating them: for memory estimates.
std::uint64_t square_set_orbits(int k);

// Classes of the white-to-move positions of one kings-only material.
class KingClasses {
public:
    explicit KingClasses(const Material& kings_only);

    std::uint64_t size() const { return static_cast<std::uint64_t>(representatives_.size()) * other_placements_; }
    // size() for a material, from square_set_orbits: builds nothing.
    static std::uint64_t count(const Material& kings_only);

    // The class of a white-to-move position of this material.
    std::uint64_t class_of(const KingPlacement& kings) const;
    // A position of class c; class_of gives c back for every class a position is sent to.
    KingPlacement placement(std::uint64_t c) const;

private:
    struct KeyClass {
        std::uint32_t representative;  // the orbit's number, in the order of its smallest set
        std::uint8_t symmetries;       // bit g: apply_symmetry(g, set) is the orbit's smallest set
    };
    bool key_is_white_;
    int key_count_, other_count_;
    std::uint64_t other_placements_;
    std::vector<KeyClass> key_classes_;    // by rank of the key side's set among the 50 squares
    std::vector<Bitboard> representatives_;  // the smallest set of each orbit
};

}  // namespace dtb
