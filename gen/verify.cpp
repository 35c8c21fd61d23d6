#include "gen/verify.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include <tbb/parallel_for.h>
#include <unistd.h>
#include <xxhash.h>

#include "gen/king_move_values.hpp"
#include "gen/loader.hpp"
#include "gen/pair_layout.hpp"
#include "gen/progress.hpp"
#include "gen/dtw_solver.hpp"
#include "probe/table_file.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace fs = std::filesystem;

std::vector<Material> materials_in_folder(const fs::path& dir) {
    if (!fs::is_directory(dir)) throw std::runtime_error(dir.string() + " is not a folder");
    std::set<Material> found;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != format::kWdlSuffix) continue;
        if (auto m = parse_material(entry.path().stem().string())) found.insert(*m);
    }
    std::vector<Material> ordered;
    int most = 0;
    for (const Material& m : found) most = std::max(most, m.pieces());
    for (const Material& m : materials_in_build_order(most))
        if (found.count(m)) ordered.push_back(m);
    return ordered;
}

namespace {

// The materials an earlier run found sound (verify_folder's `record`), one line each:
// material, fingerprint of the files its check read (hex), positions checked, seconds.
class CheckRecord {
public:
    explicit CheckRecord(fs::path path) : path_(std::move(path)) {
        if (path_.empty()) return;
        std::ifstream in(path_);
        if (!in) {
            if (fs::exists(path_)) throw std::runtime_error("cannot read the record " + path_.string());
            return;
        }
        // A line cut short by a kill is ignored (its material is checked again); the next line
        // must not be joined to it.
        std::string line;
        while (std::getline(in, line)) {
            ends_line_ = !in.eof();
            std::istringstream fields(line);
            std::string name, fingerprint, rest;
            std::uint64_t positions;
            double seconds;
            if (fields >> name >> fingerprint >> positions >> seconds && !(fields >> rest))
                sound_[name] = {fingerprint, positions};
        }
    }

    bool on() const { return !path_.empty(); }
    const fs::path& path() const { return path_; }

    // The positions checked when m was recorded with this fingerprint, or nothing.
    std::optional<std::uint64_t> recorded(const Material& m, const std::string& fingerprint) const {
        const auto it = sound_.find(m.name());
        if (it == sound_.end() || it->second.first != fingerprint) return std::nullopt;
        return it->second.second;
    }

    // Appends m, synced, so that a run killed later keeps it.
    void add(const Material& m, const std::string& fingerprint, std::uint64_t positions, double seconds) {
        char line[256];
        const int n = std::snprintf(line, sizeof line, "%s%s\t%s\t%llu\t%.1f\n", ends_line_ ? "" : "\n",
                                    m.name().c_str(), fingerprint.c_str(), static_cast<unsigned long long>(positions),
                                    seconds);
        std::FILE* f = std::fopen(path_.c_str(), "a");
        const bool written = f && std::fwrite(line, 1, static_cast<std::size_t>(n), f) == static_cast<std::size_t>(n) &&
                             std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
        const int error = errno;
        if (f) std::fclose(f);
        if (!written) throw std::runtime_error("cannot write the record " + path_.string() + ": " + std::strerror(error));
        ends_line_ = true;
    }

private:
    fs::path path_;
    bool ends_line_ = true;  // the file is empty or ends with a newline
    std::map<std::string, std::pair<std::string, std::uint64_t>> sound_;
};

class Verifier {
public:
    Verifier(const fs::path& dir, std::ostream& log, std::size_t max_reported, std::optional<Slice> slice,
             const fs::path& record)
        : dir_(dir), log_(log), max_reported_(max_reported), slice_(slice), record_(record),
          progress_(log, ::isatty(STDERR_FILENO) != 0) {}

