// Large tables on transparent huge pages.
//
// The generator's time goes into scattered reads of tables of up to several GiB (finished values,
// the pair's own values, the solvers' cells): with 4 KiB pages nearly every such read also misses
// the TLB. Where the kernel gives huge pages only on request (transparent_hugepage = madvise, as on
// the project's machines), the table must ask before its memory is first touched, so these helpers
// reserve, advise, then fill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <sys/mman.h>

namespace dtb {

// Below this a table gains nothing from huge pages: it fits in a few TLB entries anyway.
inline constexpr std::size_t kHugePageMinBytes = std::size_t{8} << 20;

// Asks for huge pages on the whole 4 KiB pages of [data, data + bytes). Advice only: a kernel
// without transparent huge pages, or with them off, leaves the memory as it is.
inline void advise_huge_pages(const void* data, std::size_t bytes) {
    if (bytes < kHugePageMinBytes) return;
    constexpr std::uintptr_t kPage = 4096;
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kPage - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// Makes `v` hold `n` copies of `value`, its memory on huge pages when it has to grow: the memory
// is reserved and advised before it is touched. Keeps the capacity it has when that suffices (the
// solvers reuse one buffer from one subgame to the next).
template <typename T>
void assign_on_huge_pages(std::vector<T>& v, std::size_t n, const T& value) {
    if (v.capacity() < n) {
        std::vector<T> fresh;
        fresh.reserve(n);
        advise_huge_pages(fresh.data(), n * sizeof(T));
        v.swap(fresh);
    }
    v.assign(n, value);
}

// A vector of `n` copies of `value` on huge pages (see assign_on_huge_pages).
template <typename T>
std::vector<T> vector_on_huge_pages(std::size_t n, const T& value) {
    std::vector<T> v;
    assign_on_huge_pages(v, n, value);
    return v;
}

}  // namespace dtb
