#include "mhtml/mime/rfc2047.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mhtml/mime/charset.hpp"

namespace mhtml::mime {
namespace {

const std::string fffd = "\xEF\xBF\xBD";

std::string display(std::string_view value, bool expect_malformed = false) {
    bool malformed = !expect_malformed;
    std::string out = decode_to_utf8(value, &malformed);
    EXPECT_EQ(malformed, expect_malformed) << "value: " << value;
    return out;
}

/// The value unchanged, and reported malformed.
void expect_kept_malformed(std::string_view value) {
    SCOPED_TRACE(std::string(value));
    EXPECT_EQ(display(value, true), value);
    EXPECT_EQ(decode_to_octets(value), value);
    const auto r = decode_words(value);
    EXPECT_TRUE(r.malformed);
    for (const auto& seg : r.segments) EXPECT_FALSE(seg.encoded);
}

bool is_valid_utf8(std::string_view s) {
    const auto r = to_utf8(s, "UTF-8");
    return r && *r == s;
}

std::vector<std::string> split_lines(std::string_view s) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (;;) {
        const std::size_t p = s.find("\r\n", start);
        lines.emplace_back(s.substr(start, p == std::string_view::npos ? p : p - start));
        if (p == std::string_view::npos) break;
        start = p + 2;
    }
    return lines;
}

/// Checks the RFC 2047 §2 limits on encode_words' output and that it reads back cleanly;
/// returns the value without a leading fold.
std::string check_encoded(std::string_view encoded, std::size_t first_line_used) {
    const auto lines = split_lines(encoded);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::size_t width = lines[i].size() + (i == 0 ? first_line_used : 0);
        if (i == 0 && lines[i].empty()) continue;  // the value starts with a fold
        EXPECT_LE(width, 76u) << "line " << i << " of " << encoded;
        if (i != 0) {
            EXPECT_EQ(lines[i][0], ' ');
            EXPECT_LE(lines[i].size() - 1, 75u);
        }
    }
    std::string_view v = encoded;
    if (v.substr(0, 3) == "\r\n ") v.remove_prefix(3);
    const auto r = decode_words(v);
    EXPECT_FALSE(r.malformed) << encoded;
    for (const auto& seg : r.segments) EXPECT_TRUE(seg.encoded) << encoded;
    return std::string(v);
}

// --- RFC 2047 §8 -----------------------------------------------------------------------

TEST(Rfc2047, Section8DisplayTable) {
    const struct {
        const char* encoded;
        const char* displayed;
    } table[] = {
        {"(=?ISO-8859-1?Q?a?=)", "(a)"},
        {"(=?ISO-8859-1?Q?a?= b)", "(a b)"},
        {"(=?ISO-8859-1?Q?a?= =?ISO-8859-1?Q?b?=)", "(ab)"},
        {"(=?ISO-8859-1?Q?a?=  =?ISO-8859-1?Q?b?=)", "(ab)"},
        {"(=?ISO-8859-1?Q?a?=\r\n    =?ISO-8859-1?Q?b?=)", "(ab)"},
        {"(=?ISO-8859-1?Q?a_b?=)", "(a b)"},
        {"(=?ISO-8859-1?Q?a?= =?ISO-8859-2?Q?_b?=)", "(a b)"},
    };
    for (const auto& row : table) {
        SCOPED_TRACE(row.encoded);
        EXPECT_EQ(display(row.encoded), row.displayed);
        EXPECT_EQ(decode_to_octets(row.encoded), row.displayed);
    }
}

