// On-disk format of dtb database files; docs/FORMAT.md is the normative description.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "index/material.hpp"

namespace dtb {

// Game-theoretic value for the side to move.
enum class Value : std::uint8_t { Loss = 0, Draw = 1, Win = 2, Unknown = 3 };

constexpr Value negate(Value v) {
    return v == Value::Win ? Value::Loss : v == Value::Loss ? Value::Win : v;
}

const char* value_name(Value v);  // "win", "draw", "loss", "unknown"

namespace format {

inline constexpr std::array<char, 8> kWdlMagic = {'D', 'T', 'B', '-', 'W', 'D', 'L', '\n'};
inline constexpr std::array<char, 8> kDtwMagic = {'D', 'T', 'B', '-', 'D', 'T', 'W', '\n'};
// Version 2 (since 2026-11-28) binds each block to its place with a block check in the checksummed
// block table; version 1 files (zstd's own frame checksum only) are still read.
inline constexpr std::uint32_t kFormatVersion = 2;
inline constexpr std::uint32_t kOldestReadableVersion = 1;
// What each block adds to the block table of a version-2 file: its offset and its block check.
inline constexpr std::uint32_t kBlockTableEntryBytes = sizeof(std::uint64_t) + sizeof(std::uint32_t);
inline constexpr std::uint32_t kIndexVersion = 1;
inline constexpr std::uint32_t kHeaderBytes = 128;
inline constexpr std::uint32_t kEncodingBase3 = 1;  // 5 values per byte: v0 + 3 v1 + 9 v2 + 27 v3 + 81 v4
inline constexpr std::uint32_t kEncodingDtwU8 = 2;   // DTW files: DTW/2 as one byte a position
inline constexpr std::uint32_t kEncodingDtwU16 = 3;  // DTW files: DTW/2 as u16 little-endian
// DTW files storing the losses only (the written encodings since 2026-11-23): DTW/2 of the lost
// non-capture positions; wins are don't-care too, a win's DTW being 1 + the shortest DTW of a lost
// position after one of its moves (docs/FORMAT.md, "DTW files").
inline constexpr std::uint32_t kEncodingDtwLossesU8 = 4;
inline constexpr std::uint32_t kEncodingDtwLossesU16 = 5;
inline constexpr std::uint32_t kCompressionZstd = 1;
inline constexpr int kValuesPerByte = 5;
// The most positions a block may hold (readers refuse more: a block is decompressed whole).
inline constexpr std::uint32_t kMaxPositionsPerBlock = 1u << 24;
inline constexpr const char* kWdlSuffix = ".wdl";
inline constexpr const char* kDtwSuffix = ".dtw";

// The two kinds of file: win/draw/loss values, or distances to win (docs/FORMAT.md). The kind is
// told by the magic number; everything else of the container is shared.
enum class FileKind : std::uint8_t { Wdl, Dtw };

struct Header {
    FileKind kind = FileKind::Wdl;
    std::uint32_t format_version = kFormatVersion;
    Material material;
    std::uint32_t index_version = kIndexVersion;
    std::uint32_t value_encoding = kEncodingBase3;
    std::uint32_t compression = kCompressionZstd;
    std::uint32_t positions_per_block = 0;
    std::uint64_t positions = 0;
    std::uint64_t block_count = 0;
    std::uint64_t captures = 0;  // positions where white (to move) must capture: stored as don't-care
    std::uint64_t wins = 0;      // non-capture positions by value
    std::uint64_t draws = 0;
    std::uint64_t losses = 0;
    std::uint64_t table_checksum = 0;  // XXH64 of the block table (offsets, then block checks from version 2)
    std::uint32_t max_dtw = 0;         // DTW files only: the largest DTW of a non-capture position (0 in WDL files)
    std::uint32_t longest_win = 0;         // DTW files only: the longest win, capture positions included
    std::uint64_t longest_win_index = 0;   // DTW files only: the first position with that win

    std::uint64_t block_bytes(std::uint64_t block) const;  // uncompressed bytes of one block
    // Bytes a stored DTW takes (1 or 2); 0 for WDL files.
    std::uint32_t dtw_width() const;
    // DTW files only: whether wins hold a stored DTW (encodings 2, 3) or are found by search (4, 5).
    bool dtw_stores_wins() const;
    // Whether the block table holds a block check per block (version 2 on).
    bool has_block_checks() const { return format_version >= 2; }
    // Bytes of the block table after the header: 8(B+1) of offsets, and 4B of block checks in version 2.
    std::uint64_t block_table_bytes() const;
};

// The block check of version 2 (docs/FORMAT.md, "Blocks"): the low 32 bits of XXH3-64 of block
// `block`'s content, seeded with `block`. It sits in the checksummed block table at the block's
// place, so a valid frame moved to another block's place fails it (zstd's frame checksum, which
// version 1 relies on, covers a frame's content wherever the frame stands).
std::uint32_t block_check(std::uint64_t block, const std::uint8_t* content, std::size_t bytes);

// Why `positions_per_block` is not a valid block size for files of `kind` (WDL files: a positive
// multiple of 5 up to kMaxPositionsPerBlock; DTW files: any positive number up to it), or nullptr.
const char* block_size_problem(std::uint64_t positions_per_block, FileKind kind);

// Serialises a header into its 128 bytes (header checksum included).
std::array<unsigned char, kHeaderBytes> encode_header(const Header& h);

// Parses and checks 128 header bytes; throws std::runtime_error saying what is wrong.
Header decode_header(const unsigned char* bytes);

std::string wdl_file_name(const Material& m);
std::string dtw_file_name(const Material& m);

// Stored DTW i of a DTW block of `width` bytes a value (DTW/2, rounded down).
inline std::uint32_t unpack_dtw_half(const std::uint8_t* block, std::uint64_t i, std::uint32_t width) {
    if (width == 1) return block[i];
    return static_cast<std::uint32_t>(block[2 * i]) | static_cast<std::uint32_t>(block[2 * i + 1]) << 8;
}

// Decodes value i (0..4) of a packed byte.
struct Base3Table {
    std::array<std::array<std::uint8_t, kValuesPerByte>, 243> digits{};
    constexpr Base3Table() {
        for (int b = 0; b < 243; ++b)
            for (int i = 0, x = b; i < kValuesPerByte; ++i, x /= 3) digits[b][i] = static_cast<std::uint8_t>(x % 3);
    }
};
inline constexpr Base3Table kBase3{};

// Value `digit` (0..4) of a packed byte; Unknown for a byte outside the base-3 range.
inline Value decode_value(std::uint8_t byte, std::uint64_t digit) {
    return byte < 243 ? static_cast<Value>(kBase3.digits[byte][digit]) : Value::Unknown;
}

inline Value unpack_value(const std::uint8_t* block, std::uint64_t offset_in_block) {
    return decode_value(block[offset_in_block / kValuesPerByte], offset_in_block % kValuesPerByte);
}

}  // namespace format
}  // namespace dtb
