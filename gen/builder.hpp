// `dtb gen`: builds every missing database of a plan, in dependency order, resumably.
#pragma once

#include <filesystem>
#include <functional>
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
    // Finished tables that later materials need are kept in memory while the tables, the ones the
    // next material needs and its solver's memory stay within this many bytes; beyond that the
    // tables needed latest go to scratch copies in DIR/.dtb-spill until a material needs them.
    // 0: no limit.
    std::uint64_t memory_bytes = 0;
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

// Called with a finished file's path as the loaders below start reading it.
using FileReadHook = std::function<void(const std::filesystem::path&)>;

// Loads a finished file into `tables`, resolving its capture positions through `tables` (which
// must hold every successor material). Throws TableError if the file is missing or corrupt.
void load_finished(const std::filesystem::path& dir, const Material& m, ValueTables& tables,
                   const FileReadHook& reading = {});

// Loads the finished .dtw files of m and of its mirror (those not in `dtw` yet) into `dtw`:
// stored distances with the parity of the WDL value in `wdl`, draws from `wdl`, capture positions
// resolved through `dtw`; in a losses-only file (encodings 4, 5) each win's DTW is 1 + the shortest
// DTW of a lost position after one of its moves, which is why both sides are loaded together.
// `wdl` must hold m, its mirror and every material either reaches in one move; `dtw` the latter.
// Throws TableError naming the file if one is missing or corrupt or does not agree with the WDL
// values (a win without a lost position after a move, a distance beyond the header's longest);
// `dtw` then holds neither side.
void load_finished_dtw_pair(const std::filesystem::path& dir, const Material& m, const ValueTables& wdl, DtwTables& dtw,
                            const FileReadHook& reading = {});

// What the loaders below may use besides the files: both hooks optional.
struct LoadHooks {
    // Puts the WDL (dtw false) or DTW table of a material in place from elsewhere than its file
    // (the builder's scratch copies); true if it did.
    std::function<bool(const Material&, bool dtw)> restore;
    FileReadHook reading;
};

// Loads m's finished file into `tables` unless it is there (or `hooks.restore` puts it there),
// after the files its capture positions need (recursively). Throws TableError.
void load_finished_with_successors(const std::filesystem::path& dir, const Material& m, ValueTables& tables,
                                   const LoadHooks& hooks = {});

// Loads the DTW of m and its mirror into `dtw` unless m is there (or `hooks.restore` puts it
// there), after the WDL and DTW of every material either reaches in one move (recursively), and
// their WDL values into `wdl`. Throws TableError.
void load_finished_dtw_with_successors(const std::filesystem::path& dir, const Material& m, ValueTables& wdl,
                                       DtwTables& dtw, const LoadHooks& hooks = {});

// Runs the build; progress and summary lines go to `log` (stderr in the command line).
// Throws on any failure; files finished before the failure stay valid.
void build(const BuildOptions& options, std::ostream& log);

}  // namespace dtb