TEST(Rfc2047, Section8HeaderExamples) {
    EXPECT_EQ(display("=?US-ASCII?Q?Keith_Moore?= <moore@cs.utk.edu>"),
              "Keith Moore <moore@cs.utk.edu>");
    EXPECT_EQ(display("=?ISO-8859-1?Q?Keld_J=F8rn_Simonsen?= <keld@dkuug.dk>"),
              "Keld Jørn Simonsen <keld@dkuug.dk>");
    EXPECT_EQ(display("=?ISO-8859-1?Q?Andr=E9?= Pirard <PIRARD@vm1.ulg.ac.be>"),
              "André Pirard <PIRARD@vm1.ulg.ac.be>");
    EXPECT_EQ(display("=?ISO-8859-1?B?SWYgeW91IGNhbiByZWFkIHRoaXMgeW8=?=\r\n"
                      "    =?ISO-8859-2?B?dSB1bmRlcnN0YW5kIHRoZSBleGFtcGxlLg==?="),
              "If you can read this you understand the example.");
    EXPECT_EQ(display("=?ISO-8859-1?Q?Olle_J=E4rnefors?= <ojarnef@admin.kth.se>"),
              "Olle Järnefors <ojarnef@admin.kth.se>");
    EXPECT_EQ(display("Time for ISO 10646?"), "Time for ISO 10646?");
    EXPECT_EQ(display("=?ISO-8859-1?Q?Patrik_F=E4ltstr=F6m?= <paf@nada.kth.se>"),
              "Patrik Fältström <paf@nada.kth.se>");
    EXPECT_EQ(display("Nathaniel Borenstein <nsb@thumper.bellcore.com>\r\n"
                      "    (=?iso-8859-8?b?7eXs+SDv4SDp7Oj08A==?=)"),
              "Nathaniel Borenstein <nsb@thumper.bellcore.com>\r\n    (םולש ןב ילטפנ)");
}

// --- §6.2 white space ------------------------------------------------------------------

TEST(Rfc2047, AdjacentWordsDropWhitespace_6_2) {
    EXPECT_EQ(display("=?utf-8?q?a?= =?utf-8?q?b?="), "ab");
    EXPECT_EQ(display("=?utf-8?q?a?=\t=?utf-8?q?b?="), "ab");
    EXPECT_EQ(display("=?utf-8?q?a?=\r\n =?utf-8?q?b?=\r\n\t=?utf-8?q?c?="), "abc");
    EXPECT_EQ(display("=?utf-8?q?a?=\n =?utf-8?q?b?="), "ab");  // bare LF folding
    EXPECT_EQ(display("=?utf-8?q?a?==?utf-8?q?b?="), "ab");     // no white space at all
}

TEST(Rfc2047, WhitespaceBetweenWordAndTextIsKept_6_2) {
    EXPECT_EQ(display("=?utf-8?q?a?= b"), "a b");
    EXPECT_EQ(display("a =?utf-8?q?b?="), "a b");
    EXPECT_EQ(display("a  =?utf-8?q?b?=  c"), "a  b  c");
    EXPECT_EQ(display(" =?utf-8?q?a?= "), " a ");
    EXPECT_EQ(display("=?utf-8?q?a?= x =?utf-8?q?b?="), "a x b");
}

// --- Encodings, charsets, language -------------------------------------------------------

TEST(Rfc2047, QUnderscoreIsSpaceAndHexEitherCase_4_2) {
    EXPECT_EQ(display("=?ISO-8859-1?Q?caf=E9_au_lait?="), "café au lait");
    EXPECT_EQ(display("=?ISO-8859-1?Q?caf=e9?="), "café");
    EXPECT_EQ(display("=?utf-8?q?=5F=3d=3F?="), "_=?");
}

TEST(Rfc2047, QInvalidEscapeIsKeptLiterally) {
    EXPECT_EQ(display("=?utf-8?q?100=ZZ?="), "100=ZZ");
    EXPECT_EQ(display("=?utf-8?q?a=4?="), "a=4");
    EXPECT_EQ(display("=?utf-8?q?a=?="), "a=");
}

TEST(Rfc2047, QWithWhitespaceIsDecodedLeniently) {
    // §5 forbids white space inside an encoded-word; Python's email decodes it anyway.
    EXPECT_EQ(display("=?utf-8?q?hello world?="), "hello world");
    EXPECT_EQ(display("=?utf-8?q?hello\r\n world?="), "hello world");  // folded inside
    EXPECT_EQ(display("=?utf-8?b?aGVs bG8=?="), "hello");
}

TEST(Rfc2047, CharsetAndEncodingAreCaseInsensitive) {
    EXPECT_EQ(display("=?uTf-8?q?caf=C3=A9?="), "café");
    EXPECT_EQ(display("=?UTF-8?Q?caf=C3=A9?="), "café");
    EXPECT_EQ(display("=?utf-8?b?Y2Fmw6k=?="), "café");
    EXPECT_EQ(display("=?UTF-8?B?Y2Fmw6k=?="), "café");
    // A quoted charset is not a token: ordinary text, not an encoded-word.
    EXPECT_EQ(display("=?\"utf8\"?B?Y2Fmw6k=?="), "=?\"utf8\"?B?Y2Fmw6k=?=");
    EXPECT_EQ(display("=?utf8?B?Y2Fmw6k=?="), "café");
}

