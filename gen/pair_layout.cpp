#include "gen/pair_layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtb {

PairLayout::PairLayout(const Material& m) : symmetric_(m.is_symmetric()) {
    indexes_.emplace_back(m);
    if (!symmetric_) indexes_.emplace_back(m.mirror());
    std::uint64_t kings = 0;
    for (const PositionIndex& idx : indexes_) {
        if (idx.men_configs() >> 32) throw std::length_error(m.name() + ": too many men configurations");
        kings += idx.king_placements();
    }
    if (kings >> 32) throw std::length_error(m.name() + ": too many king placements");
}

std::uint64_t PairLayout::total_positions() const {
    std::uint64_t total = 0;
    for (const PositionIndex& idx : indexes_) total += idx.size();
    return total;
}

std::uint32_t PairLayout::flipped_config(std::uint32_t c) const {
    const MenConfig men = indexes_[0].men_config(c);
    return static_cast<std::uint32_t>(
        indexes_[partner_side(0)].men_index({rotate_board(men.black_men), rotate_board(men.white_men)}));
}

std::vector<std::vector<std::uint32_t>> PairLayout::configs_by_level() const {
    const PositionIndex& idx = indexes_[0];
    std::vector<std::vector<std::uint32_t>> levels;
    for (std::uint32_t c = 0; c < idx.men_configs(); ++c) {
        if (symmetric_ && flipped_config(c) < c) continue;
        const auto level = static_cast<std::size_t>(men_advancement(idx.men_config(c)));
        if (levels.size() <= level) levels.resize(level + 1);
        levels[level].push_back(c);
    }
    return levels;
}

std::vector<std::uint64_t> PairLayout::positions_by_level() const {
    std::vector<std::uint64_t> out;
    for (const auto& level : configs_by_level()) {
        std::uint64_t n = 0;
        for (const std::uint32_t c : level) n += subgame(c).size;
        out.push_back(n);
    }
    return out;
}

std::vector<std::vector<std::uint64_t>> PairLayout::men_indices_in(LevelRange range) const {
    const auto levels = configs_by_level();
    std::vector<std::vector<std::uint64_t>> out(indexes_.size());
    for (int l = std::max(range.lowest, 0); l <= range.highest && l < static_cast<int>(levels.size()); ++l)
        for (const std::uint32_t c : levels[static_cast<std::size_t>(l)]) {
            const Subgame g = subgame(c);
            for (int b = 0; b < g.block_count; ++b)
                out[g.blocks[b].side].push_back(g.blocks[b].base / indexes_[g.blocks[b].side].king_placements());
        }
    for (auto& side : out) std::sort(side.begin(), side.end());
    return out;
}

Subgame PairLayout::subgame(std::uint32_t c) const {
    Subgame g;
    const PositionIndex& idx0 = indexes_[0];
    g.blocks[0] = Block{0, idx0.men_config(c), c * idx0.king_placements(), 0};
    g.size = idx0.king_placements();
    const std::uint32_t fc = flipped_config(c);
    if (!symmetric_ || fc != c) {
        const int s1 = partner_side(0);
        const PositionIndex& idx1 = indexes_[s1];
        g.blocks[1] = Block{s1, idx1.men_config(fc), fc * idx1.king_placements(), g.size};
        g.block_count = 2;
        g.size += idx1.king_placements();
    }
    return g;
}

std::uint64_t PairLayout::largest_subgame(const Material& m) {
    const PositionIndex own(m);
    if (!m.is_symmetric()) return own.king_placements() + PositionIndex(m.mirror()).king_placements();
    return own.men_configs() == 1 ? own.king_placements() : 2 * own.king_placements();
}

Position PairLayout::position_at(const Block& b, std::uint64_t k) const {
    return compose_position(b.men, indexes_[b.side].king_placement(b.men, k));
}

}  // namespace dtb
