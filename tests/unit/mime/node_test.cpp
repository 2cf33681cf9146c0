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

// Review finding: a boundary the caller chose is kept only when RFC 2046 allows it (1-70
// bchars, no final space); one with a fold in it or too long is replaced.
TEST(Node, ABoundaryThatIsNotOneIsReplaced_Rfc2046_5_1_1) {
    for (const std::string& bad :
         std::vector<std::string>{"\"a\r\n b\"", std::string(71, 'x'), "\"a \"", "\"a\\\"b\""}) {
        node m = node::multipart("mixed", {node::leaf("text/plain", "x")}, "boundary=" + bad);
        auto w = write(m);
        ASSERT_TRUE(w.ok()) << bad;
        auto doc = document::parse(w.bytes);
        EXPECT_TRUE(doc.diagnostics().empty()) << bad << "\n" << w.bytes;
        ASSERT_EQ(doc.root().child_count(), 1u) << bad;
        EXPECT_EQ(doc.root().boundary().substr(0, 8), "=_mhtml_") << bad;
    }
    node ok =
        node::multipart("mixed", {node::leaf("text/plain", "x")}, "boundary=\"a'()+_,-./:=? b\"");
    EXPECT_EQ(document::parse(write(ok).bytes).root().boundary(), "a'()+_,-./:=? b");
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

// The writer refuses header injection: a field name must be an RFC 5322 §3.6.8 field-name
// and a value may break a line only by folding (CRLF + white space, RFC 5322 §2.2.3). A
// refused field comes back as an error and nothing is written.
struct refused_case {
    std::string what, name, value;
    diag_code code;
    std::uint64_t offset;  // of the first bad octet in the name or the value
};

const std::vector<refused_case>& refused_cases() {
    static const std::vector<refused_case> cases = {
        {"CRLF starting a new field", "Subject", "hi\r\nBcc: victim@example.com",
         diag_code::field_value_invalid, 2},
        {"CRLF CRLF starting the body", "Subject", "hi\r\n\r\n<script>",
         diag_code::field_value_invalid, 2},
        {"bare LF", "Subject", "hi\nX-Evil: 1", diag_code::field_value_invalid, 2},
        {"bare LF before white space", "Subject", "hi\n there", diag_code::field_value_invalid, 2},
        {"bare CR", "Subject", "hi\rX-Evil: 1", diag_code::field_value_invalid, 2},
        {"CR at the end", "Subject", "hi\r", diag_code::field_value_invalid, 2},
        {"CRLF at the end", "Subject", "hi\r\n", diag_code::field_value_invalid, 2},
        {"a fold to a line of only white space", "Subject", "hi\r\n \r\n there",
         diag_code::field_value_invalid, 2},
        {"a fold ending the value", "Subject", "hi\r\n \t", diag_code::field_value_invalid, 2},
        {"NUL", "Subject", std::string("a\0b", 3), diag_code::field_value_invalid, 1},
        {"NUL after a good fold", "Subject", std::string("a\r\n b\0", 6),
         diag_code::field_value_invalid, 5},
        {"name with a colon", "X-A:B", "v", diag_code::field_name_invalid, 3},
        {"name with a space", "X A", "v", diag_code::field_name_invalid, 1},
        {"name with a tab", "X\tA", "v", diag_code::field_name_invalid, 1},
        {"name with CRLF", "X-A\r\nBcc", "v", diag_code::field_name_invalid, 3},
        {"name with a NUL", std::string("X\0A", 3), "v", diag_code::field_name_invalid, 1},
        {"name with an 8-bit octet", "Sujet-\xC3\xA9", "v", diag_code::field_name_invalid, 6},
        {"name with DEL", "X\x7f", "v", diag_code::field_name_invalid, 1},
        {"empty name", "", "v", diag_code::field_name_invalid, 0},
    };
    return cases;
}

TEST(Node, HeaderInjectionIsRefused_Rfc5322_2_2_3_And_3_6_8) {
    for (const refused_case& c : refused_cases()) {
        SCOPED_TRACE(c.what);
        // check_field says so ...
        auto bad = check_field(c.name, c.value);
        ASSERT_TRUE(bad.has_value());
        EXPECT_EQ(bad->code, c.code);
        EXPECT_EQ(bad->sev, severity::error);
        EXPECT_EQ(bad->offset, c.offset);
        // ... and write() refuses the whole node, with set() and with add(), on a leaf deep
        // inside a tree as on the root.
        for (int how = 0; how < 3; ++how) {
            node leaf = node::leaf("text/plain", "content\r\n");
            node root = node::multipart(
                "mixed", {node::leaf("text/plain", "first\r\n"), node::message(std::move(leaf))});
            std::string path;
            if (how == 0) {
                root.set(c.name, c.value);
            } else if (how == 1) {
                root.add(c.name, c.value);
            } else {
                root.children()[1].children()[0].set(c.name, c.value);
                path = "2.1";
            }
            const write_result w = write(root);
            ASSERT_FALSE(w.ok());
            EXPECT_TRUE(w.bytes.empty());
            EXPECT_EQ(w.error->code, c.code);
            EXPECT_EQ(w.error->part_path, path);
            EXPECT_EQ(w.error->offset, c.offset);
            EXPECT_THAT(w.error->message, ::testing::HasSubstr("refused, nothing written"));
        }
    }
}

TEST(Node, HeaderInjectionIsRefusedInAChangedParsedPart) {
    const std::string in =
        "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n"
        "\r\none\r\n--b--\r\n";
    const auto doc = document::parse(in);
    node root = node::from(doc.root());
    root.children()[0].set("Content-Location", "http://x.example/\r\nContent-Type: text/html");
    const write_result w = write(root);
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.error->code, diag_code::field_value_invalid);
    EXPECT_EQ(w.error->part_path, "1");
    EXPECT_TRUE(w.bytes.empty());
    // A Content-Type whose parameter would smuggle a field is refused before it is rebuilt.
    node mp = node::multipart("mixed", {node::leaf("text/plain", "x")}, "type=\"a\r\nX-Evil: 1\"");
    const write_result w2 = write(mp);
    ASSERT_FALSE(w2.ok());
    EXPECT_EQ(w2.error->code, diag_code::field_value_invalid);
}

