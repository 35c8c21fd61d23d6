#include "gen/builder.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <span>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include "gen/chunked_file.hpp"
#include "gen/class_solver.hpp"
#include "gen/dtw_solver.hpp"
#include "gen/folder_lock.hpp"
#include "gen/loader.hpp"
#include "gen/memory_plan.hpp"
#include "gen/progress.hpp"
#include "gen/slices.hpp"
#include "gen/spill.hpp"
#include "gen/solver.hpp"
#include "probe/table_file.hpp"
#include "probe/tablebase.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool has_file(const fs::path& dir, const Material& m) { return fs::exists(dir / format::wdl_file_name(m)); }
bool has_dtw_file(const fs::path& dir, const Material& m) { return fs::exists(dir / format::dtw_file_name(m)); }

// A temporary file the writer makes (MATERIAL.wdl.tmp, MATERIAL.dtw.tmp): what a killed build
// leaves. Any other *.tmp in the folder is someone else's.
bool is_writer_temporary(const fs::path& p) {
    if (p.extension() != ".tmp") return false;
    const fs::path finished = p.stem();
    const auto m = parse_material(finished.stem().string());
    return m && (finished == format::wdl_file_name(*m) || finished == format::dtw_file_name(*m));
}

// Reads and checks every block of a finished file in parallel; throws TableError naming the file
// and the block, and saying how to have it rebuilt.
void check_every_block(const TableFile& file) {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, file.header().block_count), [&](const auto& blocks) {
        std::vector<std::uint8_t> block;
        try {
            for (std::uint64_t b = blocks.begin(); b != blocks.end(); ++b) file.read_block(b, block);
        } catch (const TableError& e) {
            throw TableError(std::string(e.what()) + " (delete the file and run dtb gen again to rebuild it)");
        }
    });
}

// Removes what a killed build left, and refuses folders holding files this version cannot read
// or extend, or finished files that do not check block by block, before any work is done: a
// finished file counts as done, and nothing is built on one that is damaged. Throws TableError.
void check_existing_files(const fs::path& dir, std::ostream& log) {
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t files = 0, bytes = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const fs::path& p = entry.path();
        if (is_writer_temporary(p)) {
            fs::remove(p);
            continue;
        }
        const bool dtw = p.extension() == format::kDtwSuffix;
        if (p.extension() != format::kWdlSuffix && !dtw) continue;
        // Throws TableError naming the file and the problem.
        const TableFile file(p, file_kind_of(p));
        const Material& m = file.header().material;
        if ((dtw ? format::dtw_file_name(m) : format::wdl_file_name(m)) != p.filename())
            throw TableError(p.string() + ": holds material " + file.header().material.name());
        check_every_block(file);
        ++files;
        bytes += file.file_bytes();
    }
    if (files == 0) return;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%llu finished files checked (%.1f MB), seconds %.1f",
                  static_cast<unsigned long long>(files), static_cast<double>(bytes) / 1e6, seconds_since(start));
    log << buf << '\n' << std::flush;
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
        : options_(options),
          log_(log),
          progress_(log, ::isatty(STDERR_FILENO) != 0),
          memory_plan_(build_plan(options), options.dtw, options.memory_bytes,
                       [this](const Material& m) { return positions_of(m); }) {
        memory_plan_.solve_in_slices(options.slices);
        memory_plan_.solve_on_threads(static_cast<int>(
            tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)));
    }

    void run() {
        fs::create_directories(options_.dir);
        lock_.emplace(options_.dir, options_.task);
        if (options_.task.empty()) {
            check_existing_files(options_.dir, log_);
            spill_.emplace(options_.dir / ".dtb-spill");
        } else {
            if (task_finished_already()) return;
            check_task_inputs();
            spill_.emplace(options_.dir / (".dtb-spill-" + options_.task));
        }
        const auto& plan = memory_plan_.plan();
        std::set<Material> done;
        for (std::size_t i = 0; i < plan.size(); ++i) {
            const Material& m = plan[i];
            if (done.count(m)) continue;
            done.insert(m);
            done.insert(m.mirror());
            const bool wdl_missing = !has_file(options_.dir, m) || !has_file(options_.dir, m.mirror());
            const bool dtw_missing =
                options_.dtw && (!has_dtw_file(options_.dir, m) || !has_dtw_file(options_.dir, m.mirror()));
            const auto next_read = memory_plan_.next_reads(i, done);
            // make_room again once the tables are loaded: reading a file back can pull in
            // tables that the pair does not read (a losses-only .dtw derives its wins from every
            // material it reaches), and they must go before the solver allocates.
            if (wdl_missing || dtw_missing) make_room(i, next_read);
            if (wdl_missing && dtw_missing && solves_in_one_pass(m, i)) {
                load_successor_tables(m);
                make_room(i, next_read);
                solve_with_distances_and_write(m, i, plan.size());
            } else {
                if (wdl_missing) solve_wdl(m, i, next_read);
                if (dtw_missing) {
                    load_dtw_inputs(m);
                    make_room(i, next_read);
                    solve_dtw_and_write(m, i, plan.size());
                }
            }
            drop_unread({}, next_read);
        }
        progress_.finish();
        log_resume_copies();
        // Kept on request: a later build here (--dtw after a WDL build, more pieces) then takes
        // the finished tables back from them instead of searching their capture positions again.
        if (!options_.keep_copies) spill_->remove_all();
    }

