// A material pair solved in slices of men-advancement levels (gen/slices.hpp): the slices cover
// every level once, a sliced build writes the bytes of a whole-pair build, and a build resumes from
// the slice files a killed one finished, solving again what a damaged file held.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include <tbb/task_arena.h>

#include "gen/chunked_file.hpp"
#include "gen/frontier_bits.hpp"
#include "gen/memory_plan.hpp"
#include "gen/slices.hpp"
#include "gen/solver.hpp"
#include "tests/gen/build_fixture.hpp"
#include "tests/gen/in_memory_tables.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

// The first pass's walk (PairLayout::for_each_king_placement) visits every king placement of a
// block exactly once, with the kings that unranking its number gives, whichever order it takes:
// in index order (one white king, few black placements, or a block one thread walks), or tile by
// tile (two white kings and a thousand black placements, split over the threads); and the same
// when a subgame solved alone splits its blocks below kSplitBlockPlacements too (KKvKM's, of
// 55,272 placements: in one part by default, in several so split).
TEST(PairLayout, WalksEveryKingPlacementOfABlockOnceWithItsKings) {
    // A fresh one for each part of a block walked (for_each_king_placement's Cache): counts the parts.
    struct PartStart {
        bool seen = false;
    };
    for (const std::uint64_t split_from : {kSplitBlockPlacements, std::uint64_t{0}}) {
        for (const char* name : {"KKMvKK", "KKvKKM", "KMvKKK", "KKvKM", "KKMvM"}) {
            const Material m = *parse_material(name);
            const PairLayout layout(m);
            const PositionIndex& index = layout.index(0);
            const MenConfig men = index.men_config(index.men_configs() / 2);
            const std::uint64_t n = index.king_placements();
            std::vector<std::atomic<std::uint8_t>> visits(n);
            std::atomic<std::uint64_t> wrong{0}, parts{0};
            PartStart cache;
            layout.for_each_king_placement(
                Block{0, men, 0, 0}, cache,
                [&](PartStart& part, std::uint64_t k, const KingPlacement& kings) {
                    if (!part.seen) part.seen = true, ++parts;
                    ASSERT_LT(k, n) << name;
                    visits[k].fetch_add(1, std::memory_order_relaxed);
                    const KingPlacement expected = index.king_placement(men, k);
                    if (kings.white_kings != expected.white_kings || kings.black_kings != expected.black_kings) ++wrong;
                },
                split_from);
            if (std::string(name) == "KKvKM") {
                // Two white kings and a black one on the 49 squares the man leaves free.
                EXPECT_EQ(n, 49u * 48 / 2 * 47);
                EXPECT_LT(n, kSplitBlockPlacements) << "the block the test splits below kSplitBlockPlacements";
                if (split_from == kSplitBlockPlacements) {
                    EXPECT_EQ(parts.load(), 1u) << "a block below kSplitBlockPlacements is walked in one go";
                } else if (tbb::this_task_arena::max_concurrency() > 1) {
                    EXPECT_GT(parts.load(), 1u) << "a block split from 0 is walked in parts";
                }
            }
            EXPECT_EQ(wrong.load(), 0u) << name << " split from " << split_from;
            const auto once = std::count_if(visits.begin(), visits.end(), [](const auto& v) { return v.load() == 1; });
            EXPECT_EQ(static_cast<std::uint64_t>(once), n) << name << ": " << n << " placements, split from " << split_from;
        }
    }
}

