// Retrograde solver for one material and its colour mirror.
//
// Men only move forward, so the positions are solved one men configuration at a time, from the
// most advanced configurations down (see men_advancement): a man move always leads to a
// configuration solved before, and only king moves link positions still being solved. Each
// configuration c of the material is solved together with flip(c) of the mirror material, since
// a king move from one lands in the other. Those subgames are independent, so TBB solves all
// subgames of one advancement level in parallel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gen/pair_layout.hpp"
#include "gen/slices.hpp"
#include "gen/value_tables.hpp"

namespace dtb {

// A position's value in one byte, as the file encoder takes it: Value (0..2), with kCaptureFlag
// set where the side to move must capture (the value is then the one the capture search gives).
inline constexpr std::uint8_t kCaptureFlag = 4;
inline constexpr std::uint8_t kValueMask = 3;

// Values of a solved material, three bits a position: its values as ValueTables holds them
// (capture positions resolved), and which positions are capture positions.
struct SolvedMaterial {
    Material material;
    PackedValues values;
    CaptureBits captures;

    std::uint8_t value_byte(std::uint64_t i) const {
        return static_cast<std::uint8_t>(static_cast<std::uint8_t>(values.get(i)) | (captures.test(i) ? kCaptureFlag : 0));
    }
    // value_byte of positions [first, first + out.size()): the writer's, four positions a byte
    // of values read where first is a multiple of four (a file's blocks start at such positions).
    void value_bytes(std::uint64_t first, std::span<std::uint8_t> out) const;
};

// A subgame of fewer positions than this, unless held compact, is solved by one thread from a
// queue of its settled positions, kQueuedPositionBytes each (every win and loss queued once),
// instead of in frontier rounds over all threads. Up to this size (2 MB of cells) the rounds'
// scans of the frontier bits, atomic updates and gathered look-ahead cost more than they save:
// KKMvKM's pair (subgames of about 100 thousand positions) took 0.95 of its time queued. Queued up
// to 2^22, the 5-piece pairs of one man (1.7 million) took 0.92-0.97, but a 6-piece pair of two
// men (2.3 million) 0.97 (side by side, within the noise) and whole 2-6 builds with 2^16, 2^20
// and 2^22 took the same time, so the smaller queue's memory decides (docs/BENCHMARKS.md,
// 2026-12-06 and 2026-12-07).
inline constexpr std::uint64_t kQueuedSubgamePositions = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kQueuedPositionBytes = 24;

// A subgame solved in frontier rounds of at least this many positions, or held compact, is solved
// alone: after the level's other subgames, one at a time, its parts spread over all threads. Then
// the solver holds the cells of one such subgame, not of one a thread: at 7 pieces a subgame of
// one man among six kings takes over a gigabyte. Smaller subgames are solved side by side, one a
// thread, which keeps the threads busier (while one waits for the end of a round, the other
// works): alone, KKKMvK's subgames (1.7 million positions) took 1.12 of the time, KvKKKKM's (19
// million) 1.07, KKKvKKM's (38 million) 0.98, within the noise (docs/BENCHMARKS.md, 2026-12-07).
// No 6-piece subgame reaches this size.
inline constexpr std::uint64_t kAloneSubgamePositions = std::uint64_t{1} << 26;

// Which side the propagation of a subgame held in cells walks the king moves from, in each of its
// rounds (or, queued, in the one after the first pass). From the positions settled last as wins or
// losses (push: each counts down its predecessors' king moves), or from the positions still
// unknown (pull: each looks at its own king moves' positions among those just settled). Both walk
// the same moves between the two sets, so the default starts from the fewer positions: after the
// first pass of a kings-heavy pair most positions are decided (every capture position is), and
// pulling there took KvKKKKM from 198 to 119 s (docs/BENCHMARKS.md, 2026-12-08). The values are
// the same; tests force each way to compare them.
enum class Pulling { FromTheFewer, Never, Always };

// How the solver holds a large subgame (kings only, or nearly; at least 2^16 positions): a 2-byte
// cell a position with a counter of its unsettled king moves, or, compact, four bits a position,
// a third of the memory with the frontier bits (0.75 bytes a position instead of 2.375), at the
// cost of looking at a position's king moves again each time one of them settles as a win (the
// KvKKKKK pair 1.16 times the time, KKvKKKK 1.31). The values are the same.
// Subgames not held compact are queued below `queued_subgame_positions` (kQueuedSubgamePositions;
// at most 2^32) and settled in frontier rounds from there up, solved alone from
// `alone_subgame_positions` (kAloneSubgamePositions) up: tests lower them to compare the ways.
struct SolverOptions {
    bool compact_large_subgames = false;
    Pulling pulling = Pulling::FromTheFewer;
    std::uint64_t queued_subgame_positions = kQueuedSubgamePositions;
    std::uint64_t alone_subgame_positions = kAloneSubgamePositions;
};

// How the solver settles a subgame of `positions` under `options`. The memory plan asks the same
// question, so that what it counts is what the solver holds.
enum class SubgameSolving { Queued, InRounds, Compact };

// The size from which subgames not held compact are settled in rounds: a queued position's local
// number takes 32 bits.
constexpr std::uint64_t queued_below(const SolverOptions& options) {
    return std::min(options.queued_subgame_positions, std::uint64_t{1} << 32);
}

constexpr SubgameSolving subgame_solving(std::uint64_t positions, const SolverOptions& options) {
    if (options.compact_large_subgames && positions >= kLargeSubgamePositions) return SubgameSolving::Compact;
    return positions < queued_below(options) ? SubgameSolving::Queued : SubgameSolving::InRounds;
}

// The smallest subgame solved alone (kAloneSubgamePositions) under `options`: every one held
// compact, and those in rounds from `alone_subgame_positions` up.
constexpr std::uint64_t smallest_subgame_solved_alone(const SolverOptions& options) {
    if (options.compact_large_subgames) return kLargeSubgamePositions;
    return std::max(queued_below(options), options.alone_subgame_positions);
}

// Whether a subgame of `positions` is solved alone under `options`. The memory plan asks too: a
// subgame not solved alone is held once a thread.
constexpr bool solved_alone(std::uint64_t positions, const SolverOptions& options) {
    return positions >= smallest_subgame_solved_alone(options);
}

// Solves `material` and, unless it is its own mirror, its mirror. Every material reachable by a
// capture or a promotion must be in `finished`. The result does not depend on the thread count.
std::vector<SolvedMaterial> solve_material_pair(const Material& material, const ValueTables& finished,
                                                const ProgressCallback& progress = {}, SolverOptions options = {});

// Solves one slice of the pair of `material` (see gen/slices.hpp): `boundary` holds the values of
// the configurations of level slice.levels.highest + 1 that its man moves reach, of either side
// (PairLayout::boundary_men_indices; empty for the most advanced slice). `subgames` are the
// slice's (PairLayout::subgames_in), listed once by the caller, which also finds the boundary from
// them: listing visits every configuration of the slice's levels.
SolvedSlice solve_material_slice(const Material& material, const ValueTables& finished, const Slice& slice,
                                 SliceSubgames subgames, std::vector<HeldValues> boundary,
                                 const ProgressCallback& progress = {}, SolverOptions options = {});
SolvedSlice solve_material_slice(const Material& material, const ValueTables& finished, const Slice& slice,
                                 std::vector<HeldValues> boundary, const ProgressCallback& progress = {},
                                 SolverOptions options = {});

}  // namespace dtb
