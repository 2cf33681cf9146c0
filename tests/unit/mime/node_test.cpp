#include "mhtml/mime/node.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "mhtml/mime/document.hpp"

namespace mhtml::mime {
namespace {

std::string decoded(part_view p) {
    std::string s;
    p.decode_to(s);
    return s;
}

// parse(write(t)) equals t: same content types, same fields (apart from the ones the
// writer owns: Content-Transfer-Encoding and the boundary), same decoded content.
void expect_same(const node& n, part_view p) {
    SCOPED_TRACE("part " + p.path());
    value_issues is;
    content_type want = parse_content_type(n.get("Content-Type").value_or("text/plain"), is);
    EXPECT_EQ(p.content_type().essence(), want.essence());
    for (const auto& prm : want.params.items()) {
        if (prm.name != "boundary") {
            EXPECT_EQ(p.content_type().param(prm.name).value_or("?"), prm.value);
        }
    }
    for (const auto& [name, value] : n.fields()) {
        if (iequals(name, "Content-Type") || iequals(name, "Content-Transfer-Encoding")) continue;
        auto f = p.header(name);
        ASSERT_TRUE(f.has_value()) << name;
        EXPECT_EQ(f->value(), value);
    }
    if (p.is_leaf()) {
        std::string c = n.content();
        if (want.type == "text") {  // text is written in canonical CRLF form
            std::string crlf;
            for (std::size_t i = 0; i < c.size(); ++i) {
                if (c[i] == '\n' && (i == 0 || c[i - 1] != '\r')) crlf += '\r';
                crlf += c[i];
            }
            c = crlf;
        }
        EXPECT_EQ(decoded(p), c);
    }
    auto kids = p.children();
    ASSERT_EQ(kids.size(), n.children().size());
    for (std::size_t i = 0; i < kids.size(); ++i) expect_same(n.children()[i], kids[i]);
}

std::string random_bytes(std::mt19937& rng, std::size_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
}

TEST(Node, UntouchedDocumentIsWrittenByteForByte) {
    std::string in =
        "Content-Type: multipart/mixed; boundary=x\n\npre\n--x\nX-A: 1\n\nbody\n--x--\nepi";
    auto doc = document::parse(in);
    EXPECT_EQ(write(node::from(doc.root())).bytes, in);
}

TEST(Node, ChangedPartRewrittenOthersKeptByteForByte) {
    std::string in =
        "Content-Type: multipart/related; boundary=\"q\"\r\n\r\n--q\r\nContent-Type: text/html\r\n"
        "X-Odd:   spacing  kept\r\n\r\n<p>one</p>\r\n--q\r\nContent-Type: "
        "text/plain\r\n\r\ntwo\r\n--q--\r\n";
    auto doc = document::parse(in);
    node root = node::from(doc.root());
    root.children()[1].set_content("changed\r\n");
    std::string out = write(root).bytes;
    // The untouched first part appears exactly as it was.
    EXPECT_NE(out.find(std::string(doc.find("1")->raw())), std::string::npos);
    auto back = document::parse(out);
    EXPECT_THAT(back.diagnostics(), ::testing::IsEmpty());
    EXPECT_EQ(decoded(*back.find("1")), "<p>one</p>");
    EXPECT_EQ(decoded(*back.find("2")), "changed\r\n");
    EXPECT_EQ(back.root().boundary(), "q");  // still safe, so kept
}

TEST(Node, BuiltTreeRoundTripsStructurally) {
    std::mt19937 rng(2557);
    for (int round = 0; round < 20; ++round) {
        std::string html = "<html><body>caf\xC3\xA9 " + std::to_string(round) +
                           "\r\n<img src=\"cid:a@x\">\r\nFrom here\r\n.\r\n</body></html>\r\n";
        node related = node::multipart(
            "related",
            {node::leaf("text/html; charset=utf-8", html)
                 .set("Content-Location", "http://x.example/dir/" + std::string(60, 'p') + ".html"),
             node::leaf("image/png", random_bytes(rng, rng() % 5000)).set("Content-ID", "<a@x>"),
             node::leaf("text/css", "body{color:red}\r\n"),
             node::message(
                 node::leaf("text/plain; charset=us-ascii", "inner\r\n").set("Subject", "hi"))},
            "type=\"text/html\"");
        related.set("Subject",
                    "A subject long enough that it has to be folded somewhere, "
                    "because it goes on and on past seventy-eight columns");
        auto w = write(related);
        EXPECT_THAT(w.diagnostics, ::testing::IsEmpty());
        auto doc = document::parse(w.bytes);
        EXPECT_THAT(doc.diagnostics(), ::testing::IsEmpty());
        expect_same(related, doc.root());
        EXPECT_EQ(serialize(doc), w.bytes);
        // Canonical form: CRLF only, and no header line over 78 columns here.
        for (std::size_t i = 0; i < w.bytes.size(); ++i) {
            if (w.bytes[i] == '\n') {
                ASSERT_TRUE(i > 0 && w.bytes[i - 1] == '\r');
            }
            if (w.bytes[i] == '\r') {
                ASSERT_TRUE(i + 1 < w.bytes.size() && w.bytes[i + 1] == '\n');
            }
        }
        std::string_view head = doc.root().raw_headers();
        std::size_t start = 0;
        while (start < head.size()) {
            std::size_t e = head.find("\r\n", start);
            EXPECT_LE(e - start, 78u) << head.substr(start, e - start);
            start = e + 2;
        }
    }
}

TEST(Node, BoundaryNeverOccursInContent_Rfc2046_5_1_1) {
    node m = node::multipart("mixed", {node::leaf("text/plain", "--abc\r\n--abc--\r\n")},
                             "boundary=abc");
    auto w = write(m);
    auto doc = document::parse(w.bytes);
    EXPECT_NE(doc.root().boundary(), "abc");
    ASSERT_EQ(doc.root().child_count(), 1u);
    EXPECT_EQ(decoded(*doc.find("1")), "--abc\r\n--abc--\r\n");
}

TEST(Node, TransferEncodingChosenForContent) {
    auto enc = [](node n) {
        auto doc = document::parse(write(n).bytes);
        return doc.root().encoding();
    };
    EXPECT_EQ(enc(node::leaf("text/plain", "ascii\r\n")), transfer_encoding::seven_bit);
    EXPECT_EQ(enc(node::leaf("text/plain; charset=utf-8", "caf\xC3\xA9")),
              transfer_encoding::quoted_printable);
    EXPECT_EQ(enc(node::leaf("text/plain", std::string(2000, 'x'))),
              transfer_encoding::quoted_printable);
    EXPECT_EQ(enc(node::leaf("image/gif", "GIF89a")), transfer_encoding::base64);
}

TEST(Node, TextIsWrittenInCanonicalCrlfForm_MHT_11_4) {
    auto doc = document::parse(write(node::leaf("text/html", "a\nb\rc\r\n")).bytes);
    EXPECT_EQ(decoded(doc.root()), "a\r\nb\r\nc\r\n");
}

TEST(Node, LongLinesIn8bitAreFlagged) {
    node n = node::leaf("text/plain", std::string(1200, 'y'));
    n.set("Content-Transfer-Encoding", "8bit");
    auto w = write(n);
    ASSERT_EQ(w.diagnostics.size(), 1u);
    EXPECT_EQ(code_name(w.diagnostics[0].code), "serialize_line_too_long");
}

TEST(Node, FoldFieldKeepsQuotedStringsAndUnfoldsBack) {
    std::string value =
        "multipart/related; type=\"text/html\"; boundary=\"----=_NextPart_000_0000 "
        "with spaces inside the quotes that are long\"; start=\"<a@b>\"";
    std::string f = fold_field("Content-Type", value);
    EXPECT_NE(f.find("\r\n "), std::string::npos);
    std::string raw_value = f.substr(std::string("Content-Type:").size());
    raw_value.resize(raw_value.size() - 2);
    EXPECT_EQ(unfold(raw_value), value);
    // No fold inside the quoted boundary.
    EXPECT_NE(f.find("\"----=_NextPart_000_0000 with spaces inside the quotes that are long\""),
              std::string::npos);
}

}  // namespace
}  // namespace mhtml::mime
