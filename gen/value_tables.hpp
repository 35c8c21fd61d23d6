// In-memory values of finished materials, captures resolved, for the materials still to be built
// (and for verification). Two bits a position.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gen/huge_pages.hpp"
#include "gen/material_map.hpp"
#include "gen/men_index_cache.hpp"
#include "gen/zero_pages.hpp"

#include "index/position_index.hpp"
#include "rules/movegen.hpp"
#include "probe/format.hpp"
#include "probe/tablebase.hpp"

namespace dtb {

class PackedValues {
public:
    explicit PackedValues(std::uint64_t size)
        : positions_(size), bits_((size + 3) / 4) {}
    std::uint64_t positions() const { return positions_; }
    Value get(std::uint64_t i) const { return static_cast<Value>((bits_[i >> 2] >> ((i & 3) * 2)) & 3); }
    // get() while other threads store_range() elsewhere in the table (in a byte it shares with i).
    Value get_shared(std::uint64_t i) const {
        const std::uint8_t b = std::atomic_ref(const_cast<std::uint8_t&>(bits_[i >> 2])).load(std::memory_order_relaxed);
        return static_cast<Value>((b >> ((i & 3) * 2)) & 3);
    }
    void prefetch(std::uint64_t i) const { __builtin_prefetch(&bits_[i >> 2]); }
    // Not safe for two threads writing positions of the same byte (i / 4) at once.
    void set(std::uint64_t i, Value v) {
        auto& b = bits_[i >> 2];
        const int s = static_cast<int>(i & 3) * 2;
        b = static_cast<std::uint8_t>((b & ~(3 << s)) | (static_cast<int>(v) << s));
    }
    // Stores value_at(k) at position first + k for k = 0, 1, ... count - 1 (called in that order,
    // once each), where the table still holds what it was constructed with (Value::Loss, all bits
    // 0). Safe while other threads store other ranges or get_shared(): the bytes a range shares
    // with its neighbours are or-ed atomically.
    template <typename ValueAt>
    void store_range(std::uint64_t first, std::uint64_t count, ValueAt&& value_at) {
        const std::uint64_t end = first + count;
        for (std::uint64_t i = first; i < end;) {
            const std::uint64_t byte = i >> 2;
            const bool whole = byte * 4 >= first && byte * 4 + 4 <= end;
            std::uint8_t bits = 0;
            for (const std::uint64_t stop = std::min(end, byte * 4 + 4); i < stop; ++i)
                bits |= static_cast<std::uint8_t>(static_cast<unsigned>(value_at(i - first)) << ((i & 3) * 2));
            if (whole)
                bits_[byte] = bits;
            else
                std::atomic_ref(bits_[byte]).fetch_or(bits, std::memory_order_relaxed);
        }
    }
    std::uint64_t bytes() const { return bits_.size(); }
    // The packed bytes, as the builder's scratch copies keep them.
    std::span<const std::uint8_t> raw() const { return {bits_.data(), bits_.size()}; }
    std::span<std::uint8_t> raw() { return {bits_.data(), bits_.size()}; }

private:
    std::uint64_t positions_;
    ZeroPages<std::uint8_t> bits_;  // resident only where written
};

// Which positions of a material have a capture for the side to move, one bit each. The solvers
// know them; without them the writers would search every position for captures again.
class CaptureBits {
public:
    CaptureBits() = default;
    explicit CaptureBits(std::uint64_t positions)
        : positions_(positions), words_((positions + 63) / 64) {}

