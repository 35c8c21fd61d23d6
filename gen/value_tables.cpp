#include "gen/value_tables.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "gen/successor_indexer.hpp"
#include "rules/movegen.hpp"

namespace dtb {

namespace {
constexpr const char* kWho = "dtb gen";  // in the error for a material needed but not built
}  // namespace

// A table added again replaces the first: its bytes are no longer held (bytes() counts what is).
void ValueTables::add(const Material& m, PackedValues values) {
    remove(m);
    bytes_ += values.bytes();
    entries_.put(m, std::make_unique<Entry>(Entry{PositionIndex(m), std::move(values), nullptr}));
}

void ValueTables::add_through_files(const Material& m, std::shared_ptr<const Tablebase> files) {
    remove(m);
    entries_.put(m, std::make_unique<Entry>(Entry{PositionIndex(m), PackedValues(0), std::move(files)}));
}

Value ValueTables::value_in(const Entry& e, const Position& pos, std::uint64_t index) {
    if (!e.files) return e.values.get(index);
    const ProbeResult r = e.files->probe_wdl(pos);
    if (!r.known())
        throw std::runtime_error("dtb gen: reading " + material_of(pos).name() + " through its file: " + std::string(r.reason));
    return r.value;
}

void ValueTables::remove(const Material& m) {
    if (const Entry* e = slot(m)) bytes_ -= e->values.bytes();
    entries_.erase(m);
}

const ValueTables::Entry& ValueTables::needed(const Material& m) const { return entries_.needed(m, kWho); }

Value ValueTables::value_of(const Position& any) const {
    const Position pos = white_to_move(any);
    if (pos.white == 0) return Value::Loss;
    const Entry& e = needed(material_of(pos));
    return value_in(e, pos, e.files ? 0 : e.index.index(pos));
}

Value ValueTables::value_after(const Position& after) const {
    if (after.black == 0) return Value::Win;  // the side that moved took the last piece
    return negate(value_of(flip_colors(after)));
}

Value ValueTables::resolve_captures(const Position& pos, Bitboard capturers, MenIndexCache* men_indices) const {
    return best_after(pos, generate_captures(pos, capturers), men_indices);
}

Value ValueTables::best_after(const Position& pos, const MoveList& moves, MenIndexCache* men_indices) const {
    // Small enough that a win among the first moves saves most of the index work, large enough
    // that a king's many landing squares overlap their misses.
    constexpr std::size_t kBatch = 8;
    SuccessorIndexer indexer(entries_, kWho, men_indices);
    Value best = Value::Loss;
    // Left uninitialised: zeroing a batch of positions cost a tenth of this function's work.
    std::array<const Entry*, kBatch> entries;
    std::array<std::uint64_t, kBatch> indices;
    LandingRun<Entry> run;
    for (std::size_t begin = 0; begin < moves.size(); begin += kBatch) {
        const std::size_t n = std::min(kBatch, moves.size() - begin);
        for (std::size_t i = 0; i < n; ++i) {
            const Move& m = moves[begin + i];
            if (run.continues(pos, m)) {
                entries[i] = run.entry();
                indices[i] = run.index(m.to);
            } else {
                const Position after = apply_move(pos, m);
                if (after.pieces(after.side_to_move) == 0) return Value::Win;  // the move took the last piece
                const Position next = white_to_move(after);
                const auto [entry, index] = indexer.locate(next);
                entries[i] = entry;
                indices[i] = index;
                run.start(pos, m, next, entry, index);
            }
            if (!entries[i]->files) entries[i]->values.prefetch(indices[i]);
        }
        for (std::size_t i = 0; i < n; ++i) {
            const Entry& e = *entries[i];
            const Value v = negate(e.files ? value_in(e, white_to_move(apply_move(pos, moves[begin + i])), indices[i])
                                           : e.values.get(indices[i]));
            if (v == Value::Win) return v;
            if (v == Value::Draw) best = v;
        }
    }
    return best;
}

}  // namespace dtb
