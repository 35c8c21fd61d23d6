#pragma once

#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace dtb {

// Runs part(begin, end) over [0, n) in parts of at least `grain`, spread over the threads and
// isolated: a thread that waits for the last parts takes up no other work meanwhile, such as
// another subgame, whose cells it would then hold on top of these.
template <typename Part>
void isolated_parallel_parts(std::uint64_t n, std::uint64_t grain, Part&& part) {
    tbb::this_task_arena::isolate([&] {
        tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, n, grain),
                          [&](const tbb::blocked_range<std::uint64_t>& r) { part(r.begin(), r.end()); });
    });
}

}  // namespace dtb
