// mhtml check (REQUIREMENTS section 0.5, MHT-2.1.1): one test per check, named after the
// requirement row it applies, each on a small hand-written message and asserting the exact
// findings (level, row, code, part). The CLI tests at the end run the MHT-2.1.1 examples
// through the tool for the exit status.
#include "mhtml/archive/check.hpp"

#include "mhtml/mime/base64.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#ifdef MHTML_CLI_PATH
#include "cli/cli_support.hpp"
#endif

namespace mhtml::archive {
namespace {

// The message text with every LF written as CRLF (the test texts are written with LF).
std::string crlf(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

// "level requirement code part" for each finding, in the checker's order.
std::vector<std::string> summary(const std::vector<finding>& findings) {
    std::vector<std::string> out;
    for (const finding& f : findings) {
        std::string s(level_name(f.level));
        s += ' ';
        s += f.requirement;
        s += ' ';
        s += f.code;
        s += ' ';
        s += f.part_path.empty() ? std::string(".") : f.part_path;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<std::string> check_text(const std::string& text, const check_options& options = {}) {
    auto doc = mime::document::parse(std::string(text));
    return summary(check(doc, options));
}

using lines = std::vector<std::string>;

// A conforming aggregate: no findings at all.
const char* const clean = R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8
Content-Location: http://e.example/

<img src="a.png"><a href="http://other.example/">x</a>
--b
Content-Type: image/png
Content-Location: http://e.example/a.png

PNG
--b--
)";

TEST(Check, MHT_2_1_1_ConformingAggregateHasNoFindings) {
    EXPECT_EQ(check_text(crlf(clean)), lines{});
}

TEST(Check, MHT_4_2_5_MultipleContentLocation) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8
Content-Location: http://e.example/
Content-Location: http://e.example/other

<img src="a.png">
--b
Content-Type: image/png
Content-Location: http://e.example/a.png

PNG
--b--
)"));
    EXPECT_EQ(f, lines{"error MHT-4.2.5 multiple_content_location 1"});
}

TEST(Check, MHT_4_4_1_1_ContentLocationNeedsEncoding) {
    // A raw space, an 8-bit octet and a '|' need encoding; RFC 2047 encoded-words, the
    // quoted RFC 2017 form (its spaces separate words) and %-escapes do not.
    auto f = check_text(
        crlf("Content-Type: multipart/mixed; boundary=\"b\"\n\n--b\nContent-Type: "
             "image/png\nContent-Location: a b.png\n\nPNG\n--b\nContent-Type: "
             "image/png\nContent-Location: caf\xE9.png\n\nPNG\n--b\nContent-Type: "
             "image/png\nContent-Location: q?x|y\n\nPNG\n--b\nContent-Type: "
             "image/png\nContent-Location: =?US-ASCII?Q?c=20d.png?=\n\nPNG\n--b\nContent-Type: "
             "image/png\nContent-Location: \"long/\n path.png\"\n\nPNG\n--b\nContent-Type: "
             "image/png\nContent-Location: e%20f.png\n\nPNG\n--b\nContent-Type: "
             "image/png\nContent-Base: http://e.example/a b/\n\nPNG\n--b--\n"));
    EXPECT_EQ(
        f,
        (lines{"error MHT-4.4.1.1 uri_needs_encoding 1", "error MHT-4.4.1.1 uri_needs_encoding 2",
               "error MHT-4.4.1.1 uri_needs_encoding 3", "error MHT-4.4.1.1 uri_needs_encoding 7",
               "note L-1 legacy_content_base 7"}));
}

TEST(Check, MHT_4_3_2_ContentBaseNotAbsolute) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8
Content-Base: images/

<img src="a.png">
--b
Content-Type: image/png
Content-Location: a.png

PNG
--b--
)"));
    EXPECT_EQ(f, lines{"error MHT-4.3.2 content_base_not_absolute 1"});
}