    VerifyReport run(const std::vector<Material>& only) {
        if (slice_ && slice_->parts > 1) {
            if (only.empty()) throw std::invalid_argument("a part of a level is checked in its pair only");
            // The part's configurations as the builder's layout of the pair orders them.
            const PairLayout layout(only.front());
            auto men = layout.men_indices_in(*slice_);
            for (int side = 0; side < layout.side_count(); ++side)
                part_men_[layout.index(side).material()] = std::move(men[static_cast<std::size_t>(side)]);
        }
        const auto present = materials_in_folder(dir_);
        if (present.empty() && only.empty())  // nothing checked is not "ok"
            throw std::runtime_error("no databases (*.wdl files) in " + dir_.string());
        present_.insert(present.begin(), present.end());
        std::vector<Material> targets = only.empty() ? present : only;
        const auto last_read = last_reads(targets);
        for (std::size_t i = 0; i < targets.size(); ++i) {
            const Material& m = targets[i];
            const std::string fingerprint = record_.on() ? fingerprint_of(m) : std::string();
            if (const auto positions = record_.recorded(m, fingerprint)) {
                log_ << "checked before (" << record_.path().string() << "): " << m.name() << '\n' << std::flush;
                report_.positions_checked += *positions;
                ++report_.materials_skipped;
            } else {
                check_with_record(m, fingerprint, i + 1, targets.size());
            }
            drop_tables_read_before(i + 1, last_read);
        }
        return std::move(report_);
    }

private:
    void check_with_record(const Material& m, const std::string& fingerprint, std::size_t number, std::size_t count) {
        const auto start = std::chrono::steady_clock::now();
        const std::size_t errors = report_.errors.size();
        const std::uint64_t inconsistencies = report_.inconsistency_count, positions = report_.positions_checked;
        bool checked = false;
        if (load(m) && load(m.mirror())) {
            const bool with_dtw = has_dtw_file(m) && load_dtw(m) && load_dtw(m.mirror());
            check_material(m, with_dtw, number, count);
            checked = true;
        }
        const bool sound = checked && report_.errors.size() == errors && report_.inconsistency_count == inconsistencies;
        if (record_.on() && sound)
            record_.add(m, fingerprint, report_.positions_checked - positions,
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }

    // The files m's check reads (names, sizes, modification times), and the levels checked.
    std::string fingerprint_of(const Material& m) const {
        std::ostringstream what;
        if (slice_) what << "levels " << slice_->levels.lowest << '-' << slice_->levels.highest;
        if (slice_ && slice_->parts > 1) what << " part " << slice_->part + 1 << '/' << slice_->parts;
        for (const Material& r : materials_read_by(m))
            for (const fs::path& file : {dir_ / format::wdl_file_name(r), dir_ / format::dtw_file_name(r)}) {
                std::error_code error;
                const auto size = fs::file_size(file, error);
                if (error) continue;  // absent: the check reports it, or there are no distances
                what << ';' << file.filename().string() << ':' << size << ':'
                     << fs::last_write_time(file, error).time_since_epoch().count();
            }
        const std::string text = what.str();
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH64(text.data(), text.size(), 0)));
        return hex;
    }

    // The materials whose tables the check of m reads: m, its mirror, and what either reaches in
    // one move.
    static std::set<Material> materials_read_by(const Material& m) {
        std::set<Material> read{m, m.mirror()};
        for (const Material& side : {m, m.mirror()})
            for (const Material& s : successor_materials(side)) read.insert(s);
        return read;
    }

    // For each material, the last target whose check reads its tables.
    static std::map<Material, std::size_t> last_reads(const std::vector<Material>& targets) {
        std::map<Material, std::size_t> out;
        for (std::size_t i = 0; i < targets.size(); ++i)
            for (const Material& read : materials_read_by(targets[i])) out[read] = i;
        return out;
    }

    // Frees the tables that no target from `next` on reads (a 2-6 folder with distances to win
    // would not fit in memory at once), also those loaded only to resolve another's captures.
    void drop_tables_read_before(std::size_t next, const std::map<Material, std::size_t>& last_read) {
        const auto unread = [&](const Material& m) {
            const auto it = last_read.find(m);
            return it == last_read.end() || it->second < next;
        };
        for (auto it = loaded_.begin(); it != loaded_.end();)
            if (unread(*it)) {
                tables_.remove(*it);
                dtw_.remove(*it);
                it = loaded_.erase(it);
            } else {
                ++it;
            }
    }