// PairLayout::solve_subgames solves every subgame once, and those it is told to solve alone (here
// KMvKM's subgames of two blocks, twice the size of those whose configuration is its own flip) with
// no other subgame being solved at the same time, while the others overlap on the threads.
TEST(PairLayout, SolvesEverySubgameOnceAndThoseSolvedAloneOneAtATime) {
    const PairLayout layout(*parse_material("KMvKM"));
    const SliceSubgames subgames = layout.subgames_in(Slice{layout.all_levels()});
    std::uint64_t smallest = ~std::uint64_t{0}, largest = 0, listed = 0;
    for (const ConfigList& level : subgames.by_level)
        for (std::size_t i = 0; i < level.size(); ++i) {
            const Subgame g = layout.subgame(level[i]);
            smallest = std::min(smallest, g.size);
            largest = std::max(largest, g.size);
            ++listed;
        }
    ASSERT_LT(smallest, largest) << "the test needs subgames of two sizes";
    const auto alone = [&](std::uint64_t size) { return size == largest; };
    std::mutex mutex;
    std::map<std::pair<int, std::uint64_t>, int> solved;  // by the side and index of the first block
    std::atomic<int> running{0}, most_running{0};
    std::atomic<int> alone_with_others{0};
    layout.solve_subgames(
        subgames,
        [&](const Subgame& g, const SubgameProgress&) {
            const int now = running.fetch_add(1) + 1;
            int most = most_running.load();
            while (now > most && !most_running.compare_exchange_weak(most, now)) {
            }
            std::this_thread::sleep_for(std::chrono::microseconds(200));  // time for another thread to start one
            if (alone(g.size) && running.load() != 1) ++alone_with_others;
            {
                const std::lock_guard lock(mutex);
                ++solved[{g.blocks[0].side, g.blocks[0].base}];
            }
            running.fetch_sub(1);
        },
        alone, {});
    EXPECT_EQ(solved.size(), listed);
    EXPECT_TRUE(std::all_of(solved.begin(), solved.end(), [](const auto& s) { return s.second == 1; }));
    EXPECT_EQ(alone_with_others.load(), 0);
    if (tbb::this_task_arena::max_concurrency() > 1) {
        EXPECT_GT(most_running.load(), 1) << "the others overlap";
    }
}

// The propagation's frontier walk (for_each_frontier_position) visits every position set in the
// frontier once, and no other, with its kings, however the words are split among the threads'
// parts: in index order, or tile by tile where the black kings have many placements.
TEST(FrontierBits, TheWalkVisitsEverySetPositionOnceWithItsKings) {
    std::mt19937_64 random(21);
    for (const char* name : {"KKMvKK", "KMvKK", "KvKKM", "KKKvK", "MvKKK"}) {
        const PairLayout layout(*parse_material(name));
        const Subgame g = layout.subgame(layout.index(0).men_configs() / 2);
        FrontierBits frontier(g.size);
        std::uint64_t set = 0;
        for (std::uint64_t local = 0; local < g.size; ++local)
            if (random() % 3 == 0) frontier.set(local), ++set;
        for (const std::uint64_t part : {frontier.words(), std::uint64_t{64}, frontier.words() / 7 + 1}) {
            std::vector<std::uint8_t> visits(g.size, 0);
            std::uint64_t wrong = 0, unset = 0;
            for (std::uint64_t begin = 0; begin < frontier.words(); begin += part)
                for_each_frontier_position(layout, g, frontier, begin, std::min(frontier.words(), begin + part),
                                           [&](std::uint64_t local, const KingPlacement& kings) {
                                               ++visits[local];
                                               if (!frontier.test_shared(local)) ++unset;
                                               const Block& block = g.blocks[g.block_of(local)];
                                               const KingPlacement expected = layout.index(block.side).king_placement(
                                                   block.men, local - block.local_offset);
                                               if (kings.white_kings != expected.white_kings ||
                                                   kings.black_kings != expected.black_kings)
                                                   ++wrong;
                                           });
            EXPECT_EQ(wrong, 0u) << name << " parts of " << part << " words";
            EXPECT_EQ(unset, 0u) << name << " parts of " << part << " words";
            EXPECT_EQ(static_cast<std::uint64_t>(std::count(visits.begin(), visits.end(), 1)), set)
                << name << " parts of " << part << " words";
        }
    }
}

TEST(SliceLevels, CoverEveryLevelOnceFromTheMostAdvancedDown) {
    for (const char* name : {"KvK", "KMvK", "MMvM", "KKMvKM", "MMvMM"}) {
        const PairLayout layout(*parse_material(name));
        const std::vector<std::uint64_t> positions = layout.positions_by_level();
        for (int count = 1; count <= 8; ++count) {
            const std::vector<LevelRange> slices = slice_levels(*parse_material(name), count);
            ASSERT_FALSE(slices.empty());
            EXPECT_LE(slices.size(), static_cast<std::size_t>(count)) << name;
            EXPECT_EQ(slices.front().highest, layout.level_count() - 1) << name;
            EXPECT_EQ(slices.back().lowest, 0) << name;
            for (std::size_t k = 0; k < slices.size(); ++k) {
                EXPECT_LE(slices[k].lowest, slices[k].highest) << name;
                if (k > 0) {
                    EXPECT_EQ(slices[k].highest + 1, slices[k - 1].lowest) << name;
                }
                const auto first = positions.begin() + slices[k].lowest;
                const auto last = positions.begin() + slices[k].highest + 1;
                EXPECT_GT(std::accumulate(first, last, std::uint64_t{0}), 0u) << name << " slice " << k;
            }
        }
        EXPECT_EQ(slice_levels(*parse_material(name), 1).size(), 1u);
    }
    // Men that can stand on 9 rows each give many levels: 3 slices are 3 slices.
    EXPECT_EQ(slice_levels(*parse_material("KMvKM"), 3).size(), 3u);
}

