// Subcommands of the `dtb` command line. Each add_* function registers one or more subcommands;
// the chosen one stores in `run` the work to do once the whole command line has been parsed.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "index/material.hpp"

namespace dtb {
class Tablebase;
}

namespace dtb::cli {

// Exit codes that scripts can rely on.
enum ExitCode : int {
    kExitOk = 0,
    kExitFindings = 1,    // the command ran, but some input or check failed (see stderr/stdout)
    kExitUsage = 2,       // bad option, bad FEN, or other invalid input
    kExitFailure = 3,     // I/O error, corrupt or missing database, full disk, ...
    kExitInterrupted = 130,
};

using Runner = std::function<int()>;

// Options shared by several subcommands, checked when the command line is parsed (common.cpp).
// --cache-mb N: MiB of decompressed blocks, 0 up to 16 TiB (negative numbers and sizes whose byte
// count overflows are refused).
CLI::Option* add_cache_mb_option(CLI::App* cmd, std::size_t& mb, const std::string& description);
// A finite number of GiB from 0 up to 2^20 (1 PiB): no nan, inf or negative number.
const CLI::Validator& memory_gib_check();
// Positions per block that both database files accept (format::block_size_problem).
const CLI::Validator& block_positions_check();

// The materials named (e.g. "KMvK"); std::invalid_argument (exit code 2) for a name that is not one.
std::vector<Material> parse_materials(const std::vector<std::string>& names);

// Throws std::runtime_error (exit code 3) saying what is missing when `tb`'s folder holds no
// database (.wdl) file, or, with `dtw`, no .dtw file: for commands that cannot work without them.
void require_databases(const Tablebase& tb, bool dtw = false);

void add_rules_commands(CLI::App& app, Runner& run);
void add_index_commands(CLI::App& app, Runner& run);
void add_gen_commands(CLI::App& app, Runner& run);    // gen, verify, stats
void add_probe_commands(CLI::App& app, Runner& run);  // probe, bench probe
void add_bench_commands(CLI::App& app, Runner& run);
void add_adjudicate_commands(CLI::App& app, Runner& run);
void add_line_commands(CLI::App& app, Runner& run);  // bench index, bench format (after add_probe_commands)
void add_serve_commands(CLI::App& app, Runner& run);
void add_plan_commands(CLI::App& app, Runner& run);  // plan (a build as a workflow)

}  // namespace dtb::cli
