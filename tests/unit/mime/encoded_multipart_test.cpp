// REL-2.2 (RFC 2045 §6.4): a multipart has no transfer encoding. The reader reports
// `multipart_with_encoding` (error), parses the body as it is, and only if that body has no
// delimiter of its boundary decodes it (base64 or quoted-printable) and parses the decoded
// octets as the multipart's body (`multipart_body_decoded`). The recovered parts are
// ordinary entities whose offsets lie beyond the input; serialize writes the encoded body.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/archive/check.hpp"
#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/mime/node.hpp"
#include "mhtml/mime/quoted_printable.hpp"
#include "support/tree_walk.hpp"

namespace mhtml::mime {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

std::vector<std::string> codes(const document& d) {
    std::vector<std::string> out;
    for (const auto& x : d.diagnostics()) out.emplace_back(code_name(x.code));
    return out;
}

std::string describe(const document& d) {
    std::ostringstream os;
    for (const auto& x : d.diagnostics())
        os << "\n  " << severity_name(x.sev) << ' ' << code_name(x.code) << " path=\""
           << x.part_path << "\" @" << x.offset << ": " << x.message;
    return os.str();
}

const diagnostic* find_diag(const document& d, diag_code c, std::string_view path) {
    for (const auto& x : d.diagnostics())
        if (x.code == c && x.part_path == path) return &x;
    return nullptr;
}

std::size_t count(const document& d, diag_code c) {
    std::size_t n = 0;
    for (const auto& x : d.diagnostics()) n += x.code == c;
    return n;
}

std::string decoded(part_view p) {
    std::string s;
    p.decode_to(s);
    return s;
}

// "path: kind type" for every entity, depth first.
std::vector<std::string> tree(const document& d) {
    std::vector<std::string> out;
    for (part_view p : d.parts()) {
        std::string k = p.kind() == entity_kind::multipart ? "multipart"
                        : p.kind() == entity_kind::message ? "message"
                                                           : "leaf";
        out.push_back(p.path() + ": " + k + " " + p.content_type().essence());
    }
    return out;
}

using mhtml::test::write_body;

// Every decoded body is covered exactly by the tree read from it, and decoding the encoded
// multipart gives that body.
void expect_decoded_bodies_covered(const document& doc) {
    for (const auto& b : doc.decoded_bodies()) {
        SCOPED_TRACE("decoded body of entity " + std::to_string(b->entity));
        std::string rebuilt;
        write_body(doc, b->entity, rebuilt);
        EXPECT_EQ(rebuilt, b->bytes);
        EXPECT_EQ(decoded(doc.part(b->entity)), b->bytes);
        EXPECT_GT(b->base, doc.bytes().size());
        EXPECT_LT(b->input_offset, doc.bytes().size());
    }
}

// A PNG-like binary with every octet value, so a decoding error would show.
std::string image_bytes() {
    std::string s = "\x89PNG\r\n\x1a\n";
    for (int i = 0; i < 256; ++i) s += static_cast<char>(i);
    return s;
}

const std::string html = "<html><body><img src=\"cid:img@example.com\"></body></html>";

// The body of a multipart/related (boundary "b1") with an HTML root and a base64 image.
std::string related_body(std::string_view boundary = "b1") {
    std::string b(boundary);
    return "This is the preamble.\r\n"
           "--" +
           b +
           "\r\n"
           "Content-Type: text/html; charset=utf-8\r\n"
           "Content-ID: <page@example.com>\r\n"
           "Content-Location: http://example.com/page.html\r\n"
           "\r\n" +
           html +
           "\r\n"
           "--" +
           b +
           "\r\n"
           "Content-Type: image/png\r\n"
           "Content-Transfer-Encoding: base64\r\n"
           "Content-ID: <img@example.com>\r\n"
           "\r\n" +
           base64_encode(image_bytes()) + "--" + b +
           "--\r\n"
           "epilogue\r\n";
}

std::string related_header(std::string_view boundary, std::string_view cte) {
    return "MIME-Version: 1.0\r\n"
           "Content-Type: multipart/related; boundary=\"" +
           std::string(boundary) +
           "\"; type=\"text/html\"\r\n"
           "Content-Transfer-Encoding: " +
           std::string(cte) +
           "\r\n"
           "\r\n";
}

// The parts of related_body(), recovered: types, ids, locations, decoded bytes.
void expect_related_parts(const document& doc, std::string_view prefix) {
    std::string p1 = std::string(prefix) + "1", p2 = std::string(prefix) + "2";
    auto page = doc.find(p1);
    auto img = doc.find(p2);
    ASSERT_TRUE(page && img) << describe(doc);
    EXPECT_EQ(page->content_type().essence(), "text/html");
    EXPECT_EQ(page->content_type().param("charset").value_or(""), "utf-8");
    EXPECT_EQ(page->content_id(), "page@example.com");
    EXPECT_EQ(page->content_location(), "http://example.com/page.html");
    EXPECT_EQ(decoded(*page), html);
    EXPECT_EQ(img->content_type().essence(), "image/png");
    EXPECT_EQ(img->encoding(), transfer_encoding::base64);
    EXPECT_EQ(img->content_id(), "img@example.com");
    EXPECT_EQ(decoded(*img), image_bytes());
    for (part_view p : {*page, *img}) {
        EXPECT_TRUE(p.in_decoded_body());
        EXPECT_TRUE(p.is_leaf());
        // Offsets beyond the input address the decoded body; input_offset() is in the input.
        EXPECT_GT(p.offset(), doc.bytes().size());
        EXPECT_LT(p.input_offset(), doc.bytes().size());
        EXPECT_EQ(p.input_offset(), doc.input_offset(p.offset()));
        EXPECT_EQ(doc.view(p.offset(), p.offset() + p.raw().size()), p.raw());
        EXPECT_TRUE(p.raw().starts_with("Content-Type: "));
        EXPECT_EQ(std::string(p.raw_headers()) + std::string(p.raw_body()), p.raw());
        for (const header_field_view& f : p.headers()) {
            std::uint64_t at = doc.offset_of(f.raw().data());
            EXPECT_GT(at, doc.bytes().size());
            EXPECT_EQ(doc.view(at, at + f.raw().size()), f.raw());
        }
    }
}

TEST(EncodedMultipart, REL_2_2_Base64BodyIsDecodedAndParsed) {
    const std::string body = related_body();
    const std::string encoded = base64_encode(body);
    const std::string input = related_header("b1", "base64") + encoded;
    const document doc = document::parse(input);

    EXPECT_THAT(codes(doc), ElementsAre("multipart_with_encoding", "multipart_body_decoded"))
        << describe(doc);
    const diagnostic* enc = find_diag(doc, diag_code::multipart_with_encoding, "");
    ASSERT_NE(enc, nullptr);
    EXPECT_EQ(enc->sev, severity::error);  // REL-2.2 says error
    EXPECT_EQ(enc->offset, 0u);
    const diagnostic* rec = find_diag(doc, diag_code::multipart_body_decoded, "");
    ASSERT_NE(rec, nullptr);
    EXPECT_EQ(rec->sev, severity::warning);
    EXPECT_EQ(rec->offset, input.size() - encoded.size());  // the encoded body
    EXPECT_THAT(rec->message, HasSubstr("2 parts"));

    EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/related", "1: leaf text/html",
                                       "2: leaf image/png"));
    part_view root = doc.root();
    EXPECT_TRUE(root.body_was_decoded());
    EXPECT_FALSE(root.in_decoded_body());
    EXPECT_EQ(root.encoding(), transfer_encoding::base64);
    EXPECT_EQ(root.boundary(), "b1");
    EXPECT_EQ(root.child_count(), 2u);
    // Its body is the encoded one; decoding gives the multipart body; preamble and epilogue
    // come from the decoded body.
    EXPECT_EQ(root.raw_body(), encoded);
    EXPECT_EQ(root.body_offset(), input.size() - encoded.size());
    EXPECT_EQ(decoded(root), body);
    EXPECT_EQ(root.preamble(), "This is the preamble.");
    EXPECT_EQ(root.epilogue(), "epilogue\r\n");
    expect_related_parts(doc, "");
    ASSERT_EQ(doc.decoded_bodies().size(), 1u);
    EXPECT_EQ(doc.decoded_bodies()[0]->bytes, body);
    EXPECT_EQ(doc.decoded_bodies()[0]->input_offset, root.body_offset());
    EXPECT_EQ(doc.decoded_body_of(0), doc.decoded_bodies()[0].get());
    EXPECT_EQ(doc.decoded_body_of(1), nullptr);
    for (part_view p : doc.root().children()) EXPECT_EQ(p.input_offset(), root.body_offset());
    expect_decoded_bodies_covered(doc);

    EXPECT_EQ(serialize(doc), input);
    // node::from keeps the exact octets too.
    EXPECT_EQ(write(node::from(doc.root())).bytes, input);
}

