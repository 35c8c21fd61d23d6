#include "index/level_configs.hpp"

#include <algorithm>
#include <bit>

namespace dtb {
namespace {

constexpr Bitboard kFarSquares = squares_mask(46, 50);     // white men only
constexpr Bitboard kSharedSquares = squares_mask(6, 45);   // white men on rows 1..8
constexpr Bitboard kBlackSquares = squares_mask(1, 45);    // black men on rows 0..8
constexpr int kRows = 10, kBlackRows = 9, kSquaresPerRow = 5;

int row_of_bit(int bit) { return (square_of_bit(bit) - 1) / kSquaresPerRow; }

}  // namespace

LevelConfigs::SharedRows LevelConfigs::shared_rows(std::uint64_t compact_shared) {
    // Bit i stands for square 6 + i, on row 1 + i / 5 (no expand_bits, a loop on CPUs without BMI2).
    SharedRows out;
    for (std::uint64_t bits = compact_shared; bits; bits &= bits - 1) {
        const int row = 1 + std::countr_zero(bits) / kSquaresPerRow;
        out.key += std::uint32_t{1} << (3 * row);
        out.advancement += kRows - 1 - row;
    }
    return out;
}

const LevelConfigs::RowCounts& LevelConfigs::counts_for(std::uint32_t key) {
    if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
    RowCounts c;
    c.men = black_men_;
    c.sums = (kBlackRows - 1) * black_men_;
    c.below.assign(static_cast<std::size_t>(kRows) * static_cast<std::size_t>(c.men + 1) * static_cast<std::size_t>(c.sums + 1), 0);
    c.below[c.index(0, 0, 0)] = 1;
    for (int r = 0; r < kBlackRows; ++r) {
        const int free = kSquaresPerRow - static_cast<int>((key >> (3 * r)) & 7);
        for (int k = 0; k <= c.men; ++k)
            for (int s = 0; s <= c.sums; ++s)
                if (const std::uint64_t ways = c.at(r, k, s))
                    for (int t = 0; t <= free && k + t <= c.men && s + t * r <= c.sums; ++t)
                        c.below[c.index(r + 1, k + t, s + t * r)] += ways * binomial(free, t);
    }
    return memo_.emplace(key, std::move(c)).first->second;
}

LevelConfigs::LevelConfigs(const PositionIndex& index, int level)
    : index_(&index), level_(level), white_men_(index.material().white_men), black_men_(index.material().black_men) {
    const int w = white_men_;
    std::uint64_t placements = 0;
    for (int j = 0; j <= std::min(w, kSquaresPerRow); ++j) {
        group_starts_.push_back(placements);
        placements += binomial(kSquaresPerRow, j) * binomial(40, w - j);
    }
    group_starts_.push_back(placements);
    prefix_.assign(static_cast<std::size_t>(placements) + 1, 0);
    std::uint64_t ranked = 0;
    for (int j = 0; j <= std::min(w, kSquaresPerRow); ++j) {
        const int shared_men = w - j;
        // The configurations of the level for each placement of the white men on 6..45, the same
        // whatever the men on 46..50 (row 9: no advancement, no black man's square).
        std::vector<std::uint64_t> per_shared;
        std::uint64_t compact = (std::uint64_t{1} << shared_men) - 1;
        const RowCounts* counts = nullptr;
        std::uint32_t key = ~std::uint32_t{0};  // of `counts`: consecutive placements often share it
        for (std::uint64_t rank = 0; rank < binomial(40, shared_men); ++rank) {
            const SharedRows rows = shared_rows(compact);
            if (rows.key != key) {
                key = rows.key;
                counts = &counts_for(key);
            }
            const int sum = level - rows.advancement;
            per_shared.push_back(sum < 0 || sum > counts->sums ? 0 : counts->at(kBlackRows, black_men_, sum));
            if (shared_men > 0) compact = next_subset(compact);
        }
        std::size_t at = static_cast<std::size_t>(group_starts_[static_cast<std::size_t>(j)]);
        for (std::uint64_t far = 0; far < binomial(kSquaresPerRow, j); ++far)
            for (const std::uint64_t n : per_shared) {
                prefix_[at++] = ranked;
                ranked += n;
            }
    }
    prefix_.back() = ranked;
}

std::pair<std::size_t, std::size_t> LevelConfigs::white_placements_of(std::uint64_t first, std::uint64_t end) const {
    // The placement holding rank `first` is the last whose first rank is at most it; those after
    // the one holding end - 1 hold none.
    const auto begin = std::upper_bound(prefix_.begin(), prefix_.end() - 1, first) - prefix_.begin() - 1;
    const auto last = end == 0 ? begin : std::upper_bound(prefix_.begin(), prefix_.end() - 1, end - 1) - prefix_.begin();
    return {static_cast<std::size_t>(std::max<std::ptrdiff_t>(begin, 0)), static_cast<std::size_t>(std::max(last, begin))};
}

LevelConfigs::Placement LevelConfigs::placement_at(std::size_t placement) const {
    std::size_t j = 0;
    while (group_starts_[j + 1] <= placement) ++j;
    const std::uint64_t in_group = placement - group_starts_[j];
    const int shared_men = white_men_ - static_cast<int>(j);
    const std::uint64_t shared_count = binomial(40, shared_men);
    Placement p;
    const Bitboard far = expand_bits(unrank_subset(in_group / shared_count, static_cast<int>(j), kSquaresPerRow), kFarSquares);
    const std::uint64_t compact_shared = unrank_subset(in_group % shared_count, shared_men, 40);
    const Bitboard shared = expand_bits(compact_shared, kSharedSquares);
    const SharedRows rows = shared_rows(compact_shared);
    p.white = far | shared;
    p.region = kBlackSquares & ~shared;
    p.black_sum = level_ - rows.advancement;
    p.counts = &memo_.at(rows.key);  // made by the constructor
    for (int r = 0; r < kRows; ++r) p.row_start[r] = -1;
    for (Bitboard b = p.region; b; b &= b - 1) {
        const int r = row_of_bit(lowest_bit(b));
        if (p.row_start[r] < 0) p.row_start[r] = static_cast<int>(p.rows.size());
        p.rows.push_back(r);
    }
    p.base = index_->men_index({p.white, expand_bits((std::uint64_t{1} << black_men_) - 1, p.region)});
    return p;
}

std::uint64_t LevelConfigs::subsets_below(const Placement& p, int q, int k, int s) {
    const int r = p.rows[static_cast<std::size_t>(q)];
    const int m = q - p.row_start[r];  // the squares of row r below position q
    std::uint64_t total = 0;
    for (int t = 0; t <= std::min(m, k) && t * r <= s; ++t)
        if (s - t * r <= p.counts->sums) total += binomial(m, t) * p.counts->at(r, k - t, s - t * r);
    return total;
}

}  // namespace dtb
