// A draughts position: who stands where, and whose turn it is.
#pragma once

#include "rules/board.hpp"

namespace dtb {

enum class Color : std::uint8_t { White = 0, Black = 1 };

constexpr Color opponent(Color c) { return c == Color::White ? Color::Black : Color::White; }

struct Position {
    Bitboard white = 0;  // all white pieces, men and kings
    Bitboard black = 0;  // all black pieces, men and kings
    Bitboard kings = 0;  // kings of either colour
    Color side_to_move = Color::White;

    constexpr Bitboard occupied() const { return white | black; }
    constexpr Bitboard empty() const { return kBoard & ~occupied(); }
    constexpr Bitboard pieces(Color c) const { return c == Color::White ? white : black; }
    constexpr Bitboard men(Color c) const { return pieces(c) & ~kings; }
    constexpr Bitboard kings_of(Color c) const { return pieces(c) & kings; }

    friend constexpr bool operator==(const Position&, const Position&) = default;
};

// Rotates the board by 180 degrees and swaps the colours (the side to move swaps too).
// The result is the same game seen from the other side: its value for the side to move is
// unchanged. Databases store white-to-move positions only and reach the rest through this.
constexpr Position flip_colors(const Position& p) {
    return Position{rotate_board(p.black), rotate_board(p.white), rotate_board(p.kings),
                    opponent(p.side_to_move)};
}

// Same position with white to move (flipping if black is to move).
constexpr Position white_to_move(const Position& p) {
    return p.side_to_move == Color::White ? p : flip_colors(p);
}

}  // namespace dtb