TEST(EncodedMultipart, REL_2_2_QuotedPrintableBodyIsDecodedAndParsed) {
    // Outlook-style boundary: its '=' is written "=3D" in the encoded body, so the body as
    // written has no delimiter (only "------=3D_NextPart..." lines).
    const std::string boundary = "----=_NextPart_000_0012_01D2.ABCDEF";
    const std::string body = related_body(boundary);
    const std::string encoded = qp_encode(body);
    ASSERT_EQ(encoded.find("--" + boundary), std::string::npos);
    const std::string input = related_header(boundary, "quoted-printable") + encoded;
    const document doc = document::parse(input);

    // No boundary_guessed: the encoded "=3D" lines are not taken as a boundary.
    EXPECT_THAT(codes(doc), ElementsAre("multipart_with_encoding", "multipart_body_decoded"))
        << describe(doc);
    EXPECT_EQ(find_diag(doc, diag_code::multipart_with_encoding, "")->sev, severity::error);
    EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/related", "1: leaf text/html",
                                       "2: leaf image/png"));
    EXPECT_TRUE(doc.root().body_was_decoded());
    EXPECT_EQ(doc.root().boundary(), boundary);
    EXPECT_EQ(decoded(doc.root()), body);
    expect_related_parts(doc, "");
    expect_decoded_bodies_covered(doc);
    EXPECT_EQ(serialize(doc), input);
}

