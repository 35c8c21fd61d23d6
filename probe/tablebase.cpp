#include "probe/tablebase.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "index/position_index.hpp"
#include "probe/block_cache.hpp"
#include "probe/resident_table.hpp"
#include "probe/table_file.hpp"

namespace dtb {
namespace {

constexpr std::string_view kReasonTooManyPieces = "more pieces than the databases in use cover";
constexpr std::string_view kReasonNotCached = "not in the cache (soft probe)";
constexpr std::string_view kReasonTooManyDtwPieces = "more pieces than the DTW files in use cover";
// Only inside a capture search: the answer of a line searched for one value only, which it lacks.
constexpr std::string_view kReasonNotSought = "not the value sought";
constexpr std::string_view kReasonCapture = "the side to move has a capture (quiet probe)";

constexpr ProbeResult known(Value v) { return ProbeResult{v, ProbeError::None, {}}; }

// cache_mb in bytes; a size beyond the address space means "no bound" rather than wrapping to a
// tiny cache.
std::size_t cache_bytes(std::size_t mb) {
    return mb > (std::numeric_limits<std::size_t>::max() >> 20) ? std::numeric_limits<std::size_t>::max() : mb << 20;
}

// Best first: win, draw, loss, then unknown.
int move_rank(Value v) {
    switch (v) {
        case Value::Win: return 0;
        case Value::Draw: return 1;
        case Value::Loss: return 2;
        default: return 3;
    }
}

// Problems seen while probing, each kept once so that results can point at its text and the log
// callback hears of it once. Only touched on error paths.
class ErrorLog {
public:
    explicit ErrorLog(std::function<void(std::string_view)> sink) : sink_(std::move(sink)) {}

    std::string_view record(std::string message) {
        std::string_view stored;
        bool first = false;
        {
            std::lock_guard lock(mutex_);
            const auto [it, inserted] = messages_.insert(std::move(message));
            stored = *it;  // set nodes never move: the view stays valid
            first = inserted;
        }
        if (first) say(stored);
        return stored;
    }

    // Calls the sink one message at a time: callbacks need not be thread-safe.
    void say(std::string_view message) {
        if (!sink_) return;
        std::lock_guard lock(sink_mutex_);
        sink_(message);
    }

private:
    std::mutex mutex_;
    std::mutex sink_mutex_;
    std::set<std::string, std::less<>> messages_;
    std::function<void(std::string_view)> sink_;
};

}  // namespace

// The positions one probe may still visit while resolving captures (TablebaseOptions::capture_search_nodes).
class NodeBudget {
public:
    explicit NodeBudget(std::uint64_t limit) : left_(limit == 0 ? UINT64_MAX : limit) {}
    bool take() {
        if (left_ == 0) return false;
        --left_;
        return true;
    }

private:
    std::uint64_t left_;
};

// What a capture search must establish. Once one capture's line is unknown, the position can only
// be known as a win, so its other captures are searched only for a loss of the opponent, whose
// replies only for a win, and so on: each such line stops at its first reply that fails.
enum class Goal : std::uint8_t { Exact, WinOnly, LossOnly };

const char* probe_error_name(ProbeError e) {
    switch (e) {
        case ProbeError::None: return "none";
        case ProbeError::TooManyPieces: return "too-many-pieces";
        case ProbeError::MissingTable: return "missing-table";
        case ProbeError::BadTable: return "bad-table";
        case ProbeError::NotCached: return "not-cached";
        case ProbeError::InvalidPosition: return "invalid-position";
        case ProbeError::SearchLimit: return "search-limit";
        case ProbeError::Capture: return "capture";
    }
    return "unknown";
}

const char* position_problem(const Position& p) {
    if (p.side_to_move != Color::White && p.side_to_move != Color::Black) return "invalid side to move";
    if ((p.white | p.black | p.kings) & ~kBoard) return "a piece is off the board";
    if (p.white & p.black) return "a square holds both a white and a black piece";
    if (p.kings & ~(p.white | p.black)) return "a king is on an empty square";
    if (p.men(Color::White) & kWhitePromotionRow) return "a white man stands on its crowning row (1-5)";
    if (p.men(Color::Black) & kBlackPromotionRow) return "a black man stands on its crowning row (46-50)";
    if (count_bits(p.white) > 20 || count_bits(p.black) > 20) return "more than 20 pieces for one side";
    return nullptr;
}

// One database file (a material's .wdl or .dtw file): its index, the file, and the state of that
// file. WDL and DTW files take the same way: opened on first need, checked alike, counted in
// max_open_files, their blocks in the one cache.
struct TableSlot {
    enum State : std::uint8_t { kUnopened, kReady, kFailed };

