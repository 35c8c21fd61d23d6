// DTW files end to end (dtb gen --dtw, then Tablebase::probe_dtw and the C API): published
// longest wins through the files, agreement with the in-memory solver, determinism, resume,
// corruption. Each test builds the 2-3 piece databases (well under a second) into its own folder.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <map>
#include <thread>

#include "gen/dtw_solver.hpp"
#include "gen/loader.hpp"
#include "index/position_index.hpp"
#include "probe/dtb.h"
#include "probe/table_file.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "rules/notation.hpp"
#include "gen/verify.hpp"
#include "tests/gen/build_fixture.hpp"
#include "tests/gen/in_memory_tables.hpp"

namespace dtb {
namespace {

class DtwFilesTest : public BuildTest {
protected:
    // Builds WDL and DTW files of up to `pieces` pieces into `dir` (only `only` and what it needs,
    // if given); `store_wins` writes the encoding that stores every distance.
    void build_dtw(const fs::path& dir, int pieces, int threads = 0, std::vector<Material> only = {},
                   bool store_wins = false) {
        std::unique_ptr<tbb::global_control> limit;
        if (threads > 0) limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, threads);
        BuildOptions o;
        o.dir = dir;
        o.max_pieces = pieces;
        o.only = std::move(only);
        o.dtw = true;
        o.write.dtw_store_wins = store_wins;
        o.memory_bytes = memory_bytes_;
        o.keep_copies = keep_copies_;
        std::ostringstream log;
        build(o, log);
        log_ = log.str();
    }

    // Every .dtw (and .wdl) file of `dir` by name, with its bytes.
    static std::map<std::string, std::string> files_of(const fs::path& dir) {
        std::map<std::string, std::string> out;
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().extension() == ".dtw" || e.path().extension() == ".wdl")
                out[e.path().filename().string()] = read_bytes(e.path());
        return out;
    }

    // The first position of `m` (by index) whose DTW is read from its file: lost (a losses-only
    // file stores nothing else), no capture, some legal move.
    static Position first_read_from_file(const Tablebase& tb, const Material& m) {
        const PositionIndex index(m);
        for (std::uint64_t i = 0; i < index.size(); ++i) {
            const Position p = index.position(i);
            if (!has_capture(p) && count_moves(p) > 0 && tb.probe_wdl(p).value == Value::Loss) return p;
        }
        ADD_FAILURE() << "no such position in " << m.name();
        return {};
    }

    std::uint64_t memory_bytes_ = 0;  // the builds' memory limit (0: none)

    static void flip_byte(const fs::path& file, std::uint64_t offset) {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(static_cast<std::streamoff>(offset));
        char c = 0;
        f.get(c);
        f.seekp(static_cast<std::streamoff>(offset));
        f.put(static_cast<char>(c ^ 0x20));
    }
};

// Grimminck's longest wins of the 2- and 3-piece endings (white to move, plies), and one more of MvMM.
constexpr std::pair<const char*, int> kPublished[] = {
    {"W:W33:B2", 17},       {"W:WK42:B22", 7},     {"W:W10:BK46", 3},      {"W:WK10:BK5", 3},
    {"W:W40,44:B3", 23},    {"W:WK2,11:B45", 11},  {"W:WK7,K30:B45", 9},   {"W:W6,7:BK45", 7},
    {"W:WK2,6:BK50", 9},    {"W:WK1,K7:BK50", 7},  {"W:W21:B3,4", 33},     {"W:WK38:B4,18", 27},
    {"W:W18:B5,K23", 17},   {"W:WK26:B23,K42", 9}, {"W:W14:BK10,K46", 3},  {"W:WK10:BK5,K23", 3},
    {"W:W23:B5,6", 29},
};

