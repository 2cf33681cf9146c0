// Style sheets Blink made from <style> elements (Content-Location: cid:css-...@mhtml.blink,
// linked with <link rel=stylesheet href="cid:css-...">). Chapter 5 resolves their relative
// references against that cid: label (MHT-8.2.3), where they name nothing; Chromium resolves
// url() against the document that holds the <style> and @import against the sheet's own URL
// (observed in Chromium 156: docs/design.md, tests/browser/blink_test.py). The lenient reading
// follows Chromium (MHT-8.2.5, ambiguous); aggregate_options::blink_style_imports = live_page
// follows the live page for @import; strict stays chapter 5.
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/html/scan.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

namespace mhtml::archive {
namespace {

std::string crlf(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

bool has_code(const std::vector<diagnostic>& diags, diag_code code, severity sev) {
    for (const auto& d : diags)
        if (d.code == code && d.sev == sev) return true;
    return false;
}

// A page with a <style> (part 2) and a frame with its own (part 4, under a <base href>), as
// Blink writes them; the parts they use, at the page's URLs.
const char* const archive_text = R"(From: <Saved by Blink>
Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html
Content-ID: <frame-1@mhtml.blink>
Content-Location: http://h.example/dir/page.html

<link rel="stylesheet" type="text/css" href="cid:css-1@mhtml.blink" /><iframe src="cid:frame-2@mhtml.blink"></iframe>
--b
Content-Type: text/css
Content-Location: cid:css-1@mhtml.blink

@import url("css/imp.css");
@import url("http://h.example/dir/css/abs.css");
.a { background: url("img/bg.png"); }
.b { background: url("img/with space.png"); }
.c { background: url("img/missing.png"); }
.d { background: url("#frag"); }
--b
Content-Type: text/css
Content-Location: http://h.example/dir/css/imp.css

.i { background: url("../img/bg.png"); }
--b
Content-Type: text/html
Content-ID: <frame-2@mhtml.blink>
Content-Location: http://h.example/dir/frame.html

<base href="http://h.example/other/"><link rel="stylesheet" href="cid:css-2@mhtml.blink"><link rel="icon" href="cid:css-3@mhtml.blink">
--b
Content-Type: text/css
Content-Location: cid:css-2@mhtml.blink

.f { background: url(bg.png); }
--b
Content-Type: text/css
Content-Location: cid:css-3@mhtml.blink

.g { background: url(bg.png); }
--b
Content-Type: image/png
Content-Location: http://h.example/dir/img/bg.png

PNG1
--b
Content-Type: image/png
Content-Location: http://h.example/dir/img/with%20space.png

PNG2
--b
Content-Type: image/png
Content-Location: http://h.example/other/bg.png

PNG3
--b
Content-Type: text/css
Content-Location: http://h.example/dir/css/abs.css

.x {}
--b--
)";

struct fixture {
    mime::document doc = mime::document::parse(crlf(archive_text));
    mime::part_view part(const char* path) const { return *doc.find(path); }
    // The reference of `sheet` whose URL is `url`, as the scanner finds it.
    html::reference ref(const aggregate& agg, const char* sheet, std::string_view url) const {
        for (const auto& r : agg.references(part(sheet)).refs)
            if (r.url == url) return r;
        ADD_FAILURE() << "no reference " << url;
        return {};
    }
};

TEST(BlinkStyle, MHT_8_2_5_UrlsResolveAgainstTheDocumentThatHoldsTheStyle) {
    fixture f;
    auto agg = aggregate::build(f.doc);
    ASSERT_TRUE(agg.blink());
    EXPECT_EQ(agg.style_element_holder(f.part("2")), f.part("1"));
    EXPECT_EQ(agg.style_element_holder(f.part("5")), f.part("4"));
    EXPECT_FALSE(agg.style_element_holder(f.part("6")));  // linked as an icon, not a style sheet
    EXPECT_FALSE(agg.style_element_holder(f.part("3")));  // an ordinary style sheet
    struct row {
        const char* sheet;
        const char* url;
        const char* target;  // nullptr: none
        const char* resolved;
    };
    for (const row& r : std::initializer_list<row>{
             {"2", "img/bg.png", "7", "http://h.example/dir/img/bg.png"},
             {"2", "img/with space.png", "8", "http://h.example/dir/img/with space.png"},
             {"2", "img/missing.png", nullptr, "http://h.example/dir/img/missing.png"},
             {"5", "bg.png", "9", "http://h.example/other/bg.png"},  // the frame's <base href>
         }) {
        SCOPED_TRACE(r.url);
        std::vector<diagnostic> diags;
        resolution res = agg.resolve(f.part(r.sheet), f.ref(agg, r.sheet, r.url), &diags);
        EXPECT_EQ(res.resolved, r.resolved);
        if (!r.target) {
            EXPECT_FALSE(res.target);
            continue;
        }
        ASSERT_TRUE(res.target);
        EXPECT_EQ(res.target->path(), r.target);
        EXPECT_TRUE(res.lenient);
        EXPECT_TRUE(has_code(diags, diag_code::matched_after_normalisation, severity::ambiguous));
        // The first match note says why (check reports only that one).
        auto first = std::find_if(diags.begin(), diags.end(), [](const diagnostic& d) {
            return d.code == diag_code::matched_after_normalisation;
        });
        ASSERT_NE(first, diags.end());
        EXPECT_NE(first->message.find("<style> element of part"), std::string::npos);
        // The plain string overload reads it the same way (a url() is no @import).
        EXPECT_EQ(agg.resolve(f.part(r.sheet), r.url).target, res.target);
    }
    // A fragment-only reference stays the sheet's own; an ordinary sheet is unchanged.
    EXPECT_TRUE(agg.resolve(f.part("2"), f.ref(agg, "2", "#frag")).same_document);
    EXPECT_EQ(agg.resolve(f.part("3"), f.ref(agg, "3", "../img/bg.png")).target, f.part("7"));
    // Not the icon-linked sheet: its url() stays unresolved, as chapter 5 says.
    EXPECT_FALSE(agg.resolve(f.part("6"), f.ref(agg, "6", "bg.png")).target);
}

TEST(BlinkStyle, MHT_8_2_3_ImportsResolveAgainstTheSheetAsInChromium) {
    fixture f;
    auto agg = aggregate::build(f.doc);
    html::reference relative = f.ref(agg, "2", "css/imp.css");
    ASSERT_TRUE(relative.css_import);
    std::vector<diagnostic> diags;
    resolution res = agg.resolve(f.part("2"), relative, &diags);
    EXPECT_FALSE(res.target) << "Chromium loads nothing: the sheet's URL is cid:css-1@mhtml.blink";
    EXPECT_EQ(res.resolved, "cid:css/imp.css");  // chapter 5
    EXPECT_TRUE(has_code(diags, diag_code::style_element_sheet, severity::note));
    // An absolute @import loads, in Chromium and here.
    html::reference absolute = f.ref(agg, "2", "http://h.example/dir/css/abs.css");
    ASSERT_TRUE(absolute.css_import);
    EXPECT_EQ(agg.resolve(f.part("2"), absolute).target, f.part("10"));
}

TEST(BlinkStyle, MHT_8_2_5_ImportsAsTheLivePageResolvedThem) {
    fixture f;
    aggregate_options live;
    live.blink_style_imports = aggregate_options::style_imports::live_page;
    auto agg = aggregate::build(f.doc, live);
    std::vector<diagnostic> diags;
    resolution res = agg.resolve(f.part("2"), f.ref(agg, "2", "css/imp.css"), &diags);
    ASSERT_TRUE(res.target);
    EXPECT_EQ(res.target->path(), "3");
    EXPECT_EQ(res.resolved, "http://h.example/dir/css/imp.css");
    EXPECT_TRUE(res.lenient);
    EXPECT_TRUE(has_code(diags, diag_code::matched_after_normalisation, severity::ambiguous));
    EXPECT_FALSE(has_code(diags, diag_code::style_element_sheet, severity::note));
}

TEST(BlinkStyle, MHT_8_2_4_StrictAndNonBlinkArchivesResolveByChapter5) {
    fixture f;
    aggregate_options strict;
    strict.strict = true;
    auto sagg = aggregate::build(f.doc, strict);
    EXPECT_FALSE(sagg.style_element_holder(f.part("2")));
    EXPECT_FALSE(sagg.resolve(f.part("2"), f.ref(sagg, "2", "img/bg.png")).target);
    EXPECT_EQ(sagg.resolve(f.part("2"), f.ref(sagg, "2", "img/bg.png")).resolved, "cid:img/bg.png");
    // The same parts without "Saved by Blink": cid: Content-Locations label nothing
    // (MHT-8.3.1), so no sheet is linked and nothing changes.
    std::string text = crlf(archive_text);
    text.replace(text.find("<Saved by Blink>"), 16, "<someone@e.example>");
    auto other = mime::document::parse(std::move(text));
    auto agg = aggregate::build(other);
    EXPECT_FALSE(agg.blink());
    EXPECT_FALSE(agg.style_element_holder(*other.find("2")));
    EXPECT_FALSE(agg.resolve(*other.find("2"), "img/bg.png").target);
}

TEST(BlinkStyle, ASheetLinkedFromTwoDocumentsResolvesAgainstTheFirst) {
    auto doc = mime::document::parse(crlf(R"(From: <Saved by Blink>
Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html
Content-Location: http://h.example/a/page.html

<link rel=stylesheet href="cid:css-1@mhtml.blink">
--b
Content-Type: text/html
Content-Location: http://h.example/b/page.html

<link rel="alternate stylesheet" href="cid:css-1@mhtml.blink">
--b
Content-Type: text/css
Content-Location: cid:css-1@mhtml.blink

.a { background: url(x.png) }
--b
Content-Type: image/png
Content-Location: http://h.example/a/x.png

PNG
--b--
)"));
    auto agg = aggregate::build(doc);
    EXPECT_EQ(agg.style_element_holder(*doc.find("3")), *doc.find("1"));
    EXPECT_EQ(agg.resolve(*doc.find("3"), "x.png").target, *doc.find("4"));
    EXPECT_TRUE(has_code(agg.diagnostics(), diag_code::style_element_sheet, severity::note));
}

}  // namespace
}  // namespace mhtml::archive
