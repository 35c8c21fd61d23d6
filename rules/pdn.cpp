#include "rules/pdn.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "rules/fen.hpp"
#include "rules/notation.hpp"
#include "rules/text.hpp"

namespace dtb {
namespace {

constexpr std::string_view kInitialFen = "W:W31-50:B1-20";
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
constexpr std::string_view kUtf16LeBom = "\xFF\xFE";
constexpr std::string_view kUtf16BeBom = "\xFE\xFF";
constexpr std::string_view kResultList = "2-0, 0-2, 1-1, 0-0, * or chess-style 1-0, 0-1, 1/2-1/2";

struct ResultForm {
    std::string_view text;
    PdnResult result;
    bool chess;
};

// Every way a result is written: the draughts way first (to_string uses those), then the chess way,
// which the PDN 3.0 reading grammar also accepts.
constexpr ResultForm kResultForms[] = {
    {"2-0", PdnResult::WhiteWins, false}, {"0-2", PdnResult::BlackWins, false},
    {"1-1", PdnResult::Draw, false},      {"0-0", PdnResult::BothLose, false},
    {"*", PdnResult::Unknown, false},     {"1-0", PdnResult::WhiteWins, true},
    {"0-1", PdnResult::BlackWins, true},  {"1/2-1/2", PdnResult::Draw, true},
    {"\xC2\xBD-\xC2\xBD", PdnResult::Draw, true},  // ½-½
};

const ResultForm* find_result_form(std::string_view text) {
    for (const ResultForm& f : kResultForms)
        if (f.text == text) return &f;
    return nullptr;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    });
}

// ---------------------------------------------------------------------------------------------
// Text encoding

// Converts file text to UTF-8 with "\n" line ends (so CRLF and LF files read the same).
std::string decode_text(std::string_view raw, bool utf8) {
    std::string out;
    out.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const auto c = static_cast<unsigned char>(raw[i]);
        if (c == '\r') {
            if (i + 1 == raw.size() || raw[i + 1] != '\n') out += '\n';
        } else if (c < 0x80 || utf8) {
            out += static_cast<char>(c);
        } else {  // Latin-1: the byte is the code point
            out += static_cast<char>(0xC0 | (c >> 6));
            out += static_cast<char>(0x80 | (c & 0x3F));
        }
    }
    return out;
}

std::string trim(std::string_view s) {
    const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    std::size_t b = 0, e = s.size();
    while (b < e && space(s[b])) ++b;
    while (e > b && space(s[e - 1])) --e;
    return std::string(s.substr(b, e - b));
}

// ---------------------------------------------------------------------------------------------
// Scanner: bytes with line and column tracking. Columns count characters, so a UTF-8 file's
// continuation bytes do not advance them; CR LF, LF and a lone CR each end one line.

struct Location {
    int line = 1;
    int column = 1;
};

class Scanner {
public:
    struct State {
        std::size_t index = 0;
        Location at;
    };

    Scanner(std::string_view text, bool utf8) : text_(text), utf8_(utf8) {}

    bool at_end() const { return state_.index >= text_.size(); }
    char peek(std::size_t ahead = 0) const {
        const std::size_t i = state_.index + ahead;
        return i < text_.size() ? text_[i] : '\0';
    }
    bool utf8() const { return utf8_; }
    Location location() const { return state_.at; }
    std::size_t offset() const { return state_.index; }
    std::string_view slice(std::size_t from, std::size_t to) const { return text_.substr(from, to - from); }
    State save() const { return state_; }
    void restore(const State& s) { state_ = s; }

    void advance() {
        const auto c = static_cast<unsigned char>(text_[state_.index++]);
        const bool line_end = c == '\n' || (c == '\r' && peek() != '\n');
        if (line_end) {
            ++state_.at.line;
            state_.at.column = 1;
        } else if (c != '\r' && !(utf8_ && is_utf8_continuation(c))) {
            ++state_.at.column;
        }
    }

    // Up to and including the end of the current line.
    void skip_line() {
        while (!at_end() && peek() != '\n' && peek() != '\r') advance();
        if (peek() == '\r') advance();
        if (peek() == '\n') advance();
    }