private:
    using Table = TableId;

    void solve_wdl(const Material& m, std::size_t position, const MemoryPlan::NextReads& next_read) {
        const std::size_t plan_size = memory_plan_.plan().size();
        if (options_.slice_step == BuildOptions::kWriteFromSlices) {
            write_from_slices(m, position, plan_size, next_read);
            return;
        }
        load_wdl_inputs(m, position);
        make_room(position, next_read);
        // A kings-only pair has one level, so one slice whatever --slices says. It takes the
        // symmetry classes, which solve it in about half the time of the cells and an eighth of
        // their memory (docs/BENCHMARKS.md); over the limit its values are not kept, as the
        // memory plan counts it.
        if (m.men() == 0)
            solve_in_classes_and_write(m, position, plan_size, !memory_plan_.compact_cells(position));
        else if (memory_plan_.slices_of(m) > 1)
            solve_in_slices_and_write(m, position, plan_size, next_read);
        else
            solve_and_write(m, position, plan_size);
        for (const Material& t : read_through_files_) tables_.remove(t);
        read_through_files_.clear();
    }

    // A build with distances solves a pair's values and distances in one pass
    // (solve_pair_with_distances; 2-5 pieces in two thirds of the time of the two passes), unless
    // the pair's WDL pass is cut into slices, held compact or reads through files to keep within
    // --memory: the one pass does none of these. (Its peak is the DTW pass's, which neither bounds.)
    bool solves_in_one_pass(const Material& m, std::size_t position) const {
        return options_.slice_step == BuildOptions::kAllSlices && memory_plan_.slices_of(m) == 1 &&
               !memory_plan_.compact_cells(position) && memory_plan_.read_through_files(position).empty();
    }

    // A task whose files are all there and check block by block has nothing to do (a workflow
    // engine may run it again). What a killed run of it left is removed first; a damaged output
    // is an error, as in a whole-folder build.
    bool task_finished_already() {
        if (options_.slice_step > 0) {
            const Material& m = memory_plan_.plan().front();
            const Slice slice = slice_at_step(m, options_.slices, options_.slice_step);
            const bool finished = SliceFiles(options_.dir, m).finished(slice);
            if (finished) log_ << "task " << options_.task << ": finished already\n" << std::flush;
            return finished;
        }
        bool finished = true;
        for (const std::string& name : table_files(memory_plan_.plan(), options_.dtw)) {
            const fs::path p = options_.dir / name;
            fs::remove(p.string() + ".tmp");
            if (!fs::exists(p)) {
                finished = false;
                continue;
            }
            check_every_block(TableFile(p, file_kind_of(p)));
        }
        if (finished) log_ << "task " << options_.task << ": finished already\n" << std::flush;
        return finished;
    }

    // Every file a task reads is the finished output of another task: a missing one stops it
    // before any work, by name.
    void check_task_inputs() const {
        if (options_.slice_step != BuildOptions::kAllSlices) {
            const Material& m = memory_plan_.plan().front();
            const SliceFiles files(options_.dir, m);
            const std::vector<Slice> slices = pair_slices(m, options_.slices);
            // A slice task reads the slices just above it; the pair's writer, all of them.
            const std::vector<Slice> read =
                options_.slice_step > 0 ? slices_above(slices, static_cast<std::size_t>(options_.slice_step - 1)) : slices;
            for (const Slice& s : read)
                if (!files.finished(s))
                    throw TableError(files.path(s).string() + ": missing or incomplete; task " + options_.task +
                                     " reads it (run the task of plan.tsv that writes it first)");
            if (options_.slice_step == BuildOptions::kWriteFromSlices) return;
        }
        for (const std::string& name : table_files(materials_read_by(memory_plan_.plan()), options_.dtw)) {
            const fs::path p = options_.dir / name;
            if (!fs::exists(p))
                throw TableError(p.string() + ": missing; task " + options_.task +
                                 " reads it (run the task of plan.tsv that writes it first)");
            const TableFile header_checked(p, file_kind_of(p));
        }
    }

    std::string scratch_name(const Table& t) const {
        return t.dtw ? format::dtw_file_name(t.material) : format::wdl_file_name(t.material);
    }

    std::uint64_t positions_of(const Material& m) {
        auto [it, added] = positions_.try_emplace(m, 0);
        if (added) it->second = PositionIndex(m).size();
        return it->second;
    }

    bool in_memory(const Table& t) const {
        return t.dtw ? dtw_.contains(t.material) : tables_.contains(t.material) && !tables_.through_files(t.material);
    }

    // The finished tables in memory, in plan order, WDL before DTW.
    std::vector<Table> tables_in_memory() const {
        std::vector<Table> out;
        for (const Material& finished : memory_plan_.plan())
            for (const bool dtw : {false, true})
                if (in_memory({finished, dtw})) out.push_back({finished, dtw});
        return out;
    }

    // Before loading and again before solving the pair of plan[current]: carries out the memory
    // plan (drops the tables that neither it nor a later pair reads, then moves tables to scratch
    // copies until the pair fits in the memory limit).
    void make_room(std::size_t current, const MemoryPlan::NextReads& next_read) {
        const Material& m = memory_plan_.plan()[current];
        for (const Table& t : drop_unread(memory_plan_.reads_of(m), next_read)) {
            progress_.finish();
            log_ << scratch_name(t) << ": dropped from memory (read back for another table only)\n" << std::flush;
        }
        for (const Table& t : memory_plan_.to_spill(current, next_read, tables_in_memory())) move_to_scratch(t);
    }

    // Frees the tables in memory that neither `keep` nor a pair still to be built reads, and
    // returns them.
    std::vector<Table> drop_unread(const std::set<Table>& keep, const MemoryPlan::NextReads& next_read) {
        const auto dropped = memory_plan_.unread(next_read, keep, tables_in_memory());
        for (const Table& t : dropped) {
            if (t.dtw)
                dtw_.remove(t.material);
            else
                tables_.remove(t.material);
        }
        return dropped;
    }

    // What the copies for a resumed build cost, for the log's last line.
    struct CopyCost {
        std::size_t saved = 0;
        double seconds = 0;
        void add(double s) {
            ++saved;
            seconds += s;
        }
    };

    void log_resume_copies() {
        if (resume_copies_.saved == 0) return;
        char buf[160];
        std::snprintf(buf, sizeof buf, "scratch copies for a resumed build: %zu saved, seconds %.1f, %.1f MB, ",
                      resume_copies_.saved, resume_copies_.seconds, static_cast<double>(spill_->bytes_on_disk()) / 1e6);
        log_ << buf << (options_.dir / ".dtb-spill").string() << (options_.keep_copies ? " kept" : " removed") << '\n'
             << std::flush;
    }

    // The content hash of t's finished file, which tags its copies.
    std::uint64_t tag_of(const Table& t) {
        const std::string name = scratch_name(t);
        auto [it, added] = tags_.try_emplace(name, 0);
        if (added) it->second = content_tag(options_.dir / name);
        return it->second;
    }

    std::span<const std::uint8_t> bytes_in_memory(const Table& t) const {
        if (!t.dtw) return tables_.table(t.material)->raw();
        const std::vector<Dtw>& d = *dtw_.table(t.material);
        return {reinterpret_cast<const std::uint8_t*>(d.data()), d.size() * sizeof(Dtw)};
    }

    // A copy of a table just finished, for a build that resumes after a kill: taking it back costs
    // a decompression, reading the file back a search of every capture position (and for a
    // losses-only .dtw file, one ply of search at every win). A copy that cannot be written only
    // costs that time later, so it is reported, not fatal.
    void save_resume_copy(const Table& t) {
        try {
            if (spill_->contains(scratch_name(t), tag_of(t))) return;
            const auto start = std::chrono::steady_clock::now();
            spill_->save(scratch_name(t), bytes_in_memory(t), tag_of(t));
            resume_copies_.add(seconds_since(start));
        } catch (const std::runtime_error& e) {
            progress_.finish();
            log_ << scratch_name(t) << ": no scratch copy for a resumed build (" << e.what() << ")\n" << std::flush;
        }
    }

    void move_to_scratch(const Table& t) {
        const std::string name = scratch_name(t);
        const auto start = std::chrono::steady_clock::now();
        const bool save = !spill_->contains(name, tag_of(t));  // a copy, once saved, stays valid
        if (save) {
            progress_.update("saving " + name + " to " + (options_.dir / ".dtb-spill").string(), 0);
            spill_->save(name, bytes_in_memory(t), tag_of(t));
        }
        if (t.dtw)
            dtw_.remove(t.material);
        else
            tables_.remove(t.material);
        if (save) log_scratch("saved", name, start);
    }

    // Takes t back from its scratch copy; false if it has none that matches its finished file
    // (the file is then read instead). A damaged copy is reported, removed and not used.
    bool restore_from_scratch(const Table& t) {
        const std::string name = scratch_name(t);
        if (!spill_ || !fs::exists(options_.dir / name) || !spill_->contains(name, tag_of(t))) return false;
        const auto start = std::chrono::steady_clock::now();
        progress_.update("loading " + name + " from " + (options_.dir / ".dtb-spill").string(), 0);
        const std::uint64_t n = positions_of(t.material);
        try {
            if (t.dtw) {
                auto d = vector_on_huge_pages<Dtw>(n, 0);
                spill_->load(name, {reinterpret_cast<std::uint8_t*>(d.data()), d.size() * sizeof(Dtw)}, tag_of(t));
                dtw_.add(t.material, std::move(d));
            } else {
                PackedValues values(n);
                spill_->load(name, values.raw(), tag_of(t));
                tables_.add(t.material, std::move(values));
            }
        } catch (const std::runtime_error& e) {
            spill_->forget(name);
            progress_.finish();
            log_ << name << ": scratch copy not used (" << e.what() << ")\n" << std::flush;
            return false;
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
        read_back([&] { load_finished_with_successors(options_.dir, m, tables_, hooks_); });
    }

    // The DTW of m: from memory, its scratch copy, or its .dtw file.
    void ensure_dtw_loaded(const Material& m) {
        read_back([&] { load_finished_dtw_with_successors(options_.dir, m, tables_, dtw_, hooks_); });
    }

    // Reading files back (on a resumed build, or a --dtw build beside finished WDL files) can take
    // minutes a table at 6 pieces: capture positions are searched again and a losses-only .dtw
    // derives its wins. Each file gets a line as its read starts, and each load one with its time.
    // What was read from a file gets a copy, so that reading it back again costs no search.
    template <typename Load>
    void read_back(Load load) {
        const std::size_t before = files_read_;
        const auto start = std::chrono::steady_clock::now();
        load();
        if (files_read_ == before) return;
        const double seconds = seconds_since(start);
        const std::size_t files = files_read_ - before;
        char buf[120];
        std::snprintf(buf, sizeof buf, "%zu file%s read back, seconds %.1f", files, files == 1 ? "" : "s", seconds);
        log_ << buf << '\n' << std::flush;
        for (const Table& t : tables_in_memory()) save_resume_copy(t);
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
        for (const Material& side : {m, m.mirror()}) ensure_loaded(side);
        load_successor_tables(m);
    }

    // The WDL and DTW of every material either side of the pair of m reaches in one move.
    void load_successor_tables(const Material& m) {
        for (const Material& side : {m, m.mirror()})
            for (const Material& s : successor_materials(side)) {
                ensure_loaded(s);
                ensure_dtw_loaded(s);
            }
    }

    // The tables the pair of plan[position] reads: in memory, or, those the memory plan says do not
    // fit, read from their files through one block cache while the pair is solved.
    void load_wdl_inputs(const Material& m, std::size_t position) {
        std::shared_ptr<const Tablebase> files;
        for (const Table& t : memory_plan_.read_through_files(position)) {
            if (in_memory(t)) move_to_scratch(t);
            if (!files) {
                TablebaseOptions o;
                o.cache_mb = MemoryPlan::kInputCacheBytes >> 20;
                o.capture_search_nodes = 0;  // exact values only: a search is never cut short
                files = std::make_shared<const Tablebase>(options_.dir, o);
            }
            tables_.add_through_files(t.material, files);
            read_through_files_.push_back(t.material);
            progress_.finish();
            log_ << format::wdl_file_name(t.material) << ": read through a block cache of "
                 << (MemoryPlan::kInputCacheBytes >> 20) << " MiB while " << m.name()
                 << " is solved (the tables it reads do not fit in --memory)\n" << std::flush;
        }
        for (const Material& side : {m, m.mirror()})
            for (const Material& s : successor_materials(side)) ensure_loaded(s);
    }

    // Both solvers expect their inputs loaded (load_wdl_inputs, load_dtw_inputs).
    void solve_dtw_and_write(const Material& m, std::size_t position, std::size_t plan_size) {
        const auto start = std::chrono::steady_clock::now();
        const std::string label = label_of(m, position, plan_size);
        auto solved = solve_dtw_pair(m, tables_, dtw_, [&](double f, const std::string& note) {
            progress_.update(label + " dtw", f, note);
        });
        for (DtwMaterial& d : solved) {
            write_if_missing(d, start);
            keep_dtw(d.material, std::move(d.dtw));
        }
    }

    // What the pairs' solvers found becomes files (those not written yet, each logged with the
    // seconds since `start`), tables for later pairs and scratch copies for a resumed build.
    void write_if_missing(const SolvedMaterial& s, std::chrono::steady_clock::time_point start) {
        if (has_file(options_.dir, s.material)) return;
        const WrittenFile written = write_wdl_file(options_.dir, s, options_.write);
        progress_.finish();
        log_ << summary_line(written, seconds_since(start)) << '\n' << std::flush;
    }
    void write_if_missing(const DtwMaterial& d, std::chrono::steady_clock::time_point start) {
        if (has_dtw_file(options_.dir, d.material)) return;
        const WrittenFile written = write_dtw_file(options_.dir, d, options_.write);
        progress_.finish();
        log_ << dtw_summary_line(written, seconds_since(start)) << '\n' << std::flush;
    }
    void keep_wdl(const Material& m, PackedValues values) {
        tables_.add(m, std::move(values));
        save_resume_copy({m, false});
    }
    void keep_dtw(const Material& m, std::vector<Dtw> dtw) {
        dtw_.add(m, std::move(dtw));
        save_resume_copy({m, true});
    }

    // Solves the pair of m's values and distances in one pass and writes what is missing of
    // their files (solve_pair_with_distances; its successors' tables loaded).
    void solve_with_distances_and_write(const Material& m, std::size_t position, std::size_t plan_size) {
        const auto start = std::chrono::steady_clock::now();
        const std::string label = label_of(m, position, plan_size);
        auto solved = solve_pair_with_distances(m, dtw_, [&](double f, const std::string& note) {
            progress_.update(label + " solving with distances", f, note);
        });
        for (SolvedWithDistances& s : solved) {
            write_if_missing(s.wdl, start);
            write_if_missing(s.dtw, start);
            keep_wdl(s.wdl.material, std::move(s.wdl.values));
            keep_dtw(s.dtw.material, std::move(s.dtw.dtw));
        }
    }

    SolverOptions solver_options(const Material& m, std::size_t position) {
        SolverOptions o;
        o.compact_large_subgames = memory_plan_.compact_cells(position);
        if (o.compact_large_subgames) {
            progress_.finish();
            log_ << m.name() << ": its large subgames held compact, 0.75 bytes a position instead of 2.375"
                 << " (the solver's cells and the tables it reads do not fit in --memory)\n" << std::flush;
        }
        return o;
    }

    void solve_and_write(const Material& m, std::size_t position, std::size_t plan_size) {
        const auto start = std::chrono::steady_clock::now();
        const std::string label = label_of(m, position, plan_size);
        auto solved = solve_material_pair(
            m, tables_, [&](double f, const std::string& note) { progress_.update(label + " solving", f, note); },
            solver_options(m, position));
        for (SolvedMaterial& s : solved) {
            write_if_missing(s, start);
            keep_wdl(s.material, std::move(s.values));
            s.captures = {};
        }
    }

    // The pair of m a slice at a time (gen/slices.hpp): each slice's file is written as it is
    // solved, so a resumed build starts at the first slice without one; the pair's files are then
    // written from the slice files, and its tables taken into memory if a later pair reads them.
    // A slice file found damaged (a disk error, a file cut short by hand) costs the pair's slices:
    // they are removed and the pair solved again from its first slice.
    void solve_in_slices_and_write(const Material& m, std::size_t position, std::size_t plan_size,
                                   const MemoryPlan::NextReads& next_read) {
        const SliceFiles files(options_.dir, m);
        try {
            solve_slices_and_write(m, position, plan_size, next_read, files);
        } catch (const DamagedScratchFile& e) {
            if (options_.slice_step != BuildOptions::kAllSlices) throw damaged_task_input(e);
            progress_.finish();
            log_ << m.name() << ": " << e.what() << "; solving its slices again\n" << std::flush;
            files.remove_all();
            solve_slices_and_write(m, position, plan_size, next_read, files);
        }
    }

    void solve_slices_and_write(const Material& m, std::size_t position, std::size_t plan_size,
                                const MemoryPlan::NextReads& next_read, const SliceFiles& files) {
        const std::string label = label_of(m, position, plan_size);
        const PairLayout layout(m);
        const std::vector<Slice> slices = pair_slices(m, memory_plan_.slices_of(m));
        const SolverOptions solver = solver_options(m, position);
        if (options_.slices == MemoryPlan::kSlicesWithinLimit) {
            progress_.finish();
            log_ << m.name() << ": solved in " << slices.size() << " slices (the whole pair's solver and the tables it reads "
                 << "do not fit in --memory)\n" << std::flush;
        }
        for (std::size_t k = 0; k < slices.size(); ++k) {
            if (options_.slice_step > 0 && k + 1 != static_cast<std::size_t>(options_.slice_step)) continue;
            const std::string slice_label = label + " slice " + std::to_string(k + 1) + "/" + std::to_string(slices.size());
            if (files.finished(slices[k])) {
                progress_.finish();
                log_ << slice_label << ": finished already (" << files.path(slices[k]).string() << ")\n" << std::flush;
                continue;
            }
            const auto slice_start = std::chrono::steady_clock::now();
            // A slice's subgames, listed once for its boundary, its solver and its file.
            SliceSubgames subgames = layout.subgames_in(slices[k]);
            auto boundary = files.read_boundary(slices_above(slices, k), layout.boundary_men_indices(subgames), layout);
            const SolvedSlice solved = solve_material_slice(
                m, tables_, slices[k], std::move(subgames), std::move(boundary),
                [&](double f, const std::string& note) { progress_.update(slice_label + " solving", f, note); },
                solver);
            files.write(solved);
            std::uint64_t positions = 0;
            for (const HeldValues& side : solved.sides) positions += side.values.positions();
            char part[48] = "";
            if (slices[k].parts > 1) std::snprintf(part, sizeof part, " part %d/%d", slices[k].part + 1, slices[k].parts);
            char buf[200];
            std::snprintf(buf, sizeof buf, ", levels %d-%d%s, positions %llu, seconds %.1f", slices[k].levels.lowest,
                          slices[k].levels.highest, part, static_cast<unsigned long long>(positions), seconds_since(slice_start));
            progress_.finish();
            log_ << slice_label << buf << '\n' << std::flush;
        }
        if (options_.slice_step == BuildOptions::kAllSlices) write_pair_from(label, layout, slices, files, next_read);
    }

    // The task that writes a sliced pair's files from its slice files; a damaged one is an error
    // naming it (its task must run again), not a reason to solve the pair here.
    void write_from_slices(const Material& m, std::size_t position, std::size_t plan_size,
                           const MemoryPlan::NextReads& next_read) {
        const PairLayout layout(m);
        try {
            write_pair_from(label_of(m, position, plan_size), layout, pair_slices(m, memory_plan_.slices_of(m)),
                            SliceFiles(options_.dir, m), next_read);
        } catch (const DamagedScratchFile& e) {
            throw damaged_task_input(e);
        }
    }

    TableError damaged_task_input(const DamagedScratchFile& e) const {
        return TableError(std::string(e.what()) + "; task " + options_.task +
                          " reads it (run the task of plan.tsv that writes it again)");
    }

    void write_pair_from(const std::string& label, const PairLayout& layout,
                         const std::vector<Slice>& slices, const SliceFiles& files,
                         const MemoryPlan::NextReads& next_read) {
        const auto start = std::chrono::steady_clock::now();
        for (int side = 0; side < layout.side_count(); ++side)
            write_and_keep(label, layout.index(side).material(), layout.index(side).size(),
                           files.value_stream(slices, layout, side), read_again(layout.index(side).material(), next_read),
                           start);
        // A workflow engine removes the slice files it made (Snakemake's temp(), make's
        // .INTERMEDIATE), and knows them gone; removing them here would confuse it.
        if (options_.slice_step == BuildOptions::kAllSlices) files.remove_all();
    }

    // Whether the values of `material` are read again in this build: by a later pair or the DTW pass.
    bool read_again(const Material& material, const MemoryPlan::NextReads& next_read) const {
        return options_.dtw || next_read.count({material, false}) != 0;
    }

    // Writes the file of `material` (n positions) from its value bytes streamed in index order,
    // unless it is there, and takes its values into memory if `keep`: from the same pass over
    // the stream as the file's blocks.
    void write_and_keep(const std::string& label, const Material& material, std::uint64_t n,
                        const ValueByteStream& values, bool keep, std::chrono::steady_clock::time_point start) {
        std::optional<PackedValues> kept;
        if (keep) kept.emplace(n);
        const ValueByteStream stream = [&](std::uint64_t first, std::span<std::uint8_t> out) {
            values(first, out);
            if (kept)
                kept->store_range(first, out.size(), [&](std::uint64_t k) { return static_cast<Value>(out[k] & kValueMask); });
        };
        if (!has_file(options_.dir, material)) {
            progress_.update(label + " writing " + format::wdl_file_name(material), 0);
            const WrittenFile written = write_wdl_file(options_.dir, material, n, stream, options_.write);
            progress_.finish();
            log_ << summary_line(written, seconds_since(start)) << '\n' << std::flush;
        } else if (keep) {
            std::vector<std::uint8_t> bytes(std::size_t{1} << 20);
            for (std::uint64_t first = 0; first < n; first += bytes.size())
                stream(first, std::span<std::uint8_t>(bytes).first(std::min<std::uint64_t>(bytes.size(), n - first)));
        }
        if (keep) keep_wdl(material, std::move(*kept));
    }

    // A kings-only pair: solved in the classes of positions the board's symmetries identify
    // (gen/class_solver.hpp), a nibble a class, its files written from them. Its values (2 bits a
    // position, twice the classes' bytes) are taken into memory, as a solved pair's are, if
    // `keep_values`; otherwise only for the DTW pass, and later pairs read them from the files.
    void solve_in_classes_and_write(const Material& m, std::size_t position, std::size_t plan_size,
                                    bool keep_values) {
        const auto start = std::chrono::steady_clock::now();
        const std::string label = label_of(m, position, plan_size);
        const bool keep = keep_values || options_.dtw;
        progress_.finish();
        log_ << m.name() << ": solved in symmetry classes, 0.125 bytes a position"
             << (keep ? "" : "; its values not kept (they do not fit in --memory)") << '\n' << std::flush;
        const KingClassValues solved = solve_kings_only_in_classes(
            m, tables_, [&](double f, const std::string& note) { progress_.update(label + " solving", f, note); });
        for (int side = 0; side < solved.side_count(); ++side)
            write_and_keep(label, solved.material(side), solved.positions(side),
                           [&](std::uint64_t first, std::span<std::uint8_t> out) { solved.value_bytes(side, first, out); },
                           keep, start);
    }

    const BuildOptions& options_;
    std::ostream& log_;
    ProgressLine progress_;
    ValueTables tables_;
    DtwTables dtw_;  // only filled with --dtw
    std::optional<FolderLock> lock_;    // declared before spill_, which is used only under the lock
    std::optional<SpillFolder> spill_;
    std::map<std::string, std::uint64_t> tags_;  // file name -> content_tag, for finished files
    CopyCost resume_copies_;
    std::size_t files_read_ = 0;
    std::vector<Material> read_through_files_;  // by the pair being solved (load_wdl_inputs)
    const LoadHooks hooks_{[this](const Material& m, bool dtw) { return restore_from_scratch({m, dtw}); },
                           [this](const fs::path& file) { note_file_read(file); }};
    std::map<Material, std::uint64_t> positions_;  // declared before memory_plan_, which reads it
    MemoryPlan memory_plan_;
};

}  // namespace

