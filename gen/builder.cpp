#include "gen/builder.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <ostream>
#include <set>

#include <fcntl.h>
#include <sys/file.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <unistd.h>

#include "gen/progress.hpp"
#include "gen/spill.hpp"
#include "probe/table_file.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Holds an exclusive lock on DIR/.dtb-gen.lock so that two builds never write one folder.
class FolderLock {
public:
    explicit FolderLock(const fs::path& dir) {
        const fs::path path = dir / ".dtb-gen.lock";
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) throw std::runtime_error("cannot write to " + dir.string() + ": " + std::strerror(errno));
        if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd_);
            throw std::runtime_error("another dtb gen is writing to " + dir.string());
        }
    }
    ~FolderLock() { ::close(fd_); }
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    int fd_ = -1;
};

bool has_file(const fs::path& dir, const Material& m) { return fs::exists(dir / format::wdl_file_name(m)); }
bool has_dtw_file(const fs::path& dir, const Material& m) { return fs::exists(dir / format::dtw_file_name(m)); }

// Refuses folders holding files this version cannot read or extend, before any work is done.
void check_existing_files(const fs::path& dir) {
    for (const auto& entry : fs::directory_iterator(dir)) {
        const fs::path& p = entry.path();
        if (p.extension() == ".tmp") {
            fs::remove(p);  // left by a killed build; never a finished file
            continue;
        }
        const bool dtw = p.extension() == format::kDtwSuffix;
        if (p.extension() != format::kWdlSuffix && !dtw) continue;
        // Throws TableError naming the file and the problem.
        const TableFile file(p, dtw ? format::FileKind::Dtw : format::FileKind::Wdl);
        const Material& m = file.header().material;
        if ((dtw ? format::dtw_file_name(m) : format::wdl_file_name(m)) != p.filename())
            throw TableError(p.string() + ": holds material " + file.header().material.name());
    }
}

std::string summary_line(const WrittenFile& f, double seconds) {
    const format::Header& h = f.header;
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%-10s positions %llu captures %llu wins %llu draws %llu losses %llu seconds %.1f bytes %llu",
                  h.material.name().c_str(), static_cast<unsigned long long>(h.positions),
                  static_cast<unsigned long long>(h.captures), static_cast<unsigned long long>(h.wins),
                  static_cast<unsigned long long>(h.draws), static_cast<unsigned long long>(h.losses), seconds,
                  static_cast<unsigned long long>(f.bytes));
    return buf;
}

std::string dtw_summary_line(const WrittenFile& f, double seconds) {
    const format::Header& h = f.header;
    char buf[200];
    std::snprintf(buf, sizeof buf, "%-10s dtw longest %u seconds %.1f bytes %llu",
                  format::dtw_file_name(h.material).c_str(), h.max_dtw, seconds,
                  static_cast<unsigned long long>(f.bytes));
    return buf;
}

class Builder {
public:
    Builder(const BuildOptions& options, std::ostream& log)
        : options_(options), log_(log), progress_(log, ::isatty(STDERR_FILENO) != 0) {}

    void run() {
        fs::create_directories(options_.dir);
        lock_.emplace(options_.dir);
        check_existing_files(options_.dir);
        if (options_.memory_bytes > 0) spill_.emplace(options_.dir / ".dtb-spill");
        const auto plan = build_plan(options_);
        std::set<Material> done;
        for (std::size_t i = 0; i < plan.size(); ++i) {
            const Material& m = plan[i];
            if (done.count(m)) continue;
            done.insert(m);
            done.insert(m.mirror());
            const bool wdl_missing = !has_file(options_.dir, m) || !has_file(options_.dir, m.mirror());
            const bool dtw_missing =
                options_.dtw && (!has_dtw_file(options_.dir, m) || !has_dtw_file(options_.dir, m.mirror()));
            const auto next_read = next_reads(plan, i, done);
            // make_room again once the tables are loaded: reading a file back can pull in
            // tables that the pair does not read (a losses-only .dtw derives its wins from every
            // material it reaches), and they must go before the solver allocates.
            if (wdl_missing || dtw_missing) make_room(plan, i, next_read);
            if (wdl_missing) {
                load_wdl_inputs(m);
                make_room(plan, i, next_read);
                solve_and_write(m, i, plan.size());
            }
            if (dtw_missing) {
                load_dtw_inputs(m);
                make_room(plan, i, next_read);
                solve_dtw_and_write(m, i, plan.size());
            }
            drop_tables_read_by_no_pair(plan, {}, next_read);  // scratch copies stay: removed with the folder
        }
        progress_.finish();
    }

private:
    // A table of finished values: the WDL or the DTW of one material.
    struct Table {
        Material material;
        bool dtw = false;
        auto operator<=>(const Table&) const = default;
    };

