// Where the quiet man moves of a block's positions lead, found once a block.
//
// A block's men are fixed and its positions differ only in their kings. So its positions' man moves
// are those of the men alone, less those onto a square a king takes, and each leads to one men
// configuration (of the partner side, or of a promoted material) whatever the kings. A position
// need only rank its kings there; the move is not generated, applied and flipped, nor its men
// ranked, for each position.
#pragma once

#include <cstdint>
#include <vector>

#include "gen/pair_layout.hpp"
#include "index/material.hpp"
#include "index/position_index.hpp"
#include "rules/movegen.hpp"

namespace dtb {

// The target of one man move. Table is the values' container (two bits a position, or DTWs).
template <typename Table>
struct ManMoveTarget {
    Move move;
    const Table* values = nullptr;         // the target material's; null: look each position up
    const PositionIndex* index = nullptr;  // the target material's index
    std::uint64_t base = 0;                // where the target configuration starts in `values`
    Bitboard free = 0;                     // the squares its kings may take (PositionIndex::king_squares)
    Bitboard crowned = 0;                  // a promotion's new king there (the mover's, black), else 0

    // The move's target as far as it does not depend on the table: of position `pos` (white to
    // move), its colours flipped afterwards (`next`, white to move again).
    static ManMoveTarget of(const Position& pos, const Move& move, Position& next) {
        ManMoveTarget t;
        t.move = move;
        const Position after = apply_move(pos, move);
        next = flip_colors(after);
        t.free = PositionIndex::king_squares(men_config_of(next));
        if (count_bits(after.kings) != count_bits(pos.kings)) t.crowned = Bitboard{1} << rotate_bit(move.to);
        return t;
    }

    // The material a promotion leads to from a position of material `m` (white to move), white to
    // move there: found from the block's material, since the men alone do not count its kings.
    static Material promoted(const Material& m) {
        return Material{m.white_men - 1, m.white_kings + 1, m.black_men, m.black_kings}.mirror();
    }

    // A position's kings seen from the other side (rotated, colours swapped), as they stand after
    // any of its man moves: what index_after ranks.
    static KingPlacement flipped(const KingPlacement& kings) {
        return {rotate_board(kings.black_kings), rotate_board(kings.white_kings)};
    }

    // Where in `values` the position after the move stands, for a position whose kings are
    // flipped(kings) = `flipped`.
    std::uint64_t index_after(const KingPlacement& flipped) const {
        return base + index->king_index_in(free, {flipped.white_kings, flipped.black_kings | crowned});
    }
};

// The man move targets of the block one walk is in, kept from one position to the next.
template <typename Table>
class BlockManMoves {
public:
    // Finds the targets of `block`'s man moves, unless they are held already: find(men_only, move)
    // gives the target of `move` of the block's men alone, `men_only` (ManMoveTarget::of, its
    // table filled in).
    template <typename Find>
    void use_block(const Block& block, Find&& find) {
        if (known_ && block.side == side_ && block.men == men_) return;
        known_ = true, side_ = block.side, men_ = block.men;
        targets_.clear();
        const Position men_only = compose_position(block.men, {});
        for (const Move& m : generate_quiet_man_moves(men_only)) targets_.push_back(find(men_only, m));
    }

    // The targets of the block's position whose kings are `kings` (its legal man moves, the
    // position having no capture), in turn to visit(target) until one returns true; whether one did.
    template <typename Visit>
    bool any_of(const KingPlacement& kings, Visit&& visit) const {
        const Bitboard taken = kings.white_kings | kings.black_kings;
        for (const ManMoveTarget<Table>& t : targets_)
            if (!((taken >> t.move.to) & 1) && visit(t)) return true;
        return false;
    }

private:
    bool known_ = false;
    int side_ = 0;
    MenConfig men_;
    std::vector<ManMoveTarget<Table>> targets_;
};

}  // namespace dtb
