// How a material and its colour mirror are split into subgames, shared by the WDL and DTW solvers.
//
// A subgame is one men configuration c of the material (side 0) together with flip(c) of the
// mirror (side 1; side 0 again when the material is its own mirror): a king move from one lands
// in the other, a man move leaves the subgame for a more advanced configuration. Subgames are
// solved level by level, from the most advanced men down (see men_advancement), and the subgames
// of one level are independent. Positions of a subgame are numbered locally: block 0 first, then
// block 1, each by king index.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <tbb/blocked_range2d.h>
#include <tbb/concurrent_vector.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "gen/isolated_parts.hpp"
#include "gen/king_tiles.hpp"
#include "gen/subgame_progress.hpp"
#include "index/level_configs.hpp"
#include "index/position_index.hpp"
#include "rules/movegen.hpp"

namespace dtb {

// One men configuration of one side: its positions are [base, base + king placements) there.
struct Block {
    int side = 0;
    MenConfig men;
    std::uint64_t base = 0;
    std::uint64_t local_offset = 0;
};

// A subgame of at least this many positions is large: the solvers settle it one frontier at a time
// over all threads, and the WDL solver can hold it compact (SolverOptions). Kings-only pairs, and
// configurations of one or two men among several kings, have large subgames.
inline constexpr std::uint64_t kLargeSubgamePositions = std::uint64_t{1} << 16;

// PairLayout::for_each_king_placement splits a block of at least this many king placements over
// the threads (below it, a block is walked in one go beside the other threads' subgames), in parts
// of at least kSplitBlockGrain placements.
inline constexpr std::uint64_t kSplitBlockPlacements = std::uint64_t{1} << 16;
inline constexpr std::uint64_t kSplitBlockGrain = 1024;

struct Subgame {
    Block blocks[2];
    int block_count = 1;
    std::uint64_t size = 0;
    int partner(int b) const { return block_count == 1 ? 0 : 1 - b; }
    int block_of(std::uint64_t local) const { return block_count == 2 && local >= blocks[1].local_offset ? 1 : 0; }
};

// Levels of men advancement [lowest, highest] (see men_advancement): a slice of a pair, whose
// positions a man move takes only into the slice itself or into level highest + 1.
struct LevelRange {
    int lowest = 0;
    int highest = 0;
    friend bool operator==(const LevelRange&, const LevelRange&) = default;
};

// What one slice of a pair holds: a range of levels, or, for a level too large for one task, part
// `part` of `parts` of it (its subgames in order, cut into parts of about equal counts). The
// subgames of one level do not depend on one another, so the parts of a level are independent.
struct Slice {
    LevelRange levels;
    int part = 0;
    int parts = 1;
    friend bool operator==(const Slice&, const Slice&) = default;
};

// The men configurations of side 0 (each names its subgame, PairLayout::subgame) of one level
// of a slice, in ascending order: 4 bytes each where the pair's configurations allow it (every pair
// of up to 7 pieces), 8 beyond 2^32 (the 8-piece pairs of eight men).
class ConfigList {
public:
    ConfigList() = default;
    ConfigList(std::size_t n, bool wide) : wide_(wide) { wide ? wide_list_.resize(n) : narrow_list_.resize(n); }
    static bool wide_for(std::uint64_t configs) { return (configs >> 32) != 0; }
    std::size_t size() const { return wide_ ? wide_list_.size() : narrow_list_.size(); }
    std::uint64_t operator[](std::size_t i) const { return wide_ ? wide_list_[i] : narrow_list_[i]; }
    void set(std::size_t i, std::uint64_t config) {
        if (wide_) wide_list_[i] = config;
        else narrow_list_[i] = static_cast<std::uint32_t>(config);
    }

private:
    bool wide_ = false;
    std::vector<std::uint32_t> narrow_list_;
    std::vector<std::uint64_t> wide_list_;
};

// The subgames of one slice (PairLayout::subgames_in): a list a level, empty outside the slice's
// levels, and their positions.
struct SliceSubgames {
    LevelRange levels{0, -1};  // the slice's levels that the pair has
    std::vector<ConfigList> by_level;
    std::uint64_t positions = 0;
};

// The positions of the pair of m (m and its mirror) at each advancement level, counted row by row
// (men_configs_by_advancement) without building a layout: for planning pairs too large to lay out.
// A symmetric material's subgame {c, flip(c)} has both blocks in the one index, and c == flip(c)
// only one: either way each configuration of m brings its king placements once.
std::vector<std::uint64_t> pair_positions_by_level(const Material& m);

class PairLayout {
public:
    // Why the DTW solver, which numbers a subgame's positions in 32 bits, cannot solve the pair of
    // `m` (its king placements of both sides together pass 2^32: at 8 pieces KKKvKKKKM and
    // KKKKvKKKM), or "" when it can. The WDL solver numbers them in 64 bits.
    static std::string too_large_for_dtw(const Material& m);
    explicit PairLayout(const Material& m);