    TableSlot(const Material& m, format::FileKind file_kind, std::filesystem::path p, bool present)
        : material(m), index(m), kind(file_kind), path(std::move(p)), state(present ? kUnopened : kFailed) {
        if (!present) {
            error = ProbeError::MissingTable;
            missing_reason = (kind == format::FileKind::Dtw ? "missing DTW file " : "missing database file ") + path.string();
            reason = missing_reason;
        }
    }

    const Material material;
    const PositionIndex index;
    const format::FileKind kind;
    const std::filesystem::path path;

    // kUnopened -> kReady or kFailed, once (open_once). The fields below it are written before the
    // release store of the state and read after an acquire load, so they need no lock.
    std::atomic<std::uint8_t> state;
    std::once_flag open_once;
    format::Header header;                  // valid when kReady: the file's, kept while it is closed
    detail::BlockDirectory blocks;          // valid when kReady
    // Valid when kReady, with TablebaseOptions::resident (WDL files only): the file's values, read
    // once; then `file` is never opened again.
    std::unique_ptr<const detail::ResidentTable> resident;
    ProbeError error = ProbeError::None;    // valid when kFailed
    std::string_view reason;                // valid when kFailed
    std::string missing_reason;
    std::atomic<bool> missing_logged{false};

    // Guarded by Tablebase::Impl::files_mutex.
    std::shared_ptr<const TableFile> file;
    std::uint64_t last_use = 0;
};

struct Tablebase::Impl {
    Impl(const std::filesystem::path& directory, TablebaseOptions options);
    void add_dtw_slots();

    ProbeResult search(const Position& pos, bool soft) const;
    ProbeResult quiet(const Position& pos) const;
    ProbeResult search(const Position& pos, bool soft, NodeBudget& budget, Goal goal = Goal::Exact) const;
    ProbeResult resolve_captures(const Position& w, Bitboard capturers, bool soft, NodeBudget& budget, Goal goal) const;
    ProbeResult search_limit() const;
    ProbeResult lookup(const Position& w, bool soft) const;
    bool usable(TableSlot& slot, bool soft, ProbeError& error, std::string_view& reason) const;
    std::uint64_t load(TableSlot& slot, std::uint64_t block, std::uint64_t byte) const;
    ProbeResult checked(Value v, const TableSlot& slot, std::uint64_t block) const;
    ProbeResult unavailable(const Position& w, ProbeError error, std::string_view reason) const;
    TableSlot* slot_for(const Position& w) const;
    std::size_t key_of(int wm, int wk, int bm, int bk) const {
        return ((static_cast<std::size_t>(wm) * stride + wk) * stride + bm) * stride + bk;
    }

    DtwResult dtw_search(const Position& pos, NodeBudget& budget) const;
    DtwResult dtw_by_search(const Position& w, NodeBudget& budget) const;
    DtwResult dtw_lookup(const Position& w, Value v, NodeBudget& budget) const;
    DtwResult dtw_derived_win(const Position& w, const TableSlot& slot, NodeBudget& budget) const;
    TableSlot* dtw_slot_for(const Material& m) const;
    void open_first(TableSlot& slot) const;
    void check_file(const TableSlot& slot, const TableFile& file) const;
    void note_old_version(const TableSlot& slot) const;
    std::shared_ptr<const TableFile> acquire(TableSlot& slot) const;

    std::filesystem::path dir;
    TablebaseOptions options;
    mutable ErrorLog errors;
    int max_pieces = 0;
    int stride = 1;  // slot_by_counts is indexed by four counts in base `stride`
    std::vector<std::unique_ptr<TableSlot>> slots;
    std::vector<TableSlot*> slot_by_counts;
    std::vector<Material> present;
    mutable detail::BlockCache cache;  // WDL and DTW blocks, within cache_mb

    int max_dtw_pieces = 0;
    std::vector<std::unique_ptr<TableSlot>> dtw_slots;
    std::vector<TableSlot*> dtw_slot_by_counts;  // indexed like slot_by_counts

