#include "rules/movegen.hpp"

#include <array>
#include <bit>
#include <type_traits>

namespace dtb {
namespace {

constexpr Bitboard bit(int b) { return Bitboard{1} << b; }

template <Color Us>
constexpr int forward_left() { return Us == Color::White ? kUpLeft : kDownLeft; }
template <Color Us>
constexpr int forward_right() { return Us == Color::White ? kUpRight : kDownRight; }
template <Color Us>
constexpr Bitboard promotion_row() { return Us == Color::White ? kWhitePromotionRow : kBlackPromotionRow; }

// The squares beyond each square along each of kDirections, up to the board's edge: a king finds
// the first piece on a diagonal with one bit scan instead of a step-by-step walk.
constexpr auto kRays = [] {
    std::array<std::array<Bitboard, 64>, 4> rays{};
    for (int d = 0; d < 4; ++d)
        for (int b = 0; b < 64; ++b)
            if (bit(b) & kBoard)
                for (Bitboard t = shift(bit(b), kDirections[d]) & kBoard; t; t = shift(t, kDirections[d]) & kBoard)
                    rays[d][b] |= t;
    return rays;
}();

// The squares on the four diagonals through each square (kRays' union). A king none of whose
// diagonals holds a piece it may still take cannot capture: one test instead of four ray scans,
// which decides most landing squares of a capture in an endgame (few pieces to take).
constexpr auto kDiagonals = [] {
    std::array<Bitboard, 64> diagonals{};
    for (int b = 0; b < 64; ++b) diagonals[b] = kRays[0][b] | kRays[1][b] | kRays[2][b] | kRays[3][b];
    return diagonals;
}();

// The square of `squares` (not empty) nearest to the start of a ray along `step`.
inline int nearest(Bitboard squares, int step) {
    return step > 0 ? std::countr_zero(squares) : 63 - std::countl_zero(squares);
}

// The empty squares a king on `sq` reaches along direction d.
inline Bitboard king_slide(int sq, int d, Bitboard empty) {
    const Bitboard ray = kRays[d][sq];
    const Bitboard blockers = ray & ~empty;
    if (!blockers) return ray;
    const int stop = nearest(blockers, kDirections[d]);
    return ray & ~(bit(stop) | kRays[d][stop]);
}

// Whether a king on `sq` can capture along direction D: the first piece on the diagonal is an
// opponent's, with an empty square right behind it. The direction is a template argument (here
// and in the capture search) so that each of the four is compiled with its own bit scan: a loop
// over them reads the step from memory and branches on its sign at every square.
template <int D>
inline bool king_can_capture(int sq, Bitboard them, Bitboard empty) {
    const Bitboard blockers = kRays[D][sq] & ~empty;
    if (!blockers) return false;
    const Bitboard first = bit(nearest(blockers, kDirections[D]));
    return (first & them) && (shift(first, kDirections[D]) & empty);
}

// Whether a king on `sq` can capture at all.
inline bool king_has_capture(int sq, Bitboard them, Bitboard empty) {
    return king_can_capture<0>(sq, them, empty) || king_can_capture<1>(sq, them, empty) ||
           king_can_capture<2>(sq, them, empty) || king_can_capture<3>(sq, them, empty);
}

// Pieces of `men` that can capture a piece of `them` right now.
inline Bitboard men_that_capture(Bitboard men, Bitboard them, Bitboard empty) {
    Bitboard capturers = 0;
    for (int step : kDirections) capturers |= shift(shift(empty, -step) & them, -step);
    return capturers & men;
}

// The pieces of the side to move that can start a capture: every piece, not only the first found,
// so that the capture search can skip the others (a king's search costs as much as this test).
template <Color Us>
Bitboard capturers_impl(const Position& pos) {
    const Bitboard them = pos.pieces(opponent(Us));
    const Bitboard empty = pos.empty();
    Bitboard capturers = men_that_capture(pos.men(Us), them, empty);
    for (Bitboard k = pos.kings_of(Us); k; k &= k - 1)
        if (king_has_capture(lowest_bit(k), them, empty)) capturers |= bit(lowest_bit(k));
    return capturers;
}

template <Color Us>
bool has_capture_impl(const Position& pos) {
    const Bitboard own = pos.pieces(Us);
    const Bitboard them = pos.pieces(opponent(Us));
    const Bitboard empty = pos.empty();
    const Bitboard men = own & ~pos.kings;
    const Bitboard kings = own & pos.kings;
    if (men_that_capture(men, them, empty)) return true;
    for (Bitboard k = kings; k; k &= k - 1)
        if (king_has_capture(lowest_bit(k), them, empty)) return true;
    return false;
}

// Depth-first search over capture sequences from one piece, keeping only the longest.
template <Color Us>
class CaptureSearch {
public:
    CaptureSearch(const Position& pos, MoveList& out)
        : them_(pos.pieces(opponent(Us))), out_(out), base_empty_(pos.empty()) {}