TEST(Rfc2047, LanguageSuffix_Rfc2231_5) {
    const auto r = decode_words("=?US-ASCII*EN?Q?Keith_Moore?=");
    ASSERT_EQ(r.segments.size(), 1u);
    EXPECT_TRUE(r.segments[0].encoded);
    EXPECT_EQ(r.segments[0].charset, "US-ASCII");
    EXPECT_EQ(r.segments[0].language, "EN");
    EXPECT_EQ(r.segments[0].octets, "Keith Moore");
    EXPECT_EQ(display("=?utf-8*en?Q?caf=C3=A9?="), "café");
    EXPECT_EQ(display("=?utf-8*en-US?b?Y2Fmw6k=?="), "café");
    EXPECT_EQ(display("=?utf-8*?q?a?="), "a");  // empty language
}

TEST(Rfc2047, SegmentsAndOffsets) {
    const std::string v = "Re: =?utf-8?q?a?= =?iso-8859-1?b?6Q==?= tail";
    const auto r = decode_words(v);
    EXPECT_FALSE(r.malformed);
    EXPECT_FALSE(r.unknown_charset);
    ASSERT_EQ(r.segments.size(), 4u);
    EXPECT_FALSE(r.segments[0].encoded);
    EXPECT_EQ(r.segments[0].octets, "Re: ");
    EXPECT_EQ(r.segments[0].offset, 0u);
    EXPECT_TRUE(r.segments[1].encoded);
    EXPECT_EQ(r.segments[1].charset, "utf-8");
    EXPECT_EQ(r.segments[1].language, "");
    EXPECT_EQ(r.segments[1].octets, "a");
    EXPECT_EQ(r.segments[1].offset, 4u);
    EXPECT_TRUE(r.segments[2].encoded);
    EXPECT_EQ(r.segments[2].charset, "iso-8859-1");
    EXPECT_EQ(r.segments[2].octets, "\xE9");
    EXPECT_EQ(r.segments[2].offset, v.find("=?iso"));
    EXPECT_FALSE(r.segments[3].encoded);
    EXPECT_EQ(r.segments[3].octets, " tail");
    EXPECT_EQ(r.segments[3].offset, v.find(" tail"));
    EXPECT_TRUE(decode_words("").segments.empty());
}

// --- Lenient recognition (GMime / Python) -------------------------------------------------

TEST(Rfc2047, WordNotSeparatedFromTextIsDecoded) {
    EXPECT_EQ(display("foo=?utf-8?q?bar?="), "foobar");
    EXPECT_EQ(display("=?utf-8?q?bar?=baz"), "barbaz");
    EXPECT_EQ(display("x=?utf-8?q?a?=y=?utf-8?q?b?=z"), "xaybz");
    EXPECT_EQ(display("\"=?utf-8?q?J=C3=B6rg?=\" <j@example.org>"), "\"Jörg\" <j@example.org>");
}

TEST(Rfc2047, BMissingPaddingIsAccepted) {
    EXPECT_EQ(display("=?utf-8?b?QUI?="), "AB");
    EXPECT_EQ(display("=?utf-8?b?QQ?="), "A");
    EXPECT_EQ(display("=?utf-8?b?Y2Fmw6k?="), "café");
}

TEST(Rfc2047, BLenientDecoding) {
    EXPECT_EQ(display("=?utf-8?b?QU!JD?="), "ABC");  // stray character skipped
    EXPECT_EQ(display("=?utf-8?b?QQ==QQ==?="), "AA");
    EXPECT_EQ(display("=?utf-8?b?!!!?="),
              "");  // nothing in the alphabet: empty, like Python  // concatenated padded pieces
    EXPECT_EQ(display("=?utf-8?b?"
                      "?="),
              "");  // empty
    EXPECT_EQ(display("=?utf-8?q?"
                      "?="),
              "");
}

