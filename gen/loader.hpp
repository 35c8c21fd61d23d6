// Reading finished database files back into the generator's in-memory tables: a resumed build,
// a --dtw build beside finished WDL files, and `dtb verify`. The files store capture positions as
// don't-care, so each is resolved by search through the tables of smaller materials; a
// losses-only .dtw file derives its wins' distances from the positions after their moves.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "gen/dtw_solver.hpp"
#include "gen/value_tables.hpp"

namespace dtb {

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

}  // namespace dtb