    void from_piece(int from, bool king) {
        from_ = from;
        empty_ = base_empty_ | bit(from);  // the capturing piece has left its square
        if (king)
            king_step(from, 0, 0);
        else
            man_step(from, 0, 0);
    }

    int best() const { return best_; }

private:
    void record(int to, Bitboard captured, int count) {
        if (count < best_) return;
        if (count > best_) {
            best_ = count;
            out_.clear();
        }
        const Move m{captured, static_cast<std::uint8_t>(from_), static_cast<std::uint8_t>(to)};
        // Two paths of one move take two pieces or more: a capture of one piece is found once
        // (its piece, the diagonal it lies on, and the landing square tell the path).
        if (count > 1)
            for (const Move& seen : out_)
                if (seen == m) return;
        out_.push(m);
    }

    void man_step(int sq, Bitboard captured, int count) {
        bool extended = false;
        for (int step : kDirections) {
            const Bitboard victim = shift(bit(sq), step) & them_ & ~captured;
            if (!victim) continue;
            const Bitboard landing = shift(victim, step) & empty_;
            if (!landing) continue;
            extended = true;
            man_step(lowest_bit(landing), captured | victim, count + 1);
        }
        if (!extended && count > 0) record(sq, captured, count);
    }

    void king_step(int sq, Bitboard captured, int count) {
        // Not short-circuited: every direction is searched.
        const bool extended = king_step_along<0>(sq, captured, count) | king_step_along<1>(sq, captured, count) |
                              king_step_along<2>(sq, captured, count) | king_step_along<3>(sq, captured, count);
        if (!extended && count > 0) record(sq, captured, count);
    }

    // The captures that go on from `sq` along direction D; whether there is one. Landing squares
    // are tried nearest first, so the moves come out in the order of a walk along each diagonal.
    template <int D>
    bool king_step_along(int sq, Bitboard captured, int count) {
        constexpr int kStep = kDirections[D];
        const Bitboard blockers = kRays[D][sq] & ~empty_;
        if (!blockers) return false;
        const int victim = nearest(blockers, kStep);
        if (!(bit(victim) & them_ & ~captured)) return false;
        const Bitboard taken = captured | bit(victim);
        const Bitboard left = them_ & ~taken;
        Bitboard landings = king_slide(victim, D, empty_);
        if (!landings) return false;
        while (landings) {
            const int landing = nearest(landings, kStep);
            landings &= ~bit(landing);
            if (kDiagonals[landing] & left)
                king_step(landing, taken, count + 1);
            else  // nothing left to take from here: the capture ends
                record(landing, taken, count + 1);
        }
        return true;
    }

    Bitboard them_;
    MoveList& out_;
    Bitboard base_empty_;
    Bitboard empty_ = 0;
    int from_ = 0;
    int best_ = 1;  // a capture takes at least one piece
};

// The captures of the pieces `starts` (capturers_impl's: every piece that can capture).
template <Color Us>
void generate_captures(const Position& pos, Bitboard starts, MoveList& out) {
    CaptureSearch<Us> search(pos, out);
    for (Bitboard b = starts; b; b &= b - 1) {
        const int from = lowest_bit(b);
        search.from_piece(from, (pos.kings >> from) & 1);
    }
}

template <Color Us>
void generate_man_moves(const Position& pos, MoveList& out) {
    const Bitboard empty = pos.empty();
    const Bitboard men = pos.men(Us);
    for (int step : {forward_left<Us>(), forward_right<Us>()}) {
        for (Bitboard t = shift(men, step) & empty; t; t &= t - 1) {
            const int to = lowest_bit(t);
            out.push(Move{0, static_cast<std::uint8_t>(to - step), static_cast<std::uint8_t>(to)});
        }
    }
}

template <Color Us>
void generate_quiet(const Position& pos, MoveList& out) {
    generate_man_moves<Us>(pos, out);
    const Bitboard empty = pos.empty();
    for (Bitboard k = pos.kings_of(Us); k; k &= k - 1) {
        const int from = lowest_bit(k);
        for (int d = 0; d < 4; ++d)
            for (Bitboard t = king_slide(from, d, empty); t; t &= t - 1)
                out.push(Move{0, static_cast<std::uint8_t>(from), static_cast<std::uint8_t>(lowest_bit(t))});
    }
}

template <Color Us>
std::size_t count_king_moves(const Position& pos) {
    const Bitboard empty = pos.empty();
    std::size_t n = 0;
    for (Bitboard k = pos.kings_of(Us); k; k &= k - 1)
        for (int d = 0; d < 4; ++d) n += count_bits(king_slide(lowest_bit(k), d, empty));
    return n;
}

template <Color Us>
std::size_t count_quiet(const Position& pos) {
    const Bitboard empty = pos.empty();
    const Bitboard men = pos.men(Us);
    return count_bits(shift(men, forward_left<Us>()) & empty) + count_bits(shift(men, forward_right<Us>()) & empty) +
           count_king_moves<Us>(pos);
}

template <Color Us>
MoveList generate_impl(const Position& pos) {
    MoveList out;
    if (const Bitboard capturers = capturers_impl<Us>(pos))
        generate_captures<Us>(pos, capturers, out);
    else
        generate_quiet<Us>(pos, out);
    return out;
}

template <Color Us>
std::size_t count_impl(const Position& pos) {
    if (const Bitboard capturers = capturers_impl<Us>(pos)) {
        MoveList out;
        generate_captures<Us>(pos, capturers, out);
        return out.size();
    }
    return count_quiet<Us>(pos);
}

// Enumerates the landing squares of every capture path of one piece (for notation).
struct PathSearch {
    Bitboard them;
    Bitboard empty;
    bool king;
    std::vector<int> path;
    std::vector<std::pair<std::vector<int>, Bitboard>> found;  // path and captured set

