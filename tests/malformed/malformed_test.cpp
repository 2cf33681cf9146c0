#include "mhtml/mime/document.hpp"

// Hand-written malformed inputs for the MIME parser, one TEST each. Every test checks the
// exact multiset of diagnostic codes (by code_name), the part path and offset of the key
// diagnostic, the recovered tree (paths, kinds, content types, decoded leaf bodies) and
// that serialize(parse(x)) == x. Unless a test says otherwise, each input is written with
// LF line ends and run twice: as written and converted to CRLF (both_line_ends). An all-LF
// input also gets the note line_ending_lf.
//
// The reference for splitting is Python's email package (BytesParser(policy=default)).
// Where the parser deliberately differs (salvage, RFC 5322 obsolete syntax), the test says so.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "malformed_helpers.hpp"

namespace mhtml::mime {
namespace {

using namespace std::literals;
using test::body;
using test::both_line_ends;
using test::codes;
using test::has_diag;
using test::line_end_variant;
using test::tree;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using ::testing::UnorderedElementsAreArray;

// ---------------------------------------------------------------------------------------
// Input and header block
// ---------------------------------------------------------------------------------------

TEST(Malformed, EmptyInput) {
    const std::string input;
    const document doc = document::parse(input);
    EXPECT_THAT(codes(doc), ElementsAre("empty_input"));
    EXPECT_TRUE(has_diag(doc, "empty_input", "", 0));
    EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
    EXPECT_EQ(doc.root().content_type().param("charset"), "us-ascii");
    EXPECT_FALSE(doc.root().has_content_type());
    EXPECT_THAT(doc.root().headers(), IsEmpty());
    EXPECT_EQ(body(doc, ""), "");
    EXPECT_EQ(serialize(doc), input);
}

TEST(Malformed, OnlyHeadersNoBody) {
    for (const line_end_variant& v : both_line_ends("Content-Type: text/html; charset=utf-8\n"
                                                    "Subject: headers only\n"
                                                    "\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/html"));
        EXPECT_EQ(doc.root().headers().size(), 2u);
        EXPECT_EQ(doc.root().body_offset(), v.text.size());
        EXPECT_EQ(body(doc, ""), "");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 5322 §3.5: the empty line is only needed before a body. Python reports no defect.
TEST(Malformed, HeaderBlockWithoutBlankLineAtEof) {
    for (const line_end_variant& v : both_line_ends("Content-Type: text/html\n"
                                                    "Subject: no blank line follows\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/html"));
        EXPECT_EQ(doc.root().headers().size(), 2u);
        EXPECT_EQ(doc.root().header("Subject")->value(), "no blank line follows");
        EXPECT_EQ(body(doc, ""), "");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// The last body part of a truncated archive ends inside its header block.
TEST(Malformed, PartHeaderBlockWithoutBlankLineAtEof) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--b\n"
                        "Content-Type: text/html\n"
                        "Content-ID: <x@y>\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect(
                                    {"header_missing_blank_line", "missing_close_delimiter"})));
        EXPECT_TRUE(has_diag(doc, "header_missing_blank_line", "2", v.text.size()));
        EXPECT_TRUE(has_diag(doc, "missing_close_delimiter", "", v.text.size()));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                           "2: leaf text/html"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(body(doc, "2"), "");
        EXPECT_EQ(doc.find("2")->content_id(), "x@y");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// The input stops in the middle of a field name: the fragment has no colon, so (as in
// Python, MissingHeaderBodySeparatorDefect) it is the first line of the body.
TEST(Malformed, TruncatedHeaderMidLine) {
    for (const line_end_variant& v : both_line_ends("Content-Type: text/html\n"
                                                    "Content-Trans")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_missing_blank_line"})));
        EXPECT_TRUE(has_diag(doc, "header_missing_blank_line", "", v.at("Content-Trans")));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/html"));
        EXPECT_EQ(doc.root().headers().size(), 1u);
        EXPECT_EQ(body(doc, ""), "Content-Trans");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, TruncatedPartHeaderMidLine) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "Content-Type: text/html\n"
                        "Content-Trans")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect(
                                    {"header_missing_blank_line", "missing_close_delimiter"})));
        EXPECT_TRUE(has_diag(doc, "header_missing_blank_line", "1", v.at("Content-Trans")));
        EXPECT_TRUE(has_diag(doc, "missing_close_delimiter", "", v.text.size()));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/html"));
        EXPECT_EQ(body(doc, "1"), "Content-Trans");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, TruncatedAfterFirstDelimiter) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"missing_close_delimiter"})));
        EXPECT_TRUE(has_diag(doc, "missing_close_delimiter", "", v.text.size()));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(doc.find("1")->offset(), v.text.size());
        EXPECT_EQ(body(doc, "1"), "");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// Python: MissingHeaderBodySeparatorDefect; the line without a colon starts the body.
