#include "gen/solver.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include <tbb/enumerable_thread_specific.h>

#include "gen/frontier_bits.hpp"
#include "gen/isolated_parts.hpp"
#include "gen/man_move_targets.hpp"
#include "gen/men_index_cache.hpp"
#include "gen/nibble_states.hpp"
#include "gen/zero_pages.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace {

constexpr std::uint8_t kUnknown = kUnknownState;
constexpr std::uint8_t kHasDrawFlag = 0x80;  // in a counter: some successor is a draw
constexpr std::uint8_t kCountMask = 0x7F;
constexpr std::uint8_t kPulledFlag = 8;  // in a state, above its value and kCaptureFlag: settled by pull_decided
// A settled position whose predecessors are still to settle. It carries its value and its kings
// (the men are its block's), so that gathering its predecessors neither loads its cell (a cache
// miss) nor unranks its index. Queued subgames (subgame_solving) hold these; larger ones
// keep their frontier as bits (24 bytes a queued position, where a cell takes 2).
struct Settled {
    KingPlacement kings;
    std::uint32_t local;  // queued subgames have fewer than 2^32 positions (subgame_solving)
    Value value;
};
static_assert(sizeof(Settled) == kQueuedPositionBytes, "the memory plan counts a queued position's bytes");

// A predecessor about to be settled in a compact subgame, with its kings. Its local number takes
// 64 bits (the struct's size is the same): at 8 pieces a subgame of one man among seven kings holds
// 6.0e9 positions.
struct Predecessor {
    KingPlacement kings;
    std::uint64_t local;
};

// A position's state and counter share a cache line: settling a predecessor touches both.
struct Cell {
    std::uint8_t state;    // Value, or kUnknown; plus kCaptureFlag
    std::uint8_t counter;  // king moves whose value is not known yet; kHasDrawFlag
};

// What one walk of the first pass remembers from one position to the next.
struct FirstPassCache {
    MenIndexCache men_indices;
    BlockManMoves<PackedValues> man_moves;
};

// One thread's buffers, kept from one subgame to the next: fresh memory costs a page fault every
// 4 KiB, which took a fifth of the time on KKKMvK.
struct Scratch {
    std::vector<Cell> cells;
    std::vector<Settled> queue;  // subgames below kQueuedSubgamePositions
    FirstPassCache first_pass;   // for the blocks it walks in one go
};

// The predecessors of one settled position of a large subgame, gathered (and their cells
// prefetched) one position ahead of their update: its propagation is bound by the latency of these
// scattered accesses. Only their local numbers: a large subgame keeps its frontier as bits.
struct PendingSettle {
    Value value = Value::Draw;
    std::vector<std::uint64_t> predecessors;
};

class PairSolver {
public:
    // The whole pair.
    PairSolver(const Material& m, const ValueTables& finished, SolverOptions options)
        : finished_(finished), layout_(m), slice_{layout_.all_levels()}, subgames_(layout_.subgames_in(slice_)),
          options_(options) {
        for (int side = 0; side < layout_.side_count(); ++side) own_.push_back(held(HeldConfigs::all(layout_.index(side))));
    }

    // One slice, with the values its man moves reach in the level above it in `boundary` (none
    // for the most advanced slice).
    PairSolver(const Material& m, const ValueTables& finished, const Slice& slice, SliceSubgames subgames,
               std::vector<HeldValues> boundary, SolverOptions options)
        : finished_(finished), layout_(m), slice_(slice), subgames_(std::move(subgames)),
          options_(options), boundary_(std::move(boundary)) {
        auto men = layout_.men_indices_in(subgames_);
        for (int side = 0; side < layout_.side_count(); ++side)
            own_.push_back(held(HeldConfigs(std::move(men[side]), layout_.index(side).king_placements())));
    }

    std::vector<SolvedMaterial> solve_pair(const ProgressCallback& progress) {
        solve(progress);
        std::vector<SolvedMaterial> out;
        for (int side = 0; side < layout_.side_count(); ++side)
            out.push_back({layout_.index(side).material(), std::move(own_[side].values), std::move(own_[side].captures)});
        return out;
    }

