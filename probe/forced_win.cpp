#include "probe/forced_win.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "rules/fen.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace {

constexpr int kUnbounded = 1 << 20;

struct PositionHash {
    std::size_t operator()(const Position& p) const {
        std::uint64_t h = p.white * 0x9E3779B97F4A7C15ULL;
        h ^= (p.black + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
        h ^= (p.kings + static_cast<std::uint64_t>(p.side_to_move)) * 0x165667B19E3779F9ULL;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

// Piece counts by colour (index 0 White, 1 Black): all the bounds below look at.
struct Pieces {
    int kings[2] = {0, 0};
    int men[2] = {0, 0};

    int total(int c) const { return kings[c] + men[c]; }
    std::optional<CountedEnding> ending() const { return counted_ending(kings[0], men[0], kings[1], men[1]); }
    friend auto operator<=>(const Pieces&, const Pieces&) = default;
};

Pieces pieces_of(const Position& p) {
    Pieces m;
    for (int c = 0; c < 2; ++c) {
        const Color color = static_cast<Color>(c);
        m.kings[c] = count_bits(p.kings_of(color));
        m.men[c] = count_bits(p.men(color));
    }
    return m;
}

std::optional<DrawRule> rule_of(const Pieces& m) {
    const auto e = m.ending();
    return e ? std::optional<DrawRule>(e->rule) : std::nullopt;
}

// The materials one move by side x can leave (captures of any of the opponent's pieces, with or
// without the promotion of a man of x, or a promotion alone), the unchanged material included.
// A superset of what the board allows; the bounds only need that.
std::vector<Pieces> material_moves(const Pieces& m, int x) {
    const int o = 1 - x;
    std::vector<Pieces> out{m};
    for (int promote = 0; promote <= (m.men[x] > 0 ? 1 : 0); ++promote)
        for (int men = 0; men <= m.men[o]; ++men)
            for (int kings = 0; kings <= m.kings[o]; ++kings) {
                if (promote + men + kings == 0) continue;
                Pieces next = m;
                next.men[x] -= promote;
                next.kings[x] += promote;
                next.men[o] -= men;
                next.kings[o] -= kings;
                out.push_back(next);
            }
    return out;
}

struct MemoEntry {
    int king_move_plies;
    int remaining;
    Forced result;
};

// What the memo costs: a new position (hash node with its key, bucket, the vector's first
// allocation) and one more set of counts for a position already there.
constexpr std::uint64_t kMemoPositionBytes = 128;
constexpr std::uint64_t kMemoEntryBytes = 24;
// An assessment kept: hash node with position, value and distance, and its bucket.
constexpr std::uint64_t kAssessmentBytes = 72;

// The limits of ForcedWinOptions, shared by every search of one force_win call.
class Budget {
public:
    using Clock = std::chrono::steady_clock;

    explicit Budget(const ForcedWinOptions& options) : options_(options), start_(Clock::now()) {}

    // Counts one expanded position; false once a limit is reached, and from then on.
    bool take_node() {
        if (exceeded()) return false;
        ++nodes_;
        if (options_.max_nodes && nodes_ > options_.max_nodes) {
            limit_ = std::to_string(options_.max_nodes) + " positions";
        } else if (options_.max_memory_mb && bytes_ > options_.max_memory_mb << 20) {
            limit_ = std::to_string(options_.max_memory_mb) + " MiB";
        } else if (options_.max_seconds > 0 && seconds() > options_.max_seconds) {
            std::ostringstream s;
            s << options_.max_seconds << " s";
            limit_ = s.str();
        }
        return !exceeded();
    }
    void add_bytes(std::uint64_t bytes) { bytes_ += bytes; }

    bool exceeded() const { return !limit_.empty(); }
    std::string reason() const { return "budget exceeded: the search stopped at its limit of " + limit_; }
    std::uint64_t nodes() const { return exceeded() ? nodes_ - 1 : nodes_; }  // the refused one was not expanded
    std::uint64_t bytes() const { return bytes_; }
    double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

private:
    const ForcedWinOptions& options_;
    const Clock::time_point start_;
    std::uint64_t nodes_ = 0;
    std::uint64_t bytes_ = 0;
    std::string limit_;
};

// The minimax search. The winner only moves to positions the oracle still scores as won for it;
// the defender's every move is tried. Results are memoised per position with the counts they were
// found with: a win found with less time left also holds with more, a failure found with more time
// also holds with less (docs/DRAW_RULES.md).
class Search {
public:
    Search(const Oracle& oracle, const DrawRuleOptions& rules, Budget& budget, Color winner,
           std::unordered_set<Position, PositionHash> forbidden)
        : oracle_(oracle), rules_(rules), budget_(budget), winner_(winner), forbidden_(std::move(forbidden)) {}

    // The side to move at `pos` has a legal move, `state` declares no draw, and the oracle says
    // the winner wins in `dtw` plies.
    Forced solve(const Position& pos, const DrawState& state, int dtw, bool root_segment) {
        if (budget_.exceeded()) return Forced::Unknown;
        if (const auto known = lookup(pos, state)) return *known;
        Forced result;
        if (dtw > most_plies_before_draw(pos, state)) {
            result = Forced::No;  // the defender can last dtw plies; a draw rule comes first
        } else if (dtw <= fewest_plies_before_draw(pos, state) && !(root_segment && !forbidden_.empty())) {
            result = Forced::Yes;  // the shortest win ends before any draw rule can apply
        } else {
            if (!budget_.take_node()) return Forced::Unknown;
            result = pos.side_to_move == winner_ ? winner_node(pos, state, root_segment)
                                                 : defender_node(pos, state, root_segment);
        }
        if (result != Forced::Unknown || !budget_.exceeded()) {  // an Unknown for want of budget is not kept
            const auto [it, fresh] = memo_.try_emplace(pos);
            it->second.push_back({state.king_move_plies, state.ending_plies_remaining, result});
            budget_.add_bytes(fresh ? kMemoPositionBytes : kMemoEntryBytes);
        }
        return result;
    }

    const std::string& unknown_reason() const { return unknown_reason_; }

private:
    struct Child {
        Position pos;
        DrawState state;
        int dtw = 0;
        bool root_segment = false;
    };

    std::optional<Forced> lookup(const Position& pos, const DrawState& state) const {
        const auto it = memo_.find(pos);
        if (it == memo_.end()) return std::nullopt;
        const int kmp = state.king_move_plies, left = state.ending_plies_remaining;
        for (const MemoEntry& e : it->second) {
            if (e.result == Forced::Yes && e.king_move_plies >= kmp && e.remaining <= left) return Forced::Yes;
            if (e.result == Forced::No && e.king_move_plies <= kmp && e.remaining >= left) return Forced::No;
            if (e.result == Forced::Unknown && e.king_move_plies == kmp && e.remaining == left) return Forced::Unknown;
        }
        return std::nullopt;
    }

    Child child(const Position& pos, const Move& m, const Position& next, const DrawState& state, bool root_segment) const {
        const bool irreversible = is_irreversible(pos, m);
        Child c{next, state, 0, root_segment && !irreversible};
        advance_counts(c.state, next, irreversible, rules_);
        return c;
    }

    // After the move to c, a draw rule declares the game drawn (the move did not win).
    bool drawn(const Child& c) const {
        return expired_count(c.state) || (c.root_segment && forbidden_.count(c.pos) != 0);
    }

    // The oracle's answer, asked once per position: the search meets the same positions again and
    // again with other counts, and a DTW probe of a win costs a ply of probes.
    Assessment assess(const Position& pos) {
        const auto [it, fresh] = assessments_.try_emplace(pos);
        if (fresh) {
            it->second = oracle_(pos);
            budget_.add_bytes(kAssessmentBytes);
        }
        return it->second;
    }

    void note_unknown(const Position& pos, const Assessment& a) {
        if (!unknown_reason_.empty()) return;
        unknown_reason_ = (a.value == Value::Unknown ? "no value for " : "no distance to win for ") + to_fen(pos);
    }

    Forced winner_node(const Position& pos, const DrawState& state, bool root_segment) {
        bool unknown = false;
        std::vector<Child> children;
        for (const Move& m : generate_moves(pos)) {
            const Position next = apply_move(pos, m);
            if (count_moves(next) == 0) return Forced::Yes;  // the defender has no move left: won
            Child c = child(pos, m, next, state, root_segment);
            if (drawn(c)) continue;
            const Assessment a = assess(next);
            if (a.value == Value::Unknown || (a.value == Value::Loss && !a.dtw)) {
                note_unknown(next, a);
                unknown = true;
                continue;
            }
            if (a.value != Value::Loss) continue;  // lets the win go: the defender never has to lose
            c.dtw = *a.dtw;
            children.push_back(c);
        }
        std::stable_sort(children.begin(), children.end(), [](const Child& a, const Child& b) { return a.dtw < b.dtw; });
        for (const Child& c : children) {
            const Forced r = solve(c.pos, c.state, c.dtw, c.root_segment);
            if (r == Forced::Yes) return Forced::Yes;
            unknown |= r == Forced::Unknown;
        }
        return unknown ? Forced::Unknown : Forced::No;
    }

    Forced defender_node(const Position& pos, const DrawState& state, bool root_segment) {
        bool unknown = false;
        std::vector<Child> children;
        for (const Move& m : generate_moves(pos)) {
            const Position next = apply_move(pos, m);
            if (count_moves(next) == 0) return Forced::No;  // the winner is left without a move
            Child c = child(pos, m, next, state, root_segment);
            if (drawn(c)) return Forced::No;
            const Assessment a = assess(next);
            if (a.value == Value::Unknown || (a.value == Value::Win && !a.dtw)) {
                note_unknown(next, a);
                unknown = true;
                continue;
            }
            if (a.value != Value::Win) return Forced::No;  // the defender escapes
            c.dtw = *a.dtw;
            children.push_back(c);
        }
        // The longest resistance first: the likeliest refutation.
        std::stable_sort(children.begin(), children.end(), [](const Child& a, const Child& b) { return a.dtw > b.dtw; });
        for (const Child& c : children) {
            const Forced r = solve(c.pos, c.state, c.dtw, c.root_segment);
            if (r == Forced::No) return Forced::No;
            unknown |= r == Forced::Unknown;
        }
        return unknown ? Forced::Unknown : Forced::Yes;
    }

    // A lower bound on the plies after which some draw rule could declare the game drawn, over all
    // continuations: what 6.2 and the running count leave, and the earliest a new count could end.
    int fewest_plies_before_draw(const Position& pos, const DrawState& state) {
        int plies = kKingMovePlies - state.king_move_plies;
        if (state.ending) plies = std::min(plies, state.ending_plies_remaining);
        return std::min(plies, earliest_new_count_end(pieces_of(pos), pos.side_to_move == Color::White ? 0 : 1));
    }

    // The earliest ply at which a count that starts after a move from here could run out while the
    // shortest win goes on: t + 10 or t + 32 for a count starting with the t-th move, found over the
    // materials moves can lead to.
    int earliest_new_count_end(const Pieces& start, int side) {
        const auto key = std::make_pair(start, side);
        if (const auto it = new_count_end_.find(key); it != new_count_end_.end()) return it->second;
        // Beyond a few pieces the search stays small enough to ask: a count starts at ply 1 at the earliest.
        int best = 1 + kFiveMovePlies;
        if (start.total(0) + start.total(1) <= 8) {
            best = kUnbounded;
            std::map<std::pair<Pieces, int>, int> seen{{key, 0}};
            std::queue<std::pair<Pieces, int>> queue;
            queue.push(key);
            while (!queue.empty()) {
                const auto [m, x] = queue.front();
                queue.pop();
                const int t = seen[{m, x}] + 1;  // the ply the next move is
                if (t + kFiveMovePlies >= best) break;
                for (const Pieces& next : material_moves(m, x)) {
                    if (next.total(1 - x) == 0) continue;  // the game is over
                    const auto now = rule_of(next);
                    if (now && now != rule_of(m) && count_can_stop_a_win(*now)) best = std::min(best, t + plies_allowed(*now));
                    if (seen.emplace(std::make_pair(next, 1 - x), t).second) queue.push({next, 1 - x});
                }
            }
        }
        new_count_end_[key] = best;
        return best;
    }

    // Whether a count of `rule` starting afresh could end the game before a shortest win does: not
    // when every position the count applies to is won within it, since a shortest win then ends
    // inside any count started on its way (docs/DRAW_RULES.md).
    bool count_can_stop_a_win(DrawRule rule) const {
        const std::optional<int> longest = oracle_.counted_bounds.of(rule);
        return !longest || *longest > plies_allowed(rule);
    }

    // An upper bound on the plies any continuation can last before a draw rule ends the game,
    // derived for kings only: with men on the board, man moves and promotions can extend it too far
    // for a bound to help, and kUnbounded is returned.
    int most_plies_before_draw(const Position& pos, const DrawState& state) {
        if (pos.kings != pos.occupied()) return kUnbounded;
        const Pieces m = pieces_of(pos);
        if (state.ending) return state.ending_plies_remaining + restart_bonus(state.ending->rule);
        int after_capture = 0;
        for (const Pieces& next : kings_captures(m)) after_capture = std::max(after_capture, fresh_kings_material(next));
        return kKingMovePlies - state.king_move_plies + after_capture;
    }

    // Plies a fresh count in `rule` may gain from later captures: under Restart the lone king taking
    // one or two of three pieces starts a 5-move count, possibly on the last ply of the 16-move one.
    int restart_bonus(DrawRule rule) const {
        return rule == DrawRule::SixteenMoves && rules_.sixteen_to_five == CountChange::Restart ? kFiveMovePlies : 0;
    }

    // Kings-only materials one capture leads to, by either side, the game not being over.
    static std::vector<Pieces> kings_captures(const Pieces& m) {
        std::vector<Pieces> out;
        for (int o = 0; o < 2; ++o)
            for (int taken = 1; taken < m.kings[o]; ++taken) {
                Pieces next = m;
                next.kings[o] -= taken;
                out.push_back(next);
            }
        return out;
    }

    // The most plies kings-only material `m`, just reached by a capture, can last before a draw.
    int fresh_kings_material(const Pieces& m) {
        if (const auto it = fresh_kings_.find(m); it != fresh_kings_.end()) return it->second;
        int plies;
        if (const auto rule = rule_of(m)) {
            plies = plies_allowed(*rule) + restart_bonus(*rule);
        } else {
            int after_capture = 0;
            for (const Pieces& next : kings_captures(m)) after_capture = std::max(after_capture, fresh_kings_material(next));
            plies = kKingMovePlies + after_capture;
        }
        fresh_kings_[m] = plies;
        return plies;
    }

    const Oracle& oracle_;
    DrawRuleOptions rules_;
    Budget& budget_;
    Color winner_;
    std::unordered_set<Position, PositionHash> forbidden_;
    std::unordered_map<Position, std::vector<MemoEntry>, PositionHash> memo_;
    std::unordered_map<Position, Assessment, PositionHash> assessments_;
    std::map<std::pair<Pieces, int>, int> new_count_end_;
    std::map<Pieces, int> fresh_kings_;
    std::string unknown_reason_;
};

// Positions that have occurred twice since the last irreversible move: a third time draws (6.1).
std::unordered_set<Position, PositionHash> twice_occurred(const DrawRuleTracker& tracker) {
    std::unordered_map<Position, int, PositionHash> count;
    std::unordered_set<Position, PositionHash> out;
    for (const Position& p : tracker.history())
        if (++count[p] >= 2) out.insert(p);
    return out;
}

}  // namespace

const char* to_string(Forced f) {
    switch (f) {
        case Forced::Yes: return "yes";
        case Forced::No: return "no";
        default: return "unknown";
    }
}

ForcedWin force_win(const DrawRuleTracker& tracker, const Oracle& oracle, const ForcedWinOptions& options) {
    ForcedWin out;
    const DrawState& state = tracker.state();
    const Position& pos = tracker.position();
    out.plies_without_events = kKingMovePlies - state.king_move_plies;
    if (state.ending) out.plies_without_events = std::min(out.plies_without_events, state.ending_plies_remaining);
    if (state.winner) {
        out.winner = state.winner;
        out.dtw = 0;
        out.answer = Forced::Yes;
        return out;
    }
    const Assessment a = oracle(pos);
    if (a.value == Value::Win || a.value == Value::Loss) {
        out.winner = a.value == Value::Win ? pos.side_to_move : opponent(pos.side_to_move);
        out.dtw = a.dtw;
    }
    if (state.draw || a.value == Value::Draw) {
        out.answer = Forced::No;
        return out;
    }
    if (a.value == Value::Unknown || !a.dtw) {
        out.unknown_reason = (a.value == Value::Unknown ? "no value for " : "no distance to win for ") + to_fen(pos);
        return out;
    }
    auto forbidden = twice_occurred(tracker);
    const bool repetitions = !forbidden.empty();
    Budget budget(options);
    const auto account = [&] {
        out.nodes = budget.nodes();
        out.seconds = budget.seconds();
        out.memory_bytes = budget.bytes();
        out.budget_exceeded = budget.exceeded();
    };
    Search search(oracle, tracker.options(), budget, *out.winner, std::move(forbidden));
    out.answer = search.solve(pos, state, *a.dtw, true);
    account();
    if (out.answer == Forced::Unknown) {
        out.unknown_reason = budget.exceeded() ? budget.reason() : search.unknown_reason();
        return out;
    }
    const bool by_distance = *a.dtw <= out.plies_without_events;
    if ((out.answer == Forced::Yes) == by_distance) return out;
    out.decided_by = Decider::Capture;
    if (repetitions) {  // is it the repetitions? The same search without them tells.
        Search without(oracle, tracker.options(), budget, *out.winner, {});
        const Forced r = without.solve(pos, state, *a.dtw, true);
        account();
        out.budget_exceeded = false;  // the answer stands; only the reason behind it may be unsure
        if (r == Forced::Unknown) out.decided_by = Decider::CaptureOrRepetition;
        else if ((r == Forced::Yes) == by_distance) out.decided_by = Decider::Repetition;
    }
    return out;
}

}  // namespace dtb
