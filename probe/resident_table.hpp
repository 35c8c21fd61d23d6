// The values of one .wdl file held in memory in a byte code that answers a probe without
// decompressing a block (internal to the probing library; TablebaseOptions::resident).
//
// The values are first cut into tokens, each covering consecutive positions of the index:
//   ternary   three positions, any values
//   binary    six positions of at most two values (a pair of values and a 6-bit pattern)
//   run       five or more positions of one value
// (runs of five or more take run tokens, shorter stretches literals: six positions when they hold
// at most two values, else three). Each table then has its own dictionary of up to 222 phrases,
// sequences of one to four tokens chosen for what they save (frequent runs of a given length, frequent
// patterns, and frequent successions of these), and the byte code is:
//   0..26     a ternary token: v0 + 3 v1 + 9 v2
//   27..248   a phrase of the table's dictionary
//   249..251  a run of value c - 249, of length 5 + the next byte (5..260)
//   252..254  a run of value c - 252, its length in the next 4 bytes (little-endian)
//   255       padding: the rest of the chunk covers nothing
// A binary token outside the dictionary is written as two ternary ones. The stream is cut into
// chunks of 64 bytes (one cache line; 16 in small tables); no code straddles two, and no chunk
// covers more than kMaxChunkSpan positions. Each chunk begins with the low kSpanBits bits of its
// first position (in 3 bytes, or in the prefix code's first 20 bits), which the probe, knowing its
// own position, completes. A probe finds its chunk through a hint for every 2^s-th position (about
// one a chunk, 16 bits each above a base for every 1,024 of them): the chunks of the hints before
// and after its position are usually the same or adjacent, so a probe makes two dependent reads
// from memory (the hint, then those chunks side by side) where a separate table of chunk starts
// made three. It then adds up the positions each code covers (one table lookup a byte) in that
// one chunk, and finally looks inside the code that holds its position.
// Large tables (those that hold most of the memory) write their codes in a prefix code instead: a
// canonical Huffman code of at most 11 bits, built on the table's own counts, read least
// significant bit first. Its symbols are the code bytes below 249 and, for runs, their value and
// the bit width w of their length less 5, followed by the w - 1 bits of that number below its
// leading one. A code byte then takes about 6 bits instead of 8, a run of 300 positions 15 or so
// instead of 40, and a probe decodes each with one lookup into a 2,048-entry table (9 bits would
// keep that table in the first-level cache, but take 2.5% more: all of 2-6 would pass 1.0 GB).
// Small tables (at most kDirectTablePositions positions: every table of 2-4 pieces) skip all this
// and keep the file's own value bytes, five positions a byte: 8.6 MB for all of 2-4 pieces against
// 2.0 MB coded, for a probe that reads one byte instead of scanning a chunk (the tables engines
// probe most, at 70 ns a probe instead of 120).
// Capture positions are whatever the file stored for them ("don't care", filled to extend runs),
// as in the blocks: the caller resolves them by search.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "probe/format.hpp"

namespace dtb {

class TableFile;

namespace detail {

// Where a probe starts looking for its chunk: the chunk holding position h << shift is
// bases[h >> kGroupShift] + above_base[h], for every h up to the last position's, and one more
// entry names the last chunk.
struct ChunkHints {
    static constexpr int kGroupShift = 10;  // a base for every 1,024 hints
    int shift = 0;
    std::vector<std::uint16_t> above_base;
    std::vector<std::uint32_t> bases;
};
// The hints of chunks starting at `starts` (ascending, from 0, and the table's positions at the
// end): about one a chunk.
ChunkHints make_chunk_hints(const std::vector<std::uint64_t>& starts);

class ResidentTable {
public:
    enum class Coding { Automatic, Bytes, Bits, Direct };