    SolvedSlice solve_slice(const ProgressCallback& progress) {
        solve(progress);
        // The lowest level's configurations, which the slices below read as their boundary.
        SliceSubgames lowest;
        lowest.levels = {subgames_.levels.lowest, subgames_.levels.lowest};
        lowest.by_level.resize(subgames_.by_level.size());
        if (lowest.levels.lowest <= subgames_.levels.highest)
            lowest.by_level[static_cast<std::size_t>(lowest.levels.lowest)] =
                std::move(subgames_.by_level[static_cast<std::size_t>(lowest.levels.lowest)]);
        subgames_ = {};
        return {slice_, std::move(own_), layout_.men_indices_in(lowest)};
    }

private:
    static HeldValues held(HeldConfigs configs) {
        const std::uint64_t n = configs.positions();
        return {std::move(configs), PackedValues(n), CaptureBits(n)};
    }

    void solve(const ProgressCallback& progress) {
        layout_.solve_subgames(
            subgames_, [&](const Subgame& g, const SubgameProgress& p) { solve_subgame(g, p); },
            [&](std::uint64_t positions) { return solved_alone(positions); }, progress);
    }

    // Whether a subgame is solved one at a time, its parts spread over the threads (gen/solver.hpp).
    bool solved_alone(std::uint64_t positions) const { return dtb::solved_alone(positions, options_); }

    // Where man move `move` of `pos` (a position of block b, or its men alone) leads, whatever the
    // kings: a more advanced, solved configuration of the partner side, or a promotion into a
    // finished material.
    ManMoveTarget<PackedValues> man_move_target(const Block& b, const Position& pos, const Move& move,
                                                MenIndexCache& men_indices) const {
        Position next;
        auto t = ManMoveTarget<PackedValues>::of(pos, move, next);
        const MenConfig men = men_config_of(next);
        if (t.crowned) {
            const ValueTables::Held promoted = finished_.held(t.promoted(layout_.index(b.side).material()));
            if (!promoted.values) return t;  // read through its files: value_at looks each position up
            t.values = promoted.values, t.index = promoted.index;
            t.base = men_indices.men_index(*t.index, men) * t.index->king_placements();
            return t;
        }
        const int target = layout_.partner_side(b.side);
        t.index = &layout_.index(target);
        const std::uint64_t men_index = men_indices.men_index(*t.index, men);
        for (const std::vector<HeldValues>* held : {&own_, &boundary_}) {
            if (held->empty()) continue;  // no boundary: the whole pair, or the most advanced slice
            const HeldValues& target_side = (*held)[static_cast<std::size_t>(target)];
            if (const std::uint64_t base = target_side.configs.base(men_index); base != HeldConfigs::kNotHeld) {
                t.values = &target_side.values;
                t.base = base;
                return t;
            }
        }
        throw std::logic_error("the solver reached a configuration outside its slice and boundary");
    }

    // Whether the first pass finds block b's man move targets once (cache.man_moves) rather than
    // position by position. A block of fewer than 16 king placements finds them for each position:
    // one without kings (a single position) would find every target, where a winning move found
    // first spares looking for the others.
    bool finds_targets_once(const Block& b) const { return layout_.index(b.side).king_placements() >= 16; }

    // Value for white of white-to-move `pos` after the man move of target `t`, where the
    // position's kings seen from the other side are `flipped`. Other threads may be writing
    // neighbouring configurations of the pair meanwhile (get_shared).
    Value value_at(const ManMoveTarget<PackedValues>& t, const Position& pos, const KingPlacement& flipped) const {
        if (!t.values) return finished_.value_after(apply_move(pos, t.move));
        return negate(t.values->get_shared(t.index_after(flipped)));
    }

