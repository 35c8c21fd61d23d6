// A build as a workflow: `dtb plan` splits the build of `dtb gen` into tasks, each the solving of
// one material pair (the small materials grouped into one task), with the files it reads and
// writes, so that a workflow engine (make, Snakemake, Slurm through Snakemake) runs them in
// dependency order, in parallel, on one machine or many; `dtb gen --task ID` runs one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "index/material.hpp"

namespace dtb {

struct WorkflowOptions {
    int max_pieces = 4;
    int max_per_side = 20;
    std::vector<Material> only;  // plan just these (and what they need); empty: every material
    bool dtw = false;            // the tasks write .dtw files too
    // Pairs of at most this many pieces form one task: each takes seconds, and a workflow
    // engine's cost per job (about 2 s under Slurm) would dominate them.
    int group_pieces = 5;
    int task_threads = 2;  // threads a task asks the engine for and runs with
    // Pairs not grouped are solved in this many slices (gen/slices.hpp), a task each, then written
    // by a task of their own from the slice files: a slice task holds a slice's values, not the
    // pair's. 1: a task solves a whole pair. Win/draw/loss only.
    int slices = 1;
    // Each task's memory budget (0: none). Pairs whose task would need more are sliced (unless
    // `slices` fixes the count): the fewest slices whose solver takes at most half of it; the
    // tables a task reads beyond it are read through a block cache. Tasks run with it as --memory.
    std::uint64_t memory_bytes = 0;
};

struct WorkflowTask {
    // The name of the pair's first material, or "upto<P>" for the group; "<pair>.s<K>" for slice K
    // of a sliced pair, whose task "<pair>" then writes the pair's files from the slice files.
    std::string id;
    std::vector<Material> materials;   // both sides of each pair, in build order
    std::vector<std::string> inputs;   // finished files of other tasks it reads
    std::vector<std::string> outputs;  // the files it writes
    std::uint64_t positions = 0;       // of its materials
    std::uint64_t memory_bytes = 0;    // estimated peak
    double cpu_seconds = 0;            // estimated, at the rates measured on 2-6 pieces (docs/WORKFLOW.md)

    int pieces() const { return materials.back().pieces(); }
};

// What a task of a plan does to its pair, as BuildOptions::slice_step takes it: the slice K of
// "<pair>.s<K>"; for the task of a sliced pair, writing from the slices; else everything.
int slice_step_of_task(const WorkflowTask& task);
// The id of the task's pair: "<pair>" for its slice tasks "<pair>.s<K>", the id itself otherwise.
std::string pair_of_task(const WorkflowTask& task);

struct WorkflowPlan {
    WorkflowOptions options;
    std::vector<WorkflowTask> tasks;  // in an order where every input is made by an earlier task

    const WorkflowTask* find(const std::string& id) const;
    // The number of slices of the pair that `task` (a slice task or the task of a sliced pair)
    // works on: its tasks "<pair>.s<K>"; 1 for any other task.
    int slices_of(const WorkflowTask& task) const;
};

// The tasks of the build of `options`. Throws std::invalid_argument for a material beyond
// --pieces/--max-per-side.
WorkflowPlan make_workflow_plan(const WorkflowOptions& options);

// plan.tsv: the options as a comment line, a header row, then one task a line (id, pieces,
// materials, inputs, outputs, positions, mem_mb, cpu_seconds; lists comma-separated).
void write_plan_tsv(const WorkflowPlan& plan, std::ostream& out);
// Reads what write_plan_tsv wrote; throws std::runtime_error naming `path` and the line.
WorkflowPlan read_plan_tsv(const std::filesystem::path& path);

// A Makefile (GNU make 4.3: grouped targets) and a Snakefile whose rules run
// `DTB gen --task ID --out .` in the plan's folder; `dtb` is the executable they call (overridable:
// `make DTB=...`, `snakemake --config dtb=...`).
void write_makefile(const WorkflowPlan& plan, const std::string& dtb, std::ostream& out);
void write_snakefile(const WorkflowPlan& plan, const std::string& dtb, std::ostream& out);

// Per task, the CPU seconds of the longest chain of tasks that ends with it, each task waiting for
// those whose files it reads: no number of machines builds that task sooner than this chain's tasks
// take one after the other (on T threads a task, about this over T, where the solver scales).
std::vector<double> longest_chains(const WorkflowPlan& plan);

// Per piece count: tasks, positions, estimated CPU hours, the CPU hours of the longest chain of
// tasks ending at that piece count, bytes on disk, the largest task's memory.
void write_estimate(const WorkflowPlan& plan, std::ostream& out);

}  // namespace dtb