TEST(Check, THTML_10_1_LegacyMethodIndicatorIsANote) {
    // E-32: FILE: says which linking method was used; it is not a base and not an error.
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"
Content-Base: "FILE:"

--b
Content-Type: text/html; charset=utf-8

<img src="logo.gif">
--b
Content-Type: image/gif
Content-Location: "logo.gif"

GIF
--b--
)"));
    EXPECT_EQ(f, lines{"note THTML-10.1 legacy_method_indicator ."});
}

TEST(Check, L_1_ContentBaseIsLegacy) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"
Content-Base: http://e.example/

--b
Content-Type: text/html; charset=utf-8

<img src="a.png">
--b
Content-Type: image/png
Content-Location: a.png

PNG
--b--
)"));
    EXPECT_EQ(f, lines{"note L-1 legacy_content_base ."});
}

TEST(Check, E_34_ContentIdWithoutBracketsAndNotAddrSpec) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<img src="cid:sign-eng*jpalme@dsv.su.se"><img src="cid:97116092511xyz*foo.bar.net">
--b
Content-Type: image/gif
Content-ID: sign-eng*jpalme@dsv.su.se

GIF
--b
Content-Type: image/gif
Content-ID: <97116092511xyz*foo.bar.net>

GIF
--b--
)"));
    EXPECT_EQ(f, (lines{"note E-34 content_id_without_brackets 2",
                        "note E-34 content_id_not_addr_spec 3"}));
}

TEST(Check, MHT_7_12_DuplicateContentId) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<img src="cid:a@b">
--b
Content-Type: image/gif
Content-ID: <a@b>

GIF
--b
Content-Type: image/gif
Content-ID: <a@b>

GIF2
--b--
)"));
    EXPECT_EQ(
        f, (lines{"note REL-1.1 part_not_referenced 3", "error MHT-7.12 duplicate_content_id 3"}));
}

TEST(Check, CID_8_AlternativesMayShareAContentId) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<img src="cid:img@x">
--b
Content-Type: multipart/alternative; boundary="c"

--c
Content-Type: image/gif
Content-ID: <img@x>

GIF
--c
Content-Type: image/png
Content-ID: <img@x>

PNG
--c--
--b--
)"));
    EXPECT_EQ(f, lines{});
}

TEST(Check, MHT_8_3_3_ContentIdNotUnique) {
    // Not in one related structure (that is MHT-7.12), but still one message.
    auto f = check_text(crlf(R"(Content-Type: multipart/mixed; boundary="b"

--b
Content-Type: image/gif
Content-ID: <a@b>

GIF
--b
Content-Type: image/gif
Content-ID: <a@b>

GIF2
--b--
)"));
    EXPECT_EQ(f, lines{"error MHT-8.3.3 content_id_not_unique 2"});
}

TEST(Check, MHT_7_13_DuplicateContentLocation) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<img src="a.gif">
--b
Content-Type: image/gif
Content-Location: a.gif

GIF
--b
Content-Type: image/gif
Content-Location: a.gif

GIF2
--b--
)"));
    EXPECT_EQ(f, (lines{"note REL-1.1 part_not_referenced 3",
                        "error MHT-7.13 duplicate_content_location 3"}));
}

TEST(Check, MHT_7_13_EqualRelativeLocationsWithDifferentBasesAreDistinct) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8
Content-Location: http://x.example/

<img src="1/a.gif"><img src="2/a.gif">
--b
Content-Type: image/gif
Content-Base: http://x.example/1/
Content-Location: a.gif

GIF
--b
Content-Type: image/gif
Content-Base: http://x.example/2/
Content-Location: a.gif

GIF2
--b--
)"));
    EXPECT_EQ(f, (lines{"note L-1 legacy_content_base 2", "note L-1 legacy_content_base 3"}));
}

TEST(Check, REL_3_1_1_RelatedTypeMissing) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"

--b
Content-Type: text/html; charset=utf-8

