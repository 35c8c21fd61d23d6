#include "gen/dtw_solver.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "gen/frontier_bits.hpp"
#include "gen/isolated_parts.hpp"
#include "gen/man_move_targets.hpp"
#include "gen/successor_indexer.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"

namespace dtb {

void DtwBest::add(Dtw after) {
    any_move_ = true;
    if (after == kDtwDraw)
        any_draw_ = true;
    else if (dtw_is_loss(after))
        shortest_loss_ = std::min(shortest_loss_, after);
    else
        longest_win_ = std::max(longest_win_, after);
}

Dtw DtwBest::result() const {
    if (shortest_loss_ != kDtwDraw) return dtw_plus_one(shortest_loss_);
    if (any_draw_) return kDtwDraw;
    return any_move_ ? dtw_plus_one(longest_win_) : 0;
}

Dtw dtw_plus_one(Dtw d) {
    if (d >= kDtwDraw - 1) throw std::overflow_error("DTW does not fit in 16 bits");
    return static_cast<Dtw>(d + 1);
}

// ---------------------------------------------------------------------------------------------
// DtwTables

void DtwTables::add(const Material& m, std::vector<Dtw> dtw) {
    PositionIndex index(m);
    if (dtw.size() != index.size()) throw std::invalid_argument("DTW table of " + m.name() + " has the wrong size");
    remove(m);  // a table added again replaces the first
    bytes_ += dtw.size() * sizeof(Dtw);
    entries_.put(m, std::make_unique<Entry>(Entry{std::move(index), std::move(dtw)}));
}

void DtwTables::remove(const Material& m) {
    if (const Entry* e = slot(m)) bytes_ -= e->dtw.size() * sizeof(Dtw);
    entries_.erase(m);
}

const std::vector<Dtw>* DtwTables::table(const Material& m) const {
    const Entry* e = slot(m);
    return e ? &e->dtw : nullptr;
}

DtwTables::Held DtwTables::held(const Material& m) const {
    const Entry* e = slot(m);
    return e ? Held{&e->dtw, &e->index} : Held{};
}

void DtwTables::set(const Material& m, std::uint64_t index, Dtw d) {
    Entry* e = entries_.find(m);
    if (!e) throw std::logic_error("dtb dtw: material " + m.name() + " is set but not added");
    e->dtw.at(index) = d;
}

Dtw DtwTables::dtw_of(const Position& any) const {
    const Position pos = white_to_move(any);
    if (pos.white == 0) return 0;  // the game is over: the side to move lost its last piece
    const Entry& e = needed(material_of(pos));
    return e.dtw[e.index.index(pos)];
}

namespace {
constexpr const char* kWho = "dtb dtw";  // in the error for a material needed but not built
}  // namespace

const DtwTables::Entry& DtwTables::needed(const Material& m) const { return entries_.needed(m, kWho); }

Dtw DtwTables::resolve_captures(const Position& pos, Bitboard capturers) const {
    return best_after(pos, generate_captures(pos, capturers));
}

Dtw DtwTables::best_after(const Position& pos, const MoveList& moves) const {
    // Every move is looked up (the shortest win needs them all); a batch of them is indexed and
    // prefetched before the first is read, so that their cache misses overlap.
    constexpr std::size_t kBatch = 8;
    SuccessorIndexer indexer(entries_, kWho);
    DtwBest best;
    std::array<const Dtw*, kBatch> batch;
    LandingRun<Entry> run;
    for (std::size_t begin = 0; begin < moves.size(); begin += kBatch) {
        const std::size_t n = std::min(kBatch, moves.size() - begin);
        std::size_t looked_up = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const Move& m = moves[begin + i];
            if (run.continues(pos, m)) {
                batch[looked_up] = &run.entry()->dtw[run.index(m.to)];
            } else {
                const Position after = apply_move(pos, m);
                if (after.pieces(after.side_to_move) == 0) {
                    best.add(0);  // the move took the last piece
                    continue;
                }
                const Position next = white_to_move(after);
                const auto [entry, index] = indexer.locate(next);
                run.start(pos, m, next, entry, index);
                batch[looked_up] = &entry->dtw[index];
            }
            __builtin_prefetch(batch[looked_up++]);
        }
        for (std::size_t i = 0; i < looked_up; ++i) best.add(*batch[i]);
    }
    return best.result();
}

