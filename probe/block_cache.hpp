// A bounded cache of decompressed database blocks (internal to the probing library).
//
// Hot path first: every open table has a directory, one entry per block of its file, so a hit
// costs two dependent memory reads (directory entry, value byte) instead of hash-table and list
// walks. The directory entries are guarded by shard mutexes chosen by a hash of (table,
// block): threads probing different blocks rarely meet and no lock covers the whole cache.
// Eviction is CLOCK per shard (a hit only sets a "referenced" flag, it never relinks a list), and
// each shard keeps its blocks within capacity / shards bytes.
// Blocks are immutable once inserted and held by shared_ptr: an evicted block stays alive for
// whoever still holds it, which lets a loader use the block it just read even when the cache is
// too small to keep it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "probe/format.hpp"

namespace dtb::detail {

struct Block {
    std::vector<std::uint8_t> bytes;  // packed values, format::unpack_value
};
using BlockPtr = std::shared_ptr<const Block>;

// A table's view of one of its blocks in the cache. Read and written only under the lock of the
// block's shard; `data` is null when the block is not cached.
struct CachedBlock {
    const std::uint8_t* data = nullptr;
    bool referenced = false;  // CLOCK's second-chance flag
};

// The cached blocks of one table, indexed by block number: the value bytes are one step away, with
// the CLOCK flag on the same cache line. The array lives as long as the table.
class BlockDirectory {
public:
    BlockDirectory() = default;
    explicit BlockDirectory(std::uint32_t table, std::uint64_t blocks)
        : table_(table), entries_(std::make_unique<CachedBlock[]>(blocks)) {}
    std::uint32_t table() const { return table_; }
    CachedBlock& operator[](std::uint64_t block) const { return entries_[block]; }

private:
    std::uint32_t table_ = 0;
    std::unique_ptr<CachedBlock[]> entries_;
};

class BlockCache {
public:
    BlockCache(std::size_t capacity_bytes, std::size_t shards);
    ~BlockCache();
    BlockCache(const BlockCache&) = delete;
    BlockCache& operator=(const BlockCache&) = delete;

    // Value at `offset` of a cached block, read under the shard lock; false if not cached.
    bool lookup(const BlockDirectory& dir, std::uint64_t block, std::uint64_t offset, Value& out) {
        Shard& s = shard_of(dir.table(), block);
        std::lock_guard lock(s.mutex);
        CachedBlock& b = dir[block];
        if (b.data == nullptr) {
            ++s.misses;
            return false;
        }
        ++s.hits;
        if (!b.referenced) b.referenced = true;  // written only when it changes: hot lines stay shared
        out = format::unpack_value(b.data, offset);
        return true;
    }

    // Inserts a freshly read block (or keeps the copy another thread inserted first), evicting
    // blocks of the shard until it is within budget. Returns the cached copy, which the caller may
    // use even if it was evicted at once.
    BlockPtr insert(const BlockDirectory& dir, std::uint64_t block, BlockPtr fresh);

    void clear();

    struct Totals {
        std::uint64_t hits = 0, misses = 0, evictions = 0, blocks = 0, bytes = 0;
    };
    Totals totals() const;
    std::size_t capacity_bytes() const { return capacity_; }

    // What a cached block counts against the budget: its data plus an estimate of its bookkeeping
    // (Block and shared_ptr control block, ring entry).
    static std::size_t charge(const Block& b) { return b.bytes.size() + 96; }

private:
    struct Resident {
        BlockPtr block;
        CachedBlock* where;  // its directory entry, cleared on eviction
    };
    struct alignas(64) Shard {
        mutable std::mutex mutex;
        std::vector<Resident> ring;  // CLOCK order, hand at `hand`
        std::size_t hand = 0;
        std::size_t bytes = 0;
        std::uint64_t hits = 0, misses = 0, evictions = 0;
    };

    // A 64-bit finaliser (murmur3): spreads consecutive blocks of a table over the shards.
    static std::uint64_t mix(std::uint64_t k) {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        k *= 0xc4ceb9fe1a85ec53ULL;
        return k ^ (k >> 33);
    }
    Shard& shard_of(std::uint32_t table, std::uint64_t block) const {
        return shards_[mix((std::uint64_t{table} << 40) ^ block) & shard_mask_];
    }
    void evict_to_budget(Shard& s, std::vector<BlockPtr>& released);

    std::size_t capacity_;
    std::size_t shard_mask_;  // shard count - 1 (a power of two)
    std::size_t shard_capacity_;
    std::unique_ptr<Shard[]> shards_;
};

}  // namespace dtb::detail
