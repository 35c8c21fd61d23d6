// FEN (PDN 3.0) for international draughts: "W:W31-50:B1-20", "B:W18,24,K10:B12,K22".
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "rules/position.hpp"

namespace dtb {

// Thrown for text that is not a valid FEN; what() says what is wrong and at which column (1-based).
class FenError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Parses a FEN. Accepts colour sections in either order, ranges "a-b", "K" before a square or a
// range, an empty or missing side, trailing tags (":H0:F1") and surrounding whitespace.
// Rejects squares outside 1..50, a square used twice, a white man on 1-5 or a black man on 46-50,
// more than 20 pieces for one side, and any unexpected character.
Position parse_fen(std::string_view text);

// Canonical FEN: side to move, the white section then the black one, ascending squares,
// "K" before each king, no ranges.
std::string to_fen(const Position& pos);

}  // namespace dtb
