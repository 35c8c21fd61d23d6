#include "gen/value_tables.hpp"

#include <stdexcept>

#include "rules/movegen.hpp"

namespace dtb {
void ValueTables::add(const Material& m, PackedValues values) {
    bytes_ += values.bytes();
    entries_.put(m, std::make_unique<Entry>(Entry{PositionIndex(m), std::move(values)}));
}

void ValueTables::remove(const Material& m) {
    if (const Entry* e = slot(m)) bytes_ -= e->values.bytes();
    entries_.erase(m);
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
    for (const Move& m : generate_captures(pos)) {
        const Value v = value_after(apply_move(pos, m));
        if (v == Value::Win) return v;
        if (v == Value::Draw) best = v;
    }
    return best;
}

}  // namespace dtb
