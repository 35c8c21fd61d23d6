// The frontier of a large subgame (kings only, or nearly) as one bit a position, shared by the WDL
// and DTW solvers. Queuing such a subgame's settled positions with their kings took 24 bytes each,
// several times the memory of the cells themselves (the KvKKKKK pair peaked at 4.4 GB).
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "gen/huge_pages.hpp"
#include "gen/king_tiles.hpp"
#include "gen/pair_layout.hpp"

namespace dtb {

class FrontierBits {
public:
    explicit FrontierBits(std::uint64_t size) : words_(vector_on_huge_pages<std::uint64_t>((size + 63) / 64, 0)) {}
    std::uint64_t words() const { return words_.size(); }
    std::uint64_t word(std::uint64_t w) const { return words_[w]; }
    void set(std::uint64_t i) { words_[i >> 6] |= std::uint64_t{1} << (i & 63); }
    void reset(std::uint64_t i) { words_[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
    bool test(std::uint64_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
    // Safe while other threads set bits too.
    void set_shared(std::uint64_t i) {
        std::atomic_ref(words_[i >> 6]).fetch_or(std::uint64_t{1} << (i & 63), std::memory_order_relaxed);
    }
    // Safe while other threads set or reset bits too.
    bool test_shared(std::uint64_t i) const {
        const std::uint64_t w = std::atomic_ref(const_cast<std::uint64_t&>(words_[i >> 6])).load(std::memory_order_relaxed);
        return (w >> (i & 63)) & 1;
    }
    void reset_shared(std::uint64_t i) {
        std::atomic_ref(words_[i >> 6]).fetch_and(~(std::uint64_t{1} << (i & 63)), std::memory_order_relaxed);
    }
    void clear() { std::fill(words_.begin(), words_.end(), 0); }
    std::uint64_t count() const {
        std::uint64_t n = 0;
        for (const std::uint64_t w : words_) n += static_cast<std::uint64_t>(std::popcount(w));
        return n;
    }
    void swap(FrontierBits& other) noexcept { words_.swap(other.words_); }

private:
    std::vector<std::uint64_t> words_;
};

// Calls visit(local, kings) for the positions of block `b` of `g` set in `frontier` whose king
// indices are in [k0, k1), in order. A frontier is often dense (the first one holds every capture
// position): stepping a walker over short gaps is far cheaper than unranking each position
// (unranking cost about 6 % of a kings-only WDL pass).
template <typename Visit>
void for_each_frontier_position_in(const PairLayout& layout, const Subgame& g, int b, const FrontierBits& frontier,
                                   std::uint64_t k0, std::uint64_t k1, Visit&& visit) {
    constexpr std::uint64_t kLongestWalk = 32;
    const Block& block = g.blocks[b];
    std::optional<KingPlacementWalker> walker;
    std::uint64_t at = 0;  // the walker's king index
    const std::uint64_t end = block.local_offset + k1;
    for (std::uint64_t from = block.local_offset + k0; from < end;) {
        const std::uint64_t w = from >> 6, next_word = (w + 1) * 64;
        std::uint64_t bits = frontier.word(w) >> (from & 63) << (from & 63);
        if (end < next_word) bits &= (std::uint64_t{1} << (end & 63)) - 1;
        for (; bits; bits &= bits - 1) {
            const std::uint64_t k = w * 64 + static_cast<std::uint64_t>(std::countr_zero(bits)) - block.local_offset;
            if (!walker || k - at > kLongestWalk) {
                walker.emplace(layout.index(block.side), block.men, k);
                at = k;
            }
            for (; at < k; ++at) walker->next();
            visit(block.local_offset + k, walker->current());
        }
        from = next_word;
    }
}

// Calls visit(local, kings) for the positions of `g` set in frontier words [begin, end). A block
// whose white placements in the range are kFrontierTileRows or more is walked in tiles where they
// pay (gen/king_tiles.hpp), as the first pass is: the predecessors of a position (a black king
// moved back) are indexed with the colours flipped too, and its unsettled bit stays in its word.
template <typename Visit>
void for_each_frontier_position(const PairLayout& layout, const Subgame& g, const FrontierBits& frontier,
                                std::uint64_t begin, std::uint64_t end, Visit&& visit) {
    constexpr std::uint64_t kFrontierTileRows = 8;
    const std::uint64_t first = begin * 64, last = std::min(end * 64, g.size);
    for (int b = first < last ? g.block_of(first) : g.block_count; b < g.block_count; ++b) {
        const Block& block = g.blocks[b];
        if (block.local_offset >= last) break;
        const PositionIndex& index = layout.index(block.side);
        const std::uint64_t k0 = std::max(first, block.local_offset) - block.local_offset;
        const std::uint64_t k1 = std::min(last, block.local_offset + index.king_placements()) - block.local_offset;
        for_each_king_tile_run(index, k0, k1, kFrontierTileRows, [&](std::uint64_t from, std::uint64_t to) {
            for_each_frontier_position_in(layout, g, b, frontier, from, to, visit);
        });
    }
}

}  // namespace dtb
