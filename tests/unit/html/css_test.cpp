#include "mhtml/html/css.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::html {

// gtest prints mismatching lists with this.
void PrintTo(const css_reference& r, std::ostream* os) {
    static constexpr const char* forms[] = {"url_unquoted", "url_quoted", "string"};
    *os << "{" << r.offset << ", " << r.length << ", \"";
    for (unsigned char c : r.url) {
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            *os << static_cast<char>(c);
        } else {
            static constexpr char digits[] = "0123456789abcdef";
            *os << "\\x" << digits[c >> 4] << digits[c & 15];
        }
    }
    *os << "\", " << forms[static_cast<int>(r.form)] << ", "
        << (r.quote == 0 ? std::string("0") : std::string(1, r.quote))
        << (r.import ? ", import" : "") << "}";
}

namespace {

using refs = std::vector<css_reference>;

refs scan(std::string_view css) {
    refs out;
    scan_css(css, out);
    return out;
}

css_reference unquoted(std::size_t offset, std::size_t length, std::string url,
                       bool import = false) {
    return {offset, length, std::move(url), css_token_form::url_unquoted, 0, import};
}
css_reference quoted(std::size_t offset, std::size_t length, std::string url, char quote,
                     bool import = false) {
    return {offset, length, std::move(url), css_token_form::url_quoted, quote, import};
}
css_reference string(std::size_t offset, std::size_t length, std::string url, char quote,
                     bool import = false) {
    return {offset, length, std::move(url), css_token_form::string, quote, import};
}

// ---- url() unquoted: §4.3.6 url-token ----

TEST(Css, UrlUnquotedIsAReference) {
    EXPECT_EQ(scan("a{background:url(a.png)}"), refs{unquoted(17, 5, "a.png")});
}

TEST(Css, UrlUnquotedWhiteSpaceIsTrimmed) {
    EXPECT_EQ(scan("url(  a.png \t\r\n\f)"), refs{unquoted(6, 5, "a.png")});
}

TEST(Css, UrlUnquotedInnerWhiteSpaceMakesBadUrl) {
    EXPECT_EQ(scan("url(a b.png) url(c)"), refs{unquoted(17, 1, "c")});
}

TEST(Css, SeveralReferencesComeInSourceOrder) {
    EXPECT_EQ(scan("a{b:url(x)}c{d:url('y');e:url(z)}"),
              (refs{unquoted(8, 1, "x"), quoted(20, 1, "y", '\''), unquoted(30, 1, "z")}));
}

// A sheet without a literal '(' or '@' is not tokenized (scan_css's shortcut): escapes make
// neither a function nor an at-keyword, and such sheets have no reference either way.
TEST(Css, WithoutParenthesisOrAtSignThereIsNoReference) {
    EXPECT_EQ(scan("a{color:red} \\75rl\\28 x.png\\29 \\40import 'x.css';"), refs{});
    EXPECT_EQ(scan("a{b:c} /* url( */"), refs{});
    EXPECT_EQ(scan("@import 'x.css';"), refs{string(9, 5, "x.css", '\'', true)});
    EXPECT_EQ(scan("a{b:u\\72l(x.png)}"), refs{unquoted(10, 5, "x.png")});
}

TEST(Css, ScanAppendsToTheList) {
    refs out{unquoted(0, 1, "old")};
    scan_css("url(new)", out);
    EXPECT_EQ(out, (refs{unquoted(0, 1, "old"), unquoted(4, 3, "new")}));
}

// ---- url() quoted: function-token + string-token ----

TEST(Css, UrlDoubleQuoted) {
    EXPECT_EQ(scan(R"(url("a b.png"))"), refs{quoted(5, 7, "a b.png", '"')});
}

TEST(Css, UrlSingleQuoted) {
    EXPECT_EQ(scan("url('a.png')"), refs{quoted(5, 5, "a.png", '\'')});
}

TEST(Css, UrlQuotedAfterWhiteSpace) {
    EXPECT_EQ(scan("url( \n \"a.png\"  )"), refs{quoted(8, 5, "a.png", '"')});
}

TEST(Css, UrlQuotedOnlyFirstStringIsTheUrl) {
    // CSS Values 4 §4.5: url( <string> <url-modifier>* ); later strings are modifiers.
    EXPECT_EQ(scan(R"(url("a" "b") "c")"), refs{quoted(5, 1, "a", '"')});
}

TEST(Css, CommentAfterUrlParenMakesUrlTokenNotString) {
    // §4.3.4 looks only at white space before the quote; `/*c*/ "a"` is then a bad url-token.
    EXPECT_TRUE(scan(R"(url( /*c*/ "a"))").empty());
}

// ---- the function name ----

TEST(Css, UrlFunctionNameIsAsciiCaseInsensitive) {
    EXPECT_EQ(scan(R"(URL(a) Url("b") uRl(c))"),
              (refs{unquoted(4, 1, "a"), quoted(12, 1, "b", '"'), unquoted(20, 1, "c")}));
}

TEST(Css, UrlFunctionNameMayBeEscaped) {
    EXPECT_EQ(scan(R"(u\72l(a) \75 rl(b) \55RL("c"))"),
              (refs{unquoted(6, 1, "a"), unquoted(16, 1, "b"), quoted(26, 1, "c", '"')}));
}

TEST(Css, UrlWithSpaceBeforeParenIsNotAUrl) {
    EXPECT_TRUE(scan("url (a.png) url\n(b.png)").empty());
}

TEST(Css, UrlInsideOtherTokensIsNotAUrl) {
    // Ident-like "xurl" and "-url", hash "#url", dimensions "1url" and ".5url", at-keyword "@url".
    EXPECT_TRUE(scan("xurl(a) -url(b) --url(c) #url(d) 1url(e) .5url(f) +1e3url(g) @url(h) _url(i)")
                    .empty());
}

TEST(Css, NonAsciiOctetsAreIdentCodePoints) {
    EXPECT_TRUE(scan("\xC3\xA9url(a) url\xC3\xA9(b)").empty());
}

TEST(Css, UrlAfterCdoAndCdc) {
    EXPECT_EQ(scan("<!--url(a)-->url(b)"), (refs{unquoted(8, 1, "a"), unquoted(17, 1, "b")}));
}

TEST(Css, UrlAfterDelimsAndPunctuation) {
    EXPECT_EQ(scan("a>url(b),!url(c);:url(d)"),
              (refs{unquoted(6, 1, "b"), unquoted(14, 1, "c"), unquoted(22, 1, "d")}));
}

TEST(Css, NestedFunctions) {
    EXPECT_EQ(scan("b:var(--x, url(a.png)) calc(1px + env(y, url('b')))"),
              (refs{unquoted(15, 5, "a.png"), quoted(46, 1, "b", '\'')}));
}

// ---- escapes: §4.3.7 ----

TEST(Css, HexEscapeWithTrailingSpaceInUnquoted) {
    EXPECT_EQ(scan(R"(url(a\2e png))"), refs{unquoted(4, 8, "a.png")});
}

TEST(Css, HexEscapeWithoutTrailingSpaceInUnquoted) {
    EXPECT_EQ(scan(R"(url(a\2Epng))"), refs{unquoted(4, 7, "a.png")});
}

TEST(Css, HexEscapeSpaceBelongsToTheEscapeNotTheTrim) {
    EXPECT_EQ(scan("url(a\\20 )"), refs{unquoted(4, 5, "a ")});
    EXPECT_EQ(scan("url(a\\20  )"), refs{unquoted(4, 5, "a ")});
}

TEST(Css, EscapedParensAndSpaceInUnquoted) {
    EXPECT_EQ(scan(R"(url(a\)b\(c\ d))"), refs{unquoted(4, 10, "a)b(c d")});
}

TEST(Css, EscapesInDoubleQuotedUrl) {
    EXPECT_EQ(scan(R"(url("a\"b\\c\41 d"))"), refs{quoted(5, 12, "a\"b\\cAd", '"')});
}

