// `dtb plan`: the build of `dtb gen` as a workflow of tasks for make, Snakemake or Slurm.
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <system_error>

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

// Tasks whose estimate passes --memory: with distances, pairs too large (a DTW pass is not
// sliced); otherwise pairs whose largest subgame, one men configuration with many kings, passes it
// even held compact (slices split a pair between subgames, never inside one; a kings-only pair is
// solved in symmetry classes).
void warn_of_tasks_over_budget(const WorkflowPlan& plan, std::ostream& out) {
    const std::uint64_t budget = plan.options.memory_bytes;
    if (budget == 0) return;
    for (const WorkflowTask& t : plan.tasks)
        if (t.memory_bytes > budget)
            out << "warning: task " << t.id << " is estimated at " << std::fixed << std::setprecision(1)
                << static_cast<double>(t.memory_bytes) / (1u << 30) << " GiB, over --memory: "
                << (plan.options.dtw ? "the distances to win are solved a whole pair at a time"
                                     : "its largest subgame passes it even held compact, and slices do not split a subgame")
                << '\n';
}

int run_plan(PlanOptions o) {
    o.workflow.only = parse_materials(o.materials);
    o.workflow.memory_bytes = static_cast<std::uint64_t>(o.memory_gib * (1u << 30));
    if (o.workflow.slices > 1 && o.workflow.dtw)
        throw std::invalid_argument("--slices is for win/draw/loss plans: the distances to win are solved a whole pair at a time");
    const WorkflowPlan plan = make_workflow_plan(o.workflow);
    if (o.estimate) {
        write_estimate(plan, std::cout);
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
                     "Solve each pair not grouped in this many slices of men-advancement levels, a task each, "
                     "and write its files in one more task: a slice task holds a slice's values, not the "
                     "pair's (win/draw/loss only)")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    plan->add_option("--memory", o->memory_gib,
                     "Each task's memory budget in GiB (0: none): pairs whose task would need more are sliced "
                     "(the fewest slices whose solver takes at most half of it, unless --slices fixes the count), "
                     "the tables a task reads beyond it are read through a block cache, and tasks run with it")
        ->check(memory_gib_check())
        ->capture_default_str();
    plan->add_flag("--estimate", o->estimate,
                   "Print, per piece count, the tasks, positions, CPU hours and bytes on disk at the rates measured "
                   "here, and the largest task's memory; write nothing");
    plan->footer(
        "Then: cd DIR && make -j2, or snakemake --cores 2 (snakemake --slurm on a cluster). Each task runs "
        "dtb gen --task ID --out DIR; the files are the same as those of dtb gen. See docs/WORKFLOW.md.");
    plan->callback([&run, o] { run = [o] { return run_plan(*o); }; });
}

}  // namespace dtb::cli
