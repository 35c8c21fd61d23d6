// `dtb bench index` (indexing speed) and `dtb bench format` (file size of WDL or DTW files under
// the encoding alternatives), added to the `bench` group that add_probe_commands creates.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>

#include <tbb/parallel_for.h>

#include "gen/builder.hpp"
#include "gen/encoding.hpp"
#include "gen/loader.hpp"
#include "gen/solver.hpp"
#include "gen/verify.hpp"
#include "probe/table_file.hpp"
#include "rules/movegen.hpp"
#include "tools/commands.hpp"

namespace dtb::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Median over `rounds` of the rate (millions per second) of `work` over `count` items.
template <typename Work>
double median_rate(int rounds, std::size_t count, Work&& work) {
    std::vector<double> rates;
    for (int r = 0; r < rounds; ++r) {
        const auto start = Clock::now();
        work();
        rates.push_back(static_cast<double>(count) / seconds_since(start) / 1e6);
    }
    std::sort(rates.begin(), rates.end());
    return rates[rates.size() / 2];
}

int run_bench_index(const std::vector<std::string>& names, std::size_t count, int rounds) {
    std::printf("material\tpositions\tindex_M_per_s\tunindex_M_per_s\n");
    for (const std::string& name : names) {
        const auto m = parse_material(name);
        if (!m) throw std::invalid_argument("unknown material name '" + name + "'");
        const PositionIndex index(*m);
        std::mt19937_64 rng(1);
        std::vector<std::uint64_t> ids(count);
        for (auto& i : ids) i = rng() % index.size();
        std::vector<Position> positions(count);
        std::uint64_t sink = 0;
        const double unindex = median_rate(rounds, count, [&] {
            for (std::size_t i = 0; i < count; ++i) positions[i] = index.position(ids[i]);
        });
        const double rate = median_rate(rounds, count, [&] {
            for (const Position& p : positions) sink += index.index(p);
        });
        std::uint64_t expected = 0;
        for (auto i : ids) expected += i;
        if (sink != expected * static_cast<std::uint64_t>(rounds)) throw std::logic_error("index round trip failed");
        std::printf("%s\t%llu\t%.1f\t%.1f\n", m->name().c_str(), static_cast<unsigned long long>(index.size()), rate,
                    unindex);
    }
    return kExitOk;
}

struct Encoding {
    const char* packing;
    DontCareFill fill;
    std::uint32_t block_positions;
    int level;
    bool best_fill_per_block = false;  // as dtb gen writes: the smaller of both fills, block by block
};

// Compressed bytes of one block of `e` (plus its block-table entry): positions [first, first + n)
// of the solver's values, or of `stored`, the values with every don't-care filled by e.fill.
std::uint64_t block_bytes(const std::vector<std::uint8_t>& values, const std::vector<std::uint8_t>& stored,
                          std::uint64_t first, std::uint64_t n, const Encoding& e) {
    if (e.best_fill_per_block) return encode_wdl_block(values.data() + first, n, e.level).frame.size() + format::kBlockTableEntryBytes;
    const bool base3 = std::string(e.packing) == "base3";
    const auto raw = base3 ? pack_base3(stored.data() + first, n) : pack_2bit(stored.data() + first, n);
    return compress_block(raw, e.level).size() + format::kBlockTableEntryBytes;
}

std::uint64_t encoded_bytes(const std::vector<std::uint8_t>& values, const Encoding& e) {
    const std::vector<std::uint8_t> stored = e.best_fill_per_block ? std::vector<std::uint8_t>{} : fill_dont_care(values, e.fill);
    const std::uint64_t blocks = (values.size() + e.block_positions - 1) / e.block_positions;
    std::atomic<std::uint64_t> bytes{0};
    tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t b) {
        const std::uint64_t first = b * e.block_positions;
        bytes += block_bytes(values, stored, first, std::min<std::uint64_t>(e.block_positions, values.size() - first), e);
    });
    return bytes;
}