// ---------------------------------------------------------------------------------------------
// The pair solver

namespace {

// Per-position state inside a subgame.
constexpr std::uint8_t kWin = 1;       // a win for the side to move (by WDL, or a move into a loss found)
constexpr std::uint8_t kLoss = 2;      // WDL: a loss
constexpr std::uint8_t kFixed = 4;     // a capture position: its DTW is known from the start
constexpr std::uint8_t kSettled = 8;   // its DTW is final
constexpr std::uint8_t kNoLoss = 16;   // cannot be a loss: a WDL draw, or a man move into a draw
constexpr std::uint8_t kWdlGiven = 32;  // the WDL value came with the pair: a distance must agree with it
constexpr std::uint8_t kPendingMax = 0xFF;

// A position that may settle at its bucket's DTW. It carries its kings (the men are its
// block's), so that settling it does not unrank its index.
struct Queued {
    KingPlacement kings;
    std::uint32_t local;
};

// A position's state, counter and distance share one cache line: settling a successor touches
// all three. Threads sharing a subgame change a cell as a whole, by compare-and-swap.
struct alignas(4) Cell {
    std::uint8_t state;    // kWin, kLoss, kFixed, kSettled, kNoLoss, kWdlGiven
    std::uint8_t pending;  // unless a win: king moves whose successor has not settled
    // Win: shortest DTW found so far. Otherwise: 1 + the longest successor DTW seen so far (the
    // DTW of a loss once every successor has settled). Final once settled; kDtwDraw for a draw.
    Dtw dtw;
};
static_assert(sizeof(Cell) == 4 && std::atomic_ref<Cell>::is_always_lock_free);

// The predecessors of one queued position, gathered (and their cells prefetched) one position
// ahead of their update: settling is bound by the latency of these scattered accesses.
struct Gathered {
    Queued queued{};
    Position position{};
    std::vector<Queued> predecessors;
};

// One thread's buffers, kept from one subgame to the next (fresh memory costs a page fault
// every 4 KiB).
struct Scratch {
    std::vector<Cell> cells;
    std::vector<std::vector<Queued>> buckets;  // buckets[d]: positions that may settle at d
    Gathered current, next;                    // settling a small subgame
    // Each thread settling one bucket of a large subgame: what it queues, with its DTW, and its
    // gathered predecessors.
    struct InParallel {
        std::vector<Queued> part;                    // the positions of its frontier words
        std::vector<std::pair<Dtw, Queued>> queued;  // those it queues beyond the next DTW
        Gathered current, next;
    };
    tbb::enumerable_thread_specific<InParallel> in_parallel;
};

// How the settling threads read and change cells: one thread alone in a subgame with plain
// loads and stores, several threads settling one bucket of a large subgame by compare-and-swap of
// whole cells (locked instructions, the hottest of a profile of the parallel settling, that one
// thread does not need).
struct Alone {
    // Applies change(Cell&) -> bool (whether it changed the cell); returns that.
    template <typename Change>
    static bool update(Cell& cell, Change&& change) { return change(cell); }
};

struct Shared {
    template <typename Change>
    static bool update(Cell& cell, Change&& change) {
        std::atomic_ref shared(cell);
        for (Cell current = shared.load(std::memory_order_relaxed);;) {
            Cell changed = current;
            if (!change(changed)) return false;
            if (shared.compare_exchange_weak(current, changed)) return true;
        }
    }
};

std::uint8_t wdl_flag(Value v) { return v == Value::Win ? kWin : v == Value::Loss ? kLoss : 0; }

[[noreturn]] void inconsistent(const Position& pos, const std::string& what) {
    throw std::logic_error("dtb dtw: " + to_fen(pos) + ": " + what);
}

class DtwPairSolver {
public:
    // wdl: the values of the pair, or null to find them with the distances.
    DtwPairSolver(const Material& m, const ValueTables* wdl, const DtwTables& finished, const DtwSolverOptions& options)
        : finished_(finished), layout_(m), options_(options) {
        // Its cells and buckets number a subgame's positions in 32 bits.
        if (const std::string reason = PairLayout::too_large_for_dtw(m); !reason.empty()) throw std::length_error(reason);
        for (int side = 0; side < layout_.side_count(); ++side) {
            const Material& material = layout_.index(side).material();
            if (wdl) {
                wdl_[side] = wdl->table(material);
                if (!wdl_[side]) throw std::logic_error("dtb dtw: the WDL values of " + material.name() + " are not loaded");
            }
            dtw_.push_back(vector_on_huge_pages(layout_.index(side).size(), kDtwDraw));
            captures_.emplace_back(layout_.index(side).size());
        }
    }

