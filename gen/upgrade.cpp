#include "gen/upgrade.hpp"

#include <algorithm>
#include <stdexcept>

#include <tbb/parallel_for.h>
#include <xxhash.h>
#include <zstd.h>

#include "gen/folder_lock.hpp"
#include "gen/writer.hpp"
#include "index/material.hpp"
#include "probe/table_file.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;

// Bit 2 of a zstd frame's header descriptor (the byte after its 4-byte magic number) says that
// the frame ends with a 4-byte checksum of its content (RFC 8878, 3.1.1.1.1).
constexpr std::size_t kDescriptorByte = 4;
constexpr std::uint8_t kContentChecksumFlag = 0x04;
constexpr std::size_t kContentChecksumBytes = 4;

// The same frame without its content checksum: the descriptor's flag cleared, the last 4 bytes
// dropped. The compressed blocks between stay as they are.
void drop_content_checksum(const TableFile& file, std::uint64_t block, std::vector<std::uint8_t>& frame) {
    const std::size_t one_frame = ZSTD_findFrameCompressedSize(frame.data(), frame.size());
    if (ZSTD_isError(one_frame) || one_frame != frame.size() || frame.size() <= kDescriptorByte ||
        !(frame[kDescriptorByte] & kContentChecksumFlag))
        throw TableError(file.path().string() + ": block " + std::to_string(block) +
                         " is not one zstd frame with a checksum");
    frame[kDescriptorByte] &= static_cast<std::uint8_t>(~kContentChecksumFlag);
    frame.resize(frame.size() - kContentChecksumBytes);
}

// A database file's name: MATERIAL.wdl or MATERIAL.dtw.
bool is_database_file(const fs::directory_entry& e) {
    const fs::path& p = e.path();
    if (!e.is_regular_file() || (p.extension() != format::kWdlSuffix && p.extension() != format::kDtwSuffix)) return false;
    return parse_material(p.stem().string()).has_value();
}

// The database files of `dir`, in name order.
std::vector<fs::path> database_files(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
        if (is_database_file(e)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

std::vector<std::string> files_of_older_versions(const fs::path& dir) {
    std::vector<std::string> out;
    for (const fs::path& path : database_files(dir)) {
        try {
            if (TableFile(path, file_kind_of(path)).header().format_version < format::kFormatVersion)
                out.push_back(path.filename().string());
        } catch (const TableError&) {
        }
    }
    return out;
}

bool upgrade_file(const fs::path& path) {
    const TableFile file(path, file_kind_of(path));
    format::Header header = file.header();
    if (header.format_version == format::kFormatVersion) return false;
    // Renaming over a link would leave its target as it was and the link replaced by a copy.
    if (fs::is_symlink(path))
        throw std::runtime_error(path.string() + " is a symbolic link to a file of format version 1: upgrade the folder " +
                                 "that holds the file itself");
    const std::uint64_t blocks = header.block_count;
    std::vector<std::vector<unsigned char>> frames(blocks);
    std::vector<std::uint32_t> checks(blocks);
    std::vector<std::uint64_t> hashes(blocks);
    tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t b) {
        std::vector<std::uint8_t> content;
        file.read_frame(b, frames[b]);
        file.decode_block(b, frames[b], content);  // checks the frame's content checksum, which goes away
        checks[b] = format::block_check(b, content.data(), content.size());
        hashes[b] = XXH64(content.data(), content.size(), 0);
        drop_content_checksum(file, b, frames[b]);
    });
    write_table(path.parent_path(), path.filename().string(), header, frames, checks, hashes);
    return true;
}

UpgradeReport upgrade_folder(
    const fs::path& dir,
    const std::function<void(const std::string& name, UpgradeOutcome, const std::string& reason)>& done) {
    if (!fs::is_directory(dir)) throw std::runtime_error(dir.string() + " is not a folder");
    const FolderLock lock(dir, "");
    UpgradeReport report;
    for (const fs::path& path : database_files(dir)) {
        const std::string name = path.filename().string();
        try {
            if (upgrade_file(path)) {
                report.upgraded.push_back(name);
                done(name, UpgradeOutcome::Upgraded, "");
            } else {
                ++report.current;
                done(name, UpgradeOutcome::Current, "");
            }
        } catch (const std::exception& e) {
            report.errors.push_back(e.what());
            done(name, UpgradeOutcome::Failed, e.what());
        }
    }
    return report;
}

}  // namespace dtb
