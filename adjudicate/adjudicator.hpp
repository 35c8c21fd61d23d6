// Checks a game against perfect play and the FMJD draw rules: where the theoretical value changed,
// which draw rules came into force, and whether the recorded result is consistent with both.
// The tablebase is reached through an Oracle, so that the analysis does not depend on how values
// are stored (files, memory) and a distance to win can be supplied where one is known.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/draw_rules.hpp"
#include "probe/forced_win.hpp"
#include "probe/oracle.hpp"
#include "rules/pdn.hpp"

namespace dtb {

// A move after which the player who made it is worse off under perfect play.
struct ValueChange {
    int ply = 0;          // index of the move in the game
    int move_number = 0;  // as numbered in the game
    std::string move;     // as written in the game
    std::string fen;      // the position the move was played in
    Value before = Value::Unknown;  // for the player to move, before the move
    Value after = Value::Unknown;   // for the same player, after the move
    std::optional<int> dtw_before;  // of the position before, when known
};

// A draw rule whose count started, or that declared the game drawn.
struct RuleEvent {
    DrawRule rule = DrawRule::Repetition;
    int ply = 0;  // the count started, or the draw was declared, after this many moves
    bool draw = false;
    int plies_allowed = 0;  // for a count that started: plies it allows
};

enum class Consistency { Consistent, Inconsistent, Undecided };
const char* to_string(Consistency c);  // "consistent", "inconsistent", "undecided"

struct GameAnalysis {
    std::optional<std::string> white, black;  // players, from the tags; nullopt when missing or empty
    std::string result;          // as recorded, the draughts way ("2-0", "1-1", ...; "" when none)
    std::string result_written;  // as written when that was the chess way ("1-0" for 2-0), else ""
    int plies = 0;               // moves read
    std::string final_fen;       // the position after the last move read
    // First position of the game within the databases.
    std::optional<int> first_known_ply;
    std::string first_known_fen;
    Assessment first_known;
    std::vector<ValueChange> changes;
    std::vector<RuleEvent> rules;
    Consistency consistency = Consistency::Undecided;
    std::string explanation;      // one sentence, e.g. "after 54. 18-12 white wins in 13 plies, ..."
    // For a final position won in the databases: whether the winner can force the win before a draw
    // rule ends the game (force_win); unset when it was not asked (no DTW, or no decisive value).
    std::optional<Forced> forced_win;
    std::optional<ForcedWin> search;  // the whole answer of force_win when it was asked: cost, budget
    std::optional<PdnError> error;  // the game could not be read to its end
    std::vector<PdnError> warnings; // the reader's (PdnGame::warnings)
};

struct AnalysisOptions {
    DrawRuleOptions rules;    // how the draw rules are read (docs/DRAW_RULES.md)
    ForcedWinOptions search;  // the budget of the forced-win search
};

// Analyses a game read from PDN. Games that stopped on an error are analysed up to it, and the
// verdict is Undecided. A game scored "*" or without a result claims nothing: its verdict is
// Undecided, with the facts (a draw by rule, a side without moves, the final value) in the
// explanation. A result giving the win to the side that loses under perfect play is Inconsistent
// even where the draw rules are not settled, since they can only turn that win into a draw. A final position the databases call won is a win under the rules only if
// the winner can force it before a draw rule ends the game (force_win); that needs the DTW, and
// without it the verdict is Undecided where a 6.3/6.4 count runs or only kings are left.
GameAnalysis analyse_game(const PdnGame& game, const Oracle& oracle, const AnalysisOptions& options = {});

}  // namespace dtb