    int side_count() const { return static_cast<int>(indexes_.size()); }
    const PositionIndex& index(int side) const { return indexes_[side]; }
    int partner_side(int side) const { return symmetric_ ? 0 : 1 - side; }
    std::uint64_t total_positions() const;

    Subgame subgame(std::uint64_t config) const;
    // Positions of the pair's largest subgame as subgame() builds it: the king placements of a men
    // configuration and of its flip, or of one block where the only configuration is its own flip
    // (a symmetric kings-only material). Builds no layout, so no size limit: for memory estimates.
    static std::uint64_t largest_subgame(const Material& m);
    Position position_at(const Block& b, std::uint64_t king_index) const;
    // Bytes of the configuration lists of `positions` positions of the pair of m: of their
    // subgames (ConfigList), which a solver holds, and of their blocks (8 bytes each: HeldConfigs,
    // a slice's own and its boundary's). Little where kings give a configuration many positions;
    // without kings (a position a configuration) the most of a slice's memory.
    static std::uint64_t subgame_list_bytes(const Material& m, std::uint64_t positions);
    static std::uint64_t block_list_bytes(const Material& m, std::uint64_t positions);
    // Bytes of listing one level's subgames (subgames_in): a count a placement of side 0's white
    // men (LevelConfigs), and for a symmetric material another. A few MB up to five white men; 65
    // MB for six, 360 MB for seven (8 pieces).
    static std::uint64_t listing_bytes(const Material& m);

    // Calls visit(k, kings) for every king placement k of `block`, with its kings (walked, not
    // unranked). A block of kSplitBlockPlacements or more is split over the threads, isolated so
    // that a waiting thread does not pick up another subgame meanwhile.
    //
    // The order of a block split over the threads is not k's where tiles pay (gen/king_tiles.hpp):
    // then the placements are walked in tiles of kKingTileWidth black placements across
    // consecutive white ones. (A smaller block holds few enough successors to stay in cache, and
    // no material of fewer than 26 men has such a block with two white kings.)
    template <typename Visit>
    void for_each_king_placement(const Block& block, Visit&& visit) const {
        struct Nothing {};
        Nothing nothing;
        for_each_king_placement(block, nothing, [&](Nothing&, std::uint64_t k, const KingPlacement& kings) { visit(k, kings); });
    }

