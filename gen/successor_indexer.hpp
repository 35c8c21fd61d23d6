// Finding the positions after a position's moves in the finished tables (ValueTables, DtwTables).
#pragma once

#include <cstdint>
#include <utility>

#include "gen/material_map.hpp"
#include "gen/men_index_cache.hpp"
#include "index/material.hpp"
#include "index/position_index.hpp"
#include "rules/movegen.hpp"

namespace dtb {

// Where the positions after one position's moves are looked up in a map of finished tables (each
// entry with its PositionIndex `index`). Most moves of a position land in one material
// and, king moves, in one men configuration: the material's entry and the rank of the men are
// found again only when they change (the lookup of both took a fifth of dtb verify).
template <typename Entry>
class SuccessorIndexer {
public:
    // `who` names the caller in the error for a material not in `tables` (MaterialMap::needed).
    // `men_indices`, if given, remembers men indices from one position's successors to the next's.
    SuccessorIndexer(const MaterialMap<Entry>& tables, const char* who, MenIndexCache* men_indices = nullptr)
        : tables_(tables), who_(who), men_indices_(men_indices) {}

    // The entry of `next` (white to move) and the position's index in it.
    std::pair<const Entry*, std::uint64_t> locate(const Position& next) {
        const Material m = material_of(next);
        if (!entry_ || m != material_) {
            entry_ = &tables_.needed(m, who_);
            material_ = m;
            men_known_ = false;
        }
        const MenConfig men = men_config_of(next);
        if (!men_known_ || men != men_) {
            men_ = men;
            men_known_ = true;
            const PositionIndex& index = entry_->index;
            men_base_ = (men_indices_ ? men_indices_->men_index(index, men) : index.men_index(men)) * index.king_placements();
            free_ = PositionIndex::king_squares(men);
        }
        const KingPlacement kings{next.white & next.kings, next.black & next.kings};
        return {entry_, men_base_ + entry_->index.king_index_in(free_, kings)};
    }

private:
    const MaterialMap<Entry>& tables_;
    const char* who_;
    MenIndexCache* men_indices_;
    const Entry* entry_ = nullptr;
    Material material_;
    bool men_known_ = false;
    MenConfig men_;
    std::uint64_t men_base_ = 0;
    Bitboard free_ = 0;
};

// The moves of one king that differ only in where they end (the landing squares of a capture's last
// leg, which the capture search lists one after the other, or its quiet moves) lead to positions
// that differ only in where one black king stands: the mover, seen from the side to move after it.
// After the first move of such a run, a successor's index is the first's with that king's rank
// changed; a full lookup flips and ranks the whole position.
template <typename Entry>
class LandingRun {
public:
    // Whether `move` (of `pos`, the position of every call since start) is a move of the run: the
    // same king and captures as the move that started it, wherever it stands in the list.
    bool continues(const Position& pos, const Move& move) const {
        return entry_ && move.from == from_ && move.captured == captured_ && ((pos.kings >> move.from) & 1);
    }
    // Starts a run at `move` of `pos`, whose successor, white to move, is `next` at `index` of `entry`.
    void start(const Position& pos, const Move& move, const Position& next, const Entry* entry, std::uint64_t index) {
        entry_ = entry;
        from_ = move.from;
        captured_ = move.captured;
        flipped_ = pos.side_to_move == Color::White;
        next_ = next;
        first_index_ = index;
        first_to_ = move.to;
        prepared_ = false;
    }
    const Entry* entry() const { return entry_; }
    // The index of the successor of a move that continues the run.
    std::uint64_t index(int to) {
        if (!prepared_) prepare();
        return rest_ + rank_subset(compress_bits(others_ | (Bitboard{1} << square_in_next(to)), region_));
    }

private:
    int square_in_next(int to) const { return flipped_ ? rotate_bit(to) : to; }
    void prepare() {
        const Bitboard white_kings = next_.white & next_.kings;
        const Bitboard black_kings = next_.black & next_.kings;
        others_ = black_kings & ~(Bitboard{1} << square_in_next(first_to_));
        region_ = PositionIndex::king_squares(men_config_of(next_)) & ~white_kings;
        rest_ = first_index_ - rank_subset(compress_bits(black_kings, region_));
        prepared_ = true;
    }

    const Entry* entry_ = nullptr;
    int from_ = -1;
    Bitboard captured_ = 0;
    bool flipped_ = false;
    Position next_;
    std::uint64_t first_index_ = 0;
    int first_to_ = 0;
    bool prepared_ = false;
    Bitboard others_ = 0, region_ = 0;  // the other black kings; the squares the black kings share
    std::uint64_t rest_ = 0;            // the index less the black kings' rank
};

}  // namespace dtb
