#include "gen/workflow.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "gen/builder.hpp"
#include "gen/memory_plan.hpp"
#include "gen/slices.hpp"
#include "index/position_index.hpp"

namespace dtb {
namespace {

// Rates measured here (docs/WORKFLOW.md, "Estimates"): the CPU seconds a position took in the 2-6
// WDL build, and what a --dtw build adds (the 2-5 DTW pass took 0.92 times the WDL build); the
// compressed bytes a position of the 2-6 .wdl files (802,510,375 bytes, 47,812,145,845 positions)
// and the .dtw files' size against the .wdl files on 2-5 (54,099,157 against 30,301,852 bytes).
constexpr double kWdlCpuSecondsPerPosition = 2.0 / 10.6e6;
constexpr double kDtwCpuFactor = 0.92;
constexpr double kWdlBytesPerPosition = 802'510'375.0 / 47'812'145'845.0;
constexpr double kDtwBytesFactor = 54'099'157.0 / 30'301'852.0;
// Writing a sliced pair's files from its slice files against solving it: 4.1 s against 16.3 s for
// the KKMvKM pair, 2026-11-27 (docs/WORKFLOW.md).
constexpr double kWriteCpuFactor = 0.25;
// A kings-only pair solved in symmetry classes against held in cells: 0.53 times the time on
// KvKKKKK, 2026-11-28 (docs/BENCHMARKS.md, "Kings-only pairs in symmetry classes"). The rate
// above is the cells'.
constexpr double kClassesCpuFactor = 0.53;
// A pair solved with every table it reads through the block cache against all in memory: 28.4 s
// against 25.0 s for KKMvKM, 2026-11-27 (README, "Databases"). Where the cache holds less of what
// is read (7 and 8 pieces) it costs more; not measured.
constexpr double kThroughCacheCpuFactor = 1.14;

const std::string kPlanMagic = "# dtb plan";

bool is_slice_file(const std::string& name) { return name.rfind(".dtb-slices/", 0) == 0; }
// A slice task's output is a scratch file that the pair's task reads and the engine then removes.
bool is_slice_task(const WorkflowTask& t) { return t.outputs.size() == 1 && is_slice_file(t.outputs.front()); }

// Where Snakemake records each task's wall time and peak memory (its `benchmark:` files).
const std::string kBenchmarkFolder = ".dtb-benchmarks";
// Where make keeps a stamp for the parts of each level cut into parts (write_makefile).
const std::string kStampFolder = ".dtb-stamps";

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) {
        if (!out.empty()) out += ',';
        out += s;
    }
    return out;
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::string item;
    std::istringstream in(text);
    while (std::getline(in, item, sep))
        if (!item.empty()) out.push_back(item);
    return out;
}

// Every material whose table is in memory at some moment of reading `inputs` back from their
// files: their capture positions are resolved by search through the smaller materials, and a DTW
// read through every material one move away.
std::set<Material> read_back_closure(const std::vector<Material>& inputs, bool dtw) {
    std::set<Material> out;
    std::vector<Material> stack(inputs.begin(), inputs.end());
    while (!stack.empty()) {
        const Material m = stack.back();
        stack.pop_back();
        if (!out.insert(m).second) continue;
        for (const Material& side : {m, m.mirror()})
            for (const Material& s : dtw ? successor_materials(side) : capture_successor_materials(side))
                stack.push_back(s);
    }
    return out;
}

class PlanMaker {
public:
    explicit PlanMaker(const WorkflowOptions& options)
        : options_(options),
          order_(build_order(options)),
          memory_(order_, options.dtw, 0, [this](const Material& m) { return positions(m); }) {
        memory_.solve_on_threads(options.task_threads);
    }