    // The same, calling visit(cache, k, kings) with a Cache (default-constructible) that one
    // thread's walk keeps: `cache` itself for a block walked in one go, a fresh one for each part
    // of a block split over the threads. A block of `split_from` placements or more is split: a
    // subgame solved alone, which the other threads wait for, splits its smaller blocks too.
    template <typename Cache, typename Visit>
    void for_each_king_placement(const Block& block, Cache& cache, Visit&& visit,
                                 std::uint64_t split_from = kSplitBlockPlacements) const {
        const PositionIndex& index = indexes_[block.side];
        const std::uint64_t n = index.king_placements();
        const std::uint64_t row = index.black_king_placements();
        const auto walk = [&](std::uint64_t begin, std::uint64_t end, Cache& c) {
            KingPlacementWalker kings(index, block.men, begin);
            for (std::uint64_t k = begin; k != end; ++k, kings.next()) visit(c, k, kings.current());
        };
        // White placements [rows) by black placements [columns), tile by tile.
        const auto walk_tiles = [&](std::uint64_t first_row, std::uint64_t last_row, std::uint64_t first_column,
                                    std::uint64_t last_column, Cache& c) {
            for (std::uint64_t column = first_column; column < last_column; column += kKingTileWidth) {
                const std::uint64_t width = std::min(kKingTileWidth, last_column - column);
                for (std::uint64_t r = first_row; r < last_row; ++r) walk(r * row + column, r * row + column + width, c);
            }
        };
        if (n < std::max(split_from, 2 * kSplitBlockGrain)) {
            walk(0, n, cache);
            return;
        }
        if (!king_tiles_pay(index)) {
            isolated_parallel_parts(n, kSplitBlockGrain, [&](std::uint64_t begin, std::uint64_t end) {
                Cache part{};
                walk(begin, end, part);
            });
            return;
        }
        tbb::this_task_arena::isolate([&] {
            const tbb::blocked_range2d<std::uint64_t> all(0, n / row, kTileRows, 0, row, kKingTileWidth * 16);
            tbb::parallel_for(all, [&](const auto& r) {
                Cache part{};
                walk_tiles(r.rows().begin(), r.rows().end(), r.cols().begin(), r.cols().end(), part);
            });
        });
    }

    // The number of advancement levels (the highest advancement of a configuration, plus one), and
    // the positions of the pair at each.
    int level_count() const;
    std::vector<std::uint64_t> positions_by_level() const;
    LevelRange all_levels() const { return {0, level_count() - 1}; }

    // The subgames of `slice`: every configuration of side 0 at its levels (for a symmetric
    // material only the first of each pair {c, flip(c)}), or of a part its share of the level's
    // list. Level by level through LevelConfigs, never the other levels' configurations (a
    // symmetric material's part visits its level twice: counting the listed, then taking its
    // share); held in memory are the slice's lists alone, so that a slice of a pair without kings
    // (a position a configuration) holds what its positions need, not the whole pair's.
    SliceSubgames subgames_in(const Slice& slice) const;

    // The men indices of the blocks of `subgames` (or of the subgames of `slice`), per side, sorted.
    std::vector<std::vector<std::uint64_t>> men_indices_in(const SliceSubgames& subgames) const;
    std::vector<std::vector<std::uint64_t>> men_indices_in(const Slice& slice) const {
        return men_indices_in(subgames_in(slice));
    }

    // The men indices, per side, sorted, of the configurations of level slice.levels.highest + 1
    // that a man move from a subgame of the slice's highest level reaches (with any kings: a
    // superset of what its positions reach): the boundary the slice reads.
    std::vector<std::vector<std::uint64_t>> boundary_men_indices(const SliceSubgames& subgames) const;
    std::vector<std::vector<std::uint64_t>> boundary_men_indices(const Slice& slice) const {
        return boundary_men_indices(subgames_in(Slice{{slice.levels.highest, slice.levels.highest}, slice.part, slice.parts}));
    }

