#include "gen/encoding.hpp"

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

std::vector<unsigned char> compress_block(const std::vector<std::uint8_t>& raw, int level) {
    const std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!cctx) throw std::bad_alloc();
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1);
    std::vector<unsigned char> out(ZSTD_compressBound(raw.size()));
    const std::size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), raw.data(), raw.size());
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

}  // namespace dtb
