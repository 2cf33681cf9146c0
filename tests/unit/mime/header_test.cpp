#include "mhtml/mime/header.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <ranges>
#include <string>
#include <utility>
#include <vector>

#include "mhtml/mime/document.hpp"

namespace mhtml::mime {
namespace {

TEST(Header, UnfoldRemovesCrlfBeforeWsp_Rfc5322_2_2_3) {
    EXPECT_EQ(unfold(" multipart/related;\r\n\tboundary=\"x\"\r\n"),
              "multipart/related;\tboundary=\"x\"");
    EXPECT_EQ(unfold(" a\n b"), "a b");  // bare LF
    EXPECT_EQ(unfold(" a\r b"), "a b");  // bare CR
    EXPECT_EQ(unfold("   \t "), "");
}

TEST(Header, IequalsIsAsciiCaseInsensitive) {
    EXPECT_TRUE(iequals("Content-Type", "content-TYPE"));
    EXPECT_FALSE(iequals("Content-Type", "Content-Typ"));
    EXPECT_FALSE(iequals("\xC3\xA9", "\xC3\x89"));
}

TEST(Header, SkipCfwsSkipsNestedComments) {
    std::string_view s = " (a (nested \\) comment) b) \r\n x";
    EXPECT_EQ(s.substr(skip_cfws(s, 0)), "x");
    EXPECT_EQ(skip_cfws("(unterminated", 0), 13u);
}

TEST(Header, FieldsKeepOrderRepeatsAndRawBytes) {
    std::string in =
        "Received: a\r\nX-Dup: 1\r\nSubject: folded\r\n  line\r\nX-Dup: 2\r\nX-8bit: "
        "caf\xE9\r\n\r\nbody";
    auto doc = document::parse(in);
    auto hs = doc.root().headers();
    ASSERT_EQ(hs.size(), 5u);
    EXPECT_EQ(hs[1].name(), "X-Dup");
    EXPECT_EQ(hs[1].value(), "1");
    EXPECT_EQ(hs[3].value(), "2");
    EXPECT_EQ(hs[2].raw(), "Subject: folded\r\n  line\r\n");
    EXPECT_EQ(hs[2].raw_value(), " folded\r\n  line");
    EXPECT_EQ(hs[2].value(), "folded  line");
    EXPECT_EQ(hs[4].value(), "caf\xE9");
    EXPECT_EQ(doc.root().raw_body(), "body");
    EXPECT_EQ(doc.root().header("x-dup")->value(), "1");
}

TEST(Header, ObsoleteWhitespaceBeforeColon_Rfc5322_4_5) {
    auto doc = document::parse("Content-Type : text/html\r\n\r\n<p>");
    EXPECT_EQ(doc.root().content_type().essence(), "text/html");
    ASSERT_EQ(doc.root().headers().size(), 1u);
    EXPECT_EQ(doc.root().headers()[0].name(), "Content-Type");
}

// The document keeps 8 bytes per field and makes each header_field_view from them when asked:
// name, value and raw bytes come out as the parser read them, whatever the line ends.
TEST(Header, ViewsMadeFromFieldRecordsReadAsTheParserDid) {
    std::string in =
        "A: 1\r\nB :\tlf\nC: cr\rD:\r\n :E\r\n\tmore\r\n: empty name\r\nF: last  \r\n\r\nbody";
    auto doc = document::parse(in);
    auto hs = doc.root().headers();
    ASSERT_EQ(hs.size(), 6u);
    std::vector<std::pair<std::string, std::string>> got;
    for (header_field_view f : hs)
        got.emplace_back(std::string(f.name()), std::string(f.raw_value()));
    const std::vector<std::pair<std::string, std::string>> want = {
        {"A", " 1"}, {"B", "\tlf"}, {"C", " cr"}, {"D", ""}, {"", " empty name"}, {"F", " last  "}};
    // D's continuation " :E" folds into it; the raw value keeps the folding.
    EXPECT_EQ(hs[3].raw(), "D:\r\n :E\r\n\tmore\r\n");
    EXPECT_EQ(hs[3].raw_value(), "\r\n :E\r\n\tmore");
    EXPECT_EQ(hs[3].value(), ":E\tmore");
    got[3].second = "";
    EXPECT_EQ(got, want);
    EXPECT_EQ(hs[1].raw(), "B :\tlf\n");
    EXPECT_EQ(hs[2].raw(), "C: cr\r");
    EXPECT_EQ(hs.back().value(), "last");
    EXPECT_EQ(hs.end() - hs.begin(), 6);
    EXPECT_EQ((hs.begin() + 2)->name(), "C");
    EXPECT_EQ(hs.begin()[4].name(), "");
    EXPECT_EQ(std::ranges::prev(hs.end())->name(), "F");
    static_assert(std::random_access_iterator<header_list::iterator>);
    static_assert(std::ranges::random_access_range<header_list>);
}

TEST(Header, AFieldEndingTheInputHasNoLineEnd) {
    auto doc = document::parse("X-Last: at the end");
    ASSERT_EQ(doc.root().headers().size(), 1u);
    EXPECT_EQ(doc.root().headers()[0].raw(), "X-Last: at the end");
    EXPECT_EQ(doc.root().headers()[0].raw_value(), " at the end");
}

}  // namespace
}  // namespace mhtml::mime

namespace mhtml::mime {
namespace {

// part_view::header finds Content-ID, Content-Location and Content-Base through the slots the
// parser fills (entity_record::known) and every other name by scanning: both give the first
// field of that name, in any letter case, with the white space before the colon allowed, and
// a block with more fields than the slots can index falls back to the scan.
TEST(Header, KnownFieldLookupsAgreeWithTheScan) {
    std::string many_fields;
    for (int i = 0; i < 20; ++i) many_fields += "X-Filler-" + std::to_string(i) + ": v\r\n";
    const std::string in =
        "Content-Type: multipart/related; boundary=b\r\n\r\n"
        "--b\r\ncontent-location: a.png\r\nContent-ID : <x@y>\r\nContent-ID: <second@y>\r\n"
        "Content-Type: image/png\r\n\r\nA\r\n"
        "--b\r\nContent-Type: text/plain\r\n\r\nB\r\n"
        "--b\r\n" +
        many_fields +
        "CONTENT-BASE: http://x.example/\r\nContent-Location: late.png\r\n\r\nC\r\n--b--\r\n";
    const auto doc = document::parse(in);
    const auto scan = [](const part_view& p, std::string_view name) -> std::optional<std::string> {
        for (const header_field_view f : p.headers())
            if (f.is(name)) return std::string(f.raw());
        return std::nullopt;
    };
    int found = 0;
    for (const part_view& p : doc.parts())
        for (const std::string_view name :
             {"Content-ID", "content-location", "Content-Base", "Content-Type", "X-Filler-19"}) {
            SCOPED_TRACE(p.path() + " " + std::string(name));
            const auto h = p.header(name);
            const auto s = scan(p, name);
            ASSERT_EQ(h.has_value(), s.has_value());
            if (h) {
                EXPECT_EQ(std::string(h->raw()), *s);
                ++found;
            }
        }
    EXPECT_EQ(found, 8);
    EXPECT_EQ(doc.find("1")->content_id(), "x@y");
    EXPECT_EQ(doc.find("1")->content_location(), "a.png");
    EXPECT_FALSE(doc.find("2")->content_location());
    EXPECT_EQ(doc.find("3")->content_location(), "late.png");
    EXPECT_EQ(doc.find("3")->content_base(), "http://x.example/");
}

}  // namespace
}  // namespace mhtml::mime
