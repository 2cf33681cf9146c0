// The one HTML tokenizer (html/tokenizer.hpp): what is a tag, an attribute, a comment, text.
#include "mhtml/html/tokenizer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace mhtml::html {
namespace {

// Each token as "type:octets" ("start:name" for tags, with "/" when self-closing).
std::vector<std::string> tokens(std::string_view in, bool xml = false) {
    tokenizer t(in, xml);
    token k;
    std::vector<std::string> out;
    while (t.next(k)) {
        std::string s(type_name(k.type));
        s += ':';
        if (k.type == token_type::start_tag || k.type == token_type::end_tag) {
            s += k.name;
            if (k.self_closing) s += '/';
            if (k.foreign) s += " (foreign)";
        } else {
            s += in.substr(k.begin, k.end - k.begin);
        }
        out.push_back(std::move(s));
    }
    return out;
}

using v = std::vector<std::string>;

TEST(HtmlTokenizer, CommentsEndWhereTheStandardSays) {
    EXPECT_EQ(tokens("<!--><p>"), (v{"comment:<!-->", "start_tag:p"}));
    EXPECT_EQ(tokens("<!---><p>"), (v{"comment:<!--->", "start_tag:p"}));
    EXPECT_EQ(tokens("<!-- a --!><p>"), (v{"comment:<!-- a --!>", "start_tag:p"}));
    EXPECT_EQ(tokens("<!-- a -- > --><p>"), (v{"comment:<!-- a -- > -->", "start_tag:p"}));
    EXPECT_EQ(tokens("<!-- open <p>"), (v{"comment:<!-- open <p>"}));
    EXPECT_EQ(tokens("<!-x><p>"), (v{"comment:<!-x>", "start_tag:p"}));  // bogus
    EXPECT_EQ(tokens("<?php x ?><p>"), (v{"comment:<?php x ?>", "start_tag:p"}));
    EXPECT_EQ(tokens("</ x><p>"), (v{"comment:</ x>", "start_tag:p"}));
    EXPECT_EQ(tokens("a</>b"), (v{"text:a", "text:b"}));  // "</>" is nothing at all
}

TEST(HtmlTokenizer, DoctypeAndText) {
    EXPECT_EQ(tokens("\xEF\xBB\xBF<!doctype html>\n<p>x<b>"),
              (v{"doctype:<!doctype html>", "text:\n", "start_tag:p", "text:x", "start_tag:b"}));
    // A '<' that opens nothing is text, and joins the text around it.
    EXPECT_EQ(tokens("a < b <3 <"), (v{"text:a < b <3 <"}));
    EXPECT_EQ(tokens("x</"), (v{"text:x</"}));
}

TEST(HtmlTokenizer, TagsAndAttributes) {
    tokenizer t(R"(<A HREF="x>y" b='1' c=2 d e=f/ g>)");
    token k;
    ASSERT_TRUE(t.next(k));
    EXPECT_EQ(k.name, "a");
    ASSERT_EQ(k.attributes.size(), 6u);
    EXPECT_EQ(t.value(*k.attribute("href")), "x>y");
    EXPECT_EQ(k.attribute("href")->quote, '"');
    EXPECT_EQ(t.value(*k.attribute("c")), "2");
    EXPECT_FALSE(k.attribute("d")->has_value);
    EXPECT_EQ(t.value(*k.attribute("e")), "f/");
    EXPECT_FALSE(t.next(k));
    // The first of repeated names counts, with few or many attributes.
    EXPECT_EQ(tokens("<p a=1 A=2>").size(), 1u);
    tokenizer r("<p a=1 A=2 b>");
    ASSERT_TRUE(r.next(k));
    ASSERT_EQ(k.attributes.size(), 2u);
    EXPECT_EQ(r.value(k.attributes[0]), "1");
    std::string many = "<p";
    for (int i = 0; i < 100; ++i) many += " a" + std::to_string(i % 40) + "=" + std::to_string(i);
    many += ">";
    tokenizer m(many);
    ASSERT_TRUE(m.next(k));
    ASSERT_EQ(k.attributes.size(), 40u);
    EXPECT_EQ(m.value(*k.attribute("a39")), "39");  // the first a39, not the second (79)
    EXPECT_EQ(k.attributes[0].name, "a0");          // still in document order
    // Self-closing, and a tag cut by the end of the input (no token).
    EXPECT_EQ(tokens("<br/><img src=x />"), (v{"start_tag:br/", "start_tag:img/"}));
    EXPECT_EQ(tokens("<p>x<img src='a"), (v{"start_tag:p", "text:x"}));
}

TEST(HtmlTokenizer, RawTextElements) {
    EXPECT_EQ(tokens("<script>a<b>'</script>'<!--</script>x"),
              (v{"start_tag:script", "raw_text:a<b>'", "end_tag:script", "text:'",
                 "comment:<!--</script>x"}));
    // Script data escapes: "<!--" then "<script" hides a "</script>".
    EXPECT_EQ(tokens("<script><!--<script></script>--></script><p>"),
              (v{"start_tag:script", "raw_text:<!--<script></script>-->", "end_tag:script",
                 "start_tag:p"}));
    EXPECT_EQ(tokens("<title><meta></title><textarea><p></TEXTAREA><style>a{}</style x>"),
              (v{"start_tag:title", "raw_text:<meta>", "end_tag:title", "start_tag:textarea",
                 "raw_text:<p>", "end_tag:textarea", "start_tag:style", "raw_text:a{}",
                 "end_tag:style"}));
    EXPECT_EQ(tokens("<plaintext></plaintext><p>"),
              (v{"start_tag:plaintext", "raw_text:</plaintext><p>"}));
    EXPECT_EQ(tokens("<script></script>"), (v{"start_tag:script", "end_tag:script"}));
    // <noscript> is markup (scripting off).
    EXPECT_EQ(tokens("<noscript><p></noscript>"),
              (v{"start_tag:noscript", "start_tag:p", "end_tag:noscript"}));
}

TEST(HtmlTokenizer, ForeignContent) {
    EXPECT_EQ(tokens("<svg><![CDATA[<p>]]><script>x</script></svg><script>y</script>"),
              (v{"start_tag:svg", "cdata:<![CDATA[<p>]]>", "start_tag:script (foreign)",
                 "text:x", "end_tag:script (foreign)", "end_tag:svg (foreign)",
                 "start_tag:script", "raw_text:y", "end_tag:script"}));
    // Outside foreign content CDATA is a bogus comment.
    EXPECT_EQ(tokens("<![CDATA[x]]>"), (v{"comment:<![CDATA[x]]>"}));
    // In SVG a <style> holds markup, not raw text.
    EXPECT_EQ(tokens("<svg><style>a<g/><![CDATA[b]]></style></svg>"),
              (v{"start_tag:svg", "start_tag:style (foreign)", "text:a", "start_tag:g/ (foreign)",
                 "cdata:<![CDATA[b]]>", "end_tag:style (foreign)", "end_tag:svg (foreign)"}));
}

TEST(HtmlTokenizer, ForeignContentIsLeftAsTheTreeBuilderLeavesIt) {
    // A breakout start tag ends foreign content: the <script> after it is an HTML one.
    EXPECT_EQ(tokens("<svg><p><script>x</script>"),
              (v{"start_tag:svg", "start_tag:p", "start_tag:script", "raw_text:x",
                 "end_tag:script"}));
    EXPECT_EQ(tokens("<svg><font color=red><style>x</style>"),
              (v{"start_tag:svg", "start_tag:font", "start_tag:style", "raw_text:x",
                 "end_tag:style"}));
    EXPECT_EQ(tokens("<svg><font><b>"),
              (v{"start_tag:svg", "start_tag:font (foreign)", "start_tag:b"}));
    EXPECT_EQ(tokens("<math></p><title>x</title>"),
              (v{"start_tag:math", "end_tag:p", "start_tag:title", "raw_text:x",
                 "end_tag:title"}));
    // HTML integration points: HTML inside, foreign again after their end tag.
    EXPECT_EQ(tokens("<svg><foreignObject><script>x</script></foreignObject><script>y</script>"),
              (v{"start_tag:svg", "start_tag:foreignobject (foreign)", "start_tag:script",
                 "raw_text:x", "end_tag:script", "end_tag:foreignobject",
                 "start_tag:script (foreign)", "text:y", "end_tag:script (foreign)"}));
    EXPECT_EQ(tokens("<math><mi><svg><desc><p></desc></svg></mi>"),
              (v{"start_tag:math", "start_tag:mi (foreign)", "start_tag:svg",
                 "start_tag:desc (foreign)", "start_tag:p", "end_tag:desc",
                 "end_tag:svg (foreign)", "end_tag:mi"}));
    EXPECT_EQ(tokens("<math><annotation-xml encoding=text/html><title>x</title>"),
              (v{"start_tag:math", "start_tag:annotation-xml (foreign)", "start_tag:title",
                 "raw_text:x", "end_tag:title"}));
}

TEST(HtmlTokenizer, XmlDocuments) {
    EXPECT_EQ(tokens("<?xml version='1.0' x='>'?><!DOCTYPE svg [<!ENTITY e \"<svg>\">]>"
                     "<svg/><!-- a --!> b -->",
                     true),
              (v{"comment:<?xml version='1.0' x='>'?>",
                 "doctype:<!DOCTYPE svg [<!ENTITY e \"<svg>\">]>", "start_tag:svg/ (foreign)",
                 "comment:<!-- a --!> b -->"}));
}

}  // namespace
}  // namespace mhtml::html
