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

// One block of a WDL file: its packed values and its compressed frame.
struct WdlBlock {
    std::vector<std::uint8_t> raw;
    std::vector<unsigned char> frame;
};

// Block of `count` solver values (Value | kCaptureFlag), base-3 packed and compressed at `level`,
// its don't-care positions filled by whichever of the two fills compresses it smaller: neither
// wins everywhere (measured in docs/FORMAT.md: "draw" is 12% smaller on KKMvKM, "previous"
// smaller on most 2-4 piece materials). Readers never look at the fill.
WdlBlock encode_wdl_block(const std::uint8_t* values, std::uint64_t count, int level);

// 5 values a byte, v0 + 3 v1 + 9 v2 + 27 v3 + 81 v4 (format version 1).
std::vector<std::uint8_t> pack_base3(const std::uint8_t* values, std::uint64_t count);

// pack_base3(fill_dont_care(values, fill)) in one pass, into `out` (resized): the writer's.
void pack_base3_filled(const std::uint8_t* values, std::uint64_t count, DontCareFill fill, std::vector<std::uint8_t>& out);

// 4 values a byte, 2 bits each (an alternative measured against base 3).
std::vector<std::uint8_t> pack_2bit(const std::uint8_t* values, std::uint64_t count);

// ---- DTW files (docs/FORMAT.md, "DTW files") ----
// A DTW block before encoding: one u16 a position, DTW/2 of a won or lost position, or
// kDtwDontCare for a draw or a capture position (the reader never looks at those).
inline constexpr std::uint16_t kDtwDontCare = 0xFFFF;

// What a don't-care position stores (measured by `dtb bench format --dtw`).
enum class DtwFill {
    Previous,  // the number stored before it in the block, 0 at the block's start
    Zero,      // always 0
    Next,      // the next stored number in the block (the previous one after the last)
    Mode,      // the most common stored number of the block (the smallest of equals)
    Nearest,   // the nearer of the previous and next stored numbers (the previous on a tie)
};
const char* dtw_fill_name(DtwFill fill);

// How the filled numbers become bytes.
enum class DtwLayout {
    Plain,         // each number in `width` bytes, little-endian (format version 1)
    BlockMinimum,  // the block's smallest number first (`width` bytes), then each number minus it
    Delta,         // each number minus the one before it (0 before the first), modulo 2^(8 width)
    Planes,        // width 2: the low bytes of all positions, then the high bytes
};
const char* dtw_layout_name(DtwLayout layout);

// Replaces every kDtwDontCare of one block by a stored number, as `fill` says.
void fill_dtw_dont_care(std::vector<std::uint16_t>& block, DtwFill fill);

// The bytes of one filled block.
std::vector<std::uint8_t> lay_out_dtw(const std::vector<std::uint16_t>& filled, std::uint32_t width, DtwLayout layout);

// One zstd frame with its content size and without zstd's checksum (the file's block check takes
// its place and its 4 bytes, docs/FORMAT.md); throws on error.
std::vector<unsigned char> compress_block(const std::vector<std::uint8_t>& raw, int level);

// The size of compress_block(raw, level), without keeping the frame.
std::size_t compressed_size(const std::vector<std::uint8_t>& raw, int level);

// Decompresses one frame of compress_block into `out` (resized to its content size); throws on
// error. One decompression context per thread, reused.
void decompress_block(const std::vector<unsigned char>& frame, std::vector<std::uint8_t>& out);

}  // namespace dtb