TEST_F(DtwFilesTest, PublishedLongestWinsThroughTheFiles) {
    build_dtw(root_, 3);
    const Tablebase tb(root_);
    EXPECT_EQ(tb.max_dtw_pieces(), 3);
    for (const auto& [fen, plies] : kPublished) {
        const Position p = parse_fen(fen);
        const DtwResult r = tb.probe_dtw(p);
        EXPECT_EQ(r.value, Value::Win) << fen << ": " << r.reason;
        EXPECT_EQ(r.dtw, plies) << fen;
        const DtwResult flipped = tb.probe_dtw(flip_colors(p));
        EXPECT_EQ(flipped.dtw, plies) << fen << " seen from black";
    }
    EXPECT_EQ(tb.probe_dtw(parse_fen("W:WK1:BK50")).value, Value::Draw);
    EXPECT_EQ(tb.probe_dtw(parse_fen("W:WK1:BK50")).dtw, -1);
    EXPECT_EQ(tb.probe_dtw(parse_fen("W:W6:BK1")).dtw, 0);         // no legal move: lost already
    EXPECT_EQ(tb.probe_dtw(parse_fen("W:WK46:BK41")).dtw, 1);      // a capture that ends the game
    EXPECT_EQ(tb.probe_dtw(parse_fen("W:W31,32:B1,2")).error, ProbeError::TooManyPieces);
}

// Every position of 2-3 pieces, both sides to move, capture positions included: probe_dtw through
// the files agrees with the solver's tables, and so does the builder's loader; for files storing
// the losses only (the default: wins found by search) and for files storing every distance (the
// encoding written before, which must stay readable).
TEST_F(DtwFilesTest, FilesAgreeWithTheSolver) {
    for (const bool store_wins : {false, true}) {
        SCOPED_TRACE(store_wins ? "wins stored" : "losses only");
        const fs::path dir = root_ / (store_wins ? "all" : "losses");
        build_dtw(dir, 3, 0, {}, store_wins);
        EXPECT_EQ(TableFile(dir / "MvMM.dtw", format::FileKind::Dtw).header().value_encoding,
                  store_wins ? format::kEncodingDtwU8 : format::kEncodingDtwLossesU8);
        ValueTables wdl;
        DtwTables solved, loaded;
        const Tablebase tb(dir);
        for (const Material& m : materials_in_build_order(3)) {
            if (!wdl.contains(m))
                for (SolvedMaterial& s : solve_material_pair(m, wdl)) wdl.add(s.material, std::move(s.values));
            if (!solved.contains(m))
                for (DtwMaterial& d : solve_dtw_pair(m, wdl, solved)) solved.add(d.material, std::move(d.dtw));
            load_finished_dtw_pair(dir, m, wdl, loaded);
            ASSERT_EQ(*loaded.table(m), *solved.table(m)) << m.name();
            const PositionIndex index(m);
            for (std::uint64_t i = 0; i < index.size(); ++i) {
                const Position p = index.position(i);
                const Dtw expected = solved.table(m)->at(i);
                for (const Position& q : {p, flip_colors(p)}) {
                    const DtwResult r = tb.probe_dtw(q);
                    ASSERT_EQ(r.value, dtw_value(expected)) << to_fen(q) << ' ' << r.reason;
                    ASSERT_EQ(r.dtw, expected == kDtwDraw ? -1 : int{expected}) << to_fen(q);
                }
            }
        }
    }
}

// Only the losses' distances are stored: rewriting a losses-only file with every win's distance
// changed gives the same bytes; rewriting it with one loss changed does not.
TEST_F(DtwFilesTest, LossesOnlyFilesIgnoreTheWinsDistances) {
    build_dtw(root_, 2);
    const InMemoryTables t = solve_in_memory(2, true);
    const Material mvm{1, 0, 1, 0};
    DtwMaterial wins_changed{mvm, *t.dtw.table(mvm)}, loss_changed{mvm, *t.dtw.table(mvm)};
    std::vector<Dtw>& changed = wins_changed.dtw;
    for (Dtw& d : changed)
        if (dtw_is_win(d) && d < 15) d += 2;  // below the longest win: the header stays the same
    const auto first_loss = std::find_if(loss_changed.dtw.begin(), loss_changed.dtw.end(),
                                         [](Dtw d) { return dtw_is_loss(d) && d >= 2; });
    ASSERT_NE(first_loss, loss_changed.dtw.end());
    *first_loss -= 2;
    fs::create_directories(root_ / "a");
    fs::create_directories(root_ / "b");
    write_dtw_file(root_ / "a", wins_changed, WriteOptions{});
    write_dtw_file(root_ / "b", loss_changed, WriteOptions{});
    EXPECT_TRUE(read_bytes(root_ / "a" / "MvM.dtw") == read_bytes(root_ / "MvM.dtw"));
    EXPECT_FALSE(read_bytes(root_ / "b" / "MvM.dtw") == read_bytes(root_ / "MvM.dtw"));
}