    // Loads m and everything it needs; false (with the reason recorded) when that fails.
    bool load(const Material& m) {
        if (tables_.contains(m)) return true;
        if (failed_.count(m)) return false;
        bool ok = true;
        for (const Material& s : successor_materials(m)) ok = load(s) && ok;
        if (!ok) return fail(m, "cannot be checked: a database it needs is missing or corrupt");
        if (!present_.count(m)) return fail(m, "missing file " + (dir_ / format::wdl_file_name(m)).string());
        try {
            log_ << "checking checksums of " << m.name() << '\n' << std::flush;
            load_finished(dir_, m, tables_);
            loaded_.insert(m);
        } catch (const std::exception& e) {
            return fail(m, e.what());
        }
        return true;
    }

    bool has_dtw_file(const Material& m) const { return fs::exists(dir_ / format::dtw_file_name(m)); }

    // Loads the DTW of m and its mirror and of everything they need; false (with the reason
    // recorded) on failure. The two sides load together: in a losses-only file a win's distance
    // comes from the positions after its moves, in the other side. A win with no lost position
    // after a move is reported here, as an error of the file.
    bool load_dtw(const Material& m) {
        if (dtw_.contains(m)) return true;
        if (dtw_failed_.count(m)) return false;
        bool ok = true;
        for (const Material& side : {m, m.mirror()})
            for (const Material& s : successor_materials(side)) ok = load(s) && load_dtw(s) && ok;
        ok = ok && load(m) && load(m.mirror());
        for (const Material& side : {m, m.mirror()})
            if (ok && !has_dtw_file(side)) {
                report_.errors.push_back(side.name() + ": missing file " + (dir_ / format::dtw_file_name(side)).string());
                ok = false;
            }
        if (ok) {
            try {
                log_ << "checking checksums of " << m.name() << " and its mirror (dtw)\n" << std::flush;
                load_finished_dtw_pair(dir_, m, tables_, dtw_);
                loaded_.insert({m, m.mirror()});
            } catch (const std::exception& e) {
                report_.errors.push_back(m.name() + " (dtw): " + e.what());
                ok = false;
            }
        }
        if (!ok) dtw_failed_.insert({m, m.mirror()});
        return ok;
    }

    bool fail(const Material& m, const std::string& why) {
        failed_.insert(m);
        report_.errors.push_back(m.name() + ": " + why);
        return false;
    }

    // The DTW the successors of a position without a capture imply (shortest win, longest loss,
    // 0 without a move).
    Dtw implied_dtw(const Position& pos) const { return dtw_.best_after(pos, generate_quiet_moves(pos)); }

    // What the king moves of every position of m lead to, when they can be found all at once.
    // (m is the `number`-th of `count` materials to check.)
    std::optional<KingMoveValues> king_move_values(const Material& m, std::size_t number, std::size_t count) {
        const PackedValues* mirror = tables_.table(m.mirror());
        if (!mirror || !KingMoveValues::applies(m)) return std::nullopt;
        char label[96];
        std::snprintf(label, sizeof label, "[%zu/%zu] %s king moves", number, count, m.name().c_str());
        std::optional<KingMoveValues> out(
            std::in_place, m, *mirror,
            [&, index = PositionIndex(m)](const MenConfig& men) { return in_slice(m, men, [&] { return index.men_index(men); }); },
            [&](double done) { report_progress(label, done); });
        progress_.finish();
        return out;
    }

    // Updates the progress line from one of the threads; the others go on.
    void report_progress(const char* label, double done) {
        if (!progress_mutex_.try_lock()) return;
        progress_.update(label, done);
        progress_mutex_.unlock();
    }

    // The value a position without a capture has by its successors, given what its king moves
    // lead to: only its man moves are still looked up, and not even those when a king move wins.
    Value implied_value(const Position& pos, Value after_king_moves) const {
        if (after_king_moves == Value::Win) return Value::Win;
        return std::max(after_king_moves, tables_.best_after(pos, generate_quiet_man_moves(pos)));
    }

