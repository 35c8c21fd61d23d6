// `dtb gen`: builds every missing database of a plan, in dependency order, resumably.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "gen/writer.hpp"
#include "index/material.hpp"

namespace dtb {

struct BuildOptions {
    std::filesystem::path dir;
    int max_pieces = 4;
    int max_per_side = 20;
    std::vector<Material> only;  // build just these (and what they need); empty: all of the plan
    bool dtw = false;            // also write a <material>.dtw file (distance to win) per material
    // Finished tables that later materials need are kept in memory while the tables, the ones the
    // next material needs and its solver's memory stay within this many bytes; beyond that the
    // tables needed latest go to scratch copies in DIR/.dtb-spill until a material needs them.
    // 0: no limit.
    std::uint64_t memory_bytes = 0;
    // The builder keeps copies of the finished tables as it holds them (capture positions
    // resolved) in DIR/.dtb-spill, so that a build resumed after a kill reads them back in seconds;
    // they are removed at the end unless this is set, for a later build in DIR (--dtw after a WDL
    // build, or more pieces) to start from them too.
    bool keep_copies = false;
    // Each pair is solved in this many slices of men-advancement levels (fewer where it has fewer
    // levels), one after another, each kept in DIR/.dtb-slices until the pair's files are written,
    // so that the solver holds one slice's values at a time. 1: whole pairs;
    // MemoryPlan::kSlicesWithinLimit (0): as many as memory_bytes needs, pair by pair. WDL only: the
    // distances to win are solved a whole pair at a time.
    int slices = 1;
    // A task of a sliced plan (gen/workflow.hpp) does one step of its pair: kAllSlices solves every
    // slice and writes the pair's files; k >= 1 solves slice k only, into its slice file (the files
    // of the slices of the level above must be there); kWriteFromSlices writes the pair's files from its slice files
    // (all must be there; the workflow engine removes them).
    static constexpr int kAllSlices = 0;
    static constexpr int kWriteFromSlices = -1;
    int slice_step = kAllSlices;
    WriteOptions write;
    // Set by `dtb gen --task ID` (gen/workflow.hpp): the build is that task of a workflow plan. It
    // builds the pairs of `only` and nothing they need, which must be finished files in `dir`
    // (checked first: a missing one is an error naming it). It locks only itself, so that other
    // tasks may write the folder at once (a whole-folder build waits for none and is refused),
    // looks at its own files only, and keeps its scratch copies in DIR/.dtb-spill-ID.
    std::string task;
};

// Every material the plan of `options` needs, in build order (for a task: its own materials).
std::vector<Material> build_plan(const BuildOptions& options);
// Why dtb gen cannot build the pair of `m` (with distances to win: PairLayout::too_large_for_dtw;
// every pair's values can be built), or "".
std::string unbuildable_reason(const Material& m, bool dtw);

// The finished files of `materials`: each one's .wdl, and with `dtw` its .dtw after it.
std::vector<std::string> table_files(const std::vector<Material>& materials, bool dtw);

// The materials a build of exactly `own` reads: those either side reaches in one move, outside
// `own` (a task's inputs).
std::vector<Material> materials_read_by(const std::vector<Material>& own);

// The slice files of the pair of m in a build solving pairs in `slices` slices, each as a path
// relative to the database folder, from the most advanced slice down.
std::vector<std::string> slice_file_names(const Material& m, int slices);

// Runs the build; progress and summary lines go to `log` (stderr in the command line).
// Throws on any failure; files finished before the failure stay valid.
void build(const BuildOptions& options, std::ostream& log);

}  // namespace dtb
