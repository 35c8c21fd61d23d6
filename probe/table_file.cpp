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

}  // namespace

void TableFile::fail(const std::string& what) const { throw TableError(path_.string() + ": " + what); }

TableFile::TableFile(const std::filesystem::path& path, format::FileKind expected) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        ::close(fd_);
        fail(std::strerror(errno));
    }
    file_bytes_ = static_cast<std::uint64_t>(st.st_size);
    try {
        unsigned char raw[format::kHeaderBytes];
        if (file_bytes_ < format::kHeaderBytes || !read_exact(fd_, raw, sizeof raw, 0))
            fail("truncated file (no complete header)");
        try {
            header_ = format::decode_header(raw);
        } catch (const std::runtime_error& e) {
            fail(e.what());
        }
        if (header_.kind != expected)
            fail(expected == format::FileKind::Wdl ? "not a dtb WDL file (bad magic number)"
                                                   : "not a dtb DTW file (bad magic number)");
        offsets_.resize(header_.block_count + 1);
        const std::size_t table_bytes = offsets_.size() * sizeof(std::uint64_t);
        if (file_bytes_ < format::kHeaderBytes + table_bytes ||
            !read_exact(fd_, offsets_.data(), table_bytes, format::kHeaderBytes))
            fail("truncated file (incomplete block offset table)");
        if (XXH64(offsets_.data(), table_bytes, 0) != header_.table_checksum)
            fail("block offset table checksum mismatch");
        if (offsets_.front() != format::kHeaderBytes + table_bytes) fail("block offset table does not start after itself");
        for (std::size_t i = 1; i < offsets_.size(); ++i)
            if (offsets_[i] < offsets_[i - 1]) fail("block offset table is not ascending");
        if (offsets_.back() != file_bytes_)
            fail("file is " + std::to_string(file_bytes_) + " bytes, its block table says " +
                 std::to_string(offsets_.back()) + " (truncated or extended)");
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

TableFile::~TableFile() {
    if (fd_ >= 0) ::close(fd_);
}

void TableFile::read_block(std::uint64_t block, std::vector<std::uint8_t>& out) const {
    if (block >= header_.block_count) fail("block " + std::to_string(block) + " out of range");
    const std::uint64_t begin = offsets_[block];
    const std::size_t compressed = static_cast<std::size_t>(offsets_[block + 1] - begin);
    std::vector<unsigned char> frame(compressed);
    if (!read_exact(fd_, frame.data(), compressed, begin)) fail("read error in block " + std::to_string(block));
    const std::uint64_t expected = header_.block_bytes(block);
    ZSTD_frameHeader frame_header{};
    if (ZSTD_getFrameHeader(&frame_header, frame.data(), compressed) != 0 ||
        frame_header.frameContentSize != expected || !frame_header.checksumFlag)
        fail("block " + std::to_string(block) + " is corrupt (bad frame header)");
    out.resize(expected);
    // One decompression context per thread, reused: ZSTD_decompress would allocate and initialise
    // a fresh one (over 100 KB) per block, which costs more than the decompression itself.
    thread_local const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!dctx) fail("out of memory for a decompression context");
    const std::size_t got = ZSTD_decompressDCtx(dctx.get(), out.data(), out.size(), frame.data(), compressed);
    if (ZSTD_isError(got) || got != expected)
        fail("block " + std::to_string(block) + " is corrupt (" +
             (ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong size") + ")");
}

}  // namespace dtb