    // Spaces and tabs, not line ends.
    void skip_inline_space() {
        while (peek() == ' ' || peek() == '\t') advance();
    }

private:
    std::string_view text_;
    bool utf8_;
    State state_;
};

// ---------------------------------------------------------------------------------------------
// Lexer for movetext and the space between tags.

enum class TokenKind {
    End,             // end of file
    TagStart,        // '[' (not consumed: the tag reader starts at it)
    MoveNumber,      // "12." or "12..."
    Ellipsis,        // "..." on its own, as in "12. ... 28x19"
    Word,            // a move, a result, or unexpected text
    Nag,             // "$12"
    Annotation,      // "!", "?!", ...
    Comment,         // "{...}" or "; ..." (text without delimiters)
    VariationStart,  // '('
    VariationEnd,    // ')'
    Invalid,         // message says what is wrong; at least one byte was consumed
};

struct Token {
    TokenKind kind = TokenKind::End;
    std::string text;     // as written (a comment: its text without delimiters)
    std::string message;  // Invalid: what is wrong
    int number = 0;       // MoveNumber, Nag
    Location at;
};

constexpr std::string_view kNonAscii =
    "non-ASCII character in the movetext (only tag values and comments may contain one)";

bool is_non_ascii(char c) { return static_cast<unsigned char>(c) >= 0x80; }

bool is_word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == '/';
}

class Lexer {
public:
    explicit Lexer(Scanner& scanner) : sc_(scanner) {}

    Token next() {
        skip_space();
        Token t;
        t.at = sc_.location();
        if (sc_.at_end()) return t;
        const char c = sc_.peek();
        if (c == '[') return finish(t, TokenKind::TagStart);
        if (c == '{') return brace_comment(t);
        if (c == ';') return line_comment(t);
        if (c == '(') return consume(t, TokenKind::VariationStart);
        if (c == ')') return consume(t, TokenKind::VariationEnd);
        if (c == '$') return nag(t);
        if (c == '!' || c == '?') return run_of(t, TokenKind::Annotation, "!?");
        if (c == '.') return run_of(t, TokenKind::Ellipsis, ".");
        if (c == '*') return consume(t, TokenKind::Word);
        if (std::isdigit(static_cast<unsigned char>(c))) return number_or_word(t);
        if (is_word_char(c)) return word(t);
        return invalid_character(t);
    }

    Token peek() {
        const Scanner::State saved = sc_.save();
        Token t = next();
        sc_.restore(saved);
        return t;
    }

    // Whitespace, no-break spaces (text copied from web pages has them) and "%" escape lines (a '%'
    // in column 1 hides the rest of its line).
    void skip_space() {
        while (!sc_.at_end()) {
            if (sc_.peek() == '%' && sc_.location().column == 1)
                sc_.skip_line();
            else if (std::isspace(static_cast<unsigned char>(sc_.peek())))
                sc_.advance();
            else if (const std::size_t n = no_break_space_length())
                for (std::size_t i = 0; i < n; ++i) sc_.advance();
            else
                return;
        }
    }

    // Bytes of the U+00A0 at the scanner (2 in UTF-8, 1 in Latin-1), or 0 if there is none.
    std::size_t no_break_space_length() const {
        if (sc_.utf8()) return sc_.peek() == '\xC2' && sc_.peek(1) == '\xA0' ? 2 : 0;
        return sc_.peek() == '\xA0' ? 1 : 0;
    }

private:
    static Token finish(Token& t, TokenKind k) {
        t.kind = k;
        return t;
    }

    Token consume(Token& t, TokenKind k) {
        t.text = std::string(1, sc_.peek());
        sc_.advance();
        return finish(t, k);
    }

    Token run_of(Token& t, TokenKind k, std::string_view chars) {
        const std::size_t from = sc_.offset();
        while (!sc_.at_end() && chars.find(sc_.peek()) != std::string_view::npos) sc_.advance();
        t.text = std::string(sc_.slice(from, sc_.offset()));
        return finish(t, k);
    }

