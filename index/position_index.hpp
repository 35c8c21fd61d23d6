// A dense bijection between the legal white-to-move positions of one material and 0 .. size-1.
//
// index = men_index * king_placements + king_index, so the positions sharing a men configuration
// are contiguous and the kings vary fastest:
// - men_index ranks the men configuration. White men may stand on 6..50 and black men on 1..45;
//   configurations are grouped by j, the number of white men on 46..50 (the squares only white men
//   may use), since j fixes how many squares are left for the black men. Within a group: the white
//   men on 46..50, the white men on 6..45, then the black men on 1..45 minus the white men,
//   each ranked in the combinatorial number system.
// - king_index ranks the white kings among the squares the men leave free, then the black kings
//   among the squares still free. Their count does not depend on where the men stand.
// Black-to-move positions are indexed through flip_colors (see position.hpp).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "index/binomial.hpp"
#include "index/material.hpp"

namespace dtb {

struct MenConfig {
    Bitboard white_men = 0;
    Bitboard black_men = 0;
    friend constexpr bool operator==(const MenConfig&, const MenConfig&) = default;
};

struct KingPlacement {
    Bitboard white_kings = 0;
    Bitboard black_kings = 0;
};

// A position's men and kings, as the index splits it.
constexpr MenConfig men_config_of(const Position& pos) { return {pos.white & ~pos.kings, pos.black & ~pos.kings}; }
constexpr KingPlacement king_placement_of(const Position& pos) { return {pos.white & pos.kings, pos.black & pos.kings}; }

// The white-to-move position with these men and kings.
constexpr Position compose_position(const MenConfig& men, const KingPlacement& kings) {
    return Position{men.white_men | kings.white_kings, men.black_men | kings.black_kings,
                    kings.white_kings | kings.black_kings, Color::White};
}

class PositionIndex {
public:
    explicit PositionIndex(Material material);

    const Material& material() const { return material_; }
    std::uint64_t size() const { return men_configs_ * king_placements_; }
    std::uint64_t men_configs() const { return men_configs_; }
    std::uint64_t king_placements() const { return king_placements_; }

    // Position must be of this material with white to move.
    std::uint64_t index(const Position& pos) const {
        const MenConfig men = men_config_of(pos);
        return men_index(men) * king_placements_ + king_index(men, king_placement_of(pos));
    }
    Position position(std::uint64_t index) const;

    std::uint64_t men_index(const MenConfig& men) const;
    MenConfig men_config(std::uint64_t men_index) const;

    std::uint64_t king_index(const MenConfig& men, const KingPlacement& kings) const {
        return king_index_in(king_squares(men), kings);
    }
    // The squares the kings share when the men stand at `men`.
    static Bitboard king_squares(const MenConfig& men) { return kBoard & ~(men.white_men | men.black_men); }
    // king_index with `free` = king_squares(men), for callers that index many placements of one
    // men configuration.
    std::uint64_t king_index_in(Bitboard free, const KingPlacement& kings) const {
        const std::uint64_t white_rank = rank_in(kings.white_kings, free);
        const std::uint64_t black_rank = rank_in(kings.black_kings, free & ~kings.white_kings);
        return white_rank * black_king_placements_ + black_rank;
    }
    KingPlacement king_placement(const MenConfig& men, std::uint64_t king_index) const;
    // Placements of the black kings for each placement of the white ones: king_index =
    // white rank * black_king_placements() + black rank.
    std::uint64_t black_king_placements() const { return black_king_placements_; }

private:
    static std::uint64_t rank_in(Bitboard squares, Bitboard region) {
        return rank_subset(compress_bits(squares, region));
    }

    struct MenGroup {  // configurations with j white men on 46..50
        std::uint64_t offset = 0;
        std::uint64_t count = 0;
        std::uint64_t white_back_rank_count = 0;  // ways to place the other white men on 6..45
        std::uint64_t black_count = 0;            // ways to place the black men
    };

    friend class MenConfigWalker;
    // The group of men_index and the index's offset within it.
    std::pair<int, std::uint64_t> group_of(std::uint64_t men_index) const;

