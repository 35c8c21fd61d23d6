// Symmetry classes of kings-only positions against the board's geometry and brute-force orbits.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "index/king_classes.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace {

Bitboard image(int g, int square) { return apply_symmetry(g, square_bit(square)); }

// Each symmetry is a permutation of the 50 squares, its own inverse, and takes a square's king
// moves on an empty board onto those of the square it goes to: diagonals onto diagonals.
TEST(BoardSymmetries, KeepTheSquaresAndTheirDiagonals) {
    for (int g = 0; g < kBoardSymmetries; ++g) {
        EXPECT_EQ(apply_symmetry(g, kBoard), kBoard) << g;
        for (int s = 1; s <= kNumSquares; ++s) {
            ASSERT_EQ(count_bits(image(g, s)), 1) << g << " " << s;
            EXPECT_EQ(apply_symmetry(g, image(g, s)), square_bit(s)) << g << " " << s;
            const Bitboard moves = king_destinations(bit_of_square(s), kBoard);
            EXPECT_EQ(apply_symmetry(g, moves), king_destinations(lowest_bit(image(g, s)), kBoard)) << g << " " << s;
        }
    }
}

// The 180-degree turn is the colour flip's turn (square s to 51 - s); the a1-j10 reflection
// keeps exactly the long diagonal, the a10-j1 one no playable square; the four are distinct.
TEST(BoardSymmetries, AreTheTurnAndTheTwoDiagonalReflections) {
    const std::set<int> long_diagonal = {5, 10, 14, 19, 23, 28, 32, 37, 41, 46};
    for (int s = 1; s <= kNumSquares; ++s) {
        EXPECT_EQ(image(0, s), square_bit(s));
        EXPECT_EQ(image(1, s), square_bit(51 - s));
        EXPECT_EQ(image(1, s), rotate_board(square_bit(s)));
        EXPECT_NE(image(2, s), square_bit(s)) << s;
        EXPECT_EQ(image(3, s) == square_bit(s), long_diagonal.count(s) == 1) << s;
    }
    // a1 (46) and j10 (5) stay under the a1-j10 reflection and change places under the other.
    EXPECT_EQ(image(2, 46), square_bit(5));
    EXPECT_EQ(image(2, 1), square_bit(6));  // b10 to a9
}

std::uint64_t rank_on_board(Bitboard b) { return rank_subset(compress_bits(b, kBoard)); }

// Burnside's count against the orbits enumerated: a set is counted where its rank is the
// smallest of its four images.
TEST(KingClasses, OrbitCountsAgreeWithEnumeration) {
    for (int k = 1; k <= 4; ++k) {
        std::uint64_t orbits = 0;
        std::uint64_t compact = (std::uint64_t{1} << k) - 1;
        for (std::uint64_t rank = 0; rank < binomial(kNumSquares, k); ++rank, compact = next_subset(compact)) {
            const Bitboard set = expand_bits(compact, kBoard);
            std::uint64_t smallest = rank;
            for (int g = 0; g < kBoardSymmetries; ++g) smallest = std::min(smallest, rank_on_board(apply_symmetry(g, set)));
            orbits += smallest == rank;
        }
        EXPECT_EQ(square_set_orbits(k), orbits) << k;
    }
    // Pairs of squares: (1225 + 25 + 25 + C(10,2) + 20) / 4.
    EXPECT_EQ(square_set_orbits(2), (1225u + 25 + 25 + 45 + 20) / 4);
}

KingPlacement transformed(int g, const KingPlacement& k) {
    return {apply_symmetry(g, k.white_kings), apply_symmetry(g, k.black_kings)};
}

// Every position of a material: its class is that of its images, the class's position is one of
// its images, and there are as many classes reached as orbits of positions (counted by the
// smallest position index of each orbit).
void expect_classes_are_orbits(const Material& m) {
    const PositionIndex index(m);
    const KingClasses classes(m);
    EXPECT_EQ(classes.size(), KingClasses::count(m)) << m.name();
    std::set<std::uint64_t> reached;
    std::set<std::uint64_t> orbit_minima;
    KingPlacementWalker walker(index, MenConfig{}, 0);
    for (std::uint64_t i = 0; i < index.size(); ++i, walker.next()) {
        const KingPlacement& kings = walker.current();
        const std::uint64_t c = classes.class_of(kings);
        ASSERT_LT(c, classes.size()) << m.name();
        std::uint64_t smallest = i;
        for (int g = 0; g < kBoardSymmetries; ++g) {
            const KingPlacement t = transformed(g, kings);
            ASSERT_EQ(classes.class_of(t), c) << m.name() << " position " << i << " symmetry " << g;
            smallest = std::min(smallest, index.king_index({}, t));
        }
        const KingPlacement back = classes.placement(c);
        ASSERT_EQ(classes.class_of(back), c) << m.name() << " position " << i;
        bool in_orbit = false;
        for (int g = 0; g < kBoardSymmetries; ++g) {
            const KingPlacement t = transformed(g, kings);
            in_orbit |= t.white_kings == back.white_kings && t.black_kings == back.black_kings;
        }
        ASSERT_TRUE(in_orbit) << m.name() << " position " << i;
        reached.insert(c);
        orbit_minima.insert(smallest);
    }
    EXPECT_EQ(reached.size(), orbit_minima.size()) << m.name();
    // About a quarter of the positions: never fewer; key sets a symmetry keeps add some (at most
    // a fifth, for a lone king against a lone king).
    EXPECT_GE(classes.size() * 4, index.size()) << m.name();
    EXPECT_LE(classes.size() * 4, index.size() * 6 / 5) << m.name();
}

TEST(KingClasses, AreTheOrbitsOfPositions) {
    for (const char* name : {"KvK", "KKvK", "KvKK", "KKvKK", "KKKvK"}) expect_classes_are_orbits(*parse_material(name));
}

TEST(KingClasses, RefuseMaterialsWithMen) {
    EXPECT_THROW(KingClasses(*parse_material("KMvK")), std::invalid_argument);
}

}  // namespace
}  // namespace dtb