<p>x</p>
--b--
)"));
    EXPECT_EQ(f, lines{"error REL-3.1.1 related_type_missing ."});
}

TEST(Check, MHT_7_6_RelatedTypeMismatch) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: image/png

PNG
--b--
)"));
    EXPECT_EQ(f,
              (lines{"error MHT-7.6 related_type_mismatch .", "note THTML-6.2 root_not_html 1"}));
}

TEST(Check, THTML_6_2_RootNotHtml) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/plain"

--b
Content-Type: text/plain; charset=us-ascii

plain root
--b--
)"));
    EXPECT_EQ(f, lines{"note THTML-6.2 root_not_html 1"});
}

TEST(Check, REL_3_2_1_StartNotFound) {
    auto f = check_text(
        crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"; start="<zz@b>"

--b
Content-Type: text/html; charset=utf-8
Content-ID: <a@b>

<p>x</p>
--b--
)"));
    EXPECT_EQ(f, lines{"error REL-3.2.1 start_not_found ."});
}

TEST(Check, REL_3_2_2_StartUnbracketed) {
    auto f = check_text(
        crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"; start="a@b"

--b
Content-Type: text/html; charset=utf-8
Content-ID: <a@b>

<p>x</p>
--b--
)"));
    EXPECT_EQ(f, lines{"note REL-3.2.2 start_unbracketed ."});
}

TEST(Check, REL_3_2_2_StartInsideAlternative) {
    // The text/html draft's §8 example (E-33): start names the HTML inside the alternative.
    auto f = check_text(
        crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"; start="<h@x>"

--b
Content-Type: multipart/alternative; boundary="c"

--c
Content-Type: text/plain; charset=us-ascii

x
--c
Content-Type: text/html; charset=utf-8
Content-ID: <h@x>

<p>x</p>
--c--
--b--
)"));
    EXPECT_EQ(f, lines{"warning REL-3.2.2 start_inside_alternative ."});
}

TEST(Check, MHT_7_7_RootNotFirstPart) {
    // HTML-producing tools that write the images first and give no start parameter.
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: image/png
Content-Location: a.png

PNG
--b
Content-Type: text/html; charset=utf-8

<img src="a.png">
--b--
)"));
    EXPECT_EQ(f, lines{"error MHT-7.7 root_not_first_part ."});
    // Read strictly, the image is the root and `type` names the wrong part.
    check_options strict;
    strict.strict = true;
    auto s = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: image/png
Content-Location: a.png

PNG
--b
Content-Type: text/html; charset=utf-8

<img src="a.png">
--b--
)"),
                        strict);
    EXPECT_EQ(s, (lines{"error MHT-7.6 related_type_mismatch .", "note THTML-6.2 root_not_html 1",
                        "note REL-1.1 part_not_referenced 2"}));
}

TEST(Check, REL_3_2_3_RootNotFirstPartWithoutType) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"

--b
Content-Type: image/png
Content-Location: a.png

PNG
--b
Content-Type: text/html; charset=utf-8

<img src="a.png">
--b--
)"));
    EXPECT_EQ(f, (lines{"error REL-3.1.1 related_type_missing .",
                        "note REL-3.2.3 root_not_first_part ."}));
}

TEST(Check, MHT_7_4_NoHtmlAlternative) {
    auto f = check_text(
        crlf(R"(Content-Type: multipart/related; boundary="b"; type="multipart/alternative"

--b
Content-Type: multipart/alternative; boundary="c"

--c
Content-Type: text/plain; charset=us-ascii

x
--c--
--b--
)"));
    EXPECT_EQ(f, (lines{"note MHT-7.4 no_html_alternative .", "note THTML-6.2 root_not_html 1.1"}));
}

TEST(Check, REL_3_2_1_RelatedWithoutParts) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b--
)"));
    EXPECT_EQ(f, lines{"error REL-3.2.1 related_without_parts ."});
}