    // What the quiet man moves of `pos` (a position of block b without capture, its kings `kings`)
    // decide: a win if one wins; otherwise whether one draws.
    struct ManMovesOutcome {
        bool wins = false;
        bool draws = false;
    };
    ManMovesOutcome man_moves_outcome(const Block& b, const Position& pos, const KingPlacement& kings,
                                      FirstPassCache& cache) const {
        const KingPlacement flipped = ManMoveTarget<PackedValues>::flipped(kings);
        ManMovesOutcome out;
        const auto decides = [&](const ManMoveTarget<PackedValues>& t) {
            const Value v = value_at(t, pos, flipped);
            out.draws |= v == Value::Draw;
            return v == Value::Win;
        };
        if (finds_targets_once(b)) {
            cache.man_moves.use_block(b, [&](const Position& men_only, const Move& m) {
                return man_move_target(b, men_only, m, cache.men_indices);
            });
            out.wins = cache.man_moves.any_of(kings, decides);
            return out;
        }
        for (const Move& m : generate_quiet_man_moves(pos))
            if (decides(man_move_target(b, pos, m, cache.men_indices))) {
                out.wins = true;
                return out;
            }
        return out;
    }

    // Decides what one ply can decide; otherwise counts the king moves still to be resolved.
    // `cache` is the calling walk's.
    Cell first_pass(const Block& b, const KingPlacement& kings, FirstPassCache& cache) const {
        const Position pos = compose_position(b.men, kings);
        if (const Bitboard capturers = capturing_pieces(pos))
            return {static_cast<std::uint8_t>(static_cast<std::uint8_t>(finished_.resolve_captures(pos, capturers, &cache.men_indices)) |
                                              kCaptureFlag),
                    0};
        const auto [wins, has_draw] = man_moves_outcome(b, pos, kings, cache);
        if (wins) return {static_cast<std::uint8_t>(Value::Win), 0};
        const std::size_t king_moves = count_quiet_king_moves(pos);
        if (king_moves == 0) return {static_cast<std::uint8_t>(has_draw ? Value::Draw : Value::Loss), 0};
        if (king_moves > kCountMask) throw std::length_error("too many king moves for the solver's counters");
        return {kUnknown, static_cast<std::uint8_t>(king_moves | (has_draw ? kHasDrawFlag : 0))};
    }

    static std::uint8_t nibble_of(const Cell& c) {
        return static_cast<std::uint8_t>(c.state | ((c.counter & kHasDrawFlag) ? kNibbleDraw : 0));
    }

    // The predecessors of the settled position `local` (its kings `kings`, its value `value`) that
    // `unsettled` holds.
    void gather_predecessors(const Subgame& g, std::uint64_t local, const KingPlacement& kings, Value value, Scratch& s,
                             PendingSettle& out, const FrontierBits& unsettled) const {
        out.value = value;
        out.predecessors.clear();
        const int block = g.block_of(local);
        layout_.for_each_predecessor(g, block, compose_position(g.blocks[block].men, kings),
                                     [&](std::uint64_t pred, const KingPlacement&) {
                                         if (!unsettled.test_shared(pred)) return;
                                         __builtin_prefetch(&s.cells[pred], 1);
                                         out.predecessors.push_back(pred);
                                     });
    }

    // Settles the gathered predecessors; settled(pred) gets those that became losses or wins
    // (draws need not be propagated), and those settled leave `unsettled`. Safe to run for several
    // positions at once: states change only from unknown, by compare-and-swap, and counters by
    // atomic decrement.
    template <typename Push>
    static void settle(const PendingSettle& p, Scratch& s, Push&& settled, FrontierBits& unsettled) {
        for (const std::uint64_t pred : p.predecessors) {
            std::atomic_ref state(s.cells[pred].state);
            if (state.load(std::memory_order_relaxed) != kUnknown) continue;
            std::uint8_t expected = kUnknown;
            if (p.value == Value::Loss) {
                if (state.compare_exchange_strong(expected, static_cast<std::uint8_t>(Value::Win))) {
                    unsettled.reset_shared(pred);
                    settled(pred);
                }
                continue;
            }
            const std::uint8_t left = std::atomic_ref(s.cells[pred].counter).fetch_sub(1) - 1;
            if (left & kCountMask) continue;
            const bool draw = left & kHasDrawFlag;
            if (!state.compare_exchange_strong(expected, static_cast<std::uint8_t>(draw ? Value::Draw : Value::Loss))) continue;
            unsettled.reset_shared(pred);
            if (!draw) settled(pred);
        }
    }

