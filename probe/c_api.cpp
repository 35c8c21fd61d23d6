// The C API (probe/dtb.h) over dtb::Tablebase. No exception crosses the C boundary.
#include "probe/dtb.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "index/binomial.hpp"
#include "probe/root.hpp"
#include "probe/tablebase.hpp"

struct dtb_handle {
    dtb::Tablebase tablebase;
};

namespace {

constexpr std::uint64_t kSquareBits = (std::uint64_t{1} << dtb::kNumSquares) - 1;

char* copy_message(const char* text) {
    const std::size_t n = std::strlen(text) + 1;
    char* out = static_cast<char*>(std::malloc(n));
    if (out) std::memcpy(out, text, n);
    return out;
}

int to_c(dtb::Value v) {
    switch (v) {
        case dtb::Value::Loss: return DTB_LOSS;
        case dtb::Value::Draw: return DTB_DRAW;
        case dtb::Value::Win: return DTB_WIN;
        default: return DTB_UNKNOWN;
    }
}

// The two board layouts of the C API (see dtb.h): "bit s-1 = square s" and the engines' 10x10
// layout with a ghost bit after every ten squares, which is Position's own.
enum class Layout : std::uint8_t { Dense, Ghost };

// Converts a C board to a Position; false if a bit is no square of the layout or the side is
// neither colour. Everything else is checked by the probe itself.
template <Layout L>
bool to_position(std::uint64_t white, std::uint64_t black, std::uint64_t kings, int side, dtb::Position& out) {
    const std::uint64_t squares = L == Layout::Dense ? kSquareBits : dtb::kBoard;
    if (((white | black | kings) & ~squares) != 0) return false;
    if (side != DTB_WHITE_TO_MOVE && side != DTB_BLACK_TO_MOVE) return false;
    const dtb::Color color = side == DTB_WHITE_TO_MOVE ? dtb::Color::White : dtb::Color::Black;
    if constexpr (L == Layout::Ghost) {
        out = dtb::Position{white, black, kings, color};
    } else {
        // The board's squares are bits of kBoard in ascending order, so depositing the square mask
        // onto kBoard converts it (one pdep where BMI2 is available).
        out = dtb::Position{dtb::expand_bits(white, dtb::kBoard), dtb::expand_bits(black, dtb::kBoard),
                            dtb::expand_bits(kings, dtb::kBoard), color};
    }
    return true;
}

enum class Kind : std::uint8_t { Wdl, Soft, Quiet };

template <Kind K, Layout L>
int probe(dtb_handle* handle, std::uint64_t white, std::uint64_t black, std::uint64_t kings, int side,
          const char** reason) {
    if (reason) *reason = "";
    dtb::Position pos;
    if (handle == nullptr || !to_position<L>(white, black, kings, side, pos)) {
        if (reason) *reason = handle == nullptr ? "null handle" : "bits that are no square, or invalid side to move";
        return DTB_INVALID;
    }
    try {
        const dtb::Tablebase& tb = handle->tablebase;
        const dtb::ProbeResult r = K == Kind::Soft    ? tb.probe_wdl_soft(pos)
                                   : K == Kind::Quiet ? tb.probe_wdl_quiet(pos)
                                                      : tb.probe_wdl(pos);
        if (!r.known() && reason) *reason = r.reason.data();  // NUL-terminated (see tablebase.hpp)
        if (r.error == dtb::ProbeError::InvalidPosition) return DTB_INVALID;
        if (r.error == dtb::ProbeError::Capture) return DTB_CAPTURE;
        return to_c(r.value);
    } catch (...) {  // out of memory
        if (reason) *reason = "out of memory";
        return DTB_UNKNOWN;
    }
}

template <Layout L>
int probe_dtw(dtb_handle* handle, std::uint64_t white, std::uint64_t black, std::uint64_t kings, int side, int* dtw) {
    if (dtw) *dtw = -1;
    dtb::Position pos;
    if (handle == nullptr || !to_position<L>(white, black, kings, side, pos)) return DTB_INVALID;
    try {
        const dtb::DtwResult r = handle->tablebase.probe_dtw(pos);
        if (r.error == dtb::ProbeError::InvalidPosition) return DTB_INVALID;
        if (dtw && r.known()) *dtw = r.dtw;
        return to_c(r.value);
    } catch (...) {  // out of memory
        return DTB_UNKNOWN;
    }
}

std::uint64_t to_c_squares(dtb::Bitboard b) { return dtb::compress_bits(b, dtb::kBoard); }

dtb_position to_c(const dtb::Position& p) {
    return {to_c_squares(p.white), to_c_squares(p.black), to_c_squares(p.kings),
            p.side_to_move == dtb::Color::White ? DTB_WHITE_TO_MOVE : DTB_BLACK_TO_MOVE};
}

bool to_position(const dtb_position* p, dtb::Position& out) {
    return p != nullptr && to_position<Layout::Dense>(p->white, p->black, p->kings, p->side_to_move, out);
}

// The C state as RunningCounts; false if a twice-occurred position is not a board.
bool to_counts(const dtb_root_state* state, dtb::RunningCounts& out) {
    if (state == nullptr) return true;
    out.king_move_plies = state->king_move_plies;
    out.counted_plies = state->counted_plies;
    if (state->occurred_twice_count > 0 && state->occurred_twice == nullptr) return false;
    for (std::size_t i = 0; i < state->occurred_twice_count; ++i) {
        dtb::Position p;
        if (!to_position(&state->occurred_twice[i], p)) return false;
        out.occurred_twice.push_back(p);
    }
    return true;
}

dtb_root_move to_c(const dtb::RootMove& m) {
    dtb_root_move out{};
    out.from = dtb::square_of_bit(m.move.from);
    out.to = dtb::square_of_bit(m.move.to);
    out.captured = to_c_squares(m.move.captured);
    out.after = to_c(m.after);
    out.value = to_c(m.value);
    out.dtw = m.dtw;
    out.drawn_by_rules = m.drawn_by_rules ? 1 : 0;
    return out;
}

}  // namespace

