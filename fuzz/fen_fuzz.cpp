// parse_fen on arbitrary text: it either throws FenError or returns a valid position whose
// canonical FEN parses back to the same position and prints identically.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace dtb;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    Position pos;
    try {
        pos = parse_fen(text);
    } catch (const FenError& e) {
        fuzz::check(std::string_view(e.what()).size() > 0, "a FenError without a message");
        return 0;
    }
    fuzz::check(position_problem(pos) == nullptr, "parse_fen accepted an invalid position");
    const std::string canonical = to_fen(pos);
    Position again;
    try {
        again = parse_fen(canonical);
    } catch (const FenError&) {
        fuzz::check(false, "the canonical FEN of a parsed position does not parse");
    }
    fuzz::check(again == pos, "the canonical FEN parses to another position");
    fuzz::check(to_fen(again) == canonical, "the canonical FEN is not canonical");
    return 0;
}
