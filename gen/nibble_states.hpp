// Positions in four bits each, for solvers whose two-byte cells would pass the memory limit: a
// state (a Value, or kUnknownState) with kCaptureFlag, and one more bit (kNibbleDraw or
// kNibblePending). Shared by the WDL solver's compact form and the kings-only class solver.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "gen/solver.hpp"
#include "gen/zero_pages.hpp"

namespace dtb {

inline constexpr std::uint8_t kUnknownState = 3;  // a Value is 0..2

// kNibbleDraw: some man move of the position draws (the WDL solver's Cell keeps this beside its
// counter). Without counters a position is found lost by looking at its king moves again each
// time one of them settles as a win.
inline constexpr std::uint8_t kNibbleDraw = 8;
// In a subgame without men no move of a man can draw, so that bit is free to mark instead a
// position settled as a win or loss whose predecessors are still to settle: the frontier lives in
// the states themselves, without FrontierBits (two bits a position, a third of the compact form).
inline constexpr std::uint8_t kNibblePending = kNibbleDraw;

class NibbleStates {
public:
    explicit NibbleStates(std::uint64_t positions) : bytes_((positions + 1) / 2) {}
    std::uint8_t get(std::uint64_t i) const {
        const std::uint8_t b = std::atomic_ref(const_cast<std::uint8_t&>(bytes_[i >> 1])).load(std::memory_order_relaxed);
        return static_cast<std::uint8_t>((b >> shift(i)) & 15);
    }
    std::uint8_t state(std::uint64_t i) const { return get(i) & kValueMask; }
    // Once per position, while other threads initialise its neighbour.
    void initialise(std::uint64_t i, std::uint8_t nibble) {
        std::atomic_ref(bytes_[i >> 1]).fetch_or(static_cast<std::uint8_t>(nibble << shift(i)), std::memory_order_relaxed);
    }
    // Sets the state of an unknown position (and the bits of `flags`); false when it was settled
    // already (by another thread).
    bool settle(std::uint64_t i, Value v, std::uint8_t flags = 0) {
        std::atomic_ref byte(bytes_[i >> 1]);
        std::uint8_t old = byte.load(std::memory_order_relaxed);
        for (;;) {
            if (((old >> shift(i)) & kValueMask) != kUnknownState) return false;
            const auto fresh = static_cast<std::uint8_t>((old & ~(kValueMask << shift(i))) |
                                                         ((static_cast<int>(v) | flags) << shift(i)));
            if (byte.compare_exchange_weak(old, fresh, std::memory_order_relaxed)) return true;
        }
    }
    std::uint64_t words() const { return (bytes_.size() + 31) / 32; }
    // Clears kNibblePending on positions [64 w, 64 w + 64) and returns the positions that had it,
    // bit j for position 64 w + j. Safe while other threads settle positions.
    std::uint64_t claim_pending(std::uint64_t w) {
        constexpr std::uint8_t kBoth = kNibblePending | kNibblePending << 4;
        std::uint64_t out = 0;
        const std::size_t end = std::min<std::size_t>(bytes_.size(), (w + 1) * 32);
        for (std::size_t b = w * 32; b < end; ++b) {
            std::atomic_ref byte(bytes_[b]);
            if (!(byte.load(std::memory_order_relaxed) & kBoth)) continue;
            const std::uint8_t old = byte.fetch_and(static_cast<std::uint8_t>(~kBoth), std::memory_order_relaxed);
            const std::uint64_t j = (b - w * 32) * 2;
            if (old & kNibblePending) out |= std::uint64_t{1} << j;
            if (old & (kNibblePending << 4)) out |= std::uint64_t{1} << (j + 1);
        }
        return out;
    }
    void prefetch(std::uint64_t i) const { __builtin_prefetch(&bytes_[i >> 1]); }
private:
    static int shift(std::uint64_t i) { return static_cast<int>(i & 1) * 4; }
    ZeroPages<std::uint8_t> bytes_;  // zero pages: only the parts written become resident
};

}  // namespace dtb