    std::vector<DtwMaterial> solve(const ProgressCallback& progress) {
        // Its subgames side by side, one a thread, whatever their size (the memory plan counts one a thread).
        layout_.solve_by_level([&](const Subgame& g, const SubgameProgress& p) { solve_subgame(g, p); },
                               [](std::uint64_t) { return false; }, progress);
        std::vector<DtwMaterial> out;
        for (int side = 0; side < layout_.side_count(); ++side)
            out.push_back({layout_.index(side).material(), std::move(dtw_[side]), std::move(captures_[side])});
        return out;
    }

private:
    Position position_at(const Block& b, std::uint64_t k) const { return layout_.position_at(b, k); }

    // ---- initialisation: what the moves leaving the subgame decide ----

    // Where man move `move` of `pos` (a position of block b, or its men alone) leads, whatever the
    // kings: a more advanced configuration of the partner side (solved at an earlier level), or a
    // promotion into a finished material.
    ManMoveTarget<std::vector<Dtw>> man_move_target(const Block& b, const Position& pos, const Move& move) const {
        Position next;
        auto t = ManMoveTarget<std::vector<Dtw>>::of(pos, move, next);
        if (t.crowned) {
            const DtwTables::Held promoted = finished_.held(t.promoted(layout_.index(b.side).material()));
            if (!promoted.dtw) return t;  // not built: dtw_after_man_move's lookup says so
            t.values = promoted.dtw, t.index = promoted.index;
        } else {
            const int target = layout_.partner_side(b.side);
            t.values = &dtw_[target], t.index = &layout_.index(target);
        }
        t.base = t.index->men_index(men_config_of(next)) * t.index->king_placements();
        return t;
    }

    // DTW for the opponent after the man move of target `t` from `pos`, whose kings seen from the
    // other side are `flipped`.
    Dtw dtw_after_man_move(const ManMoveTarget<std::vector<Dtw>>& t, const Position& pos, const KingPlacement& flipped) const {
        if (!t.values) return finished_.dtw_after(apply_move(pos, t.move));
        return (*t.values)[t.index_after(flipped)];
    }

