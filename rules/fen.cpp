#include "rules/fen.hpp"

#include <cctype>

#include "rules/text.hpp"

namespace dtb {
namespace {

constexpr int kMaxPiecesPerSide = 20;

class FenParser {
public:
    explicit FenParser(std::string_view text) : text_(text) {}

    Position parse() {
        skip_space_trim();
        refuse_control_characters();
        Position pos;
        pos.side_to_move = read_colour("side to move ('W' or 'B')");
        bool seen[2] = {false, false};
        while (pos_ < end_) {
            expect(':');
            if (pos_ == end_) break;  // tolerate a trailing colon
            const char c = upper(text_[pos_]);
            if (c == 'W' || c == 'B') {
                const int col = static_cast<int>(pos_);
                const Color colour = read_colour("colour");
                if (seen[static_cast<int>(colour)])
                    fail(col, std::string("the ") + (colour == Color::White ? "white" : "black") +
                                  " section appears twice");
                seen[static_cast<int>(colour)] = true;
                read_pieces(pos, colour);
            } else if (std::isalpha(static_cast<unsigned char>(c)) && c != 'K') {
                skip_tag();
            } else {
                fail(static_cast<int>(pos_), unexpected());
            }
        }
        if (!seen[0] && !seen[1]) fail(static_cast<int>(pos_), "no white or black section");
        return pos;
    }

private:
    static char upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }

    [[noreturn]] void fail(int index, const std::string& what) const {
        throw FenError("invalid FEN \"" + escape_control_characters(text_) + "\" at column " + std::to_string(index + 1) +
                       ": " + what);
    }

    // A tab or line end inside a FEN would break the line or the columns of any output echoing it.
    void refuse_control_characters() const {
        const std::size_t at = find_control_character(text_.substr(pos_, end_ - pos_));
        if (at == std::string_view::npos) return;
        fail(static_cast<int>(pos_ + at), "a control character (" + escape_control_characters(text_.substr(pos_ + at, 1)) +
                                              "); a FEN never contains one");
    }

    std::string unexpected() const {
        if (pos_ >= end_) return "unexpected end of text";
        return "unexpected character " + quoted_character(text_, pos_);
    }

    void skip_space_trim() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        end_ = text_.size();
        while (end_ > pos_ && std::isspace(static_cast<unsigned char>(text_[end_ - 1]))) --end_;
        if (end_ > pos_ && text_[end_ - 1] == '.') --end_;  // PDN files often end a FEN with '.'
        if (pos_ == end_) fail(static_cast<int>(pos_), "empty FEN");
    }

    void expect(char c) {
        if (pos_ >= end_ || text_[pos_] != c) fail(static_cast<int>(pos_), unexpected() + ", expected '" + c + "'");
        ++pos_;
    }

    Color read_colour(const char* what) {
        if (pos_ < end_) {
            const char c = upper(text_[pos_]);
            if (c == 'W' || c == 'B') {
                ++pos_;
                return c == 'W' ? Color::White : Color::Black;
            }
        }
        fail(static_cast<int>(pos_), unexpected() + ", expected the " + what);
    }

    int read_square() {
        const int start = static_cast<int>(pos_);
        int value = 0;
        int digits = 0;
        while (pos_ < end_ && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
            if (digits < 4) value = value * 10 + (text_[pos_] - '0');
            ++digits;
            ++pos_;
        }
        if (digits == 0) fail(start, unexpected() + ", expected a square number");
        if (value < 1 || value > kNumSquares || digits > 2)
            fail(start, "square " + std::string(text_.substr(start, pos_ - start)) + " is outside 1..50");
        return value;
    }

    void read_pieces(Position& pos, Color colour) {
        int count = 0;
        while (pos_ < end_ && text_[pos_] != ':') {
            if (count > 0) expect(',');
            const bool king = pos_ < end_ && upper(text_[pos_]) == 'K';
            if (king) ++pos_;
            const int item = static_cast<int>(pos_);
            const int first = read_square();
            int last = first;
            if (pos_ < end_ && text_[pos_] == '-') {
                ++pos_;
                last = read_square();
                if (last < first) fail(item, "range " + std::to_string(first) + "-" + std::to_string(last) + " is descending");
            }
            for (int s = first; s <= last; ++s) place(pos, colour, king, s, item);
            count += last - first + 1;
        }
    }

    void place(Position& pos, Color colour, bool king, int square, int column) {
        const Bitboard b = square_bit(square);
        if (pos.occupied() & b) fail(column, "square " + std::to_string(square) + " is used twice");
        if (!king && colour == Color::White && (b & kWhitePromotionRow))
            fail(column, "a white man on square " + std::to_string(square) + " (white men never stand on 1-5)");
        if (!king && colour == Color::Black && (b & kBlackPromotionRow))
            fail(column, "a black man on square " + std::to_string(square) + " (black men never stand on 46-50)");
        (colour == Color::White ? pos.white : pos.black) |= b;
        if (king) pos.kings |= b;
        if (count_bits(pos.pieces(colour)) > kMaxPiecesPerSide)
            fail(column, std::string("more than 20 ") + (colour == Color::White ? "white" : "black") + " pieces");
    }

    // A trailing tag such as "H0" or "F12": one letter, then digits.
    void skip_tag() {
        ++pos_;
        while (pos_ < end_ && text_[pos_] != ':') {
            if (!std::isdigit(static_cast<unsigned char>(text_[pos_]))) fail(static_cast<int>(pos_), unexpected());
            ++pos_;
        }
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t end_ = 0;
};

void append_side(std::string& out, char letter, Bitboard pieces, Bitboard kings) {
    out += ':';
    out += letter;
    bool first = true;
    for (int s = 1; s <= kNumSquares; ++s) {
        const Bitboard b = square_bit(s);
        if (!(pieces & b)) continue;
        if (!first) out += ',';
        first = false;
        if (kings & b) out += 'K';
        out += std::to_string(s);
    }
}

}  // namespace

Position parse_fen(std::string_view text) { return FenParser(text).parse(); }

std::string to_fen(const Position& pos) {
    std::string out(1, pos.side_to_move == Color::White ? 'W' : 'B');
    append_side(out, 'W', pos.white, pos.kings);
    append_side(out, 'B', pos.black, pos.kings);
    return out;
}

}  // namespace dtb
