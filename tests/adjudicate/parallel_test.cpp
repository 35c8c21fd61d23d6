// Games judged in parallel on one shared Tablebase and Oracle, as `dtb adjudicate` judges them (each
// game a task taken by the next free thread), against a real 2-3 piece database with distances to
// win built by the test, through a block cache smaller than the files, so that blocks are evicted
// while other games read them. Every analysis must equal the one of a serial run on a Tablebase of
// its own. Built with -DDTB_SANITIZE=thread this is the adjudication's ThreadSanitizer test (label
// tsan). Plain threads rather than TBB's, whose synchronisation ThreadSanitizer cannot see (the
// prebuilt library is not instrumented); the database is built on one thread for the same reason.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <tbb/global_control.h>
#include <unistd.h>

#include "adjudicate/adjudicator.hpp"
#include "gen/builder.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "rules/notation.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;

// Starting positions of 3 pieces (within the databases) and of 4 (beyond them until a capture).
constexpr const char* kStarts[] = {
    "W:WK46,28:BK5",    "B:WK46,28:BK5",   "W:W28,K46:B23,K5", "W:WK1,K50:BK25",    "B:W33,K3:B18",
    "W:W32,37:BK10",    "B:W32:B19,K45",   "W:WK15:B24,K40",   "W:W38,K12:B8,K44", "B:WK9:B17,22",
};
constexpr const char* kResults[] = {"2-0", "1-1", "0-2", "*"};
// Game lengths: short ones stop in won positions, where the forced-win search runs.
constexpr int kPlies[] = {0, 1, 2, 3, 5, 8, 16, 40};

// A game of random legal moves from `fen`, in PDN, with the given result.
std::string random_game(const std::string& fen, const std::string& result, std::mt19937& rng, int max_plies) {
    std::ostringstream text;
    text << "[GameType \"20\"]\n[White \"W\"]\n[Black \"B\"]\n[FEN \"" << fen << "\"]\n[Result \"" << result << "\"]\n";
    Position pos = parse_fen(fen);
    for (int ply = 0, number = 1; ply < max_plies; ++ply) {
        const MoveList moves = generate_moves(pos);
        if (moves.empty()) break;
        if (pos.side_to_move == Color::White) text << number << ". ";
        else if (ply == 0) text << number << "... ";
        const Move m = moves[std::uniform_int_distribution<std::size_t>(0, moves.size() - 1)(rng)];
        text << move_to_string(pos, m) << ' ';
        pos = apply_move(pos, m);
        if (pos.side_to_move == Color::White) ++number;
    }
    text << result << "\n\n";
    return text.str();
}

std::vector<PdnGame> test_games() {
    std::mt19937 rng(20);
    std::string pdn;
    for (int round = 0; round < 4; ++round)
        for (std::size_t i = 0; i < std::size(kStarts); ++i)
            pdn += random_game(kStarts[i], kResults[(i + round) % std::size(kResults)], rng,
                               kPlies[(i + 3 * round) % std::size(kPlies)]);
    std::vector<PdnGame> games = read_pdn(pdn, "parallel.pdn");
    for (const PdnGame& g : games) EXPECT_FALSE(g.error.has_value()) << g.error->to_string();
    return games;
}

// Everything an analysis reports, as text, so that two runs compare in one assertion with a readable diff.
std::string describe(const GameAnalysis& a) {
    std::ostringstream out;
    out << a.result << ' ' << a.plies << " plies; first known " << a.first_known_ply.value_or(-1) << ' '
        << a.first_known_fen << ' ' << value_name(a.first_known.value) << ' ' << a.first_known.dtw.value_or(-1);
    for (const ValueChange& c : a.changes)
        out << "; change " << c.ply << ' ' << c.move << ' ' << value_name(c.before) << '>' << value_name(c.after) << ' '
            << c.dtw_before.value_or(-1);
    for (const RuleEvent& e : a.rules)
        out << "; rule " << to_string(e.rule) << ' ' << e.ply << (e.draw ? " draw" : " count ") << e.plies_allowed;
    out << "; forced " << (a.forced_win ? to_string(*a.forced_win) : "-") << "; " << to_string(a.consistency) << ": "
        << a.explanation;
    return out.str();
}

class AdjudicateParallel : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("dtb-adjudicate-parallel-" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        BuildOptions o;
        o.dir = dir_;
        o.max_pieces = 3;
        o.dtw = true;
        const tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
        std::ostringstream log;
        build(o, log);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST_F(AdjudicateParallel, GamesJudgedAtOnceAgreeWithASerialRun) {
    const std::vector<PdnGame> games = test_games();
    ASSERT_EQ(games.size(), 4 * std::size(kStarts));

    std::vector<std::string> serial;
    {
        const Tablebase tb(dir_);
        const Oracle oracle = tablebase_oracle(tb);
        for (const PdnGame& g : games) serial.push_back(describe(analyse_game(g, oracle)));
    }
    // The games reach the databases, and some end in won positions the forced-win search judges.
    int known = 0, searched = 0;
    for (const std::string& s : serial) {
        known += s.find("first known -1") == std::string::npos;
        searched += s.find("; forced -;") == std::string::npos;
    }
    EXPECT_EQ(known, static_cast<int>(games.size()));
    EXPECT_GE(searched, 4);

    // The smallest cache (a quarter of it for the DTW blocks) and two open files for all the games.
    std::atomic<int> problems{0};
    const Tablebase shared(dir_, {.cache_mb = 1, .max_open_files = 2, .log = [&](std::string_view) { ++problems; }});
    const Oracle oracle = tablebase_oracle(shared);
    constexpr int kThreads = 4;
    for (int run = 0; run < 2; ++run) {
        std::vector<std::string> parallel(games.size());
        std::atomic<std::size_t> next{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&] {
                for (std::size_t i; (i = next++) < games.size();) parallel[i] = describe(analyse_game(games[i], oracle));
            });
        for (std::thread& t : threads) t.join();
        for (std::size_t i = 0; i < games.size(); ++i) EXPECT_EQ(parallel[i], serial[i]) << "game " << i + 1 << ", run " << run;
        shared.clear_cache();
    }
    EXPECT_EQ(problems.load(), 0);
}

}  // namespace
}  // namespace dtb
