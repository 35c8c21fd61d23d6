#include "probe/resident_table.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "probe/table_file.hpp"

namespace dtb::detail {
namespace {

using Token = ResidentTable::Token;
using Phrase = ResidentTable::Phrase;
constexpr int kMaxPhraseTokens = ResidentTable::kMaxPhraseTokens;

// The codes (resident_table.hpp).
constexpr int kTernaryCodes = 27;
constexpr int kFirstPhraseCode = kTernaryCodes;
constexpr int kFirstMediumRunCode = 249;
constexpr int kMaxPhrases = kFirstMediumRunCode - kFirstPhraseCode;  // 222
constexpr int kFirstLongRunCode = kFirstMediumRunCode + 3;
constexpr std::uint8_t kPadding = 255;
static_assert(kFirstLongRunCode + 3 == kPadding);
constexpr std::size_t kLongRunBytes = 5;
constexpr std::uint64_t kTernaryPositions = 3;
constexpr int kBinaryPositions = 6;
constexpr std::uint64_t kMinRun = 5;  // shorter stretches go into literals
constexpr std::uint64_t kMaxMediumRun = kMinRun + 255;
constexpr std::uint64_t kPayloadMask = std::numeric_limits<std::uint32_t>::max();
// A code covers at most a chunk's span (ResidentTable::kMaxChunkSpan).
constexpr std::uint64_t kMaxTokenLength = ResidentTable::kMaxChunkSpan;
constexpr std::uint64_t kSpanMask = ResidentTable::kMaxChunkSpan - 1;
constexpr std::size_t kHeaderBytes = 3;  // a byte-coded chunk's header; the prefix code's takes kSpanBits bits
static_assert(ResidentTable::kSpanBits <= 8 * kHeaderBytes);

// The prefix code's symbols (ResidentTable::Encoder::finish_bits): the code bytes below 249, then
// runs by value and bit width of their length less 5 (0..32).
constexpr std::uint32_t kFirstRunSymbol = 256;
constexpr std::uint32_t kBitSymbols = kFirstRunSymbol + 4 * 33;
// A decoding entry (ResidentTable::decode_): the symbol, the bits it takes in all (code and
// extra bits), its code's bits, its extra bits.
constexpr std::uint32_t kSymbolMask = 511;
constexpr int kConsumedShift = 9, kCodeBitsShift = 15, kExtraShift = 19;
static_assert(kBitSymbols <= kSymbolMask + 1);
static_assert(kBitSymbols <= 1u << ResidentTable::kMaxCodeBits);  // or halving counts would never fit the limit
// Bits after a run symbol: those of its length below the leading one.
constexpr std::uint32_t run_extra_bits(std::uint32_t symbol) {
    const std::uint32_t width = symbol < kFirstRunSymbol ? 0 : (symbol - kFirstRunSymbol) / 4;
    return width > 0 ? width - 1 : 0;
}
// The length of a run symbol's shortest run: its extra bits add to this.
constexpr std::uint32_t run_base(std::uint32_t symbol) {
    const std::uint32_t width = (symbol - kFirstRunSymbol) / 4;
    return static_cast<std::uint32_t>(kMinRun) + (width > 0 ? std::uint32_t{1} << (width - 1) : 0);
}
constexpr std::uint32_t kMaxSymbolBits = ResidentTable::kMaxCodeBits + ResidentTable::kSpanBits;  // a run's code, then its extra bits

enum TokenKind : std::uint64_t { kTernary = 0, kBinary = 1, kRun = 2 };
// The value pairs of binary tokens: bit 0 stands for kPairs[p][0], bit 1 for kPairs[p][1].
constexpr std::uint8_t kPairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};

constexpr Token make_token(TokenKind kind, std::uint64_t value, std::uint64_t payload) {
    return std::uint64_t{kind} << 62 | value << 60 | payload;
}
constexpr std::uint64_t kind_of(Token t) { return t >> 62; }
constexpr std::uint64_t value_of(Token t) { return (t >> 60) & 3; }
constexpr std::uint64_t payload_of(Token t) { return t & kPayloadMask; }

// Digit `offset` (0..2) of a ternary code: the files' base-3 digits (a code is below 27).
inline std::uint8_t ternary_digit(std::uint64_t code, std::uint64_t offset) { return format::kBase3.digits[code][offset]; }

std::uint64_t token_length(Token t) {
    switch (kind_of(t)) {
        case kTernary: return kTernaryPositions;
        case kBinary: return kBinaryPositions;
        default: return payload_of(t);
    }
}

std::uint8_t token_value(Token t, std::uint64_t offset) {
    switch (kind_of(t)) {
        case kTernary: return ternary_digit(payload_of(t), offset);
        case kBinary: return kPairs[value_of(t)][(payload_of(t) >> offset) & 1];
        default: return static_cast<std::uint8_t>(value_of(t));
    }
}

// Bytes a token takes outside the dictionary.
int fallback_bytes(Token t) {
    switch (kind_of(t)) {
        case kTernary: return 1;
        case kBinary: return 2;  // two ternary codes
        default: return payload_of(t) <= kMaxMediumRun ? 2 : static_cast<int>(kLongRunBytes);
    }
}

// Cuts runs of values into tokens: runs of five or more into run tokens, the rest into literals
// of six positions when they take at most two values, else of three.
class Tokenizer {
public:
    void add_run(std::uint8_t value, std::uint64_t count) {
        while (count > 0) {
            if (pending_ == 0 && count >= kMinRun) {
                for (; count >= kMinRun; count -= std::min(count, kMaxTokenLength))
                    tokens_.push_back(make_token(kRun, value, std::min(count, kMaxTokenLength)));
                // (only past kMaxTokenLength positions) a run of 1-4 left: into the next literal
            }
            while (count > 0 && pending_ < kBinaryPositions) literal_[pending_++] = value, --count;
            if (pending_ == kBinaryPositions) flush_literal();
            // What the literal left over, all of this run's value, joins the rest of the run.
            if (count > 0 && std::all_of(literal_, literal_ + pending_, [&](std::uint8_t v) { return v == value; })) {
                count += static_cast<std::uint64_t>(pending_);
                pending_ = 0;
            }
        }
    }

