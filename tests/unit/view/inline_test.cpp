// mhtml inline (view/inline.hpp): one HTML file with data: URIs, charsets declared, scripts
// blocked, frames and style sheets inlined recursively.
#include "mhtml/view/inline.hpp"

#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/document.hpp"
#include "unit/view/view_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <regex>
#include <vector>

#include "support/policy_check.hpp"

namespace mhtml::view {
namespace {

using test::crlf;
using test::read_bytes;
using test::sandbox;

struct inlined {
    std::string html;
    inline_report report;
};

inlined run(const std::string& message, const inline_options& o = {}) {
    auto doc = mime::document::parse(crlf(message));
    auto agg = archive::aggregate::build(doc);
    sandbox box;
    auto report = inline_page(agg, box / "page.html", o);
    std::string html = report.ok() ? read_bytes(box / "page.html") : std::string();
    EXPECT_EQ(box.entries().size(), report.ok() ? 1u : 0u) << "a temporary file was left";
    return {std::move(html), std::move(report)};
}

// The decoded content of the data: URI after `prefix` (e.g. `src="data:image/png;base64,`).
std::string data_after(const std::string& html, const std::string& prefix) {
    std::size_t at = html.find(prefix);
    if (at == std::string::npos) return "<not found: " + prefix + ">";
    at += prefix.size();
    std::size_t end = html.find_first_of("\")' ", at);
    std::string out;
    mime::base64_decode(std::string_view(html).substr(at, end - at), out);
    return out;
}

const char* const archive_text = R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8
Content-Location: http://x.example/page.html

<!DOCTYPE html><html><head><link rel=stylesheet href="s.css"><script src="app.js"></script></head>
<body><img src="a.png"><iframe src="frame.html"></iframe><img src="http://other.example/x.png"><a href="frame.html">f</a></body></html>
--b
Content-Type: text/css
Content-Location: http://x.example/s.css

body { background: url(bg.gif) }
--b
Content-Type: image/png
Content-Location: http://x.example/a.png

PNG
--b
Content-Type: image/gif
Content-Location: http://x.example/bg.gif

GIF
--b
Content-Type: text/html; charset=windows-1251
Content-Location: http://x.example/frame.html

<p>frame <img src="a.png"><iframe src="page.html"></iframe>
--b
Content-Type: application/javascript
Content-Location: http://x.example/app.js

alert(1)
--b--
)";

TEST(Inline, ResourcesBecomeDataUris) {
    auto [html, r] = run(archive_text);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(data_after(html, "src=\"data:image/png;base64,"), "PNG");
    std::string css = data_after(html, "href=\"data:text/css;charset=UTF-8;base64,");
    EXPECT_EQ(css.find("body { background: url(data:image/gif;base64,"), 0u) << css;
    EXPECT_EQ(data_after(css, "url(data:image/gif;base64,"), "GIF");
    // The frame keeps its own charset, gets the policy, and its own reference to the page
    // (a cycle) is left empty.
    std::string frame = data_after(html, "src=\"data:text/html;charset=windows-1251;base64,");
    EXPECT_NE(frame.find("Content-Security-Policy"), std::string::npos) << frame;
    EXPECT_EQ(data_after(frame, "<img src=\"data:image/png;base64,"), "PNG");
    EXPECT_NE(frame.find("<iframe src=\"about:blank\">"), std::string::npos) << frame;
    ASSERT_EQ(r.notices.size(), 1u);
    EXPECT_EQ(r.notices[0].code, "cycle");
    // Links keep where they pointed; external resources are made absolute and kept.
    EXPECT_NE(html.find("<a href=\"http://x.example/frame.html\">"), std::string::npos);
    EXPECT_NE(html.find("src=\"http://other.example/x.png\""), std::string::npos);
    EXPECT_EQ(r.parts_inlined, 5u);  // css, gif, png, frame, js
    EXPECT_EQ(r.charset, "UTF-8");
}

TEST(Inline, ScriptsAreBlockedUnlessAllowed) {
    auto [html, r] = run(archive_text);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(html.find("<!DOCTYPE html><meta charset=\"UTF-8\"><meta "
                        "http-equiv=\"Content-Security-Policy\" content=\"script-src 'none'; "
                        "object-src data:\">"),
              0u)
        << html.substr(0, 200);
    inline_options o;
    o.allow_scripts = true;
    auto [open, r2] = run(archive_text, o);
    EXPECT_EQ(open.find("Content-Security-Policy"), std::string::npos);
    EXPECT_EQ(data_after(open, "<script src=\"data:application/javascript;base64,"), "alert(1)");
}

TEST(Inline, OfflineForbidsEveryFetch) {
    inline_options o;
    o.offline = true;
    auto [html, r] = run(archive_text, o);
    ASSERT_TRUE(r.ok());
    EXPECT_NE(html.find("content=\"default-src 'none'; img-src data:;"), std::string::npos);
    EXPECT_EQ(html.find("other.example"), std::string::npos);
    EXPECT_NE(html.find("<img src=\"data:,\">"), std::string::npos);
    EXPECT_EQ(r.external_removed, 1u);
}

TEST(Inline, ThePageKeepsItsBytesAndDeclaresItsCharset) {
    const std::string cyrillic = "\xcf\xf0\xe8\xe2\xe5\xf2";
    auto [html, r] =
        run("Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n"
            "--b\nContent-Type: text/html; charset=koi8-r\n\n<!DOCTYPE html><p>" +
            cyrillic + "\n--b--\n");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.charset, "KOI8-R");
    EXPECT_FALSE(r.transcoded);
    EXPECT_EQ(html.find("<!DOCTYPE html><meta charset=\"KOI8-R\">"), 0u);
    EXPECT_NE(html.find("<p>" + cyrillic), std::string::npos);
}

