// Scratch files of the generator: byte arrays ("parts") compressed with zstd in independent chunks,
// each with its checksum, and a tag that says what the content belongs to. Written under a
// temporary name, synced and renamed, so a killed build never leaves a partial file under the
// final name. The builder's copies of finished tables (gen/spill.hpp) and the slices of a material
// pair (gen/slices.hpp) are such files.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <span>
#include <vector>

#include <zstd.h>

namespace dtb {

// A scratch file that is damaged, truncated or of another build: what it holds must be made again.
class DamagedScratchFile : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ChunkedFileInfo {
    std::uint64_t tag = 0;
    std::vector<std::uint64_t> part_bytes;  // the size of each part, uncompressed
};

// Writes `parts` to `path` under `tag`. Throws std::runtime_error naming the file if it cannot be
// written (a full disk, say); nothing is then left under `path`.
void write_chunked_file(const std::filesystem::path& path, std::span<const std::span<const std::uint8_t>> parts,
                        std::uint64_t tag);

// The tag and part sizes of a complete file; nullopt for anything else (a partial file, other bytes).
std::optional<ChunkedFileInfo> read_chunked_info(const std::filesystem::path& path);

// Fills `parts`, which must have the sizes written, with the parts of the file written under `tag`.
// Throws DamagedScratchFile naming the file if it is damaged or of another tag, std::runtime_error
// if it cannot be opened.
void read_chunked_file(const std::filesystem::path& path, std::span<const std::span<std::uint8_t>> parts,
                       std::uint64_t tag);

// Reads one part of a chunked file from its start, decompressing as it goes: for streams much
// larger than the memory they may use. About 1 MiB each (zstd's window and two small buffers, not
// a whole chunk), so that the writer of a pair cut into hundreds of slices can hold one per slice.
class ChunkedPartReader {
public:
    // Throws as read_chunked_file does.
    ChunkedPartReader(const std::filesystem::path& path, std::size_t part, std::uint64_t tag);
    std::uint64_t size() const { return size_; }
    // Copies the next out.size() bytes of the part; throws if fewer are left.
    void read(std::span<std::uint8_t> out);

private:
    void refill();
    [[noreturn]] void damaged() const;
    std::filesystem::path path_;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
    std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx_;
    std::vector<std::uint64_t> frame_sizes_;  // this part's chunks
    std::size_t next_frame_ = 0;
    std::uint64_t size_ = 0;
    std::uint64_t frame_left_ = 0;     // compressed bytes of the current frame not yet read
    std::uint64_t frame_out_ = 0;      // bytes the current frame has given
    bool frame_done_ = true;           // no frame begun, or the last one ended
    std::vector<std::uint8_t> in_;     // compressed bytes read, from in_used_ on not yet decompressed
    std::size_t in_used_ = 0;
    std::vector<std::uint8_t> out_;    // decompressed bytes, from out_used_ on not yet copied out
    std::size_t out_used_ = 0;
    std::uint64_t produced_ = 0;       // decompressed bytes of the part so far
};

}  // namespace dtb
