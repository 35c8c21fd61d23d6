// Distance to win (DTW): for a won or lost position, the number of plies until the game ends (the
// losing side has no piece or no legal move) when the winner takes the shortest way and the loser
// the longest, counted through captures and promotions into other materials.
//
// A DTW is given for the side to move: odd for a win, even for a loss, 0 for a side that has no
// legal move (it has lost), kDtwDraw for a draw. Capture positions carry their exact DTW too.
//
// solve_dtw_pair works like solve_material_pair (see solver.hpp): one men configuration of a
// material together with the flipped configuration of its mirror, from the most advanced
// configurations down. Inside such a subgame the positions settle in increasing DTW (a bucket
// queue: every step costs one ply). Where the WDL values are known already, they say which
// positions are wins and losses, and the solver checks that the distances agree with them;
// solve_pair_with_distances finds both in the same pass.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "gen/material_map.hpp"
#include "gen/solver.hpp"

#include "gen/solver.hpp"
#include "gen/value_tables.hpp"

namespace dtb {

using Dtw = std::uint16_t;
inline constexpr Dtw kDtwDraw = 0xFFFF;  // also the largest DTW + 1: longer distances are refused

constexpr bool dtw_is_win(Dtw d) { return d != kDtwDraw && (d & 1) != 0; }
constexpr bool dtw_is_loss(Dtw d) { return d != kDtwDraw && (d & 1) == 0; }
constexpr Value dtw_value(Dtw d) { return d == kDtwDraw ? Value::Draw : (d & 1) ? Value::Win : Value::Loss; }

// The DTW of a position from the DTWs of the positions after each of its legal moves (each for
// the opponent, who is then to move): the shortest way into a lost position for the opponent,
// else a draw if there is one, else the longest way. No move at all: 0.
class DtwBest {
public:
    void add(Dtw after);
    Dtw result() const;

private:
    Dtw shortest_loss_ = kDtwDraw;  // smallest even DTW after a move
    Dtw longest_win_ = 0;           // largest odd DTW after a move
    bool any_move_ = false;
    bool any_draw_ = false;
};

// 1 + d; throws std::overflow_error when that no longer fits below kDtwDraw.
Dtw dtw_plus_one(Dtw d);

// DTW of a solved material: one Dtw per position of PositionIndex(material), white to move; and
// its capture positions, if known.
struct DtwMaterial {
    Material material;
    std::vector<Dtw> dtw;
    CaptureBits captures{};
};

// In-memory DTW of finished materials. Lookups are lock-free; adding is not thread-safe and
// happens between parallel phases.
class DtwTables {
public:

    bool contains(const Material& m) const { return slot(m) != nullptr; }
    void add(const Material& m, std::vector<Dtw> dtw);
    // Frees the table of m (nothing if it was not added).
    void remove(const Material& m);
    // The DTWs of a material by position index (white to move); null if it was not added.
    const std::vector<Dtw>* table(const Material& m) const;
    // m's DTWs with their index, in one lookup; both null if m was not added.
    struct Held {
        const std::vector<Dtw>* dtw = nullptr;
        const PositionIndex* index = nullptr;
    };
    Held held(const Material& m) const;
    // Replaces one DTW of an added material (a loader completing a table in place). Threads may
    // set different positions at once, and read positions nobody sets meanwhile.
    void set(const Material& m, std::uint64_t index, Dtw d);
    std::uint64_t bytes() const { return bytes_; }

    // DTW for the side to move, either colour; 0 when the side to move has no piece left.
    Dtw dtw_of(const Position& pos) const;

    // DTW for the side to move in `after` (apply_move's result, the opponent of the side that
    // moved): 0 when the move took its last piece.
    Dtw dtw_after(const Position& after) const { return dtw_of(after); }

    // DTW of a white-to-move position where white must capture (capturers:
    // capturing_pieces(white_to_move), not 0): every capture looked up in (smaller) finished
    // materials.
    Dtw resolve_captures(const Position& white_to_move, Bitboard capturers) const;

    // DTW for the side to move of `pos` implied by the DTWs after `moves` (legal moves of pos, all
    // into added materials), as DtwBest combines them.
    Dtw best_after(const Position& pos, const MoveList& moves) const;

private:
    struct Entry {
        PositionIndex index;
        std::vector<Dtw> dtw;
    };
    const Entry* slot(const Material& m) const { return entries_.find(m); }
    const Entry& needed(const Material& m) const;

    MaterialMap<Entry> entries_;
    std::uint64_t bytes_ = 0;
};

struct DtwSolverOptions {
    // Subgames of at least this many positions (kings only, or nearly) settle each DTW in parallel,
    // their frontier kept as bits; smaller ones settle from a queue on one thread. Tests lower it
    // to take every subgame through the first way.
    std::uint64_t parallel_settle_positions = std::uint64_t{1} << 20;
};

// DTW of `material` and, unless it is its own mirror, of its mirror (in that order).
// `wdl` holds the values of both and of every material a capture or promotion leads to; `finished`
// holds the DTW of the latter. Throws std::logic_error if the distances contradict `wdl`.
// The result does not depend on the thread count.
std::vector<DtwMaterial> solve_dtw_pair(const Material& material, const ValueTables& wdl, const DtwTables& finished,
                                        const ProgressCallback& progress = {}, const DtwSolverOptions& options = {});

// One side of a pair solved without its WDL values: the values the distances give (what
// solve_material_pair finds) and the distances (what solve_dtw_pair finds).
struct SolvedWithDistances {
    SolvedMaterial wdl;
    DtwMaterial dtw;
};

// The WDL values and the DTW of `material` and, unless it is its own mirror, of its mirror (in that
// order), in one pass: what a build with distances does instead of solve_material_pair and then
// solve_dtw_pair. Without the values, every position counts its king moves (not just the losses),
// and draws get their captures searched and their man moves looked up; a position that never
// settles is a draw. `finished` holds the DTW of every material a capture or promotion leads to.
// The result does not depend on the thread count.
std::vector<SolvedWithDistances> solve_pair_with_distances(const Material& material, const DtwTables& finished,
                                                           const ProgressCallback& progress = {},
                                                           const DtwSolverOptions& options = {});

}  // namespace dtb
