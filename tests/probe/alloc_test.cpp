// A probe whose blocks are cached allocates nothing, and a file whose header claims absurd sizes
// allocates nothing big: counted by replacing the global operator new.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <string>

#include "index/position_index.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "tests/probe/test_tables.hpp"

namespace {
std::atomic<long> g_allocations{0};
std::atomic<std::size_t> g_largest{0};  // the largest single allocation

void note_allocation(std::size_t n) {
    ++g_allocations;
    for (std::size_t seen = g_largest.load(); n > seen && !g_largest.compare_exchange_weak(seen, n);) {
    }
}
}  // namespace

// Every non-aligned form is replaced, so that all of them pair malloc with free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
    note_allocation(n);
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    note_allocation(n);
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

// Headers (checksums right, block counts matching their position counts) that claim 2^61 or 2^27
// blocks of a small material, or the true positions of a 6-piece material in blocks of 5 (an
// offset table of half a gigabyte) in a 128-byte file: refused before anything of that size is
// allocated, and the other materials still answer.
TEST(TablebaseAllocations, NothingBigForAHeaderClaimingAbsurdSizes) {
    const Material kvk = *parse_material("KvK");
    const Material big = *parse_material("KKKvKKK");
    struct Case {
        Material material;
        std::uint64_t positions;
        const char* fen;  // a position that needs the file
    };
    const Case cases[] = {
        {kvk, std::uint64_t{5} << 61, "W:WK46:BK5"},
        {kvk, std::uint64_t{5} << 27, "W:WK46:BK5"},
        {big, PositionIndex(big).size(), "W:WK1,K2,K3:BK48,K49,K50"},
    };
    for (const Case& c : cases) {
        const test::TempDir dir("absurd");
        test::write_table(dir.path(), *parse_material("KKvK"), 500, [](std::uint64_t) { return Value::Win; });
        test::write_header_only(dir.path() / format::wdl_file_name(c.material), c.material, c.positions, 5);
        const Tablebase tb(dir.path(), {.cache_mb = 16});
        g_largest = 0;
        const ProbeResult r = tb.probe_wdl(parse_fen(c.fen));
        EXPECT_EQ(r.value, Value::Unknown);
        EXPECT_EQ(r.error, ProbeError::BadTable) << r.reason;
        EXPECT_NE(std::string(r.reason).find("header claims"), std::string::npos) << r.reason;
        EXPECT_LT(g_largest.load(), std::size_t{1} << 20) << r.reason;
        EXPECT_EQ(tb.probe_wdl(parse_fen("W:WK46,K50:BK5")).value, Value::Win);  // KKvK still answers
    }
}

}  // namespace
}  // namespace dtb
