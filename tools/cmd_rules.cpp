// `dtb moves` and `dtb perft`: the rules engine from the command line.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "rules/fen.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/perft.hpp"
#include "tools/commands.hpp"

namespace dtb::cli {
namespace {

int run_moves(const std::string& fen) {
    const Position pos = parse_fen(fen);
    for (const Move& m : generate_moves(pos))
        std::cout << move_to_string(pos, m) << '\t' << to_fen(apply_move(pos, m)) << '\n';
    return kExitOk;
}

int run_perft(const std::string& fen, int depth, bool divide) {
    const Position pos = parse_fen(fen);
    using Clock = std::chrono::steady_clock;
    for (int d = 1; d <= depth; ++d) {
        const auto start = Clock::now();
        const std::uint64_t nodes = perft(pos, d);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        std::printf("%d\t%llu\t%.3f\n", d, static_cast<unsigned long long>(nodes), seconds);
        std::fflush(stdout);
    }
    if (divide) {
        for (const Move& m : generate_moves(pos))
            std::printf("%s\t%llu\n", move_to_string(pos, m).c_str(),
                        static_cast<unsigned long long>(perft(apply_move(pos, m), depth - 1)));
    }
    return kExitOk;
}

}  // namespace

void add_rules_commands(CLI::App& app, Runner& run) {
    auto* moves = app.add_subcommand("moves", "List the legal moves of a position: MOVE<TAB>FEN_AFTER per line");
    auto moves_fen = std::make_shared<std::string>();
    moves->add_option("fen", *moves_fen, "Position, e.g. W:W31-50:B1-20")->required();
    moves->callback([&run, moves_fen] { run = [moves_fen] { return run_moves(*moves_fen); }; });

    auto* perft = app.add_subcommand("perft", "Count the leaf nodes of the move tree: DEPTH<TAB>NODES<TAB>SECONDS per depth");
    struct PerftOptions {
        std::string fen = "W:W31-50:B1-20";
        int depth = 6;
        bool divide = false;
    };
    auto opts = std::make_shared<PerftOptions>();
    perft->add_option("fen", opts->fen, "Position (default: the start position)")->capture_default_str();
    perft->add_option("-d,--depth", opts->depth, "Deepest depth to count")->check(CLI::Range(1, 30))->capture_default_str();
    perft->add_flag("--divide", opts->divide, "Also print the count under each root move at the deepest depth");
    perft->callback([&run, opts] { run = [opts] { return run_perft(opts->fen, opts->depth, opts->divide); }; });
}

}  // namespace dtb::cli
