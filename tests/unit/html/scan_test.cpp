// The HTML scanner: every URI-bearing place of the issue, and the WHATWG tokenizer's tricky
// cases that decide what is an attribute. Each case writes its input with the expected raw
// values between « and »; the harness removes the marks, so the expected offsets and
// lengths come from the marks, not from the scanner.
#include "mhtml/html/scan.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mhtml::html {
namespace {

struct expected_ref {
    ref_kind kind;
    std::string element;
    std::string attribute;
    std::string url;  // decoded value
};

struct scan_case {
    const char* name;
    std::string marked;  // input with «raw value» marks
    std::vector<expected_ref> refs;
    bool style_sheet = false;
};

struct unmarked {
    std::string text;
    std::vector<std::pair<std::size_t, std::size_t>> ranges;  // offset, length
};

unmarked unmark(const std::string& marked) {
    static const std::string open = "\xC2\xAB", close = "\xC2\xBB";  // « »
    unmarked u;
    std::size_t start = 0;
    for (std::size_t i = 0; i < marked.size();) {
        if (marked.compare(i, 2, open) == 0) {
            start = u.text.size();
            i += 2;
        } else if (marked.compare(i, 2, close) == 0) {
            u.ranges.emplace_back(start, u.text.size() - start);
            i += 2;
        } else {
            u.text += marked[i++];
        }
    }
    return u;
}

constexpr auto R = ref_kind::resource;
constexpr auto N = ref_kind::navigation;
constexpr auto F = ref_kind::form_action;
constexpr auto C = ref_kind::citation;
constexpr auto B = ref_kind::base;

const std::vector<scan_case>& cases() {
    static const std::vector<scan_case> all = {
        // --- every URI-bearing place (issue item 2) ---
        {"a_href", R"~(<a href="«p.html»">x</a>)~", {{N, "a", "href", "p.html"}}},
        {"area_href",
         R"~(<map><area shape=rect href=«m.html»></map>)~",
         {{N, "area", "href", "m.html"}}},
        {"img_src", R"~(<img src='«i.png»'>)~", {{R, "img", "src", "i.png"}}},
        {"img_srcset",
         R"~(<img srcset="«a.png» 1x, «b.png» 2x">)~",
         {{R, "img", "srcset", "a.png"}, {R, "img", "srcset", "b.png"}}},
        {"img_lowsrc",
         R"~(<img lowsrc="«low.gif»" src="«hi.jpg»">)~",
         {{R, "img", "lowsrc", "low.gif"}, {R, "img", "src", "hi.jpg"}}},
        {"img_longdesc", R"~(<img longdesc="«d.html»">)~", {{N, "img", "longdesc", "d.html"}}},
        {"img_usemap", R"~(<img usemap="«#m»">)~", {{R, "img", "usemap", "#m"}}},
        {"picture_source",
         R"~(<picture><source srcset="«w.webp»" type="image/webp"><img src="«f.jpg»"></picture>)~",
         {{R, "source", "srcset", "w.webp"}, {R, "img", "src", "f.jpg"}}},
        {"source_src",
         R"~(<video><source src="«v.mp4»"></video>)~",
         {{R, "source", "src", "v.mp4"}}},
        {"link_stylesheet",
         R"~(<link rel=stylesheet href="«s.css»">)~",
         {{R, "link", "href", "s.css"}}},
        {"link_icon_rel_after_href",
         R"~(<link href="«f.ico»" rel="shortcut icon">)~",
         {{R, "link", "href", "f.ico"}}},
        {"link_preload",
         R"~(<link rel="preload" as="font" href="«f.woff2»">)~",
         {{R, "link", "href", "f.woff2"}}},
        {"link_alternate_is_navigation",
         R"~(<link rel="alternate" href="«feed.xml»">)~",
         {{N, "link", "href", "feed.xml"}}},
        {"link_uppercase_rel",
         R"~(<LINK REL="StyleSheet" HREF="«S.CSS»">)~",
         {{R, "link", "href", "S.CSS"}}},
        {"script_src", R"~(<script src="«app.js»"></script>)~", {{R, "script", "src", "app.js"}}},
        {"iframe_src", R"~(<iframe src="«f.html»"></iframe>)~", {{R, "iframe", "src", "f.html"}}},
        {"frame_src",
         R"~(<frameset><frame src="«top.html»"><frame src=«b.html»></frameset>)~",
         {{R, "frame", "src", "top.html"}, {R, "frame", "src", "b.html"}}},
        {"object_attributes",
         R"~(<object data="«o.swf»" codebase="«http://c.example/»" classid="«clsid:D27CDB6E»"></object>)~",
         {{R, "object", "data", "o.swf"},
          {R, "object", "codebase", "http://c.example/"},
          {R, "object", "classid", "clsid:D27CDB6E"}}},
        {"object_archive_space_list",
         R"~(<object archive="«a.jar» «b.jar»"></object>)~",
         {{R, "object", "archive", "a.jar"}, {R, "object", "archive", "b.jar"}}},
        {"embed_src", R"~(<embed src="«e.svg»">)~", {{R, "embed", "src", "e.svg"}}},
        {"applet",
         R"~(<applet code="«A.class»" codebase="«cls/»" archive="«x.jar», «y.jar»"></applet>)~",
         {{R, "applet", "code", "A.class"},
          {R, "applet", "codebase", "cls/"},
          {R, "applet", "archive", "x.jar"},
          {R, "applet", "archive", "y.jar"}}},
        {"input_image",
         R"~(<input type="IMAGE" src="«go.png»">)~",
         {{R, "input", "src", "go.png"}}},
        {"input_text_src_ignored", R"~(<input type="text" src="nothing.png">)~", {}},
        {"input_formaction",
         R"~(<input type=submit formaction="«/send»">)~",
         {{F, "input", "formaction", "/send"}}},
        {"backgrounds",
         R"~(<body background="«b.gif»"><table background="«t.gif»"><tr><td background="«d.gif»"><th background="«h.gif»">)~",
         {{R, "body", "background", "b.gif"},
          {R, "table", "background", "t.gif"},
          {R, "td", "background", "d.gif"},
          {R, "th", "background", "h.gif"}}},
        {"video_poster_src",
         R"~(<video poster="«p.jpg»" src="«m.webm»"></video>)~",
         {{R, "video", "poster", "p.jpg"}, {R, "video", "src", "m.webm"}}},
        {"audio_track",
         R"~(<audio src="«a.ogg»"><track src="«sub.vtt»"></audio>)~",
         {{R, "audio", "src", "a.ogg"}, {R, "track", "src", "sub.vtt"}}},
        {"cites",
         R"~(<blockquote cite="«c1»"><q cite="«c2»"></q></blockquote><del cite="«c3»"></del><ins cite="«c4»"></ins>)~",
         {{C, "blockquote", "cite", "c1"},
          {C, "q", "cite", "c2"},
          {C, "del", "cite", "c3"},
          {C, "ins", "cite", "c4"}}},
        {"form_action",
         R"~(<form action="«/search»" method=get>)~",
         {{F, "form", "action", "/search"}}},
        {"button_formaction",
         R"~(<button formaction="«/b»">go</button>)~",
         {{F, "button", "formaction", "/b"}}},
        {"meta_refresh",
         R"~(<meta http-equiv="refresh" content="5; url=«http://e.example/next»">)~",
         {{N, "meta", "content", "http://e.example/next"}}},
        {"meta_refresh_quoted_url",
         R"~(<meta http-equiv=Refresh content="0;URL='«n.html»'">)~",
         {{N, "meta", "content", "n.html"}}},
        {"meta_refresh_bare_url",
         R"~(<meta http-equiv="refresh" content="3,«later.html»">)~",
         {{N, "meta", "content", "later.html"}}},
        {"meta_refresh_no_url", R"~(<meta http-equiv="refresh" content="30">)~", {}},
        {"meta_other_content_ignored", R"~(<meta name="og:image" content="x.png">)~", {}},
        {"svg_image_href",
         R"~(<svg><image href="«i.svg»"/><image xlink:href="«j.png»"/></svg>)~",
         {{R, "image", "href", "i.svg"}, {R, "image", "xlink:href", "j.png"}}},
        {"svg_use_and_a",
         R"~(<svg><use xlink:href="«sprite.svg#icon»"></use><a href="«go.html»"><text>t</text></a></svg>)~",
         {{R, "use", "xlink:href", "sprite.svg#icon"}, {N, "a", "href", "go.html"}}},
        {"html_image_is_img",
         R"~(<image src="«legacy.png»">)~",
         {{R, "image", "src", "legacy.png"}}},
        {"style_attribute",
         R"~(<div style="background: url(«bg.png»)">)~",
         {{R, "div", "style", "bg.png"}}},
        {"style_attribute_quoted_url",
         R"~(<p style='background-image:url("«q.png»")'>)~",
         {{R, "p", "style", "q.png"}}},
        {"style_element",
         "<style>body{background:url(«a.png»)} @import \"«b.css»\";</style>",
         {{R, "style", "", "a.png"}, {R, "style", "", "b.css"}}},
        {"base_first_counts",
         R"~(<base href="«http://a.example/»"><base href="«http://b.example/»">)~",
         {{B, "base", "href", "http://a.example/"}, {B, "base", "href", "http://b.example/"}}},
        // --- attribute syntax ---
        {"unquoted_value", R"~(<img src=«i.png» alt=x>)~", {{R, "img", "src", "i.png"}}},
        {"unquoted_value_then_gt", R"~(<img src=«i.png»>)~", {{R, "img", "src", "i.png"}}},
        {"spaces_around_equals", "<img src \n=\t '«s.png»'>", {{R, "img", "src", "s.png"}}},
        {"value_trimmed", R"~(<a href="  «p.html»  ">)~", {{N, "a", "href", "p.html"}}},
        {"entity_amp_in_url", R"~(<a href="«x?a=1&amp;b=2»">)~", {{N, "a", "href", "x?a=1&b=2"}}},
        {"entity_numeric",
         R"~(<img src="«a&#47;b&#x2F;c.png»">)~",
         {{R, "img", "src", "a/b/c.png"}}},
        {"legacy_entity_before_equals_not_decoded",
         R"~(<a href="«?x=1&copy=2»">)~",
         {{N, "a", "href", "?x=1&copy=2"}}},
        {"legacy_entity_without_semicolon_decoded",
         R"~(<a href="«?&copy 2»">)~",
         {{N, "a", "href", "?\xC2\xA9 2"}}},
        {"entity_quot_in_value",
         R"~(<img src="«a&quot;b.png»">)~",
         {{R, "img", "src", "a\"b.png"}}},
        {"uppercase_tag_and_attribute", R"~(<IMG SRC="«U.PNG»">)~", {{R, "img", "src", "U.PNG"}}},
        {"duplicate_attribute_first_wins",
         R"~(<img src="«first.png»" src="second.png">)~",
         {{R, "img", "src", "first.png"}}},
        {"empty_value", R"~(<a href="«»">)~", {{N, "a", "href", ""}}},
        {"missing_value_at_gt", R"~(<a href=«»>)~", {{N, "a", "href", ""}}},
        {"attribute_without_value_no_ref", R"~(<a href>x</a>)~", {}},
        {"self_closing", R"~(<img src="«i.png»"/>)~", {{R, "img", "src", "i.png"}}},
        {"slash_between_attributes",
         R"~(<img/src="«i.png»"/alt=x>)~",
         {{R, "img", "src", "i.png"}}},
        {"gt_inside_quoted_value",
         R"~(<img alt="a>b" src="«i.png»">)~",
         {{R, "img", "src", "i.png"}}},
        {"quote_inside_unquoted_value",
         R"~(<img src=«a"b.png»>)~",
         {{R, "img", "src", "a\"b.png"}}},
        {"srcset_commas_in_url",
         R"~(<img srcset="«data:image/png;base64,AAA=» 1x, «b.png» 2x">)~",
         {{R, "img", "srcset", "data:image/png;base64,AAA="}, {R, "img", "srcset", "b.png"}}},
        {"srcset_w_descriptors",
         R"~(<img srcset=" «s.jpg» 480w,«m.jpg» 800w ,  «l.jpg»  1200w">)~",
         {{R, "img", "srcset", "s.jpg"},
          {R, "img", "srcset", "m.jpg"},
          {R, "img", "srcset", "l.jpg"}}},
        {"srcset_trailing_comma_no_descriptor",
         R"~(<img srcset="«a.png,b.png»">)~",
         {{R, "img", "srcset", "a.png,b.png"}}},
        {"srcset_trailing_commas_stripped",
         R"~(<img srcset="«a.png»,, «b.png» 2x">)~",
         {{R, "img", "srcset", "a.png"}, {R, "img", "srcset", "b.png"}}},
        {"srcset_descriptor_with_parens_comma",
         R"~(<img srcset="«a.png» (1, 2), «b.png»">)~",
         {{R, "img", "srcset", "a.png"}, {R, "img", "srcset", "b.png"}}},
        {"srcset_entity",
         R"~(<img srcset="«a.png?x=1&amp;y=2» 1x">)~",
         {{R, "img", "srcset", "a.png?x=1&y=2"}}},
        {"style_attr_with_entities",
         R"~(<div style="background:url(&quot;«a b.png»&quot;)">)~",
         {{R, "div", "style", "a b.png"}}},
        // --- what is not markup ---
        {"comment_hides",
         R"~(<!-- <img src="no.png"> --><img src="«yes.png»">)~",
         {{R, "img", "src", "yes.png"}}},
        {"abrupt_empty_comment", R"~(<!--><img src="«a.png»">-->)~", {{R, "img", "src", "a.png"}}},
        {"abrupt_dash_comment", R"~(<!---><img src="«a.png»">-->)~", {{R, "img", "src", "a.png"}}},
        {"comment_bang_end", R"~(<!-- x --!><img src="«a.png»">)~", {{R, "img", "src", "a.png"}}},
        {"unterminated_comment",
         R"~(<img src="«a.png»"><!-- <img src="b.png">)~",
         {{R, "img", "src", "a.png"}}},
        {"doctype_and_bogus",
         R"~(<!DOCTYPE html><?xml x?><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"bogus_comment_end_tag",
         R"~(</3 <img src="x.png">><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"cdata_in_html_is_bogus_comment",
         R"~(<![CDATA[<img src="x.png">]]><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"cdata_in_svg",
         R"~(<svg><![CDATA[<image href="x.png"/>]]><image href="«y.png»"/></svg>)~",
         {{R, "image", "href", "y.png"}}},
        {"script_hides_markup",
         R"~(<script>var s = '<img src="x.png">';</script><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"script_escaped_end_tag",
         R"~(<script><!-- document.write("</script>") --></script><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"script_double_escaped",
         R"~(<script><!--<script></script><img src="x.png"></script>--></script><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"script_end_tag_case",
         R"~(<SCRIPT>x</ScRiPt ><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"script_end_tag_needs_delimiter",
         R"~(<script></scripts><img src="x.png"></script><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"textarea_is_rcdata",
         R"~(<textarea><img src="x.png"></textarea><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"title_is_rcdata",
         R"~(<title><img src="x.png"></title><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"xmp_noembed_noframes_iframe_raw",
         R"~(<xmp><img src=1></xmp><noembed><img src=2></noembed><noframes><img src=3></noframes><iframe><img src=4></iframe><img src="«a.png»">)~",
         {{R, "img", "src", "a.png"}}},
        {"plaintext_to_end",
         R"~(<img src="«a.png»"><plaintext><img src="x.png"></plaintext><img src="y.png">)~",
         {{R, "img", "src", "a.png"}}},
        {"style_text_not_markup",
         "<style>/* <img src=\"x.png\"> */ a{background:url(«b.png»)}</style>",
         {{R, "style", "", "b.png"}}},
        {"svg_style_is_css",
         "<svg><style>rect{fill:url(«p.svg#g»)}</style></svg>",
         {{R, "style", "", "p.svg#g"}}},
        {"eof_in_tag_drops_it",
         R"~(<img src="«a.png»"><img src="b.png")~",
         {{R, "img", "src", "a.png"}}},
        {"eof_in_quoted_value",
         R"~(<img src="«a.png»"><img src="b.png>)~",
         {{R, "img", "src", "a.png"}}},
        {"lt_not_tag", R"~(a < b <3 <img src="«a.png»">)~", {{R, "img", "src", "a.png"}}},
        {"end_tag_attributes_ignored",
         R"~(</a href="x.html"><a href="«y.html»">)~",
         {{N, "a", "href", "y.html"}}},
        {"noscript_is_scanned",
         R"~(<noscript><img src="«ns.png»"></noscript>)~",
         {{R, "img", "src", "ns.png"}}},
        {"unknown_element_style",
         R"~(<my-el style="background:url('«x.png»')" src="not-a-uri">)~",
         {{R, "my-el", "style", "x.png"}}},
        {"crlf_and_8bit",
         "<p>caf\xE9\r\n<img\r\nsrc=\"«caf\xE9.png»\">",
         {{R, "img", "src", "caf\xE9.png"}}},
        {"shift_jis_bytes",
         "<p>\x83\x5C\x3C</p><img src=\"«\x95\x5C.png»\">",
         {{R, "img", "src", "\x95\x5C.png"}}},
        {"style_attr_before_src_order",
         R"~(<img style="list-style:url(«m.png»)" src="«i.png»">)~",
         {{R, "img", "style", "m.png"}, {R, "img", "src", "i.png"}}},
        // --- standalone style sheet (item 3) ---
        {"sheet_urls_and_imports",
         "@import url(«a.css») screen;\n@import '«b.css»';\nh1{background:url( «c.png» "
         ")}\n.x{background:image-set(\"«d.png»\" 1x, url(«e.png») 2x)}",
         {{R, "", "", "a.css"},
          {R, "", "", "b.css"},
          {R, "", "", "c.png"},
          {R, "", "", "d.png"},
          {R, "", "", "e.png"}},
         true},
    };
    return all;
}

