#include "gen/encoding.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include <zstd.h>

#include "gen/solver.hpp"

namespace dtb {

std::vector<std::uint8_t> fill_dont_care(const std::vector<std::uint8_t>& values, DontCareFill fill) {
    std::vector<std::uint8_t> out(values.size());
    std::uint8_t previous = static_cast<std::uint8_t>(Value::Draw);
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] & kCaptureFlag)
            out[i] = fill == DontCareFill::Previous ? previous : static_cast<std::uint8_t>(Value::Draw);
        else
            out[i] = values[i] & kValueMask;
        previous = out[i];
    }
    return out;
}

namespace {

// The byte of five stored values (any fewer at a block's end count as losses, 0).
constexpr std::uint8_t base3_byte(unsigned v0, unsigned v1, unsigned v2, unsigned v3, unsigned v4) {
    return static_cast<std::uint8_t>(v0 + 3 * v1 + 9 * v2 + 27 * v3 + 81 * v4);
}

// Packs count values, the k-th being stored(k), five a byte: a loop over whole bytes, without the
// division and the read-modify-write a position that a loop over positions costs.
template <typename Stored>
void pack_base3_with(std::uint64_t count, std::vector<std::uint8_t>& out, Stored&& stored) {
    out.resize((count + 4) / 5);
    std::uint64_t i = 0;
    std::size_t byte = 0;
    for (; i + 5 <= count; i += 5) {
        const unsigned v0 = stored(i), v1 = stored(i + 1), v2 = stored(i + 2), v3 = stored(i + 3), v4 = stored(i + 4);
        out[byte++] = base3_byte(v0, v1, v2, v3, v4);
    }
    if (i == count) return;
    unsigned tail[5] = {0, 0, 0, 0, 0};
    for (int k = 0; i < count; ++i, ++k) tail[k] = stored(i);
    out[byte] = base3_byte(tail[0], tail[1], tail[2], tail[3], tail[4]);
}

}  // namespace

std::vector<std::uint8_t> pack_base3(const std::uint8_t* values, std::uint64_t count) {
    std::vector<std::uint8_t> packed;
    pack_base3_with(count, packed, [&](std::uint64_t i) { return static_cast<unsigned>(values[i]); });
    return packed;
}

void pack_base3_filled(const std::uint8_t* values, std::uint64_t count, DontCareFill fill, std::vector<std::uint8_t>& out) {
    // Branch-free: capture positions and the others alternate without a pattern a predictor learns.
    if (fill == DontCareFill::Draw) {
        pack_base3_with(count, out, [&](std::uint64_t i) {
            return (values[i] & kCaptureFlag) ? static_cast<unsigned>(Value::Draw) : static_cast<unsigned>(values[i] & kValueMask);
        });
        return;
    }
    unsigned previous = static_cast<unsigned>(Value::Draw);
    pack_base3_with(count, out, [&](std::uint64_t i) {
        previous = (values[i] & kCaptureFlag) ? previous : static_cast<unsigned>(values[i] & kValueMask);
        return previous;
    });
}

std::vector<std::uint8_t> pack_2bit(const std::uint8_t* values, std::uint64_t count) {
    std::vector<std::uint8_t> packed((count + 3) / 4, 0);
    for (std::uint64_t i = 0; i < count; ++i) packed[i / 4] |= static_cast<std::uint8_t>(values[i] << (2 * (i % 4)));
    return packed;
}

const char* dtw_fill_name(DtwFill fill) {
    switch (fill) {
        case DtwFill::Previous: return "previous";
        case DtwFill::Zero: return "zero";
        case DtwFill::Next: return "next";
        case DtwFill::Mode: return "mode";
        case DtwFill::Nearest: return "nearest";
    }
    return "?";
}

const char* dtw_layout_name(DtwLayout layout) {
    switch (layout) {
        case DtwLayout::Plain: return "plain";
        case DtwLayout::BlockMinimum: return "block-minimum";
        case DtwLayout::Delta: return "delta";
        case DtwLayout::Planes: return "planes";
    }
    return "?";
}