TEST(Check, REL_3_4_2_ParameterNeedsQuoting) {
    auto f =
        check_text(crlf(R"(Content-Type: multipart/related; boundary=b; type=text/html; start=<a@b>

--b
Content-Type: text/html; charset=utf-8
Content-ID: <a@b>

<p>x</p>
--b--
)"));
    EXPECT_EQ(f, (lines{"error REL-3.4.2 parameter_needs_quoting .",
                        "error REL-3.4.2 parameter_needs_quoting ."}));
}

TEST(Check, REL_2_2_MultipartWithEncoding) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"
Content-Transfer-Encoding: quoted-printable

--b
Content-Type: text/html; charset=utf-8

<p>x</p>
--b--
)"));
    EXPECT_EQ(f, lines{"error REL-2.2 multipart_with_encoding ."});
}

TEST(Check, MHT_11_9_CharsetMissing) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html

<link rel="stylesheet" href="s.css">
--b
Content-Type: text/css
Content-Location: s.css

p { color: red }
--b--
)"));
    EXPECT_EQ(f,
              (lines{"warning MHT-11.9 charset_missing 1", "warning MHT-11.9 charset_missing 2"}));
}

TEST(Check, MHT_11_9_NoContentTypeMeansUsAscii) {
    // RFC 2045 5.2: no Content-Type is text/plain; charset=us-ascii; nothing is missing.
    EXPECT_EQ(check_text(crlf("Subject: x\n\nhello\n")), lines{});
}

TEST(Check, MHT_11_4_TextNotCanonical) {
    // base64 of "a\nb\n" (bare LF inside the encoding), and a 7bit part with a bare LF in a
    // message whose other line ends are CRLF.
    std::string text = crlf(R"(Content-Type: multipart/mixed; boundary="b"

--b
Content-Type: text/plain; charset=us-ascii
Content-Transfer-Encoding: base64

YQpiCg==
--b
Content-Type: text/plain; charset=us-ascii

)");
    text += "one\ntwo\r\n--b--\r\n";
    EXPECT_EQ(check_text(text), (lines{"warning MHT-11.4 text_not_canonical 1",
                                       "warning MHT-11.4 text_not_canonical 2"}));
}

TEST(Check, MHT_11_4_StoredWithLf) {
    // A message stored with LF line ends: its unencoded text has the file's line ends, so it
    // is not judged (one note); base64 text still is.
    auto f = check_text(R"(Content-Type: multipart/mixed; boundary="b"

--b
Content-Type: text/plain; charset=us-ascii

one
two
--b
Content-Type: text/plain; charset=us-ascii
Content-Transfer-Encoding: base64

YQ0KYg0K
--b--
)");
    EXPECT_EQ(f, lines{"note MHT-11.4 stored_with_lf ."});
}

TEST(Check, THTML_9_3_2_CidNotFound) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<img src="cid:missing@x"><a href="cid:missing@x">again</a>
--b--
)"));
    EXPECT_EQ(f, lines{"warning THTML-9.3.2 cid_not_found 1"});
}

TEST(Check, THTML_9_3_2_CidMatchedContentLocation) {
    // Chromium labels style sheets with a cid: Content-Location (MHT-8.3.1 says it names
    // nothing); a Blink archive is read leniently, with a warning; --strict finds nothing.
    const std::string text = crlf(R"(From: <Saved by Blink>
Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<link rel="stylesheet" href="cid:css-1@mhtml.blink">
--b
Content-Type: text/css; charset=utf-8
Content-Location: cid:css-1@mhtml.blink

p { color: red }
--b--
)");
    EXPECT_EQ(check_text(text), lines{"warning THTML-9.3.2 cid_matched_content_location 1"});
    check_options strict;
    strict.strict = true;
    EXPECT_EQ(check_text(text, strict),
              (lines{"warning THTML-9.3.2 cid_not_found 1", "note REL-1.1 part_not_referenced 2"}));
}

