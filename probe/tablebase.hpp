// Probing the win/draw/loss databases: the C++ API an engine links against.
//
//   dtb::Tablebase tb("/path/to/db");                  // throws std::runtime_error if unusable
//   dtb::ProbeResult r = tb.probe_wdl(position);       // value for the side to move
//   if (r.known()) use(r.value);                       // Win, Draw or Loss
//   else std::cerr << r.reason << '\n';                // why not: missing file, corrupt block, ...
//
// One Tablebase is shared by all search threads: every member function is thread-safe, and a
// probe whose blocks are cached takes no lock at all (the cache's hit path is atomic loads only).
// Files are opened on first need, decompressed blocks are kept in a bounded cache, and a
// position whose side to move must capture is resolved by searching the compulsory captures into
// the smaller databases, so every legal position of up to max_pieces() pieces has an answer.
// A value is never guessed: whatever cannot be read and checked is reported as Unknown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "index/material.hpp"
#include "probe/format.hpp"
#include "rules/movegen.hpp"

namespace dtb {

// The largest cache_mb front ends accept: 16 TiB, whose byte count fits in 64 bits.
inline constexpr std::size_t kMaxCacheMb = std::size_t{1} << 24;

struct TablebaseOptions {
    // Bytes of decompressed blocks (WDL and DTW together) kept in memory, in MiB (at most
    // kMaxCacheMb). The cache allocates its memory as it fills, up to this bound, and keeps it
    // until the Tablebase is destroyed (clear_cache empties it but does not give memory back).
    // 0 keeps nothing (every probe reads the disk: useful to measure cold probes, useless otherwise).
    std::size_t cache_mb = 64;
    // Largest number of pieces to use; 0 means every database found. Files of more pieces are ignored.
    int max_pieces = 0;
    // Most database files (.wdl and .dtw) held open at once; the least recently used is closed
    // beyond that.
    // (A file being read by another thread stays open until that read ends.)
    int max_open_files = 64;
    // Most positions one probe visits while resolving captures (a position whose side to move must
    // capture is searched through the compulsory captures into the databases). Past it the probe
    // answers Unknown with ProbeError::SearchLimit: whatever the position, a probe costs a bounded
    // time (about a microsecond a position: 100,000 take about a tenth of a second). Positions of
    // up to a few pieces more than max_pieces need far fewer, and lines that end quiet beyond the
    // databases cut the search short (only a win can then be proved). 0 means no bound.
    std::uint64_t capture_search_nodes = 100'000;
    // Keep the values of every .wdl file in memory, small tables as their value bytes and the
    // others in a run-length code, read without decompressing anything (1.24 times the files of
    // 2-6 pieces; docs/PROBING.md): a file is read and encoded whole when first needed, or by
    // preload(), and never read again. Probes into these files then take no cache, no lock and no
    // disk read. DTW files still go through the block cache.
    bool resident = false;
    // Called once per distinct problem (missing file, corrupt block, ...), from the probing thread,
    // never by two threads at once. It must not call back into the Tablebase. May be empty.
    std::function<void(std::string_view)> log = nullptr;
};

// Why a probe returned Value::Unknown.
enum class ProbeError : std::uint8_t {
    None = 0,
    TooManyPieces,    // more pieces than the databases in use cover (see max_pieces())
    MissingTable,     // a database file the position needs is not in the folder
    BadTable,         // a needed file is unreadable, truncated, corrupt or of another format
    NotCached,        // soft probe only: the answer needs a block that is not in the cache
    InvalidPosition,  // overlapping pieces, men on their crowning row, pieces off the board, ...
    SearchLimit,      // resolving the captures needed more than capture_search_nodes positions
    Capture,          // quiet probe only: the side to move has a capture (its value needs a capture search)
};

const char* probe_error_name(ProbeError e);  // "none", "too-many-pieces", "missing-table", "search-limit", "capture", ...

struct ProbeResult {
    Value value = Value::Unknown;  // for the side to move
    ProbeError error = ProbeError::None;
    // Empty when the value is known; otherwise a human-readable explanation. It points to
    // NUL-terminated text owned by the Tablebase (or static), valid while the Tablebase lives.
    std::string_view reason;

    bool known() const { return value != Value::Unknown; }
};

// A distance-to-win probe: the value and, for a win or a loss, the number of plies until the game
// ends (the loser has no piece or no legal move) when the winner takes the shortest way and the
// loser the longest, counted through captures and promotions. Odd for a win, even for a loss,
// 0 when the game is over: a loss when the side to move has no move, a win when the side not to
// move has no piece (as probe_wdl says); -1 for a draw or an unknown value.
struct DtwResult {
    Value value = Value::Unknown;
    int dtw = -1;
    ProbeError error = ProbeError::None;
    std::string_view reason;  // as ProbeResult::reason