    // A word glued to non-ASCII text (say 32, an en dash, 28) is reported whole. Old database
    // exports pad squares to two characters ("1- 6", "47x 9"): spaces after a move's '-' or 'x'
    // followed by a digit are dropped, so the word is "1-6".
    Token word(Token& t) {
        std::string raw;
        append_word_chars(raw);
        while (continues_after_spaces(raw)) append_word_chars(raw);
        const auto glued = [&] { return is_word_char(sc_.peek()) || (is_non_ascii(sc_.peek()) && !no_break_space_length()); };
        const bool non_ascii = glued();  // is_word_char is false here
        const std::size_t from = sc_.offset();
        while (glued()) sc_.advance();
        raw += sc_.slice(from, sc_.offset());
        t.text = decode_text(raw, sc_.utf8());
        if (!non_ascii || find_result_form(t.text)) return finish(t, TokenKind::Word);  // "½-½" is a result
        t.message = "\"" + t.text + "\": " + std::string(kNonAscii);
        return finish(t, TokenKind::Invalid);
    }

    void append_word_chars(std::string& raw) {
        const std::size_t from = sc_.offset();
        while (is_word_char(sc_.peek())) sc_.advance();
        raw += sc_.slice(from, sc_.offset());
    }

    // Whether `raw` is a move cut by spaces after its separator ("47x" before " 9"); if so, the
    // spaces are skipped.
    bool continues_after_spaces(const std::string& raw) {
        if (raw.empty() || !std::isdigit(static_cast<unsigned char>(raw.front()))) return false;
        if (raw.back() != '-' && raw.back() != 'x' && raw.back() != 'X') return false;
        const Scanner::State before = sc_.save();
        sc_.skip_inline_space();
        if (sc_.offset() != before.index && std::isdigit(static_cast<unsigned char>(sc_.peek()))) return true;
        sc_.restore(before);
        return false;
    }

    // "12." and "12..." are move numbers (even glued to a move: "12.32-28"); "32-28" is a word.
    Token number_or_word(Token& t) {
        const Scanner::State start = sc_.save();
        int value = 0;
        while (std::isdigit(static_cast<unsigned char>(sc_.peek()))) {
            value = std::min(value * 10 + (sc_.peek() - '0'), 1000000);
            sc_.advance();
        }
        if (sc_.peek() != '.') {
            sc_.restore(start);
            return word(t);
        }
        run_of(t, TokenKind::MoveNumber, ".");
        t.number = value;
        return t;
    }

    Token nag(Token& t) {
        sc_.advance();
        const std::size_t from = sc_.offset();
        while (std::isdigit(static_cast<unsigned char>(sc_.peek())) && sc_.offset() - from < 6) sc_.advance();
        if (sc_.offset() == from) {
            t.text = "$";
            t.message = "'$' must be followed by a number (a NAG such as $1)";
            return finish(t, TokenKind::Invalid);
        }
        t.number = std::stoi(std::string(sc_.slice(from, sc_.offset())));
        return finish(t, TokenKind::Nag);
    }

    Token brace_comment(Token& t) {
        sc_.advance();
        const std::size_t from = sc_.offset();
        while (!sc_.at_end() && sc_.peek() != '}') sc_.advance();
        if (sc_.at_end()) {
            t.text = "{";
            t.message = "unterminated comment: '{' at line " + std::to_string(t.at.line) + ", column " +
                        std::to_string(t.at.column) + " has no closing '}' before the end of the file";
            return finish(t, TokenKind::Invalid);
        }
        t.text = trim(decode_text(sc_.slice(from, sc_.offset()), sc_.utf8()));
        sc_.advance();
        return finish(t, TokenKind::Comment);
    }

    Token line_comment(Token& t) {
        sc_.advance();
        const std::size_t from = sc_.offset();
        while (!sc_.at_end() && sc_.peek() != '\n' && sc_.peek() != '\r') sc_.advance();
        t.text = trim(decode_text(sc_.slice(from, sc_.offset()), sc_.utf8()));
        return finish(t, TokenKind::Comment);
    }

