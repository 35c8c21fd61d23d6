#include "rules/text.hpp"

#include <cstdint>
#include <cstdio>

namespace dtb {
namespace {

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7F; }

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

constexpr std::uint32_t kReplacement = 0xFFFD;

}  // namespace

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

std::string utf16_to_utf8(std::string_view bytes, bool little_endian) {
    const auto unit = [&](std::size_t i) {
        const auto a = static_cast<unsigned char>(bytes[i]), b = static_cast<unsigned char>(bytes[i + 1]);
        return static_cast<std::uint32_t>(little_endian ? a | (b << 8) : (a << 8) | b);
    };
    const auto is_high = [](std::uint32_t u) { return u >= 0xD800 && u <= 0xDBFF; };
    const auto is_low = [](std::uint32_t u) { return u >= 0xDC00 && u <= 0xDFFF; };
    std::string out;
    out.reserve(bytes.size() / 2);
    std::size_t i = 0;
    for (; i + 1 < bytes.size(); i += 2) {
        const std::uint32_t u = unit(i);
        if (is_high(u) && i + 3 < bytes.size() && is_low(unit(i + 2))) {
            append_utf8(out, 0x10000 + ((u - 0xD800) << 10) + (unit(i + 2) - 0xDC00));
            i += 2;
        } else {
            append_utf8(out, is_high(u) || is_low(u) ? kReplacement : u);
        }
    }
    if (i < bytes.size()) append_utf8(out, kReplacement);
    return out;
}

std::string escape_control_characters(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (!is_control(c)) {
            out += ch;
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            out += buf;
        }
    }
    return out;
}

std::size_t find_control_character(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i)
        if (is_control(static_cast<unsigned char>(s[i]))) return i;
    return std::string_view::npos;
}

}  // namespace dtb
