#include "probe/format.hpp"

#include <cstring>
#include <stdexcept>

#include <xxhash.h>

namespace dtb {

const char* value_name(Value v) {
    switch (v) {
        case Value::Win: return "win";
        case Value::Draw: return "draw";
        case Value::Loss: return "loss";
        default: return "unknown";
    }
}

namespace format {
namespace {

constexpr std::size_t kChecksumOffset = kHeaderBytes - 8;

template <typename T>
void put(unsigned char* out, std::size_t at, T value) {
    for (std::size_t i = 0; i < sizeof(T); ++i) out[at + i] = static_cast<unsigned char>(value >> (8 * i));
}

template <typename T>
T get(const unsigned char* in, std::size_t at) {
    T value = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(in[at + i]) << (8 * i);
    return value;
}

}  // namespace

std::uint64_t Header::block_bytes(std::uint64_t block) const {
    const std::uint64_t first = block * positions_per_block;
    const std::uint64_t count = std::min<std::uint64_t>(positions_per_block, positions - first);
    if (kind == FileKind::Dtw) return count * dtw_width();
    return (count + kValuesPerByte - 1) / kValuesPerByte;
}

std::uint32_t Header::dtw_width() const {
    if (kind != FileKind::Dtw) return 0;
    return value_encoding == kEncodingDtwU8 || value_encoding == kEncodingDtwLossesU8 ? 1 : 2;
}

std::uint64_t Header::block_table_bytes() const {
    return (block_count + 1) * sizeof(std::uint64_t) + (has_block_checks() ? block_count * sizeof(std::uint32_t) : 0);
}

std::uint32_t block_check(std::uint64_t block, const std::uint8_t* content, std::size_t bytes) {
    return static_cast<std::uint32_t>(XXH3_64bits_withSeed(content, bytes, block));
}

bool Header::dtw_stores_wins() const {
    return kind == FileKind::Dtw && (value_encoding == kEncodingDtwU8 || value_encoding == kEncodingDtwU16);
}

const char* block_size_problem(std::uint64_t positions_per_block, FileKind kind) {
    if (positions_per_block == 0) return "positions per block must be positive";
    if (positions_per_block > kMaxPositionsPerBlock) return "positions per block must be at most 16,777,216 (2^24)";
    // Base-3 bytes hold five values, so WDL blocks are whole bytes only for multiples of 5.
    if (kind == FileKind::Wdl && positions_per_block % kValuesPerByte != 0)
        return "positions per block must be a multiple of 5";
    return nullptr;
}

std::array<unsigned char, kHeaderBytes> encode_header(const Header& h) {
    std::array<unsigned char, kHeaderBytes> out{};
    const auto& magic = h.kind == FileKind::Dtw ? kDtwMagic : kWdlMagic;
    std::memcpy(out.data(), magic.data(), magic.size());
    put<std::uint32_t>(out.data(), 8, h.format_version);
    put<std::uint32_t>(out.data(), 12, kHeaderBytes);
    out[16] = static_cast<unsigned char>(h.material.white_men);
    out[17] = static_cast<unsigned char>(h.material.white_kings);
    out[18] = static_cast<unsigned char>(h.material.black_men);
    out[19] = static_cast<unsigned char>(h.material.black_kings);
    put<std::uint32_t>(out.data(), 20, h.index_version);
    put<std::uint32_t>(out.data(), 24, h.value_encoding);
    put<std::uint32_t>(out.data(), 28, h.positions_per_block);
    put<std::uint64_t>(out.data(), 32, h.positions);
    put<std::uint64_t>(out.data(), 40, h.block_count);
    put<std::uint64_t>(out.data(), 48, h.captures);
    put<std::uint64_t>(out.data(), 56, h.wins);
    put<std::uint64_t>(out.data(), 64, h.draws);
    put<std::uint64_t>(out.data(), 72, h.losses);
    put<std::uint64_t>(out.data(), 80, h.table_checksum);
    put<std::uint32_t>(out.data(), 88, h.compression);
    put<std::uint32_t>(out.data(), 92, h.max_dtw);  // zero in WDL files: their bytes are unchanged
    put<std::uint32_t>(out.data(), 96, h.longest_win);
    put<std::uint64_t>(out.data(), 100, h.longest_win_index);
    put<std::uint64_t>(out.data(), kChecksumOffset, XXH64(out.data(), kChecksumOffset, 0));
    return out;
}

Header decode_header(const unsigned char* in) {
    Header h;
    if (std::memcmp(in, kDtwMagic.data(), kDtwMagic.size()) == 0)
        h.kind = FileKind::Dtw;
    else if (std::memcmp(in, kWdlMagic.data(), kWdlMagic.size()) != 0)
        throw std::runtime_error("not a dtb WDL file (bad magic number)");
    h.format_version = get<std::uint32_t>(in, 8);
    if (h.format_version < kOldestReadableVersion || h.format_version > kFormatVersion)
        throw std::runtime_error("format version " + std::to_string(h.format_version) + ", this dtb reads versions " +
                                 std::to_string(kOldestReadableVersion) + " to " + std::to_string(kFormatVersion));
    if (get<std::uint64_t>(in, kChecksumOffset) != XXH64(in, kChecksumOffset, 0))
        throw std::runtime_error("header checksum mismatch (corrupt header)");
    if (get<std::uint32_t>(in, 12) != kHeaderBytes) throw std::runtime_error("unexpected header size");
    h.material = {in[16], in[17], in[18], in[19]};
    h.index_version = get<std::uint32_t>(in, 20);
    h.value_encoding = get<std::uint32_t>(in, 24);
    h.positions_per_block = get<std::uint32_t>(in, 28);
    h.positions = get<std::uint64_t>(in, 32);
    h.block_count = get<std::uint64_t>(in, 40);
    h.captures = get<std::uint64_t>(in, 48);
    h.wins = get<std::uint64_t>(in, 56);
    h.draws = get<std::uint64_t>(in, 64);
    h.losses = get<std::uint64_t>(in, 72);
    h.table_checksum = get<std::uint64_t>(in, 80);
    h.compression = get<std::uint32_t>(in, 88);
    h.max_dtw = get<std::uint32_t>(in, 92);
    h.longest_win = get<std::uint32_t>(in, 96);
    h.longest_win_index = get<std::uint64_t>(in, 100);
    if (h.index_version != kIndexVersion) throw std::runtime_error("unsupported index version");
    const bool encoding_ok = h.kind == FileKind::Wdl
                                 ? h.value_encoding == kEncodingBase3
                                 : h.value_encoding >= kEncodingDtwU8 && h.value_encoding <= kEncodingDtwLossesU16;
    if (!encoding_ok) throw std::runtime_error("unsupported value encoding");
    if (h.compression != kCompressionZstd) throw std::runtime_error("unsupported compression");
    if (const char* problem = block_size_problem(h.positions_per_block, h.kind))
        throw std::runtime_error(std::string("invalid block size (") + problem + ")");
    // Written without overflow: the counts are whatever the file says.
    const std::uint64_t blocks_needed =
        h.positions / h.positions_per_block + (h.positions % h.positions_per_block != 0 ? 1 : 0);
    if (h.block_count != blocks_needed)
        throw std::runtime_error("block count " + std::to_string(h.block_count) + " does not match the " +
                                 std::to_string(h.positions) + " positions");
    return h;
}

std::string wdl_file_name(const Material& m) { return m.name() + kWdlSuffix; }

std::string dtw_file_name(const Material& m) { return m.name() + kDtwSuffix; }

}  // namespace format
}  // namespace dtb
