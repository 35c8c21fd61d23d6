// Writes a solved material as a database file (docs/FORMAT.md), safely: to a temporary name,
// synced, read back and compared, then renamed. A killed or failed write never leaves a file
// under the final name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gen/dtw_solver.hpp"
#include "gen/solver.hpp"

namespace dtb {

struct WriteOptions {
    // Measured in docs/FORMAT.md: level 12 with 65,520-position blocks is as small as level 19
    // with 32,760 and took a fifth less CPU to build KKMMvK; a cold probe stays near 10 us.
    std::uint32_t positions_per_block = 65'520;  // multiple of 5
    int zstd_level = 12;
    // Level 9: compressing at 16 took 30% of the DTW pass of KKMMvK, at 9 3% (for 15% more
    // bytes; docs/FORMAT.md, "DTW level"). Size is the goal met with room to spare.
    int dtw_zstd_level = 9;
    // DTW files store the losses' distances only (encodings 4 and 5), the wins' being found by one
    // ply of search: 58% smaller on 2-4 pieces (docs/FORMAT.md). True writes every win's and
    // loss's distance (encodings 2 and 3, as before 2026-11-23): `dtb gen --dtw-store-wins`.
    bool dtw_store_wins = false;
};

struct WrittenFile {
    format::Header header;
    std::uint64_t bytes = 0;
};

// Throws std::runtime_error (with the OS reason, e.g. "No space left on device") on failure.
WrittenFile write_wdl_file(const std::filesystem::path& dir, const SolvedMaterial& solved, const WriteOptions& options);

// Value bytes (SolvedMaterial::value_byte) of consecutive positions: called with first = 0, then
// each time where the previous call ended.
using ValueByteStream = std::function<void(std::uint64_t first, std::span<std::uint8_t> out)>;

// The same file from values streamed in index order (a pair solved in slices, gen/slices.hpp).
WrittenFile write_wdl_file(const std::filesystem::path& dir, const Material& material, std::uint64_t positions,
                           const ValueByteStream& values, const WriteOptions& options);

// Writes `<material>.dtw` (docs/FORMAT.md, "DTW files") with the same guarantees as the WDL
// file: temporary name, fsync, read back and compared (by a hash of each block), rename. Draws and
// capture positions are don't-care, and wins too unless options.dtw_store_wins. The header's
// counts and longest distances come from all of `solved` whatever is stored. positions_per_block
// need not be a multiple of 5 here.
WrittenFile write_dtw_file(const std::filesystem::path& dir, const DtwMaterial& solved, const WriteOptions& options);

// Writes DIR/NAME (format version 2) from its header and its compressed blocks: to NAME.tmp,
// synced, read back block by block through the probing library's reader and compared with
// `content_hashes` (XXH64, seed 0, of each block's content), renamed. Fills in the header's version
// and table checksum; returns the file's size. Throws std::runtime_error.
std::uint64_t write_table(const std::filesystem::path& dir, const std::string& name, format::Header& header,
                          const std::vector<std::vector<unsigned char>>& frames,
                          const std::vector<std::uint32_t>& block_checks, const std::vector<std::uint64_t>& content_hashes);

// Makes a directory entry durable (after a rename).
void sync_directory(const std::filesystem::path& dir);

}  // namespace dtb
