#include "gen/slices.hpp"

#include <algorithm>
#include <bit>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>

#include <sys/resource.h>
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
        buffer_.resize(std::min<std::uint64_t>(left, std::size_t{64} << 10));
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

// A part of sorted men indices, read in order a buffer at a time: the writer of a pair holds one
// per slice, and a pair without kings has as many configurations as positions.
class MenStream {
public:
    MenStream(const fs::path& path, std::size_t part, std::uint64_t tag)
        : reader_(path, part, tag), left_(reader_.size() / sizeof(std::uint64_t)) {
        if (reader_.size() % sizeof(std::uint64_t) != 0) throw DamagedScratchFile(path.string() + ": a list of configurations cut short");
        refill();
    }
    bool done() const { return at_ == buffer_.size(); }
    std::uint64_t front() const { return buffer_[at_]; }
    void pop() {
        if (++at_ == buffer_.size()) refill();
    }

private:
    void refill() {
        buffer_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(left_, 4096)));
        reader_.read({reinterpret_cast<std::uint8_t*>(buffer_.data()), buffer_.size() * sizeof(std::uint64_t)});
        left_ -= buffer_.size();
        at_ = 0;
    }
    ChunkedPartReader reader_;
    std::uint64_t left_;
    std::vector<std::uint64_t> buffer_;
    std::size_t at_ = 0;
};

