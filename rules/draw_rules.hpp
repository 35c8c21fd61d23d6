// The FMJD draw rules of international draughts (official rules, article 6), tracked move by move.
//
// Feed a DrawRuleTracker the moves of a game; after each one it tells which rule, if any, has
// declared the game drawn, and how many plies the 16-move (6.3) or 5-move (6.4) count still
// allows, so a caller can compare them with a tablebase's distance to win.
// docs/DRAW_RULES.md gives the precise reading of the rules implemented here.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "rules/movegen.hpp"

namespace dtb {

enum class DrawRule : std::uint8_t {
    Repetition,    // 6.1: the same position, same side to move, appears for the third time
    KingMoves,     // 6.2: 25 moves by each player with only king moves: no man move, no capture
    SixteenMoves,  // 6.3: 3 kings, 2 kings + man, or king + 2 men against a lone king: 16 moves each
    FiveMoves,     // 6.4: 2 kings, king + man, or a king against a lone king: 5 moves each
};

// A short English name, e.g. "6.1 threefold repetition".
std::string_view to_string(DrawRule rule);

// Plies (half-moves) each rule allows: "n moves by each player" is 2n plies.
inline constexpr int kRepetitionCount = 3;
inline constexpr int kKingMovePlies = 50;
inline constexpr int kSixteenMovePlies = 32;
inline constexpr int kFiveMovePlies = 10;

// Material counted by 6.3 or 6.4.
struct CountedEnding {
    DrawRule rule = DrawRule::FiveMoves;  // SixteenMoves or FiveMoves
    Color strong = Color::White;          // the side against the lone king (White for king v king)

    friend constexpr bool operator==(const CountedEnding&, const CountedEnding&) = default;
};

// The counted ending of this material, whichever colour is strong; nullopt if neither applies.
std::optional<CountedEnding> counted_ending(const Position& pos);
// The same from piece counts alone.
std::optional<CountedEnding> counted_ending(int white_kings, int white_men, int black_kings, int black_men);

// Plies the count of a 6.3 or 6.4 ending allows: kSixteenMovePlies or kFiveMovePlies.
int plies_allowed(DrawRule counted_rule);

// What happens to a running 16-move count when a capture turns 6.3 material into 6.4 material.
enum class CountChange : std::uint8_t {
    Restart,      // a 5-move count starts afresh (the default reading)
    KeepEarlier,  // a 5-move count starts, but the game is drawn no later than the 16-move count
};

struct DrawRuleOptions {
    CountChange sixteen_to_five = CountChange::Restart;
};

// The draw-rule state after the last move (ply 0: the start position).
struct DrawState {
    int ply = 0;                          // moves played since the tracker's start position
    int repetitions = 1;                  // occurrences of the current position (this one included)
    int king_move_plies = 0;              // successive plies of king moves without capture (6.2)
    std::optional<CountedEnding> ending;  // the 6.3/6.4 ending on the board, if any
    int ending_start_ply = 0;             // ply at which its count started
    // Plies still allowed by the count of `ending` (0 when there is none). The strong side wins
    // under the rules iff it wins in at most this many plies from here (the winning ply
    // included); the draw is declared when it reaches 0.
    int ending_plies_remaining = 0;
    std::optional<DrawRule> draw;         // the rule that declared the game drawn; stays set
    int draw_ply = 0;                     // the ply after which it was declared
    std::optional<Color> winner;          // set when the side to move has no legal move

    // Plies left before 6.2 draws the game, unless a man moves or a capture is made first.
    int king_move_plies_remaining() const { return kKingMovePlies - king_move_plies; }
};

// Whether `move` is irreversible in `pos`: a capture or a man move. Nothing before it can recur.
bool is_irreversible(const Position& pos, const Move& move);

// Advances the 6.2-6.4 counts of `state` by one move: `after` is the position the move produced and
// `irreversible` says whether it was a capture or a man move. Updates ply, king_move_plies, ending,
// ending_start_ply and ending_plies_remaining; repetitions, draw and winner are left alone.
// DrawRuleTracker::play uses it, and so does the forced-win search (forced_win.hpp).
void advance_counts(DrawState& state, const Position& after, bool irreversible, const DrawRuleOptions& options);

// The counting rule whose limit `state` has reached, if any: 6.2 before 6.3/6.4 (repetition aside).
std::optional<DrawRule> expired_count(const DrawState& state);

// How far a game's counts have run at a position, as a program that kept them (an engine at its
// root) knows them.
struct RunningCounts {
    int king_move_plies = 0;  // 6.2: successive plies of king moves without capture, 0..49
    // 6.3/6.4: plies played since the count of the position's counted material started (0 when
    // the material has none, or it arose with the last move); less than the count allows.
    int counted_plies = 0;
    // Positions that have occurred twice since the last man move or capture: a third occurrence
    // draws (6.1). The position itself may not be among them.
    std::vector<Position> occurred_twice;
};

// Follows one game from a start position. The history before the start position is unknown,
// so every count starts there (or where `RunningCounts` says); repetitions count from there too.
class DrawRuleTracker {
public:
    explicit DrawRuleTracker(const Position& start, DrawRuleOptions options = {});
    // From a position reached with `counts` already run. Throws std::invalid_argument when a count
    // is out of its range, or the position is among the twice-occurred ones.
    DrawRuleTracker(const Position& start, const RunningCounts& counts, DrawRuleOptions options = {});

    // Plays a legal move of position() and returns the new state. Moves after a declared draw
    // are still tracked (the draw stays as declared). Throws std::invalid_argument for a move
    // that is not legal, e.g. any move once `winner` is set.
    const DrawState& play(const Move& move);

    const DrawState& state() const { return state_; }
    const Position& position() const { return pos_; }
    const DrawRuleOptions& options() const { return options_; }
    // The positions since the last man move or capture (or the start), the current one last: what
    // 6.1 compares. A position occurring here twice would draw the game if it occurred again.
    const std::vector<Position>& history() const { return since_irreversible_; }

private:
    void update_repetitions(bool irreversible);
    void declare_draw();

    Position pos_;
    DrawRuleOptions options_;
    DrawState state_;
    std::vector<Position> since_irreversible_;  // positions since the last man move or capture
};

}  // namespace dtb
