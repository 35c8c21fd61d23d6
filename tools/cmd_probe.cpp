// `dtb probe` (values of positions from the databases) and `dtb bench probe` (probe speed).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "index/position_index.hpp"
#include "probe/root.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "rules/notation.hpp"
#include "rules/text.hpp"
#include "tools/commands.hpp"
#include "tools/json.hpp"

namespace dtb::cli {
namespace {

// Opens the databases; prints the problem and returns nothing when the folder is unusable.
std::optional<Tablebase> open_tablebase(const std::string& dir, TablebaseOptions options) {
    options.log = [](std::string_view message) { std::cerr << "dtb: warning: " << message << '\n'; };
    try {
        return std::optional<Tablebase>(std::in_place, dir, std::move(options));
    } catch (const std::exception& e) {
        std::cerr << "dtb: error: " << e.what() << '\n';
        return std::nullopt;
    }
}

// ---------------------------------------------------------------------------------------------
// dtb probe

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

struct ProbeOptions {
    std::string db;
    bool moves = false;
    bool json = false;
    bool dtw = false;
    bool rules = false;       // rank the moves under the draw rules (probe_root)
    RunningCounts counts;     // with rules: how far the counts have run at every FEN given
    bool keep_earlier = false;
    std::size_t cache_mb = 64;
    std::uint64_t search_nodes = TablebaseOptions{}.capture_search_nodes;
    std::vector<std::string> fens;
};

// A distance for the text output: empty for a draw and for a distance that cannot be read.
std::string distance_text(const DtwResult& d) { return d.known() && d.dtw >= 0 ? std::to_string(d.dtw) : std::string(); }

// "dtw": N (null for a draw or an unreadable distance), and why it is missing when the value is
// known (`value_known`) but the distance is not.
void add_json_distance(Json& j, const DtwResult& d, bool value_known) {
    const std::string text = distance_text(d);
    j["dtw"] = text.empty() ? Json(nullptr) : Json(d.dtw);
    if (!d.known() && value_known) {
        j["dtw_code"] = probe_error_name(d.error);
        j["dtw_reason"] = std::string(d.reason);
    }
}

// "code" and "reason" of an unknown value.
void add_json_unknown(Json& j, const ProbeResult& r) {
    if (r.known()) return;
    j["code"] = probe_error_name(r.error);
    j["reason"] = std::string(r.reason);
}

const char* root_value_name(const RootMove& m) { return m.drawn_by_rules ? "draw-by-rule" : value_name(m.value); }

// The moves of `pos` ranked under the draw rules, as fields of the text line or a JSON array.
Json root_moves_json(const std::vector<RootMove>& moves, const Position& pos) {
    Json out = Json::array();
    for (const RootMove& m : moves) {
        Json move = {{"move", move_to_string(pos, m.move)},
                     {"value", value_name(m.value)},
                     {"dtw", m.dtw >= 0 ? Json(m.dtw) : Json(nullptr)},
                     {"drawn_by_rules", m.drawn_by_rules}};
        if (!m.reason.empty()) move["reason"] = m.reason;
        out.push_back(std::move(move));
    }
    return out;
}

void print_root_moves(const std::vector<RootMove>& moves, const Position& pos) {
    for (const RootMove& m : moves)
        std::cout << '\t' << move_to_string(pos, m.move) << '=' << root_value_name(m) << '\t'
                  << (m.dtw >= 0 ? std::to_string(m.dtw) : std::string());
}

// The line of an input the command refuses (an invalid FEN, counts that do not fit the position).
void print_input_error(std::string_view text, std::string_view message, bool json) {
    if (json) std::cout << json_text({{"fen", std::string(text)}, {"error", std::string(message)}}) << '\n';
    else std::cout << escape_control_characters(text) << "\terror: " << message << '\n';
}

// The JSON line of a position: {"fen","value"[,"code","reason"][,"dtw"...][,"moves"]}.
Json probe_json(std::string_view text, const ProbeResult& r, const DtwResult& d, const ProbeOptions& o) {
    Json j = {{"fen", std::string(text)}, {"value", value_name(r.value)}};
    if (!o.rules) add_json_unknown(j, r);
    if (o.dtw || o.rules) add_json_distance(j, d, r.known());
    return j;
}

// Prints one line for `text`; returns false if it is not a valid FEN. The text output echoes the FEN
// with control characters escaped, so that input cannot fake a column or a line.
bool probe_one(const Tablebase& tb, std::string_view text, const ProbeOptions& o) {
    Position pos;
    try {
        pos = parse_fen(text);
    } catch (const FenError& e) {
        print_input_error(text, e.what(), o.json);
        return false;
    }
    std::vector<RootMove> root;
    if (o.rules) {
        try {
            RootOptions options;
            options.rules.sixteen_to_five = o.keep_earlier ? CountChange::KeepEarlier : CountChange::Restart;
            root = probe_root(tb, pos, o.counts, options);
        } catch (const std::invalid_argument& e) {
            print_input_error(text, e.what(), o.json);
            return false;
        }
    }
    const ProbeResult r = tb.probe_wdl(pos);
    DtwResult d;
    if (o.dtw || o.rules) d = tb.probe_dtw(pos);
    std::vector<MoveValue> moves;
    if (o.moves && !o.rules) moves = tb.probe_moves(pos, o.dtw);
    if (o.json) {
        Json j = probe_json(text, r, d, o);
        if (o.rules) {
            j["moves"] = root_moves_json(root, pos);
        } else if (o.moves) {
            Json list = Json::array();
            for (const MoveValue& m : moves) {
                Json move = {{"move", move_to_string(pos, m.move)}, {"value", value_name(m.result.value)}};
                add_json_unknown(move, m.result);
                if (o.dtw) add_json_distance(move, m.after, m.result.known());
                list.push_back(std::move(move));
            }
            j["moves"] = std::move(list);
        }
        std::cout << json_text(j) << '\n';
        return true;
    }
    std::cout << escape_control_characters(text) << '\t' << value_name(r.value);
    if (o.dtw || o.rules) std::cout << '\t' << distance_text(d);
    if (o.rules) print_root_moves(root, pos);
    for (const MoveValue& m : moves) {
        std::cout << '\t' << move_to_string(pos, m.move) << '=' << value_name(m.result.value);
        if (o.dtw) std::cout << '\t' << distance_text(m.after);
    }
    std::cout << '\n';
    return true;
}

int run_probe(const ProbeOptions& o) {
    const auto tb = open_tablebase(o.db, {.cache_mb = o.cache_mb, .capture_search_nodes = o.search_nodes});
    if (!tb) return kExitFailure;
    require_databases(*tb, o.rules);
    bool all_valid = true;
    if (!o.fens.empty()) {
        for (const std::string& fen : o.fens) all_valid &= probe_one(*tb, trim(fen), o);
    } else {
        for (std::string line; std::getline(std::cin, line);) {
            const std::string_view text = trim(line);
            if (text.empty()) continue;
            all_valid &= probe_one(*tb, text, o);
            std::cout.flush();  // answer each line as it comes (interactive use, pipes)
        }
    }
    return all_valid ? kExitOk : kExitFindings;
}

// ---------------------------------------------------------------------------------------------
// dtb bench probe

struct BenchOptions {
    std::string db;
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    int count = 100'000;
    std::uint64_t seed = 1;
    std::size_t cache_mb = 0;  // 0: large enough for every block of the databases
    bool dtw = false;          // also time probe_dtw
    bool resident = false;     // the warm Tablebase holds every .wdl file resident (preloaded)
    bool quiet = false;        // quiet positions only, timed with probe_wdl_quiet
    bool busy = false;         // a thread keeps another core busy while probes are timed
};

// Keeps one core busy for as long as it lives: random reads over 256 MB and arithmetic on them,
// as an engine's search on the other core would (it competes for the caches, not just the core).
class BusyCore {
public:
    BusyCore() : memory_(std::size_t{32} << 20), worker_([this] { run(); }) {}
    ~BusyCore() {
        stop_ = true;
        worker_.join();
    }
    BusyCore(const BusyCore&) = delete;
    BusyCore& operator=(const BusyCore&) = delete;

private:
    void run() {
        std::uint64_t x = 88172645463325252ull, sum = 0;
        while (!stop_.load(std::memory_order_relaxed))
            for (int k = 0; k < 4096; ++k) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                std::uint64_t& word = memory_[x % memory_.size()];
                sum += word;
                word = sum;
            }
    }
    std::vector<std::uint64_t> memory_;  // 256 MB
    std::atomic<bool> stop_{false};
    std::thread worker_;
};

using Clock = std::chrono::steady_clock;

struct Timing {
    double median_us = 0, mean_us = 0, p99_us = 0;
};

Timing summarise(std::vector<double>& ns) {
    std::sort(ns.begin(), ns.end());
    Timing t;
    if (ns.empty()) return t;
    double sum = 0;
    for (double x : ns) sum += x;
    t.median_us = ns[ns.size() / 2] / 1000;
    t.mean_us = sum / static_cast<double>(ns.size()) / 1000;
    t.p99_us = ns[std::min(ns.size() - 1, ns.size() * 99 / 100)] / 1000;
    return t;
}

// Times each probe(p) on its own (the clock read, about 20 ns, is included); `unknown` counts the
// unknown answers.
template <typename Probe>
Timing time_each(const std::vector<Position>& positions, std::size_t& unknown, Probe&& probe) {
    std::vector<double> ns;
    ns.reserve(positions.size());
    for (const Position& p : positions) {
        const auto start = Clock::now();
        const bool known = probe(p).known();
        ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count());
        unknown += !known;
    }
    return summarise(ns);
}

