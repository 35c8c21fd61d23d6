// FEN (PDN 3.0) reading and writing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "rules/fen.hpp"
#include "tests/rules/test_support.hpp"

namespace dtb {
namespace {

using ::testing::HasSubstr;

Bitboard squares(std::initializer_list<int> list) {
    Bitboard b = 0;
    for (int s : list) b |= square_bit(s);
    return b;
}

TEST(Fen, StartPosition) {
    const Position pos = parse_fen("W:W31-50:B1-20");
    EXPECT_EQ(pos.white, squares_mask(31, 50));
    EXPECT_EQ(pos.black, squares_mask(1, 20));
    EXPECT_EQ(pos.kings, 0u);
    EXPECT_EQ(pos.side_to_move, Color::White);
    EXPECT_EQ(count_bits(pos.white), 20);
    EXPECT_EQ(count_bits(pos.black), 20);
    EXPECT_EQ(to_fen(pos),
              "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50"
              ":B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20");
}

TEST(Fen, KingsAndSideToMove) {
    const Position pos = parse_fen("B:W18,24,K10:B12,K22");
    EXPECT_EQ(pos.side_to_move, Color::Black);
    EXPECT_EQ(pos.white, squares({10, 18, 24}));
    EXPECT_EQ(pos.black, squares({12, 22}));
    EXPECT_EQ(pos.kings, squares({10, 22}));
    EXPECT_EQ(to_fen(pos), "B:WK10,18,24:B12,K22");
}

TEST(Fen, CanonicalOutput) {
    // White section first, ascending squares, K before each king, no ranges.
    EXPECT_EQ(to_fen(parse_fen("B:B12,K22:W24,18,K10")), "B:WK10,18,24:B12,K22");
    EXPECT_EQ(to_fen(parse_fen("W:W33-35,K31:B1-3")), "W:WK31,33,34,35:B1,2,3");
    EXPECT_EQ(to_fen(parse_fen("W:WK1-3:B")), "W:WK1,K2,K3:B");
    EXPECT_EQ(to_fen(Position{}), "W:W:B");
}

TEST(Fen, RangesAndKingRanges) {
    EXPECT_EQ(parse_fen("W:W31-33,40:B1"), parse_fen("W:W31,32,33,40:B1"));
    const Position kings = parse_fen("W:WK31-33:B1");
    EXPECT_EQ(kings.kings, squares({31, 32, 33}));
    EXPECT_EQ(kings.white, squares({31, 32, 33}));
    EXPECT_EQ(parse_fen("W:W40-40:B1").white, squares({40}));  // a one-square range
}

TEST(Fen, SectionsInEitherOrder) {
    EXPECT_EQ(parse_fen("W:B1-20:W31-50"), parse_fen("W:W31-50:B1-20"));
    EXPECT_EQ(parse_fen("B:BK22,12:WK10,18,24"), parse_fen("B:W18,24,K10:B12,K22"));
}

TEST(Fen, EmptyOrMissingSide) {
    const Position empty_black = parse_fen("W:WK28:B");
    EXPECT_EQ(empty_black.white, squares({28}));
    EXPECT_EQ(empty_black.kings, squares({28}));
    EXPECT_EQ(empty_black.black, 0u);
    EXPECT_EQ(parse_fen("W:WK28"), empty_black);
    EXPECT_EQ(parse_fen("W:B12"), parse_fen("W:W:B12"));
    EXPECT_EQ(to_fen(parse_fen("W:WK28")), "W:WK28:B");
}

TEST(Fen, TrailingTagsWhitespaceAndLowerCase) {
    const Position expected = parse_fen("W:W31-50:B1-20");
    EXPECT_EQ(parse_fen("W:W31-50:B1-20:H0:F1"), expected);
    EXPECT_EQ(parse_fen("  W:W31-50:B1-20 \n"), expected);
    EXPECT_EQ(parse_fen("\tW:W31-50:B1-20:H0:F1  "), expected);
    EXPECT_EQ(parse_fen("w:w31-50:b1-20"), expected);
    EXPECT_EQ(parse_fen("b:wk10,18,24:b12,k22"), parse_fen("B:W18,24,K10:B12,K22"));
    EXPECT_EQ(parse_fen("W:W31-50:B1-20."), expected);  // PDN files end a FEN tag with '.'
}

void expect_error(const std::string& fen, const std::string& message) {
    EXPECT_THAT([&] { parse_fen(fen); }, ::testing::ThrowsMessage<FenError>(HasSubstr(message))) << fen;
}

TEST(Fen, SquareOutsideBoard) {
    expect_error("W:W51:B1", "square 51 is outside 1..50");
    expect_error("W:W31:B0", "square 0 is outside 1..50");
    expect_error("W:W31:B100", "outside 1..50");
    expect_error("W:W31-51:B1", "square 51 is outside 1..50");
}

TEST(Fen, SquareUsedTwice) {
    expect_error("W:W31,31:B1", "square 31 is used twice");
    expect_error("W:W31:B31", "square 31 is used twice");
    expect_error("W:W31-35,33:B1", "square 33 is used twice");
    expect_error("W:WK31:BK31", "used twice");
}

TEST(Fen, MenOnTheirCrowningRow) {
    expect_error("W:W3:B20", "white man on square 3");
    expect_error("W:W1-5:B20", "white man on square 1");
    expect_error("W:W31:B47", "black man on square 47");
    expect_error("W:W31:B46-50", "black man on square 46");
    // Kings may stand there, and so may the opposite colour's men.
    EXPECT_NO_THROW(parse_fen("W:WK3,47:BK48-49,4"));
}

TEST(Fen, MoreThanTwentyPieces) {
    expect_error("W:W11-31:B1", "more than 20 white pieces");
    expect_error("W:W50:B1-21", "more than 20 black pieces");
    EXPECT_NO_THROW(parse_fen("W:W11-30:B31-45,K46-50"));  // exactly 20 each
}

TEST(Fen, UnexpectedCharacters) {
    expect_error("W:W31;32:B1", "unexpected character ';'");
    expect_error("W:W31,32:B1?", "unexpected character '?'");
    expect_error("X:W31:B1", "expected the side to move");
    expect_error("W;W31:B1", "unexpected character ';'");
    expect_error("W:W31,:B1", "expected a square number");
    expect_error("W:W31, 32:B1", "unexpected character ' '");
    expect_error("W:W31:B1:%", "unexpected character '%'");
}

// Found by fuzz/pdn_fuzz: the message quoted one byte of a multi-byte character, so a FEN tag of a
// UTF-8 PDN file gave an error message that was not UTF-8.
TEST(Fen, UnexpectedCharacterIsQuotedWhole) {
    expect_error("W:WK20,K42,\xC3\x97K44:BK5", "unexpected character '\xC3\x97', expected a square number");
    expect_error("W:W31,\xC3:B1", "unexpected character byte 0xC3,");  // not UTF-8: named by its value
    expect_error("W:W31,\xE2\x82:B1", "unexpected character byte 0xE2,");  // a sequence cut short
}

TEST(Fen, EmptyText) {
    expect_error("", "empty FEN");
    expect_error("   \t\n", "empty FEN");
}

TEST(Fen, DuplicatedColourSection) {
    expect_error("W:W31:W32", "white section appears twice");
    expect_error("W:B1:W31:B2", "black section appears twice");
}

TEST(Fen, SomethingThatIsNotATagIsRejected) {
    expect_error("W:W31:X1-20", "unexpected character '-'");  // looks like pieces, not a tag like H0
    expect_error("W:W31:K12", "unexpected character 'K'");
    expect_error("W", "no white or black section");
    expect_error("W:", "no white or black section");
}

TEST(Fen, ControlCharactersAreRefusedAndNeverEchoedRaw) {
    // A tab or a line end inside a FEN would fake a column or a line in any output that echoes it.
    expect_error("W:W28\t:B23", "invalid FEN \"W:W28\\t:B23\" at column 6: a control character (\\t); a FEN never contains one");
    expect_error("W:W28:B23\nW:W6:B1", "at column 10: a control character (\\n)");
    expect_error("W:W28\x01:B23", "a control character (\\x01)");
    expect_error(std::string("W:W28\0:B23", 10), "a control character (\\x00)");
    expect_error("W:W28:B23\x7F", "a control character (\\x7F)");
    try {
        parse_fen("W:W28\t\r:B23");
    } catch (const FenError& e) {
        EXPECT_EQ(std::string(e.what()).find_first_of("\t\r\n"), std::string::npos) << e.what();
    }
}

TEST(Fen, DescendingRange) { expect_error("W:W40-31:B1", "range 40-31 is descending"); }

TEST(Fen, ErrorsNameTheColumn) {
    expect_error("W:W31,31:B1", "at column 7");
    expect_error("W:W31:B1?", "at column 9");
}

TEST(Fen, RandomRoundTrips) {
    std::mt19937_64 rng(31337);
    for (int i = 0; i < 5000; ++i) {
        const Position pos = test::random_position(rng, {20, 20, 0.3});
        const std::string fen = to_fen(pos);
        ASSERT_EQ(fen.find('-'), std::string::npos) << fen;
        Position back;
        ASSERT_NO_THROW(back = parse_fen(fen)) << fen;
        ASSERT_EQ(back, pos) << fen;
        ASSERT_EQ(to_fen(back), fen);
        // The colour-flipped position (black section written first) reads back too.
        const std::string swapped = fen.substr(0, 1) + fen.substr(fen.find(":B")) + fen.substr(1, fen.find(":B") - 1);
        ASSERT_EQ(parse_fen(swapped), pos) << swapped;
    }
}

TEST(Fen, RoundTripAlongRandomGames) {
    std::mt19937_64 rng(5);
    for (const Position& pos : test::random_game_positions(rng, parse_fen("W:W31-50:B1-20"), 20))
        ASSERT_EQ(parse_fen(to_fen(pos)), pos) << to_fen(pos);
}

}  // namespace
}  // namespace dtb