TEST(Malformed, LineWithoutColonEndsHeaderBlock) {
    for (const line_end_variant& v : both_line_ends("Content-Type: text/plain\n"
                                                    "Subject: x\n"
                                                    "This line has no colon\n"
                                                    "second line\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_missing_blank_line"})));
        EXPECT_TRUE(has_diag(doc, "header_missing_blank_line", "", v.at("This line")));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
        EXPECT_EQ(doc.root().headers().size(), 2u);
        EXPECT_EQ(doc.root().body_offset(), v.at("This line"));
        EXPECT_EQ(body(doc, ""), v.adapt("This line has no colon\nsecond line\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// Python: FirstHeaderLineIsContinuationDefect; the line is kept but belongs to no field.
TEST(Malformed, ContinuationLineFirst) {
    for (const line_end_variant& v : both_line_ends(" folded first\n"
                                                    "Content-Type: text/html\n"
                                                    "\n"
                                                    "<p>body</p>\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_continuation_first"})));
        EXPECT_TRUE(has_diag(doc, "header_continuation_first", "", 0));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/html"));
        EXPECT_EQ(doc.root().headers().size(), 1u);
        EXPECT_EQ(body(doc, ""), v.adapt("<p>body</p>\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 5322 §4.5.1 obs-optional: white space before the colon. Deliberate difference from
// Python, whose header regex rejects the line and reads the whole input as the body.
TEST(Malformed, HeaderNameWhitespaceBeforeColon) {
    for (const line_end_variant& v : both_line_ends("Content-Type : text/html\n"
                                                    "Subject\t: hi\n"
                                                    "\n"
                                                    "<p>x</p>\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect(
                                    {"header_name_whitespace", "header_name_whitespace"})));
        EXPECT_TRUE(has_diag(doc, "header_name_whitespace", "", 0));
        EXPECT_TRUE(has_diag(doc, "header_name_whitespace", "", v.at("Subject")));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/html"));
        ASSERT_TRUE(doc.root().header("Subject"));
        EXPECT_EQ(doc.root().header("Subject")->value(), "hi");
        EXPECT_EQ(body(doc, ""), v.adapt("<p>x</p>\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, EightBitOctetsInHeader) {
    for (const line_end_variant& v : both_line_ends("Subject: caf\xC3\xA9 \xE9t\xE9\n"
                                                    "Content-Type: text/plain; charset=utf-8\n"
                                                    "\n"
                                                    "body\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_8bit"})));
        EXPECT_TRUE(has_diag(doc, "header_8bit", "", 0));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
        EXPECT_EQ(doc.root().header("Subject")->value(), "caf\xC3\xA9 \xE9t\xE9");
        EXPECT_EQ(doc.root().content_type().param("charset"), "utf-8");
        EXPECT_EQ(body(doc, ""), v.adapt("body\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, NulOctetInHeader) {
    for (const line_end_variant& v : both_line_ends("Subject: a\0b\n"
                                                    "Content-Type: text/html\n"
                                                    "\n"
                                                    "<p>x</p>\n"sv)) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_nul"})));
        EXPECT_TRUE(has_diag(doc, "header_nul", "", 0));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/html"));
        EXPECT_EQ(doc.root().header("Subject")->value(), "a\0b"sv);
        EXPECT_EQ(body(doc, ""), v.adapt("<p>x</p>\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// NUL octets in bodies are data: no diagnostic, kept byte for byte, and they do not stop
// the delimiter scan.
TEST(Malformed, NulOctetsInBody) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"nul\"\n"
                        "\n"
                        "--nul\n"
                        "Content-Type: application/octet-stream\n"
                        "Content-Transfer-Encoding: binary\n"
                        "\n"
                        "\0\0bin\0ary\0\n"
                        "--nul\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "after\0\n"
                        "--nul--\n"sv)) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc),
                    ElementsAre(": multipart multipart/mixed", "1: leaf application/octet-stream",
                                "2: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "\0\0bin\0ary\0"sv);
        EXPECT_EQ(body(doc, "2"), "after\0"sv);
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// mbox separator: Python keeps it as the unix-from, not as a field.
TEST(Malformed, MboxFromLineBeforeHeaders) {
    for (const line_end_variant& v :
         both_line_ends("From someone@example.com Sat Jan  3 01:05:34 1996\n"
                        "Content-Type: text/html\n"
                        "Subject: x\n"
                        "\n"
                        "<p>body</p>\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_without_colon"})));
        EXPECT_TRUE(has_diag(doc, "header_without_colon", "", 0));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/html"));
        EXPECT_EQ(doc.root().headers().size(), 2u);
        EXPECT_EQ(body(doc, ""), v.adapt("<p>body</p>\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// ---------------------------------------------------------------------------------------
// Content-Type and Content-Transfer-Encoding
// ---------------------------------------------------------------------------------------

TEST(Malformed, DuplicateContentTypeField) {
    for (const line_end_variant& v : both_line_ends("Content-Type: text/html\n"
                                                    "Content-Type: text/plain\n"
                                                    "\n"
                                                    "<p>x</p>\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"duplicate_field"})));
        EXPECT_TRUE(has_diag(doc, "duplicate_field", "", v.at("Content-Type: text/plain")));
        // The first one wins, as in Python.
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/html"));
        EXPECT_EQ(body(doc, ""), v.adapt("<p>x</p>\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 2045 §5.2: a Content-Type without a subtype is invalid; text/plain is used. As
// docs/diagnostics.md says, content_type_invalid covers it (the enum's
// content_type_missing_subtype is not emitted).
TEST(Malformed, ContentTypeWithoutSubtype) {
    for (const line_end_variant& v : both_line_ends("Content-Type: text\n"
                                                    "\n"
                                                    "body\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"content_type_invalid"})));
        EXPECT_TRUE(has_diag(doc, "content_type_invalid", "", 0));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
        EXPECT_FALSE(doc.root().has_content_type());
        EXPECT_EQ(doc.root().content_type().param("charset"), "us-ascii");
        EXPECT_EQ(body(doc, ""), v.adapt("body\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, ContentTypeGarbage) {
    for (const line_end_variant& v : both_line_ends("Content-Type: ;;;garbage@@\n"
                                                    "\n"
                                                    "body\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"content_type_invalid"})));
        EXPECT_TRUE(has_diag(doc, "content_type_invalid", "", 0));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
        EXPECT_FALSE(doc.root().has_content_type());
        EXPECT_EQ(doc.root().content_type().param("charset"), "us-ascii");
        EXPECT_EQ(body(doc, ""), v.adapt("body\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 2045 §6.4: an unknown encoding means the body is taken as it is.
TEST(Malformed, UnknownTransferEncoding) {
    for (const line_end_variant& v : both_line_ends("Content-Type: text/plain\n"
                                                    "Content-Transfer-Encoding: x-uuencode\n"
                                                    "\n"
                                                    "begin 644 f\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"unknown_transfer_encoding"})));
        EXPECT_TRUE(
            has_diag(doc, "unknown_transfer_encoding", "", v.at("Content-Transfer-Encoding")));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
        EXPECT_EQ(doc.root().encoding(), transfer_encoding::unknown);
        EXPECT_EQ(body(doc, ""), v.adapt("begin 644 f\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 2231 §3: continuation sections may come in any order (Python sorts them too), so
// this is not even a defect.
TEST(Malformed, Rfc2231ContinuationsOutOfOrder) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary*1=\"def\"; boundary*0=\"abc\"\n"
                        "\n"
                        "--abcdef\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--abcdef--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_EQ(doc.root().boundary(), "abcdef");
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, Rfc2231ContinuationMissingPiece) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: text/plain; name*0=\"a\"; name*2=\"c\"\n"
                        "\n"
                        "x\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"rfc2231_bad_continuation"})));
        EXPECT_TRUE(has_diag(doc, "rfc2231_bad_continuation", "", 0));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
        EXPECT_EQ(doc.root().content_type().param("name"), "ac");  // joined in index order
        EXPECT_EQ(body(doc, ""), v.adapt("x\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// The quoted boundary is never closed: the value runs to the end of the field.
TEST(Malformed, UnterminatedQuotedStringInParameter) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"abc\n"
                        "\n"
                        "--abc\n"
                        "Content-Type: text/html; charset=\"utf-8\n"
                        "\n"
                        "<p>one</p>\n"
                        "--abc--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(
                                    v.expect({"parameter_invalid", "parameter_invalid"})));
        EXPECT_TRUE(has_diag(doc, "parameter_invalid", "", 0));
        EXPECT_TRUE(has_diag(doc, "parameter_invalid", "1", v.at("Content-Type: text/html")));
        EXPECT_EQ(doc.root().boundary(), "abc");
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/html"));
        EXPECT_EQ(doc.find("1")->content_type().param("charset"), "utf-8");
        EXPECT_EQ(body(doc, "1"), "<p>one</p>");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// Seed erratum E-21: `a=b c=d` is read as two parameters.
TEST(Malformed, MissingSemicolonBetweenParameters) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/related; boundary=\"abc\" type=\"text/html\"\n"
                        "\n"
                        "--abc\n"
                        "Content-Type: text/html\n"
                        "\n"
                        "<p>x</p>\n"
                        "--abc--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc),
                    UnorderedElementsAreArray(v.expect({"missing_parameter_separator"})));
        EXPECT_TRUE(has_diag(doc, "missing_parameter_separator", "", 0));
        EXPECT_EQ(doc.root().boundary(), "abc");
        EXPECT_EQ(doc.root().content_type().param("type"), "text/html");
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/related", "1: leaf text/html"));
        EXPECT_EQ(body(doc, "1"), "<p>x</p>");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, DuplicateBoundaryParameter) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"first\"; boundary=\"second\"\n"
                        "\n"
                        "--first\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--first--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"parameter_duplicate"})));
        EXPECT_TRUE(has_diag(doc, "parameter_duplicate", "", 0));
        EXPECT_EQ(doc.root().boundary(), "first");
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// ---------------------------------------------------------------------------------------
// Multipart structure
// ---------------------------------------------------------------------------------------

// No boundary parameter: the salvage finds "b" (a close delimiter "--b--" confirms it).
// Python: NoBoundaryInMultipartDefect and no parts.
TEST(Malformed, MissingBoundaryParameter) {
    for (const line_end_variant& v : both_line_ends("Content-Type: multipart/mixed\n"
                                                    "\n"
                                                    "--b\n"
                                                    "Content-Type: text/plain\n"
                                                    "\n"
                                                    "one\n"
                                                    "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(
                                    v.expect({"multipart_without_boundary", "boundary_guessed"})));
        EXPECT_TRUE(has_diag(doc, "multipart_without_boundary", "", 0));
        EXPECT_TRUE(has_diag(doc, "boundary_guessed", "", doc.root().body_offset()));
        EXPECT_EQ(doc.root().boundary(), "b");
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, MissingBoundaryParameterAndNoDelimiters) {
    for (const line_end_variant& v : both_line_ends("Content-Type: multipart/mixed\n"
                                                    "\n"
                                                    "plain text only\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect(
                                    {"multipart_without_boundary", "multipart_no_parts"})));
        EXPECT_TRUE(has_diag(doc, "multipart_without_boundary", "", 0));
        EXPECT_TRUE(has_diag(doc, "multipart_no_parts", "", v.at("plain text")));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed"));
        EXPECT_EQ(doc.root().preamble(), v.adapt("plain text only\n"));
        EXPECT_EQ(doc.root().epilogue(), "");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// Salvage (Python: StartBoundaryNotFoundDefect, no parts): the declared "zzz" never occurs,
// "b" delimits the body, so "b" is used.
TEST(Malformed, DeclaredBoundaryNeverOccursAnotherIsUsed) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"zzz\"\n"
                        "\n"
                        "pre\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--b\n"
                        "Content-Type: text/html\n"
                        "\n"
                        "<p>two</p>\n"
                        "--b--\n"
                        "epi\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"boundary_guessed"})));
        EXPECT_TRUE(has_diag(doc, "boundary_guessed", "", v.at("pre")));
        EXPECT_EQ(doc.root().boundary(), "b");
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                           "2: leaf text/html"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(body(doc, "2"), "<p>two</p>");
        EXPECT_EQ(doc.root().preamble(), "pre");
        EXPECT_EQ(doc.root().epilogue(), v.adapt("epi\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// Salvage: no delimiter at all, but the body starts with a Content- field, so it is read
// as one body part (Python keeps it as the multipart's unparsed payload).
TEST(Malformed, NoDelimitersBodyIsOnePart) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/related; boundary=\"abc\"\n"
                        "\n"
                        "Content-Type: text/html\n"
                        "Content-Location: http://example.com/\n"
                        "\n"
                        "<p>hi</p>\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(
                                    v.expect({"boundary_not_found", "multipart_no_parts"})));
        const std::uint64_t body_at = v.at("Content-Type: text/html");
        EXPECT_TRUE(has_diag(doc, "boundary_not_found", "", body_at));
        EXPECT_TRUE(has_diag(doc, "multipart_no_parts", "", body_at));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/related", "1: leaf text/html"));
        EXPECT_EQ(doc.find("1")->content_location(), "http://example.com/");
        EXPECT_EQ(body(doc, "1"), v.adapt("<p>hi</p>\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, NoDelimitersNoHeaderLikeBody) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/related; boundary=\"abc\"\n"
                        "\n"
                        "just some text\n"
                        "no headers\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(
                                    v.expect({"boundary_not_found", "multipart_no_parts"})));
        EXPECT_TRUE(has_diag(doc, "boundary_not_found", "", v.at("just")));
        EXPECT_TRUE(has_diag(doc, "multipart_no_parts", "", v.at("just")));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/related"));
        EXPECT_EQ(doc.root().preamble(), v.adapt("just some text\nno headers\n"));
        EXPECT_EQ(doc.root().epilogue(), "");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// As in Python (CloseBoundaryNotFoundDefect), the end of the input stands for the missing
// delimiter and the final line end belongs to it: "two\n\n" gives "two\n".
TEST(Malformed, MissingCloseDelimiterAtEof) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b1\"\n"
                        "\n"
                        "--b1\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--b1\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "two\n"
                        "\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"missing_close_delimiter"})));
        EXPECT_TRUE(has_diag(doc, "missing_close_delimiter", "", v.text.size()));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                           "2: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(body(doc, "2"), v.adapt("two\n"));
        EXPECT_EQ(doc.root().epilogue(), "");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, CloseDelimiterMissingOuterDelimiterComes) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"outer\"\n"
                        "\n"
                        "--outer\n"
                        "Content-Type: multipart/alternative; boundary=\"inner\"\n"
                        "\n"
                        "--inner\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "plain\n"
                        "--outer\n"
                        "Content-Type: text/html\n"
                        "\n"
                        "<b>html</b>\n"
                        "--outer--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"implicit_close_by_outer"})));
        // The offset is that of the delimiter, which includes the line end before "--outer".
        EXPECT_TRUE(has_diag(doc, "implicit_close_by_outer", "1",
                             v.at("\n--outer\nContent-Type: text/html")));
        EXPECT_THAT(tree(doc),
                    ElementsAre(": multipart multipart/mixed", "1: multipart multipart/alternative",
                                "1.1: leaf text/plain", "2: leaf text/html"));
        EXPECT_EQ(body(doc, "1.1"), "plain");
        EXPECT_EQ(body(doc, "2"), "<b>html</b>");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, InnerBoundaryIsPrefixOfOuter) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"abcdef\"\n"
                        "\n"
                        "--abcdef\n"
                        "Content-Type: multipart/alternative; boundary=\"abc\"\n"
                        "\n"
                        "--abc\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "inner one\n"
                        "--abc\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "inner two\n"
                        "--abc--\n"
                        "--abcdef\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "outer two\n"
                        "--abcdef--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(
            tree(doc),
            ElementsAre(": multipart multipart/mixed", "1: multipart multipart/alternative",
                        "1.1: leaf text/plain", "1.2: leaf text/plain", "2: leaf text/plain"));
        EXPECT_EQ(body(doc, "1.1"), "inner one");
        EXPECT_EQ(body(doc, "1.2"), "inner two");
        EXPECT_EQ(body(doc, "2"), "outer two");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, OuterBoundaryIsPrefixOfInner) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"abc\"\n"
                        "\n"
                        "--abc\n"
                        "Content-Type: multipart/alternative; boundary=\"abcdef\"\n"
                        "\n"
                        "--abcdef\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "inner one\n"
                        "--abcdef\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "inner two\n"
                        "--abcdef--\n"
                        "--abc\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "outer two\n"
                        "--abc--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(
            tree(doc),
            ElementsAre(": multipart multipart/mixed", "1: multipart multipart/alternative",
                        "1.1: leaf text/plain", "1.2: leaf text/plain", "2: leaf text/plain"));
        EXPECT_EQ(body(doc, "1.1"), "inner one");
        EXPECT_EQ(body(doc, "1.2"), "inner two");
        EXPECT_EQ(body(doc, "2"), "outer two");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 2046 §5.1.1: transport padding (SP/HTAB) may follow a delimiter.
TEST(Malformed, DelimiterWithTransportPadding) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"pad\"\n"
                        "\n"
                        "--pad \t\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--pad\t\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "two\n"
                        "--pad--  \n"
                        "epilogue\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                           "2: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(body(doc, "2"), "two");
        EXPECT_EQ(doc.root().epilogue(), v.adapt("epilogue\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, DelimiterTextNotAtLineStart) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "text --b\n"
                        " --b\n"
                        "\t--b--\n"
                        "x--b--\n"
                        "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), v.adapt("text --b\n --b\n\t--b--\nx--b--"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// A "--b" line inside base64 data ends the part (base64 has no '-', so a conforming
// producer never writes one); the rest becomes a second part without headers. Its first
// line is not a field, so (docs/diagnostics.md, and Python's MissingHeaderBodySeparator-
// Defect) header_missing_blank_line is expected for part 2.
TEST(Malformed, BoundaryLineInsideBase64Body) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "Content-Type: application/octet-stream\n"
                        "Content-Transfer-Encoding: base64\n"
                        "\n"
                        "AAEC\n"
                        "--b\n"
                        "AwQF\n"
                        "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_missing_blank_line"})));
        EXPECT_TRUE(has_diag(doc, "header_missing_blank_line", "2", v.at("AwQF")));
        EXPECT_THAT(tree(doc),
                    ElementsAre(": multipart multipart/mixed", "1: leaf application/octet-stream",
                                "2: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "\x00\x01\x02"sv);
        EXPECT_EQ(doc.find("2")->encoding(), transfer_encoding::seven_bit);
        EXPECT_EQ(body(doc, "2"), "AwQF");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// "--boundaryX" has the delimiter as a prefix: not a delimiter (Python agrees). It is body
// text and not reported (docs/diagnostics.md defines no code for it).
TEST(Malformed, LongerBoundaryIsNotDelimiter) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"boundary\"\n"
                        "\n"
                        "--boundary\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "line\n"
                        "--boundaryX\n"
                        "end\n"
                        "--boundary--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), v.adapt("line\n--boundaryX\nend"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, PreambleAndEpilogueKept) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "preamble line 1\n"
                        "preamble line 2\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--b--\n"
                        "epilogue 1\n"
                        "epilogue 2\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(doc.root().preamble(), v.adapt("preamble line 1\npreamble line 2"));
        EXPECT_EQ(doc.root().epilogue(), v.adapt("epilogue 1\nepilogue 2\n"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// Python: StartBoundaryNotFoundDefect. The close delimiter is found, so the multipart has a
// preamble and an epilogue and no parts.
TEST(Malformed, CloseDelimiterFirst) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "This is a preamble.\n"
                        "--b--\n"
                        "epilogue text\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"multipart_no_parts"})));
        EXPECT_TRUE(has_diag(doc, "multipart_no_parts", "", v.at("\n--b--")));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed"));
        EXPECT_EQ(doc.root().preamble(), "This is a preamble.");
        EXPECT_EQ(doc.root().epilogue(), v.adapt("epilogue text\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, CloseDelimiterAtEofWithoutLineEnd) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--b--")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(doc.root().epilogue(), "");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// The line "--a:b" must be a delimiter, not a header field named "--a", also where a header
// field is expected (part 2 has no empty line before the next delimiter).
TEST(Malformed, BoundaryContainingColon) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"a:b\"\n"
                        "\n"
                        "--a:b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--a:b\n"
                        "Content-Type: text/html\n"
                        "--a:b\n"
                        "Content-Type: text/css\n"
                        "\n"
                        "p{}\n"
                        "--a:b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"truncated_header"})));
        EXPECT_TRUE(has_diag(doc, "truncated_header", "2", v.at("--a:b\nContent-Type: text/css")));
        EXPECT_EQ(doc.root().boundary(), "a:b");
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                           "2: leaf text/html", "3: leaf text/css"));
        EXPECT_EQ(doc.find("2")->headers().size(), 1u);
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(body(doc, "2"), "");
        EXPECT_EQ(body(doc, "3"), "p{}");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// Two delimiter lines in a row. RFC 2046's grammar has no body part between them (the line
// end after a delimiter line belongs to it, and the next delimiter needs its own). Python
// (feedparser: "Our interpretation of RFC 2046 BNF grammar does not produce body parts
// within such double boundaries") skips the repeated line, so the HTML part is "2"; the
// parser does the same and reports the skipped line.
TEST(Malformed, ConsecutiveDelimiterLines) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--b\n"
                        "--b\n"
                        "Content-Type: text/html\n"
                        "\n"
                        "<p>two</p>\n"
                        "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        const std::uint64_t second = v.at("--b\nContent-Type: text/html");
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"repeated_delimiter"})));
        EXPECT_TRUE(has_diag(doc, "repeated_delimiter", "", second));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                           "2: leaf text/html"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(body(doc, "2"), "<p>two</p>");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, BoundaryWithSpacesInsideQuotes) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"with some spaces\"\n"
                        "\n"
                        "--with some spaces\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--with some spaces\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "two --with some spaces\n"
                        "--with some spaces--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_EQ(doc.root().boundary(), "with some spaces");
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                           "2: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(body(doc, "2"), "two --with some spaces");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 2046 §5.1.1: at most 70 characters. Used anyway.
TEST(Malformed, BoundaryTooLong) {
    const std::string b(75, 'x');
    const std::string lf = "Content-Type: multipart/mixed; boundary=\"" + b + "\"\n\n--" + b +
                           "\nContent-Type: text/plain\n\none\n--" + b + "--\n";
    for (const line_end_variant& v : both_line_ends(lf)) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"boundary_invalid"})));
        EXPECT_TRUE(has_diag(doc, "boundary_invalid", "", 0));
        EXPECT_EQ(doc.root().boundary(), b);
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// The multipart's own header block has no empty line: the delimiter line starts the body.
// Python: MissingHeaderBodySeparatorDefect, same split.
TEST(Malformed, DelimiterRightAfterMultipartHeaderBlock) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_missing_blank_line"})));
        EXPECT_TRUE(has_diag(doc, "header_missing_blank_line", "", v.at("--b")));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(doc.root().preamble(), "");
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// A body part's header block is followed by the next delimiter: the part has an empty body.
TEST(Malformed, DelimiterRightAfterPartHeaderBlock) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "Content-Type: text/html\n"
                        "Content-ID: <empty@x>\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "two\n"
                        "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"truncated_header"})));
        EXPECT_TRUE(has_diag(doc, "truncated_header", "1", v.at("--b\nContent-Type: text/plain")));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/html",
                                           "2: leaf text/plain"));
        EXPECT_EQ(doc.find("1")->content_id(), "empty@x");
        EXPECT_EQ(body(doc, "1"), "");
        EXPECT_EQ(body(doc, "2"), "two");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 2046 §5.1.1: a part without header fields starts with the empty line; its type is
// text/plain; charset=us-ascii.
TEST(Malformed, BodyPartWithoutHeaders) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "\n"
                        "no headers here\n"
                        "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        const part_view p = *doc.find("1");
        EXPECT_FALSE(p.has_content_type());
        EXPECT_THAT(p.headers(), IsEmpty());
        EXPECT_EQ(p.content_type().param("charset"), "us-ascii");
        EXPECT_EQ(body(doc, "1"), "no headers here");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// No header fields and no empty line either: the text is the body (as in Python). The first
// line of the header block is not a field, which docs/diagnostics.md reports as
// header_missing_blank_line (Python: MissingHeaderBodySeparatorDefect).
TEST(Malformed, BodyPartWithoutHeadersOrBlankLine) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "no headers, no blank line\n"
                        "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_missing_blank_line"})));
        EXPECT_TRUE(has_diag(doc, "header_missing_blank_line", "1", v.at("no headers")));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_THAT(doc.find("1")->headers(), IsEmpty());
        EXPECT_EQ(body(doc, "1"), "no headers, no blank line");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 2045 §6.4 forbids base64 on a multipart; Python (InvalidMultipartContentTransfer-
// EncodingDefect) and the parser split the body as it is.
TEST(Malformed, MultipartWithBase64Encoding) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "Content-Transfer-Encoding: base64\n"
                        "\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"multipart_with_encoding"})));
        EXPECT_TRUE(has_diag(doc, "multipart_with_encoding", "", 0));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 2046 §5.2.1 forbids base64 on message/rfc822, but Outlook attaches mail that way. The
// body is decoded and the message in it parsed as part 1.1 (its offsets lie beyond the
// input); Python parses the base64 text as a header-less message instead
// (tests/corpus/compare_python.py, rule message_with_encoding).
TEST(Malformed, MessageRfc822WithBase64Encoding) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "Content-Type: message/rfc822\n"
                        "Content-Transfer-Encoding: base64\n"
                        "\n"
                        "U3ViamVjdDogaGkKCmJvZHkK\n"  // "Subject: hi\n\nbody\n"
                        "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        // The decoded message has LF line ends: they say nothing about the file's.
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"message_with_encoding"})));
        EXPECT_TRUE(has_diag(doc, "message_with_encoding", "1", v.at("Content-Type: message")));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed",
                                           "1: message message/rfc822", "1.1: leaf text/plain"));
        ASSERT_TRUE(doc.find("1.1").has_value());
        EXPECT_EQ(body(doc, "1"), "Subject: hi\n\nbody\n");  // decode_to: the message
        EXPECT_EQ(body(doc, "1.1"), "body\n");
        EXPECT_EQ(doc.find("1.1")->header("Subject")->value(), "hi");
        EXPECT_EQ(doc.find("1.1")->input_offset(), v.at("U3Vi"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, MessageRfc822WithNestedMultipart) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"outer\"\n"
                        "\n"
                        "--outer\n"
                        "Content-Type: message/rfc822\n"
                        "\n"
                        "Subject: inner\n"
                        "Content-Type: multipart/alternative; boundary=\"inner\"\n"
                        "\n"
                        "--inner\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "plain\n"
                        "--inner\n"
                        "Content-Type: text/html\n"
                        "\n"
                        "<p>html</p>\n"
                        "--inner--\n"
                        "--outer\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "last\n"
                        "--outer--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc),
                    ElementsAre(": multipart multipart/mixed", "1: message message/rfc822",
                                "1.1: multipart multipart/alternative", "1.1.1: leaf text/plain",
                                "1.1.2: leaf text/html", "2: leaf text/plain"));
        EXPECT_EQ(doc.find("1.1")->header("Subject")->value(), "inner");
        EXPECT_EQ(body(doc, "1.1.1"), "plain");
        EXPECT_EQ(body(doc, "1.1.2"), "<p>html</p>");
        EXPECT_EQ(body(doc, "2"), "last");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// RFC 2046 §5.1.5: in a digest a part without Content-Type is message/rfc822.
