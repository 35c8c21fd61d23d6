#include "gen/solver.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/task_arena.h>
#include <tbb/parallel_for.h>

#include "rules/movegen.hpp"

namespace dtb {
namespace {

constexpr std::uint8_t kUnknown = 3;
constexpr std::uint8_t kHasDrawFlag = 0x80;  // in a counter: some successor is a draw
constexpr std::uint8_t kCountMask = 0x7F;
constexpr std::uint64_t kParallelInitThreshold = 1 << 16;  // positions; below this a subgame is one task
                                                           // (init and propagation both)

struct Side {
    Material material;
    PositionIndex index;
    std::vector<std::uint8_t> values;
};

// One men configuration of one side: its positions are [base, base + size) of that side.
struct Block {
    int side = 0;
    MenConfig men;
    std::uint64_t base = 0;
    std::uint64_t local_offset = 0;
};

struct Subgame {
    Block blocks[2];
    int block_count = 1;
    std::uint64_t size = 0;
    int partner(int b) const { return block_count == 1 ? 0 : 1 - b; }
};

struct Scratch {
    std::vector<std::uint8_t> state;    // Value, or kUnknown; plus kCaptureFlag
    std::vector<std::uint8_t> counter;  // king moves whose value is not known yet; kHasDrawFlag
    std::vector<std::uint32_t> queue;
};

MenConfig flip_men(const MenConfig& men) { return {rotate_board(men.black_men), rotate_board(men.white_men)}; }

class PairSolver {
public:
    PairSolver(const Material& m, const ValueTables& finished) : finished_(finished), symmetric_(m.is_symmetric()) {
        sides_.push_back(make_side(m));
        if (!symmetric_) sides_.push_back(make_side(m.mirror()));
        // Men configurations and subgame positions are held in 32 bits.
        std::uint64_t kings = 0;
        for (const Side& s : sides_) {
            if (s.index.men_configs() >> 32) throw std::length_error(m.name() + ": too many men configurations");
            kings += s.index.king_placements();
        }
        if (kings >> 32) throw std::length_error(m.name() + ": too many king placements");
    }

    std::vector<SolvedMaterial> solve(const ProgressCallback& progress) {
        const auto levels = configs_by_level();
        std::uint64_t total = 0, done = 0;
        for (const Side& s : sides_) total += s.index.size();
        for (auto level = levels.rbegin(); level != levels.rend(); ++level) {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, level->size(), 1),
                              [&](const tbb::blocked_range<std::size_t>& r) {
                                  for (std::size_t i = r.begin(); i != r.end(); ++i) solve_subgame(make_subgame((*level)[i]));
                              });
            for (std::uint32_t c : *level) done += subgame_positions(c);
            if (progress) progress(static_cast<double>(done) / static_cast<double>(total));
        }
        std::vector<SolvedMaterial> out;
        for (Side& s : sides_) out.push_back({s.material, std::move(s.values)});
        return out;
    }

private:
    static Side make_side(const Material& m) {
        PositionIndex index(m);
        const std::uint64_t n = index.size();
        return Side{m, std::move(index), std::vector<std::uint8_t>(n, kUnknown)};
    }

    int partner_side(int s) const { return symmetric_ ? 0 : 1 - s; }

    std::uint64_t flipped_config(std::uint64_t c) const {
        return sides_[partner_side(0)].index.men_index(flip_men(sides_[0].index.men_config(c)));
    }

    // Men configurations of side 0 grouped by advancement; for a symmetric material only the
    // first of each pair {c, flip(c)}.
    std::vector<std::vector<std::uint32_t>> configs_by_level() const {
        const PositionIndex& idx = sides_[0].index;
        std::vector<std::vector<std::uint32_t>> levels;
        for (std::uint64_t c = 0; c < idx.men_configs(); ++c) {
            if (symmetric_ && flipped_config(c) < c) continue;
            const auto level = static_cast<std::size_t>(men_advancement(idx.men_config(c)));
            if (levels.size() <= level) levels.resize(level + 1);
            levels[level].push_back(static_cast<std::uint32_t>(c));
        }
        return levels;
    }

    std::uint64_t subgame_positions(std::uint64_t c) const {
        const std::uint64_t k0 = sides_[0].index.king_placements();
        if (symmetric_) return flipped_config(c) == c ? k0 : 2 * k0;
        return k0 + sides_[1].index.king_placements();
    }

