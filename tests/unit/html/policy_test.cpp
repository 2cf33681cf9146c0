// Where a document's declarations and policy go (html/policy.hpp), MHT-12.5.
#include "mhtml/html/policy.hpp"

#include "mhtml/html/scan.hpp"
#include "support/policy_check.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace mhtml::html {
namespace {

const std::string policy = "script-src 'none'; object-src data:";

// The HTML document with its policy, "|" marking where it went.
std::string marked(std::string_view html) {
    return with_html_declarations(html, "|");
}

TEST(HtmlPolicy, MHT_12_5_BeforeEverythingButCommentsWhiteSpaceAndTheDoctype) {
    EXPECT_EQ(marked(""), "|");
    EXPECT_EQ(marked("<p>x"), "|<p>x");
    EXPECT_EQ(marked("\xEF\xBB\xBF<!DOCTYPE html>\n<html>"),
              "\xEF\xBB\xBF<!DOCTYPE html>\n|<html>");
    EXPECT_EQ(marked("<!-- a --> <!DOCTYPE html><!-- b --><script>"),
              "<!-- a --> <!DOCTYPE html><!-- b -->|<script>");
    // The comment skipper of the old view layer did not know these end at once.
    EXPECT_EQ(marked("<!--><script>x</script><!-- -->"), "<!-->|<script>x</script><!-- -->");
    EXPECT_EQ(marked("<!---><script>x</script>-->"), "<!--->|<script>x</script>-->");
    EXPECT_EQ(marked("<!-- x --!><script>x</script>-->"), "<!-- x --!>|<script>x</script>-->");
    // Text, a second DOCTYPE, a tag: the first of them.
    EXPECT_EQ(marked("text <b>"), "|text <b>");
    EXPECT_EQ(marked("<!DOCTYPE a><!DOCTYPE b>"), "<!DOCTYPE a>|<!DOCTYPE b>");
    EXPECT_EQ(marked("<?xml version='1.0'?><svg onload=x>"),
              "<?xml version='1.0'?>|<svg onload=x>");
    EXPECT_EQ(marked("\t\n<html onload=x>"), "\t\n|<html onload=x>");
    // A comment or DOCTYPE to the end of the input holds everything after it: before it
    // (found by fuzz_view: "<!DOCTYPE" mutated into "<!--CTYPE").
    EXPECT_EQ(marked("<!-- <script>x</script>"), "|<!-- <script>x</script>");
    EXPECT_EQ(marked("<!-- a --><!--CTYPE html><p>"), "<!-- a -->|<!--CTYPE html><p>");
    EXPECT_EQ(marked("<!DOCTYPE html"), "|<!DOCTYPE html");
    EXPECT_EQ(marked("<!---->"), "<!---->|");
}

TEST(HtmlPolicy, MHT_12_5_XmlDocumentsGetAnXhtmlHeadAfterTheRoot) {
    const std::string meta = policy_meta(policy, true);
    EXPECT_EQ(meta,
              "<html:head xmlns:html=\"http://www.w3.org/1999/xhtml\"><html:meta "
              "http-equiv=\"Content-Security-Policy\" content=\"" +
                  policy + "\"/></html:head>");
    EXPECT_EQ(with_xml_declarations("<?xml version='1.0'?>\n<!DOCTYPE svg [<!ENTITY a '>'>]>"
                                    "<svg onload='x'><script>y</script></svg>",
                                    "|"),
              "<?xml version='1.0'?>\n<!DOCTYPE svg [<!ENTITY a '>'>]><svg onload='x'>|"
              "<script>y</script></svg>");
    EXPECT_EQ(with_xml_declarations("<svg:svg xmlns:svg='x' onload='y'/>", "|"),
              "<svg:svg xmlns:svg='x' onload='y'>|</svg:svg>");
    // No root found: the declarations go first, so an XML parser stops before the rest.
    EXPECT_EQ(with_xml_declarations("no root here", "|"), "|no root here");
    EXPECT_EQ(with_xml_declarations("<?xml version='1.0'?><!DOCTYPE x [<!-- ' -->", "|"),
              "|<?xml version='1.0'?><!DOCTYPE x [<!-- ' -->");
    auto root = find_xml_root("<!-- <a> --><b x='>'>");
    ASSERT_TRUE(root.found);
    EXPECT_EQ(root.name, "b");
    EXPECT_EQ(root.begin, 12u);
    EXPECT_FALSE(root.self_closing);
    const std::string svg = with_xml_declarations("<svg><script>x</script></svg>", meta);
    EXPECT_EQ(test::policy_first_violation(svg, true), "");
    // Found by fuzz_html: a root named "style" (an XML element's content is markup, not the
    // raw text an HTML <style> has).
    EXPECT_EQ(test::policy_first_violation(with_xml_declarations("x<style>'9s</svg>", meta), true),
              "");
}

TEST(HtmlPolicy, TheCheckSeesWhatComesBefore) {
    const std::string meta = policy_meta(policy, false);
    EXPECT_EQ(test::policy_first_violation("<!DOCTYPE html><meta charset=utf-8>" + meta, false),
              "");
    EXPECT_EQ(test::policy_first_violation("<script>x</script>" + meta, false),
              "start_tag before the policy: <script>");
    EXPECT_EQ(test::policy_first_violation("<p>" + meta, false),
              "start_tag before the policy: <p>");
    EXPECT_EQ(test::policy_first_violation("no policy", false),
              "text before the policy: no policy");
    EXPECT_EQ(test::policy_first_violation("", false), "no policy");
}

TEST(HtmlPolicy, RefreshesAreDisabledInPlace) {
    std::string html =
        "<meta http-equiv=refresh content='0;url=x'><META HTTP-EQUIV=' Refresh ' content=1>"
        "<meta http-equiv=content-type content='text/html'><svg><meta http-equiv=refresh></svg>"
        "<script><meta http-equiv=refresh></script>";
    const std::size_t size = html.size();
    // The <meta> in <svg> breaks out of foreign content: it is an HTML one.
    EXPECT_EQ(disable_meta_refresh(html), 3u);
    EXPECT_EQ(html.size(), size);
    EXPECT_EQ(html,
              "<meta data-equiv=refresh content='0;url=x'><META data-EQUIV=' Refresh ' content=1>"
              "<meta http-equiv=content-type content='text/html'><svg><meta "
              "data-equiv=refresh></svg><script><meta http-equiv=refresh></script>");
}

// Review findings: the value is read as the browser reads it (character references
// decoded), and every http-equiv of the tag is renamed, for the first one left counts.
TEST(HtmlPolicy, RefreshesHiddenByReferencesOrRepeatsAreDisabledToo) {
    std::string html =
        "<meta http-equiv=\"&#114;efresh\" content=\"0;url=a\">"
        "<meta http-equiv=refresh http-equiv=refresh HTTP-EQUIV=x content=\"0;url=b\">";
    EXPECT_EQ(disable_meta_refresh(html), 2u);
    EXPECT_EQ(html,
              "<meta data-equiv=\"&#114;efresh\" content=\"0;url=a\">"
              "<meta data-equiv=refresh data-equiv=refresh data-EQUIV=x content=\"0;url=b\">");
    // The scanner sees the first as a refresh too: its URL is a navigation reference.
    auto scan = scan_html("<meta http-equiv=\"&#114;efresh\" content=\"0;url=http://t.example/\">");
    ASSERT_EQ(scan.refs.size(), 1u);
    EXPECT_EQ(scan.refs[0].url, "http://t.example/");
}

}  // namespace
}  // namespace mhtml::html

namespace {

// MHT-12.5: a comment or processing instruction in a DOCTYPE's internal subset may hold
// `]>`, a quote or a tag; it hides none of them from the XML parser, nor from us (review
// finding: `<!DOCTYPE svg [ <!-- ]><g> --> ]>` made `<g>` the root and the policy went into
// the comment, and a lone quote in a comment hid the root altogether).
TEST(HtmlPolicy, MHT_12_5_InternalSubsetCommentsAndPisAreUnits) {
    using mhtml::html::find_xml_root;
    const char* svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>x()</script></svg>";
    for (std::string subset : {"<!-- ]><g> -->", "<!-- ' -->", "<!-- \" -->", "<?pi ]><g> ?>",
                               "<?pi ' ?>", "<!ENTITY a ']><g>'>", "<!ENTITY b \"<!--\">"}) {
        const std::string doc = "<!DOCTYPE svg [ " + subset + " ]>" + svg;
        auto root = find_xml_root(doc);
        ASSERT_TRUE(root.found) << doc;
        EXPECT_EQ(root.name, "svg") << doc;
        EXPECT_EQ(doc.substr(root.begin, 4), "<svg") << doc;
    }
}

}  // namespace
