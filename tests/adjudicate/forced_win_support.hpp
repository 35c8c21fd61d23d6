// Helpers for the tests of force_win: databases of a few materials solved in memory, a brute-force
// minimax that plays the rules by the definition, and trackers that reach a position with a
// given part of a count used up.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "rules/draw_rules.hpp"
#include "probe/oracle.hpp"
#include "gen/builder.hpp"
#include "index/position_index.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"
#include "tests/gen/in_memory_tables.hpp"

namespace dtb::test_support {

// A variable the ctest registration sets; throws when run outside ctest.
inline std::string env(const char* name) {
    const char* v = std::getenv(name);
    if (!v) throw std::runtime_error(std::string(name) + " is not set (run through ctest)");
    return v;
}

// The real 2-4 piece build with distances to win of the ctest fixture adjudicate_dtw4
// (DTB_ADJUDICATE_DB), opened once, and its oracle.
inline const Tablebase& dtw4_tablebase() {
    static const Tablebase tb(env("DTB_ADJUDICATE_DB"));
    return tb;
}

inline const Oracle& dtw4_oracle() {
    static const Oracle o = tablebase_oracle(dtw4_tablebase());
    return o;
}

// The given materials and everything they lead to (captures, promotions, mirrors), WDL and DTW
// solved in memory as dtb gen solves them.
inline InMemoryTables solve_closure(const std::vector<Material>& targets) {
    std::set<Material> need;
    const std::function<void(const Material&)> add = [&](const Material& m) {
        if (!need.insert(m).second) return;
        add(m.mirror());
        for (const Material& next : successor_materials(m)) add(next);
    };
    for (const Material& m : targets) add(m);
    InMemoryTables t;
    for (const Material& m : materials_in_build_order(4)) {
        if (!need.count(m) || t.wdl.contains(m)) continue;
        for (SolvedMaterial& s : solve_material_pair(m, t.wdl)) t.wdl.add(s.material, std::move(s.values));
        for (DtwMaterial& d : solve_dtw_pair(m, t.wdl, t.dtw)) t.dtw.add(d.material, std::move(d.dtw));
    }
    return t;
}

// The longest DTW of every position of every material a 6.3 or 6.4 count applies to, read position
// by position from in-memory tables (exact, where tablebase_oracle derives a bound from file
// headers); nullopt for a count when the tables lack one of its materials.
inline CountedEndingBounds counted_bounds_by_scan(const InMemoryTables& t) {
    std::map<DrawRule, std::optional<int>> longest;
    for (const Material& m : materials_in_build_order(4)) {
        const auto ending = counted_ending(m.white_kings, m.white_men, m.black_kings, m.black_men);
        if (!ending) continue;
        const auto [it, first] = longest.try_emplace(ending->rule, 0);
        if (!it->second) continue;
        if (!t.dtw.contains(m)) {
            it->second.reset();
            continue;
        }
        const PositionIndex index(m);
        for (std::uint64_t i = 0; i < index.size(); ++i) {
            const Dtw d = t.dtw.dtw_of(index.position(i));
            if (d != kDtwDraw) it->second = std::max<int>(*it->second, d);
        }
    }
    return {longest[DrawRule::SixteenMoves], longest[DrawRule::FiveMoves]};
}

// A random position with these pieces ("KKM": two kings and a man), no man on its crowning row,
// either side to move, drawn from `rng` (the same seed gives the same positions everywhere).
inline Position random_position(std::mt19937& rng, const char* white, const char* black) {
    Position p;
    p.side_to_move = rng() % 2 ? Color::White : Color::Black;
    const auto place = [&](char kind, Color c) {
        for (;;) {
            const int square = 1 + static_cast<int>(rng() % 50);
            const bool crowning_row = c == Color::White ? square <= 5 : square >= 46;
            if ((p.occupied() & square_bit(square)) || (kind == 'M' && crowning_row)) continue;
            (c == Color::White ? p.white : p.black) |= square_bit(square);
            if (kind == 'K') p.kings |= square_bit(square);
            return;
        }
    };
    for (const char* k = white; *k; ++k) place(*k, Color::White);
    for (const char* k = black; *k; ++k) place(*k, Color::Black);
    return p;
}

// An oracle over in-memory tables: Unknown for a material they lack. With `bounds`, it knows the
// counted endings' longest distances as counted_bounds_by_scan finds them.
inline Oracle table_oracle(const InMemoryTables& t, bool bounds = true) {
    const auto assess = [&t](const Position& pos) -> Assessment {
        if (pos.pieces(pos.side_to_move) == 0) return {Value::Loss, 0};  // its last piece was taken
        const Material m = material_of(pos);
        if (!t.wdl.contains(m) || !t.dtw.contains(m)) return {};
        const Dtw d = t.dtw.dtw_of(pos);
        return {t.wdl.value_of(pos), d == kDtwDraw ? std::nullopt : std::optional<int>(d)};
    };
    return Oracle(assess, bounds ? counted_bounds_by_scan(t) : CountedEndingBounds{});
}

// The question force_win answers, by its definition: the game is played on with copies of the
// real DrawRuleTracker (threefold repetition included, with the whole history), every legal move
// of both sides is tried, and no distance to win is used. The only shortcut: a position the
// databases do not score as won for `winner` cannot be won under extra rules either (the defender
// then has a way never to lose). Results are memoised on the complete state: position, counts and
// the positions since the last irreversible move. nullopt when more than `cap` positions are needed.
class BruteForce {
public:
    BruteForce(const Oracle& oracle, Color winner, long cap) : oracle_(oracle), winner_(winner), cap_(cap) {}

