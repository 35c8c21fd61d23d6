#include "gen/class_solver.hpp"

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "gen/nibble_states.hpp"
#include "index/king_classes.hpp"
#include "rules/movegen.hpp"

namespace dtb {

struct KingClassValues::Solved {
    struct Side {
        PositionIndex index;
        KingClasses classes;
        std::uint64_t offset;  // of its classes in `states`
    };
    std::vector<Side> sides;
    NibbleStates states;

    int partner(int side) const { return sides.size() == 1 ? 0 : 1 - side; }
    std::uint64_t class_of(int side, const KingPlacement& kings) const {
        return sides[side].offset + sides[side].classes.class_of(kings);
    }
    int side_of(std::uint64_t c) const { return sides.size() == 2 && c >= sides[1].offset ? 1 : 0; }
};

namespace {

using Solved = KingClassValues::Solved;

// The position after `mover` (a white king) slides to `to`, seen from the side to move then: the
// other colour, turned, as PositionIndex keeps black-to-move positions (flip_colors).
KingPlacement after_white_king_move(const KingPlacement& kings, Bitboard mover, int to) {
    return {rotate_board(kings.black_kings), rotate_board(kings.white_kings ^ mover ^ (Bitboard{1} << to))};
}

class ClassSolver {
public:
    ClassSolver(const Material& m, const ValueTables& finished, const ProgressCallback& progress)
        : finished_(finished), progress_(progress, finished_subgames_, 1.0) {
        if (m.men() != 0) throw std::invalid_argument("the class solver takes kings-only materials, not " + m.name());
        std::uint64_t offset = 0;
        std::vector<Solved::Side> sides;
        for (const Material& side : m.is_symmetric() ? std::vector<Material>{m} : std::vector<Material>{m, m.mirror()}) {
            sides.push_back({PositionIndex(side), KingClasses(side), offset});
            offset += sides.back().classes.size();
        }
        solved_ = std::make_unique<Solved>(Solved{std::move(sides), NibbleStates(offset)});
        total_ = offset;
    }

    std::unique_ptr<Solved> solve() {
        first_pass();
        propagate();
        return std::move(solved_);
    }

private:
    KingPlacement placement(std::uint64_t c) const {
        const int side = solved_->side_of(c);
        return solved_->sides[side].classes.placement(c - solved_->sides[side].offset);
    }

    // Decides captures (by the finished tables) and positions without a move (lost); the rest
    // is unknown. A win or loss is pending: its predecessors are still to settle.
    std::uint8_t first_nibble(std::uint64_t c) const {
        const Position pos = compose_position({}, placement(c));
        std::uint8_t state = kUnknownState;
        if (const Bitboard capturers = capturing_pieces(pos))
            state = static_cast<std::uint8_t>(static_cast<std::uint8_t>(finished_.resolve_captures(pos, capturers)) | kCaptureFlag);
        else if (count_quiet_king_moves(pos) == 0)
            state = static_cast<std::uint8_t>(Value::Loss);
        const auto v = static_cast<Value>(state & kValueMask);
        return static_cast<std::uint8_t>(state | (v == Value::Win || v == Value::Loss ? kNibblePending : 0));
    }

    void first_pass() {
        std::atomic<std::uint64_t> visited{0};
        tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, total_, 1 << 14), [&](const auto& r) {
            for (std::uint64_t c = r.begin(); c != r.end(); ++c) solved_->states.initialise(c, first_nibble(c));
            const std::uint64_t n = visited.fetch_add(r.size(), std::memory_order_relaxed) + r.size();
            progress_.note([&] { return note("first pass", n); });
        });
    }

    std::string note(const char* what, std::uint64_t n) const {
        char buf[128];
        std::snprintf(buf, sizeof buf, "%llu classes: %s %.0f%%", static_cast<unsigned long long>(total_), what,
                      100.0 * static_cast<double>(n) / static_cast<double>(total_));
        return buf;
    }

