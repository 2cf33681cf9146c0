// RFC 2017 §3.1 URL parameters and URIs in Content-Location / Content-Base
// (tests/data/spec/url_param.json; REQUIREMENTS URL-3.1, MHT-4.4, THTML-3).
#include "mhtml/uri/header_value.hpp"

#include "spec/vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace mhtml::uri {
namespace {

using test::codes;
using test::load_vectors;
using test::octets;

std::vector<std::string> words_of(std::string_view param) {
    EXPECT_TRUE(param.starts_with('"') && param.ends_with('"')) << param;
    std::vector<std::string> words;
    std::string word;
    for (char c : param.substr(1, param.size() - 2)) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            if (!word.empty()) words.push_back(std::move(word));
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) words.push_back(word);
    return words;
}

// Concatenation by appending: GCC 12 gives a false -Wrestrict on "literal" + std::string.
std::string cat(std::initializer_list<std::string_view> pieces) {
    std::string out;
    for (auto p : pieces) out += p;
    return out;
}

std::vector<std::string> names(const std::vector<diagnostic>& diags) {
    std::vector<std::string> out;
    for (auto& d : diags) out.emplace_back(code_name(d.code));
    std::sort(out.begin(), out.end());
    return out;
}

TEST(UrlParam, URL_3_1_EncodeVectors) {
    auto file = load_vectors("url_param.json");
    std::size_t n = 0;
    for (auto& v : file["encode"]) {
        SCOPED_TRACE(v["id"].get<std::string>());
        ++n;
        std::string url = octets(v["url"]);
        auto param = url_parameter(url);
        if (v.contains("expected_error")) {
            EXPECT_FALSE(param.ok());
            EXPECT_EQ(param.error, v["expected_error"].get<std::string>());
            continue;
        }
        ASSERT_TRUE(param.ok()) << param.message;
        EXPECT_EQ(escape_url(url), octets(v["escaped_url"]));  // URL-3.1.2 exact
        EXPECT_EQ(param.value, octets(v["canonical_param"]));  // the toolkit's writer
        if (!v["any_valid_folding"].get<bool>()) {
            EXPECT_EQ(param.value, octets(v["encoded_param"]));
        }
        // Normative for every vector: extraction gives the escaped URL, and no word is over 40.
        EXPECT_EQ(extract_url_parameter(octets(v["encoded_param"])), octets(v["escaped_url"]));
        EXPECT_EQ(extract_url_parameter(param.value), octets(v["escaped_url"]));
        for (auto& w : words_of(param.value)) EXPECT_LE(w.size(), 40u) << w;
    }
    EXPECT_EQ(n, 21u);
}

TEST(UrlParam, URL_3_1_5_ExtractVectors) {
    auto file = load_vectors("url_param.json");
    std::size_t n = 0;
    for (auto& v : file["extract"]) {
        SCOPED_TRACE(v["id"].get<std::string>());
        ++n;
        std::vector<diagnostic> diags;
        EXPECT_EQ(extract_header_uri(octets(v["header_value"]), &diags), octets(v["url"]));
        auto expected = codes(v);
        std::sort(expected.begin(), expected.end());
        EXPECT_EQ(names(diags), expected);
    }
    EXPECT_EQ(n, 14u);
}

TEST(UrlParam, URL_3_1_3_GreedyWordsNeverSplitAnEscape) {
    auto p = url_parameter(std::string(100, 'a')).value;
    EXPECT_EQ(p, cat({"\"", std::string(40, 'a'), " ", std::string(40, 'a'), " ",
                      std::string(20, 'a'), "\""}));
    // A %E9 straddling position 40 moves whole into the next word.
    auto q = url_parameter(std::string(39, 'b') + "\xE9" + "c").value;
    EXPECT_EQ(q, cat({"\"", std::string(39, 'b'), " %E9c\""}));
    auto r = url_parameter(std::string(38, 'b') + "\xE9" + "c").value;
    EXPECT_EQ(r, cat({"\"", std::string(38, 'b'), " %E9c\""}));
    auto s = url_parameter(std::string(37, 'b') + "\xE9" + "c").value;
    EXPECT_EQ(s, cat({"\"", std::string(37, 'b'), "%E9 c\""}));
}