    bool known() const { return value != Value::Unknown; }
};

// One legal move and the value of the position after it, for the side to move before it.
struct MoveValue {
    Move move;
    ProbeResult result;
    // Only from probe_moves(pos, true): probe_dtw of the position after the move, for the
    // opponent, who is then to move (so an even dtw for a winning move, odd for a losing one).
    // Otherwise Unknown with dtw -1.
    DtwResult after;
};

// Counters of the block cache (totals since construction). Hits and misses count lookups of a
// block, WDL or DTW; they are counted without locked instructions, so two threads that share a
// counter (rare) may lose a few. A block is cached in pages of 6552 bytes and counts as held
// while any of its pages is, as evicted when its last page is.
struct CacheStats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t evictions = 0;
    std::uint64_t blocks = 0;          // blocks held now
    std::uint64_t bytes = 0;           // bytes held now (the pages in use plus their bookkeeping)
    std::uint64_t capacity_bytes = 0;  // the bound on `bytes`
};

// nullptr if `pos` can be probed; otherwise what makes it illegal (overlapping colours, a king
// that is nobody's piece, a piece off the board, a man on its crowning row, more than 20 pieces a side).
const char* position_problem(const Position& pos);

class Tablebase {
public:
    // Lists the database files of `dir` (opening none of them). Throws std::runtime_error when
    // `dir` is not a readable folder. A folder without databases is accepted (max_pieces() == 0).
    explicit Tablebase(const std::filesystem::path& dir, TablebaseOptions options = {});
    ~Tablebase();
    Tablebase(const Tablebase&) = delete;
    Tablebase& operator=(const Tablebase&) = delete;

    // Value of `pos` for its side to move. A side with no pieces, or no legal move, has lost.
    // Unknown (with error and reason) only when a needed file is missing, unreadable or corrupt,
    // when the position has more pieces than covered and its captures do not bring every line
    // within range, when resolving the captures needs more than capture_search_nodes positions,
    // or when the position is invalid. Allocation-free when the blocks are cached.
    ProbeResult probe_wdl(const Position& pos) const;

    // As probe_wdl, but answers only from blocks already in the cache and never reads a file
    // (nor opens one): Unknown with ProbeError::NotCached otherwise. For search leaves.
    ProbeResult probe_wdl_soft(const Position& pos) const;

    // The stored value of a quiet position, for engines that resolve captures in their own search
    // (Scan's "raw" probe): one lookup, no capture search. When the side to move has a capture,
    // Unknown with ProbeError::Capture, never the value stored for it (files store capture
    // positions as "don't care"). Otherwise as probe_wdl: the same value, or Unknown for the same
    // reasons (a missing or corrupt file, too many pieces, an invalid position).
    ProbeResult probe_wdl_quiet(const Position& pos) const;

    // Distance to win of `pos` for its side to move, from the <material>.dtw files (dtb gen --dtw)
    // and the WDL files. Capture positions are resolved by searching the captures (shortest win,
    // longest loss), like probe_wdl. Unknown, with error and reason, when a needed .dtw or .wdl
    // file is missing or corrupt, or the position has more pieces than the .dtw files cover.
    // Meant for roots and analysis, not search leaves (a win in a file that stores losses only
    // costs a probe of every move). DTW blocks share the one block cache (cache_mb) with the WDL
    // blocks, and .dtw files are opened and closed like .wdl files (max_open_files counts both).
    DtwResult probe_dtw(const Position& pos) const;

    // Largest piece count of the .dtw files in use (0 if none).
    int max_dtw_pieces() const;

    // The longest distance to win recorded in the .dtw file of `m` (white to move): the larger of
    // its header's longest win (capture positions included) and largest DTW of a non-capture
    // position (losses included). nullopt when `m` has no usable .dtw file. Opens the file.
    std::optional<int> longest_dtw(const Material& m) const;

    // Every legal move of `pos` with its value for the side to move at `pos`, best first:
    // wins, draws, losses, then unknowns (moves of equal value keep generation order).
    // With `dtw`, each move's `after` also holds probe_dtw of the position after it, and the
    // order follows the distances too: wins by shortest dtw, losses by longest (a move whose
    // distance is unknown after the others of its value). The first move's dtw is then
    // probe_dtw(pos).dtw - 1 whenever both are known.
    // Throws std::invalid_argument if position_problem(pos) is not null.
    std::vector<MoveValue> probe_moves(const Position& pos, bool dtw = false) const;

    // Largest piece count covered: the most pieces of any database in use (0 if none).
    int max_pieces() const;
    // The materials whose database files are present (and within max_pieces), in build order.
    const std::vector<Material>& materials() const;
    bool has_table(const Material& m) const;
    const std::filesystem::path& directory() const;

    // Opens every .wdl file now rather than on first need, on `threads` threads (0: one per core);
    // with TablebaseOptions::resident, this reads and encodes them all, so that no probe touches
    // the disk afterwards. A file that cannot be used is reported through `log` (its probes answer
    // Unknown, as they would have). Returns the number of .wdl files ready.
    std::size_t preload(int threads = 0) const;
    // Bytes of memory the resident files hold (0 without TablebaseOptions::resident).
    std::size_t resident_bytes() const;

    CacheStats cache_stats() const;
    // Drops every cached block (files stay open). Safe while other threads probe.
    void clear_cache() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace dtb
