#include "gen/writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include <fcntl.h>
#include <tbb/parallel_for.h>
#include <unistd.h>
#include <xxhash.h>

#include "gen/encoding.hpp"
#include "index/position_index.hpp"
#include "probe/table_file.hpp"
#include "rules/movegen.hpp"

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

// How many positions of a WDL block fall in each class.
struct WdlBlockCounts {
    std::uint64_t captures = 0, wins = 0, draws = 0, losses = 0;
};

WdlBlockCounts wdl_block_counts(std::span<const std::uint8_t> bytes) {
    // Sums of comparisons, without a branch a position (the classes follow no pattern) and
    // vectorised by the compiler.
    WdlBlockCounts out;
    for (const std::uint8_t v : bytes) {
        out.captures += (v & kCaptureFlag) != 0;
        out.wins += (v & (kCaptureFlag | kValueMask)) == static_cast<std::uint8_t>(Value::Win);
        out.draws += (v & (kCaptureFlag | kValueMask)) == static_cast<std::uint8_t>(Value::Draw);
    }
    out.losses = bytes.size() - out.captures - out.wins - out.draws;
    return out;
}

// Reads the file back through the probing library's reader and compares every block with the hash
// of what was compressed (the raw blocks themselves would take a byte a position).
void check_hashes(const std::filesystem::path& path, format::FileKind kind, const std::vector<std::uint64_t>& hashes) {
    const TableFile file(path, kind);
    std::vector<std::uint8_t> block;
    for (std::uint64_t b = 0; b < hashes.size(); ++b) {
        file.read_block(b, block);
        if (XXH64(block.data(), block.size(), 0) != hashes[b])
            throw std::runtime_error(path.string() + ": block " + std::to_string(b) + " reads back differently");
    }
}

// Per block of a DTW file: the counts of its positions and its largest DTW.
struct DtwBlockStats {
    std::uint64_t captures = 0, wins = 0, draws = 0, losses = 0;
    std::uint32_t max_dtw = 0;
    std::uint32_t longest_win = 0;
    std::uint64_t longest_win_index = 0;  // the first position of the block with that win
};

// Whether positions of a material have a capture, asked in increasing index order from `first`:
// the solver's bits when it gave them, else searched.
class CaptureScan {
public:
    CaptureScan(const PositionIndex& index, const CaptureBits& bits, std::uint64_t first)
        : bits_(bits), walked_to_(first) {
        if (!bits.known()) walker_.emplace(index, first);
    }
    bool at(std::uint64_t i) {
        if (!walker_) return bits_.test(i);
        for (; walked_to_ < i; ++walked_to_) walker_->next();
        return has_capture(walker_->current());
    }

private:
    const CaptureBits& bits_;
    std::uint64_t walked_to_;  // the walker's position
    std::optional<PositionWalker> walker_;
};

DtwBlockStats dtw_block_stats(const PositionIndex& index, const DtwMaterial& solved, std::uint64_t first,
                              std::uint64_t count) {
    DtwBlockStats s;
    CaptureScan captures(index, solved.captures, first);
    for (std::uint64_t i = first; i < first + count; ++i) {
        const Dtw d = solved.dtw[i];
        // The longest win counts capture positions too (their DTW is exact in memory).
        if (dtw_is_win(d) && d > s.longest_win) s.longest_win = d, s.longest_win_index = i;
        if (captures.at(i))
            ++s.captures;
        else if (d == kDtwDraw)
            ++s.draws;
        else {
            ++(dtw_is_win(d) ? s.wins : s.losses);
            s.max_dtw = std::max<std::uint32_t>(s.max_dtw, d);
        }
    }
    return s;
}

// The numbers of one DTW block before encoding: DTW/2 of the positions whose distance is stored
// (losses, and wins if `store_wins`), kDtwDontCare for the others.
std::vector<std::uint16_t> dtw_block_halves(const PositionIndex& index, const DtwMaterial& solved, std::uint64_t first,
                                            std::uint64_t count, bool store_wins) {
    std::vector<std::uint16_t> halves(count);
    CaptureScan captures(index, solved.captures, first);
    for (std::uint64_t j = 0; j < count; ++j) {
        const Dtw d = solved.dtw[first + j];
        const bool stored = d != kDtwDraw && (store_wins || dtw_is_loss(d)) && !captures.at(first + j);
        halves[j] = stored ? static_cast<std::uint16_t>(d / 2u) : kDtwDontCare;
    }
    return halves;
}

