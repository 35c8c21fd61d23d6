// Finding the positions after a position's moves in the finished tables (ValueTables, DtwTables).
#pragma once

#include <cstdint>
#include <utility>

#include "gen/material_map.hpp"
#include "index/material.hpp"
#include "index/position_index.hpp"

namespace dtb {

// Where the positions after one position's moves are looked up in a map of finished tables (each
// entry with its PositionIndex `index`). Most moves of a position land in one material
// and, king moves, in one men configuration: the material's entry and the rank of the men are
// found again only when they change (the lookup of both took a fifth of dtb verify).
template <typename Entry>
class SuccessorIndexer {
public:
    // `who` names the caller in the error for a material not in `tables` (MaterialMap::needed).
    SuccessorIndexer(const MaterialMap<Entry>& tables, const char* who) : tables_(tables), who_(who) {}

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
            men_base_ = entry_->index.men_index(men) * entry_->index.king_placements();
            free_ = PositionIndex::king_squares(men);
        }
        const KingPlacement kings{next.white & next.kings, next.black & next.kings};
        return {entry_, men_base_ + entry_->index.king_index_in(free_, kings)};
    }

private:
    const MaterialMap<Entry>& tables_;
    const char* who_;
    const Entry* entry_ = nullptr;
    Material material_;
    bool men_known_ = false;
    MenConfig men_;
    std::uint64_t men_base_ = 0;
    Bitboard free_ = 0;
};

}  // namespace dtb
