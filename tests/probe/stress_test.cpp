// Many threads probing one Tablebase whose cache is far smaller than the tables and whose
// open-file limit is tiny, so blocks are evicted and files closed and reopened while other
// threads read them. Built with -DDTB_SANITIZE=thread this is the ThreadSanitizer test (label tsan)
// of the cache's lock-free hit path (atomic loads checked against the directory word while other
// threads evict and refill the same slots); in any build it also checks every answer against the
// synthetic reference.
#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <random>
#include <thread>
#include <vector>

#include "index/position_index.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "tests/probe/test_tables.hpp"

namespace dtb {
namespace {

TEST(TablebaseStress, ConcurrentProbesWithEvictions) {
    const test::TempDir tmp("stress");
    const std::filesystem::path& dir = tmp;
    // All 2-3 piece tables plus a few 4-piece ones: about 3 MB of blocks for a 1 MiB cache.
    test::write_synthetic_tables(dir, 3, 500);
    std::vector<Material> materials = materials_in_build_order(3);
    for (const char* name : {"KKvKK", "KKvKM", "KMvKK", "KMvKM"}) {
        const Material m = *parse_material(name);
        test::write_table(dir, m, 500, [&](std::uint64_t i) { return test::synthetic_value(m, i); });
        materials.push_back(m);
    }
    // DTW files too: their blocks share the cache (and the open-file limit) with the WDL blocks.
    for (const Material& m : materials) test::write_synthetic_dtw_table(dir, m, 700);

    std::atomic<int> log_lines{0};
    const Tablebase tb(dir, {.cache_mb = 1, .max_open_files = 3, .log = [&](std::string_view) { ++log_lines; }});
    ASSERT_EQ(tb.max_pieces(), 4);

    constexpr int kThreads = 8;
    constexpr int kProbes = 10000;
    std::atomic<int> wrong{0}, unknown{0}, soft_known{0}, dtw_probed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937_64 rng(1000 + t);
            for (int i = 0; i < kProbes; ++i) {
                // Half the probes in the 4-piece tables, which hold most of the blocks.
                const std::size_t small = materials.size() - 4;
                const PositionIndex index(materials[rng() % 2 ? small + rng() % 4 : rng() % small]);
                Position p = index.position(rng() % index.size());
                if (rng() % 2) p = flip_colors(p);
                const Value expected = test::reference_value(p);
                switch (i % 8) {
                    case 0: {  // soft probe: unknown or right
                        const ProbeResult r = tb.probe_wdl_soft(p);
                        if (r.known()) ++soft_known;
                        if (r.known() && r.value != expected) ++wrong;
                        break;
                    }
                    case 1: {
                        // With synthetic values only capture positions must agree with their moves.
                        const auto moves = tb.probe_moves(p);
                        if (has_capture(p) && moves.front().result.value != expected) ++wrong;
                        break;
                    }
                    case 3: {  // a quiet position with a move: its stored distance
                        const Position w = white_to_move(p);
                        if (has_capture(w) || count_moves(w) == 0) break;
                        const DtwResult r = tb.probe_dtw(p);
                        const Material m = material_of(w);
                        const int half = static_cast<int>(test::synthetic_half_dtw(m, PositionIndex(m).index(w)));
                        const int want = expected == Value::Win ? 2 * half + 1 : expected == Value::Loss ? 2 * half : -1;
                        if (r.value != expected || r.dtw != want) ++wrong;
                        ++dtw_probed;
                        break;
                    }
                    case 2:
                        if (t == 0 && i == kProbes / 2 + 2) tb.clear_cache();
                        if (t == 1) (void)tb.cache_stats();
                        [[fallthrough]];
                    default: {
                        const ProbeResult r = tb.probe_wdl(p);
                        if (!r.known()) ++unknown;
                        else if (r.value != expected) ++wrong;
                    }
                }
            }
        });
    }
    for (auto& th : threads) th.join();

    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(unknown.load(), 0);
    EXPECT_EQ(log_lines.load(), 0);
    EXPECT_GT(dtw_probed.load(), 1000);
    const CacheStats stats = tb.cache_stats();
    std::printf("hits %llu, misses %llu, evictions %llu, soft answers %d\n",
                static_cast<unsigned long long>(stats.hits), static_cast<unsigned long long>(stats.misses),
                static_cast<unsigned long long>(stats.evictions), soft_known.load());
    EXPECT_GT(stats.evictions, 0u);
    EXPECT_GT(stats.hits, 0u);
    EXPECT_LE(stats.bytes, stats.capacity_bytes);
}

// Every thread alternates between a hot set of blocks that fits in the cache (hits) and a walk
// over blocks that need about twice the cache (misses, whose inserts make the CLOCK hand sweep
// the hot blocks too and evict some of them), all threads over the same blocks from different
// starts: hits race with the eviction and refilling of their very slots. Each answer is checked;
// hits and evictions are counted.
TEST(TablebaseStress, HitsRaceWithEvictionsOfTheSameBlocks) {
    const test::TempDir tmp("stress-same");
    const Material m = *parse_material("KKvKM");
    // Blocks of 100 positions (20 bytes, a page each): a 1 MiB cache holds about 160 of them.
    test::write_table(tmp.path(), m, 100, [&](std::uint64_t i) { return test::synthetic_value(m, i); });
    const Tablebase tb(tmp.path(), {.cache_mb = 1, .max_pieces = 4});
    const PositionIndex index(m);
    std::vector<Position> positions;
    std::vector<Value> expected;
    for (std::uint64_t block = 0; block < 320; ++block) {  // one quiet position a block
        for (std::uint64_t i = block * 100; i < block * 100 + 100; ++i) {
            const Position p = index.position(i);
            if (has_capture(p)) continue;
            positions.push_back(p);
            expected.push_back(test::synthetic_value(m, i));
            break;
        }
    }
    ASSERT_GT(positions.size(), 300u);

    const std::size_t hot = 100;  // blocks: well within the cache
    constexpr int kThreads = 4;
    constexpr int kRounds = 20;
    std::latch start_together(kThreads);
    std::atomic<int> wrong{0}, unknown{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            start_together.arrive_and_wait();
            const std::size_t start = static_cast<std::size_t>(t) * positions.size() / kThreads;
            for (std::size_t n = 0; n < kRounds * positions.size(); ++n) {
                const std::size_t i = n % 2 ? (n / 2 + start) % hot : (n / 2 + start) % positions.size();
                const ProbeResult r = tb.probe_wdl_quiet(positions[i]);
                if (!r.known()) ++unknown;
                else if (r.value != expected[i]) ++wrong;
            }
        });
    for (auto& th : threads) th.join();

    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(unknown.load(), 0);
    const CacheStats stats = tb.cache_stats();
    std::printf("same blocks: hits %llu, misses %llu, evictions %llu\n", static_cast<unsigned long long>(stats.hits),
                static_cast<unsigned long long>(stats.misses), static_cast<unsigned long long>(stats.evictions));
    EXPECT_GT(stats.hits, 0u);
    EXPECT_GT(stats.evictions, 0u);
    EXPECT_LE(stats.bytes, stats.capacity_bytes);
}

}  // namespace
}  // namespace dtb
