// Every material of up to N pieces solved in memory, as dtb gen solves them, for tests that need
// exact values without files.
#pragma once

#include "gen/dtw_solver.hpp"
#include "gen/solver.hpp"

namespace dtb {

struct InMemoryTables {
    ValueTables wdl;
    DtwTables dtw;  // empty unless asked for
};

inline InMemoryTables solve_in_memory(int pieces, bool with_dtw) {
    InMemoryTables t;
    for (const Material& m : materials_in_build_order(pieces)) {
        if (t.wdl.contains(m)) continue;
        for (SolvedMaterial& s : solve_material_pair(m, t.wdl)) t.wdl.add(s.material, std::move(s.values));
        if (with_dtw)
            for (DtwMaterial& d : solve_dtw_pair(m, t.wdl, t.dtw)) t.dtw.add(d.material, std::move(d.dtw));
    }
    return t;
}

}  // namespace dtb