TEST(Check, REL_1_1_FramesBlinkSavedWithoutSrcAreNotFindings) {
    // Blink saves the document of every frame; frames without a src (an <iframe> with none, a
    // frame a script made) are written without one, so nothing names their parts.
    const char* const text = R"(From: <Saved by Blink>
Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8
Content-ID: <frame-1@mhtml.blink>
Content-Location: http://e.example/

<iframe></iframe><iframe></iframe>
--b
Content-Type: text/html; charset=utf-8
Content-ID: <frame-2@mhtml.blink>

<p>script-made</p>
--b
Content-Type: text/html; charset=utf-8
Content-ID: <frame-3@mhtml.blink>
Content-Location: about:blank

<p>blank</p>
--b
Content-Type: image/png
Content-ID: <frame-4@mhtml.blink>

PNG
--b--
)";
    // Only the part that is no frame document is reported.
    EXPECT_EQ(check_text(crlf(text)), lines{"note REL-1.1 part_not_referenced 4"});
    // Anyone else's archive: every unreferenced part is.
    std::string other = crlf(text);
    other.replace(other.find("<Saved by Blink>"), 16, "<a@e.example>");
    EXPECT_EQ(check_text(other),
              (lines{"note REL-1.1 part_not_referenced 2", "note REL-1.1 part_not_referenced 3",
                     "note REL-1.1 part_not_referenced 4"}));
}

TEST(Check, MHT_8_2_3_StyleImportNotFollowed) {
    // A <style> Blink saved as a cid: style sheet: chapter 5 (and Chromium) resolve its
    // relative @import against the cid: label; its url()s Chromium resolves against the page.
    const std::string text = crlf(R"(From: <Saved by Blink>
Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8
Content-Location: http://e.example/page.html

<link rel="stylesheet" href="cid:css-1@mhtml.blink">
--b
Content-Type: text/css; charset=utf-8
Content-Location: cid:css-1@mhtml.blink

@import "imp.css"; .a { background: url(a.png) }
--b
Content-Type: text/css; charset=utf-8
Content-Location: http://e.example/imp.css

.i {}
--b
Content-Type: image/png
Content-Location: http://e.example/a.png

PNG
--b--
)");
    EXPECT_EQ(check_text(text), (lines{"warning THTML-9.3.2 cid_matched_content_location 1",
                                       "note MHT-8.2.3 style_import_not_followed 2",
                                       "warning THTML-9.1.4 matched_after_normalisation 2",
                                       "note REL-1.1 part_not_referenced 3"}));
    check_options live;
    live.blink_style_imports = aggregate_options::style_imports::live_page;
    EXPECT_EQ(check_text(text, live), (lines{"warning THTML-9.3.2 cid_matched_content_location 1",
                                             "warning THTML-9.1.4 matched_after_normalisation 2",
                                             "warning THTML-9.1.4 matched_after_normalisation 2"}));
    check_options strict;
    strict.strict = true;
    EXPECT_EQ(check_text(text, strict),
              (lines{"warning THTML-9.3.2 cid_not_found 1", "note REL-1.1 part_not_referenced 2",
                     "note REL-1.1 part_not_referenced 3", "note REL-1.1 part_not_referenced 4"}));
}

TEST(Check, THTML_9_1_4_MatchedAfterNormalisation) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<img src="HTTP://E.example/a.gif">
--b
Content-Type: image/gif
Content-Location: http://e.example/a.gif

GIF
--b--
)"));
    EXPECT_EQ(f, lines{"warning THTML-9.1.4 matched_after_normalisation 1"});
}

TEST(Check, MHT_7_2_MatchedInEnclosingRelated) {
    // RFC 2557 9.6: a nested structure's root reaches a part of the enclosing one.
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<a href="http://e.example/more">more</a><img src="http://e.example/logo.gif">
--b
Content-Type: multipart/related; boundary="c"; type="text/html"
Content-Location: http://e.example/more

--c
Content-Type: text/html; charset=utf-8

<img src="http://e.example/logo.gif">
--c--
--b
Content-Type: image/gif
Content-Location: http://e.example/logo.gif

GIF
--b--
)"));
    EXPECT_EQ(f, lines{"note MHT-7.2 matched_in_enclosing_related 2.1"});
}

