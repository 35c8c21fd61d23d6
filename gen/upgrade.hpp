// `dtb upgrade`: rewrites database files of an older format version as the current one, keeping
// every block's content as it is (docs/FORMAT.md, "Versions").
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace dtb {

struct UpgradeReport {
    std::vector<std::string> upgraded;  // file names rewritten
    std::uint64_t current = 0;          // files already of the current version
    std::vector<std::string> errors;    // one line per file that could not be read or written
};

// Rewrites DIR/NAME (a .wdl or .dtw file) of format version 1 as version 2: each block's zstd frame
// loses its 4-byte checksum and the block table gains the block's 4-byte check, so the file keeps
// its size and, at the same zstd version and level, becomes byte-identical to what `dtb gen` writes
// now. Written as NAME.tmp, synced, read back, renamed. Returns false when the file is already of
// the current version. Throws TableError for a file that does not read (corrupt blocks are not
// carried over), std::runtime_error when it cannot be written or is a symbolic link (its target
// is upgraded in its own folder).
bool upgrade_file(const std::filesystem::path& path);

// The .wdl and .dtw files of `dir` whose header says an older format version than the current
// one (their names, in order); files whose header does not read are left to the other checks.
std::vector<std::string> files_of_older_versions(const std::filesystem::path& dir);

// What became of one file: rewritten, already current, or not readable (with the reason).
enum class UpgradeOutcome { Upgraded, Current, Failed };

// Upgrades every .wdl and .dtw file of `dir`, in name order, under the folder's exclusive lock (no
// dtb gen may write there meanwhile); `done` is told of each file as it is finished (the reason is
// empty unless it failed). Throws std::runtime_error when `dir` is no folder or is locked.
UpgradeReport upgrade_folder(
    const std::filesystem::path& dir,
    const std::function<void(const std::string& name, UpgradeOutcome, const std::string& reason)>& done);

}  // namespace dtb
