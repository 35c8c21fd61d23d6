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

// The finished files of `materials`: each one's .wdl, and with `dtw` its .dtw after it.
std::vector<std::string> table_files(const std::vector<Material>& materials, bool dtw);

// The materials a build of exactly `own` reads: those either side reaches in one move, outside
// `own` (a task's inputs).
std::vector<Material> materials_read_by(const std::vector<Material>& own);

// Runs the build; progress and summary lines go to `log` (stderr in the command line).
// Throws on any failure; files finished before the failure stay valid.
void build(const BuildOptions& options, std::ostream& log);

}  // namespace dtb
