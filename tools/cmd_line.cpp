// `dtb line`: an optimal line from a position to the end of the game, from the DTW databases.
#include <iostream>
#include <memory>

#include "probe/line.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "rules/notation.hpp"
#include "tools/commands.hpp"

namespace dtb::cli {
namespace {

struct LineOptions {
    std::string db;
    std::string fen;
};

int run_line(const LineOptions& o) {
    const Tablebase tb(o.db, {});
    require_databases(tb, true);
    const Position pos = parse_fen(o.fen);
    const OptimalLine line = optimal_line(tb, pos);
    if (!line.start.known() || (line.start.value != Value::Draw && line.start.dtw < 0)) {
        std::cerr << "dtb: " << line.problem << '\n';
        return kExitFailure;
    }
    std::cout << to_fen(pos) << '\t' << value_name(line.start.value);
    if (line.start.value == Value::Draw) {
        std::cout << "\t(a draw has no forced end)\n";
        return kExitOk;
    }
    std::cout << '\t' << line.start.dtw << '\n';
    // The line is printed from the mover's point of view: value and DTW after its move.
    for (const LineMove& m : line.moves)
        std::cout << move_to_string(m.before, m.move) << '\t' << value_name(negate(m.after.value)) << '\t'
                  << m.after.dtw << '\n';
    if (!line.complete()) {
        std::cerr << "dtb: " << line.problem << '\n';
        return kExitFailure;
    }
    return kExitOk;
}

}  // namespace

void add_line_commands(CLI::App& app, Runner& run) {
    auto o = std::make_shared<LineOptions>();
    auto* cmd = app.add_subcommand("line", "Print an optimal line from a position to the end of the game (needs .dtw files)");
    cmd->add_option("-d,--db", o->db, "Database folder (built with dtb gen --dtw)")->required();
    cmd->add_option("fen", o->fen, "Position")->required();
    cmd->footer(
        "First line: FEN, value for the side to move, plies to the end. Then one move per line: the move, its "
        "value for the player who made it, and the plies left after it. The winner takes the shortest win, the "
        "loser the longest resistance.");
    cmd->callback([&run, o] { run = [o] { return run_line(*o); }; });
}

}  // namespace dtb::cli
