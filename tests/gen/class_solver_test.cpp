// The kings-only pairs solved in symmetry classes against the solver that holds every position.
#include <gtest/gtest.h>

#include <vector>

#include "gen/class_solver.hpp"
#include "index/king_classes.hpp"
#include "tests/gen/in_memory_tables.hpp"

namespace dtb {
namespace {

// Every kings-only pair of up to four pieces, position by position: values and capture flags, read
// from the stream in pieces of uneven length as the writer would.
TEST(ClassSolver, GivesTheValuesOfTheSolverOfEveryPosition) {
    const ValueTables finished = solve_in_memory(4, false).wdl;
    for (const char* name : {"KvK", "KKvK", "KKvKK", "KKKvK"}) {
        const Material m = *parse_material(name);
        const auto whole = solve_material_pair(m, finished);
        const KingClassValues classes = solve_kings_only_in_classes(m, finished);
        ASSERT_EQ(classes.side_count(), static_cast<int>(whole.size())) << name;
        for (int side = 0; side < classes.side_count(); ++side) {
            const SolvedMaterial& expected = whole[static_cast<std::size_t>(side)];
            ASSERT_EQ(classes.material(side), expected.material);
            const std::uint64_t n = expected.values.positions();
            ASSERT_EQ(classes.positions(side), n);
            std::vector<std::uint8_t> bytes;
            std::uint64_t mismatches = 0, wins = 0, losses = 0;
            for (std::uint64_t first = 0, step = 1; first < n; first += step, step = step * 3 + 7) {
                bytes.resize(std::min(step, n - first));
                classes.value_bytes(side, first, bytes);
                for (std::size_t k = 0; k < bytes.size(); ++k) {
                    mismatches += bytes[k] != expected.value_byte(first + k);
                    wins += (bytes[k] & kValueMask) == static_cast<std::uint8_t>(Value::Win);
                    losses += (bytes[k] & kValueMask) == static_cast<std::uint8_t>(Value::Loss);
                }
            }
            EXPECT_EQ(mismatches, 0u) << expected.material.name();
            EXPECT_GT(wins + losses, 0u) << expected.material.name();  // not all draws
        }
    }
}

// A nibble a class: about an eighth of a byte a position of the pair.
TEST(ClassSolver, HoldsANibbleAClass) {
    for (const char* name : {"KKvKK", "KKKvK", "KKKvKKKKK"}) {
        const Material m = *parse_material(name);
        const std::uint64_t classes = KingClasses::count(m) * (m.is_symmetric() ? 1 : 2);
        EXPECT_EQ(KingClassValues::solver_bytes(m), (classes + 1) / 2) << name;
        const std::uint64_t pair_positions = PositionIndex(m).size() * (m.is_symmetric() ? 1 : 2);
        EXPECT_LT(KingClassValues::solver_bytes(m) * 7, pair_positions) << name;
    }
}

TEST(ClassSolver, RefusesMaterialsWithMen) {
    const ValueTables finished = solve_in_memory(2, false).wdl;
    EXPECT_THROW(solve_kings_only_in_classes(*parse_material("KMvK"), finished), std::invalid_argument);
}

}  // namespace
}  // namespace dtb