    std::optional<bool> wins(const DrawRuleTracker& t) {
        const DrawState& s = t.state();
        if (s.winner) return *s.winner == winner_;
        if (s.draw) return false;
        const Position& pos = t.position();
        const Value v = oracle_(pos).value;
        if (v == Value::Unknown) throw std::logic_error("no value for " + to_fen(pos));
        if ((pos.side_to_move == winner_ ? v : negate(v)) != Value::Win) return false;
        const std::string key = state_key(t);
        if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
        if (++nodes_ > cap_) return std::nullopt;
        const bool winner_moves = pos.side_to_move == winner_;
        bool result = !winner_moves;
        for (const Move& m : generate_moves(pos)) {
            DrawRuleTracker next = t;
            next.play(m);
            const std::optional<bool> r = wins(next);
            if (!r) return std::nullopt;
            if (*r == winner_moves) {
                result = winner_moves;
                break;
            }
        }
        memo_[key] = result;
        return result;
    }

    long nodes() const { return nodes_; }

private:
    static void append(std::string& k, const Position& p) {
        for (const std::uint64_t v : {p.white, p.black, p.kings, static_cast<std::uint64_t>(p.side_to_move)})
            k.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    static std::string state_key(const DrawRuleTracker& t) {
        const DrawState& s = t.state();
        std::string k = std::to_string(s.king_move_plies) + '/' + std::to_string(s.ending ? int(s.ending->rule) : -1) +
                        '/' + std::to_string(s.ending_plies_remaining) + '/';
        append(k, t.position());
        std::vector<Position> h = t.history();
        std::sort(h.begin(), h.end(), [](const Position& a, const Position& b) {
            return std::tie(a.white, a.black, a.kings, a.side_to_move) < std::tie(b.white, b.black, b.kings, b.side_to_move);
        });
        for (const Position& p : h) append(k, p);
        return k;
    }

    const Oracle& oracle_;
    Color winner_;
    long cap_;
    long nodes_ = 0;
    std::map<std::string, bool> memo_;
};

// A way to `fen`: a start position and `plies` king moves without capture from it, no position
// occurring twice. Found by walking back from `fen` (seeded, so always the same walk); throws if
// the walk gets stuck.
struct Walk {
    Position start;
    std::vector<Move> moves;
};

inline Walk walk_to(const std::string& fen, int plies, unsigned seed = 1) {
    std::mt19937 rng(seed);
    std::vector<Position> line{parse_fen(fen)};
    std::vector<Move> moves;  // moves[i] leads from line[i + 1] to line[i]
    while (static_cast<int>(moves.size()) < plies) {
        const Position& cur = line.back();
        const Color mover = opponent(cur.side_to_move);  // who made the move into cur
        std::vector<std::pair<Position, Move>> before;
        for (Bitboard ks = cur.kings_of(mover); ks; ks &= ks - 1) {
            const int to = lowest_bit(ks);
            for (const int step : kDirections) {
                for (Bitboard from = shift(Bitboard{1} << to, step) & kBoard & cur.empty(); from;
                     from = shift(from, step) & kBoard & cur.empty()) {
                    Position prev = cur;
                    Bitboard& own = mover == Color::White ? prev.white : prev.black;
                    own ^= (Bitboard{1} << to) | from;
                    prev.kings ^= (Bitboard{1} << to) | from;
                    prev.side_to_move = mover;
                    const Move m{0, static_cast<std::uint8_t>(lowest_bit(from)), static_cast<std::uint8_t>(to)};
                    const MoveList legal = generate_moves(prev);
                    if (std::find(legal.begin(), legal.end(), m) == legal.end()) continue;
                    if (std::find(line.begin(), line.end(), prev) != line.end()) continue;
                    before.emplace_back(prev, m);
                }
            }
        }
        if (before.empty()) throw std::runtime_error("no way back from " + to_fen(cur));
        const auto& [prev, m] = before[rng() % before.size()];
        line.push_back(prev);
        moves.push_back(m);
    }
    std::reverse(moves.begin(), moves.end());
    return {line.back(), moves};
}

// A tracker that has followed walk_to(fen, plies, seed): 6.3/6.4 counts have `plies` fewer plies
// left than at the start, the 6.2 count stands at `plies`, and no position has occurred twice.
inline DrawRuleTracker reach(const std::string& fen, int plies, DrawRuleOptions options = {}, unsigned seed = 1) {
    const Walk w = walk_to(fen, plies, seed);
    DrawRuleTracker t(w.start, options);
    for (const Move& m : w.moves) t.play(m);
    if (to_fen(t.position()) != to_fen(parse_fen(fen)) || t.state().draw) throw std::logic_error("reach: bad walk to " + fen);
    return t;
}

}  // namespace dtb::test_support