    Token invalid_character(Token& t) {
        if (is_non_ascii(sc_.peek())) return word(t);
        t.text = std::string(1, sc_.peek());
        t.message = "unexpected character '" + t.text + "' in the movetext";
        sc_.advance();
        return finish(t, TokenKind::Invalid);
    }

    Scanner& sc_;
};

// ---------------------------------------------------------------------------------------------
// Reader

// Abandons the current game; caught in read_game, never escapes this file.
struct GameFailure {
    PdnError error;
};

bool is_tag_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool looks_like_move(std::string_view text) {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) return false;
    for (char c : text)
        if (!std::isdigit(static_cast<unsigned char>(c)) && c != '-' && c != 'x' && c != 'X' && c != ':') return false;
    return true;
}

std::string move_label(int number, Color side) {
    return std::to_string(number) + (side == Color::White ? "." : "...");
}

std::string side_name(Color side) { return side == Color::White ? "White" : "Black"; }

class Reader {
public:
    Reader(std::string_view text, bool utf8, std::string_view file)
        : sc_(text, utf8), lex_(sc_), file_(file) {}

    std::vector<PdnGame> read_all() {
        std::vector<PdnGame> games;
        for (;;) {
            const Token t = lex_.peek();
            if (t.kind == TokenKind::End) break;
            if (t.kind == TokenKind::Comment) {  // between games: belongs to no game
                lex_.next();
                continue;
            }
            games.push_back(read_game());
        }
        return games;
    }

private:
    // What the reader learns about a game's result while reading it.
    struct ResultInfo {
        std::optional<PdnResult> tag;       // a valid Result tag
        std::string tag_text;               // as written
        std::optional<PdnResult> marker;    // the game termination marker
        std::string marker_text;            // as written
        Location marker_at;
        Location end_at;                    // where the game's text ended
    };

    PdnError error_at(Location at, std::string text, std::string message) const {
        return PdnError{file_, at.line, at.column, std::move(text), std::move(message)};
    }

    [[noreturn]] void fail(Location at, std::string text, std::string message) const {
        throw GameFailure{error_at(at, std::move(text), std::move(message))};
    }

    PdnGame read_game() {
        PdnGame game;
        game.line = lex_.peek().at.line;
        game.start = parse_fen(kInitialFen);
        ResultInfo result;
        read_tag_section(game, result);
        if (!game.error) {
            try {
                read_movetext(game, result);
            } catch (const GameFailure& failure) {
                game.error = failure.error;
            }
        }
        if (game.error) skip_rest_of_game(result);
        settle_result(game, result);
        std::stable_sort(game.warnings.begin(), game.warnings.end(), [](const PdnError& a, const PdnError& b) {
            return std::tie(a.line, a.column) < std::tie(b.line, b.column);
        });
        return game;
    }

    // ----- tags -----

    void read_tag_section(PdnGame& game, ResultInfo& result) {
        for (;;) {
            const Token t = lex_.peek();
            if (t.kind == TokenKind::Comment) {
                append_comment(game.comment, lex_.next().text);
                continue;
            }
            if (t.kind != TokenKind::TagStart) return;
            lex_.skip_space();  // peek() left the scanner before the '['
            try {
                std::optional<Location> unescaped_quote;
                game.tags.push_back(read_tag(unescaped_quote));
                if (unescaped_quote)
                    game.warnings.push_back(error_at(*unescaped_quote, game.tags.back().name,
                                                     "a '\"' inside the value of tag " + game.tags.back().name +
                                                         " is not written \\\"; read as part of the value"));
            } catch (const GameFailure& failure) {
                keep_first_error(game, failure.error);
                sc_.skip_line();  // resume at the next line's tag
                continue;
            }
            try {
                apply_tag(game, game.tags.back(), t.at, result);
            } catch (const GameFailure& failure) {
                keep_first_error(game, failure.error);
            }
        }
    }

    static void keep_first_error(PdnGame& game, const PdnError& error) {
        if (!game.error) game.error = error;
    }