    void init_position(const Block& b, std::uint64_t k, const KingPlacement& kings, Scratch& s,
                       BlockManMoves<std::vector<Dtw>>& man_moves) const {
        const std::uint64_t local = b.local_offset + k;
        const Position pos = compose_position(b.men, kings);
        Cell& cell = s.cells[local];
        std::optional<Value> wdl;
        if (wdl_[b.side]) {
            wdl = wdl_[b.side]->get(b.base + k);  // the position's own index: no indexing
            cell.state = wdl_flag(*wdl) | kWdlGiven | (wdl == Value::Draw ? kNoLoss : 0);
        }
        if (const Bitboard capturers = capturing_pieces(pos)) {
            init_capture(pos, capturers, wdl, cell);
            return;
        }
        if (wdl == Value::Draw) return;
        // The man moves leave the subgame: their DTWs are known. The best into a loss bounds a
        // win; the longest into a win bounds a loss; one into a draw rules out a loss.
        Dtw win = kDtwDraw, loss = 0;
        bool draw = false;
        man_moves.use_block(b, [&](const Position& men_only, const Move& m) { return man_move_target(b, men_only, m); });
        const KingPlacement flipped = ManMoveTarget<std::vector<Dtw>>::flipped(kings);
        man_moves.any_of(kings, [&](const ManMoveTarget<std::vector<Dtw>>& t) {
            const Dtw after = dtw_after_man_move(t, pos, flipped);
            if (after == kDtwDraw)
                draw = true;
            else if (dtw_is_loss(after))
                win = std::min(win, dtw_plus_one(after));
            else
                loss = std::max(loss, dtw_plus_one(after));
            return false;  // every move counts
        });
        if (wdl == Value::Loss && (draw || win != kDtwDraw)) inconsistent(pos, "a loss with a move to a draw or a loss");
        const std::size_t king_moves = count_quiet_king_moves(pos);  // they stay in the subgame
        if (king_moves >= kPendingMax) throw std::length_error("too many king moves for the DTW solver's counters");
        if (wdl == Value::Win || win != kDtwDraw) {
            cell.state |= kWin;
            cell.dtw = win;
            return;
        }
        cell.dtw = loss;
        cell.pending = static_cast<std::uint8_t>(king_moves);
        if (draw) cell.state |= kNoLoss;
    }

    // Every successor of a capture lies in a smaller material: the DTW is known at once, and the
    // position takes no part in the king-move search (its quiet king moves are not legal). A WDL
    // draw has no DTW: its captures need not be searched.
    void init_capture(const Position& pos, Bitboard capturers, std::optional<Value> wdl, Cell& cell) const {
        cell.state |= kFixed;
        if (wdl == Value::Draw) return;
        const Dtw dtw = finished_.resolve_captures(pos, capturers);
        if (wdl && dtw_value(dtw) != *wdl) inconsistent(pos, "capture search disagrees with the WDL value");
        cell.state |= wdl_flag(dtw_value(dtw));
        cell.dtw = dtw;
    }

    void init_block(const Block& block, Scratch& s, FirstPassNotes& notes) const {
        BlockManMoves<std::vector<Dtw>> man_moves;  // each part of a block split over the threads has its own
        layout_.for_each_king_placement(block, man_moves,
                                        [&](BlockManMoves<std::vector<Dtw>>& targets, std::uint64_t k, const KingPlacement& kings) {
                                            init_position(block, k, kings, s, targets);
                                            notes.visited(k);
                                        });
    }

    // ---- the bucket queue ----

    static void push(Scratch& s, Dtw d, const Queued& q) {
        if (s.buckets.size() <= d) s.buckets.resize(std::size_t{d} + 1);
        s.buckets[d].push_back(q);
    }

    // Positions of `block` whose DTW is already known or bounded after initialisation, in index
    // order (sequentially, so that the order of the queue does not depend on the thread count).
    void seed_buckets(const Block& block, Scratch& s) const {
        const std::uint64_t n = layout_.index(block.side).king_placements();
        KingPlacementWalker kings(layout_.index(block.side), block.men, 0);
        for (std::uint64_t k = 0; k < n; ++k, kings.next()) {
            const std::uint64_t i = block.local_offset + k;
            const Cell& c = s.cells[i];
            if (is_seed(c)) push(s, c.dtw, {kings.current(), static_cast<std::uint32_t>(i)});
        }
    }

    // Whether initialisation already bounds the position's DTW (its bucket is c.dtw).
    static bool is_seed(const Cell& c) {
        const bool fixed = (c.state & kFixed) && (c.state & (kWin | kLoss));
        const bool bounded_win = (c.state & kWin) && c.dtw != kDtwDraw;  // by a man move
        const bool final_loss = !(c.state & (kWin | kNoLoss | kFixed)) && c.pending == 0;  // no king move
        return fixed || bounded_win || final_loss;
    }

