#include "gen/spill.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include <unistd.h>

#include <tbb/parallel_for.h>
#include <xxhash.h>
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

// Layout of a copy: the chunks' zstd frames one after another, then the frames' sizes (one
// std::uint64_t each), then the footer.
struct Footer {
    std::uint64_t magic = kMagic;
    std::uint64_t tag = 0;
    std::uint64_t chunks = 0;
    std::uint64_t raw_bytes = 0;
    static constexpr std::uint64_t kMagic = 0x314c495053425444ULL;  // "DTBSPIL1"
};

constexpr const char* kPartialSuffix = ".partial";

// The footer of a complete copy; nullopt for anything else (a partial file, other bytes).
std::optional<Footer> read_footer(const fs::path& path) {
    std::error_code error;
    const std::uint64_t size = fs::file_size(path, error);
    if (error || size < sizeof(Footer)) return std::nullopt;
    const FilePtr file(std::fopen(path.c_str(), "rb"), &std::fclose);
    Footer footer;
    if (!file || std::fseek(file.get(), -static_cast<long>(sizeof footer), SEEK_END) != 0 ||
        std::fread(&footer, sizeof footer, 1, file.get()) != 1 || footer.magic != Footer::kMagic)
        return std::nullopt;
    if (footer.chunks != (footer.raw_bytes + kChunkBytes - 1) / kChunkBytes) return std::nullopt;
    return footer;
}

void sync_file(std::FILE* file, const fs::path& path) {
    if (std::fflush(file) != 0 || ::fsync(::fileno(file)) != 0)
        throw std::runtime_error("cannot write scratch file " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

SpillFolder::SpillFolder(fs::path dir) : dir_(std::move(dir)) {
    fs::create_directories(dir_);
    std::vector<fs::path> unusable;
    for (const auto& entry : fs::directory_iterator(dir_)) {
        const std::string name = entry.path().filename().string();
        const auto footer = entry.is_regular_file() && !name.ends_with(kPartialSuffix)
                                ? read_footer(entry.path())
                                : std::nullopt;
        if (footer)
            saved_[name] = {footer->raw_bytes, footer->tag};
        else
            unusable.push_back(entry.path());
    }
    for (const fs::path& p : unusable) fs::remove_all(p);
}

void SpillFolder::forget(const std::string& name) {
    saved_.erase(name);
    std::error_code ignored;
    fs::remove(dir_ / name, ignored);
}

void SpillFolder::remove_all() {
    saved_.clear();
    fs::remove_all(dir_);
}

void SpillFolder::save(const std::string& name, std::span<const std::uint8_t> bytes, std::uint64_t tag) {
    const fs::path final_path = dir_ / name;
    const fs::path path = dir_ / (name + kPartialSuffix);
    forget(name);
    try {
        const FilePtr file = open_file(path, "wb");
        Footer footer;
        footer.tag = tag;
        footer.chunks = (bytes.size() + kChunkBytes - 1) / kChunkBytes;
        footer.raw_bytes = bytes.size();
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
        // Synced before the rename: after a crash, a copy under its final name is complete.
        sync_file(file.get(), path);
        fs::rename(path, final_path);
    } catch (...) {
        std::error_code ignored;
        fs::remove(path, ignored);
        throw;
    }
    saved_[name] = {bytes.size(), tag};
}

void SpillFolder::load(const std::string& name, std::span<std::uint8_t> out, std::uint64_t tag) const {
    const fs::path path = dir_ / name;
    const auto saved = saved_.find(name);
    if (saved == saved_.end() || saved->second.bytes != out.size() || saved->second.tag != tag)
        throw std::logic_error("dtb gen: no scratch copy of " + name + " of " + std::to_string(out.size()) + " bytes");
    const FilePtr file = open_file(path, "rb");
    // Checked again: the file may have changed since the folder adopted it.
    const std::optional<Footer> footer = read_footer(path);
    if (!footer || footer->tag != tag || footer->raw_bytes != out.size())
        throw std::runtime_error("scratch file " + path.string() + " is damaged or truncated (footer)");
    std::vector<std::uint64_t> frame_sizes(footer->chunks);
    const long table_bytes = static_cast<long>(frame_sizes.size() * sizeof(std::uint64_t) + sizeof(Footer));
    if (std::fseek(file.get(), -table_bytes, SEEK_END) != 0)
        throw std::runtime_error("scratch file " + path.string() + " is truncated");
    read_all(file.get(), frame_sizes.data(), frame_sizes.size() * sizeof(std::uint64_t), path);
    // Sizes that do not add up to the file would make the reads below allocate whatever they say.
    std::uint64_t frames_bytes = 0;
    for (const std::uint64_t size : frame_sizes) frames_bytes += std::min<std::uint64_t>(size, fs::file_size(path));
    if (frames_bytes + static_cast<std::uint64_t>(table_bytes) != fs::file_size(path))
        throw std::runtime_error("scratch file " + path.string() + " is damaged (frame sizes)");
    std::rewind(file.get());
    for (std::uint64_t first = 0; first < footer->chunks; first += kChunksPerBatch) {
        const std::size_t count = std::min<std::uint64_t>(kChunksPerBatch, footer->chunks - first);
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
    for (const auto& entry : saved_) total += fs::file_size(dir_ / entry.first);
    return total;
}

std::uint64_t content_tag(const fs::path& file) {
    const FilePtr in(std::fopen(file.c_str(), "rb"), &std::fclose);
    if (!in) throw std::runtime_error("cannot open " + file.string() + ": " + std::strerror(errno));
    const std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state(XXH3_createState(), XXH3_freeState);
    if (!state || XXH3_64bits_reset(state.get()) != XXH_OK) throw std::bad_alloc();
    std::vector<char> buffer(std::size_t{1} << 20);
    while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), in.get()))
        XXH3_64bits_update(state.get(), buffer.data(), n);
    if (std::ferror(in.get()))
        throw std::runtime_error("cannot read " + file.string() + ": " + std::strerror(errno));
    return XXH3_64bits_digest(state.get());
}

}  // namespace dtb
