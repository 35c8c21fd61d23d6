// PDN 3.0 reader for international draughts (GameType 20): a whole file in, one PdnGame per game.
//
// Every move is matched to exactly one legal move of the position before it, so a game read
// without error is a legal game. Bad input never throws: an illegal or ambiguous move, a bad tag, a
// wrong GameType, a bad FEN or broken movetext stops that game (PdnGame::error says where and
// why) and reading resumes at the next game, so one damaged game never loses the others.
// Tag values and comments are returned in UTF-8; a file that is not valid UTF-8 is read as
// Latin-1 (ISO 8859-1) and converted; a file starting with a UTF-16 byte-order mark (either byte
// order), or without one but with a zero byte beside its first character, is decoded as UTF-16;
// one with a UTF-8 mark as UTF-8.
// Besides PDN 3.0's own forms, the reader takes what real files write and its reading grammar
// allows: results written the chess way (1-0, 0-1, 1/2-1/2), spaces after a move's separator
// ("1- 6", "47x 9", as old database exports pad squares), tag names in any case, quotes inside a
// tag value without their backslash (with a warning), no-break spaces as space, and a DOS
// end-of-file mark (Ctrl-Z) at the end.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/movegen.hpp"

namespace dtb {

// The game termination marker. None: the game has neither a marker nor a valid Result tag.
enum class PdnResult : std::uint8_t { None, WhiteWins, BlackWins, Draw, BothLose, Unknown };

// "2-0", "0-2", "1-1", "0-0", "*"; "" for None.
std::string_view to_string(PdnResult result);

// The result written as above, or the chess way: "1-0" (WhiteWins), "0-1" (BlackWins), "1/2-1/2"
// or "½-½" (Draw); nullopt for anything else.
std::optional<PdnResult> parse_pdn_result(std::string_view text);

// Whether `text` is a result written the chess way ("1-0", "0-1", "1/2-1/2", "½-½").
bool is_chess_result(std::string_view text);

// A problem found in a file, located at a 1-based line and column (columns count characters).
struct PdnError {
    std::string file;
    int line = 0;
    int column = 0;
    std::string text;     // the offending move, token or tag name; may be empty
    std::string message;  // e.g. "illegal move \"28-22\"; White to move at 2. in W:W28,31,...:B1,..."

    // "file:line:column: message"
    std::string to_string() const;
};

struct PdnTag {
    std::string name;
    std::string value;  // escapes (\" and \\) resolved
};

struct PdnMove {
    Position before;          // the position the move is played in
    Move move{};              // the one legal move the text denotes
    int number = 0;           // move number: the last "12." or "12..." seen, counted on when absent
    std::string text;         // as written ("32-28", "28x19", "47x38x24x13x36"), spaces inside dropped
    std::string annotation;   // "!", "?", "!!", "??", "!?", "?!" or empty
    std::vector<int> nags;    // numeric annotation glyphs ($n), in order
    std::string comment;      // comments following the move, joined by a space
    int line = 0;
    int column = 0;
};

struct PdnGame {
    std::vector<PdnTag> tags;  // in file order
    Position start;            // from the FEN tag, else the initial position
    std::vector<PdnMove> moves;
    // The game termination marker; the Result tag's value when the marker is missing.
    PdnResult result = PdnResult::None;
    std::string result_written;      // that result as written ("1-0" for a chess-style 2-0); "" for None
    std::optional<PdnError> error;   // set when the game could not be read to its end
    // Harmless oddities, in file order: a missing marker, a Result tag that
    // disagrees with it, a move number not followed by a move or not the one expected.
    std::vector<PdnError> warnings;
    std::string comment;             // comments between the tags and the first move
    int line = 0;                    // where the game starts in the file

    // Value of the first tag with this name, ignoring case ("FEN", "Fen", "fen").
    std::optional<std::string_view> tag(std::string_view name) const;

    // The position after the last move read (the start position if there is none).
    Position final_position() const;
};

// Reads every game of a PDN file. `bytes` is the whole file; `file_name` is only used in messages.
std::vector<PdnGame> read_pdn(std::string_view bytes, std::string_view file_name);

// Reads a PDN file from disk. Throws std::runtime_error, saying why, when it cannot be read (missing,
// a directory, unreadable).
std::vector<PdnGame> read_pdn_file(const std::string& path);

}  // namespace dtb