TEST(Check, MHT_7_1_RelatedExpected) {
    // An HTML mail with its image beside it in a multipart/mixed.
    auto f = check_text(crlf(R"(Content-Type: multipart/mixed; boundary="b"

--b
Content-Type: text/html; charset=utf-8

<img src="cid:logo@x">
--b
Content-Type: image/gif
Content-ID: <logo@x>

GIF
--b--
)"));
    EXPECT_EQ(f, lines{"warning MHT-7.1 related_expected 1"});
}

TEST(Check, MHT_4_1_3_ReferenceCrossesRelated) {
    auto f = check_text(crlf(R"(Content-Type: multipart/mixed; boundary="b"

--b
Content-Type: multipart/related; boundary="c"; type="text/html"

--c
Content-Type: text/html; charset=utf-8

<img src="http://e.example/a.gif">
--c--
--b
Content-Type: multipart/related; boundary="d"; type="image/gif"

--d
Content-Type: image/gif
Content-Location: http://e.example/a.gif

GIF
--d--
--b--
)"));
    EXPECT_EQ(f, (lines{"warning MHT-4.1.3 reference_crosses_related 1.1",
                        "note THTML-6.2 root_not_html 2.1"}));
}

TEST(Check, MHT_7_1_TargetNotBodyPart) {
    // Internet Explorer's frames: a frame document inside the multipart/alternative that
    // holds the page, referenced from its sibling.
    auto f = check_text(
        crlf(R"(Content-Type: multipart/related; boundary="b"; type="multipart/alternative"

--b
Content-Type: multipart/alternative; boundary="c"

--c
Content-Type: text/html; charset=utf-8
Content-Location: http://e.example/frame.html

<p>frame</p>
--c
Content-Type: text/html; charset=utf-8
Content-Location: http://e.example/

<iframe src="frame.html"></iframe>
--c--
--b--
)"));
    EXPECT_EQ(f, lines{"warning MHT-7.1 target_not_body_part 1.2"});
}

TEST(Check, MHT_7_1_ResourceNotInArchive) {
    // An embedded resource that is not in the archive (at a real URL, or at a fictitious one
    // that can never be loaded); a link to another page is normal; data: needs nothing.
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<img src="http://e.example/missing.gif"><img src="gone.gif"><img src="gone.gif">
<a href="http://e.example/next.html">next</a><img src="data:image/gif;base64,R0lG">
--b--
)"));
    EXPECT_EQ(f, (lines{"warning MHT-7.1 resource_not_in_archive 1",
                        "warning MHT-7.1 resource_not_in_archive 1"}));
}

TEST(Check, MHT_6_2_LinkNotInArchive) {
    auto f = check_text(crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<a href="page2.html">next</a><a href="#top">top</a>
--b--
)"));
    EXPECT_EQ(f, lines{"note MHT-6.2 link_not_in_archive 1"});
}

TEST(Check, REL_1_1_PartNotReferenced) {
    // The start-info cid-list counts as a reference (REL-3.3.2).
    auto f = check_text(crlf(
        R"(Content-Type: multipart/related; boundary="b"; type="text/html"; start-info="<info@x>"

--b
Content-Type: text/html; charset=utf-8

<p>no images</p>
--b
Content-Type: image/gif
Content-Location: http://e.example/a.gif

GIF
--b
Content-Type: application/octet-stream
Content-ID: <info@x>

data
--b--
)"));
    EXPECT_EQ(f, lines{"note REL-1.1 part_not_referenced 2"});
}

// check reads a page as refs, extract and inline do (aggregate::read_document): a UTF-16 or
// ISO-2022-JP page is transcoded before it is scanned, so its references are found and the
// parts they name are not reported as unreferenced.
TEST(Check, REL_1_1_PagesInUtf16AndIso2022JpAreReadLikeEverywhereElse) {
    std::string utf16 = "\xFF\xFE";  // a byte order mark, then UTF-16LE
    for (char c : std::string("<p>\xA4<img src=\"a.png\"><img src=\"missing.png\">"))
        utf16.append({c, '\0'});
    const std::string encoded = mime::base64_encode(utf16);
    const std::string utf16_message =
        "Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n--b\n"
        "Content-Type: text/html; charset=utf-16\nContent-Transfer-Encoding: base64\n"
        "Content-Location: http://e.example/\n\n" +
        encoded +
        "\n--b\nContent-Type: image/png\nContent-Location: http://e.example/a.png\n\nPNG\n"
        "--b--\n";
    EXPECT_EQ(check_text(crlf(utf16_message)),
              (lines{"warning MHT-7.1 resource_not_in_archive 1"}));
    // ISO-2022-JP: the JIS octets of two kana here are "$<" and "$\"".
    const std::string jis = "<p>\x1B$B$<$\"\x1B(B<img src=\"a.png\">";
    EXPECT_EQ(check_text(crlf(
                  "Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n--b\n"
                  "Content-Type: text/html; charset=iso-2022-jp\n"
                  "Content-Location: http://e.example/\n\n" +
                  jis +
                  "\n--b\nContent-Type: image/png\nContent-Location: http://e.example/a.png\n\n"
                  "PNG\n--b--\n")),
              lines{});
}

TEST(Check, FindingsCarryOffsetsAndMessages) {
    const std::string text = crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8
Content-Location: http://e.example/
Content-Location: http://e.example/other

<img src="http://e.example/missing.gif">
--b--
)");
    auto doc = mime::document::parse(std::string(text));
    auto findings = check(doc);
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].code, "multiple_content_location");
    EXPECT_EQ(findings[0].offset, text.find("Content-Location: http://e.example/other"));
    EXPECT_NE(findings[0].message.find("(http://e.example/other) in one heading"),
              std::string::npos);
    // The first field is named as the one readers use.
    EXPECT_NE(findings[0].message.find("with the first (http://e.example/)"), std::string::npos)
        << findings[0].message;
    EXPECT_EQ(findings[1].code, "resource_not_in_archive");
    EXPECT_EQ(findings[1].offset, text.find("http://e.example/missing.gif"));
    EXPECT_NE(findings[1].message.find("http://e.example/missing.gif"), std::string::npos);
    auto counts = count_levels(findings);
    EXPECT_EQ(counts.errors, 1u);
    EXPECT_EQ(counts.warnings, 1u);
    EXPECT_EQ(counts.notes, 0u);
}