    // The open-file pool; only taken on cache misses.
    mutable std::mutex files_mutex;
    mutable std::vector<TableSlot*> open_slots;
    mutable std::uint64_t use_clock = 0;

    mutable std::atomic<std::size_t> resident_bytes{0};
};

namespace {

// The materials whose files (named <material><suffix>) are in `dir`, at most `limit` pieces (0: no limit).
std::vector<Material> scan_directory(const std::filesystem::path& dir, int limit, const char* suffix) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw std::runtime_error("database folder " + dir.string() + ": " +
                                 (ec ? ec.message() : std::string("not found or not a folder")));
    std::vector<Material> found;
    std::filesystem::directory_iterator it(dir, ec);
    if (ec) throw std::runtime_error("database folder " + dir.string() + ": " + ec.message());
    for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
        if (ec) throw std::runtime_error("database folder " + dir.string() + ": " + ec.message());
        const std::string name = it->path().filename().string();
        if (!name.ends_with(suffix)) continue;
        const auto m = parse_material(std::string_view(name).substr(0, name.size() - std::strlen(suffix)));
        if (!m || m->white_pieces() == 0 || m->black_pieces() == 0 || m->name() + suffix != name) continue;
        if (limit > 0 && m->pieces() > limit) continue;
        found.push_back(*m);
    }
    return found;
}

}  // namespace

Tablebase::Impl::Impl(const std::filesystem::path& directory, TablebaseOptions opts)
    : dir(directory),
      options(std::move(opts)),
      errors(options.log),
      cache(cache_bytes(options.cache_mb)) {
    if (options.max_open_files < 1) options.max_open_files = 1;
    const std::vector<Material> found = scan_directory(dir, options.max_pieces, format::kWdlSuffix);
    for (const Material& m : found) max_pieces = std::max(max_pieces, m.pieces());
    stride = max_pieces + 1;
    slot_by_counts.assign(static_cast<std::size_t>(stride) * stride * stride * stride, nullptr);
    for (const Material& m : materials_in_build_order(max_pieces)) {
        const bool here = std::find(found.begin(), found.end(), m) != found.end();
        if (here) present.push_back(m);
        slots.push_back(std::make_unique<TableSlot>(m, format::FileKind::Wdl, dir / format::wdl_file_name(m), here));
        slot_by_counts[key_of(m.white_men, m.white_kings, m.black_men, m.black_kings)] = slots.back().get();
    }
    add_dtw_slots();  // an empty folder is no error here: max_pieces() says so, each tool decides
}

// DTW files are used up to max_pieces only: their values need the WDL files.
void Tablebase::Impl::add_dtw_slots() {
    if (max_pieces == 0) return;  // (a limit of 0 would mean none to scan_directory)
    const std::vector<Material> found = scan_directory(dir, max_pieces, format::kDtwSuffix);
    for (const Material& m : found) max_dtw_pieces = std::max(max_dtw_pieces, m.pieces());
    dtw_slot_by_counts.assign(slot_by_counts.size(), nullptr);
    for (const Material& m : materials_in_build_order(max_dtw_pieces)) {
        const bool here = std::find(found.begin(), found.end(), m) != found.end();
        dtw_slots.push_back(std::make_unique<TableSlot>(m, format::FileKind::Dtw, dir / format::dtw_file_name(m), here));
        dtw_slot_by_counts[key_of(m.white_men, m.white_kings, m.black_men, m.black_kings)] = dtw_slots.back().get();
    }
}

TableSlot* Tablebase::Impl::slot_for(const Position& w) const {
    const int wm = count_bits(w.white & ~w.kings), wk = count_bits(w.white & w.kings);
    const int bm = count_bits(w.black & ~w.kings), bk = count_bits(w.black & w.kings);
    if (wm + wk + bm + bk > max_pieces) return nullptr;
    return slot_by_counts[key_of(wm, wk, bm, bk)];
}

