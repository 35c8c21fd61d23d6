// `dtb gen`, `dtb verify`, `dtb stats`, `dtb upgrade`: building and checking databases.
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include <tbb/global_control.h>
#include <unistd.h>

#include "gen/builder.hpp"
#include "gen/memory_plan.hpp"
#include "gen/slices.hpp"
#include "gen/upgrade.hpp"
#include "gen/verify.hpp"
#include "gen/workflow.hpp"
#include "probe/table_file.hpp"
#include "rules/fen.hpp"
#include "tools/commands.hpp"

namespace dtb::cli {
namespace {

std::unique_ptr<tbb::global_control> limit_threads(int threads) {
    if (threads <= 0) return nullptr;
    return std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                 static_cast<std::size_t>(threads));
}

// Two thirds of this machine's memory: room for the page cache, the rest of the system and the
// estimates' slack.
double default_memory_gib() {
    const double bytes = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
    return bytes > 0 ? std::floor(bytes * 2 / 3 / (1u << 30)) : 0;
}

struct GenOptions {
    std::string out = "db";
    int pieces = 4;
    int max_per_side = 20;
    int threads = 0;
    std::vector<std::string> materials;
    int level = WriteOptions{}.zstd_level;
    int dtw_level = WriteOptions{}.dtw_zstd_level;
    std::uint32_t block = WriteOptions{}.positions_per_block;
    bool dtw = false;
    bool dtw_store_wins = false;
    bool keep_copies = false;
    int slices = 1;
    bool slices_given = false;  // --slices on the command line (otherwise as --memory needs)
    bool memory_given = false;  // --memory on the command line (a task otherwise takes its plan's)
    double memory_gib = default_memory_gib();
    std::string task;
};

// The task `id` of DIR/plan.tsv (dtb plan); std::invalid_argument (exit 2) for an unknown one.
WorkflowTask plan_task(const std::filesystem::path& dir, const std::string& id, WorkflowPlan& plan) {
    plan = read_plan_tsv(dir / "plan.tsv");
    const WorkflowTask* task = plan.find(id);
    if (task == nullptr) throw std::invalid_argument("no task '" + id + "' in " + (dir / "plan.tsv").string());
    return *task;
}

int run_gen(const GenOptions& o) {
    const auto threads = limit_threads(o.threads);
    BuildOptions options;
    options.dir = o.out;
    options.max_pieces = o.pieces;
    options.max_per_side = o.max_per_side;
    options.only = parse_materials(o.materials);
    options.dtw = o.dtw;
    options.write.zstd_level = o.level;
    options.write.dtw_zstd_level = o.dtw_level;
    options.write.dtw_store_wins = o.dtw_store_wins;
    options.write.positions_per_block = o.block;
    options.memory_bytes = static_cast<std::uint64_t>(o.memory_gib * (1u << 30));
    options.keep_copies = o.keep_copies;
    options.slices = o.slices_given ? o.slices : MemoryPlan::kSlicesWithinLimit;
    if (!o.task.empty()) {
        WorkflowPlan plan;
        const WorkflowTask task = plan_task(o.out, o.task, plan);
        options.only = task.materials;
        options.task = o.task;
        options.slices = plan.slices_of(task);
        options.slice_step = slice_step_of_task(task);
        options.max_pieces = plan.options.max_pieces;
        options.max_per_side = plan.options.max_per_side;
        options.dtw = plan.options.dtw;
        // The plan's budget, unless --memory says otherwise.
        if (plan.options.memory_bytes != 0 && !o.memory_given) options.memory_bytes = plan.options.memory_bytes;
    }
    build(options, std::cerr);
    return kExitOk;
}

int run_verify(const std::string& dir, const std::vector<std::string>& names, const std::string& task, int threads,
               const std::string& record) {
    const auto limit = limit_threads(threads);
    std::vector<Material> materials = parse_materials(names);
    std::optional<Slice> slice;
    if (!task.empty()) {
        WorkflowPlan plan;
        const WorkflowTask t = plan_task(dir, task, plan);
        materials = t.materials;
        // A slice task: its slice's positions in the pair's files (written by the pair's task).
        if (const int k = slice_step_of_task(t); k > 0)
            slice = slice_at_step(t.materials.front(), plan.slices_of(t), k);
    }
    const VerifyReport report = verify_folder(dir, materials, std::cerr, 10, slice, record);
    for (const std::string& e : report.errors) std::cout << "error\t" << e << '\n';
    for (const Inconsistency& i : report.inconsistencies)
        if (i.stored_dtw)
            std::cout << "inconsistent\t" << i.fen << "\tstored dtw " << *i.stored_dtw << "\timplied dtw "
                      << *i.implied_dtw << '\n';
        else
            std::cout << "inconsistent\t" << i.fen << "\tstored " << value_name(i.stored) << "\timplied "
                      << value_name(i.implied) << '\n';
    std::cout << (report.ok() ? "ok" : "FAILED") << "\tpositions checked " << report.positions_checked
              << "\tinconsistencies " << report.inconsistency_count << "\tfile errors " << report.errors.size();
    if (report.materials_skipped > 0) std::cout << "\tmaterials checked before " << report.materials_skipped;
    std::cout << '\n';
    if (const auto old = files_of_older_versions(dir); !old.empty())
        std::cerr << "note: " << old.size() << " files (" << old.front() << (old.size() > 1 ? ", ..." : "")
                  << ") are of format version 1, whose blocks are not checked in their places; `dtb upgrade --db "
                  << dir << "` rewrites them as version " << format::kFormatVersion << " (docs/FORMAT.md)\n";
    return report.ok() ? kExitOk : kExitFindings;
}

// The longest win recorded in a material's .dtw file and an example position; empty without one.
struct LongestWin {
    std::string dtw, fen, bytes;
};

LongestWin longest_win(const std::filesystem::path& dir, const Material& m) {
    const std::filesystem::path path = dir / format::dtw_file_name(m);
    if (!std::filesystem::exists(path)) return {};
    const TableFile file(path, format::FileKind::Dtw);
    const format::Header& h = file.header();
    const std::string bytes = std::to_string(file.file_bytes());
    if (h.longest_win == 0) return {"", "", bytes};
    return {std::to_string(h.longest_win), to_fen(PositionIndex(m).position(h.longest_win_index)), bytes};
}

int run_upgrade(const std::string& dir) {
    const UpgradeReport report = upgrade_folder(dir, [](const std::string& name, UpgradeOutcome outcome, const std::string& reason) {
        if (outcome == UpgradeOutcome::Failed)
            std::cerr << "dtb: " << reason << '\n';
        else
            std::cout << (outcome == UpgradeOutcome::Upgraded ? "upgraded\t" : "current\t") << name << std::endl;
    });
    std::cout << report.upgraded.size() << " files rewritten as format version " << format::kFormatVersion << ", "
              << report.current << " already of it, " << report.errors.size() << " not readable\n";
    if (report.upgraded.empty() && report.current == 0 && report.errors.empty())
        throw std::runtime_error("no databases (*.wdl, *.dtw files) in " + dir);
    return report.errors.empty() ? kExitOk : kExitFailure;
}

int run_stats(const std::string& dir, bool tsv) {
    const auto materials = materials_in_folder(dir);
    if (materials.empty()) throw std::runtime_error("no databases (*.wdl files) in " + dir);
    if (tsv)
        std::cout << "material\twhite_men\twhite_kings\tblack_men\tblack_kings\tpositions\tcaptures\twins\tdraws\tlosses"
                     "\tbytes\tlongest_win_dtw\tlongest_win_fen\tdtw_bytes\n";
    else
        std::printf("%-10s %14s %14s %14s %14s %14s %12s %8s  %s\n", "material", "positions", "captures", "wins", "draws",
                    "losses", "bytes", "longest", "example of the longest win");
    int status = kExitOk;
    for (const Material& m : materials) {
        try {
            const TableFile file(std::filesystem::path(dir) / format::wdl_file_name(m));
            const format::Header& h = file.header();
            const LongestWin win = longest_win(dir, m);
            if (tsv)
                std::cout << m.name() << '\t' << m.white_men << '\t' << m.white_kings << '\t' << m.black_men << '\t'
                          << m.black_kings << '\t' << h.positions << '\t' << h.captures << '\t' << h.wins << '\t'
                          << h.draws << '\t' << h.losses << '\t' << file.file_bytes() << '\t' << win.dtw << '\t'
                          << win.fen << '\t' << win.bytes << '\n';
            else
                std::printf("%-10s %14llu %14llu %14llu %14llu %14llu %12llu %8s  %s\n", m.name().c_str(),
                            (unsigned long long)h.positions, (unsigned long long)h.captures,
                            (unsigned long long)h.wins, (unsigned long long)h.draws, (unsigned long long)h.losses,
                            (unsigned long long)file.file_bytes(), win.dtw.c_str(), win.fen.c_str());
        } catch (const TableError& e) {
            std::cerr << "dtb: " << e.what() << '\n';
            status = kExitFailure;
        }
    }
    return status;
}

}  // namespace

