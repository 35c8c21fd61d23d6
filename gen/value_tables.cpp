#include "gen/value_tables.hpp"

#include <stdexcept>

#include "rules/movegen.hpp"

namespace dtb {
namespace {

constexpr int kMaxPerKind = 15;  // four nibbles make the table key

}  // namespace

ValueTables::ValueTables() : entries_(std::size_t{1} << 16) {}

std::size_t ValueTables::key(const Material& m) {
    if (m.white_men > kMaxPerKind || m.white_kings > kMaxPerKind || m.black_men > kMaxPerKind ||
        m.black_kings > kMaxPerKind)
        throw std::out_of_range("material " + m.name() + " is too large for dtb gen");
    return static_cast<std::size_t>(m.white_men | m.white_kings << 4 | m.black_men << 8 | m.black_kings << 12);
}

void ValueTables::add(const Material& m, PackedValues values) {
    bytes_ += values.bytes();
    entries_[key(m)] = std::make_unique<Entry>(Entry{PositionIndex(m), std::move(values)});
}

Value ValueTables::value_of(const Position& any) const {
    const Position pos = white_to_move(any);
    if (pos.white == 0) return Value::Loss;
    const Entry* e = slot(material_of(pos));
    if (!e) throw std::logic_error("dtb gen: material " + material_of(pos).name() + " is needed but not built");
    return e->values.get(e->index.index(pos));
}

Value ValueTables::value_after(const Position& after) const {
    if (after.black == 0) return Value::Win;  // the side that moved took the last piece
    return negate(value_of(flip_colors(after)));
}

Value ValueTables::resolve_captures(const Position& pos) const {
    Value best = Value::Loss;
    for (const Move& m : generate_moves(pos)) {
        const Value v = value_after(apply_move(pos, m));
        if (v == Value::Win) return v;
        if (v == Value::Draw) best = v;
    }
    return best;
}

}  // namespace dtb
