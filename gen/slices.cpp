#include "gen/slices.hpp"

#include <algorithm>
#include <bit>
#include <memory>
#include <stdexcept>

#include <xxhash.h>

#include "gen/chunked_file.hpp"
#include "gen/solver.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;

// A slice file's parts, per side of the pair, side after side.
enum Part : std::size_t { kMen, kValues, kCaptures, kLowestMen, kLowestValues, kPartsPerSide };

std::size_t part_of(int side, Part p) { return static_cast<std::size_t>(side) * kPartsPerSide + p; }

template <typename T>
std::span<const std::uint8_t> bytes_of(const std::vector<T>& v) {
    return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(T)};
}

std::vector<std::uint64_t> read_men(const fs::path& path, int side, Part part, std::uint64_t tag) {
    ChunkedPartReader reader(path, part_of(side, part), tag);
    std::vector<std::uint64_t> men(reader.size() / sizeof(std::uint64_t));
    reader.read({reinterpret_cast<std::uint8_t*>(men.data()), men.size() * sizeof(std::uint64_t)});
    return men;
}

// Items of `bits` bits (1 or 2) of a part, in order, least significant first in each byte.
class ItemStream {
public:
    ItemStream(const fs::path& path, std::size_t part, std::uint64_t tag, int bits)
        : reader_(path, part, tag), bits_(bits), per_byte_(8 / bits) {}
    // Ors the next out.size() items, shifted left by `shift`, into out.
    void or_into(std::span<std::uint8_t> out, int shift) {
        const unsigned mask = (1u << bits_) - 1;
        for (std::size_t j = 0; j < out.size();) {
            if (item_ == per_byte_ * buffer_.size()) refill();
            const std::size_t end = std::min(out.size(), j + per_byte_ * buffer_.size() - item_);
            for (; j < end; ++j, ++item_)
                out[j] |= static_cast<std::uint8_t>(((buffer_[item_ / per_byte_] >> ((item_ % per_byte_) * bits_)) & mask) << shift);
        }
    }

private:
    void refill() {
        const std::uint64_t left = reader_.size() - read_;
        if (left == 0) throw DamagedScratchFile("a slice file ends early");
        buffer_.resize(std::min<std::uint64_t>(left, std::size_t{1} << 20));
        reader_.read(buffer_);
        read_ += buffer_.size();
        item_ = 0;
    }
    ChunkedPartReader reader_;
    int bits_;
    std::size_t per_byte_;
    std::vector<std::uint8_t> buffer_;
    std::uint64_t read_ = 0;
    std::size_t item_ = 0;
};

// One slice's side, read in configuration order.
struct SliceCursor {
    std::vector<std::uint64_t> men;
    std::size_t next_config = 0;
    ItemStream values, captures;
};

}  // namespace

std::vector<LevelRange> slice_levels(const Material& m, int count) {
    const std::vector<std::uint64_t> positions = pair_positions_by_level(m);
    std::uint64_t total = 0;
    for (const std::uint64_t p : positions) total += p;
    std::vector<LevelRange> out;
    int highest = static_cast<int>(positions.size()) - 1;
    std::uint64_t taken = 0, since_cut = 0;
    for (int l = highest; l >= 0; --l) {
        taken += positions[static_cast<std::size_t>(l)];
        since_cut += positions[static_cast<std::size_t>(l)];
        const auto made = static_cast<std::uint64_t>(out.size()) + 1;
        // Cut once this slice brings the total to its share; the last slice takes what is left.
        if (l > 0 && since_cut > 0 && static_cast<int>(made) < count && taken * static_cast<std::uint64_t>(count) >= made * total) {
            out.push_back({l, highest});
            highest = l - 1;
            since_cut = 0;
        }
    }
    out.push_back({0, highest});
    return out;
}

LevelRange slice_at_step(const Material& m, int count, int step) {
    const std::vector<LevelRange> slices = slice_levels(m, count);
    if (step < 1 || step > static_cast<int>(slices.size()))
        throw std::invalid_argument("the pair of " + m.name() + " has " + std::to_string(slices.size()) + " slices, not a slice " +
                                    std::to_string(step));
    return slices[static_cast<std::size_t>(step - 1)];
}

SliceFiles::SliceFiles(const fs::path& db_dir, const Material& m) : dir_(db_dir / ".dtb-slices"), name_(m.name()) {}

fs::path SliceFiles::path(const LevelRange& levels) const {
    return dir_ / (name_ + ".levels-" + std::to_string(levels.lowest) + "-" + std::to_string(levels.highest));
}

std::uint64_t SliceFiles::tag(const LevelRange& levels) const {
    const std::string what = "dtb slice 1 " + path(levels).filename().string();
    return XXH64(what.data(), what.size(), 0);
}