// DTW of a position for its side to move: 0 when the game is over (as search() says: lost without
// a piece, won against none, lost without a move), a capture resolved by search, otherwise the
// WDL value from the .wdl file and DTW/2 from the .dtw file.
DtwResult Tablebase::Impl::dtw_search(const Position& pos, NodeBudget& budget) const {
    const Position w = white_to_move(pos);
    if (w.white == 0) return {Value::Loss, 0, ProbeError::None, {}};
    // Never after a move (the side that moved has a piece); only a position probed as such.
    if (w.black == 0) return {Value::Win, 0, ProbeError::None, {}};
    if (count_moves(w) == 0) return {Value::Loss, 0, ProbeError::None, {}};
    if (!budget.take()) {
        const ProbeResult r = search_limit();
        return {Value::Unknown, -1, r.error, r.reason};
    }
    if (has_capture(w)) return dtw_by_search(w, budget);
    if (count_bits(w.white | w.black) > max_dtw_pieces)
        return {Value::Unknown, -1, ProbeError::TooManyPieces, kReasonTooManyDtwPieces};
    const ProbeResult wdl = lookup(w, false);
    if (!wdl.known()) return {Value::Unknown, -1, wdl.error, wdl.reason};
    if (wdl.value == Value::Draw) return {Value::Draw, -1, ProbeError::None, {}};
    return dtw_lookup(w, wdl.value, budget);
}

// One ply of search (capture positions, and wins in losses-only files): the winner takes the
// shortest way, the loser the longest. The WDL values after the moves say which lines need a
// distance: a win only those lost for the opponent, a loss all of them. Every line's value must be
// known, and every needed distance, since an unknown one could be shorter (or longer).
DtwResult Tablebase::Impl::dtw_by_search(const Position& w, NodeBudget& budget) const {
    const MoveList moves = generate_moves(w);
    std::vector<Value> after(moves.size());  // for the side to move at w
    Value best = Value::Loss;
    for (std::size_t k = 0; k < moves.size(); ++k) {
        const ProbeResult r = search(apply_move(w, moves[k]), false, budget);
        if (!r.known()) return {Value::Unknown, -1, r.error, r.reason};
        after[k] = negate(r.value);
        if (move_rank(after[k]) < move_rank(best)) best = after[k];
    }
    if (best == Value::Draw) return {Value::Draw, -1, ProbeError::None, {}};
    int chosen = -1;  // the shortest win or the longest loss, as the opponent's DTW after the move
    for (std::size_t k = 0; k < moves.size(); ++k) {
        if (after[k] != best) continue;
        const DtwResult r = dtw_search(apply_move(w, moves[k]), budget);
        if (!r.known()) return r;
        if (r.value != negate(best))  // one message per material: the log must stay bounded
            return {Value::Unknown, -1, ProbeError::BadTable,
                    errors.record("the DTW and WDL files disagree after a move of a position of " +
                                  material_of(w).name())};
        if (chosen < 0 || (best == Value::Win ? r.dtw < chosen : r.dtw > chosen)) chosen = r.dtw;
    }
    return {best, chosen + 1, ProbeError::None, {}};
}

// A win of a losses-only file: 1 + the shortest distance of a lost position after a move, which
// must be a win within the file's longest distance.
DtwResult Tablebase::Impl::dtw_derived_win(const Position& w, const TableSlot& slot, NodeBudget& budget) const {
    const DtwResult r = dtw_by_search(w, budget);
    if (!r.known()) return r;
    const format::Header& h = slot.header;
    if (r.value != Value::Win || static_cast<std::uint32_t>(r.dtw) > h.max_dtw)
        return {Value::Unknown, -1, ProbeError::BadTable,
                errors.record(slot.path.string() + ": a win of block " +
                              std::to_string(slot.index.index(w) / h.positions_per_block) +
                              " has no lost position after a move within the file's longest DTW")};
    return r;
}

TableSlot* Tablebase::Impl::dtw_slot_for(const Material& m) const {
    if (m.pieces() > max_dtw_pieces) return nullptr;
    return dtw_slot_by_counts[key_of(m.white_men, m.white_kings, m.black_men, m.black_kings)];
}

