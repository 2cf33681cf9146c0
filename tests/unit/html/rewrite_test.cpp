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
