// A bounded cache of decompressed database blocks, WDL and DTW alike (internal to the probing
// library).
//
// A hit takes no lock. Blocks are cached in pages of kPageBytes held in slots of a pool the cache
// owns; a slot's memory is never freed while the cache lives, only refilled with another page, so
// a reader that still holds a stale slot number reads memory that exists (never freed memory) and
// finds out, as in a seqlock:
// - every open table has a directory, one atomic word per page of each of its blocks: 0 when the
//   page is not cached, else the slot, the slot's generation (bumped at every reuse) and CLOCK's
//   "referenced" flag;
// - a reader loads the word (acquire), loads the 8 bytes it wants from the slot (acquire), then
//   loads the word again: if it is unchanged the bytes are the page's. A slot is given a new page
//   only after its old directory word was cleared, and its bytes are written with release stores,
//   so a reader that saw a new byte also sees the cleared word (the generation rules out the same
//   word coming back, short of 2^31 reuses of one slot during one read);
// - the slot's bytes are atomics (8-byte words), so a stale read is no data race in the C++
//   memory model and ThreadSanitizer needs no suppression.
// Two dependent memory reads per hit (directory word, value word), as with plain pointers.
// Inserting and evicting take one mutex (they follow a disk read and a decompression, which cost
// far more). Eviction is CLOCK over the slots: a hit sets the "referenced" flag of its directory
// word (already in the core's cache), and writes it only when it is clear, so hot cache lines
// stay shared between cores; the flag is set by compare-and-swap, which fails harmlessly if the
// page was evicted meanwhile. Hits and misses are counted in per-thread stripes by a relaxed load
// and store, no locked instruction (a locked one would wait for the value's memory read): two
// threads that share a stripe (rare: 64 stripes by thread id) may lose a count now and then.
// Pages rather than whole blocks: WDL and DTW blocks differ in size (and files may choose their
// block size), and fixed-size slots are what lets memory be reused without being freed.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace dtb::detail {

// Half a WDL block and a tenth of a one-byte DTW block as dtb gen writes them by default (65,520
// positions a block): such blocks fill their pages exactly. A multiple of 8 (whole words). Smaller
// pages waste less of the last page of other block sizes but make the directories larger, and a
// probe's directory word less often cached: 2184-byte pages measured a little slower on 2-5 pieces.
inline constexpr std::size_t kPageBytes = 6552;
inline constexpr std::size_t kPageWords = kPageBytes / 8;

// Byte `byte` of a block, from the aligned word that holds it (byte k of a word at bits 8k).
inline std::uint8_t byte_in_word(std::uint64_t word, std::uint64_t byte) {
    return static_cast<std::uint8_t>(word >> (8 * (byte & 7)));
}

// The aligned word of `bytes` that holds byte `byte` (bytes past the end read as 0). Inline, and
// one load where it can: inserting a block copies it a word at a time.
inline std::uint64_t word_at(std::span<const std::uint8_t> bytes, std::uint64_t byte) {
    const std::uint64_t first = byte & ~std::uint64_t{7};
    std::uint64_t word = 0;
    if constexpr (std::endian::native == std::endian::little) {
        if (first + 8 <= bytes.size()) {
            std::memcpy(&word, bytes.data() + first, 8);
            return word;
        }
    }
    for (std::uint64_t k = 0; k < 8 && first + k < bytes.size(); ++k) word |= std::uint64_t{bytes[first + k]} << (8 * k);
    return word;
}

// The directory words of one table's blocks; lives as long as the table.
class BlockDirectory {
public:
    BlockDirectory() = default;
    // `block_bytes`: the size of the table's largest (first) block.
    BlockDirectory(std::uint64_t blocks, std::uint64_t block_bytes);

    std::atomic<std::uint64_t>& word(std::uint64_t block, std::uint64_t byte) const {
        return words_[block * pages_per_block_ + byte / kPageBytes];
    }

private:
    friend class BlockCache;
    std::uint64_t pages_per_block_ = 0;
    std::unique_ptr<std::atomic<std::uint64_t>[]> words_;
    std::unique_ptr<std::uint32_t[]> cached_pages_;  // per block; guarded by the cache's mutex
};

