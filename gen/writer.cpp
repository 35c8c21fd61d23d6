#include "gen/writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <tbb/parallel_for.h>
#include <unistd.h>
#include <xxhash.h>

#include "gen/encoding.hpp"
#include "probe/table_file.hpp"

namespace dtb {
namespace {

class OutputFile {
public:
    explicit OutputFile(const std::filesystem::path& path) : path_(path) {
        fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd_ < 0) fail("cannot create");
    }
    ~OutputFile() {
        if (fd_ >= 0) ::close(fd_);
    }
    void write(const void* data, std::size_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        while (bytes > 0) {
            const ssize_t n = ::write(fd_, p, bytes);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) fail("cannot write");
            p += n;
            bytes -= static_cast<std::size_t>(n);
        }
    }
    void sync_and_close() {
        if (::fsync(fd_) != 0) fail("cannot sync");
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0) fail("cannot close");
    }

private:
    [[noreturn]] void fail(const char* what) const {
        throw std::runtime_error(std::string(what) + " " + path_.string() + ": " + std::strerror(errno));
    }
    std::filesystem::path path_;
    int fd_ = -1;
};

format::Header make_header(const SolvedMaterial& solved, const WriteOptions& options) {
    format::Header h;
    h.material = solved.material;
    h.positions = solved.values.size();
    h.positions_per_block = options.positions_per_block;
    h.block_count = (h.positions + h.positions_per_block - 1) / h.positions_per_block;
    for (std::uint8_t v : solved.values) {
        if (v & kCaptureFlag)
            ++h.captures;
        else if ((v & kValueMask) == static_cast<std::uint8_t>(Value::Win))
            ++h.wins;
        else if ((v & kValueMask) == static_cast<std::uint8_t>(Value::Draw))
            ++h.draws;
        else
            ++h.losses;
    }
    return h;
}

// Reads the file back through the probing library's reader and compares every block.
void check_written(const std::filesystem::path& path, const std::vector<std::vector<std::uint8_t>>& raw_blocks) {
    const TableFile file(path);
    std::vector<std::uint8_t> block;
    for (std::uint64_t b = 0; b < raw_blocks.size(); ++b) {
        file.read_block(b, block);
        if (block != raw_blocks[b]) throw std::runtime_error(path.string() + ": block " + std::to_string(b) + " reads back differently");
    }
}

}  // namespace

void sync_directory(const std::filesystem::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;  // best effort: some file systems do not allow it
    ::fsync(fd);
    ::close(fd);
}

WrittenFile write_wdl_file(const std::filesystem::path& dir, const SolvedMaterial& solved, const WriteOptions& options) {
    if (options.positions_per_block == 0 || options.positions_per_block % format::kValuesPerByte != 0)
        throw std::invalid_argument("positions per block must be a positive multiple of 5");
    format::Header header = make_header(solved, options);
    // Capture positions are "don't care": the value stored just before extends runs and compresses
    // best of the fills measured (docs/FORMAT.md).
    const std::vector<std::uint8_t> stored = fill_dont_care(solved.values, DontCareFill::Previous);
    std::vector<std::vector<std::uint8_t>> raw(header.block_count);
    std::vector<std::vector<unsigned char>> compressed(header.block_count);
    tbb::parallel_for(std::uint64_t{0}, header.block_count, [&](std::uint64_t b) {
        const std::uint64_t first = b * header.positions_per_block;
        raw[b] = pack_base3(stored.data() + first, std::min<std::uint64_t>(header.positions_per_block, header.positions - first));
        compressed[b] = compress_block(raw[b], options.zstd_level);
    });
    std::vector<std::uint64_t> offsets(header.block_count + 1);
    offsets[0] = format::kHeaderBytes + offsets.size() * sizeof(std::uint64_t);
    for (std::uint64_t b = 0; b < header.block_count; ++b) offsets[b + 1] = offsets[b] + compressed[b].size();
    header.table_checksum = XXH64(offsets.data(), offsets.size() * sizeof(std::uint64_t), 0);

    const std::filesystem::path final_path = dir / format::wdl_file_name(solved.material);
    const std::filesystem::path temp_path = final_path.string() + ".tmp";
    try {
        OutputFile out(temp_path);
        const auto header_bytes = format::encode_header(header);
        out.write(header_bytes.data(), header_bytes.size());
        out.write(offsets.data(), offsets.size() * sizeof(std::uint64_t));
        for (const auto& c : compressed) out.write(c.data(), c.size());
        out.sync_and_close();
        check_written(temp_path, raw);
        std::filesystem::rename(temp_path, final_path);
    } catch (...) {
        std::error_code ignored;
        std::filesystem::remove(temp_path, ignored);
        throw;
    }
    sync_directory(dir);
    return {header, offsets.back()};
}

}  // namespace dtb