void fill_dtw_dont_care(std::vector<std::uint16_t>& block, DtwFill fill) {
    const std::size_t n = block.size();
    if (fill == DtwFill::Zero || fill == DtwFill::Mode) {
        std::uint16_t value = 0;
        if (fill == DtwFill::Mode) {
            std::uint16_t largest = 0;
            for (std::uint16_t v : block)
                if (v != kDtwDontCare) largest = std::max(largest, v);
            std::vector<std::uint32_t> counts(largest + 1u, 0);
            for (std::uint16_t v : block)
                if (v != kDtwDontCare) ++counts[v];
            value = static_cast<std::uint16_t>(std::max_element(counts.begin(), counts.end()) - counts.begin());
        }
        for (std::uint16_t& v : block)
            if (v == kDtwDontCare) v = value;
        return;
    }
    // next[j]: the first stored number at or after j, kDtwDontCare if none; with its distance.
    std::vector<std::uint16_t> next(fill == DtwFill::Previous ? 0 : n);
    std::vector<std::uint32_t> next_distance(fill == DtwFill::Nearest ? n : 0);
    if (fill != DtwFill::Previous) {
        std::uint16_t after = kDtwDontCare;
        std::uint32_t distance = 0;
        for (std::size_t j = n; j-- > 0;) {
            if (block[j] != kDtwDontCare) after = block[j], distance = 0;
            else ++distance;
            next[j] = after;
            if (fill == DtwFill::Nearest) next_distance[j] = distance;
        }
    }
    std::uint16_t previous = 0;
    bool any_previous = false;
    std::uint32_t previous_distance = 0;
    for (std::size_t j = 0; j < n; ++j) {
        if (block[j] != kDtwDontCare) {
            previous = block[j], any_previous = true, previous_distance = 0;
            continue;
        }
        ++previous_distance;
        switch (fill) {
            case DtwFill::Previous: block[j] = previous; break;
            case DtwFill::Next: block[j] = next[j] != kDtwDontCare ? next[j] : previous; break;
            default:  // Nearest
                block[j] = next[j] != kDtwDontCare && (!any_previous || next_distance[j] < previous_distance)
                               ? next[j]
                               : previous;
        }
    }
}

std::vector<std::uint8_t> lay_out_dtw(const std::vector<std::uint16_t>& filled, std::uint32_t width, DtwLayout layout) {
    const std::size_t n = filled.size();
    const std::uint32_t mask = width == 1 ? 0xFF : 0xFFFF;
    std::uint32_t base = 0;
    if (layout == DtwLayout::BlockMinimum && n > 0) base = *std::min_element(filled.begin(), filled.end());
    const std::size_t prefix = layout == DtwLayout::BlockMinimum ? width : 0;
    std::vector<std::uint8_t> out(prefix + n * width);
    const auto put = [&](std::size_t at, std::uint32_t v) {
        out[at] = static_cast<std::uint8_t>(v);
        if (width == 2) out[at + 1] = static_cast<std::uint8_t>(v >> 8);
    };
    if (prefix) put(0, base);
    std::uint32_t before = 0;
    for (std::size_t j = 0; j < n; ++j) {
        const std::uint32_t v = filled[j];
        switch (layout) {
            case DtwLayout::Plain: put(j * width, v); break;
            case DtwLayout::BlockMinimum: put(prefix + j * width, v - base); break;
            case DtwLayout::Delta: put(j * width, (v - before) & mask); break;
            case DtwLayout::Planes:
                out[j] = static_cast<std::uint8_t>(v);
                if (width == 2) out[n + j] = static_cast<std::uint8_t>(v >> 8);
                break;
        }
        before = v;
    }
    return out;
}

WdlBlock encode_wdl_block(const std::uint8_t* values, std::uint64_t count, int level) {
    // The fills are compared at a fast level (measured: the same choice as at `level` in nearly
    // every block, for a tenth of the time); only the chosen one is compressed at `level`.
    constexpr int kTrialLevel = 1;
    WdlBlock best;
    std::vector<std::uint8_t> raw;
    std::size_t best_trial = 0;
    for (const DontCareFill fill : {DontCareFill::Previous, DontCareFill::Draw}) {
        pack_base3_filled(values, count, fill, raw);
        const std::size_t trial = compressed_size(raw, kTrialLevel);
        if (best.raw.empty() || trial < best_trial) {
            std::swap(best.raw, raw);
            best_trial = trial;
        }
    }
    best.frame = compress_block(best.raw, level);
    return best;
}

namespace {

// A thread's compression context, kept from one block to the next: a fresh context allocates and
// clears its tables at every block (a writer compresses each block three times).
ZSTD_CCtx& thread_compression_context(int level) {
    thread_local const std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!cctx) throw std::bad_alloc();
    ZSTD_CCtx_reset(cctx.get(), ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1);
    return *cctx;
}

// Compresses `raw` into `out` (resized to the frame).
void compress_into(const std::vector<std::uint8_t>& raw, int level, std::vector<unsigned char>& out) {
    ZSTD_CCtx& cctx = thread_compression_context(level);
    out.resize(ZSTD_compressBound(raw.size()));
    const std::size_t n = ZSTD_compress2(&cctx, out.data(), out.size(), raw.data(), raw.size());
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
    out.resize(n);
}

}  // namespace

std::size_t compressed_size(const std::vector<std::uint8_t>& raw, int level) {
    thread_local std::vector<unsigned char> frame;
    compress_into(raw, level, frame);
    return frame.size();
}

std::vector<unsigned char> compress_block(const std::vector<std::uint8_t>& raw, int level) {
    std::vector<unsigned char> out;
    compress_into(raw, level, out);
    return out;
}

void decompress_block(const std::vector<unsigned char>& frame, std::vector<std::uint8_t>& out) {
    const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) throw std::runtime_error("zstd: no content size");
    out.resize(size);
    thread_local const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!dctx) throw std::bad_alloc();
    const std::size_t n = ZSTD_decompressDCtx(dctx.get(), out.data(), out.size(), frame.data(), frame.size());
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
}

}  // namespace dtb
