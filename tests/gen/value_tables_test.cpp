// ValueTables' resolution of capture positions (the first pass's and the loader's) against the
// captures looked up one by one, through value_after's own indexing.
#include <gtest/gtest.h>

#include "gen/men_index_cache.hpp"
#include "gen/value_tables.hpp"
#include "rules/fen.hpp"
#include "rules/movegen.hpp"
#include "tests/gen/in_memory_tables.hpp"

namespace dtb {
namespace {

Value best_after_one_by_one(const ValueTables& tables, const Position& pos, const MoveList& moves) {
    Value best = Value::Loss;
    for (const Move& move : moves) best = std::max(best, tables.value_after(apply_move(pos, move)));
    return best;
}

// Whether `moves` holds two captures of one king that differ only in where they end: the runs
// that ValueTables ranks by the one king that differs.
bool has_landing_run(const Position& pos, const MoveList& moves) {
    for (std::size_t i = 1; i < moves.size(); ++i)
        if (moves[i].from == moves[i - 1].from && moves[i].captured == moves[i - 1].captured &&
            ((pos.kings >> moves[i].from) & 1))
            return true;
    return false;
}

TEST(ValueTables, ResolveCapturesAsTheCapturesOneByOne) {
    const ValueTables tables = std::move(solve_in_memory(4, false).wdl);
    MenIndexCache men_indices;  // one for every position, as a first pass keeps one: stale slots must not matter
    std::uint64_t compared = 0, with_runs = 0, of_men = 0;
    for (const Material& m : materials_in_build_order(4)) {
        if (m.pieces() < 3) continue;
        const PositionIndex index(m);
        const std::uint64_t stride = m.pieces() == 4 ? 4 : 1;
        for (std::uint64_t i = 0; i < index.size(); i += stride) {
            const Position pos = index.position(i);
            const Bitboard capturers = capturing_pieces(pos);
            if (!capturers) continue;
            const MoveList moves = generate_captures(pos, capturers);
            const Value expected = best_after_one_by_one(tables, pos, moves);
            ASSERT_EQ(tables.resolve_captures(pos, capturers, &men_indices), expected) << to_fen(pos);
            ASSERT_EQ(tables.resolve_captures(pos, capturers), expected) << to_fen(pos);
            // Black to move: the positions after are white to move already, not flipped.
            const Position black = flip_colors(pos);
            ASSERT_EQ(tables.best_after(black, generate_captures(black), &men_indices), expected) << to_fen(black);
            ++compared;
            with_runs += has_landing_run(pos, moves);
            of_men += (moves[0].captured & ~pos.kings) != 0;
        }
    }
    EXPECT_GT(compared, 3000000u);
    EXPECT_GT(with_runs, 1000000u);  // kings' captures ending on several squares
    EXPECT_GT(of_men, 1000000u);     // captures of men, whose men configuration the cache keeps
}

}  // namespace
}  // namespace dtb
