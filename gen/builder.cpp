#include "gen/builder.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <ostream>
#include <set>

#include <fcntl.h>
#include <sys/file.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include "gen/progress.hpp"
#include "probe/table_file.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;

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

// Refuses folders holding files this version cannot read or extend, before any work is done.
void check_existing_files(const fs::path& dir) {
    for (const auto& entry : fs::directory_iterator(dir)) {
        const fs::path& p = entry.path();
        if (p.extension() == ".tmp") {
            fs::remove(p);  // left by a killed build; never a finished file
            continue;
        }
        if (p.extension() != format::kWdlSuffix) continue;
        const TableFile file(p);  // throws TableError naming the file and the problem
        if (format::wdl_file_name(file.header().material) != p.filename())
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

PackedValues pack_resolved(const std::vector<std::uint8_t>& values) {
    PackedValues packed(values.size());
    for (std::uint64_t i = 0; i < values.size(); ++i) packed.set(i, static_cast<Value>(values[i] & kValueMask));
    return packed;
}

class Builder {
public:
    Builder(const BuildOptions& options, std::ostream& log)
        : options_(options), log_(log), progress_(log, ::isatty(STDERR_FILENO) != 0) {}

    void run() {
        fs::create_directories(options_.dir);
        FolderLock lock(options_.dir);
        check_existing_files(options_.dir);
        const auto plan = build_plan(options_);
        std::set<Material> done;
        for (std::size_t i = 0; i < plan.size(); ++i) {
            const Material& m = plan[i];
            if (done.count(m)) continue;
            done.insert(m);
            done.insert(m.mirror());
            if (has_file(options_.dir, m) && has_file(options_.dir, m.mirror())) continue;
            solve_and_write(m, i, plan.size());
        }
        progress_.finish();
    }

private:
    void ensure_loaded(const Material& m) {
        if (tables_.contains(m)) return;
        for (const Material& s : successor_materials(m)) ensure_loaded(s);
        load_finished(options_.dir, m, tables_);
    }

    void solve_and_write(const Material& m, std::size_t position, std::size_t plan_size) {
        for (const Material& side : {m, m.mirror()})
            for (const Material& s : successor_materials(side)) ensure_loaded(s);
        const auto start = std::chrono::steady_clock::now();
        std::string label = "[";
        label += std::to_string(position + 1);
        label += '/';
        label += std::to_string(plan_size);
        label += "] ";
        label += m.name();
        auto solved = solve_material_pair(m, tables_, [&](double f) { progress_.update(label + " solving", f); });
        for (const SolvedMaterial& s : solved) {
            if (!has_file(options_.dir, s.material)) {
                const WrittenFile written = write_wdl_file(options_.dir, s, options_.write);
                const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                progress_.finish();
                log_ << summary_line(written, seconds) << '\n' << std::flush;
            }
            tables_.add(s.material, pack_resolved(s.values));
        }
    }

    const BuildOptions& options_;
    std::ostream& log_;
    ProgressLine progress_;
    ValueTables tables_;
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

std::vector<std::uint8_t> read_solver_values(const fs::path& dir, const Material& m) {
    const TableFile file(dir / format::wdl_file_name(m));
    const format::Header& h = file.header();
    const PositionIndex index(m);
    if (h.material != m || h.positions != index.size())
        throw TableError(file.path().string() + ": header does not match material " + m.name());
    std::vector<std::uint8_t> values(h.positions);
    tbb::parallel_for(std::uint64_t{0}, h.block_count, [&](std::uint64_t b) {
        std::vector<std::uint8_t> block;
        file.read_block(b, block);
        const std::uint64_t first = b * h.positions_per_block;
        const std::uint64_t count = std::min<std::uint64_t>(h.positions_per_block, h.positions - first);
        for (std::uint64_t i = 0; i < count; ++i) {
            const Value v = format::unpack_value(block.data(), i);
            if (v == Value::Unknown) throw TableError(file.path().string() + ": invalid value in block " + std::to_string(b));
            values[first + i] = static_cast<std::uint8_t>(v) | (has_capture(index.position(first + i)) ? kCaptureFlag : 0);
        }
    });
    return values;
}

void load_finished(const fs::path& dir, const Material& m, ValueTables& tables) {
    std::vector<std::uint8_t> values = read_solver_values(dir, m);
    const PositionIndex index(m);
    tbb::parallel_for(std::uint64_t{0}, static_cast<std::uint64_t>(values.size()), [&](std::uint64_t i) {
        if (values[i] & kCaptureFlag) values[i] = static_cast<std::uint8_t>(tables.resolve_captures(index.position(i)));
    });
    tables.add(m, pack_resolved(values));
}

void build(const BuildOptions& options, std::ostream& log) { Builder(options, log).run(); }

}  // namespace dtb