    // [Name "value"], the scanner standing on '['.
    PdnTag read_tag(std::optional<Location>& unescaped_quote) {
        const Location at = sc_.location();
        sc_.advance();
        sc_.skip_inline_space();
        PdnTag tag;
        while (is_tag_name_char(sc_.peek())) {
            tag.name += sc_.peek();
            sc_.advance();
        }
        if (tag.name.empty()) fail_in_tag(at, "", "bad tag: expected a tag name after '['");
        sc_.skip_inline_space();
        if (sc_.peek() != '"')
            fail_in_tag(at, tag.name, "bad tag " + tag.name + ": expected '\"' before its value");
        sc_.advance();
        tag.value = read_tag_value(at, tag.name, unescaped_quote);
        sc_.skip_inline_space();
        if (sc_.peek() != ']')
            fail_in_tag(at, tag.name,
                        "bad tag " + tag.name + ": expected ']' after its value (a quote inside a value is \\\")");
        sc_.advance();
        return tag;
    }

    // Up to the closing '"'. Files write quotes inside values without the backslash
    // ([Event "Open "Noord""]): a '"' not followed by ']' while another '"' follows on the line is
    // taken as part of the value, and where the first was is returned in `unescaped_quote`.
    std::string read_tag_value(Location at, const std::string& name, std::optional<Location>& unescaped_quote) {
        std::string raw;
        for (;;) {
            const char c = sc_.peek();
            if (sc_.at_end() || c == '\n' || c == '\r')
                fail_in_tag(at, name, "bad tag " + name + ": its value has no closing '\"'");
            if (c == '"') {
                if (closes_tag_value()) break;
                if (!unescaped_quote) unescaped_quote = sc_.location();
            }
            if (c == '\\' && (sc_.peek(1) == '"' || sc_.peek(1) == '\\')) sc_.advance();
            raw += sc_.peek();
            sc_.advance();
        }
        sc_.advance();
        return decode_text(raw, sc_.utf8());
    }

    // At a '"' in a tag value: whether it closes the value (a ']' follows, or no other '"' on the line).
    bool closes_tag_value() {
        const Scanner::State at_quote = sc_.save();
        sc_.advance();
        sc_.skip_inline_space();
        bool closes = sc_.peek() == ']';
        while (!closes && !sc_.at_end() && sc_.peek() != '\n' && sc_.peek() != '\r' && sc_.peek() != '"') sc_.advance();
        closes = closes || sc_.peek() != '"';
        sc_.restore(at_quote);
        return closes;
    }

    // Tag errors at the end of the file say so: the usual cause is a truncated file.
    [[noreturn]] void fail_in_tag(Location at, const std::string& name, const std::string& message) const {
        if (sc_.at_end())
            fail(at, name, "unterminated tag" + (name.empty() ? std::string() : " " + name) +
                               " at the end of the file (truncated file?)");
        fail(sc_.location(), name, message);
    }

    // Tag names are matched ignoring case: files in the wild write "FEN", "Fen" and "fen".
    void apply_tag(PdnGame& game, const PdnTag& tag, Location at, ResultInfo& result) {
        if (equal_ignoring_case(tag.name, "GameType")) check_game_type(tag, at);
        if (equal_ignoring_case(tag.name, "FEN")) set_up(game, tag, at);
        if (equal_ignoring_case(tag.name, "Result")) {
            result.tag_text = trim(tag.value);
            result.tag = parse_pdn_result(result.tag_text);
            if (!result.tag)
                game.warnings.push_back(error_at(at, tag.value,
                                                 "Result tag \"" + tag.value + "\" is not a result (" +
                                                     std::string(kResultList) + "); ignored"));
        }
    }

    // GameType "20" or "20,W,10,10,N,0": only the first field matters.
    void check_game_type(const PdnTag& tag, Location at) const {
        const std::string first = trim(std::string_view(tag.value).substr(0, tag.value.find(',')));
        if (first == "20") return;
        fail(at, tag.value,
             "GameType \"" + tag.value + "\" is not international draughts (GameType 20); game skipped");
    }