// The writer takes the capture positions from the solver when it gives them and searches for
// them otherwise: the same bytes either way.
TEST_F(DtwFilesTest, SameFileWithOrWithoutTheSolversCaptureBits) {
    const InMemoryTables t = solve_in_memory(3, true);
    const Material m{2, 0, 1, 0};
    for (DtwMaterial& solved : solve_dtw_pair(m, t.wdl, t.dtw)) {
        ASSERT_TRUE(solved.captures.known());
        const DtwMaterial searched{solved.material, solved.dtw};
        fs::create_directories(root_ / "bits");
        fs::create_directories(root_ / "search");
        write_dtw_file(root_ / "bits", solved, WriteOptions{});
        write_dtw_file(root_ / "search", searched, WriteOptions{});
        const std::string name = format::dtw_file_name(solved.material);
        EXPECT_TRUE(read_bytes(root_ / "bits" / name) == read_bytes(root_ / "search" / name)) << name;
        EXPECT_GT(TableFile(root_ / "bits" / name, format::FileKind::Dtw).header().captures, 0u) << name;
    }
}

// A losses-only file whose checksums hold but whose losses are wrong: every loss of MvM stored as
// 200 plies. The wins found from them (201) exceed the longest distance of the header, so the
// loader (dtb gen resume, dtb verify) refuses the file and probe_dtw answers unknown, naming it;
// the losses themselves are what dtb verify checks against their successors.
TEST_F(DtwFilesTest, CorruptLossesOnlyFileIsRefused) {
    build_dtw(root_, 3);
    InMemoryTables t = solve_in_memory(3, true);
    const Material mvm{1, 0, 1, 0};
    DtwMaterial corrupt{mvm, *t.dtw.table(mvm)};
    for (Dtw& d : corrupt.dtw)
        if (dtw_is_loss(d) && d > 0) d = 200;
    write_dtw_file(root_, corrupt, WriteOptions{});
    DtwTables loaded;
    for (const Material& m : materials_in_build_order(3))
        if (m.pieces() == 2 && m != mvm && !loaded.contains(m)) load_finished_dtw_pair(root_, m, t.wdl, loaded);
    try {
        load_finished_dtw_pair(root_, mvm, t.wdl, loaded);
        ADD_FAILURE() << "a corrupt MvM.dtw was loaded";
    } catch (const TableError& e) {
        EXPECT_NE(std::string(e.what()).find("MvM.dtw"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(loaded.contains(mvm));
    const Tablebase tb(root_);
    const DtwResult r = tb.probe_dtw(parse_fen("W:W33:B2"));
    EXPECT_EQ(r.value, Value::Unknown);
    EXPECT_EQ(r.error, ProbeError::BadTable);
    EXPECT_NE(r.reason.find("MvM.dtw"), std::string_view::npos) << r.reason;
    std::ostringstream log;
    const VerifyReport report = verify_folder(root_, {}, log);
    EXPECT_FALSE(report.ok());
    const bool named = std::any_of(report.errors.begin(), report.errors.end(),
                                   [](const std::string& e) { return e.find("MvM.dtw") != std::string::npos; });
    EXPECT_TRUE(named) << log.str();
    // A pair whose second file cannot be read leaves neither side loaded (KvM is read first).
    const Material kvk{0, 1, 0, 1}, kvm{0, 1, 1, 0}, mvk{1, 0, 0, 1};
    fs::remove(root_ / "MvK.dtw");
    DtwTables partial;
    load_finished_dtw_pair(root_, kvk, t.wdl, partial);  // what MvK promotes to
    EXPECT_THROW(load_finished_dtw_pair(root_, kvm, t.wdl, partial), TableError);
    EXPECT_FALSE(partial.contains(kvm));
    EXPECT_FALSE(partial.contains(mvk));
}

// Four threads probe every position of the 3-piece materials at once, each from its own start,
// through a cache of 1 MiB that WDL and DTW blocks share (about the size of all their blocks):
// every answer is the solver's. (The cache's eviction under concurrent hits is the stress test's.)
TEST_F(DtwFilesTest, ProbeDtwFromManyThreadsAtOnce) {
    build_dtw(root_, 3);
    const InMemoryTables t = solve_in_memory(3, true);
    const Tablebase tb(root_, {.cache_mb = 1});
    std::vector<Position> positions;
    std::vector<Dtw> expected;
    for (const Material& m : materials_in_build_order(3)) {
        if (m.pieces() < 3) continue;
        const PositionIndex index(m);
        for (std::uint64_t i = 0; i < index.size(); i += 7) {
            positions.push_back(index.position(i));
            expected.push_back(t.dtw.table(m)->at(i));
        }
    }
    std::atomic<std::uint64_t> wrong{0};
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < 4; ++k)
        threads.emplace_back([&, k] {
            for (std::size_t n = 0; n < positions.size(); ++n) {
                const std::size_t i = (n + k * positions.size() / 4) % positions.size();
                const DtwResult r = tb.probe_dtw(positions[i]);
                wrong += r.value != dtw_value(expected[i]) || r.dtw != (expected[i] == kDtwDraw ? -1 : int{expected[i]});
            }
        });
    for (std::thread& th : threads) th.join();
    EXPECT_GT(positions.size(), 50'000u);
    EXPECT_EQ(wrong.load(), 0u);
    const CacheStats stats = tb.cache_stats();
    EXPECT_LE(stats.bytes, stats.capacity_bytes);
}

// DTW blocks go through the one block cache: counted in cache_stats, within cache_mb, emptied by
// clear_cache (they used to sit in a cache of their own that cache_stats did not see).
TEST_F(DtwFilesTest, DtwBlocksShareTheOneCache) {
    build_dtw(root_, 3);
    const Tablebase tb(root_, {.cache_mb = 1});
    const Position p = first_read_from_file(tb, Material{1, 0, 2, 0});  // caches its WDL block
    const CacheStats wdl_only = tb.cache_stats();
    ASSERT_EQ(tb.probe_dtw(p).value, Value::Loss);
    const CacheStats both = tb.cache_stats();
    EXPECT_EQ(both.blocks, wdl_only.blocks + 1);  // the DTW block
    EXPECT_GT(both.bytes, wdl_only.bytes);
    ASSERT_EQ(tb.probe_dtw(p).value, Value::Loss);
    EXPECT_EQ(tb.cache_stats().hits, both.hits + 2);  // its WDL and DTW blocks, from the cache
    EXPECT_EQ(tb.cache_stats().misses, both.misses);
    tb.clear_cache();
    EXPECT_EQ(tb.cache_stats().blocks, 0u);
    EXPECT_EQ(tb.probe_dtw(p).value, Value::Loss);
}

// .dtw files are opened like .wdl files: within max_open_files (they used to stay open once
// opened, whatever the limit), closed and reopened as needed, with the same answers.
TEST_F(DtwFilesTest, DtwFilesCountInMaxOpenFiles) {
    build_dtw(root_, 3);
    const InMemoryTables t = solve_in_memory(3, true);
    const auto open_files = [] {
        return std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator{});
    };
    const auto before = open_files();
    const Tablebase tb(root_, {.cache_mb = 0, .max_open_files = 2});
    std::uint64_t wrong = 0, probed = 0;
    for (const Material& m : materials_in_build_order(3)) {
        const PositionIndex index(m);
        for (std::uint64_t i = 0; i < index.size(); i += 97, ++probed) {
            const DtwResult r = tb.probe_dtw(index.position(i));
            const Dtw expected = t.dtw.table(m)->at(i);
            wrong += r.value != dtw_value(expected) || r.dtw != (expected == kDtwDraw ? -1 : int{expected});
        }
    }
    EXPECT_GT(probed, 1000u);
    EXPECT_EQ(wrong, 0u);
    EXPECT_LE(open_files() - before, 2);
}

TEST_F(DtwFilesTest, SameBytesWithOneOrTwoThreadsAndWdlUnchanged) {
    build_dtw(root_ / "one", 3, 1);
    build_dtw(root_ / "two", 3, 2);
    build_into(root_ / "plain", 3);
    const auto one = files_of(root_ / "one"), two = files_of(root_ / "two"), plain = files_of(root_ / "plain");
    EXPECT_EQ(one.size(), 2 * plain.size());
    EXPECT_TRUE(one == two);
    for (const auto& [name, bytes] : plain) EXPECT_TRUE(one.at(name) == bytes) << name << " changed by --dtw";
}

TEST_F(DtwFilesTest, TablesMovedToScratchCopiesAndBackGiveTheSameBytes) {
    build_dtw(root_ / "kept", 3);
    memory_bytes_ = 1;  // every table the next material does not read leaves memory
    build_dtw(root_ / "moved", 3);
    // Tables left memory and came back (each already had its copy for a resumed build, so leaving
    // wrote nothing).
    EXPECT_NE(log_.find("scratch copy loaded"), std::string::npos) << log_;
    EXPECT_TRUE(files_of(root_ / "kept") == files_of(root_ / "moved"));
    EXPECT_FALSE(fs::exists(root_ / "moved" / ".dtb-spill"));
}

// A resumed --dtw build takes the finished DTW tables back from the copies the first one kept,
// instead of reading their .dtw files (where a losses-only file's wins are derived by search),
// and writes the same bytes.
TEST_F(DtwFilesTest, AResumedDtwBuildStartsFromTheCopiesOfFinishedTables) {
    const Material kk_kk = *parse_material("KKvKK");  // reads KvKK only, WDL and DTW
    build_dtw(root_ / "plain", 4, 0, {kk_kk});
    keep_copies_ = true;
    build_dtw(root_ / "kept", 3);
    EXPECT_TRUE(fs::exists(root_ / "kept" / ".dtb-spill" / "KvKK.dtw"));
    build_dtw(root_ / "kept", 4, 0, {kk_kk});
    for (const char* name : {"KvKK.dtw", "KvKK.wdl"})
        EXPECT_NE(log_.find(std::string(name) + std::string(14 - std::strlen(name), ' ') + " scratch copy loaded"),
                  std::string::npos)
            << name << '\n' << log_;
    EXPECT_EQ(log_.find("reading from the folder"), std::string::npos) << log_;
    EXPECT_TRUE(files_of(root_ / "kept").at("KKvKK.dtw") == files_of(root_ / "plain").at("KKvKK.dtw"));
}

TEST_F(DtwFilesTest, ResumeRebuildsDeletedDtwFiles) {
    build_dtw(root_ / "full", 3);
    fs::create_directories(root_ / "resumed");
    for (const auto& e : fs::directory_iterator(root_ / "full"))
        fs::copy_file(e.path(), root_ / "resumed" / e.path().filename());
    // A 3-piece file (its successors' DTW come from their files) and a 2-piece one.
    fs::remove(root_ / "resumed" / "MvMM.dtw");
    fs::remove(root_ / "resumed" / "KvK.dtw");
    fs::remove(root_ / "resumed" / "KvK.wdl");
    build_dtw(root_ / "resumed", 3);
    EXPECT_NE(log_.find("MvMM.dtw"), std::string::npos) << log_;
    EXPECT_EQ(log_.find("MMvM.dtw"), std::string::npos) << log_;  // kept, not rewritten
    EXPECT_TRUE(files_of(root_ / "full") == files_of(root_ / "resumed"));
    // Nothing left to do: a third run writes nothing.
    build_dtw(root_ / "resumed", 3);
    EXPECT_EQ(log_.find(".dtw "), std::string::npos) << log_;
}

TEST_F(DtwFilesTest, HeaderOfADtwFile) {
    build_dtw(root_, 3);
    const TableFile file(root_ / "MvMM.dtw", format::FileKind::Dtw);
    const format::Header& h = file.header();
    EXPECT_EQ(h.kind, format::FileKind::Dtw);
    EXPECT_EQ(h.value_encoding, format::kEncodingDtwLossesU8);
    EXPECT_EQ(h.max_dtw, 33u);
    EXPECT_EQ(h.positions, PositionIndex(h.material).size());
    EXPECT_EQ(read_bytes(root_ / "MvMM.dtw").substr(0, 8), "DTB-DTW\n");
    // Each kind is refused where the other is expected.
    EXPECT_THROW(TableFile(root_ / "MvMM.dtw"), TableError);
    EXPECT_THROW(TableFile(root_ / "MvMM.wdl", format::FileKind::Dtw), TableError);
}

TEST_F(DtwFilesTest, CorruptOrMissingDtwFileIsUnknownWithAReason) {
    build_dtw(root_, 3);
    const Material mvmm{1, 0, 2, 0};
    // A byte in the middle of block 0 of MvMM.dtw: the frame checksum catches it.
    std::uint64_t block0 = 0, block1 = 0;
    {
        const TableFile file(root_ / "MvMM.dtw", format::FileKind::Dtw);
        std::ifstream in(root_ / "MvMM.dtw", std::ios::binary);
        in.seekg(format::kHeaderBytes);
        in.read(reinterpret_cast<char*>(&block0), 8);
        in.read(reinterpret_cast<char*>(&block1), 8);
    }
    flip_byte(root_ / "MvMM.dtw", (block0 + block1) / 2);
    fs::remove(root_ / "KvKK.dtw");
    const Tablebase tb(root_);
    // The first such position of the material lies in block 0.
    const Position p = first_read_from_file(tb, mvmm);
    const DtwResult r = tb.probe_dtw(p);
    EXPECT_EQ(r.value, Value::Unknown) << to_fen(p);
    EXPECT_EQ(r.error, ProbeError::BadTable);
    EXPECT_NE(r.reason.find("MvMM.dtw"), std::string_view::npos) << r.reason;
    EXPECT_NE(r.reason.find("corrupt"), std::string_view::npos) << r.reason;
    EXPECT_TRUE(tb.probe_wdl(p).known());  // the WDL file is untouched
    const DtwResult missing = tb.probe_dtw(first_read_from_file(tb, Material{0, 1, 0, 2}));
    EXPECT_EQ(missing.error, ProbeError::MissingTable);
    EXPECT_NE(missing.reason.find("KvKK.dtw"), std::string_view::npos) << missing.reason;
    // Other files still answer.
    EXPECT_EQ(tb.probe_dtw(parse_fen("W:W33:B2")).dtw, 17);
}

TEST_F(DtwFilesTest, CorruptDtwHeaderIsUnknownWithAReason) {
    build_dtw(root_, 3);
    flip_byte(root_ / "MvM.dtw", 40);
    const Tablebase tb(root_);
    const DtwResult r = tb.probe_dtw(parse_fen("W:W33:B2"));
    EXPECT_EQ(r.error, ProbeError::BadTable);
    EXPECT_NE(r.reason.find("header checksum"), std::string_view::npos) << r.reason;
    EXPECT_EQ(tb.probe_wdl(parse_fen("W:W33:B2")).value, Value::Win);
}

// probe_moves(pos, true) on 4-piece positions (MMvKK and what it needs: KKvMM, KMvKK, KKvKM,
// KKvKK, and 2-3 pieces), both sides to move, capture positions included: each move's distance is
// probe_dtw of the position after it, its value agrees with that, the moves are in best-first
// order by value and distance, and the best move's distance is probe_dtw(pos) - 1.
TEST_F(DtwFilesTest, ProbeMovesGiveTheDistanceAfterEachMove) {
    build_dtw(root_, 4, 0, {Material{2, 0, 0, 2}});
    const Tablebase tb(root_);
    ASSERT_EQ(tb.max_dtw_pieces(), 4);
    int checked = 0, decisive = 0, captures = 0;
    for (const Material& m : {Material{2, 0, 0, 2}, Material{0, 2, 2, 0}, Material{1, 1, 0, 2}, Material{0, 2, 1, 1},
                              Material{0, 2, 0, 2}}) {
        const PositionIndex index(m);
        for (std::uint64_t i = 0; i < index.size(); i += 4999) {
            for (const Position& p : {index.position(i), flip_colors(index.position(i))}) {
                const DtwResult now = tb.probe_dtw(p);
                ASSERT_TRUE(now.known()) << to_fen(p) << ' ' << now.reason;
                const auto moves = tb.probe_moves(p, true);
                const auto plain = tb.probe_moves(p);
                ASSERT_EQ(moves.size(), plain.size()) << to_fen(p);
                if (moves.empty()) {
                    EXPECT_EQ(now.dtw, 0) << to_fen(p);
                    continue;
                }
                for (std::size_t k = 0; k < moves.size(); ++k) {
                    const MoveValue& mv = moves[k];
                    const DtwResult after = tb.probe_dtw(apply_move(p, mv.move));
                    ASSERT_EQ(mv.after.value, after.value) << to_fen(p) << ' ' << move_to_string(p, mv.move);
                    ASSERT_EQ(mv.after.dtw, after.dtw) << to_fen(p) << ' ' << move_to_string(p, mv.move);
                    EXPECT_EQ(mv.result.value, negate(after.value)) << to_fen(p) << ' ' << move_to_string(p, mv.move);
                    EXPECT_FALSE(plain[k].after.known());  // only asked for with `dtw`
                    EXPECT_EQ(plain[k].result.value, mv.result.value);  // same values in the same order
                    if (k == 0) continue;
                    const MoveValue& before = moves[k - 1];
                    if (before.result.value != mv.result.value) continue;
                    if (mv.result.value == Value::Win) {
                        EXPECT_LE(before.after.dtw, mv.after.dtw) << to_fen(p);  // the quickest win first
                    } else if (mv.result.value == Value::Loss) {
                        EXPECT_GE(before.after.dtw, mv.after.dtw) << to_fen(p);  // the slowest loss first
                    }
                }
                EXPECT_EQ(moves.front().result.value, now.value) << to_fen(p);
                if (now.value != Value::Draw) {
                    EXPECT_EQ(moves.front().after.dtw, now.dtw - 1) << to_fen(p);
                    ++decisive;
                }
                captures += has_capture(p);
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 2000);
    EXPECT_GT(decisive, 500);
    EXPECT_GT(captures, 500);
}

// A position whose side not to move has no piece cannot arise in a game (the side that took the
// last piece has moved, so the loser is to move), but probe_wdl answers it as a win (the opponent
// has lost); probe_dtw agrees, with 0 plies left: the game is over.
TEST_F(DtwFilesTest, OpponentWithoutPiecesIsAWinAtDistanceZero) {
    build_dtw(root_, 3);
    const Tablebase tb(root_);
    for (const char* fen : {"W:W33:B", "B:W:B18", "W:WK1,K7:B", "B:W:BK50,K45"}) {
        const Position p = parse_fen(fen);
        EXPECT_EQ(tb.probe_wdl(p).value, Value::Win) << fen;
        const DtwResult d = tb.probe_dtw(p);
        EXPECT_EQ(d.value, Value::Win) << fen << ' ' << d.reason;
        EXPECT_EQ(d.dtw, 0) << fen;
        EXPECT_EQ(d.error, ProbeError::None) << fen;
    }
    // The side to move without pieces has lost, as before.
    for (const char* fen : {"B:W33:B", "W:W:B18"}) {
        EXPECT_EQ(tb.probe_wdl(parse_fen(fen)).value, Value::Loss) << fen;
        EXPECT_EQ(tb.probe_dtw(parse_fen(fen)).value, Value::Loss) << fen;
        EXPECT_EQ(tb.probe_dtw(parse_fen(fen)).dtw, 0) << fen;
    }
    // probe_moves of such a position: every move keeps the win (the opponent still has nothing).
    for (const MoveValue& m : tb.probe_moves(parse_fen("W:W33:B"), true)) {
        EXPECT_EQ(m.result.value, Value::Win);
        EXPECT_EQ(m.after.value, Value::Loss);
        EXPECT_EQ(m.after.dtw, 0);
    }
    dtb_handle* h = dtb_open(root_.c_str(), nullptr, nullptr);
    ASSERT_NE(h, nullptr);
    int dtw = -1;
    EXPECT_EQ(dtb_probe_dtw(h, std::uint64_t{1} << 32, 0, 0, DTB_WHITE_TO_MOVE, &dtw), DTB_WIN);
    EXPECT_EQ(dtw, 0);
    EXPECT_EQ(dtb_probe_wdl(h, std::uint64_t{1} << 32, 0, 0, DTB_WHITE_TO_MOVE), DTB_WIN);
    dtb_close(h);
}

TEST_F(DtwFilesTest, CApi) {
    build_dtw(root_, 3);
    dtb_handle* h = dtb_open(root_.c_str(), nullptr, nullptr);
    ASSERT_NE(h, nullptr);
    const auto bit = [](int s) { return std::uint64_t{1} << (s - 1); };
    int dtw = 0;
    EXPECT_EQ(dtb_probe_dtw(h, bit(21), bit(3) | bit(4), 0, DTB_WHITE_TO_MOVE, &dtw), DTB_WIN);
    EXPECT_EQ(dtw, 33);
    EXPECT_EQ(dtb_probe_dtw(h, bit(1), bit(50), bit(1) | bit(50), DTB_WHITE_TO_MOVE, &dtw), DTB_DRAW);
    EXPECT_EQ(dtw, -1);
    EXPECT_EQ(dtb_probe_dtw(h, bit(1), bit(1), 0, DTB_WHITE_TO_MOVE, &dtw), DTB_INVALID);
    EXPECT_EQ(dtb_probe_dtw(h, bit(33), bit(2), 0, DTB_WHITE_TO_MOVE, nullptr), DTB_WIN);
    dtb_close(h);
}

}  // namespace
}  // namespace dtb
