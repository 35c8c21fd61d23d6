// The block cache on its own: blocks of several pages, a budget of a few pages, CLOCK's second
// chance, clear, and the counts CacheStats reports.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "probe/block_cache.hpp"

namespace dtb::detail {
namespace {

// A block of `bytes` bytes whose byte i is (i * 7 + seed) mod 251.
std::vector<std::uint8_t> make_block(std::size_t bytes, int seed) {
    std::vector<std::uint8_t> b(bytes);
    for (std::size_t i = 0; i < bytes; ++i) b[i] = static_cast<std::uint8_t>((i * 7 + static_cast<std::size_t>(seed)) % 251);
    return b;
}

// The byte the cache holds for (dir, block, byte), or -1 if it does not hold it.
int cached_byte(const BlockCache& cache, const BlockDirectory& dir, std::uint64_t block, std::uint64_t byte) {
    std::uint64_t word;
    if (!cache.lookup(dir, block, byte, word)) return -1;
    return byte_in_word(word, byte);
}

TEST(BlockCache, EveryByteOfABlockOfSeveralPages) {
    const std::size_t bytes = 2 * kPageBytes + 100;  // three pages, the last one short
    const BlockDirectory dir(4, bytes);
    BlockCache cache(16 * BlockCache::kSlotCharge);
    const auto block = make_block(bytes, 3);
    cache.insert(dir, 2, block);
    for (std::uint64_t i = 0; i < bytes; ++i) ASSERT_EQ(cached_byte(cache, dir, 2, i), block[i]) << i;
    EXPECT_EQ(cached_byte(cache, dir, 1, 0), -1);
    EXPECT_EQ(cached_byte(cache, dir, 3, bytes - 1), -1);
    const auto t = cache.totals();
    EXPECT_EQ(t.blocks, 1u);
    EXPECT_EQ(t.bytes, 3 * BlockCache::kSlotCharge);
    EXPECT_EQ(t.hits, bytes);
    EXPECT_EQ(t.misses, 2u);
}

TEST(BlockCache, WordAtPadsPastTheEnd) {
    const std::vector<std::uint8_t> bytes{1, 2, 3};
    EXPECT_EQ(word_at(bytes, 1), 0x030201u);
    EXPECT_EQ(byte_in_word(word_at(bytes, 2), 2), 3);
}

// Two directories (as a WDL and a DTW file): the same block number of each is its own page.
TEST(BlockCache, TablesDoNotShareBlocks) {
    const BlockDirectory wdl(1, 64), dtw(1, 64);
    BlockCache cache(4 * BlockCache::kSlotCharge);
    cache.insert(wdl, 0, make_block(64, 1));
    cache.insert(dtw, 0, make_block(64, 2));
    EXPECT_EQ(cached_byte(cache, wdl, 0, 10), make_block(64, 1)[10]);
    EXPECT_EQ(cached_byte(cache, dtw, 0, 10), make_block(64, 2)[10]);
}

// A budget of three pages: a fourth block evicts one, never more than three are held, and a page
// looked up since the hand last passed is kept over one that was not.
TEST(BlockCache, ClockKeepsWhatWasReferenced) {
    const BlockDirectory dir(8, 64);
    BlockCache cache(3 * BlockCache::kSlotCharge + 10);
    for (std::uint64_t b = 0; b < 3; ++b) cache.insert(dir, b, make_block(64, static_cast<int>(b)));
    EXPECT_EQ(cache.totals().blocks, 3u);
    // Inserted pages start referenced: the hand clears all three flags, then takes block 0's slot.
    cache.insert(dir, 3, make_block(64, 3));
    EXPECT_EQ(cached_byte(cache, dir, 0, 0), -1);
    EXPECT_EQ(cache.totals().evictions, 1u);
    // Block 1 is looked up again (flag set); block 2 is not: the next insert evicts block 2.
    ASSERT_NE(cached_byte(cache, dir, 1, 5), -1);
    cache.insert(dir, 4, make_block(64, 4));
    EXPECT_NE(cached_byte(cache, dir, 1, 5), -1);
    EXPECT_EQ(cached_byte(cache, dir, 2, 5), -1);
    EXPECT_EQ(cached_byte(cache, dir, 4, 63), make_block(64, 4)[63]);
    const auto t = cache.totals();
    EXPECT_EQ(t.blocks, 3u);
    EXPECT_EQ(t.evictions, 2u);
    EXPECT_LE(t.bytes, cache.capacity_bytes());
}

// A block of more pages than the budget: some of its pages are kept, it counts as one block, and
// it counts as evicted once its last page goes.
TEST(BlockCache, ABlockLargerThanTheBudget) {
    const std::size_t bytes = 4 * kPageBytes;
    const BlockDirectory dir(2, bytes);
    BlockCache cache(2 * BlockCache::kSlotCharge);
    cache.insert(dir, 0, make_block(bytes, 5));
    auto t = cache.totals();
    EXPECT_EQ(t.blocks, 1u);
    EXPECT_EQ(t.bytes, 2 * BlockCache::kSlotCharge);
    int held = 0;
    for (std::uint64_t page = 0; page < 4; ++page) {
        const int got = cached_byte(cache, dir, 0, page * kPageBytes + 1);
        if (got >= 0) {
            EXPECT_EQ(got, make_block(bytes, 5)[page * kPageBytes + 1]);
        }
        held += got >= 0;
    }
    EXPECT_EQ(held, 2);
    cache.insert(dir, 1, make_block(kPageBytes, 6));
    cache.insert(dir, 1, make_block(kPageBytes, 6));  // already cached: nothing changes
    t = cache.totals();
    EXPECT_EQ(t.bytes, 2 * BlockCache::kSlotCharge);
    EXPECT_EQ(t.blocks, 2u);  // block 1, and block 0 by its remaining page
    EXPECT_EQ(t.evictions, 0u);
}

TEST(BlockCache, ClearDropsEverythingAndTheSlotsAreReused) {
    const BlockDirectory dir(4, 64);
    BlockCache cache(2 * BlockCache::kSlotCharge);
    cache.insert(dir, 0, make_block(64, 1));
    cache.insert(dir, 1, make_block(64, 2));
    cache.clear();
    EXPECT_EQ(cached_byte(cache, dir, 0, 0), -1);
    EXPECT_EQ(cache.totals().blocks, 0u);
    EXPECT_EQ(cache.totals().bytes, 0u);
    cache.insert(dir, 2, make_block(64, 3));
    cache.insert(dir, 3, make_block(64, 4));
    EXPECT_EQ(cached_byte(cache, dir, 2, 9), make_block(64, 3)[9]);
    EXPECT_EQ(cached_byte(cache, dir, 3, 9), make_block(64, 4)[9]);
    EXPECT_EQ(cache.totals().evictions, 0u);  // the cleared slots were free
}

TEST(BlockCache, ABudgetOfLessThanAPageKeepsNothing) {
    const BlockDirectory dir(1, 64);
    BlockCache cache(BlockCache::kSlotCharge - 1);
    cache.insert(dir, 0, make_block(64, 1));
    EXPECT_EQ(cached_byte(cache, dir, 0, 0), -1);
    EXPECT_EQ(cache.totals().blocks, 0u);
}

}  // namespace
}  // namespace dtb::detail
