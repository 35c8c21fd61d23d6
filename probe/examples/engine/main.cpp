// Usage: probe_example DB_DIR FEN  ->  prints win/draw/loss/unknown for the side to move.
#include <iostream>

#include "probe/tablebase.hpp"
#include "rules/fen.hpp"

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    const dtb::Tablebase tb(argv[1], {.cache_mb = 64});  // share one Tablebase between all threads
    const dtb::ProbeResult r = tb.probe_wdl(dtb::parse_fen(argv[2]));
    std::cout << dtb::value_name(r.value) << (r.known() ? "" : " (" + std::string(r.reason) + ")") << '\n';
    return r.known() ? 0 : 1;
}