    std::string scratch_name(const Table& t) const {
        return t.dtw ? format::dtw_file_name(t.material) : format::wdl_file_name(t.material);
    }

    std::uint64_t positions_of(const Material& m) {
        auto [it, added] = positions_.try_emplace(m, 0);
        if (added) it->second = PositionIndex(m).size();
        return it->second;
    }

    std::uint64_t bytes_of(const Table& t) {
        const std::uint64_t n = positions_of(t.material);
        return t.dtw ? n * sizeof(Dtw) : (n + 3) / 4;
    }

    bool in_memory(const Table& t) const { return t.dtw ? dtw_.contains(t.material) : tables_.contains(t.material); }

    // The tables solving the pair of m reads: the WDL (and with --dtw the DTW) of every material
    // either side reaches in one move, and for the DTW pass the pair's own WDL.
    std::set<Table> tables_needed_by(const Material& m) const {
        std::set<Table> out;
        for (const Material& side : {m, m.mirror()}) {
            if (options_.dtw) out.insert({side, false});
            for (const Material& s : successor_materials(side)) {
                out.insert({s, false});
                if (options_.dtw) out.insert({s, true});
            }
        }
        return out;
    }

    // Memory of the solvers themselves for the pair of m, beyond the tables they read: the WDL
    // solver's byte a position and its packed copy; the DTW solver's distances (2 bytes a
    // position), capture bits and the cells of its subgames.
    std::uint64_t solver_bytes(const Material& m) {
        const std::uint64_t pair = positions_of(m) + (m.mirror() == m ? 0 : positions_of(m.mirror()));
        return options_.dtw ? pair * 5 / 2 : pair * 3 / 2;
    }

    // Where in the plan each table is read next: the first pair after `current`, not yet done, that
    // reads it. A table absent from the map is read by no pair still to be built.
    std::map<Table, std::size_t> next_reads(const std::vector<Material>& plan, std::size_t current,
                                            const std::set<Material>& done) const {
        std::map<Table, std::size_t> out;
        for (std::size_t j = plan.size(); j-- > current + 1;)
            if (!done.count(plan[j]))
                for (const Table& t : tables_needed_by(plan[j])) out[t] = j;
        return out;
    }

