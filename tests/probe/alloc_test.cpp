// A probe whose blocks are cached allocates nothing: counted by replacing the global operator new.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include "index/position_index.hpp"
#include "probe/tablebase.hpp"
#include "tests/probe/test_tables.hpp"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// Every non-aligned form is replaced, so that all of them pair malloc with free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
    ++g_allocations;
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    ++g_allocations;
    return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace dtb {
namespace {

TEST(TablebaseAllocations, NoneOnCachedProbes) {
    const test::TempDir dir("alloc");
    test::write_synthetic_tables(dir, 3, 500);
    const Tablebase tb(dir.path(), {.cache_mb = 16});
    std::mt19937_64 rng(9);
    std::vector<Position> positions;
    for (const Material& m : materials_in_build_order(3)) {
        const PositionIndex index(m);
        for (int i = 0; i < 300; ++i) {
            const Position p = index.position(rng() % index.size());
            positions.push_back(i % 2 ? flip_colors(p) : p);
        }
    }
    for (const Position& p : positions) ASSERT_TRUE(tb.probe_wdl(p).known());  // fill the cache

    const long before = g_allocations.load();
    int known = 0;
    for (const Position& p : positions) known += tb.probe_wdl(p).known() + tb.probe_wdl_soft(p).known();
    const long allocations = g_allocations.load() - before;
    EXPECT_EQ(known, 2 * static_cast<int>(positions.size()));
    EXPECT_EQ(allocations, 0);
}

}  // namespace
}  // namespace dtb
