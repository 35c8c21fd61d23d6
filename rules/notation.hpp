// Move notation: "32-28", "28x19", "25x3"; "47x38x24x13x36" when from-x-to alone is ambiguous.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rules/movegen.hpp"

namespace dtb {

class NotationError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Writes a legal move of `pos`: from-to or from-x-to, or every landing square when another legal
// move shares the same start and end squares.
std::string move_to_string(const Position& pos, const Move& move);

// Reads a move of `pos` written as above, or with any subset of the intermediate landing squares
// ("28x19x10"). Throws NotationError when the text is malformed, matches no legal move, or matches
// more than one.
Move parse_move(const Position& pos, std::string_view text);

// Every legal move of `pos` the text can denote (none, one, or several when it is ambiguous).
// Throws NotationError when the text is malformed.
std::vector<Move> matching_moves(const Position& pos, std::string_view text);

}  // namespace dtb
