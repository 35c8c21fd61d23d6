// KingMoveValues (dtb verify's values of king moves, family by family) against the moves
// themselves: every quiet position of the 2-3 piece materials it applies to, every fourth of the
// 4-piece ones (all of them would take four times as long under the sanitizers).
#include <gtest/gtest.h>

#include "gen/king_move_values.hpp"
#include "rules/movegen.hpp"
#include "tests/gen/in_memory_tables.hpp"

namespace dtb {
namespace {

// The best value for the side to move after one of its quiet king moves, move by move.
Value best_after_king_moves(const ValueTables& tables, const Position& pos) {
    Value best = Value::Loss;
    for (const Move& move : generate_quiet_moves(pos))
        if (pos.kings & (Bitboard{1} << move.from)) best = std::max(best, tables.value_after(apply_move(pos, move)));
    return best;
}

TEST(KingMoveValues, MatchTheKingMovesOfQuietPositionsUpToFourPieces) {
    const ValueTables tables = std::move(solve_in_memory(4, false).wdl);
    int materials = 0;
    std::uint64_t compared = 0, differing_from_all_moves = 0;
    const auto everything = [](const MenConfig&) { return true; };
    for (const Material& m : materials_in_build_order(4)) {
        if (!KingMoveValues::applies(m)) continue;
        ++materials;
        const KingMoveValues kings(m, *tables.table(m.mirror()), everything);
        const PositionIndex index(m);
        const std::uint64_t stride = m.pieces() == 4 ? 4 : 1;
        for (std::uint64_t i = 0; i < index.size(); i += stride) {
            const Position pos = index.position(i);
            if (has_capture(pos)) continue;
            const Value expected = best_after_king_moves(tables, pos);
            ASSERT_EQ(kings.best(i), expected) << m.name() << " position " << i;
            ++compared;
            if (expected != tables.value_of(pos)) ++differing_from_all_moves;  // a man move decides
        }
    }
    // Kings with men, several kings, both colours' kings: KKvK, KMvK, KKvKM, KMvKM, KKKvK, ...
    EXPECT_GE(materials, 20);
    EXPECT_GT(compared, 500000u);
    EXPECT_GT(differing_from_all_moves, 0u);  // the king moves alone are not the position's value
}

TEST(KingMoveValues, LeaveOutTheMenConfigurationsNotWanted) {
    const ValueTables tables = std::move(solve_in_memory(3, false).wdl);
    const Material m{1, 1, 0, 1};  // KMvK
    const Bitboard left_out = square_bit(28);
    const KingMoveValues kings(m, *tables.table(m.mirror()), [&](const MenConfig& men) { return men.white_men != left_out; });
    const PositionIndex index(m);
    int wins_left_out = 0, wins_kept = 0;
    for (std::uint64_t i = 0; i < index.size(); ++i) {
        const Position pos = index.position(i);
        if (has_capture(pos)) continue;
        const bool kept = men_config_of(pos).white_men != left_out;
        if (kept) ASSERT_EQ(kings.best(i), best_after_king_moves(tables, pos));
        else ASSERT_EQ(kings.best(i), Value::Loss);  // not worked out
        if (best_after_king_moves(tables, pos) == Value::Win) ++(kept ? wins_kept : wins_left_out);
    }
    EXPECT_GT(wins_kept, 0);
    EXPECT_GT(wins_left_out, 0);  // so that the left-out configuration did have something to find
}

TEST(KingMoveValues, ApplyWhereTheWorkSplits) {
    EXPECT_FALSE(KingMoveValues::applies(Material{1, 0, 0, 1}));  // MvK: no white king
    EXPECT_FALSE(KingMoveValues::applies(Material{0, 1, 0, 3}));  // KvKKK: one family
    EXPECT_TRUE(KingMoveValues::applies(Material{0, 2, 0, 1}));   // KKvK: one task a first king
    EXPECT_TRUE(KingMoveValues::applies(Material{1, 1, 0, 1}));   // KMvK: one task a man's square
}

}  // namespace
}  // namespace dtb
