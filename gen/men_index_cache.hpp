// The men indices of the men configurations one walk met last.
//
// The first pass walks the positions of one men configuration, the kings moving fastest: the men
// of the positions after each man move, and after each capture of a man, are the same from one
// position to the next. Ranking them again for every position (PositionIndex::men_index, a few
// dozen instructions a rank) cost about a twentieth of a build.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "index/material.hpp"
#include "index/position_index.hpp"

namespace dtb {

// Direct-mapped: a men configuration has one slot, and a newcomer replaces what it held. Meant for
// one thread (copy it, do not share it).
class MenIndexCache {
public:
    // index.men_index(men), remembered.
    std::uint64_t men_index(const PositionIndex& index, const MenConfig& men) {
        const Material& m = index.material();
        Slot& s = slots_[slot_of(m, men)];
        if (!(s.used && s.men == men && s.material == m)) s = {m, men, index.men_index(men), true};
        return s.men_index;
    }

private:
    static constexpr int kSlotBits = 6;
    struct Slot {
        Material material;
        MenConfig men;
        std::uint64_t men_index = 0;
        bool used = false;
    };
    static std::size_t slot_of(const Material& m, const MenConfig& men) {
        const std::uint64_t h = men.white_men * 0x9E3779B97F4A7C15ULL ^ men.black_men * 0xC2B2AE3D27D4EB4FULL ^
                                static_cast<std::uint64_t>(m.white_kings * 17 + m.black_kings);
        return static_cast<std::size_t>(h >> (64 - kSlotBits));
    }
    std::array<Slot, std::size_t{1} << kSlotBits> slots_{};
};

}  // namespace dtb