TEST(Malformed, DigestDefaultTypeIsMessageRfc822) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/digest; boundary=\"d\"\n"
                        "\n"
                        "--d\n"
                        "\n"
                        "Subject: one\n"
                        "\n"
                        "first\n"
                        "--d\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "explicit\n"
                        "--d--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc),
                    ElementsAre(": multipart multipart/digest", "1: message message/rfc822",
                                "1.1: leaf text/plain", "2: leaf text/plain"));
        EXPECT_FALSE(doc.find("1")->has_content_type());
        EXPECT_EQ(doc.find("1.1")->header("Subject")->value(), "one");
        EXPECT_EQ(body(doc, "1.1"), "first");
        EXPECT_EQ(body(doc, "2"), "explicit");
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// ---------------------------------------------------------------------------------------
// Line ends
// ---------------------------------------------------------------------------------------

// Bare CR line ends everywhere (old Mac); one variant only. Python splits the same way.
TEST(Malformed, CrOnlyLineEnds) {
    const std::string input =
        "Content-Type: multipart/related; boundary=\"cr\"\r"
        "\r"
        "--cr\r"
        "Content-Type: text/html\r"
        "\r"
        "<p>a</p>\r"
        "--cr\r"
        "Content-Type: text/css\r"
        "\r"
        "p{}\r"
        "--cr--\r";
    const document doc = document::parse(input);
    EXPECT_THAT(codes(doc), UnorderedElementsAre("line_ending_cr"));
    EXPECT_TRUE(has_diag(doc, "line_ending_cr", "", 0));
    EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/related", "1: leaf text/html",
                                       "2: leaf text/css"));
    EXPECT_EQ(body(doc, "1"), "<p>a</p>");
    EXPECT_EQ(body(doc, "2"), "p{}");
    EXPECT_EQ(doc.root().epilogue(), "");
    EXPECT_EQ(serialize(doc), input);
}