    // Rounds claim the pending classes word by word and settle their predecessors, which become
    // pending in turn; they end when one settles nothing.
    void propagate() {
        std::atomic<std::uint64_t> settled{0};
        for (std::uint64_t round = 1;; ++round) {
            const std::uint64_t before = settled.load();
            tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, solved_->states.words(), 64), [&](const auto& r) {
                std::vector<Predecessor> predecessors;
                std::uint64_t pushed = 0;
                for (std::uint64_t w = r.begin(); w != r.end(); ++w)
                    for (std::uint64_t bits = solved_->states.claim_pending(w); bits; bits &= bits - 1)
                        pushed += settle_predecessors(w * 64 + static_cast<std::uint64_t>(std::countr_zero(bits)), predecessors);
                settled.fetch_add(pushed, std::memory_order_relaxed);
            });
            progress_.note([&] { return round_note(total_, "round", round, settled.load(), "classes settled so far"); });
            if (settled.load() == before) return;
        }
    }

    // A predecessor about to be settled: its class (whose state was prefetched) and a position of it.
    struct Predecessor {
        std::uint64_t c;
        KingPlacement kings;
    };

    // The predecessors of the win or loss c: a predecessor of a loss is won; one of a win is lost
    // when every king move it has leads to a win. Gathered first, their states prefetched, since
    // settling waits on those scattered reads. Returns how many settled.
    std::uint64_t settle_predecessors(std::uint64_t c, std::vector<Predecessor>& predecessors) const {
        NibbleStates& states = solved_->states;
        const int pred_side = solved_->partner(solved_->side_of(c));
        const KingPlacement kings = placement(c);
        const Bitboard empty = kBoard & ~(kings.white_kings | kings.black_kings);
        // Black just moved: a black king slides back, and the position before is seen from black.
        predecessors.clear();
        for (Bitboard movers = kings.black_kings; movers; movers &= movers - 1) {
            const Bitboard king = movers & -movers;
            for (Bitboard from = king_destinations(lowest_bit(king), empty); from; from &= from - 1) {
                const KingPlacement before{rotate_board(kings.black_kings ^ king ^ (from & -from)), rotate_board(kings.white_kings)};
                predecessors.push_back({solved_->class_of(pred_side, before), before});
                states.prefetch(predecessors.back().c);
            }
        }
        const auto value = static_cast<Value>(states.state(c));
        std::uint64_t count = 0;
        for (const Predecessor& p : predecessors) {
            if (states.state(p.c) != kUnknownState) continue;
            count += value == Value::Loss ? states.settle(p.c, Value::Win, kNibblePending)
                                          : every_king_move_loses(pred_side, p.kings) && states.settle(p.c, Value::Loss, kNibblePending);
        }
        return count;
    }

    // Whether every king move of `kings` (white to move on `side`, no capture) leads to a class
    // the opponent has won.
    bool every_king_move_loses(int side, const KingPlacement& kings) const {
        const int next_side = solved_->partner(side);
        const Bitboard empty = kBoard & ~(kings.white_kings | kings.black_kings);
        for (Bitboard movers = kings.white_kings; movers; movers &= movers - 1) {
            const Bitboard king = movers & -movers;
            for (Bitboard to = king_destinations(lowest_bit(king), empty); to; to &= to - 1) {
                const std::uint64_t next = solved_->class_of(next_side, after_white_king_move(kings, king, lowest_bit(to)));
                if (solved_->states.state(next) != static_cast<std::uint8_t>(Value::Win)) return false;
            }
        }
        return true;
    }

    const ValueTables& finished_;
    // The pair is one subgame, so the fraction of its positions in finished subgames (what the
    // solvers' progress reports) stays 0 until it ends, as in the whole solver; the notes of the
    // first pass and the rounds say how far it has come.
    const std::atomic<std::uint64_t> finished_subgames_{0};
    SubgameProgress progress_;
    std::unique_ptr<Solved> solved_;
    std::uint64_t total_ = 0;
};

}  // namespace

KingClassValues::KingClassValues(std::unique_ptr<Solved> solved) : solved_(std::move(solved)) {}
KingClassValues::~KingClassValues() = default;
KingClassValues::KingClassValues(KingClassValues&&) noexcept = default;
KingClassValues& KingClassValues::operator=(KingClassValues&&) noexcept = default;

int KingClassValues::side_count() const { return static_cast<int>(solved_->sides.size()); }
const Material& KingClassValues::material(int side) const { return solved_->sides[side].index.material(); }
std::uint64_t KingClassValues::positions(int side) const { return solved_->sides[side].index.size(); }

void KingClassValues::value_bytes(int side, std::uint64_t first, std::span<std::uint8_t> out) const {
    const Solved::Side& s = solved_->sides[side];
    constexpr std::size_t kChunk = std::size_t{1} << 14;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, out.size(), kChunk), [&](const auto& r) {
        KingPlacementWalker kings(s.index, MenConfig{}, first + r.begin());
        for (std::size_t i = r.begin(); i != r.end(); ++i, kings.next()) {
            const std::uint8_t nibble = solved_->states.get(s.offset + s.classes.class_of(kings.current()));
            const std::uint8_t state = nibble & kValueMask;
            out[i] = static_cast<std::uint8_t>((state == kUnknownState ? static_cast<std::uint8_t>(Value::Draw) : state) |
                                               (nibble & kCaptureFlag));
        }
    });
}

std::uint64_t KingClassValues::solver_bytes(const Material& m) {
    const std::uint64_t classes = KingClasses::count(m) * (m.is_symmetric() ? 1 : 2);
    return (classes + 1) / 2;
}

KingClassValues solve_kings_only_in_classes(const Material& m, const ValueTables& finished, const ProgressCallback& progress) {
    return KingClassValues(ClassSolver(m, finished, progress).solve());
}

}  // namespace dtb
