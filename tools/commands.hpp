// Subcommands of the `dtb` command line. Each add_* function registers one or more subcommands;
// the chosen one stores in `run` the work to do once the whole command line has been parsed.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

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

void add_rules_commands(CLI::App& app, Runner& run);
void add_index_commands(CLI::App& app, Runner& run);
void add_gen_commands(CLI::App& app, Runner& run);    // gen, verify, stats
void add_probe_commands(CLI::App& app, Runner& run);  // probe, bench probe
void add_bench_commands(CLI::App& app, Runner& run);
void add_adjudicate_commands(CLI::App& app, Runner& run);
void add_line_commands(CLI::App& app, Runner& run);  // bench index, bench format (after add_probe_commands)

}  // namespace dtb::cli