    void set_up(PdnGame& game, const PdnTag& tag, Location at) {
        if (count_tags(game, "FEN") > 1)
            fail(at, tag.value, "a second FEN tag; the start position is ambiguous");
        try {
            game.start = parse_fen(tag.value);
        } catch (const FenError& e) {
            fail(at, tag.value, std::string("bad FEN tag: ") + e.what());
        }
    }

    static int count_tags(const PdnGame& game, std::string_view name) {
        int n = 0;
        for (const PdnTag& t : game.tags) n += equal_ignoring_case(t.name, name);
        return n;
    }

    // ----- movetext -----

    // One way of reading the moves since an ambiguous one ("36x16" where two captures of different
    // pieces start and end there): the moves that follow usually fit only one of them.
    struct Reading {
        Position pos;
        std::vector<PdnMove> moves;
    };
    static constexpr std::size_t kMostReadings = 16;

    struct MovetextState {
        Position pos;
        int number = 1;                       // of the next move, counted from the last written one
        std::optional<Token> written_number;  // "12." or "12..." not yet followed by its move
        std::vector<Reading> readings;        // while the last ambiguous move is unresolved, else empty
        std::optional<Token> ambiguous;       // that move
    };

    void read_movetext(PdnGame& game, ResultInfo& result) {
        MovetextState state{game.start, 1, std::nullopt, {}, std::nullopt};
        for (;;) {
            const Token peeked = lex_.peek();
            if (peeked.kind == TokenKind::End || peeked.kind == TokenKind::TagStart) {
                result.end_at = peeked.at;
                warn_stray_number(game, state);
                settle_ambiguity(state);
                return;
            }
            const Token t = lex_.next();
            if (t.kind == TokenKind::Word) {
                if (const auto r = parse_pdn_result(t.text)) {
                    result.marker = r;
                    result.marker_text = t.text;
                    result.marker_at = t.at;
                    warn_stray_number(game, state);
                    settle_ambiguity(state);
                    return;
                }
                play(game, t, state);
            } else {
                read_non_move(game, t, state);
            }
        }
    }

    // A move number followed by no move: by another number, the end of the game or the file.
    void warn_stray_number(PdnGame& game, MovetextState& state) const {
        if (!state.written_number) return;
        const Token& n = *state.written_number;
        game.warnings.push_back(error_at(n.at, std::to_string(n.number) + n.text,
                                         "move number " + std::to_string(n.number) + n.text +
                                             " is not followed by a move; ignored"));
        state.written_number.reset();
    }

    // The number written before a move takes over the count; after the first move it should agree.
    void take_written_number(PdnGame& game, MovetextState& state) const {
        if (!state.written_number) return;
        const Token& n = *state.written_number;
        if (!game.moves.empty() && n.number != state.number)
            game.warnings.push_back(error_at(n.at, std::to_string(n.number) + n.text,
                                             "move number " + std::to_string(n.number) + " where " +
                                                 std::to_string(state.number) +
                                                 " was expected; the moves are numbered on from it"));
        state.number = n.number;
        state.written_number.reset();
    }

    // The last move read, in every open reading; none before the first move.
    static std::vector<PdnMove*> last_moves(PdnGame& game, MovetextState& state) {
        std::vector<PdnMove*> out;
        for (Reading& r : state.readings) out.push_back(&r.moves.back());
        if (out.empty() && !game.moves.empty()) out.push_back(&game.moves.back());
        return out;
    }

    void read_non_move(PdnGame& game, const Token& t, MovetextState& state) {
        switch (t.kind) {
            case TokenKind::MoveNumber:
                warn_stray_number(game, state);
                state.written_number = t;
                break;
            case TokenKind::Ellipsis: break;
            case TokenKind::Nag:
                for (PdnMove* m : last_moves(game, state)) m->nags.push_back(t.number);
                break;
            case TokenKind::Annotation:
                for (PdnMove* m : last_moves(game, state)) m->annotation += t.text;
                break;
            case TokenKind::Comment:
                if (game.moves.empty() && state.readings.empty()) append_comment(game.comment, t.text);
                for (PdnMove* m : last_moves(game, state)) append_comment(m->comment, t.text);
                break;
            case TokenKind::VariationStart: skip_variation(t); break;
            case TokenKind::VariationEnd: fail(t.at, t.text, "')' without a matching '('");
            default: fail(t.at, t.text, t.message);  // Invalid
        }
    }