void print_timing(const char* label, const Timing& t) {
    std::printf("  %-34s %8.3f us %7.3f us %7.3f us\n", label, t.median_us, t.mean_us, t.p99_us);
}

// probe_dtw, warm and cold, separately for the positions it answers as wins (whose distance a
// losses-only file does not store: one ply of search) and for the others.
void time_dtw_probes(const Tablebase& warm, const Tablebase& cold, const std::vector<Position>& positions,
                     std::size_t& unknown) {
    std::vector<Position> wins, others;
    for (const Position& p : positions) (warm.probe_dtw(p).value == Value::Win ? wins : others).push_back(p);  // fills the cache
    const auto probe_warm = [&](const Position& p) { return warm.probe_dtw(p); };
    const auto probe_cold = [&](const Position& p) { return cold.probe_dtw(p); };
    const auto sample = [](const std::vector<Position>& all) {
        return std::vector<Position>(all.begin(), all.begin() + std::min<std::size_t>(all.size(), 10'000));
    };
    std::printf("\n  %-34s %10s %10s %10s\n", "probe_dtw, one thread", "median", "mean", "p99");
    print_timing(("warm, " + std::to_string(wins.size()) + " wins").c_str(), time_each(wins, unknown, probe_warm));
    print_timing(("warm, " + std::to_string(others.size()) + " others").c_str(), time_each(others, unknown, probe_warm));
    print_timing("cold, wins", time_each(sample(wins), unknown, probe_cold));
    print_timing("cold, others", time_each(sample(others), unknown, probe_cold));
}

// Nanoseconds a probe when probes follow one another without a clock read between them (as in an
// engine's search): the median over five passes through all the positions.
template <typename Probe>
double back_to_back_ns(const std::vector<Position>& positions, Probe&& probe) {
    std::vector<double> per_probe;
    std::size_t known = 0;
    for (int pass = 0; pass < 5; ++pass) {
        const auto start = Clock::now();
        for (const Position& p : positions) known += probe(p).known();
        per_probe.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                            static_cast<double>(std::max<std::size_t>(1, positions.size())));
    }
    [[maybe_unused]] volatile std::size_t answers_used = known;  // the probes may not be optimised away
    std::sort(per_probe.begin(), per_probe.end());
    return per_probe[per_probe.size() / 2];
}

// Median cost of reading the clock twice, as time_each does around every probe.
double timer_overhead_ns() {
    std::vector<double> ns(100'000);
    for (double& x : ns) {
        const auto start = Clock::now();
        x = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    }
    std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
    return ns[ns.size() / 2];
}

// Probes per second over all threads, each cycling through the positions from its own offset.
double throughput(const Tablebase& tb, const std::vector<Position>& positions, int threads) {
    const std::size_t per_thread = std::max<std::size_t>(positions.size() * 2, 400'000);
    std::atomic<std::size_t> sink{0};
    const auto start = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            std::size_t known = 0, i = positions.size() * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
            for (std::size_t n = 0; n < per_thread; ++n, ++i) known += tb.probe_wdl(positions[i % positions.size()]).known();
            sink += known;
        });
    for (auto& th : pool) th.join();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return static_cast<double>(per_thread) * threads / seconds;
}

int run_bench_probe(const BenchOptions& o) {
    // Size the warm cache from the headers' position counts: 5 positions per byte, plus bookkeeping.
    std::uint64_t data_bytes = 0, file_bytes = 0;
    std::vector<Material> materials;
    {
        const auto listing = open_tablebase(o.db, {});
        if (!listing) return kExitFailure;
        materials = listing->materials();
        for (const Material& m : materials) {
            data_bytes += PositionIndex(m).size() / 5 + PositionIndex(m).size() / 3000 + 1;
            file_bytes += std::filesystem::file_size(listing->directory() / format::wdl_file_name(m));
        }
    }
    if (materials.empty()) {
        std::cerr << "dtb: error: no databases in " << o.db << '\n';
        return kExitFailure;
    }
    // DTW blocks (one or two bytes a position) share the cache with the WDL blocks.
    std::uint64_t dtw_bytes = 0;
    if (o.dtw)
        for (const Material& m : materials) dtw_bytes += PositionIndex(m).size() * 2;
    // Resident: the cache only holds DTW blocks.
    const std::uint64_t cached_bytes = (o.resident ? 0 : data_bytes) + dtw_bytes;
    const std::size_t warm_mb = o.cache_mb ? o.cache_mb : static_cast<std::size_t>(cached_bytes * 11 / 10 >> 20) + 16;
    const int files = 2 * static_cast<int>(materials.size()) + 8;  // every .wdl and .dtw file stays open
    const auto warm = open_tablebase(o.db, {.cache_mb = warm_mb, .max_open_files = files, .resident = o.resident});
    const auto cold = open_tablebase(o.db, {.cache_mb = 0, .max_open_files = files});
    if (!warm || !cold) return kExitFailure;
    double load_seconds = 0;
    if (o.resident) {
        const auto start = Clock::now();
        const std::size_t ready = warm->preload(o.threads);
        load_seconds = std::chrono::duration<double>(Clock::now() - start).count();
        if (ready != materials.size()) {
            std::cerr << "dtb: error: " << materials.size() - ready << " database files could not be loaded\n";
            return kExitFailure;
        }
    }

    // Random positions: a material drawn uniformly among those present, then a position of it, then
    // either side to move.
    std::mt19937_64 rng(o.seed);
    std::vector<PositionIndex> indexes(materials.begin(), materials.end());
    std::vector<Position> positions;
    positions.reserve(static_cast<std::size_t>(o.count));
    std::size_t captures = 0;
    for (int i = 0; i < o.count; ++i) {
        const PositionIndex& index = indexes[rng() % indexes.size()];
        Position p = index.position(rng() % index.size());
        if (rng() & 1) p = flip_colors(p);
        if (o.quiet && has_capture(p)) {
            --i;  // draw again
            continue;
        }
        captures += has_capture(p);
        positions.push_back(p);
    }

    std::size_t unknown = 0;
    const auto probe = [&](const Tablebase& tb, const Position& p) {
        return o.quiet ? tb.probe_wdl_quiet(p) : tb.probe_wdl(p);
    };
    for (const Position& p : positions) unknown += !probe(*warm, p).known();  // fill the cache
    const CacheStats filled = warm->cache_stats();
    std::optional<BusyCore> busy;
    if (o.busy) busy.emplace();
    const Timing warm_time = time_each(positions, unknown, [&](const Position& p) { return probe(*warm, p); });
    const double warm_back_to_back = back_to_back_ns(positions, [&](const Position& p) { return probe(*warm, p); });

    // Cold: open every file first (opening reads the block table, not what is measured here), then
    // time probes through a Tablebase that caches nothing.
    for (const PositionIndex& index : indexes) cold->probe_wdl(index.position(0));
    const std::vector<Position> cold_sample(positions.begin(),
                                            positions.begin() + std::min<std::size_t>(positions.size(), 20'000));
    const Timing cold_time = time_each(cold_sample, unknown, [&](const Position& p) { return probe(*cold, p); });

    const double one = throughput(*warm, positions, 1);
    busy.reset();  // every thread of the throughput test needs a core
    const double many = o.threads > 1 ? throughput(*warm, positions, o.threads) : one;

    int min_pieces = 99, max_pieces = 0;
    for (const Material& m : materials) min_pieces = std::min(min_pieces, m.pieces()), max_pieces = std::max(max_pieces, m.pieces());
    std::printf("dtb bench probe: %s\n", o.db.c_str());
    std::printf("  databases   %d-%d pieces, %zu materials, %.1f MB on disk, %.1f MB of values\n", min_pieces,
                max_pieces, materials.size(), file_bytes / 1e6, data_bytes / 1e6);
    std::printf("  positions   %d random%s (material uniform, then position, then side), %.1f%% must capture, seed %llu\n",
                o.count, o.quiet ? " quiet" : "", 100.0 * static_cast<double>(captures) / std::max(1, o.count),
                static_cast<unsigned long long>(o.seed));
    if (o.resident)
        std::printf("  resident    %.1f MB in memory (%.2f times the files), loaded in %.1f s on %d threads\n",
                    warm->resident_bytes() / 1e6, static_cast<double>(warm->resident_bytes()) / static_cast<double>(file_bytes),
                    load_seconds, o.threads);
    else
        std::printf("  warm cache  %zu MiB, %llu blocks (%.1f MB) after the filling pass\n", warm_mb,
                    static_cast<unsigned long long>(filled.blocks), filled.bytes / 1e6);
    if (o.busy) std::printf("  other core  busy while one thread probes (random reads over 256 MB)\n");
    std::printf("\n  %-34s %10s %10s %10s\n", o.quiet ? "probe_wdl_quiet, one thread" : "probe_wdl, one thread", "median",
                "mean", "p99");
    print_timing(o.resident ? "warm (resident)" : "warm (blocks cached)", warm_time);
    print_timing("cold (cache_mb=0: read+decompress)", cold_time);
    std::printf("  %-34s %8.3f us (median of 5 passes, no clock read between probes)\n", "warm, back to back",
                warm_back_to_back / 1000);
    if (o.dtw) time_dtw_probes(*warm, *cold, positions, unknown);
    std::printf("  (each time includes reading the clock: %.0f ns)\n", timer_overhead_ns());
    std::printf("\n  %-34s %10s\n", "warm throughput", "probes/s");
    std::printf("  %-34s %10.3g\n", "1 thread", one);
    if (o.threads > 1) std::printf("  %-34s %10.3g\n", (std::to_string(o.threads) + " threads").c_str(), many);
    if (unknown) std::printf("\n  note: %zu probes answered unknown (see the warnings above)\n", unknown);
    return kExitOk;
}

}  // namespace

void add_probe_commands(CLI::App& app, Runner& run) {
    auto po = std::make_shared<ProbeOptions>();
    auto* probe = app.add_subcommand(
        "probe",
        "Value of positions for the side to move, from the databases.\n"
        "Prints FEN<TAB>VALUE per position (VALUE: win, draw, loss or unknown); with --moves,\n"
        "then one MOVE=VALUE field per legal move, tab-separated, best first (value for the side\n"
        "to move before the move). With --dtw, a DTW column after the value and after each move\n"
        "(the distance of the position after the move, for the opponent; empty for a draw).\n"
        "An invalid FEN prints FEN<TAB>error: MESSAGE and makes the exit\n"
        "code 1. With --json, one object per line: {\"fen\",\"value\"[,\"code\",\"reason\"][,\"moves\"]},\n"
        "\"code\" and \"reason\" saying why a value is unknown, or {\"fen\",\"error\"} for an invalid FEN.\n"
        "Exit codes: 0 done (unknown values included), 1 some FEN invalid, 3 database folder unusable.");
    probe->add_option("--db", po->db, "Database folder")->required();
    probe->add_flag("--moves", po->moves, "Also list every legal move with its value, best first");
    probe->add_flag("--json", po->json, "One JSON object per line");
    probe->add_flag("--dtw", po->dtw,
                    "Add a column (json: \"dtw\") with the distance to win in plies from the .dtw files: odd for a "
                    "win, even for a loss, empty (null) for a draw or when it cannot be read; with --moves, "
                    "also one after each move: the distance of the position after it, best move first");
    add_cache_mb_option(probe, po->cache_mb, "Block cache size in MiB")->capture_default_str();
    probe->add_option("--search-nodes", po->search_nodes,
                      "Most positions one probe visits resolving captures; beyond it the value is unknown "
                      "(code search-limit). 0: no bound")
        ->capture_default_str();
    auto* rules = probe->add_flag(
        "--rules", po->rules,
        "List every legal move ranked under the FMJD draw rules, with its DTW (needs .dtw files): wins that "
        "can be forced before a count or a repetition draws the game, quickest first; draws, then "
        "draw-by-rule (a win or loss of the databases that the rules turn into a draw); losses, slowest "
        "first. The position's own value and DTW stay those of the databases");
    probe->add_option("--king-move-plies", po->counts.king_move_plies,
                      "With --rules: plies of king moves without capture already played (6.2, 25 moves each)")
        ->check(CLI::Range(0, kKingMovePlies - 1))
        ->needs(rules);
    probe->add_option("--counted-plies", po->counts.counted_plies,
                      "With --rules: plies already played in the running 16- or 5-move count (6.3, 6.4)")
        ->check(CLI::Range(0, kSixteenMovePlies - 1))
        ->needs(rules);
    probe->add_flag("--keep-earlier", po->keep_earlier,
                    "With --rules: a 16-move count turning into a 5-move one ends no later than the 16-move one "
                    "(docs/DRAW_RULES.md)")
        ->needs(rules);
    probe->add_option("fen", po->fens, "Positions (default: one FEN per line on standard input)");
    probe->callback([&run, po] { run = [po] { return run_probe(*po); }; });

    auto* bench = app.add_subcommand("bench", "Benchmarks");
    bench->require_subcommand(1);
    auto bo = std::make_shared<BenchOptions>();
    auto* bench_probe = bench->add_subcommand(
        "probe",
        "Time probe_wdl on random positions (capture positions included) of the databases in --db:\n"
        "warm = every block cached (a first pass fills the cache), cold = through a Tablebase with\n"
        "cache_mb=0 so every block is read (pread, from the OS page cache) and decompressed, files\n"
        "already open; both timed probe by probe on one thread (each time includes a clock read).\n"
        "Then warm probes back to back (five passes, no clock read between probes: the median pass's\n"
        "time a probe), and warm probes per second on 1 and --threads threads.");
    bench_probe->add_option("--db", bo->db, "Database folder")->required();
    bench_probe->add_option("--threads", bo->threads, "Threads for the throughput test")
        ->check(CLI::Range(1, 1024))
        ->capture_default_str();
    bench_probe->add_option("--count", bo->count, "Number of random positions")->check(CLI::Range(1, 100'000'000))->capture_default_str();
    bench_probe->add_option("--seed", bo->seed, "Random seed")->capture_default_str();
    add_cache_mb_option(bench_probe, bo->cache_mb, "Warm cache size in MiB (default: all blocks fit)");
    bench_probe->add_flag("--dtw", bo->dtw, "Also time probe_dtw (wins and other positions apart)");
    bench_probe->add_flag("--resident", bo->resident,
                          "Warm probes from resident files (TablebaseOptions::resident, every .wdl file preloaded on "
                          "--threads threads): prints their memory and load time");
    bench_probe->add_flag("--quiet", bo->quiet,
                          "Quiet positions only (the side to move has no capture), timed with probe_wdl_quiet");
    bench_probe->add_flag("--busy", bo->busy,
                          "Keep another core busy (random reads over 256 MB) while single-thread probes are timed");
    bench_probe->callback([&run, bo] { run = [bo] { return run_bench_probe(*bo); }; });
}

}  // namespace dtb::cli