    Subgame make_subgame(std::uint64_t c) const {
        Subgame g;
        const PositionIndex& idx0 = sides_[0].index;
        g.blocks[0] = Block{0, idx0.men_config(c), c * idx0.king_placements(), 0};
        g.size = idx0.king_placements();
        const std::uint64_t fc = flipped_config(c);
        if (!symmetric_ || fc != c) {
            const int s1 = partner_side(0);
            const PositionIndex& idx1 = sides_[s1].index;
            g.blocks[1] = Block{s1, idx1.men_config(fc), fc * idx1.king_placements(), g.size};
            g.block_count = 2;
            g.size += idx1.king_placements();
        }
        return g;
    }

    Position position_at(const Block& b, std::uint64_t k) const {
        const KingPlacement kings = sides_[b.side].index.king_placement(b.men, k);
        return Position{b.men.white_men | kings.white_kings, b.men.black_men | kings.black_kings,
                        kings.white_kings | kings.black_kings, Color::White};
    }

    // Value for white of a white-to-move position reached by a man move (a more advanced, solved
    // configuration of the partner side, or a promotion into a finished material).
    Value value_after_man_move(const Position& before, const Position& after, int side) const {
        if (count_bits(after.kings) != count_bits(before.kings)) return finished_.value_after(after);
        const Side& target = sides_[partner_side(side)];
        return negate(static_cast<Value>(target.values[target.index.index(flip_colors(after))] & kValueMask));
    }

    // Decides what one ply can decide; otherwise counts the king moves still to be resolved.
    void init_position(const Block& b, std::uint64_t k, const KingPlacement& kings, Scratch& s) const {
        const std::uint64_t local = b.local_offset + k;
        const Position pos{b.men.white_men | kings.white_kings, b.men.black_men | kings.black_kings,
                           kings.white_kings | kings.black_kings, Color::White};
        if (has_capture(pos)) {
            s.state[local] = static_cast<std::uint8_t>(finished_.resolve_captures(pos)) | kCaptureFlag;
            return;
        }
        int king_moves = 0;
        bool has_draw = false;
        for (const Move& m : generate_moves(pos)) {
            if (pos.kings >> m.from & 1) {
                ++king_moves;
                continue;
            }
            const Value v = value_after_man_move(pos, apply_move(pos, m), b.side);
            if (v == Value::Win) {
                s.state[local] = static_cast<std::uint8_t>(Value::Win);
                return;
            }
            has_draw |= v == Value::Draw;
        }
        if (king_moves == 0) {
            s.state[local] = static_cast<std::uint8_t>(has_draw ? Value::Draw : Value::Loss);
            return;
        }
        if (king_moves > kCountMask) throw std::length_error("too many king moves for the solver's counters");
        s.counter[local] = static_cast<std::uint8_t>(king_moves | (has_draw ? kHasDrawFlag : 0));
    }

    // Every position of the partner block from which a king move leads to `pos`: the side that just
    // moved (black in pos) slides a king back, and the result is seen from its side.
    template <typename Visit>
    void for_each_predecessor(const Subgame& g, int block, const Position& pos, Visit&& visit) const {
        const Block& pb = g.blocks[g.partner(block)];
        const PositionIndex& pidx = sides_[pb.side].index;
        const Bitboard empty = pos.empty();
        for (Bitboard kings = pos.black & pos.kings; kings; kings &= kings - 1) {
            const Bitboard king = kings & -kings;
            for (int step : kDirections) {
                for (Bitboard to = shift(king, step) & empty; to; to = shift(to, step) & empty) {
                    const Bitboard black_kings = (pos.black & pos.kings) ^ king ^ to;
                    // Seen from black: rotate and swap colours.
                    const KingPlacement flipped{rotate_board(black_kings), rotate_board(pos.white & pos.kings)};
                    visit(pb.local_offset + pidx.king_index(pb.men, flipped));
                }
            }
        }
    }

    int block_of(const Subgame& g, std::uint64_t local) const {
        return (g.block_count == 2 && local >= g.blocks[1].local_offset) ? 1 : 0;
    }