TEST(HtmlScan, EveryPlaceAndTokenizerCase) {
    std::size_t checked = 0;
    for (const auto& c : cases()) {
        SCOPED_TRACE(c.name);
        unmarked u = unmark(c.marked);
        ASSERT_EQ(u.ranges.size(), c.refs.size()) << "test case marks and expectations differ";
        scan_result got = c.style_sheet ? scan_style_sheet(u.text) : scan_html(u.text);
        ASSERT_EQ(got.refs.size(), c.refs.size());
        for (std::size_t i = 0; i < c.refs.size(); ++i) {
            SCOPED_TRACE(i);
            const reference& r = got.refs[i];
            EXPECT_EQ(r.kind, c.refs[i].kind) << kind_name(r.kind);
            EXPECT_EQ(r.element, c.refs[i].element);
            EXPECT_EQ(r.attribute, c.refs[i].attribute);
            EXPECT_EQ(r.offset, u.ranges[i].first);
            EXPECT_EQ(r.length, u.ranges[i].second);
            EXPECT_EQ(r.url, c.refs[i].url);
        }
        ++checked;
    }
    EXPECT_GE(checked, 60u);
}

TEST(HtmlScan, FirstBaseIsTheOneThatCounts) {
    auto r = scan_html(
        R"~(<a href="x"><base href="http://a.example/"><base href="http://b.example/">)~");
    ASSERT_TRUE(r.base.has_value());
    EXPECT_EQ(r.refs[*r.base].url, "http://a.example/");
    EXPECT_FALSE(scan_html("<a href=x>").base.has_value());
}

TEST(HtmlScan, MetaCharsetIsReported) {
    EXPECT_EQ(scan_html(R"~(<meta charset="gbk">)~").meta_charset, "gbk");
    EXPECT_EQ(
        scan_html(R"~(<meta http-equiv=Content-Type content="text/html; charset=windows-1252">)~")
            .meta_charset,
        "windows-1252");
}

TEST(HtmlScan, SyntaxAndQuotesAreRecorded) {
    auto r = scan_html(
        R"~(<img src='a' srcset="b 1x" style="background:url('c')"><style>x{background:url(d)}</style>)~");
    ASSERT_EQ(r.refs.size(), 4u);
    EXPECT_EQ(r.refs[0].syntax, value_syntax::attribute);
    EXPECT_EQ(r.refs[0].attribute_quote, '\'');
    EXPECT_EQ(r.refs[1].syntax, value_syntax::srcset);
    EXPECT_EQ(r.refs[2].syntax, value_syntax::css_url_quoted);
    EXPECT_EQ(r.refs[2].css_quote, '\'');
    EXPECT_TRUE(r.refs[2].in_attribute);
    EXPECT_EQ(r.refs[3].syntax, value_syntax::css_url_unquoted);
    EXPECT_TRUE(r.refs[3].raw_text);
    EXPECT_FALSE(r.refs[3].in_attribute);
}

TEST(HtmlScan, StyleSheetLinksAndImportsAreMarked) {
    // What names a style sheet: a <link> whose rel has "stylesheet" (any case, among other
    // keywords), and an @import, in a <style>, a style attribute or a style sheet.
    auto html = scan_html(
        "<link rel=\"Alternate StyleSheet\" href=a.css><link rel=icon href=b.ico>"
        "<link rel=&#115;tylesheet href=c.css><link href=d.css>"
        "<style>@import \"e.css\"; @import url(f.css); p { background: url(g.png) }</style>"
        "<p style=\"background: url(h.png)\">");
    std::vector<std::pair<std::string, std::pair<bool, bool>>> got;
    for (const auto& r : html.refs) got.push_back({r.url, {r.stylesheet_link, r.css_import}});
    EXPECT_EQ(got, (std::vector<std::pair<std::string, std::pair<bool, bool>>>{
                       {"a.css", {true, false}},
                       {"b.ico", {false, false}},
                       {"c.css", {true, false}},
                       {"d.css", {false, false}},
                       {"e.css", {false, true}},
                       {"f.css", {false, true}},
                       {"g.png", {false, false}},
                       {"h.png", {false, false}}}));
    auto css = scan_style_sheet("@import 'x.css' screen; @import url(\"y.css\"); a{b:url(z.png)}");
    ASSERT_EQ(css.refs.size(), 3u);
    EXPECT_TRUE(css.refs[0].css_import);
    EXPECT_TRUE(css.refs[1].css_import);
    EXPECT_FALSE(css.refs[2].css_import);
}

TEST(HtmlScan, HostileInputsFinish) {
    // Linear time on inputs built to make a naive tokenizer quadratic.
    std::string many_attributes = "<img";
    for (int i = 0; i < 200000; ++i) many_attributes += " a" + std::to_string(i) + "=1";
    many_attributes += " src=x>";
    auto r = scan_html(many_attributes);
    ASSERT_EQ(r.refs.size(), 1u);
    EXPECT_EQ(r.refs[0].url, "x");
    std::string dashes = "<!--" + std::string(5'000'000, '-');
    EXPECT_TRUE(scan_html(dashes).refs.empty());
    std::string scripts = "<script><!--";
    for (int i = 0; i < 200000; ++i) scripts += "<script>-</script>";
    EXPECT_TRUE(scan_html(scripts).refs.empty());
    std::string lts(5'000'000, '<');
    EXPECT_TRUE(scan_html(lts).refs.empty());
    std::string amps = "<a href=\"" + std::string(2'000'000, '&') + "\">";
    EXPECT_EQ(scan_html(amps).refs.at(0).url.size(), 2'000'000u);
}

}  // namespace
}  // namespace mhtml::html