TEST(UrlParam, URL_3_1_4_FoldingOnlyBetweenWords) {
    std::string url =
        "ftp://ftp.deepdirs.org/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/20/21/file.html";
    auto folded = fold_url_parameter(url_parameter(url).value, 18);
    std::size_t line_start = 0, column0 = 18;
    for (std::size_t i = 0; i <= folded.size(); ++i) {
        if (i == folded.size() || folded[i] == '\r') {
            EXPECT_LE(column0 + i - line_start, 78u);
            column0 = 0;
            line_start = i + 2;
        }
    }
    EXPECT_NE(folded.find("\r\n "), std::string::npos);
    EXPECT_EQ(extract_header_uri(folded), url);
}

TEST(UrlParam, URL_3_1_6_RoundTripProperty) {
    // extract(fold(u)) == escape(u) for any octets; == u when u has nothing to escape.
    std::mt19937 rng(2017);
    for (int round = 0; round < 3000; ++round) {
        std::string u(1 + rng() % 200, '\0');
        const bool plain = round % 2 == 0;
        for (char& c : u) {
            c = static_cast<char>(rng() % 256);
            if (plain) c = static_cast<char>(0x21 + rng() % 0x5E);
            if (plain && (c == '"' || c == '\\')) c = 'x';
        }
        auto param = url_parameter(u);
        ASSERT_TRUE(param.ok());
        EXPECT_EQ(extract_url_parameter(param.value), escape_url(u));
        EXPECT_EQ(extract_header_uri(fold_url_parameter(param.value, 18)), escape_url(u));
        if (plain) {
            EXPECT_EQ(extract_url_parameter(param.value), u);
        }
        for (auto& w : words_of(param.value)) ASSERT_LE(w.size(), 40u);
    }
}

TEST(HeaderUri, MHT_4_4_2_3_ReadingAlgorithm) {
    EXPECT_EQ(extract_header_uri("\"http://x.example/a\r\n b.gif\""), "http://x.example/ab.gif");
    EXPECT_EQ(extract_header_uri("\r\n  http://x.example/a.gif"), "http://x.example/a.gif");
    EXPECT_EQ(extract_header_uri("=?US-ASCII?Q?http://x.example/a=20b?=\r\n =?US-ASCII?Q?.gif?="),
              "http://x.example/a b.gif");
    std::vector<diagnostic> diags;
    EXPECT_EQ(extract_header_uri("(c) http://x.example/a.gif", &diags), "http://x.example/a.gif");
    EXPECT_EQ(extract_header_uri("http://x.example/a.gif (the logo)", &diags),
              "http://x.example/a.gif");
    EXPECT_EQ(extract_header_uri("http://en.example/wiki/A_(b)", &diags),
              "http://en.example/wiki/A_(b)");
    ASSERT_EQ(diags.size(), 2u);
    EXPECT_EQ(diags[0].code, diag_code::header_uri_comment);
    EXPECT_EQ(extract_header_uri("a%2eb"), "a%2eb");
    EXPECT_EQ(extract_header_uri("HTTP://X.example/A"), "HTTP://X.example/A");
}

TEST(HeaderUri, QuotedValueEndsAtItsClosingQuote) {
    std::vector<diagnostic> diags;
    EXPECT_EQ(extract_header_uri("\"a b\" c", &diags), "ab");
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::header_uri_trailing_text);
    EXPECT_EQ(diags[0].offset, 6u);
}

TEST(HeaderUri, TrailingCommentHonoursQuotedPairs) {
    EXPECT_EQ(extract_header_uri("http://x/a.gif (see \\) here)"), "http://x/a.gif");
    EXPECT_EQ(extract_header_uri("http://x/a.gif (a (nested) one)"), "http://x/a.gif");
    EXPECT_EQ(extract_header_uri("http://x/w/A_(b)"), "http://x/w/A_(b)");
    // Hostile: a long run of parentheses and backslashes finishes (linear scans).
    std::string hostile =
        "http://x/a " + std::string(200000, '(') + std::string(200000, '\\') + ")";
    // The trailing "(" run has no match, so it is no comment: the pieces are joined.
    EXPECT_EQ(extract_header_uri(hostile).size(), 10u + 200000u + 200000u + 1u);
}