std::vector<std::string> table_files(const std::vector<Material>& materials, bool dtw) {
    std::vector<std::string> out;
    for (const Material& m : materials) {
        out.push_back(format::wdl_file_name(m));
        if (dtw) out.push_back(format::dtw_file_name(m));
    }
    return out;
}

std::vector<std::string> slice_file_names(const Material& m, int slices) {
    const SliceFiles files(".", m);
    std::vector<std::string> out;
    for (const Slice& slice : pair_slices(m, slices)) out.push_back(files.path(slice).lexically_relative(".").string());
    return out;
}

std::vector<Material> materials_read_by(const std::vector<Material>& own) {
    std::set<Material> read;
    for (const Material& m : own)
        for (const Material& s : successor_materials(m))
            if (std::find(own.begin(), own.end(), s) == own.end()) read.insert(s);
    return {read.begin(), read.end()};
}

std::vector<Material> build_plan(const BuildOptions& options) {
    const auto all = materials_in_build_order(options.max_pieces, options.max_per_side);
    if (!options.task.empty()) {
        std::vector<Material> own;
        for (const Material& m : all)
            if (std::find_if(options.only.begin(), options.only.end(), [&](const Material& o) {
                    return o == m || o.mirror() == m;
                }) != options.only.end())
                own.push_back(m);
        if (own.empty()) throw std::invalid_argument("task " + options.task + " has no material within --pieces");
        return own;
    }
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

std::string unbuildable_reason(const Material& m, bool dtw) {
    return dtw ? PairLayout::too_large_for_dtw(m) : std::string();
}

void build(const BuildOptions& options, std::ostream& log) {
    // Refused before any work: the writer would find out only after the first material is solved.
    for (const auto kind : {format::FileKind::Wdl, format::FileKind::Dtw})
        if (const char* problem = format::block_size_problem(options.write.positions_per_block, kind))
            throw std::invalid_argument(std::string("--block-positions: ") + problem);
    // A pair beyond the solvers' numbering would stop the build only when its turn came, hours in.
    for (const Material& m : build_plan(options))
        if (const std::string reason = unbuildable_reason(m, options.dtw); !reason.empty()) throw std::invalid_argument(reason);
    Builder(options, log).run();
}

}  // namespace dtb
