// `dtb bench index` (indexing speed) and `dtb bench format` (file size under the encoding
// alternatives), added to the `bench` group that add_probe_commands creates.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>

#include <tbb/parallel_for.h>

#include "gen/builder.hpp"
#include "gen/encoding.hpp"
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
};

std::uint64_t encoded_bytes(const std::vector<std::uint8_t>& values, const Encoding& e) {
    const auto stored = fill_dont_care(values, e.fill);
    const bool base3 = std::string(e.packing) == "base3";
    const std::uint64_t blocks = (stored.size() + e.block_positions - 1) / e.block_positions;
    std::atomic<std::uint64_t> bytes{0};
    tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t b) {
        const std::uint64_t first = b * e.block_positions;
        const std::uint64_t n = std::min<std::uint64_t>(e.block_positions, stored.size() - first);
        const auto raw = base3 ? pack_base3(stored.data() + first, n) : pack_2bit(stored.data() + first, n);
        bytes += compress_block(raw, e.level).size() + sizeof(std::uint64_t);  // + its offset-table entry
    });
    return bytes;
}

int run_bench_format(const std::string& dir, const std::vector<std::string>& names) {
    std::vector<Material> materials;
    for (const std::string& n : names) {
        const auto m = parse_material(n);
        if (!m) throw std::invalid_argument("unknown material name '" + n + "'");
        materials.push_back(*m);
    }
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
    };
    std::printf("%llu positions in %zu files\npacking\tdont_care\tblock_positions\tzstd_level\tbytes\tpositions_per_byte\tseconds\n",
                static_cast<unsigned long long>(positions), materials.size());
    for (const Encoding& e : encodings) {
        const auto start = Clock::now();
        std::uint64_t bytes = 0;
        for (const auto& v : values) bytes += encoded_bytes(v, e);
        std::printf("%s\t%s\t%u\t%d\t%llu\t%.1f\t%.1f\n", e.packing, e.fill == DontCareFill::Previous ? "previous" : "draw",
                    e.block_positions, e.level, static_cast<unsigned long long>(bytes),
                    static_cast<double>(positions) / static_cast<double>(bytes), seconds_since(start));
        std::fflush(stdout);
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
    index->add_option("-m,--material", *names, "Materials to measure")->capture_default_str();
    index->add_option("--count", *count, "Random positions per material")->check(CLI::Range(1000, 100'000'000))->capture_default_str();
    index->callback([&run, names, count] { run = [=] { return run_bench_index(*names, *count, 5); }; });

    auto dir = std::make_shared<std::string>();
    auto materials = std::make_shared<std::vector<std::string>>();
    auto* fmt = bench->add_subcommand("format", "File size of a database folder under the encoding alternatives (packing, don't-care fill, block size, zstd level)");
    fmt->add_option("-d,--db", *dir, "Database folder")->required();
    fmt->add_option("-m,--material", *materials, "Only these materials (default: every file)");
    fmt->callback([&run, dir, materials] { run = [=] { return run_bench_format(*dir, *materials); }; });
}

}  // namespace dtb::cli