TEST(HeaderUri, MHT_4_4_1_11_AsciiLabelIsNeverUsedFor8Bit) {
    for (const char* label : {"US-ASCII", "us-ascii", "ascii", "ANSI_X3.4-1968", "csASCII"})
        EXPECT_EQ(write_header_uri("caf\xE9", 18, label).charset, "UNKNOWN-8BIT") << label;
    EXPECT_EQ(write_header_uri("cafe x", 18, "us-ascii").charset, "US-ASCII");
}

TEST(HeaderUri, MHT_4_4_1_10_EncodedWordsGiveRawOctets) {
    EXPECT_EQ(extract_header_uri("=?UTF-8?Q?caf=C3=A9.gif?="), "caf\xC3\xA9.gif");
    EXPECT_EQ(extract_header_uri("=?ISO-8859-1?Q?caf=E9.gif?="), "caf\xE9.gif");
    EXPECT_EQ(extract_header_uri("=?UNKNOWN-8BIT?Q?caf=E9.gif?="), "caf\xE9.gif");
    EXPECT_EQ(extract_header_uri("=?UKNOWN-8BIT?Q?caf=E9.gif?="), "caf\xE9.gif");  // E-7 spelling
    EXPECT_EQ(extract_header_uri("=?US-ASCII?B?aHR0cDovL3guZXhhbXBsZS9hIGIuZ2lm?="),
              "http://x.example/a b.gif");
}

TEST(HeaderUri, E_14_KeepInteriorSpacesRetry) {
    header_uri_options keep{.keep_interior_spaces = true};
    EXPECT_EQ(extract_header_uri("my file.gif"), "myfile.gif");
    EXPECT_EQ(extract_header_uri("my file.gif", nullptr, keep), "my file.gif");
    EXPECT_EQ(extract_header_uri("my\r\n file.gif", nullptr, keep), "my file.gif");
}

TEST(HeaderUri, MHT_4_4_2_2_ShortUriIsWrittenBare) {
    auto w = write_header_uri("http://x.example/a.gif");
    EXPECT_EQ(w.form, header_uri_form::bare);
    EXPECT_EQ(w.value, "http://x.example/a.gif");
}

TEST(HeaderUri, MHT_4_4_1_5_SpaceIsWrittenAsEncodedWords) {
    auto w = write_header_uri("http://x.example/a b.gif");
    EXPECT_EQ(w.form, header_uri_form::encoded_words);
    EXPECT_EQ(w.charset, "US-ASCII");  // MHT-4.4.1.7
    EXPECT_EQ(w.value, "=?US-ASCII?Q?http://x.example/a=20b.gif?=");
    EXPECT_EQ(extract_header_uri(w.value), "http://x.example/a b.gif");
}

TEST(HeaderUri, MHT_4_4_1_8_DocumentCharsetFor8Bit) {
    auto w = write_header_uri("caf\xE9.gif", 18, "iso-8859-1");
    EXPECT_EQ(w.charset, "ISO-8859-1");
    EXPECT_EQ(w.value, "=?ISO-8859-1?Q?caf=E9.gif?=");
    // MHT-4.4.1.9, MHT-4.4.1.11: octets invalid in the document's charset, or no charset,
    // are labelled UNKNOWN-8BIT, never US-ASCII.
    EXPECT_EQ(write_header_uri("caf\xE9.gif", 18, "utf-8").charset, "UNKNOWN-8BIT");
    EXPECT_EQ(write_header_uri("caf\xE9.gif").value, "=?UNKNOWN-8BIT?Q?caf=E9.gif?=");
    EXPECT_EQ(write_header_uri("caf\xC3\xA9.gif", 18, "UTF-8").charset, "UTF-8");
}

TEST(HeaderUri, MHT_4_4_1_12_LongUriWithSpaceFitsLines) {
    std::string uri =
        cat({"http://x.example/", std::string(60, 'd'), "/", std::string(60, 'e'), " f.gif"});
    auto w = write_header_uri(uri);
    ASSERT_EQ(w.form, header_uri_form::encoded_words);
    EXPECT_EQ(w.value.find('"'), std::string::npos);
    std::size_t line_start = 0, used = 18;
    for (std::size_t i = 0; i <= w.value.size(); ++i) {
        if (i == w.value.size() || w.value[i] == '\r') {
            EXPECT_LE(used + i - line_start, 76u);
            used = 0;
            line_start = i + 2;
        }
    }
    EXPECT_EQ(extract_header_uri(w.value), uri);
}