TEST(Rfc2047, UnknownCharsetKeepsOctetsShownAsWindows1252) {
    const auto r = decode_words("=?x-klingon?q?caf=E9_=80?=");
    EXPECT_TRUE(r.unknown_charset);
    EXPECT_FALSE(r.malformed);
    ASSERT_EQ(r.segments.size(), 1u);
    EXPECT_TRUE(r.segments[0].encoded);
    EXPECT_EQ(r.segments[0].charset, "x-klingon");
    EXPECT_EQ(r.segments[0].octets, "caf\xE9 \x80");
    EXPECT_EQ(display("=?x-klingon?q?caf=E9_=80?="), "café €");
    EXPECT_EQ(decode_to_octets("=?x-klingon?q?caf=E9?="), "caf\xE9");
    EXPECT_FALSE(decode_words("=?utf-8?q?a?=").unknown_charset);
}

TEST(Rfc2047, SplitMultibyteCharacterJoinsAcrossWords) {
    // "€" (E2 82 AC) split between two B words and between two Q words; the second Q word
    // spells the charset differently but names the same one.
    EXPECT_EQ(display("=?UTF-8?B?4oI=?= =?UTF-8?B?rA==?="), "€");
    EXPECT_EQ(display("=?utf-8?q?=E2=82?=\r\n =?UTF8?Q?=AC?="), "€");
    EXPECT_EQ(display("=?utf-8?q?=E2?==?utf-8?q?=82=AC?="), "€");
    // ISO-2022-JP split in the middle of the shift state.
    EXPECT_EQ(display("=?ISO-2022-JP?Q?=1B$BF|?= =?ISO-2022-JP?Q?K=5C8l=1B(B?="), "日本語");
    // Different charsets are converted separately.
    EXPECT_EQ(display("=?utf-8?q?=E2=82?= =?iso-8859-1?q?=AC?="), fffd + "¬");
    // Text between the words stops the joining.
    EXPECT_EQ(display("=?utf-8?q?=E2=82?= x =?utf-8?q?=AC?="), fffd + " x " + fffd);
}

TEST(Rfc2047, Windows1251AndKoi8RWords) {
    EXPECT_EQ(display("=?windows-1251?B?z/Do4uXy?="), "Привет");
    EXPECT_EQ(display("=?windows-1251?Q?=CF=F0=E8=E2=E5=F2?="), "Привет");
    EXPECT_EQ(display("=?KOI8-R?B?8NLJ18XU?="), "Привет");
    EXPECT_EQ(display("=?koi8-r?q?=F0=D2=C9=D7=C5=D4?="), "Привет");
}

TEST(Rfc2047, JapaneseWords) {
    EXPECT_EQ(display("=?Shift_JIS?B?k/qWe4zq?="), "日本語");
    EXPECT_EQ(display("=?x-sjis?B?k/qWe4zq?="), "日本語");
    EXPECT_EQ(display("=?ISO-2022-JP?B?GyRCRnxLXDhsGyhC?="), "日本語");
    EXPECT_EQ(display("=?iso-2022-jp?b?GyRCRnxLXDhsGyhC?= =?iso-2022-jp?b?GyRCRnxLXDhsGyhC?="),
              "日本語日本語");
}

TEST(Rfc2047, ChineseAndKoreanWords) {
    EXPECT_EQ(display("=?gb2312?B?1tDOxA==?="), "中文");
    EXPECT_EQ(display("=?GB2312?B?hrTW0M7E?="), "喆中文");  // GBK octets labelled gb2312
    EXPECT_EQ(display("=?GBK?B?hrTW0M7E?="), "喆中文");
    EXPECT_EQ(display("=?big5?B?pKSk5Q==?="), "中文");
    EXPECT_EQ(display("=?ks_c_5601-1987?B?x9GxuYxj?="), "한국똠");
}

TEST(Rfc2047, InvalidOctetsInKnownCharsetBecomeReplacement) {
    EXPECT_EQ(display("=?utf-8?q?a=FFb?="), "a" + fffd + "b");
    EXPECT_EQ(display("=?shift_jis?q?=93?="), fffd);
}

TEST(Rfc2047, LiteralTextDisplay) {
    EXPECT_EQ(display("caf\xC3\xA9 =?utf-8?q?x?="), "café x");  // raw UTF-8 (RFC 6532)
    EXPECT_EQ(display("caf\xE9 =?utf-8?q?x?="), "café x");      // raw 8-bit: windows-1252
    EXPECT_EQ(decode_to_octets("caf\xE9 =?utf-8?q?x?="), "caf\xE9 x");
}