// Linear in the size of the archive: 100,000 parts, every one referenced by cid: and by
// Content-Location, with one duplicate label at the end.
TEST(Check, ManyPartsAreCheckedInLinearTime) {
    constexpr int n = 100000;
    std::string html = "<html>";
    std::string parts;
    for (int i = 0; i < n; ++i) {
        const std::string id = std::to_string(i);
        html += i % 2 ? "<img src=\"cid:p" + id + "@x\">" : "<img src=\"i/" + id + ".gif\">";
        parts += "--b\r\nContent-Type: image/gif\r\n";
        parts +=
            i % 2 ? "Content-ID: <p" + id + "@x>\r\n" : "Content-Location: i/" + id + ".gif\r\n";
        parts += "\r\nGIF\r\n";
    }
    parts += "--b\r\nContent-Type: image/gif\r\nContent-Location: i/0.gif\r\n\r\nGIF\r\n--b--\r\n";
    std::string text =
        "Content-Type: multipart/related; boundary=\"b\"; "
        "type=\"text/html\"\r\n\r\n--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" +
        html + "\r\n" + parts;
    auto doc = mime::document::parse(std::move(text));
    const auto start = std::chrono::steady_clock::now();
    auto f = summary(check(doc));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string last = std::to_string(n + 2);
    EXPECT_EQ(f, (lines{"note REL-1.1 part_not_referenced " + last,
                        "error MHT-7.13 duplicate_content_location " + last}));
    std::printf("checked %d parts in %.3f s\n", n + 2, seconds);
}