// One slice's side, read in configuration order.
struct SliceCursor {
    MenStream men;
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

std::vector<Slice> pair_slices(const Material& m, int count) {
    const std::vector<std::uint64_t> positions = pair_positions_by_level(m);
    std::vector<Slice> out;
    if (m.men() == 0 || count <= static_cast<int>(positions.size())) {
        for (const LevelRange& r : slice_levels(m, count)) out.push_back({r});
        return out;
    }
    // Parts handed out one at a time to the level whose parts are largest (ties: the more
    // advanced), at most one a configuration: exactly `count` slices unless every level is cut to
    // its configurations, and a task given the number of slices made finds the same ones.
    const std::vector<std::uint64_t> configs = men_configs_by_advancement(m);
    std::vector<int> parts(positions.size(), 0);
    int given = 0;
    for (std::size_t l = 0; l < positions.size(); ++l)
        if (positions[l] > 0) {
            parts[l] = 1;
            ++given;
        }
    for (; given < count; ++given) {
        std::optional<std::size_t> next;
        for (std::size_t l = positions.size(); l-- > 0;) {
            if (parts[l] == 0 || static_cast<std::uint64_t>(parts[l]) >= configs[l]) continue;
            // positions[l] / parts[l] > positions[*next] / parts[*next], without rounding
            if (!next || static_cast<unsigned __int128>(positions[l]) * static_cast<unsigned>(parts[*next]) >
                             static_cast<unsigned __int128>(positions[*next]) * static_cast<unsigned>(parts[l]))
                next = l;
        }
        if (!next) break;
        ++parts[*next];
    }
    for (int l = static_cast<int>(positions.size()) - 1; l >= 0; --l) {
        const int n = parts[static_cast<std::size_t>(l)];
        for (int part = 0; part < n; ++part) out.push_back({{l, l}, n > 1 ? part : 0, n});
    }
    return out;
}

Slice slice_at_step(const Material& m, int count, int step) {
    const std::vector<Slice> slices = pair_slices(m, count);
    if (step < 1 || step > static_cast<int>(slices.size()))
        throw std::invalid_argument("the pair of " + m.name() + " has " + std::to_string(slices.size()) + " slices, not a slice " +
                                    std::to_string(step));
    return slices[static_cast<std::size_t>(step - 1)];
}

std::vector<Slice> slices_above(const std::vector<Slice>& slices, std::size_t k) {
    std::vector<Slice> out;
    for (const Slice& s : slices)
        if (s.levels.lowest == slices[k].levels.highest + 1) out.push_back(s);
    return out;
}

std::uint64_t boundary_positions_bound(const Material& m, const Slice& slice, const std::vector<std::uint64_t>& by_level) {
    const auto above = static_cast<std::size_t>(slice.levels.highest + 1);
    if (above >= by_level.size()) return 0;
    if (slice.parts == 1) return by_level[above];
    // A subgame's block of one side reaches at most two configurations of the other side a man of
    // the side to move: at most 2 * men * (the larger block) / (the subgame) a position.
    const std::uint64_t k0 = PositionIndex(m).king_placements();
    const std::uint64_t k1 = m.is_symmetric() ? k0 : PositionIndex(m.mirror()).king_placements();
    const std::uint64_t part = slice_positions(slice, by_level);
    const auto reach = static_cast<double>(part) * 2.0 * m.men() * static_cast<double>(std::max(k0, k1)) / static_cast<double>(k0 + k1);
    return std::min(by_level[above], static_cast<std::uint64_t>(reach));
}

std::uint64_t slice_positions(const Slice& slice, const std::vector<std::uint64_t>& by_level) {
    std::uint64_t out = 0;
    const auto part = static_cast<unsigned __int128>(slice.part), parts = static_cast<unsigned __int128>(slice.parts);
    for (int l = slice.levels.lowest; l <= slice.levels.highest; ++l) {
        const unsigned __int128 level = by_level[static_cast<std::size_t>(l)];
        out += static_cast<std::uint64_t>(level * (part + 1) / parts - level * part / parts);
    }
    return out;
}

std::uint64_t slice_solver_bytes(const Material& m, const Slice& slice, const std::vector<std::uint64_t>& by_level) {
    const std::uint64_t own = slice_positions(slice, by_level), boundary = boundary_positions_bound(m, slice, by_level);
    // The boundary's list of configurations is read while the one asked for is still held.
    return own * 3 / 8 + boundary / 4 + PairLayout::subgame_list_bytes(m, own) + PairLayout::block_list_bytes(m, own) +
           2 * PairLayout::block_list_bytes(m, boundary);
}

SliceFiles::SliceFiles(const fs::path& db_dir, const Material& m) : dir_(db_dir / ".dtb-slices"), name_(m.name()) {}

fs::path SliceFiles::path(const Slice& slice) const {
    std::string name = name_ + ".levels-" + std::to_string(slice.levels.lowest) + "-" + std::to_string(slice.levels.highest);
    if (slice.parts > 1) name += ".part-" + std::to_string(slice.part + 1) + "-of-" + std::to_string(slice.parts);
    return dir_ / name;
}

std::uint64_t SliceFiles::tag(const Slice& slice) const {
    const std::string what = "dtb slice 1 " + path(slice).filename().string();
    return XXH64(what.data(), what.size(), 0);
}

bool SliceFiles::finished(const Slice& slice) const {
    const auto info = read_chunked_info(path(slice));
    return info && info->tag == tag(slice);
}

void SliceFiles::write(const SolvedSlice& slice) const {
    fs::create_directories(dir_);
    const Slice& s = slice.slice;
    const auto& lowest_men = slice.lowest_men;
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
    write_chunked_file(path(s), parts, tag(s));
}

std::vector<HeldValues> SliceFiles::read_boundary(const std::vector<Slice>& above,
                                                  std::vector<std::vector<std::uint64_t>> men,
                                                  const PairLayout& layout) const {
    std::vector<HeldValues> out;
    for (int side = 0; side < layout.side_count(); ++side) {
        const std::uint64_t kings = layout.index(side).king_placements();
        HeldConfigs configs(std::move(men[static_cast<std::size_t>(side)]), kings);
        PackedValues values(configs.positions());
        std::uint64_t found = 0;
        std::vector<std::uint8_t> items;
        for (const Slice& s : above) {
            // Every configuration of the file's lowest level is read through; the needed ones kept.
            const fs::path file = path(s);
            const std::vector<std::uint64_t> lowest = read_men(file, side, kLowestMen, tag(s));
            // A file holding none of the configurations needed is not read through (the parts of a level).
            if (std::none_of(lowest.begin(), lowest.end(), [&](std::uint64_t c) { return configs.base(c) != HeldConfigs::kNotHeld; }))
                continue;
            if (ChunkedPartReader(file, part_of(side, kLowestValues), tag(s)).size() != (lowest.size() * kings + 3) / 4)
                throw DamagedScratchFile(file.string() + ": boundary of another size");
            ItemStream stream(file, part_of(side, kLowestValues), tag(s), 2);
            for (const std::uint64_t c : lowest) {
                const std::uint64_t base = configs.base(c);
                found += base != HeldConfigs::kNotHeld;
                for (std::uint64_t k = 0; k < kings;) {
                    items.assign(std::min<std::uint64_t>(kings - k, std::uint64_t{1} << 20), 0);
                    stream.or_into(items, 0);
                    if (base != HeldConfigs::kNotHeld)
                        for (std::size_t j = 0; j < items.size(); ++j) values.set(base + k + j, static_cast<Value>(items[j]));
                    k += items.size();
                }
            }
        }
        if (found != configs.men_indices().size())
            throw DamagedScratchFile(dir_.string() + ": the slice files above " + name_ + " lack configurations of its boundary");
        out.push_back({std::move(configs), std::move(values), CaptureBits()});
    }
    return out;
}

std::function<void(std::uint64_t, std::span<std::uint8_t>)> SliceFiles::value_stream(
    const std::vector<Slice>& slices, const PairLayout& layout, int side) const {
    // Three open files a slice: hundreds of slices may pass the usual soft limit of 1024.
    if (rlimit files{}; ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &files);
    }
    // The cursors by the configuration each reads next, the smallest first: every configuration of
    // the side is in one slice, so the next one asked for is the smallest.
    using Next = std::pair<std::uint64_t, std::size_t>;
    struct State {
        std::vector<std::unique_ptr<SliceCursor>> cursors;
        std::priority_queue<Next, std::vector<Next>, std::greater<>> by_next;
        std::uint64_t kings = 0, next = 0;
        SliceCursor* current = nullptr;
    };
    auto state = std::make_shared<State>();
    state->kings = layout.index(side).king_placements();
    for (const Slice& slice : slices) {
        const fs::path file = path(slice);
        state->cursors.push_back(std::make_unique<SliceCursor>(SliceCursor{
            MenStream(file, part_of(side, kMen), tag(slice)), ItemStream(file, part_of(side, kValues), tag(slice), 2),
            ItemStream(file, part_of(side, kCaptures), tag(slice), 1)}));
        if (!state->cursors.back()->men.done()) state->by_next.push({state->cursors.back()->men.front(), state->cursors.size() - 1});
    }
    return [state, name = path(slices.front()).string()](std::uint64_t first, std::span<std::uint8_t> out) {
        if (first != state->next) throw std::logic_error("slice values are streamed in order only");
        std::fill(out.begin(), out.end(), 0);
        while (!out.empty()) {
            const std::uint64_t k = state->next % state->kings;
            if (k == 0) {  // the next configuration: the slice that holds it
                const std::uint64_t men = state->next / state->kings;
                if (state->by_next.empty() || state->by_next.top().first != men)
                    throw DamagedScratchFile("the slice files of " + name + " hold no values of configuration " +
                                             std::to_string(men));
                const std::size_t c = state->by_next.top().second;
                state->by_next.pop();
                state->current = state->cursors[c].get();
                state->current->men.pop();
                if (!state->current->men.done()) state->by_next.push({state->current->men.front(), c});
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
