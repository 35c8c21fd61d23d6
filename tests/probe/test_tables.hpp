// Test helpers for the probing library: database files written directly (independently of gen/),
// with synthetic values, and the ways to damage them.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <xxhash.h>
#include <zstd.h>

#include "index/position_index.hpp"
#include "probe/format.hpp"
#include "rules/movegen.hpp"

namespace dtb::test {

// A value for every (material, index): pseudo-random, in runs of 4 so blocks compress a little.
inline Value synthetic_value(const Material& m, std::uint64_t index) {
    std::uint64_t k = (index >> 2) ^ (std::uint64_t(m.white_men) << 56) ^ (std::uint64_t(m.white_kings) << 52) ^
                      (std::uint64_t(m.black_men) << 48) ^ (std::uint64_t(m.black_kings) << 44);
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return static_cast<Value>(k % 3);
}

// Writes a database file in the documented format of h.format_version: header (`h`, whose block
// count and table checksum are filled in here), block table, one zstd frame per block, each
// block's bytes from fill(first position, positions, bytes). Version 2 (the current one): frames
// without zstd's checksum, a block check per block after the offsets; version 1: frames with it.
inline void write_file(const std::filesystem::path& path, format::Header h,
                       const std::function<void(std::uint64_t, std::uint64_t, std::vector<std::uint8_t>&)>& fill) {
    h.block_count = (h.positions + h.positions_per_block - 1) / h.positions_per_block;
    const bool checked_blocks = h.format_version >= 2;
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checked_blocks ? 0 : 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    const std::uint64_t table_bytes = (h.block_count + 1) * 8 + (checked_blocks ? h.block_count * 4 : 0);
    std::vector<std::uint64_t> offsets{format::kHeaderBytes + table_bytes};
    std::vector<std::uint32_t> checks;
    std::string blocks;
    std::vector<std::uint8_t> raw;
    std::vector<char> frame;
    for (std::uint64_t b = 0; b < h.block_count; ++b) {
        raw.assign(h.block_bytes(b), 0);
        const std::uint64_t first = b * h.positions_per_block;
        fill(first, std::min<std::uint64_t>(h.positions_per_block, h.positions - first), raw);
        frame.resize(ZSTD_compressBound(raw.size()));
        const std::size_t n = ZSTD_compress2(cctx, frame.data(), frame.size(), raw.data(), raw.size());
        if (ZSTD_isError(n)) throw std::runtime_error(ZSTD_getErrorName(n));
        blocks.append(frame.data(), n);
        offsets.push_back(offsets.back() + n);
        checks.push_back(static_cast<std::uint32_t>(XXH3_64bits_withSeed(raw.data(), raw.size(), b)));
    }
    ZSTD_freeCCtx(cctx);
    std::string table(reinterpret_cast<const char*>(offsets.data()), offsets.size() * 8);
    if (checked_blocks) table.append(reinterpret_cast<const char*>(checks.data()), checks.size() * 4);
    h.table_checksum = XXH64(table.data(), table.size(), 0);
    const auto header = format::encode_header(h);

    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(header.data()), header.size());
    out.write(table.data(), static_cast<std::streamsize>(table.size()));
    out.write(blocks.data(), static_cast<std::streamsize>(blocks.size()));
    if (!out) throw std::runtime_error("cannot write test table");
}

// Writes DIR/<material>.wdl with the values value_of(index).
inline void write_table(const std::filesystem::path& dir, const Material& m, std::uint32_t positions_per_block,
                        const std::function<Value(std::uint64_t)>& value_of,
                        std::uint32_t format_version = format::kFormatVersion) {
    format::Header h;
    h.format_version = format_version;
    h.material = m;
    h.positions_per_block = positions_per_block;
    h.positions = PositionIndex(m).size();
    write_file(dir / format::wdl_file_name(m), h, [&](std::uint64_t first, std::uint64_t count, std::vector<std::uint8_t>& raw) {
        static constexpr int kPow3[] = {1, 3, 9, 27, 81};
        for (std::uint64_t i = 0; i < count; ++i) {
            const Value v = value_of(first + i);  // header statistics are left at 0: the reader ignores them
            raw[i / 5] = static_cast<std::uint8_t>(raw[i / 5] + static_cast<int>(v) * kPow3[i % 5]);
        }
    });
}

// A stored DTW/2 for every (material, index) of the synthetic DTW files: 0..99.
inline std::uint32_t synthetic_half_dtw(const Material& m, std::uint64_t index) {
    return static_cast<std::uint32_t>((index * 2654435761u + m.pieces()) % 100);
}

