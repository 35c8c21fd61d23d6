#include "probe/oracle.hpp"

#include <algorithm>
#include <map>

#include "index/material.hpp"
#include "probe/tablebase.hpp"

namespace dtb {
namespace {

// Every DTW of `m` (white to move) is at most this: a non-capture position's is in the header, a
// capture position's is one ply more than a DTW of a material its capture leads to.
std::optional<int> longest_distance(const Tablebase& tb, const Material& m, std::map<Material, std::optional<int>>& memo) {
    if (const auto it = memo.find(m); it != memo.end()) return it->second;
    std::optional<int> longest = tb.longest_dtw(m);
    for (const Material& next : capture_successor_materials(m)) {
        if (!longest) break;
        const std::optional<int> after = longest_distance(tb, next, memo);
        longest = after ? std::optional<int>(std::max(*longest, 1 + *after)) : std::nullopt;
    }
    memo[m] = longest;
    return longest;
}

// Over every counted material: unknown as soon as one of them is.
CountedEndingBounds counted_bounds(const Tablebase& tb) {
    std::map<DrawRule, std::optional<int>> bound;
    std::map<Material, std::optional<int>> memo;
    for (const Material& m : materials_in_build_order(4)) {  // counted endings have at most 4 pieces
        const auto ending = counted_ending(m.white_kings, m.white_men, m.black_kings, m.black_men);
        if (!ending) continue;
        const std::optional<int> longest = longest_distance(tb, m, memo);
        const auto [it, first] = bound.try_emplace(ending->rule, longest);
        if (!first)
            it->second = it->second && longest ? std::optional<int>(std::max(*it->second, *longest)) : std::nullopt;
    }
    return {bound[DrawRule::SixteenMoves], bound[DrawRule::FiveMoves]};
}

}  // namespace

// probe_dtw gives the value too: one probe per position where .dtw files exist.
Oracle tablebase_oracle(const Tablebase& tb) {
    const auto assess = [&tb](const Position& pos) {
        Assessment a;
        const DtwResult d = tb.probe_dtw(pos);
        if (d.known()) {
            a.value = d.value;
            if (d.dtw >= 0) a.dtw = d.dtw;
            return a;
        }
        a.value = tb.probe_wdl(pos).value;
        return a;
    };
    return Oracle(assess, counted_bounds(tb));
}

}  // namespace dtb
