// The helpers every layer shares, one implementation each: ASCII case (mhtml/ascii.hpp),
// UTF-8 validation (mhtml/utf8.hpp), JSON strings (mhtml/json.hpp).
#include "mhtml/ascii.hpp"
#include "mhtml/json.hpp"
#include "mhtml/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mhtml {
namespace {

using namespace std::string_literals;

TEST(TextHelpers, AsciiCaseOnly) {
    EXPECT_TRUE(ascii::iequals("Content-TYPE", "content-type"));
    EXPECT_FALSE(ascii::iequals("content-type", "content-typ"));
    EXPECT_FALSE(ascii::iequals("\xC3\xA9", "\xC3\x89"));  // no Unicode folding
    EXPECT_FALSE(ascii::iequals("[", "{"));                // '[' is not 'A' + 26
    EXPECT_TRUE(ascii::istarts_with("DOCTYPE html", "doctype"));
    EXPECT_EQ(ascii::lowered("MiXeD-\xC3\x89"), "mixed-\xC3\x89");
    static_assert(ascii::iequals("HTTP-EQUIV", "http-equiv"));
}

TEST(TextHelpers, Utf8SequencesAndMaximalSubparts) {
    EXPECT_TRUE(utf8::valid("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"));
    for (std::string bad : {"\xC0\xAF"s, "\xE0\x80\xAF"s, "\xED\xA0\x80"s, "\xF4\x90\x80\x80"s,
                            "\xF5"s, "\x80"s, "\xE2\x82"s})
        EXPECT_FALSE(utf8::valid(bad)) << bad.size();
    std::size_t bad = 0;
    EXPECT_EQ(utf8::sequence_length("\xE2\x82x", 0, &bad), 0u);
    EXPECT_EQ(bad, 2u);  // "\xE2\x82" is one maximal subpart
    EXPECT_EQ(utf8::sanitized("a\xE2\x82x\xFF"), "a\xEF\xBF\xBDx\xEF\xBF\xBD");
    EXPECT_EQ(utf8::sanitized("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(TextHelpers, JsonStringsAreAlwaysValidJson) {
    EXPECT_EQ(json::quoted("a\"b\\c\n\r\t\x01\x7F"), "\"a\\\"b\\\\c\\n\\r\\t\\u0001\\u007f\"");
    EXPECT_EQ(json::quoted("caf\xC3\xA9"), "\"caf\xC3\xA9\"");
    // Each octet of an ill-formed sequence: its Latin-1 reading.
    EXPECT_EQ(json::quoted("x\xE2\x82y\xFF"), "\"x\\u00e2\\u0082y\\u00ff\"");
    EXPECT_EQ(json::quoted(""), "\"\"");
}

}  // namespace
}  // namespace mhtml
