#include "gen/loader.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "gen/huge_pages.hpp"
#include "probe/table_file.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"

namespace dtb {

namespace fs = std::filesystem;

namespace {

// Opens a finished file of material `m` and checks that its header describes that material.
std::unique_ptr<TableFile> open_finished(const fs::path& path, const Material& m, format::FileKind kind) {
    auto file = std::make_unique<TableFile>(path, kind);
    const format::Header& h = file->header();
    if (h.material != m || h.positions != PositionIndex(m).size())
        throw TableError(file->path().string() + ": header does not match material " + m.name());
    return file;
}

// Calls visit(first position, positions, block bytes, block number) for every block of the file,
// reading (and checking) the blocks in parallel.
template <typename Visit>
void for_each_block(const TableFile& file, Visit&& visit) {
    const format::Header& h = file.header();
    tbb::parallel_for(std::uint64_t{0}, h.block_count, [&](std::uint64_t b) {
        std::vector<std::uint8_t> block;
        file.read_block(b, block);
        const std::uint64_t first = b * h.positions_per_block;
        visit(first, std::min<std::uint64_t>(h.positions_per_block, h.positions - first), block.data(), b);
    });
}

// Calls visit(index, position, block bytes, offset in block, block number) for every position of
// the file, reading (and checking) the blocks in parallel.
template <typename Visit>
void for_each_stored(const TableFile& file, const PositionIndex& index, Visit&& visit) {
    for_each_block(file, [&](std::uint64_t first, std::uint64_t count, const std::uint8_t* block, std::uint64_t b) {
        PositionWalker walker(index, first);
        for (std::uint64_t j = 0; j < count; ++j) {
            if (j > 0) walker.next();
            visit(first + j, walker.current(), block, j, b);
        }
    });
}

// The stored values of a WDL file, each checked; at a capture position (don't-care in the file),
// capture_value(position, stored value) instead.
template <typename CaptureValue>
std::vector<std::uint8_t> read_values(const fs::path& dir, const Material& m, CaptureValue&& capture_value) {
    const auto file = open_finished(dir / format::wdl_file_name(m), m, format::FileKind::Wdl);
    auto values = vector_on_huge_pages<std::uint8_t>(file->header().positions, 0);
    for_each_stored(*file, PositionIndex(m), [&](std::uint64_t i, const Position& pos, const std::uint8_t* block,
                                                 std::uint64_t j, std::uint64_t b) {
        const Value v = format::unpack_value(block, j);
        if (v == Value::Unknown) throw TableError(file->path().string() + ": invalid value in block " + std::to_string(b));
        values[i] = has_capture(pos) ? capture_value(pos, v) : static_cast<std::uint8_t>(v);
    });
    return values;
}

}  // namespace

std::vector<std::uint8_t> read_solver_values(const fs::path& dir, const Material& m) {
    return read_values(dir, m, [](const Position&, Value stored) {
        return static_cast<std::uint8_t>(static_cast<std::uint8_t>(stored) | kCaptureFlag);
    });
}

// Straight into two bits a position: a byte a position first would take four times the table.
void load_finished(const fs::path& dir, const Material& m, ValueTables& tables, const FileReadHook& reading) {
    if (reading) reading(dir / format::wdl_file_name(m));
    const auto file = open_finished(dir / format::wdl_file_name(m), m, format::FileKind::Wdl);
    const PositionIndex index(m);
    PackedValues values(file->header().positions);
    for_each_block(*file, [&](std::uint64_t first, std::uint64_t count, const std::uint8_t* block, std::uint64_t b) {
        PositionWalker walker(index, first);
        MenIndexCache men_indices;
        values.store_range(first, count, [&](std::uint64_t j) {
            if (j > 0) walker.next();
            const Value v = format::unpack_value(block, j);
            if (v == Value::Unknown)
                throw TableError(file->path().string() + ": invalid value in block " + std::to_string(b));
            const Bitboard capturers = capturing_pieces(walker.current());
            return capturers ? tables.resolve_captures(walker.current(), capturers, &men_indices) : v;
        });
    });
    tables.add(m, std::move(values));
}

namespace {

// A win of a losses-only file before its distance is derived (odd, so it reads as a win, and
// beyond every real distance).
constexpr Dtw kWinToDerive = kDtwDraw - 2;

// One .dtw file read into memory: what it stores, draws from the WDL values, capture positions
// resolved through `dtw`; in a losses-only file the wins are kWinToDerive.
struct LoadedDtw {
    std::unique_ptr<TableFile> file;
    std::vector<Dtw> dtw;
};

LoadedDtw read_dtw_file(const fs::path& dir, const Material& m, const ValueTables& wdl, const DtwTables& dtw) {
    LoadedDtw out{open_finished(dir / format::dtw_file_name(m), m, format::FileKind::Dtw), {}};
    const format::Header& h = out.file->header();
    const std::string& path = out.file->path().string();
    out.dtw = vector_on_huge_pages<Dtw>(h.positions, 0);
    for_each_stored(*out.file, PositionIndex(m), [&](std::uint64_t i, const Position& pos, const std::uint8_t* block,
                                                     std::uint64_t j, std::uint64_t b) {
        const Value v = wdl.value_of(pos);
        if (const Bitboard capturers = capturing_pieces(pos)) {
            out.dtw[i] = dtw.resolve_captures(pos, capturers);  // don't-care in the file
            if (dtw_value(out.dtw[i]) != v)
                throw TableError(path + ": capture search disagrees with the WDL value at " + to_fen(pos));
            return;
        }
        if (v == Value::Draw) {
            out.dtw[i] = kDtwDraw;
            return;
        }
        if (v == Value::Win && !h.dtw_stores_wins()) {
            out.dtw[i] = kWinToDerive;
            return;
        }
        const std::uint32_t half = format::unpack_dtw_half(block, j, h.dtw_width());
        const std::uint32_t d = v == Value::Win ? 2 * half + 1 : 2 * half;
        if (d > h.max_dtw)
            throw TableError(path + ": block " + std::to_string(b) + " holds a DTW beyond the header's longest");
        out.dtw[i] = static_cast<Dtw>(d);
    });
    return out;
}

// The DTW of a won position without a capture: 1 + the shortest DTW of a position after a move
// that is lost for the opponent; kDtwDraw if there is none.
Dtw derive_win(const Position& pos, const ValueTables& wdl, const DtwTables& dtw) {
    Dtw shortest = kDtwDraw;
    for (const Move& mv : generate_quiet_moves(pos)) {
        const Position after = apply_move(pos, mv);
        if (wdl.value_after(after) == Value::Win) shortest = std::min(shortest, dtw.dtw_after(after));
    }
    return shortest == kDtwDraw ? kDtwDraw : dtw_plus_one(shortest);
}

// The header's longest distances, gathered over some positions: the longest distance without a
// capture, the longest win and its first position.
struct Longest {
    std::uint32_t quiet = 0, win = 0;
    std::uint64_t win_index = 0;

