#include "gen/chunked_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include <tbb/parallel_for.h>
#include <zstd.h>

namespace dtb {
namespace {

namespace fs = std::filesystem;

// Chunks are compressed independently, so that a batch of them uses every core; a batch bounds
// the compressed bytes held in memory while writing or reading.
constexpr std::size_t kChunkBytes = std::size_t{16} << 20;
constexpr std::size_t kChunksPerBatch = 16;
constexpr int kZstdLevel = 1;  // scratch files are read back once or twice: speed over size
constexpr const char* kPartialSuffix = ".partial";

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// Layout: every part's chunks as zstd frames, part after part; then the frames' sizes (one
// std::uint64_t each), the parts' sizes (likewise), and the footer.
struct Footer {
    std::uint64_t magic = kMagic;
    std::uint64_t tag = 0;
    std::uint64_t parts = 0;
    static constexpr std::uint64_t kMagic = 0x32484e4b43425444ULL;  // "DTBCKNH2"
};

std::uint64_t chunks_of(std::uint64_t bytes) { return bytes / kChunkBytes + (bytes % kChunkBytes != 0); }

FilePtr open_file(const fs::path& path, const char* mode) {
    FilePtr file(std::fopen(path.c_str(), mode), &std::fclose);
    if (!file) throw std::runtime_error("cannot open scratch file " + path.string() + ": " + std::strerror(errno));
    return file;
}

// An empty part (a part of a level without configurations of one side) has no data pointer.
void write_all(std::FILE* file, const void* data, std::size_t bytes, const fs::path& path) {
    if (bytes == 0) return;
    if (std::fwrite(data, 1, bytes, file) != bytes)
        throw std::runtime_error("cannot write scratch file " + path.string() + ": " + std::strerror(errno));
}

void read_all(std::FILE* file, void* data, std::size_t bytes, const fs::path& path) {
    if (bytes == 0) return;
    if (std::fread(data, 1, bytes, file) != bytes) throw DamagedScratchFile("scratch file " + path.string() + " is truncated");
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

void decompress_chunk(std::span<std::uint8_t> out, const std::vector<std::uint8_t>& frame, const fs::path& path,
                      std::uint64_t chunk) {
    const std::size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
    if (ZSTD_isError(n) || n != out.size())
        throw DamagedScratchFile("scratch file " + path.string() + " is damaged (chunk " + std::to_string(chunk) + ")");
}

void sync_file(std::FILE* file, const fs::path& path) {
    if (std::fflush(file) != 0 || ::fsync(::fileno(file)) != 0)
        throw std::runtime_error("cannot write scratch file " + path.string() + ": " + std::strerror(errno));
}

// What follows the frames, checked against the file's size: sizes that do not add up would make
// the reads allocate whatever they say.
struct Directory {
    Footer footer;
    std::vector<std::uint64_t> part_bytes;
    std::vector<std::uint64_t> frame_sizes;
};

std::optional<Directory> read_directory(std::FILE* file, const fs::path& path) {
    std::error_code error;
    const std::uint64_t size = fs::file_size(path, error);
    if (error || size < sizeof(Footer)) return std::nullopt;
    Directory d;
    if (std::fseek(file, -static_cast<long>(sizeof(Footer)), SEEK_END) != 0 ||
        std::fread(&d.footer, sizeof(Footer), 1, file) != 1 || d.footer.magic != Footer::kMagic ||
        d.footer.parts > size / sizeof(std::uint64_t))
        return std::nullopt;
    d.part_bytes.resize(d.footer.parts);
    const long parts_table = static_cast<long>(d.part_bytes.size() * sizeof(std::uint64_t) + sizeof(Footer));
    if (static_cast<std::uint64_t>(parts_table) > size || std::fseek(file, -parts_table, SEEK_END) != 0 ||
        std::fread(d.part_bytes.data(), sizeof(std::uint64_t), d.part_bytes.size(), file) != d.part_bytes.size())
        return std::nullopt;
    std::uint64_t chunks = 0;
    for (const std::uint64_t bytes : d.part_bytes) {
        chunks += chunks_of(bytes);
        if (chunks > size / sizeof(std::uint64_t)) return std::nullopt;  // also before a sum could wrap
    }
    d.frame_sizes.resize(chunks);
    const long tables = parts_table + static_cast<long>(chunks * sizeof(std::uint64_t));
    if (static_cast<std::uint64_t>(tables) > size || std::fseek(file, -tables, SEEK_END) != 0 ||
        (chunks > 0 && std::fread(d.frame_sizes.data(), sizeof(std::uint64_t), chunks, file) != chunks))
        return std::nullopt;
    std::uint64_t frames = 0;
    for (const std::uint64_t s : d.frame_sizes) frames += std::min(s, size);
    if (frames + static_cast<std::uint64_t>(tables) != size) return std::nullopt;
    return d;
}

Directory checked_directory(std::FILE* file, const fs::path& path, std::uint64_t tag) {
    std::optional<Directory> d = read_directory(file, path);
    if (!d || d->footer.tag != tag)
        throw DamagedScratchFile("scratch file " + path.string() + " is damaged, truncated or of another build");
    return *std::move(d);
}

}  // namespace

void write_chunked_file(const fs::path& path, std::span<const std::span<const std::uint8_t>> parts, std::uint64_t tag) {
    const fs::path partial = path.string() + kPartialSuffix;
    try {
        const FilePtr file = open_file(partial, "wb");
        std::vector<std::uint64_t> frame_sizes, part_bytes;
        for (const std::span<const std::uint8_t> bytes : parts) {
            part_bytes.push_back(bytes.size());
            const std::uint64_t chunks = chunks_of(bytes.size());
            for (std::uint64_t first = 0; first < chunks; first += kChunksPerBatch) {
                const std::size_t count = std::min<std::uint64_t>(kChunksPerBatch, chunks - first);
                std::vector<std::vector<std::uint8_t>> frames(count);
                tbb::parallel_for(std::size_t{0}, count, [&](std::size_t k) {
                    const std::size_t offset = (first + k) * kChunkBytes;
                    frames[k] = compress_chunk(bytes.subspan(offset, std::min(kChunkBytes, bytes.size() - offset)));
                });
                for (const auto& frame : frames) {
                    write_all(file.get(), frame.data(), frame.size(), partial);
                    frame_sizes.push_back(frame.size());
                }
            }
        }
        write_all(file.get(), frame_sizes.data(), frame_sizes.size() * sizeof(std::uint64_t), partial);
        write_all(file.get(), part_bytes.data(), part_bytes.size() * sizeof(std::uint64_t), partial);
        const Footer footer{Footer::kMagic, tag, parts.size()};
        write_all(file.get(), &footer, sizeof footer, partial);
        // Synced before the rename: after a crash, a file under its final name is complete.
        sync_file(file.get(), partial);
        fs::rename(partial, path);
    } catch (...) {
        std::error_code ignored;
        fs::remove(partial, ignored);
        throw;
    }
}

std::optional<ChunkedFileInfo> read_chunked_info(const fs::path& path) {
    if (path.string().ends_with(kPartialSuffix)) return std::nullopt;
    const FilePtr file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) return std::nullopt;
    std::optional<Directory> d = read_directory(file.get(), path);
    if (!d) return std::nullopt;
    return ChunkedFileInfo{d->footer.tag, std::move(d->part_bytes)};
}

void read_chunked_file(const fs::path& path, std::span<const std::span<std::uint8_t>> parts, std::uint64_t tag) {
    const FilePtr file = open_file(path, "rb");
    const Directory d = checked_directory(file.get(), path, tag);
    if (d.part_bytes.size() != parts.size())
        throw DamagedScratchFile("scratch file " + path.string() + " has other parts than expected");
    for (std::size_t p = 0; p < parts.size(); ++p)
        if (d.part_bytes[p] != parts[p].size())
            throw DamagedScratchFile("scratch file " + path.string() + " has a part of another size than expected");
    std::rewind(file.get());
    std::uint64_t frame = 0;
    for (const std::span<std::uint8_t> out : parts) {
        const std::uint64_t chunks = chunks_of(out.size());
        for (std::uint64_t first = 0; first < chunks; first += kChunksPerBatch) {
            const std::size_t count = std::min<std::uint64_t>(kChunksPerBatch, chunks - first);
            std::vector<std::vector<std::uint8_t>> frames(count);
            for (std::size_t k = 0; k < count; ++k) {
                frames[k].resize(d.frame_sizes[frame + first + k]);
                read_all(file.get(), frames[k].data(), frames[k].size(), path);
            }
            tbb::parallel_for(std::size_t{0}, count, [&](std::size_t k) {
                const std::size_t offset = (first + k) * kChunkBytes;
                decompress_chunk(out.subspan(offset, std::min(kChunkBytes, out.size() - offset)), frames[k], path,
                                 frame + first + k);
            });
        }
        frame += chunks;
    }
}

ChunkedPartReader::ChunkedPartReader(const fs::path& path, std::size_t part, std::uint64_t tag)
    : path_(path), file_(open_file(path, "rb")), dctx_(ZSTD_createDCtx(), ZSTD_freeDCtx) {
    if (!dctx_) throw std::bad_alloc();
    const Directory d = checked_directory(file_.get(), path, tag);
    if (part >= d.part_bytes.size()) throw DamagedScratchFile("scratch file " + path.string() + " has too few parts");
    std::uint64_t frame = 0, offset = 0;
    for (std::size_t p = 0; p < part; ++p)
        for (std::uint64_t c = 0; c < chunks_of(d.part_bytes[p]); ++c) offset += d.frame_sizes[frame++];
    size_ = d.part_bytes[part];
    frame_sizes_.assign(d.frame_sizes.begin() + static_cast<long>(frame),
                        d.frame_sizes.begin() + static_cast<long>(frame + chunks_of(size_)));
    if (std::fseek(file_.get(), static_cast<long>(offset), SEEK_SET) != 0)
        throw DamagedScratchFile("scratch file " + path.string() + " is truncated");
}

void ChunkedPartReader::damaged() const {
    throw DamagedScratchFile("scratch file " + path_.string() + " is damaged (chunk " + std::to_string(next_frame_ - 1) + ")");
}

// Decompresses the next bytes of the part into out_, a frame after another; each frame must give
// exactly its chunk's bytes and end where its compressed bytes do.
void ChunkedPartReader::refill() {
    constexpr std::size_t kInBytes = std::size_t{64} << 10, kOutBytes = std::size_t{256} << 10;
    out_.resize(kOutBytes);
    out_used_ = 0;
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    while (out.pos < out.size) {
        if (frame_done_) {
            if (next_frame_ == frame_sizes_.size()) break;  // the part's end
            frame_left_ = frame_sizes_[next_frame_++];
            frame_out_ = 0;
            frame_done_ = false;
            ZSTD_DCtx_reset(dctx_.get(), ZSTD_reset_session_only);
        }
        if (in_used_ == in_.size()) {
            if (frame_left_ == 0) damaged();  // its bytes end inside the frame
            in_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(kInBytes, frame_left_)));
            read_all(file_.get(), in_.data(), in_.size(), path_);
            frame_left_ -= in_.size();
            in_used_ = 0;
        }
        ZSTD_inBuffer in{in_.data(), in_.size(), in_used_};
        const std::size_t before = out.pos;
        const std::size_t left = ZSTD_decompressStream(dctx_.get(), &out, &in);
        in_used_ = in.pos;
        if (ZSTD_isError(left)) damaged();
        frame_out_ += out.pos - before;
        const std::uint64_t chunk = std::min<std::uint64_t>(kChunkBytes, size_ - (next_frame_ - 1) * kChunkBytes);
        if (frame_out_ > chunk) damaged();
        if (left == 0) {  // the frame ends: with its bytes, and with its chunk's size
            if (frame_out_ != chunk || in_used_ != in_.size() || frame_left_ != 0) damaged();
            frame_done_ = true;
        }
    }
    out_.resize(out.pos);
    if (out_.empty()) throw DamagedScratchFile("scratch file " + path_.string() + ": read past a part's end");
}

void ChunkedPartReader::read(std::span<std::uint8_t> out) {
    if (out.size() > size_ - produced_) throw DamagedScratchFile("scratch file " + path_.string() + ": read past a part's end");
    while (!out.empty()) {
        if (out_used_ == out_.size()) refill();
        const std::size_t n = std::min(out.size(), out_.size() - out_used_);
        std::memcpy(out.data(), out_.data() + out_used_, n);
        out_used_ += n;
        produced_ += n;
        out = out.subspan(n);
    }
}

}  // namespace dtb