    Material material_;
    std::vector<MenGroup> groups_;
    std::uint64_t men_configs_ = 0;
    std::uint64_t king_placements_ = 0;
    std::uint64_t black_king_placements_ = 0;
};

// The ranks (rank_subset of the squares compressed onto `region`) of the sets `rest` plus one more
// square of `region`, for many such squares: adding one square to a fixed set changes its rank in
// the combinatorial number system only through the square's own term and the order of the squares
// above it, so each rank is three bit counts and a table lookup from sums prepared once.
class SubsetPlusOne {
public:
    static constexpr int kMaxSquares = 16;
    SubsetPlusOne(Bitboard region, Bitboard rest);
    // The rank of rest plus `square` (a square of region, not of rest).
    std::uint64_t rank(int square) const {
        const Bitboard below = (Bitboard{1} << square) - 1;
        const int j = count_bits(rest_ & below);  // squares of rest below it
        return sums_[j] + binomial(count_bits(region_ & below), j + 1);
    }

private:
    Bitboard region_, rest_;
    // sums_[j]: the terms of rest when j of its squares lie below the added one (those keep their
    // place in the order, the others move up one).
    std::uint64_t sums_[kMaxSquares];
};

// The king indices of the placements that differ only in where one king stands, for the king
// squares `free` of one men configuration: the solvers' predecessor walks and king-move checks
// index a few dozen such placements for every position they start from, and ranking both colours
// anew for each took a quarter of the walk.
// One white king moving (the other white kings `rest`, the black kings `black`): besides the white
// rank, the black kings' rank changes only by whether they lie above the moving king.
class OneWhiteKingMoving {
public:
    OneWhiteKingMoving(const PositionIndex& index, Bitboard free, Bitboard rest, Bitboard black);
    // index.king_index_in(free, {rest | square, black}) for a square of `free` not in rest or black.
    std::uint64_t king_index(int square) const {
        const Bitboard below = (Bitboard{1} << square) - 1;
        return white_.rank(square) * black_placements_ + black_sums_[count_bits(black_ & below)];
    }

private:
    SubsetPlusOne white_;
    Bitboard black_;
    std::uint64_t black_placements_;
    // black_sums_[m]: the black rank when m black kings lie below the moving king (those above
    // count one square fewer below them).
    std::uint64_t black_sums_[SubsetPlusOne::kMaxSquares + 1];
};

// One black king moving (the white kings `white`, the other black kings `rest`).
class OneBlackKingMoving {
public:
    OneBlackKingMoving(const PositionIndex& index, Bitboard free, Bitboard white, Bitboard rest)
        : white_part_(index.king_index_in(free, {white, 0})), black_(free & ~white, rest) {}
    // index.king_index_in(free, {white, rest | square}) for a square of `free` not in white or rest.
    std::uint64_t king_index(int square) const { return white_part_ + black_.rank(square); }

private:
    std::uint64_t white_part_;
    SubsetPlusOne black_;
};

// Visits the king placements of one men configuration in index order, from a given king index,
// far faster than unranking each (the generator visits every position this way).
class KingPlacementWalker {
public:
    KingPlacementWalker(const PositionIndex& index, const MenConfig& men, std::uint64_t first);
    const KingPlacement& current() const { return current_; }
    void next();

private:
    void place();
    Bitboard free_;
    int white_count_, black_count_;
    std::uint64_t black_limit_;  // 1 << (squares left for the black kings)
    std::uint64_t white_compact_ = 0, black_compact_ = 0;
    KingPlacement current_;
};

// Visits the men configurations of a material in index order, from a given men index: unranks
// only the first, then steps each ranked part to its successor (the black men fastest, then the
// white men on 6..45, then those on 46..50, then the group). A pair without kings has one position
// per configuration, and unranking each one cost a third of its solve.
class MenConfigWalker {
public:
    MenConfigWalker(const PositionIndex& index, std::uint64_t first);
    const MenConfig& current() const { return current_; }
    // Must not be called on the last configuration of the material.
    void next();

private:
    void place();
    int white_men_, black_men_;
    int group_;  // white men on 46..50
    // The parts as subsets of their regions' squares, compressed (see rank_subset).
    std::uint64_t far_ = 0, shared_ = 0, black_ = 0;
    MenConfig current_;
};

// Visits the positions of a material in index order, from a given index: unranks only at the
// first position (see MenConfigWalker, KingPlacementWalker).
class PositionWalker {
public:
    PositionWalker(const PositionIndex& index, std::uint64_t first);
    const Position& current() const { return current_; }
    // Must not be called on the last position of the material.
    void next();

private:
    void place();
    const PositionIndex* index_;
    std::uint64_t king_index_;
    MenConfigWalker men_;
    KingPlacementWalker kings_;
    Position current_;
};

// Total advancement of the men: rows a white man has climbed from the bottom row plus rows a black
// man has descended from the top row. A man move raises it by exactly one and flip_colors keeps it,
// so solving men configurations from the most advanced down respects every man move.
int men_advancement(const MenConfig& men);

// The number of men configurations of m at each advancement (index 0 = advancement 0), counted
// row by row rather than by enumerating them: for planning materials far too large to walk.
std::vector<std::uint64_t> men_configs_by_advancement(const Material& m);

// Number of legal white-to-move positions of all materials with exactly n pieces (n <= 40).
std::uint64_t positions_with_pieces(int n);

}  // namespace dtb
