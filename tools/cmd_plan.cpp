// `dtb plan`: the build of `dtb gen` as a workflow of tasks for make, Snakemake or Slurm.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <system_error>
#include <vector>

#include "gen/builder.hpp"
#include "gen/workflow.hpp"
#include "tools/commands.hpp"
#include "tools/faster_build.hpp"

namespace dtb::cli {
namespace {

namespace fs = std::filesystem;

struct PlanOptions {
    std::string out = "db";
    std::vector<std::string> materials;
    WorkflowOptions workflow;
    bool estimate = false;
    double memory_gib = 0;
};

// Written whole or not at all: a workflow engine must never read half a Makefile.
void write_atomically(const fs::path& path, const std::string& text) {
    const fs::path temp = path.string() + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) throw std::runtime_error("cannot write " + temp.string());
    }
    fs::rename(temp, path);
}

// The executable the generated files call, by absolute path (the portable dtb rather than the
// faster build it handed over to).
std::string this_executable() {
    const std::string self = executable_for_scripts();
    return self.empty() ? std::string("dtb") : self;
}

// Tasks whose estimate passes --memory, one line a pair. With distances, a pair is one task (a
// DTW pass is not sliced). A slice holds one men configuration's subgame at the least (levels are
// cut into parts down to single configurations, at most MemoryPlan::kMostSlicesPerPair a pair):
// its values, its boundary and its largest subgame (held compact) stay in its task. The task that
// writes a pair from its slices reads every slice file at once. A kings-only pair is one subgame,
// solved in symmetry classes.
void warn_of_tasks_over_budget(const WorkflowPlan& plan, std::ostream& out) {
    const std::uint64_t budget = plan.options.memory_bytes;
    if (budget == 0) return;
    struct Over {
        std::string pair;
        std::size_t tasks = 0;
        std::uint64_t largest = 0;
        int step = BuildOptions::kAllSlices;  // slice_step_of_task of its tasks (> 0: slices)
        int slices = 1;
    };
    std::vector<Over> pairs;  // in plan order; a pair's slice tasks are consecutive
    std::size_t tasks = 0;
    for (const WorkflowTask& t : plan.tasks) {
        if (t.memory_bytes <= budget) continue;
        const int step = slice_step_of_task(t);
        const std::string pair = pair_of_task(t);
        // The task writing a pair from its slices follows them, but is over for another reason.
        if (pairs.empty() || pairs.back().pair != pair || (pairs.back().step > 0) != (step > 0))
            pairs.push_back({pair, 0, 0, step, plan.slices_of(t)});
        ++pairs.back().tasks;
        pairs.back().largest = std::max(pairs.back().largest, t.memory_bytes);
        ++tasks;
    }
    const auto size_text = [](std::uint64_t bytes) {  // in MiB below 1 GiB (a budget of 0.002 is not "0.0 GiB")
        std::ostringstream s;
        const bool mib = bytes < (std::uint64_t{1} << 30);
        s << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (mib ? 1u << 20 : 1u << 30)
          << (mib ? " MiB" : " GiB");
        return s.str();
    };
    for (const Over& o : pairs) {
        out << "warning: ";
        if (o.step > 0)
            out << o.tasks << " slice task" << (o.tasks == 1 ? "" : "s") << " of " << o.pair << " (of " << o.slices
                << ") estimated at up to " << size_text(o.largest) << ", over --memory: a slice holds one men "
                << "configuration's subgame at the least, its values, its boundary and that subgame\n";
        else if (o.step == BuildOptions::kWriteFromSlices)
            out << "task " << o.pair << " estimated at " << size_text(o.largest) << ", over --memory: it writes the pair "
                << "from its " << o.slices << " slice files, reading all of them at once\n";
        else
            out << "task " << o.pair << " estimated at " << size_text(o.largest) << ", over --memory: "
                << (plan.options.dtw ? "the distances to win are solved a whole pair at a time"
                                     : "a kings-only pair is one subgame, not sliced")
                << '\n';
    }
    std::set<std::string> pair_names;
    for (const Over& o : pairs) pair_names.insert(o.pair);
    if (tasks > 0)
        out << "warning: " << tasks << " of " << plan.tasks.size() << " tasks (" << pair_names.size()
            << " pairs) are estimated over --memory " << size_text(budget) << " (docs/WORKFLOW.md)\n";
}