TEST(HeaderUri, LongPlainUriIsQuotedAndFolded) {
    std::string uri = cat({"http://x.example/", std::string(100, 'p'), ".html"});
    auto w = write_header_uri(uri);
    EXPECT_EQ(w.form, header_uri_form::quoted);
    EXPECT_TRUE(w.value.starts_with('"'));
    EXPECT_EQ(extract_header_uri(w.value), uri);
}

// "=?" alone is no encoded-word (Blink writes ad URLs ending "tfua=?" bare); a whole one would
// be decoded by a reader, so it is encoded.
TEST(HeaderUri, MHT_4_4_2_2_EqualsQuestionMarkAloneStaysBare) {
    EXPECT_EQ(write_header_uri("http://x.example/p;a=?").form, header_uri_form::bare);
    EXPECT_EQ(write_header_uri("http://x.example/?a=?b").form, header_uri_form::bare);
    const auto w = write_header_uri("http://x.example/=?utf-8?q?a?=");
    EXPECT_EQ(w.form, header_uri_form::encoded_words);
    EXPECT_EQ(extract_header_uri(w.value), "http://x.example/=?utf-8?q?a?=");
    // A malformed "=??" before a whole word does not hide it (found in review).
    for (const std::string u : {"=?"
                                "?=?x?q?A?=",
                                "=?a?x?=?"
                                "?=?x?q?A?="}) {
        EXPECT_NE(write_header_uri(u).form, header_uri_form::bare) << u;
        EXPECT_EQ(extract_header_uri(write_header_uri(u).value), u);
    }
}

// The bare form up to a longer line for a one-line reader (Chromium), never past 998.
TEST(HeaderUri, MHT_4_4_2_2_BareLineLimit) {
    const std::string uri = cat({"http://x.example/", std::string(200, 'p'), ".html"});
    EXPECT_EQ(write_header_uri(uri, 18, {}, false, 998).value, uri);
    EXPECT_EQ(write_header_uri(uri, 18, {}, false, 78).form, header_uri_form::quoted);
    const std::string huge = cat({"http://x.example/", std::string(990, 'p')});
    EXPECT_EQ(write_header_uri(huge, 18, {}, false, 5000).form, header_uri_form::quoted);
    EXPECT_TRUE(header_uri_is_bare(uri, 18, false, 998));
    EXPECT_FALSE(header_uri_is_bare(uri, 18, false, 78));
    EXPECT_FALSE(header_uri_is_bare(huge, 18, false, 5000));
    EXPECT_FALSE(header_uri_is_bare("", 18, false, 998));
    EXPECT_FALSE(header_uri_is_bare("http://x.example/a", 18, true, 998));  // forced: words
}

TEST(HeaderUri, WriteThenExtractGivesBackAnyUri) {
    // The issue's round trip: for any octets, 8-bit and CTLs included, extraction of what the
    // writer produced is the original URI.
    std::mt19937 rng(2557);
    const std::string charsets[] = {"", "ISO-8859-1", "UTF-8", "windows-1251", "Shift_JIS"};
    for (int round = 0; round < 4000; ++round) {
        std::string u(1 + rng() % 160, '\0');
        for (char& c : u) {
            switch (rng() % 4) {
                case 0:
                    c = static_cast<char>(rng() % 256);
                    break;
                case 1:
                    c = "=?()\" \\\t\r\n_%#"[rng() % 14];
                    break;
                default:
                    c = static_cast<char>(0x21 + rng() % 0x5E);
            }
        }
        const std::size_t used = rng() % 40;
        const bool force = rng() % 8 == 0;
        auto w = write_header_uri(u, used, charsets[rng() % 5], force);
        ASSERT_EQ(extract_header_uri(w.value), u)
            << "form " << form_name(w.form) << " value " << w.value;
        // The check alone says what the writing does (the writer copies a bare URI itself).
        ASSERT_EQ(header_uri_is_bare(u, used, force), w.form == header_uri_form::bare) << u;
        if (w.form == header_uri_form::encoded_words && w.charset == "US-ASCII") {
            for (char c : u) ASSERT_LT(static_cast<unsigned char>(c), 0x80);
        }
    }
}

}  // namespace
}  // namespace mhtml::uri