#ifdef MHTML_CLI_PATH

// MHT-2.1.1's examples through the tool: a violated MUST exits 1, a violated SHOULD 0.
TEST(CheckCli, MHT_2_1_1_TwoContentLocationsIsAnErrorAndExitsOne) {
    const std::string file = test::temp_file(crlf(R"(Content-Type: text/html; charset=utf-8
Content-Location: http://e.example/a.html
Content-Location: http://e.example/b.html

<p>x</p>
)"));
    auto r = test::run_cli(std::vector<std::string>{"check", file});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("error MHT-4.2.5 multiple_content_location part . @"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("1 error, 0 warnings, 0 notes (not compliant)"), std::string::npos)
        << r.out;
    std::filesystem::remove(file);
}

TEST(CheckCli, MHT_2_1_1_HtmlWithoutCharsetIsAWarningAndExitsZero) {
    const std::string file = test::temp_file(crlf(R"(Content-Type: text/html
Content-Location: http://e.example/a.html

<p>x</p>
)"));
    auto r = test::run_cli(std::vector<std::string>{"check", file});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("warning MHT-11.9 charset_missing part . @0: "), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("0 errors, 1 warning, 0 notes (conditionally compliant)"),
              std::string::npos)
        << r.out;
    std::filesystem::remove(file);
}

TEST(CheckCli, JsonListsFindingsAndCounts) {
    const std::string text = crlf(R"(Content-Type: text/html; charset=utf-8
Content-Location: http://e.example/a.html
Content-Location: http://e.example/b.html

<p>x</p>
)");
    auto r = test::run_cli({"check", "--json", "-"}, &text);
    EXPECT_EQ(r.status, 1);
    for (const char* key :
         {"{\"file\":\"-\",\"findings\":[{\"requirement\":\"MHT-4.2.5\",\"level\":\"error\","
          "\"code\":\"multiple_content_location\",\"part\":\"\",\"offset\":",
          "\"message\":\"", "\"errors\":1,\"warnings\":0,\"notes\":0}"})
        EXPECT_NE(r.out.find(key), std::string::npos) << key << "\n" << r.out;
}

TEST(CheckCli, StrictAndUsage) {
    const std::string text = crlf(R"(From: <Saved by Blink>
Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<link rel="stylesheet" href="cid:css-1@mhtml.blink">
--b
Content-Type: text/css; charset=utf-8
Content-Location: cid:css-1@mhtml.blink

p { color: red }
--b--
)");
    auto lenient = test::run_cli({"check", "-"}, &text);
    EXPECT_EQ(lenient.status, 0);
    EXPECT_NE(lenient.out.find("cid_matched_content_location"), std::string::npos) << lenient.out;
    auto strict = test::run_cli({"check", "--strict", "-"}, &text);
    EXPECT_EQ(strict.status, 0);
    EXPECT_NE(strict.out.find("cid_not_found"), std::string::npos) << strict.out;
    EXPECT_EQ(test::run_cli(std::vector<std::string>{"check", "/nonexistent/file.mhtml"}).status,
              2);
    EXPECT_EQ(test::run_cli(std::vector<std::string>{"check"}).status, 2);
    auto help = test::run_cli(std::vector<std::string>{"check", "--help"});
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.out.find("Examples:"), std::string::npos);
    EXPECT_NE(help.out.find("mhtml check --json"), std::string::npos);
}

#endif

}  // namespace
}  // namespace mhtml::archive
