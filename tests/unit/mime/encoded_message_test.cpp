// message/* bodies with a base64 or quoted-printable Content-Transfer-Encoding. RFC 2046
// §5.2.1 forbids it for message/rfc822, but Outlook attaches mail that way; RFC 6532 §3.5
// allows it for message/global. The body is decoded into a buffer the document owns and the
// message in it parsed as the part's one entity (path P.1), with REL-2.2's machinery: one
// offset space (document::view), input_offset(), and the nesting and decoded-octet budgets.
// serialize still writes the encoded body, so the input comes back byte for byte.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/mime/node.hpp"
#include "mhtml/mime/quoted_printable.hpp"
#include "support/tree_walk.hpp"

namespace mhtml::mime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

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

std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Every decoded body is covered exactly by the tree read from it, and decoding the encoded
// entity gives that body; every entity in one addresses it through document::view.
void expect_decoded_bodies_covered(const document& doc) {
    for (const auto& b : doc.decoded_bodies()) {
        SCOPED_TRACE("decoded body of entity " + std::to_string(b->entity));
        std::string rebuilt;
        test::write_body(doc, b->entity, rebuilt);
        EXPECT_EQ(rebuilt, b->bytes);
        EXPECT_EQ(decoded(doc.part(b->entity)), b->bytes);
        EXPECT_GT(b->base, doc.bytes().size());
        EXPECT_LT(b->input_offset, doc.bytes().size());
    }
    for (part_view p : doc.parts()) {
        EXPECT_EQ(p.in_decoded_body(), p.offset() > doc.bytes().size()) << p.path();
        EXPECT_EQ(doc.view(p.offset(), p.offset() + p.raw().size()), p.raw()) << p.path();
        EXPECT_LE(p.input_offset(), doc.bytes().size()) << p.path();
        for (const header_field_view& f : p.headers()) {
            std::uint64_t at = doc.offset_of(f.raw().data());
            EXPECT_EQ(doc.view(at, at + f.raw().size()), f.raw()) << p.path();
        }
    }
    for (const diagnostic& d : doc.diagnostics()) EXPECT_LE(d.offset, doc.bytes().size());
}

