// Minimal JSON output for the command line: strings with every escape JSON requires, always valid
// JSON whatever the bytes (user input, file names, messages that quote them).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "rules/text.hpp"

namespace dtb::cli {

// A JSON string. Bytes that are not well-formed UTF-8 each become U+FFFD (JSON text is UTF-8).
inline std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t length = utf8_sequence_length(s, i);
        if (length == 0) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        if (length > 1) {
            out += s.substr(i, length);
            i += length;
            continue;
        }
        ++i;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20 || c == 0x7F) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "\"";
}

// A JSON string, or null when there is none.
inline std::string json_string_or_null(const std::optional<std::string>& s) { return s ? json_string(*s) : "null"; }

}  // namespace dtb::cli