int run_bench_format(const std::string& dir, const std::vector<std::string>& names) {
    std::vector<Material> materials = parse_materials(names);
    if (materials.empty()) materials = materials_in_folder(dir);
    std::vector<std::vector<std::uint8_t>> values;
    std::uint64_t positions = 0;
    for (const Material& m : materials) {
        values.push_back(read_solver_values(dir, m));
        positions += values.back().size();
    }
    const std::vector<Encoding> encodings = {
        {"base3", DontCareFill::Previous, 32760, 19}, {"2bit", DontCareFill::Previous, 32760, 19},
        {"base3", DontCareFill::Draw, 32760, 19},     {"base3", DontCareFill::Previous, 4095, 19},
        {"base3", DontCareFill::Previous, 8190, 19},  {"base3", DontCareFill::Previous, 16380, 19},
        {"base3", DontCareFill::Previous, 65520, 19}, {"base3", DontCareFill::Previous, 131040, 19},
        {"base3", DontCareFill::Previous, 32760, 3},  {"base3", DontCareFill::Previous, 32760, 9},
        {"base3", DontCareFill::Previous, 32760, 22},
        {"base3", DontCareFill::Previous, WriteOptions{}.positions_per_block, WriteOptions{}.zstd_level},
        {"base3", DontCareFill::Draw, WriteOptions{}.positions_per_block, WriteOptions{}.zstd_level},
        {"base3", DontCareFill::Previous, WriteOptions{}.positions_per_block, WriteOptions{}.zstd_level, true},  // dtb gen's default
    };
    std::printf("%llu positions in %zu files\npacking\tdont_care\tblock_positions\tzstd_level\tbytes\tpositions_per_byte\tseconds\n",
                static_cast<unsigned long long>(positions), materials.size());
    for (const Encoding& e : encodings) {
        const auto start = Clock::now();
        std::uint64_t bytes = 0;
        for (const auto& v : values) bytes += encoded_bytes(v, e);
        const char* fill = e.best_fill_per_block ? "best_per_block" : e.fill == DontCareFill::Previous ? "previous" : "draw";
        std::printf("%s\t%s\t%u\t%d\t%llu\t%.1f\t%.1f\n", e.packing, fill,
                    e.block_positions, e.level, static_cast<unsigned long long>(bytes),
                    static_cast<double>(positions) / static_cast<double>(bytes), seconds_since(start));
        std::fflush(stdout);
    }
    return kExitOk;
}

// ---- DTW files ----

// A material's DTW as the files of DIR give it (the wins of a losses-only file found as its reader
// finds them): DTW/2 of every position, kDtwDontCare for draws and capture positions (never
// stored), and which are wins.
struct DtwHalves {
    std::vector<std::uint16_t> halves;
    std::vector<std::uint8_t> win;  // 1 for a won position that is not a capture position
};

// `dtw` must hold m's table; `values` are m's solver values (Value | kCaptureFlag).
DtwHalves dtw_halves(const Material& m, const DtwTables& dtw, const std::vector<std::uint8_t>& values) {
    const std::vector<Dtw>& table = *dtw.table(m);
    DtwHalves out{std::vector<std::uint16_t>(table.size()), std::vector<std::uint8_t>(table.size())};
    tbb::parallel_for(std::uint64_t{0}, std::uint64_t{table.size()}, [&](std::uint64_t i) {
        const bool dont_care = (values[i] & kCaptureFlag) || table[i] == kDtwDraw;
        out.halves[i] = dont_care ? kDtwDontCare : static_cast<std::uint16_t>(table[i] / 2);
        out.win[i] = !dont_care && dtw_is_win(table[i]);
    });
    return out;
}

// Which distances a file would hold; the others would be found by a one-ply search at probe time
// (a loss is 1 + the longest win after a move, a win 1 + the shortest loss).
enum class DtwStored { All, Wins, Losses };

const char* dtw_stored_name(DtwStored s) { return s == DtwStored::All ? "all" : s == DtwStored::Wins ? "wins" : "losses"; }

struct DtwEncoding {
    DtwFill fill = DtwFill::Previous;
    DtwLayout layout = DtwLayout::Plain;
    std::uint32_t width = 0;  // bytes a number; 0: what the file chose (1 when DTW/2 fits a byte)
    std::uint32_t block_positions = WriteOptions{}.positions_per_block;  // what dtb gen writes
    int level = WriteOptions{}.dtw_zstd_level;
    DtwStored stored = DtwStored::Losses;  // what dtb gen writes (encodings 4, 5)
};

