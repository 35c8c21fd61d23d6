// Quoting user text in messages, and the UTF-8 check behind it.
#include <gtest/gtest.h>

#include "rules/text.hpp"

namespace dtb {
namespace {

TEST(Text, Utf8SequenceLengths) {
    EXPECT_EQ(utf8_sequence_length("a", 0), 1u);
    EXPECT_EQ(utf8_sequence_length("\xC3\xA9", 0), 2u);          // é
    EXPECT_EQ(utf8_sequence_length("\xE2\x80\x93", 0), 3u);      // en dash
    EXPECT_EQ(utf8_sequence_length("\xF0\x9F\x98\x80", 0), 4u);  // U+1F600
    EXPECT_EQ(utf8_sequence_length("\xC3", 0), 0u);              // cut short
    EXPECT_EQ(utf8_sequence_length("\xA9", 0), 0u);              // a continuation byte alone
    EXPECT_EQ(utf8_sequence_length("\xC0\x80", 0), 0u);          // overlong NUL
    EXPECT_EQ(utf8_sequence_length("\xE0\x80\xAF", 0), 0u);      // overlong '/'
    EXPECT_EQ(utf8_sequence_length("\xED\xA0\x80", 0), 0u);      // a surrogate
    EXPECT_EQ(utf8_sequence_length("\xF4\x90\x80\x80", 0), 0u);  // past U+10FFFF
    EXPECT_EQ(utf8_sequence_length("\xFF", 0), 0u);
}

TEST(Text, ValidUtf8) {
    EXPECT_TRUE(is_valid_utf8(""));
    EXPECT_TRUE(is_valid_utf8("Tj\xC3\xA9" "cheslav 32-28"));
    EXPECT_FALSE(is_valid_utf8("Tj\xE9" "cheslav"));  // Latin-1
    EXPECT_FALSE(is_valid_utf8("ok\xC3"));
}

TEST(Text, QuotedCharacter) {
    EXPECT_EQ(quoted_character("a;b", 1), "';'");
    EXPECT_EQ(quoted_character("1\xE2\x80\x93" "2", 1), "'\xE2\x80\x93'");
    EXPECT_EQ(quoted_character("1\xE9" "2", 1), "byte 0xE9");
}

}  // namespace
}  // namespace dtb