// Writes DIR/<material>.dtw storing every distance (one byte a position), synthetic_half_dtw:
// probe_dtw of a quiet position gives 2 * half (+1 for a win, by its WDL value), -1 for a draw.
inline void write_synthetic_dtw_table(const std::filesystem::path& dir, const Material& m, std::uint32_t positions_per_block) {
    format::Header h;
    h.kind = format::FileKind::Dtw;
    h.value_encoding = format::kEncodingDtwU8;
    h.material = m;
    h.positions_per_block = positions_per_block;
    h.positions = PositionIndex(m).size();
    h.max_dtw = 2 * 99 + 1;
    write_file(dir / format::dtw_file_name(m), h, [&](std::uint64_t first, std::uint64_t count, std::vector<std::uint8_t>& raw) {
        for (std::uint64_t i = 0; i < count; ++i) raw[i] = static_cast<std::uint8_t>(synthetic_half_dtw(m, first + i));
    });
}

// Synthetic tables of every material of up to `pieces` pieces.
inline void write_synthetic_tables(const std::filesystem::path& dir, int pieces, std::uint32_t positions_per_block) {
    std::filesystem::create_directories(dir);
    for (const Material& m : materials_in_build_order(pieces))
        write_table(dir, m, positions_per_block, [&](std::uint64_t i) { return synthetic_value(m, i); });
}

// The value probe_wdl must give on synthetic tables, computed from scratch: stored value unless
// the side to move must capture, then the best capture.
inline Value reference_value(const Position& pos) {
    const Position w = white_to_move(pos);
    if (w.white == 0) return Value::Loss;
    if (w.black == 0) return Value::Win;
    if (!has_capture(w)) {
        const Material m = material_of(w);
        return synthetic_value(m, PositionIndex(m).index(w));
    }
    Value best = Value::Loss;
    for (const Move& mv : generate_moves(w)) {
        const Value v = negate(reference_value(apply_move(w, mv)));
        if (v == Value::Win) return v;
        if (v == Value::Draw) best = v;
    }
    return best;
}

// A fresh, empty folder under the system temporary folder.
inline std::filesystem::path fresh_dir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("dtb-probe-test-" + name + "-" + std::to_string(std::random_device{}()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// A fresh folder removed with its contents when the object dies (also when a test fails early).
class TempDir {
public:
    explicit TempDir(const std::string& name) : path_(fresh_dir(name)) {}
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    operator const std::filesystem::path&() const { return path_; }

private:
    std::filesystem::path path_;
};

inline std::vector<unsigned char> read_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<unsigned char>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// File offset where block `b` starts (from the offset table).
inline std::uint64_t block_offset(const std::vector<unsigned char>& file, std::uint64_t b) {
    std::uint64_t v = 0;
    std::memcpy(&v, file.data() + format::kHeaderBytes + 8 * b, 8);
    return v;
}

// Flips one byte in the middle of block `b`.
inline void flip_block_byte(const std::filesystem::path& p, std::uint64_t b) {
    auto bytes = read_bytes(p);
    const std::uint64_t begin = block_offset(bytes, b), end = block_offset(bytes, b + 1);
    bytes[begin + (end - begin) / 2] ^= 0x5A;
    write_bytes(p, bytes);
}

// Sets the format version and recomputes the header checksum, so only the version check fails.
inline void set_format_version(const std::filesystem::path& p, std::uint32_t version) {
    auto bytes = read_bytes(p);
    for (int i = 0; i < 4; ++i) bytes[8 + i] = static_cast<unsigned char>(version >> (8 * i));
    const std::uint64_t sum = XXH64(bytes.data(), format::kHeaderBytes - 8, 0);
    for (int i = 0; i < 8; ++i) bytes[format::kHeaderBytes - 8 + i] = static_cast<unsigned char>(sum >> (8 * i));
    write_bytes(p, bytes);
}

// Writes a file of nothing but a header (its checksum right) claiming `positions` positions of `m`
// in blocks of `positions_per_block`, the block count matching them: only the file size and the
// material can tell that it lies.
inline void write_header_only(const std::filesystem::path& p, const Material& m, std::uint64_t positions,
                              std::uint32_t positions_per_block) {
    format::Header h;
    h.material = m;
    h.positions = positions;
    h.positions_per_block = positions_per_block;
    h.block_count = positions / positions_per_block + (positions % positions_per_block != 0);
    const auto bytes = format::encode_header(h);
    write_bytes(p, {bytes.begin(), bytes.end()});
}

}  // namespace dtb::test
