// read_pdn on arbitrary bytes: it never throws, every game it returns is a legal game (each move one
// of the legal moves of the position before it, the positions chained by the moves), and the text it
// returns (tags, comments, messages) is valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "rules/pdn.hpp"
#include "rules/text.hpp"

namespace {

void check_located(const dtb::PdnError& e) {
    using dtb::fuzz::check;
    check(e.line >= 1 && e.column >= 1, "a PDN error or warning without a line and column");
    check(!e.message.empty(), "a PDN error or warning without a message");
    check(dtb::is_valid_utf8(e.message) && dtb::is_valid_utf8(e.text), "a PDN message that is not UTF-8");
}

void check_game(const dtb::PdnGame& game) {
    using namespace dtb;
    using fuzz::check;
    for (const PdnTag& tag : game.tags)
        check(is_valid_utf8(tag.name) && is_valid_utf8(tag.value), "a PDN tag that is not UTF-8");
    check(is_valid_utf8(game.comment), "a PDN game comment that is not UTF-8");
    if (game.result != PdnResult::None) check(parse_pdn_result(to_string(game.result)) == game.result, "a result that does not read back");
    if (game.error) check_located(*game.error);
    for (const PdnError& w : game.warnings) check_located(w);

    Position pos = game.start;
    for (const PdnMove& m : game.moves) {
        check(m.before == pos, "a PDN move's position is not the one the previous move led to");
        bool legal = false;
        for (const Move& candidate : generate_moves(pos)) legal = legal || candidate == m.move;
        check(legal, "a PDN move that is not legal");
        check(is_valid_utf8(m.comment) && is_valid_utf8(m.text), "a PDN move comment that is not UTF-8");
        pos = apply_move(pos, m.move);
    }
    check(game.final_position() == pos, "final_position is not where the moves lead");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    for (const dtb::PdnGame& game : dtb::read_pdn(bytes, "fuzz.pdn")) check_game(game);
    return 0;
}
