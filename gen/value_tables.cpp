#include "gen/value_tables.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

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

const ValueTables::Entry& ValueTables::needed(const Material& m) const {
    const Entry* e = slot(m);
    if (!e) throw std::logic_error("dtb gen: material " + m.name() + " is needed but not built");
    return *e;
}

Value ValueTables::value_of(const Position& any) const {
    const Position pos = white_to_move(any);
    if (pos.white == 0) return Value::Loss;
    const Entry& e = needed(material_of(pos));
    return e.values.get(e.index.index(pos));
}

Value ValueTables::value_after(const Position& after) const {
    if (after.black == 0) return Value::Win;  // the side that moved took the last piece
    return negate(value_of(flip_colors(after)));
}

Value ValueTables::resolve_captures(const Position& pos) const { return best_after(pos, generate_captures(pos)); }

namespace {

// Where the positions after a position's moves are looked up. Most moves of a position land in
// one material and, king moves, in one men configuration: the material's entry and the rank of the
// men are found again only when they change (the lookup of both took a fifth of dtb verify).
template <typename Entry, typename Needed>
class SuccessorIndexer {
public:
    explicit SuccessorIndexer(const Needed& needed) : needed_(needed) {}

    // The entry of `next` (white to move) and the position's index in it.
    std::pair<const Entry*, std::uint64_t> locate(const Position& next) {
        const Material m = material_of(next);
        if (!entry_ || m != material_) {
            entry_ = &needed_(m);
            material_ = m;
            men_known_ = false;
        }
        const MenConfig men{next.white & ~next.kings, next.black & ~next.kings};
        if (!men_known_ || men != men_) {
            men_ = men;
            men_known_ = true;
            men_base_ = entry_->index.men_index(men) * entry_->index.king_placements();
            free_ = PositionIndex::king_squares(men);
        }
        const KingPlacement kings{next.white & next.kings, next.black & next.kings};
        return {entry_, men_base_ + entry_->index.king_index_in(free_, kings)};
    }

private:
    const Needed& needed_;
    const Entry* entry_ = nullptr;
    Material material_;
    bool men_known_ = false;
    MenConfig men_;
    std::uint64_t men_base_ = 0;
    Bitboard free_ = 0;
};

}  // namespace

Value ValueTables::best_after(const Position& pos, const MoveList& moves) const {
    // Small enough that a win among the first moves saves most of the index work, large enough
    // that a king's many landing squares overlap their misses.
    constexpr std::size_t kBatch = 8;
    struct Lookup {
        const PackedValues* values;
        std::uint64_t index;
    };
    const auto needed = [this](const Material& m) -> const Entry& { return this->needed(m); };
    SuccessorIndexer<Entry, decltype(needed)> indexer(needed);
    Value best = Value::Loss;
    for (std::size_t begin = 0; begin < moves.size(); begin += kBatch) {
        const std::size_t n = std::min(kBatch, moves.size() - begin);
        std::array<Lookup, kBatch> batch;
        for (std::size_t i = 0; i < n; ++i) {
            const Position after = apply_move(pos, moves[begin + i]);
            if (after.pieces(after.side_to_move) == 0) return Value::Win;  // the move took the last piece
            const auto [entry, index] = indexer.locate(white_to_move(after));
            batch[i] = {&entry->values, index};
            entry->values.prefetch(index);
        }
        for (std::size_t i = 0; i < n; ++i) {
            const Value v = negate(batch[i].values->get(batch[i].index));
            if (v == Value::Win) return v;
            if (v == Value::Draw) best = v;
        }
    }
    return best;
}

}  // namespace dtb