// A won or lost non-capture position: its DTW is 2 * stored (+1 for a win), or found by search
// for a win of a file that stores the losses only.
DtwResult Tablebase::Impl::dtw_lookup(const Position& w, Value v, NodeBudget& budget) const {
    TableSlot* slot = dtw_slot_for(material_of(w));
    if (slot == nullptr) return {Value::Unknown, -1, ProbeError::TooManyPieces, kReasonTooManyDtwPieces};
    ProbeError error;
    std::string_view reason;
    if (!usable(*slot, false, error, reason)) return {Value::Unknown, -1, error, reason};
    const format::Header& h = slot->header;
    if (v == Value::Win && !h.dtw_stores_wins()) return dtw_derived_win(w, *slot, budget);
    const std::uint64_t index = slot->index.index(w);
    const std::uint64_t block = index / h.positions_per_block;
    const std::uint64_t byte = (index - block * h.positions_per_block) * h.dtw_width();  // even when 2 wide
    std::uint64_t word;
    if (!cache.lookup(slot->blocks, block, byte, word)) {
        try {
            word = load(*slot, block, byte);
        } catch (const TableError& e) {
            return {Value::Unknown, -1, ProbeError::BadTable, errors.record(e.what())};
        }
    }
    // Two bytes of a 2-wide value start at an even byte: both are in the word.
    const std::uint32_t half = h.dtw_width() == 1 ? detail::byte_in_word(word, byte)
                                                  : detail::byte_in_word(word, byte) |
                                                        std::uint32_t{detail::byte_in_word(word, byte + 1)} << 8;
    const std::uint32_t d = v == Value::Win ? 2 * half + 1 : 2 * half;
    if (d > h.max_dtw)  // passed the checksums: the writer was wrong, not the disk
        return {Value::Unknown, -1, ProbeError::BadTable,
                errors.record(slot->path.string() + ": block " + std::to_string(block) +
                              " holds a DTW beyond the header's longest")};
    return {v, static_cast<int>(d), ProbeError::None, {}};
}

ProbeResult Tablebase::Impl::search(const Position& pos, bool soft) const {
    NodeBudget budget(options.capture_search_nodes);
    return search(pos, soft, budget);
}

// The value of `pos`; with a goal other than Exact, possibly Unknown (reason kReasonNotSought)
// when it is not the value sought. A known value is always exact.
ProbeResult Tablebase::Impl::search(const Position& pos, bool soft, NodeBudget& budget, Goal goal) const {
    const Position w = white_to_move(pos);
    if (w.white == 0) return known(Value::Loss);  // the side to move has nothing left
    if (w.black == 0) return known(Value::Win);   // the opponent has nothing left: it lost
    if (!budget.take()) return search_limit();
    if (const Bitboard capturers = capturing_pieces(w)) return resolve_captures(w, capturers, soft, budget, goal);
    // A quiet position beyond the databases ends its line here (unknown): captures are over.
    return lookup(w, soft);
}

// As search, but a capture is reported rather than searched: the stored byte of a capture
// position is "don't care" and must never be returned.
ProbeResult Tablebase::Impl::quiet(const Position& pos) const {
    const Position w = white_to_move(pos);
    if (w.white == 0) return known(Value::Loss);
    if (w.black == 0) return known(Value::Win);
    if (has_capture(w)) return {Value::Unknown, ProbeError::Capture, kReasonCapture};
    return lookup(w, false);
}

ProbeResult Tablebase::Impl::search_limit() const {
    return {Value::Unknown, ProbeError::SearchLimit,
            errors.record("capture search exceeded " + std::to_string(options.capture_search_nodes) + " positions")};
}

// Capture positions are stored as "don't care": their value is the best over the compulsory
// captures, each of which removes material and so lands in a smaller database (or another capture).
ProbeResult Tablebase::Impl::resolve_captures(const Position& w, Bitboard capturers, bool soft, NodeBudget& budget,
                                              Goal goal) const {
    const MoveList moves = generate_captures(w, capturers);
    Value best = Value::Loss;
    ProbeResult first_unknown;
    bool any_unknown = false;
    for (const Move& m : moves) {
        // After an unknown line only a win can still be known here: look for a lost reply.
        const Goal child_goal = goal == Goal::LossOnly ? Goal::WinOnly
                                : goal == Goal::WinOnly || any_unknown ? Goal::LossOnly
                                                                       : Goal::Exact;
        const ProbeResult r = search(apply_move(w, m), soft, budget, child_goal);
        if (r.error == ProbeError::SearchLimit) return r;
        if (!r.known()) {
            if (goal == Goal::LossOnly) return r;  // a reply that may not lose: not a loss
            if (!any_unknown) first_unknown = r;
            any_unknown = true;
            continue;
        }
        const Value v = negate(r.value);
        if (v == Value::Win) return known(Value::Win);  // no unknown sibling can change a win
        if (v == Value::Draw) {
            if (goal == Goal::LossOnly) return {Value::Unknown, ProbeError::None, kReasonNotSought};
            best = Value::Draw;
        }
    }
    return any_unknown ? first_unknown : known(best);
}