// A realistic attachment: what Outlook 16 writes when a mail is forwarded as an attachment
// (tests/data/differences/PROVENANCE.md). The attached mail is an HTML mail with an inline
// image: related > alternative (text, html) + image.
TEST(EncodedMessage, OutlookBase64AttachmentIsDecodedAndParsed) {
    const std::string input = slurp(std::filesystem::path(MHTML_TEST_DATA) / "differences" /
                                    "outlook_forward_base64_rfc822.eml");
    ASSERT_FALSE(input.empty());
    const document doc = document::parse(input);

    EXPECT_THAT(codes(doc), ElementsAre("message_with_encoding")) << describe(doc);
    const diagnostic* d = find_diag(doc, diag_code::message_with_encoding, "2");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->sev, severity::warning);
    EXPECT_EQ(d->offset, doc.find("2")->offset());
    EXPECT_THAT(d->message, HasSubstr("RFC 2046 §5.2.1 forbids it"));
    EXPECT_THAT(d->message, HasSubstr("decoded and the message in it parsed"));

    EXPECT_THAT(tree(doc),
                ElementsAre(": multipart multipart/mixed", "1: leaf text/plain",
                            "2: message message/rfc822", "2.1: multipart multipart/related",
                            "2.1.1: multipart multipart/alternative", "2.1.1.1: leaf text/plain",
                            "2.1.1.2: leaf text/html", "2.1.2: leaf image/png"));
    ASSERT_TRUE(doc.find("2.1.2").has_value()) << describe(doc);
    const part_view att = *doc.find("2");
    EXPECT_TRUE(att.body_was_decoded());
    EXPECT_FALSE(att.in_decoded_body());
    EXPECT_EQ(att.encoding(), transfer_encoding::base64);
    EXPECT_EQ(att.child_count(), 1u);
    EXPECT_EQ(att.disposition()->filename(), "Quarterly report.eml");
    // Its body is the encoded one; decoding it gives the attached mail, which is what the
    // tree read from the decoded body covers.
    EXPECT_TRUE(att.raw_body().starts_with("UmVjZWl2ZWQ6"));  // "Received:"
    const std::string mail = decoded(att);
    EXPECT_TRUE(mail.starts_with("Received: from mail.example.net"));
    ASSERT_EQ(doc.decoded_bodies().size(), 1u);
    EXPECT_EQ(doc.decoded_bodies()[0]->bytes, mail);
    EXPECT_EQ(doc.decoded_bodies()[0]->input_offset, att.body_offset());

    const part_view inner = *doc.find("2.1");
    EXPECT_TRUE(inner.in_decoded_body());
    EXPECT_EQ(inner.raw(), mail);
    EXPECT_EQ(inner.header("Subject")->value(), "Quarterly report");
    EXPECT_EQ(inner.header("Message-ID")->value(), "<001501d95658$7a3b2c10$6eb18430$@example.net>");
    // Every entity of the attached mail reports where its encoded body starts in the input.
    for (const char* path : {"2.1", "2.1.1", "2.1.1.1", "2.1.1.2", "2.1.2"}) {
        const part_view p = *doc.find(path);
        EXPECT_TRUE(p.in_decoded_body()) << path;
        EXPECT_GT(p.offset(), input.size()) << path;
        EXPECT_EQ(p.input_offset(), att.body_offset()) << path;
    }
    const std::string html = decoded(*doc.find("2.1.1.2"));
    EXPECT_THAT(html, HasSubstr("caf\xC3\xA9 chain"));
    EXPECT_THAT(html, HasSubstr("src=\"cid:image001.png@01D95658.7A3B2C10\""));
    const std::string png = decoded(*doc.find("2.1.2"));
    EXPECT_TRUE(png.starts_with("\x89PNG\r\n\x1a\n"));
    EXPECT_EQ(doc.find("2.1.2")->content_id(), "image001.png@01D95658.7A3B2C10");

    expect_decoded_bodies_covered(doc);
    EXPECT_EQ(serialize(doc), input);
    EXPECT_EQ(write(node::from(doc.root())).bytes, input);  // untouched: copied as it was

    // The aggregate layer reads the attached HTML mail: its root and its cid: image.
    const auto agg = archive::aggregate::build(doc);
    ASSERT_EQ(agg.related().size(), 1u);
    EXPECT_EQ(agg.related()[0].part.path(), "2.1");
    ASSERT_TRUE(agg.related()[0].root.root.has_value());
    const part_view page = *agg.related()[0].root.root;
    EXPECT_EQ(page.path(), "2.1.1.2");
    auto img = agg.resolve(page, "cid:image001.png@01D95658.7A3B2C10");
    ASSERT_TRUE(img.target.has_value());
    EXPECT_EQ(img.target->path(), "2.1.2");
    for (const auto& x : agg.diagnostics()) EXPECT_LE(x.offset, input.size()) << x.message;
}

// A quoted-printable message/rfc822, with LF and with CRLF line ends.
TEST(EncodedMessage, QuotedPrintableMessageIsDecodedAndParsed) {
    const std::string mail =
        "From: D\xC3\xA9sir\xC3\xA9"
        "e <desiree@example.net>\r\n"
        "Subject: =?utf-8?q?R=C3=A9union?=\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "Content-Transfer-Encoding: 8bit\r\n"
        "\r\n"
        "La r\xC3\xA9union = jeudi.\r\n";
    for (const std::string& eol : {std::string("\r\n"), std::string("\n")}) {
        SCOPED_TRACE(eol == "\n" ? "LF" : "CRLF");
        std::string encoded = qp_encode(mail);
        ASSERT_THAT(encoded, HasSubstr("=3D"));
        const std::string head = "Content-Type: multipart/mixed; boundary=b" + eol + eol + "--b" +
                                 eol + "Content-Type: message/rfc822" + eol +
                                 "Content-Transfer-Encoding: quoted-printable" + eol + eol;
        const std::string input = head + encoded + eol + "--b--" + eol;
        const document doc = document::parse(input);
        EXPECT_EQ(count(doc, diag_code::message_with_encoding), 1u) << describe(doc);
        const diagnostic* eight = find_diag(doc, diag_code::header_8bit, "1.1");
        ASSERT_NE(eight, nullptr) << describe(doc);
        EXPECT_EQ(eight->offset, head.size());  // the encoded body, in the input
        EXPECT_THAT(eight->message, HasSubstr("quoted-printable-decoded body of part 1"));
        EXPECT_THAT(tree(doc), ElementsAre(": multipart multipart/mixed",
                                           "1: message message/rfc822", "1.1: leaf text/plain"));
        ASSERT_TRUE(doc.find("1.1").has_value());
        EXPECT_EQ(decoded(*doc.find("1")), mail);
        EXPECT_EQ(decoded(*doc.find("1.1")), "La r\xC3\xA9union = jeudi.\r\n");
        EXPECT_EQ(doc.find("1.1")->header("Subject")->value(), "=?utf-8?q?R=C3=A9union?=");
        expect_decoded_bodies_covered(doc);
        EXPECT_EQ(serialize(doc), input);
    }
}