    static void append_comment(std::string& to, const std::string& text) {
        if (text.empty()) return;
        if (!to.empty()) to += ' ';
        to += text;
    }

    void play(PdnGame& game, const Token& t, MovetextState& state) {
        const Color side = state.pos.side_to_move;
        take_written_number(game, state);
        if (!looks_like_move(t.text)) fail(t.at, t.text, "unexpected text \"" + t.text + "\" in the movetext");
        std::vector<Reading> before = std::move(state.readings);
        if (before.empty()) before.push_back({state.pos, {}});
        std::vector<Reading> after;
        for (const Reading& r : before)
            for (const Move& move : moves_for(t, r.pos, state.number)) {
                Reading next = r;
                next.moves.push_back(PdnMove{r.pos, move, state.number, t.text, {}, {}, {}, t.at.line, t.at.column});
                next.pos = apply_move(r.pos, move);
                after.push_back(std::move(next));
            }
        if (after.empty()) (void)parse_move_or_fail(t, before.front().pos, state.number);  // says why
        if (after.size() > kMostReadings) fail(t.at, t.text, ambiguity_message(t, after.size()));
        if (after.size() > 1 && before.size() == 1) state.ambiguous = t;
        state.pos = after.front().pos;  // the side to move and the count agree in every reading
        if (after.size() == 1) {
            for (PdnMove& m : after.front().moves) game.moves.push_back(std::move(m));
            state.ambiguous.reset();
        } else {
            state.readings = std::move(after);
        }
        if (side == Color::Black) ++state.number;
    }

    // The legal moves the text denotes in `pos` (malformed text fails the game).
    std::vector<Move> moves_for(const Token& t, const Position& pos, int number) const {
        try {
            return matching_moves(pos, t.text);
        } catch (const NotationError& e) {
            fail_move(t, pos, number, e.what());
        }
    }

    Move parse_move_or_fail(const Token& t, const Position& pos, int number) const {
        try {
            return parse_move(pos, t.text);
        } catch (const NotationError& e) {
            fail_move(t, pos, number, e.what());
        }
    }

    [[noreturn]] void fail_move(const Token& t, const Position& pos, int number, const std::string& why) const {
        const Color side = pos.side_to_move;
        fail(t.at, t.text, why + "; " + side_name(side) + " to move at " + move_label(number, side) + " in " + to_fen(pos));
    }

    static std::string ambiguity_message(const Token& t, std::size_t readings) {
        return "ambiguous move \"" + t.text + "\": " + std::to_string(readings) +
               " readings of the game fit the moves that follow; write every landing square";
    }

    // At the end of the moves, an ambiguous move the moves after it did not resolve fails the game.
    void settle_ambiguity(const MovetextState& state) const {
        if (state.readings.empty()) return;
        const Token& t = *state.ambiguous;
        fail(t.at, t.text, ambiguity_message(t, state.readings.size()));
    }

    // Variations are skipped, but read token by token so a ')' inside a comment does not end one.
    void skip_variation(const Token& open) {
        int depth = 1;
        for (;;) {
            const Token t = lex_.peek();
            if (t.kind == TokenKind::End || t.kind == TokenKind::TagStart)
                fail(open.at, "(", "unterminated variation: '(' at line " + std::to_string(open.at.line) +
                                       ", column " + std::to_string(open.at.column) + " is never closed");
            lex_.next();
            if (t.kind == TokenKind::Invalid) fail(t.at, t.text, t.message);
            if (t.kind == TokenKind::VariationStart) ++depth;
            if (t.kind == TokenKind::VariationEnd && --depth == 0) return;
        }
    }

