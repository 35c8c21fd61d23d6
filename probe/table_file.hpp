// Read access to one database file: header, block table, checked block decompression.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "probe/format.hpp"

namespace dtb {

// A database file that is missing, unreadable, corrupt or of another format.
class TableError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The kind of a database file by its name: MATERIAL.dtw holds distances, MATERIAL.wdl values.
inline format::FileKind file_kind_of(const std::filesystem::path& path) {
    return path.extension() == format::kDtwSuffix ? format::FileKind::Dtw : format::FileKind::Wdl;
}

// An open database file. Thread-safe: blocks are read with pread on one descriptor.
class TableFile {
public:
    // Opens the file and checks its header, size and block table; throws TableError, also
    // when the file is of another kind than `expected` (a DTW file is never read as WDL values),
    // not a regular file (a named pipe, a device, a folder: refused without blocking), or when a
    // count of its header disagrees with its material or its size (checked before allocating).
    explicit TableFile(const std::filesystem::path& path, format::FileKind expected = format::FileKind::Wdl);
    ~TableFile();
    TableFile(const TableFile&) = delete;
    TableFile& operator=(const TableFile&) = delete;

    const format::Header& header() const { return header_; }
    const std::filesystem::path& path() const { return path_; }
    std::uint64_t file_bytes() const { return file_bytes_; }

    // Reads and decompresses one block into `out` (resized to its uncompressed size), checking its
    // size and its block check (version 2) or zstd frame checksum (version 1); throws TableError
    // on any mismatch.
    void read_block(std::uint64_t block, std::vector<std::uint8_t>& out) const;

    // The compressed bytes of one block as stored (one zstd frame), unchecked.
    void read_frame(std::uint64_t block, std::vector<std::uint8_t>& frame) const;

    // What read_block does after read_frame: decompresses `frame`, block `block`'s, into `out`
    // with the same checks.
    void decode_block(std::uint64_t block, const std::vector<std::uint8_t>& frame, std::vector<std::uint8_t>& out) const;

private:
    [[noreturn]] void fail(const std::string& what) const;
    void read_header(format::FileKind expected);
    void read_offsets();

    std::filesystem::path path_;
    int fd_ = -1;
    format::Header header_;
    std::uint64_t file_bytes_ = 0;
    std::vector<std::uint64_t> offsets_;       // block_count + 1 entries
    std::vector<std::uint32_t> block_checks_;  // version 2: block_count entries
};

}  // namespace dtb
