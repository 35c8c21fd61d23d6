#include "probe/block_cache.hpp"

#include <bit>

namespace dtb::detail {

BlockCache::BlockCache(std::size_t capacity_bytes, std::size_t shards)
    : capacity_(capacity_bytes),
      shard_mask_(std::bit_floor(shards == 0 ? std::size_t{1} : shards) - 1),
      shard_capacity_(capacity_bytes / (shard_mask_ + 1)),
      shards_(std::make_unique<Shard[]>(shard_mask_ + 1)) {}

BlockCache::~BlockCache() = default;

BlockPtr BlockCache::insert(const BlockDirectory& dir, std::uint64_t block, BlockPtr fresh) {
    Shard& s = shard_of(dir.table(), block);
    std::vector<BlockPtr> released;  // freed after unlocking: freeing memory need not hold the shard
    std::lock_guard lock(s.mutex);
    CachedBlock& entry = dir[block];
    if (entry.data != nullptr) {  // another thread inserted it first: share that copy
        for (const Resident& r : s.ring)
            if (r.where == &entry) return r.block;
    }
    entry = {fresh->bytes.data(), true};
    s.bytes += charge(*fresh);
    s.ring.push_back({fresh, &entry});
    evict_to_budget(s, released);
    return fresh;
}

// CLOCK: a block referenced since the hand last passed gets a second chance; the first one not
// referenced goes. The newest block (at the back, referenced) goes last.
void BlockCache::evict_to_budget(Shard& s, std::vector<BlockPtr>& released) {
    while (s.bytes > shard_capacity_ && !s.ring.empty()) {
        if (s.hand >= s.ring.size()) s.hand = 0;
        Resident& r = s.ring[s.hand];
        if (r.where->referenced && s.ring.size() > 1) {
            r.where->referenced = false;
            ++s.hand;
            continue;
        }
        *r.where = CachedBlock{};
        s.bytes -= charge(*r.block);
        released.push_back(std::move(r.block));
        if (&r != &s.ring.back()) r = std::move(s.ring.back());  // swap-remove; the moved block is looked at next
        s.ring.pop_back();
        ++s.evictions;
    }
}

void BlockCache::clear() {
    for (std::size_t i = 0; i <= shard_mask_; ++i) {
        Shard& s = shards_[i];
        std::vector<Resident> dropped;
        {
            std::lock_guard lock(s.mutex);
            for (const Resident& r : s.ring) *r.where = CachedBlock{};
            dropped.swap(s.ring);
            s.hand = 0;
            s.bytes = 0;
        }
    }
}

BlockCache::Totals BlockCache::totals() const {
    Totals t;
    for (std::size_t i = 0; i <= shard_mask_; ++i) {
        const Shard& s = shards_[i];
        std::lock_guard lock(s.mutex);
        t.hits += s.hits;
        t.misses += s.misses;
        t.evictions += s.evictions;
        t.blocks += s.ring.size();
        t.bytes += s.bytes;
    }
    return t;
}

}  // namespace dtb::detail
