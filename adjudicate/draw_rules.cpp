#include "adjudicate/draw_rules.hpp"

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

Force force_of(const Position& pos, Color c) {
    return Force{count_bits(pos.kings_of(c)), count_bits(pos.men(c))};
}

// The rule counting `strong` against a lone king, if any.
std::optional<DrawRule> counted_rule(Force strong) {
    const int pieces = strong.kings + strong.men;
    if (strong.kings == 0 || pieces > 3) return std::nullopt;
    if (pieces == 3) return DrawRule::SixteenMoves;  // 3 kings, 2 kings + man, king + 2 men
    return DrawRule::FiveMoves;                      // 2 kings, king + man, king
}

bool is_lone_king(Force f) { return f.kings == 1 && f.men == 0; }

int plies_allowed(DrawRule rule) { return rule == DrawRule::SixteenMoves ? kSixteenMovePlies : kFiveMovePlies; }

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

std::optional<CountedEnding> counted_ending(const Position& pos) {
    for (Color strong : {Color::White, Color::Black}) {
        if (!is_lone_king(force_of(pos, opponent(strong)))) continue;
        if (const auto rule = counted_rule(force_of(pos, strong))) return CountedEnding{*rule, strong};
    }
    return std::nullopt;
}

DrawRuleTracker::DrawRuleTracker(const Position& start, DrawRuleOptions options)
    : pos_(start), options_(options), since_irreversible_{start} {
    state_.ending = counted_ending(start);
    if (state_.ending) state_.ending_plies_remaining = plies_allowed(state_.ending->rule);
    if (generate_moves(start).empty()) state_.winner = opponent(start.side_to_move);
}

const DrawState& DrawRuleTracker::play(const Move& move) {
    if (!is_legal(pos_, move)) throw std::invalid_argument("not a legal move in " + to_fen(pos_));
    const Color mover = pos_.side_to_move;
    // Men never move back and captures never return material: nothing before such a move recurs.
    const bool irreversible = move.is_capture() || (pos_.men(mover) & (Bitboard{1} << move.from));
    pos_ = apply_move(pos_, move);
    ++state_.ply;
    update_repetitions(irreversible);
    update_king_moves(irreversible);
    update_ending();
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

void DrawRuleTracker::update_king_moves(bool irreversible) {
    state_.king_move_plies = irreversible ? 0 : state_.king_move_plies + 1;
}

// A count runs while its rule's material stays on the board, whatever promotions or captures
// happen within it; it starts afresh when the material first arises or changes rule.
void DrawRuleTracker::update_ending() {
    const std::optional<CountedEnding> now = counted_ending(pos_);
    if (!now) {
        state_.ending.reset();
        state_.ending_plies_remaining = 0;
        return;
    }
    if (state_.ending && state_.ending->rule == now->rule) {
        --state_.ending_plies_remaining;  // same count; keep its strong side (king v king is symmetric)
        return;
    }
    int remaining = plies_allowed(now->rule);
    const bool sixteen_to_five = state_.ending && state_.ending->rule == DrawRule::SixteenMoves &&
                                 now->rule == DrawRule::FiveMoves;
    if (sixteen_to_five && options_.sixteen_to_five == CountChange::KeepEarlier)
        remaining = std::min(remaining, state_.ending_plies_remaining - 1);
    state_.ending = now;
    state_.ending_start_ply = state_.ply;
    state_.ending_plies_remaining = remaining;
}

// Several rules can fire on the same ply; the lowest article number is reported.
void DrawRuleTracker::declare_draw() {
    std::optional<DrawRule> rule;
    if (state_.repetitions >= kRepetitionCount) rule = DrawRule::Repetition;
    else if (state_.king_move_plies >= kKingMovePlies) rule = DrawRule::KingMoves;
    else if (state_.ending && state_.ending_plies_remaining <= 0) rule = state_.ending->rule;
    if (!rule) return;
    state_.draw = rule;
    state_.draw_ply = state_.ply;
}

}  // namespace dtb
