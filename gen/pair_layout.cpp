#include "gen/pair_layout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_sort.h>

namespace dtb {

std::string PairLayout::too_large_for_dtw(const Material& m) {
    const PositionIndex side(m);
    std::uint64_t kings = side.king_placements();
    if (!m.is_symmetric()) kings += PositionIndex(m.mirror()).king_placements();
    if (kings >> 32)
        return m.name() + ": " + std::to_string(kings) +
               " king placements in a subgame, more than the distances to win number (2^32): its --dtw files cannot be built yet";
    return "";
}

PairLayout::PairLayout(const Material& m) : symmetric_(m.is_symmetric()) {
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

std::uint64_t PairLayout::flipped_config(const MenConfig& men) const {
    return indexes_[partner_side(0)].men_index(flipped(men));
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

namespace {

// The share [first, end) of n items that part `part` of `parts` takes.
std::pair<std::uint64_t, std::uint64_t> share_of(std::uint64_t n, const Slice& slice) {
    const auto total = static_cast<unsigned __int128>(n);
    return {static_cast<std::uint64_t>(total * static_cast<unsigned>(slice.part) / static_cast<unsigned>(slice.parts)),
            static_cast<std::uint64_t>(total * static_cast<unsigned>(slice.part + 1) / static_cast<unsigned>(slice.parts))};
}

}  // namespace

SliceSubgames PairLayout::subgames_in(const Slice& slice) const {
    // Level by level, each level's configurations visited through LevelConfigs (its white
    // placements in parallel), never the other levels': a pair without kings has one position a
    // configuration, and walking all of them cost a slice task more than solving its slice. A part
    // is a share of its level's list in index order.
    const PositionIndex& idx = indexes_[0];
    const int levels = level_count();
    SliceSubgames out;
    out.by_level.resize(static_cast<std::size_t>(levels));
    out.levels = {std::max(slice.levels.lowest, 0), std::min(slice.levels.highest, levels - 1)};
    for (int l = out.levels.lowest; l <= out.levels.highest; ++l) {
        const LevelConfigs level(idx, l);
        out.by_level[static_cast<std::size_t>(l)] =
            symmetric_ ? symmetric_share(level, slice, out.positions) : plain_share(level, slice, out.positions);
    }
    return out;
}

ConfigList PairLayout::plain_share(const LevelConfigs& level, const Slice& slice, std::uint64_t& positions) const {
    // Every configuration is listed: the share's are those of its ranks, each at its place.
    const auto [first, end] = share_of(level.size(), slice);
    ConfigList share(static_cast<std::size_t>(end - first), ConfigList::wide_for(indexes_[0].men_configs()));
    const auto [begin, stop] = level.white_placements_of(first, end);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(begin, stop, 1), [&](const auto& r) {
        for (std::size_t w = r.begin(); w != r.end(); ++w)
            level.for_each_in(w, first, end, [&](std::uint64_t rank, std::uint64_t c, const MenConfig&) {
                share.set(static_cast<std::size_t>(rank - first), c);
            });
    });
    positions += share.size() * (indexes_[0].king_placements() + indexes_[partner_side(0)].king_placements());
    return share;
}

ConfigList PairLayout::symmetric_share(const LevelConfigs& level, const Slice& slice, std::uint64_t& positions) const {
    // Listed: the first of each pair {c, flip(c)}. How many each white placement lists is
    // counted by a first visit, so that a part takes its share of the listed ones, and then each
    // is put at its rank among them.
    std::vector<std::uint64_t> before(level.white_placements() + 1, 0);  // listed before each placement
    tbb::parallel_for(std::size_t{0}, level.white_placements(), [&](std::size_t w) {
        std::uint64_t listed = 0;
        level.for_each_in(w, 0, level.size(), [&](std::uint64_t, std::uint64_t c, const MenConfig& men) {
            listed += flipped_config(men) >= c;
        });
        before[w + 1] = listed;
    });
    for (std::size_t w = 0; w + 1 < before.size(); ++w) before[w + 1] += before[w];
    const auto [first, end] = share_of(before.back(), slice);
    ConfigList share(static_cast<std::size_t>(end - first), ConfigList::wide_for(indexes_[0].men_configs()));
    const std::uint64_t kings = indexes_[0].king_placements();
    std::atomic<std::uint64_t> held{0};
    tbb::parallel_for(std::size_t{0}, level.white_placements(), [&](std::size_t w) {
        if (before[w + 1] <= first || before[w] >= end) return;
        std::uint64_t next = before[w], mine = 0;  // the rank of the next listed one
        level.for_each_in(w, 0, level.size(), [&](std::uint64_t, std::uint64_t c, const MenConfig& men) {
            const std::uint64_t fc = flipped_config(men);
            if (fc < c) return;
            if (const std::uint64_t rank = next++; rank >= first && rank < end) {
                share.set(static_cast<std::size_t>(rank - first), c);
                mine += fc == c ? kings : 2 * kings;
            }
        });
        held.fetch_add(mine, std::memory_order_relaxed);
    });
    positions += held.load();
    return share;
}

std::vector<std::vector<std::uint64_t>> PairLayout::men_indices_in(const SliceSubgames& subgames) const {
    // Two places a subgame, filled in parallel: side 0's block and its partner's (a symmetric
    // material's own flip leaves its second place empty, kNone, removed before sorting).
    constexpr std::uint64_t kNone = ~std::uint64_t{0};
    std::size_t listed = 0;
    for (const ConfigList& level : subgames.by_level) listed += level.size();
    std::vector<std::vector<std::uint64_t>> out(indexes_.size());
    if (symmetric_) out[0].assign(2 * listed, kNone);
    else for (auto& side : out) side.assign(listed, kNone);
    std::size_t offset = 0;
    for (const ConfigList& level : subgames.by_level) {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, level.size(), 4096), [&](const auto& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                const Subgame g = subgame(level[i]);
                for (int b = 0; b < g.block_count; ++b) {
                    const Block& block = g.blocks[b];
                    const std::size_t at = symmetric_ ? 2 * (offset + i) + static_cast<std::size_t>(b) : offset + i;
                    out[static_cast<std::size_t>(block.side)][at] = block.base / indexes_[block.side].king_placements();
                }
            }
        });
        offset += level.size();
    }
    for (auto& side : out) {
        side.erase(std::remove(side.begin(), side.end(), kNone), side.end());
        tbb::parallel_sort(side.begin(), side.end());
    }
    return out;
}