class BlockCache {
public:
    explicit BlockCache(std::size_t capacity_bytes);
    ~BlockCache();
    BlockCache(const BlockCache&) = delete;
    BlockCache& operator=(const BlockCache&) = delete;

    // The aligned word of block `block` of `dir` that holds byte `byte`; false if not cached.
    bool lookup(const BlockDirectory& dir, std::uint64_t block, std::uint64_t byte, std::uint64_t& word) const {
        std::atomic<std::uint64_t>& where = dir.word(block, byte);
        for (;;) {
            const std::uint64_t seen = where.load(std::memory_order_acquire);
            if (seen == 0) {
                count(stripe().misses);
                return false;
            }
            const std::uint64_t slot = (seen & kSlotBits) - 1;
            word = chunk_words_[slot / kSlotsPerChunk][slot % kSlotsPerChunk * kPageWords + byte % kPageBytes / 8].load(
                std::memory_order_acquire);
            std::uint64_t now = where.load(std::memory_order_relaxed);
            if ((now ^ seen) & ~kReferenced) continue;  // the slot took another page meanwhile
            if ((now & kReferenced) == 0)
                where.compare_exchange_strong(now, now | kReferenced, std::memory_order_relaxed);
            count(stripe().hits);
            return true;
        }
    }

    // Caches the pages of a freshly read block that no other thread cached meanwhile, evicting
    // pages beyond the budget. A cache too small for a page keeps nothing.
    void insert(const BlockDirectory& dir, std::uint64_t block, std::span<const std::uint8_t> bytes);

    // Drops every page. The slots' memory stays with the cache (a reader may still be looking at
    // it) and is reused by later inserts.
    void clear();

    struct Totals {
        std::uint64_t hits = 0, misses = 0, evictions = 0, blocks = 0, bytes = 0;
    };
    // Blocks are counted whole: a block is held while any of its pages is, evicted when its last
    // page is. Bytes are the slots in use with their bookkeeping.
    Totals totals() const;
    std::size_t capacity_bytes() const { return capacity_; }

    // What a cached page counts against the budget: its slot and the slot's bookkeeping.
    static constexpr std::size_t kSlotCharge = kPageBytes + 16;

private:
    static constexpr std::size_t kSlotsPerChunk = 4096;             // slots are allocated in chunks
    static constexpr std::uint64_t kMaxSlots = std::uint64_t{1} << 28;  // 1.76 TB: "no bound"
    static constexpr std::size_t kStripes = 64;
    static constexpr std::uint64_t kSlotBits = 0xffffffffu;                // slot + 1
    static constexpr std::uint64_t kReferenced = std::uint64_t{1} << 63;  // above 31 bits of generation

    struct alignas(64) Stripe {
        std::atomic<std::uint64_t> hits{0}, misses{0};
    };
    // Who owns a slot in use; guarded by mutex_.
    struct Owner {
        std::atomic<std::uint64_t>* word = nullptr;  // its directory word (null: the slot is free)
        std::uint32_t* cached_pages = nullptr;       // its block's page count
        std::uint32_t generation = 0;
    };

    Stripe& stripe() const;
    static void count(std::atomic<std::uint64_t>& counter) {
        counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    bool take_slot(std::uint64_t& slot);
    void evict(std::uint64_t slot);

    const std::size_t capacity_;
    const std::uint64_t max_slots_;
    // Written under mutex_ before any directory word names a slot of the chunk (release), read
    // after such a word (acquire): readers need no lock.
    std::unique_ptr<std::atomic<std::uint64_t>*[]> chunk_words_;
    std::unique_ptr<Stripe[]> stripes_;

    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<std::atomic<std::uint64_t>[]>> words_;       // chunks of slot words
    std::vector<Owner> owners_;       // one per slot allocated
    std::vector<std::uint64_t> free_;  // slots allocated and not in use
    std::uint64_t hand_ = 0;           // CLOCK's hand over owners_
    std::uint64_t in_use_ = 0, blocks_ = 0, evictions_ = 0;
};

}  // namespace dtb::detail