    // Works through s.queue, which grows as positions settle, settling each position's
    // predecessors as the walk finds them. Such a subgame belongs to one thread, so plain loads
    // and stores do, with no look-ahead: gathering the predecessors first and prefetching their
    // cells, as the rounds of larger subgames do, costs more here than it hides (the cells of one
    // below 2^16 positions fit in L2; kQueuedSubgamePositions for the larger ones).
    void settle_queue(const Subgame& g, Scratch& s) const {
        for (std::size_t head = 0; head < s.queue.size(); ++head) {
            const Settled settled = s.queue[head];  // a copy: the walk pushes onto the queue
            const int block = g.block_of(settled.local);
            layout_.for_each_predecessor(g, block, compose_position(g.blocks[block].men, settled.kings),
                                         [&](std::uint64_t pred, const KingPlacement& kings) {
                                             Cell& cell = s.cells[pred];
                                             if (cell.state != kUnknown) return;
                                             if (settles_win_or_loss(cell, settled.value))
                                                 s.queue.push_back(Settled{kings, static_cast<std::uint32_t>(pred),
                                                                           static_cast<Value>(cell.state)});
                                         });
        }
    }

    // An unknown cell one of whose king moves reaches a position of value `after` (a win or a
    // loss for the side to move there) takes the value that decides, if any: whether it became a
    // win or a loss, whose predecessors are to settle in turn (a draw's need not).
    static bool settles_win_or_loss(Cell& cell, Value after) {
        if (after == Value::Loss) {
            cell.state = static_cast<std::uint8_t>(Value::Win);
            return true;
        }
        if (--cell.counter & kCountMask) return false;
        const bool draw = cell.counter & kHasDrawFlag;
        cell.state = static_cast<std::uint8_t>(draw ? Value::Draw : Value::Loss);
        return !draw;
    }

    // A large subgame (kings only, or nearly): settles one frontier at a time, in parallel, each
    // position's predecessors gathered while those of the one before are settled.
    // The positions still unknown are held in a bit each as well: most predecessors a walk finds
    // are settled already (every capture position is from the start), and their bits, a
    // sixteenth of the cells' bytes, stay in cache where the cells do not.
    void propagate_large(const Subgame& g, Scratch& s, const SubgameProgress& progress) const {
        FrontierBits frontier(g.size);
        FrontierBits unsettled(g.size);
        // Whole words a part: no word is written by two threads.
        in_parts(g, frontier.words(), [&](std::uint64_t begin, std::uint64_t end) {
            for (std::uint64_t local = begin * 64; local < std::min(end * 64, g.size); ++local) {
                const std::uint8_t state = s.cells[local].state & kValueMask;
                if (state == static_cast<std::uint8_t>(Value::Win) || state == static_cast<std::uint8_t>(Value::Loss))
                    frontier.set(local);
                else if (state == kUnknown)
                    unsettled.set(local);
            }
        });
        bool pull = false;
        const auto choose_direction = [&] { pull = pulls(frontier, unsettled); };
        propagate_in_rounds(g, frontier, progress, choose_direction, [&](std::uint64_t begin, std::uint64_t end, auto&& push) {
            if (pull) return pull_from_frontier(g, s, frontier, unsettled, begin, end, push);
            PendingSettle current, next;
            bool pending = false;
            for_each_frontier_position(layout_, g, frontier, begin, end, [&](std::uint64_t local, const KingPlacement& kings) {
                gather_predecessors(g, local, kings, static_cast<Value>(s.cells[local].state & kValueMask), s, next, unsettled);
                if (pending) settle(current, s, push, unsettled);
                std::swap(current, next);
                pending = true;
            });
            if (pending) settle(current, s, push, unsettled);
        });
    }

