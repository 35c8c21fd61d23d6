#include "gen/dtw_solver.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

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

void DtwTables::set(const Material& m, std::uint64_t index, Dtw d) {
    Entry* e = entries_.find(m);
    if (!e) throw std::logic_error("dtb dtw: material " + m.name() + " is set but not added");
    e->dtw.at(index) = d;
}

Dtw DtwTables::dtw_of(const Position& any) const {
    const Position pos = white_to_move(any);
    if (pos.white == 0) return 0;  // the game is over: the side to move lost its last piece
    const Entry* e = slot(material_of(pos));
    if (!e) throw std::logic_error("dtb dtw: material " + material_of(pos).name() + " is needed but not built");
    return e->dtw[e->index.index(pos)];
}

Dtw DtwTables::resolve_captures(const Position& pos) const {
    DtwBest best;
    for (const Move& m : generate_captures(pos)) best.add(dtw_after(apply_move(pos, m)));
    return best.result();
}

// ---------------------------------------------------------------------------------------------
// The pair solver

namespace {

constexpr std::uint64_t kParallelInitThreshold = 1 << 16;  // positions; below this a block is one task

// Per-position state inside a subgame.
constexpr std::uint8_t kWin = 1;       // WDL: win for the side to move
constexpr std::uint8_t kLoss = 2;      // WDL: loss (neither flag: draw)
constexpr std::uint8_t kFixed = 4;     // a capture position: its DTW is known from the start
constexpr std::uint8_t kSettled = 8;   // its DTW is final
constexpr std::uint8_t kPendingMax = 0xFF;

struct Scratch {
    std::vector<std::uint8_t> state;    // kWin / kLoss, kFixed, kSettled
    std::vector<std::uint8_t> pending;  // for a loss: king moves whose successor has not settled
    // Win: shortest DTW found so far (kDtwDraw: none yet). Loss: 1 + longest successor DTW seen
    // so far. Final once settled.
    std::vector<Dtw> dtw;
    std::vector<std::vector<std::uint32_t>> buckets;  // buckets[d]: positions that may settle at d
};

std::uint8_t wdl_flag(Value v) { return v == Value::Win ? kWin : v == Value::Loss ? kLoss : 0; }

[[noreturn]] void inconsistent(const Position& pos, const std::string& what) {
    throw std::logic_error("dtb dtw: " + to_fen(pos) + ": " + what);
}

class DtwPairSolver {
public:
    DtwPairSolver(const Material& m, const ValueTables& wdl, const DtwTables& finished)
        : wdl_(wdl), finished_(finished), layout_(m) {
        for (int side = 0; side < layout_.side_count(); ++side)
            dtw_.emplace_back(layout_.index(side).size(), kDtwDraw);
    }

    std::vector<DtwMaterial> solve(const ProgressCallback& progress) {
        layout_.solve_by_level([&](const Subgame& g) { solve_subgame(g); }, progress);
        std::vector<DtwMaterial> out;
        for (int side = 0; side < layout_.side_count(); ++side)
            out.push_back({layout_.index(side).material(), std::move(dtw_[side])});
        return out;
    }

private:
    Position position_at(const Block& b, std::uint64_t k) const { return layout_.position_at(b, k); }

    // ---- initialisation: what the moves leaving the subgame decide ----

    // DTW for the opponent after a man move: a more advanced configuration of the partner side
    // (solved at an earlier level), or a promotion into a finished material.
    Dtw dtw_after_man_move(const Position& before, const Position& after, int side) const {
        if (count_bits(after.kings) != count_bits(before.kings)) return finished_.dtw_after(after);
        const int target = layout_.partner_side(side);
        return dtw_[target][layout_.index(target).index(flip_colors(after))];
    }

    void init_position(const Block& b, std::uint64_t k, Scratch& s) const {
        const std::uint64_t local = b.local_offset + k;
        const Position pos = position_at(b, k);
        const Value wdl = wdl_.value_of(pos);
        s.state[local] = wdl_flag(wdl);
        if (has_capture(pos)) {
            init_capture(pos, wdl, local, s);
            return;
        }
        if (wdl == Value::Draw) return;
        const bool loss = wdl == Value::Loss;
        Dtw dtw = loss ? 0 : kDtwDraw;
        for (const Move& m : generate_quiet_man_moves(pos)) {
            const Dtw after = dtw_after_man_move(pos, apply_move(pos, m), b.side);
            if (loss && !dtw_is_win(after)) inconsistent(pos, "a loss with a move to a draw or a loss");
            if (loss) dtw = std::max(dtw, dtw_plus_one(after));
            if (!loss && dtw_is_loss(after)) dtw = std::min(dtw, dtw_plus_one(after));
        }
        const std::size_t king_moves = count_quiet_king_moves(pos);  // they stay in the subgame
        if (king_moves >= kPendingMax) throw std::length_error("too many king moves for the DTW solver's counters");
        s.dtw[local] = dtw;
        if (loss) s.pending[local] = static_cast<std::uint8_t>(king_moves);
    }

    // Every successor of a capture lies in a smaller material: the DTW is known at once, and the
    // position takes no part in the king-move search (its quiet king moves are not legal).
    void init_capture(const Position& pos, Value wdl, std::uint64_t local, Scratch& s) const {
        const Dtw dtw = finished_.resolve_captures(pos);
        if (dtw_value(dtw) != wdl) inconsistent(pos, "capture search disagrees with the WDL value");
        s.dtw[local] = dtw;
        s.state[local] |= kFixed;
    }