    // Ends with what is pending (its padding positions lie past the table, never asked for).
    std::vector<Token> finish() {
        while (pending_ > 0) {
            for (int i = pending_; i < kBinaryPositions; ++i) literal_[i] = literal_[pending_ - 1];
            if (pending_ < kBinaryPositions && two_valued()) pending_ = kBinaryPositions;
            else if (pending_ < static_cast<int>(kTernaryPositions)) pending_ = kTernaryPositions;
            flush_literal();
        }
        return std::move(tokens_);
    }

private:
    bool two_valued() const { return seen() != 7; }
    std::uint8_t seen() const {
        std::uint8_t bits = 0;
        for (int i = 0; i < kBinaryPositions; ++i) bits |= static_cast<std::uint8_t>(1 << literal_[i]);
        return bits;
    }

    // The six pending values as one binary token if they take at most two values, else the first
    // three as a ternary token (the other three stay pending).
    void flush_literal() {
        if (const std::uint8_t bits = seen(); bits != 7) {
            const std::uint64_t pair = bits == 4 || bits == 6 ? 2 : bits == 5 ? 1 : 0;  // {2}, {1,2}: 2; {0,2}: 1
            std::uint64_t pattern = 0;
            for (int i = 0; i < kBinaryPositions; ++i) pattern |= std::uint64_t{literal_[i] == kPairs[pair][1]} << i;
            tokens_.push_back(make_token(kBinary, pair, pattern));
            pending_ = 0;
            return;
        }
        tokens_.push_back(make_token(kTernary, 0, literal_[0] + 3 * literal_[1] + 9 * literal_[2]));
        std::copy(literal_ + kTernaryPositions, literal_ + kBinaryPositions, literal_);
        pending_ = kBinaryPositions - static_cast<int>(kTernaryPositions);
    }

