#include "probe/block_cache.hpp"

#include <algorithm>

namespace dtb::detail {

BlockDirectory::BlockDirectory(std::uint64_t blocks, std::uint64_t block_bytes)
    : pages_per_block_(std::max<std::uint64_t>(1, (block_bytes + kPageBytes - 1) / kPageBytes)),
      words_(std::make_unique<std::atomic<std::uint64_t>[]>(blocks * pages_per_block_)),
      cached_pages_(std::make_unique<std::uint32_t[]>(blocks)) {}

BlockCache::BlockCache(std::size_t capacity_bytes)
    : capacity_(capacity_bytes),
      max_slots_(std::min<std::uint64_t>(capacity_bytes / kSlotCharge, kMaxSlots)),
      chunk_words_(std::make_unique<std::atomic<std::uint64_t>*[]>((max_slots_ + kSlotsPerChunk - 1) / kSlotsPerChunk)),
      stripes_(std::make_unique<Stripe[]>(kStripes)) {}

BlockCache::~BlockCache() = default;

// A thread keeps its stripe (chosen by the address of a thread-local variable, which differs from
// thread to thread and costs no initialisation check): threads rarely share a counter's line.
BlockCache::Stripe& BlockCache::stripe() const {
    thread_local const char here = 0;
    std::uint64_t k = reinterpret_cast<std::uintptr_t>(&here);
    k ^= k >> 33;  // murmur3's finaliser: the addresses are far apart in their high bits
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return stripes_[k % kStripes];
}

void BlockCache::insert(const BlockDirectory& dir, std::uint64_t block, std::span<const std::uint8_t> bytes) {
    const std::uint64_t pages = (bytes.size() + kPageBytes - 1) / kPageBytes;
    std::lock_guard lock(mutex_);
    for (std::uint64_t page = 0; page < pages && page < dir.pages_per_block_; ++page) {
        std::atomic<std::uint64_t>& where = dir.words_[block * dir.pages_per_block_ + page];
        if (where.load(std::memory_order_relaxed) != 0) continue;  // another thread cached it first
        std::uint64_t slot;
        if (!take_slot(slot)) return;
        Owner& owner = owners_[slot];
        std::atomic<std::uint64_t>* words = chunk_words_[slot / kSlotsPerChunk] + slot % kSlotsPerChunk * kPageWords;
        const std::span<const std::uint8_t> part = bytes.subspan(page * kPageBytes);
        // Release: a reader that loads one of these words also sees the slot's old directory word cleared.
        for (std::uint64_t w = 0; w * 8 < std::min(part.size(), kPageBytes); ++w)
            words[w].store(word_at(part, w * 8), std::memory_order_release);
        owner.word = &where;
        owner.cached_pages = &dir.cached_pages_[block];
        owner.generation = (owner.generation + 1) & 0x7fffffffu;
        where.store(kReferenced | std::uint64_t{owner.generation} << 32 | (slot + 1), std::memory_order_release);
        if ((*owner.cached_pages)++ == 0) ++blocks_;
        ++in_use_;
    }
}

// A slot for a new page: a free one, a new one within the budget, or CLOCK's victim. False when
// the budget holds no slot at all.
bool BlockCache::take_slot(std::uint64_t& slot) {
    if (!free_.empty()) {
        slot = free_.back();
        free_.pop_back();
        return true;
    }
    if (owners_.size() < max_slots_) {
        slot = owners_.size();
        if (slot % kSlotsPerChunk == 0) {
            const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kSlotsPerChunk, max_slots_ - slot));
            words_.push_back(std::make_unique<std::atomic<std::uint64_t>[]>(n * kPageWords));
            chunk_words_[slot / kSlotsPerChunk] = words_.back().get();
        }
        owners_.emplace_back();
        return true;
    }
    if (owners_.empty()) return false;
    // Every slot is in use (free ones are taken first). A page referenced since the hand last
    // passed gets a second chance; the first one not referenced goes.
    // Past two turns (readers setting flags as fast as the hand clears them) the hand takes
    // whatever it points at.
    for (std::uint64_t step = 0;; ++step) {
        if (hand_ >= owners_.size()) hand_ = 0;
        std::atomic<std::uint64_t>& word = *owners_[hand_].word;
        if ((word.load(std::memory_order_relaxed) & kReferenced) != 0 && step < 2 * owners_.size()) {
            word.fetch_and(~kReferenced, std::memory_order_relaxed);  // only readers' flag setting races with it
            ++hand_;
            continue;
        }
        slot = hand_++;
        evict(slot);
        return true;
    }
}

// Unlinks a slot's page from its directory; readers that loaded the old word find it changed.
void BlockCache::evict(std::uint64_t slot) {
    Owner& owner = owners_[slot];
    owner.word->store(0, std::memory_order_relaxed);
    if (--*owner.cached_pages == 0) {
        --blocks_;
        ++evictions_;
    }
    owner.word = nullptr;
    --in_use_;
}

void BlockCache::clear() {
    std::lock_guard lock(mutex_);
    for (std::uint64_t slot = 0; slot < owners_.size(); ++slot) {
        Owner& owner = owners_[slot];
        if (owner.word == nullptr) continue;
        owner.word->store(0, std::memory_order_relaxed);
        *owner.cached_pages = 0;
        owner.word = nullptr;
        free_.push_back(slot);
    }
    in_use_ = 0;
    blocks_ = 0;
}

BlockCache::Totals BlockCache::totals() const {
    Totals t;
    for (std::size_t i = 0; i < kStripes; ++i) {
        t.hits += stripes_[i].hits.load(std::memory_order_relaxed);
        t.misses += stripes_[i].misses.load(std::memory_order_relaxed);
    }
    std::lock_guard lock(mutex_);
    t.evictions = evictions_;
    t.blocks = blocks_;
    t.bytes = in_use_ * kSlotCharge;
    return t;
}

}  // namespace dtb::detail