    // Whether a round settles from the side of its `unsettled` positions (pull_from_frontier)
    // rather than from its `frontier`'s (gather_predecessors, settle): both walk the king moves
    // between the two sets, from whichever holds fewer positions (SolverOptions::pulling).
    bool pulls(const FrontierBits& frontier, const FrontierBits& unsettled) const {
        return pulls(unsettled.count(), frontier.count());
    }
    bool pulls(std::uint64_t unsettled, std::uint64_t frontier) const {
        switch (options_.pulling) {
        case Pulling::Never: return false;
        case Pulling::Always: return true;
        case Pulling::FromTheFewer: break;
        }
        return unsettled < frontier;
    }

    // One round of propagate_large seen from the positions still unsettled in words [begin, end):
    // each looks at its king moves' positions in `frontier`, a loss there making it a win and each
    // win counted down, as settle would from the frontier's side. Each position is looked at by its
    // own word's part and the frontier's cells do not change in a round, so plain loads and
    // stores do.
    template <typename Push>
    void pull_from_frontier(const Subgame& g, Scratch& s, const FrontierBits& frontier, FrontierBits& unsettled,
                            std::uint64_t begin, std::uint64_t end, Push&& push) const {
        for_each_frontier_position(layout_, g, unsettled, begin, end, [&](std::uint64_t local, const KingPlacement& kings) {
            unsigned wins = 0;
            const bool loss_found = layout_.any_successor(g, g.block_of(local), kings, [&](std::uint64_t next) {
                if (!frontier.test(next)) return false;
                const auto after = static_cast<Value>(s.cells[next].state & kValueMask);
                wins += after == Value::Win;
                return after == Value::Loss;
            });
            Cell& cell = s.cells[local];
            if (!settles_pulled(cell, loss_found, wins)) return;
            unsettled.reset(local);
            if (cell.state != static_cast<std::uint8_t>(Value::Draw)) push(local);
        });
    }

    // An unknown cell whose king moves reach `wins` positions won by the side to move there, and
    // a lost one if `loss_found`, as a pull sees them: takes the value they decide, if any.
    static bool settles_pulled(Cell& cell, bool loss_found, unsigned wins) {
        if (loss_found) {
            cell.state = static_cast<std::uint8_t>(Value::Win);
            return true;
        }
        if (wins == 0) return false;
        cell.counter = static_cast<std::uint8_t>(cell.counter - wins);
        if (cell.counter & kCountMask) return false;
        cell.state = static_cast<std::uint8_t>((cell.counter & kHasDrawFlag) ? Value::Draw : Value::Loss);
        return true;
    }

    // Settles the predecessors of `frontier` (wins and losses, found by propagation), then theirs,
    // one frontier at a time, until a round settles nothing: settle_words(begin, end, push) settles
    // those of frontier words [begin, end), in parallel with other words, and push(local) puts a
    // position it settled into the next frontier.
    template <typename StartRound, typename SettleWords>
    void propagate_in_rounds(const Subgame& g, FrontierBits& frontier, const SubgameProgress& progress,
                             StartRound&& start_round, SettleWords&& settle_words) const {
        FrontierBits next(g.size);
        std::atomic<std::uint64_t> settled{0};
        // A 64th of the subgame a part: enough rows of king placements for the frontier walk's
        // tiles (for_each_frontier_position), enough parts to share among the threads.
        const std::uint64_t grain = std::max<std::uint64_t>(64, frontier.words() / 64);
        for (std::uint64_t round = 1;; ++round) {
            const std::uint64_t before = settled.load();
            start_round();
            isolated_parallel_parts(frontier.words(), grain, [&](std::uint64_t begin, std::uint64_t end) {
                std::uint64_t pushed = 0;
                settle_words(begin, end, [&](std::uint64_t local) {
                    next.set_shared(local);
                    ++pushed;
                });
                settled.fetch_add(pushed, std::memory_order_relaxed);
            });
            progress.note([&] { return round_note(g.size, "round", round, settled.load(), "settled so far"); });
            if (settled.load() == before) return;
            frontier.swap(next);
            next.clear();
        }
    }

