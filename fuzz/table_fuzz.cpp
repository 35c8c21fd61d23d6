// Opening and probing a database file whose bytes are the fuzz input. Compiled twice:
//   table_fuzz              the input is the file as it is, so every mutation the checksums catch
//                           must be refused, and any value read must be the true one;
//   table_checksummed_fuzz  (DTB_FUZZ_FIX_CHECKSUMS) the block table checksum and then the
//                           header checksum are rewritten to match the mutated bytes, so that the
//                           checks behind them (sizes, counts, offsets, block frames) are reached.
// The file is named after the material its header names (KvK when that is not a small material)
// and the kind its magic number says. When DTB_FUZZ_TABLES names a folder of real databases (the
// seed tables), they stand next to it, so that captures resolve and DTW files have their WDL file;
// they also give the true values. Invariants: opening fails with TableError or yields a file whose
// blocks decode to their announced size or fail with TableError; a probe is known with no error,
// or unknown with an error and a reason, never throws, and (unmodified checksums) is never wrong.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>
#include <xxhash.h>

#include "fuzz/fuzz_check.hpp"
#include "index/position_index.hpp"
#include "probe/table_file.hpp"
#include "probe/tablebase.hpp"

namespace {

namespace fs = std::filesystem;
using namespace dtb;
using fuzz::check;

#ifdef DTB_FUZZ_FIX_CHECKSUMS
constexpr bool kFixChecksums = true;
#else
constexpr bool kFixChecksums = false;
#endif

constexpr int kProbes = 48;     // positions probed per input, spread over the material's index
constexpr int kMaxBlocks = 16;  // blocks read directly per input (the first ones and the last)

std::uint64_t get_u64(const std::vector<std::uint8_t>& b, std::size_t at) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(b[at + i]) << (8 * i);
    return v;
}