// Pairs that dtb gen refuses (unbuildable_reason): the plan still counts them, for the
// estimates, but their tasks would fail at once.
void warn_of_pairs_too_large(const WorkflowPlan& plan, std::ostream& out) {
    for (const WorkflowTask& t : plan.tasks)
        if (const int step = slice_step_of_task(t); step == BuildOptions::kAllSlices || step == 1)  // a pair once
            if (const std::string reason = unbuildable_reason(t.materials.front(), plan.options.dtw); !reason.empty())
                out << "warning: " << reason << " (task " << t.id << ")\n";
}

int run_plan(PlanOptions o) {
    o.workflow.only = parse_materials(o.materials);
    o.workflow.memory_bytes = static_cast<std::uint64_t>(o.memory_gib * (1u << 30));
    if (o.workflow.slices > 1 && o.workflow.dtw)
        throw std::invalid_argument("--slices is for win/draw/loss plans: the distances to win are solved a whole pair at a time");
    const WorkflowPlan plan = make_workflow_plan(o.workflow);
    if (o.estimate) {
        write_estimate(plan, std::cout);
        warn_of_tasks_over_budget(plan, std::cerr);
        warn_of_pairs_too_large(plan, std::cerr);
        return kExitOk;
    }
    const fs::path dir = o.out;
    fs::create_directories(dir);
    const std::string dtb = this_executable();
    std::ostringstream tsv, makefile, snakefile;
    write_plan_tsv(plan, tsv);
    write_makefile(plan, dtb, makefile);
    write_snakefile(plan, dtb, snakefile);
    write_atomically(dir / "plan.tsv", tsv.str());
    write_atomically(dir / "Makefile", makefile.str());
    write_atomically(dir / "Snakefile", snakefile.str());
    std::cerr << plan.tasks.size() << " tasks written to " << (dir / "plan.tsv").string() << ", with "
              << (dir / "Makefile").string() << " and " << (dir / "Snakefile").string() << '\n';
    warn_of_tasks_over_budget(plan, std::cerr);
    warn_of_pairs_too_large(plan, std::cerr);
    return kExitOk;
}

}  // namespace

void add_plan_commands(CLI::App& app, Runner& run) {
    auto o = std::make_shared<PlanOptions>();
    auto* plan = app.add_subcommand(
        "plan", "Write the build of dtb gen as a workflow: DIR/plan.tsv, DIR/Makefile and DIR/Snakefile");
    plan->add_option("-n,--pieces", o->workflow.max_pieces, "Largest number of pieces")
        ->check(CLI::Range(2, 8))
        ->capture_default_str();
    plan->add_option("-o,--out", o->out, "Database folder: the workflow files go there, and the databases")
        ->capture_default_str();
    plan->add_option("--max-per-side", o->workflow.max_per_side, "Largest number of pieces per side")
        ->check(CLI::Range(1, 20))
        ->capture_default_str();
    plan->add_option("-m,--material", o->materials, "Plan only these materials (e.g. KMvK, or KMvK,KKvK) and what they need")->delimiter(',');
    plan->add_flag("--dtw", o->workflow.dtw, "The tasks write .dtw files (distance to win) too");
    plan->add_option("--group-pieces", o->workflow.group_pieces,
                     "Material pairs of at most this many pieces form one task (a workflow engine's cost per "
                     "job would dominate them)")
        ->check(CLI::Range(1, 8))
        ->capture_default_str();
    plan->add_option("--task-threads", o->workflow.task_threads, "Threads each task asks for and runs with")
        ->check(CLI::Range(1, 1024))
        ->capture_default_str();
    plan->add_option("--slices", o->workflow.slices,
                     "Solve each pair not grouped in this many slices of men-advancement levels (beyond its number "
                     "of levels, its levels cut into parts), a task each, and write its files in one more task: a "
                     "slice task holds a slice's values, not the pair's (win/draw/loss only)")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    plan->add_option("--memory", o->memory_gib,
                     "Each task's memory budget in GiB (0: none): pairs whose task would need more are sliced "
                     "(the fewest slices whose solver takes at most half of it, unless --slices fixes the count), "
                     "the tables a task reads beyond it are read through a block cache, and tasks run with it")
        ->check(memory_gib_check())
        ->capture_default_str();
    plan->add_flag("--estimate", o->estimate,
                   "Print, per piece count, the tasks, positions, CPU hours, the CPU hours of the longest chain of "
                   "tasks waiting for one another, and bytes on disk at the rates measured here, and the largest "
                   "task's memory; write nothing");
    plan->footer(
        "Then: cd DIR && make -j2, or snakemake --cores 2 (snakemake --slurm on a cluster). Each task runs "
        "dtb gen --task ID --out DIR; the files are the same as those of dtb gen. See docs/WORKFLOW.md.");
    plan->callback([&run, o] { run = [o] { return run_plan(*o); }; });
}

}  // namespace dtb::cli
