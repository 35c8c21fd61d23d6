#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "rules/fen.hpp"
#include "tools/commands.hpp"
#include "tools/faster_build.hpp"

int main(int argc, char** argv) {
    using namespace dtb::cli;
    hand_over_to_faster_build(argv);
    CLI::App app{"dtb: endgame tablebases for international draughts (10x10, FMJD rules)", "dtb"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("dtb 0.1.0 (") + build_target() + ")");
    Runner run;
    add_rules_commands(app, run);
    add_index_commands(app, run);
    add_gen_commands(app, run);
    add_plan_commands(app, run);
    add_probe_commands(app, run);
    add_bench_commands(app, run);
    add_adjudicate_commands(app, run);
    add_line_commands(app, run);
    add_serve_commands(app, run);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitOk : kExitUsage;
    }
    try {
        return run ? run() : kExitUsage;
    } catch (const dtb::FenError& e) {
        std::cerr << "dtb: " << e.what() << '\n';
        return kExitUsage;
    } catch (const std::invalid_argument& e) {
        std::cerr << "dtb: " << e.what() << '\n';
        return kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << "dtb: error: " << e.what() << '\n';
        return kExitFailure;
    }
}