    std::vector<Token> tokens_;
    std::uint8_t literal_[kBinaryPositions] = {};
    int pending_ = 0;
};

std::uint64_t hash_of(const Phrase& p) {
    std::uint64_t h = static_cast<std::uint64_t>(p.size);
    for (int i = 0; i < p.size; ++i) h = (h ^ p.tokens[i]) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

Phrase phrase_at(const std::vector<Token>& tokens, std::size_t at, int size) {
    Phrase p;
    p.size = size;
    std::copy(tokens.begin() + static_cast<std::ptrdiff_t>(at), tokens.begin() + static_cast<std::ptrdiff_t>(at) + size,
              p.tokens.begin());
    return p;
}

// The table's dictionary: the phrases that save the most bytes, counted on a sample of about
// 130,000 places of the token stream. A phrase saves, at each use, the bytes its tokens would take
// otherwise (one for a token that is itself in the dictionary) less one. Greedy, with lazy
// re-evaluation: a phrase's saving only falls as single tokens enter the dictionary. Phrases are
// counted by a 64-bit hash: two that shared one would only make the choice a little worse (the
// encoder compares the tokens themselves).
std::vector<Phrase> choose_phrases(const std::vector<Token>& tokens) {
    constexpr std::size_t kSample = std::size_t{1} << 17;
    const std::size_t stride = std::max<std::size_t>(1, tokens.size() / kSample);
    struct Counted {
        Phrase phrase;
        std::uint64_t count = 0;
    };
    std::vector<Counted> counted;
    std::unordered_map<std::uint64_t, std::uint32_t> number_of;  // hash -> index in counted
    number_of.reserve(4 * std::min(kSample, tokens.size()) + 16);
    for (std::size_t at = 0; at < tokens.size(); at += stride)
        for (int size = 1; size <= kMaxPhraseTokens && at + static_cast<std::size_t>(size) <= tokens.size(); ++size) {
            if (size == 1 && kind_of(tokens[at]) == kTernary) continue;  // a ternary token is a code already
            const Phrase p = phrase_at(tokens, at, size);
            const auto [it, fresh] = number_of.try_emplace(hash_of(p), static_cast<std::uint32_t>(counted.size()));
            if (fresh) counted.push_back({p, 0});
            ++counted[it->second].count;
        }

    std::unordered_map<Token, bool> single;  // tokens chosen on their own
    const auto saving = [&](const Phrase& p, std::uint64_t count) {
        std::uint64_t bytes = 0, length = 0;
        for (int i = 0; i < p.size; ++i) {
            const Token t = p.tokens[i];
            bytes += kind_of(t) == kTernary || single.count(t) ? 1 : fallback_bytes(t);
            length += token_length(t);
        }
        return length > kMaxTokenLength ? 0 : count * (bytes - 1);  // a code covers at most a chunk's span
    };
    // (saving, entry number): ties go to the later entry, the same in every run.
    std::vector<std::pair<std::uint64_t, std::size_t>> heap;
    for (std::size_t i = 0; i < counted.size(); ++i)
        if (counted[i].count > 1 || counted[i].phrase.size == 1) heap.emplace_back(saving(counted[i].phrase, counted[i].count), i);
    std::make_heap(heap.begin(), heap.end());
    std::vector<Phrase> chosen;
    while (!heap.empty() && chosen.size() < static_cast<std::size_t>(kMaxPhrases)) {
        std::pop_heap(heap.begin(), heap.end());
        const std::size_t i = heap.back().second;
        heap.pop_back();
        const std::uint64_t now = saving(counted[i].phrase, counted[i].count);
        if (now == 0) continue;
        if (!heap.empty() && now < heap.front().first) {  // fell behind another: look again later
            heap.emplace_back(now, i);
            std::push_heap(heap.begin(), heap.end());
            continue;
        }
        chosen.push_back(counted[i].phrase);
        if (counted[i].phrase.size == 1) single[counted[i].phrase.tokens[0]] = true;
    }
    return chosen;
}

// The bytes of one code: the code byte, then a run's length if it has one.
std::size_t code_size(std::uint8_t c) { return c < kFirstMediumRunCode ? 1 : c < kFirstLongRunCode ? 2 : kLongRunBytes; }

// The length of the long run whose code starts at `code`: 4 bytes after the code byte, little-endian.
inline std::uint64_t long_run_length(const std::uint8_t* code) {
    return std::uint64_t{code[1]} | std::uint64_t{code[2]} << 8 | std::uint64_t{code[3]} << 16 | std::uint64_t{code[4]} << 24;
}

// Calls visit(value bytes, positions) for every block of a .wdl file, in order, once
// each of its value bytes is known to be base-3 (below 243); throws TableError otherwise.
template <typename Visit>
void for_each_value_block(const TableFile& file, Visit&& visit) {
    const format::Header& h = file.header();
    std::vector<std::uint8_t> block;
    for (std::uint64_t b = 0; b < h.block_count; ++b) {
        file.read_block(b, block);
        const std::uint64_t n = std::min<std::uint64_t>(h.positions_per_block, h.positions - b * h.positions_per_block);
        const auto bytes = static_cast<std::ptrdiff_t>((n + format::kValuesPerByte - 1) / format::kValuesPerByte);
        if (std::any_of(block.begin(), block.begin() + bytes, [](std::uint8_t v) { return v >= 243; }))
            // It passed the checksums: the writer was wrong, not the disk.
            throw TableError(file.path().string() + ": block " + std::to_string(b) + " holds an invalid value byte");
        visit(block.data(), n);
    }
}

// Little-endian 64-bit words at any byte (the prefix code's bit order, whatever the host's).
std::uint64_t load_le64(const std::uint8_t* p) {
    std::uint64_t w;
    std::memcpy(&w, p, sizeof w);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    return w;
}
void store_le64(std::uint8_t* p, std::uint64_t w) {
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    std::memcpy(p, &w, sizeof w);
}

// Huffman code lengths of symbols by their counts (0 for those never used), none longer than
// `max_bits`: counts are halved until the code fits (equal counts need 9 bits, so this ends).
std::vector<std::uint8_t> prefix_code_lengths(std::vector<std::uint64_t> counts, int max_bits) {
    const int symbols = static_cast<int>(counts.size());
    for (;;) {
        std::vector<std::uint8_t> lengths(counts.size());
        std::vector<std::pair<std::uint64_t, int>> heap;  // (count, node), least count on top
        std::vector<int> parent;
        for (int c = 0; c < symbols; ++c)
            if (counts[c] > 0) heap.emplace_back(counts[c], static_cast<int>(parent.size())), parent.push_back(-1), lengths[c] = 1;
        if (heap.size() <= 1) return lengths;  // a single symbol still takes one bit
        std::vector<int> leaf_node(counts.size(), -1);
        for (int c = 0, n = 0; c < symbols; ++c)
            if (counts[c] > 0) leaf_node[c] = n++;
        const auto greater = [](const auto& a, const auto& b) { return a > b; };
        std::make_heap(heap.begin(), heap.end(), greater);
        while (heap.size() > 1) {
            std::pop_heap(heap.begin(), heap.end(), greater);
            const auto a = heap.back();
            heap.pop_back();
            std::pop_heap(heap.begin(), heap.end(), greater);
            const auto b = heap.back();
            heap.pop_back();
            const int node = static_cast<int>(parent.size());
            parent.push_back(-1);
            parent[a.second] = parent[b.second] = node;
            heap.emplace_back(a.first + b.first, node);
            std::push_heap(heap.begin(), heap.end(), greater);
        }
        int longest = 0;
        for (int c = 0; c < symbols; ++c) {
            if (leaf_node[c] < 0) continue;
            int depth = 0;
            for (int n = leaf_node[c]; parent[n] >= 0; n = parent[n]) ++depth;
            lengths[c] = static_cast<std::uint8_t>(depth);
            longest = std::max(longest, depth);
        }
        if (longest <= max_bits) return lengths;
        for (std::uint64_t& count : counts) count = (count + 1) / 2;
    }
}

// The canonical code of each symbol, bit-reversed to be read least significant bit first.
std::vector<std::uint32_t> canonical_codes(const std::vector<std::uint8_t>& lengths) {
    std::vector<int> order;
    for (int c = 0; c < static_cast<int>(lengths.size()); ++c)
        if (lengths[c] > 0) order.push_back(c);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lengths[a] < lengths[b]; });
    std::vector<std::uint32_t> codes(lengths.size());
    std::uint32_t next = 0;
    int length = order.empty() ? 0 : lengths[order[0]];
    for (const int c : order) {
        next <<= lengths[c] - length;
        length = lengths[c];
        std::uint32_t reversed = 0;
        for (int i = 0; i < length; ++i) reversed |= ((next >> i) & 1) << (length - 1 - i);
        codes[c] = reversed;
        ++next;
    }
    return codes;
}

}  // namespace

