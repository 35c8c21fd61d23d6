// How solved values become file blocks: don't-care filling, packing, compression. Shared by the
// writer and by `dtb bench format`, which measures the alternatives (docs/FORMAT.md).
#pragma once

#include <cstdint>
#include <vector>

namespace dtb {

enum class DontCareFill {
    Previous,  // the value stored just before (extends runs; the format's choice)
    Draw,      // always "draw"
};

// One byte a position (0 loss, 1 draw, 2 win) with don't-care positions filled. `values` holds
// Value | kCaptureFlag as the solver produces them.
std::vector<std::uint8_t> fill_dont_care(const std::vector<std::uint8_t>& values, DontCareFill fill);

// 5 values a byte, v0 + 3 v1 + 9 v2 + 27 v3 + 81 v4 (format version 1).
std::vector<std::uint8_t> pack_base3(const std::uint8_t* values, std::uint64_t count);

// 4 values a byte, 2 bits each (an alternative measured against base 3).
std::vector<std::uint8_t> pack_2bit(const std::uint8_t* values, std::uint64_t count);

// One zstd frame with content size and checksum; throws on error.
std::vector<unsigned char> compress_block(const std::vector<std::uint8_t>& raw, int level);

}  // namespace dtb