// RFC 6532 §3.5: message/global may be encoded. It is decoded the same way, and nothing is
// reported, since nothing is wrong.
TEST(EncodedMessage, MessageGlobalMayBeEncoded_Rfc6532_3_5) {
    const std::string mail =
        "From: \xE7\x94\xB0\xE4\xB8\xAD <tanaka@example.jp>\r\n"
        "Subject: \xE4\xBC\x9A\xE8\xAD\xB0\r\n"
        "\r\n"
        "\xE6\x98\x8E\xE6\x97\xA5\r\n";
    const std::string input =
        "Content-Type: message/global\r\n"
        "Content-Transfer-Encoding: base64\r\n"
        "\r\n" +
        base64_encode(mail);
    const document doc = document::parse(input);
    ASSERT_THAT(codes(doc), ElementsAre("header_8bit")) << describe(doc);  // of the decoded mail
    EXPECT_EQ(doc.diagnostics()[0].part_path, "1");
    EXPECT_THAT(tree(doc), ElementsAre(": message message/global", "1: leaf text/plain"));
    ASSERT_TRUE(doc.find("1").has_value());
    EXPECT_EQ(decoded(*doc.find("1")), "\xE6\x98\x8E\xE6\x97\xA5\r\n");
    EXPECT_EQ(doc.find("1")->header("Subject")->value(), "\xE4\xBC\x9A\xE8\xAD\xB0");
    expect_decoded_bodies_covered(doc);
    EXPECT_EQ(serialize(doc), input);
}

// Broken encodings still give a message: what decodes is parsed (a body without a header
// block is a header-less text/plain entity, as for an unencoded message).
TEST(EncodedMessage, BadEncodingsStillRoundTrip) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"base64", "!!!! not base64 ????\r\n\x01\x02\xff\r\n"},
        {"base64", ""},
        {"base64", base64_encode(std::string(3000, '\0'))},
        {"base64", base64_encode("Subject: cut\r\n\r\nbody").substr(0, 17)},  // truncated
        {"quoted-printable", "Subject: x=\r\n=ZZ\r\n\r\nbody=\r\n"},
    };
    for (const auto& [cte, body] : cases) {
        SCOPED_TRACE(cte + ": " + body.substr(0, 30));
        const std::string input =
            "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
            "Content-Type: message/rfc822\r\n"
            "Content-Transfer-Encoding: " +
            cte + "\r\n\r\n" + body + "\r\n--b--\r\n";
        const document doc = document::parse(input);
        EXPECT_EQ(count(doc, diag_code::message_with_encoding), 1u) << describe(doc);
        ASSERT_TRUE(doc.find("1.1").has_value()) << describe(doc);
        EXPECT_EQ(doc.find("1")->kind(), entity_kind::message);
        EXPECT_EQ(doc.find("1")->raw_body(), body);
        std::string out;
        std::vector<diagnostic> diags;
        doc.find("1.1")->decode_to(out, diags);
        for (const diagnostic& x : diags) EXPECT_LE(x.offset, input.size());
        expect_decoded_bodies_covered(doc);
        EXPECT_EQ(serialize(doc), input);
    }
}

// A message/rfc822 in base64 (or quoted-printable) whose message is again one, `levels` deep;
// the innermost holds the text "core". Quoted-printable keeps the size: thousands of levels
// fit in a few hundred kilobytes.
std::string nested_messages(int levels, std::string_view cte) {
    std::string entity = "Content-Type: text/plain\r\n\r\ncore";
    for (int k = 0; k < levels; ++k) {
        entity = "Content-Type: message/rfc822\r\nContent-Transfer-Encoding: " + std::string(cte) +
                 "\r\n\r\n" + (cte == "base64" ? base64_encode(entity) : qp_encode(entity));
    }
    return entity;
}