    void add(std::uint64_t i, Dtw d, bool capture) {
        if (d == kDtwDraw) return;
        if (dtw_is_win(d) && d > win) win = d, win_index = i;
        if (!capture) quiet = std::max<std::uint32_t>(quiet, d);
    }
    static Longest join(Longest a, const Longest& b) {
        a.quiet = std::max(a.quiet, b.quiet);
        if (b.win > a.win || (b.win == a.win && b.win_index < a.win_index)) a.win = b.win, a.win_index = b.win_index;
        return a;
    }
};

// Replaces the kWinToDerive of `m` (already in `dtw`) by the wins' distances, and checks them
// against the file's header, which the writer filled from every distance. One pass: a win's
// distance depends only on losses, which are never replaced.
void derive_wins(const TableFile& file, const Material& m, const ValueTables& wdl, DtwTables& dtw) {
    const format::Header& h = file.header();
    const std::string& path = file.path().string();
    const PositionIndex index(m);
    const Longest found = tbb::parallel_reduce(
        tbb::blocked_range<std::uint64_t>(0, h.positions, 4096), Longest{},
        [&](const auto& r, Longest longest) {
            PositionWalker walker(index, r.begin());
            for (std::uint64_t i = r.begin(); i != r.end(); ++i) {
                if (i != r.begin()) walker.next();
                Dtw d = dtw.table(m)->at(i);
                if (d == kWinToDerive) {
                    d = derive_win(walker.current(), wdl, dtw);
                    if (!dtw_is_win(d) || d > h.max_dtw)
                        throw TableError(path + ": the won position " + to_fen(walker.current()) +
                                         " has no lost position after a move within the header's longest DTW");
                    dtw.set(m, i, d);
                }
                longest.add(i, d, has_capture(walker.current()));
            }
            return longest;
        },
        Longest::join);
    if (found.quiet != h.max_dtw || found.win != h.longest_win || found.win_index != h.longest_win_index)
        throw TableError(path + ": the distances found do not match the header's longest");
}

}  // namespace

void load_finished_dtw_pair(const fs::path& dir, const Material& m, const ValueTables& wdl, DtwTables& dtw,
                            const FileReadHook& reading) {
    std::vector<Material> sides = {m};
    if (m.mirror() != m) sides.push_back(m.mirror());
    std::erase_if(sides, [&](const Material& side) { return dtw.contains(side); });
    try {
        std::vector<std::unique_ptr<TableFile>> to_derive(sides.size());
        for (std::size_t k = 0; k < sides.size(); ++k) {
            if (reading) reading(dir / format::dtw_file_name(sides[k]));
            LoadedDtw loaded = read_dtw_file(dir, sides[k], wdl, dtw);
            if (!loaded.file->header().dtw_stores_wins()) to_derive[k] = std::move(loaded.file);
            dtw.add(sides[k], std::move(loaded.dtw));
        }
        // Both sides' losses are in `dtw` now: a move from one lands in the other.
        for (std::size_t k = 0; k < sides.size(); ++k)
            if (to_derive[k]) derive_wins(*to_derive[k], sides[k], wdl, dtw);
    } catch (...) {
        for (const Material& side : sides) dtw.remove(side);  // never leave a table with wins still to derive
        throw;
    }
}

// Promotion targets of m are not loaded with it: only solving m needs them (the builder loads
// them then), and at 6 pieces their chains of promotions hold most of the positions.
void load_finished_with_successors(const fs::path& dir, const Material& m, ValueTables& tables,
                                   const LoadHooks& hooks) {
    if (tables.contains(m) || (hooks.restore && hooks.restore(m, false))) return;
    for (const Material& s : capture_successor_materials(m)) load_finished_with_successors(dir, s, tables, hooks);
    load_finished(dir, m, tables, hooks.reading);
}

// A win's DTW is found from the positions after its moves, so everything either side reaches in
// one move is loaded first (WDL and DTW; a restored DTW table may have come without its WDL).
void load_finished_dtw_with_successors(const fs::path& dir, const Material& m, ValueTables& wdl, DtwTables& dtw,
                                       const LoadHooks& hooks) {
    if (dtw.contains(m) || (hooks.restore && hooks.restore(m, true))) return;
    for (const Material& side : {m, m.mirror()}) {
        for (const Material& s : successor_materials(side)) {
            load_finished_with_successors(dir, s, wdl, hooks);
            load_finished_dtw_with_successors(dir, s, wdl, dtw, hooks);
        }
        load_finished_with_successors(dir, side, wdl, hooks);
    }
    load_finished_dtw_pair(dir, m, wdl, dtw, hooks.reading);
}

}  // namespace dtb
