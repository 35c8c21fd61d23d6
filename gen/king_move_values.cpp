#include "gen/king_move_values.hpp"

#include <atomic>

#include <tbb/parallel_for.h>

#include "index/binomial.hpp"
#include "rules/movegen.hpp"

namespace dtb {

namespace {

// Squares free for one white king to stand on (kings and men place nowhere else).
int free_square_count(const Material& m) { return kNumSquares - m.men(); }

// Families a task takes: one men configuration, one placement of the other white kings.
std::uint64_t task_count(const Material& m) {
    return PositionIndex(m).men_configs() * binomial(free_square_count(m), m.white_kings - 1);
}

}  // namespace

bool KingMoveValues::applies(const Material& m) { return m.white_kings >= 1 && task_count(m) >= 16; }

KingMoveValues::KingMoveValues(const Material& m, const PackedValues& mirror_values,
                               const std::function<bool(const MenConfig&)>& wanted,
                               const std::function<void(double)>& progress)
    : material_(m), index_(m), mirror_index_(m.mirror()), codes_((index_.size() + 3) / 4) {
    const std::uint64_t placements = binomial(free_square_count(m), m.white_kings - 1);
    const std::uint64_t tasks = task_count(m);
    std::atomic<std::uint64_t> done{0};
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, tasks), [&](const auto& r) {
        for (std::uint64_t task = r.begin(); task != r.end(); ++task) {
            const std::uint64_t men_index = task / placements;
            if (wanted(index_.men_config(men_index))) add_families(men_index, task % placements, mirror_values);
        }
        const std::uint64_t now = done += r.size();
        if (progress && now < tasks) progress(static_cast<double>(now) / static_cast<double>(tasks));
    });
}

// The families whose men are configuration `men_index` and whose other white kings are the
// `others_rank`-th placement on the free squares: one for each placement of the black kings.
void KingMoveValues::add_families(std::uint64_t men_index, std::uint64_t others_rank, const PackedValues& mirror_values) {
    const MenConfig men = index_.men_config(men_index);
    const Bitboard free = PositionIndex::king_squares(men);
    const int n = count_bits(free);
    const Bitboard other_white = expand_bits(unrank_subset(others_rank, material_.white_kings - 1, n), free);
    const std::uint64_t base = men_index * index_.king_placements();

    // After a king move, the mirror's position: colours swapped and board rotated, black's men
    // and kings white's.
    const MenConfig mirror_men{rotate_board(men.black_men), rotate_board(men.white_men)};
    const Bitboard mirror_free = PositionIndex::king_squares(mirror_men);
    const std::uint64_t mirror_base = mirror_index_.men_index(mirror_men) * mirror_index_.king_placements();

    const Bitboard black_region = free & ~other_white;
    const int black_count = material_.black_kings;
    const std::uint64_t black_end = std::uint64_t{1} << (n - (material_.white_kings - 1));
    for (std::uint64_t compact = (std::uint64_t{1} << black_count) - 1; compact < black_end;
         compact = black_count ? next_subset(compact) : black_end) {
        const Bitboard black_kings = expand_bits(compact, black_region);
        const Bitboard king_squares = black_region & ~black_kings;  // where the family's king stands

        // Where the king's arrival wins or draws for white, found on the mirror's board (where the
        // king is black's) and turned back once.
        Bitboard mirror_wins = 0, mirror_draws = 0;
        const Bitboard mirror_white_kings = rotate_board(black_kings);
        const std::uint64_t mirror_white_part =
            mirror_index_.king_index_in(mirror_free, {mirror_white_kings, 0});
        const Bitboard mirror_black_region = mirror_free & ~mirror_white_kings;
        const Bitboard mirror_other_black = rotate_board(other_white);
        for (Bitboard rest = rotate_board(king_squares); rest; rest &= rest - 1) {
            const Bitboard to = rest & -rest;
            const std::uint64_t black_rank = rank_subset(compress_bits(mirror_other_black | to, mirror_black_region));
            const Value after = negate(mirror_values.get(mirror_base + mirror_white_part + black_rank));
            if (after == Value::Win) mirror_wins |= to;
            else if (after == Value::Draw) mirror_draws |= to;
        }
        if ((mirror_wins | mirror_draws) == 0) continue;  // every member's king moves lose (or it has none)
        const Bitboard wins = rotate_board(mirror_wins), draws = rotate_board(mirror_draws);

        const OneWhiteKingMoving member_index(index_, free, other_white, black_kings);
        for (Bitboard rest = king_squares; rest; rest &= rest - 1) {
            const Bitboard from = rest & -rest;
            const Bitboard reached = king_destinations(lowest_bit(from), king_squares & ~from);
            const unsigned code = (reached & wins) ? kWinCode : (reached & draws) ? 1 : 0;
            if (code == 0) continue;
            const std::uint64_t i = base + member_index.king_index(lowest_bit(from));
            std::atomic_ref(codes_[i >> 2]).fetch_or(static_cast<std::uint8_t>(code << ((i & 3) * 2)),
                                                     std::memory_order_relaxed);
        }
    }
}

}  // namespace dtb
