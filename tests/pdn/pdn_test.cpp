// Tests of the PDN reader: every feature on tests/data/pdn/features.pdn, encodings, and malformed
// input (each broken game reports where and why; the games around it survive).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "rules/fen.hpp"
#include "rules/notation.hpp"
#include "rules/pdn.hpp"
#include "rules/text.hpp"

namespace dtb {
namespace {

std::string data_path(const std::string& name) { return std::string(DTB_PDN_TEST_DATA) + "/" + name; }

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<PdnGame> read_data(const std::string& name) { return read_pdn_file(data_path(name)); }

// Moves as written, for compact comparisons.
std::vector<std::string> texts(const PdnGame& game) {
    std::vector<std::string> out;
    for (const PdnMove& m : game.moves) out.push_back(m.text);
    return out;
}

// The move written `text`, or its second, third... occurrence.
const PdnMove& move_written(const PdnGame& game, const std::string& text, int occurrence = 0) {
    for (const PdnMove& m : game.moves)
        if (m.text == text && occurrence-- == 0) return m;
    throw std::out_of_range("no move " + text);
}

// ----- features.pdn -----

class FeaturesFile : public ::testing::Test {
protected:
    void SetUp() override { games = read_data("features.pdn"); }
    std::vector<PdnGame> games;
};

TEST_F(FeaturesFile, ReadsEveryGameWithoutErrorOrWarning) {
    ASSERT_EQ(games.size(), 3u);
    for (const PdnGame& g : games) {
        EXPECT_FALSE(g.error) << g.error->to_string();
        EXPECT_TRUE(g.warnings.empty()) << g.warnings.front().to_string();
    }
    EXPECT_EQ(games[0].moves.size(), 40u);
    EXPECT_EQ(games[1].moves.size(), 3u);
    EXPECT_EQ(games[2].moves.size(), 4u);
}

TEST_F(FeaturesFile, KeepsTagsInOrderWithEscapesResolved) {
    const PdnGame& g = games[0];
    std::vector<std::string> names;
    for (const PdnTag& t : g.tags) names.push_back(t.name);
    EXPECT_EQ(names, (std::vector<std::string>{"Event", "Site", "Date", "Round", "White", "Black", "Annotator",
                                               "GameType", "Result"}));
    EXPECT_EQ(g.tag("Event"), "The \"Brilliant\" Open");
    EXPECT_EQ(g.tag("Annotator"), "A \\ B");
    EXPECT_EQ(g.tag("White"), "Doe, John");
    EXPECT_EQ(g.tag("event"), g.tag("Event"));  // names are matched ignoring case
    EXPECT_EQ(g.line, 4);
}

TEST_F(FeaturesFile, AcceptsBothGameTypeForms) {
    EXPECT_EQ(games[0].tag("GameType"), "20");
    EXPECT_EQ(games[1].tag("GameType"), "20,W,10,10,N,0");
}

TEST_F(FeaturesFile, ReadsResults) {
    EXPECT_EQ(games[0].result, PdnResult::Draw);
    EXPECT_EQ(games[1].result, PdnResult::WhiteWins);
    EXPECT_EQ(games[2].result, PdnResult::Unknown);
    EXPECT_TRUE(games[2].tags.empty());  // a game without tags is still a game
}

TEST_F(FeaturesFile, ReadsMoveNumbersInEveryForm) {
    const PdnGame& g = games[0];
    EXPECT_EQ(g.moves[0].number, 1);
    EXPECT_EQ(g.moves[1].number, 1);
    EXPECT_EQ(move_written(g, "45-40").number, 11);  // "11.45-40": number glued to the move
    EXPECT_EQ(move_written(g, "10-15", 1).number, 12);  // "12... 10-15" after a comment
    EXPECT_EQ(move_written(g, "17-21").number, 20);  // "20. ... 17-21"
    EXPECT_EQ(games[1].moves[0].number, 1);          // "1. ... 6-11", Black to move
    EXPECT_EQ(games[1].moves[1].number, 2);
}

TEST_F(FeaturesFile, LocatesMoves) {
    const PdnGame& g = games[0];
    EXPECT_EQ(g.moves[0].line, 16);
    EXPECT_EQ(g.moves[0].column, 4);
    EXPECT_EQ(move_written(g, "45-40").line, 19);
    EXPECT_EQ(move_written(g, "45-40").column, 60);
}

TEST_F(FeaturesFile, AttachesAnnotationsAndNags) {
    const PdnGame& g = games[0];
    EXPECT_EQ(move_written(g, "32-27").annotation, "!");
    EXPECT_EQ(move_written(g, "34-30").annotation, "!?");  // written apart from its move
    EXPECT_EQ(move_written(g, "29x20").annotation, "?!");
    EXPECT_EQ(move_written(g, "33x24x35").annotation, "!!");
    EXPECT_EQ(move_written(g, "33x24x35").nags, (std::vector<int>{3, 18}));
    EXPECT_EQ(move_written(g, "2-7").nags, (std::vector<int>{1}));
    EXPECT_EQ(move_written(g, "40x29x20").nags, (std::vector<int>{14}));
    EXPECT_TRUE(move_written(g, "33-28").annotation.empty());
}

TEST_F(FeaturesFile, KeepsComments) {
    const PdnGame& g = games[0];
    EXPECT_EQ(g.comment, "A quiet opening.\nComments may span lines.");
    EXPECT_EQ(move_written(g, "15-20").comment, "a line comment");
    EXPECT_EQ(move_written(g, "50-45").comment, "White waits.");
    EXPECT_EQ(move_written(g, "36x27").comment, "Black thinks");
}

TEST_F(FeaturesFile, SkipsNestedVariations) {
    const std::vector<std::string> t = texts(games[0]);
    // 7... 20-24, then the variation "(7... 17-21 (...) 8. 27-22 {...} 18x27)", then 8. 47-41.
    const auto it = std::find(t.begin(), t.end(), "20-24");
    ASSERT_NE(it, t.end());
    EXPECT_EQ(*(it + 1), "47-41");
}

TEST_F(FeaturesFile, MatchesCapturesWithIntermediateSquares) {
    const PdnMove& m = move_written(games[0], "40x29x20");
    EXPECT_EQ(count_bits(m.move.captured), 2);
    EXPECT_EQ(m.move, parse_move(m.before, "40x20"));
    const PdnMove& double_capture = move_written(games[0], "33x24x35");
    EXPECT_EQ(double_capture.move, parse_move(double_capture.before, "33x35"));
    // "34x42" alone is ambiguous there; "34x31x42" names a landing square of one path only.
    const PdnMove& king = move_written(games[1], "34x31x42");
    EXPECT_EQ(king.move, parse_move(king.before, "34x18x31x42"));
    EXPECT_THROW(parse_move(king.before, "34x42"), NotationError);
}

TEST_F(FeaturesFile, SetsUpFenAndPlaysToTheEnd) {
    EXPECT_EQ(games[0].start, parse_fen("W:W31-50:B1-20"));
    EXPECT_EQ(games[1].start, parse_fen("B:WK34,45:B6,17,22,23,37"));
    EXPECT_EQ(to_fen(games[0].final_position()),
              "W:W26,27,32,35,37,38,39,41,42,43,44,45,46,49:B1,3,4,6,7,8,9,11,12,13,16,21,25");
    EXPECT_EQ(to_fen(games[1].final_position()), "W:WK42,45:B16,17");
    for (const PdnGame& g : games)
        for (std::size_t i = 1; i < g.moves.size(); ++i)
            EXPECT_EQ(g.moves[i].before, apply_move(g.moves[i - 1].before, g.moves[i - 1].move));
}

TEST_F(FeaturesFile, ReadsCrLfLikeLf) {
    std::string crlf;
    for (char c : read_bytes(data_path("features.pdn"))) {
        if (c == '\n') crlf += '\r';
        crlf += c;
    }
    const std::vector<PdnGame> again = read_pdn(crlf, "features-crlf.pdn");
    ASSERT_EQ(again.size(), games.size());
    for (std::size_t g = 0; g < games.size(); ++g) {
        EXPECT_FALSE(again[g].error);
        EXPECT_EQ(again[g].comment, games[g].comment);
        ASSERT_EQ(again[g].moves.size(), games[g].moves.size());
        for (std::size_t i = 0; i < games[g].moves.size(); ++i) {
            const PdnMove& a = again[g].moves[i];
            const PdnMove& b = games[g].moves[i];
            EXPECT_EQ(a.move, b.move);
            EXPECT_EQ(a.line, b.line);
            EXPECT_EQ(a.column, b.column);
            EXPECT_EQ(a.comment, b.comment);
        }
    }
}

// ----- encodings -----

TEST(PdnEncoding, Utf8WithByteOrderMark) {
    const auto games = read_data("utf8_bom.pdn");
    ASSERT_EQ(games.size(), 2u);
    EXPECT_FALSE(games[0].error);
    EXPECT_EQ(games[0].tags[0].name, "Event");  // the BOM is not part of the first tag
    EXPECT_EQ(games[0].tag("White"), "M\xC3\xBCller, J\xC3\xBCrgen");
    EXPECT_EQ(games[0].comment, "caf\xC3\xA9");
    EXPECT_EQ(games[0].moves[0].comment, "\xC3\xA9t\xC3\xA9");
    ASSERT_TRUE(games[1].error);
    EXPECT_EQ(games[1].error->line, 9);
    EXPECT_EQ(games[1].error->column, 9);  // columns count characters, not bytes
}

TEST(PdnEncoding, Latin1IsConvertedToUtf8) {
    const auto games = read_data("latin1.pdn");
    ASSERT_EQ(games.size(), 2u);
    EXPECT_FALSE(games[0].error);
    EXPECT_EQ(games[0].tag("White"), "M\xC3\xBCller, J\xC3\xBCrgen");
    EXPECT_EQ(games[0].tag("Black"), "Dupr\xC3\xA9, Ren\xC3\xA9");
    EXPECT_EQ(games[0].comment, "caf\xC3\xA9");
    EXPECT_EQ(games[0].moves[0].comment, "\xC3\xA9t\xC3\xA9");
    ASSERT_TRUE(games[1].error);
    EXPECT_EQ(games[1].error->line, 9);
    EXPECT_EQ(games[1].error->column, 9);
}

// "text" as UTF-16 with a byte-order mark, for ASCII text plus `extra` code units appended.
std::string utf16(const std::string& ascii, bool little_endian, const std::vector<unsigned> extra = {}) {
    std::string out = little_endian ? "\xFF\xFE" : "\xFE\xFF";
    const auto put = [&](unsigned u) {
        const char hi = static_cast<char>(u >> 8), lo = static_cast<char>(u & 0xFF);
        out += little_endian ? std::string{lo, hi} : std::string{hi, lo};
    };
    for (char c : ascii) put(static_cast<unsigned char>(c));
    for (unsigned u : extra) put(u);
    return out;
}

TEST(PdnEncoding, Utf16WithByteOrderMarkIsDecoded) {
    // [White "Müller"] {😀} 1. 32-28 *, in both byte orders.
    for (bool le : {true, false}) {
        SCOPED_TRACE(le ? "little endian" : "big endian");
        std::string bytes = utf16("[White \"M", le, {0xFC});
        bytes += utf16("ller\"]\r\n{", le, {0xD83D, 0xDE00}).substr(2);
        bytes += utf16("}\r\n1. 32-28 19-23 *\r\n", le).substr(2);
        const auto games = read_pdn(bytes, "t.pdn");
        ASSERT_EQ(games.size(), 1u);
        EXPECT_FALSE(games[0].error) << games[0].error->to_string();
        EXPECT_EQ(games[0].tag("White"), "M\xC3\xBCller");
        EXPECT_EQ(games[0].comment, "\xF0\x9F\x98\x80");
        EXPECT_EQ(games[0].moves.size(), 2u);
        EXPECT_EQ(games[0].moves[1].line, 3);
        EXPECT_EQ(games[0].moves[1].column, 10);
    }
}

TEST(PdnEncoding, Utf16WithoutByteOrderMarkIsRecognised) {
    for (bool le : {true, false}) {
        SCOPED_TRACE(le ? "little endian" : "big endian");
        const auto games = read_pdn(utf16("[White \"M", le, {0xFC}).substr(2) + utf16("ller\"]\n1. 32-28 *", le).substr(2), "t.pdn");
        ASSERT_EQ(games.size(), 1u);
        EXPECT_FALSE(games[0].error) << games[0].error->to_string();
        EXPECT_EQ(games[0].tag("White"), "M\xC3\xBCller");
        EXPECT_EQ(games[0].moves.size(), 1u);
    }
}

TEST(PdnEncoding, BrokenUtf16BecomesReplacementCharacters) {
    EXPECT_EQ(utf16_to_utf8(std::string("\x3D\xD8" "A\0", 4), true), "\xEF\xBF\xBD" "A");  // lone high surrogate
    EXPECT_EQ(utf16_to_utf8(std::string("\0A\xDC\0", 4), false), "A\xEF\xBF\xBD");     // lone low surrogate
    EXPECT_EQ(utf16_to_utf8(std::string("A\0B", 3), true), "A\xEF\xBF\xBD");                       // odd final byte
    const auto games = read_pdn(utf16("1. 32-28 ", true, {0xDC00}) , "t.pdn");
    ASSERT_EQ(games.size(), 1u);
    ASSERT_TRUE(games[0].error);  // U+FFFD in the movetext: a non-ASCII character, located
    EXPECT_EQ(games[0].error->column, 10);
}

TEST(PdnEncoding, NoBreakSpacesAndTheDosEndOfFileMarkAreSpace) {
    const auto utf8 = read_pdn("1. 32-28\xC2\xA0" "19-23\xC2\xA0*\r\n\x1A", "t.pdn");
    ASSERT_EQ(utf8.size(), 1u);
    EXPECT_FALSE(utf8[0].error) << utf8[0].error->to_string();
    EXPECT_EQ(texts(utf8[0]), (std::vector<std::string>{"32-28", "19-23"}));
    EXPECT_EQ(utf8[0].moves[1].column, 10);
    EXPECT_EQ(utf8[0].result, PdnResult::Unknown);
    const auto latin1 = read_pdn("[White \"M\xFCller\"]\n1.\xA0" "32-28 19-23 *\x1A\x1A", "t.pdn");
    ASSERT_EQ(latin1.size(), 1u);
    EXPECT_FALSE(latin1[0].error) << latin1[0].error->to_string();
    EXPECT_EQ(latin1[0].moves.size(), 2u);
    // Any other non-ASCII character glued to a move is still reported.
    EXPECT_TRUE(read_pdn("1. 32-28\xC2\xA1 *", "t.pdn")[0].error);
}

TEST(PdnEncoding, NonAsciiOnlyInTagValuesAndComments) {
    const auto in_name = read_pdn("[Ev\xC3\xA9nt \"x\"]\n1. 32-28 *\n", "t.pdn");
    ASSERT_EQ(in_name.size(), 1u);
    ASSERT_TRUE(in_name[0].error);
    EXPECT_NE(in_name[0].error->message.find("bad tag"), std::string::npos);

    const auto in_moves = read_pdn("1. 32-28 \xC3\xA9 19-23 *\n", "t.pdn");
    ASSERT_TRUE(in_moves[0].error);
    EXPECT_EQ(in_moves[0].error->column, 10);
    EXPECT_NE(in_moves[0].error->message.find("non-ASCII"), std::string::npos);
    EXPECT_EQ(in_moves[0].moves.size(), 1u);
}

// ----- malformed input -----

struct Expected {
    std::string event;
    std::size_t moves;
    int line = 0;  // 0: no error expected
    int column = 0;
    std::string text = {};
    std::string message = {};  // a part of the error message
};

TEST(PdnMalformed, EveryBrokenGameIsReportedAndTheOthersSurvive) {
    const auto games = read_data("malformed.pdn");
    const std::vector<Expected> expected = {
        {"Good 1", 4},
        {"Bad tag: unquoted value", 0, 9, 7, "Site", "bad tag Site: expected '\"' before its value"},
        {"Good 2", 4},
        {"Illegal move: the capture 28x19 is compulsory", 2, 20, 19, "28-22",
         "illegal move \"28-22\"; White to move at 2."},
        {"English draughts", 0, 23, 1, "21", "GameType \"21\" is not international draughts"},
        {"Good 3", 2},
        {"Unknown move", 2, 33, 19, "Nf3", "unexpected text \"Nf3\""},
        {"Ambiguous capture", 0, 38, 4, "34x42", "ambiguous move \"34x42\""},
        {"Chess result", 2},  // "1-0": the PDN 3.0 reading grammar accepts chess results
        {"", 0, 44, 28, "Event", "bad tag Event: its value has no closing '\"'"},
        {"Unterminated variation", 1, 51, 10, "(", "unterminated variation"},
        {"Good 4", 4},
        {"Unmatched parenthesis", 1, 59, 10, ")", "')' without a matching '('"},
        {"Non-ASCII in the movetext", 0, 63, 4, "32\xE2\x80\x93" "28", "non-ASCII character"},
        {"Bad FEN", 0, 66, 1, "W:W31-50:B1-20,50", "bad FEN tag"},
        {"Good 5", 4},
        {"Truncated: unterminated comment", 1, 76, 10, "{", "unterminated comment"},
    };
    ASSERT_EQ(games.size(), expected.size());
    for (std::size_t i = 0; i < games.size(); ++i) {
        const PdnGame& g = games[i];
        const Expected& e = expected[i];
        SCOPED_TRACE("game " + std::to_string(i + 1) + " " + e.event);
        EXPECT_EQ(std::string(g.tag("Event").value_or("")), e.event);
        EXPECT_EQ(g.moves.size(), e.moves);
        if (e.line == 0) {
            EXPECT_FALSE(g.error) << g.error->to_string();
            EXPECT_TRUE(g.warnings.empty());
            continue;
        }
        ASSERT_TRUE(g.error);
        EXPECT_EQ(g.error->file, data_path("malformed.pdn"));
        EXPECT_EQ(g.error->line, e.line);
        EXPECT_EQ(g.error->column, e.column);
        EXPECT_EQ(g.error->text, e.text);
        EXPECT_NE(g.error->message.find(e.message), std::string::npos) << g.error->message;
    }
}

TEST(PdnMalformed, IllegalMoveKeepsTheMovesBeforeIt) {
    const auto games = read_data("malformed.pdn");
    const PdnGame& g = games[3];
    EXPECT_EQ(texts(g), (std::vector<std::string>{"32-28", "19-23"}));
    EXPECT_EQ(g.result, PdnResult::BlackWins);  // the marker found while skipping the rest
    EXPECT_EQ(g.error->to_string(), data_path("malformed.pdn") + ":20:19: " + g.error->message);
    EXPECT_NE(g.error->message.find(to_fen(g.final_position())), std::string::npos);
}

TEST(PdnMalformed, TruncatedInsideATag) {
    const auto games = read_data("truncated_tag.pdn");
    ASSERT_EQ(games.size(), 2u);
    EXPECT_FALSE(games[0].error);
    EXPECT_EQ(games[0].moves.size(), 2u);
    ASSERT_TRUE(games[1].error);
    EXPECT_EQ(games[1].error->line, 5);
    EXPECT_EQ(games[1].error->column, 1);
    EXPECT_NE(games[1].error->message.find("unterminated tag Event at the end of the file"), std::string::npos);
}

TEST(PdnMalformed, TruncatedInsideAVariationComment) {
    const auto games = read_pdn("1. 32-28 (1. 33-28 {a comment cut", "t.pdn");
    ASSERT_EQ(games.size(), 1u);
    ASSERT_TRUE(games[0].error);
    EXPECT_EQ(games[0].error->text, "{");
    EXPECT_NE(games[0].error->message.find("unterminated comment"), std::string::npos);
}

TEST(PdnMalformed, TagWithoutClosingBracketAtEndOfFile) {
    const auto games = read_pdn("[Event \"x\"", "t.pdn");
    ASSERT_EQ(games.size(), 1u);
    ASSERT_TRUE(games[0].error);
    EXPECT_NE(games[0].error->message.find("unterminated tag Event"), std::string::npos);
}

TEST(PdnMalformed, BadNagAndStrayCharacters) {
    const auto nag = read_pdn("1. 32-28 $ 19-23 *", "t.pdn");
    ASSERT_TRUE(nag[0].error);
    EXPECT_EQ(nag[0].error->text, "$");
    const auto percent = read_pdn("1. 32-28 % 19-23 *", "t.pdn");  // '%' escapes only in column 1
    ASSERT_TRUE(percent[0].error);
    EXPECT_NE(percent[0].error->message.find("unexpected character '%'"), std::string::npos);
}

TEST(PdnMalformed, SecondFenTagIsRefused) {
    const auto games = read_pdn("[FEN \"W:WK1:BK50\"]\n[FEN \"W:WK2:BK50\"]\n1. 1-7 *\n", "t.pdn");
    ASSERT_TRUE(games[0].error);
    EXPECT_EQ(games[0].error->line, 2);
    EXPECT_NE(games[0].error->message.find("second FEN tag"), std::string::npos);
}

// ----- results and warnings -----

TEST(PdnResults, WritesAndParsesTheFiveMarkers) {
    for (PdnResult r : {PdnResult::WhiteWins, PdnResult::BlackWins, PdnResult::Draw, PdnResult::BothLose,
                        PdnResult::Unknown})
        EXPECT_EQ(parse_pdn_result(to_string(r)), r);
    EXPECT_EQ(to_string(PdnResult::None), "");
    EXPECT_FALSE(parse_pdn_result("2-1"));
    EXPECT_FALSE(parse_pdn_result(""));
    EXPECT_FALSE(is_chess_result("2-0"));
}

TEST(PdnResults, ChessResultsAreReadTheDraughtsWay) {
    EXPECT_EQ(parse_pdn_result("1-0"), PdnResult::WhiteWins);
    EXPECT_EQ(parse_pdn_result("0-1"), PdnResult::BlackWins);
    EXPECT_EQ(parse_pdn_result("1/2-1/2"), PdnResult::Draw);
    EXPECT_EQ(parse_pdn_result("\xC2\xBD-\xC2\xBD"), PdnResult::Draw);
    for (const char* chess : {"1-0", "0-1", "1/2-1/2", "\xC2\xBD-\xC2\xBD"}) EXPECT_TRUE(is_chess_result(chess));

    const auto games = read_pdn(
        "[Result \"1-0\"]\n1. 32-28 19-23 1-0\n"
        "[Result \"0-1\"]\n1. 32-28 0-1\n"
        "[Result \"1/2-1/2\"]\n1. 32-28 1/2-1/2\n"
        "1. 32-28 \xC2\xBD-\xC2\xBD\n"
        "[Result \"1/2-1/2\"]\n1. 32-28 1-1\n",  // the same result written both ways: no disagreement
        "t.pdn");
    ASSERT_EQ(games.size(), 5u);
    const std::vector<PdnResult> results = {PdnResult::WhiteWins, PdnResult::BlackWins, PdnResult::Draw,
                                            PdnResult::Draw, PdnResult::Draw};
    const std::vector<std::string> written = {"1-0", "0-1", "1/2-1/2", "\xC2\xBD-\xC2\xBD", "1-1"};
    for (std::size_t i = 0; i < games.size(); ++i) {
        SCOPED_TRACE("game " + std::to_string(i + 1));
        EXPECT_FALSE(games[i].error) << games[i].error->to_string();
        EXPECT_TRUE(games[i].warnings.empty()) << games[i].warnings.front().to_string();
        EXPECT_EQ(games[i].result, results[i]);
        EXPECT_EQ(games[i].result_written, written[i]);
    }
    EXPECT_EQ(games[0].moves.size(), 2u);
}

TEST(PdnResults, ChessResultTagWithoutMarkerIsTheResult) {
    const auto games = read_pdn("[Result \"0-1\"]\n1. 32-28 19-23\n", "t.pdn");
    EXPECT_EQ(games[0].result, PdnResult::BlackWins);
    EXPECT_EQ(games[0].result_written, "0-1");
    ASSERT_EQ(games[0].warnings.size(), 1u);
    EXPECT_NE(games[0].warnings[0].message.find("no termination marker"), std::string::npos);
}

TEST(PdnResults, MissingMarkerFallsBackToTheResultTag) {
    const auto games = read_pdn("[Result \"1-1\"]\n1. 32-28 19-23\n[Event \"next\"]\n1. 33-28 *\n", "t.pdn");
    ASSERT_EQ(games.size(), 2u);
    EXPECT_FALSE(games[0].error);
    EXPECT_EQ(games[0].moves.size(), 2u);
    EXPECT_EQ(games[0].result, PdnResult::Draw);
    ASSERT_EQ(games[0].warnings.size(), 1u);
    EXPECT_EQ(games[0].warnings[0].line, 3);
    EXPECT_NE(games[0].warnings[0].message.find("no termination marker"), std::string::npos);
    EXPECT_EQ(games[1].moves.size(), 1u);
}

TEST(PdnResults, MarkerDisagreeingWithTheTagIsAWarning) {
    const auto games = read_pdn("[Result \"2-0\"]\n1. 32-28 19-23 0-2\n", "t.pdn");
    EXPECT_EQ(games[0].result, PdnResult::BlackWins);
    ASSERT_EQ(games[0].warnings.size(), 1u);
    EXPECT_NE(games[0].warnings[0].message.find("disagrees with the Result tag 2-0"), std::string::npos);
}

TEST(PdnResults, UnknownResultTagIsIgnoredWithAWarning) {
    const auto games = read_pdn("[Result \"W+\"]\n1. 32-28 *\n", "t.pdn");
    EXPECT_FALSE(games[0].error);
    EXPECT_EQ(games[0].result, PdnResult::Unknown);
    ASSERT_EQ(games[0].warnings.size(), 1u);
    EXPECT_EQ(games[0].warnings[0].line, 1);
    EXPECT_NE(games[0].warnings[0].message.find("not a result"), std::string::npos);
}

TEST(PdnMoveNumbers, NumberNotFollowedByAMoveIsAWarning) {
    const auto games = read_pdn("1. 32-28 19-23\n2. 2-0\n", "t.pdn");
    EXPECT_FALSE(games[0].error);
    ASSERT_EQ(games[0].warnings.size(), 1u);
    EXPECT_EQ(games[0].warnings[0].line, 2);
    EXPECT_EQ(games[0].warnings[0].column, 1);
    EXPECT_EQ(games[0].warnings[0].text, "2.");
    EXPECT_NE(games[0].warnings[0].message.find("move number 2. is not followed by a move"), std::string::npos);

    const auto twice = read_pdn("1. 32-28 18-23 2. 3. 37-32 *", "t.pdn");
    ASSERT_EQ(twice[0].warnings.size(), 2u);  // "2." stray, then "3." where 2 was expected
    EXPECT_EQ(twice[0].warnings[0].column, 16);
    EXPECT_EQ(twice[0].warnings[1].column, 19);
    EXPECT_EQ(twice[0].moves.size(), 3u);
}

TEST(PdnMoveNumbers, NumberOtherThanTheCountIsAWarning) {
    const auto games = read_pdn("1. 32-28 18-23 3. 37-32 *", "t.pdn");
    EXPECT_FALSE(games[0].error);
    ASSERT_EQ(games[0].warnings.size(), 1u);
    EXPECT_EQ(games[0].warnings[0].column, 16);
    EXPECT_NE(games[0].warnings[0].message.find("move number 3 where 2 was expected"), std::string::npos);
    EXPECT_EQ(games[0].moves[2].number, 3);  // the written number is kept

    // A set-up game may start at any number, and "12." before Black's move is as good as "12...".
    const auto setup = read_pdn("[FEN \"B:W33,34:B18,19\"]\n23. ... 19-24 24. 34-30 24x35 24. 33-28 18-23 *", "t.pdn");
    EXPECT_FALSE(setup[0].error) << setup[0].error->to_string();
    ASSERT_EQ(setup[0].warnings.size(), 1u);  // the second "24." where 25 was expected
    EXPECT_EQ(setup[0].moves.size(), 5u);
}

TEST(PdnMoves, SpacesAfterTheSeparatorAreDropped) {
    // Old database exports pad squares to two characters: "1- 6", "47x 9".
    const auto games = read_pdn("[FEN \"W:WK36:B22,K50\"]\n 1. 36x 9 50-45\t2.  9- 3 45-50 *\n", "t.pdn");
    ASSERT_EQ(games.size(), 1u);
    EXPECT_FALSE(games[0].error) << games[0].error->to_string();
    EXPECT_EQ(texts(games[0]), (std::vector<std::string>{"36x9", "50-45", "9-3", "45-50"}));
    EXPECT_EQ(games[0].moves[0].column, 5);
    EXPECT_EQ(games[0].moves[2].column, 21);
    EXPECT_EQ(to_fen(games[0].final_position()), "W:WK3:BK50");
    // Only spaces and tabs, only before a digit, only after a separator.
    EXPECT_TRUE(read_pdn("1. 32-\n28 *", "t.pdn")[0].error);
    EXPECT_TRUE(read_pdn("1. 32 -28 *", "t.pdn")[0].error);
}

TEST(PdnTags, UnescapedQuotesInsideAValueAreKeptWithAWarning) {
    const auto games = read_pdn("[Event \"Open \"Noord\" 2019\"]\n[Black \"x\"][White \"y\"]\n1. 32-28 *", "t.pdn");
    ASSERT_EQ(games.size(), 1u);
    EXPECT_FALSE(games[0].error) << games[0].error->to_string();
    EXPECT_EQ(games[0].tag("Event"), "Open \"Noord\" 2019");
    EXPECT_EQ(games[0].tag("Black"), "x");
    EXPECT_EQ(games[0].tag("White"), "y");
    ASSERT_EQ(games[0].warnings.size(), 1u);
    EXPECT_EQ(games[0].warnings[0].line, 1);
    EXPECT_EQ(games[0].warnings[0].column, 14);
    EXPECT_EQ(games[0].warnings[0].text, "Event");
    // A quote with nothing after it on the line still ends the value: the missing ']' is the error.
    const auto broken = read_pdn("[Event \"a\" b\n1. 32-28 *", "t.pdn");
    ASSERT_TRUE(broken[0].error);
    EXPECT_NE(broken[0].error->message.find("expected ']' after its value"), std::string::npos);
}

TEST(PdnTags, NamesAreMatchedIgnoringCase) {
    const auto games = read_pdn("[fen \"W:WK1:BK50\"]\n[RESULT \"1-0\"]\n[gametype \"21\"]\n1. 1-6 *\n", "t.pdn");
    ASSERT_TRUE(games[0].error);  // GameType 21 is read, whatever its case
    const auto ok = read_pdn("[fen \"W:WK1:BK50\"]\n[RESULT \"1-0\"]\n1. 1-6 1-0\n", "t.pdn");
    EXPECT_FALSE(ok[0].error);
    EXPECT_EQ(ok[0].start, parse_fen("W:WK1:BK50"));
    EXPECT_EQ(ok[0].tag("Result"), "1-0");
    EXPECT_TRUE(ok[0].warnings.empty());
}

TEST(PdnResults, EmptyInputHasNoGames) {
    EXPECT_TRUE(read_pdn("", "t.pdn").empty());
    EXPECT_TRUE(read_pdn("\xEF\xBB\xBF  \n{only a comment}\n; and another\n", "t.pdn").empty());
}

TEST(PdnFile, MissingFileThrows) {
    EXPECT_THROW(read_pdn_file(data_path("no-such-file.pdn")), std::runtime_error);
}

TEST(PdnFile, DirectoryIsRefusedWithAClearMessage) {
    try {
        read_pdn_file(DTB_PDN_TEST_DATA);
        FAIL() << "a directory was read as a PDN file";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "cannot read PDN file " + std::string(DTB_PDN_TEST_DATA) +
                                             ": it is a directory, not a file");
    }
}

// ----- files written the way real files are -----
// real_*.pdn: 310 games in the forms real 10x10 files use: chess-style results in tags and as
// markers, tags in any case, squares padded with spaces ("2- 8"), CRLF and Latin-1 (the old export),
// FEN set-ups numbered from their move, games separated by markers alone, no final newline
// (real_setups.pdn), UTF-16 with a byte-order mark, comments, variations, NAGs, glued numbers
// ("29.45-40"), and the mistakes real files have: two typos, a Result tag that disagrees with the
// marker, a missing marker, a stray move number, quotes inside a tag value written without '\'.

const std::vector<std::string> kRealFiles = {"real_tournament.pdn", "real_old_export.pdn", "real_setups.pdn",
                                             "real_utf16le.pdn"};

TEST(PdnRealFiles, AtLeast99PercentOfTheGamesReadToTheirEnd) {
    std::size_t total = 0, read = 0;
    std::vector<PdnError> errors, warnings;
    for (const std::string& file : kRealFiles) {
        for (const PdnGame& g : read_data(file)) {
            ++total;
            if (g.error) errors.push_back(*g.error);
            else ++read;
            warnings.insert(warnings.end(), g.warnings.begin(), g.warnings.end());
        }
    }
    EXPECT_EQ(total, 310u);
    EXPECT_GE(read * 100, total * 99) << read << " of " << total;
    // The rest are the files' own typos, each reported where it is.
    ASSERT_EQ(errors.size(), 2u);
    EXPECT_EQ(errors[0].file, data_path("real_tournament.pdn"));
    EXPECT_EQ(std::tie(errors[0].line, errors[0].column, errors[0].text), std::make_tuple(815, 63, std::string("14-19")));
    EXPECT_EQ(errors[1].file, data_path("real_old_export.pdn"));
    EXPECT_EQ(std::tie(errors[1].line, errors[1].column, errors[1].text), std::make_tuple(1064, 23, std::string("15-30")));
    for (const PdnError& e : errors) EXPECT_NE(e.message.find("illegal move"), std::string::npos) << e.to_string();
    // And the harmless oddities, each located too.
    ASSERT_EQ(warnings.size(), 4u);
    EXPECT_EQ(std::tie(warnings[0].line, warnings[0].column), std::make_tuple(97, 32));
    EXPECT_NE(warnings[0].message.find("a '\"' inside the value of tag Event is not written"), std::string::npos);
    EXPECT_EQ(std::tie(warnings[1].line, warnings[1].column), std::make_tuple(477, 1));
    EXPECT_NE(warnings[1].message.find("termination marker 1-1 disagrees with the Result tag 2-0"), std::string::npos);
    EXPECT_EQ(std::tie(warnings[2].line, warnings[2].column), std::make_tuple(1084, 48));
    EXPECT_NE(warnings[2].message.find("move number 35. is not followed by a move"), std::string::npos);
    EXPECT_EQ(std::tie(warnings[3].line, warnings[3].column), std::make_tuple(1227, 1));
    EXPECT_NE(warnings[3].message.find("no termination marker"), std::string::npos);
    for (const PdnError& w : warnings) EXPECT_EQ(w.file, data_path("real_tournament.pdn"));
}

TEST(PdnRealFiles, ReadsEachFormTheWayItIsMeant) {
    const auto old = read_data("real_old_export.pdn");  // CRLF, Latin-1, padded squares, tags in any case
    EXPECT_EQ(old[0].tag("White"), "Sall, Roel");     // written [WHITE "..."]
    EXPECT_EQ(old[0].result, PdnResult::WhiteWins);
    EXPECT_EQ(old[0].result_written, "1-0");
    EXPECT_EQ(move_written(old[0], "2-8").line, 10);    // written " 2- 8"
    EXPECT_EQ(move_written(old[0], "2-8").column, 11);
    std::size_t chess = 0, accented = 0;
    for (const PdnGame& g : old) {
        chess += is_chess_result(g.result_written);
        accented += std::string(g.tag("Black").value_or("")).find("Dupr\xC3\xA9") != std::string::npos;
    }
    EXPECT_EQ(chess, old.size());
    EXPECT_GT(accented, 0u);

    const auto setups = read_data("real_setups.pdn");  // FEN set-ups, then 25 games without tags
    ASSERT_EQ(setups.size(), 70u);
    EXPECT_EQ(setups[0].start.side_to_move, Color::Black);
    EXPECT_EQ(setups[0].moves[0].number, 12);  // "12... 14-20"
    EXPECT_EQ(setups[0].tag("FEN"), setups[0].tag("fen"));
    for (std::size_t i = 45; i < setups.size(); ++i) {
        EXPECT_TRUE(setups[i].tags.empty());
        EXPECT_EQ(setups[i].start, parse_fen("W:W31-50:B1-20"));
    }
    EXPECT_EQ(setups[44].result, PdnResult::WhiteWins);
    EXPECT_EQ(setups.back().result, PdnResult::Draw);  // "1/2-1/2" at the very end of the file
    EXPECT_EQ(setups.back().result_written, "1/2-1/2");

    const auto utf16 = read_data("real_utf16le.pdn");
    ASSERT_EQ(utf16.size(), 30u);
    EXPECT_EQ(utf16[0].tag("Event"), "Toernooi \xC3\xA0 Paris");
}

// ----- the demo sample -----

TEST(PdnSample, SampleFileIsClean) {
    const auto games = read_pdn_file(std::string(DTB_SAMPLES_DIR) + "/sample.pdn");
    ASSERT_EQ(games.size(), 3u);
    for (const PdnGame& g : games) {
        EXPECT_FALSE(g.error) << g.error->to_string();
        EXPECT_TRUE(g.warnings.empty());
    }
    EXPECT_EQ(games[0].result, PdnResult::WhiteWins);
    EXPECT_EQ(games[1].result, PdnResult::Draw);
    EXPECT_EQ(games[1].tag("FEN"), "W:WK26,K45,9:BK5");
    EXPECT_EQ(games[2].result, PdnResult::WhiteWins);
    EXPECT_TRUE(generate_moves(games[2].final_position()).empty());  // Black has no move left
}

// A king capture that two ways with different pieces share its first and last squares ("36x16":
// 36x18x7x16 takes 27, 12 and 11; 36x13x2x16 takes 27, 8 and 11), as game records write it. The
// moves that follow tell which one was played (a piece that only one of them leaves on the board
// moves); when none does, the move stays ambiguous and the game is not read to its end.
constexpr const char* kAmbiguousKingCapture = "[FEN \"W:W32,K36,37,38,42,45,47:B3,6,8,11,12,14,19,27,34\"]\n1. 36x16 ";

PdnGame read_one(const std::string& text) {
    const std::vector<PdnGame> games = read_pdn(text, "ambiguous.pdn");
    EXPECT_EQ(games.size(), 1u);
    return games.at(0);
}

TEST(PdnMoves, AnAmbiguousCaptureIsResolvedByTheMovesAfterIt) {
    const Position start = parse_fen("W:W32,K36,37,38,42,45,47:B3,6,8,11,12,14,19,27,34");
    const PdnGame keeps_12 = read_one(std::string(kAmbiguousKingCapture) + "{sharp} $1 12-17 2. 32-27 *");
    ASSERT_FALSE(keeps_12.error) << keeps_12.error->to_string();
    ASSERT_EQ(keeps_12.moves.size(), 3u);
    EXPECT_EQ(keeps_12.moves[0].move, parse_move(start, "36x13x2x16"));
    EXPECT_EQ(keeps_12.moves[0].comment, "sharp");  // what follows the move stays with it
    EXPECT_EQ(keeps_12.moves[0].nags, std::vector<int>{1});
    EXPECT_EQ(keeps_12.moves[1].before, apply_move(start, parse_move(start, "36x13x2x16")));

    const PdnGame keeps_8 = read_one(std::string(kAmbiguousKingCapture) + "8-13 *");
    ASSERT_FALSE(keeps_8.error) << keeps_8.error->to_string();
    ASSERT_EQ(keeps_8.moves.size(), 2u);
    EXPECT_EQ(keeps_8.moves[0].move, parse_move(start, "36x18x7x16"));
}

TEST(PdnMoves, AnAmbiguousCaptureNothingResolvesFailsTheGameAtIt) {
    const PdnGame g = read_one(std::string(kAmbiguousKingCapture) + "19-24 2. 38-33 *");
    ASSERT_TRUE(g.error);
    EXPECT_EQ(g.error->line, 2);
    EXPECT_EQ(g.error->column, 4);
    EXPECT_EQ(g.error->text, "36x16");
    EXPECT_EQ(g.error->message,
              "ambiguous move \"36x16\": 2 readings of the game fit the moves that follow; write every landing square");
    EXPECT_TRUE(g.moves.empty());
    EXPECT_EQ(g.result, PdnResult::Unknown);
    // An illegal move after it is reported where it stands.
    const PdnGame illegal = read_one(std::string(kAmbiguousKingCapture) + "40-45 *");
    ASSERT_TRUE(illegal.error);
    EXPECT_EQ(illegal.error->text, "40-45");
    EXPECT_NE(illegal.error->message.find("illegal move \"40-45\"; Black to move at 1..."), std::string::npos)
        << illegal.error->message;
}

}  // namespace
}  // namespace dtb