    WorkflowPlan make() {
        WorkflowPlan plan{options_, {}};
        std::set<Material> seen;
        WorkflowTask group;
        for (const Material& m : order_) {
            if (seen.count(m)) continue;
            seen.insert(m);
            seen.insert(m.mirror());
            if (m.pieces() <= options_.group_pieces) {
                add_pair(group, m);
                continue;
            }
            WorkflowTask whole = pair_task(m);
            const int slices = slices_for(m, whole);
            if (slices > 1 && pair_slices(m, slices).size() > 1) {
                add_sliced_pair(plan, m, slices, std::move(whole));
                continue;
            }
            // A pair of one level (kings only) is one task whatever the slices. Its WDL solver takes
            // it in symmetry classes, over the budget without keeping its values
            // (MemoryPlan::compact_cells). With distances it is solved in one pass, in cells: the
            // task's peak is that pass's, which has no compact form, so the estimate stays.
            const bool over_budget = options_.memory_bytes != 0 && whole.memory_bytes > options_.memory_bytes;
            if (over_budget && !options_.dtw && PairLayout::largest_subgame(m) >= kLargeSubgamePositions)
                whole.memory_bytes = whole.memory_bytes - memory_.solver_bytes(m) + memory_.solver_bytes(m, true);
            plan.tasks.push_back(within_budget(std::move(whole), memory_.solver_bytes(m, true)));
        }
        if (!group.materials.empty()) {
            group.id = "upto" + std::to_string(group.pieces());
            plan.tasks.insert(plan.tasks.begin(), finish(std::move(group)));
        }
        return plan;
    }

private:
    static std::vector<Material> build_order(const WorkflowOptions& o) {
        BuildOptions b;
        b.max_pieces = o.max_pieces;
        b.max_per_side = o.max_per_side;
        b.only = o.only;
        return build_plan(b);
    }

    std::uint64_t positions(const Material& m) {
        auto [it, added] = positions_.try_emplace(m, 0);
        if (added) it->second = PositionIndex(m).size();
        return it->second;
    }

    // The task solving the whole pair of m.
    WorkflowTask pair_task(const Material& m) {
        WorkflowTask task;
        task.id = m.name();
        add_pair(task, m);
        return finish(std::move(task));
    }

    // The slices of the pair of m: as the options fix them; with a budget, the fewest whose solver
    // (a slice's values, its boundary, the cells of the largest subgame) takes at most half of it,
    // when `whole`, the whole pair's task, would not fit.
    int slices_for(const Material& m, const WorkflowTask& whole) const {
        if (options_.slices > 1 || options_.memory_bytes == 0 || options_.dtw) return options_.slices;
        if (whole.memory_bytes <= options_.memory_bytes) return 1;
        return memory_.slices_within(m, options_.memory_bytes / 2);
    }

    // With a budget, a task's estimate is at most the budget (the tables beyond it are read
    // through a block cache, which slows it), and at least its solver (`solver` bytes) and that cache.
    WorkflowTask within_budget(WorkflowTask task, std::uint64_t solver) const {
        if (options_.memory_bytes == 0 || task.memory_bytes <= options_.memory_bytes) return task;
        task.memory_bytes = std::max(options_.memory_bytes, solver + MemoryPlan::kInputCacheBytes);
        task.cpu_seconds *= kThroughCacheCpuFactor;
        return task;
    }