// The encoded multipart is a body part: the enclosing delimiter ends its encoded body
// (the line end before it belongs to the delimiter), and the parts after it are read.
TEST(EncodedMultipart, REL_2_2_EncodedBodyPartBetweenSiblings) {
    const std::string body = related_body();
    const std::string encoded = base64_encode(body);
    const std::string input =
        "Content-Type: multipart/mixed; boundary=\"outer\"\r\n"
        "\r\n"
        "--outer\r\n"
        "Content-Type: text/plain\r\n"
        "\r\n"
        "first\r\n"
        "--outer\r\n" +
        related_header("b1", "base64") + encoded +
        "\r\n--outer\r\n"
        "Content-Type: text/plain\r\n"
        "\r\n"
        "last\r\n"
        "--outer--\r\n";
    const document doc = document::parse(input);
    EXPECT_THAT(codes(doc), ElementsAre("multipart_with_encoding", "multipart_body_decoded"))
        << describe(doc);
    EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                                       "2: multipart multipart/related", "2.1: leaf text/html",
                                       "2.2: leaf image/png", "3: leaf text/plain"));
    part_view related = *doc.find("2");
    EXPECT_TRUE(related.body_was_decoded());
    EXPECT_EQ(related.raw_body(), encoded);  // without the CRLF before "--outer"
    EXPECT_EQ(find_diag(doc, diag_code::multipart_body_decoded, "2")->offset,
              related.body_offset());
    expect_related_parts(doc, "2.");
    EXPECT_EQ(decoded(*doc.find("3")), "last");
    EXPECT_FALSE(doc.find("3")->in_decoded_body());
    expect_decoded_bodies_covered(doc);
    EXPECT_EQ(serialize(doc), input);

    // The same without the outer close delimiter, the encoded part last: the input ends
    // where the missing delimiter would be.
    const std::string cut = input.substr(0, input.find("\r\n--outer\r\nContent-Type: text/plain"
                                                       "\r\n\r\nlast")) +
                            "\r\n";
    const document doc2 = document::parse(cut);
    EXPECT_THAT(codes(doc2), ElementsAre("multipart_with_encoding", "multipart_body_decoded",
                                         "missing_close_delimiter"))
        << describe(doc2);
    EXPECT_EQ(doc2.find("2")->raw_body(), encoded);
    expect_related_parts(doc2, "2.");
    EXPECT_EQ(serialize(doc2), cut);
}

