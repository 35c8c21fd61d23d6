// Text helpers shared by the readers (FEN, PDN) and the command line: UTF-8 validation, UTF-16
// decoding, and escaping of control characters so echoed input cannot break a line or a column.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dtb {

// Whether `c` is a UTF-8 continuation byte (10xxxxxx).
constexpr bool is_utf8_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the well-formed UTF-8 sequence starting at s[i] (1 for ASCII), or 0 if there is none
// there: a stray continuation byte, an overlong form, a surrogate, a code point above U+10FFFF, or
// a sequence cut by the end of `s`.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

bool is_valid_utf8(std::string_view s);

// The character of `text` that starts at byte `at`, quoted for an error message: 'x', or the whole
// UTF-8 sequence of a multi-byte character ('×'), or "byte 0xC3" for a byte that starts no valid
// sequence. A message about valid UTF-8 text thus stays valid UTF-8.
std::string quoted_character(std::string_view text, std::size_t at);

// The UTF-16 text after a byte-order mark, converted to UTF-8. `little_endian` says which mark it
// was (FF FE: little endian). An unpaired surrogate or a final odd byte becomes U+FFFD.
std::string utf16_to_utf8(std::string_view bytes, bool little_endian);

// `s` with every control character (U+0000-U+001F, U+007F) written as an escape: \t, \n, \r, or
// \xHH. Other bytes are kept. For echoing user input in messages and tab-separated output.
std::string escape_control_characters(std::string_view s);

// The position of the first control character of `s`, or std::string_view::npos.
std::size_t find_control_character(std::string_view s);

}  // namespace dtb
