// Arrays on fresh anonymous memory: zero without being written, so that only the pages a solver
// or writer actually writes become resident.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include <sys/mman.h>

#include "gen/huge_pages.hpp"

namespace dtb {

// `n` zero-initialised elements of a trivially copyable T, mapped (not allocated), large ones
// advised onto huge pages before they are touched.
template <typename T>
class ZeroPages {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    ZeroPages() = default;
    explicit ZeroPages(std::size_t n) : size_(n) {
        if (n == 0) return;
        void* p = ::mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        data_ = static_cast<T*>(p);
        advise_huge_pages(data_, n * sizeof(T));
    }
    ZeroPages(const ZeroPages& other) : ZeroPages(other.size_) {
        if (size_ != 0) std::memcpy(data_, other.data_, size_ * sizeof(T));
    }
    ZeroPages(ZeroPages&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    ZeroPages& operator=(ZeroPages other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        return *this;
    }
    ~ZeroPages() {
        if (data_ != nullptr) ::munmap(data_, size_ * sizeof(T));
    }

    std::size_t size() const { return size_; }
    T* data() { return data_; }
    const T* data() const { return data_; }
    T& operator[](std::size_t i) { return data_[i]; }
    const T& operator[](std::size_t i) const { return data_[i]; }
    T* begin() { return data_; }
    T* end() { return data_ + size_; }
    const T* begin() const { return data_; }
    const T* end() const { return data_ + size_; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace dtb
