// Walking the king placements of one men configuration in tiles, so that the table lookups of
// the positions walked come back to their cache lines before the caches lose them.
//
// A position after a move is indexed with the colours flipped, white's kings ranked last: along
// the king index (a black king moving) each such successor lies a row of its table away from the
// one before (C(squares, white kings) positions, a cache line or more from two kings on), and a
// row of many black placements needs more lines than the caches hold before the next row comes
// back to them. Across white placements the lowest white king moves one square, and where it is
// not the piece that moves, the successor moves within its cache line. So where white has two
// kings or more and black many placements, a tile of kKingTileWidth black placements across
// consecutive white ones keeps its lookups in few lines. (With one white king, that king moves;
// its successors are a few positions apart along the index already.)
#pragma once

#include <algorithm>
#include <cstdint>

#include "index/position_index.hpp"

namespace dtb {

inline constexpr std::uint64_t kKingTileWidth = 64;

// Whether tiles pay for `index` (its white kings and black placements; see above).
inline bool king_tiles_pay(const PositionIndex& index) {
    return index.material().white_kings >= 2 && index.black_king_placements() >= 2 * kKingTileWidth;
}

// Calls run(from, to) over king placements [k0, k1) of one men configuration of `index`, each
// placement once: in tiles of kKingTileWidth black placements across the white ones where tiles
// pay and the range holds at least `min_rows` white placements, in one run otherwise.
template <typename Run>
void for_each_king_tile_run(const PositionIndex& index, std::uint64_t k0, std::uint64_t k1, std::uint64_t min_rows,
                            Run&& run) {
    const std::uint64_t row = index.black_king_placements();
    if (!king_tiles_pay(index) || k1 - k0 < min_rows * row) {
        if (k0 < k1) run(k0, k1);
        return;
    }
    const std::uint64_t first_row = k0 / row, last_row = (k1 + row - 1) / row;
    for (std::uint64_t column = 0; column < row; column += kKingTileWidth)
        for (std::uint64_t r = first_row; r < last_row; ++r) {
            const std::uint64_t from = std::max(k0, r * row + column);
            const std::uint64_t to = std::min(k1, r * row + std::min(row, column + kKingTileWidth));
            if (from < to) run(from, to);
        }
}

}  // namespace dtb
