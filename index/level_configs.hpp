// The men configurations of one advancement level (men_advancement) of a material, counted and
// visited in index order without stepping through the other levels' configurations.
//
// A slice of a material pair holds a range of levels, or a part of one level (gen/slices.hpp). At
// 7 and 8 pieces a level holds a fiftieth or less of a material's configurations, and a pair
// without kings has one position a configuration: walking all of them to find one level's cost a
// slice task more than solving its slice. Here the white men are placed one way at a time (a few
// thousand to a few million ways), and only the black placements that complete the level are
// visited, found through counts of black placements by rows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "index/position_index.hpp"

namespace dtb {

class LevelConfigs {
public:
    LevelConfigs(const PositionIndex& index, int level);

    // The level's configurations (men_configs_by_advancement(material)[level]).
    std::uint64_t size() const { return prefix_.back(); }

    // The white placements, in index order: each one's configurations are contiguous in the
    // index (the black men vary fastest), and those of the level among them are ranked after the
    // earlier placements'. The placements holding ranks [first, end): [begin, end) of them.
    std::size_t white_placements() const { return prefix_.size() - 1; }
    std::pair<std::size_t, std::size_t> white_placements_of(std::uint64_t first, std::uint64_t end) const;

    // Calls visit(rank, men_index, men) for the configurations of white placement `placement`
    // whose rank in the level lies in [first, end), in index order. Placements may be visited
    // from several threads at once.
    template <typename Visit>
    void for_each_in(std::size_t placement, std::uint64_t first, std::uint64_t end, Visit&& visit) const {
        const std::uint64_t begin_rank = prefix_[placement], end_rank = prefix_[placement + 1];
        if (first >= end_rank || end <= begin_rank || first >= end) return;
        const Placement p = placement_at(placement);
        std::uint64_t skip = first > begin_rank ? first - begin_rank : 0;
        std::uint64_t left = std::min(end, end_rank) - begin_rank - skip;
        std::uint64_t rank = begin_rank + skip;
        black_subsets(p, black_men_, static_cast<int>(p.rows.size()), p.black_sum, 0, skip, left, [&](std::uint64_t compact) {
            const MenConfig men{p.white, expand_bits(compact, p.region)};
            visit(rank++, p.base + rank_subset(compact), men);
        });
    }

private:
    // Ways to place k black men on rows 0 .. r-1 with row sum s, for one occupancy of rows 1..8
    // by white men on 6..45 (black men may use rows 0..8).
    struct RowCounts {
        int men = 0, sums = 0;
        std::vector<std::uint64_t> below;  // by index(r, k, s), r = 0..9
        std::size_t index(int r, int k, int s) const {
            return (static_cast<std::size_t>(r) * static_cast<std::size_t>(men + 1) + static_cast<std::size_t>(k)) *
                       static_cast<std::size_t>(sums + 1) +
                   static_cast<std::size_t>(s);
        }
        std::uint64_t at(int r, int k, int s) const { return below[index(r, k, s)]; }
    };
    // The white men on 6..45 given as a subset of those 40 squares (compressed): their rows, one
    // 3-bit count a row (the key of RowCounts), and their advancement.
    struct SharedRows {
        std::uint32_t key = 0;
        int advancement = 0;
    };
    struct Placement {
        Bitboard white = 0, region = 0;  // the white men; the squares left to the black men
        std::uint64_t base = 0;           // men index of its first configuration (black rank 0)
        int black_sum = 0;                // the advancement the black men must bring
        std::vector<int> rows;            // the row of each square of region, lowest first
        int row_start[10] = {};           // the position in region of each row's first square
        const RowCounts* counts = nullptr;
    };

    static SharedRows shared_rows(std::uint64_t compact_shared);
    // The counts for a key, made the first time (by the constructor: later calls only read).
    const RowCounts& counts_for(std::uint32_t key);
    Placement placement_at(std::size_t placement) const;

    // Black k-subsets of region positions [0, limit) with row sum s, in the combinatorial
    // number system's order, each or'ed with `high`: the first `skip` passed over, then take(compact)
    // for at most `left` of them. Returns false once `left` is used up.
    template <typename Take>
    bool black_subsets(const Placement& p, int k, int limit, int s, std::uint64_t high, std::uint64_t& skip,
                       std::uint64_t& left, Take&& take) const {
        if (k == 0) {
            if (s != 0) return true;
            if (skip > 0) {
                --skip;
                return true;
            }
            take(high);
            return --left > 0;
        }
        for (int q = k - 1; q < limit; ++q) {
            const int r = p.rows[static_cast<std::size_t>(q)];
            if (r > s) break;  // rows only grow with the position
            const std::uint64_t n = subsets_below(p, q, k - 1, s - r);
            if (n == 0) continue;
            if (skip >= n) {
                skip -= n;
                continue;
            }
            if (!black_subsets(p, k - 1, q, s - r, high | (std::uint64_t{1} << q), skip, left, take)) return false;
        }
        return true;
    }
    // The k-subsets of region positions [0, q) with row sum s.
    static std::uint64_t subsets_below(const Placement& p, int q, int k, int s);

    const PositionIndex* index_;
    int level_, white_men_, black_men_;
    std::vector<std::uint64_t> group_starts_;  // the first placement of each group (white men on 46..50)
    std::vector<std::uint64_t> prefix_;        // ranks of each placement's first configuration, and the total
    std::unordered_map<std::uint32_t, RowCounts> memo_;
};

}  // namespace dtb