ProbeResult Tablebase::Impl::lookup(const Position& w, bool soft) const {
    TableSlot* slot = slot_for(w);
    if (slot == nullptr) return unavailable(w, ProbeError::TooManyPieces, kReasonTooManyPieces);
    if (slot->state.load(std::memory_order_acquire) != TableSlot::kReady) {
        ProbeError error;
        std::string_view reason;
        if (!usable(*slot, soft, error, reason))
            return error == ProbeError::NotCached ? ProbeResult{Value::Unknown, error, reason} : unavailable(w, error, reason);
    }
    const std::uint64_t index = slot->index.index(w);
    if (slot->resident) return known(slot->resident->value(index));  // checked when it was read
    const std::uint64_t block = index / slot->header.positions_per_block;
    const std::uint64_t offset = index - block * slot->header.positions_per_block;
    const std::uint64_t byte = offset / format::kValuesPerByte;
    std::uint64_t word;
    if (!cache.lookup(slot->blocks, block, byte, word)) {
        if (soft) return {Value::Unknown, ProbeError::NotCached, kReasonNotCached};
        try {
            word = load(*slot, block, byte);
        } catch (const TableError& e) {
            return {Value::Unknown, ProbeError::BadTable, errors.record(e.what())};
        }
    }
    return checked(format::decode_value(detail::byte_in_word(word, byte), offset % format::kValuesPerByte), *slot, block);
}

// Whether `slot`'s file can be read, opening it on first need (a soft probe opens nothing);
// otherwise the error and reason to report.
bool Tablebase::Impl::usable(TableSlot& slot, bool soft, ProbeError& error, std::string_view& reason) const {
    std::uint8_t state = slot.state.load(std::memory_order_acquire);
    if (state == TableSlot::kUnopened) {
        if (soft) {
            error = ProbeError::NotCached;
            reason = kReasonNotCached;
            return false;
        }
        open_first(slot);
        state = slot.state.load(std::memory_order_acquire);
    }
    if (state == TableSlot::kReady) return true;
    // A missing file is said once (a file that failed to open was said when it failed); the
    // relaxed load keeps later probes from writing the flag's cache line.
    if (slot.error == ProbeError::MissingTable && !slot.missing_logged.load(std::memory_order_relaxed) &&
        !slot.missing_logged.exchange(true))
        errors.say(slot.reason);
    error = slot.error;
    reason = slot.reason;
    return false;
}

// Without its database a position is still decided when the side to move cannot move.
ProbeResult Tablebase::Impl::unavailable(const Position& w, ProbeError error, std::string_view reason) const {
    if (count_moves(w) == 0) return known(Value::Loss);
    return {Value::Unknown, error, reason};
}

ProbeResult Tablebase::Impl::checked(Value v, const TableSlot& slot, std::uint64_t block) const {
    if (v != Value::Unknown) return known(v);
    // A byte outside the base-3 range passed the checksums: the writer was wrong, not the disk.
    return {Value::Unknown, ProbeError::BadTable,
            errors.record(slot.path.string() + ": block " + std::to_string(block) + " holds an invalid value byte")};
}

// Reads a block of `slot`'s file into the cache; returns the word holding `byte` from what it read
// (the cache may be too small to keep it). Throws TableError.
std::uint64_t Tablebase::Impl::load(TableSlot& slot, std::uint64_t block, std::uint64_t byte) const {
    const std::shared_ptr<const TableFile> file = acquire(slot);
    std::vector<std::uint8_t> bytes;
    file->read_block(block, bytes);
    cache.insert(slot.blocks, block, bytes);
    return detail::word_at(bytes, byte);
}

