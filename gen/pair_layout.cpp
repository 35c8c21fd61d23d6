#include "gen/pair_layout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <tbb/enumerable_thread_specific.h>

namespace dtb {

std::string PairLayout::too_large(const Material& m) {
    const PositionIndex side(m);
    std::uint64_t kings = side.king_placements();
    if (!m.is_symmetric()) kings += PositionIndex(m.mirror()).king_placements();
    // Configurations are numbered in 32 bits (subgames, their lists by level).
    if (side.men_configs() >> 32)
        return m.name() + ": " + std::to_string(side.men_configs()) +
               " men configurations, more than dtb gen numbers (2^32): this pair cannot be built yet";
    if (kings >> 32)
        return m.name() + ": " + std::to_string(kings) +
               " king placements, more than dtb gen numbers (2^32): this pair cannot be built yet";
    return "";
}

PairLayout::PairLayout(const Material& m) : symmetric_(m.is_symmetric()) {
    if (const std::string reason = too_large(m); !reason.empty()) throw std::length_error(reason);
    indexes_.emplace_back(m);
    if (!symmetric_) indexes_.emplace_back(m.mirror());
}

std::uint64_t PairLayout::total_positions() const {
    std::uint64_t total = 0;
    for (const PositionIndex& idx : indexes_) total += idx.size();
    return total;
}

MenConfig PairLayout::flipped(const MenConfig& men) {
    return {rotate_board(men.black_men), rotate_board(men.white_men)};
}

std::uint32_t PairLayout::flipped_config(const MenConfig& men) const {
    return static_cast<std::uint32_t>(indexes_[partner_side(0)].men_index(flipped(men)));
}

int PairLayout::level_count() const {
    return static_cast<int>(men_configs_by_advancement(indexes_[0].material()).size());
}

std::vector<std::uint64_t> pair_positions_by_level(const Material& m) {
    std::uint64_t kings = PositionIndex(m).king_placements();
    if (!m.is_symmetric()) kings += PositionIndex(m.mirror()).king_placements();
    std::vector<std::uint64_t> out = men_configs_by_advancement(m);
    for (std::uint64_t& n : out) n *= kings;
    return out;
}

std::vector<std::uint64_t> PairLayout::positions_by_level() const {
    return pair_positions_by_level(indexes_[0].material());
}

std::vector<std::vector<std::uint32_t>> PairLayout::configs_by_level() const {
    // Two parallel passes over the configurations, counting and then filling, so that each level
    // lists its configurations in ascending order without a second copy of the lists. A pair without
    // kings has one position per configuration: a serial pass that unranked each one was a third of
    // its solve.
    const PositionIndex& idx = indexes_[0];
    const auto levels = static_cast<std::size_t>(level_count());
    const std::uint64_t n = idx.men_configs();
    constexpr std::uint64_t kChunk = std::uint64_t{1} << 14;
    const std::size_t chunks = static_cast<std::size_t>((n + kChunk - 1) / kChunk);
    std::vector<std::uint32_t> counts(chunks * levels, 0);
    const auto for_each_listed = [&](std::size_t chunk, auto&& take) {
        const std::uint64_t end = std::min(n, (chunk + 1) * kChunk);
        MenConfigWalker walker(idx, chunk * kChunk);
        for (auto c = static_cast<std::uint32_t>(chunk * kChunk); c < end; ++c) {
            if (c != chunk * kChunk) walker.next();
            const MenConfig& men = walker.current();
            if (symmetric_ && flipped_config(men) < c) continue;
            take(c, static_cast<std::size_t>(men_advancement(men)));
        }
    };
    tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t chunk) {
        for_each_listed(chunk, [&](std::uint32_t, std::size_t level) { ++counts[chunk * levels + level]; });
    });
    std::vector<std::vector<std::uint32_t>> out(levels);
    std::vector<std::uint64_t> starts(chunks * levels);
    for (std::size_t level = 0; level < levels; ++level) {
        std::uint64_t listed = 0;
        for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
            starts[chunk * levels + level] = listed;
            listed += counts[chunk * levels + level];
        }
        out[level].resize(listed);
    }
    tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t chunk) {
        for_each_listed(chunk, [&](std::uint32_t c, std::size_t level) { out[level][starts[chunk * levels + level]++] = c; });
    });
    return out;
}

std::vector<std::vector<std::uint64_t>> PairLayout::men_indices_in(const Slice& slice) const {
    const auto levels = configs_by_level();
    std::vector<std::vector<std::uint64_t>> out(indexes_.size());
    const int highest = std::min(slice.levels.highest, static_cast<int>(levels.size()) - 1);
    for (int l = std::max(slice.levels.lowest, 0); l <= highest; ++l)
        for (const std::uint32_t c : subgames_of(slice, levels[static_cast<std::size_t>(l)])) {
            const Subgame g = subgame(c);
            for (int b = 0; b < g.block_count; ++b)
                out[g.blocks[b].side].push_back(g.blocks[b].base / indexes_[g.blocks[b].side].king_placements());
        }
    for (auto& side : out) std::sort(side.begin(), side.end());
    return out;
}

std::vector<std::vector<std::uint64_t>> PairLayout::boundary_men_indices(const Slice& slice) const {
    const auto levels = configs_by_level();
    const int top = slice.levels.highest;
    std::vector<std::vector<std::uint64_t>> out(indexes_.size());
    if (top < 0 || top + 1 >= static_cast<int>(levels.size())) return out;  // the most advanced slice
    const std::span<const std::uint32_t> subgames = subgames_of(slice, levels[static_cast<std::size_t>(top)]);
    tbb::enumerable_thread_specific<std::vector<std::vector<std::uint64_t>>> found(indexes_.size());
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, subgames.size(), 256), [&](const auto& r) {
        auto& mine = found.local();
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
            const Subgame g = subgame(subgames[i]);
            for (int b = 0; b < g.block_count; ++b) {
                // Without kings every man move that any king placement allows is there.
                const Position pos = compose_position(g.blocks[b].men, KingPlacement{});
                const int target = partner_side(g.blocks[b].side);
                for (const Move& m : generate_quiet_man_moves(pos)) {
                    const Position after = apply_move(pos, m);
                    if (after.kings) continue;  // a promotion: another material
                    mine[static_cast<std::size_t>(target)].push_back(indexes_[target].men_index(men_config_of(flip_colors(after))));
                }
            }
        }
    });
    for (const auto& mine : found)
        for (std::size_t side = 0; side < out.size(); ++side) out[side].insert(out[side].end(), mine[side].begin(), mine[side].end());
    for (auto& side : out) {
        std::sort(side.begin(), side.end());
        side.erase(std::unique(side.begin(), side.end()), side.end());
    }
    return out;
}

Subgame PairLayout::subgame(std::uint32_t c) const {
    Subgame g;
    const PositionIndex& idx0 = indexes_[0];
    const MenConfig men = idx0.men_config(c);
    g.blocks[0] = Block{0, men, c * idx0.king_placements(), 0};
    g.size = idx0.king_placements();
    const std::uint32_t fc = flipped_config(men);
    if (!symmetric_ || fc != c) {
        const int s1 = partner_side(0);
        const PositionIndex& idx1 = indexes_[s1];
        g.blocks[1] = Block{s1, flipped(men), fc * idx1.king_placements(), g.size};
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
