// Slices of a material pair: the pair solved a range of men-advancement levels at a time, from
// the most advanced down, so that the solver holds one slice's values instead of the whole pair's.
// A man move raises the advancement by exactly one, so a slice reads, of its own pair, only the
// lowest level of the slice solved before it (its boundary); everything else it reads is finished
// smaller materials. Each solved slice goes to a scratch file (gen/chunked_file.hpp); when all are
// there, the pair's database files are written from them, byte for byte those of a whole-pair solve.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gen/pair_layout.hpp"
#include "gen/value_tables.hpp"

namespace dtb {

// Which men configurations of one side a solver holds, and where their positions start in its
// arrays: all of them, by position index, or those of a sorted list, one after another.
class HeldConfigs {
public:
    static constexpr std::uint64_t kNotHeld = ~std::uint64_t{0};
    static HeldConfigs all(const PositionIndex& index) {
        HeldConfigs h({}, index.king_placements());
        h.all_ = index.men_configs();
        return h;
    }
    HeldConfigs(std::vector<std::uint64_t> sorted_men_indices, std::uint64_t king_placements)
        : men_(std::move(sorted_men_indices)), king_placements_(king_placements) {
        for (std::size_t i = 0; i < men_.size(); i += kSampleEvery) samples_.push_back(men_[i]);
    }

    std::uint64_t positions() const { return (all_ ? all_ : men_.size()) * king_placements_; }
    std::uint64_t king_placements() const { return king_placements_; }
    // The sorted list (empty when all configurations are held).
    const std::vector<std::uint64_t>& men_indices() const { return men_; }
    // Where the positions of configuration men_index start, or kNotHeld.
    std::uint64_t base(std::uint64_t men_index) const {
        if (all_) return men_index < all_ ? men_index * king_placements_ : kNotHeld;
        // The sample of every kSampleEvery-th entry, small enough to stay cached, names the run
        // of the list to search: in a slice without kings (a configuration a position, millions
        // of them) each value looked up searched the whole list, a cache miss a step.
        const auto after = std::upper_bound(samples_.begin(), samples_.end(), men_index);
        if (after == samples_.begin()) return kNotHeld;
        const auto from = men_.begin() + (after - samples_.begin() - 1) * static_cast<std::ptrdiff_t>(kSampleEvery);
        const auto to = men_.end() - from > static_cast<std::ptrdiff_t>(kSampleEvery) ? from + kSampleEvery : men_.end();
        const auto it = std::lower_bound(from, to, men_index);
        if (it == to || *it != men_index) return kNotHeld;
        return static_cast<std::uint64_t>(it - men_.begin()) * king_placements_;
    }

private:
    static constexpr std::size_t kSampleEvery = 64;
    std::uint64_t all_ = 0;  // the number of configurations when all are held, else 0
    std::vector<std::uint64_t> men_;
    std::vector<std::uint64_t> samples_;  // men_[0], men_[kSampleEvery], ...
    std::uint64_t king_placements_;
};

// The values of some configurations of one side of a pair, as a solver holds them.
struct HeldValues {
    HeldConfigs configs;
    PackedValues values;
    CaptureBits captures;  // empty for a boundary, whose capture positions nobody asks about
};

// A solved slice, per side of the pair: its configurations' values and capture bits.
struct SolvedSlice {
    Slice slice;
    std::vector<HeldValues> sides;
    std::vector<std::vector<std::uint64_t>> lowest_men;  // per side: the configurations of its lowest level
};


// The slices of the pair of m: `count` ranges of levels (fewer if it has fewer levels with
// positions), from the most advanced down, with about equal numbers of positions.
std::vector<LevelRange> slice_levels(const Material& m, int count);

// The slices of the pair of m for `count`: slice_levels(m, count) where the pair has at least
// `count` levels (or no men); otherwise a slice a level, each cut into parts, about `count` slices
// of about equal positions in all, from the most advanced level down.
std::vector<Slice> pair_slices(const Material& m, int count);

// Slice `step` (1 for the most advanced) of pair_slices(m, count); std::invalid_argument when the
// pair has fewer slices (a kings-only pair has one, whatever the count).
Slice slice_at_step(const Material& m, int count, int step);

// The slices of `slices` whose values slices[k] reads as its boundary: those whose lowest level is
// just above its highest (one slice, or the parts of one level).
std::vector<Slice> slices_above(const std::vector<Slice>& slices, std::size_t k);

// An upper bound of the positions of the boundary of `slice` (of pair_slices(m, ...)), from the
// positions by level alone: a part reaches at most two configurations a man of the side to move
// (in the level above), a range of levels the whole level above.
std::uint64_t boundary_positions_bound(const Material& m, const Slice& slice, const std::vector<std::uint64_t>& by_level);

// The positions of `slice`, from the pair's positions by level (pair_positions_by_level): a part
// holds its share of its level (the parts cut a level's subgames, of about equal sizes).
std::uint64_t slice_positions(const Slice& slice, const std::vector<std::uint64_t>& by_level);

// Bytes the WDL solver holds for `slice` besides the cells of its largest subgame: the value and
// capture bit of each of its positions (3 bits), its boundary (2 bits a position, at most
// boundary_positions_bound), and the lists of their configurations (PairLayout::subgame_list_bytes,
// block_list_bytes).
std::uint64_t slice_solver_bytes(const Material& m, const Slice& slice, const std::vector<std::uint64_t>& by_level);

// The scratch files of the slices of one pair, in DIR/.dtb-slices. A file's tag names the pair
// and its levels, so a file is only taken for the slice it was written for.
class SliceFiles {
public:
    SliceFiles(const std::filesystem::path& db_dir, const Material& m);

    std::filesystem::path path(const Slice& slice) const;
    // Whether the slice's file is there and complete.
    bool finished(const Slice& slice) const;
    // Writes the slice's file: its values and capture bits, and separately its lowest level's
    // values, the boundary of the slices below. Throws std::runtime_error naming the file on failure.
    void write(const SolvedSlice& slice) const;
    // A boundary: the values of the configurations `men` (per side, sorted) from the files of
    // `above` (slices_above), which must hold them all.
    std::vector<HeldValues> read_boundary(const std::vector<Slice>& above, std::vector<std::vector<std::uint64_t>> men,
                                          const PairLayout& layout) const;
    // Value bytes (SolvedMaterial::value_byte) of side `side` of the pair, positions 0, 1, ... in
    // order, from the files of `slices` (which must cover every level): for the writer, streamed.
    std::function<void(std::uint64_t first, std::span<std::uint8_t> out)> value_stream(
        const std::vector<Slice>& slices, const PairLayout& layout, int side) const;
    // Removes the pair's slice files (its database files are written).
    void remove_all() const;

private:
    std::uint64_t tag(const Slice& slice) const;
    std::filesystem::path dir_;
    std::string name_;
};

}  // namespace dtb