void Tablebase::Impl::open_first(TableSlot& slot) const {
    std::call_once(slot.open_once, [&] {
        try {
            if (options.resident && slot.kind == format::FileKind::Wdl) {
                // Read whole, then closed: the file is not held open nor counted in max_open_files.
                const TableFile file(slot.path, slot.kind);
                check_file(slot, file);
                slot.header = file.header();
                note_old_version(slot);
                try {
                    slot.resident = std::make_unique<const detail::ResidentTable>(file);
                } catch (const std::bad_alloc&) {  // this file stays unavailable; smaller ones may fit
                    throw TableError(slot.path.string() + ": out of memory holding its values resident");
                }
                resident_bytes += slot.resident->bytes();
                slot.state.store(TableSlot::kReady, std::memory_order_release);
                return;
            }
            const std::shared_ptr<const TableFile> file = acquire(slot);
            const format::Header& h = file->header();
            slot.header = h;
            note_old_version(slot);
            slot.blocks = detail::BlockDirectory(h.block_count, h.block_count == 0 ? 0 : h.block_bytes(0));
            slot.state.store(TableSlot::kReady, std::memory_order_release);
        } catch (const TableError& e) {
            slot.error = ProbeError::BadTable;
            slot.reason = errors.record(e.what());
            slot.state.store(TableSlot::kFailed, std::memory_order_release);
        }
    });
}

// Says once (through the log) that the folder holds files of an older format version: read as
// before, but without the block checks of the current one.
void Tablebase::Impl::note_old_version(const TableSlot& slot) const {
    if (slot.header.format_version >= format::kFormatVersion) return;
    const std::string dir = slot.path.parent_path().string();
    errors.record(dir + ": holds database files of format version " + std::to_string(slot.header.format_version) +
                  ", read as before; `dtb upgrade --db " + dir +
                  "` rewrites them with a check of every block in its place (docs/FORMAT.md, \"Versions\")");
}

// Throws TableError when `file` does not hold the material of `slot`.
void Tablebase::Impl::check_file(const TableSlot& slot, const TableFile& file) const {
    const format::Header& h = file.header();
    if (h.material != slot.material)
        throw TableError(slot.path.string() + ": holds material " + h.material.name() + ", not " +
                         slot.material.name());
    if (h.positions != slot.index.size())
        throw TableError(slot.path.string() + ": holds " + std::to_string(h.positions) + " positions, the index has " +
                         std::to_string(slot.index.size()));
}

// The open file of `slot`, opening it (and closing the least recently used file beyond the
// limit) if needed. Throws TableError.
std::shared_ptr<const TableFile> Tablebase::Impl::acquire(TableSlot& slot) const {
    {
        std::lock_guard lock(files_mutex);
        if (slot.file) {
            slot.last_use = ++use_clock;
            return slot.file;
        }
    }
    // Open outside the pool lock (it reads and hashes the block table); two threads may race to
    // open the same file, and the loser's copy is simply dropped.
    auto file = std::make_shared<const TableFile>(slot.path, slot.kind);
    check_file(slot, *file);
    const format::Header& h = file->header();
    // A file replaced while in use is read only if it keeps the layout the cache's directory and
    // the kept header describe.
    if (slot.state.load(std::memory_order_acquire) == TableSlot::kReady &&
        (h.positions_per_block != slot.header.positions_per_block || h.value_encoding != slot.header.value_encoding))
        throw TableError(slot.path.string() + ": block size or encoding changed while in use");

    std::vector<std::shared_ptr<const TableFile>> closing;  // closed after unlocking
    std::lock_guard lock(files_mutex);
    slot.last_use = ++use_clock;
    if (slot.file) return slot.file;  // another thread won the race
    slot.file = file;
    open_slots.push_back(&slot);
    while (open_slots.size() > static_cast<std::size_t>(options.max_open_files)) {
        auto victim = std::min_element(open_slots.begin(), open_slots.end(),
                                       [](const TableSlot* a, const TableSlot* b) { return a->last_use < b->last_use; });
        closing.push_back(std::move((*victim)->file));
        (*victim)->file.reset();
        open_slots.erase(victim);
    }
    return file;
}

// ---------------------------------------------------------------------------------------------

Tablebase::Tablebase(const std::filesystem::path& dir, TablebaseOptions options)
    : impl_(std::make_unique<Impl>(dir, std::move(options))) {}

Tablebase::~Tablebase() = default;

ProbeResult Tablebase::probe_wdl(const Position& pos) const {
    if (const char* problem = position_problem(pos)) return {Value::Unknown, ProbeError::InvalidPosition, problem};
    return impl_->search(pos, false);
}

