// Whether the side that wins a position under perfect play can force that win before a draw rule
// of FMJD article 6 declares the game drawn, given how far the game's counts have already run.
//
// The databases' distance to win (DTW) assumes no draw rule. Inside a 16- or 5-move count, or
// late in a run of king moves, the winner may not have the time, and a capture during the line
// can change the time left: the lone king taking a piece starts a new 5-move count, a capture
// into three pieces against a king starts a 16-move count, any capture or man move resets the
// 25-king-move count. force_win answers exactly, by a minimax search with the draw-rule counts
// played along, memoised and cut short only where DTW proves the answer. docs/DRAW_RULES.md
// ("Forcing the win before a draw rule") gives the argument for every cut.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "probe/oracle.hpp"
#include "rules/draw_rules.hpp"

namespace dtb {

enum class Forced : std::uint8_t { Yes, No, Unknown };
const char* to_string(Forced f);  // "yes", "no", "unknown"

// What makes the answer differ from comparing the DTW with plies_without_events.
enum class Decider : std::uint8_t {
    Distance,    // nothing: the answer is dtw <= plies_without_events
    Capture,     // a capture or man move during the line starts, restarts or stops a count
    Repetition,  // the win would pass through a position that has already occurred twice (6.1)
    CaptureOrRepetition,  // one of the two; the search could not tell which within its budget
};

// The budget of one force_win call: past any of its limits the answer is Unknown, with the reason
// "budget exceeded: ...". 0 means no bound.
struct ForcedWinOptions {
    std::uint64_t max_nodes = 4'000'000;  // positions expanded
    double max_seconds = 10;              // wall-clock time
    std::uint64_t max_memory_mb = 256;    // the search's tables (memo of positions with their counts)
};

struct ForcedWin {
    Forced answer = Forced::Unknown;
    std::optional<Color> winner;  // the side the oracle says wins the position, if any
    std::optional<int> dtw;       // its distance to win there, in plies, if known
    // Plies before a draw rule ends the game if no capture or man move comes first: the smaller
    // of what the running 6.3/6.4 count leaves and what 6.2 leaves.
    int plies_without_events = 0;
    Decider decided_by = Decider::Distance;  // meaningful when answer is Yes or No
    std::string unknown_reason;              // for Unknown: the position without a value, or the budget
    bool budget_exceeded = false;            // the answer is Unknown because a limit of the budget was reached
    std::uint64_t nodes = 0;                 // positions expanded
    double seconds = 0;                      // time the search took
    std::uint64_t memory_bytes = 0;          // the most its tables held (an estimate from their entries)
};

// Judges the position the tracker has reached, with its counts and its repetition history.
// Yes: the winner can force the win before any draw rule declares the game drawn, whatever the
// defence (also when the game is already won). No: it cannot; also when the oracle calls the
// position a draw (no winner) or the game is already drawn. Unknown: the oracle has no value or no
// distance to win for a position the answer depends on, or the budget ran out. Never a guess.
// The tracker's DrawRuleOptions decide what a 16-to-5-move change does. Thread-safe if the oracle is.
ForcedWin force_win(const DrawRuleTracker& tracker, const Oracle& oracle, const ForcedWinOptions& options = {});

}  // namespace dtb
