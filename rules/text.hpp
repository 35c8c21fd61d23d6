// Quoting user text in error messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dtb {

// The character of `text` that starts at byte `at`, quoted for an error message: 'x', or the whole
// UTF-8 sequence of a multi-byte character ('×'), or "byte 0xC3" for a byte that starts no valid
// sequence. A message about valid UTF-8 text thus stays valid UTF-8.
std::string quoted_character(std::string_view text, std::size_t at);

// Whether `c` is a UTF-8 continuation byte (10xxxxxx).
constexpr bool is_utf8_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Bytes of the well-formed UTF-8 sequence that starts at byte `at` of `text` (1 for ASCII), or 0
// when none does (a stray continuation byte, a cut sequence, an overlong form, a surrogate, a code
// point past U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

// Whether `text` is well-formed UTF-8.
bool is_valid_utf8(std::string_view text);

}  // namespace dtb