std::vector<std::vector<std::uint64_t>> PairLayout::boundary_men_indices(const SliceSubgames& listed) const {
    const int top = listed.levels.highest;
    std::vector<std::vector<std::uint64_t>> out(indexes_.size());
    if (top < listed.levels.lowest || top + 1 >= level_count()) return out;  // the most advanced slice
    const ConfigList& subgames = listed.by_level[static_cast<std::size_t>(top)];
    using Found = std::vector<std::vector<std::uint64_t>>;
    // Each man move of each block found once per block: many blocks reach the same configuration,
    // so a thread's finds are sorted and made unique whenever they double, which keeps them
    // within about twice the boundary (without kings a position a configuration, the finds before
    // that were several times the slice's own lists).
    const auto compact = [](std::vector<std::uint64_t>& v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    struct ThreadFinds {
        Found found;
        std::vector<std::size_t> compacted;
    };
    tbb::enumerable_thread_specific<ThreadFinds> finds([&] { return ThreadFinds{Found(indexes_.size()), std::vector<std::size_t>(indexes_.size(), 0)}; });
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, subgames.size(), 256), [&](const auto& r) {
        ThreadFinds& mine = finds.local();
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
            const Subgame g = subgame(subgames[i]);
            for (int b = 0; b < g.block_count; ++b) {
                // Without kings every man move that any king placement allows is there.
                const Position pos = compose_position(g.blocks[b].men, KingPlacement{});
                const auto target = static_cast<std::size_t>(partner_side(g.blocks[b].side));
                for (const Move& m : generate_quiet_man_moves(pos)) {
                    const Position after = apply_move(pos, m);
                    if (after.kings) continue;  // a promotion: another material
                    mine.found[target].push_back(indexes_[target].men_index(men_config_of(flip_colors(after))));
                }
                if (std::vector<std::uint64_t>& v = mine.found[target]; v.size() > 2 * mine.compacted[target] + 4096) {
                    compact(v);
                    mine.compacted[target] = v.size();
                }
            }
        }
    });
    for (ThreadFinds& mine : finds)
        for (std::size_t side = 0; side < out.size(); ++side) {
            out[side].insert(out[side].end(), mine.found[side].begin(), mine.found[side].end());
            std::vector<std::uint64_t>().swap(mine.found[side]);
        }
    for (auto& side : out) compact(side);
    return out;
}

Subgame PairLayout::subgame(std::uint64_t c) const {
    Subgame g;
    const PositionIndex& idx0 = indexes_[0];
    const MenConfig men = idx0.men_config(c);
    g.blocks[0] = Block{0, men, c * idx0.king_placements(), 0};
    g.size = idx0.king_placements();
    const std::uint64_t fc = flipped_config(men);
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

namespace {

// About the subgames of `positions` positions of the pair of m: a subgame holds a block of each
// side (a symmetric material: c and flip(c)), whose king placements it multiplies.
std::uint64_t subgames_of_positions(const Material& m, std::uint64_t positions) {
    const PositionIndex own(m);
    const std::uint64_t kings =
        own.king_placements() + (m.is_symmetric() ? own.king_placements() : PositionIndex(m.mirror()).king_placements());
    return (positions + kings - 1) / kings;
}

}  // namespace

std::uint64_t PairLayout::subgame_list_bytes(const Material& m, std::uint64_t positions) {
    return subgames_of_positions(m, positions) * (ConfigList::wide_for(PositionIndex(m).men_configs()) ? 8 : 4);
}

std::uint64_t PairLayout::listing_bytes(const Material& m) {
    if (m.men() == 0) return 0;
    const std::uint64_t placements = binomial(45, m.white_men);  // white men on 6..50
    return placements * sizeof(std::uint64_t) * (m.is_symmetric() ? 2 : 1);
}

std::uint64_t PairLayout::block_list_bytes(const Material& m, std::uint64_t positions) {
    // And HeldConfigs's sample, an entry in 64.
    const std::uint64_t list = 2 * subgames_of_positions(m, positions) * sizeof(std::uint64_t);
    return list + list / 64;
}

Position PairLayout::position_at(const Block& b, std::uint64_t k) const {
    return compose_position(b.men, indexes_[b.side].king_placement(b.men, k));
}

}  // namespace dtb
