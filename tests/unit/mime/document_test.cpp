#include "mhtml/mime/document.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace mhtml::mime {
namespace {

std::vector<std::string> codes(const document& d) {
    std::vector<std::string> out;
    for (const auto& x : d.diagnostics()) out.emplace_back(code_name(x.code));
    return out;
}

std::string decoded(part_view p) {
    std::string s;
    p.decode_to(s);
    return s;
}

const std::string related =
    "MIME-Version: 1.0\r\n"
    "Content-Type: multipart/related; boundary=\"b1\"; type=\"text/html\"\r\n"
    "\r\n"
    "preamble\r\n"
    "--b1\r\n"
    "Content-Type: text/html; charset=utf-8\r\n"
    "Content-Transfer-Encoding: quoted-printable\r\n"
    "Content-Location: http://x.example/\r\n"
    "\r\n"
    "<img src=3D\"a.gif\">\r\n"
    "--b1\r\n"
    "Content-Type: image/gif\r\n"
    "Content-Transfer-Encoding: base64\r\n"
    "Content-ID: <a@x>\r\n"
    "\r\n"
    "R0lGODlh\r\n"
    "--b1--\r\n"
    "epilogue\r\n";

TEST(Document, RelatedArchiveTree_Rfc2046_5_1_1) {
    auto doc = document::parse(related);
    EXPECT_THAT(codes(doc), ::testing::IsEmpty());
    ASSERT_EQ(doc.size(), 3u);
    part_view root = doc.root();
    EXPECT_EQ(root.path(), "");
    EXPECT_EQ(root.kind(), entity_kind::multipart);
    EXPECT_EQ(root.boundary(), "b1");
    EXPECT_EQ(root.preamble(), "preamble");
    EXPECT_EQ(root.epilogue(), "epilogue\r\n");
    auto kids = root.children();
    ASSERT_EQ(kids.size(), 2u);
    EXPECT_EQ(kids[0].path(), "1");
    EXPECT_EQ(kids[0].content_type().essence(), "text/html");
    EXPECT_EQ(*kids[0].content_location(), "http://x.example/");
    // RFC 2046 §5.1.1: the CRLF before the delimiter belongs to the delimiter.
    EXPECT_EQ(kids[0].raw_body(), "<img src=3D\"a.gif\">");
    EXPECT_EQ(decoded(kids[0]), "<img src=\"a.gif\">");
    EXPECT_EQ(kids[1].path(), "2");
    EXPECT_EQ(*kids[1].content_id(), "a@x");
    EXPECT_EQ(decoded(kids[1]), "GIF89a");
    EXPECT_EQ(serialize(doc), related);
    EXPECT_EQ(doc.find("2")->index(), kids[1].index());
    EXPECT_FALSE(doc.find("3").has_value());
    EXPECT_FALSE(doc.find("x").has_value());
}

// find() reaches every part by its path, in wide and nested multiparts (a message, a
// multipart under a part, one child only), and nothing for a number no child has. (It
// bisects the children: a walk along them made finding each of 100,000 quadratic.)
TEST(Document, FindReachesEveryPartByItsPath) {
    std::string in = "Content-Type: multipart/mixed; boundary=\"o\"\r\n\r\n";
    for (int i = 1; i <= 300; ++i) {
        in += "--o\r\n";
        if (i % 7 == 0) {
            in += "Content-Type: multipart/alternative; boundary=\"i" + std::to_string(i) +
                  "\"\r\n\r\n";
            for (int k = 0; k < i % 5 + 1; ++k)
                in += "--i" + std::to_string(i) + "\r\nContent-Type: text/plain\r\n\r\nx\r\n";
            in += "--i" + std::to_string(i) + "--\r\n";
        } else if (i % 11 == 0) {
            in +=
                "Content-Type: message/rfc822\r\n\r\n"
                "Content-Type: multipart/mixed; boundary=\"m\"\r\n\r\n"
                "--m\r\n\r\na\r\n--m\r\n\r\nb\r\n--m--\r\n";
        } else {
            in += "Content-Type: text/plain\r\n\r\npart " + std::to_string(i) + "\r\n";
        }
    }
    in += "--o--\r\n";
    const document doc = document::parse(in);
    std::size_t found = 0;
    for (const part_view& p : doc.parts()) {
        const auto f = doc.find(p.path());
        ASSERT_TRUE(f.has_value()) << p.path();
        EXPECT_EQ(f->index(), p.index()) << p.path();
        ++found;
        if (!p.is_leaf()) {
            EXPECT_FALSE(doc.find(p.path() + (p.path().empty() ? "" : ".") +
                                  std::to_string(p.child_count() + 1))
                             .has_value())
                << p.path();
        }
    }
    EXPECT_GT(found, 300u);
    EXPECT_FALSE(doc.find("0").has_value());
    EXPECT_FALSE(doc.find("301").has_value());
    EXPECT_FALSE(doc.find("1.1").has_value());  // a leaf has no children
    EXPECT_EQ(decoded(*doc.find("11.1.2")), "b");
    EXPECT_EQ(doc.find("14.3")->path(), "14.3");
}

TEST(Document, PrefixBoundariesInNestedParts_Rfc2046_5_1_1) {
    // The inner boundary "b" is a prefix of the outer "bb" and the other way round.
    for (auto [outer, inner] : {std::pair{"bb", "b"}, std::pair{"b", "bb"}}) {
        std::string in = std::string("Content-Type: multipart/mixed; boundary=") + outer +
                         "\r\n\r\n--" + outer +
                         "\r\nContent-Type: multipart/alternative; boundary=" + inner +
                         "\r\n\r\n--" + inner + "\r\n\r\none\r\n--" + inner + "\r\n\r\ntwo\r\n--" +
                         inner + "--\r\n--" + outer + "\r\n\r\nthree\r\n--" + outer + "--\r\n";
        auto doc = document::parse(in);
        EXPECT_THAT(codes(doc), ::testing::IsEmpty()) << outer;
        ASSERT_EQ(doc.size(), 5u) << outer;
        EXPECT_EQ(decoded(*doc.find("1.1")), "one");
        EXPECT_EQ(decoded(*doc.find("1.2")), "two");
        EXPECT_EQ(decoded(*doc.find("2")), "three");
        EXPECT_EQ(serialize(doc), in);
    }
}

TEST(Document, TransportPaddingAfterDelimiter_Rfc2046_5_1_1) {
    std::string in = "Content-Type: multipart/mixed; boundary=x\n\n--x \t\n\na\n--x--  \n";
    auto doc = document::parse(in);
    ASSERT_EQ(doc.size(), 2u);
    EXPECT_EQ(decoded(*doc.find("1")), "a");
    EXPECT_EQ(serialize(doc), in);
}

TEST(Document, LongerBoundaryIsNotADelimiter) {
    std::string in = "Content-Type: multipart/mixed; boundary=x\n\n--x\n\na\n--xy\nb\n--x--\n";
    auto doc = document::parse(in);
    ASSERT_EQ(doc.size(), 2u);
    EXPECT_EQ(decoded(*doc.find("1")), "a\n--xy\nb");
}

TEST(Document, EncapsulatedMessage_Rfc2046_5_2_1) {
    std::string in =
        "Content-Type: multipart/mixed; boundary=o\r\n\r\n--o\r\nContent-Type: "
        "message/rfc822\r\n\r\n"
        "Subject: inner\r\nContent-Type: multipart/alternative; "
        "boundary=i\r\n\r\n--i\r\n\r\nplain\r\n"
        "--i\r\nContent-Type: text/html\r\n\r\n<b>html</b>\r\n--i--\r\n--o--\r\n";
    auto doc = document::parse(in);
    EXPECT_THAT(codes(doc), ::testing::IsEmpty());
    auto msg = *doc.find("1");
    EXPECT_EQ(msg.kind(), entity_kind::message);
    auto inner = *doc.find("1.1");
    EXPECT_EQ(inner.header("Subject")->value(), "inner");
    EXPECT_EQ(inner.content_type().essence(), "multipart/alternative");
    EXPECT_EQ(decoded(*doc.find("1.1.1")), "plain");
    EXPECT_EQ(doc.find("1.1.1")->content_type().essence(), "text/plain");
    EXPECT_EQ(decoded(*doc.find("1.1.2")), "<b>html</b>");
    EXPECT_EQ(serialize(doc), in);
}

TEST(Document, DigestDefaultsToMessageRfc822_Rfc2046_5_1_5) {
    std::string in =
        "Content-Type: multipart/digest; boundary=d\n\n--d\n\nSubject: one\n\nbody one\n"
        "--d\nContent-Type: text/plain\n\nnot a message\n--d--\n";
    auto doc = document::parse(in);
    EXPECT_EQ(doc.find("1")->content_type().essence(), "message/rfc822");
    EXPECT_EQ(doc.find("1.1")->header("Subject")->value(), "one");
    EXPECT_EQ(decoded(*doc.find("1.1")), "body one");
    EXPECT_EQ(doc.find("2")->content_type().essence(), "text/plain");
    EXPECT_EQ(serialize(doc), in);
}

TEST(Document, DefaultTypeIsTextPlainUsAscii_Rfc2045_5_2) {
    auto doc = document::parse("Subject: x\r\n\r\nhello");
    EXPECT_EQ(doc.root().content_type().essence(), "text/plain");
    EXPECT_EQ(*doc.root().content_type().param("charset"), "us-ascii");
    EXPECT_FALSE(doc.root().has_content_type());
    EXPECT_TRUE(doc.root().is_leaf());
}

TEST(Document, ExternalBodyCarriesPhantomHeader_Rfc2046_5_2_3) {
    std::string in =
        "Content-Type: message/external-body; access-type=URL;\r\n "
        "URL=\"http://x.example/f\"\r\n\r\n"
        "Content-Type: text/html\r\nContent-ID: <p@x>\r\n\r\n";
    auto doc = document::parse(in);
    EXPECT_EQ(doc.root().kind(), entity_kind::message);
    EXPECT_EQ(doc.find("1")->content_type().essence(), "text/html");
    EXPECT_EQ(*doc.find("1")->content_id(), "p@x");
    EXPECT_EQ(serialize(doc), in);
}

TEST(Document, BoundarySalvageStaysLinearOnHostileInput) {
    // 90 nested multiparts whose boundaries never occur, over 20,000 distinct "--x" lines:
    // every level tries to guess a boundary; the shared search budget keeps this linear.
    std::string in;
    for (int i = 0; i < 90; ++i)
        in += "Content-Type: multipart/mixed; boundary=never" + std::to_string(i) + "\n\n";
    for (int i = 0; i < 20000; ++i) in += "--x" + std::to_string(i) + "\nfiller line\n";
    auto start = std::chrono::steady_clock::now();
    auto doc = document::parse(in);
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(serialize(doc), in);
    EXPECT_EQ(doc.size(), 90u);  // each body but the last is read as the entity it holds
    EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(took).count(), 20);
}

TEST(Document, PartsAreDepthFirst) {
    auto doc = document::parse(related);
    std::vector<std::string> paths;
    for (auto p : doc.parts()) paths.push_back(p.path());
    EXPECT_THAT(paths, ::testing::ElementsAre("", "1", "2"));
}

TEST(Document, OwnedShortStringSurvivesMoves) {
    // A string short enough for the small-string buffer: the views must not dangle when
    // the document (and its input buffer) moves.
    auto doc = document::parse(std::string("A: b\r\n\r\nhi"));
    document moved = std::move(doc);
    std::vector<document> many;
    many.push_back(std::move(moved));
    many.reserve(100);
    EXPECT_EQ(many[0].root().raw_body(), "hi");
    EXPECT_EQ(many[0].root().header("A")->value(), "b");
    EXPECT_EQ(serialize(many[0]), "A: b\r\n\r\nhi");
}

TEST(Document, OwnsMappedInput) {
    auto doc = document::parse(input_buffer::from_string(related));
    EXPECT_EQ(serialize(doc), related);
    EXPECT_EQ(doc.size(), 3u);
}

}  // namespace
}  // namespace mhtml::mime