    // The first pass over the positions of g's blocks: visit(block, k, cell) with each position's
    // cell. A subgame solved alone has every thread to itself, so it splits all but tiny blocks
    // over them; otherwise only large blocks are split (for_each_king_placement).
    template <typename Visit>
    void first_pass_blocks(const Subgame& g, FirstPassCache& cache, FirstPassNotes& notes, Visit&& visit) const {
        const std::uint64_t split_from = solved_alone(g.size) ? 0 : kSplitBlockPlacements;
        for (int b = 0; b < g.block_count; ++b) {
            const Block& block = g.blocks[b];
            layout_.for_each_king_placement(
                block, cache,
                [&](FirstPassCache& c, std::uint64_t k, const KingPlacement& kings) {
                    visit(block, k, first_pass(block, kings, c));
                    notes.visited(k);
                },
                split_from);
        }
    }

    // Queues the positions of `block` that the first pass decided as wins or losses, in index order.
    void queue_decided(const Block& block, Scratch& s) const {
        const std::uint64_t n = layout_.index(block.side).king_placements();
        KingPlacementWalker kings(layout_.index(block.side), block.men, 0);
        for (std::uint64_t k = 0; k < n; ++k, kings.next()) {
            const std::uint64_t local = block.local_offset + k;
            const auto v = static_cast<Value>(s.cells[local].state & kValueMask);
            if (v == Value::Win || v == Value::Loss)
                s.queue.push_back({kings.current(), static_cast<std::uint32_t>(local), v});
        }
    }

    // Whether the positions the first pass left unknown are fewer than those it decided as wins
    // or losses: then pull_decided walks the king moves of the fewer.
    bool pulls_decided(const Subgame& g, const Scratch& s) const {
        std::uint64_t unknown = 0, decided = 0;
        for (std::uint64_t local = 0; local < g.size; ++local) {
            const std::uint8_t v = s.cells[local].state & kValueMask;
            unknown += v == kUnknown;
            decided += v == static_cast<std::uint8_t>(Value::Win) || v == static_cast<std::uint8_t>(Value::Loss);
        }
        return pulls(unknown, decided);
    }

    // Settles what the first pass decided from the side of the unknown positions of block b:
    // each looks at its king moves' positions, as pull_from_frontier does in a round, and those
    // it settles as wins or losses are queued for settle_queue. A position settled here carries
    // kPulledFlag, so that one settled before it in the walk is not counted now as well as when
    // settle_queue walks its predecessors.
    void pull_decided(const Subgame& g, int b, Scratch& s) const {
        const Block& block = g.blocks[b];
        const std::uint64_t n = layout_.index(block.side).king_placements();
        KingPlacementWalker walker(layout_.index(block.side), block.men, 0);
        for (std::uint64_t k = 0; k < n; ++k, walker.next()) {
            const std::uint64_t local = block.local_offset + k;
            Cell& cell = s.cells[local];
            if (cell.state != kUnknown) continue;
            unsigned wins = 0;
            const bool loss_found = layout_.any_successor(g, b, walker.current(), [&](std::uint64_t next) {
                const std::uint8_t after = s.cells[next].state;
                if (after & kPulledFlag) return false;
                wins += (after & kValueMask) == static_cast<std::uint8_t>(Value::Win);
                return (after & kValueMask) == static_cast<std::uint8_t>(Value::Loss);
            });
            if (!settles_pulled(cell, loss_found, wins)) continue;
            const auto value = static_cast<Value>(cell.state);
            cell.state |= kPulledFlag;
            if (value != Value::Draw) s.queue.push_back({walker.current(), static_cast<std::uint32_t>(local), value});
        }
    }

    void solve_subgame(const Subgame& g, const SubgameProgress& progress) {
        const SubgameSolving how = subgame_solving(g.size, options_);
        if (how == SubgameSolving::Compact) return solve_subgame_compact(g, progress);
        Scratch& s = scratch_.local();
        assign_on_huge_pages(s.cells, g.size, Cell{kUnknown, 0});
        FirstPassNotes notes(progress, g.size);
        first_pass_blocks(g, s.first_pass, notes,
                          [&](const Block& block, std::uint64_t k, const Cell& cell) { s.cells[block.local_offset + k] = cell; });
        if (how == SubgameSolving::Queued) {
            s.queue.clear();
            s.queue.reserve(g.size);  // each position is queued once at most: no doubling past that
            if (pulls_decided(g, s)) {
                for (int b = 0; b < g.block_count; ++b) pull_decided(g, b, s);
            } else {
                for (int b = 0; b < g.block_count; ++b) queue_decided(g.blocks[b], s);
            }
            settle_queue(g, s);
        } else {
            propagate_large(g, s, progress);
        }
        write_subgame(g, [&](std::uint64_t local) { return s.cells[local].state; });
    }