// Counted row by row (men_configs_by_advancement) against the layout's walk of every
// configuration: the blocks it lists at each level, each of that advancement.
TEST(SliceLevels, PositionsByLevelCountedAsTheLayoutHasThem) {
    for (const char* name : {"KvK", "KMvK", "MvM", "MMvK", "KvMMM", "KMvKM", "MMvMM", "KMMvKM", "MMMvM"}) {
        const Material m = *parse_material(name);
        const PairLayout layout(m);
        const std::vector<std::uint64_t> counted = pair_positions_by_level(m);
        ASSERT_EQ(counted.size(), static_cast<std::size_t>(layout.level_count())) << name;
        EXPECT_EQ(counted, layout.positions_by_level()) << name;
        for (int level = 0; level < layout.level_count(); ++level) {
            const auto men = layout.men_indices_in(Slice{{level, level}});
            std::uint64_t walked = 0;
            for (int side = 0; side < layout.side_count(); ++side)
                for (const std::uint64_t c : men[side]) {
                    walked += layout.index(side).king_placements();
                    ASSERT_EQ(men_advancement(layout.index(side).men_config(c)), level) << name << " " << c;
                }
            EXPECT_EQ(walked, counted[static_cast<std::size_t>(level)]) << name << " level " << level;
        }
        const std::vector<std::uint64_t> configs = men_configs_by_advancement(m);
        EXPECT_EQ(std::accumulate(configs.begin(), configs.end(), std::uint64_t{0}), PositionIndex(m).men_configs()) << name;
    }
}

// A held list finds each of its configurations at its place and none other: below, between and
// above its entries, across the runs its sample names, lists shorter and longer than one run.
TEST(HeldConfigs, FindEveryListedConfigurationAndNoOther) {
    std::mt19937_64 rng(5);
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{5000}}) {
        std::vector<std::uint64_t> men;
        for (std::uint64_t c = 3; men.size() < n; c += 1 + rng() % 5) men.push_back(c);
        const HeldConfigs held(men, 7);
        for (std::size_t i = 0; i < men.size(); ++i) ASSERT_EQ(held.base(men[i]), i * 7) << n;
        const std::uint64_t top = men.empty() ? 10 : men.back() + 3;
        for (std::uint64_t c = 0; c <= top; ++c) {
            if (!std::binary_search(men.begin(), men.end(), c)) {
                ASSERT_EQ(held.base(c), HeldConfigs::kNotHeld) << n << " " << c;
            }
        }
    }
}

TEST(SliceLevels, HoldEveryConfigurationOfThePairOnce) {
    const PairLayout layout(*parse_material("KMvMM"));
    std::vector<std::uint64_t> seen(static_cast<std::size_t>(layout.side_count()), 0);
    for (const LevelRange& levels : slice_levels(*parse_material("KMvMM"), 4)) {
        const auto men = layout.men_indices_in(Slice{levels});
        for (int side = 0; side < layout.side_count(); ++side) seen[side] += men[side].size();
    }
    for (int side = 0; side < layout.side_count(); ++side) EXPECT_EQ(seen[side], layout.index(side).men_configs());
}

