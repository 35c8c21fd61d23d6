#include "probe/table_file.hpp"

#include <cerrno>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getFrameHeader: to insist on the frame checksum
#include <zstd.h>

#include "index/position_index.hpp"

namespace dtb {
namespace {

bool read_exact(int fd, void* buffer, std::size_t bytes, std::uint64_t offset) {
    auto* p = static_cast<unsigned char*>(buffer);
    while (bytes > 0) {
        const ssize_t got = ::pread(fd, p, bytes, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        p += got;
        bytes -= static_cast<std::size_t>(got);
        offset += static_cast<std::uint64_t>(got);
    }
    return true;
}

// What a file of this type is when it is not a regular file, or nullptr.
const char* not_regular(const struct stat& st) {
    if (S_ISREG(st.st_mode)) return nullptr;
    if (S_ISFIFO(st.st_mode)) return "not a regular file (a named pipe)";
    if (S_ISDIR(st.st_mode)) return "not a regular file (a folder)";
    if (S_ISCHR(st.st_mode)) return "not a regular file (a character device)";
    if (S_ISBLK(st.st_mode)) return "not a regular file (a block device)";
    if (S_ISSOCK(st.st_mode)) return "not a regular file (a socket)";
    return "not a regular file";
}

}  // namespace

void TableFile::fail(const std::string& what) const { throw TableError(path_.string() + ": " + what); }

TableFile::TableFile(const std::filesystem::path& path, format::FileKind expected) : path_(path) {
    // Refused before opening: opening a named pipe blocks until a writer comes, and a device or a
    // folder has no size to check. O_NONBLOCK keeps a pipe put in the file's place in between from
    // blocking the open; the fstat after it catches that swap.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) fail(std::strerror(errno));
    if (const char* what = not_regular(st)) fail(what);
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) fail(std::strerror(errno));
    try {
        if (::fstat(fd_, &st) != 0) fail(std::strerror(errno));
        if (const char* what = not_regular(st)) fail(what);
        file_bytes_ = static_cast<std::uint64_t>(st.st_size);
        read_header(expected);
        read_offsets();
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

// Reads and checks the header, and every count in it against the material and the file's size,
// before anything is allocated from them.
void TableFile::read_header(format::FileKind expected) {
    unsigned char raw[format::kHeaderBytes];
    if (file_bytes_ < format::kHeaderBytes || !read_exact(fd_, raw, sizeof raw, 0))
        fail("truncated file (" + std::to_string(file_bytes_) + " bytes, no complete header)");
    try {
        header_ = format::decode_header(raw);
    } catch (const std::runtime_error& e) {
        fail(e.what());
    }
    if (header_.kind != expected)
        fail(expected == format::FileKind::Wdl ? "not a dtb WDL file (bad magic number)"
                                               : "not a dtb DTW file (bad magic number)");
    const Material& m = header_.material;
    if (m.white_pieces() < 1 || m.black_pieces() < 1 || m.white_pieces() > 20 || m.black_pieces() > 20)
        fail("header names an impossible material (" + std::to_string(m.white_pieces()) + " against " +
             std::to_string(m.black_pieces()) + " pieces)");
    const std::uint64_t index_size = PositionIndex(m).size();
    if (header_.positions != index_size)
        fail("header claims " + std::to_string(header_.positions) + " positions, material " + m.name() + " has " +
             std::to_string(index_size));
    // Each block takes an 8-byte entry of the offset table (one more ends it) and, from version 2,
    // a 4-byte block check.
    const std::uint64_t entry_bytes = header_.has_block_checks() ? 12 : 8;
    const std::uint64_t room = (file_bytes_ - format::kHeaderBytes) / entry_bytes;
    if (header_.block_count >= room)
        fail("header claims " + std::to_string(header_.block_count) + " blocks, more than a file of " +
             std::to_string(file_bytes_) + " bytes can hold (truncated?)");
    if (header_.kind == format::FileKind::Dtw && header_.longest_win != 0 &&
        header_.longest_win_index >= header_.positions)
        fail("header's example of the longest win is beyond the material's positions");
}

void TableFile::read_offsets() {
    std::vector<unsigned char> table(header_.block_table_bytes());
    if (!read_exact(fd_, table.data(), table.size(), format::kHeaderBytes))
        fail("truncated file (incomplete block table)");
    if (XXH64(table.data(), table.size(), 0) != header_.table_checksum) fail("block table checksum mismatch");
    offsets_.resize(header_.block_count + 1);
    const std::size_t offset_bytes = offsets_.size() * sizeof(std::uint64_t);
    std::memcpy(offsets_.data(), table.data(), offset_bytes);
    if (header_.has_block_checks()) {
        block_checks_.resize(header_.block_count);
        std::memcpy(block_checks_.data(), table.data() + offset_bytes, table.size() - offset_bytes);
    }
    if (offsets_.front() != format::kHeaderBytes + table.size()) fail("block offset table does not start after itself");
    for (std::size_t i = 1; i < offsets_.size(); ++i)
        if (offsets_[i] < offsets_[i - 1]) fail("block offset table is not ascending");
    if (offsets_.back() != file_bytes_)
        fail("file is " + std::to_string(file_bytes_) + " bytes, its block table says " +
             std::to_string(offsets_.back()) + " (truncated or extended)");
}

TableFile::~TableFile() {
    if (fd_ >= 0) ::close(fd_);
}

void TableFile::read_frame(std::uint64_t block, std::vector<std::uint8_t>& frame) const {
    if (block >= header_.block_count) fail("block " + std::to_string(block) + " out of range");
    const std::uint64_t begin = offsets_[block];
    frame.resize(static_cast<std::size_t>(offsets_[block + 1] - begin));
    if (!read_exact(fd_, frame.data(), frame.size(), begin)) fail("read error in block " + std::to_string(block));
}

void TableFile::read_block(std::uint64_t block, std::vector<std::uint8_t>& out) const {
    std::vector<std::uint8_t> frame;
    read_frame(block, frame);
    decode_block(block, frame, out);
}

void TableFile::decode_block(std::uint64_t block, const std::vector<std::uint8_t>& frame,
                             std::vector<std::uint8_t>& out) const {
    if (block >= header_.block_count) fail("block " + std::to_string(block) + " out of range");
    const std::uint64_t expected = header_.block_bytes(block);
    // Version 1 relies on zstd's frame checksum (of the content only), version 2 on the block check.
    ZSTD_frameHeader frame_header{};
    if (ZSTD_getFrameHeader(&frame_header, frame.data(), frame.size()) != 0 ||
        frame_header.frameContentSize != expected || (!header_.has_block_checks() && !frame_header.checksumFlag))
        fail("block " + std::to_string(block) + " is corrupt (bad frame header)");
    out.resize(expected);
    // One decompression context per thread, reused: ZSTD_decompress would allocate and initialise
    // a fresh one (over 100 KB) per block, which costs more than the decompression itself.
    thread_local const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!dctx) fail("out of memory for a decompression context");
    const std::size_t got = ZSTD_decompressDCtx(dctx.get(), out.data(), out.size(), frame.data(), frame.size());
    if (ZSTD_isError(got) || got != expected)
        fail("block " + std::to_string(block) + " is corrupt (" +
             (ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong size") + ")");
    if (header_.has_block_checks() &&
        format::block_check(block, out.data(), out.size()) != block_checks_[block])
        fail("block " + std::to_string(block) + " is corrupt (its block check does not match its content)");
}

}  // namespace dtb
