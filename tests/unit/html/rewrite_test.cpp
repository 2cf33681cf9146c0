// Rewriting references: only the value bytes change, re-escaped for where they stand; a
// rewrite that changes nothing is the identity; a rewrite of everything to X scans back as X.
#include "mhtml/html/rewrite.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mhtml::html {
namespace {

// Inputs with references in every syntax and quoting.
const std::vector<std::string>& documents() {
    static const std::vector<std::string> docs = {
        R"~(<a href="p.html">x</a><a href='q.html'>y</a><a href=r.html>z</a>)~",
        R"~(<img src="a.png" srcset="a.png 1x, b.png 2x" style="background:url(c.png)">)~",
        R"~(<img srcset='s.jpg 480w,m.jpg 800w'><img srcset=u.jpg>)~",
        R"~(<div style='background:url("d.png")'></div><p style="list-style:url('e.png')">)~",
        R"~(<style>@import "f.css"; @import url(g.css); body{background:url( h.png )}</style>)~",
        R"~(<meta http-equiv="refresh" content="0; url=next.html"><meta http-equiv=refresh content=1;URL='n2.html'>)~",
        R"~(<object archive="a.jar b.jar" data="o.swf"></object><applet archive="x.jar,y.jar" code="A.class">)~",
        R"~(<a href="x?a=1&amp;b=2&copy=3">e</a><img src=&quot;q&quot;>)~",
        "<svg><image xlink:href=\"i.png\"/><style>r{fill:url(#g)}</style></svg><base "
        "href=\"http://b.example/\">",
        "<img src=\"caf\xE9.png\"><!-- <img src=\"no.png\"> --><script>var x='<img "
        "src=no2>'</script>",
    };
    return docs;
}

TEST(HtmlRewrite, NoOpRewriteIsTheIdentity) {
    for (const auto& d : documents()) {
        auto refs = scan_html(d).refs;
        EXPECT_EQ(rewrite(d, refs, [](const reference&) { return std::nullopt; }), d);
        // Giving each reference its own decoded value changes nothing either.
        EXPECT_EQ(rewrite(d, refs, [](const reference& r) { return r.url; }), d);
    }
}

TEST(HtmlRewrite, EveryReferenceToXScansBackAsX) {
    const std::string xs[] = {"http://x.example/p(1)\\q=&amp;<\xC3\xA9>`", "cid:abc@x", "a#b?c=d"};
    for (const auto& x : xs) {
        for (const auto& d : documents()) {
            SCOPED_TRACE(d);
            auto before = scan_html(d).refs;
            std::string out = rewrite(d, before, [&](const reference&) { return x; });
            auto after = scan_html(out).refs;
            ASSERT_EQ(after.size(), before.size()) << out;
            for (std::size_t i = 0; i < after.size(); ++i) {
                EXPECT_EQ(after[i].url, x) << out;
                EXPECT_EQ(after[i].kind, before[i].kind);
                EXPECT_EQ(after[i].attribute, before[i].attribute);
            }
            // Outside the values, every byte is the same: the gaps between references match.
            std::size_t prev_in = 0, prev_out = 0;
            for (std::size_t i = 0; i < before.size(); ++i) {
                EXPECT_EQ(d.substr(prev_in, before[i].offset - prev_in),
                          out.substr(prev_out, after[i].offset - prev_out));
                prev_in = before[i].offset + before[i].length;
                prev_out = after[i].offset + after[i].length;
            }
            EXPECT_EQ(d.substr(prev_in), out.substr(prev_out));
        }
    }
}

std::string rewrite_all(const std::string& d, const std::string& x) {
    auto refs = scan_html(d).refs;
    return rewrite(d, refs, [&](const reference&) { return x; });
}

TEST(HtmlRewrite, AttributeQuoting) {
    EXPECT_EQ(rewrite_all(R"~(<a href="p">)~", R"~(a"b&c)~"), R"~(<a href="a&quot;b&amp;c">)~");
    EXPECT_EQ(rewrite_all(R"~(<a href='p'>)~", R"~(a'b"c)~"), R"~(<a href='a&#39;b"c'>)~");
    EXPECT_EQ(rewrite_all(R"~(<a href=p>)~", "a b>c"), R"~(<a href=a&#32;b&#62;c>)~");
    EXPECT_EQ(rewrite_all(R"~(<a href=p title=t>)~", ""), R"~(<a href="" title=t>)~");
}

TEST(HtmlRewrite, SrcsetAndListsKeepTheirSeparators) {
    EXPECT_EQ(rewrite_all(R"~(<img srcset="a.png 1x, b.png 2x">)~", "my pic,.png"),
              R"~(<img srcset="my%20pic,.png 1x, my%20pic,.png 2x">)~");
    EXPECT_EQ(rewrite_all(R"~(<img srcset="a.png 1x">)~", ",x,"), R"~(<img srcset="%2Cx%2C 1x">)~");
    EXPECT_EQ(rewrite_all(R"~(<applet archive="x.jar,y.jar">)~", "a,b"),
              R"~(<applet archive="a%2Cb,a%2Cb">)~");
}

TEST(HtmlRewrite, CssEscaping) {
    std::string out = rewrite_all(R"~(<div style="background:url(a.png)">)~", "x y).png");
    auto refs = scan_html(out).refs;
    ASSERT_EQ(refs.size(), 1u);
    EXPECT_EQ(refs[0].url, "x y).png");
    // Inside <style>, a new URL can never close the element.
    std::string style =
        rewrite_all("<style>a{background:url(\"a.png\")}</style><img src=z>", "</style><b>");
    EXPECT_EQ(style.find("</style><b>"), std::string::npos);
    auto again = scan_html(style).refs;
    ASSERT_EQ(again.size(), 2u);
    EXPECT_EQ(again[0].url, "</style><b>");
    EXPECT_EQ(again[1].url, "</style><b>");
}

TEST(HtmlRewrite, OnlyChosenReferencesChange) {
    std::string d = R"~(<img src="a.png"><img src="b.png"><img src="c.png">)~";
    auto refs = scan_html(d).refs;
    std::string out = rewrite(d, refs, [](const reference& r) -> std::optional<std::string> {
        if (r.url == "b.png") return std::string("data:image/png;base64,AAAA");
        return std::nullopt;
    });
    EXPECT_EQ(out, R"~(<img src="a.png"><img src="data:image/png;base64,AAAA"><img src="c.png">)~");
}

TEST(HtmlRewrite, StyleSheetRewrite) {
    std::string css = "@import 'a.css';\nb{background:url(b.png)}";
    auto refs = scan_style_sheet(css).refs;
    std::string out =
        rewrite(css, refs, [](const reference&) { return std::string("n'ew (1).png"); });
    auto again = scan_style_sheet(out).refs;
    ASSERT_EQ(again.size(), 2u);
    EXPECT_EQ(again[0].url, "n'ew (1).png");
    EXPECT_EQ(again[1].url, "n'ew (1).png");
    EXPECT_TRUE(out.starts_with("@import '"));
    EXPECT_TRUE(out.ends_with(")}"));
}

}  // namespace
}  // namespace mhtml::html

namespace mhtml::html {
namespace {

std::string shadow_edited(std::string_view html) {
    return apply_edits(html, find_markup_edits(html, {.shadow_roots = true}).edits);
}

TEST(HtmlEdits, BlinkShadowRootTemplatesBecomeDeclarativeShadowRoots) {
    // What Blink writes, and what Chromium's MHTML loader does with the variants (observed in
    // Chromium 156: only "open" and "closed", exactly; shadowrootmode, when there, decides).
    struct row {
        const char* in;
        const char* out;
        std::size_t roots;
    };
    for (
        const row& r : std::initializer_list<row>{
            {R"(<div><template shadowmode="open" shadowdelegatesfocus=""><p>x</p></template></div>)",
             R"(<div><template shadowrootmode="open" shadowrootdelegatesfocus=""><p>x</p></template></div>)",
             1},
            {R"(<template shadowmode=closed>)", R"(<template shadowrootmode=closed>)", 1},
            {R"(<TEMPLATE ShadowMode='open' SHADOWDELEGATESFOCUS>)",
             R"(<TEMPLATE shadowrootmode='open' shadowrootdelegatesfocus>)", 1},
            {R"(<template shadowmode="op&#101;n">)", R"(<template shadowrootmode="op&#101;n">)", 1},
            {R"(<template shadowmode="OPEN">)", R"(<template shadowmode="OPEN">)", 0},
            {R"(<template shadowmode=" open">)", R"(<template shadowmode=" open">)", 0},
            {R"(<template shadowmode="bogus">)", R"(<template shadowmode="bogus">)", 0},
            {R"(<template shadowmode>)", R"(<template shadowmode>)", 0},
            {R"(<template shadowmode="closed" shadowrootmode="open">)",
             R"(<template shadowmode="closed" shadowrootmode="open">)", 0},
            {R"(<template shadowmode="open" shadowdelegatesfocus shadowrootdelegatesfocus>)",
             R"(<template shadowrootmode="open" shadowdelegatesfocus shadowrootdelegatesfocus>)",
             1},
            {R"(<template shadowdelegatesfocus shadowmode="open">)",
             R"(<template shadowrootdelegatesfocus shadowrootmode="open">)", 1},
            {R"(<div shadowmode="open"></div><template>)",
             R"(<div shadowmode="open"></div><template>)", 0},
            // Nested shadow roots, inside the outer template's content.
            {R"(<template shadowmode="open"><b><template shadowmode="closed"></template></b></template>)",
             R"(<template shadowrootmode="open"><b><template shadowrootmode="closed"></template></b></template>)",
             2},
            // Not markup: foreign content, script data, a comment, an attribute value.
            {R"(<svg><template shadowmode="open"></template></svg>)",
             R"(<svg><template shadowmode="open"></template></svg>)", 0},
            {R"(<script>"<template shadowmode=open>"</script><!-- <template shadowmode=open> -->)",
             R"(<script>"<template shadowmode=open>"</script><!-- <template shadowmode=open> -->)",
             0},
            {R"(<p title='<template shadowmode=open>'>)",
             R"(<p title='<template shadowmode=open>'>)", 0},
        }) {
        SCOPED_TRACE(r.in);
        EXPECT_EQ(shadow_edited(r.in), r.out);
        EXPECT_EQ(find_markup_edits(r.in, {.shadow_roots = true}).shadow_roots, r.roots);
        // Off by default.
        EXPECT_TRUE(find_markup_edits(r.in, {}).edits.empty());
    }
}

TEST(HtmlEdits, RefreshesAndShadowRootsInOnePass) {
    const std::string html =
        R"(<meta http-equiv=Refresh content="0;url=a.html"><div><template shadowmode="open">)"
        R"(<img src="i.png"></template></div>)";
    markup_edits found = find_markup_edits(html, {.shadow_roots = true, .disable_refresh = true});
    EXPECT_EQ(found.refreshes, 1u);
    EXPECT_EQ(found.shadow_roots, 1u);
    ASSERT_EQ(found.edits.size(), 2u);
    EXPECT_LT(found.edits[0].offset, found.edits[1].offset);
    // With the references rewritten in the same pass: the edits never touch a reference.
    auto refs = scan_html(html).refs;
    std::string out;
    EXPECT_EQ(rewrite_to(
                  html, refs, [](const reference& r) { return "new-" + r.url; }, found.edits,
                  [&](std::string_view piece) { out += piece; }),
              0u);
    EXPECT_EQ(out, R"(<meta data-equiv=Refresh content="0;url=new-a.html"><div>)"
                   R"(<template shadowrootmode="open"><img src="new-i.png"></template></div>)");
}

TEST(HtmlEdits, InsertionsAndOverlapsInRewriteTo) {
    const std::string html = R"(<img src="a.png"><p>)";
    auto refs = scan_html(html).refs;  // "a.png" at 10..15
    std::vector<edit> edits = {{0, 0, "<!--0-->"},
                               {10, 0, "X"},     // an insertion at a reference: before it
                               {11, 2, "bad"},   // inside the reference: not applied
                               {17, 3, "<q>"},   // "<p>" -> "<q>"
                               {18, 1, "late"},  // overlaps the previous edit: not applied
                               {html.size(), 0, "!"}};
    std::string out;
    EXPECT_EQ(rewrite_to(
                  html, refs, [](const reference&) { return std::string("b.png"); }, edits,
                  [&](std::string_view piece) { out += piece; }),
              2u);
    EXPECT_EQ(out, R"(<!--0--><img src="Xb.png"><q>!)");
    EXPECT_EQ(apply_edits("abc", std::vector<edit>{{1, 1, "BB"}, {3, 0, "d"}}), "aBBcd");
}

}  // namespace
}  // namespace mhtml::html
