// Helpers shared by the rules tests: random positions, tree walks, and a slow reference move
// generator written independently of rules/movegen.cpp (plain row/column geometry, one square at
// a time) against which the bitboard generator is cross-checked.
#pragma once

#include <algorithm>
#include <array>
#include <compare>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "rules/fen.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/position.hpp"

namespace dtb::test {

// ---------------------------------------------------------------------------------------------
// Small conveniences.

inline std::set<std::string> move_strings(const Position& pos) {
    std::set<std::string> out;
    for (const Move& m : generate_moves(pos)) out.insert(move_to_string(pos, m));
    return out;
}

inline std::set<std::string> move_strings(const std::string& fen) { return move_strings(parse_fen(fen)); }

// Square numbers (1..50) of a board word.
inline std::vector<int> squares_of(Bitboard b) {
    std::vector<int> out;
    for (int s = 1; s <= kNumSquares; ++s)
        if (b & square_bit(s)) out.push_back(s);
    return out;
}

// Calls f(position, ply) for every node of the legal move tree down to `depth` plies
// (the root is ply 0, so the leaves at `depth` are visited too).
template <class F>
void walk_tree(const Position& pos, int depth, F&& f, int ply = 0) {
    f(pos, ply);
    if (ply == depth) return;
    for (const Move& m : generate_moves(pos)) walk_tree(apply_move(pos, m), depth, f, ply + 1);
}

// ---------------------------------------------------------------------------------------------
// Random legal positions.

struct RandomSpec {
    int max_white = 12;       // 1..max_white white pieces
    int max_black = 12;       // 1..max_black black pieces
    double king_share = 0.2;  // probability that a piece is a king
};

// A random position: no square used twice, no man on its own crowning row, either side to move.
inline Position random_position(std::mt19937_64& rng, const RandomSpec& spec = {}) {
    Position pos;
    std::uniform_int_distribution<int> square(1, kNumSquares);
    std::bernoulli_distribution king(spec.king_share);
    const int white = std::uniform_int_distribution<int>(1, spec.max_white)(rng);
    const int black = std::uniform_int_distribution<int>(1, spec.max_black)(rng);
    for (int colour = 0; colour < 2; ++colour) {
        const int want = colour == 0 ? white : black;
        for (int placed = 0; placed < want;) {
            const int s = square(rng);
            const Bitboard b = square_bit(s);
            if (pos.occupied() & b) continue;
            bool is_king = king(rng);
            if (colour == 0 && s <= 5) is_king = true;   // a white man never stands on 1-5
            if (colour == 1 && s >= 46) is_king = true;  // a black man never stands on 46-50
            (colour == 0 ? pos.white : pos.black) |= b;
            if (is_king) pos.kings |= b;
            ++placed;
        }
    }
    pos.side_to_move = std::bernoulli_distribution(0.5)(rng) ? Color::White : Color::Black;
    return pos;
}

// Positions met along random games from `start` (realistic middle games and endgames, with kings
// appearing by promotion).
inline std::vector<Position> random_game_positions(std::mt19937_64& rng, const Position& start, int games,
                                                   int max_plies = 200) {
    std::vector<Position> out;
    for (int g = 0; g < games; ++g) {
        Position pos = start;
        for (int ply = 0; ply < max_plies; ++ply) {
            out.push_back(pos);
            const MoveList moves = generate_moves(pos);
            if (moves.empty()) break;
            pos = apply_move(pos, moves[std::uniform_int_distribution<std::size_t>(0, moves.size() - 1)(rng)]);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Reference move generator: a mailbox board of squares 1..50 with (row, column) geometry.
// Row 0 is the top row (squares 1-5), where White crowns; squares sit on the dark cells
// (row + column odd).

namespace ref {

inline int row(int s) { return (s - 1) / 5; }
inline int col(int s) { return 2 * ((s - 1) % 5) + (row(s) % 2 == 0 ? 1 : 0); }
inline int square_at(int r, int c) {
    if (r < 0 || r > 9 || c < 0 || c > 9 || (r + c) % 2 == 0) return 0;
    return r * 5 + c / 2 + 1;
}

enum Piece : char { kEmpty = '.', kWhiteMan = 'w', kWhiteKing = 'W', kBlackMan = 'b', kBlackKing = 'B' };

struct Board {
    std::array<char, 51> sq{};  // index 0 unused
    bool white_to_move = true;

    friend bool operator==(const Board&, const Board&) = default;
};

inline Board from_position(const Position& pos) {
    Board b;
    b.sq.fill(kEmpty);
    for (int s = 1; s <= kNumSquares; ++s) {
        const Bitboard bit = square_bit(s);
        const bool king = pos.kings & bit;
        if (pos.white & bit) b.sq[s] = king ? kWhiteKing : kWhiteMan;
        if (pos.black & bit) b.sq[s] = king ? kBlackKing : kBlackMan;
    }
    b.white_to_move = pos.side_to_move == Color::White;
    return b;
}

struct RefMove {
    int from = 0;
    int to = 0;
    std::vector<int> captured;  // ascending square numbers

    friend auto operator<=>(const RefMove&, const RefMove&) = default;
};

inline RefMove from_move(const Move& m) {
    return RefMove{square_of_bit(m.from), square_of_bit(m.to), squares_of(m.captured)};
}

inline bool is_white(char p) { return p == kWhiteMan || p == kWhiteKing; }
inline bool is_black(char p) { return p == kBlackMan || p == kBlackKing; }
inline bool is_king(char p) { return p == kWhiteKing || p == kBlackKing; }

class Generator {
public:
    explicit Generator(const Board& b) : b_(b) {}

    std::set<RefMove> moves() {
        std::set<RefMove> captures;
        std::size_t best = 1;
        for (int s = 1; s <= kNumSquares; ++s) {
            if (!own(b_.sq[s])) continue;
            for (auto& m : captures_from(s)) {
                if (m.captured.size() < best) continue;
                if (m.captured.size() > best) {
                    best = m.captured.size();
                    captures.clear();
                }
                captures.insert(m);
            }
        }
        if (!captures.empty()) return captures;

        std::set<RefMove> quiet;
        const int forward = b_.white_to_move ? -1 : 1;
        for (int s = 1; s <= kNumSquares; ++s) {
            if (!own(b_.sq[s])) continue;
            for (int dr : {-1, 1}) {
                for (int dc : {-1, 1}) {
                    if (!is_king(b_.sq[s])) {
                        if (dr != forward) continue;
                        const int t = square_at(row(s) + dr, col(s) + dc);
                        if (t && b_.sq[t] == kEmpty) quiet.insert(RefMove{s, t, {}});
                        continue;
                    }
                    for (int r = row(s) + dr, c = col(s) + dc; square_at(r, c) && b_.sq[square_at(r, c)] == kEmpty;
                         r += dr, c += dc)
                        quiet.insert(RefMove{s, square_at(r, c), {}});
                }
            }
        }
        return quiet;
    }

    // The squares of the pieces of the side to move that have a capture, however short.
    std::vector<int> capturers() {
        std::vector<int> squares;
        for (int s = 1; s <= kNumSquares; ++s)
            if (own(b_.sq[s]) && !captures_from(s).empty()) squares.push_back(s);
        return squares;
    }

private:
    // Every capture of the piece on s, with no majority rule.
    std::vector<RefMove> captures_from(int s) {
        std::vector<RefMove> found;
        std::vector<int> taken;
        from_ = s;
        capture(s, is_king(b_.sq[s]), taken, found);
        return found;
    }

    bool own(char p) const { return b_.white_to_move ? is_white(p) : is_black(p); }
    bool enemy(char p) const { return b_.white_to_move ? is_black(p) : is_white(p); }
    // The moving piece has left its start square; captured pieces stay on the board until the end.
    bool vacant(int s) const { return s == from_ || b_.sq[s] == kEmpty; }

    void capture(int at, bool king, std::vector<int>& taken, std::vector<RefMove>& out) {
        bool extended = false;
        for (int dr : {-1, 1}) {
            for (int dc : {-1, 1}) {
                int r = row(at) + dr, c = col(at) + dc;
                if (king)
                    while (square_at(r, c) && vacant(square_at(r, c))) r += dr, c += dc;
                const int victim = square_at(r, c);
                if (!victim || !enemy(b_.sq[victim]) || victim == from_) continue;
                if (std::find(taken.begin(), taken.end(), victim) != taken.end()) continue;  // no piece twice
                for (int lr = r + dr, lc = c + dc; square_at(lr, lc) && vacant(square_at(lr, lc)); lr += dr, lc += dc) {
                    extended = true;
                    taken.push_back(victim);
                    capture(square_at(lr, lc), king, taken, out);
                    taken.pop_back();
                    if (!king) break;  // a man lands right behind the piece it takes
                }
            }
        }
        if (!extended && !taken.empty()) {
            std::vector<int> sorted = taken;
            std::sort(sorted.begin(), sorted.end());
            out.push_back(RefMove{from_, at, sorted});
        }
    }

    const Board& b_;
    int from_ = 0;
};

inline std::set<RefMove> moves(const Board& b) { return Generator(b).moves(); }
inline std::vector<int> capturers(const Board& b) { return Generator(b).capturers(); }

inline Board apply(const Board& b, const RefMove& m) {
    Board next = b;
    char piece = next.sq[m.from];
    next.sq[m.from] = kEmpty;
    for (int s : m.captured) next.sq[s] = kEmpty;
    if (piece == kWhiteMan && row(m.to) == 0) piece = kWhiteKing;
    if (piece == kBlackMan && row(m.to) == 9) piece = kBlackKing;
    next.sq[m.to] = piece;
    next.white_to_move = !b.white_to_move;
    return next;
}

inline std::uint64_t perft(const Board& b, int depth) {
    if (depth == 0) return 1;
    std::uint64_t n = 0;
    for (const RefMove& m : moves(b)) n += perft(apply(b, m), depth - 1);
    return n;
}

}  // namespace ref

inline std::set<ref::RefMove> ref_moves_of(const MoveList& list) {
    std::set<ref::RefMove> out;
    for (const Move& m : list) out.insert(ref::from_move(m));
    return out;
}

}  // namespace dtb::test
