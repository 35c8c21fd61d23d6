// `dtb adjudicate`: checks the results of PDN games against the databases and the draw rules.
#include <atomic>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>

#include <tbb/parallel_for.h>
#include <unistd.h>

#include "adjudicate/adjudicator.hpp"
#include "probe/tablebase.hpp"
#include "tools/commands.hpp"
#include "tools/json.hpp"

namespace dtb::cli {
namespace {

struct AdjudicateOptions {
    std::string db;
    std::vector<std::string> files;
    bool json = false;
    std::size_t cache_mb = 256;
    ForcedWinOptions search;
};

struct GameJob {
    std::string file;
    int index = 0;  // within its file, from 1
    PdnGame game;
    GameAnalysis analysis;
};

// "at the start" or "after 12. 32-28".
std::string ply_name(const PdnGame& g, int ply) {
    if (ply == 0) return "at the start";
    const PdnMove& m = g.moves[static_cast<std::size_t>(ply - 1)];
    return "after " + std::to_string(m.number) + (m.before.side_to_move == Color::Black ? "... " : ". ") + m.text;
}

// "1 ply", "13 plies".
std::string plies(int n) { return std::to_string(n) + (n == 1 ? " ply" : " plies"); }

// "2-0", "2-0 (written 1-0, the chess way)", "no result".
std::string result_text(const GameAnalysis& a) {
    if (a.result.empty()) return "no result";
    if (a.result_written.empty()) return a.result;
    return a.result + " (written " + a.result_written + ", the chess way)";
}

void print_text(std::ostream& out, const GameJob& job) {
    const GameAnalysis& a = job.analysis;
    out << job.file << " game " << job.index << ": " << a.white.value_or("?") << " - " << a.black.value_or("?")
        << ", " << result_text(a) << ", " << plies(a.plies) << '\n';
    for (const PdnError& w : a.warnings) out << "  warning: " << w.to_string() << '\n';
    if (a.error) out << "  error: " << a.error->to_string() << '\n';
    if (a.first_known_ply)
        out << "  first position in the databases: " << ply_name(job.game, *a.first_known_ply) << ", "
            << a.first_known_fen << ", " << value_name(a.first_known.value) << " for the side to move"
            << (a.first_known.dtw ? " in " + plies(*a.first_known.dtw) : "") << '\n';
    else
        out << "  no position of the game is in the databases\n";
    for (const ValueChange& c : a.changes)
        out << "  value changed by " << c.move_number << (c.fen[0] == 'B' ? "... " : ". ") << c.move << " in " << c.fen
            << ": " << value_name(c.before) << " -> " << value_name(c.after)
            << (c.dtw_before ? " (it won in " + plies(*c.dtw_before) + ")" : "") << '\n';
    for (const RuleEvent& e : a.rules)
        out << "  rule " << to_string(e.rule) << (e.draw ? ": draw declared " : ": count starts ") << ply_name(job.game, e.ply) << (e.draw ? "" : " (" + plies(e.plies_allowed) + ")") << '\n';
    out << "  verdict: " << to_string(a.consistency) << ": " << a.explanation << "\n\n";
}

// {"line":3,"column":1,"message":"..."}: a reader's warning, in the file of its game.
Json json_warning(const PdnError& e) { return {{"line", e.line}, {"column", e.column}, {"message", e.message}}; }

Json string_or_null(const std::optional<std::string>& s) { return s ? Json(*s) : Json(nullptr); }

void print_json(std::ostream& out, const GameJob& job) {
    const GameAnalysis& a = job.analysis;
    Json j = {{"file", job.file},
              {"game", job.index},
              {"white", string_or_null(a.white)},
              {"black", string_or_null(a.black)},
              {"result", a.result.empty() ? Json(nullptr) : Json(a.result)}};
    if (!a.result_written.empty()) j["result_written"] = a.result_written;
    j["plies"] = a.plies;
    j["final_fen"] = a.final_fen;
    if (!a.warnings.empty()) {
        Json warnings = Json::array();
        for (const PdnError& w : a.warnings) warnings.push_back(json_warning(w));
        j["warnings"] = std::move(warnings);
    }
    if (a.error) j["error"] = a.error->to_string();
    if (a.first_known_ply) {
        Json first = {{"ply", *a.first_known_ply}, {"fen", a.first_known_fen}, {"value", value_name(a.first_known.value)}};
        if (a.first_known.dtw) first["dtw"] = *a.first_known.dtw;
        j["first_known"] = std::move(first);
    }
    Json changes = Json::array();
    for (const ValueChange& c : a.changes) {
        Json change = {{"ply", c.ply}, {"move", c.move}, {"fen", c.fen}, {"before", value_name(c.before)},
                       {"after", value_name(c.after)}};
        if (c.dtw_before) change["dtw_before"] = *c.dtw_before;
        changes.push_back(std::move(change));
    }
    j["changes"] = std::move(changes);
    Json rules = Json::array();
    for (const RuleEvent& e : a.rules) {
        Json rule = {{"rule", to_string(e.rule)}, {"ply", e.ply}, {"event", e.draw ? "draw" : "count"}};
        if (!e.draw) rule["plies_allowed"] = e.plies_allowed;
        rules.push_back(std::move(rule));
    }
    j["rules"] = std::move(rules);
    if (a.forced_win) j["forced_win"] = to_string(*a.forced_win);
    if (a.search)
        j["search"] = {{"nodes", a.search->nodes},
                       {"seconds", a.search->seconds},
                       {"memory_mb", a.search->memory_bytes >> 20},
                       {"budget_exceeded", a.search->budget_exceeded}};
    j["verdict"] = to_string(a.consistency);
    j["explanation"] = a.explanation;
    out << json_text(j) << '\n';
}

// Reads every file; an unreadable one is reported and left out.
std::vector<GameJob> read_games(const std::vector<std::string>& files, bool& unreadable) {
    std::vector<GameJob> jobs;
    for (const std::string& file : files) {
        try {
            int index = 0;
            for (PdnGame& g : read_pdn_file(file)) jobs.push_back({file, ++index, std::move(g), {}});
        } catch (const std::exception& e) {
            std::cerr << "dtb: " << e.what() << '\n';
            unreadable = true;
        }
    }
    return jobs;
}

int run_adjudicate(const AdjudicateOptions& o) {
    TablebaseOptions topts;
    topts.cache_mb = o.cache_mb;
    topts.log = [](std::string_view message) { std::cerr << "dtb: " << message << '\n'; };
    const Tablebase tb(o.db, topts);
    require_databases(tb);
    bool unreadable = false;
    std::vector<GameJob> jobs = read_games(o.files, unreadable);
    const Oracle oracle = tablebase_oracle(tb);
    const bool terminal = ::isatty(STDERR_FILENO) != 0;
    std::atomic<std::size_t> done{0};
    std::mutex progress_mutex;
    tbb::parallel_for(std::size_t{0}, jobs.size(), [&](std::size_t i) {
        jobs[i].analysis = analyse_game(jobs[i].game, oracle, {.rules = {}, .search = o.search});
        const std::size_t n = ++done;
        if (terminal) {
            const std::lock_guard lock(progress_mutex);
            std::cerr << "\r" << n << "/" << jobs.size() << " games" << std::flush;
        }
    });
    if (terminal && !jobs.empty()) std::cerr << "\r\033[K";
    // Each game counts once: a game not read to its end is counted apart, not as undecided.
    std::size_t counts[3] = {0, 0, 0}, errors = 0;
    for (const GameJob& job : jobs) {
        o.json ? print_json(std::cout, job) : print_text(std::cout, job);
        if (job.analysis.error) ++errors;
        else ++counts[static_cast<int>(job.analysis.consistency)];
    }
    std::cerr << jobs.size() << (jobs.size() == 1 ? " game: " : " games: ") << counts[0] << " consistent, "
              << counts[1] << " inconsistent, " << counts[2] << " undecided, " << errors << " not read to the end\n";
    if (unreadable) return kExitFailure;
    return counts[static_cast<int>(Consistency::Inconsistent)] + errors > 0 ? kExitFindings : kExitOk;
}

}  // namespace

void add_adjudicate_commands(CLI::App& app, Runner& run) {
    auto o = std::make_shared<AdjudicateOptions>();
    auto* cmd = app.add_subcommand("adjudicate", "Check the results of PDN games against the databases and the FMJD draw rules");
    cmd->add_option("-d,--db", o->db, "Database folder")->required();
    cmd->add_option("files", o->files, "PDN files")->required();
    cmd->add_flag("--json", o->json, "One JSON object per game instead of text");
    add_cache_mb_option(cmd, o->cache_mb, "Block cache size in MiB")->capture_default_str();
    cmd->add_option("--search-seconds", o->search.max_seconds,
                    "Time the forced-win search may take per game; past it the game is undecided (budget exceeded). 0: no bound")
        ->check(CLI::Range(0.0, 1e6))
        ->capture_default_str();
    cmd->add_option("--search-memory-mb", o->search.max_memory_mb,
                    "Memory the forced-win search's tables may take per game, in MiB. 0: no bound")
        ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 30))
        ->capture_default_str();
    cmd->add_option("--search-nodes", o->search.max_nodes, "Positions the forced-win search may expand per game. 0: no bound")
        ->capture_default_str();
    cmd->footer(
        "For each game: players, result, moves; the first position within the databases and its value; every move "
        "that changed the theoretical value; every draw rule that came into force; and whether the recorded result "
        "is consistent with perfect play and the rules. Exit code 0 when no game is inconsistent or unreadable, 1 "
        "otherwise, 3 for a PDN file that cannot be read (missing, a directory) or an unusable database folder or one "
        "without databases.");
    cmd->callback([&run, o] { run = [o] { return run_adjudicate(*o); }; });
}

}  // namespace dtb::cli