    // Settles the predecessors of a settled position; returns through `settled` those that became
    // losses or wins (draws need not be propagated). Safe to run for several positions at once:
    // states change only from unknown, by compare-and-swap, and counters by atomic decrement.
    template <typename Push>
    void settle_predecessors(const Subgame& g, std::uint32_t local, Scratch& s, Push&& settled) const {
        const Value v = static_cast<Value>(std::atomic_ref(s.state[local]).load(std::memory_order_relaxed) & kValueMask);
        const int block = block_of(g, local);
        const Block& b = g.blocks[block];
        const Position pos = position_at(b, local - b.local_offset);
        for_each_predecessor(g, block, pos, [&](std::uint64_t pred) {
            std::atomic_ref state(s.state[pred]);
            if (state.load(std::memory_order_relaxed) != kUnknown) return;
            std::uint8_t expected = kUnknown;
            if (v == Value::Loss) {
                if (state.compare_exchange_strong(expected, static_cast<std::uint8_t>(Value::Win)))
                    settled(static_cast<std::uint32_t>(pred));
                return;
            }
            const std::uint8_t left = std::atomic_ref(s.counter[pred]).fetch_sub(1) - 1;
            if (left & kCountMask) return;
            const bool draw = left & kHasDrawFlag;
            if (state.compare_exchange_strong(expected, static_cast<std::uint8_t>(draw ? Value::Draw : Value::Loss)) && !draw)
                settled(static_cast<std::uint32_t>(pred));
        });
    }

    void propagate(const Subgame& g, Scratch& s) const {
        if (g.size < kParallelInitThreshold) {
            for (std::size_t head = 0; head < s.queue.size(); ++head)
                settle_predecessors(g, s.queue[head], s, [&](std::uint32_t p) { s.queue.push_back(p); });
            return;
        }
        // A large subgame (kings only, or nearly): settle one frontier at a time, in parallel.
        std::vector<std::uint32_t> frontier = std::move(s.queue);
        while (!frontier.empty()) {
            tbb::enumerable_thread_specific<std::vector<std::uint32_t>> next;
            tbb::this_task_arena::isolate([&] {
                tbb::parallel_for(tbb::blocked_range<std::size_t>(0, frontier.size(), 256), [&](const auto& r) {
                    auto& out = next.local();
                    for (std::size_t i = r.begin(); i != r.end(); ++i)
                        settle_predecessors(g, frontier[i], s, [&](std::uint32_t p) { out.push_back(p); });
                });
            });
            frontier.clear();
            for (auto& part : next) frontier.insert(frontier.end(), part.begin(), part.end());
        }
    }

    void init_range(const Block& block, std::uint64_t begin, std::uint64_t end, Scratch& s) const {
        KingPlacementWalker kings(sides_[block.side].index, block.men, begin);
        for (std::uint64_t k = begin; k != end; ++k, kings.next()) init_position(block, k, kings.current(), s);
    }

    void init_block(const Block& block, Scratch& s) const {
        const std::uint64_t n = sides_[block.side].index.king_placements();
        if (n < kParallelInitThreshold) {
            init_range(block, 0, n, s);
            return;
        }
        // Isolated so that a waiting thread does not pick up another subgame meanwhile.
        tbb::this_task_arena::isolate([&] {
            tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, n, 1024),
                              [&](const auto& r) { init_range(block, r.begin(), r.end(), s); });
        });
    }

    void solve_subgame(const Subgame& g) {
        Scratch s;
        s.state.assign(g.size, kUnknown);
        s.counter.assign(g.size, 0);
        for (int b = 0; b < g.block_count; ++b) init_block(g.blocks[b], s);
        for (std::uint64_t i = 0; i < g.size; ++i) {
            const std::uint8_t v = s.state[i] & kValueMask;
            if (v == static_cast<std::uint8_t>(Value::Win) || v == static_cast<std::uint8_t>(Value::Loss))
                s.queue.push_back(static_cast<std::uint32_t>(i));
        }
        propagate(g, s);
        for (int b = 0; b < g.block_count; ++b) {
            const Block& block = g.blocks[b];
            const std::uint64_t n = sides_[block.side].index.king_placements();
            std::uint8_t* out = sides_[block.side].values.data() + block.base;
            for (std::uint64_t k = 0; k < n; ++k) {
                const std::uint8_t st = s.state[block.local_offset + k];
                out[k] = (st & kValueMask) == kUnknown ? static_cast<std::uint8_t>(Value::Draw) | (st & kCaptureFlag) : st;
            }
        }
    }

    const ValueTables& finished_;
    bool symmetric_;
    std::vector<Side> sides_;
};

}  // namespace

std::vector<SolvedMaterial> solve_material_pair(const Material& material, const ValueTables& finished,
                                                const ProgressCallback& progress) {
    if (material.pieces() > 16) throw std::invalid_argument("dtb gen supports at most 16 pieces");
    return PairSolver(material, finished).solve(progress);
}

}  // namespace dtb