    // A task per slice, each reading the files of the slices just above it, then the task that
    // writes the pair's files from all of them; `whole` is the whole pair's task.
    void add_sliced_pair(WorkflowPlan& plan, const Material& m, int count, WorkflowTask whole) {
        const std::vector<Slice> slices = pair_slices(m, count);
        const std::vector<std::string> files = slice_file_names(m, count);
        const std::vector<std::uint64_t> by_level = pair_positions_by_level(m);
        const std::uint64_t solver = memory_.solver_bytes(m), subgame = PairLayout::largest_subgame(m);
        for (std::size_t k = 0; k < slices.size(); ++k) {
            const Slice& slice = slices[k];
            WorkflowTask task = whole;
            task.id = m.name() + ".s" + std::to_string(k + 1);
            for (std::size_t j = 0; j < k; ++j)
                if (slices[j].levels.lowest == slice.levels.highest + 1) task.inputs.push_back(files[j]);
            task.outputs = {files[k]};
            task.positions = slice_positions(slice, by_level);
            // The solver holds the slice's values and its boundary; the cells of its largest
            // subgame do not shrink with the slice. Where the task passes the budget, its large
            // subgames are held compact, as the builder then holds them (MemoryPlan::compact_cells).
            const std::uint64_t others = whole.memory_bytes - solver - own_tables_of(m);
            const std::uint64_t held = slice_solver_bytes(m, slice, by_level) + PairLayout::listing_bytes(m);
            std::uint64_t slice_solver = held + memory_.held_subgames_bytes(subgame, false);
            if (options_.memory_bytes != 0 && others + slice_solver > options_.memory_bytes &&
                subgame >= kLargeSubgamePositions)
                slice_solver = held + memory_.held_subgames_bytes(subgame, true);
            task.memory_bytes = others + slice_solver;
            task.cpu_seconds = static_cast<double>(task.positions) * kWdlCpuSecondsPerPosition;
            plan.tasks.push_back(within_budget(std::move(task), slice_solver));
        }
        whole.id = m.name();
        whole.inputs = files;
        // Writing streams the slice files into compressed blocks: a batch of raw blocks per stream,
        // and, as the configurations of all slices interleave in index order, an open reader of
        // configurations, one of values and one of capture bits in every slice file (about 1 MiB
        // each, ChunkedPartReader).
        whole.memory_bytes = (std::uint64_t{256} << 20) + files.size() * (std::uint64_t{3} << 20);
        whole.cpu_seconds = static_cast<double>(whole.positions) * kWdlCpuSecondsPerPosition * kWriteCpuFactor;
        plan.tasks.push_back(std::move(whole));
    }

    std::uint64_t own_tables_of(const Material& m) const {
        std::uint64_t out = memory_.table_bytes({m, false});
        if (m.mirror() != m) out += memory_.table_bytes({m.mirror(), false});
        return out;
    }

    void add_pair(WorkflowTask& task, const Material& m) {
        task.materials.push_back(m);
        if (m.mirror() != m) task.materials.push_back(m.mirror());
    }

    WorkflowTask finish(WorkflowTask task) {
        const std::vector<Material> inputs = materials_read_by(task.materials);
        task.inputs = table_files(inputs, options_.dtw);
        task.outputs = table_files(task.materials, options_.dtw);
        std::uint64_t solver = 0;
        double wdl_cpu_seconds = 0;
        for (const Material& m : task.materials) {
            task.positions += positions(m);
            solver = std::max(solver, memory_.solver_bytes(m));
            // Kings-only pairs are solved in symmetry classes (with distances: in one pass, in cells).
            const double factor = m.men() == 0 && !options_.dtw ? kClassesCpuFactor : 1.0;
            wdl_cpu_seconds += static_cast<double>(positions(m)) * kWdlCpuSecondsPerPosition * factor;
        }
        std::uint64_t tables = 0;
        for (const Material& m : read_back_closure(inputs, options_.dtw))
            for (const bool dtw : {false, true})
                if (!dtw || options_.dtw) tables += memory_.table_bytes({m, dtw});
        // The task's own finished pairs stay in memory while later pairs of a group read them.
        for (const Material& m : task.materials) tables += memory_.table_bytes({m, false});
        task.memory_bytes = tables + solver;
        task.cpu_seconds = wdl_cpu_seconds * (options_.dtw ? 1 + kDtwCpuFactor : 1.0);
        return task;
    }

    const WorkflowOptions& options_;
    std::map<Material, std::uint64_t> positions_;  // declared before memory_, which reads it
    std::vector<Material> order_;
    MemoryPlan memory_;
};

std::uint64_t mem_mb(const WorkflowTask& t) { return t.memory_bytes / (1u << 20) + 64; }  // + the process itself

std::string material_names(const std::vector<Material>& ms) {
    std::vector<std::string> names;
    for (const Material& m : ms) names.push_back(m.name());
    return join(names);
}

[[noreturn]] void bad_plan(const std::filesystem::path& path, std::size_t line, const std::string& what) {
    throw std::runtime_error(path.string() + ":" + std::to_string(line) + ": " + what +
                             " (not a plan written by dtb plan; write it again)");
}

