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
#include "gen/pair_layout.hpp"

namespace dtb {

class FrontierBits {
public:
    explicit FrontierBits(std::uint64_t size) : words_(vector_on_huge_pages<std::uint64_t>((size + 63) / 64, 0)) {}
    std::uint64_t words() const { return words_.size(); }
    std::uint64_t word(std::uint64_t w) const { return words_[w]; }
    void set(std::uint64_t i) { words_[i >> 6] |= std::uint64_t{1} << (i & 63); }
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

// Calls visit(local, kings) for the positions of `g` set in the 64-position words [begin, end),
// in order, word w's bits given by word_of(w) (called once for each w, in order). A frontier is
// often dense (the first one holds every capture position): stepping a walker over short gaps is
// far cheaper than unranking each position (unranking cost about 6 % of a kings-only WDL pass).
template <typename WordOf, typename Visit>
void for_each_position_in_words(const PairLayout& layout, const Subgame& g, std::uint64_t begin, std::uint64_t end,
                                WordOf&& word_of, Visit&& visit) {
    constexpr std::uint64_t kLongestWalk = 32;
    std::optional<KingPlacementWalker> walker;
    int walker_block = -1;
    std::uint64_t at = 0;  // the walker's king index
    for (std::uint64_t w = begin; w != end; ++w)
        for (std::uint64_t bits = word_of(w); bits; bits &= bits - 1) {
            const std::uint64_t local = w * 64 + static_cast<std::uint64_t>(std::countr_zero(bits));
            const int b = g.block_of(local);
            const Block& block = g.blocks[b];
            const std::uint64_t k = local - block.local_offset;
            if (b != walker_block || k - at > kLongestWalk) {
                walker.emplace(layout.index(block.side), block.men, k);
                walker_block = b;
                at = k;
            }
            for (; at < k; ++at) walker->next();
            visit(local, walker->current());
        }
}

// The same over the positions set in frontier words [begin, end).
template <typename Visit>
void for_each_frontier_position(const PairLayout& layout, const Subgame& g, const FrontierBits& frontier,
                                std::uint64_t begin, std::uint64_t end, Visit&& visit) {
    for_each_position_in_words(layout, g, begin, end, [&](std::uint64_t w) { return frontier.word(w); },
                               std::forward<Visit>(visit));
}

}  // namespace dtb
