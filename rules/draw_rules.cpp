#include "rules/draw_rules.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "rules/fen.hpp"

namespace dtb {
namespace {

struct Force {
    int kings = 0;
    int men = 0;
};

// The rule counting `strong` against a lone king, if any.
std::optional<DrawRule> counted_rule(Force strong) {
    const int pieces = strong.kings + strong.men;
    if (strong.kings == 0 || pieces > 3) return std::nullopt;
    if (pieces == 3) return DrawRule::SixteenMoves;  // 3 kings, 2 kings + man, king + 2 men
    return DrawRule::FiveMoves;                      // 2 kings, king + man, king
}

bool is_lone_king(Force f) { return f.kings == 1 && f.men == 0; }

bool is_legal(const Position& pos, const Move& move) {
    const MoveList moves = generate_moves(pos);
    return std::find(moves.begin(), moves.end(), move) != moves.end();
}

}  // namespace

std::string_view to_string(DrawRule rule) {
    switch (rule) {
        case DrawRule::Repetition: return "6.1 threefold repetition";
        case DrawRule::KingMoves: return "6.2 25 king moves each";
        case DrawRule::SixteenMoves: return "6.3 16-move ending";
        case DrawRule::FiveMoves: return "6.4 5-move ending";
    }
    return "unknown draw rule";
}

std::optional<CountedEnding> counted_ending(int white_kings, int white_men, int black_kings, int black_men) {
    const Force white{white_kings, white_men}, black{black_kings, black_men};
    if (is_lone_king(black))
        if (const auto rule = counted_rule(white)) return CountedEnding{*rule, Color::White};
    if (is_lone_king(white))
        if (const auto rule = counted_rule(black)) return CountedEnding{*rule, Color::Black};
    return std::nullopt;
}

std::optional<CountedEnding> counted_ending(const Position& pos) {
    return counted_ending(count_bits(pos.kings_of(Color::White)), count_bits(pos.men(Color::White)),
                          count_bits(pos.kings_of(Color::Black)), count_bits(pos.men(Color::Black)));
}

int plies_allowed(DrawRule rule) { return rule == DrawRule::SixteenMoves ? kSixteenMovePlies : kFiveMovePlies; }

DrawRuleTracker::DrawRuleTracker(const Position& start, DrawRuleOptions options)
    : pos_(start), options_(options), since_irreversible_{start} {
    state_.ending = counted_ending(start);
    if (state_.ending) state_.ending_plies_remaining = plies_allowed(state_.ending->rule);
    if (generate_moves(start).empty()) state_.winner = opponent(start.side_to_move);
}

DrawRuleTracker::DrawRuleTracker(const Position& start, const RunningCounts& counts, DrawRuleOptions options)
    : DrawRuleTracker(start, options) {
    if (counts.king_move_plies < 0 || counts.king_move_plies >= kKingMovePlies)
        throw std::invalid_argument("king-move plies must be 0 to " + std::to_string(kKingMovePlies - 1) + ", not " +
                                    std::to_string(counts.king_move_plies));
    const int allowed = state_.ending ? state_.ending_plies_remaining : 1;
    if (counts.counted_plies < 0 || counts.counted_plies >= allowed)
        throw std::invalid_argument(
            state_.ending ? "counted plies must be 0 to " + std::to_string(allowed - 1) + " in a " +
                                std::string(to_string(state_.ending->rule)) + ", not " +
                                std::to_string(counts.counted_plies)
                          : "counted plies must be 0: no 16- or 5-move count applies to " + to_fen(start));
    state_.king_move_plies = counts.king_move_plies;
    state_.ending_plies_remaining -= counts.counted_plies;
    state_.ending_start_ply = -counts.counted_plies;
    since_irreversible_.clear();
    for (const Position& p : counts.occurred_twice) {
        if (p == start) throw std::invalid_argument("the position itself is among those that occurred twice");
        since_irreversible_.insert(since_irreversible_.end(), 2, p);
    }
    since_irreversible_.push_back(start);
}

bool is_irreversible(const Position& pos, const Move& move) {
    return move.is_capture() || (pos.men(pos.side_to_move) & (Bitboard{1} << move.from)) != 0;
}

// A count runs while its rule's material stays on the board, whatever promotions or captures
// happen within it; it starts afresh when the material first arises or changes rule.
void advance_counts(DrawState& state, const Position& after, bool irreversible, const DrawRuleOptions& options) {
    ++state.ply;
    state.king_move_plies = irreversible ? 0 : state.king_move_plies + 1;
    const std::optional<CountedEnding> now = counted_ending(after);
    if (!now) {
        state.ending.reset();
        state.ending_plies_remaining = 0;
        return;
    }
    if (state.ending && state.ending->rule == now->rule) {
        --state.ending_plies_remaining;  // same count; keep its strong side (king v king is symmetric)
        return;
    }
    int remaining = plies_allowed(now->rule);
    const bool sixteen_to_five = state.ending && state.ending->rule == DrawRule::SixteenMoves &&
                                 now->rule == DrawRule::FiveMoves;
    if (sixteen_to_five && options.sixteen_to_five == CountChange::KeepEarlier)
        remaining = std::min(remaining, state.ending_plies_remaining - 1);
    state.ending = now;
    state.ending_start_ply = state.ply;
    state.ending_plies_remaining = remaining;
}

std::optional<DrawRule> expired_count(const DrawState& state) {
    if (state.king_move_plies >= kKingMovePlies) return DrawRule::KingMoves;
    if (state.ending && state.ending_plies_remaining <= 0) return state.ending->rule;
    return std::nullopt;
}

const DrawState& DrawRuleTracker::play(const Move& move) {
    if (!is_legal(pos_, move)) throw std::invalid_argument("not a legal move in " + to_fen(pos_));
    const Color mover = pos_.side_to_move;
    // Men never move back and captures never return material: nothing before such a move recurs.
    const bool irreversible = is_irreversible(pos_, move);
    pos_ = apply_move(pos_, move);
    advance_counts(state_, pos_, irreversible, options_);
    update_repetitions(irreversible);
    if (generate_moves(pos_).empty()) state_.winner = mover;  // the move won: no draw applies
    else if (!state_.draw) declare_draw();
    return state_;
}

void DrawRuleTracker::update_repetitions(bool irreversible) {
    if (irreversible) since_irreversible_.clear();
    since_irreversible_.push_back(pos_);
    state_.repetitions =
        static_cast<int>(std::count(since_irreversible_.begin(), since_irreversible_.end(), pos_));
}

// Several rules can fire on the same ply; the lowest article number is reported.
void DrawRuleTracker::declare_draw() {
    std::optional<DrawRule> rule = expired_count(state_);
    if (state_.repetitions >= kRepetitionCount) rule = DrawRule::Repetition;
    if (!rule) return;
    state_.draw = rule;
    state_.draw_ply = state_.ply;
}

}  // namespace dtb