WorkflowOptions parse_options_line(const std::filesystem::path& path, const std::string& line) {
    if (line.rfind(kPlanMagic, 0) != 0) bad_plan(path, 1, "no '" + kPlanMagic + "' line");
    WorkflowOptions o;
    std::istringstream in(line.substr(kPlanMagic.size()));
    std::string word;
    std::set<std::string> found;
    while (in >> word) {
        const auto eq = word.find('=');
        if (eq == std::string::npos) bad_plan(path, 1, "'" + word + "' is not KEY=VALUE");
        const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
        int number = 0;
        if (std::sscanf(value.c_str(), "%d", &number) != 1) bad_plan(path, 1, "'" + word + "' is not a number");
        if (key == "pieces") o.max_pieces = number;
        else if (key == "max_per_side") o.max_per_side = number;
        else if (key == "dtw") o.dtw = number != 0;
        else if (key == "group_pieces") o.group_pieces = number;
        else if (key == "task_threads") o.task_threads = number;
        else if (key == "slices") o.slices = number;
        else if (key == "memory_mb") o.memory_bytes = static_cast<std::uint64_t>(number) << 20;
        else continue;  // a later version's option: ignored
        found.insert(key);
    }
    if (!found.count("pieces") || !found.count("dtw")) bad_plan(path, 1, "the options line lacks pieces= or dtw=");
    return o;
}

std::vector<Material> parse_material_list(const std::filesystem::path& path, std::size_t line, const std::string& text) {
    std::vector<Material> out;
    for (const std::string& name : split(text, ',')) {
        const auto m = parse_material(name);
        if (!m) bad_plan(path, line, "unknown material '" + name + "'");
        out.push_back(*m);
    }
    if (out.empty()) bad_plan(path, line, "a task without materials");
    return out;
}

std::string quoted_list(const std::vector<std::string>& files) {
    std::string out;
    for (const std::string& f : files) out += (out.empty() ? "\"" : ", \"") + f + "\"";
    return out;
}

}  // namespace

int slice_step_of_task(const WorkflowTask& task) {
    if (is_slice_task(task)) return std::stoi(task.id.substr(task.id.rfind(".s") + 2));
    for (const std::string& input : task.inputs)
        if (is_slice_file(input)) return BuildOptions::kWriteFromSlices;
    return BuildOptions::kAllSlices;
}

std::string pair_of_task(const WorkflowTask& task) {
    return is_slice_task(task) ? task.id.substr(0, task.id.rfind(".s")) : task.id;
}

int WorkflowPlan::slices_of(const WorkflowTask& task) const {
    if (slice_step_of_task(task) == BuildOptions::kAllSlices) return 1;
    const std::string pair = pair_of_task(task);
    int count = 0;
    for (const WorkflowTask& t : tasks)
        if (is_slice_task(t) && pair_of_task(t) == pair) ++count;
    return count;
}

const WorkflowTask* WorkflowPlan::find(const std::string& id) const {
    for (const WorkflowTask& t : tasks)
        if (t.id == id) return &t;
    return nullptr;
}

WorkflowPlan make_workflow_plan(const WorkflowOptions& options) { return PlanMaker(options).make(); }

void write_plan_tsv(const WorkflowPlan& plan, std::ostream& out) {
    const WorkflowOptions& o = plan.options;
    out << kPlanMagic << " pieces=" << o.max_pieces << " max_per_side=" << o.max_per_side << " dtw=" << (o.dtw ? 1 : 0)
        << " group_pieces=" << o.group_pieces << " task_threads=" << o.task_threads << " slices=" << o.slices
        << " memory_mb=" << (o.memory_bytes >> 20) << '\n';
    out << "task\tpieces\tmaterials\tinputs\toutputs\tpositions\tmem_mb\tcpu_seconds\n";
    for (const WorkflowTask& t : plan.tasks) {
        char cpu[32];
        std::snprintf(cpu, sizeof cpu, "%.1f", t.cpu_seconds);
        out << t.id << '\t' << t.pieces() << '\t' << material_names(t.materials) << '\t' << join(t.inputs) << '\t'
            << join(t.outputs) << '\t' << t.positions << '\t' << mem_mb(t) << '\t' << cpu << '\n';
    }
}