TEST(EncodedMessage, REL_2_2_NestedDecodingIsBounded) {
    {
        const std::string input = nested_messages(7, "base64");
        const document doc = document::parse(input);  // default: 4 nested decoded bodies
        EXPECT_EQ(doc.decoded_bodies().size(), 4u) << describe(doc);
        ASSERT_EQ(count(doc, diag_code::decode_limit), 1u) << describe(doc);
        const diagnostic* lim = find_diag(doc, diag_code::decode_limit, "1.1.1.1");
        ASSERT_NE(lim, nullptr) << describe(doc);
        EXPECT_EQ(lim->sev, severity::error);
        EXPECT_EQ(lim->offset, doc.root().body_offset());
        // Each of the five reports its encoding; the fifth is kept as a leaf.
        EXPECT_EQ(count(doc, diag_code::message_with_encoding), 5u);
        const diagnostic* kept = find_diag(doc, diag_code::message_with_encoding, "1.1.1.1");
        ASSERT_NE(kept, nullptr);
        EXPECT_THAT(kept->message, HasSubstr("kept as a leaf"));
        ASSERT_TRUE(doc.find("1.1.1.1").has_value());
        const part_view fifth = *doc.find("1.1.1.1");
        EXPECT_TRUE(fifth.is_leaf());
        EXPECT_TRUE(fifth.in_decoded_body());
        EXPECT_EQ(doc.size(), 5u);
        expect_decoded_bodies_covered(doc);
        EXPECT_EQ(serialize(doc), input);

        parse_options deeper;
        deeper.max_decoded_nesting = 10;
        const document all = document::parse(input, deeper);
        EXPECT_EQ(count(all, diag_code::decode_limit), 0u);
        const auto core = all.find("1.1.1.1.1.1.1");
        ASSERT_TRUE(core.has_value()) << describe(all);
        EXPECT_EQ(decoded(*core), "core");
        EXPECT_EQ(core->depth(), 7u);
        expect_decoded_bodies_covered(all);
        EXPECT_EQ(serialize(all), input);
    }
    {
        // Thousands deep: the work is bounded by the nesting budget, not by the input.
        const std::string input = nested_messages(3000, "quoted-printable");
        const document doc = document::parse(input);
        EXPECT_EQ(doc.decoded_bodies().size(), 4u);
        EXPECT_EQ(count(doc, diag_code::decode_limit), 1u);
        EXPECT_EQ(doc.size(), 5u);
        std::uint64_t total = 0;
        for (const auto& b : doc.decoded_bodies()) total += b->bytes.size();
        EXPECT_LE(total, 4 * input.size());
        EXPECT_EQ(serialize(doc), input);
    }
}

// Nested quoted-printable messages each as large as the input: the decoded total stays
// within twice the input plus 1 MiB.
TEST(EncodedMessage, REL_2_2_DecodedOctetsAreBounded) {
    std::string entity = "Content-Type: text/plain\r\n\r\n";
    for (int i = 0; i < 40000; ++i) entity += std::string(60, 'x') + "\r\n";  // 2.4 MB
    for (int k = 0; k < 8; ++k)
        entity =
            "Content-Type: message/rfc822\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
            qp_encode(entity);
    parse_options opts;
    opts.max_decoded_nesting = 100;
    const document doc = document::parse(entity, opts);
    std::uint64_t total = 0;
    for (const auto& b : doc.decoded_bodies()) total += b->bytes.size();
    EXPECT_LE(total, 2 * entity.size() + (1u << 20));
    EXPECT_GE(doc.decoded_bodies().size(), 1u);
    EXPECT_LT(doc.decoded_bodies().size(), 8u);
    const diagnostic* lim = nullptr;
    for (const auto& d : doc.diagnostics())
        if (d.code == diag_code::decode_limit) lim = &d;
    ASSERT_NE(lim, nullptr) << describe(doc);
    EXPECT_THAT(lim->message, HasSubstr("limit of decoded octets"));
    expect_decoded_bodies_covered(doc);
    EXPECT_EQ(serialize(doc), entity);
}