void add_gen_commands(CLI::App& app, Runner& run) {
    auto g = std::make_shared<GenOptions>();
    auto* gen = app.add_subcommand("gen", "Build the win/draw/loss databases of every material of up to N pieces that DIR lacks");
    gen->add_option("-n,--pieces", g->pieces, "Largest number of pieces")->check(CLI::Range(2, 8))->capture_default_str();
    gen->add_option("-o,--out", g->out, "Database folder (created if needed; finished files are kept and reused)")
        ->capture_default_str();
    gen->add_option("-t,--threads", g->threads, "Worker threads (default: all cores)")->check(CLI::Range(1, 1024));
    gen->add_option("--max-per-side", g->max_per_side, "Largest number of pieces per side")
        ->check(CLI::Range(1, 20))
        ->capture_default_str();
    gen->add_option("-m,--material", g->materials, "Build only these materials (e.g. KMvK, or KMvK,KKvK) and what they need")->delimiter(',');
    gen->add_option("--zstd-level", g->level, "zstd compression level of the WDL files")
        ->check(CLI::Range(1, 22))
        ->capture_default_str();
    gen->add_option("--dtw-zstd-level", g->dtw_level, "zstd compression level of the DTW files")
        ->check(CLI::Range(1, 22))
        ->capture_default_str();
    gen->add_option("--block-positions", g->block, "Positions per compressed block (multiple of 5)")
        ->check(block_positions_check())
        ->capture_default_str();
    gen->add_flag("--dtw", g->dtw, "Also write <material>.dtw files: distance to win in plies (docs/FORMAT.md)");
    gen->add_flag("--dtw-store-wins", g->dtw_store_wins,
                  "Store the wins' distances too (encodings 2, 3: 2.4 times larger on 2-4 pieces; no search at probe time)");
    auto* memory = gen->add_option("--memory", g->memory_gib,
                    "Memory the build stays near, in GiB (0: no limit). Finished tables a later material needs "
                    "beyond it wait as scratch copies in OUT/.dtb-spill; tables a pair reads beyond it are read "
                    "from their files through a block cache (default: two thirds of this machine's; a --task takes "
                    "its plan's, dtb plan --memory, if it has one)")
        ->check(memory_gib_check())
        ->capture_default_str();
    gen->add_flag("--keep-copies", g->keep_copies,
                  "Keep OUT/.dtb-spill, the copies of the finished tables with their capture positions resolved, "
                  "after the build, so that a later build in OUT (--dtw after a WDL build, more pieces) starts from "
                  "them instead of searching every capture position again (removed at the end otherwise)");
    auto* slices = gen->add_option("--slices", g->slices,
                    "Solve each material pair in this many slices of men-advancement levels (beyond its number of "
                    "levels, its levels cut into parts), one after another, each kept in OUT/.dtb-slices until "
                    "the pair's files are written: the solver then holds one slice's values at a time. The files "
                    "are the same bytes. "
                    "Win/draw/loss only: --dtw solves whole pairs (default: whole pairs, but a pair whose solver "
                    "and the tables it reads pass --memory in the fewest slices whose solver takes at most half of it)")
        ->check(CLI::Range(1, 1000));
    auto* task = gen->add_option("--task", g->task,
                                 "Run one task of OUT/plan.tsv (written by dtb plan): its materials only, from the "
                                 "finished files of the tasks before it; other tasks may run in OUT at once");
    for (const char* fixed_by_plan : {"--pieces", "--max-per-side", "--material", "--dtw", "--slices"})
        task->excludes(gen->get_option(fixed_by_plan));
    gen->footer("Progress goes to stderr, with one summary line per material. Rerun after an interruption: finished files are kept.");
    gen->callback([&run, g, memory, slices] {
        g->memory_given = memory->count() > 0;
        g->slices_given = slices->count() > 0;
        run = [g] { return run_gen(*g); };
    });

    auto verify_dir = std::make_shared<std::string>();
    auto verify_names = std::make_shared<std::vector<std::string>>();
    auto verify_threads = std::make_shared<int>(0);
    auto verify_task = std::make_shared<std::string>();
    auto verify_record = std::make_shared<std::string>();
    auto* verify = app.add_subcommand("verify", "Check every checksum and every stored value against its successors");
    verify->add_option("-d,--db", *verify_dir, "Database folder")->required();
    auto* only = verify->add_option("-m,--material", *verify_names, "Check only these materials")->delimiter(',');
    verify->add_option("--task", *verify_task,
                       "Check only the materials of this task of DB/plan.tsv (dtb plan); for a slice task "
                       "(PAIR.sK), only its slice's positions, in the pair's files")
        ->excludes(only);
    verify->add_option("-t,--threads", *verify_threads, "Worker threads (default: all cores)")->check(CLI::Range(1, 1024));
    verify->add_option("--record", *verify_record,
                       "Append each material found sound to this file, and skip the materials it records whose "
                       "files have not changed since: a long check stopped can be run again to resume");
    verify->footer("Exit code 0 only if everything holds; otherwise the first inconsistencies are printed.");
    verify->callback([&run, verify_dir, verify_names, verify_task, verify_threads, verify_record] {
        run = [=] { return run_verify(*verify_dir, *verify_names, *verify_task, *verify_threads, *verify_record); };
    });

    auto upgrade_dir = std::make_shared<std::string>();
    auto* upgrade = app.add_subcommand("upgrade", "Rewrite database files of format version 1 as version 2, their values unchanged");
    upgrade->add_option("-d,--db", *upgrade_dir, "Database folder")->required();
    upgrade->footer(
        "Version 2 binds every block to its place in the file (docs/FORMAT.md); a file keeps its size. Each file is "
        "written under a temporary name, read back and renamed, under the folder's lock (no dtb gen may write "
        "there meanwhile). A block that does not read is not carried over: that file stays as it was and the exit "
        "code is 3; so it is for a symbolic link to a version-1 file (upgrade the folder that holds it). Version 1 cannot tell a block moved within its file, so run `dtb verify` on the folder "
        "afterwards if its files' history is unknown.");
    upgrade->callback([&run, upgrade_dir] { run = [=] { return run_upgrade(*upgrade_dir); }; });

    auto stats_dir = std::make_shared<std::string>();
    auto stats_tsv = std::make_shared<bool>(false);
    auto* stats = app.add_subcommand("stats", "One row per material: positions, captures, wins, draws, losses, bytes; with .dtw files the longest win and an example");
    stats->add_option("-d,--db", *stats_dir, "Database folder")->required();
    stats->add_flag("--tsv", *stats_tsv, "Tab-separated with a header row");
    stats->callback([&run, stats_dir, stats_tsv] { run = [=] { return run_stats(*stats_dir, *stats_tsv); }; });
}

}  // namespace dtb::cli