// Writes tokens as codes: the longest phrase of the dictionary that starts at each token, or the
// token by itself; then cuts them into chunks, as bytes or in the prefix code.
class ResidentTable::Encoder {
public:
    explicit Encoder(ResidentTable& table) : table_(table), chunk_bytes_(std::size_t{1} << table.chunk_shift_) {
        // Longest phrases first, so that the first match found is the longest.
        std::vector<std::size_t> order(table.phrases_.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return table.phrases_[a].size > table.phrases_[b].size; });
        for (const std::size_t i : order) {
            const Phrase& p = table.phrases_[i];
            Start& start = start_of(p.tokens[0]);
            const auto code = static_cast<std::uint8_t>(kFirstPhraseCode + i);
            if (p.size == 1) start.single = code;
            else start.phrases.push_back(code);
        }
    }

    void encode(const std::vector<Token>& tokens) {
        for (std::size_t at = 0; at < tokens.size();) {
            const Start* start = find(tokens[at]);
            at += start ? encode_from(*start, tokens, at) : (encode_alone(tokens[at], -1), 1);
        }
    }

    // Cuts the codes into chunks of bytes, padded with kPadding; builds the chunk starts and hints.
    void finish_bytes() {
        std::vector<std::uint8_t>& codes = table_.codes_;
        codes.reserve(flat_.size() + flat_.size() / 8);
        const auto bytes_of = [&](std::size_t at) { return code_size(flat_[at]); };
        const auto header = [&](std::uint64_t offset, std::uint64_t first) {
            codes.resize(offset, kPadding);  // the end of the chunk before
            for (std::size_t i = 0; i < kHeaderBytes; ++i) codes.push_back(static_cast<std::uint8_t>((first & kSpanMask) >> 8 * i));
        };
        cut_into_chunks(chunk_bytes_, kHeaderBytes, bytes_of, header, [&](std::size_t at, std::uint64_t) {
            codes.insert(codes.end(), flat_.begin() + static_cast<std::ptrdiff_t>(at),
                         flat_.begin() + static_cast<std::ptrdiff_t>(at + bytes_of(at)));
        });
        codes.resize((codes.size() + chunk_bytes_ - 1) / chunk_bytes_ * chunk_bytes_, kPadding);
        codes.shrink_to_fit();
        finish();
    }

    // Cuts the codes into chunks of bits, each code a symbol of the table's prefix code: a code byte
    // below 249 stands for itself; a run of value v and length 5 + n is symbol kFirstRunSymbol +
    // 4 w + v, w the bit width of n, followed by the w - 1 bits of n below its leading one. No code
    // goes across two chunks; the rest of a chunk is zeros.
    void finish_bits() {
        std::vector<std::uint64_t> counts(kBitSymbols);
        for (std::size_t at = 0; at < flat_.size(); at += code_size(flat_[at])) ++counts[bit_symbol(at)];
        const std::vector<std::uint8_t> lengths = prefix_code_lengths(counts, kMaxCodeBits);
        const std::vector<std::uint32_t> prefix = canonical_codes(lengths);
        table_.bits_ = true;
        table_.decode_.assign(std::size_t{1} << kMaxCodeBits, 0);
        table_.symbol_base_.assign(kBitSymbols, 0);
        for (std::uint32_t c = 0; c < kBitSymbols; ++c) {
            const std::uint32_t extra = run_extra_bits(c);
            table_.symbol_base_[c] = c < kFirstRunSymbol ? table_.covers_[c & 255] : run_base(c);
            const std::uint32_t entry = c | (lengths[c] + extra) << kConsumedShift | std::uint32_t{lengths[c]} << kCodeBitsShift |
                                        extra << kExtraShift;
            for (std::size_t x = prefix[c]; lengths[c] > 0 && x < table_.decode_.size(); x += std::size_t{1} << lengths[c])
                table_.decode_[x] = entry;
        }

        std::vector<std::uint8_t>& codes = table_.codes_;
        const std::uint64_t chunk_bits = 8 * chunk_bytes_;
        codes.reserve(flat_.size() + sizeof(std::uint64_t));
        const auto bits_of = [&](std::size_t at) {
            const std::uint32_t symbol = bit_symbol(at);
            return std::uint64_t{lengths[symbol]} + run_extra_bits(symbol);
        };
        const auto header = [&](std::uint64_t bit, std::uint64_t first) {
            // A new chunk, zeros, and 8 bytes more: a word can be read at any of its bytes.
            codes.resize(bit / 8 + chunk_bytes_ + sizeof(std::uint64_t), 0);
            store_le64(codes.data() + bit / 8, first & kSpanMask);
        };
        cut_into_chunks(chunk_bits, ResidentTable::kSpanBits, bits_of, header, [&](std::size_t at, std::uint64_t bit) {
            const std::uint32_t symbol = bit_symbol(at);
            const std::uint64_t extra = symbol >= kFirstRunSymbol ? covers(at) - run_base(symbol) : 0;
            std::uint8_t* word = codes.data() + bit / 8;
            store_le64(word, load_le64(word) | (prefix[symbol] | extra << lengths[symbol]) << (bit % 8));
        });
        codes.shrink_to_fit();
        finish();
    }