extern "C" {

int dtb_probe_root(dtb_handle* handle, const dtb_position* pos, const dtb_root_state* state, dtb_root_move* moves,
                   int capacity) {
    dtb::Position root;
    dtb::RunningCounts counts;
    if (handle == nullptr || !to_position(pos, root) || !to_counts(state, counts)) return -1;
    if (capacity > 0 && moves == nullptr) return -1;
    dtb::RootOptions options;
    if (state && state->keep_earlier) options.rules.sixteen_to_five = dtb::CountChange::KeepEarlier;
    try {
        const std::vector<dtb::RootMove> ranked = dtb::probe_root(handle->tablebase, root, counts, options);
        for (std::size_t i = 0; i < ranked.size() && static_cast<int>(i) < capacity; ++i) moves[i] = to_c(ranked[i]);
        return static_cast<int>(ranked.size());
    } catch (const std::invalid_argument&) {
        return -1;
    } catch (...) {  // out of memory
        return -1;
    }
}

void dtb_default_options(dtb_options* options) {
    if (options == nullptr) return;
    const dtb::TablebaseOptions defaults;
    options->cache_mb = defaults.cache_mb;
    options->max_pieces = defaults.max_pieces;
    options->max_open_files = defaults.max_open_files;
    options->log = nullptr;
    options->log_user = nullptr;
    options->capture_search_nodes = defaults.capture_search_nodes;
    options->resident = defaults.resident ? 1 : 0;
}

dtb_handle* dtb_open(const char* dir, const dtb_options* options, char** error) {
    if (error) *error = nullptr;
    try {
        if (dir == nullptr) throw std::invalid_argument("dtb_open: dir is NULL");
        dtb::TablebaseOptions opts;
        if (options) {
            opts.cache_mb = options->cache_mb;
            opts.max_pieces = options->max_pieces;
            opts.max_open_files = options->max_open_files;
            opts.capture_search_nodes = options->capture_search_nodes;
            opts.resident = options->resident != 0;
            if (options->log) {
                auto* log = options->log;
                void* user = options->log_user;
                opts.log = [log, user](std::string_view message) {
                    const std::string text(message);  // the callback wants a NUL-terminated string
                    log(text.c_str(), user);
                };
            }
        }
        return new dtb_handle{dtb::Tablebase(dir, std::move(opts))};
    } catch (const std::exception& e) {
        if (error) *error = copy_message(e.what());
    } catch (...) {
        if (error) *error = copy_message("dtb_open: unknown error");
    }
    return nullptr;
}

void dtb_free_error(char* error) { std::free(error); }

void dtb_close(dtb_handle* handle) { delete handle; }

int dtb_probe_wdl(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move) {
    return probe<Kind::Wdl, Layout::Dense>(handle, white, black, kings, side_to_move, nullptr);
}

int dtb_probe_wdl_soft(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move) {
    return probe<Kind::Soft, Layout::Dense>(handle, white, black, kings, side_to_move, nullptr);
}

int dtb_probe_wdl_quiet(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move) {
    return probe<Kind::Quiet, Layout::Dense>(handle, white, black, kings, side_to_move, nullptr);
}

int dtb_probe_wdl_reason(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move,
                         const char** reason) {
    return probe<Kind::Wdl, Layout::Dense>(handle, white, black, kings, side_to_move, reason);
}

int dtb_probe_dtw(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move, int* dtw) {
    return probe_dtw<Layout::Dense>(handle, white, black, kings, side_to_move, dtw);
}

int dtb_probe_wdl_ghost(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move) {
    return probe<Kind::Wdl, Layout::Ghost>(handle, white, black, kings, side_to_move, nullptr);
}

int dtb_probe_wdl_soft_ghost(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move) {
    return probe<Kind::Soft, Layout::Ghost>(handle, white, black, kings, side_to_move, nullptr);
}

int dtb_probe_wdl_quiet_ghost(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move) {
    return probe<Kind::Quiet, Layout::Ghost>(handle, white, black, kings, side_to_move, nullptr);
}

int dtb_probe_dtw_ghost(dtb_handle* handle, uint64_t white, uint64_t black, uint64_t kings, int side_to_move,
                        int* dtw) {
    return probe_dtw<Layout::Ghost>(handle, white, black, kings, side_to_move, dtw);
}

int dtb_max_pieces(const dtb_handle* handle) { return handle ? handle->tablebase.max_pieces() : 0; }

size_t dtb_preload(dtb_handle* handle, int threads) {
    if (handle == nullptr) return 0;
    try {
        return handle->tablebase.preload(threads);
    } catch (...) {  // out of memory
        return 0;
    }
}

size_t dtb_resident_bytes(const dtb_handle* handle) { return handle ? handle->tablebase.resident_bytes() : 0; }

}  // extern "C"