    // A large subgame in NibbleStates, for a pair whose cells would pass the memory limit, its
    // frontier in FrontierBits. (A kings-only pair over the limit is solved in symmetry classes
    // instead, gen/class_solver.hpp.)
    void solve_subgame_compact(const Subgame& g, const SubgameProgress& progress) {
        NibbleStates states(g.size);
        FrontierBits frontier(g.size);
        FirstPassNotes notes(progress, g.size);
        FirstPassCache first_pass_cache;
        first_pass_blocks(g, first_pass_cache, notes, [&](const Block& block, std::uint64_t k, const Cell& cell) {
            const std::uint64_t local = block.local_offset + k;
            const auto v = static_cast<Value>(cell.state & kValueMask);
            states.initialise(local, nibble_of(cell));
            if (v == Value::Win || v == Value::Loss) frontier.set_shared(local);
        });
        propagate_compact(g, states, frontier, progress);
        write_subgame(g, [&](std::uint64_t local) { return states.get(local); });
    }

    // Settles the predecessors of the win or loss at `local` (its kings `kings`): a predecessor of
    // a loss is a win; one of a win is looked at again, all its king moves, instead of counted
    // down. push(pred) gets each position settled.
    template <typename Push>
    void settle_predecessors_compact(const Subgame& g, NibbleStates& states, std::uint64_t local,
                                     const KingPlacement& kings, std::vector<Predecessor>& predecessors, Push&& push) const {
        const auto value = static_cast<Value>(states.state(local));
        const int block = g.block_of(local);
        predecessors.clear();
        layout_.for_each_predecessor(g, block, compose_position(g.blocks[block].men, kings),
                                     [&](std::uint64_t pred, const KingPlacement& k) {
                                         states.prefetch(pred);
                                         predecessors.push_back({k, pred});
                                     });
        for (const auto& [k, pred] : predecessors) {
            const std::uint8_t nibble = states.get(pred);
            if ((nibble & kValueMask) != kUnknown) continue;
            const bool settles = value == Value::Loss ? states.settle(pred, Value::Win)
                                                      : !(nibble & kNibbleDraw) && every_king_move_loses(g, pred, k, states) &&
                                                            states.settle(pred, Value::Loss);
            if (settles) push(pred);
        }
    }

    // Settles the predecessors of one frontier at a time, in parallel, like propagate_large.
    void propagate_compact(const Subgame& g, NibbleStates& states, FrontierBits& frontier, const SubgameProgress& progress) const {
        propagate_in_rounds(g, frontier, progress, [] {}, [&](std::uint64_t begin, std::uint64_t end, auto&& push) {
            std::vector<Predecessor> predecessors;
            for_each_frontier_position(layout_, g, frontier, begin, end, [&](std::uint64_t local, const KingPlacement& kings) {
                settle_predecessors_compact(g, states, local, kings, predecessors, push);
            });
        });
    }

    // Whether every king move of position `local` (its kings `kings`; no capture) leads to a
    // position that the opponent, to move there, has won.
    bool every_king_move_loses(const Subgame& g, std::uint64_t local, const KingPlacement& kings, const NibbleStates& states) const {
        return !layout_.any_successor(g, g.block_of(local), kings, [&](std::uint64_t next) {
            return states.state(next) != static_cast<std::uint8_t>(Value::Win);
        });
    }

    // Runs part(begin, end) over [0, n): for a subgame solved alone, in parts spread over the
    // threads (the serial steps of its solve would leave them idle), isolated so that a waiting
    // thread takes up no other work meanwhile; otherwise at once, its thread's share of the work.
    template <typename Part>
    void in_parts(const Subgame& g, std::uint64_t n, Part&& part) const {
        if (!solved_alone(g.size)) return part(std::uint64_t{0}, n);
        isolated_parallel_parts(n, 1 << 14, part);
    }

