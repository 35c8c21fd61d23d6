// A kings-only pair solved in the classes of positions that the board's symmetries identify
// (index/king_classes.hpp): four bits a class, about an eighth of a byte a position of the pair,
// where the WDL solver's compact form holds 0.75 bytes a position and 3 bits of values. The
// values are the same as solve_material_pair's; they are given as a stream of value bytes in
// position order, for the writer (write_wdl_file), not held a position at a time. At 8 pieces the
// largest kings-only pairs (KKKvKKKKK with its mirror, 6.0e10 positions) need this to be solved
// within the memory of one task.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "gen/solver.hpp"
#include "gen/subgame_progress.hpp"

namespace dtb {

class KingClassValues {
public:
    ~KingClassValues();
    KingClassValues(KingClassValues&&) noexcept;
    KingClassValues& operator=(KingClassValues&&) noexcept;

    // Side 0 is the material solved, side 1 its mirror (absent when it is its own mirror).
    int side_count() const;
    const Material& material(int side) const;
    std::uint64_t positions(int side) const;
    // The value bytes (SolvedMaterial::value_byte) of positions [first, first + out.size()) of
    // `side`, by position index: capture positions resolved and flagged, unknown ones drawn.
    void value_bytes(int side, std::uint64_t first, std::span<std::uint8_t> out) const;

    // Bytes the solver holds for the pair of m beyond the tables it reads: a nibble a class.
    static std::uint64_t solver_bytes(const Material& kings_only);

    struct Solved;  // the classes' states, defined in class_solver.cpp

private:
    explicit KingClassValues(std::unique_ptr<Solved> solved);
    friend KingClassValues solve_kings_only_in_classes(const Material&, const ValueTables&, const ProgressCallback&);
    std::unique_ptr<Solved> solved_;
};

// Solves the kings-only pair of m (m and its mirror). Every material a capture reaches must be in
// `finished`. The result does not depend on the thread count.
KingClassValues solve_kings_only_in_classes(const Material& m, const ValueTables& finished,
                                            const ProgressCallback& progress = {});

}  // namespace dtb
