// The resident mode (TablebaseOptions::resident): the run-length code of probe/resident_table.hpp
// checked value by value against what the files store, on value patterns chosen to exercise every
// kind of code, and the Tablebase answering from it alone.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "index/position_index.hpp"
#include "probe/resident_table.hpp"
#include "probe/table_file.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "tests/probe/test_tables.hpp"

namespace dtb {
namespace {

// Every position's value from the resident code equals the one written to the file, in chunks of
// every size, its codes as bytes and in the prefix code, and held directly.
void expect_round_trip(const Material& m, std::uint32_t positions_per_block, const std::vector<Value>& values) {
    const test::TempDir dir("resident");
    test::write_table(dir, m, positions_per_block, [&](std::uint64_t i) { return values[i]; });
    const TableFile file(dir.path() / format::wdl_file_name(m));
    using Coding = detail::ResidentTable::Coding;
    for (const Coding coding : {Coding::Bytes, Coding::Bits})
        for (const std::size_t chunk_bytes : {16, 32, 64}) {
            const detail::ResidentTable table(file, chunk_bytes, coding);
            ASSERT_EQ(table.positions(), values.size());
            for (std::uint64_t i = 0; i < values.size(); ++i)
                ASSERT_EQ(table.value(i), values[i]) << m.name() << " position " << i << " of " << values.size() << ", chunks of "
                                                     << chunk_bytes << (coding == Coding::Bits ? " bits" : " bytes");
        }
    const detail::ResidentTable direct(file, 0, Coding::Direct);
    ASSERT_EQ(direct.positions(), values.size());
    EXPECT_LE(direct.bytes(), values.size() / 5 + 1 + sizeof(direct)) << "five positions a byte";
    for (std::uint64_t i = 0; i < values.size(); ++i)
        ASSERT_EQ(direct.value(i), values[i]) << m.name() << " position " << i << " of " << values.size() << ", direct";
}

// Runs of one value with lengths drawn by `length`, the value changing at every run.
std::vector<Value> runs(std::uint64_t size, unsigned seed, const std::function<std::uint64_t(std::mt19937_64&)>& length) {
    std::mt19937_64 rng(seed);
    std::vector<Value> values;
    values.reserve(size);
    int v = 0;
    while (values.size() < size) {
        v = (v + 1 + static_cast<int>(rng() % 2)) % 3;
        values.insert(values.end(), std::min<std::uint64_t>(length(rng), size - values.size()), static_cast<Value>(v));
    }
    return values;
}

const Material kKKvKK = *parse_material("KKvKK");  // 1,381,800 positions

TEST(ResidentTable, OneValueEverywhere) {
    // A single run of 1.4 million positions: long-run codes only, one chunk.
    expect_round_trip(kKKvKK, 65520, std::vector<Value>(PositionIndex(kKKvKK).size(), Value::Win));
}

TEST(ResidentTable, RunsOfEveryLength) {
    // Every length from 1 to 9,000 in turn (literals, each run code, chains, long runs), in blocks
    // whose ends fall anywhere in a run.
    std::uint64_t next = 0;
    expect_round_trip(kKKvKK, 4995, runs(PositionIndex(kKKvKK).size(), 1, [&](std::mt19937_64&) { return next++ % 9000 + 1; }));
}

TEST(ResidentTable, ShortRunsAndPositionByPositionNoise) {
    // Mostly runs of 1-6 positions: many chunks between two hints (the bisection).
    expect_round_trip(kKKvKK, 65520, runs(PositionIndex(kKKvKK).size(), 2, [](std::mt19937_64& r) { return r() % 6 + 1; }));
}

TEST(ResidentTable, DenseAndSparseRegionsSideBySide) {
    // Long uniform stretches between bursts of noise: hints cover a single chunk or dozens.
    std::mt19937_64 rng(3);
    std::vector<Value> values;
    const std::uint64_t size = PositionIndex(kKKvKK).size();
    while (values.size() < size) {
        const std::uint64_t quiet = std::min<std::uint64_t>(rng() % 200'000, size - values.size());
        values.insert(values.end(), quiet, static_cast<Value>(rng() % 3));
        for (std::uint64_t k = rng() % 50'000; k > 0 && values.size() < size; --k) values.push_back(static_cast<Value>(rng() % 3));
    }
    expect_round_trip(kKKvKK, 65520, values);
}

TEST(ResidentTable, LongRunsBetweenBurstsOfNoise) {
    // A long run's 5-byte code often does not fit at the end of a chunk, which is then padded; a
    // burst of noise fills a dozen chunks between two hints (the bisection). A probe that started
    // in the chunk before its own would read that padding.
    const std::uint64_t size = PositionIndex(kKKvKK).size();
    for (unsigned seed = 0; seed < 8; ++seed) {
        std::mt19937_64 rng(seed);
        std::vector<Value> values;
        const auto run = [&](std::uint64_t length, Value v) {
            values.insert(values.end(), std::min<std::uint64_t>(length, size - values.size()), v);
        };
        while (values.size() < size) {
            run(10'000 + rng() % 10'000, static_cast<Value>(rng() % 3));
            for (std::uint64_t k = 2'900 + rng() % 200; k > 0 && values.size() < size; --k)
                values.push_back(static_cast<Value>(rng() % 3));
            for (int r = 0; r < 2; ++r) run(8'200 + rng() % 1'000, static_cast<Value>(r + 1));  // long-run codes
        }
        expect_round_trip(kKKvKK, 65520, values);
    }
}

TEST(ResidentTable, SmallestMaterials) {
    for (const Material& m : materials_in_build_order(2)) {
        const std::uint64_t size = PositionIndex(m).size();
        expect_round_trip(m, 5, runs(size, 4, [](std::mt19937_64& r) { return r() % 3 == 0 ? r() % 400 + 1 : r() % 4 + 1; }));
    }
}

TEST(ResidentTable, InvalidValueByteIsRefused) {
    const test::TempDir dir("resident-bad");
    format::Header h;
    h.material = *parse_material("KvK");
    h.positions_per_block = 100;
    h.positions = PositionIndex(h.material).size();
    test::write_file(dir.path() / "KvK.wdl", h, [](std::uint64_t first, std::uint64_t, std::vector<std::uint8_t>& raw) {
        if (first == 500) raw[7] = 250;  // passes the checksums, but is no base-3 byte
    });
    const TableFile file(dir.path() / "KvK.wdl");
    using Coding = detail::ResidentTable::Coding;
    for (const Coding coding : {Coding::Automatic, Coding::Bytes, Coding::Bits, Coding::Direct})
        try {
            const detail::ResidentTable table(file, 0, coding);
            FAIL() << "an invalid byte was accepted, coding " << static_cast<int>(coding);
        } catch (const TableError& e) {
            EXPECT_NE(std::string(e.what()).find("block 5 holds an invalid value byte"), std::string::npos) << e.what();
        }
}

// Every hint names the chunk that holds its position, whatever the chunks' sizes: about one hint
// a chunk where they are even; where 200,000 one-position chunks crowd among long ones, a group of
// hints would span more than 16 bits of chunks at that density, so the hints come closer.
void expect_hints_name_their_chunks(const std::vector<std::uint64_t>& starts) {
    const detail::ChunkHints hints = detail::make_chunk_hints(starts);
    const std::uint64_t chunks = starts.size() - 1, last = starts.back() - 1;
    ASSERT_LT(hints.shift, detail::ResidentTable::kSpanBits);
    ASSERT_EQ(hints.above_base.size(), (last >> hints.shift) + 2);
    const auto chunk_of = [&](std::uint64_t h) {
        return std::uint64_t{hints.bases[h >> detail::ChunkHints::kGroupShift]} + hints.above_base[h];
    };
    for (std::uint64_t h = 0; h + 1 < hints.above_base.size(); ++h) {
        const std::uint64_t c = chunk_of(h), position = h << hints.shift;
        ASSERT_LT(c, chunks);
        ASSERT_LE(starts[c], position) << "hint " << h;
        ASSERT_LT(position, starts[c + 1]) << "hint " << h;
    }
    EXPECT_EQ(chunk_of(hints.above_base.size() - 1), chunks - 1);
}

TEST(ResidentTable, HintsNameTheirChunks) {
    std::vector<std::uint64_t> even;
    for (std::uint64_t p = 0; p < 50'000'000; p += 3'000) even.push_back(p);
    even.push_back(50'000'000);
    expect_hints_name_their_chunks(even);
    EXPECT_LE(detail::make_chunk_hints(even).above_base.size(), even.size() + 1) << "about one hint a chunk";

    std::vector<std::uint64_t> crowded;
    for (std::uint64_t p = 0; p < 400'000'000; p += 900'000) crowded.push_back(p);  // long chunks
    const std::uint64_t burst = crowded.back() + 1;
    for (std::uint64_t p = burst; p < burst + 200'000; ++p) crowded.push_back(p);
    for (std::uint64_t p = burst + 200'000; p < 800'000'000; p += 900'000) crowded.push_back(p);
    crowded.push_back(800'000'000);
    expect_hints_name_their_chunks(crowded);
    const int spread = detail::make_chunk_hints(crowded).shift;
    EXPECT_LT(spread, 12) << "at about one hint a chunk (shift 12), 1,024 hints around the burst would span 2^17 of its chunks";
}

class ResidentTablebase : public ::testing::Test {
protected:
    void SetUp() override { test::write_synthetic_tables(dir_, 3, 500); }
    test::TempDir dir_{"resident-tb"};
};

TEST_F(ResidentTablebase, AnswersFromMemoryAloneAfterPreload) {
    const Tablebase tb(dir_, {.cache_mb = 0, .resident = true});
    const std::size_t materials = materials_in_build_order(3).size();
    EXPECT_EQ(tb.preload(2), materials);
    EXPECT_GT(tb.resident_bytes(), 0u);
    // The files are gone: every answer must come from memory.
    std::filesystem::remove_all(dir_.path());
    std::mt19937_64 rng(5);
    const auto all = materials_in_build_order(3);
    int captures = 0;
    for (int n = 0; n < 20000; ++n) {
        const PositionIndex index(all[rng() % all.size()]);
        Position p = index.position(rng() % index.size());
        if (rng() % 2) p = flip_colors(p);
        const ProbeResult r = tb.probe_wdl(p);
        ASSERT_TRUE(r.known()) << to_fen(p) << ": " << r.reason;
        ASSERT_EQ(r.value, test::reference_value(p)) << to_fen(p);
        captures += has_capture(p);
        const ProbeResult quiet = tb.probe_wdl_quiet(p);
        if (has_capture(p)) EXPECT_EQ(quiet.error, ProbeError::Capture);
        else EXPECT_EQ(quiet.value, r.value) << to_fen(p);
    }
    EXPECT_GT(captures, 1000);
    EXPECT_EQ(tb.cache_stats().misses, 0u);  // no block was ever looked up
}

TEST_F(ResidentTablebase, LoadsOnFirstNeedWithoutPreload) {
    const Tablebase tb(dir_, {.resident = true});
    EXPECT_EQ(tb.resident_bytes(), 0u);
    const Position p = parse_fen("W:WK46:BK5");
    EXPECT_EQ(tb.probe_wdl(p).value, test::reference_value(p));
    EXPECT_GT(tb.resident_bytes(), 0u);
}

TEST_F(ResidentTablebase, CorruptFileIsUnknownAndLogged) {
    const Material m = *parse_material("KKvK");
    test::flip_block_byte(dir_.path() / format::wdl_file_name(m), 3);
    std::vector<std::string> log;
    const Tablebase tb(dir_, {.resident = true, .log = [&](std::string_view s) { log.emplace_back(s); }});
    EXPECT_EQ(tb.preload(1), materials_in_build_order(3).size() - 1);
    const PositionIndex index(m);
    const ProbeResult r = tb.probe_wdl_quiet(index.position(0));
    EXPECT_EQ(r.value, Value::Unknown);
    EXPECT_EQ(r.error, ProbeError::BadTable);
    ASSERT_FALSE(log.empty());
    EXPECT_NE(log.front().find("KKvK.wdl"), std::string::npos) << log.front();
    // Other materials still answer.
    const Position other = parse_fen("W:WK46:BK5");
    EXPECT_EQ(tb.probe_wdl(other).value, test::reference_value(other));
}

}  // namespace
}  // namespace dtb
