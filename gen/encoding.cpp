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

std::vector<std::uint8_t> pack_base3(const std::uint8_t* values, std::uint64_t count) {
    static constexpr int kPowers[5] = {1, 3, 9, 27, 81};
    std::vector<std::uint8_t> packed((count + 4) / 5, 0);
    for (std::uint64_t i = 0; i < count; ++i) packed[i / 5] += static_cast<std::uint8_t>(values[i] * kPowers[i % 5]);
    return packed;
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
    std::size_t best_trial = 0;
    const std::vector<std::uint8_t> block(values, values + count);
    for (const DontCareFill fill : {DontCareFill::Previous, DontCareFill::Draw}) {
        const auto filled = fill_dont_care(block, fill);
        auto raw = pack_base3(filled.data(), count);
        const std::size_t trial = compress_block(raw, kTrialLevel).size();
        if (best.raw.empty() || trial < best_trial) {
            best.raw = std::move(raw);
            best_trial = trial;
        }
    }
    best.frame = compress_block(best.raw, level);
    return best;
}

std::vector<unsigned char> compress_block(const std::vector<std::uint8_t>& raw, int level) {
    const std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!cctx) throw std::bad_alloc();
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1);
    std::vector<unsigned char> out(ZSTD_compressBound(raw.size()));
    const std::size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), raw.data(), raw.size());
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
    out.resize(n);
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