// The stored bytes of one DTW block, `width` bytes a number; don't-care positions repeat the
// number stored before them in the block (0 at its start). Measured against the other fills by
// `dtb bench format --dtw` (docs/FORMAT.md), for both stored classes.
std::vector<std::uint8_t> dtw_block_bytes(const PositionIndex& index, const DtwMaterial& solved, std::uint64_t first,
                                          std::uint64_t count, std::uint32_t width, bool store_wins) {
    std::vector<std::uint16_t> halves = dtw_block_halves(index, solved, first, count, store_wins);
    fill_dtw_dont_care(halves, DtwFill::Previous);
    return lay_out_dtw(halves, width, DtwLayout::Plain);
}

}  // namespace

std::uint64_t write_table(const std::filesystem::path& dir, const std::string& name, format::Header& header,
                          const std::vector<std::vector<unsigned char>>& frames,
                          const std::vector<std::uint32_t>& block_checks, const std::vector<std::uint64_t>& content_hashes) {
    if (frames.size() != header.block_count || block_checks.size() != header.block_count ||
        content_hashes.size() != header.block_count)
        throw std::logic_error("write_table: " + name + " needs one frame, check and hash per block");
    header.format_version = format::kFormatVersion;
    std::vector<std::uint64_t> offsets(header.block_count + 1);
    offsets[0] = format::kHeaderBytes + header.block_table_bytes();
    for (std::uint64_t b = 0; b < header.block_count; ++b) offsets[b + 1] = offsets[b] + frames[b].size();
    std::vector<unsigned char> table(header.block_table_bytes());
    std::memcpy(table.data(), offsets.data(), offsets.size() * sizeof(std::uint64_t));
    std::memcpy(table.data() + offsets.size() * sizeof(std::uint64_t), block_checks.data(),
                block_checks.size() * sizeof(std::uint32_t));
    header.table_checksum = XXH64(table.data(), table.size(), 0);
    const std::filesystem::path final_path = dir / name;
    const std::filesystem::path temp_path = final_path.string() + ".tmp";
    try {
        OutputFile out(temp_path);
        const auto header_bytes = format::encode_header(header);
        out.write(header_bytes.data(), header_bytes.size());
        out.write(table.data(), table.size());
        for (const auto& f : frames) out.write(f.data(), f.size());
        out.sync_and_close();
        check_hashes(temp_path, header.kind, content_hashes);
        std::filesystem::rename(temp_path, final_path);
    } catch (...) {
        std::error_code ignored;
        std::filesystem::remove(temp_path, ignored);
        throw;
    }
    sync_directory(dir);
    return offsets.back();
}

WrittenFile write_dtw_file(const std::filesystem::path& dir, const DtwMaterial& solved, const WriteOptions& options) {
    if (const char* problem = format::block_size_problem(options.positions_per_block, format::FileKind::Dtw))
        throw std::invalid_argument(problem);
    const PositionIndex index(solved.material);
    format::Header header;
    header.kind = format::FileKind::Dtw;
    header.material = solved.material;
    header.positions = solved.dtw.size();
    if (solved.captures.known() && solved.captures.positions() != header.positions)
        throw std::invalid_argument("the capture bits of " + solved.material.name() + " have the wrong size");
    header.positions_per_block = options.positions_per_block;
    header.block_count = (header.positions + header.positions_per_block - 1) / header.positions_per_block;
    const auto block_count_of = [&](std::uint64_t b) {
        return std::min<std::uint64_t>(header.positions_per_block, header.positions - b * header.positions_per_block);
    };
    std::vector<DtwBlockStats> stats(header.block_count);
    tbb::parallel_for(std::uint64_t{0}, header.block_count, [&](std::uint64_t b) {
        stats[b] = dtw_block_stats(index, solved, b * header.positions_per_block, block_count_of(b));
    });
    for (const DtwBlockStats& s : stats) {
        header.captures += s.captures;
        header.wins += s.wins;
        header.draws += s.draws;
        header.losses += s.losses;
        header.max_dtw = std::max(header.max_dtw, s.max_dtw);
        if (s.longest_win > header.longest_win) {  // blocks in order: the first such position wins ties
            header.longest_win = s.longest_win;
            header.longest_win_index = s.longest_win_index;
        }
    }
    const bool one_byte = header.max_dtw / 2 <= 0xFF;
    if (options.dtw_store_wins)
        header.value_encoding = one_byte ? format::kEncodingDtwU8 : format::kEncodingDtwU16;
    else
        header.value_encoding = one_byte ? format::kEncodingDtwLossesU8 : format::kEncodingDtwLossesU16;
    const std::uint32_t width = header.dtw_width();
    // Only a hash of each block is kept for the read-back check: the raw blocks would double the
    // memory a large material needs while it is written.
    std::vector<std::uint64_t> hashes(header.block_count);
    std::vector<std::uint32_t> checks(header.block_count);
    std::vector<std::vector<unsigned char>> compressed(header.block_count);
    tbb::parallel_for(std::uint64_t{0}, header.block_count, [&](std::uint64_t b) {
        const auto raw = dtw_block_bytes(index, solved, b * header.positions_per_block, block_count_of(b), width,
                                         options.dtw_store_wins);
        hashes[b] = XXH64(raw.data(), raw.size(), 0);
        checks[b] = format::block_check(b, raw.data(), raw.size());
        compressed[b] = compress_block(raw, options.dtw_zstd_level);
    });
    const std::uint64_t bytes =
        write_table(dir, format::dtw_file_name(solved.material), header, compressed, checks, hashes);
    return {header, bytes};
}