TEST(Css, EscapesInSingleQuotedString) {
    EXPECT_EQ(scan(R"(@import 'a\'b\"\63 .css';)"), refs{string(9, 14, "a'b\"c.css", '\'', true)});
}

TEST(Css, EscapedNewlineInStringIsALineContinuation) {
    EXPECT_EQ(scan("url(\"a\\\nb\")"), refs{quoted(5, 4, "ab", '"')});
    EXPECT_EQ(scan("url('a\\\r\nb')"), refs{quoted(5, 5, "ab", '\'')});
    EXPECT_EQ(scan("@import \"a\\\fb\\\rc\";"), refs{string(9, 7, "abc", '"', true)});
}

TEST(Css, HexEscapeConsumesCrLfAsOneWhiteSpace) {
    EXPECT_EQ(scan("url(\"\\41\r\nB\")"), refs{quoted(5, 6, "AB", '"')});
}

TEST(Css, HexEscapeDecodesToUtf8) {
    EXPECT_EQ(scan(R"(url(\e9t\E9 e) url("\1F600"))"),
              (refs{unquoted(4, 9,
                             "\xC3\xA9t\xC3\xA9"
                             "e"),
                    quoted(20, 6, "\xF0\x9F\x98\x80", '"')}));
}

TEST(Css, HexEscapeOfZeroSurrogateOrTooBigIsReplacementCharacter) {
    EXPECT_EQ(scan(R"(url(\0 \d800 \110000 ))"),
              refs{unquoted(4, 17, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD")});
}

TEST(Css, HexEscapeTakesAtMostSixDigits) {
    EXPECT_EQ(scan(R"(url(\0000410))"), refs{unquoted(4, 8, "A0")});
}

TEST(Css, EscapedOtherOctetIsThatOctet) {
    // `\` + 8-bit octet keeps the octet: the charset is the input's, not UTF-8.
    EXPECT_EQ(scan("url(\\g\\\xE9\\/)"), refs{unquoted(4, 6, "g\xE9/")});
}

TEST(Css, BackslashAtEofInUrlIsReplacementCharacter) {
    // §4.3.8: `\` + EOF is a valid escape; §4.3.7 gives U+FFFD for it.
    EXPECT_EQ(scan("url(a\\"), refs{unquoted(4, 2, "a\xEF\xBF\xBD")});
}

TEST(Css, RawNulOctetIsReplacementCharacter) {
    using namespace std::string_literals;
    EXPECT_EQ(scan("url(a\0b) @import 'c\0';"s),
              (refs{unquoted(4, 3,
                             "a\xEF\xBF\xBD"
                             "b"),
                    string(18, 2, "c\xEF\xBF\xBD", '\'', true)}));
}

// ---- comments: §4.3.2 ----

TEST(Css, CommentsHideUrls) {
    EXPECT_EQ(scan("/* url(a) */ b { background: url(c) } /* url(d)"), refs{unquoted(33, 1, "c")});
}

TEST(Css, CommentMarkersInsideUrlTokenAreText) {
    EXPECT_EQ(scan("url(/*x*/a)"), refs{unquoted(4, 6, "/*x*/a")});
}

TEST(Css, UnterminatedCommentRunsToEof) {
    EXPECT_EQ(scan("url(a) /* url(b) */ url(c) /*/ url(d)"),
              (refs{unquoted(4, 1, "a"), unquoted(24, 1, "c")}));
}

// ---- strings that are not references ----

TEST(Css, UrlInsideStringIsNotAReference) {
    EXPECT_TRUE(
        scan(R"css(a { content: "url(x)"; font-family: 'url(y)', "a\"url(z)" })css").empty());
}

TEST(Css, StringsOutsideImportAndImageSetAreNotReferences) {
    EXPECT_TRUE(
        scan(R"(a::before { content: "x.png" } b { font-family: "Font" } [title="a.png"] {})")
            .empty());
}

// ---- bad-url: §4.3.14 ----

TEST(Css, BadUrlOnQuoteParenOrNonPrintable) {
    EXPECT_EQ(scan("url(a\"b) url(a'b) url(a(b) url(a\x01"
                   "b) url(a\x7f"
                   "b) url(ok)"),
              refs{unquoted(49, 2, "ok")});
}

TEST(Css, BadUrlOnEscapedNewline) {
    EXPECT_EQ(scan("url(a\\\nb) url(c)"), refs{unquoted(14, 1, "c")});
}

TEST(Css, BadUrlRemnantsSkipEscapedParen) {
    // The remnants run to the first unescaped `)`, swallowing url(c).
    EXPECT_EQ(scan(R"(url(a b\) url(c)) url(d))"), refs{unquoted(22, 1, "d")});
}

TEST(Css, BadUrlAtEofIsNotAReference) {
    EXPECT_TRUE(scan("url(a b").empty());
    EXPECT_TRUE(scan("url(a\"").empty());
}

// ---- unterminated tokens at EOF (parse errors whose token still stands) ----

TEST(Css, UnterminatedUrlAtEof) {
    EXPECT_EQ(scan("a{b:url(x.png"), refs{unquoted(8, 5, "x.png")});
    EXPECT_EQ(scan("url(x.png \n"), refs{unquoted(4, 5, "x.png")});
    EXPECT_EQ(scan("url(  "), refs{unquoted(6, 0, "")});
}

TEST(Css, UnterminatedStringAtEof) {
    EXPECT_EQ(scan("url(\"a.png"), refs{quoted(5, 5, "a.png", '"')});
    EXPECT_EQ(scan("@import 'x"), refs{string(9, 1, "x", '\'', true)});
    EXPECT_EQ(scan("url(\"a\\"),
              refs{quoted(5, 2, "a", '"')});  // `\` + EOF in a string adds nothing
}

TEST(Css, StringCutByNewlineIsNotAReference) {
    EXPECT_EQ(scan("url(\"a\nb) url(c)"), refs{unquoted(14, 1, "c")});
    EXPECT_TRUE(scan("@import \"a\nb\";").empty());
    EXPECT_TRUE(scan("image-set(\"a\r\n 1x)").empty());
    // The newline ends the bad string, so the next quote opens a string that runs to EOF.
    EXPECT_EQ(scan("image-set(\"a\n\" 1x)"), refs{string(14, 4, " 1x)", '"')});
}

// ---- empty values ----

TEST(Css, EmptyUrlsAreReferences) {
    EXPECT_EQ(scan("url() url(\"\") url('') url(   )"),
              (refs{unquoted(4, 0, ""), quoted(11, 0, "", '"'), quoted(19, 0, "", '\''),
                    unquoted(29, 0, "")}));
}

// ---- @import ----

TEST(Css, ImportString) {
    EXPECT_EQ(scan("@import \"a.css\";"), refs{string(9, 5, "a.css", '"', true)});
}

TEST(Css, ImportUrlUnquotedAndQuoted) {
    EXPECT_EQ(scan("@import url(a.css);\n@import url(\"b.css\");"),
              (refs{unquoted(12, 5, "a.css", true), quoted(33, 5, "b.css", '"', true)}));
}

TEST(Css, ImportKeywordIsCaseInsensitiveAndMayBeEscaped) {
    EXPECT_EQ(scan(R"(@IMPORT 'a.css';@Import url(b.css);@im\70 ort "c.css";)"),
              (refs{string(9, 5, "a.css", '\'', true), unquoted(28, 5, "b.css", true),
                    string(47, 5, "c.css", '"', true)}));
}

TEST(Css, ImportWithCommentsAndNoWhiteSpace) {
    EXPECT_EQ(scan("@import/**/\"a.css\"; @import/*x*/ /*y*/url(b)"),
              (refs{string(12, 5, "a.css", '"', true), unquoted(42, 1, "b", true)}));
}

TEST(Css, ImportUrlWithMediaQuery) {
    EXPECT_EQ(scan("@import url(a.css) screen and (min-width: 600px), print;"),
              refs{unquoted(12, 5, "a.css", true)});
}

TEST(Css, ImportStringWithLayerAndSupports) {
    EXPECT_EQ(scan(R"(@import "b.css" layer(base) supports(display: grid) "x" screen;)"),
              refs{string(9, 5, "b.css", '"', true)});
}

TEST(Css, ImportNeedsTheUrlAsFirstToken) {
    EXPECT_TRUE(scan(R"(@import foo "a.css"; @importx "b.css"; @import; "c.css" @ import "d.css")")
                    .empty());
}

TEST(Css, ImportLaterUrlIsNotAnImport) {
    EXPECT_EQ(scan(R"(@import "a.css"; b { c: url(d) })"),
              (refs{string(9, 5, "a.css", '"', true), unquoted(28, 1, "d")}));
}

// ---- image-set(): CSS Images 4 §2.2 ----

TEST(Css, ImageSetStrings) {
    EXPECT_EQ(scan(R"(image-set("a.png" 1x, 'b.png' 2x))"),
              (refs{string(11, 5, "a.png", '"'), string(23, 5, "b.png", '\'')}));
}

TEST(Css, WebkitImageSetAnyCaseWithUrl) {
    EXPECT_EQ(scan("-WEBKIT-Image-Set('a.png' 1x, url(b.png) 2x)"),
              (refs{string(19, 5, "a.png", '\''), unquoted(34, 5, "b.png")}));
}

TEST(Css, ImageSetWithTypeAndResolutionDescriptors) {
    EXPECT_EQ(
        scan(
            R"(image-set("a.avif" type("image/avif"), "b.png" 1dppx, url("c.png") 2x, "d" 96dpi))"),
        (refs{string(11, 6, "a.avif", '"'), string(40, 5, "b.png", '"'),
              quoted(59, 5, "c.png", '"'), string(72, 1, "d", '"')}));
}

TEST(Css, ImageSetOnlyDirectStringsCount) {
    // Inside a nested block or after image-set() closes, strings are not URLs.
    EXPECT_EQ(scan(R"(image-set(("x") ["y"] {"z"} "a" 1x) "b")"), refs{string(29, 1, "a", '"')});
}

TEST(Css, ImageSetInsideOtherFunctions) {
    EXPECT_EQ(scan(R"(var(--x, image-set("a" 1x)) cross-fade(IMAGE-SET("b"), url(c)))"),
              (refs{string(20, 1, "a", '"'), string(50, 1, "b", '"'), unquoted(59, 1, "c")}));
}

TEST(Css, ImageSetNeedsItsExactName) {
    EXPECT_TRUE(
        scan(R"(image-sets("a") xImage-set("b") -moz-image-set("c") image-set ("d"))").empty());
}

TEST(Css, MismatchedClosersDoNotCloseImageSet) {
    // §5.4.9: a function ends only at its `)`; the `]` and `}` inside are plain tokens.
    EXPECT_EQ(scan(R"(image-set("a" ] } "b") "c")"),
              (refs{string(11, 1, "a", '"'), string(19, 1, "b", '"')}));
}

// ---- css_escape_url ----

TEST(Css, EscapeUnquotedUsesHexEscapes) {
    EXPECT_EQ(css_escape_url("a b)", css_token_form::url_unquoted, 0), R"(a\20 b\29)");
    EXPECT_EQ(css_escape_url("(x'\"\\", css_token_form::url_unquoted, 0), R"(\28x\27\22\5c)");
    EXPECT_EQ(css_escape_url("\t\n\x01\x7f"
                             "9",
                             css_token_form::url_unquoted, 0),
              R"(\9\a\1\7f 9)");
    EXPECT_EQ(css_escape_url("plain/\xC3\xA9.png?q=1#f", css_token_form::url_unquoted, 0),
              "plain/\xC3\xA9.png?q=1#f");
}

TEST(Css, EscapeQuotedEscapesQuoteBackslashAndNewlines) {
    EXPECT_EQ(css_escape_url("a\"b'c\\", css_token_form::url_quoted, '"'), R"(a\"b'c\\)");
    EXPECT_EQ(css_escape_url("a\"b'c", css_token_form::string, '\''), R"(a"b\'c)");
    EXPECT_EQ(css_escape_url("\n1\r\n \fz", css_token_form::string, '"'), R"(\a 1\d\a  \cz)");
    EXPECT_EQ(css_escape_url("a(b) c\x01", css_token_form::url_quoted, '"'), "a(b) c\x01");
    EXPECT_EQ(css_escape_url("\"'", css_token_form::string, 0), R"(\"\')");
}

TEST(Css, EscapeNulIsWrittenAsReplacementCharacter) {
    using namespace std::string_literals;
    EXPECT_EQ(css_escape_url("a\0b"s, css_token_form::url_unquoted, 0), R"(a\fffd b)");
    EXPECT_EQ(scan("url(a\\fffd b)"), refs{unquoted(4, 8,
                                                    "a\xEF\xBF\xBD"
                                                    "b")});
}

std::string random_octets(std::mt19937& rng) {
    static constexpr std::string_view specials =
        " \t\n\r\f\"'()\\/*;:,{}[]@0123456789abcdefABCDEFurl-";
    std::string s(rng() % 24, '\0');
    for (char& c : s) {
        const auto kind = rng() % 3;
        if (kind == 0)
            c = specials[rng() % specials.size()];
        else  // ASCII, or any octet but NUL (which cannot round-trip)
            c = static_cast<char>(1 + rng() % (kind == 1 ? 127 : 255));
    }
    return s;
}

// Writes `before` + escaped `u` + `after`, scans it, and expects `u` back from exactly the
// escaped text. With white space around an unquoted value (`padded`), the raw value may also
// take the space after a final hex escape, and an empty value sits at the `)`.
void expect_round_trip(std::string_view before, std::string_view u, css_token_form form, char quote,
                       std::string_view after, bool import, bool padded = false) {
    const std::string esc = css_escape_url(u, form, quote);
    std::string css(before);
    css += esc;
    css += after;
    const refs got = scan(css);
    ASSERT_EQ(got.size(), 1u) << css;
    if (!padded) {
        EXPECT_EQ(got[0],
                  (css_reference{before.size(), esc.size(), std::string(u), form, quote, import}))
            << css;
        return;
    }
    EXPECT_EQ(got[0].url, u) << css;
    EXPECT_EQ(got[0].form, form);
    if (!u.empty()) {
        EXPECT_EQ(got[0].offset, before.size()) << css;
        EXPECT_TRUE(got[0].length == esc.size() ||
                    (got[0].length == esc.size() + 1 && css[got[0].offset + esc.size()] == ' '))
            << css;
    }
}

TEST(Css, EscapeRoundTripsThroughUrlUnquoted) {
    std::mt19937 rng(20240501);
    for (int k = 0; k < 5000; ++k) {
        const std::string u = random_octets(rng);
        expect_round_trip("url(", u, css_token_form::url_unquoted, 0, ")", false);
        expect_round_trip("a{b:url(  ", u, css_token_form::url_unquoted, 0, " )}", false, true);
    }
}

TEST(Css, EscapeRoundTripsThroughUrlQuoted) {
    std::mt19937 rng(7);
    for (int k = 0; k < 5000; ++k) {
        const std::string u = random_octets(rng);
        expect_round_trip("url(\"", u, css_token_form::url_quoted, '"', "\")", false);
        expect_round_trip("url( '", u, css_token_form::url_quoted, '\'', "' )", false);
    }
}

TEST(Css, EscapeRoundTripsThroughImportAndImageSetStrings) {
    std::mt19937 rng(42);
    for (int k = 0; k < 5000; ++k) {
        const std::string u = random_octets(rng);
        expect_round_trip("@import \"", u, css_token_form::string, '"', "\";", true);
        expect_round_trip("@import '", u, css_token_form::string, '\'', "' screen;", true);
        expect_round_trip("a{b:image-set(\"", u, css_token_form::string, '"', "\" 1x)}", false);
    }
}

// ---- robustness ----

TEST(Css, RandomInputKeepsReferencesInsideTheInput) {
    using namespace std::string_view_literals;
    std::mt19937 rng(99);
    static constexpr std::string_view pieces[] = {
        "url(", "URL(", "u\\72l(", "image-set(", "@import", "\"",   "'",    "(",    ")",
        "[",    "]",    "{",       "}",          "\\",      "/*",   "*/",   " ",    "\n",
        "\r",   "a",    "1",       "-",          "#",       "\0"sv, "\xE9", "<!--", ";"};
    for (int k = 0; k < 20000; ++k) {
        std::string css;
        for (std::size_t n = rng() % 16; n > 0; --n) {
            css += pieces[rng() % std::size(pieces)];
        }
        const refs got = scan(css);
        std::size_t last = 0;
        for (const auto& r : got) {
            ASSERT_LE(r.offset + r.length, css.size()) << css;
            ASSERT_GE(r.offset, last) << css;
            last = r.offset + r.length;
        }
    }
}

TEST(Css, HostileInputsFinishInLinearTime) {
    auto repeat = [](std::string_view s, std::size_t total) {
        std::string out;
        out.reserve(total + s.size());
        while (out.size() < total) out += s;
        return out;
    };
    constexpr std::size_t size = 20u << 20;
    // One bad url-token whose remnants run to EOF.
    EXPECT_TRUE(scan(repeat("url(", size)).empty());
    // One comment to EOF; escapes forming one long ident; nesting 20M deep.
    EXPECT_TRUE(scan(repeat("/*", size)).empty());
    EXPECT_TRUE(scan(repeat("\\", size)).empty());
    EXPECT_TRUE(scan(repeat("(", size)).empty());
    EXPECT_TRUE(scan(repeat("[{(image-set(", size)).empty());
    // Long names followed by `(`, an endless string, @import without a URL, white space in url(.
    std::string name = repeat("u\\72l", size);
    name += '(';
    EXPECT_TRUE(scan(name).empty());
    std::string endless = "\"";
    endless += repeat("\\41", size);
    EXPECT_TRUE(scan(endless).empty());
    EXPECT_TRUE(scan(repeat("@import ", size)).empty());
    std::string spaces = "url(";
    spaces += repeat(" ", size);
    EXPECT_EQ(scan(spaces).size(), 1u);
    EXPECT_EQ(scan(repeat("url(a)", 6u << 20)).size(), 1u << 20);  // 1M references
}

}  // namespace
}  // namespace mhtml::html