// More slices than levels cut each level into parts, handed out by positions: exactly the count
// asked for (so a task that knows only how many slices there are finds the same ones), every
// configuration of the pair in one slice, and the boundary a part reads within the level above
// and within the bound its memory estimate assumes.
TEST(PairSlices, CutLevelsIntoPartsThatHoldEveryConfigurationOnce) {
    for (const char* name : {"KMvK", "MMvM", "KKMvKM", "KMvKM", "MMvMM"}) {
        const Material m = *parse_material(name);
        const PairLayout layout(m);
        const std::vector<std::uint64_t> by_level = layout.positions_by_level();
        for (const int count : {layout.level_count() + 1, 3 * layout.level_count() + 2}) {
            const std::vector<Slice> slices = pair_slices(m, count);
            // At most a part a configuration of the level.
            EXPECT_EQ(slices.size(), std::min<std::uint64_t>(count, layout.index(0).men_configs())) << name;
            EXPECT_EQ(pair_slices(m, static_cast<int>(slices.size())), slices) << name;
            std::vector<std::vector<std::uint64_t>> seen(static_cast<std::size_t>(layout.side_count()));
            std::uint64_t listed_positions = 0;  // of the subgames each slice lists
            for (std::size_t k = 0; k < slices.size(); ++k) {
                const Slice& s = slices[k];
                listed_positions += layout.subgames_in(s).positions;
                ASSERT_EQ(s.levels.lowest, s.levels.highest) << name;
                if (k > 0) {
                    EXPECT_LE(s.levels.highest, slices[k - 1].levels.highest) << name;  // the most advanced first
                }
                const auto men = layout.men_indices_in(s);
                for (int side = 0; side < layout.side_count(); ++side)
                    seen[side].insert(seen[side].end(), men[side].begin(), men[side].end());
                const auto boundary = layout.boundary_men_indices(s);
                std::uint64_t boundary_positions = 0;
                for (int side = 0; side < layout.side_count(); ++side)
                    for (const std::uint64_t c : boundary[side]) {
                        EXPECT_EQ(men_advancement(layout.index(side).men_config(c)), s.levels.highest + 1) << name;
                        boundary_positions += layout.index(side).king_placements();
                    }
                EXPECT_LE(boundary_positions, boundary_positions_bound(m, s, by_level)) << name << " slice " << k;
            }
            EXPECT_EQ(listed_positions, layout.total_positions()) << name;
            for (int side = 0; side < layout.side_count(); ++side) {
                std::sort(seen[side].begin(), seen[side].end());
                ASSERT_EQ(seen[side].size(), layout.index(side).men_configs()) << name;
                for (std::uint64_t c = 0; c < seen[side].size(); ++c) ASSERT_EQ(seen[side][c], c) << name;
            }
        }
    }
}

// Expects every .wdl file of `reference` to have the same bytes in `built`; returns their number.
std::size_t expect_the_same_wdl_files(const fs::path& reference, const fs::path& built) {
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(reference)) {
        if (entry.path().extension() != ".wdl") continue;
        ++files;
        EXPECT_EQ(read_bytes(entry.path()), read_bytes(built / entry.path().filename())) << entry.path().filename();
    }
    return files;
}

// Parts of levels, each reading only what its men moves reach from the parts of the level above:
// the bytes of a whole-pair build.
TEST_F(BuildTest, ABuildInPartsOfLevelsWritesTheBytesOfAWholePairBuild) {
    only_ = {*parse_material("KMvKM"), *parse_material("MMvMM")};  // and what they need
    build_into(root_ / "whole", 4);
    slices_ = 40;
    build_into(root_ / "parts", 4);
    EXPECT_THAT(log_, ContainsRegex("KMvKM slice [0-9]+/40, levels [0-9]+-[0-9]+ part [0-9]+/[0-9]+, positions"));
    EXPECT_GE(expect_the_same_wdl_files(root_ / "whole", root_ / "parts"), 10u);
}

TEST_F(BuildTest, ASlicedBuildWritesTheBytesOfAWholePairBuild) {
    build_into(root_ / "whole", 4);
    slices_ = 3;
    build_into(root_ / "sliced", 4);
    EXPECT_THAT(log_, HasSubstr("KMvKM slice 3/3, levels 0-"));
    EXPECT_EQ(expect_the_same_wdl_files(root_ / "whole", root_ / "sliced"), 41u);
    EXPECT_FALSE(fs::exists(root_ / "sliced" / ".dtb-slices"));  // removed once the pairs' files are written
}

// Under a limit too small for the tables a pair reads, they are read from their files through a
// block cache while it is solved: slower, the same bytes.
TEST_F(BuildTest, TablesThatDoNotFitAreReadThroughTheBlockCacheWithTheSameBytes) {
    build_into(root_ / "whole", 3);
    memory_bytes_ = 1;
    slices_ = 2;
    build_into(root_ / "bounded", 3);
    EXPECT_THAT(log_, HasSubstr("KvKK.wdl: read through a block cache of 256 MiB while KvKM is solved"));
    EXPECT_THAT(log_, HasSubstr("KvKM slice 2/2, levels"));
    for (const auto& entry : fs::directory_iterator(root_ / "whole")) {
        if (entry.path().extension() != ".wdl") continue;
        EXPECT_EQ(read_bytes(entry.path()), read_bytes(root_ / "bounded" / entry.path().filename()))
            << entry.path().filename();
    }
}

