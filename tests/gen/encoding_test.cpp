// The writer's encoding steps against the definitions in docs/FORMAT.md, each computed here
// position by position: the don't-care fills, base-3 packing, the value bytes of a solved
// material, and zstd frames that decompress to what was compressed.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "gen/encoding.hpp"
#include "gen/solver.hpp"

namespace dtb {
namespace {

// Solver values (Value | kCaptureFlag) at random, in runs as real tables have them.
std::vector<std::uint8_t> random_solver_values(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> values(n);
    std::uint8_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (rng() % 4 == 0) v = static_cast<std::uint8_t>(rng() % 3 | (rng() % 2 ? kCaptureFlag : 0));
        values[i] = v;
    }
    return values;
}

// The k-th stored value of a base-3 packed block (FORMAT.md: v0 + 3 v1 + 9 v2 + 27 v3 + 81 v4).
unsigned base3_digit(const std::vector<std::uint8_t>& packed, std::size_t k) {
    unsigned byte = packed[k / 5];
    for (std::size_t d = 0; d < k % 5; ++d) byte /= 3;
    return byte % 3;
}

// What a don't-care position stores: the value stored before it (a draw at the block's start), or
// a draw.
std::vector<unsigned> stored_values(const std::vector<std::uint8_t>& values, DontCareFill fill) {
    std::vector<unsigned> stored;
    unsigned previous = static_cast<unsigned>(Value::Draw);
    for (const std::uint8_t v : values) {
        const bool dont_care = (v & kCaptureFlag) != 0;
        const unsigned s = !dont_care ? (v & kValueMask)
                           : fill == DontCareFill::Previous ? previous
                                                            : static_cast<unsigned>(Value::Draw);
        stored.push_back(s);
        previous = s;
    }
    return stored;
}

TEST(Encoding, PackedFillsStoreEveryPositionAsTheFormatSays) {
    // Every length up to two bytes past a whole number of bytes, and the writer's block length.
    std::vector<std::size_t> lengths;
    for (std::size_t n = 0; n <= 17; ++n) lengths.push_back(n);
    lengths.push_back(65'520);
    lengths.push_back(65'523);
    for (const std::size_t n : lengths) {
        const auto values = random_solver_values(n, n + 1);
        for (const DontCareFill fill : {DontCareFill::Previous, DontCareFill::Draw}) {
            std::vector<std::uint8_t> packed(3, 0xEE);  // stale contents are replaced
            pack_base3_filled(values.data(), n, fill, packed);
            ASSERT_EQ(packed.size(), (n + 4) / 5) << n;
            const auto stored = stored_values(values, fill);
            for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(base3_digit(packed, k), stored[k]) << "length " << n << " position " << k;
            for (std::size_t k = n; k < packed.size() * 5; ++k) ASSERT_EQ(base3_digit(packed, k), 0u) << "padding of " << n;
            EXPECT_EQ(packed, pack_base3(fill_dont_care(values, fill).data(), n)) << n;
        }
    }
}

TEST(Encoding, ValueBytesOfASolvedMaterialAreItsValuesAndCaptureFlags) {
    constexpr std::uint64_t kPositions = 1000;
    SolvedMaterial solved{Material{}, PackedValues(kPositions), CaptureBits(kPositions)};
    std::mt19937_64 rng(7);
    std::vector<std::uint8_t> expected(kPositions);
    for (std::uint64_t i = 0; i < kPositions; ++i) {
        const auto v = static_cast<Value>(rng() % 3);
        const bool capture = rng() % 2;
        solved.values.set(i, v);
        if (capture) solved.captures.merge(i / 64, std::uint64_t{1} << (i % 64));
        expected[i] = static_cast<std::uint8_t>(static_cast<std::uint8_t>(v) | (capture ? kCaptureFlag : 0));
    }
    // Starts on and off a multiple of four, spans that cross capture words and end mid-byte.
    for (const std::uint64_t first : {0u, 1u, 3u, 4u, 60u, 61u, 64u, 500u, 997u})
        for (const std::uint64_t count : {0u, 1u, 3u, 4u, 5u, 67u, 130u}) {
            if (first + count > kPositions) continue;
            std::vector<std::uint8_t> out(count, 0xEE);
            solved.value_bytes(first, out);
            for (std::uint64_t j = 0; j < count; ++j)
                ASSERT_EQ(out[j], expected[first + j]) << "first " << first << " count " << count << " at " << j;
        }
}

TEST(Encoding, FramesDecompressToTheirBlockWhateverCameBefore) {
    // One thread compresses blocks of different levels one after the other (the writer's trial
    // and final compressions): each frame must be what a first compression of its block gives.
    const auto a = pack_base3(random_solver_values(65'520, 1).data(), 65'520);
    auto b = a;
    for (std::size_t i = 0; i < b.size(); i += 7) b[i] = static_cast<std::uint8_t>(b[i] % 200 + 3);
    const auto first_a = compress_block(a, 12);
    EXPECT_EQ(compressed_size(b, 1), compress_block(b, 1).size());
    const auto frame_b = compress_block(b, 12);
    EXPECT_EQ(compress_block(a, 12), first_a);
    std::vector<std::uint8_t> out;
    decompress_block(first_a, out);
    EXPECT_EQ(out, a);
    decompress_block(frame_b, out);
    EXPECT_EQ(out, b);
}

}  // namespace
}  // namespace dtb
