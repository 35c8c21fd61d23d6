#include "gen/spill.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include <tbb/parallel_for.h>
#include <zstd.h>

namespace dtb {
namespace {

namespace fs = std::filesystem;

// Chunks are compressed independently, so that a batch of them uses every core; a batch bounds
// the compressed bytes held in memory while saving or loading.
constexpr std::size_t kChunkBytes = std::size_t{16} << 20;
constexpr std::size_t kChunksPerBatch = 16;
constexpr int kZstdLevel = 1;  // the copy is read back once or twice: speed over size

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

FilePtr open_file(const fs::path& path, const char* mode) {
    FilePtr file(std::fopen(path.c_str(), mode), &std::fclose);
    if (!file)
        throw std::runtime_error("cannot open scratch file " + path.string() + ": " + std::strerror(errno));
    return file;
}

void write_all(std::FILE* file, const void* data, std::size_t bytes, const fs::path& path) {
    if (std::fwrite(data, 1, bytes, file) != bytes)
        throw std::runtime_error("cannot write scratch file " + path.string() + ": " + std::strerror(errno));
}

void read_all(std::FILE* file, void* data, std::size_t bytes, const fs::path& path) {
    if (std::fread(data, 1, bytes, file) != bytes)
        throw std::runtime_error("scratch file " + path.string() + " is truncated");
}

std::vector<std::uint8_t> compress_chunk(std::span<const std::uint8_t> raw) {
    const std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, kZstdLevel);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
    std::vector<std::uint8_t> out(ZSTD_compressBound(raw.size()));
    const std::size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), raw.data(), raw.size());
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

// Layout of a scratch file: the chunks' zstd frames one after another, then the frames' sizes
// (one std::uint64_t each), their count and the size in memory.
struct Footer {
    std::uint64_t chunks = 0;
    std::uint64_t raw_bytes = 0;
};

}  // namespace

SpillFolder::SpillFolder(fs::path dir) : dir_(std::move(dir)) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
}

SpillFolder::~SpillFolder() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
}

void SpillFolder::save(const std::string& name, std::span<const std::uint8_t> bytes) {
    const fs::path path = dir_ / name;
    saved_.erase(name);
    try {
        const FilePtr file = open_file(path, "wb");
        const Footer footer{(bytes.size() + kChunkBytes - 1) / kChunkBytes, bytes.size()};
        std::vector<std::uint64_t> frame_sizes;
        for (std::uint64_t first = 0; first < footer.chunks; first += kChunksPerBatch) {
            const std::size_t count = std::min<std::uint64_t>(kChunksPerBatch, footer.chunks - first);
            std::vector<std::vector<std::uint8_t>> frames(count);
            tbb::parallel_for(std::size_t{0}, count, [&](std::size_t k) {
                const std::size_t offset = (first + k) * kChunkBytes;
                frames[k] = compress_chunk(bytes.subspan(offset, std::min(kChunkBytes, bytes.size() - offset)));
            });
            for (const auto& frame : frames) {
                write_all(file.get(), frame.data(), frame.size(), path);
                frame_sizes.push_back(frame.size());
            }
        }
        write_all(file.get(), frame_sizes.data(), frame_sizes.size() * sizeof(std::uint64_t), path);
        write_all(file.get(), &footer, sizeof footer, path);
        if (std::fflush(file.get()) != 0)
            throw std::runtime_error("cannot write scratch file " + path.string() + ": " + std::strerror(errno));
    } catch (...) {
        std::error_code ignored;
        fs::remove(path, ignored);
        throw;
    }
    saved_[name] = bytes.size();
}

void SpillFolder::load(const std::string& name, std::span<std::uint8_t> out) const {
    const fs::path path = dir_ / name;
    const auto saved = saved_.find(name);
    if (saved == saved_.end() || saved->second != out.size())
        throw std::logic_error("dtb gen: no scratch copy of " + name + " of " + std::to_string(out.size()) + " bytes");
    const FilePtr file = open_file(path, "rb");
    Footer footer;
    if (std::fseek(file.get(), -static_cast<long>(sizeof footer), SEEK_END) != 0)
        throw std::runtime_error("scratch file " + path.string() + " is truncated");
    read_all(file.get(), &footer, sizeof footer, path);
    if (footer.raw_bytes != out.size() || footer.chunks != (out.size() + kChunkBytes - 1) / kChunkBytes)
        throw std::runtime_error("scratch file " + path.string() + " is damaged (footer)");
    std::vector<std::uint64_t> frame_sizes(footer.chunks);
    const long table_bytes = static_cast<long>(frame_sizes.size() * sizeof(std::uint64_t) + sizeof footer);
    if (std::fseek(file.get(), -table_bytes, SEEK_END) != 0)
        throw std::runtime_error("scratch file " + path.string() + " is truncated");
    read_all(file.get(), frame_sizes.data(), frame_sizes.size() * sizeof(std::uint64_t), path);
    // Sizes that do not add up to the file would make the reads below allocate whatever they say.
    std::uint64_t frames_bytes = 0;
    for (const std::uint64_t size : frame_sizes) frames_bytes += std::min<std::uint64_t>(size, fs::file_size(path));
    if (frames_bytes + static_cast<std::uint64_t>(table_bytes) != fs::file_size(path))
        throw std::runtime_error("scratch file " + path.string() + " is damaged (frame sizes)");
    std::rewind(file.get());
    for (std::uint64_t first = 0; first < footer.chunks; first += kChunksPerBatch) {
        const std::size_t count = std::min<std::uint64_t>(kChunksPerBatch, footer.chunks - first);
        std::vector<std::vector<std::uint8_t>> frames(count);
        for (std::size_t k = 0; k < count; ++k) {
            frames[k].resize(frame_sizes[first + k]);
            read_all(file.get(), frames[k].data(), frames[k].size(), path);
        }
        tbb::parallel_for(std::size_t{0}, count, [&](std::size_t k) {
            const std::size_t offset = (first + k) * kChunkBytes;
            const std::span<std::uint8_t> chunk = out.subspan(offset, std::min(kChunkBytes, out.size() - offset));
            const std::size_t n = ZSTD_decompress(chunk.data(), chunk.size(), frames[k].data(), frames[k].size());
            if (ZSTD_isError(n) || n != chunk.size())
                throw std::runtime_error("scratch file " + path.string() + " is damaged (chunk " +
                                         std::to_string(first + k) + ")");
        });
    }
}

std::uint64_t SpillFolder::bytes_on_disk() const {
    std::uint64_t total = 0;
    for (const auto& [name, size] : saved_) total += fs::file_size(dir_ / name);
    return total;
}

}  // namespace dtb