    // Runs solve(subgame, SubgameProgress) on every subgame of `subgames`: levels from the highest
    // down; within a level, the subgames in parallel, except those for which alone(size) holds,
    // which are solved after the others, one at a time, on the calling thread. A solver spreads
    // such a subgame over the threads itself; solved one at a time, their memory is held for one
    // subgame, not for one a thread (the memory plan counts one).
    template <typename Solve, typename Alone>
    void solve_subgames(const SliceSubgames& subgames, Solve&& solve, Alone&& alone, const ProgressCallback& progress) const {
        std::atomic<std::uint64_t> done{0};
        const SubgameProgress reporter(progress, done, static_cast<double>(std::max<std::uint64_t>(subgames.positions, 1)));
        for (int l = subgames.levels.highest; l >= subgames.levels.lowest; --l) {
            const ConfigList& level = subgames.by_level[static_cast<std::size_t>(l)];
            tbb::concurrent_vector<std::size_t> left_alone;
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, level.size(), 1), [&](const auto& r) {
                for (std::size_t i = r.begin(); i != r.end(); ++i) {
                    const Subgame g = subgame(level[i]);
                    if (alone(g.size)) {
                        left_alone.push_back(i);
                        continue;
                    }
                    solve(g, reporter);
                    done.fetch_add(g.size, std::memory_order_relaxed);
                }
            });
            // In list order, whichever order the threads found them in.
            std::sort(left_alone.begin(), left_alone.end());
            for (const std::size_t i : left_alone) {
                const Subgame g = subgame(level[i]);
                solve(g, reporter);
                done.fetch_add(g.size, std::memory_order_relaxed);
            }
            reporter.level_done();
        }
    }
    template <typename Solve, typename Alone>
    void solve_by_level(Solve&& solve, Alone&& alone, const ProgressCallback& progress, const Slice& slice) const {
        solve_subgames(subgames_in(slice), solve, alone, progress);
    }
    template <typename Solve, typename Alone>
    void solve_by_level(Solve&& solve, Alone&& alone, const ProgressCallback& progress) const {
        solve_by_level(solve, alone, progress, Slice{all_levels()});
    }

    // Every position of the partner block from which a king move leads to `pos` (of `block`): the
    // side that just moved (black in pos) slides a king back, and the result is seen from its side.
    // visit(local number, kings) for each. The walk runs on the rotated board, where that side is
    // white: rotating once per position instead of once per predecessor.
    template <typename Visit>
    void for_each_predecessor(const Subgame& g, int block, const Position& pos, Visit&& visit) const {
        const Block& pb = g.blocks[g.partner(block)];
        const PositionIndex& pidx = indexes_[pb.side];
        const Bitboard free = pidx.king_squares(pb.men);
        const Bitboard empty = rotate_board(pos.empty());
        const Bitboard movers = rotate_board(pos.black & pos.kings);
        const Bitboard others = rotate_board(pos.white & pos.kings);
        for (Bitboard kings = movers; kings; kings &= kings - 1) {
            const Bitboard king = kings & -kings;
            const Bitboard rest = movers ^ king;
            const OneWhiteKingMoving moving(pidx, free, rest, others);
            for (Bitboard from = king_destinations(lowest_bit(king), empty); from; from &= from - 1) {
                const int square = lowest_bit(from);
                visit(pb.local_offset + moving.king_index(square), KingPlacement{rest | (Bitboard{1} << square), others});
            }
        }
    }

    // Whether stop(local number) holds for a position of the partner block that a king move of
    // the position of `block` with kings `kings` (white to move) leads to, seen from the side to
    // move there; the walk ends at the first.
    template <typename Stop>
    bool any_successor(const Subgame& g, int block, const KingPlacement& kings, Stop&& stop) const {
        const Block& pb = g.blocks[g.partner(block)];
        const PositionIndex& pidx = indexes_[pb.side];
        const Bitboard free = pidx.king_squares(pb.men);
        const Bitboard empty = compose_position(g.blocks[block].men, kings).empty();
        const Bitboard others = rotate_board(kings.black_kings);  // the movers of the partner block
        for (Bitboard movers = kings.white_kings; movers; movers &= movers - 1) {
            const Bitboard king = movers & -movers;
            const OneBlackKingMoving moving(pidx, free, others, rotate_board(kings.white_kings ^ king));
            for (Bitboard to = rotate_board(king_destinations(lowest_bit(king), empty)); to; to &= to - 1)
                if (stop(pb.local_offset + moving.king_index(lowest_bit(to)))) return true;
        }
        return false;
    }

private:
    // A part of a block that for_each_king_placement splits over the threads in tiles: up to
    // kTileRows white placements by 16 tiles' width.
    static constexpr std::uint64_t kTileRows = 32;
    // Of one level, the share of `slice`'s part, adding its subgames' positions to `positions`.
    ConfigList plain_share(const LevelConfigs& level, const Slice& slice, std::uint64_t& positions) const;
    ConfigList symmetric_share(const LevelConfigs& level, const Slice& slice, std::uint64_t& positions) const;
    // A configuration of side 0 as its partner side sees it, and its index there.
    static MenConfig flipped(const MenConfig& men);
    std::uint64_t flipped_config(const MenConfig& men) const;

    bool symmetric_;
    std::vector<PositionIndex> indexes_;
};

}  // namespace dtb
