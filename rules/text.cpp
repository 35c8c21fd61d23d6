#include "rules/text.hpp"

#include <cstdio>

namespace dtb {
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) length = 2;
    else if (lead == 0xE0) length = 3, low = 0xA0;        // no overlong forms
    else if (lead == 0xED) length = 3, high = 0x9F;       // no surrogates
    else if (lead >= 0xE1 && lead <= 0xEF) length = 3;
    else if (lead == 0xF0) length = 4, low = 0x90;
    else if (lead == 0xF4) length = 4, high = 0x8F;       // nothing above U+10FFFF
    else if (lead >= 0xF1 && lead <= 0xF3) length = 4;
    else return 0;
    if (i + length > s.size() || byte(i + 1) < low || byte(i + 1) > high) return 0;
    for (std::size_t k = 2; k < length; ++k)
        if (!is_utf8_continuation(byte(i + k))) return 0;
    return length;
}

bool is_valid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t length = utf8_sequence_length(s, i);
        if (length == 0) return false;
        i += length;
    }
    return true;
}

std::string quoted_character(std::string_view text, std::size_t at) {
    const std::size_t length = utf8_sequence_length(text, at);
    if (length > 0) {
        std::string quoted(1, '\'');
        quoted.append(text.substr(at, length)).push_back('\'');
        return quoted;
    }
    char byte[16];
    std::snprintf(byte, sizeof byte, "byte 0x%02X", static_cast<unsigned char>(text[at]));
    return byte;
}

}  // namespace dtb
