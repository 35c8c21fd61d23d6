// Tests of the PDN reader: every feature on tests/data/pdn/features.pdn, encodings, and malformed
// input (each broken game reports where and why; the games around it survive).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "rules/fen.hpp"
#include "rules/notation.hpp"
#include "rules/pdn.hpp"

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
    EXPECT_FALSE(g.tag("event"));  // names are case-sensitive
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
        {"Chess result", 2, 42, 16, "1-0", "\"1-0\" is a chess result"},
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
    EXPECT_FALSE(parse_pdn_result("1-0"));
    EXPECT_FALSE(parse_pdn_result("0-1"));
    EXPECT_FALSE(parse_pdn_result("1/2-1/2"));
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

TEST(PdnResults, ChessResultTagIsIgnoredWithAWarning) {
    const auto games = read_pdn("[Result \"1-0\"]\n1. 32-28 *\n", "t.pdn");
    EXPECT_FALSE(games[0].error);
    EXPECT_EQ(games[0].result, PdnResult::Unknown);
    ASSERT_EQ(games[0].warnings.size(), 1u);
    EXPECT_NE(games[0].warnings[0].message.find("not a draughts result"), std::string::npos);
}

TEST(PdnResults, EmptyInputHasNoGames) {
    EXPECT_TRUE(read_pdn("", "t.pdn").empty());
    EXPECT_TRUE(read_pdn("\xEF\xBB\xBF  \n{only a comment}\n; and another\n", "t.pdn").empty());
}

TEST(PdnFile, MissingFileThrows) {
    EXPECT_THROW(read_pdn_file(data_path("no-such-file.pdn")), std::runtime_error);
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

}  // namespace
}  // namespace dtb