WorkflowPlan read_plan_tsv(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path.string() + " (write it with dtb plan)");
    std::string line;
    if (!std::getline(in, line)) bad_plan(path, 1, "empty file");
    WorkflowPlan plan{parse_options_line(path, line), {}};
    if (!std::getline(in, line) || line.rfind("task\t", 0) != 0) bad_plan(path, 2, "no header row");
    for (std::size_t number = 3; std::getline(in, line); ++number) {
        std::vector<std::string> fields;
        std::istringstream cells(line);
        for (std::string cell; std::getline(cells, cell, '\t');) fields.push_back(cell);
        if (fields.size() != 8) bad_plan(path, number, "expected 8 tab-separated fields");
        WorkflowTask t;
        t.id = fields[0];
        t.materials = parse_material_list(path, number, fields[2]);
        t.inputs = split(fields[3], ',');
        t.outputs = split(fields[4], ',');
        try {
            t.positions = std::stoull(fields[5]);
            t.memory_bytes = std::stoull(fields[6]) << 20;
            t.cpu_seconds = std::stod(fields[7]);
        } catch (const std::logic_error&) {
            bad_plan(path, number, "a number field is not a number");
        }
        plan.tasks.push_back(std::move(t));
    }
    if (in.bad()) throw std::runtime_error("cannot read " + path.string());
    if (plan.tasks.empty()) bad_plan(path, 3, "no task");
    return plan;
}

void write_makefile(const WorkflowPlan& plan, const std::string& dtb, std::ostream& out) {
    out << "# Written by dtb plan: builds the databases of plan.tsv here, each task once its inputs exist.\n"
           "#   make -j2            (or make -jN DTB=/path/to/dtb)\n"
           "# make schedules by job count only: the memory each task needs is in plan.tsv (mem_mb).\n"
        << "DTB ?= " << dtb << "\nTASK_THREADS ?= " << plan.options.task_threads << "\n\n.PHONY: all\nall:";
    std::vector<std::string> slice_files;
    for (const WorkflowTask& t : plan.tasks)
        if (is_slice_task(t))
            slice_files.push_back(t.outputs.front());
        else
            out << ' ' << t.outputs.front();
    out << "\n\n";
    // Made for the pair's task only, removed by make at the end, and not made again for a pair
    // whose files are there.
    if (!slice_files.empty()) {
        out << ".INTERMEDIATE:";
        for (const std::string& f : slice_files) out << ' ' << f;
        out << "\n\n";
    }
    // A part of a level reads every part of the level above. Listed directly, those intermediate
    // files form diamonds that GNU make checks path by path (its check of an intermediate file's
    // prerequisites has no memory), which took exponential time: 105 slices of MvMMM in parts hung
    // it. A stamp a level above (a real file, which ends the check) stands for its parts instead.
    std::map<std::string, std::vector<std::string>> stamps;  // stamp -> the parts it stands for
    const auto stamp_of = [&](const std::vector<std::string>& parts) {
        std::string name = parts.front().substr(parts.front().rfind('/') + 1);
        name = kStampFolder + "/" + name.substr(0, name.find(".part-"));
        stamps.emplace(name, parts);
        return name;
    };
    for (const WorkflowTask& t : plan.tasks) {
        for (const std::string& f : t.outputs) out << f << ' ';
        out << "&:";
        std::vector<std::string> parts_above;
        for (const std::string& f : t.inputs)
            if (is_slice_task(t) && is_slice_file(f)) parts_above.push_back(f);
            else out << ' ' << f;
        if (parts_above.size() == 1) out << ' ' << parts_above.front();
        else if (!parts_above.empty()) out << ' ' << stamp_of(parts_above);
        out << "\n\t$(DTB) gen --task " << t.id << " --out . --threads $(TASK_THREADS)\n\n";
    }
    for (const auto& [stamp, parts] : stamps) {
        out << stamp << ':';
        for (const std::string& f : parts) out << ' ' << f;
        out << "\n\t@mkdir -p " << kStampFolder << " && touch $@\n\n";
    }
}

