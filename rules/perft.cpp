#include "rules/perft.hpp"

#include "rules/movegen.hpp"

namespace dtb {

std::uint64_t perft(const Position& pos, int depth) {
    if (depth <= 0) return 1;
    if (depth == 1) return count_moves(pos);  // bulk counting at the frontier
    std::uint64_t nodes = 0;
    for (const Move& m : generate_moves(pos)) nodes += perft(apply_move(pos, m), depth - 1);
    return nodes;
}

}  // namespace dtb