TEST(EncodedMessage, SalvageOffOrPartLimitKeepsALeaf) {
    const std::string input =
        "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
        "Content-Type: message/rfc822\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
        base64_encode("Subject: hi\r\n\r\nbody\r\n") + "--b--\r\n";
    {
        parse_options off;
        off.max_decoded_nesting = 0;
        const document doc = document::parse(input, off);
        ASSERT_THAT(codes(doc), ElementsAre("message_with_encoding")) << describe(doc);
        EXPECT_THAT(doc.diagnostics()[0].message, HasSubstr("kept as a leaf"));
        EXPECT_THAT(tree(doc),
                    ElementsAre(": multipart multipart/mixed", "1: leaf message/rfc822"));
        EXPECT_EQ(decoded(*doc.find("1")), "Subject: hi\r\n\r\nbody\r\n");
        EXPECT_THAT(doc.decoded_bodies(), IsEmpty());
        EXPECT_EQ(serialize(doc), input);
    }
    {
        parse_options few;
        few.limits.max_parts = 2;
        const document doc = document::parse(input, few);
        EXPECT_THAT(codes(doc), ElementsAre("message_with_encoding", "part_count_limit"))
            << describe(doc);
        EXPECT_EQ(doc.size(), 2u);
        EXPECT_TRUE(doc.find("1")->is_leaf());
        EXPECT_THAT(doc.decoded_bodies(), IsEmpty());
        EXPECT_EQ(serialize(doc), input);
    }
    {
        parse_options shallow;
        shallow.limits.max_depth = 1;
        const document doc = document::parse(input, shallow);
        EXPECT_THAT(codes(doc), ElementsAre("depth_limit")) << describe(doc);
        EXPECT_THAT(doc.decoded_bodies(), IsEmpty());
        EXPECT_EQ(serialize(doc), input);
    }
}

// A part of the attached mail changed and written again: the message is written as a plain
// message/rfc822 (RFC 2046 §5.2.1), labelled 8bit when its content needs it, and reads back.
TEST(EncodedMessage, WriterDropsTheEncodingOfAChangedMessage) {
    const std::string mail =
        "Subject: inner\r\nContent-Type: multipart/mixed; boundary=i\r\n\r\n"
        "--i\r\nContent-Type: text/plain\r\n\r\nold\r\n--i\r\nContent-Type: image/gif\r\n"
        "Content-Transfer-Encoding: base64\r\n\r\n" +
        base64_encode("GIF89a\x01\x02") + "--i--\r\n";
    const std::string input =
        "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
        "Content-Type: message/rfc822\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
        base64_encode(mail) + "--b--\r\n";
    const document doc = document::parse(input);
    ASSERT_EQ(doc.size(), 5u) << describe(doc);  // so that the nodes below exist
    for (const std::string& text : {std::string("new text\r\n"), std::string("caf\xC3\xA9\r\n")}) {
        node root = node::from(doc.root());
        node& inner_text = root.children()[0].children()[0].children()[0];
        inner_text.set_content(text);
        inner_text.set("Content-Transfer-Encoding", "8bit");
        const write_result w = write(root);
        ASSERT_TRUE(w.ok()) << w.error->message;
        EXPECT_EQ(w.bytes.find("Content-Transfer-Encoding: base64\r\n\r\nU3Vi"), std::string::npos);
        const document again = document::parse(w.bytes);
        EXPECT_EQ(count(again, diag_code::message_with_encoding), 0u) << describe(again);
        EXPECT_THAT(tree(again),
                    ElementsAre(": multipart multipart/mixed", "1: message message/rfc822",
                                "1.1: multipart multipart/mixed", "1.1.1: leaf text/plain",
                                "1.1.2: leaf image/gif"));
        EXPECT_EQ(decoded(*again.find("1.1.1")), text);
        EXPECT_EQ(decoded(*again.find("1.1.2")), "GIF89a\x01\x02");
        EXPECT_EQ(again.find("1")->encoding(), text.find('\xC3') == std::string::npos
                                                   ? transfer_encoding::seven_bit
                                                   : transfer_encoding::eight_bit);
    }
}

// message/global keeps the encoding it asked for (RFC 6532 §3.5) when written again.
TEST(EncodedMessage, WriterKeepsTheEncodingOfMessageGlobal) {
    const std::string input =
        "Content-Type: message/global\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
        base64_encode("Subject: s\r\n\r\nbody\r\n");
    const document doc = document::parse(input);
    ASSERT_EQ(doc.size(), 2u);
    node root = node::from(doc.root());
    root.children()[0].set_content("changed\r\n");
    const write_result w = write(root);
    ASSERT_TRUE(w.ok());
    EXPECT_THAT(w.bytes, HasSubstr("Content-Transfer-Encoding: base64\r\n\r\nU3ViamVjdDog"));
    const document again = document::parse(w.bytes);
    EXPECT_THAT(again.diagnostics(), IsEmpty());
    ASSERT_TRUE(again.find("1").has_value());
    EXPECT_EQ(decoded(*again.find("1")), "changed\r\n");
    EXPECT_EQ(again.find("1")->header("Subject")->value(), "s");
}

}  // namespace
}  // namespace mhtml::mime