void sync_directory(const std::filesystem::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;  // best effort: some file systems do not allow it
    ::fsync(fd);
    ::close(fd);
}

namespace {

// Blocks are filled and compressed a batch at a time: the raw value bytes of a batch (a byte a
// position) are all that is held besides the compressed blocks.
constexpr std::uint64_t kBlocksPerBatch = 64;

// fill(first, out) gives the value bytes of positions [first, first + out.size()); with
// `fill_in_parallel` the blocks of a batch are filled by several threads at once, else in order.
template <typename Fill>
WrittenFile write_wdl_blocks(const std::filesystem::path& dir, const Material& material, std::uint64_t positions,
                             const Fill& fill, bool fill_in_parallel, const WriteOptions& options) {
    if (const char* problem = format::block_size_problem(options.positions_per_block, format::FileKind::Wdl))
        throw std::invalid_argument(problem);
    format::Header header;
    header.material = material;
    header.positions = positions;
    header.positions_per_block = options.positions_per_block;
    header.block_count = (header.positions + header.positions_per_block - 1) / header.positions_per_block;
    std::vector<WdlBlockCounts> counts(header.block_count);
    std::vector<std::uint64_t> hashes(header.block_count);
    std::vector<std::uint32_t> checks(header.block_count);
    std::vector<std::vector<unsigned char>> compressed(header.block_count);
    const auto first_of = [&](std::uint64_t b) { return b * header.positions_per_block; };
    const auto count_of = [&](std::uint64_t b) {
        return std::min<std::uint64_t>(header.positions_per_block, header.positions - first_of(b));
    };
    for (std::uint64_t batch = 0; batch < header.block_count; batch += kBlocksPerBatch) {
        const std::uint64_t n = std::min(kBlocksPerBatch, header.block_count - batch);
        std::vector<std::vector<std::uint8_t>> raw(n);
        const auto fill_block = [&](std::uint64_t k) {
            raw[k].resize(count_of(batch + k));
            fill(first_of(batch + k), std::span<std::uint8_t>(raw[k]));
        };
        if (fill_in_parallel)
            tbb::parallel_for(std::uint64_t{0}, n, fill_block);
        else
            for (std::uint64_t k = 0; k < n; ++k) fill_block(k);
        tbb::parallel_for(std::uint64_t{0}, n, [&](std::uint64_t k) {
            const std::uint64_t b = batch + k;
            counts[b] = wdl_block_counts(raw[k]);
            WdlBlock block = encode_wdl_block(raw[k].data(), raw[k].size(), options.zstd_level);
            std::vector<std::uint8_t>().swap(raw[k]);
            hashes[b] = XXH64(block.raw.data(), block.raw.size(), 0);
            checks[b] = format::block_check(b, block.raw.data(), block.raw.size());
            compressed[b] = std::move(block.frame);
        });
    }
    for (const WdlBlockCounts& c : counts) {
        header.captures += c.captures;
        header.wins += c.wins;
        header.draws += c.draws;
        header.losses += c.losses;
    }
    const std::uint64_t bytes = write_table(dir, format::wdl_file_name(material), header, compressed, checks, hashes);
    return {header, bytes};
}

}  // namespace

WrittenFile write_wdl_file(const std::filesystem::path& dir, const SolvedMaterial& solved, const WriteOptions& options) {
    if (solved.captures.positions() != solved.values.positions())
        throw std::invalid_argument("the capture bits of " + solved.material.name() + " have the wrong size");
    const auto fill = [&](std::uint64_t first, std::span<std::uint8_t> out) {
        solved.value_bytes(first, out);
    };
    return write_wdl_blocks(dir, solved.material, solved.values.positions(), fill, true, options);
}

WrittenFile write_wdl_file(const std::filesystem::path& dir, const Material& material, std::uint64_t positions,
                           const ValueByteStream& values, const WriteOptions& options) {
    return write_wdl_blocks(dir, material, positions, values, false, options);
}

}  // namespace dtb