    bool known() const { return positions_ != 0; }
    std::uint64_t positions() const { return positions_; }
    std::uint64_t bytes() const { return words_.size() * sizeof(std::uint64_t); }
    bool test(std::uint64_t index) const { return (words_[index / 64] >> (index % 64)) & 1; }
    // The words' bytes (bit i of the table is bit i % 8 of byte i / 8), for scratch files.
    std::span<const std::uint8_t> raw() const {
        return {reinterpret_cast<const std::uint8_t*>(words_.data()), words_.size() * sizeof(std::uint64_t)};
    }
    // Sets the bits of word `word` that are set in `bits`; safe from several threads at once.
    void merge(std::uint64_t word, std::uint64_t bits) {
        if (bits) std::atomic_ref(words_[word]).fetch_or(bits, std::memory_order_relaxed);
    }
    // Sets the bits of [first, first + count) for which has_capture(k) holds, k counted from first.
    template <typename HasCapture>
    void merge_range(std::uint64_t first, std::uint64_t count, HasCapture&& has_capture) {
        std::uint64_t word = first / 64, bits = 0;
        for (std::uint64_t k = 0; k < count; ++k) {
            const std::uint64_t index = first + k;
            if (index / 64 != word) {
                merge(word, bits);
                word = index / 64, bits = 0;
            }
            if (has_capture(k)) bits |= std::uint64_t{1} << (index % 64);
        }
        merge(word, bits);
    }

private:
    std::uint64_t positions_ = 0;
    ZeroPages<std::uint64_t> words_;  // resident only where written
};

// Finished materials by material; lookups are lock-free once tables are added (adding is not
// thread-safe and happens between parallel phases).
class ValueTables {
public:

    bool contains(const Material& m) const { return slot(m) != nullptr; }
    void add(const Material& m, PackedValues values);
    // m's values are read from its finished file through `files` (a bounded block cache, capture
    // positions resolved by its search) instead of being held: for a pair whose inputs do not fit
    // in memory. Far slower a lookup; a lookup the files cannot answer throws std::runtime_error.
    void add_through_files(const Material& m, std::shared_ptr<const Tablebase> files);
    bool through_files(const Material& m) const {
        const Entry* e = slot(m);
        return e && e->files;
    }
    // Frees the table of m (nothing if it was not added).
    void remove(const Material& m);
    std::uint64_t bytes() const { return bytes_; }

    // The values of m by index (white to move), or nullptr if m has not been added (or is read
    // through files).
    const PackedValues* table(const Material& m) const {
        const Entry* e = slot(m);
        return e && !e->files ? &e->values : nullptr;
    }

    // m's values with their index, in one lookup; both null if m has not been added or is read
    // through files.
    struct Held {
        const PackedValues* values = nullptr;
        const PositionIndex* index = nullptr;
    };
    Held held(const Material& m) const {
        const Entry* e = slot(m);
        return e && !e->files ? Held{&e->values, &e->index} : Held{};
    }

    // Value for the side to move of a position whose material has been added.
    Value value_of(const Position& pos) const;

    // Value of a white-to-move position where white must capture (capturers:
    // capturing_pieces(white_to_move), not 0): the best capture, each looked up in (smaller)
    // finished materials.
    // `men_indices`, if given, is the calling thread's: it remembers men indices from one call to
    // the next (the first pass calls this for neighbouring positions).
    Value resolve_captures(const Position& white_to_move, Bitboard capturers, MenIndexCache* men_indices = nullptr) const;

    // Value for the side to move of `pos` implied by the values after `moves` (legal moves of
    // pos, all in added materials): a win if one wins, else a draw if one draws, else a loss.
    // The lookups of a few moves are issued together: each is a cache miss in a large table, and
    // misses that overlap cost one latency.
    Value best_after(const Position& pos, const MoveList& moves, MenIndexCache* men_indices = nullptr) const;

    // Value for the side that just moved of the position after `move` (captures, promotions and
    // moves into finished materials); `after` is apply_move's result, black to move.
    Value value_after(const Position& after) const;

private:
    struct Entry {
        PositionIndex index;
        PackedValues values;
        std::shared_ptr<const Tablebase> files;  // set for a table read through files: values is empty
    };
    // The value of `pos` (white to move, of e's material) for the side to move.
    static Value value_in(const Entry& e, const Position& pos, std::uint64_t index);
    const Entry* slot(const Material& m) const { return entries_.find(m); }
    const Entry& needed(const Material& m) const;

    MaterialMap<Entry> entries_;
    std::uint64_t bytes_ = 0;
};

}  // namespace dtb
