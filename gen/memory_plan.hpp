// Which finished tables the builder keeps in memory along its plan: what each pair reads, when
// each table is read next, and, before a pair is solved, which tables to drop and which to move to
// scratch copies so that the tables and the solver fit in the memory limit. Decisions only: the
// builder carries them out. Pure functions of the plan and the table sizes, so they are tested
// without building anything.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "index/material.hpp"

namespace dtb {

// A table of finished values: the WDL or the DTW of one material.
struct TableId {
    Material material;
    bool dtw = false;
    auto operator<=>(const TableId&) const = default;
};

class MemoryPlan {
public:
    // `plan`: materials in build order (a material before or right after its mirror, as
    // build_plan gives them); `dtw`: the build writes distances to win too; `limit_bytes`: 0 for no
    // limit; `positions`: the positions of a material (its index size).
    MemoryPlan(std::vector<Material> plan, bool dtw, std::uint64_t limit_bytes,
               std::function<std::uint64_t(const Material&)> positions);

    const std::vector<Material>& plan() const { return plan_; }

    // The builder solves pairs in this many slices (gen/slices.hpp): the WDL solver then holds one
    // slice's values and its boundary, not the pair's. 1: whole pairs. kSlicesWithinLimit: whole
    // pairs where the solver and the tables the pair reads fit in the limit, else the fewest
    // slices whose solver takes at most half of it (slices_within).
    static constexpr int kSlicesWithinLimit = 0;
    void solve_in_slices(int slices) { slices_ = slices; }

    // The builder solves each pair on this many threads (default 1), each of which holds the
    // subgame it solves: see held_subgames_bytes.
    void solve_on_threads(int threads) { threads_ = std::max(threads, 1); }

    // The slices the builder solves the pair of m in (slice_levels may give fewer).
    int slices_of(const Material& m) const;

    // The fewest slices, at least 2, whose WDL solver (solver_bytes) takes at most `bytes`: ranges
    // of levels, or where one a level does not fit, levels cut into parts (pair_slices); at most
    // kMostSlicesPerPair. 1 for a pair of one level (kings only), which cannot be sliced.
    int slices_within(const Material& m, std::uint64_t bytes) const;
    static constexpr int kMostSlicesPerPair = 1000;

    // Bytes of the block cache through which a pair reads the tables that do not fit in memory.
    static constexpr std::uint64_t kInputCacheBytes = std::uint64_t{256} << 20;

    // The tables solving the pair of m reads: the WDL (and with distances the DTW) of every
    // material either side reaches in one move, and for the DTW pass the pair's own WDL.
    std::set<TableId> reads_of(const Material& m) const;

    // Bytes of a table in memory: 2 bits a position for WDL, a Dtw a position for DTW.
    std::uint64_t table_bytes(const TableId& t) const;

    // Bytes of the tables of reads_of(m), all held in memory.
    std::uint64_t bytes_read_by(const Material& m) const;

    // Memory of the solvers for the pair of m beyond the tables they read: per position of the
    // pair, and per position of the subgames held at once (held_subgames_bytes; with
    // `compact_cells`, the WDL solver's compact form, SolverOptions in gen/solver.hpp, or for a
    // kings-only pair its symmetry classes).
    std::uint64_t solver_bytes(const Material& m, bool compact_cells = false) const;

    // The WDL solver's bytes for one subgame of `positions` positions: a 2-byte cell a position,
    // and below kQueuedSubgamePositions (gen/solver.hpp) room to queue every position once, or
    // above it three bits more (two frontiers and the positions still unsettled); with
    // `compact_cells`, a large one's (kLargeSubgamePositions) nibble and two frontier bits.
    static std::uint64_t wdl_subgame_bytes(std::uint64_t positions, bool compact_cells);

    // The WDL solver's bytes for the subgames it holds at once, the largest of `largest` positions,
    // on solve_on_threads threads: each thread holds the largest subgame it has solved (its
    // buffers are kept from one subgame to the next). A subgame solved alone (solved_alone,
    // gen/solver.hpp) is held once; the other threads then hold the largest not solved alone.
    std::uint64_t held_subgames_bytes(std::uint64_t largest, bool compact_cells) const;

    // Where in the plan each table is read next after `current`: the first pair after it not in
    // `done` that reads it. A table absent from the map is read by no pair still to be built.
    using NextReads = std::map<TableId, std::size_t>;
    NextReads next_reads(std::size_t current, const std::set<Material>& done) const;

    // The tables of `in_memory` that neither `keep` nor a pair still to be built reads: to free.
    std::vector<TableId> unread(const NextReads& next_read, const std::set<TableId>& keep,
                                const std::vector<TableId>& in_memory) const;

    // The WDL tables the pair of plan()[current] reads from their files through a block cache of
    // kInputCacheBytes instead of holding them: when the tables it reads and its WDL solver would
    // pass the limit, the largest, until the rest, the cache and the solver fit (or none is left).
    // None without a limit; never a DTW table, nor the pair's own WDL (which its DTW pass reads).
    // With distances, only the WDL pass is bounded this way, and only when it passes the limit by
    // itself: the pass with distances has no bounded form.
    std::vector<TableId> read_through_files(std::size_t current) const { return pair_memory(current).through_files; }

    // Whether the WDL solver holds the large subgames of the pair of plan()[current] compact (a
    // kings-only pair: solves it in symmetry classes, gen/class_solver.hpp): when its cells and
    // the tables the pair reads would pass the limit. Tried before the block cache, which slows
    // every lookup.
    bool compact_cells(std::size_t current) const { return pair_memory(current).compact_cells; }

    // Before the pair of plan()[current] is solved (or its inputs loaded), with the unread tables
    // already freed: the tables of `in_memory` to move to scratch copies, in that order. Those the
    // pair does not read go, the ones read latest first, until what stays, the tables the pair
    // reads and its solver fit in the limit (or nothing is left to move). None without a limit.
    std::vector<TableId> to_spill(std::size_t current, const NextReads& next_read,
                                  const std::vector<TableId>& in_memory) const;

private:
    struct PairMemory {
        std::uint64_t bytes = 0;  // the solver, the tables held and the cache
        bool compact_cells = false;
        std::vector<TableId> through_files;
    };
    PairMemory pair_memory(std::size_t current) const;
    std::uint64_t solver_bytes_in(const Material& m, int slices, bool compact_cells) const;
    std::uint64_t wdl_solver_bytes(const Material& m, int slices, bool compact_cells) const;

    std::vector<Material> plan_;
    int slices_ = 1;
    int threads_ = 1;
    bool dtw_;
    std::uint64_t limit_bytes_;
    std::function<std::uint64_t(const Material&)> positions_;
};

}  // namespace dtb