TEST(Inline, Iso2022JpIsTranscodedAndSaysSo) {
    auto [html, r] =
        run("Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n"
            "--b\nContent-Type: text/html; charset=iso-2022-jp\n\n"
            "<p>\x1B$B$3$s$K$A$O\x1B(B</p>\n--b--\n");
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.transcoded);
    EXPECT_NE(html.find("<p>\xE3\x81\x93\xE3\x82\x93\xE3\x81\xAB\xE3\x81\xA1\xE3\x81\xAF</p>"),
              std::string::npos);
    EXPECT_EQ(html.find("<meta charset=\"UTF-8\">"), 0u);
    ASSERT_FALSE(r.notices.empty());
    EXPECT_EQ(r.notices.back().code, "transcoded");
}

TEST(Inline, AnImageRootIsShownOnAPage) {
    auto [html, r] =
        run("Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n"
            "--b\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\n"
            "iVBORw0KGgo=\n--b--\n");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(data_after(html, " src=\"data:image/png;base64,"),
              std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(Inline, FailuresLeaveNothing) {
    auto doc = mime::document::parse(crlf(archive_text));
    auto agg = archive::aggregate::build(doc);
    sandbox box;
    inline_options o;
    o.part = "9";
    auto r = inline_page(agg, box / "page.html", o);
    EXPECT_EQ(r.error_code, "no_such_part");
    std::filesystem::create_directories(box / "dir");
    auto r2 = inline_page(agg, box / "dir", {});
    EXPECT_EQ(r2.error_code, "io_error");
    EXPECT_NE(r2.error.find("is a folder"), std::string::npos);
    EXPECT_EQ(box.entries(), std::set<std::string>{"dir"});
}

// A message whose root holds `root` and whose other parts are (location, type, text).
std::string related(const std::string& root,
                    const std::vector<std::array<std::string, 3>>& parts = {},
                    const std::string& root_type = "text/html") {
    std::string m = "Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n--b\n";
    m.append("Content-Type: ").append(root_type);
    m.append("\nContent-Location: http://x.example/\n\n").append(root);
    for (const auto& [location, type, text] : parts) {
        m.append("\n--b\nContent-Type: ").append(type);
        m.append("\nContent-Location: http://x.example/").append(location);
        m.append("\n\n").append(text);
    }
    m.append("\n--b--\n");
    return m;
}

TEST(Inline, FramesThatRepeatEachOtherStopAtTheBudget) {
    // Each document names the next three times: 25 levels would be 3^25 copies of the last.
    std::vector<std::array<std::string, 3>> parts;
    for (int i = 1; i <= 25; ++i) {
        std::string frames = "<p>";
        for (int k = 0; k < 3; ++k)
            frames.append("<iframe src=\"f")
                .append(std::to_string(i + 1))
                .append(".html\"></iframe>");
        std::string name = "f";
        name.append(std::to_string(i)).append(".html");
        parts.push_back({name, "text/html", frames});
    }
    parts.push_back({"f26.html", "text/html", "<p>end"});
    const std::string message = related("<iframe src=\"f1.html\"></iframe>", parts);
    auto [html, r] = run(message);  // the default budget: 10 times the archive plus 64 MiB
    EXPECT_EQ(r.error_code, "output_too_large");
    EXPECT_NE(r.error.find("--max-output"), std::string::npos) << r.error;
    EXPECT_EQ(html, "");  // and run() checked that the sandbox holds nothing
    inline_options small;
    small.max_output = 2000;
    auto [html2, r2] =
        run(related("<iframe src=\"f1.html\"></iframe>", {parts.end() - 3, parts.end()}), small);
    EXPECT_TRUE(r2.ok()) << r2.error;  // three levels fit
    small.max_output = 200;
    auto [html3, r3] = run(related("<p>" + std::string(300, 'x')), small);
    EXPECT_EQ(r3.error_code, "output_too_large");
    EXPECT_EQ(default_output_budget(1000), 10'000u + (64u << 20));
}

TEST(Inline, EachPartIsEncodedOnce) {
    std::string page = "<link rel=stylesheet href=s.css><link rel=stylesheet href=s.css>";
    for (int i = 0; i < 50; ++i) page += "<img src=a.png><iframe src=f.html></iframe>";
    auto [html, r] =
        run(related(page, {{"a.png", "image/png", "PNG"},
                           {"s.css", "text/css", "p { background: url(a.png) }"},
                           {"f.html", "text/html", "<img src=a.png><img src=a.png>"}}));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.parts_inlined, 3u);
    EXPECT_EQ(r.encodings, 3u);
    // The page's 102, then the style sheet's and the frame's, each read once.
    EXPECT_EQ(r.references_inlined, 102u + 1u + 2u);
}

// Review finding: a style sheet without a charset of its own is read in each referrer's
// charset, so it gets one data: URI per charset, not the first referrer's for all.
TEST(Inline, AStyleSheetWithoutACharsetFollowsEachReferrer) {
    auto [html, r] = run(
        related("<link rel=stylesheet href=\"s.css\"><iframe src=\"f.html\"></iframe>",
                {{"s.css", "text/css", "p::before { content: '\xE9' }"},
                 {"f.html", "text/html; charset=utf-8", "<link rel=stylesheet href=\"s.css\">"}},
                "text/html; charset=windows-1252"));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_NE(html.find("data:text/css;charset=windows-1252;base64,"), std::string::npos);
    const std::string frame = data_after(html, "src=\"data:text/html;charset=UTF-8;base64,");
    EXPECT_NE(frame.find("data:text/css;charset=UTF-8;base64,"), std::string::npos) << frame;
}

TEST(Inline, MHT_12_5_EveryDocumentCarriesThePolicyFirst) {
    const std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"x()\"/>";
    auto [html, r] =
        run(related("<!--><script>x()</script><!-- --><iframe src=\"f.html\"></iframe>"
                    "<iframe src=\"p.svg\"></iframe><iframe src=\"x.xhtml\"></iframe>",
                    {{"f.html", "text/html", "<!---><script>y()</script>-->"},
                     {"p.svg", "image/svg+xml", svg},
                     {"x.xhtml", "application/xhtml+xml",
                      "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>"
                      "<script>z()</script></body></html>"}}));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(test::policy_first_violation(html, false), "");
    EXPECT_EQ(test::policy_first_violation(
                  data_after(html, "src=\"data:text/html;charset=windows-1252;base64,"), false),
              "");
    const std::string frame_svg = data_after(html, "src=\"data:image/svg+xml;base64,");
    EXPECT_EQ(test::policy_first_violation(frame_svg, true), "") << frame_svg;
    EXPECT_NE(frame_svg.find("</svg>"), std::string::npos);  // the self-closing root was opened
    EXPECT_EQ(test::policy_first_violation(
                  data_after(html, "src=\"data:application/xhtml+xml;charset=UTF-8;base64,"), true),
              "");
    // An SVG root: the page is HTML, with the policy before the <svg>.
    auto [page, r2] = run(related(svg, {}, "image/svg+xml"));
    ASSERT_TRUE(r2.ok());
    EXPECT_EQ(test::policy_first_violation(page, false), "") << page;
}

TEST(Inline, RefreshesArePointedNowhereAndPluginsShowTheirFallback) {
    const std::string page =
        "<meta http-equiv=refresh content=\"0;url=http://other.example/\">"
        "<object data=\"doc.pdf\" type=application/pdf>fallback</object>"
        "<object data=\"a.png\"></object><embed src=\"doc.pdf\">";
    const std::vector<std::array<std::string, 3>> parts = {{"doc.pdf", "application/pdf", "%PDF"},
                                                           {"a.png", "image/png", "PNG"}};
    auto [html, r] = run(related(page, parts));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_NE(html.find("<meta data-equiv=refresh"), std::string::npos) << html;
    EXPECT_EQ(r.refreshes_disabled, 1u);
    EXPECT_NE(html.find("<object data=\"mhtml-blocked:plugin\" type=application/pdf>"),
              std::string::npos)
        << html;
    EXPECT_NE(html.find("<embed src=\"mhtml-blocked:plugin\">"), std::string::npos);
    EXPECT_EQ(data_after(html, "<object data=\"data:image/png;base64,"), "PNG");
    EXPECT_EQ(r.plugins_blocked, 2u);
    ASSERT_FALSE(r.notices.empty());
    EXPECT_EQ(r.notices[0].code, "refresh_disabled");
    inline_options allow;
    allow.allow_scripts = true;
    auto [open, r2] = run(related(page, parts), allow);
    EXPECT_NE(open.find("<meta http-equiv=refresh"), std::string::npos);
    EXPECT_EQ(data_after(open, "<object data=\"data:application/pdf;base64,"), "%PDF");
    EXPECT_EQ(r2.plugins_blocked, 0u);
}

TEST(Inline, BlinkShadowRootsBecomeDeclarativeShadowRoots) {
    // Blink saves shadow roots as <template shadowmode>, which only Chromium's MHTML loader
    // attaches; the page and its frames get the standard attribute, scripts allowed or not.
    const std::string page =
        "<div><template shadowmode=\"open\" shadowdelegatesfocus=\"\"><p>in</p></template></div>"
        "<iframe src=\"f.html\"></iframe>";
    const std::vector<std::array<std::string, 3>> parts = {
        {"f.html", "text/html", "<b><template shadowmode=\"closed\">x</template></b>"}};
    for (bool allow : {false, true}) {
        SCOPED_TRACE(allow);
        inline_options o;
        o.allow_scripts = allow;
        auto [html, r] = run(related(page, parts), o);
        ASSERT_TRUE(r.ok()) << r.error;
        EXPECT_NE(html.find("<template shadowrootmode=\"open\" shadowrootdelegatesfocus=\"\">"),
                  std::string::npos)
            << html;
        EXPECT_EQ(html.find("shadowmode"), std::string::npos);
        EXPECT_NE(data_after(html, "<iframe src=\"data:text/html;charset=windows-1252;base64,")
                      .find("<template shadowrootmode=\"closed\">"),
                  std::string::npos);
        EXPECT_EQ(r.shadow_roots, 2u);
        std::size_t notices = 0;
        for (const auto& n : r.notices) notices += n.code == "shadow_roots";
        EXPECT_EQ(notices, 2u);
    }
}

}  // namespace
}  // namespace mhtml::view
