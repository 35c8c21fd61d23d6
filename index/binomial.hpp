// Binomial coefficients and the combinatorial number system on bit masks.
#pragma once

#include <array>
#include <cstdint>

#include "rules/board.hpp"

#if defined(__BMI2__)
#include <immintrin.h>
#endif

namespace dtb {

inline constexpr int kMaxBinomialN = 64;

struct BinomialTable {
    std::array<std::array<std::uint64_t, kMaxBinomialN + 1>, kMaxBinomialN + 1> c{};
    constexpr BinomialTable() {
        for (int n = 0; n <= kMaxBinomialN; ++n) {
            c[n][0] = 1;
            for (int k = 1; k <= n; ++k) c[n][k] = c[n - 1][k - 1] + (k <= n - 1 ? c[n - 1][k] : 0);
        }
    }
};

inline constexpr BinomialTable kBinomials{};

constexpr std::uint64_t binomial(int n, int k) {
    return (k < 0 || n < 0 || k > n) ? 0 : kBinomials.c[n][k];
}

// Gathers the bits of `b` that lie in `mask` into the low bits (bit i = i-th square of the mask).
inline std::uint64_t compress_bits(Bitboard b, Bitboard mask) {
#if defined(__BMI2__)
    return _pext_u64(b, mask);
#else
    // Without BMI2 (the portable build): one count per set bit of `b`, which holds a few pieces,
    // rather than a step per square of the mask.
    std::uint64_t out = 0;
    for (Bitboard x = b & mask; x; x &= x - 1) out |= std::uint64_t{1} << count_bits(mask & ((x & -x) - 1));
    return out;
#endif
}

// Inverse of compress_bits: spreads the low bits onto the squares of `mask`, in order.
inline Bitboard expand_bits(std::uint64_t compact, Bitboard mask) {
#if defined(__BMI2__)
    return _pdep_u64(compact, mask);
#else
    Bitboard out = 0;
    for (Bitboard m = mask; m && compact; m &= m - 1, compact >>= 1)
        if (compact & 1) out |= m & -m;
    return out;
#endif
}

// The next larger number with the same number of bits set (colex successor of a k-subset; x != 0).
inline std::uint64_t next_subset(std::uint64_t x) {
    const std::uint64_t t = x | (x - 1);
    return (t + 1) | (((~t & (t + 1)) - 1) >> (std::countr_zero(x) + 1));
}

// Colex rank of a k-subset given as a bit mask of positions: sum of C(position_i, i+1).
inline std::uint64_t rank_subset(std::uint64_t positions) {
    // The table holds C(n, k) = 0 for k > n, so the i-th lowest position p (p >= i - 1) needs no
    // test: binomial()'s range checks cost a mispredicted branch a square in the generator's
    // hottest loops.
    std::uint64_t rank = 0;
    for (int i = 1; positions; positions &= positions - 1, ++i) rank += kBinomials.c[std::countr_zero(positions)][i];
    return rank;
}

// Inverse of rank_subset for k-subsets of the positions 0 .. n-1.
inline std::uint64_t unrank_subset(std::uint64_t rank, int k, int n) {
    std::uint64_t positions = 0;
    int high = n - 1;  // the i-th position is the largest p <= high with C(p, i) <= rank
    for (int i = k; i >= 2; --i) {
        int low = i - 1;  // C(i-1, i) = 0 <= rank always holds
        while (low < high) {
            const int mid = (low + high + 1) / 2;
            if (binomial(mid, i) <= rank)
                low = mid;
            else
                high = mid - 1;
        }
        rank -= binomial(low, i);
        positions |= std::uint64_t{1} << low;
        high = low - 1;
    }
    if (k >= 1) positions |= std::uint64_t{1} << rank;  // C(p, 1) = p
    return positions;
}

}  // namespace dtb