struct DtwSize {
    std::uint64_t bytes = 0;          // compressed blocks, each with its offset-table entry
    std::uint64_t blocks = 0;
    std::uint64_t decompress_ns = 0;  // decompressing every block once on one thread (best of 3)
};

// One material's DTW under `e`.
DtwSize dtw_encoded_size(const DtwHalves& d, std::uint32_t file_width, const DtwEncoding& e) {
    const std::uint32_t width = e.width ? e.width : file_width;
    const std::uint64_t blocks = (d.halves.size() + e.block_positions - 1) / e.block_positions;
    std::vector<std::vector<unsigned char>> frames(blocks);
    tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t b) {
        const std::uint64_t first = b * e.block_positions;
        const std::uint64_t n = std::min<std::uint64_t>(e.block_positions, d.halves.size() - first);
        std::vector<std::uint16_t> block(d.halves.begin() + static_cast<std::ptrdiff_t>(first),
                                         d.halves.begin() + static_cast<std::ptrdiff_t>(first + n));
        if (e.stored != DtwStored::All)
            for (std::uint64_t j = 0; j < n; ++j)
                if (d.win[first + j] != (e.stored == DtwStored::Wins)) block[j] = kDtwDontCare;
        fill_dtw_dont_care(block, e.fill);
        frames[b] = compress_block(lay_out_dtw(block, width, e.layout), e.level);
    });
    DtwSize size{0, blocks, UINT64_MAX};
    for (const auto& f : frames) size.bytes += f.size() + format::kBlockTableEntryBytes;
    // What a cold probe pays, on one thread; the best of three rounds, as the machine may be busy.
    std::vector<std::uint8_t> out;
    for (int round = 0; round < 3; ++round) {
        const auto start = Clock::now();
        for (const auto& f : frames) decompress_block(f, out);
        size.decompress_ns = std::min(size.decompress_ns, static_cast<std::uint64_t>(
                                          std::chrono::duration<double, std::nano>(Clock::now() - start).count()));
    }
    return size;
}

int run_bench_format_dtw(const std::string& dir, const std::vector<std::string>& names) {
    std::vector<Material> materials = parse_materials(names);
    if (materials.empty())
        for (const Material& m : materials_in_folder(dir))
            if (std::filesystem::exists(std::filesystem::path(dir) / format::dtw_file_name(m))) materials.push_back(m);
    if (materials.empty()) throw std::invalid_argument("no .dtw files in " + dir);
    using F = DtwFill;
    using L = DtwLayout;
    // The first row is what the writer does; each other row changes one thing.
    std::vector<DtwEncoding> encodings = {
        {},
        {.fill = F::Zero},
        {.fill = F::Next},
        {.fill = F::Mode},
        {.fill = F::Nearest},
        {.layout = L::BlockMinimum},
        {.layout = L::Delta},
        {.layout = L::Plain, .width = 2},
        {.layout = L::Planes, .width = 2},
    };
    for (const std::uint32_t block : {4096u, 16384u, 32760u, 65520u, 131040u})
        if (block != encodings[0].block_positions) encodings.push_back({.block_positions = block});
    for (const int level : {12, 19, 22})
        if (level != encodings[0].level) encodings.push_back({.level = level});
    encodings.push_back({.stored = DtwStored::All});  // encodings 2 and 3, written before 2026-11-23
    encodings.push_back({.fill = F::Zero, .stored = DtwStored::All});
    encodings.push_back({.stored = DtwStored::Wins});
    // The distances of every material the measured ones need stay in memory (a losses-only file
    // is read with them): 2 bytes a position, 3.2 GB for a 2-5 folder. Totals per encoding.
    std::vector<DtwSize> totals(encodings.size());
    std::vector<double> seconds(encodings.size(), 0);
    std::uint64_t positions = 0, wins = 0, losses = 0, dtw_file_bytes = 0, wdl_file_bytes = 0;
    ValueTables wdl;
    DtwTables dtw;
    for (const Material& m : materials) {
        const std::filesystem::path path = std::filesystem::path(dir) / format::dtw_file_name(m);
        const TableFile file(path, format::FileKind::Dtw);
        load_finished_dtw_with_successors(dir, m, wdl, dtw);
        const DtwHalves d = dtw_halves(m, dtw, read_solver_values(dir, m));
        positions += d.halves.size();
        wins += file.header().wins;
        losses += file.header().losses;
        dtw_file_bytes += file.file_bytes();
        wdl_file_bytes += std::filesystem::file_size(std::filesystem::path(dir) / format::wdl_file_name(m));
        for (std::size_t i = 0; i < encodings.size(); ++i) {
            const auto start = Clock::now();
            const DtwSize size = dtw_encoded_size(d, file.header().dtw_width(), encodings[i]);
            totals[i].bytes += size.bytes;
            totals[i].blocks += size.blocks;
            totals[i].decompress_ns += size.decompress_ns;
            seconds[i] += seconds_since(start);
        }
    }
    std::printf("%llu positions (%llu wins, %llu losses without a capture) in %zu .dtw files: %llu bytes on disk; "
                "the .wdl files of the same materials: %llu bytes\n",
                static_cast<unsigned long long>(positions), static_cast<unsigned long long>(wins),
                static_cast<unsigned long long>(losses), materials.size(), static_cast<unsigned long long>(dtw_file_bytes),
                static_cast<unsigned long long>(wdl_file_bytes));
    std::printf("stored\tdont_care\tlayout\twidth\tblock_positions\tzstd_level\tbytes\tvs_first\tvs_wdl\t"
                "decompress_us_per_block\tseconds\n");
    for (std::size_t i = 0; i < encodings.size(); ++i) {
        const DtwEncoding& e = encodings[i];
        const DtwSize& t = totals[i];
        std::printf("%s\t%s\t%s\t%s\t%u\t%d\t%llu\t%+.1f%%\t%.2f\t%.1f\t%.1f\n", dtw_stored_name(e.stored),
                    dtw_fill_name(e.fill), dtw_layout_name(e.layout), e.width == 0 ? "file" : e.width == 1 ? "u8" : "u16",
                    e.block_positions, e.level, static_cast<unsigned long long>(t.bytes),
                    100.0 * (static_cast<double>(t.bytes) / static_cast<double>(totals[0].bytes) - 1),
                    static_cast<double>(t.bytes) / static_cast<double>(wdl_file_bytes),
                    static_cast<double>(t.decompress_ns) / 1e3 / static_cast<double>(std::max<std::uint64_t>(1, t.blocks)),
                    seconds[i]);
    }
    return kExitOk;
}

}  // namespace