// CRLF and LF mixed line by line; one variant only.
TEST(Malformed, MixedCrlfAndLf) {
    const std::string input =
        "Content-Type: multipart/related; boundary=\"mx\"\r\n"
        "\n"
        "--mx\r\n"
        "Content-Type: text/html\n"
        "\r\n"
        "<p>a</p>\n"
        "--mx\n"
        "Content-Type: text/css\r\n"
        "\r\n"
        "p{}\r\n"
        "--mx--\n";
    const document doc = document::parse(input);
    EXPECT_THAT(codes(doc), UnorderedElementsAre("line_ending_mixed"));
    EXPECT_TRUE(has_diag(doc, "line_ending_mixed", "", 0));
    EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/related", "1: leaf text/html",
                                       "2: leaf text/css"));
    EXPECT_EQ(body(doc, "1"), "<p>a</p>");
    EXPECT_EQ(body(doc, "2"), "p{}");
    EXPECT_EQ(serialize(doc), input);
}

// ---------------------------------------------------------------------------------------
// No MIME structure
// ---------------------------------------------------------------------------------------

TEST(Malformed, HtmlWithoutMimeStructure) {
    for (const line_end_variant& v : both_line_ends("<!DOCTYPE html>\n"
                                                    "<html><head><title>t</title></head>\n"
                                                    "<body>hi</body></html>\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        // The first line is read (and counted) as a candidate header line.
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"no_mime_structure"})));
        EXPECT_TRUE(has_diag(doc, "no_mime_structure", "", 0));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/html"));
        EXPECT_THAT(doc.root().headers(), IsEmpty());
        EXPECT_EQ(body(doc, ""), v.text);
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// Saved with a UTF-8 byte order mark and an empty first line: still HTML. The parser skips
// leading white space and then a BOM, but not a BOM and then white space (the order files
// have).
TEST(Malformed, HtmlWithByteOrderMarkAndLeadingNewline) {
    for (const line_end_variant& v : both_line_ends("\xEF\xBB\xBF\n"
                                                    "<html><body>hi</body></html>\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"no_mime_structure"})));
        EXPECT_TRUE(has_diag(doc, "no_mime_structure", "", 0));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/html"));
        EXPECT_EQ(body(doc, ""), v.text);
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// ---------------------------------------------------------------------------------------
// Transfer decoding (decode_to reports; the parse itself is clean)
// ---------------------------------------------------------------------------------------

TEST(Malformed, InvalidBase64InOnePartOthersClean) {
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "Content-Transfer-Encoding: base64\n"
                        "\n"
                        "aGVsbG8=\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "Content-Transfer-Encoding: base64\n"
                        "\n"
                        "aGV*sbG8=\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "Content-Transfer-Encoding: base64\n"
                        "\n"
                        "d29ybGQ=\n"
                        "--b--\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                           "2: leaf text/plain", "3: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "hello");  // body() fails the test on any decoder diagnostic
        EXPECT_EQ(body(doc, "3"), "world");
        std::vector<std::string> dc;
        std::vector<diagnostic> dd;
        EXPECT_EQ(body(doc, "2", &dc, &dd), "hello");  // '*' skipped (RFC 2045 §6.8)
        EXPECT_THAT(dc, ElementsAre("base64_invalid_char"));
        ASSERT_EQ(dd.size(), 1u);
        EXPECT_EQ(dd[0].part_path, "2");
        EXPECT_EQ(dd[0].offset, v.at("*"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, Base64MissingPadding) {
    for (const line_end_variant& v : both_line_ends("Content-Type: text/plain\n"
                                                    "Content-Transfer-Encoding: base64\n"
                                                    "\n"
                                                    "aGVsbG8\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
        std::vector<std::string> dc;
        std::vector<diagnostic> dd;
        EXPECT_EQ(body(doc, "", &dc, &dd), "hello");
        EXPECT_THAT(dc, ElementsAre("base64_bad_padding"));
        ASSERT_EQ(dd.size(), 1u);
        EXPECT_EQ(dd[0].offset, v.text.size());  // seen at the end of the data
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, Base64MisplacedPadding) {
    for (const line_end_variant& v : both_line_ends("Content-Type: text/plain\n"
                                                    "Content-Transfer-Encoding: base64\n"
                                                    "\n"
                                                    "aGVs=bG8=\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        std::vector<std::string> dc;
        std::vector<diagnostic> dd;
        EXPECT_EQ(body(doc, "", &dc, &dd), "hello");
        EXPECT_THAT(dc, ElementsAre("base64_bad_padding"));
        ASSERT_EQ(dd.size(), 1u);
        EXPECT_EQ(dd[0].offset, v.at("=bG8"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, QuotedPrintableInvalidEscapes) {
    for (const line_end_variant& v : both_line_ends("Content-Type: text/plain\n"
                                                    "Content-Transfer-Encoding: quoted-printable\n"
                                                    "\n"
                                                    "price =ZZ 5=3D5 =4x tail=\n"
                                                    "end\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        std::vector<std::string> dc;
        std::vector<diagnostic> dd;
        // Invalid escapes are kept literally (RFC 2045 §6.7 note, as Python); "=\n" is a
        // soft line break.
        EXPECT_EQ(body(doc, "", &dc, &dd), v.adapt("price =ZZ 5=5 =4x tailend\n"));
        EXPECT_THAT(dc, ElementsAre("qp_invalid_escape"));
        ASSERT_EQ(dd.size(), 1u);
        EXPECT_EQ(dd[0].offset, v.at("=ZZ"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// ---------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------

namespace {
// `n` multiparts, each the only part of the one before, around one text/plain leaf.
std::string nested_multiparts(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on `"b" + to_string(i)`.
        const std::string n_str = std::to_string(i);
        s.append("Content-Type: multipart/mixed; boundary=\"b").append(n_str).append("\"\n\n--b");
        s.append(n_str).append("\n");
    }
    s += "Content-Type: text/plain\n\nleaf\n";
    for (int i = n; i-- > 0;) s.append("--b").append(std::to_string(i)).append("--\n");
    return s;
}

std::string nested_messages(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += "Content-Type: message/rfc822\n\n";
    s += "Content-Type: text/plain\n\nleaf\n";
    return s;
}

std::string path_of_depth(std::size_t depth) {
    std::string p;
    for (std::size_t i = 0; i < depth; ++i) p += i == 0 ? "1" : ".1";
    return p;
}
}  // namespace

TEST(Malformed, TenThousandNestedMultiparts) {
    for (const line_end_variant& v : both_line_ends(nested_multiparts(10'000))) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);  // default max_depth = 100
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"depth_limit"})));
        const std::string deepest = path_of_depth(100);
        ASSERT_EQ(doc.size(), 101u);
        const part_view p = *doc.find(deepest);
        EXPECT_TRUE(has_diag(doc, "depth_limit", deepest, p.offset()));
        EXPECT_EQ(p.offset(), v.at("Content-Type: multipart/mixed; boundary=\"b100\""));
        EXPECT_EQ(p.depth(), 100u);
        EXPECT_EQ(p.kind(), entity_kind::leaf);  // kept opaque
        EXPECT_EQ(p.content_type().essence(), "multipart/mixed");
        EXPECT_EQ(doc.find(path_of_depth(99))->kind(), entity_kind::multipart);
        // The opaque body runs to the close delimiter of the enclosing multipart "b99".
        EXPECT_TRUE(body(doc, deepest).starts_with(v.adapt("--b100\n")));
        EXPECT_TRUE(body(doc, deepest).ends_with("--b100--"));
        EXPECT_TRUE(serialize(doc) == v.text);
    }
}

TEST(Malformed, TenThousandNestedMessages) {
    for (const line_end_variant& v : both_line_ends(nested_messages(10'000))) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"depth_limit"})));
        const std::string deepest = path_of_depth(100);
        ASSERT_EQ(doc.size(), 101u);
        const part_view p = *doc.find(deepest);
        EXPECT_TRUE(has_diag(doc, "depth_limit", deepest, p.offset()));
        EXPECT_EQ(p.offset(), 100 * v.adapt("Content-Type: message/rfc822\n\n").size());
        EXPECT_EQ(p.kind(), entity_kind::leaf);
        EXPECT_EQ(p.content_type().essence(), "message/rfc822");
        EXPECT_EQ(doc.find(path_of_depth(99))->kind(), entity_kind::message);
        EXPECT_TRUE(body(doc, deepest).ends_with(v.adapt("leaf\n")));
        EXPECT_TRUE(serialize(doc) == v.text);
    }
}

// 50 MB in one header line: read in linear time, reported, and the field after it lies
// beyond max_header_block (1 MiB), so it is kept but not interpreted.
TEST(Malformed, FiftyMegabyteHeaderLine) {
    const std::string lf =
        "Subject: " + std::string(50u << 20, 'x') + "\nContent-Type: text/html\n\n<p>body</p>\n";
    for (const line_end_variant& v : both_line_ends(lf)) {
        SCOPED_TRACE(v.name);
        const auto t0 = std::chrono::steady_clock::now();
        const document doc = document::parse(v.text);
        const auto elapsed = std::chrono::steady_clock::now() - t0;
        EXPECT_LT(elapsed, std::chrono::seconds(10));  // linear: well under a second
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(
                                    v.expect({"line_length_limit", "header_block_limit"})));
        EXPECT_TRUE(has_diag(doc, "line_length_limit", "", 0));
        EXPECT_TRUE(has_diag(doc, "header_block_limit", "", v.at("Content-Type", 50u << 20)));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
        EXPECT_EQ(doc.root().headers().size(), 1u);
        EXPECT_EQ(body(doc, ""), v.adapt("<p>body</p>\n"));
        EXPECT_TRUE(serialize(doc) == v.text);
    }
}

TEST(Malformed, HeaderBlockOverLimit) {
    parse_options opts;
    opts.limits.max_header_block = 64;
    for (const line_end_variant& v : both_line_ends("X-Filler: " + std::string(60, 'a') +
                                                    "\nContent-Type: text/html\n\n<p>x</p>\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text, opts);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_block_limit"})));
        EXPECT_TRUE(has_diag(doc, "header_block_limit", "", v.at("Content-Type")));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
        EXPECT_EQ(doc.root().headers().size(), 1u);
        EXPECT_EQ(doc.root().raw_headers(), v.text.substr(0, v.at("<p>")));
        EXPECT_EQ(body(doc, ""), v.adapt("<p>x</p>\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

TEST(Malformed, MoreFieldsThanMaxHeaderFields) {
    parse_options opts;
    opts.limits.max_header_fields = 2;
    for (const line_end_variant& v : both_line_ends("X-A: 1\n"
                                                    "X-B: 2\n"
                                                    "X-C: 3\n"
                                                    "Content-Type: text/html\n"
                                                    "\n"
                                                    "<p>x</p>\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text, opts);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_count_limit"})));
        EXPECT_TRUE(has_diag(doc, "header_count_limit", "", v.at("X-C")));
        EXPECT_THAT(tree(doc), ElementsAre(": leaf text/plain"));
        EXPECT_EQ(doc.root().headers().size(), 2u);
        EXPECT_EQ(body(doc, ""), v.adapt("<p>x</p>\n"));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// Entities beyond max_parts stay in the last multipart's epilogue as raw bytes.
TEST(Malformed, PartCountLimit) {
    parse_options opts;
    opts.limits.max_parts = 3;
    for (const line_end_variant& v :
         both_line_ends("Content-Type: multipart/mixed; boundary=\"b\"\n"
                        "\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "one\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "two\n"
                        "--b\n"
                        "Content-Type: text/plain\n"
                        "\n"
                        "three\n"
                        "--b--\n"
                        "epi\n")) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text, opts);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"part_count_limit"})));
        const std::uint64_t third = v.at("\n--b\nContent-Type: text/plain\n\nthree");
        EXPECT_TRUE(has_diag(doc, "part_count_limit", "", third));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                           "2: leaf text/plain"));
        EXPECT_EQ(body(doc, "1"), "one");
        EXPECT_EQ(body(doc, "2"), "two");
        EXPECT_EQ(doc.root().epilogue(), v.text.substr(third));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

// One test target with tiny limits (depth 4, header block 256 bytes, 8 entities): every
// limit path fires with its diagnostic and the round trip still holds.
TEST(Malformed, TinyLimits) {
    const parse_options opts = test::with_limits(4, 256, 8);

    {  // depth 4: six nested multiparts
        SCOPED_TRACE("depth");
        for (const line_end_variant& v : both_line_ends(nested_multiparts(6))) {
            SCOPED_TRACE(v.name);
            const document doc = document::parse(v.text, opts);
            EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"depth_limit"})));
            EXPECT_TRUE(has_diag(doc, "depth_limit", "1.1.1.1",
                                 v.at("Content-Type: multipart/mixed; boundary=\"b4\"")));
            EXPECT_THAT(
                tree(doc),
                ElementsAre(": multipart multipart/mixed", "1: multipart multipart/mixed",
                            "1.1: multipart multipart/mixed", "1.1.1: multipart multipart/mixed",
                            "1.1.1.1: leaf multipart/mixed"));
            EXPECT_EQ(body(doc, "1.1.1.1"),
                      v.adapt("--b4\nContent-Type: multipart/mixed; boundary=\"b5\"\n\n--b5\n"
                              "Content-Type: text/plain\n\nleaf\n--b5--\n--b4--"));
            EXPECT_EQ(serialize(doc), v.text);
        }
    }
    {  // header block 256: a part whose Content-Type comes after 300 octets of another field
        SCOPED_TRACE("header block");
        const std::string lf = "Content-Type: multipart/mixed; boundary=\"h\"\n\n--h\nX-Long: " +
                               std::string(300, 'y') +
                               "\nContent-Type: text/html\n\n<p>x</p>\n--h\nContent-Type: "
                               "text/css\n\np{}\n--h--\n";
        for (const line_end_variant& v : both_line_ends(lf)) {
            SCOPED_TRACE(v.name);
            const document doc = document::parse(v.text, opts);
            EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"header_block_limit"})));
            EXPECT_TRUE(has_diag(doc, "header_block_limit", "1", v.at("Content-Type: text/html")));
            EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                               "2: leaf text/css"));
            EXPECT_EQ(doc.find("1")->headers().size(), 1u);
            EXPECT_EQ(body(doc, "1"), "<p>x</p>");
            EXPECT_EQ(body(doc, "2"), "p{}");
            EXPECT_EQ(serialize(doc), v.text);
        }
    }
    {  // 8 entities: a multipart with ten parts keeps seven
        SCOPED_TRACE("parts");
        std::string lf = "Content-Type: multipart/mixed; boundary=\"p\"\n\n";
        for (int i = 0; i < 10; ++i)
            lf += "--p\nContent-Type: text/plain\n\npart " + std::to_string(i) + "\n";
        lf += "--p--\n";
        for (const line_end_variant& v : both_line_ends(lf)) {
            SCOPED_TRACE(v.name);
            const document doc = document::parse(v.text, opts);
            EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"part_count_limit"})));
            const std::uint64_t eighth = v.at("\n--p\nContent-Type: text/plain\n\npart 7");
            EXPECT_TRUE(has_diag(doc, "part_count_limit", "", eighth));
            ASSERT_EQ(doc.size(), 8u);
            for (int i = 0; i < 7; ++i)
                EXPECT_EQ(body(doc, std::to_string(i + 1)), "part " + std::to_string(i));
            EXPECT_EQ(doc.root().epilogue(), v.text.substr(eighth));
            EXPECT_EQ(serialize(doc), v.text);
        }
    }
    {  // 8 entities: the fourth message/rfc822 part would be the ninth entity
        SCOPED_TRACE("parts, messages");
        std::string lf = "Content-Type: multipart/mixed; boundary=\"m\"\n\n";
        for (int i = 0; i < 4; ++i)
            lf += "--m\nContent-Type: message/rfc822\n\nSubject: " + std::to_string(i) +
                  "\n\nmessage " + std::to_string(i) + "\n";
        lf += "--m--\n";
        for (const line_end_variant& v : both_line_ends(lf)) {
            SCOPED_TRACE(v.name);
            const document doc = document::parse(v.text, opts);
            EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"part_count_limit"})));
            EXPECT_TRUE(has_diag(doc, "part_count_limit", "4", v.at("Subject: 3")));
            EXPECT_THAT(tree(doc),
                        ElementsAre(": multipart multipart/mixed", "1: message message/rfc822",
                                    "1.1: leaf text/plain", "2: message message/rfc822",
                                    "2.1: leaf text/plain", "3: message message/rfc822",
                                    "3.1: leaf text/plain", "4: leaf message/rfc822"));
            EXPECT_EQ(body(doc, "3.1"), "message 2");
            EXPECT_EQ(body(doc, "4"), v.adapt("Subject: 3\n\nmessage 3"));
            EXPECT_EQ(serialize(doc), v.text);
        }
    }
}

