#include "index/king_classes.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>

namespace dtb {
namespace {

struct Cell {
    int row, column;  // row 0 at the top (squares 1-5), column 0 on the a-file
};

constexpr Cell cell_of(int square) {
    const int row = (square - 1) / 5;
    const int column = 2 * ((square - 1) % 5) + (row % 2 == 0 ? 1 : 0);
    return {row, column};
}

constexpr int square_at(Cell c) { return c.row * 5 + c.column / 2 + 1; }

constexpr Cell transformed(int symmetry, Cell c) {
    switch (symmetry) {
        case 1: return {9 - c.row, 9 - c.column};  // 180-degree turn
        case 2: return {c.column, c.row};          // the a10-j1 diagonal
        case 3: return {9 - c.column, 9 - c.row};  // the a1-j10 diagonal
        default: return c;
    }
}

// By symmetry and bit: the bit of the square it goes to (0 for the ghost and unused bits).
using SymmetryTable = std::array<std::array<Bitboard, 64>, kBoardSymmetries>;

constexpr SymmetryTable make_symmetry_table() {
    SymmetryTable t{};
    for (int g = 0; g < kBoardSymmetries; ++g)
        for (int s = 1; s <= kNumSquares; ++s) t[g][bit_of_square(s)] = square_bit(square_at(transformed(g, cell_of(s))));
    return t;
}

constexpr SymmetryTable kSymmetryTable = make_symmetry_table();

std::uint64_t rank_on_board(Bitboard squares) { return rank_subset(compress_bits(squares, kBoard)); }

// The classes numbered with `key` kings on the key side and `other` on the other.
std::uint64_t classes_with_key(int key, int other) { return square_set_orbits(key) * binomial(kNumSquares - key, other); }

// Which side's sets the classes are numbered by: the one giving fewer classes (a single king has
// 15 orbits for 50 squares, 3.3 where large sets have nearly 4), among those whose sets a table
// can list (2^23 entries: up to five kings); white on a tie.
bool white_is_key(const Material& m) {
    constexpr std::uint64_t kMaxKeySets = std::uint64_t{1} << 23;
    const bool white_fits = binomial(kNumSquares, m.white_kings) <= kMaxKeySets;
    const bool black_fits = binomial(kNumSquares, m.black_kings) <= kMaxKeySets;
    if (white_fits != black_fits) return white_fits;
    if (!white_fits) return m.white_kings <= m.black_kings;
    return classes_with_key(m.white_kings, m.black_kings) <= classes_with_key(m.black_kings, m.white_kings);
}

}  // namespace

Bitboard apply_symmetry(int symmetry, Bitboard squares) {
    Bitboard out = 0;
    for (; squares; squares &= squares - 1) out |= kSymmetryTable[symmetry][lowest_bit(squares)];
    return out;
}

std::uint64_t square_set_orbits(int k) {
    if (k < 0 || k > kNumSquares) return 0;
    // The turn and the a10-j1 reflection fix no dark square: 25 swapped pairs each. The a1-j10
    // reflection fixes the 10 squares of that diagonal and swaps 20 pairs.
    const std::uint64_t pairs_only = k % 2 == 0 ? binomial(25, k / 2) : 0;
    std::uint64_t long_diagonal = 0;
    for (int pairs = 0; 2 * pairs <= k; ++pairs) long_diagonal += binomial(10, k - 2 * pairs) * binomial(20, pairs);
    return (binomial(kNumSquares, k) + 2 * pairs_only + long_diagonal) / kBoardSymmetries;
}

KingClasses::KingClasses(const Material& m)
    : key_is_white_(white_is_key(m)),
      key_count_(key_is_white_ ? m.white_kings : m.black_kings),
      other_count_(key_is_white_ ? m.black_kings : m.white_kings),
      other_placements_(binomial(kNumSquares - key_count_, other_count_)) {
    if (m.men() != 0 || m.white_kings == 0 || m.black_kings == 0)
        throw std::invalid_argument("KingClasses: " + m.name() + " is not a kings-only material with kings on both sides");
    const std::uint64_t sets = binomial(kNumSquares, key_count_);
    if (sets > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("KingClasses: too many sets for " + m.name());
    key_classes_.resize(sets);
    constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> orbit_of_smallest(sets, kNone);
    // Colex order: a set's images all lie in the same orbit, whose smallest member comes first.
    std::uint64_t compact = (std::uint64_t{1} << key_count_) - 1;
    for (std::uint64_t rank = 0; rank < sets; ++rank, compact = next_subset(compact)) {
        const Bitboard set = expand_bits(compact, kBoard);
        std::uint64_t smallest = rank;
        std::uint8_t symmetries = 0;
        for (int g = 0; g < kBoardSymmetries; ++g) {
            const std::uint64_t image = rank_on_board(apply_symmetry(g, set));
            if (image < smallest) {
                smallest = image;
                symmetries = 0;
            }
            if (image == smallest) symmetries |= static_cast<std::uint8_t>(1u << g);
        }
        if (smallest == rank) {
            orbit_of_smallest[rank] = static_cast<std::uint32_t>(representatives_.size());
            representatives_.push_back(set);
        }
        key_classes_[rank] = {orbit_of_smallest[smallest], symmetries};
    }
}

std::uint64_t KingClasses::count(const Material& m) {
    return white_is_key(m) ? classes_with_key(m.white_kings, m.black_kings) : classes_with_key(m.black_kings, m.white_kings);
}

std::uint64_t KingClasses::class_of(const KingPlacement& kings) const {
    const Bitboard key = key_is_white_ ? kings.white_kings : kings.black_kings;
    const Bitboard other = key_is_white_ ? kings.black_kings : kings.white_kings;
    const KeyClass& k = key_classes_[rank_on_board(key)];
    const Bitboard free = kBoard & ~representatives_[k.representative];
    // Where symmetries keep the key set, the other side's smallest image names the class.
    std::uint64_t other_rank = std::numeric_limits<std::uint64_t>::max();
    for (unsigned g = k.symmetries; g; g &= g - 1)
        other_rank = std::min(other_rank, rank_subset(compress_bits(apply_symmetry(std::countr_zero(g), other), free)));
    return k.representative * other_placements_ + other_rank;
}

KingPlacement KingClasses::placement(std::uint64_t c) const {
    const Bitboard key = representatives_[c / other_placements_];
    const Bitboard free = kBoard & ~key;
    const Bitboard other = expand_bits(unrank_subset(c % other_placements_, other_count_, kNumSquares - key_count_), free);
    return key_is_white_ ? KingPlacement{key, other} : KingPlacement{other, key};
}

}  // namespace dtb
