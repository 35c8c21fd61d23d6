// Legal move generation under the FMJD rules: exact move sets of hand-checked positions, the
// majority-capture rule, crowning, apply_move, colour flipping, and a cross-check against the
// independent reference generator of test_support.hpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "rules/fen.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "tests/rules/test_support.hpp"

namespace dtb {
namespace {

using Strings = std::set<std::string>;
using test::move_strings;

// The only legal move of `fen`, which must be written `text`.
Move only_move(const std::string& fen, const std::string& text) {
    const Position pos = parse_fen(fen);
    const MoveList moves = generate_moves(pos);
    EXPECT_EQ(moves.size(), 1u) << fen;
    if (moves.empty()) return Move{};
    EXPECT_EQ(move_to_string(pos, moves[0]), text) << fen;
    return moves[0];
}

int captured_count(const Move& m) { return count_bits(m.captured); }

// ---------------------------------------------------------------------------------------------
// Quiet moves.

TEST(Movegen, StartPositionHasNineMoves) {
    EXPECT_EQ(move_strings("W:W31-50:B1-20"),
              (Strings{"31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"}));
    EXPECT_EQ(move_strings("B:W31-50:B1-20"),
              (Strings{"16-21", "17-21", "17-22", "18-22", "18-23", "19-23", "19-24", "20-24", "20-25"}));
}

TEST(Movegen, LoneKingInTheCentreHas17Moves) {
    EXPECT_EQ(move_strings("W:WK28:B"),
              (Strings{"28-6", "28-11", "28-17", "28-22", "28-5", "28-10", "28-14", "28-19", "28-23", "28-32",
                       "28-37", "28-41", "28-46", "28-33", "28-39", "28-44", "28-50"}));
}

TEST(Movegen, KingDestinationsAreTheKingMovesEndSquares) {
    // The lone king in the centre: its 17 moves above.
    EXPECT_EQ(count_bits(king_destinations(bit_of_square(28), kBoard & ~square_bit(28))), 17);
    // Every king of random positions (the side to move's, without a capture): the squares its
    // quiet moves end on.
    std::mt19937_64 rng(2026);
    int kings = 0;
    for (int i = 0; i < 2000; ++i) {
        const Position pos = test::random_position(rng, {8, 8, 0.5});
        if (has_capture(pos)) continue;
        for (Bitboard k = pos.kings_of(pos.side_to_move); k; k &= k - 1) {
            Bitboard ends = 0;
            for (const Move& m : generate_quiet_moves(pos))
                if (m.from == lowest_bit(k)) ends |= Bitboard{1} << m.to;
            ASSERT_EQ(king_destinations(lowest_bit(k), pos.empty()), ends) << to_fen(pos);
            ++kings;
        }
    }
    EXPECT_GT(kings, 500);
}

TEST(Movegen, MenMoveOnlyForwardWhenNotCapturing) {
    EXPECT_EQ(move_strings("W:W28:B"), (Strings{"28-22", "28-23"}));
    EXPECT_EQ(move_strings("B:W:B23"), (Strings{"23-28", "23-29"}));
    EXPECT_EQ(move_strings("W:W26:B"), (Strings{"26-21"}));  // left edge
    EXPECT_EQ(move_strings("W:W35:B"), (Strings{"35-30"}));  // right edge
}

// reverse_bits against a bit-by-bit reversal, and rotate_board against the square numbering
// (square s faces square 51 - s).
TEST(Movegen, BoardRotationReversesTheSquares) {
    const auto reversed_bit_by_bit = [](Bitboard x) {
        Bitboard r = 0;
        for (int b = 0; b < 64; ++b)
            if ((x >> b) & 1) r |= Bitboard{1} << (63 - b);
        return r;
    };
    std::mt19937_64 random(20261207);
    for (int b = 0; b < 64; ++b) ASSERT_EQ(reverse_bits(Bitboard{1} << b), Bitboard{1} << (63 - b));
    for (int i = 0; i < 100000; ++i) {
        const Bitboard x = random();
        ASSERT_EQ(reverse_bits(x), reversed_bit_by_bit(x)) << x;
    }
    Bitboard all = 0;
    for (int s = 1; s <= kNumSquares; ++s) {
        EXPECT_EQ(rotate_board(square_bit(s)), square_bit(51 - s)) << s;
        all |= square_bit(s);
    }
    EXPECT_EQ(rotate_board(all), all);
    static_assert(rotate_board(square_bit(1)) == square_bit(50));  // still usable in constant expressions
}

TEST(Movegen, NoPiecesOrBlockedMeansNoMoves) {
    for (const char* fen : {"W:W:B1-20", "W:W:B", "B:W31-50:B", "W:W46:B37,41", "B:W10,14:B5", "W:WK46:B37,41"}) {
        const Position pos = parse_fen(fen);
        EXPECT_TRUE(generate_moves(pos).empty()) << fen;
        EXPECT_EQ(count_moves(pos), 0u) << fen;
        EXPECT_FALSE(has_capture(pos)) << fen;
    }
}

// ---------------------------------------------------------------------------------------------
// Captures.

TEST(Movegen, KingCapturesAtADistanceAndLandsAnywhereBehind) {
    EXPECT_EQ(move_strings("W:WK46:B23"), (Strings{"46x19", "46x14", "46x10", "46x5"}));
    for (const Move& m : generate_moves(parse_fen("W:WK46:B23"))) EXPECT_EQ(captured_count(m), 1);
}

TEST(Movegen, ManCapturesBackwardsInAChain) {
    EXPECT_EQ(captured_count(only_move("W:W15:B8,19,20", "15x2")), 3);
}

TEST(Movegen, CaptureIsCompulsory) {
    // The white man on 40 could move quietly, but the man on 15 must capture.
    EXPECT_EQ(move_strings("W:W15,40:B8,19,20"), (Strings{"15x2"}));
}

TEST(Movegen, KingMultiCaptureWithSeveralEndSquares) {
    const Position pos = parse_fen("W:WK47:B9,12,33");
    EXPECT_EQ(move_strings(pos), (Strings{"47x17", "47x21", "47x26"}));
    for (const Move& m : generate_moves(pos)) EXPECT_EQ(captured_count(m), 3);
}

TEST(Movegen, MajorityRuleAcrossPieces) {
    EXPECT_EQ(captured_count(only_move("W:WK41,49:B9,10,12,19,38", "41x43")), 4);
}

TEST(Movegen, ManTakesKingsAndMen) {
    EXPECT_EQ(captured_count(only_move("W:W48:B24,K31,34,K42,43", "48x19")), 3);
}

TEST(Movegen, EqualCapturesOfManAndKingAreBothLegal) {
    // Taking a king is worth no more than taking a man (no "quality" rule in FMJD).
    const Position pos = parse_fen("W:W35:B30,K40");
    EXPECT_EQ(move_strings(pos), (Strings{"35x24", "35x44"}));
    for (const Move& m : generate_moves(pos)) EXPECT_EQ(captured_count(m), 1);
}

TEST(Movegen, ManTakesEightPieces) {
    EXPECT_EQ(captured_count(only_move("W:W47:B13,14,22,24,31,34,K41,44", "47x49")), 8);
}

TEST(Movegen, KingTakesTenPieces) {
    EXPECT_EQ(captured_count(only_move("W:WK1:B7,9,17,19,20,30,31,33,43,44", "1x15")), 10);
}

TEST(Movegen, BlackKingCapture) {
    EXPECT_EQ(captured_count(only_move("B:W27,28,38,39,42:BK25", "25x33")), 4);
}

TEST(Movegen, CapturedPiecesBlockUntilTheEndOfTheMove) {
    // Turkish strike rule: pieces are removed only after the whole capture, and none twice.
    const Move m = only_move("W:WK48:B7,8,31,34,K42,44", "48x50");
    EXPECT_EQ(captured_count(m), 4);
    EXPECT_EQ(test::squares_of(m.captured), (std::vector<int>{7, 8, 34, 44}));
}

TEST(Movegen, KingCountsAsOnePiece) {
    const Position pos = parse_fen("W:W26:B12,K21,31,32");
    EXPECT_EQ(move_strings(pos), (Strings{"26x8", "26x28"}));
    for (const Move& m : generate_moves(pos)) EXPECT_EQ(captured_count(m), 2);
}

TEST(Movegen, ManPassingTheFarRowIsNotCrowned) {
    const Position pos = parse_fen("W:W15:B9,10");
    const Move m = only_move("W:W15:B9,10", "15x13");
    EXPECT_EQ(captured_count(m), 2);
    const Position after = apply_move(pos, m);
    EXPECT_EQ(to_fen(after), "B:W13:B");
    EXPECT_EQ(after.kings, 0u);
}

TEST(Movegen, ManEndingACaptureOnTheFarRowIsCrowned) {
    const Position white = parse_fen("W:W15:B8,19,20");
    EXPECT_EQ(to_fen(apply_move(white, generate_moves(white)[0])), "B:WK2:B");
    const Position black = parse_fen("B:W43:B38");
    EXPECT_EQ(move_strings(black), (Strings{"38x49"}));
    EXPECT_EQ(to_fen(apply_move(black, generate_moves(black)[0])), "W:W:BK49");
}

TEST(Movegen, QuietMoveToTheFarRowCrowns) {
    const Position pos = parse_fen("W:W6:B");
    EXPECT_EQ(to_fen(apply_move(pos, only_move("W:W6:B", "6-1"))), "B:WK1:B");
    const Position black = parse_fen("B:W:B45");
    EXPECT_EQ(to_fen(apply_move(black, only_move("B:W:B45", "45-50"))), "W:W:BK50");
}

TEST(Movegen, CaptureReturningToItsStartSquare) {
    // The king goes round 48-26-8-30-48 (or the other way): one move, four pieces, same square.
    const Position pos = parse_fen("W:WK48:B3,12,19,42,43");
    const Move m = only_move("W:WK48:B3,12,19,42,43", "48x48");
    EXPECT_EQ(test::squares_of(m.captured), (std::vector<int>{12, 19, 42, 43}));
    EXPECT_EQ(move_paths(pos, m).size(), 2u);
    EXPECT_EQ(to_fen(apply_move(pos, m)), "B:WK48:B3");
}

// ---------------------------------------------------------------------------------------------
// apply_move.

TEST(Movegen, ApplyQuietMove) {
    const Position start = parse_fen("W:W31-50:B1-20");
    const Position after = apply_move(start, parse_move(start, "32-28"));
    EXPECT_EQ(after, parse_fen("B:W28,31,33-50:B1-20"));
    EXPECT_EQ(after.side_to_move, Color::Black);
    const Position king = parse_fen("B:W31:BK50");
    EXPECT_EQ(apply_move(king, parse_move(king, "50-6")), parse_fen("W:W31:BK6"));
}

TEST(Movegen, ApplyKeepsPieceCountsConsistentOverATree) {
    test::walk_tree(parse_fen("W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"), 4,
                    [](const Position& pos, int) {
                        const Color us = pos.side_to_move;
                        for (const Move& m : generate_moves(pos)) {
                            const Position next = apply_move(pos, m);
                            ASSERT_EQ(next.side_to_move, opponent(us));
                            ASSERT_EQ(next.white & next.black, 0u);
                            ASSERT_EQ(next.kings & ~next.occupied(), 0u);
                            ASSERT_EQ(count_bits(next.pieces(us)), count_bits(pos.pieces(us)));
                            ASSERT_EQ(count_bits(next.pieces(opponent(us))),
                                      count_bits(pos.pieces(opponent(us))) - captured_count(m));
                            ASSERT_EQ(m.captured & ~pos.pieces(opponent(us)), 0u);
                            ASSERT_TRUE(next.pieces(us) & (Bitboard{1} << m.to));
                        }
                    });
}

// ---------------------------------------------------------------------------------------------
// flip_colors.

TEST(Movegen, FlipColoursMapsSquareSTo51MinusS) {
    for (int s = 1; s <= kNumSquares; ++s) {
        Position pos;
        pos.white = square_bit(s);
        pos.kings = square_bit(s);
        const Position f = flip_colors(pos);
        EXPECT_EQ(f.white, 0u) << s;
        EXPECT_EQ(f.black, square_bit(51 - s)) << s;
        EXPECT_EQ(f.kings, square_bit(51 - s)) << s;
        EXPECT_EQ(rotate_bit(bit_of_square(s)), bit_of_square(51 - s)) << s;
        EXPECT_EQ(f.side_to_move, Color::Black);
    }
    EXPECT_EQ(flip_colors(parse_fen("W:W31-50:B1-20")), parse_fen("B:W31-50:B1-20"));
    EXPECT_EQ(flip_colors(parse_fen("B:W18,24,K10:B12,K22")), parse_fen("W:W39,K29:B27,33,K41"));
    EXPECT_EQ(white_to_move(parse_fen("B:W18,24,K10:B12,K22")), parse_fen("W:W39,K29:B27,33,K41"));
    EXPECT_EQ(white_to_move(parse_fen("W:W18:B12")), parse_fen("W:W18:B12"));
}

TEST(Movegen, FlipColoursIsAnInvolutionAndPreservesMoves) {
    std::mt19937_64 rng(99);
    for (int i = 0; i < 500; ++i) {
        const Position pos = test::random_position(rng, {12, 12, 0.3});
        const Position f = flip_colors(pos);
        ASSERT_EQ(flip_colors(f), pos) << to_fen(pos);
        EXPECT_EQ(count_bits(f.white), count_bits(pos.black));
        EXPECT_EQ(count_bits(f.kings), count_bits(pos.kings));
        // The moves of the flipped position are the moves of `pos` with every square s -> 51-s.
        std::set<test::ref::RefMove> mapped;
        for (const Move& m : generate_moves(pos)) {
            test::ref::RefMove r = test::ref::from_move(m);
            r.from = 51 - r.from;
            r.to = 51 - r.to;
            for (int& s : r.captured) s = 51 - s;
            std::sort(r.captured.begin(), r.captured.end());
            mapped.insert(r);
        }
        EXPECT_EQ(test::ref_moves_of(generate_moves(f)), mapped) << to_fen(pos);
    }
}

// ---------------------------------------------------------------------------------------------
// Cross-check against the reference generator.

void expect_matches_reference(const Position& pos) {
    const test::ref::Board board = test::ref::from_position(pos);
    const auto expected = test::ref::moves(board);
    const MoveList moves = generate_moves(pos);
    ASSERT_EQ(test::ref_moves_of(moves), expected) << to_fen(pos);
    ASSERT_EQ(moves.size(), expected.size()) << "duplicate moves in " << to_fen(pos);
    // The generator's shortcuts, for callers that already know whether a capture exists.
    const MoveList split = has_capture(pos) ? generate_captures(pos) : generate_quiet_moves(pos);
    ASSERT_EQ(test::ref_moves_of(split), expected) << to_fen(pos);
    ASSERT_EQ(split.size(), expected.size()) << to_fen(pos);
    const Bitboard capturers = capturing_pieces(pos);
    ASSERT_EQ(test::squares_of(capturers), test::ref::capturers(board)) << to_fen(pos);
    ASSERT_EQ(capturers != 0, has_capture(pos)) << to_fen(pos);
    if (capturers != 0) {
        const MoveList from_capturers = generate_captures(pos, capturers);
        ASSERT_EQ(test::ref_moves_of(from_capturers), expected) << to_fen(pos);
        ASSERT_EQ(from_capturers.size(), expected.size()) << to_fen(pos);
    }
    for (const Move& m : moves)
        ASSERT_EQ(test::ref::from_position(apply_move(pos, m)), test::ref::apply(board, test::ref::from_move(m)))
            << to_fen(pos) << " " << move_to_string(pos, m);
    if (has_capture(pos)) return;
    // The quiet moves as the database generator takes them: the man moves listed, the king moves counted.
    std::set<test::ref::RefMove> expected_man_moves;
    std::size_t expected_king_moves = 0;
    for (const test::ref::RefMove& m : expected) {
        if (pos.kings & square_bit(m.from))
            ++expected_king_moves;
        else
            expected_man_moves.insert(m);
    }
    const MoveList man_moves = generate_quiet_man_moves(pos);
    ASSERT_EQ(test::ref_moves_of(man_moves), expected_man_moves) << to_fen(pos);
    ASSERT_EQ(man_moves.size(), expected_man_moves.size()) << to_fen(pos);
    ASSERT_EQ(count_quiet_king_moves(pos), expected_king_moves) << to_fen(pos);
}

TEST(Movegen, MatchesReferenceOnRandomPositions) {
    std::mt19937_64 rng(12345);
    for (int i = 0; i < 20000; ++i) expect_matches_reference(test::random_position(rng, {15, 15, 0.15}));
}

TEST(Movegen, MatchesReferenceOnKingRichPositions) {
    std::mt19937_64 rng(54321);
    for (int i = 0; i < 20000; ++i) expect_matches_reference(test::random_position(rng, {5, 12, 0.6}));
}

// Few pieces a side, as in the databases: captures that take every opposing piece are common
// here, and the king search ends such a capture without looking further.
TEST(Movegen, MatchesReferenceOnEndgamePositions) {
    std::mt19937_64 rng(777);
    for (int i = 0; i < 50000; ++i) expect_matches_reference(test::random_position(rng, {3, 3, 0.7}));
}

TEST(Movegen, MatchesReferenceAlongRandomGames) {
    std::mt19937_64 rng(2024);
    for (const Position& pos : test::random_game_positions(rng, parse_fen("W:W31-50:B1-20"), 200))
        expect_matches_reference(pos);
}

TEST(Movegen, MatchesReferenceOverWoldoubyTree) {
    test::walk_tree(parse_fen("W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"), 5,
                    [](const Position& pos, int) { expect_matches_reference(pos); });
}

}  // namespace
}  // namespace dtb