    // Before loading and again before solving the pair of plan[current]: drops the tables that
    // neither it nor a later pair reads (read back only to derive another table), then moves
    // finished tables it does not read to scratch copies, those read latest first, until what
    // stays in memory, the tables it reads and its solver's memory fit in options_.memory_bytes
    // (or nothing is left to move).
    void make_room(const std::vector<Material>& plan, std::size_t current,
                   const std::map<Table, std::size_t>& next_read) {
        const auto needed_now = tables_needed_by(plan[current]);
        for (const Table& t : drop_tables_read_by_no_pair(plan, needed_now, next_read)) {
            progress_.finish();
            log_ << scratch_name(t) << ": dropped from memory (read back for another table only)\n" << std::flush;
        }
        if (!spill_) return;
        std::uint64_t needed_bytes = solver_bytes(plan[current]);
        for (const Table& t : needed_now) needed_bytes += bytes_of(t);
        std::vector<std::pair<std::size_t, Table>> movable;
        std::uint64_t movable_bytes = 0;
        for (const Material& finished : plan)
            for (const bool dtw : {false, true}) {
                const Table t{finished, dtw};
                if (!in_memory(t) || needed_now.count(t)) continue;
                movable.emplace_back(next_read.at(t), t);  // the tables no pair reads are dropped above
                movable_bytes += bytes_of(t);
            }
        std::sort(movable.begin(), movable.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        for (const auto& [use, t] : movable) {
            if (movable_bytes + needed_bytes <= options_.memory_bytes) break;
            move_to_scratch(t);
            movable_bytes -= bytes_of(t);
        }
    }

    // Frees the tables in memory that neither `keep` nor a pair still to be built reads, and
    // returns them.
    std::vector<Table> drop_tables_read_by_no_pair(const std::vector<Material>& plan, const std::set<Table>& keep,
                                                   const std::map<Table, std::size_t>& next_read) {
        std::vector<Table> dropped;
        for (const Material& finished : plan)
            for (const Material& m : {finished, finished.mirror()})
                for (const bool dtw : {false, true}) {
                    const Table t{m, dtw};
                    if (!in_memory(t) || keep.count(t) || next_read.count(t)) continue;
                    if (dtw)
                        dtw_.remove(m);
                    else
                        tables_.remove(m);
                    dropped.push_back(t);
                }
        return dropped;
    }

    void move_to_scratch(const Table& t) {
        const std::string name = scratch_name(t);
        const auto start = std::chrono::steady_clock::now();
        const bool save = !spill_->contains(name);  // a copy, once saved, stays valid
        if (save) {
            progress_.update("saving " + name + " to " + (options_.dir / ".dtb-spill").string(), 0);
            if (t.dtw) {
                const std::vector<Dtw>& d = *dtw_.table(t.material);
                spill_->save(name, {reinterpret_cast<const std::uint8_t*>(d.data()), d.size() * sizeof(Dtw)});
            } else {
                spill_->save(name, tables_.table(t.material)->raw());
            }
        }
        if (t.dtw)
            dtw_.remove(t.material);
        else
            tables_.remove(t.material);
        if (save) log_scratch("saved", name, start);
    }

    // Takes t back from its scratch copy; false if it has none.
    bool restore_from_scratch(const Table& t) {
        const std::string name = scratch_name(t);
        if (!spill_ || !spill_->contains(name)) return false;
        const auto start = std::chrono::steady_clock::now();
        progress_.update("loading " + name + " from " + (options_.dir / ".dtb-spill").string(), 0);
        const std::uint64_t n = positions_of(t.material);
        if (t.dtw) {
            std::vector<Dtw> d(n);
            spill_->load(name, {reinterpret_cast<std::uint8_t*>(d.data()), d.size() * sizeof(Dtw)});
            dtw_.add(t.material, std::move(d));
        } else {
            PackedValues values(n);
            spill_->load(name, values.raw());
            tables_.add(t.material, std::move(values));
        }
        log_scratch("loaded", name, start);
        return true;
    }

    void log_scratch(const char* what, const std::string& name, std::chrono::steady_clock::time_point start) {
        const double seconds = seconds_since(start);
        char buf[200];
        std::snprintf(buf, sizeof buf, "%-14s scratch copy %s, seconds %.1f, in memory %.2f GiB", name.c_str(), what,
                      seconds, static_cast<double>(tables_.bytes() + dtw_.bytes()) / (1u << 30));
        progress_.finish();
        log_ << buf << '\n' << std::flush;
    }

    // The WDL of m: from memory, its scratch copy, or its file.
    void ensure_loaded(const Material& m) {
        logging_file_reads([&] { load_finished_with_successors(options_.dir, m, tables_, hooks_); });
    }

    // The DTW of m: from memory, its scratch copy, or its .dtw file.
    void ensure_dtw_loaded(const Material& m) {
        logging_file_reads([&] { load_finished_dtw_with_successors(options_.dir, m, tables_, dtw_, hooks_); });
    }

    // Reading files back (on a resumed build, or a --dtw build beside finished WDL files) can take
    // minutes a table at 6 pieces: capture positions are searched again and a losses-only .dtw
    // derives its wins. Each file gets a line as its read starts, and each load one with its time.
    template <typename Load>
    void logging_file_reads(Load load) {
        const std::size_t before = files_read_;
        const auto start = std::chrono::steady_clock::now();
        load();
        if (files_read_ == before) return;
        const double seconds = seconds_since(start);
        const std::size_t files = files_read_ - before;
        char buf[120];
        std::snprintf(buf, sizeof buf, "%zu file%s read back, seconds %.1f", files, files == 1 ? "" : "s", seconds);
        log_ << buf << '\n' << std::flush;
    }

    // The loaders' hook as a file's read starts.
    void note_file_read(const fs::path& file) {
        ++files_read_;
        progress_.finish();
        log_ << file.filename().string() << ": reading from the folder (not in memory, no scratch copy)\n" << std::flush;
    }

    static std::string label_of(const Material& m, std::size_t position, std::size_t plan_size) {
        // Appended piece by piece: "[" + std::string&& trips a false -Wrestrict in GCC 12.
        std::string label = "[";
        label += std::to_string(position + 1);
        label += '/';
        label += std::to_string(plan_size);
        label += "] ";
        label += m.name();
        return label;
    }

    // What the DTW pass of the pair of m reads: its own WDL, and the WDL and DTW of every material
    // either side reaches in one move.
    void load_dtw_inputs(const Material& m) {
        for (const Material& side : {m, m.mirror()}) {
            ensure_loaded(side);
            for (const Material& s : successor_materials(side)) {
                ensure_loaded(s);
                ensure_dtw_loaded(s);
            }
        }
    }

    void load_wdl_inputs(const Material& m) {
        for (const Material& side : {m, m.mirror()})
            for (const Material& s : successor_materials(side)) ensure_loaded(s);
    }

    // Both solvers expect their inputs loaded (load_wdl_inputs, load_dtw_inputs).
    void solve_dtw_and_write(const Material& m, std::size_t position, std::size_t plan_size) {
        const auto start = std::chrono::steady_clock::now();
        const std::string label = label_of(m, position, plan_size);
        auto solved = solve_dtw_pair(m, tables_, dtw_, [&](double f) { progress_.update(label + " dtw", f); });
        for (DtwMaterial& d : solved) {
            if (!has_dtw_file(options_.dir, d.material)) {
                const WrittenFile written = write_dtw_file(options_.dir, d, options_.write);
                const double seconds = seconds_since(start);
                progress_.finish();
                log_ << dtw_summary_line(written, seconds) << '\n' << std::flush;
            }
            if (!dtw_.contains(d.material)) dtw_.add(d.material, std::move(d.dtw));
        }
    }

    void solve_and_write(const Material& m, std::size_t position, std::size_t plan_size) {
        const auto start = std::chrono::steady_clock::now();
        const std::string label = label_of(m, position, plan_size);
        auto solved = solve_material_pair(m, tables_, [&](double f) { progress_.update(label + " solving", f); });
        for (const SolvedMaterial& s : solved) {
            if (!has_file(options_.dir, s.material)) {
                const WrittenFile written = write_wdl_file(options_.dir, s, options_.write);
                const double seconds = seconds_since(start);
                progress_.finish();
                log_ << summary_line(written, seconds) << '\n' << std::flush;
            }
            tables_.add(s.material, pack_values(s.values));
        }
    }

    const BuildOptions& options_;
    std::ostream& log_;
    ProgressLine progress_;
    ValueTables tables_;
    DtwTables dtw_;  // only filled with --dtw
    std::optional<FolderLock> lock_;    // declared before spill_: the copies go before the lock does
    std::optional<SpillFolder> spill_;  // with a memory limit only
    std::size_t files_read_ = 0;
    const LoadHooks hooks_{[this](const Material& m, bool dtw) { return restore_from_scratch({m, dtw}); },
                           [this](const fs::path& file) { note_file_read(file); }};
    std::map<Material, std::uint64_t> positions_;
};

}  // namespace

