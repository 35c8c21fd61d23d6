// `dtb gen`: builds every missing database of a plan, in dependency order, resumably.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <vector>

#include "gen/dtw_solver.hpp"
#include "gen/value_tables.hpp"
#include "gen/writer.hpp"

namespace dtb {

struct BuildOptions {
    std::filesystem::path dir;
    int max_pieces = 4;
    int max_per_side = 20;
    std::vector<Material> only;  // build just these (and what they need); empty: all of the plan
    bool dtw = false;            // also write a <material>.dtw file (distance to win) per material
    WriteOptions write;
};

// Materials a position of `m` (white to move) can reach in one move other than m's mirror:
// promotions and captures, seen from the side to move after the move. Empty sides are left out.
std::vector<Material> successor_materials(const Material& m);

// The successor materials with fewer pieces (after a capture): all that reading m's file needs,
// since its don't-care positions are resolved by capture search.
std::vector<Material> capture_successor_materials(const Material& m);

// Every material the plan of `options` needs, in build order.
std::vector<Material> build_plan(const BuildOptions& options);

// Values of a finished file as the solver produced them: the stored value, with kCaptureFlag set
// where the side to move must capture (the value there is the stored don't-care). Reads and checks
// every block; throws TableError.
std::vector<std::uint8_t> read_solver_values(const std::filesystem::path& dir, const Material& m);

// Loads a finished file into `tables`, resolving its capture positions through `tables` (which
// must hold every successor material). Throws TableError if the file is missing or corrupt.
void load_finished(const std::filesystem::path& dir, const Material& m, ValueTables& tables);

// Loads a finished .dtw file into `dtw`: wins and losses from the stored DTW/2 and the WDL value
// in `wdl` (which must hold m), draws from `wdl`, capture positions resolved through `dtw` (which
// must hold every successor material). Throws TableError if the file is missing, corrupt or does
// not agree with the WDL values.
void load_finished_dtw(const std::filesystem::path& dir, const Material& m, const ValueTables& wdl, DtwTables& dtw);

// Runs the build; progress and summary lines go to `log` (stderr in the command line).
// Throws on any failure; files finished before the failure stay valid.
void build(const BuildOptions& options, std::ostream& log);

}  // namespace dtb