    // What a successor settling at d does to `cell`, reached from it by a king move: true if it
    // changed the cell, with `queue_at` the DTW at which the cell may now settle (kDtwDraw: not
    // queued). A successor lost makes a win (of DTW at most d + 1); one won counts down the
    // cell's pending king moves, and the last of them makes a loss unless a draw rules it out.
    static bool relaxed(Cell& cell, Dtw d, const Position& settled, Dtw& queue_at) {
        queue_at = kDtwDraw;
        if (cell.state & (kFixed | kSettled)) return false;
        const Dtw candidate = dtw_plus_one(d);
        if (dtw_is_loss(d)) {
            if (!(cell.state & kWin) && (cell.state & kWdlGiven))
                inconsistent(settled, "a lost position reached by a move from a non-winning one");
            if ((cell.state & kWin) && cell.dtw <= candidate) return false;
            cell.state |= kWin;
            cell.dtw = queue_at = candidate;
            return true;
        }
        if (cell.state & (kWin | kNoLoss)) return false;
        cell.dtw = std::max(cell.dtw, candidate);
        if (--cell.pending == 0) queue_at = cell.dtw;  // its last successor
        return true;
    }

    // A king move from `q` leads to a position that has just settled at `d`; push(dtw, q) queues
    // q when that settles a bound. With Access = Shared, safe for the positions of one bucket at
    // once: each change of a cell is one compare-and-swap, and only the thread whose change
    // lowers a win's DTW, or takes a loss's counter to zero (its bound raised in the same change),
    // queues it.
    template <typename Access, typename Push>
    static void relax(Scratch& s, const Queued& q, Dtw d, const Position& settled, Push&& push) {
        Dtw queue_at = kDtwDraw;
        Access::update(s.cells[q.local], [&](Cell& c) { return relaxed(c, d, settled, queue_at); });
        if (queue_at != kDtwDraw) push(queue_at, q);
    }

    // Gathers the predecessors of q and prefetches their cells and its own.
    void gather(const Subgame& g, const Queued& q, Scratch& s, Gathered& out) const {
        __builtin_prefetch(&s.cells[q.local], 1);
        const int block = g.block_of(q.local);
        out.queued = q;
        out.position = compose_position(g.blocks[block].men, q.kings);
        out.predecessors.clear();
        layout_.for_each_predecessor(g, block, out.position, [&](std::uint64_t pred, const KingPlacement& kings) {
            __builtin_prefetch(&s.cells[pred], 1);
            out.predecessors.push_back({kings, static_cast<std::uint32_t>(pred)});
        });
    }

    // Settles the gathered position at d, unless a shorter DTW has settled it already.
    template <typename Access, typename Push>
    static void settle_gathered(const Gathered& p, Dtw d, Scratch& s, Push&& push) {
        const bool settles = Access::update(s.cells[p.queued.local], [d](Cell& c) {
            if ((c.state & kSettled) || c.dtw != d) return false;
            c.state |= kSettled;
            return true;
        });
        if (!settles) return;
        for (const Queued& pred : p.predecessors) relax<Access>(s, pred, d, p.position, push);
    }

    // Settles bucket[begin, end) at d, each position's predecessors gathered one position ahead.
    template <typename Access, typename Push>
    void settle_range(const Subgame& g, const std::vector<Queued>& bucket, std::size_t begin, std::size_t end, Dtw d,
                      Scratch& s, Gathered& current, Gathered& next, Push&& push) const {
        if (begin != end) gather(g, bucket[begin], s, current);
        for (std::size_t i = begin; i != end; ++i) {
            if (i + 1 != end) gather(g, bucket[i + 1], s, next);
            settle_gathered<Access>(current, d, s, push);
            std::swap(current, next);
        }
    }

