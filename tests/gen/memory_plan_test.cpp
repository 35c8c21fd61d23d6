// The builder's memory plan, without building anything: what a pair reads, when each table is
// read next, what is freed and what goes to scratch copies under a limit.
#include <gtest/gtest.h>

#include <algorithm>

#include "gen/memory_plan.hpp"
#include "gen/slices.hpp"
#include "gen/pair_layout.hpp"
#include "gen/solver.hpp"

namespace dtb {
namespace {

Material named(const char* name) { return *parse_material(name); }

// Every material of this size: a WDL table is 1,000 bytes, a DTW table 8,000, a pair's WDL solver
// 12,000 (a byte and a half a position, both sides) plus its largest subgame's cells, its DTW
// solver 20,000 (2.5 bytes) plus those.
constexpr std::uint64_t kPositions = 4000;
std::uint64_t same_size(const Material&) { return kPositions; }

std::size_t position_in(const std::vector<Material>& plan, const char* name) {
    return static_cast<std::size_t>(std::find(plan.begin(), plan.end(), named(name)) - plan.begin());
}

// Worked out by hand: from KMvK white can only promote (to KKvK, black to move: KvKK); taking the
// black king ends the game. From its mirror KvKM white takes the man (KvK, black to move) or the
// king (black's man alone: MvK).
TEST(MemoryPlan, APairReadsTheMaterialsBothSidesReachInOneMove) {
    const MemoryPlan wdl(materials_in_build_order(3), false, 0, same_size);
    EXPECT_EQ(wdl.reads_of(named("KMvK")),
              (std::set<TableId>{{named("KvK"), false}, {named("KvKK"), false}, {named("MvK"), false}}));
    const MemoryPlan dtw(materials_in_build_order(3), true, 0, same_size);
    EXPECT_EQ(dtw.reads_of(named("KMvK")),
              (std::set<TableId>{{named("KvK"), false},  {named("KvK"), true},   {named("KvKK"), false},
                                 {named("KvKK"), true},  {named("MvK"), false},  {named("MvK"), true},
                                 {named("KMvK"), false}, {named("KvKM"), false}}));
}

TEST(MemoryPlan, SizesOfTablesAndSolvers) {
    const MemoryPlan wdl(materials_in_build_order(3), false, 0, same_size);
    EXPECT_EQ(wdl.table_bytes({named("KvK"), false}), 1000u);
    EXPECT_EQ(wdl.table_bytes({named("KvK"), true}), 8000u);
    // The three WDL tables KMvK reads; with distances their DTW tables and the pair's own WDL too.
    const MemoryPlan dtw(materials_in_build_order(3), true, 0, same_size);
    EXPECT_EQ(wdl.bytes_read_by(named("KMvK")), 3 * 1000u);
    EXPECT_EQ(dtw.bytes_read_by(named("KMvK")), 5 * 1000u + 3 * 8000u);
    // The pair's 2 x 4000 positions at 3 bits (value and capture flag), plus its largest subgame at
    // 26 bytes a position (a 2-byte cell, and a 24-byte queue entry should it settle as a win or a
    // loss): one men configuration of each side, the two kings on the 49 squares the man
    // leaves (49 x 48 each); the list of its subgames, 4 bytes each, of 2 x 49 x 48 positions
    // (8000 of them make 2); and 8 bytes a square of its white man, to list a level's subgames.
    EXPECT_EQ(wdl.solver_bytes(named("KMvK")), 3000u + 2 * 49 * 48 * 26 + 2 * 4 + 45 * 8);
    // Its own mirror, kings only: solved in symmetry classes, a nibble each, and its 4000 values
    // kept at 2 bits. The four symmetries leave (50 + 0 + 10 + 0) / 4 = 15 orbits of the white
    // king's square (the reflection in the long diagonal a1-j10 keeps its 10 squares, the half
    // turn and the other reflection none), each with the 49 squares of the black king.
    EXPECT_EQ(wdl.solver_bytes(named("KvK")), (15u * 49 + 1) / 2 + 1000u);
    // Its own mirror with men: one side, but a subgame holds a men configuration and its flip, the
    // kings on the 48 squares the men leave (48 x 47 each).
    // Listing a symmetric pair's level counts its listed subgames too: twice 8 bytes a square.
    EXPECT_EQ(wdl.solver_bytes(named("KMvKM")), 1500u + 2 * 48 * 47 * 26 + 1 * 4 + 2 * 45 * 8);
    EXPECT_EQ(dtw.solver_bytes(named("KMvK")), 20000u + 2 * 49 * 48 * 8 + 2 * 4 + 45 * 8);
    // In 4 slices the WDL solver holds its largest slice's values (3 bits a position) and its
    // boundary, the level above it (2 bits a position), and their lists: 4 bytes a subgame of
    // 2 x 49 x 48 positions and 8 bytes a block (two a subgame) of the slice, twice that of the
    // boundary. KMvK's man stands on one of 9 rows, so each level holds a ninth of the pair's 8000
    // positions. The cells of the largest subgame stay.
    MemoryPlan sliced(materials_in_build_order(3), false, 0, same_size);
    sliced.solve_in_slices(4);
    const auto subgames = [](double positions) { return positions / (2 * 49 * 48); };
    double largest = 0;
    for (const LevelRange& s : slice_levels(named("KMvK"), 4)) {
        const double own = (s.highest - s.lowest + 1) * 8000.0 / 9, boundary = s.highest < 8 ? 8000.0 / 9 : 0.0;
        const double lists = subgames(own) * (4 + 16) + subgames(boundary) * 32;
        largest = std::max(largest, own * 3 / 8 + boundary / 4 + lists);
    }
    EXPECT_NEAR(static_cast<double>(sliced.solver_bytes(named("KMvK"))), largest + 2 * 49 * 48 * 26 + 45 * 8, 3.0);
}

// A subgame below kQueuedSubgamePositions holds a 2-byte cell a position and room to queue each
// once (24 bytes); a larger one, besides its cells, three bits a position: the frontier, the next
// frontier and the positions still unsettled. Compact, a large one (at least 2^16 positions) holds
// a nibble a position and the two frontiers. KKvKM's largest: a black man's square with its flip,
// the two white kings and the black king on the squares left (C(49, 2) x 47 placements a side).
TEST(MemoryPlan, SubgamesCountTheirQueueOrTheirBitsAPosition) {
    const MemoryPlan wdl(materials_in_build_order(4), false, 0, same_size);
    const std::uint64_t large = 2 * 1176 * 47;
    ASSERT_GE(large, kLargeSubgamePositions);
    ASSERT_LT(large, kQueuedSubgamePositions);
    EXPECT_EQ(wdl.solver_bytes(named("KKvKM"), false) - wdl.solver_bytes(named("KKvKM"), true), large * 26 - large * 3 / 4);
    EXPECT_EQ(MemoryPlan::wdl_subgame_bytes(large, false), large * 26);
    EXPECT_EQ(MemoryPlan::wdl_subgame_bytes(large, true), large / 2 + large / 4);
    const std::uint64_t rounds = kQueuedSubgamePositions;
    EXPECT_EQ(MemoryPlan::wdl_subgame_bytes(rounds - 1, false), (rounds - 1) * 26);
    EXPECT_EQ(MemoryPlan::wdl_subgame_bytes(rounds, false), rounds * 2 + rounds * 3 / 8);
    EXPECT_EQ(MemoryPlan::wdl_subgame_bytes(rounds, true), rounds / 2 + rounds / 4);
}

// Each thread holds the cells of the largest subgame it has solved, except that a subgame solved
// alone (gen/solver.hpp) is held by one thread at a time: then the others hold at most the largest
// not solved alone. The pair's other memory does not depend on the threads.
TEST(MemoryPlan, EachThreadHoldsASubgameAndThoseSolvedAloneAreHeldOnce) {
    const auto plan = [](int threads, bool dtw) {
        MemoryPlan p(materials_in_build_order(4), dtw, 0, same_size);
        p.solve_on_threads(threads);
        return p;
    };
    const MemoryPlan one = plan(1, false), four = plan(4, false);
    const std::uint64_t large = 2 * 1176 * 47;  // KKvKM's largest, queued
    EXPECT_EQ(four.solver_bytes(named("KKvKM")) - one.solver_bytes(named("KKvKM")), 3 * large * 26);
    EXPECT_EQ(one.held_subgames_bytes(large, false), MemoryPlan::wdl_subgame_bytes(large, false));
    EXPECT_EQ(four.held_subgames_bytes(large, false), 4 * MemoryPlan::wdl_subgame_bytes(large, false));
    // Compact (alone from kLargeSubgamePositions up): the other threads queue smaller ones.
    EXPECT_EQ(four.held_subgames_bytes(large, true),
              MemoryPlan::wdl_subgame_bytes(large, true) + 3 * (kLargeSubgamePositions - 1) * 26);
    const std::uint64_t alone = kAloneSubgamePositions;
    EXPECT_EQ(four.held_subgames_bytes(alone - 1, false), 4 * ((alone - 1) * 2 + (alone - 1) * 3 / 8));
    EXPECT_EQ(four.held_subgames_bytes(4 * alone, false), 4 * alone * 19 / 8 + 3 * ((alone - 1) * 2 + (alone - 1) * 3 / 8));
    // With distances, a subgame a thread whatever its size, 8 bytes a position.
    EXPECT_EQ(plan(4, true).solver_bytes(named("KKvKM")) - plan(1, true).solver_bytes(named("KKvKM")), 3 * large * 8);
}

TEST(MemoryPlan, TablesThePairReadsGoThroughTheBlockCacheLargestFirstOnlyWhenTheyDoNotFit) {
    const std::vector<Material> order = materials_in_build_order(4);
    const std::size_t current = position_in(order, "KMvK");  // reads KvK, KvKK, MvK
    // Tables of 1 GB (KvKK) and 100 MB (the others), against a cache of 256 MiB.
    constexpr std::uint64_t kLarge = 4'000'000'000, kSmall = 400'000'000, kTableSmall = kSmall / 4;
    const auto sizes = [](const Material& m) { return m == named("KvKK") ? kLarge : kSmall; };
    const std::uint64_t solver = MemoryPlan(order, false, 0, sizes).solver_bytes(named("KMvK"));
    const std::uint64_t cache = MemoryPlan::kInputCacheBytes;
    const auto through = [&](std::uint64_t limit) { return MemoryPlan(order, false, limit, sizes).read_through_files(current); };
    EXPECT_TRUE(through(0).empty());                                        // no limit
    EXPECT_TRUE(through(solver + kLarge / 4 + 2 * kTableSmall).empty());     // all three fit
    EXPECT_EQ(through(solver + cache + 2 * kTableSmall), (std::vector<TableId>{{named("KvKK"), false}}));
    EXPECT_EQ(through(solver + cache + kTableSmall).size(), 2u);            // the largest, then one more
    EXPECT_EQ(through(solver + cache + kTableSmall).front(), (TableId{named("KvKK"), false}));
    EXPECT_EQ(through(1000).size(), 3u);                                    // not even the cache fits: all
    // A build with distances holds DTW tables and the pair's own WDL too, but what bounds its WDL
    // pass is that pass's solver, not the larger one of the distances: none goes through the cache
    // while the WDL pass fits, though the pass with distances passes the limit.
    const MemoryPlan dtw_unlimited(order, true, 0, sizes);
    const std::uint64_t dtw_tables = dtw_unlimited.bytes_read_by(named("KMvK"));
    ASSERT_GT(dtw_unlimited.solver_bytes(named("KMvK")), solver);
    const auto dtw_through = [&](std::uint64_t limit) { return MemoryPlan(order, true, limit, sizes).read_through_files(current); };
    EXPECT_TRUE(dtw_through(dtw_tables + solver).empty());
    EXPECT_EQ(dtw_through(dtw_tables + solver - 1), (std::vector<TableId>{{named("KvKK"), false}}));
    // Never a DTW table, nor the pair's own WDL.
    const auto with_dtw = MemoryPlan(order, true, 1000, sizes).read_through_files(current);
    EXPECT_EQ(with_dtw.size(), 3u);
    for (const TableId& t : with_dtw) {
        EXPECT_FALSE(t.dtw);
        EXPECT_NE(t.material, named("KMvK"));
        EXPECT_NE(t.material, named("KvKM"));
    }
}

// A kings-only pair is one subgame, solved in symmetry classes (a nibble a class) with its values
// kept for later pairs: when these and the tables it reads pass the limit, the values are not kept
// (compact), before any table goes through the cache.
TEST(MemoryPlan, ALargeSubgameIsHeldCompactBeforeTablesGoThroughTheBlockCache) {
    const std::vector<Material> order = materials_in_build_order(4);
    const std::size_t current = position_in(order, "KKvKK");
    const auto sizes = [](const Material& m) { return PositionIndex(m).size(); };
    const MemoryPlan unlimited(order, false, 0, sizes);
    const std::uint64_t kept = unlimited.solver_bytes(named("KKvKK"));
    const std::uint64_t compact = unlimited.solver_bytes(named("KKvKK"), true);
    const std::uint64_t subgame = PairLayout::largest_subgame(named("KKvKK"));
    // Compact, a kings-only pair is solved in symmetry classes, a nibble each: the orbits of the
    // white pair of kings, (1225 + 25 + 25 + 65) / 4 = 335, times the C(48, 2) = 1128 places of
    // the black ones, a third more than a quarter of the subgame's 1225 x 1128.
    EXPECT_EQ(subgame, 1225u * 1128);
    EXPECT_EQ(compact, 335u * 1128 / 2);
    EXPECT_EQ(kept, compact + 1225u * 1128 / 4);
    const std::uint64_t tables = unlimited.bytes_read_by(named("KKvKK"));
    const auto plan = [&](std::uint64_t limit) { return MemoryPlan(order, false, limit, sizes); };
    EXPECT_FALSE(unlimited.compact_cells(current));
    EXPECT_FALSE(plan(tables + kept).compact_cells(current));
    EXPECT_TRUE(plan(tables + kept - 1).compact_cells(current));
    EXPECT_TRUE(plan(tables + compact).read_through_files(current).empty());
    EXPECT_TRUE(plan(tables + compact - 1).compact_cells(current));
    EXPECT_FALSE(plan(tables + compact - 1).read_through_files(current).empty());
    // With distances, the WDL pass is held compact when it passes the limit itself, not when only
    // the pass with distances (which has no compact form) does.
    const MemoryPlan dtw_unlimited(order, true, 0, sizes);
    const std::uint64_t dtw_tables = dtw_unlimited.bytes_read_by(named("KKvKK"));
    ASSERT_GT(dtw_unlimited.solver_bytes(named("KKvKK")), kept);
    const auto dtw_plan = [&](std::uint64_t limit) { return MemoryPlan(order, true, limit, sizes); };
    EXPECT_FALSE(dtw_plan(dtw_tables + kept).compact_cells(current));
    EXPECT_TRUE(dtw_plan(dtw_tables + kept).read_through_files(current).empty());
    EXPECT_TRUE(dtw_plan(dtw_tables + kept - 1).compact_cells(current));
}

// A pair that does not fit whole is solved in the fewest slices whose solver takes at most half
// the limit, unless the count is fixed; one that fits, a kings-only pair, and a DTW build are not
// sliced.
TEST(MemoryPlan, PairsAreSlicedAsTheLimitNeeds) {
    const std::vector<Material> order = materials_in_build_order(5);
    const auto sizes = [](const Material& m) { return PositionIndex(m).size(); };
    const Material m = named("KMvKMM");
    const auto fixed = [&](int k) {
        MemoryPlan p(order, false, 0, sizes);
        p.solve_in_slices(k);
        return p.solver_bytes(m);
    };
    const auto sliced_under = [&](std::uint64_t limit, bool dtw = false) {
        MemoryPlan p(order, dtw, limit, sizes);
        p.solve_in_slices(MemoryPlan::kSlicesWithinLimit);
        return p.slices_of(m);
    };
    const std::uint64_t whole = fixed(1) + MemoryPlan(order, false, 0, sizes).bytes_read_by(m);
    EXPECT_EQ(sliced_under(0), 1);
    EXPECT_EQ(sliced_under(whole), 1);
    const std::uint64_t limit = whole / 2;
    const int k = sliced_under(limit);
    ASSERT_GE(k, 2);
    EXPECT_LE(fixed(k), limit / 2);
    if (k > 2) {
        EXPECT_GT(fixed(k - 1), limit / 2);
    }
    EXPECT_EQ(sliced_under(limit, true), 1);  // distances: whole pairs
    MemoryPlan three(order, false, limit, sizes);
    three.solve_in_slices(3);
    EXPECT_EQ(three.slices_of(m), 3);
    MemoryPlan kings(order, false, 1, sizes);
    kings.solve_in_slices(MemoryPlan::kSlicesWithinLimit);
    EXPECT_EQ(kings.slices_of(named("KKvKKK")), 1);
}

// The estimate's subgame size against the subgames the solver's layout builds, every men
// configuration of materials with and without men, symmetric or not.
TEST(MemoryPlan, LargestSubgameIsTheLargestTheLayoutBuilds) {
    for (const char* name : {"KvK", "KKvK", "KMvK", "KMvKM", "MvM", "MMvKM", "KKvKK"}) {
        const Material m = named(name);
        const PairLayout layout(m);
        std::uint64_t largest = 0;
        for (std::uint32_t c = 0; c < layout.index(0).men_configs(); ++c)
            largest = std::max(largest, layout.subgame(c).size);
        EXPECT_EQ(PairLayout::largest_subgame(m), largest) << name;
    }
}

TEST(MemoryPlan, NextReadIsTheFirstLaterPairNotDoneThatReadsTheTable) {
    const auto order = materials_in_build_order(3);
    const MemoryPlan plan(order, false, 0, same_size);
    const std::size_t kvk = position_in(order, "KvK");
    const auto next = plan.next_reads(kvk, {named("KvK")});
    // KvK is read by every 3-piece pair whose side can take a piece; the first of them in the plan:
    std::size_t first_reader = order.size();
    for (std::size_t j = kvk + 1; j < order.size(); ++j)
        if (plan.reads_of(order[j]).count({named("KvK"), false})) {
            first_reader = j;
            break;
        }
    ASSERT_LT(first_reader, order.size());
    EXPECT_EQ(next.at({named("KvK"), false}), first_reader);
    // Once that pair and its mirror are done, the next reader is a later one, or none.
    const auto after = plan.next_reads(first_reader, {order[first_reader], order[first_reader].mirror()});
    if (auto it = after.find({named("KvK"), false}); it != after.end()) {
        EXPECT_GT(it->second, first_reader);
    }
    // Every entry: that pair reads the table, and no pair between reads it.
    for (const auto& [table, j] : next) {
        EXPECT_TRUE(plan.reads_of(order[j]).count(table)) << table.material.name();
        for (std::size_t k = kvk + 1; k < j; ++k)
            if (order[k] != named("KvK")) {
                EXPECT_FALSE(plan.reads_of(order[k]).count(table)) << table.material.name();
            }
    }
}

TEST(MemoryPlan, UnreadTablesAreThoseNoPairStillToBuildReadsUnlessKept) {
    const auto order = materials_in_build_order(3);
    const MemoryPlan plan(order, false, 0, same_size);
    const std::size_t last = order.size() - 1;
    const std::vector<TableId> in_memory = {{named("KvK"), false}, {named("KMvK"), false}, {named("MvK"), false}};
    // After the last pair nothing is read any more: all go, but for what is kept.
    EXPECT_EQ(plan.unread(plan.next_reads(last, {}), {}, in_memory), in_memory);
    EXPECT_EQ(plan.unread(plan.next_reads(last, {}), {{named("KMvK"), false}}, in_memory),
              (std::vector<TableId>{{named("KvK"), false}, {named("MvK"), false}}));
}

TEST(MemoryPlan, SpillsTablesTheCurrentPairDoesNotReadLatestReadFirstUntilItFits) {
    const std::vector<Material> order = materials_in_build_order(4);
    const std::size_t current = position_in(order, "KMvK");
    // The pair reads 3 WDL tables (3,000 bytes) besides its solver's bytes (above); each table
    // takes 1,000.
    const std::uint64_t pair = 3000 + MemoryPlan(order, false, 0, same_size).solver_bytes(named("KMvK"));
    const std::vector<TableId> in_memory = {{named("KvK"), false}, {named("KvKK"), false}, {named("MvK"), false},
                                            {named("KKvK"), false}, {named("KMvM"), false}, {named("MvKM"), false}};
    const auto next = MemoryPlan(order, false, 0, same_size).next_reads(current, {named("KMvK"), named("KvKM")});
    // Without a limit, nothing moves.
    EXPECT_TRUE(MemoryPlan(order, false, 0, same_size).to_spill(current, next, in_memory).empty());
    // Room for everything: nothing moves.
    EXPECT_TRUE(MemoryPlan(order, false, pair + 3000, same_size).to_spill(current, next, in_memory).empty());
    // Room for one table beyond the pair's: two of the three it does not read move, read latest first.
    const auto spilled = MemoryPlan(order, false, pair + 1500, same_size).to_spill(current, next, in_memory);
    ASSERT_EQ(spilled.size(), 2u);
    const auto read_at = [&](const TableId& t) { return next.count(t) ? next.at(t) : order.size(); };
    EXPECT_GE(read_at(spilled[0]), read_at(spilled[1]));
    for (const TableId& kept : {TableId{named("KKvK"), false}, TableId{named("KMvM"), false}, TableId{named("MvKM"), false}})
        if (std::find(spilled.begin(), spilled.end(), kept) == spilled.end()) {
            for (const TableId& t : spilled) EXPECT_GE(read_at(t), read_at(kept));
        }
    // Too small even for the pair: every table it does not read moves, none that it reads.
    const auto all = MemoryPlan(order, false, 1000, same_size).to_spill(current, next, in_memory);
    EXPECT_EQ(all.size(), 3u);
    for (const TableId& t : all) EXPECT_FALSE(MemoryPlan(order, false, 0, same_size).reads_of(named("KMvK")).count(t));
}

}  // namespace
}  // namespace dtb
