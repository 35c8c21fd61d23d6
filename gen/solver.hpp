// Retrograde solver for one material and its colour mirror.
//
// Men only move forward, so the positions are solved one men configuration at a time, from the
// most advanced configurations down (see men_advancement): a man move always leads to a
// configuration solved before, and only king moves link positions still being solved. Each
// configuration c of the material is solved together with flip(c) of the mirror material, since
// a king move from one lands in the other. Those subgames are independent, so TBB solves all
// subgames of one advancement level in parallel.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "gen/pair_layout.hpp"
#include "gen/value_tables.hpp"

namespace dtb {

// Values of a solved material: Value (0..2) for every position, with kCaptureFlag set where the
// side to move must capture (the value is then the one the capture search gives).
inline constexpr std::uint8_t kCaptureFlag = 4;
inline constexpr std::uint8_t kValueMask = 3;

struct SolvedMaterial {
    Material material;
    std::vector<std::uint8_t> values;
};

// The values of a solved material packed two bits a position (capture flags dropped), as
// ValueTables holds them.
PackedValues pack_values(const std::vector<std::uint8_t>& solver_values);

// Solves `material` and, unless it is its own mirror, its mirror. Every material reachable by a
// capture or a promotion must be in `finished`. The result does not depend on the thread count.
std::vector<SolvedMaterial> solve_material_pair(const Material& material, const ValueTables& finished,
                                                const ProgressCallback& progress = {});

}  // namespace dtb
