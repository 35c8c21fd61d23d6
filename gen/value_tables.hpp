// In-memory values of finished materials, captures resolved, for the materials still to be built
// (and for verification). Two bits a position.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gen/huge_pages.hpp"
#include "gen/material_map.hpp"

#include "index/position_index.hpp"
#include "rules/movegen.hpp"
#include "probe/format.hpp"

namespace dtb {

class PackedValues {
public:
    explicit PackedValues(std::uint64_t size) : bits_(vector_on_huge_pages<std::uint8_t>((size + 3) / 4, 0)) {}
    Value get(std::uint64_t i) const { return static_cast<Value>((bits_[i >> 2] >> ((i & 3) * 2)) & 3); }
    void prefetch(std::uint64_t i) const { __builtin_prefetch(&bits_[i >> 2]); }
    // Not safe for two threads writing positions of the same byte (i / 4) at once.
    void set(std::uint64_t i, Value v) {
        auto& b = bits_[i >> 2];
        const int s = static_cast<int>(i & 3) * 2;
        b = static_cast<std::uint8_t>((b & ~(3 << s)) | (static_cast<int>(v) << s));
    }
    std::uint64_t bytes() const { return bits_.size(); }
    // The packed bytes, as the builder's scratch copies keep them.
    std::span<const std::uint8_t> raw() const { return bits_; }
    std::span<std::uint8_t> raw() { return bits_; }

private:
    std::vector<std::uint8_t> bits_;
};

// Finished materials by material; lookups are lock-free once tables are added (adding is not
// thread-safe and happens between parallel phases).
class ValueTables {
public:

    bool contains(const Material& m) const { return slot(m) != nullptr; }
    void add(const Material& m, PackedValues values);
    // Frees the table of m (nothing if it was not added).
    void remove(const Material& m);
    std::uint64_t bytes() const { return bytes_; }

    // The values of m by index (white to move), or nullptr if m has not been added.
    const PackedValues* table(const Material& m) const {
        const Entry* e = slot(m);
        return e ? &e->values : nullptr;
    }

    // Value for the side to move of a position whose material has been added.
    Value value_of(const Position& pos) const;

    // Value of a white-to-move position where white must capture: the best capture, each
    // looked up in (smaller) finished materials.
    Value resolve_captures(const Position& white_to_move) const;

    // Value for the side to move of `pos` implied by the values after `moves` (legal moves of
    // pos, all in added materials): a win if one wins, else a draw if one draws, else a loss.
    // The lookups of a few moves are issued together: each is a cache miss in a large table, and
    // misses that overlap cost one latency.
    Value best_after(const Position& pos, const MoveList& moves) const;

    // Value for the side that just moved of the position after `move` (captures, promotions and
    // moves into finished materials); `after` is apply_move's result, black to move.
    Value value_after(const Position& after) const;

private:
    struct Entry {
        PositionIndex index;
        PackedValues values;
    };
    const Entry* slot(const Material& m) const { return entries_.find(m); }
    const Entry& needed(const Material& m) const;

    MaterialMap<Entry> entries_;
    std::uint64_t bytes_ = 0;
};

}  // namespace dtb