bool SliceFiles::finished(const LevelRange& levels) const {
    const auto info = read_chunked_info(path(levels));
    return info && info->tag == tag(levels);
}

void SliceFiles::write(const SolvedSlice& slice, const PairLayout& layout) const {
    fs::create_directories(dir_);
    const auto lowest_men = layout.men_indices_in({slice.levels.lowest, slice.levels.lowest});
    std::vector<PackedValues> lowest;
    std::vector<std::span<const std::uint8_t>> parts;
    lowest.reserve(slice.sides.size());
    for (std::size_t side = 0; side < slice.sides.size(); ++side) {
        const HeldValues& own = slice.sides[side];
        const std::uint64_t kings = own.configs.king_placements();
        PackedValues& low = lowest.emplace_back(lowest_men[side].size() * kings);
        for (std::size_t j = 0; j < lowest_men[side].size(); ++j) {
            const std::uint64_t base = own.configs.base(lowest_men[side][j]);
            for (std::uint64_t k = 0; k < kings; ++k) low.set(j * kings + k, own.values.get(base + k));
        }
        const std::span<const std::uint8_t> side_parts[kPartsPerSide] = {
            bytes_of(own.configs.men_indices()), own.values.raw(), own.captures.raw(), bytes_of(lowest_men[side]),
            low.raw()};
        parts.insert(parts.end(), std::begin(side_parts), std::end(side_parts));
    }
    write_chunked_file(path(slice.levels), parts, tag(slice.levels));
}

std::vector<HeldValues> SliceFiles::read_boundary(const LevelRange& above, const PairLayout& layout) const {
    const fs::path file = path(above);
    std::vector<HeldValues> out;
    for (int side = 0; side < layout.side_count(); ++side) {
        std::vector<std::uint64_t> men = read_men(file, side, kLowestMen, tag(above));
        HeldConfigs configs(std::move(men), layout.index(side).king_placements());
        PackedValues values(configs.positions());
        ChunkedPartReader reader(file, part_of(side, kLowestValues), tag(above));
        if (reader.size() != values.bytes()) throw DamagedScratchFile(file.string() + ": boundary of another size");
        reader.read(values.raw());
        out.push_back({std::move(configs), std::move(values), CaptureBits()});
    }
    return out;
}

std::function<void(std::uint64_t, std::span<std::uint8_t>)> SliceFiles::value_stream(
    const std::vector<LevelRange>& slices, const PairLayout& layout, int side) const {
    struct State {
        std::vector<std::unique_ptr<SliceCursor>> cursors;
        std::uint64_t kings = 0, next = 0;
        SliceCursor* current = nullptr;
    };
    auto state = std::make_shared<State>();
    state->kings = layout.index(side).king_placements();
    for (const LevelRange& levels : slices) {
        const fs::path file = path(levels);
        state->cursors.push_back(std::make_unique<SliceCursor>(SliceCursor{
            read_men(file, side, kMen, tag(levels)), 0, ItemStream(file, part_of(side, kValues), tag(levels), 2),
            ItemStream(file, part_of(side, kCaptures), tag(levels), 1)}));
    }
    return [state, name = path(slices.front()).string()](std::uint64_t first, std::span<std::uint8_t> out) {
        if (first != state->next) throw std::logic_error("slice values are streamed in order only");
        std::fill(out.begin(), out.end(), 0);
        while (!out.empty()) {
            const std::uint64_t k = state->next % state->kings;
            if (k == 0) {  // the next configuration: the slice that holds it
                const std::uint64_t men = state->next / state->kings;
                state->current = nullptr;
                for (const auto& c : state->cursors)
                    if (c->next_config < c->men.size() && c->men[c->next_config] == men) state->current = c.get();
                if (!state->current)
                    throw DamagedScratchFile("the slice files of " + name + " hold no values of configuration " +
                                             std::to_string(men));
                ++state->current->next_config;
            }
            const std::span<std::uint8_t> part = out.first(std::min<std::uint64_t>(out.size(), state->kings - k));
            state->current->values.or_into(part, 0);
            state->current->captures.or_into(part, std::countr_zero(unsigned{kCaptureFlag}));
            state->next += part.size();
            out = out.subspan(part.size());
        }
    };
}

void SliceFiles::remove_all() const {
    std::error_code ignored;
    std::vector<fs::path> ours;  // listed first: removing while iterating may skip entries
    for (const auto& entry : fs::directory_iterator(dir_, ignored))
        if (entry.path().filename().string().starts_with(name_ + ".levels-")) ours.push_back(entry.path());
    for (const fs::path& p : ours) fs::remove(p, ignored);
    fs::remove(dir_, ignored);  // only if empty
}

}  // namespace dtb