void write_snakefile(const WorkflowPlan& plan, const std::string& dtb, std::ostream& out) {
    out << "# Written by dtb plan: builds the databases of plan.tsv here, each task once its inputs exist.\n"
           "#   snakemake --cores 2 [--resources mem_mb=N]      (one machine)\n"
           "#   snakemake --slurm --jobs 50 --default-resources slurm_partition=NAME   (a Slurm cluster)\n"
           "# --config dtb=/path/to/dtb changes the executable. Each task's wall time and peak memory\n"
           "# (max_rss, MB) go to " << kBenchmarkFolder << "/ID.tsv.\n"
        << "DTB = config.get(\"dtb\", \"" << dtb << "\")\n\nrule all:\n    input:\n";
    for (const WorkflowTask& t : plan.tasks)
        if (!is_slice_task(t)) out << "        " << quoted_list(t.outputs) << ",\n";
    for (const WorkflowTask& t : plan.tasks) {
        // Rule names are Python identifiers: a slice task's "." becomes "_".
        std::string rule = t.id;
        std::replace(rule.begin(), rule.end(), '.', '_');
        out << "\nrule task_" << rule << ":\n";
        if (!t.inputs.empty()) out << "    input: " << quoted_list(t.inputs) << '\n';
        // A slice file is temp(): Snakemake removes it once the pair's task has run.
        const std::string outputs = is_slice_task(t) ? "temp(" + quoted_list(t.outputs) + ")" : quoted_list(t.outputs);
        out << "    output: " << outputs << "\n    threads: " << plan.options.task_threads
            << "\n    resources: mem_mb=" << mem_mb(t) << ", runtime=" << static_cast<std::uint64_t>(t.cpu_seconds / 60) + 10
            << "\n    benchmark: \"" << kBenchmarkFolder << "/" << t.id << ".tsv\""
            << "\n    shell: \"{DTB} gen --task " << t.id << " --out . --threads {threads}\"\n";
    }
}

std::vector<double> longest_chains(const WorkflowPlan& plan) {
    std::map<std::string, std::size_t> writer;  // file -> the task writing it
    std::vector<double> chain(plan.tasks.size());
    for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
        const WorkflowTask& t = plan.tasks[i];
        double before = 0;
        for (const std::string& f : t.inputs)
            if (const auto w = writer.find(f); w != writer.end()) before = std::max(before, chain[w->second]);
        chain[i] = before + t.cpu_seconds;
        for (const std::string& f : t.outputs) writer[f] = i;
    }
    return chain;
}

void write_estimate(const WorkflowPlan& plan, std::ostream& out) {
    struct Row {
        std::uint64_t tasks = 0, positions = 0, largest_memory = 0;
        double cpu_seconds = 0, chain_cpu_seconds = 0;
    };
    std::map<int, Row> rows;
    const std::vector<double> chain = longest_chains(plan);
    for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
        const WorkflowTask& t = plan.tasks[i];
        Row& r = rows[t.pieces()];
        ++r.tasks;
        if (!is_slice_task(t)) r.positions += t.positions;  // a sliced pair's task counts them once
        r.cpu_seconds += t.cpu_seconds;
        r.chain_cpu_seconds = std::max(r.chain_cpu_seconds, chain[i]);
        r.largest_memory = std::max(r.largest_memory, t.memory_bytes);
    }
    const double bytes_factor = plan.options.dtw ? 1 + kDtwBytesFactor : 1.0;
    out << "pieces\ttasks\tpositions\tcpu_hours\tchain_cpu_hours\tbytes_on_disk\tlargest_task_gib\n";
    for (const auto& [pieces, r] : rows) {
        char line[200];
        std::snprintf(line, sizeof line, "%d\t%" PRIu64 "\t%.3g\t%.1f\t%.1f\t%.3g\t%.1f\n", pieces, r.tasks,
                      static_cast<double>(r.positions), r.cpu_seconds / 3600, r.chain_cpu_seconds / 3600,
                      static_cast<double>(r.positions) * kWdlBytesPerPosition * bytes_factor,
                      static_cast<double>(r.largest_memory) / (1u << 30));
        out << line;
    }
}

}  // namespace dtb
