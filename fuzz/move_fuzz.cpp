// parse_move on arbitrary text. The input is "FEN\nmove": a first line that is a valid FEN sets the
// position (the initial position otherwise), the rest is the move. A move that parses is one of the
// legal moves, and every legal move's written form reads back to that same move.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "rules/fen.hpp"
#include "rules/notation.hpp"

namespace {

constexpr std::string_view kInitial = "W:W31-50:B1-20";

dtb::Position position_of(std::string_view fen) {
    try {
        return dtb::parse_fen(fen);
    } catch (const dtb::FenError&) {
        return dtb::parse_fen(kInitial);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace dtb;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t newline = input.find('\n');
    const Position pos = position_of(newline == std::string_view::npos ? kInitial : input.substr(0, newline));
    const std::string_view text = newline == std::string_view::npos ? input : input.substr(newline + 1);

    const MoveList legal = generate_moves(pos);
    for (const Move& m : legal) {
        const std::string written = move_to_string(pos, m);
        Move back{};
        try {
            back = parse_move(pos, written);
        } catch (const NotationError&) {
            fuzz::check(false, "the written form of a legal move does not parse");
        }
        fuzz::check(back == m, "the written form of a legal move reads back as another move");
    }
    Move move{};
    try {
        move = parse_move(pos, text);
    } catch (const NotationError& e) {
        fuzz::check(std::string_view(e.what()).size() > 0, "a NotationError without a message");
        return 0;
    }
    bool found = false;
    for (const Move& m : legal) found = found || m == move;
    fuzz::check(found, "parse_move returned a move that is not legal");
    return 0;
}
