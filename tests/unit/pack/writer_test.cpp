#include "mhtml/pack/writer.hpp"
#include "support/loopback_http.hpp"

#include <brotli/encode.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/archive/check.hpp"
#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/mime/quoted_printable.hpp"

namespace fs = std::filesystem;
using mhtml::diag_code;
using mhtml::severity;
using mhtml::pack::resource;
using mhtml::pack::write_report;
using mhtml::pack::writer_options;
using mhtml::test::gzip;

namespace {

resource res(std::string label, std::string type, std::string data) {
    return resource::from_data(std::move(label), std::move(type), std::move(data));
}

struct written {
    std::string bytes;
    write_report report;
};

written write(const resource& root, const std::vector<resource>& others, writer_options opt = {}) {
    written w;
    mhtml::pack::string_sink s(w.bytes);
    w.report = mhtml::pack::write_archive(s, root, others, opt);
    return w;
}

bool has_diag(const write_report& r, diag_code c) {
    for (const auto& d : r.diagnostics)
        if (d.code == c) return true;
    return false;
}

std::string md5_base64(std::string_view s) {
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(s.data(), s.size(), d, &n, EVP_md5(), nullptr);
    return mhtml::mime::base64_encode(std::string_view(reinterpret_cast<char*>(d), n), 0);
}

/// Which of the parts after the root (report.parts[1], ...) were copied as they were encoded.
std::vector<bool> copied(const written& w) {
    std::vector<bool> out;
    for (std::size_t i = 1; i < w.report.parts.size(); ++i)
        out.push_back(w.report.parts[i].copied_encoded);
    return out;
}

/// The checks every output passes: parsed with no error or ambiguous diagnostic, `check` has
/// no MUST or SHOULD finding, each written part decodes to `expected[i]` (in report order) and
/// its label resolves to it from the root.
void verify(const written& w, const std::vector<std::string>& expected) {
    ASSERT_TRUE(w.report.ok());
    EXPECT_EQ(w.report.bytes, w.bytes.size());
    auto doc = mhtml::mime::document::parse(std::string_view(w.bytes));
    for (const auto& d : doc.diagnostics())
        EXPECT_LT(d.sev, severity::ambiguous) << mhtml::code_name(d.code) << ": " << d.message;
    for (const auto& f : mhtml::archive::check(doc)) {
        EXPECT_EQ(f.level, mhtml::archive::finding_level::note)
            << f.requirement << " " << f.code << " " << f.part_path << ": " << f.message;
    }
    // CRLF everywhere.
    for (std::size_t i = 0; i < w.bytes.size(); ++i) {
        if (w.bytes[i] == '\n') {
            ASSERT_TRUE(i > 0 && w.bytes[i - 1] == '\r') << "bare LF at " << i;
        }
    }
    auto ar = mhtml::archive::aggregate::build(doc);
    const auto root = ar.main_root();
    std::size_t k = 0;
    for (const auto& p : w.report.parts) {
        if (!p.written) continue;
        ASSERT_LT(k, expected.size());
        std::optional<mhtml::mime::part_view> part;
        for (const auto& q : doc.parts())
            if (q.path() == p.path) part = q;
        ASSERT_TRUE(part) << p.path;
        EXPECT_EQ(part->offset(), p.offset) << p.path;
        if (!p.external) {
            std::string decoded;
            part->decode_to(decoded);
            EXPECT_EQ(decoded, expected[k]) << "part " << p.path;
            EXPECT_EQ(p.decoded_size, expected[k].size());
        }
        if (!p.label.empty()) {
            const auto r = ar.resolve(root, p.label);
            ASSERT_TRUE(r.target) << p.label;
            EXPECT_EQ(r.target->path(), p.path) << p.label;
        }
        ++k;
    }
    EXPECT_EQ(k, expected.size());
}

const std::string page =
    "<!DOCTYPE html><html><head><title>A &amp; B</title></head><body>"
    "<p>Hello</p></body></html>\r\n";
const std::string page_img =
    "<!DOCTYPE html><html><head><title>A &amp; B</title></head><body>"
    "<p>Hello <img src=\"http://x.example/a.png\"></p></body></html>\r\n";

std::string random_bytes(std::size_t n, unsigned seed) {
    std::mt19937 g(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(g());
    return s;
}

std::string brotli(std::string_view s) {
    std::size_t n = BrotliEncoderMaxCompressedSize(s.size());
    std::string out(n, '\0');
    BrotliEncoderCompress(5, 22, BROTLI_MODE_GENERIC, s.size(),
                          reinterpret_cast<const std::uint8_t*>(s.data()), &n,
                          reinterpret_cast<std::uint8_t*>(out.data()));
    out.resize(n);
    return out;
}

}  // namespace

TEST(Writer, MHT_7_6_TypeAlwaysAndRootFirst) {
    const auto png = random_bytes(5000, 1);
    auto w = write(res("http://x.example/", "text/html", page_img),
                   {res("http://x.example/a.png", "image/png", png)});
    verify(w, {page_img, png});
    EXPECT_THAT(w.bytes, testing::HasSubstr("MIME-Version: 1.0\r\n"));
    EXPECT_THAT(w.bytes, testing::HasSubstr("multipart/related;\r\n type=\"text/html\";\r\n "
                                            "boundary=\"" +
                                            w.report.boundary + "\""));
    EXPECT_THAT(w.bytes, testing::Not(testing::HasSubstr("start=")));
    EXPECT_THAT(w.bytes, testing::HasSubstr("Subject: A & B\r\n"));
    EXPECT_THAT(w.bytes, testing::HasSubstr("Snapshot-Content-Location: http://x.example/\r\n"));
    EXPECT_THAT(w.report.boundary, testing::HasSubstr("=_"));
    // Text of several lines goes quoted-printable: Chromium drops the line breaks of 7bit.
    EXPECT_EQ(w.report.parts[0].transfer_encoding, "quoted-printable");
    EXPECT_EQ(w.report.parts[1].transfer_encoding, "base64");
    EXPECT_THAT(w.report.parts[0].content_type, testing::HasSubstr("charset=\"UTF-8\""));
    // Every line of base64 is 76 characters but the last.
    EXPECT_THAT(w.bytes,
                testing::HasSubstr("\r\n" + mhtml::mime::base64_encode(png).substr(0, 78)));
}

// Base64 already in the encoder's form is copied as it is; any other is decoded and written
// anew; the octets are the same either way.
TEST(Writer, Base64BodyCopiedWhenCanonical) {
    const auto png = random_bytes(5000, 7);
    const std::string canonical = mhtml::mime::base64_encode(png);
    const std::string lf = mhtml::mime::base64_encode(png, 64);  // lines of 64
    resource a = res("http://x.example/a.png", "image/png", "");
    a.base64_body = canonical;
    resource b = res("http://x.example/b.png", "image/png", "");
    b.base64_body = lf;
    resource c = res("http://x.example/c.css", "text/css", "");  // text: always decoded
    const std::string css = "p{color:red}\r\n";
    const std::string css64 = mhtml::mime::base64_encode(css);
    c.base64_body = css64;
    auto w = write(res("http://x.example/", "text/html", page_img), {a, b, c});
    verify(w, {page_img, png, png, css});
    EXPECT_TRUE(w.report.parts[1].copied_encoded);
    EXPECT_FALSE(w.report.parts[2].copied_encoded);
    EXPECT_FALSE(w.report.parts[3].copied_encoded);
    EXPECT_EQ(w.report.parts[1].decoded_size, png.size());
    EXPECT_EQ(w.report.parts[2].decoded_size, png.size());
    EXPECT_THAT(w.bytes, testing::HasSubstr("\r\n\r\n" + canonical + "\r\n--"));
    // A Content-MD5 to compute needs the octets: decoded then.
    writer_options o;
    o.content_md5 = true;
    auto m = write(res("http://x.example/", "text/html", page_img), {a}, o);
    verify(m, {page_img, png});
    EXPECT_FALSE(m.report.parts[1].copied_encoded);
    EXPECT_THAT(m.bytes, testing::HasSubstr("Content-MD5: " + md5_base64(png)));
}

// A caller that checked the form already (resource::checked, as repair does on the thread
// that plans) is taken at its word: the writer copies what it was told is canonical and
// decodes what it was told is not, and the decoded size is the caller's.
// The writer keeps the last types it parsed (a few, taken in turn by an archive's parts):
// more types than it keeps, in turn and in another order, each still written as given.
TEST(Writer, TypesTakenInTurnAreEachTheirOwn) {
    std::vector<std::string> types;
    for (int k = 0; k < 11; ++k) types.push_back("image/x-t" + std::to_string(k));
    types.push_back("text/css; charset=utf-8");
    types.push_back("text/plain");
    std::vector<resource> rs;
    std::vector<std::string> octets = {page};
    for (int round = 0; round < 3; ++round)
        for (std::size_t k = 0; k < types.size(); ++k) {
            const std::size_t t =
                round == 1 ? types.size() - 1 - k : (k * 5 + round) % types.size();
            const std::string data = "part " + std::to_string(rs.size()) + "\r\n";
            rs.push_back(res("http://x.example/" + std::to_string(rs.size()), types[t], data));
            octets.push_back(data);
        }
    auto w = write(res("http://x.example/", "text/html", page), rs);
    verify(w, octets);
    for (std::size_t i = 0; i < rs.size(); ++i) {
        const std::string& want = rs[i].content_type;
        const std::string& got = w.report.parts[i + 1].content_type;
        EXPECT_EQ(got.substr(0, got.find(';')), want.substr(0, want.find(';'))) << i;
        EXPECT_EQ(w.report.parts[i + 1].transfer_encoding,
                  want.starts_with("text/") ? "quoted-printable" : "base64")
            << i;
    }
}

TEST(Writer, EncodedBodyCheckedByTheCaller) {
    const auto png = random_bytes(5000, 8);
    const std::string canonical = mhtml::mime::base64_encode(png);
    ASSERT_EQ(mhtml::mime::canonical_base64_size(canonical), png.size());
    resource a = res("http://x.example/a.png", "image/png", "");
    a.base64_body = canonical;
    a.checked = {true, png.size()};
    resource b = res("http://x.example/b.png", "image/png", "");
    b.base64_body = canonical;
    b.checked = {true, std::nullopt};  // said not canonical: decoded and encoded again
    const std::string css = ".a{color:red}\r\n";
    resource c = res("http://x.example/c.css", "text/css; charset=utf-8", "");
    c.qp_body = css;  // its own quoted-printable form
    c.checked = {true, css.size()};
    resource d = res("http://x.example/d.css", "text/css; charset=utf-8", "");
    d.qp_body = css;
    d.checked = {true, std::nullopt};
    auto w = write(res("http://x.example/", "text/html", page_img), {a, b, c, d});
    verify(w, {page_img, png, png, css, css});
    EXPECT_EQ(copied(w), (std::vector<bool>{true, false, true, false}));
    // The size is the caller's: the writer did not check again.
    resource e = res("http://x.example/e.png", "image/png", "");
    e.base64_body = canonical;
    e.checked = {true, png.size() + 1};
    auto t = write(res("http://x.example/", "text/html", page_img), {e});
    EXPECT_TRUE(t.report.parts[1].copied_encoded);
    EXPECT_EQ(t.report.parts[1].decoded_size, png.size() + 1);
}

// Quoted-printable text already in the encoder's form is copied as it is, with the charset
// its type names or the one chosen from its decoded octets; any other is decoded and written
// anew; the octets are the same either way.
TEST(Writer, QuotedPrintableBodyCopiedWhenCanonical) {
    const std::string css = ".a{color:red}\r\np::before{content:\"\xC3\xA9=\"}\r\n";
    const std::string canonical = ".a{color:red}\r\np::before{content:\"=C3=A9=3D\"}\r\n";
    resource a = res("http://x.example/a.css", "text/css; charset=utf-8", "");
    a.qp_body = canonical;
    resource b = res("http://x.example/b.css", "text/css", "");  // no charset: UTF-8 chosen
    b.qp_body = canonical;
    resource c = res("http://x.example/c.css", "text/css", "");
    const std::string lower = ".a{color:red}\r\np::before{content:\"=c3=a9=3d\"}\r\n";
    c.qp_body = lower;  // lower-case hex: not the encoder's form
    resource d = res("http://x.example/d.css", "text/css", "");
    const std::string bare = ".a{color:red}\np::before{content:\"=C3=A9=3D\"}\n";
    d.qp_body = bare;  // LF line ends: made CRLF
    auto w = write(res("http://x.example/", "text/html", page), {a, b, c, d});
    verify(w, {page, css, css, css, css});
    EXPECT_EQ(copied(w), (std::vector<bool>{true, true, false, false}));
    for (std::size_t i = 1; i <= 4; ++i) {
        EXPECT_EQ(w.report.parts[i].decoded_size, css.size()) << i;
        EXPECT_EQ(w.report.parts[i].transfer_encoding, "quoted-printable") << i;
    }
    EXPECT_EQ(w.report.parts[1].content_type, "text/css; charset=\"utf-8\"");
    EXPECT_EQ(w.report.parts[2].content_type, "text/css; charset=\"UTF-8\"");
    // Copied: its octets, then the delimiter's CRLF (none added for the text's own end).
    EXPECT_THAT(w.bytes, testing::HasSubstr("\r\n\r\n" + canonical + "\r\n--"));
    // Re-encoded: the encoder escapes a "." that starts a line.
    EXPECT_THAT(w.bytes, testing::HasSubstr("\r\n\r\n=2Ea{color:red}"));
    // Without a line end at its end, the text ends where the delimiter's CRLF begins.
    resource e = res("http://x.example/e.txt", "text/plain; charset=us-ascii", "");
    e.qp_body = "no line end";
    auto t = write(res("http://x.example/", "text/html", page), {e});
    verify(t, {page, "no line end"});
    EXPECT_TRUE(t.report.parts[1].copied_encoded);
    // The root, a Content-MD5 to compute, or a UTF-16 charset need the octets: decoded then.
    writer_options o;
    o.content_md5 = true;
    auto m = write(res("http://x.example/", "text/html", page), {a}, o);
    verify(m, {page, css});
    EXPECT_FALSE(m.report.parts[1].copied_encoded);
    resource wide = res("http://x.example/w.txt", "text/plain; charset=utf-16le", "");
    wide.qp_body = "a=00b=00";
    auto u = write(res("http://x.example/", "text/html", page), {wide});
    verify(u, {page, "ab"});
    EXPECT_FALSE(u.report.parts[1].copied_encoded);
    // A byte order mark behind a soft break that starts the body is found too (such a body is
    // not the encoder's form): UTF-16 transcoded to UTF-8, whatever the type says.
    resource bom = res("http://x.example/b.txt", "text/plain; charset=utf-8", "");
    bom.qp_body = "=\r\n=FF=FEh=00i=00";
    auto v = write(res("http://x.example/", "text/html", page), {bom});
    verify(v, {page, "hi"});
    EXPECT_FALSE(v.report.parts[1].copied_encoded);
    EXPECT_EQ(v.report.parts[1].content_type, "text/plain; charset=\"UTF-8\"");
    resource root = res("http://x.example/", "text/html", "");
    const std::string page_qp = mhtml::mime::qp_encode(page);
    root.qp_body = page_qp;
    auto r = write(root, {});
    verify(r, {page});
    EXPECT_FALSE(r.report.parts[0].copied_encoded);
}

// MHT-4.4.2.2: a long URI is folded per RFC 2017 by default; with fold_uris off it stays on
// one line (Chromium's reader joins no quoted words), up to the 998-octet line limit.
TEST(Writer, MHT_4_4_2_2_FoldUrisOff) {
    const std::string url = "http://x.example/" + std::string(150, 'p') + ".png";
    const auto png = random_bytes(100, 3);
    writer_options o;
    o.fold_uris = false;
    auto w =
        write(res("http://x.example/", "text/html", page_img), {res(url, "image/png", png)}, o);
    EXPECT_THAT(w.bytes, testing::HasSubstr("\r\nContent-Location: " + url + "\r\n"));
    const auto doc = mhtml::mime::document::parse(std::string_view(w.bytes));
    EXPECT_EQ(doc.parts()[2].content_location(), url);
    auto folded =
        write(res("http://x.example/", "text/html", page_img), {res(url, "image/png", png)});
    EXPECT_THAT(folded.bytes, testing::Not(testing::HasSubstr(url)));
    // Past 998 octets a line cannot hold it: folded anyway.
    const std::string huge = "http://x.example/" + std::string(1000, 'q');
    auto h =
        write(res("http://x.example/", "text/html", page_img), {res(huge, "image/png", png)}, o);
    EXPECT_THAT(h.bytes, testing::Not(testing::HasSubstr(huge)));
}

// A message/external-body resource is written 7bit as given (RFC 2046 5.2.3); one that is
// not 7bit is left out.
TEST(Writer, ExternalBodyResourceIsSevenBit) {
    const std::string inner = "Content-Type: image/png\nContent-ID: <a@x.example>\n\n";
    auto w = write(
        res("http://x.example/", "text/html", page_img),
        {res("", "message/external-body; access-type=\"URL\"; url=\"http://x.example/a\"", inner),
         res("", "message/external-body; access-type=\"URL\"; url=\"http://x.example/b\"",
             "Content-Type: image/png\n\n\xE9")});
    ASSERT_TRUE(w.report.ok());
    ASSERT_EQ(w.report.parts.size(), 3u);
    EXPECT_EQ(w.report.parts[1].transfer_encoding, "7bit");
    EXPECT_FALSE(w.report.parts[2].written);
    EXPECT_THAT(w.bytes, testing::Not(testing::HasSubstr("x.example/b")));
    EXPECT_THAT(w.bytes, testing::HasSubstr("Content-Transfer-Encoding: 7bit\r\n\r\nContent-Type: "
                                            "image/png\r\nContent-ID: <a@x.example>\r\n\r\n"));
    EXPECT_TRUE(has_diag(w.report, diag_code::resource_unreadable));
    // Given as base64, it is decoded (never copied as its header block), and it gets no
    // Content-MD5 (RFC 1864 is for a leaf's octets).
    resource e =
        res("", "message/external-body; access-type=\"URL\"; url=\"http://x.example/a\"", "");
    const std::string inner64 = mhtml::mime::base64_encode(inner);
    e.base64_body = inner64;
    writer_options o;
    o.content_md5 = true;
    auto m = write(res("http://x.example/", "text/html", page_img), {e}, o);
    EXPECT_FALSE(m.report.parts[1].copied_encoded);
    EXPECT_THAT(m.bytes, testing::HasSubstr("7bit\r\n\r\nContent-Type: image/png\r\n"));
    EXPECT_EQ(m.bytes.find("Content-MD5", m.report.parts[1].offset), std::string::npos);
}

TEST(Writer, MHT_7_7_RootNotFirstWritesStart) {
    writer_options o;
    o.root_position = 1;
    auto w = write(res("http://x.example/", "text/html", page),
                   {res("http://x.example/a.css", "text/css", "p{}\r\n")}, o);
    // The report is in output order: the style sheet (resource 1), then the root (0).
    ASSERT_EQ(w.report.parts.size(), 2u);
    EXPECT_EQ(w.report.parts[0].index, 1u);
    EXPECT_EQ(w.report.parts[0].path, "1");
    EXPECT_EQ(w.report.parts[1].index, 0u);
    EXPECT_EQ(w.report.parts[1].path, "2");
    const std::string id = w.report.parts[1].content_id;
    ASSERT_FALSE(id.empty());
    EXPECT_THAT(w.bytes, testing::HasSubstr("start=\"<" + id + ">\""));
    EXPECT_THAT(w.bytes, testing::HasSubstr("Content-ID: <" + id + ">"));
    auto doc = mhtml::mime::document::parse(std::string_view(w.bytes));
    auto ar = mhtml::archive::aggregate::build(doc);
    EXPECT_EQ(ar.main_root().path(), "2");
    verify(w, {"p{}\r\n", page});
}

// Found by fuzz/pack_fuzz.cpp: a root Content-ID with a line break made the top-level
// Content-Type (its `start`) unwritable, and the output was no multipart at all.
TEST(Writer, MHT_7_7_UnwritableContentIdIsReplacedAndStartAgrees) {
    writer_options o;
    o.root_position = 1;
    resource root = res("http://x.example/", "text/html", page);
    root.content_id = "a\r\nb\"c";
    resource css = res("http://x.example/a.css", "text/css", "p{}\r\n");
    css.content_id = "x y";
    auto w = write(root, {css}, o);
    EXPECT_TRUE(has_diag(w.report, diag_code::field_dropped));
    ASSERT_EQ(w.report.parts.size(), 2u);
    const std::string id = w.report.parts[1].content_id;
    EXPECT_NE(id, root.content_id);
    EXPECT_THAT(w.bytes, testing::HasSubstr("start=\"<" + id + ">\""));
    EXPECT_NE(w.report.parts[0].content_id, "x y");
    auto doc = mhtml::mime::document::parse(std::string_view(w.bytes));
    auto ar = mhtml::archive::aggregate::build(doc);
    EXPECT_EQ(ar.main_root().path(), "2");
    verify(w, {"p{}\r\n", page});
}

TEST(Writer, MHT_4_4_2_LongUrlIsFolded) {
    const std::string url = "http://x.example/" + std::string(120, 'a') + ".png";
    auto w = write(res("http://x.example/", "text/html", page), {res(url, "image/png", "PNG")});
    verify(w, {page, "PNG"});
    EXPECT_THAT(w.bytes, testing::HasSubstr("Content-Location: \"http://"));
    // The field's lines (the first and its continuations) fit in 78 columns.
    std::size_t start = w.bytes.find("Content-Location: \"http://");
    int lines = 0;
    do {
        const auto end = w.bytes.find("\r\n", start);
        EXPECT_LE(end - start, 78u);
        start = end + 2;
        ++lines;
    } while (w.bytes[start] == ' ');
    EXPECT_GE(lines, 3);
}

TEST(Writer, MHT_4_4_1_5_SpaceAnd8BitUseRfc2047) {
    const std::string space = "http://x.example/a b.gif";
    const std::string eight = "http://x.example/caf\xC3\xA9.gif";
    auto w = write(res("http://x.example/", "text/html; charset=utf-8", page),
                   {res(space, "image/gif", "GIF89a"), res(eight, "image/gif", "GIF87a")});
    verify(w, {page, "GIF89a", "GIF87a"});
    EXPECT_THAT(w.bytes,
                testing::HasSubstr("Content-Location: =?US-ASCII?Q?http://x.example/a=20b.gif?="));
    EXPECT_THAT(w.bytes, testing::HasSubstr("=?UTF-8?Q?http://x.example/caf=C3=A9.gif?="));
}

TEST(Writer, BoundaryInBodyGoesQuotedPrintable) {
    writer_options o;
    o.boundary = "----=_fixed_for_test";
    // One line (the only text that may go 7bit) that is a delimiter line, one that is not at
    // a line start, and several lines holding delimiters (quoted-printable anyway).
    const std::string evil = "--" + o.boundary + "--";
    const std::string safe = "x --" + o.boundary;  // not at a line start
    const std::string lines = "line\r\n--" + o.boundary + "\r\nmore\r\n--" + o.boundary + "--\r\n";
    auto w = write(res("http://x.example/", "text/html", page),
                   {res("http://x.example/t.txt", "text/plain", evil),
                    res("http://x.example/u.txt", "text/plain", safe),
                    res("http://x.example/v.txt", "text/plain", lines)},
                   o);
    EXPECT_EQ(w.report.boundary, o.boundary);
    verify(w, {page, evil, safe, lines});
    EXPECT_EQ(w.report.parts[1].transfer_encoding, "quoted-printable");
    EXPECT_EQ(w.report.parts[2].transfer_encoding, "7bit");
    EXPECT_EQ(w.report.parts[3].transfer_encoding, "quoted-printable");
    EXPECT_TRUE(has_diag(w.report, diag_code::boundary_in_body));
    // A boundary without "=_" is not taken (base64 and QP could not be proved free of it).
    o.boundary = "simple";
    auto v = write(res("http://x.example/", "text/html", page), {}, o);
    EXPECT_NE(v.report.boundary, "simple");
}

TEST(Writer, MHT_11_4_LfTextBecomesCrlf) {
    const std::string lf = "body { color: red }\nh1 {}\n";
    resource css = res("http://x.example/a.css", "text/css", lf);
    css.fields = {{"Content-MD5", md5_base64(lf)}};
    auto w = write(res("http://x.example/", "text/html", page), {css});
    verify(w, {page, "body { color: red }\r\nh1 {}\r\n"});
    EXPECT_EQ(w.report.parts[1].source_size, lf.size());       // as given
    EXPECT_EQ(w.report.parts[1].decoded_size, lf.size() + 2);  // as written
    EXPECT_TRUE(has_diag(w.report, diag_code::line_ends_converted));
    EXPECT_TRUE(has_diag(w.report, diag_code::content_md5_dropped));  // MHT-11.5
    EXPECT_THAT(w.bytes, testing::Not(testing::HasSubstr("Content-MD5")));
}

TEST(Writer, MHT_11_8_CrlfTextUntouchedAndMd5Kept) {
    const std::string crlf = "a\r\nb\r\n";
    resource t = res("http://x.example/a.txt", "text/plain; charset=us-ascii", crlf);
    t.fields = {{"Content-MD5", md5_base64(crlf)}, {"Content-Disposition", "inline"}};
    auto w = write(res("http://x.example/", "text/html", page), {t});
    verify(w, {page, crlf});
    EXPECT_FALSE(has_diag(w.report, diag_code::line_ends_converted));
    EXPECT_THAT(w.bytes, testing::HasSubstr("Content-MD5: " + md5_base64(crlf) + "\r\n"));
    EXPECT_THAT(w.bytes, testing::HasSubstr("Content-Disposition: inline\r\n"));
}

TEST(Writer, ContentMd5OptionOnEveryPart) {
    writer_options o;
    o.content_md5 = true;
    const auto png = random_bytes(1000, 3);
    auto w = write(res("http://x.example/", "text/html", page),
                   {res("http://x.example/a.png", "image/png", png)}, o);
    verify(w, {page, png});
    EXPECT_THAT(w.bytes, testing::HasSubstr("Content-MD5: " + md5_base64(page) + "\r\n"));
    EXPECT_THAT(w.bytes, testing::HasSubstr("Content-MD5: " + md5_base64(png) + "\r\n"));
}

TEST(Writer, MHT_11_7_Utf16IsTranscoded) {
    const std::string text = "h\xC3\xA9llo\r\n";
    std::string u16 = "\xFF\xFE";
    for (char c : std::string("h\xE9llo\r\n")) {
        u16 += c;
        u16 += '\0';
    }
    auto w = write(res("http://x.example/", "text/html", page),
                   {res("http://x.example/a.txt", "text/plain", u16)});
    verify(w, {page, text});
    EXPECT_TRUE(has_diag(w.report, diag_code::text_transcoded));
    EXPECT_THAT(w.report.parts[1].content_type, testing::HasSubstr("charset=\"UTF-8\""));
}

TEST(Writer, MHT_11_6_GzipDeflateBrotliAreUndone) {
    const std::string css = std::string(3000, 'x') + "\r\n";
    resource g = res("http://x.example/g.css", "text/css", gzip(css, 15 + 16));
    g.content_encoding = "gzip";
    resource d = res("http://x.example/d.css", "text/css", gzip(css, 15));
    d.content_encoding = "deflate";
    resource raw = res("http://x.example/r.css", "text/css", gzip(css, -15));
    raw.content_encoding = "deflate";
    resource b = res("http://x.example/b.css", "text/css", brotli(css));
    b.content_encoding = "br";
    auto w = write(res("http://x.example/", "text/html", page), {g, d, raw, b});
    verify(w, {page, css, css, css, css});
    EXPECT_TRUE(has_diag(w.report, diag_code::content_encoding_decoded));
    EXPECT_THAT(w.bytes, testing::Not(testing::HasSubstr("Content-Encoding")));
}

TEST(Writer, DecompressionBombIsRefused) {
    writer_options o;
    o.max_decoded_size = 1 << 20;
    resource bomb =
        res("http://x.example/bomb", "text/plain", gzip(std::string(16 << 20, 'a'), 31));
    bomb.content_encoding = "gzip";
    resource bad = res("http://x.example/bad", "text/plain", "not gzip at all");
    bad.content_encoding = "gzip";
    resource unknown = res("http://x.example/unk", "text/plain", "x");
    unknown.content_encoding = "compress";
    auto w = write(res("http://x.example/", "text/html", page), {bomb, bad, unknown}, o);
    verify(w, {page});
    EXPECT_TRUE(has_diag(w.report, diag_code::decompression_limit));
    EXPECT_TRUE(has_diag(w.report, diag_code::content_encoding_invalid));
    ASSERT_EQ(w.report.parts.size(), 4u);
    EXPECT_FALSE(w.report.parts[1].written);
}

TEST(Writer, UnreadableFileIsLeftOutAndListed) {
    resource f;
    f.label = "http://x.example/gone.png";
    f.content_type = "image/png";
    f.in_memory = false;
    f.file = "/nonexistent/gone.png";
    auto w = write(res("http://x.example/", "text/html", page), {f});
    verify(w, {page});
    EXPECT_TRUE(has_diag(w.report, diag_code::resource_unreadable));
    EXPECT_FALSE(w.report.parts[1].written);
}

TEST(Writer, URL_3_0_3_ExternalBody) {
    writer_options o;
    o.external_over = 100;
    const auto big = random_bytes(1000, 4);
    const std::string url = "http://x.example/" + std::string(60, 'b') + ".bin";
    auto w = write(res("http://x.example/", "text/html", page),
                   {res(url, "application/octet-stream", big),
                    res("urn:example:big", "application/octet-stream", big)},
                   o);
    verify(w, {page, "", big});
    EXPECT_TRUE(w.report.parts[1].external);
    EXPECT_TRUE(has_diag(w.report, diag_code::external_body_written));
    EXPECT_TRUE(has_diag(w.report, diag_code::external_not_url));
    EXPECT_THAT(w.bytes, testing::HasSubstr("message/external-body; access-type=URL; size=1000;"));
    EXPECT_THAT(w.bytes, testing::HasSubstr("Content-MD5: " + md5_base64(big) + "\r\n\r\n\r\n--"));
    auto doc = mhtml::mime::document::parse(std::string_view(w.bytes));
    for (const auto& p : doc.parts()) {
        if (p.path() != "2.1") continue;
        EXPECT_EQ(p.content_type().essence(), "application/octet-stream");
        EXPECT_TRUE(p.content_id().has_value());
    }
}

TEST(Writer, MHT_12_2_PrivateLabelsWarn) {
    for (std::string label :
         {"file:///home/u/a.png", "http://localhost/a.png", "http://10.1.2.3/a.png",
          "http://172.20.0.1/a", "http://192.168.1.1/", "http://[::1]/a", "http://[fd00::1]/a",
          "http://printer.local/a", "http://127.0.0.1:8080/a"}) {
        auto w = write(res("http://x.example/", "text/html", page), {res(label, "image/png", "x")});
        EXPECT_TRUE(has_diag(w.report, diag_code::private_label)) << label;
    }
    auto w = write(res("http://x.example/", "text/html", page),
                   {res("http://172.32.0.1/a", "image/png", "x")});
    EXPECT_FALSE(has_diag(w.report, diag_code::private_label));
}

TEST(Writer, FieldsCannotInjectHeaders) {
    resource r = res("http://x.example/a.txt", "text/plain", "a\r\n");
    r.fields = {{"Content-Description", "x\r\nContent-Type: text/evil"}};
    writer_options o;
    o.subject = "hi\r\nBcc: victim@example.com";
    auto w = write(res("http://x.example/", "text/html", page), {r}, o);
    verify(w, {page, "a\r\n"});
    EXPECT_THAT(w.bytes, testing::Not(testing::HasSubstr("text/evil")));
    // The subject's line break is made a space: its text stays in the Subject field.
    EXPECT_THAT(w.bytes, testing::StartsWith("Subject: hi Bcc: victim@example.com\r\n"));
    EXPECT_THAT(w.bytes, testing::Not(testing::HasSubstr("\nBcc:")));
    EXPECT_TRUE(has_diag(w.report, diag_code::field_value_invalid));
}

// A content_id_domain that cannot be written in a msg-id is replaced, and said so: a domain
// with a line end does not add a header field (a subagent's review found the Content-ID
// written unchecked).
TEST(Writer, GeneratedContentIdWithABadDomainIsNotWritten) {
    writer_options o;
    o.content_id_domain = "x\r\nX-Injected: 1";
    resource img = res("http://x.example/a.png", "image/png", random_bytes(300, 5));
    img.content_id = "not writable";  // white space: replaced with a generated one
    const auto w = write(res("http://x.example/", "text/html", "<img src=a.png>"), {img}, o);
    EXPECT_THAT(w.bytes, testing::Not(testing::HasSubstr("X-Injected")));
    EXPECT_TRUE(has_diag(w.report, diag_code::field_value_invalid));
    EXPECT_THAT(w.bytes, testing::ContainsRegex("Content-ID: <[0-9a-v]+@mhtml\\.invalid>"));
    const auto doc = mhtml::mime::document::parse(std::string_view(w.bytes));
    for (const auto& d : doc.diagnostics()) EXPECT_LT(d.sev, severity::ambiguous) << d.message;
}

TEST(Writer, MHT_7_6_MailModeStructure) {
    writer_options o;
    o.mail = true;
    o.from = "J\xC3\xB6rg <j@example.com>";
    o.to = "a@example.com";
    const std::string html =
        "<html><head><title>T</title><style>p{}</style><script>x()</script></head>"
        "<body><h1>Head</h1><p>One &amp; two</p><div>Three<br>Four</div>"
        "<img src=\"cid:img1@x.example\"></body></html>";
    resource img = res("", "image/png", random_bytes(300, 5));
    img.content_id = "img1@x.example";
    auto w = write(res("", "text/html; charset=utf-8", html), {img}, o);
    ASSERT_TRUE(w.report.ok());
    EXPECT_THAT(w.bytes, testing::HasSubstr("From: =?UTF-8?"));
    EXPECT_THAT(w.bytes, testing::HasSubstr("Message-ID: <"));
    EXPECT_THAT(w.bytes, testing::HasSubstr("type=\"multipart/alternative\""));
    auto doc = mhtml::mime::document::parse(std::string_view(w.bytes));
    for (const auto& d : doc.diagnostics()) EXPECT_LT(d.sev, severity::ambiguous) << d.message;
    std::vector<std::string> paths, types;
    for (const auto& p : doc.parts()) {
        paths.push_back(std::string(p.path()));
        types.push_back(p.content_type().essence());
    }
    EXPECT_THAT(paths, testing::ElementsAre("", "1", "1.1", "1.2", "2"));
    EXPECT_THAT(types, testing::ElementsAre("multipart/related", "multipart/alternative",
                                            "text/plain", "text/html", "image/png"));
    std::string text;
    doc.parts()[2].decode_to(text);
    EXPECT_EQ(text, "Head\r\nOne & two\r\nThree\r\nFour\r\n");
    auto ar = mhtml::archive::aggregate::build(doc);
    auto r = ar.resolve(doc.parts()[3], "cid:img1@x.example");
    ASSERT_TRUE(r.target);
    EXPECT_EQ(r.target->path(), "2");
    for (const auto& f : mhtml::archive::check(doc))
        EXPECT_EQ(f.level, mhtml::archive::finding_level::note) << f.code << ": " << f.message;
}

TEST(Writer, SinksGiveIdenticalBytes) {
    writer_options o;
    o.date = std::chrono::system_clock::time_point{};
    o.boundary = "=_same";
    const auto png = random_bytes(9 << 20, 6);  // over the 4 MiB buffer
    const resource root = res("http://x.example/", "text/html", page);
    const std::vector<resource> others = {res("http://x.example/a.png", "image/png", png)};
    auto normal = [](std::string s, const std::string&) { return s; };
    std::string a;
    mhtml::pack::string_sink sa(a);
    auto ra = mhtml::pack::write_archive(sa, root, others, o);
    std::string b;
    std::size_t calls = 0;
    mhtml::pack::callback_sink sb([&](std::string_view v) {
        ++calls;
        EXPECT_LE(v.size(), std::size_t{4} << 20);
        b.append(v);
        return true;
    });
    auto rb = mhtml::pack::write_archive(sb, root, others, o);
    const fs::path tmp =
        fs::temp_directory_path() / ("mhtml_writer_fd_" + std::to_string(getpid()));
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    mhtml::pack::fd_sink sc(fd);
    auto rc = mhtml::pack::write_archive(sc, root, others, o);
    ::close(fd);
    std::ifstream in(tmp, std::ios::binary);
    std::string c((std::istreambuf_iterator<char>(in)), {});
    fs::remove(tmp);
    EXPECT_GT(calls, 3u);
    EXPECT_EQ(normal(a, ra.boundary), normal(b, rb.boundary));
    EXPECT_EQ(normal(a, ra.boundary), normal(c, rc.boundary));
    // The atomic file sink.
    const fs::path target =
        fs::temp_directory_path() / ("mhtml_writer_file_" + std::to_string(getpid()));
    {
        mhtml::pack::file_sink fsink(target);
        ASSERT_TRUE(fsink.is_open());
        auto rd = mhtml::pack::write_archive(fsink, root, others, o);
        EXPECT_FALSE(fs::exists(target));
        ASSERT_TRUE(fsink.commit());
        std::ifstream in2(target, std::ios::binary);
        std::string d((std::istreambuf_iterator<char>(in2)), {});
        EXPECT_EQ(normal(a, ra.boundary), normal(d, rd.boundary));
    }
    fs::remove(target);
}

TEST(Writer, SinkFailureIsAnError) {
    mhtml::pack::callback_sink fail([](std::string_view) { return false; });
    auto r = mhtml::pack::write_archive(fail, res("http://x.example/", "text/html", page), {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error->code, diag_code::sink_write_failed);
}

// fd_sink and file_sink are written behind (a second thread writes one buffer while the next
// is encoded): the same octets as one thread, and a failed write is still an error.
TEST(Writer, WriteBehindGivesTheSameOctetsAndItsFailures) {
    const auto bin = random_bytes(13 << 20, 9);  // four buffers
    const resource root = res("http://x.example/", "text/html", page);
    // Base64 in the encoder's form, large enough to be handed to the writing thread as it is
    // (no copy into a buffer), between two parts that are encoded.
    const std::string big64 = mhtml::mime::base64_encode(random_bytes(3 << 20, 10));
    resource copied = res("http://x.example/b.png", "image/png", "");
    copied.base64_body = big64;
    const std::vector<resource> others = {res("http://x.example/a.bin", "image/png", bin), copied,
                                          res("http://x.example/a.css", "text/css", "a {}\n")};
    auto write_fd = [&](bool behind) {
        writer_options o;
        o.date = std::chrono::system_clock::time_point{};
        o.boundary = "=_same";
        o.write_behind = behind;
        const fs::path tmp =
            fs::temp_directory_path() / ("mhtml_writer_wb_" + std::to_string(getpid()));
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        EXPECT_GE(fd, 0);
        mhtml::pack::fd_sink sink(fd);
        const auto r = mhtml::pack::write_archive(sink, root, others, o);
        ::close(fd);
        std::ifstream in(tmp, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), {});
        fs::remove(tmp);
        EXPECT_TRUE(r.ok());
        EXPECT_EQ(r.bytes, bytes.size());
        EXPECT_TRUE(r.parts[2].copied_encoded);
        EXPECT_NE(bytes.find("\r\n\r\n" + big64 + "\r\n--"), std::string::npos);
        return bytes;
    };
    EXPECT_EQ(write_fd(true), write_fd(false));

    // /dev/full fails every write with ENOSPC: from the writing thread, seen by the writer.
    const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
    ASSERT_GE(full, 0);
    for (const bool behind : {true, false}) {
        writer_options o;
        o.write_behind = behind;
        mhtml::pack::fd_sink sink(full);
        const auto r = mhtml::pack::write_archive(sink, root, others, o);
        ASSERT_FALSE(r.ok()) << behind;
        EXPECT_EQ(r.error->code, diag_code::sink_write_failed);
        EXPECT_THAT(r.error->message, testing::HasSubstr(std::strerror(ENOSPC)));
        EXPECT_EQ(r.bytes, 0u);
        for (const auto& p : r.parts) EXPECT_FALSE(p.written) << p.path;
    }
    ::close(full);
}

// A sink that fails part way: the report is the same with and without writing behind (the
// octets accepted, where the failed write began, which parts are whole), but for the parts
// added before the writer saw the failure, listed as not written. In a child process: RLIMIT_FSIZE
// makes write() fail with EFBIG at 6 MiB.
// write_archive into a temporary file through an fd_sink, with or without writing behind:
// the report and the octets that reached the file.
std::pair<mhtml::pack::write_report, std::string> write_to_file(const resource& root,
                                                                const std::vector<resource>& others,
                                                                bool behind) {
    writer_options o;
    o.date = std::chrono::system_clock::time_point{};
    o.boundary = "=_same";
    o.write_behind = behind;
    const fs::path tmp = fs::temp_directory_path() /
                         ("mhtml_writer_file_" + std::to_string(getpid()) + (behind ? "b" : "f"));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    mhtml::pack::fd_sink sink(fd);
    auto r = mhtml::pack::write_archive(sink, root, others, o);
    ::close(fd);
    std::ifstream in(tmp, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    fs::remove(tmp);
    return {std::move(r), std::move(bytes)};
}

TEST(Writer, SinkFailingMidwayGivesTheSameReportWrittenBehindOrNot) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit lim{rlim_t{6} << 20, rlim_t{6} << 20};
        if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(3);
        std::vector<resource> others;
        for (unsigned i = 0; i < 12; ++i)  // 12 parts of 1 MiB: the failure falls in part 6
            others.push_back(res("http://x.example/" + std::to_string(i) + ".bin", "image/png",
                                 random_bytes(std::size_t{1} << 20, 20 + i)));
        const resource root = res("http://x.example/", "text/html", page);
        const auto [a, file_a] = write_to_file(root, others, true);
        const auto [b, file_b] = write_to_file(root, others, false);
        const auto size_a = file_a.size(), size_b = file_b.size();
        bool ok = !a.ok() && !b.ok() && a.bytes == b.bytes && a.bytes <= size_a &&
                  size_a == size_b && a.error->offset == b.error->offset &&
                  a.error->offset == a.bytes;
        // Writing behind sees the failure later, so more parts may be listed: none written.
        std::size_t whole = 0;
        const auto& more = a.parts.size() > b.parts.size() ? a.parts : b.parts;
        for (std::size_t i = 0; i < more.size(); ++i) {
            const bool both = i < a.parts.size() && i < b.parts.size();
            if (both && a.parts[i].written != b.parts[i].written) ok = false;
            if (!both && more[i].written) ok = false;
            whole += more[i].written ? 1 : 0;
            // A part is written only if it ends where the sink still accepted octets.
            if (more[i].written && i + 1 < more.size() && more[i + 1].offset > a.bytes) ok = false;
        }
        if (!ok || whole < 2) {
            std::fprintf(
                stderr, "bytes %llu / %llu, file %llu, parts %zu / %zu, whole %zu\n",
                static_cast<unsigned long long>(a.bytes), static_cast<unsigned long long>(b.bytes),
                static_cast<unsigned long long>(size_a), a.parts.size(), b.parts.size(), whole);
        }
        _exit(ok && whole >= 2 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the reports differ or are wrong, 3: no setrlimit";
}

// Many hand-overs in a row: large base64 bodies written from where they are (views) and
// encoded parts between them, queued for the writing thread in order. The same octets as one
// thread; and with a sink that fails part way (RLIMIT_FSIZE, in a child), the same report.
TEST(Writer, WriteBehindQueuesHandOversInOrderAndStopsAtAFailure) {
    std::vector<std::string> bodies;
    for (unsigned i = 0; i < 10; ++i)
        bodies.push_back(
            mhtml::mime::base64_encode(random_bytes((std::size_t{3} << 18) + i, 40 + i)));
    std::vector<resource> others;
    for (unsigned i = 0; i < bodies.size(); ++i) {
        resource copied = res("http://x.example/" + std::to_string(i) + ".png", "image/png", "");
        copied.base64_body = bodies[i];
        others.push_back(copied);
        if (i % 3 == 0)
            others.push_back(res("http://x.example/" + std::to_string(i) + ".bin", "image/png",
                                 random_bytes(std::size_t{5} << 20, 60 + i)));
        others.push_back(
            res("http://x.example/" + std::to_string(i) + ".css", "text/css", "a { b: c }\n"));
    }
    const resource root = res("http://x.example/", "text/html", page);
    const auto run = [&](bool behind) { return write_to_file(root, others, behind); };
    const auto [a, bytes_a] = run(true);
    const auto [b, bytes_b] = run(false);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a.bytes, bytes_a.size());
    EXPECT_TRUE(bytes_a == bytes_b);
    std::size_t copied = 0;
    for (const auto& p : a.parts) copied += p.copied_encoded ? 1 : 0;
    EXPECT_EQ(copied, bodies.size());

    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit lim{rlim_t{9} << 20, rlim_t{9} << 20};  // fails within the queue
        if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(3);
        // The octets confirmed differ with the size of the writes (a view is one write), so
        // each report is checked on its own: it fails where the sink stopped accepting, a
        // part is written exactly when it ends within what was accepted, and what reached
        // the file is the same octets.
        const auto [x, file_x] = run(true);
        const auto [y, file_y] = run(false);
        bool ok = file_x.size() == file_y.size();
        std::size_t whole = 0;
        for (const auto* r : {&x, &y}) {
            ok = ok && !r->ok() && r->bytes <= file_x.size() && r->error->offset == r->bytes;
            for (std::size_t i = 0; ok && i < r->parts.size(); ++i) {
                const std::uint64_t end =
                    i + 1 < r->parts.size() ? r->parts[i + 1].offset : ~std::uint64_t{0};
                if (r->parts[i].written != (end <= r->bytes)) ok = false;
                whole += r->parts[i].written ? 1 : 0;
            }
        }
        ok = ok && file_x == file_y;
        if (!ok || whole < 2)
            std::fprintf(stderr, "bytes %llu / %llu, file %zu / %zu, parts %zu / %zu, whole %zu\n",
                         static_cast<unsigned long long>(x.bytes),
                         static_cast<unsigned long long>(y.bytes), file_x.size(), file_y.size(),
                         x.parts.size(), y.parts.size(), whole);
        _exit(ok && whole >= 2 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the reports differ or are wrong, 3: no setrlimit";
}

// writer::expect with files and in-memory resources mixed: the same octets as without
// reading ahead, and with add() out of the announced order.
TEST(Writer, ReadAheadGivesTheSameOctets) {
    const fs::path dir =
        fs::temp_directory_path() / ("mhtml_read_ahead_" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::vector<resource> others;
    for (unsigned i = 0; i < 150; ++i) {
        const std::string label = "http://x.example/" + std::to_string(i);
        if (i % 3 == 0) {
            others.push_back(
                res(label + ".css", "text/css", "a { x: " + std::to_string(i) + " }\n"));
            continue;
        }
        resource r;
        r.label = label + (i % 3 == 1 ? ".png" : ".txt");
        r.content_type = i % 3 == 1 ? "image/png" : "text/plain; charset=utf-8";
        r.in_memory = false;
        r.file = dir / std::to_string(i);
        // Small and large files (read whole ahead, or only opened), one missing.
        const std::size_t n = i % 7 == 0 ? (std::size_t{300} << 10) : 100 + i * 37;
        if (i != 101) {
            std::ofstream(r.file, std::ios::binary) << random_bytes(n, i);
        }
        others.push_back(std::move(r));
    }
    const resource root = res("http://x.example/", "text/html", page);
    auto run = [&](bool ahead, bool shuffle) {
        writer_options o;
        o.date = std::chrono::system_clock::time_point{};
        o.boundary = "=_same";
        o.read_ahead = ahead;
        std::string out;
        mhtml::pack::string_sink sink(out);
        mhtml::pack::writer w(sink, o);
        w.expect(others);
        w.root(root);
        for (std::size_t i = 0; i < others.size(); ++i) {
            // Out of order once, at 100: the reading ahead ends, the writer reads on.
            const std::size_t k = shuffle && (i == 100 || i == 101) ? 201 - i : i;
            w.add(others[k]);
        }
        const auto r = w.finish();
        EXPECT_TRUE(r.ok());
        EXPECT_EQ(r.parts.size(), others.size() + 1);
        EXPECT_TRUE(has_diag(r, diag_code::resource_unreadable));  // the missing file
        return out;
    };
    const std::string plain = run(false, false);
    EXPECT_EQ(run(true, false), plain);
    EXPECT_EQ(run(true, true), run(false, true));
    fs::remove_all(dir);
}

/// A "Name:   N kB" line of /proc/self/status, in KiB; -1 if missing.
long status_kib(std::string_view name) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.starts_with(name)) return std::strtol(line.c_str() + name.size(), nullptr, 10);
    return -1;
}

TEST(Writer, LargeSparseFileIsStreamed) {
    const fs::path f = fs::temp_directory_path() / ("mhtml_sparse_" + std::to_string(getpid()));
    {
        int fd = ::open(f.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(::ftruncate(fd, off_t{200} << 20), 0);
        ::close(fd);
    }
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        // The child starts with the parent's pages resident (copy-on-write): what counts is
        // the growth of its peak over that.
        const long baseline_kib = status_kib("VmRSS:");
        resource big;
        big.label = "http://x.example/big.bin";
        big.content_type = "application/octet-stream";
        big.in_memory = false;
        big.file = f;
        std::uint64_t n = 0;
        mhtml::pack::callback_sink count([&](std::string_view v) {
            n += v.size();
            return true;
        });
        const std::vector<resource> others = {big};
        auto r =
            mhtml::pack::write_archive(count, res("http://x.example/", "text/html", page), others);
        const long peak_kib = status_kib("VmHWM:");
        const bool ok = r.ok() && n > (std::uint64_t{200} << 20) &&
                        r.parts[1].decoded_size == (std::uint64_t{200} << 20);
        _exit(ok ? (baseline_kib > 0 && peak_kib - baseline_kib < 64 * 1024 ? 0 : 2) : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    fs::remove(f);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: wrong output, 2: peak RSS grew by 64 MiB or more";
}

TEST(Writer, HtmlToText) {
    EXPECT_EQ(mhtml::pack::html_to_text("<p>a</p><p>b &lt;c&gt;</p><pre>x\n  y</pre>"),
              "a\r\nb <c>\r\nx\r\n  y\r\n");
    EXPECT_EQ(mhtml::pack::html_title("<title> a\n b </title>", "utf-8"), "a b");
    EXPECT_EQ(mhtml::pack::html_title("<title>caf\xE9</title>", "windows-1252"), "caf\xC3\xA9");
}

// Control characters never reach the Subject; a subject of nothing else gives way to the
// title (so that reading the Subject back and writing it again gives the same field).
TEST(Writer, SubjectWithoutControlCharacters) {
    const std::string titled = "<title>T\x01itle</title>";
    for (const auto& [given, want] : std::vector<std::pair<std::string, std::string>>{
             {std::string("a\x7f\x00"
                          "b\r\n c",
                          8),
              "Subject: a b c\r\n"},
             {std::string("\x00\x01 \t", 4), "Subject: T itle\r\n"}}) {
        writer_options o;
        o.subject = given;
        const auto w = write(res("http://x.example/", "text/html", titled), {}, o);
        EXPECT_THAT(w.bytes, testing::HasSubstr(want));
    }
}

TEST(Writer, NonAsciiSubjectIsEncoded) {
    auto w = write(res("http://x.example/", "text/html; charset=utf-8",
                       "<title>Gr\xC3\xBC\xC3\x9F"
                       "e</title><p>x</p>"),
                   {});
    EXPECT_THAT(w.bytes, testing::HasSubstr("Subject: =?UTF-8?"));
}