    void init_block(const Block& block, Scratch& s) const {
        const std::uint64_t n = layout_.index(block.side).king_placements();
        if (n < kParallelInitThreshold) {
            for (std::uint64_t k = 0; k < n; ++k) init_position(block, k, s);
            return;
        }
        // Isolated so that a waiting thread does not pick up another subgame meanwhile.
        tbb::this_task_arena::isolate([&] {
            tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, n, 1024), [&](const auto& r) {
                for (std::uint64_t k = r.begin(); k != r.end(); ++k) init_position(block, k, s);
            });
        });
    }

    // ---- the bucket queue ----

    static void push(Scratch& s, Dtw d, std::uint64_t local) {
        if (s.buckets.size() <= d) s.buckets.resize(std::size_t{d} + 1);
        s.buckets[d].push_back(static_cast<std::uint32_t>(local));
    }

    // Positions whose DTW is already known or bounded after initialisation, in index order
    // (sequentially, so that the result does not depend on the thread count).
    static void seed_buckets(Scratch& s) {
        for (std::uint64_t i = 0; i < s.state.size(); ++i) {
            const std::uint8_t st = s.state[i];
            const bool fixed = (st & kFixed) && (st & (kWin | kLoss));
            const bool bounded_win = (st & kWin) && s.dtw[i] != kDtwDraw;  // by a man move
            const bool final_loss = (st & kLoss) && s.pending[i] == 0;      // no king move
            if (fixed || bounded_win || final_loss) push(s, s.dtw[i], i);
        }
    }

    // A king move from `pred` leads to a position that has just settled at `d`.
    void relax(Scratch& s, std::uint64_t pred, Dtw d, const Position& settled) const {
        const std::uint8_t st = s.state[pred];
        if (st & (kFixed | kSettled)) return;
        if (dtw_is_loss(d)) {
            if (!(st & kWin)) inconsistent(settled, "a lost position reached by a move from a non-winning one");
            const Dtw candidate = dtw_plus_one(d);
            if (candidate < s.dtw[pred]) {
                s.dtw[pred] = candidate;
                push(s, candidate, pred);
            }
        } else if (st & kLoss) {
            s.dtw[pred] = std::max(s.dtw[pred], dtw_plus_one(d));
            if (--s.pending[pred] == 0) push(s, s.dtw[pred], pred);  // its last successor: the longest way is known
        }
    }

    // Settles positions in increasing DTW. Every step costs one ply, so a position is final when
    // its bucket comes up: a win by its shortest losing successor, a loss once all have settled.
    void settle(const Subgame& g, Scratch& s) const {
        for (std::size_t d = 0; d < s.buckets.size(); ++d) {
            const std::vector<std::uint32_t> bucket = std::move(s.buckets[d]);  // pushes go to d + 1 and beyond
            for (const std::uint32_t local : bucket) {
                if ((s.state[local] & kSettled) || s.dtw[local] != d) continue;  // a stale, longer candidate
                s.state[local] |= kSettled;
                const int block = g.block_of(local);
                const Block& b = g.blocks[block];
                const Position pos = position_at(b, local - b.local_offset);
                layout_.for_each_predecessor(g, block, pos,
                                             [&](std::uint64_t pred, const KingPlacement&) { relax(s, pred, s.dtw[local], pos); });
            }
        }
    }

    void write_block(const Block& block, const Scratch& s) {
        const std::uint64_t n = layout_.index(block.side).king_placements();
        Dtw* out = dtw_[block.side].data() + block.base;
        for (std::uint64_t k = 0; k < n; ++k) {
            const std::uint64_t local = block.local_offset + k;
            const std::uint8_t st = s.state[local];
            const bool decided = st & (kWin | kLoss);
            if (decided && !(st & kSettled)) inconsistent(position_at(block, k), "a WDL win or loss with no finite DTW");
            if (decided && dtw_value(s.dtw[local]) != ((st & kWin) ? Value::Win : Value::Loss))
                inconsistent(position_at(block, k), "DTW parity disagrees with the WDL value");
            out[k] = decided ? s.dtw[local] : kDtwDraw;
        }
    }

    void solve_subgame(const Subgame& g) {
        Scratch s;
        s.state.assign(g.size, 0);
        s.pending.assign(g.size, 0);
        s.dtw.assign(g.size, kDtwDraw);
        for (int b = 0; b < g.block_count; ++b) init_block(g.blocks[b], s);
        seed_buckets(s);
        settle(g, s);
        for (int b = 0; b < g.block_count; ++b) write_block(g.blocks[b], s);
    }

    const ValueTables& wdl_;
    const DtwTables& finished_;
    PairLayout layout_;
    std::vector<std::vector<Dtw>> dtw_;  // per side, indexed like the material
};

}  // namespace

std::vector<DtwMaterial> solve_dtw_pair(const Material& material, const ValueTables& wdl, const DtwTables& finished,
                                        const ProgressCallback& progress) {
    if (material.pieces() > 16) throw std::invalid_argument("dtb gen supports at most 16 pieces");
    return DtwPairSolver(material, wdl, finished).solve(progress);
}

}  // namespace dtb