private:
    // Lays the codes one after the other in chunks of `chunk_units` units (bytes or bits), no code
    // across two chunks and no chunk over kMaxChunkSpan positions, and records each chunk's first
    // position: header(offset, first) writes the header of the chunk starting at `offset` units
    // from the start of the codes (`header_units` units), place(at, offset) code `at` (of
    // units_of(at) units).
    template <typename UnitsOf, typename Header, typename Place>
    void cut_into_chunks(std::uint64_t chunk_units, std::uint64_t header_units, const UnitsOf& units_of, const Header& header,
                         const Place& place) {
        std::uint64_t offset = 0;  // where the next code goes
        for (std::size_t at = 0; at < flat_.size(); at += code_size(flat_[at])) {
            const std::uint64_t units = units_of(at), used = offset % chunk_units;
            const bool too_long = !starts_.empty() && position_ + covers(at) - starts_.back() > ResidentTable::kMaxChunkSpan;
            if (used != 0 && (used + units > chunk_units || too_long)) offset += chunk_units - used;
            if (offset % chunk_units == 0) {
                starts_.push_back(position_);
                header(offset, position_);
                offset += header_units;
            }
            place(at, offset);
            offset += units;
            position_ += covers(at);
        }
    }

    // The dictionary's phrases that start with one token: a small open-addressing table.
    struct Start {
        Token token = 0;
        bool used = false;
        int single = -1;                    // the code of the token alone, if it is a phrase
        std::vector<std::uint8_t> phrases;  // codes of longer phrases starting with it, longest first
    };
    static std::size_t slot_of(Token t) { return static_cast<std::size_t>((t * 0x9E3779B97F4A7C15ull) >> 54); }  // 1024
    Start& start_of(Token t) {
        std::size_t i = slot_of(t);
        while (starts_table_[i].used && starts_table_[i].token != t) i = (i + 1) % starts_table_.size();
        starts_table_[i].used = true;
        starts_table_[i].token = t;
        return starts_table_[i];
    }
    const Start* find(Token t) const {
        for (std::size_t i = slot_of(t);; i = (i + 1) % starts_table_.size()) {
            if (!starts_table_[i].used) return nullptr;
            if (starts_table_[i].token == t) return &starts_table_[i];
        }
    }

    // Encodes the longest phrase at `at` that starts with start.token; returns the tokens it took.
    std::size_t encode_from(const Start& start, const std::vector<Token>& tokens, std::size_t at) {
        for (const std::uint8_t code : start.phrases) {
            const Phrase& p = table_.phrases_[code - kFirstPhraseCode];
            if (at + static_cast<std::size_t>(p.size) > tokens.size() ||
                !std::equal(p.tokens.begin() + 1, p.tokens.begin() + p.size, tokens.begin() + static_cast<std::ptrdiff_t>(at) + 1))
                continue;
            flat_.push_back(code);
            return static_cast<std::size_t>(p.size);
        }
        encode_alone(tokens[at], start.single);
        return 1;
    }

    // One token: its own code (`single`, or -1 if it has none), else as ternary or run codes.
    void encode_alone(Token t, int single) {
        if (kind_of(t) == kTernary) {
            flat_.push_back(static_cast<std::uint8_t>(payload_of(t)));
            return;
        }
        if (single >= 0) {
            flat_.push_back(static_cast<std::uint8_t>(single));
            return;
        }
        if (kind_of(t) == kBinary) {  // as two ternary codes
            for (std::uint64_t half = 0; half < 2; ++half) {
                std::uint64_t code = 0;
                for (std::uint64_t i = 3; i-- > 0;) code = 3 * code + token_value(t, 3 * half + i);
                flat_.push_back(static_cast<std::uint8_t>(code));
            }
            return;
        }
        const std::uint64_t length = payload_of(t);
        if (length <= kMaxMediumRun) {
            flat_.push_back(static_cast<std::uint8_t>(kFirstMediumRunCode + value_of(t)));
            flat_.push_back(static_cast<std::uint8_t>(length - kMinRun));
            return;
        }
        flat_.push_back(static_cast<std::uint8_t>(kFirstLongRunCode + value_of(t)));
        for (int i = 0; i < 4; ++i) flat_.push_back(static_cast<std::uint8_t>(length >> 8 * i));  // little-endian
    }

    // Positions covered by the code at flat_[at].
    std::uint64_t covers(std::size_t at) const {
        const std::uint8_t c = flat_[at];
        if (c < kFirstMediumRunCode) return table_.covers_[c];
        if (c < kFirstLongRunCode) return kMinRun + flat_[at + 1];
        return long_run_length(&flat_[at]);
    }

    // The symbol of the code at flat_[at] in the prefix code (finish_bits).
    std::uint32_t bit_symbol(std::size_t at) const {
        const std::uint8_t c = flat_[at];
        if (c < kFirstMediumRunCode) return c;
        const auto width = static_cast<std::uint32_t>(std::bit_width(covers(at) - kMinRun));
        return kFirstRunSymbol + 4 * width + (c - kFirstMediumRunCode) % 3;  // medium and long runs alike
    }

    // The hints, from the chunk starts (not kept: each chunk holds its own in its header).
    void finish() {
        starts_.push_back(table_.positions_);
        ChunkHints hints = make_chunk_hints(starts_);
        table_.hint_shift_ = hints.shift;
        table_.hints_ = std::move(hints.above_base);
        table_.hint_bases_ = std::move(hints.bases);
        std::vector<std::uint64_t>().swap(starts_);
    }

    ResidentTable& table_;
    const std::size_t chunk_bytes_;
    std::array<Start, 1024> starts_table_{};  // at most 222 tokens used: never full
    std::vector<std::uint8_t> flat_;          // the codes, one after the other
    std::vector<std::uint64_t> starts_;  // each chunk's first position, then positions_
    std::uint64_t position_ = 0;
};