    // Writes the values of `g`'s blocks.
    template <typename StateAt>
    void write_subgame(const Subgame& g, StateAt&& state_at) {
        for (int b = 0; b < g.block_count; ++b) {
            const Block& block = g.blocks[b];
            in_parts(g, layout_.index(block.side).king_placements(),
                     [&](std::uint64_t begin, std::uint64_t end) { write_block(block, begin, end, state_at); });
        }
    }

    // Writes king placements [begin, end) of `block`. Positions still unknown are draws. Other
    // parts, and neighbouring configurations, may be written or read by other threads meanwhile
    // (store_range and merge_range share their edges atomically). state_at(local) gives a
    // position's state and kCaptureFlag.
    template <typename StateAt>
    void write_block(const Block& block, std::uint64_t begin, std::uint64_t end, StateAt&& state_at) {
        const std::uint64_t n = layout_.index(block.side).king_placements();
        const std::uint64_t offset = block.local_offset + begin;
        HeldValues& own = own_[block.side];
        const std::uint64_t base = own.configs.base(block.base / n) + begin;
        own.values.store_range(base, end - begin, [&](std::uint64_t k) {
            const std::uint8_t v = state_at(offset + k) & kValueMask;
            return v == kUnknown ? Value::Draw : static_cast<Value>(v);
        });
        own.captures.merge_range(base, end - begin, [&](std::uint64_t k) { return (state_at(offset + k) & kCaptureFlag) != 0; });
    }

    const ValueTables& finished_;
    PairLayout layout_;
    Slice slice_;
    SliceSubgames subgames_;  // the slice's, by level: its configurations' lists, held while it is solved
    SolverOptions options_;             // how its subgames are solved (subgame_solving)
    std::vector<HeldValues> own_;       // per side: the values solved here, captures resolved
    std::vector<HeldValues> boundary_;  // per side, for a slice: the level above it
    tbb::enumerable_thread_specific<Scratch> scratch_;
};

}  // namespace

void SolvedMaterial::value_bytes(std::uint64_t first, std::span<std::uint8_t> out) const {
    std::uint64_t j = 0;
    if (first % 4 == 0) {
        const auto packed = values.raw();
        const auto capture_bytes = captures.raw();
        for (; j + 4 <= out.size(); j += 4) {
            const std::uint64_t i = first + j;
            const unsigned four = packed[i / 4];                         // 2 bits a position
            const unsigned capture = capture_bytes[i / 8] >> (i % 8);  // 1 bit a position
            for (unsigned k = 0; k < 4; ++k)
                out[j + k] = static_cast<std::uint8_t>(((four >> (2 * k)) & kValueMask) | (((capture >> k) & 1) << 2));
        }
    }
    for (; j < out.size(); ++j) out[j] = value_byte(first + j);
}

std::vector<SolvedMaterial> solve_material_pair(const Material& material, const ValueTables& finished,
                                                const ProgressCallback& progress, SolverOptions options) {
    if (material.pieces() > 16) throw std::invalid_argument("dtb gen supports at most 16 pieces");
    return PairSolver(material, finished, options).solve_pair(progress);
}

SolvedSlice solve_material_slice(const Material& material, const ValueTables& finished, const Slice& slice,
                                 SliceSubgames subgames, std::vector<HeldValues> boundary,
                                 const ProgressCallback& progress, SolverOptions options) {
    if (material.pieces() > 16) throw std::invalid_argument("dtb gen supports at most 16 pieces");
    return PairSolver(material, finished, slice, std::move(subgames), std::move(boundary), options).solve_slice(progress);
}

SolvedSlice solve_material_slice(const Material& material, const ValueTables& finished, const Slice& slice,
                                 std::vector<HeldValues> boundary, const ProgressCallback& progress,
                                 SolverOptions options) {
    return solve_material_slice(material, finished, slice, PairLayout(material).subgames_in(slice), std::move(boundary),
                                progress, options);
}

}  // namespace dtb
