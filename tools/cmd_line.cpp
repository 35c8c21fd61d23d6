// `dtb line`: an optimal line from a position to the end of the game, from the DTW databases.
#include <cstdio>
#include <iostream>
#include <memory>

#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "tools/commands.hpp"

namespace dtb::cli {
namespace {

struct LineOptions {
    std::string db;
    std::string fen;
};

// What the databases say of the position after a move, for the side that moved.
struct Outcome {
    Move move{};
    DtwResult after;  // for the side to move after the move
};

// The winner's shortest win, or the loser's longest resistance. Null when a successor is unknown.
const Outcome* best_move(const std::vector<Outcome>& outcomes, Value value) {
    const Outcome* best = nullptr;
    for (const Outcome& o : outcomes) {
        if (!o.after.known() || (o.after.value != Value::Draw && o.after.dtw < 0)) return nullptr;
        if (value == Value::Win) {
            if (o.after.value == Value::Loss && (!best || o.after.dtw < best->after.dtw)) best = &o;
        } else if (!best || o.after.dtw > best->after.dtw) {
            best = &o;
        }
    }
    return best;
}

int run_line(const LineOptions& o) {
    const Tablebase tb(o.db, {});
    require_databases(tb, true);
    Position pos = parse_fen(o.fen);
    DtwResult now = tb.probe_dtw(pos);
    if (!now.known() || (now.value != Value::Draw && now.dtw < 0)) {
        std::cerr << "dtb: " << to_fen(pos) << ": no distance to win: " << now.reason << '\n';
        return kExitFailure;
    }
    std::cout << to_fen(pos) << '\t' << value_name(now.value);
    if (now.value == Value::Draw) {
        std::cout << "\t(a draw has no forced end)\n";
        return kExitOk;
    }
    std::cout << '\t' << now.dtw << '\n';
    while (now.dtw > 0) {
        std::vector<Outcome> outcomes;
        for (const Move& m : generate_moves(pos)) outcomes.push_back({m, tb.probe_dtw(apply_move(pos, m))});
        const Outcome* best = best_move(outcomes, now.value);
        if (!best) {
            std::cerr << "dtb: a successor of " << to_fen(pos) << " has no distance to win\n";
            return kExitFailure;
        }
        // The line is printed from the mover's point of view: value and DTW after its move.
        std::cout << move_to_string(pos, best->move) << '\t' << value_name(negate(best->after.value)) << '\t'
                  << best->after.dtw << '\n';
        pos = apply_move(pos, best->move);
        now = best->after;
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