void put_u64(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) {
    for (std::size_t i = 0; i < 8; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// The material named by header bytes 16..19 when it is one of 2 to 4 pieces, KvK otherwise.
Material material_of_header(const std::vector<std::uint8_t>& file) {
    const Material kvk{0, 1, 0, 1};
    if (file.size() < 20) return kvk;
    const Material m{file[16], file[17], file[18], file[19]};
    if (m.pieces() > 4 || m.white_pieces() == 0 || m.black_pieces() == 0) return kvk;
    return parse_material(m.name()) == m ? m : kvk;
}

// Makes the mutated header pass its checksums. Byte 120, the first of the header checksum (which
// is rewritten anyway), chooses fields to make consistent first, so that mutations of the sizes
// reach the checks behind the header's own: bit 0 the position count N (the index size of the
// material), bit 1 the block count B = ceil(N / P). Then the block table checksum (bytes 80..87,
// over the 12B + 8 bytes after the header in version 2, 8(B+1) in version 1) and the header checksum (bytes 120..127, over
// bytes 0..119), as docs/FORMAT.md defines them.
void fix_checksums(std::vector<std::uint8_t>& file) {
    if (file.size() < format::kHeaderBytes) return;
    const std::uint8_t choice = file[format::kHeaderBytes - 8];
    if (choice & 1) put_u64(file, 32, PositionIndex(material_of_header(file)).size());
    const std::uint64_t per_block = get_u64(file, 28) & 0xFFFFFFFF;
    if ((choice & 2) && per_block != 0) put_u64(file, 40, (get_u64(file, 32) + per_block - 1) / per_block);
    const std::uint64_t blocks = get_u64(file, 40);
    const std::uint64_t entry_bytes = (get_u64(file, 8) & 0xFFFFFFFF) >= 2 ? format::kBlockTableEntryBytes : 8;
    const std::uint64_t room = (file.size() - format::kHeaderBytes) / entry_bytes;
    if (blocks < room)
        put_u64(file, 80, XXH64(file.data() + format::kHeaderBytes, entry_bytes * blocks + 8, 0));
    put_u64(file, format::kHeaderBytes - 8, XXH64(file.data(), format::kHeaderBytes - 8, 0));
}

format::FileKind kind_of(const std::vector<std::uint8_t>& file) {
    const auto& magic = format::kDtwMagic;
    const bool dtw = file.size() >= magic.size() && std::memcmp(file.data(), magic.data(), magic.size()) == 0;
    return dtw ? format::FileKind::Dtw : format::FileKind::Wdl;
}

void write_file(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    check(out.good(), "cannot write the fuzzed file");
}

std::vector<std::uint8_t> read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    check(!in.bad(), "cannot read a reference table");
    return bytes;
}

// The scratch folder: the reference tables copied in, one of them replaced per input. The
// reference bytes stay in memory and go back through an ofstream, whose writes retry when
// interrupted: fs::copy_file does not, and libFuzzer's timeout timer interrupts system calls.
struct Workspace {
    fs::path dir;
    std::map<std::string, std::vector<std::uint8_t>> originals;  // DTB_FUZZ_TABLES, by file name
    std::unique_ptr<Tablebase> truth;                            // over DTB_FUZZ_TABLES, when given

    Workspace() {
        dir = fs::temp_directory_path() / ("dtb-fuzz-" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
        if (const char* tables = std::getenv("DTB_FUZZ_TABLES")) {
            for (const fs::directory_entry& e : fs::directory_iterator(tables))
                if (e.is_regular_file()) originals.emplace(e.path().filename().string(), read_file(e.path()));
            for (const auto& [name, bytes] : originals) write_file(dir / name, bytes);
            truth = std::make_unique<Tablebase>(tables);
        }
    }
    ~Workspace() {
        std::error_code ignored;
        fs::remove_all(dir, ignored);
    }
    // Puts the reference file back (or removes the fuzzed one) after an input.
    void restore(const std::string& name) const {
        std::error_code ignored;
        fs::remove(dir / name, ignored);
        if (const auto original = originals.find(name); original != originals.end())
            write_file(dir / name, original->second);
    }
};

void read_blocks_directly(const fs::path& path, format::FileKind kind) {
    std::optional<TableFile> file;
    try {
        file.emplace(path, kind);
    } catch (const TableError& e) {
        check(std::strlen(e.what()) > 0, "a TableError without a message");
        return;
    }
    const format::Header& h = file->header();
    check(h.kind == kind, "a file opened as another kind");
    std::vector<std::uint8_t> out;
    std::vector<std::uint64_t> blocks;
    for (std::uint64_t b = 0; b < h.block_count && b < kMaxBlocks; ++b) blocks.push_back(b);
    if (h.block_count > kMaxBlocks) blocks.push_back(h.block_count - 1);
    for (const std::uint64_t b : blocks) {
        try {
            file->read_block(b, out);
            check(out.size() == h.block_bytes(b), "a block decoded to another size than its header says");
        } catch (const TableError&) {
        }
    }
}

void check_result(const ProbeResult& r, std::optional<ProbeResult> truth) {
    check(r.value <= Value::Unknown, "a probe value out of range");
    check(r.known() == (r.error == ProbeError::None), "a probe known with an error, or unknown without one");
    check(r.known() == r.reason.empty(), "a probe reason does not match its value");
    if (r.known() && truth && truth->known()) check(r.value == truth->value, "a probe returned a wrong value");
}

void check_dtw(const DtwResult& r, std::optional<DtwResult> truth) {
    check(r.known() == (r.error == ProbeError::None), "a DTW probe known with an error, or unknown without one");
    if (r.value == Value::Win) check(r.dtw >= 1 && r.dtw % 2 == 1, "a win with an even or missing distance");
    else if (r.value == Value::Loss) check(r.dtw >= 0 && r.dtw % 2 == 0, "a loss with an odd or missing distance");
    else check(r.dtw == -1, "a draw or unknown value with a distance");
    if (r.known() && truth && truth->known())
        check(r.value == truth->value && r.dtw == truth->dtw, "a DTW probe returned a wrong value or distance");
}

void probe_material(const Workspace& ws, const Material& m, format::FileKind kind) {
    const Tablebase tb(ws.dir, {.cache_mb = 1, .max_open_files = 4, .log = nullptr});
    const PositionIndex index(m);
    const bool compare = !kFixChecksums && ws.truth;
    for (int k = 0; k < kProbes; ++k) {
        const Position white = index.position(index.size() * static_cast<std::uint64_t>(k) / kProbes);
        for (const Position& pos : {white, flip_colors(white)}) {
            if (position_problem(pos) != nullptr) continue;
            check_result(tb.probe_wdl(pos), compare ? std::optional(ws.truth->probe_wdl(pos)) : std::nullopt);
            check_result(tb.probe_wdl_soft(pos), compare ? std::optional(ws.truth->probe_wdl(pos)) : std::nullopt);
            if (k % 8 == 0)
                for (const MoveValue& mv : tb.probe_moves(pos)) check_result(mv.result, std::nullopt);
            if (kind == format::FileKind::Dtw)
                check_dtw(tb.probe_dtw(pos), compare ? std::optional(ws.truth->probe_dtw(pos)) : std::nullopt);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const Workspace ws;
    std::vector<std::uint8_t> file(data, data + size);
    if (kFixChecksums) fix_checksums(file);
    const format::FileKind kind = kind_of(file);
    const Material m = material_of_header(file);
    const std::string name = kind == format::FileKind::Dtw ? format::dtw_file_name(m) : format::wdl_file_name(m);
    write_file(ws.dir / name, file);
    read_blocks_directly(ws.dir / name, kind);
    probe_material(ws, m, kind);
    ws.restore(name);
    return 0;
}
