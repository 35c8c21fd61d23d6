// Board geometry: the 50 playable squares of the 10x10 board packed into a 64-bit word.
//
// Square s (1..50, numbered row by row from the top as White sees the board) lives at bit
// (s-1) + (s-1)/10. Every tenth square is followed by an unused "ghost" bit (10, 21, 32, 43),
// so one diagonal step is always the same shift: -6 (up-left), -5 (up-right), +5 (down-left),
// +6 (down-right), and a step off the left or right edge lands on a ghost bit, never on a square.
// The layout is symmetric under bit b -> 53-b, which is the 180 degree rotation (square s -> 51-s).
#pragma once

#include <bit>
#include <cstdint>

namespace dtb {

using Bitboard = std::uint64_t;

inline constexpr int kNumSquares = 50;

constexpr int bit_of_square(int square) {
    const int s = square - 1;
    return s + s / 10;
}

constexpr int square_of_bit(int bit) { return bit - bit / 11 + 1; }

constexpr Bitboard square_bit(int square) { return Bitboard{1} << bit_of_square(square); }

constexpr Bitboard squares_mask(int first, int last) {
    Bitboard mask = 0;
    for (int s = first; s <= last; ++s) mask |= square_bit(s);
    return mask;
}

inline constexpr Bitboard kBoard = squares_mask(1, 50);
inline constexpr Bitboard kWhitePromotionRow = squares_mask(1, 5);   // white crowns here
inline constexpr Bitboard kBlackPromotionRow = squares_mask(46, 50); // black crowns here

// Diagonal steps in bit space.
inline constexpr int kUpLeft = -6;
inline constexpr int kUpRight = -5;
inline constexpr int kDownLeft = 5;
inline constexpr int kDownRight = 6;
inline constexpr int kDirections[4] = {kUpLeft, kUpRight, kDownLeft, kDownRight};

// Shifts by a signed diagonal step; the result is not masked to the board.
constexpr Bitboard shift(Bitboard b, int step) { return step > 0 ? b << step : b >> -step; }

constexpr int lowest_bit(Bitboard b) { return std::countr_zero(b); }
constexpr int count_bits(Bitboard b) { return std::popcount(b); }

// The bytes in reverse order in one instruction, then the bits of each byte: the generator flips
// the kings of every position it looks at, and with three more swaps (bytes, half-words, words)
// the function was not inlined there.
constexpr Bitboard reverse_bits(Bitboard x) {
    x = __builtin_bswap64(x);
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    return ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
}

// Rotates the board by 180 degrees: square s goes to square 51-s.
constexpr Bitboard rotate_board(Bitboard b) { return reverse_bits(b) >> 10; }
// The bit that rotate_board takes bit `b` of a square to.
constexpr int rotate_bit(int b) { return bit_of_square(1) + bit_of_square(kNumSquares) - b; }

// Converts between the internal layout and the "bit s-1 stands for square s" layout of the C API.
constexpr Bitboard from_square_mask(std::uint64_t mask) {
    Bitboard b = 0;
    for (int s = 1; s <= kNumSquares; ++s)
        if (mask >> (s - 1) & 1) b |= square_bit(s);
    return b;
}
constexpr std::uint64_t to_square_mask(Bitboard b) {
    std::uint64_t mask = 0;
    for (; b; b &= b - 1) mask |= std::uint64_t{1} << (square_of_bit(lowest_bit(b)) - 1);
    return mask;
}

}  // namespace dtb