TEST(Rfc2047, DecodeToOctetsKeepsRawOctets) {
    EXPECT_EQ(decode_to_octets("=?ISO-8859-1?Q?caf=E9?= =?UTF-8?Q?=C3=A9?="), "caf\xE9\xC3\xA9");
    EXPECT_EQ(decode_to_octets("http://example.org/=?utf-8?q?caf=C3=A9?=.html"),
              "http://example.org/caf\xC3\xA9.html");
    EXPECT_EQ(decode_to_octets("no words here"), "no words here");
}

// --- Malformed words stay as they are ------------------------------------------------------

TEST(Rfc2047, MalformedMissingTerminator) {
    expect_kept_malformed("=?utf-8?q?abc");
    expect_kept_malformed("=?utf-8?q?abc?");
    expect_kept_malformed("=?utf-8?q?");
    expect_kept_malformed("=?utf-8?");
    expect_kept_malformed("=?utf-8?q");
}

TEST(Rfc2047, MalformedUnknownEncoding) {
    expect_kept_malformed("=?utf-8?x?abc?=");
    expect_kept_malformed("=?utf-8?qq?abc?=");
    expect_kept_malformed("=?utf-8??abc?=");
}

TEST(Rfc2047, MalformedEmptyCharset) {
    expect_kept_malformed("=??q?abc?=");
    expect_kept_malformed("=?*en?q?abc?=");
}

TEST(Rfc2047, MalformedUndecodableBase64) {
    expect_kept_malformed("=?utf-8?b?QUJDR?=");  // one sextet left over
    expect_kept_malformed("=?utf-8?b?Q?=");
    expect_kept_malformed("=?utf-8?b?Q=QQ==?=");
}

TEST(Rfc2047, MalformedQuestionMarkInText) {
    expect_kept_malformed("=?utf-8?q?a?b?=");
}

TEST(Rfc2047, MalformedWordDoesNotSwallowTheNext) {
    EXPECT_EQ(display("=?utf-8?q?broken =?utf-8?q?ok?=", true), "=?utf-8?q?broken ok");
    EXPECT_EQ(display("=?utf-8?q?a?= =?utf-8?x?b?= =?utf-8?q?c?=", true), "a =?utf-8?x?b?= c");
}

TEST(Rfc2047, OrdinaryTextIsNotMalformed) {
    for (const char* v : {"Is 1+1=2?", "x=?y", "a?=b", "=?", "=", "?", "", "What=??",
                          "=?utf 8?q?abc?=", "=?<x>?q?abc?=", "Time for ISO 10646?"}) {
        SCOPED_TRACE(v);
        EXPECT_EQ(display(v, false), v);
        EXPECT_EQ(decode_to_octets(v), v);
    }
}

// --- Hostile input --------------------------------------------------------------------