std::vector<Material> successor_materials(const Material& m) {
    std::set<Material> out;
    const auto add = [&](Material after) {  // `after` seen from white, who just moved
        if (after.black_pieces() > 0) out.insert(after.mirror());
    };
    if (m.white_men > 0) add({m.white_men - 1, m.white_kings + 1, m.black_men, m.black_kings});
    for (int men = 0; men <= m.black_men; ++men)
        for (int kings = 0; kings <= m.black_kings; ++kings) {
            if (men + kings == m.black_pieces()) continue;  // nothing captured
            add({m.white_men, m.white_kings, men, kings});
            if (m.white_men > 0) add({m.white_men - 1, m.white_kings + 1, men, kings});
        }
    return {out.begin(), out.end()};
}

std::vector<Material> capture_successor_materials(const Material& m) {
    std::vector<Material> out;
    for (const Material& s : successor_materials(m))
        if (s.pieces() < m.pieces()) out.push_back(s);
    return out;
}

std::vector<Material> build_plan(const BuildOptions& options) {
    const auto all = materials_in_build_order(options.max_pieces, options.max_per_side);
    if (options.only.empty()) return all;
    std::set<Material> needed;
    std::vector<Material> stack;
    for (const Material& m : options.only) {
        if (std::find(all.begin(), all.end(), m) == all.end())
            throw std::invalid_argument("material " + m.name() + " is not within --pieces/--max-per-side");
        stack.push_back(m);
        stack.push_back(m.mirror());
    }
    while (!stack.empty()) {
        const Material m = stack.back();
        stack.pop_back();
        if (!needed.insert(m).second) continue;
        stack.push_back(m.mirror());
        for (const Material& s : successor_materials(m)) stack.push_back(s);
    }
    std::vector<Material> plan;
    for (const Material& m : all)
        if (needed.count(m)) plan.push_back(m);
    return plan;
}

