#include "rules/notation.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "rules/text.hpp"

namespace dtb {
namespace {

std::string join(const std::vector<int>& squares, char separator) {
    std::string out;
    for (std::size_t i = 0; i < squares.size(); ++i) {
        if (i) out += separator;
        out += std::to_string(squares[i]);
    }
    return out;
}

struct WrittenMove {
    std::vector<int> squares;  // start, any intermediate landings, end
    bool capture = false;
};

WrittenMove read_written(std::string_view text) {
    WrittenMove written;
    std::size_t i = 0;
    const auto bad = [&](const std::string& why) {
        throw NotationError("invalid move \"" + std::string(text) + "\": " + why);
    };
    while (true) {
        if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) bad("expected a square number");
        int value = 0;
        std::size_t digits = 0;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
            value = value * 10 + (text[i++] - '0');
            if (++digits > 2) bad("square number too long");
        }
        if (value < 1 || value > kNumSquares) bad("square " + std::to_string(value) + " is outside 1..50");
        written.squares.push_back(value);
        if (i == text.size()) break;
        const char sep = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
        if (sep == 'x' || sep == ':')
            written.capture = true;
        else if (sep != '-')
            bad("unexpected character " + quoted_character(text, i));
        if (sep == '-' && written.squares.size() > 1) bad("a quiet move has only two squares");
        ++i;
    }
    if (written.squares.size() < 2) bad("expected two squares");
    return written;
}

// Whether `inner` appears in order inside path[1 .. size-2].
bool visits_in_order(const std::vector<int>& path, const std::vector<int>& inner) {
    auto it = path.begin() + 1;
    const auto last = path.end() - 1;
    for (int sq : inner) {
        it = std::find(it, last, sq);
        if (it == last) return false;
        ++it;
    }
    return true;
}

bool matches(const Position& pos, const Move& move, const WrittenMove& written) {
    if (square_of_bit(move.from) != written.squares.front() || square_of_bit(move.to) != written.squares.back())
        return false;
    if (written.capture != move.is_capture()) return false;
    if (written.squares.size() == 2) return true;
    const std::vector<int> inner(written.squares.begin() + 1, written.squares.end() - 1);
    for (const auto& path : move_paths(pos, move))
        if (visits_in_order(path, inner)) return true;
    return false;
}

}  // namespace

std::string move_to_string(const Position& pos, const Move& move) {
    const int from = square_of_bit(move.from);
    const int to = square_of_bit(move.to);
    if (!move.is_capture()) return std::to_string(from) + "-" + std::to_string(to);
    bool ambiguous = false;
    for (const Move& other : generate_moves(pos))
        if (other != move && other.from == move.from && other.to == move.to) ambiguous = true;
    if (!ambiguous) return std::to_string(from) + "x" + std::to_string(to);
    const auto paths = move_paths(pos, move);
    if (paths.empty()) throw NotationError("move_to_string: not a legal capture");
    return join(paths.front(), 'x');
}

std::vector<Move> matching_moves(const Position& pos, std::string_view text) {
    const WrittenMove written = read_written(text);
    std::vector<Move> found;
    for (const Move& move : generate_moves(pos))
        if (matches(pos, move, written)) found.push_back(move);
    return found;
}

Move parse_move(const Position& pos, std::string_view text) {
    const std::vector<Move> found = matching_moves(pos, text);
    if (found.empty()) throw NotationError("illegal move \"" + std::string(text) + "\"");
    if (found.size() > 1)
        throw NotationError("ambiguous move \"" + std::string(text) + "\": " + std::to_string(found.size()) +
                            " legal moves match; write every landing square");
    return found.front();
}

}  // namespace dtb