    // Settles positions in increasing DTW. Every step costs one ply, so a position is final when
    // its bucket comes up: a win by its shortest losing successor, a loss once all have settled.
    void settle(const Subgame& g, Scratch& s) const {
        const auto queue = [&s](Dtw d, const Queued& q) { push(s, d, q); };
        std::vector<Queued> bucket;
        for (std::size_t d = 0; d < s.buckets.size(); ++d) {
            bucket.swap(s.buckets[d]);  // nothing is queued at d while d settles
            settle_range<Alone>(g, bucket, 0, bucket.size(), static_cast<Dtw>(d), s, s.current, s.next, queue);
            bucket.clear();
            bucket.swap(s.buckets[d]);  // keeps its memory for the next subgame
        }
    }

    // Local numbers of a large subgame's positions by the DTW at which they may settle, beyond the
    // next one: 4 bytes each, their kings walked again when their DTW comes up.
    using LaterBuckets = std::vector<std::vector<std::uint32_t>>;

    // The seeds of a large subgame by DTW, each bucket allocated once at its size.
    static LaterBuckets seeds_by_dtw(const Subgame& g, const Scratch& s) {
        std::vector<std::uint64_t> count;
        for (std::uint64_t local = 0; local < g.size; ++local)
            if (const Cell& c = s.cells[local]; is_seed(c)) {
                if (count.size() <= c.dtw) count.resize(std::size_t{c.dtw} + 1);
                ++count[c.dtw];
            }
        LaterBuckets later(count.size());
        for (std::size_t d = 0; d < count.size(); ++d) later[d].reserve(count[d]);
        for (std::uint64_t local = 0; local < g.size; ++local)
            if (const Cell& c = s.cells[local]; is_seed(c)) later[c.dtw].push_back(static_cast<std::uint32_t>(local));
        return later;
    }

    // The positions of one DTW settle in parallel: they only queue positions of later DTWs. Nearly
    // all of those are queued at the next DTW, as bits; the rest (losses whose man moves bound them
    // further) in `later`.
    void settle_large(const Subgame& g, Scratch& s, const SubgameProgress& progress) const {
        LaterBuckets later = seeds_by_dtw(g, s);
        FrontierBits frontier(g.size), next(g.size);
        bool next_any = false;
        for (std::size_t d = 0; d < later.size() || next_any; ++d) {
            frontier.swap(next);
            next.clear();
            if (d < later.size()) {
                for (const std::uint32_t local : later[d]) frontier.set(local);
                std::vector<std::uint32_t>().swap(later[d]);
            }
            next_any = settle_frontier(g, frontier, static_cast<Dtw>(d), s, next, later);
            progress.note([&] { return round_note(g.size, "distance", d, frontier.count(), "on its frontier"); });
        }
    }

    // Settles the positions of `frontier` at d; returns whether it set any bit of `next`.
    bool settle_frontier(const Subgame& g, const FrontierBits& frontier, Dtw d, Scratch& s, FrontierBits& next,
                         LaterBuckets& later) const {
        std::atomic<bool> next_any = false;
        isolated_parallel_parts(frontier.words(), 64, [&](std::uint64_t begin, std::uint64_t end) {
            auto& [part, queued, current, ahead] = s.in_parallel.local();
            part.clear();
            for_each_frontier_position(layout_, g, frontier, begin, end,
                                       [&part](std::uint64_t local, const KingPlacement& kings) {
                                           part.push_back({kings, static_cast<std::uint32_t>(local)});
                                       });
            bool pushed = false;
            settle_range<Shared>(g, part, 0, part.size(), d, s, current, ahead, [&](Dtw t, const Queued& q) {
                if (t == d + 1) {
                    next.set_shared(q.local);
                    pushed = true;
                } else {
                    queued.push_back({t, q});
                }
            });
            if (pushed) next_any.store(true, std::memory_order_relaxed);
        });
        for (auto& in_parallel : s.in_parallel) {
            for (const auto& [t, q] : in_parallel.queued) {
                if (later.size() <= t) later.resize(std::size_t{t} + 1);
                later[t].push_back(q.local);
            }
            in_parallel.queued.clear();
        }
        return next_any.load();
    }