    // Reads and decodes every block of `file` (a .wdl file) and encodes its values in chunks of
    // `chunk_bytes` (16, 32 or 64; 0: kSmallChunkBytes for a table of fewer than kSmallTableTokens
    // tokens, else kLargeChunkBytes), its codes as bytes or in a prefix code (Automatic: bits for
    // tables of kSmallTableTokens tokens or more; Direct for those of at most kDirectTablePositions
    // positions, whatever `chunk_bytes`); throws TableError when a block is corrupt or
    // holds a byte outside the base-3 range.
    explicit ResidentTable(const TableFile& file, std::size_t chunk_bytes = 0, Coding coding = Coding::Automatic);

    // The stored value of position `index` (< positions()): Loss, Draw or Win.
    Value value(std::uint64_t index) const;

    std::uint64_t positions() const { return positions_; }
    // Memory held: codes, hints and the dictionary, or the direct bytes.
    std::size_t bytes() const;

    // Small coded tables (the smaller ones of 5 pieces; those of 2-4 are held directly) take short
    // chunks: a shorter scan for a 3-byte header every 16 bytes, memory they can afford; large
    // ones a cache line.
    static constexpr std::size_t kSmallChunkBytes = 16;
    static constexpr std::size_t kLargeChunkBytes = 64;
    static constexpr std::size_t kSmallTableTokens = std::size_t{1} << 20;
    static constexpr std::uint64_t kDirectTablePositions = 5'000'000;
    static constexpr int kMaxPhraseTokens = 4;
    static constexpr int kMaxCodeBits = 11;  // of the prefix code
    // Positions a chunk covers at most: its first position's low kSpanBits bits name it.
    static constexpr int kSpanBits = 20;
    static constexpr std::uint64_t kMaxChunkSpan = std::uint64_t{1} << kSpanBits;

    using Token = std::uint64_t;  // kind (2 bits), value or pair (2 bits), pattern or length (32 bits)
    struct Phrase {
        std::array<Token, kMaxPhraseTokens> tokens{};
        int size = 0;
    };

private:
    class Encoder;
    struct ChunkAndRest {
        std::uint64_t chunk;
        std::uint64_t rest;  // positions of the chunk before index's
    };
    void read_direct(const TableFile& file);
    std::uint64_t hinted_chunk(std::uint64_t h) const { return hint_bases_[h >> ChunkHints::kGroupShift] + hints_[h]; }
    // The low kSpanBits bits of the chunk's first position (its header: 3 bytes, or the prefix code's
    // first kSpanBits bits).
    std::uint64_t chunk_header(std::uint64_t chunk) const {
        const std::uint8_t* header = codes_.data() + (chunk << chunk_shift_);
        return (std::uint64_t{header[0]} | std::uint64_t{header[1]} << 8 | std::uint64_t{header[2]} << 16) & (kMaxChunkSpan - 1);
    }
    ChunkAndRest find_chunk(std::uint64_t index) const;
    Value value_in_bytes(std::uint64_t chunk, std::uint64_t rest) const;
    Value value_in_bits(std::uint64_t chunk, std::uint64_t rest) const;
    Value value_in_phrase(std::uint8_t code, std::uint64_t offset) const;

    std::uint64_t positions_ = 0;
    std::vector<std::uint8_t> direct_;          // Direct: the value bytes (none in the other codings)
    std::array<std::uint32_t, 256> covers_{};  // positions each one-byte code covers (0: escapes)
    std::vector<Phrase> phrases_;               // code 27 + i is phrases_[i]
    int chunk_shift_ = 6;                       // chunks of 2^chunk_shift_ bytes
    std::vector<std::uint8_t> codes_;           // whole chunks, each behind its header, padded with 255 (bytes) or zeros (bits)
    bool bits_ = false;                         // codes in the prefix code
    std::vector<std::uint32_t> decode_;         // bits: the next kMaxCodeBits bits -> symbol and its bit counts
    std::vector<std::uint32_t> symbol_base_;    // bits: positions a symbol covers, less its extra bits
    int hint_shift_ = 0;
    std::vector<std::uint16_t> hints_;          // ChunkHints
    std::vector<std::uint32_t> hint_bases_;
};

}  // namespace detail
}  // namespace dtb