TEST(Rfc2047, HostileInputIsLinear) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> inputs;
    std::string s;
    for (int i = 0; i < 200000; ++i) s += "=?";
    inputs.push_back(s);
    s.clear();
    for (int i = 0; i < 100000; ++i) s += "=?a?q?";
    inputs.push_back(s);
    s.clear();
    for (int i = 0; i < 100000; ++i) s += "=?a?q?x ";
    inputs.push_back(s);
    s.clear();
    for (int i = 0; i < 100000; ++i) s += "=?utf-8?b?Q?= ";
    inputs.push_back(s);
    inputs.push_back("=?utf-8?q?" + std::string(1 << 20, 'a'));
    inputs.push_back("=?" + std::string(1 << 20, 'a'));
    inputs.push_back(std::string(1 << 20, '?') + "=");
    for (const auto& in : inputs) {
        bool malformed = false;
        EXPECT_EQ(decode_to_utf8(in, &malformed), in);
        EXPECT_EQ(decode_to_octets(in), in);
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(Rfc2047, ManyWordsDecode) {
    std::string v;
    for (int i = 0; i < 100000; ++i) v += "=?utf-8?q?a?= ";
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(display(v), std::string(100000, 'a') + " ");
    std::string mixed;
    for (int i = 0; i < 50000; ++i)
        mixed += i % 2 ? "=?utf-8?q?a?= " : "=?x-cs" + std::to_string(i % 97) + "?q?b?= ";
    const auto r = decode_words(mixed);
    EXPECT_TRUE(r.unknown_charset);
    EXPECT_EQ(decode_to_octets(mixed).size(), 50000u + 1);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(Rfc2047, RandomNoiseNeverBreaks) {
    std::mt19937 rng(20470u);
    const std::string alphabet = "=?qQbBuUtf8-*_ =\r\n\tA/+x\xE9\xFF";
    for (int iter = 0; iter < 3000; ++iter) {
        std::string v;
        const std::size_t n = rng() % 80;
        for (std::size_t i = 0; i < n; ++i) v.push_back(alphabet[rng() % alphabet.size()]);
        bool malformed = false;
        const std::string text = decode_to_utf8(v, &malformed);
        EXPECT_TRUE(is_valid_utf8(text)) << v;
        const auto r = decode_words(v);
        std::size_t last = 0;
        for (const auto& seg : r.segments) {
            EXPECT_GE(seg.offset, last);
            EXPECT_LT(seg.offset, v.size());
            last = seg.offset + 1;
            if (!seg.encoded) {
                EXPECT_EQ(v.substr(seg.offset, seg.octets.size()), seg.octets);
            }
        }
        if (v.find("=?") == std::string::npos) {
            EXPECT_EQ(decode_to_octets(v), v);
        }
    }
}

// --- encode_words ----------------------------------------------------------------------

TEST(Rfc2047, EncodeQ_4_2) {
    EXPECT_EQ(encode_words("Keith Moore", "US-ASCII", rfc2047_encoding::q),
              "=?US-ASCII?Q?Keith_Moore?=");
    EXPECT_EQ(encode_words("Keld J\xF8rn Simonsen", "ISO-8859-1", rfc2047_encoding::q),
              "=?ISO-8859-1?Q?Keld_J=F8rn_Simonsen?=");
    EXPECT_EQ(encode_words("Andr\xE9", "ISO-8859-1"), "=?ISO-8859-1?Q?Andr=E9?=");
}

TEST(Rfc2047, EncodeQIsPhraseSafe_5) {
    const std::string specials = "=?_\"(),.:;<>@[\\]";
    const std::string out = encode_words(specials, "us-ascii", rfc2047_encoding::q);
    EXPECT_EQ(out, "=?us-ascii?Q?=3D=3F=5F=22=28=29=2C=2E=3A=3B=3C=3E=40=5B=5C=5D?=");
    EXPECT_EQ(encode_words("a\tb\x7F\x01\xFF", "unknown-8bit", rfc2047_encoding::q),
              "=?unknown-8bit?Q?a=09b=7F=01=FF?=");
    // Only letters, digits and "!*+-/" stand for themselves (§5 (3)).
    EXPECT_EQ(encode_words("aZ9!*+-/#$%&'^`{|}~", "us-ascii", rfc2047_encoding::q),
              "=?us-ascii?Q?aZ9!*+-/=23=24=25=26=27=5E=60=7B=7C=7D=7E?=");
}

TEST(Rfc2047, EncodeB_4_1) {
    EXPECT_EQ(encode_words("If you can read this yo", "ISO-8859-1", rfc2047_encoding::b),
              "=?ISO-8859-1?B?SWYgeW91IGNhbiByZWFkIHRoaXMgeW8=?=");
    EXPECT_EQ(encode_words("u understand the example.", "ISO-8859-2", rfc2047_encoding::b),
              "=?ISO-8859-2?B?dSB1bmRlcnN0YW5kIHRoZSBleGFtcGxlLg==?=");
}

TEST(Rfc2047, EncodeShortestPicksByLength) {
    EXPECT_EQ(encode_words("Hello world", "utf-8"), "=?utf-8?Q?Hello_world?=");
    EXPECT_EQ(encode_words("Привет", "utf-8"), "=?utf-8?B?0J/RgNC40LLQtdGC?=");
    EXPECT_EQ(encode_words("", "utf-8"), "");
}

TEST(Rfc2047, EncodeSplitsLongValuesWithinLineLimits_2) {
    std::string text;
    for (int i = 0; i < 40; ++i) text += "Grüße aus Köln € ";
    for (const auto enc : {rfc2047_encoding::q, rfc2047_encoding::b, rfc2047_encoding::shortest}) {
        for (const std::size_t used : {0u, 9u, 30u, 60u, 70u, 76u, 200u}) {
            SCOPED_TRACE(used);
            const std::string e = encode_words(text, "UTF-8", enc, used);
            const std::string v = check_encoded(e, used);
            EXPECT_EQ(decode_to_utf8(v), text);
            EXPECT_EQ(decode_to_octets(v), text);
            // Every word holds whole UTF-8 characters.
            for (const auto& seg : decode_words(v).segments) EXPECT_TRUE(is_valid_utf8(seg.octets));
        }
    }
}

TEST(Rfc2047, EncodeFirstLineTooFullStartsWithFold) {
    const std::string e = encode_words("x", "utf-8", rfc2047_encoding::q, 70);
    EXPECT_EQ(e, "\r\n =?utf-8?Q?x?=");
    EXPECT_EQ(encode_words("x", "utf-8", rfc2047_encoding::q, 60), "=?utf-8?Q?x?=");
}

TEST(Rfc2047, EncodeShiftJisNeverSplitsACharacter) {
    std::string text;
    for (int i = 0; i < 30; ++i) text += "日本語のテキストABC";
    const auto sjis = from_utf8(text, "Shift_JIS");
    ASSERT_TRUE(sjis.has_value());
    for (const auto enc : {rfc2047_encoding::q, rfc2047_encoding::b}) {
        const std::string v = check_encoded(encode_words(*sjis, "Shift_JIS", enc, 9), 9);
        EXPECT_EQ(decode_to_octets(v), *sjis);
        for (const auto& seg : decode_words(v).segments) {
            const auto part = to_utf8(seg.octets, "Shift_JIS");
            ASSERT_TRUE(part.has_value());
            EXPECT_EQ(part->find(fffd), std::string::npos) << "split character";
        }
    }
}

TEST(Rfc2047, EncodeGb18030NeverSplitsACharacter) {
    std::string text;
    for (int i = 0; i < 30; ++i) text += "中文喆😀x";
    const auto gb = from_utf8(text, "GB18030");
    ASSERT_TRUE(gb.has_value());
    const std::string v = check_encoded(encode_words(*gb, "GB18030", rfc2047_encoding::b), 0);
    EXPECT_EQ(decode_to_octets(v), *gb);
    for (const auto& seg : decode_words(v).segments) {
        EXPECT_EQ(to_utf8(seg.octets, "GB18030")->find(fffd), std::string::npos);
    }
}

TEST(Rfc2047, EncodeIso2022JpWordsAreSelfContained) {
    std::string text;
    for (int i = 0; i < 20; ++i) text += "日本語のテキスト ABC ";
    const auto jis = from_utf8(text, "ISO-2022-JP");
    ASSERT_TRUE(jis.has_value());
    for (const auto enc : {rfc2047_encoding::q, rfc2047_encoding::b}) {
        const std::string v = check_encoded(encode_words(*jis, "ISO-2022-JP", enc, 9), 9);
        EXPECT_EQ(decode_to_utf8(v), text);
        const auto r = decode_words(v);
        EXPECT_GT(r.segments.size(), 2u);
        std::string separately;
        for (const auto& seg : r.segments) {
            // RFC 1468: each word ends in ASCII; each decodes on its own.
            const std::size_t esc = seg.octets.rfind('\x1B');
            if (esc != std::string::npos) {
                EXPECT_EQ(seg.octets.substr(esc, 3), "\x1B(B");
            }
            separately += to_utf8(seg.octets, "ISO-2022-JP").value_or("?");
        }
        EXPECT_EQ(separately, text);
    }
}

TEST(Rfc2047, EncodeLabels) {
    EXPECT_EQ(encode_words("x", "utf-8*en"), "=?utf-8*en?Q?x?=");
    EXPECT_EQ(decode_words("=?utf-8*en?Q?x?=").segments.at(0).language, "en");
    EXPECT_EQ(encode_words("x", " \"utf-8\" "), "=?utf-8?Q?x?=");
    // A label that cannot be written in an encoded-word.
    EXPECT_EQ(encode_words("x", "bad?label"), "=?UNKNOWN-8BIT?Q?x?=");
    EXPECT_EQ(encode_words("x", "bad label"), "=?UNKNOWN-8BIT?Q?x?=");
    EXPECT_EQ(encode_words("x", ""), "=?UNKNOWN-8BIT?Q?x?=");
}

TEST(Rfc2047, EncodeWithHugeCharsetNameStillTerminates) {
    const std::string cs = "x-" + std::string(90, 'a');
    const std::string e = encode_words("abc\xE9", cs, rfc2047_encoding::q);
    EXPECT_EQ(decode_to_octets(e), "abc\xE9");
    EXPECT_EQ(split_lines(e).size(), 4u);  // one character per (over-long) word
}

// --- Round-trip properties ----------------------------------------------------------

std::string random_octets(std::mt19937& rng, std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(rng() & 0xFF));
    return s;
}

std::string random_utf8(std::mt19937& rng, std::size_t chars) {
    std::string s;
    for (std::size_t i = 0; i < chars; ++i) {
        std::uint32_t cp = 0;
        switch (rng() % 4) {
            case 0:
                cp = rng() % 0x80;
                break;
            case 1:
                cp = 0x80 + rng() % (0x800 - 0x80);
                break;
            case 2:
                do cp = 0x800 + rng() % (0x10000 - 0x800);
                while (cp >= 0xD800 && cp <= 0xDFFF);
                break;
            default:
                cp = 0x10000 + rng() % (0x110000 - 0x10000);
                break;
        }
        if (cp < 0x80) {
            s.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            s.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            s.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }
    return s;
}

constexpr rfc2047_encoding all_encodings[] = {rfc2047_encoding::q, rfc2047_encoding::b,
                                              rfc2047_encoding::shortest};

TEST(Rfc2047, PropertyRoundTripRandomOctetsUnknown8Bit) {
    std::mt19937 rng(2047u);
    for (int iter = 0; iter < 400; ++iter) {
        const std::string x = random_octets(rng, rng() % 300);
        for (const auto enc : all_encodings) {
            EXPECT_EQ(decode_to_octets(encode_words(x, "UNKNOWN-8BIT", enc)), x);
            const std::size_t used = rng() % 100;
            const std::string v = check_encoded(encode_words(x, "UNKNOWN-8BIT", enc, used), used);
            EXPECT_EQ(decode_to_octets(v), x);
        }
    }
}

TEST(Rfc2047, PropertyRoundTripRandomOctetsIso88591) {
    std::mt19937 rng(88591u);
    for (int iter = 0; iter < 400; ++iter) {
        const std::string x = random_octets(rng, rng() % 300);
        for (const auto enc : all_encodings) {
            EXPECT_EQ(decode_to_octets(encode_words(x, "ISO-8859-1", enc)), x);
            const std::size_t used = rng() % 100;
            const std::string v = check_encoded(encode_words(x, "ISO-8859-1", enc, used), used);
            EXPECT_EQ(decode_to_octets(v), x);
            EXPECT_EQ(decode_to_utf8(v), to_utf8(x, "ISO-8859-1"));
        }
    }
}

TEST(Rfc2047, PropertyRoundTripRandomUtf8) {
    std::mt19937 rng(65001u);
    for (int iter = 0; iter < 400; ++iter) {
        const std::string x = random_utf8(rng, rng() % 120);
        for (const auto enc : all_encodings) {
            EXPECT_EQ(decode_to_octets(encode_words(x, "UTF-8", enc)), x);
            const std::size_t used = rng() % 100;
            const std::string v = check_encoded(encode_words(x, "UTF-8", enc, used), used);
            EXPECT_EQ(decode_to_octets(v), x);
            EXPECT_EQ(decode_to_utf8(v), x);
            for (const auto& seg : decode_words(v).segments) EXPECT_TRUE(is_valid_utf8(seg.octets));
        }
    }
}

TEST(Rfc2047, PropertyRoundTripArbitraryOctetsLabelledUtf8) {
    // Ill-formed UTF-8 is still carried exactly (each bad octet is its own character).
    std::mt19937 rng(8u);
    for (int iter = 0; iter < 200; ++iter) {
        const std::string x = random_octets(rng, rng() % 200);
        for (const auto enc : all_encodings) {
            EXPECT_EQ(decode_to_octets(encode_words(x, "utf-8", enc)), x);
        }
    }
}

}  // namespace
}  // namespace mhtml::mime