// Without a slice count, a build under a limit slices the pairs that would not fit whole, as many
// slices as the limit needs, and solves the large kings-only pairs in symmetry classes: the same
// bytes.
TEST_F(BuildTest, UnderALimitPairsAreSlicedAndHeldCompactAsTheyNeedWithTheSameBytes) {
    only_ = {*parse_material("KKvKK"), *parse_material("KMvKM")};
    build_into(root_ / "whole", 4);
    memory_bytes_ = 1;
    slices_ = MemoryPlan::kSlicesWithinLimit;
    build_into(root_ / "bounded", 4);
    EXPECT_THAT(log_, ContainsRegex("KMvKM: solved in [0-9]+ slices"));
    EXPECT_THAT(log_, HasSubstr("KKvKK: solved in symmetry classes, 0.125 bytes a position; its values not kept"));
    EXPECT_THAT(log_, Not(ContainsRegex("KKvKK: solved in [0-9]+ slices")));  // kings only: one level, one slice
    // Every kings-only pair, however small; one that fits keeps its values for later pairs.
    EXPECT_THAT(log_, ContainsRegex("(^|\n)KvK: solved in symmetry classes, 0.125 bytes a position\n"));
    std::size_t compared = 0;
    for (const auto& entry : fs::directory_iterator(root_ / "whole")) {
        if (entry.path().extension() != ".wdl") continue;
        EXPECT_EQ(read_bytes(entry.path()), read_bytes(root_ / "bounded" / entry.path().filename()))
            << entry.path().filename();
        ++compared;
    }
    EXPECT_GE(compared, 3u);
}

class SlicedResumeTest : public BuildTest {
protected:
    // A folder of 2-3 pieces without the pair of KMvK, built sliced, and the bytes of KMvK.wdl
    // and KvKM.wdl from a whole-pair build.
    void SetUp() override {
        BuildTest::SetUp();
        dir_ = root_ / "sliced";
        build_into(root_ / "whole", 3);
        slices_ = 3;
        build_into(dir_, 3);
        for (const char* name : {"KMvK.wdl", "KvKM.wdl"}) {
            expected_.push_back(read_bytes(root_ / "whole" / name));
            fs::remove(dir_ / name);
        }
    }

    // What a build killed after its first slice of the pair leaves: that slice's file.
    fs::path first_slice_file() {
        const InMemoryTables finished = solve_in_memory(3, false);
        const Slice first{slice_levels(pair_, slices_).front()};
        const SliceFiles files(dir_, pair_);
        files.write(solve_material_slice(pair_, finished.wdl, first, {}));
        return files.path(first);
    }

    void expect_the_pairs_bytes() {
        EXPECT_EQ(read_bytes(dir_ / "KMvK.wdl"), expected_[0]);
        EXPECT_EQ(read_bytes(dir_ / "KvKM.wdl"), expected_[1]);
        EXPECT_FALSE(fs::exists(dir_ / ".dtb-slices"));
    }

    const Material pair_ = *parse_material("KvKM");  // the pair as the build names it: its first material in build order
    fs::path dir_;
    std::vector<std::string> expected_;
};

TEST_F(SlicedResumeTest, StartsAfterTheSlicesAKilledBuildFinished) {
    first_slice_file();
    build_into(dir_, 3);
    EXPECT_THAT(log_, HasSubstr("KvKM slice 1/3: finished already"));
    EXPECT_THAT(log_, HasSubstr("KvKM slice 2/3, levels"));
    expect_the_pairs_bytes();
}

TEST_F(SlicedResumeTest, SolvesAgainWhatATruncatedSliceFileHeld) {
    const fs::path file = first_slice_file();
    fs::resize_file(file, fs::file_size(file) / 2);  // not a complete file: not taken
    build_into(dir_, 3);
    EXPECT_THAT(log_, Not(HasSubstr("finished already")));
    EXPECT_THAT(log_, HasSubstr("KvKM slice 1/3, levels"));
    expect_the_pairs_bytes();
}

TEST_F(SlicedResumeTest, SolvesAgainWhatADamagedSliceFileHeld) {
    const fs::path file = first_slice_file();
    {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(20);  // inside the first compressed chunk: found when the chunk is read
        f.put('\x5a').put('\xa5').put('\x5a');
    }
    build_into(dir_, 3);
    EXPECT_THAT(log_, HasSubstr("KvKM slice 1/3: finished already"));
    EXPECT_THAT(log_, HasSubstr("solving its slices again"));
    expect_the_pairs_bytes();
}

}  // namespace
}  // namespace dtb