    // m is the `number`-th of `count` materials to check (the head of its progress line).
    void check_material(const Material& m, bool with_dtw, std::size_t number, std::size_t count) {
        log_ << "checking values of " << m.name() << (with_dtw ? " and distances to win" : "");
        if (slice_) log_ << ", men advancement " << slice_->levels.lowest << "-" << slice_->levels.highest << " only";
        if (slice_ && slice_->parts > 1) log_ << ", part " << slice_->part + 1 << " of " << slice_->parts;
        log_ << '\n' << std::flush;
        const PositionIndex index(m);
        char label[96];
        std::snprintf(label, sizeof label, "[%zu/%zu] %s checking values", number, count, m.name().c_str());
        std::atomic<std::uint64_t> checked{0}, visited{0};
        const std::uint64_t per_config = index.king_placements();
        const std::optional<KingMoveValues> kings = king_move_values(m, number, count);
        tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, index.size(), 4096), [&](const auto& r) {
            std::uint64_t local = 0;
            PositionWalker walker(index, r.begin());
            bool walker_at_i = true;  // false after skipping configurations outside the levels
            for (std::uint64_t i = r.begin(); i != r.end(); ++i) {
                if (walker_at_i && i != r.begin()) walker.next();
                if (slice_ && (i == r.begin() || i % per_config == 0)) {
                    // One configuration's king placements share its slice: skip them all at once.
                    const std::uint64_t config = i / per_config;
                    const MenConfig men = walker_at_i ? men_config_of(walker.current()) : index.men_config(config);
                    if (!in_slice(m, men, [&] { return config; })) {
                        i = std::min(r.end(), (config + 1) * per_config) - 1;
                        walker_at_i = false;
                        continue;
                    }
                    if (!walker_at_i) walker = PositionWalker(index, i);
                    walker_at_i = true;
                }
                const Position& pos = walker.current();
                if (has_capture(pos)) continue;
                ++local;
                const Value implied =
                    kings ? implied_value(pos, kings->best(i)) : tables_.best_after(pos, generate_quiet_moves(pos));
                const Value stored = tables_.value_of(pos);
                if (stored != implied) record({to_fen(pos), stored, implied, std::nullopt, std::nullopt});
                if (with_dtw && stored == implied && stored != Value::Draw) {
                    const Dtw stored_dtw = dtw_.dtw_of(pos), expected = implied_dtw(pos);
                    if (stored_dtw != expected) record({to_fen(pos), stored, implied, stored_dtw, expected});
                }
            }
            checked += local;
            const std::uint64_t done = visited += r.size();
            if (done < index.size()) report_progress(label, static_cast<double>(done) / static_cast<double>(index.size()));
        });
        progress_.finish();
        report_.positions_checked += checked;
    }

    void record(Inconsistency found) {
        const std::lock_guard lock(mutex_);
        ++report_.inconsistency_count;
        if (report_.inconsistencies.size() < max_reported_) report_.inconsistencies.push_back(std::move(found));
    }

    fs::path dir_;
    std::ostream& log_;
    std::size_t max_reported_;
    // Whether men (of m, whose men index men_index() gives) are in the slice checked.
    template <typename MenIndex>
    bool in_slice(const Material& m, const MenConfig& men, MenIndex&& men_index) const {
        if (!slice_) return true;
        const int level = men_advancement(men);
        if (level < slice_->levels.lowest || level > slice_->levels.highest) return false;
        if (slice_->parts == 1) return true;
        const auto it = part_men_.find(m);
        return it != part_men_.end() && std::binary_search(it->second.begin(), it->second.end(), men_index());
    }

    std::optional<Slice> slice_;
    std::map<Material, std::vector<std::uint64_t>> part_men_;  // a part's configurations, per material
    CheckRecord record_;
    std::set<Material> present_;
    std::set<Material> failed_;
    std::set<Material> dtw_failed_;
    std::set<Material> loaded_;  // materials whose WDL (and maybe DTW) tables are in memory
    ValueTables tables_;
    DtwTables dtw_;
    VerifyReport report_;
    std::mutex mutex_;
    ProgressLine progress_;
    std::mutex progress_mutex_;
};

}  // namespace

VerifyReport verify_folder(const fs::path& dir, const std::vector<Material>& only, std::ostream& log,
                           std::size_t max_reported, std::optional<Slice> slice, const fs::path& record) {
    return Verifier(dir, log, max_reported, slice, record).run(only);
}

}  // namespace dtb