TEST(Node, GoodFoldingAndOddButValidFieldsAreWritten) {
    EXPECT_FALSE(check_field("Subject", "a\r\n b").has_value());
    EXPECT_FALSE(check_field("Subject", "a\r\n\tb\r\n  c").has_value());
    EXPECT_FALSE(check_field("X-!#$%&'*+-.^_`|~", "v").has_value());  // every ftext kind
    EXPECT_FALSE(check_field("Subject", "").has_value());
    EXPECT_FALSE(
        check_field("Subject", "caf\xC3\xA9 \x01 \x7f").has_value());  // RFC 6532; obs-utext
    EXPECT_FALSE(check_field("Subject", "\r\n leading fold").has_value());

    const std::string folded =
        "a value that the caller folded\r\n\tby hand, and it goes on "
        "long enough to need another fold somewhere after this";
    node n = node::leaf("text/plain", "x\r\n");
    n.set("Subject", folded);
    const write_result w = write(n);
    ASSERT_TRUE(w.ok());
    // The caller's fold is kept and no fold is inserted next to it (no empty line).
    EXPECT_NE(w.bytes.find("Subject: a value that the caller folded\r\n\tby hand,"),
              std::string::npos)
        << w.bytes;
    EXPECT_EQ(w.bytes.find("\r\n\r\n\t"), std::string::npos);
    const auto doc = document::parse(w.bytes);
    EXPECT_THAT(doc.diagnostics(), ::testing::IsEmpty());
    ASSERT_TRUE(doc.root().header("Subject").has_value());
    EXPECT_EQ(doc.root().header("Subject")->value(), unfold(folded));
    EXPECT_EQ(doc.root().headers().size(), 2u);  // Content-Type, Subject (7bit: no CTE)
}

TEST(Node, FoldFieldNeverInsertsAFoldBeforeAnExistingOne) {
    // White space right before the caller's fold, at a place where a fold would be due.
    const std::string value = std::string(70, 'a') + " \r\n b";
    const std::string f = fold_field("Subject", value);
    EXPECT_EQ(f.find("\r\n\r\n"), std::string::npos) << f;
    EXPECT_EQ(f.find("\r\n \r\n"), std::string::npos) << f;
    std::string raw_value = f.substr(std::string("Subject:").size());
    raw_value.resize(raw_value.size() - 2);
    EXPECT_EQ(unfold(raw_value), unfold(value));
}

// check_field looks for NUL, CR and LF 16 octets at a time first: one anywhere in a long value
// (in a block or in the tail) is found and refused, with its offset; a fold there passes.
TEST(Node, CheckFieldFindsABadOctetAnywhereInALongValue) {
    const std::string plain(53, 'v');
    EXPECT_FALSE(check_field("Subject", plain).has_value());
    for (std::size_t at = 0; at < plain.size(); ++at) {
        for (const char c : {'\0', '\r', '\n'}) {
            std::string v = plain;
            v[at] = c;
            const auto bad = check_field("Subject", v);
            ASSERT_TRUE(bad.has_value()) << at << " " << int(c);
            EXPECT_EQ(bad->code, diag_code::field_value_invalid);
            EXPECT_EQ(bad->offset, at);
        }
        if (at > 0 && at + 3 < plain.size()) {
            std::string folded = plain;
            folded.replace(at, 3, "\r\n ");
            EXPECT_FALSE(check_field("Subject", folded).has_value()) << at;
        }
    }
}

}  // namespace
}  // namespace mhtml::mime