// Diagnostics inside the decoded body report the encoded body's offset in the input and say
// where they come from; so does decode_to for a recovered part.
TEST(EncodedMultipart, REL_2_2_DiagnosticsInsideDecodedBodyPointAtEncodedBody) {
    const std::string body =
        "--b\r\n"
        "Content-Type: text/plain\r\n"
        "Content-Type: text/html\r\n"  // duplicate_field
        "\r\n"
        "one\r\n"
        "--b\r\n"
        "Content-Type: image/png\r\n"
        "Content-Transfer-Encoding: base64\r\n"
        "\r\n"
        "iVBO!Rw0K\r\n"  // '!' is outside the base64 alphabet
        "--b--\r\n";
    const std::string encoded = base64_encode(body);
    const std::string input =
        "Content-Type: multipart/mixed; boundary=b\r\n"
        "Content-Transfer-Encoding: base64\r\n"
        "\r\n" +
        encoded;
    const std::uint64_t at = input.size() - encoded.size();
    const document doc = document::parse(input);
    const diagnostic* dup = find_diag(doc, diag_code::duplicate_field, "1");
    ASSERT_NE(dup, nullptr) << describe(doc);
    EXPECT_EQ(dup->offset, at);
    EXPECT_THAT(dup->message, HasSubstr("base64-decoded body of the message"));
    for (const diagnostic& d : doc.diagnostics()) EXPECT_LE(d.offset, input.size());

    std::string out;
    std::vector<diagnostic> diags;
    doc.find("2")->decode_to(out, diags);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::base64_invalid_char);
    EXPECT_EQ(diags[0].part_path, "2");
    EXPECT_EQ(diags[0].offset, at);
    EXPECT_THAT(diags[0].message, HasSubstr("recovered from the decoded body"));
    EXPECT_EQ(serialize(doc), input);
}

// A body that is neither base64 nor quoted-printable of a multipart: nothing is recovered,
// the multipart keeps its body as a preamble (as before), and nothing is decoded for good.
TEST(EncodedMultipart, REL_2_2_GarbageBodyStaysOpaque) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"base64", "!!!! this is not base64 at all ????\r\n\x01\x02\xff\r\n"},
        {"base64", base64_encode("plain text, no delimiter\r\n--b1x\r\n x--b1\r\n")},
        {"base64", ""},
        {"base64", base64_encode(std::string(10000, '\0'))},
        {"quoted-printable", "just text =3D and =\r\nmore text\r\n"},
    };
    for (const auto& [cte, garbage] : cases) {
        SCOPED_TRACE(cte + ": " + garbage.substr(0, 40));
        const std::string input = related_header("b1", cte) + garbage;
        const document doc = document::parse(input);
        EXPECT_THAT(codes(doc), Contains("multipart_with_encoding")) << describe(doc);
        EXPECT_THAT(codes(doc), Not(Contains("multipart_body_decoded")));
        EXPECT_THAT(codes(doc), Contains("boundary_not_found"));
        EXPECT_EQ(doc.size(), 1u);
        EXPECT_EQ(doc.root().kind(), entity_kind::multipart);
        EXPECT_FALSE(doc.root().body_was_decoded());
        EXPECT_EQ(doc.root().child_count(), 0u);
        EXPECT_EQ(doc.root().preamble(), garbage);
        EXPECT_THAT(doc.decoded_bodies(), IsEmpty());
        EXPECT_EQ(serialize(doc), input);
    }
}