namespace {

// Opens a finished file of material `m` and checks that its header describes that material.
std::unique_ptr<TableFile> open_finished(const fs::path& path, const Material& m, format::FileKind kind) {
    auto file = std::make_unique<TableFile>(path, kind);
    const format::Header& h = file->header();
    if (h.material != m || h.positions != PositionIndex(m).size())
        throw TableError(file->path().string() + ": header does not match material " + m.name());
    return file;
}

// Calls visit(index, position, block bytes, offset in block, block number) for every position of
// the file, reading (and checking) the blocks in parallel.
template <typename Visit>
void for_each_stored(const TableFile& file, const PositionIndex& index, Visit&& visit) {
    const format::Header& h = file.header();
    tbb::parallel_for(std::uint64_t{0}, h.block_count, [&](std::uint64_t b) {
        std::vector<std::uint8_t> block;
        file.read_block(b, block);
        const std::uint64_t first = b * h.positions_per_block;
        const std::uint64_t count = std::min<std::uint64_t>(h.positions_per_block, h.positions - first);
        PositionWalker walker(index, first);
        for (std::uint64_t j = 0; j < count; ++j) {
            if (j > 0) walker.next();
            visit(first + j, walker.current(), block.data(), j, b);
        }
    });
}

// The stored values of a WDL file, each checked; at a capture position (don't-care in the file),
// capture_value(position, stored value) instead.
template <typename CaptureValue>
std::vector<std::uint8_t> read_values(const fs::path& dir, const Material& m, CaptureValue&& capture_value) {
    const auto file = open_finished(dir / format::wdl_file_name(m), m, format::FileKind::Wdl);
    std::vector<std::uint8_t> values(file->header().positions);
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

void load_finished(const fs::path& dir, const Material& m, ValueTables& tables, const FileReadHook& reading) {
    if (reading) reading(dir / format::wdl_file_name(m));
    const auto values = read_values(dir, m, [&](const Position& pos, Value) {
        return static_cast<std::uint8_t>(tables.resolve_captures(pos));
    });
    tables.add(m, pack_values(values));
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
    out.dtw.resize(h.positions);
    for_each_stored(*out.file, PositionIndex(m), [&](std::uint64_t i, const Position& pos, const std::uint8_t* block,
                                                     std::uint64_t j, std::uint64_t b) {
        const Value v = wdl.value_of(pos);
        if (has_capture(pos)) {
            out.dtw[i] = dtw.resolve_captures(pos);  // don't-care in the file
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

void build(const BuildOptions& options, std::ostream& log) { Builder(options, log).run(); }

}  // namespace dtb