// max_depth above the hard cap (the parser recurses) is clamped to 1000.
TEST(Malformed, NestingLimitClampedToHardMaximum) {
    parse_options opts;
    opts.limits.max_depth = 1'000'000;
    for (const line_end_variant& v : both_line_ends(nested_multiparts(10'000))) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text, opts);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({"depth_limit"})));
        ASSERT_EQ(doc.size(), parse_limits::hard_max_depth + 1);
        const std::string deepest = path_of_depth(parse_limits::hard_max_depth);
        EXPECT_TRUE(has_diag(doc, "depth_limit", deepest, doc.find(deepest)->offset()));
        EXPECT_TRUE(serialize(doc) == v.text);
    }
}

// Conforming, but many entities in a small input with a short boundary: the entity storage
// outgrows what the parser reserved (about size / 4096 + 8) while boundaries of open
// multiparts are in use.
TEST(Malformed, ManyTinyPartsInSmallInput) {
    std::string lf = "Content-Type: multipart/mixed; boundary=\"b\"\n\n";
    for (int i = 0; i < 40; ++i) lf += "--b\n\n" + std::to_string(i) + "\n";
    lf += "--b--\n";
    for (const line_end_variant& v : both_line_ends(lf)) {
        SCOPED_TRACE(v.name);
        const document doc = document::parse(v.text);
        EXPECT_THAT(codes(doc), UnorderedElementsAreArray(v.expect({})));
        ASSERT_EQ(doc.size(), 41u);
        for (int i = 0; i < 40; ++i) EXPECT_EQ(body(doc, std::to_string(i + 1)), std::to_string(i));
        EXPECT_EQ(serialize(doc), v.text);
    }
}

}  // namespace
}  // namespace mhtml::mime
