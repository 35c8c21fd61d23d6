// Legal moves under the FMJD rules of international draughts.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "rules/position.hpp"

namespace dtb {

// A move is identified by its start square, end square and the set of pieces it captures: two
// capture paths with the same three are one move. Squares are bit indices (see board.hpp).
// Trivially constructible on purpose: MoveList holds hundreds of them and must not clear them.
struct Move {
    Bitboard captured;
    std::uint8_t from;
    std::uint8_t to;

    constexpr bool is_capture() const { return captured != 0; }
    friend constexpr bool operator==(const Move&, const Move&) = default;
};

// Fixed-capacity list: move generation sits on the hot path of perft, the generator and probing.
class MoveList {
public:
    static constexpr std::size_t kCapacity = 768;

    void push(const Move& m) {
        if (size_ == kCapacity) throw std::length_error("more legal moves than MoveList holds");
        moves_[size_++] = m;
    }
    void clear() { size_ = 0; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const Move& operator[](std::size_t i) const { return moves_[i]; }
    const Move* begin() const { return moves_.data(); }
    const Move* end() const { return moves_.data() + size_; }

private:
    std::array<Move, kCapacity> moves_;
    std::size_t size_ = 0;
};

// All legal moves: if any capture exists, only the captures taking the most pieces.
MoveList generate_moves(const Position& pos);

// The legal moves of a position whose side to move must capture (has_capture is true): the
// captures taking the most pieces. For callers that have already asked has_capture.
MoveList generate_captures(const Position& pos);

// The same, for a caller that has `capturers` = capturing_pieces(pos) already (the search starts
// from those pieces only; they are not found again).
MoveList generate_captures(const Position& pos, Bitboard capturers);

// The legal moves of a position whose side to move cannot capture (has_capture is false).
MoveList generate_quiet_moves(const Position& pos);

// generate_quiet_moves split in two, for the generator, which looks up the positions after the man
// moves and only counts the king moves: the man moves, and the number of king moves.
MoveList generate_quiet_man_moves(const Position& pos);
std::size_t count_quiet_king_moves(const Position& pos);

// The squares a king on bit `square` reaches in one quiet move, the squares `empty` being empty.
Bitboard king_destinations(int square, Bitboard empty);

// Number of legal moves (faster than generating them when there is no capture).
std::size_t count_moves(const Position& pos);

// Whether the side to move has a capture (and so must capture).
bool has_capture(const Position& pos);

// The pieces of the side to move that can capture (0 when it cannot): has_capture's test for
// every piece, for a caller that then generates the captures.
Bitboard capturing_pieces(const Position& pos);

// The position after a legal move (side to move switches; a man ending on the far row is crowned).
Position apply_move(const Position& pos, const Move& move);

// Every sequence of landing squares (square numbers, starting with the start square) by which
// `move` can be played. Quiet moves have one path {from, to}. Slow; for notation only.
std::vector<std::vector<int>> move_paths(const Position& pos, const Move& move);

}  // namespace dtb
