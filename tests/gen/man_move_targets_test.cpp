// BlockManMoves (the man move targets the solvers find once a block) against the moves
// themselves: for every quiet position of the 2-3 piece materials with white men, and every third
// of the 4-piece ones, the targets a position uses are its quiet man moves, in the order
// generate_quiet_man_moves gives them, and each names the material and index of the position the
// move leads to, as PositionIndex ranks that position from scratch.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "gen/man_move_targets.hpp"
#include "index/material.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace {

struct NoTable {};  // the targets' values are not read here

class Indexes {
public:
    const PositionIndex& of(const Material& m) {
        auto& slot = indexes_[m];
        if (!slot) slot = std::make_unique<PositionIndex>(m);
        return *slot;
    }

private:
    std::map<Material, std::unique_ptr<PositionIndex>> indexes_;
};

struct Checked {
    std::uint64_t positions = 0;
    std::uint64_t moves = 0;
    std::uint64_t promotions = 0;
    std::uint64_t blocked_by_kings = 0;  // moves of the men alone that a position's kings block
};

// Checks every `stride`-th quiet position of material m.
void check_material(const Material& m, std::uint64_t stride, Indexes& indexes, Checked& checked) {
    const PositionIndex& index = indexes.of(m);
    BlockManMoves<NoTable> targets;
    for (std::uint64_t i = 0; i < index.size(); i += stride) {
        const Position pos = index.position(i);
        if (has_capture(pos)) continue;
        const Block block{0, men_config_of(pos)};
        targets.use_block(block, [&](const Position& men_only, const Move& move) {
            Position next;
            auto t = ManMoveTarget<NoTable>::of(men_only, move, next);
            t.index = &indexes.of(t.crowned ? ManMoveTarget<NoTable>::promoted(m) : m.mirror());
            t.base = t.index->men_index(men_config_of(next)) * t.index->king_placements();
            return t;
        });
        const KingPlacement kings = king_placement_of(pos);
        const KingPlacement flipped{rotate_board(kings.black_kings), rotate_board(kings.white_kings)};
        const MoveList expected = generate_quiet_man_moves(pos);
        std::size_t n = 0;
        targets.any_of(kings, [&](const ManMoveTarget<NoTable>& t) {
            EXPECT_LT(n, expected.size()) << m.name() << " position " << i;
            if (n >= expected.size()) return true;
            const Move& move = expected[n++];
            EXPECT_TRUE(t.move.from == move.from && t.move.to == move.to) << m.name() << " position " << i;
            const Position next = flip_colors(apply_move(pos, move));
            EXPECT_EQ(material_of(next), t.index->material()) << m.name() << " position " << i;
            EXPECT_EQ(t.index_after(flipped), t.index->index(next)) << m.name() << " position " << i;
            checked.promotions += t.crowned != 0;
            return false;
        });
        ASSERT_EQ(n, expected.size()) << m.name() << " position " << i;
        const Position men_only = compose_position(men_config_of(pos), {});
        checked.blocked_by_kings += generate_quiet_man_moves(men_only).size() - expected.size();
        checked.moves += n;
        ++checked.positions;
    }
}

TEST(ManMoveTargets, AreTheQuietManMovesOfEachPositionUpToFourPieces) {
    Indexes indexes;
    Checked checked;
    int materials = 0;
    for (const Material& m : materials_in_build_order(4)) {
        if (m.white_men == 0) continue;
        ++materials;
        check_material(m, m.pieces() == 4 ? 3 : 1, indexes, checked);
        if (::testing::Test::HasFailure()) return;
    }
    EXPECT_GE(materials, 20);  // MvM, MMvK, KMvKM, ...
    EXPECT_GT(checked.positions, 500000u);
    EXPECT_GT(checked.promotions, 10000u);
    EXPECT_GT(checked.blocked_by_kings, 10000u);  // the kings' filter is exercised
}

}  // namespace
}  // namespace dtb