void add_bench_commands(CLI::App& app, Runner& run) {
    CLI::App* bench = nullptr;
    for (CLI::App* sub : app.get_subcommands({}))
        if (sub->get_name() == "bench") bench = sub;
    if (!bench) {
        bench = app.add_subcommand("bench", "Benchmarks");
        bench->require_subcommand(1);
    }

    auto names = std::make_shared<std::vector<std::string>>(
        std::vector<std::string>{"KvK", "KMvKM", "MMMvMM", "KKKvKKK", "MMMvMMM", "MMMMvMMMM"});
    auto count = std::make_shared<std::size_t>(1'000'000);
    auto* index = bench->add_subcommand("index", "Index and unindex rates on one thread (millions per second, median of 5)");
    index->add_option("-m,--material", *names, "Materials to measure")->delimiter(',')->capture_default_str();
    index->add_option("--count", *count, "Random positions per material")->check(CLI::Range(1000, 100'000'000))->capture_default_str();
    index->callback([&run, names, count] { run = [=] { return run_bench_index(*names, *count, 5); }; });

    auto dir = std::make_shared<std::string>();
    auto materials = std::make_shared<std::vector<std::string>>();
    auto* fmt = bench->add_subcommand("format", "File size of a database folder under the encoding alternatives (packing, don't-care fill, block size, zstd level; with --dtw, of its .dtw files)");
    fmt->add_option("-d,--db", *dir, "Database folder")->required();
    fmt->add_option("-m,--material", *materials, "Only these materials (default: every file)")->delimiter(',');
    auto dtw = std::make_shared<bool>(false);
    fmt->add_flag("--dtw", *dtw,
                  "Measure the .dtw files instead: don't-care fill, byte layout, block size (docs/FORMAT.md, "
                  "\"DTW files\")");
    fmt->callback([&run, dir, materials, dtw] {
        run = [=] { return *dtw ? run_bench_format_dtw(*dir, *materials) : run_bench_format(*dir, *materials); };
    });
}

}  // namespace dtb::cli