    // After an error: drop tokens up to the game termination marker or the next tag section.
    void skip_rest_of_game(ResultInfo& result) {
        int depth = 0;
        for (;;) {
            const Token t = lex_.peek();
            if (t.kind == TokenKind::End || t.kind == TokenKind::TagStart) return;
            lex_.next();
            if (t.kind == TokenKind::VariationStart) ++depth;
            if (t.kind == TokenKind::VariationEnd && depth > 0) --depth;
            if (t.kind != TokenKind::Word || depth > 0) continue;
            if (const auto r = parse_pdn_result(t.text)) {
                result.marker = r;
                result.marker_text = t.text;
                return;
            }
        }
    }

    void settle_result(PdnGame& game, const ResultInfo& result) const {
        game.result = result.marker.value_or(result.tag.value_or(PdnResult::None));
        game.result_written = result.marker ? result.marker_text : result.tag ? result.tag_text : "";
        if (game.error) return;  // the game is already reported; its ending is moot
        if (!result.marker) {
            game.warnings.push_back(error_at(result.end_at, "",
                                             "the game has no termination marker (" + std::string(kResultList) + ")"));
        } else if (result.tag && *result.tag != *result.marker) {
            game.warnings.push_back(error_at(result.marker_at, result.marker_text,
                                             "termination marker " + result.marker_text +
                                                 " disagrees with the Result tag " + result.tag_text));
        }
    }

    Scanner sc_;
    Lexer lex_;
    std::string file_;
};

}  // namespace

std::string_view to_string(PdnResult result) {
    switch (result) {
        case PdnResult::WhiteWins: return "2-0";
        case PdnResult::BlackWins: return "0-2";
        case PdnResult::Draw: return "1-1";
        case PdnResult::BothLose: return "0-0";
        case PdnResult::Unknown: return "*";
        case PdnResult::None: break;
    }
    return "";
}

std::optional<PdnResult> parse_pdn_result(std::string_view text) {
    if (const ResultForm* f = find_result_form(text)) return f->result;
    return std::nullopt;
}

bool is_chess_result(std::string_view text) {
    const ResultForm* f = find_result_form(text);
    return f && f->chess;
}

std::string PdnError::to_string() const {
    return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

std::optional<std::string_view> PdnGame::tag(std::string_view name) const {
    for (const PdnTag& t : tags)
        if (equal_ignoring_case(t.name, name)) return std::string_view(t.value);
    return std::nullopt;
}

Position PdnGame::final_position() const {
    return moves.empty() ? start : apply_move(moves.back().before, moves.back().move);
}

std::vector<PdnGame> read_pdn(std::string_view bytes, std::string_view file_name) {
    while (bytes.ends_with('\x1A')) bytes.remove_suffix(1);  // the end-of-file mark of old DOS files
    if (bytes.starts_with(kUtf16LeBom) || bytes.starts_with(kUtf16BeBom)) {
        const std::string text = utf16_to_utf8(bytes.substr(2), bytes.starts_with(kUtf16LeBom));
        return Reader(text, true, file_name).read_all();
    }
    // Without a mark: a PDN file starts with ASCII ('[', '{', a digit, space), so a zero byte beside
    // the first one can only be UTF-16.
    if (bytes.size() >= 2 && (bytes[0] == '\0') != (bytes[1] == '\0')) {
        const std::string text = utf16_to_utf8(bytes, bytes[1] == '\0');
        return Reader(text, true, file_name).read_all();
    }
    if (bytes.starts_with(kUtf8Bom)) bytes.remove_prefix(kUtf8Bom.size());
    return Reader(bytes, is_valid_utf8(bytes), file_name).read_all();
}

std::vector<PdnGame> read_pdn_file(const std::string& path) {
    // Checked first: the standard library reads a directory as an empty file, or throws its own
    // message. Pipes and devices are read like files (a process substitution is a fine source).
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec) throw std::runtime_error("cannot open PDN file " + path + ": " + ec.message());
    if (std::filesystem::is_directory(status))
        throw std::runtime_error("cannot read PDN file " + path + ": it is a directory, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open PDN file " + path + ": " + std::strerror(errno));
    std::string bytes;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) bytes.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw std::runtime_error("cannot read PDN file " + path + ": " + std::strerror(errno));
    return read_pdn(bytes, path);
}

}  // namespace dtb