    void step(int sq, Bitboard captured) {
        bool extended = false;
        for (int dir : kDirections) {
            Bitboard t = shift(bit(sq), dir);
            if (king)
                while (t & empty) t = shift(t, dir);
            const Bitboard victim = t & them & ~captured;
            if (!victim) continue;
            for (Bitboard landing = shift(victim, dir) & empty; landing;
                 landing = king ? shift(landing, dir) & empty : 0) {
                extended = true;
                path.push_back(square_of_bit(lowest_bit(landing)));
                step(lowest_bit(landing), captured | victim);
                path.pop_back();
            }
        }
        if (!extended && captured) found.emplace_back(path, captured);
    }
};

// Calls visit(std::integral_constant<Color, side to move>), so that each entry point below
// instantiates its work once per colour and dispatches in one place.
template <typename Visit>
decltype(auto) for_side_to_move(const Position& pos, Visit&& visit) {
    if (pos.side_to_move == Color::White) return visit(std::integral_constant<Color, Color::White>{});
    return visit(std::integral_constant<Color, Color::Black>{});
}

}  // namespace

MoveList generate_moves(const Position& pos) {
    return for_side_to_move(pos, [&](auto us) { return generate_impl<us()>(pos); });
}

MoveList generate_captures(const Position& pos) { return generate_captures(pos, capturing_pieces(pos)); }

MoveList generate_captures(const Position& pos, Bitboard capturers) {
    MoveList out;
    for_side_to_move(pos, [&](auto us) { generate_captures<us()>(pos, capturers, out); });
    return out;
}

MoveList generate_quiet_moves(const Position& pos) {
    MoveList out;
    for_side_to_move(pos, [&](auto us) { generate_quiet<us()>(pos, out); });
    return out;
}

MoveList generate_quiet_man_moves(const Position& pos) {
    MoveList out;
    for_side_to_move(pos, [&](auto us) { generate_man_moves<us()>(pos, out); });
    return out;
}

std::size_t count_quiet_king_moves(const Position& pos) {
    return for_side_to_move(pos, [&](auto us) { return count_king_moves<us()>(pos); });
}

Bitboard king_destinations(int square, Bitboard empty) {
    Bitboard reached = 0;
    for (int d = 0; d < 4; ++d) reached |= king_slide(square, d, empty);
    return reached;
}

std::size_t count_moves(const Position& pos) {
    return for_side_to_move(pos, [&](auto us) { return count_impl<us()>(pos); });
}

Bitboard capturing_pieces(const Position& pos) {
    return for_side_to_move(pos, [&](auto us) { return capturers_impl<us()>(pos); });
}

bool has_capture(const Position& pos) {
    return for_side_to_move(pos, [&](auto us) { return has_capture_impl<us()>(pos); });
}

Position apply_move(const Position& pos, const Move& move) {
    const Bitboard from = bit(move.from);
    const Bitboard to = bit(move.to);
    const Bitboard travel = from ^ to;  // zero when a capture ends on its start square
    Position next = pos;
    const bool was_king = (pos.kings & from) != 0;
    if (pos.side_to_move == Color::White) {
        next.white ^= travel;
        next.black &= ~move.captured;
    } else {
        next.black ^= travel;
        next.white &= ~move.captured;
    }
    next.kings &= ~move.captured;
    if (was_king) {
        next.kings ^= travel;
    } else {
        const Bitboard crown = pos.side_to_move == Color::White ? kWhitePromotionRow : kBlackPromotionRow;
        next.kings |= to & crown;
    }
    next.side_to_move = opponent(pos.side_to_move);
    return next;
}

std::vector<std::vector<int>> move_paths(const Position& pos, const Move& move) {
    const int from_square = square_of_bit(move.from);
    if (!move.is_capture()) return {{from_square, square_of_bit(move.to)}};
    PathSearch search{pos.pieces(opponent(pos.side_to_move)), pos.empty() | bit(move.from),
                      (pos.kings >> move.from & 1) != 0, {from_square}, {}};
    search.step(move.from, 0);
    std::vector<std::vector<int>> paths;
    for (auto& [path, captured] : search.found)
        if (captured == move.captured && path.back() == square_of_bit(move.to)) paths.push_back(path);
    return paths;
}

}  // namespace dtb