namespace {

// hints[h]: the chunk holding position h << shift; a last entry names the last chunk.
std::vector<std::uint64_t> hinted_chunks(const std::vector<std::uint64_t>& starts, int shift) {
    const std::uint64_t chunks = starts.size() - 1, last = starts.back() - 1;
    std::vector<std::uint64_t> hints((last >> shift) + 2);
    std::uint64_t h = 0;
    for (std::uint64_t k = 0; k < chunks; ++k)
        while (h + 1 < hints.size() && (h << shift) < starts[k + 1]) hints[h++] = k;
    hints.back() = chunks - 1;
    return hints;
}

}  // namespace

// About one hint a chunk, at most 2^(kSpanBits - 1) positions apart (find_chunk's test of a
// chunk's header); closer where a group of hints would span more chunks than 16 bits count.
ChunkHints make_chunk_hints(const std::vector<std::uint64_t>& starts) {
    const std::uint64_t chunks = starts.size() - 1, last = starts.back() - 1;
    if (chunks > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("ResidentTable: too many chunks");
    int shift = 0;
    while ((last >> shift) + 1 > std::max<std::uint64_t>(1, chunks) && shift < ResidentTable::kSpanBits - 1) ++shift;
    constexpr std::uint64_t group = std::uint64_t{1} << ChunkHints::kGroupShift;
    for (;; --shift) {  // at shift 0 a group covers 2^kGroupShift positions, so as many chunks at most
        const std::vector<std::uint64_t> hints = hinted_chunks(starts, shift);
        ChunkHints out;
        out.shift = shift;
        out.bases.resize((hints.size() + group - 1) / group);
        out.above_base.resize(hints.size());
        bool fits = true;
        for (std::uint64_t i = 0; i < hints.size() && fits; ++i) {
            if (i % group == 0) out.bases[i / group] = static_cast<std::uint32_t>(hints[i]);
            const std::uint64_t above = hints[i] - out.bases[i / group];
            fits = above <= std::numeric_limits<std::uint16_t>::max();
            out.above_base[i] = static_cast<std::uint16_t>(above);
        }
        if (fits) return out;
    }
}

ResidentTable::ResidentTable(const TableFile& file, std::size_t chunk_bytes, Coding coding) : positions_(file.header().positions) {
    if (chunk_bytes != 0 && chunk_bytes != 16 && chunk_bytes != 32 && chunk_bytes != 64)
        throw std::invalid_argument("ResidentTable: chunks of 16, 32 or 64 bytes");
    if (coding == Coding::Direct || (coding == Coding::Automatic && positions_ <= kDirectTablePositions)) {
        read_direct(file);
        return;
    }
    Tokenizer tokenizer;
    std::uint8_t run_value = 0;
    std::uint64_t run_length = 0;
    const auto add = [&](std::uint8_t value, std::uint64_t count) {
        if (value == run_value) {
            run_length += count;
            return;
        }
        if (run_length > 0) tokenizer.add_run(run_value, run_length);
        run_value = value;
        run_length = count;
    };
    for_each_value_block(file, [&](const std::uint8_t* block, std::uint64_t n) {
        for (std::uint64_t i = 0; i < n; i += format::kValuesPerByte) {
            const std::uint8_t byte = block[i / format::kValuesPerByte];
            const std::uint64_t digits = std::min<std::uint64_t>(format::kValuesPerByte, n - i);
            if (digits == format::kValuesPerByte && byte % 121 == 0) {  // 0, 121, 242: five equal values
                add(static_cast<std::uint8_t>(byte / 121), digits);
                continue;
            }
            for (std::uint64_t d = 0; d < digits; ++d) add(format::kBase3.digits[byte][d], 1);
        }
    });
    tokenizer.add_run(run_value, run_length);
    std::vector<Token> tokens = tokenizer.finish();

    if (chunk_bytes == 0) chunk_bytes = tokens.size() < kSmallTableTokens ? kSmallChunkBytes : kLargeChunkBytes;
    chunk_shift_ = std::countr_zero(chunk_bytes);
    phrases_ = choose_phrases(tokens);
    for (int c = 0; c < kTernaryCodes; ++c) covers_[c] = kTernaryPositions;
    for (std::size_t i = 0; i < phrases_.size(); ++i) {
        std::uint64_t length = 0;
        for (int k = 0; k < phrases_[i].size; ++k) length += token_length(phrases_[i].tokens[k]);
        covers_[kFirstPhraseCode + i] = static_cast<std::uint32_t>(length);  // at most 2^32 - 1 (choose_phrases)
    }
    const bool in_bits = coding == Coding::Bits || (coding == Coding::Automatic && tokens.size() >= kSmallTableTokens);
    Encoder encoder(*this);
    encoder.encode(tokens);
    std::vector<Token>().swap(tokens);  // 8 bytes a token: not held while the chunks are cut
    if (in_bits) encoder.finish_bits();
    else encoder.finish_bytes();
}

// The blocks' value bytes one after another: every block but the last holds a multiple of five
// positions (format::Header), so position i is digit i % 5 of byte i / 5.
void ResidentTable::read_direct(const TableFile& file) {
    direct_.reserve((positions_ + format::kValuesPerByte - 1) / format::kValuesPerByte);
    for_each_value_block(file, [&](const std::uint8_t* block, std::uint64_t n) {
        direct_.insert(direct_.end(), block, block + (n + format::kValuesPerByte - 1) / format::kValuesPerByte);
    });
}

// The hint's chunk, or one of those up to the next hint's: the last whose first position is at or
// before index. A later chunk starts within 2^hint_shift_ < kMaxChunkSpan / 2 positions after
// the hint's, so the distance from its header's low bits to index, modulo the span, is below
// 2^hint_shift_ exactly when it starts at or before index.
ResidentTable::ChunkAndRest ResidentTable::find_chunk(std::uint64_t index) const {
    const std::uint64_t h = index >> hint_shift_;
    std::uint64_t low = hinted_chunk(h);
    const std::uint64_t high = hinted_chunk(h + 1);
    const auto distance = [&](std::uint64_t chunk) { return (index - chunk_header(chunk)) & kSpanMask; };
    const std::uint64_t near = std::uint64_t{1} << hint_shift_;
    if (high - low > 4) {  // many short chunks between two hints: bisect
        std::uint64_t count = high - low + 1;
        while (count > 1) {
            const std::uint64_t half = count / 2;
            if (distance(low + half) < near) low += half, count -= half;
            else count = half;
        }
    } else {
        for (std::uint64_t c = low + 1; c <= high; ++c) __builtin_prefetch(codes_.data() + (c << chunk_shift_));
        while (low < high && distance(low + 1) < near) ++low;
    }
    return {low, distance(low)};
}

Value ResidentTable::value(std::uint64_t index) const {
    if (!direct_.empty())
        return static_cast<Value>(format::kBase3.digits[direct_[index / format::kValuesPerByte]][index % format::kValuesPerByte]);
    const auto [chunk, rest] = find_chunk(index);
    return bits_ ? value_in_bits(chunk, rest) : value_in_bytes(chunk, rest);
}

// Adds up what each code of the chunk covers until `rest` falls inside one.
Value ResidentTable::value_in_bytes(std::uint64_t chunk, std::uint64_t rest) const {
    const std::uint8_t* code = codes_.data() + (chunk << chunk_shift_) + kHeaderBytes;
    for (;;) {
        const std::uint8_t c = *code;
        if (c < kFirstMediumRunCode) {
            const std::uint32_t length = covers_[c];
            if (rest < length) return c < kTernaryCodes ? static_cast<Value>(ternary_digit(c, rest)) : value_in_phrase(c, rest);
            rest -= length;
            ++code;
        } else if (c < kFirstLongRunCode) {
            const std::uint64_t length = kMinRun + code[1];
            if (rest < length) return static_cast<Value>(c - kFirstMediumRunCode);
            rest -= length;
            code += 2;
        } else {  // a long run (padding follows the chunk's last position: never reached)
            const std::uint64_t length = long_run_length(code);
            if (rest < length) return static_cast<Value>(c - kFirstLongRunCode);
            rest -= length;
            code += kLongRunBytes;
        }
    }
}

// The same through the prefix code, with no branch on the kind of code: each symbol's length is its
// base plus its extra bits (none but for runs). The next 64 bits are held in a word, read again
// when fewer than a symbol's longest remain.
Value ResidentTable::value_in_bits(std::uint64_t chunk, std::uint64_t rest) const {
    const std::uint8_t* base = codes_.data() + (chunk << chunk_shift_);
    constexpr std::uint64_t kCodeMask = (std::uint64_t{1} << kMaxCodeBits) - 1;
    std::uint64_t window = load_le64(base) >> kSpanBits, bit = kSpanBits, held = 64 - kSpanBits;
    for (;;) {
        const std::uint32_t entry = decode_[window & kCodeMask];
        const std::uint32_t symbol = entry & kSymbolMask;
        const std::uint32_t extra = (entry >> kExtraShift) & 31;
        const std::uint64_t length =
            symbol_base_[symbol] + ((window >> ((entry >> kCodeBitsShift) & 15)) & ((std::uint64_t{1} << extra) - 1));
        if (rest < length) {
            if (symbol >= kFirstRunSymbol) return static_cast<Value>(symbol & 3);
            return symbol < kTernaryCodes ? static_cast<Value>(ternary_digit(symbol, rest))
                                          : value_in_phrase(static_cast<std::uint8_t>(symbol), rest);
        }
        rest -= length;
        const std::uint32_t consumed = (entry >> kConsumedShift) & 63;
        window >>= consumed;
        held -= consumed;
        bit += consumed;
        if (held < kMaxSymbolBits) {
            window = load_le64(base + bit / 8) >> (bit % 8);
            held = 64 - bit % 8;
        }
    }
}

Value ResidentTable::value_in_phrase(std::uint8_t code, std::uint64_t offset) const {
    const Phrase& p = phrases_[code - kFirstPhraseCode];
    for (int i = 0;; ++i) {
        const std::uint64_t length = token_length(p.tokens[i]);
        if (offset < length || i + 1 == p.size) return static_cast<Value>(token_value(p.tokens[i], offset));
        offset -= length;
    }
}

std::size_t ResidentTable::bytes() const {
    return direct_.capacity() + codes_.capacity() + (decode_.capacity() + symbol_base_.capacity()) * sizeof(std::uint32_t) +
           phrases_.capacity() * sizeof(Phrase) + hints_.capacity() * sizeof(std::uint16_t) +
           hint_bases_.capacity() * sizeof(std::uint32_t) + sizeof(*this);
}

}  // namespace dtb::detail