// A multipart that says base64 but whose body is a plain multipart is parsed as it is,
// exactly as with the salvage turned off.
TEST(EncodedMultipart, REL_2_2_BodyWithDelimitersIsParsedAsItIs) {
    const std::string body = related_body();
    for (const char* cte : {"base64", "quoted-printable"}) {
        SCOPED_TRACE(cte);
        const std::string input = related_header("b1", cte) + body;
        const document doc = document::parse(input);
        EXPECT_THAT(codes(doc), ElementsAre("multipart_with_encoding")) << describe(doc);
        EXPECT_FALSE(doc.root().body_was_decoded());
        EXPECT_THAT(doc.decoded_bodies(), IsEmpty());
        auto page = doc.find("1");
        ASSERT_TRUE(page);
        EXPECT_FALSE(page->in_decoded_body());
        EXPECT_EQ(page->input_offset(), page->offset());
        EXPECT_EQ(decoded(*page), html);
        EXPECT_EQ(serialize(doc), input);
    }
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// The corpus letters whose multipart says base64 / quoted-printable over a plain body.
TEST(EncodedMultipart, REL_2_2_CorpusLettersUnchanged) {
    const std::filesystem::path dir = std::filesystem::path(MHTML_TEST_DATA) / "corpus";
    for (const char* name : {"letters__thai_related_windows-874_base64.eml",
                             "letters__japanese_related_iso-2022-jp_qp.eml"}) {
        SCOPED_TRACE(name);
        const std::string input = slurp(dir / name);
        ASSERT_FALSE(input.empty());
        const document doc = document::parse(input);
        parse_options off;
        off.max_decoded_nesting = 0;
        const document plain = document::parse(input, off);
        EXPECT_THAT(codes(doc), Contains("multipart_with_encoding"));
        EXPECT_THAT(codes(doc), Not(Contains("multipart_body_decoded")));
        EXPECT_EQ(find_diag(doc, diag_code::multipart_with_encoding, "")->sev, severity::error);
        EXPECT_THAT(doc.decoded_bodies(), IsEmpty());
        EXPECT_EQ(codes(doc), codes(plain));
        EXPECT_EQ(tree(doc), tree(plain));
        ASSERT_EQ(doc.size(), plain.size());
        EXPECT_GT(doc.size(), 2u);
        for (std::size_t i = 0; i < doc.size(); ++i) {
            EXPECT_EQ(doc.part(i).offset(), plain.part(i).offset());
            EXPECT_EQ(doc.part(i).raw(), plain.part(i).raw());
            EXPECT_FALSE(doc.part(i).in_decoded_body());
        }
        EXPECT_EQ(serialize(doc), input);
    }
}

// An encoded multipart whose part is an encoded multipart, `levels` deep; the innermost
// holds one text/plain part "core".
std::string nested_encoded(int levels, std::string_view cte = "base64",
                           const std::string& core_text = "core") {
    std::string entity = "Content-Type: text/plain\r\n\r\n" + core_text;
    for (int k = levels; k >= 1; --k) {
        std::string b = "=lvl" + std::to_string(k);  // '=' hides it in quoted-printable
        std::string body = "--" + b + "\r\n" + entity + "\r\n--" + b + "--\r\n";
        entity = "Content-Type: multipart/mixed; boundary=\"" + b +
                 "\"\r\nContent-Transfer-Encoding: " + std::string(cte) + "\r\n\r\n" +
                 (cte == "base64" ? base64_encode(body) : qp_encode(body));
    }
    return entity;
}

TEST(EncodedMultipart, REL_2_2_NestedDecodingIsBounded) {
    const std::string input = nested_encoded(7);
    {
        const document doc = document::parse(input);  // default: 4 nested decoded bodies
        EXPECT_EQ(count(doc, diag_code::multipart_with_encoding), 5u) << describe(doc);
        EXPECT_EQ(count(doc, diag_code::multipart_body_decoded), 4u);
        ASSERT_EQ(count(doc, diag_code::decode_limit), 1u);
        const diagnostic* lim = find_diag(doc, diag_code::decode_limit, "1.1.1.1");
        ASSERT_NE(lim, nullptr) << describe(doc);
        EXPECT_EQ(lim->sev, severity::error);
        EXPECT_EQ(doc.decoded_bodies().size(), 4u);
        EXPECT_EQ(doc.size(), 5u);  // the fifth multipart keeps its encoded body
        part_view fifth = *doc.find("1.1.1.1");
        EXPECT_EQ(fifth.kind(), entity_kind::multipart);
        EXPECT_FALSE(fifth.body_was_decoded());
        EXPECT_TRUE(fifth.in_decoded_body());
        // Every diagnostic, at any depth, points into the input: the outermost encoded body.
        const std::uint64_t outer_body = doc.root().body_offset();
        for (const diagnostic& d : doc.diagnostics()) {
            EXPECT_LE(d.offset, input.size());
            if (!d.part_path.empty()) {
                EXPECT_EQ(d.offset, outer_body) << d.message;
            }
        }
        for (const auto& b : doc.decoded_bodies()) EXPECT_EQ(b->input_offset, outer_body);
        expect_decoded_bodies_covered(doc);
        EXPECT_EQ(serialize(doc), input);
    }
    {
        parse_options opts;
        opts.max_decoded_nesting = 10;
        const document doc = document::parse(input, opts);
        EXPECT_EQ(count(doc, diag_code::multipart_body_decoded), 7u) << describe(doc);
        EXPECT_EQ(count(doc, diag_code::decode_limit), 0u);
        auto core = doc.find("1.1.1.1.1.1.1");
        ASSERT_TRUE(core) << describe(doc);
        EXPECT_EQ(decoded(*core), "core");
        EXPECT_EQ(core->depth(), 7u);
        expect_decoded_bodies_covered(doc);
        EXPECT_EQ(serialize(doc), input);
    }
    {
        parse_options opts;
        opts.max_decoded_nesting = 0;  // salvage off
        const document doc = document::parse(input, opts);
        EXPECT_EQ(count(doc, diag_code::multipart_body_decoded), 0u);
        EXPECT_EQ(doc.size(), 1u);
        EXPECT_EQ(serialize(doc), input);
    }
    {
        // max_depth still applies inside decoded bodies.
        parse_options opts;
        opts.limits.max_depth = 2;
        const document doc = document::parse(input, opts);
        const diagnostic* deep = find_diag(doc, diag_code::depth_limit, "1.1");
        ASSERT_NE(deep, nullptr) << describe(doc);
        EXPECT_EQ(deep->offset, doc.root().body_offset());
        EXPECT_THAT(deep->message, HasSubstr("decoded body"));
        EXPECT_EQ(doc.size(), 3u);
        EXPECT_EQ(serialize(doc), input);
    }
}

// Quoted-printable keeps text at its size, so nested decoded bodies could each be as large
// as the input: the total decoded is bounded (twice the input plus 1 MiB).
TEST(EncodedMultipart, REL_2_2_DecodedOctetsAreBounded) {
    std::string padding;
    for (int i = 0; i < 40000; ++i) padding += std::string(60, 'x') + "\r\n";  // 2.4 MB
    const std::string input = nested_encoded(8, "quoted-printable", padding);
    parse_options opts;
    opts.max_decoded_nesting = 100;
    const document doc = document::parse(input, opts);
    std::uint64_t total = 0;
    for (const auto& b : doc.decoded_bodies()) total += b->bytes.size();
    EXPECT_LE(total, 2 * input.size() + (1u << 20));
    EXPECT_GE(doc.decoded_bodies().size(), 1u);
    EXPECT_LT(doc.decoded_bodies().size(), 8u);
    // Each multipart left encoded says so (those below it are then read as written).
    EXPECT_GE(count(doc, diag_code::decode_limit), 1u) << describe(doc);
    expect_decoded_bodies_covered(doc);
    EXPECT_EQ(serialize(doc), input);
}

TEST(EncodedMultipart, REL_2_2_PartCountLimitInsideDecodedBody) {
    std::string body;
    for (int i = 0; i < 6; ++i)
        body += "--b\r\nContent-Type: text/plain\r\n\r\npart " + std::to_string(i) + "\r\n";
    body += "--b--\r\n";
    const std::string encoded = base64_encode(body);
    const std::string input =
        "Content-Type: multipart/mixed; boundary=b\r\n"
        "Content-Transfer-Encoding: base64\r\n"
        "\r\n" +
        encoded;
    parse_options opts;
    opts.limits.max_parts = 4;
    const document doc = document::parse(input, opts);
    EXPECT_EQ(doc.size(), 4u);
    const diagnostic* lim = find_diag(doc, diag_code::part_count_limit, "");
    ASSERT_NE(lim, nullptr) << describe(doc);
    EXPECT_EQ(lim->sev, severity::error);
    EXPECT_EQ(lim->offset, input.size() - encoded.size());
    EXPECT_THAT(lim->message, HasSubstr("decoded body"));
    EXPECT_EQ(decoded(*doc.find("3")), "part 2");
    // The rest of the decoded body is its epilogue, as for a multipart in the input.
    EXPECT_THAT(std::string(doc.root().epilogue()), HasSubstr("part 5"));
    expect_decoded_bodies_covered(doc);
    EXPECT_EQ(serialize(doc), input);
}

// Views into decoded bodies stay valid when the document moves, even for a decoded body
// short enough for the small-string buffer.
TEST(EncodedMultipart, REL_2_2_ViewsSurviveMove) {
    const std::string body = "--b\r\n\r\nx\r\n--b--";
    ASSERT_LT(body.size(), 16u);
    std::string input =
        "Content-Type: multipart/mixed; boundary=b\r\n"
        "Content-Transfer-Encoding: base64\r\n\r\n" +
        base64_encode(body);
    const std::string copy = input;
    document doc = document::parse(std::move(input));
    ASSERT_EQ(doc.size(), 2u) << describe(doc);
    std::vector<document> moved;
    moved.push_back(std::move(doc));
    for (int i = 0; i < 8; ++i) moved.push_back(document::parse(copy));  // regrow the vector
    const document& d = moved.front();
    EXPECT_EQ(decoded(*d.find("1")), "x");
    EXPECT_EQ(d.find("1")->raw(), "\r\nx");
    EXPECT_EQ(serialize(d), copy);
    expect_decoded_bodies_covered(d);
}

// message/* with an encoding: encoded_message_test.cpp.

}  // namespace
}  // namespace mhtml::mime

