// Move notation: writing and reading moves, ambiguity, errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "rules/fen.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "tests/rules/test_support.hpp"

namespace dtb {
namespace {

using ::testing::HasSubstr;

constexpr const char* kStart = "W:W31-50:B1-20";
constexpr const char* kWoldouby = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38";

// Every legal move is written uniquely and read back as itself.
void expect_round_trip(const Position& pos) {
    const MoveList moves = generate_moves(pos);
    std::set<std::string> written;
    for (const Move& m : moves) {
        const std::string text = move_to_string(pos, m);
        ASSERT_TRUE(written.insert(text).second) << to_fen(pos) << ": two moves written " << text;
        Move back;
        ASSERT_NO_THROW(back = parse_move(pos, text)) << to_fen(pos) << " " << text;
        ASSERT_EQ(back, m) << to_fen(pos) << " " << text;
        // Every written path is a real path of the move.
        ASSERT_EQ(text.find('x') == std::string::npos, !m.is_capture()) << text;
    }
}

TEST(Notation, RoundTripOverStartTree) {
    test::walk_tree(parse_fen(kStart), 4, [](const Position& pos, int) { expect_round_trip(pos); });
}

TEST(Notation, RoundTripOverWoldoubyTree) {
    test::walk_tree(parse_fen(kWoldouby), 4, [](const Position& pos, int) { expect_round_trip(pos); });
}

TEST(Notation, RoundTripOnRandomKingRichPositions) {
    std::mt19937_64 rng(4242);
    for (int i = 0; i < 3000; ++i) expect_round_trip(test::random_position(rng, {6, 10, 0.6}));
}

TEST(Notation, RoundTripAlongRandomGames) {
    std::mt19937_64 rng(77);
    for (const Position& pos : test::random_game_positions(rng, parse_fen(kStart), 20)) expect_round_trip(pos);
}

TEST(Notation, QuietAndSimpleCaptureForms) {
    const Position start = parse_fen(kStart);
    const Move m = parse_move(start, "32-28");
    EXPECT_EQ(square_of_bit(m.from), 32);
    EXPECT_EQ(square_of_bit(m.to), 28);
    EXPECT_FALSE(m.is_capture());
    EXPECT_EQ(move_to_string(start, m), "32-28");

    const Position pos = parse_fen("W:WK1:B7,9,17,19,20,30,31,33,43,44");
    EXPECT_EQ(move_to_string(pos, generate_moves(pos)[0]), "1x15");  // ten pieces, still from-x-to
}

// Two captures from 5 to 48 take different pieces: 5x19x30x48 takes 14,24,43 and 5x23x34x48 takes
// 14,29,43 (both the maximum of three), so "5x48" is ambiguous and the full path is written.
TEST(Notation, AmbiguousCaptureIsWrittenWithEveryLandingSquare) {
    const Position pos = parse_fen("W:WK5:B14,24,29,43");
    EXPECT_EQ(test::move_strings(pos), (std::set<std::string>{"5x19x30x48", "5x23x34x48"}));

    EXPECT_THAT([&] { parse_move(pos, "5x48"); },
                ::testing::ThrowsMessage<NotationError>(HasSubstr("ambiguous")));

    const Move via24 = parse_move(pos, "5x19x30x48");
    EXPECT_EQ(test::squares_of(via24.captured), (std::vector<int>{14, 24, 43}));
    const Move via29 = parse_move(pos, "5x23x34x48");
    EXPECT_EQ(test::squares_of(via29.captured), (std::vector<int>{14, 29, 43}));

    // Any subset of landing squares that singles out one move is enough.
    EXPECT_EQ(parse_move(pos, "5x19x48"), via24);
    EXPECT_EQ(parse_move(pos, "5x30x48"), via24);
    EXPECT_EQ(parse_move(pos, "5x34x48"), via29);
    // A captured square is not a landing square.
    EXPECT_THROW(parse_move(pos, "5x24x48"), NotationError);
    // Landing squares in the wrong order.
    EXPECT_THROW(parse_move(pos, "5x30x19x48"), NotationError);
}

// Two paths taking the same pieces are one move: the short form is not ambiguous.
TEST(Notation, SamePiecesByTwoPathsIsOneMove) {
    const Position pos = parse_fen("W:WK48:B3,12,19,42,43");
    const Move m = parse_move(pos, "48x48");
    EXPECT_EQ(move_to_string(pos, m), "48x48");
    EXPECT_EQ(parse_move(pos, "48x26x8x30x48"), m);
    EXPECT_EQ(parse_move(pos, "48x30x8x26x48"), m);
}

TEST(Notation, CaptureSeparatorIsCaseInsensitive) {
    const Position pos = parse_fen("W:W15:B8,19,20");
    EXPECT_EQ(parse_move(pos, "15X2"), parse_move(pos, "15x2"));
    EXPECT_EQ(parse_move(pos, "15x24x13x2"), parse_move(pos, "15x2"));
}

void expect_error(const Position& pos, const std::string& text, const std::string& message) {
    EXPECT_THAT([&] { parse_move(pos, text); }, ::testing::ThrowsMessage<NotationError>(HasSubstr(message)))
        << "\"" << text << "\"";
}

TEST(Notation, MalformedText) {
    const Position start = parse_fen(kStart);
    expect_error(start, "", "expected a square number");
    expect_error(start, "abc", "expected a square number");
    expect_error(start, "32-", "expected a square number");
    expect_error(start, "-28", "expected a square number");
    expect_error(start, "32", "expected two squares");
    expect_error(start, "32-28-23", "a quiet move has only two squares");
    expect_error(start, "51-46", "outside 1..50");
    expect_error(start, "0-5", "outside 1..50");
    expect_error(start, "123-4", "too long");
    expect_error(start, "32/28", "unexpected character '/'");
    expect_error(start, "32-28 ", "unexpected character ' '");
    expect_error(start, "32\xE2\x80\x93" "28", "unexpected character '\xE2\x80\x93'");  // an en dash, whole
    expect_error(start, "32\xFF" "28", "unexpected character byte 0xFF");
}

TEST(Notation, IllegalMoves) {
    const Position start = parse_fen(kStart);
    expect_error(start, "32-23", "illegal move");   // two rows at once
    expect_error(start, "46-41", "illegal move");   // blocked
    expect_error(start, "20-25", "illegal move");   // not White's piece
    expect_error(start, "32x28", "illegal move");   // not a capture
    expect_error(start, "28-32", "illegal move");   // empty start square
    const Position capture = parse_fen("W:W15,40:B8,19,20");
    expect_error(capture, "40-34", "illegal move");  // capture is compulsory
    expect_error(capture, "15-10", "illegal move");
    expect_error(capture, "15x24", "illegal move");  // must take the maximum
}

}  // namespace
}  // namespace dtb
