// Many threads probing one Tablebase whose cache is far smaller than the tables and whose
// open-file limit is tiny, so blocks are evicted and files closed and reopened while other
// threads read them. Built with -DDTB_SANITIZE=thread this is the ThreadSanitizer test (label tsan);
// in any build it also checks every answer against the synthetic reference.
#include <gtest/gtest.h>

#include <atomic>
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

    std::atomic<int> log_lines{0};
    const Tablebase tb(dir, {.cache_mb = 1, .max_open_files = 3, .log = [&](std::string_view) { ++log_lines; }});
    ASSERT_EQ(tb.max_pieces(), 4);

    constexpr int kThreads = 8;
    constexpr int kProbes = 10000;
    std::atomic<int> wrong{0}, unknown{0}, soft_known{0};
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
    const CacheStats stats = tb.cache_stats();
    std::printf("hits %llu, misses %llu, evictions %llu, soft answers %d\n",
                static_cast<unsigned long long>(stats.hits), static_cast<unsigned long long>(stats.misses),
                static_cast<unsigned long long>(stats.evictions), soft_known.load());
    EXPECT_GT(stats.evictions, 0u);
    EXPECT_LE(stats.bytes, stats.capacity_bytes);
}

}  // namespace
}  // namespace dtb
