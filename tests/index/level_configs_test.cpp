#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

#include "index/level_configs.hpp"
#include "index/position_index.hpp"

namespace dtb {
namespace {

struct Found {
    std::uint64_t rank, men_index;
    MenConfig men;
    friend bool operator==(const Found&, const Found&) = default;
};

// Every configuration of `idx`, walked one after the other, by level: the list each level's
// LevelConfigs must give.
std::vector<std::vector<Found>> walked_by_level(const PositionIndex& idx) {
    std::vector<std::vector<Found>> out(men_configs_by_advancement(idx.material()).size());
    MenConfigWalker walker(idx, 0);
    for (std::uint64_t c = 0; c < idx.men_configs(); ++c) {
        if (c > 0) walker.next();
        auto& level = out[static_cast<std::size_t>(men_advancement(walker.current()))];
        level.push_back({level.size(), c, walker.current()});
    }
    return out;
}

std::vector<Found> visited(const LevelConfigs& level, std::uint64_t first, std::uint64_t end) {
    std::vector<Found> out;
    const auto [begin, stop] = level.white_placements_of(first, end);
    for (std::size_t w = begin; w < stop; ++w)
        level.for_each_in(w, first, end, [&](std::uint64_t rank, std::uint64_t c, const MenConfig& men) {
            out.push_back({rank, c, men});
        });
    return out;
}

// Against a walk of every configuration: each level's configurations, their ranks and indices,
// in index order, whole and from any range of ranks; men on both sides, on one side, kings
// among them, white men on the squares only they may use.
TEST(LevelConfigs, VisitTheLevelsConfigurationsInIndexOrderAsAWalkFindsThem) {
    std::mt19937_64 rng(11);
    for (const char* name : {"MvM", "KMvK", "KvM", "MMvK", "KvMMM", "MMvMM", "KMMvMM", "MMMvM", "MvMMM", "MMMMvK", "KvMMMM", "MMMMMvK"}) {
        const PositionIndex idx(*parse_material(name));
        const auto levels = walked_by_level(idx);
        const auto counted = men_configs_by_advancement(idx.material());
        for (std::size_t l = 0; l < levels.size(); ++l) {
            // Five white men: a million placements a level, each visited; a few levels suffice.
            if (idx.material().white_men == 5 && l % 9 != 4) continue;
            const LevelConfigs level(idx, static_cast<int>(l));
            ASSERT_EQ(level.size(), levels[l].size()) << name << " level " << l;
            ASSERT_EQ(level.size(), counted[l]) << name << " level " << l;
            ASSERT_EQ(visited(level, 0, level.size()), levels[l]) << name << " level " << l;
            for (int t = 0; t < 5 && !levels[l].empty() && idx.men_configs() < 200'000; ++t) {
                std::uint64_t first = rng() % levels[l].size(), end = rng() % (levels[l].size() + 1);
                if (first > end) std::swap(first, end);
                const std::vector<Found> expected(levels[l].begin() + static_cast<std::ptrdiff_t>(first),
                                                  levels[l].begin() + static_cast<std::ptrdiff_t>(end));
                ASSERT_EQ(visited(level, first, end), expected) << name << " level " << l << " ranks " << first << "-" << end;
            }
        }
        // A level beyond the highest holds nothing.
        EXPECT_EQ(LevelConfigs(idx, static_cast<int>(levels.size()) + 3).size(), 0u) << name;
    }
}

}  // namespace
}  // namespace dtb