    void write_block(const Block& block, const Scratch& s) {
        const std::uint64_t n = layout_.index(block.side).king_placements();
        Dtw* out = dtw_[block.side].data() + block.base;
        const Cell* cells = s.cells.data() + block.local_offset;
        captures_[block.side].merge_range(block.base, n, [cells](std::uint64_t k) { return (cells[k].state & kFixed) != 0; });
        for (std::uint64_t k = 0; k < n; ++k) {
            const Cell& c = cells[k];
            const bool settled = c.state & kSettled;
            if (!settled && (c.state & (kWin | kLoss))) inconsistent(position_at(block, k), "a win or loss with no finite DTW");
            if (settled && dtw_value(c.dtw) != ((c.state & kWin) ? Value::Win : Value::Loss))
                inconsistent(position_at(block, k), "DTW parity disagrees with the WDL value");
            out[k] = settled ? c.dtw : kDtwDraw;
        }
    }

    void solve_subgame(const Subgame& g, const SubgameProgress& progress) {
        Scratch& s = scratch_.local();
        assign_on_huge_pages(s.cells, g.size, Cell{0, 0, kDtwDraw});
        FirstPassNotes notes(progress, g.size);
        for (int b = 0; b < g.block_count; ++b) init_block(g.blocks[b], s, notes);
        // A small subgame's buckets are small, and a level has many such subgames to keep the
        // threads busy. A large one's positions, queued with their kings, took 24 bytes each, six
        // times its cells: its frontier is kept as bits.
        if (g.size < options_.parallel_settle_positions) {
            for (int b = 0; b < g.block_count; ++b) seed_buckets(g.blocks[b], s);
            settle(g, s);
        } else {
            settle_large(g, s, progress);
        }
        for (int b = 0; b < g.block_count; ++b) write_block(g.blocks[b], s);
    }

    std::array<const PackedValues*, 2> wdl_{};  // per side: its material's values, captures resolved
    const DtwTables& finished_;
    PairLayout layout_;
    DtwSolverOptions options_;
    std::vector<std::vector<Dtw>> dtw_;  // per side, indexed like the material
    std::vector<CaptureBits> captures_;  // per side
    tbb::enumerable_thread_specific<Scratch> scratch_;
};

}  // namespace

std::vector<DtwMaterial> solve_dtw_pair(const Material& material, const ValueTables& wdl, const DtwTables& finished,
                                        const ProgressCallback& progress, const DtwSolverOptions& options) {
    if (material.pieces() > 16) throw std::invalid_argument("dtb gen supports at most 16 pieces");
    return DtwPairSolver(material, &wdl, finished, options).solve(progress);
}

namespace {

// The WDL values that the distances give, for every position (capture positions included).
PackedValues values_of(const std::vector<Dtw>& dtw) {
    PackedValues values(dtw.size());
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, dtw.size(), std::uint64_t{1} << 16), [&](const auto& r) {
        values.store_range(r.begin(), r.size(), [&](std::uint64_t k) { return dtw_value(dtw[r.begin() + k]); });
    });
    return values;
}

}  // namespace

std::vector<SolvedWithDistances> solve_pair_with_distances(const Material& material, const DtwTables& finished,
                                                           const ProgressCallback& progress,
                                                           const DtwSolverOptions& options) {
    if (material.pieces() > 16) throw std::invalid_argument("dtb gen supports at most 16 pieces");
    std::vector<SolvedWithDistances> out;
    for (DtwMaterial& d : DtwPairSolver(material, nullptr, finished, options).solve(progress)) {
        PackedValues values = values_of(d.dtw);
        out.push_back({SolvedMaterial{d.material, std::move(values), d.captures}, std::move(d)});
    }
    return out;
}

}  // namespace dtb
