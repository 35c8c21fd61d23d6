// Perft: the number of leaf nodes of the legal move tree, the standard check of a move generator.
#pragma once

#include <cstdint>

#include "rules/position.hpp"

namespace dtb {

std::uint64_t perft(const Position& pos, int depth);

}  // namespace dtb
