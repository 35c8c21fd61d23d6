// What every fuzz target shares: an invariant check that stops the run with a message (libFuzzer
// then saves the input as a crash reproducer), whatever the build type.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace dtb::fuzz {

// Aborts with `what` when `ok` is false. Not assert(): it must hold in Release builds too.
inline void check(bool ok, std::string_view what) {
    if (ok) return;
    std::fprintf(stderr, "fuzz invariant violated: %.*s\n", static_cast<int>(what.size()), what.data());
    std::abort();
}

}  // namespace dtb::fuzz