ProbeResult Tablebase::probe_wdl_soft(const Position& pos) const {
    if (const char* problem = position_problem(pos)) return {Value::Unknown, ProbeError::InvalidPosition, problem};
    return impl_->search(pos, true);
}

ProbeResult Tablebase::probe_wdl_quiet(const Position& pos) const {
    if (const char* problem = position_problem(pos)) return {Value::Unknown, ProbeError::InvalidPosition, problem};
    return impl_->quiet(pos);
}

DtwResult Tablebase::probe_dtw(const Position& pos) const {
    if (const char* problem = position_problem(pos)) return {Value::Unknown, -1, ProbeError::InvalidPosition, problem};
    NodeBudget budget(impl_->options.capture_search_nodes);
    return impl_->dtw_search(pos, budget);
}

int Tablebase::max_dtw_pieces() const { return impl_->max_dtw_pieces; }

std::optional<int> Tablebase::longest_dtw(const Material& m) const {
    if (m.white_pieces() == 0 || m.black_pieces() == 0) return std::nullopt;
    TableSlot* slot = impl_->dtw_slot_for(m);
    ProbeError error;
    std::string_view reason;
    if (slot == nullptr || !impl_->usable(*slot, false, error, reason)) return std::nullopt;
    const format::Header& h = slot->header;
    return static_cast<int>(std::max(h.max_dtw, h.longest_win));
}

std::vector<MoveValue> Tablebase::probe_moves(const Position& pos, bool dtw) const {
    if (const char* problem = position_problem(pos)) throw std::invalid_argument(problem);
    std::vector<MoveValue> out;
    for (const Move& m : generate_moves(pos)) {
        const Position after = apply_move(pos, m);
        ProbeResult r = impl_->search(after, false);
        r.value = negate(r.value);
        NodeBudget budget(impl_->options.capture_search_nodes);
        out.push_back({m, r, dtw ? impl_->dtw_search(after, budget) : DtwResult{}});
    }
    // Within a value: the quickest win, the slowest loss (dtw after the move, for the opponent);
    // unknown distances (-1) last.
    const auto distance_rank = [](const MoveValue& m) {
        if (m.after.dtw < 0 || (m.result.value != Value::Win && m.result.value != Value::Loss)) return INT_MAX;
        return m.result.value == Value::Win ? m.after.dtw : INT_MAX - 1 - m.after.dtw;
    };
    std::stable_sort(out.begin(), out.end(), [&](const MoveValue& a, const MoveValue& b) {
        if (move_rank(a.result.value) != move_rank(b.result.value)) return move_rank(a.result.value) < move_rank(b.result.value);
        return distance_rank(a) < distance_rank(b);
    });
    return out;
}

int Tablebase::max_pieces() const { return impl_->max_pieces; }

const std::vector<Material>& Tablebase::materials() const { return impl_->present; }

bool Tablebase::has_table(const Material& m) const {
    return std::find(impl_->present.begin(), impl_->present.end(), m) != impl_->present.end();
}

const std::filesystem::path& Tablebase::directory() const { return impl_->dir; }

std::size_t Tablebase::preload(int threads) const {
    const auto& slots = impl_->slots;
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), std::max<std::size_t>(slots.size(), 1)));
    // Largest first (build order ends with the largest materials): the last to start are short.
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i; (i = next++) < slots.size();) {
            TableSlot& slot = *slots[slots.size() - 1 - i];
            if (slot.state.load(std::memory_order_acquire) == TableSlot::kUnopened) impl_->open_first(slot);
        }
    };
    std::vector<std::thread> pool;
    try {
        for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    } catch (const std::system_error&) {
        // No more threads to be had: those started, and this one, do the work.
    }
    work();
    for (std::thread& t : pool) t.join();
    std::size_t ready = 0;
    for (const auto& slot : slots) ready += slot->state.load(std::memory_order_acquire) == TableSlot::kReady;
    return ready;
}

std::size_t Tablebase::resident_bytes() const { return impl_->resident_bytes.load(); }

CacheStats Tablebase::cache_stats() const {
    const auto t = impl_->cache.totals();
    return {t.hits, t.misses, t.evictions, t.blocks, t.bytes, impl_->cache.capacity_bytes()};
}

void Tablebase::clear_cache() const {
    impl_->cache.clear();
}

}  // namespace dtb
