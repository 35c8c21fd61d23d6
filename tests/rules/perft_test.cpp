// Perft against published counts, and internal consistency of count_moves / generate_moves.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "rules/fen.hpp"
#include "rules/movegen.hpp"
#include "rules/perft.hpp"
#include "tests/rules/test_support.hpp"

namespace dtb {
namespace {

constexpr const char* kStart = "W:W31-50:B1-20";
constexpr const char* kWoldouby = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38";

// Published perft counts of the international draughts start position.
TEST(Perft, StartPositionDepths1To7) {
    const std::vector<std::uint64_t> expected = {9, 81, 658, 4265, 27117, 167140, 1049442};
    const Position start = parse_fen(kStart);
    for (int depth = 1; depth <= static_cast<int>(expected.size()); ++depth)
        EXPECT_EQ(perft(start, depth), expected[depth - 1]) << "depth " << depth;
}

// The Woldouby position is the classic capture-rule stress test (published counts).
TEST(Perft, WoldoubyDepths1To6) {
    const std::vector<std::uint64_t> expected = {6, 12, 30, 73, 215, 590};
    const Position pos = parse_fen(kWoldouby);
    for (int depth = 1; depth <= static_cast<int>(expected.size()); ++depth)
        EXPECT_EQ(perft(pos, depth), expected[depth - 1]) << "depth " << depth;
}

TEST(Perft, DepthZeroIsOneNode) {
    EXPECT_EQ(perft(parse_fen(kStart), 0), 1u);
    EXPECT_EQ(perft(parse_fen("W:W:B1-20"), 0), 1u);
}

TEST(Perft, NoMovesGivesZeroLeaves) {
    EXPECT_EQ(perft(parse_fen("W:W46:B37,41"), 1), 0u);  // white man blocked
    EXPECT_EQ(perft(parse_fen("W:W:B1-20"), 3), 0u);      // white has no pieces
}

// A capture that can be played along two paths taking the same pieces is one move.
TEST(Perft, TwoPathsSamePiecesCountOnce) {
    const Position pos = parse_fen("W:WK48:B3,12,19,42,43");  // loop 48x26x8x30x48 in either direction
    EXPECT_EQ(perft(pos, 1), 1u);
    EXPECT_EQ(generate_moves(pos).size(), 1u);
}

// Divide: the sum over root moves equals the total.
TEST(Perft, DivideSumsToTotal) {
    for (const char* fen : {kStart, kWoldouby}) {
        const Position pos = parse_fen(fen);
        std::uint64_t sum = 0;
        for (const Move& m : generate_moves(pos)) sum += perft(apply_move(pos, m), 4);
        EXPECT_EQ(sum, perft(pos, 5)) << fen;
    }
}

// The reference generator of test_support.hpp reproduces the published counts too, which
// validates it as an oracle for the cross-checks in movegen_test.cpp.
TEST(Perft, ReferenceGeneratorMatchesPublishedCounts) {
    EXPECT_EQ(test::ref::perft(test::ref::from_position(parse_fen(kStart)), 5), 27117u);
    EXPECT_EQ(test::ref::perft(test::ref::from_position(parse_fen(kWoldouby)), 6), 590u);
}

void expect_counts_agree(const Position& root, int depth) {
    std::size_t nodes = 0;
    test::walk_tree(root, depth, [&](const Position& pos, int) {
        ++nodes;
        const MoveList moves = generate_moves(pos);
        ASSERT_EQ(count_moves(pos), moves.size()) << to_fen(pos);
        bool any_capture = false;
        for (const Move& m : moves) any_capture |= m.is_capture();
        ASSERT_EQ(has_capture(pos), any_capture) << to_fen(pos);
    });
    EXPECT_GT(nodes, 1u);
}

TEST(Perft, CountMovesEqualsGenerateMovesOverDepth4Tree) {
    expect_counts_agree(parse_fen(kStart), 4);
    expect_counts_agree(parse_fen(kWoldouby), 4);
}

TEST(Perft, CountMovesEqualsGenerateMovesOnRandomKingPositions) {
    std::mt19937_64 rng(20240601);
    for (int i = 0; i < 300; ++i) expect_counts_agree(test::random_position(rng, {8, 8, 0.5}), 2);
}

// perft is invariant under flip_colors (rotate 180 degrees, swap colours).
TEST(Perft, InvariantUnderColourFlip) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 200; ++i) {
        const Position pos = test::random_position(rng, {10, 10, 0.3});
        const Position flipped = flip_colors(pos);
        EXPECT_EQ(count_moves(pos), count_moves(flipped)) << to_fen(pos);
        EXPECT_EQ(perft(pos, 3), perft(flipped, 3)) << to_fen(pos);
    }
    const Position start = parse_fen(kStart);
    EXPECT_EQ(perft(flip_colors(start), 5), 27117u);
}

}  // namespace
}  // namespace dtb