// Above the MIME layer: the archive layer resolves inside a recovered aggregate, every
// diagnostic and finding gives a position in the input, and a multipart written again
// from the tree is not labelled with an encoding it no longer has.
namespace mhtml::mime {
namespace {

TEST(EncodedMultipart, REL_2_2_RecoveredArchiveIsReadAndReportedInInputOffsets) {
    // The page also references a missing image and a part is unreferenced, so the checker has
    // findings inside the decoded body to place.
    std::string body = related_body();
    body.insert(body.find("</body>"), "<img src=\"missing.png\">");
    body.insert(body.find("--b1--"), "--b1\r\nContent-Type: text/plain\r\n\r\nnobody reads me\r\n");
    const std::string input = related_header("b1", "base64") + base64_encode(body);
    const document doc = document::parse(input);
    auto agg = archive::aggregate::build(doc);
    ASSERT_EQ(agg.related().size(), 1u);
    ASSERT_TRUE(agg.related()[0].root.root.has_value());
    const part_view page = *agg.related()[0].root.root;
    EXPECT_TRUE(page.in_decoded_body());
    auto img = agg.resolve(page, "cid:img@example.com");
    ASSERT_TRUE(img.target.has_value());
    EXPECT_EQ(img.target->path(), "2");
    EXPECT_EQ(agg.resolve(page, "missing.png").resolved, "http://example.com/missing.png");
    for (const auto& d : agg.diagnostics()) EXPECT_LE(d.offset, input.size()) << d.message;
    auto findings = archive::check(doc);
    std::set<std::string> codes_seen;
    for (const auto& f : findings) {
        EXPECT_LE(f.offset, input.size()) << f.code << ": " << f.message;
        codes_seen.insert(f.code);
    }
    EXPECT_TRUE(codes_seen.count("resource_not_in_archive"));
    EXPECT_TRUE(codes_seen.count("part_not_referenced"));
    EXPECT_TRUE(codes_seen.count("charset_missing"));
}

TEST(EncodedMultipart, REL_2_2_WriterNeverEncodesAMultipart) {
    const std::string input = related_header("b1", "base64") + base64_encode(related_body());
    const document doc = document::parse(input);
    node root = node::from(doc.root());
    root.children()[0].set_content("<p>changed</p>");
    const std::string out = write(root).bytes;
    EXPECT_EQ(out.find("Content-Transfer-Encoding: base64\r\n\r\n"), std::string::npos) << out;
    const document again = document::parse(out);
    EXPECT_EQ(count(again, diag_code::multipart_with_encoding), 0u) << describe(again);
    ASSERT_EQ(again.root().child_count(), 2u);
    EXPECT_EQ(decoded(again.root().children()[0]), "<p>changed</p>");
    EXPECT_EQ(decoded(again.root().children()[1]), image_bytes());
}

}  // namespace
}  // namespace mhtml::mime
