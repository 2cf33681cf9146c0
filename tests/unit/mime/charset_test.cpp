#include "mhtml/mime/charset.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace mhtml::mime {
namespace {

const std::string fffd = "\xEF\xBF\xBD";

std::string conv(std::string_view bytes, std::string_view charset) {
    auto r = to_utf8(bytes, charset);
    EXPECT_TRUE(r.has_value()) << "charset " << charset;
    return r.value_or("<nullopt>");
}

TEST(Charset, Utf8PassesThrough) {
    EXPECT_EQ(conv("Gr\xC3\xBC\xC3\x9F"
                   "e \xE2\x82\xAC \xF0\x9F\x98\x80",
                   "UTF-8"),
              "Grüße € 😀");
    EXPECT_EQ(conv("", "UTF-8"), "");
}

TEST(Charset, Utf8IllFormedBecomesReplacementCharacter) {
    EXPECT_EQ(conv("a\xFF"
                   "b",
                   "utf-8"),
              "a" + fffd + "b");
    // A truncated sequence is one maximal subpart: one U+FFFD (Unicode §3.9, WHATWG).
    EXPECT_EQ(conv("a\xE2\x82", "utf-8"), "a" + fffd);
    EXPECT_EQ(conv("\xE2\x82"
                   "a",
                   "utf-8"),
              fffd + "a");
    // Overlong forms, surrogates and code points above U+10FFFF (which glibc lets through).
    EXPECT_EQ(conv("\xC0\xAF", "utf-8"), fffd + fffd);
    EXPECT_EQ(conv("\xED\xA0\x80", "utf-8"), fffd + fffd + fffd);
    EXPECT_EQ(conv("\xF4\x90\x80\x80", "utf-8"), fffd + fffd + fffd + fffd);
}

// Review finding: a lone surrogate in UTF-16 costs one U+FFFD, and the text after it stays
// aligned (an error skips a whole code unit, not one octet).
TEST(Charset, Utf16LoneSurrogateKeepsTheRestAligned) {
    using namespace std::string_literals;
    const std::string le = "a\0\x00\xD8"s + "b\0c\0"s;  // 'a', lone high surrogate, 'b', 'c'
    EXPECT_EQ(conv(le, "UTF-16LE"), "a" + fffd + "bc");
    const std::string be = "\0a\xDC\x00\0b"s;  // 'a', lone low surrogate, 'b'
    EXPECT_EQ(conv(be, "UTF-16BE"), "a" + fffd + "b");
    EXPECT_EQ(conv("a\0b"s, "UTF-16LE"), "a" + fffd);  // an odd octet at the end
    const std::string u32 = "a\0\0\0\x00\xD8\0\0"s + "b\0\0\0"s;
    EXPECT_EQ(conv(u32, "UTF-32LE"), "a" + fffd + "b");
    // ISO-8859-16 has "16" in its name but one-octet code units.
    EXPECT_EQ(conv("\xA1", "ISO-8859-16"), "\xC4\x84");
}

TEST(Charset, Latin1) {
    EXPECT_EQ(conv("caf\xE9", "ISO-8859-1"), "café");
    EXPECT_EQ(conv("caf\xE9", "latin1"), "café");
    EXPECT_EQ(conv("caf\xE9", "LATIN1"), "café");
    EXPECT_EQ(conv("caf\xE9", "iso_8859-1:1987"), "café");
}

TEST(Charset, Windows1252) {
    EXPECT_EQ(conv("\x80 \x93quoted\x94", "windows-1252"), "€ “quoted”");
    // The five octets windows-1252 leaves undefined map to C1 controls (WHATWG), so no
    // octet is lost when unknown-8bit text is shown as windows-1252.
    EXPECT_EQ(conv("\x81\x8D\x8F\x90\x9D", "windows-1252"),
              "\xC2\x81\xC2\x8D\xC2\x8F\xC2\x90\xC2\x9D");
}

TEST(Charset, UsAsciiWith8BitOctetsReadsAsWindows1252) {
    EXPECT_EQ(conv("plain", "us-ascii"), "plain");
    EXPECT_EQ(conv("caf\xE9 \x80", "us-ascii"), "café €");
    EXPECT_EQ(conv("caf\xE9", "US-ASCII"), "café");
    EXPECT_EQ(conv("caf\xE9", "ascii"), "café");
    EXPECT_EQ(conv("caf\xE9", "ANSI_X3.4-1968"), "café");
}

TEST(Charset, Unknown8BitReadsAsWindows1252) {
    EXPECT_EQ(conv("caf\xE9 \x80", "unknown-8bit"), "café €");
    EXPECT_EQ(conv("caf\xE9 \x80", "UNKNOWN-8BIT"), "café €");
    EXPECT_EQ(conv("caf\xE9 \x80", "x-unknown"), "café €");
}

TEST(Charset, Iso88598IIsIso88598) {
    EXPECT_EQ(conv("\xF9\xEC\xE5\xED", "iso-8859-8-i"), "שלום");
    EXPECT_EQ(conv("\xF9\xEC\xE5\xED", "ISO-8859-8-I"), "שלום");
    EXPECT_EQ(conv("\xF9\xEC\xE5\xED", "iso-8859-8"), "שלום");
}

TEST(Charset, KsC56011987IsCp949) {
    EXPECT_EQ(conv("\xC7\xD1\xB1\xB9", "ks_c_5601-1987"), "한국");
    // 0x8C63 is a Unified Hangul Code extension, outside EUC-KR proper.
    EXPECT_EQ(conv("\xC7\xD1\xB1\xB9\x8C\x63", "ks_c_5601-1987"), "한국똠");
    EXPECT_EQ(conv("\xC7\xD1\xB1\xB9\x8C\x63", "euc-kr"), "한국똠");
}

TEST(Charset, Gb2312IsReadAsGb18030) {
    EXPECT_EQ(conv("\xD6\xD0\xCE\xC4", "gb2312"), "中文");
    // 0x86B4 is a GBK character that GB2312 lacks; mail labelled gb2312 uses it.
    EXPECT_EQ(conv("\x86\xB4\xD6\xD0\xCE\xC4", "GB2312"), "喆中文");
    EXPECT_EQ(conv("\x86\xB4", "gbk"), "喆");
    EXPECT_EQ(conv("\x94\x39\xFC\x36", "gb18030"), "😀");
}

TEST(Charset, ShiftJisLabelsAreCp932) {
    for (const char* label : {"shift_jis", "Shift_JIS", "shift-jis", "x-sjis", "SJIS", "cp932"}) {
        SCOPED_TRACE(label);
        EXPECT_EQ(conv("\x93\xFA\x96\x7B\x8C\xEA", label), "日本語");
        // CP932 reads 0x5C and 0x7E as ASCII (glibc's SHIFT_JIS would give ¥ and ‾) and has
        // the NEC row 13 characters.
        EXPECT_EQ(conv("a\\b~", label), "a\\b~");
        EXPECT_EQ(conv("\x87\x40", label), "①");
    }
}

TEST(Charset, Utf8Aliases) {
    EXPECT_EQ(conv("\xC3\xA9", "utf8"), "é");
    EXPECT_EQ(conv("\xC3\xA9", "UTF8"), "é");
    EXPECT_EQ(conv("\xC3\xA9", "Utf-8"), "é");
}

TEST(Charset, NamesAreCaseInsensitiveAndTrimmed) {
    EXPECT_EQ(conv("\xE9", " \"ISO-8859-1\" "), "é");
    EXPECT_EQ(conv("\xE9", "'iso-8859-1'"), "é");
    EXPECT_EQ(conv("\xE9", "\tIso-8859-1\r\n"), "é");
    EXPECT_EQ(conv("\xE9", "\" iso-8859-1 \""), "é");
}

TEST(Charset, Windows1251AndKoi8R) {
    EXPECT_EQ(conv("\xCF\xF0\xE8\xE2\xE5\xF2", "windows-1251"), "Привет");
    EXPECT_EQ(conv("\xCF\xF0\xE8\xE2\xE5\xF2", "CP1251"), "Привет");
    EXPECT_EQ(conv("\xF0\xD2\xC9\xD7\xC5\xD4", "koi8-r"), "Привет");
    EXPECT_EQ(conv("\xF0\xD2\xC9\xD7\xC5\xD4", "KOI8-R"), "Привет");
}

TEST(Charset, Iso2022JpAndOtherCjk) {
    EXPECT_EQ(conv("\x1B$BF|K\\8l\x1B(B", "ISO-2022-JP"), "日本語");
    EXPECT_EQ(conv("\xC6\xFC\xCB\xDC", "euc-jp"), "日本");
    EXPECT_EQ(conv("\xA4\xA4\xA4\xE5", "big5"), "中文");
}

TEST(Charset, StatefulDecoderStartsFreshEachCall) {
    // A value that ends in the JIS X 0208 shift state must not leak into the next call
    // through the cached descriptor.
    EXPECT_EQ(conv("\x1B$BF|", "ISO-2022-JP"), "日");
    EXPECT_EQ(conv("F|", "ISO-2022-JP"), "F|");
}

TEST(Charset, Utf16ByteOrderMarkIsReadEveryCall) {
    // glibc only looks at the BOM in the first call on a descriptor; each value has its own.
    for (int round = 0; round < 2; ++round) {
        EXPECT_EQ(conv(std::string("\xFE\xFF\x00"
                                   "A",
                                   4),
                       "UTF-16"),
                  "A");
        EXPECT_EQ(conv(std::string("\xFF\xFE"
                                   "A\x00",
                                   4),
                       "UTF-16"),
                  "A");
        const auto encoded = from_utf8("A", "UTF-16");
        ASSERT_TRUE(encoded.has_value());
        EXPECT_EQ(encoded->size(), 4u);  // BOM and one code unit, every time
        EXPECT_EQ(conv(*encoded, "utf-16"), "A");
    }
}

TEST(Charset, UnknownCharsetIsNullopt) {
    EXPECT_FALSE(to_utf8("abc", "x-no-such-charset").has_value());
    EXPECT_FALSE(to_utf8("abc", "").has_value());
    EXPECT_FALSE(to_utf8("abc", "\"\"").has_value());
    EXPECT_FALSE(to_utf8("abc", "   ").has_value());
    EXPECT_FALSE(to_utf8("abc", "utf-8//IGNORE").has_value());
    EXPECT_FALSE(to_utf8("abc", "utf-8//TRANSLIT").has_value());
    EXPECT_FALSE(to_utf8("abc", "utf-8, latin1").has_value());
    EXPECT_FALSE(to_utf8("abc", "utf 8").has_value());
    EXPECT_FALSE(to_utf8("abc", std::string(200, 'a')).has_value());
    EXPECT_FALSE(from_utf8("abc", "x-no-such-charset").has_value());
}

TEST(Charset, InvalidSequencesBecomeReplacementNeverFail) {
    EXPECT_EQ(conv("a\x93", "shift_jis"), "a" + fffd);  // truncated at the end
    EXPECT_EQ(conv("\xFF"
                   "a",
                   "shift_jis"),
              fffd + "a");
    EXPECT_EQ(conv("a\x81", "gb18030"), "a" + fffd);
    EXPECT_EQ(conv("\xFF\xFF", "euc-jp"), fffd + fffd);
    EXPECT_EQ(conv("\x1B$B\xFF\xFF\x1B(Bx", "ISO-2022-JP").substr(0, 3), fffd);
    // Every octet of a long garbage run is replaced and the call returns.
    const std::string garbage(10000, '\xFF');
    std::string expected;
    for (int i = 0; i < 10000; ++i) expected += fffd;
    EXPECT_EQ(conv(garbage, "shift_jis"), expected);
    EXPECT_EQ(conv(garbage, "utf-8"), expected);
}

TEST(Charset, FromUtf8) {
    EXPECT_EQ(from_utf8("Привет", "windows-1251"), "\xCF\xF0\xE8\xE2\xE5\xF2");
    EXPECT_EQ(from_utf8("Привет", "koi8-r"), "\xF0\xD2\xC9\xD7\xC5\xD4");
    EXPECT_EQ(from_utf8("日本語", "shift_jis"), "\x93\xFA\x96\x7B\x8C\xEA");
    EXPECT_EQ(from_utf8("喆中文", "gb2312"), "\x86\xB4\xD6\xD0\xCE\xC4");
    EXPECT_EQ(from_utf8("café", "latin1"), "caf\xE9");
    EXPECT_EQ(from_utf8("é", "utf8"), "é");
    // Stateful output ends in the initial (ASCII) state, RFC 1468.
    EXPECT_EQ(from_utf8("日本語", "ISO-2022-JP"), "\x1B$BF|K\\8l\x1B(B");
    // The windows-1252 holes map back to their octets.
    EXPECT_EQ(from_utf8("\xC2\x81\xE2\x82\xAC", "windows-1252"), "\x81\x80");
}

TEST(Charset, FromUtf8CannotRepresentIsNullopt) {
    EXPECT_FALSE(from_utf8("€", "ISO-8859-1").has_value());
    EXPECT_FALSE(from_utf8("日本", "windows-1251").has_value());
    EXPECT_FALSE(from_utf8("a\xFF", "ISO-8859-1").has_value());  // not UTF-8
    EXPECT_FALSE(from_utf8("a\xFF", "UTF-8").has_value());
}

TEST(Charset, CharsetKnown) {
    EXPECT_TRUE(charset_known("utf-8"));
    EXPECT_TRUE(charset_known("UNKNOWN-8BIT"));
    EXPECT_TRUE(charset_known("ks_c_5601-1987"));
    EXPECT_TRUE(charset_known("iso-8859-8-i"));
    EXPECT_TRUE(charset_known("x-sjis"));
    EXPECT_TRUE(charset_known("\"koi8-r\""));
    EXPECT_FALSE(charset_known("x-no-such-charset"));
    EXPECT_FALSE(charset_known(""));
    EXPECT_FALSE(charset_known("utf-8//IGNORE"));
}

TEST(Charset, CanonicalCharset) {
    EXPECT_EQ(canonical_charset("utf8"), "UTF-8");
    EXPECT_EQ(canonical_charset(" \"Utf-8\" "), "UTF-8");
    EXPECT_EQ(canonical_charset("ks_c_5601-1987"), "CP949");
    EXPECT_EQ(canonical_charset("GB2312"), "GB18030");
    EXPECT_EQ(canonical_charset("x-sjis"), "CP932");
    EXPECT_EQ(canonical_charset("shift-jis"), "CP932");
    EXPECT_EQ(canonical_charset("iso-8859-8-i"), "ISO-8859-8");
    EXPECT_EQ(canonical_charset("unknown-8bit"), "WINDOWS-1252");
    EXPECT_EQ(canonical_charset("x-unknown"), "WINDOWS-1252");
    EXPECT_EQ(canonical_charset("us-ascii"), "WINDOWS-1252");
    EXPECT_EQ(canonical_charset("latin1"), "ISO-8859-1");
    EXPECT_EQ(canonical_charset("koi8-r"), "KOI8-R");
    EXPECT_FALSE(canonical_charset("utf-8//IGNORE").has_value());
    EXPECT_FALSE(canonical_charset("").has_value());
}

TEST(Charset, CharacterLengths) {
    using v = std::vector<std::size_t>;
    EXPECT_EQ(character_lengths("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", "utf-8"), (v{1, 2, 3, 4}));
    EXPECT_EQ(character_lengths("a\xFF\xE2\x82", "utf-8"), (v{1, 1, 1, 1}));
    EXPECT_EQ(character_lengths("a\x93\xFA"
                                "b\x87\x40",
                                "shift_jis"),
              (v{1, 2, 1, 2}));
    EXPECT_EQ(character_lengths("a\x94\x39\xFC\x36\xD6\xD0", "gb18030"), (v{1, 4, 2}));
    EXPECT_EQ(character_lengths("\xC7\xD1\x8C\x63z", "ks_c_5601-1987"), (v{2, 2, 1}));
    EXPECT_EQ(character_lengths("\xA4\xA4\xA4\xE5", "big5"), (v{2, 2}));
    EXPECT_EQ(character_lengths("caf\xE9\x81", "unknown-8bit"), (v{1, 1, 1, 1, 1}));
    EXPECT_EQ(character_lengths("\x93", "shift_jis"), (v{1}));  // truncated
    EXPECT_EQ(character_lengths("", "shift_jis"), v{});
    EXPECT_FALSE(character_lengths("abc", "x-no-such-charset").has_value());
    // The lengths always cover the input.
    std::string garbage;
    for (int i = 0; i < 3000; ++i) garbage.push_back(static_cast<char>((i * 7919) & 0xFF));
    for (const char* cs : {"utf-8", "shift_jis", "gb18030", "euc-kr", "big5", "euc-jp", "utf-16"}) {
        SCOPED_TRACE(cs);
        const auto lengths = character_lengths(garbage, cs);
        ASSERT_TRUE(lengths.has_value());
        EXPECT_EQ(std::accumulate(lengths->begin(), lengths->end(), std::size_t{0}),
                  garbage.size());
        for (const std::size_t n : *lengths) EXPECT_GE(n, 1u);
    }
}

TEST(Charset, CacheEvictionKeepsResultsRight) {
    // More charsets than the per-thread cache holds, several rounds, unknown names mixed in.
    const std::vector<std::string> names = {
        "iso-8859-1",   "iso-8859-2",   "iso-8859-3",   "iso-8859-4",   "iso-8859-5",
        "iso-8859-6",   "iso-8859-7",   "iso-8859-9",   "iso-8859-13",  "iso-8859-15",
        "windows-1250", "windows-1251", "windows-1253", "windows-1254", "windows-1255",
        "windows-1256", "windows-1257", "koi8-r",       "koi8-u",       "cp437",
        "cp850",        "cp866",        "macintosh",    "x-nope-1",     "x-nope-2",
        "euc-jp",       "shift_jis",    "gb18030",      "big5",         "euc-kr",
        "iso-2022-jp",  "utf-16le"};
    for (int round = 0; round < 3; ++round) {
        for (const auto& name : names) {
            SCOPED_TRACE(name);
            const auto r = to_utf8("abc", name);
            if (name.rfind("x-nope", 0) == 0) {
                EXPECT_FALSE(r.has_value());
            } else if (name == "utf-16le") {
                EXPECT_EQ(r, "\xE6\x89\xA1" + fffd);  // "ab" as one code unit, "c" truncated
            } else {
                EXPECT_EQ(r, "abc");
                EXPECT_EQ(from_utf8("abc", name), "abc");
            }
        }
    }
}

TEST(Charset, ThreadsUseTheirOwnDescriptors) {
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([t, &failures] {
            for (int i = 0; i < 2000; ++i) {
                if (to_utf8("\x93\xFA\x96\x7B", "shift_jis") != "日本") ++failures[t];
                if (to_utf8("\xCF\xF0\xE8\xE2\xE5\xF2", "windows-1251") != "Привет") ++failures[t];
                if (from_utf8("日本", "ISO-2022-JP") != "\x1B$BF|K\\\x1B(B") ++failures[t];
            }
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

TEST(Charset, LargeInputIsLinear) {
    const std::string latin1(1 << 20, '\xE9');
    const auto start = std::chrono::steady_clock::now();
    const auto out = to_utf8(latin1, "iso-8859-1");
    ASSERT_TRUE(out.has_value());
    EXPECT_EQ(out->size(), latin1.size() * 2);
    const auto bad = to_utf8(std::string(1 << 20, '\xFF'), "shift_jis");
    ASSERT_TRUE(bad.has_value());
    EXPECT_EQ(bad->size(), (1u << 20) * 3);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

}  // namespace
}  // namespace mhtml::mime
