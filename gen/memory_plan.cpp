#include "gen/memory_plan.hpp"

#include <algorithm>
#include <utility>

#include "gen/class_solver.hpp"
#include "gen/dtw_solver.hpp"
#include "gen/pair_layout.hpp"
#include "gen/slices.hpp"
#include "gen/solver.hpp"

namespace dtb {
namespace {

// Bytes a position of a large DTW subgame: its 4-byte cell, 4 bytes if initialisation bounds its
// distance (a capture, a win by a man move, a loss with no king move; never a draw), and two
// frontier bits. Measured: the DTW pass of the kings-only pair KKKvKK (42,375,200 positions)
// peaked at 310,444 kB with the tables it read, about 7.3 bytes a position, 2.5 of them per
// position of the pair.
constexpr std::uint64_t kDtwSubgameBytes = 8;

}  // namespace

MemoryPlan::MemoryPlan(std::vector<Material> plan, bool dtw, std::uint64_t limit_bytes,
                       std::function<std::uint64_t(const Material&)> positions)
    : plan_(std::move(plan)), dtw_(dtw), limit_bytes_(limit_bytes), positions_(std::move(positions)) {}

std::set<TableId> MemoryPlan::reads_of(const Material& m) const {
    std::set<TableId> out;
    for (const Material& side : {m, m.mirror()}) {
        if (dtw_) out.insert({side, false});
        for (const Material& s : successor_materials(side)) {
            out.insert({s, false});
            if (dtw_) out.insert({s, true});
        }
    }
    return out;
}

std::uint64_t MemoryPlan::table_bytes(const TableId& t) const {
    const std::uint64_t n = positions_(t.material);
    return t.dtw ? n * sizeof(Dtw) : (n + 3) / 4;
}

// Per position of the pair: the WDL solver's value (2 bits, the table later pairs read) and
// capture flag; the DTW solver's distances (2 bytes), capture bits and WDL; and the list of the
// pair's subgames and what listing a level takes (PairLayout::subgame_list_bytes, listing_bytes).
// Per position of the subgames held at once: the WDL solver's (held_subgames_bytes); the DTW
// solver's (kDtwSubgameBytes), one a thread.
// A kings-only pair's WDL: 4 bits a symmetry class and the values kept (compact: not kept).
std::uint64_t MemoryPlan::solver_bytes(const Material& m, bool compact_cells) const {
    return solver_bytes_in(m, slices_of(m), compact_cells);
}

std::uint64_t MemoryPlan::solver_bytes_in(const Material& m, int slices, bool compact_cells) const {
    if (dtw_) {
        const std::uint64_t pair = positions_(m) + (m.mirror() == m ? 0 : positions_(m.mirror()));
        // Its subgames are solved side by side, one a thread, whatever their size.
        const std::uint64_t subgames = PairLayout::largest_subgame(m) * kDtwSubgameBytes * static_cast<std::uint64_t>(threads_);
        return pair * 5 / 2 + subgames + PairLayout::subgame_list_bytes(m, pair) +
               PairLayout::listing_bytes(m);
    }
    return wdl_solver_bytes(m, slices, compact_cells);
}

std::uint64_t MemoryPlan::wdl_subgame_bytes(std::uint64_t positions, bool compact_cells) {
    switch (subgame_solving(positions, SolverOptions{.compact_large_subgames = compact_cells})) {
        case SubgameSolving::Queued: return positions * (2 + kQueuedPositionBytes);
        case SubgameSolving::InRounds: return positions * 19 / 8;
        case SubgameSolving::Compact: return positions * 3 / 4;
    }
    return positions * 19 / 8;  // not reached: the switch names every way
}

std::uint64_t MemoryPlan::held_subgames_bytes(std::uint64_t largest, bool compact_cells) const {
    const SolverOptions options{.compact_large_subgames = compact_cells};
    const auto others = static_cast<std::uint64_t>(threads_ - 1);
    if (!solved_alone(largest, options)) return (others + 1) * wdl_subgame_bytes(largest, compact_cells);
    // The other threads' subgames are smaller than the smallest solved alone.
    const std::uint64_t not_alone = smallest_subgame_solved_alone(options) - 1;
    return wdl_subgame_bytes(largest, compact_cells) + others * wdl_subgame_bytes(std::min(largest, not_alone), compact_cells);
}

std::uint64_t MemoryPlan::wdl_solver_bytes(const Material& m, int slices, bool compact_cells) const {
    const std::uint64_t pair = positions_(m) + (m.mirror() == m ? 0 : positions_(m.mirror()));
    const std::uint64_t subgame = PairLayout::largest_subgame(m);
    // A kings-only pair is one subgame, solved in symmetry classes, a nibble a class
    // (gen/class_solver.hpp), and its values (2 bits a position) kept for later pairs; compact,
    // they are written to the files without being held.
    if (m.men() == 0) return KingClassValues::solver_bytes(m) + (compact_cells ? 0 : (pair + 3) / 4);
    const std::uint64_t cells = held_subgames_bytes(subgame, compact_cells);
    if (slices <= 1) return pair * 3 / 8 + cells + PairLayout::subgame_list_bytes(m, pair) + PairLayout::listing_bytes(m);
    // Sliced: the largest slice's values and boundary, in the shares of the pair the levels give.
    const std::vector<std::uint64_t> by_level = pair_positions_by_level(m);
    std::uint64_t largest = 0, laid_out = 0;
    for (const std::uint64_t p : by_level) laid_out += p;
    for (const Slice& s : pair_slices(m, slices)) largest = std::max(largest, slice_solver_bytes(m, s, by_level));
    return static_cast<std::uint64_t>(static_cast<unsigned __int128>(largest) * pair / std::max<std::uint64_t>(laid_out, 1)) + cells +
           PairLayout::listing_bytes(m);
}

std::uint64_t MemoryPlan::bytes_read_by(const Material& m) const {
    std::uint64_t out = 0;
    for (const TableId& t : reads_of(m)) out += table_bytes(t);
    return out;
}

int MemoryPlan::slices_of(const Material& m) const {
    if (slices_ != kSlicesWithinLimit) return slices_;
    // The distances to win are solved a whole pair at a time.
    if (limit_bytes_ == 0 || dtw_ || solver_bytes_in(m, 1, false) + bytes_read_by(m) <= limit_bytes_) return 1;
    return slices_within(m, limit_bytes_ / 2);
}

int MemoryPlan::slices_within(const Material& m, std::uint64_t bytes) const {
    const int levels = static_cast<int>(pair_positions_by_level(m).size());
    for (int k = 2; k < levels; ++k)
        if (solver_bytes_in(m, k, false) <= bytes) return k;
    if (m.men() == 0 || levels <= 1 || solver_bytes_in(m, levels, false) <= bytes) return std::max(levels, 1);
    // Levels cut into parts: the fewest slices that fit, found by doubling and then halving (more
    // parts never need more memory), up to a part a subgame.
    const int most = kMostSlicesPerPair;
    int fits = levels;
    while (fits < most && solver_bytes_in(m, fits, false) > bytes) fits = std::min(most, fits * 2);
    int too_few = std::max(fits / 2, levels);
    while (fits - too_few > 1) {
        const int mid = too_few + (fits - too_few) / 2;
        (solver_bytes_in(m, mid, false) <= bytes ? fits : too_few) = mid;
    }
    return fits;
}

MemoryPlan::PairMemory MemoryPlan::pair_memory(std::size_t current) const {
    PairMemory out;
    std::vector<TableId> wdl;
    const Material& m = plan_[current];
    std::uint64_t tables = 0;
    for (const TableId& t : reads_of(m)) {
        tables += table_bytes(t);
        // The pair's own WDL (read by its DTW pass) is solved, not read, when the WDL pass runs.
        if (!t.dtw && t.material != m && t.material != m.mirror()) wdl.push_back(t);
    }
    out.bytes = tables + solver_bytes(m);
    if (limit_bytes_ == 0 || out.bytes <= limit_bytes_) return out;
    // Only the WDL pass can be bounded. With distances its solver is far smaller than the one that
    // passes the limit, which no bound of the WDL pass brings down: if the WDL pass fits as it is,
    // it is left as it is (then the pair is solved in one pass, whose peak is the DTW pass's).
    const int slices = slices_of(m);
    std::uint64_t wdl_pass = tables + wdl_solver_bytes(m, slices, false);
    const auto bounded = [&] {
        if (!dtw_) out.bytes = wdl_pass;
        return out;
    };
    if (wdl_pass <= limit_bytes_) return out;
    if (PairLayout::largest_subgame(m) >= kLargeSubgamePositions) {
        out.compact_cells = true;
        wdl_pass = tables + wdl_solver_bytes(m, slices, true);
        if (wdl_pass <= limit_bytes_) return bounded();
    }
    std::stable_sort(wdl.begin(), wdl.end(), [this](const TableId& a, const TableId& b) { return table_bytes(a) > table_bytes(b); });
    wdl_pass += kInputCacheBytes;
    for (const TableId& t : wdl) {
        if (wdl_pass <= limit_bytes_) break;
        out.through_files.push_back(t);
        wdl_pass -= table_bytes(t);
    }
    return bounded();
}

MemoryPlan::NextReads MemoryPlan::next_reads(std::size_t current, const std::set<Material>& done) const {
    NextReads out;
    for (std::size_t j = plan_.size(); j-- > current + 1;)
        if (!done.count(plan_[j]))
            for (const TableId& t : reads_of(plan_[j])) out[t] = j;
    return out;
}

std::vector<TableId> MemoryPlan::unread(const NextReads& next_read, const std::set<TableId>& keep,
                                        const std::vector<TableId>& in_memory) const {
    std::vector<TableId> out;
    for (const TableId& t : in_memory)
        if (!keep.count(t) && !next_read.count(t)) out.push_back(t);
    return out;
}

std::vector<TableId> MemoryPlan::to_spill(std::size_t current, const NextReads& next_read,
                                          const std::vector<TableId>& in_memory) const {
    if (limit_bytes_ == 0) return {};
    const auto read_now = reads_of(plan_[current]);
    const std::uint64_t needed = pair_memory(current).bytes;
    std::vector<std::pair<std::size_t, TableId>> movable;  // (next read, table)
    std::uint64_t movable_bytes = 0;
    for (const TableId& t : in_memory) {
        if (read_now.count(t)) continue;
        const auto next = next_read.find(t);
        movable.emplace_back(next == next_read.end() ? plan_.size() : next->second, t);
        movable_bytes += table_bytes(t);
    }
    std::stable_sort(movable.begin(), movable.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<TableId> out;
    for (const auto& [next, t] : movable) {
        if (movable_bytes + needed <= limit_bytes_) break;
        out.push_back(t);
        movable_bytes -= table_bytes(t);
    }
    return out;
}

}  // namespace dtb
