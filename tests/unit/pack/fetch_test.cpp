#include "mhtml/pack/fetch.hpp"

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/pack/writer.hpp"
#include "support/loopback_http.hpp"

#include <brotli/encode.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <arpa/inet.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mhtml {
namespace {

using namespace std::chrono_literals;
using test::gzip;
using test::route;
using test::test_server;
using test::tls_server;

// ---------------------------------------------------------------------------------------------
// Helpers

std::string brotli(std::string_view s) {
    std::size_t n = BrotliEncoderMaxCompressedSize(s.size());
    std::string out(n, '\0');
    BrotliEncoderCompress(9, 22, BROTLI_MODE_GENERIC, s.size(),
                          reinterpret_cast<const uint8_t*>(s.data()), &n,
                          reinterpret_cast<uint8_t*>(out.data()));
    out.resize(n);
    return out;
}

std::string binary(std::size_t n, unsigned seed) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i)
        s[i] = static_cast<char>((i * 131 + seed * 7 + i / 7) & 0xFF);
    return s;
}

pack::fetch_options quick() {
    pack::fetch_options o;
    o.limits.transfer_timeout = 5s;
    o.limits.connect_timeout = 5s;
    o.limits.total_timeout = 60s;
    return o;
}

const pack::reference_report* find_ref(const pack::collection& c, std::string_view url) {
    for (const auto& r : c.references)
        if (r.url == url) return &r;
    return nullptr;
}

const diagnostic* find_diag(const pack::collection& c, diag_code code, std::string_view needle) {
    for (const auto& d : c.diagnostics)
        if (d.code == code && d.message.find(needle) != std::string::npos) return &d;
    return nullptr;
}

std::string dump(const pack::collection& c) {
    std::string s;
    for (const auto& d : c.diagnostics)
        s += std::string(code_name(d.code)) + " @" + d.part_path + ":" + std::to_string(d.offset) +
             " " + d.message + "\n";
    return s;
}

// Writes `c` with the streaming writer, reads it back, and checks: one part per resource,
// each holding the octets fetched (`served`: URL -> the decoded octets the server sent, for
// resources the fetcher did not rewrite); every reference the report calls packed resolves,
// by the reader's resolution, to the part of that resource; the unresolved and external ones
// resolve to no part. Returns the references checked.
std::string file_bytes(const std::filesystem::path& f) {
    std::ifstream in(f, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::size_t expect_archive_resolves(const pack::collection& c,
                                    const std::map<std::string, std::string>& served) {
    std::string bytes;
    pack::string_sink sink(bytes);
    std::vector<pack::resource> others(c.resources.begin() + 1, c.resources.end());
    const pack::write_report w = pack::write_archive(sink, c.resources.at(0), others);
    EXPECT_TRUE(w.ok());
    for (const auto& p : w.parts) EXPECT_TRUE(p.written) << p.label;
    auto doc = mime::document::parse(bytes);
    auto agg = archive::aggregate::build(doc);
    EXPECT_EQ(agg.related().size(), 1u);
    if (agg.related().empty()) return 0;
    const auto& members = agg.related()[0].members;
    EXPECT_EQ(members.size(), c.resources.size());
    if (members.size() != c.resources.size()) return 0;
    std::map<std::uint32_t, std::size_t> resource_of;
    for (std::size_t i = 0; i < members.size(); ++i) resource_of[members[i].index()] = i;
    std::size_t checked = 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
        const mime::part_view p = members[i];
        const pack::resource& r = c.resources[i];
        std::string decoded;
        p.decode_to(decoded);
        EXPECT_EQ(decoded, r.in_memory ? r.data : file_bytes(r.file)) << r.origin;
        // The served octets; a document only where pack left it unchanged (a reference it
        // respelled, e.g. without a fragment, is checked by the caller).
        if (auto it = served.find(r.origin);
            it != served.end() && (archive::document_type_of(p) == archive::document_type::none ||
                                   decoded.find("#frag") != std::string::npos ||
                                   it->second.find("#frag") == std::string::npos)) {
            EXPECT_EQ(decoded, it->second) << r.origin << " differs from the served octets";
        }
        if (archive::document_type_of(p) == archive::document_type::none) continue;
        const html::scan_result scan = agg.references(p);
        std::vector<const pack::reference_report*> expected;
        for (const auto& e : c.references)
            if (e.document == r.origin && !e.srcdoc_offset) expected.push_back(&e);
        // An HTML resource not shown as a page (an `<img>` answered with HTML) is not scanned.
        if (expected.empty()) continue;
        EXPECT_EQ(scan.refs.size(), expected.size()) << r.origin;
        if (scan.refs.size() != expected.size()) continue;
        for (std::size_t k = 0; k < scan.refs.size(); ++k) {
            const pack::reference_report& e = *expected[k];
            const archive::resolution res = agg.resolve(p, scan.refs[k]);
            SCOPED_TRACE(e.document + ": '" + e.url + "' (" +
                         std::string(pack::outcome_name(e.outcome)) + ")");
            if (e.resource) {
                EXPECT_TRUE(res.target) << "resolved to " << res.resolved;
                if (!res.target) continue;
                EXPECT_EQ(resource_of.at(res.target->index()), *e.resource);
                ++checked;
            } else if (e.outcome == pack::ref_outcome::unresolved ||
                       e.outcome == pack::ref_outcome::external) {
                EXPECT_FALSE(res.target) << "resolved to part " << res.target->path();
                EXPECT_FALSE(e.rewritten) << "a failed reference stays as written";
            }
        }
    }
    return checked;
}

// ---------------------------------------------------------------------------------------------
// A page with images, srcset, CSS with @import and url(), an iframe, a redirect

struct site {
    test_server s;
    std::map<std::string, std::string> served;  // URL -> octets
    std::string page;

    void serve(const std::string& path, const std::string& type, std::string body) {
        served[s.url(path)] = body;
        s.add(path, type, std::move(body));
    }

    site() {
        page =
            "<!DOCTYPE html><html><head><meta charset=utf-8><title>t</title>"
            "<link rel=stylesheet href=\"css/main.css\"><link rel=icon href=\"/favicon.ico\">"
            "</head><body><img src=\"img/a.png\"><img src=\"img/a.png#frag\">"
            "<img srcset=\"img/s1.png 1x, img/s2.png 2x\" src=\"img/a.png\">"
            "<iframe src=\"frames/f.html\"></iframe><img src=\"/old.png\">"
            "<a href=\"other.html\">nav</a><a href=\"img/a.png\">direct</a>"
            "<img src=\"data:image/gif;base64,R0lGODlhAQABAAAAACw=\">"
            "<iframe srcdoc=\"<img src=&quot;img/s1.png&quot;>\"></iframe>"
            "</body></html>";
        serve("/index.html", "text/html; charset=utf-8", page);
        serve("/css/main.css", "text/css",
              "@import \"base.css\";\r\nbody { background: url(../img/bg.png) }\r\n");
        serve("/css/base.css", "text/css", "p { background: url('/img/p.png') }\r\n");
        serve("/frames/f.html", "text/html", "<p>frame<img src=\"../img/a.png\"><img src=in.png>");
        serve("/frames/in.png", "image/png", binary(300, 9));
        serve("/img/a.png", "image/png", binary(1000, 1));
        serve("/img/s1.png", "image/png", binary(1001, 2));
        serve("/img/s2.png", "image/png", binary(1002, 3));
        serve("/img/bg.png", "image/png", binary(1003, 4));
        serve("/img/p.png", "image/png", binary(1004, 5));
        serve("/favicon.ico", "image/x-icon", binary(200, 6));
        serve("/img/new.png", "image/png", binary(1005, 7));
        s.redirect("/old.png", 301, "/img/new.png");
        served.erase(s.url("/img/new.png"));
        served[s.url("/old.png")] = binary(1005, 7);
    }
};

TEST(Fetch, THTML_9_1_4_PageWithImagesCssIframeSrcsetRedirect) {
    site w;
    pack::fetch_report rep;
    const auto c = pack::fetch_collect(w.s.url("/index.html"), quick(), &rep);
    ASSERT_TRUE(c.ok()) << c.error_code << ": " << c.error;
    // Only the image reference with a fragment is respelled (Chromium looks archived
    // resources up with their fragment).
    ASSERT_EQ(c.diagnostics.size(), 1u) << dump(c);
    EXPECT_EQ(c.diagnostics[0].code, diag_code::reference_respelled);
    // page, 2 style sheets, frame, in.png, a, s1, s2, bg, p, favicon, old(->new)
    EXPECT_EQ(c.resources.size(), 12u);
    std::map<std::string, const pack::resource*> by_label;
    for (const auto& r : c.resources) by_label[r.label] = &r;
    EXPECT_EQ(c.resources[0].label, w.s.url("/index.html"));
    EXPECT_EQ(c.resources[0].content_type, "text/html; charset=UTF-8");
    ASSERT_TRUE(by_label.count(w.s.url("/img/a.png")));
    ASSERT_TRUE(by_label.count(w.s.url("/css/base.css")));   // @import
    ASSERT_TRUE(by_label.count(w.s.url("/img/p.png")));      // url() in the import
    ASSERT_TRUE(by_label.count(w.s.url("/frames/in.png")));  // in the iframe
    ASSERT_TRUE(by_label.count(w.s.url("/img/s2.png")));     // srcset
    // A redirected image keeps the URL it was referenced by (the page is not rewritten).
    ASSERT_TRUE(by_label.count(w.s.url("/old.png")));
    EXPECT_EQ(by_label[w.s.url("/old.png")]->data, binary(1005, 7));
    EXPECT_EQ(by_label[w.s.url("/img/a.png")]->content_type, "image/png");
    EXPECT_EQ(by_label[w.s.url("/css/main.css")]->content_type, "text/css; charset=UTF-8");
    std::string expected = w.page;  // content_location: unchanged but that reference
    expected.replace(expected.find("img/a.png#frag"), 14, w.s.url("/img/a.png"));
    EXPECT_EQ(c.resources[0].data, expected);
    EXPECT_EQ(find_ref(c, "other.html")->outcome, pack::ref_outcome::not_followed);
    EXPECT_EQ(w.s.requests("/other.html"), 0);
    EXPECT_EQ(w.s.requests("/img/a.png"), 1);  // once, however many references
    EXPECT_EQ(rep.redirects, 1u);
    EXPECT_EQ(rep.transfers, 13u);
    EXPECT_EQ(rep.failed, 0u);
    EXPECT_EQ(c.counts.unresolved, 0u);
    EXPECT_GE(expect_archive_resolves(c, w.served), 14u);
}

TEST(Fetch, CidAndFilenameMethodsResolve) {
    site w;
    for (pack::method m : {pack::method::cid, pack::method::filename}) {
        auto o = quick();
        o.method = m;
        const auto c = pack::fetch_collect(w.s.url("/index.html"), o);
        ASSERT_TRUE(c.ok()) << c.error;
        EXPECT_EQ(c.resources.size(), 12u);
        std::map<std::string, std::string> images;  // the documents are rewritten
        for (const auto& [u, b] : w.served)
            if (u.ends_with(".png") || u.ends_with(".ico")) images[u] = b;
        EXPECT_GE(expect_archive_resolves(c, images), 14u) << static_cast<int>(m);
        EXPECT_NE(c.resources[0].data, w.page);
        // The navigation link is made absolute for the file-name method.
        if (m == pack::method::filename) {
            EXPECT_EQ(find_ref(c, "other.html")->rewritten, w.s.url("/other.html"));
        }
    }
}

TEST(Fetch, RedirectedDocumentIsLabelledWithItsFinalUrl) {
    test_server s;
    s.add("/p/index.html", "text/html",
          "<link rel=stylesheet href=\"../old/style.css\"><img src=\"x.png\">");
    s.redirect("/old/style.css", 302, "/new/css/style.css");
    s.add("/new/css/style.css", "text/css", "b { background: url(bg.png) }");
    s.add("/new/css/bg.png", "image/png", binary(10, 1));
    s.add("/p/x.png", "image/png", binary(11, 2));
    s.redirect("/start", 307, "/p/index.html");
    const auto c = pack::fetch_collect(s.url("/start"), quick());
    ASSERT_TRUE(c.ok()) << c.error;
    ASSERT_EQ(c.resources.size(), 4u) << dump(c);
    EXPECT_EQ(c.resources[0].label, s.url("/p/index.html"));
    EXPECT_EQ(c.resources[0].origin, s.url("/start"));
    EXPECT_EQ(c.resources[1].label, s.url("/new/css/style.css"));
    EXPECT_TRUE(find_diag(c, diag_code::reference_respelled, "../old/style.css")) << dump(c);
    EXPECT_EQ(find_ref(c, "../old/style.css")->rewritten, s.url("/new/css/style.css"));
    EXPECT_EQ(s.requests("/new/css/bg.png"), 1);  // resolved against the final URL
    EXPECT_EQ(expect_archive_resolves(c, {}), 3u);
}

// ---------------------------------------------------------------------------------------------
// Faults: each gives one precise diagnostic where the reference stands, the reference stays
// as written, and the collection still writes an archive in which the rest resolves.

struct fault_site {
    test_server s;
    std::string page;
    std::string refused_url;  // a port nothing listens on

    fault_site() {
        {
            const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
            socklen_t len = sizeof a;
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
            refused_url = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/r.png";
            ::close(fd);
        }
        page =
            "<html><head><link rel=stylesheet href=\"gz.css\">"
            "<link rel=stylesheet href=\"badcs.css\"></head><body>"
            "<img src=\"ok.png\"><img src=\"missing.png\"><img src=\"e500.png\">"
            "<img src=\"slow.png\"><img src=\"trunc.png\"><img src=\"loop1.png\">"
            "<img src=\"tofile.png\"><img src=\"br.png\"><img src=\"big.bin\">"
            "<img src=\"disp.png\"><img src=\"a%2Fb.png\"><img src=\"nul%00.png\">"
            "<img src=\"" +
            refused_url + "\"><img src=\"tohttps.png\"></body></html>";
        s.add("/index.html", "text/html", page);
        s.add("/ok.png", "image/png", binary(500, 1));
        route e500;
        e500.status = 500;
        e500.body = "oops";
        s.add("/e500.png", e500);
        route slow;
        slow.headers = {{"Content-Type", "image/png"}};
        slow.body = binary(100, 2);
        slow.delay = 5s;
        s.add("/slow.png", slow);
        route trunc;
        trunc.headers = {{"Content-Type", "image/png"}};
        trunc.body = binary(100, 3);
        trunc.content_length_extra = 50;
        s.add("/trunc.png", trunc);
        s.redirect("/loop1.png", 302, "/loop2.png");
        s.redirect("/loop2.png", 302, "loop1.png");
        s.redirect("/tofile.png", 302, "file:///etc/passwd");
        s.redirect("/tohttps.png", 301, "https://127.0.0.1:1/x.png");  // refused by the server
        route gz;
        gz.headers = {{"Content-Type", "text/css"}, {"Content-Encoding", "gzip"}};
        gz.body = gzip("body { background: url(gzbg.png) }");
        s.add("/gz.css", gz);
        s.add("/gzbg.png", "image/png", binary(64, 4));
        route br;
        br.headers = {{"Content-Type", "image/png"}, {"Content-Encoding", "br"}};
        br.body = brotli(binary(4000, 5));
        s.add("/br.png", br);
        s.add("/big.bin", "application/octet-stream", binary(300'000, 6));
        s.add("/badcs.css", "text/css; charset=no-such-charset", "i { color: red }");
        route disp;
        disp.headers = {{"Content-Type", "image/png"},
                        {"Content-Disposition", "attachment; filename=\"../../etc/passwd\""}};
        disp.body = binary(77, 7);
        s.add("/disp.png", disp);
    }
    std::size_t offset_of(std::string_view ref) const { return page.find(ref); }
};

TEST(Fetch, FaultsAreReportedWhereTheReferenceStands) {
    fault_site w;
    auto o = quick();
    o.limits.transfer_timeout = 700ms;
    o.limits.max_resource_size = 100'000;
    pack::fetch_report rep;
    const auto start = std::chrono::steady_clock::now();
    const auto c = pack::fetch_collect(w.s.url("/index.html"), o, &rep);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);  // the slow one did not hold it up
    ASSERT_TRUE(c.ok()) << c.error;
    const std::string page = w.s.url("/index.html");
    SCOPED_TRACE(dump(c));
    struct expectation {
        std::string ref;
        diag_code code;
        std::string reason;
        std::string words;
    };
    const std::vector<expectation> faults = {
        {"missing.png", diag_code::fetch_http_status, "http_404", "HTTP status 404"},
        {"e500.png", diag_code::fetch_http_status, "http_500", "HTTP status 500"},
        {"slow.png", diag_code::fetch_failed, "timeout", "timed out"},
        {"trunc.png", diag_code::fetch_failed, "truncated", "truncated"},
        {"loop1.png", diag_code::fetch_redirect_refused, "redirect", "redirect loop"},
        {"tofile.png", diag_code::fetch_redirect_refused, "redirect", "file:///etc/passwd"},
        {"big.bin", diag_code::resource_limit, "too_large", "max_resource_size"},
        {"a%2Fb.png", diag_code::resource_bad_name, "bad_name", "%2F"},
        {"nul%00.png", diag_code::resource_bad_name, "bad_name", "NUL"},
        {w.refused_url, diag_code::fetch_failed, "network", "onnect"},
        {"tohttps.png", diag_code::fetch_failed, "network", "https://127.0.0.1:1/x.png"},
    };
    for (const auto& f : faults) {
        SCOPED_TRACE(f.ref);
        const pack::reference_report* r = find_ref(c, f.ref);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->outcome, pack::ref_outcome::unresolved);
        EXPECT_EQ(r->reason, f.reason);
        EXPECT_FALSE(r->resource);
        const diagnostic* d = find_diag(c, f.code, "'" + f.ref + "'");
        ASSERT_TRUE(d);
        EXPECT_EQ(d->part_path, page);
        EXPECT_EQ(d->offset, w.offset_of("\"" + f.ref + "\"") + 1);
        EXPECT_NE(d->message.find(f.words), std::string::npos) << d->message;
    }
    // Decoded bodies: gzip (a style sheet, scanned after decoding) and br.
    std::map<std::string, std::string> served = {
        {w.s.url("/gzbg.png"), binary(64, 4)},
        {w.s.url("/br.png"), binary(4000, 5)},
        {w.s.url("/ok.png"), binary(500, 1)},
        {w.s.url("/gz.css"), "body { background: url(gzbg.png) }"},
        {w.s.url("/disp.png"), binary(77, 7)},
    };
    for (const auto& entry : served) {
        const std::string& u = entry.first;
        auto it = std::find_if(c.resources.begin(), c.resources.end(),
                               [&](const pack::resource& r) { return r.label == u; });
        ASSERT_NE(it, c.resources.end()) << u;
        EXPECT_EQ(it->data, entry.second);
        EXPECT_TRUE(it->content_encoding.empty());
    }
    EXPECT_LT(rep.wire_bytes, c.counts.bytes);  // br of 4000 octets is smaller
    // The unknown charset is reported and ignored: the sheet gets its referrer's.
    const diagnostic* cs = find_diag(c, diag_code::fetch_unknown_charset, "no-such-charset");
    ASSERT_TRUE(cs);
    EXPECT_EQ(cs->offset, w.offset_of("\"badcs.css\"") + 1);
    auto badcs = std::find_if(c.resources.begin(), c.resources.end(),
                              [&](const auto& r) { return r.label == w.s.url("/badcs.css"); });
    ASSERT_NE(badcs, c.resources.end());
    EXPECT_EQ(badcs->content_type, "text/css; charset=windows-1252");
    // The hostile Content-Disposition is reported and not packed; the image is.
    const diagnostic* dn = find_diag(c, diag_code::fetch_unsafe_name, "../../etc/passwd");
    ASSERT_TRUE(dn);
    EXPECT_EQ(dn->offset, w.offset_of("\"disp.png\"") + 1);
    for (const auto& r : c.resources)
        for (const auto& [n, v] : r.fields) EXPECT_NE(n, "Content-Disposition");
    // The page is not rewritten; no failed reference was dropped or changed.
    EXPECT_EQ(c.resources[0].data, w.page);
    EXPECT_EQ(c.counts.unresolved, faults.size());
    EXPECT_EQ(w.s.requests("/a%2Fb.png"), 0);
    EXPECT_EQ(w.s.requests("/loop1.png"), 1);
    EXPECT_EQ(w.s.requests("/loop2.png"), 1);
    EXPECT_EQ(c.resources.size(), 7u);  // page, gz.css, badcs.css, ok, br, disp, gzbg
    EXPECT_EQ(expect_archive_resolves(c, served), 6u);
}

TEST(Fetch, EveryReferenceToAFailedUrlIsReported) {
    test_server s;
    const std::string page =
        "<link rel=stylesheet href=s.css><img src=\"m.png\"><p style=\"background:url(m.png)\">";
    const std::string css = "@font-face { src: url(font/missing.woff) }";
    s.add("/", "text/html", page);
    s.add("/s.css", "text/css", css);
    const auto c = pack::fetch_collect(s.url("/"), quick());
    ASSERT_TRUE(c.ok());
    std::vector<std::pair<std::string, std::uint64_t>> where;
    for (const auto& d : c.diagnostics)
        if (d.code == diag_code::fetch_http_status) where.emplace_back(d.part_path, d.offset);
    std::sort(where.begin(), where.end());
    const std::vector<std::pair<std::string, std::uint64_t>> expected = {
        {s.url("/"), page.find("m.png")},
        {s.url("/"), page.rfind("m.png")},
        {s.url("/s.css"), css.find("font/")}};
    EXPECT_EQ(where, expected) << dump(c);
    EXPECT_EQ(s.requests("/m.png"), 1);
    EXPECT_EQ(c.counts.unresolved, 3u);
    EXPECT_EQ(expect_archive_resolves(c, {}), 1u);
}

TEST(Fetch, HtmlIsFollowedOnlyWhereItIsShownAsAPage) {
    test_server s;
    // An image answered with an HTML page (a soft 404): packed as it came, not followed.
    s.add("/soft.png", "text/html", "<img src=\"never.png\">");
    s.add("/never.png", "image/png", binary(3, 1));
    // An HTML named by an <img> first and by an <iframe> later is followed.
    s.add("/both.html", "text/html", "<img src=\"inner.png\">");
    s.add("/inner.png", "image/png", binary(4, 2));
    s.add("/", "text/html",
          "<img src=\"soft.png\"><img src=\"both.html\"><p>"
          "<link rel=stylesheet href=\"soft.png\"><iframe src=\"both.html\"></iframe>");
    const auto c = pack::fetch_collect(s.url("/"), quick());
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(s.requests("/never.png"), 0);
    EXPECT_EQ(s.requests("/inner.png"), 1);
    EXPECT_EQ(c.resources.size(), 4u) << dump(c);
    EXPECT_EQ(c.counts.documents, 2u);
    EXPECT_EQ(expect_archive_resolves(c, {}), 5u);
}

TEST(Fetch, ContentDispositionIsKeptOnlyWithASafeName) {
    test_server s;
    const std::vector<std::pair<std::string, bool>> cases = {
        {"attachment; filename=\"report.pdf\"", true},
        {"inline; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf", true},
        {"attachment; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd", false},
        {"attachment; filename=\"a\\\\b.png\"", false},
        {"attachment; filename=\"..\"", false},
        {"attachment; filename=\"x\x01y\"", false},
    };
    std::string page;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        route r;
        r.headers = {{"Content-Type", "application/pdf"}, {"Content-Disposition", cases[i].first}};
        r.body = binary(10, static_cast<unsigned>(i));
        s.add("/d" + std::to_string(i), r);
        page += "<embed src=\"d" + std::to_string(i) + "\">";
    }
    s.add("/", "text/html", page);
    const auto c = pack::fetch_collect(s.url("/"), quick());
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c.resources.size(), cases.size() + 1);
    std::size_t warned = 0;
    for (const auto& d : c.diagnostics) warned += d.code == diag_code::fetch_unsafe_name;
    EXPECT_EQ(warned, 4u) << dump(c);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& fields = c.resources[i + 1].fields;
        SCOPED_TRACE(cases[i].first);
        if (cases[i].second) {
            ASSERT_EQ(fields.size(), 1u);
            EXPECT_EQ(fields[0].second, cases[i].first);
        } else {
            EXPECT_TRUE(fields.empty());
        }
    }
    EXPECT_EQ(expect_archive_resolves(c, {}), cases.size());
}

TEST(Fetch, FilenameMethodGivesSafeNamesWhateverTheServerSays) {
    fault_site w;
    auto o = quick();
    o.method = pack::method::filename;
    o.limits.transfer_timeout = 700ms;
    o.limits.max_resource_size = 100'000;
    const auto c = pack::fetch_collect(w.s.url("/index.html"), o);
    ASSERT_TRUE(c.ok());
    for (const auto& r : c.resources) {
        EXPECT_EQ(r.label.find('/'), std::string::npos) << r.label;
        EXPECT_EQ(r.label.find(".."), std::string::npos) << r.label;
    }
    EXPECT_EQ(expect_archive_resolves(c, {}), 6u);
}

TEST(Fetch, LimitsOnCountTotalAndTime) {
    test_server s;
    std::string page = "<p>";
    for (int i = 0; i < 10; ++i) {
        page += "<img src=\"i" + std::to_string(i) + ".png\">";
        s.add("/i" + std::to_string(i) + ".png", "image/png",
              binary(1000, static_cast<unsigned>(i)));
    }
    s.add("/", "text/html", page);
    {
        auto o = quick();
        o.limits.max_resources = 4;  // the page and 3 images
        const auto c = pack::fetch_collect(s.url("/"), o);
        ASSERT_TRUE(c.ok());
        EXPECT_EQ(c.resources.size(), 4u);
        EXPECT_EQ(c.counts.unresolved, 7u);
        const auto* r = find_ref(c, "i3.png");
        ASSERT_TRUE(r);
        EXPECT_EQ(r->reason, "limit");
        EXPECT_TRUE(find_diag(c, diag_code::resource_limit, "max_resources"));
        EXPECT_EQ(expect_archive_resolves(c, {}), 3u);
    }
    {
        auto o = quick();
        o.limits.max_total_bytes = page.size() + 3500;  // three images and a half
        o.max_connections = 1;
        const auto c = pack::fetch_collect(s.url("/"), o);
        ASSERT_TRUE(c.ok());
        EXPECT_EQ(c.resources.size(), 4u) << dump(c);
        EXPECT_TRUE(find_diag(c, diag_code::resource_limit, "max_total_bytes"));
        EXPECT_LE(c.counts.bytes, o.limits.max_total_bytes);
    }
    {
        route slow;
        slow.headers = {{"Content-Type", "image/png"}};
        slow.body = "x";
        slow.delay = 5s;
        s.add("/i9.png", slow);
        auto o = quick();
        o.limits.total_timeout = 600ms;
        const auto start = std::chrono::steady_clock::now();
        const auto c = pack::fetch_collect(s.url("/"), o);
        EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
        ASSERT_TRUE(c.ok());
        EXPECT_EQ(c.resources.size(), 10u);
        EXPECT_EQ(find_ref(c, "i9.png")->reason, "limit");
        EXPECT_TRUE(find_diag(c, diag_code::resource_limit, "total_timeout"));
    }
}

TEST(Fetch, PageFailures) {
    test_server s;
    s.add("/img.png", "image/png", binary(10, 1));
    route e;
    e.status = 503;
    s.add("/down", e);
    s.redirect("/evil", 302, "file:///etc/passwd");
    auto c = pack::fetch_collect(s.url("/nothing"), quick());
    EXPECT_EQ(c.error_code, "fetch_failed");
    EXPECT_NE(c.error.find("404"), std::string::npos) << c.error;
    EXPECT_TRUE(c.resources.empty());
    c = pack::fetch_collect(s.url("/down"), quick());
    EXPECT_EQ(c.error_code, "fetch_failed");
    c = pack::fetch_collect(s.url("/evil"), quick());
    EXPECT_EQ(c.error_code, "fetch_failed");
    EXPECT_NE(c.error.find("file:///etc/passwd"), std::string::npos) << c.error;
    c = pack::fetch_collect(s.url("/img.png"), quick());
    EXPECT_EQ(c.error_code, "not_html");
    c = pack::fetch_collect("file:///etc/passwd", quick());
    EXPECT_EQ(c.error_code, "bad_url");
    c = pack::fetch_collect("ftp://127.0.0.1/x", quick());
    EXPECT_EQ(c.error_code, "bad_url");
    EXPECT_TRUE(pack::is_fetchable_url("HTTPS://example.org/"));
    EXPECT_FALSE(pack::is_fetchable_url("/local/page.html"));
}

TEST(Fetch, PageWithoutContentTypeIsSniffed) {
    test_server s;
    route r;  // no Content-Type
    r.body = "\n  <!DOCTYPE html><p><img src=\"i\">";
    s.add("/", r);
    route i;
    i.body = binary(10, 1);
    s.add("/i", i);
    const auto c = pack::fetch_collect(s.url("/"), quick());
    ASSERT_TRUE(c.ok()) << c.error;
    EXPECT_EQ(c.resources[0].content_type, "text/html; charset=windows-1252");
    ASSERT_EQ(c.resources.size(), 2u);
    EXPECT_EQ(c.resources[1].content_type, "application/octet-stream");
}

TEST(Fetch, RequestHeaders) {
    test_server s;
    s.add("/", "text/html", "<img src=\"i.png\">");
    s.add("/i.png", "image/png", binary(4, 1));
    auto o = quick();
    o.user_agent = "TestAgent/1.0";
    auto c = pack::fetch_collect(s.url("/"), o);
    ASSERT_TRUE(c.ok());
    const std::string head = s.last_head("/i.png") + "\r\n";
    EXPECT_NE(head.find("\r\nUser-Agent: TestAgent/1.0\r\n"), std::string::npos) << head;
    EXPECT_NE(head.find("\r\nReferer: " + s.url("/") + "\r\n"), std::string::npos) << head;
    EXPECT_NE(head.find("gzip"), std::string::npos) << head;  // Accept-Encoding
    EXPECT_NE(head.find("br"), std::string::npos) << head;
    c = pack::fetch_collect(s.url("/"), quick());
    EXPECT_NE(s.last_head("/").find("\r\nUser-Agent: mhtml/"), std::string::npos);
    EXPECT_EQ(s.last_head("/").find("Referer"), std::string::npos);
}

TEST(Fetch, CharsetFromHeaderThenMeta) {
    test_server s;
    // The header wins over the page's <meta>; without a header charset the <meta> counts.
    s.add("/h.html", "text/html; charset=iso-8859-2", "<meta charset=windows-1251><p>\xE9");
    s.add("/m.html", "text/html", "<meta charset=koi8-r><link rel=stylesheet href=s.css>");
    s.add("/s.css", "text/css", "p{}");
    auto c = pack::fetch_collect(s.url("/h.html"), quick());
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources[0].content_type, "text/html; charset=ISO-8859-2");
    c = pack::fetch_collect(s.url("/m.html"), quick());
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources[0].content_type, "text/html; charset=KOI8-R");
    ASSERT_EQ(c.resources.size(), 2u);
    EXPECT_EQ(c.resources[1].content_type, "text/css; charset=KOI8-R");  // the referrer's
}

TEST(Fetch, SameOriginLeavesOtherOriginsExternal) {
    test_server s, other;
    other.add("/x.png", "image/png", binary(10, 1));
    s.add("/", "text/html", "<img src=\"" + other.url("/x.png") + "\"><img src=\"y.png\">");
    s.add("/y.png", "image/png", binary(11, 2));
    auto o = quick();
    o.same_origin = true;
    auto c = pack::fetch_collect(s.url("/"), o);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources.size(), 2u);
    EXPECT_EQ(find_ref(c, other.url("/x.png"))->outcome, pack::ref_outcome::external);
    EXPECT_EQ(other.total_requests(), 0);
    EXPECT_EQ(expect_archive_resolves(c, {}), 1u);
    c = pack::fetch_collect(s.url("/"), quick());
    EXPECT_EQ(c.resources.size(), 3u);
    EXPECT_EQ(other.total_requests(), 1);
}

TEST(Fetch, MHT_7_13_RedirectedPageNamingItselfIsOnePart) {
    test_server s;
    s.redirect("/start", 302, "/p/index.html");
    s.add("/p/index.html", "text/html",
          "<iframe src=\"index.html\"></iframe><iframe src=\"/start\"></iframe>");
    const auto c = pack::fetch_collect(s.url("/start"), quick());
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c.resources.size(), 1u) << dump(c);
    EXPECT_EQ(find_ref(c, "index.html")->resource, 0u);
    EXPECT_EQ(find_ref(c, "/start")->resource, 0u);
    EXPECT_EQ(s.requests("/p/index.html"), 1);
    EXPECT_EQ(expect_archive_resolves(c, {}), 2u);
}

TEST(Fetch, RedirectsAreBounded) {
    test_server s;
    s.add("/", "text/html", "<img src=\"r1\">");
    s.redirect("/r1", 301, "/r2");
    s.redirect("/r2", 302, "/r3");
    s.redirect("/r3", 308, "/x.png");
    s.add("/x.png", "image/png", binary(5, 1));
    auto o = quick();
    o.limits.max_redirects = 2;
    auto c = pack::fetch_collect(s.url("/"), o);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources.size(), 1u);
    const diagnostic* d = find_diag(c, diag_code::fetch_redirect_refused, "more than 2 redirects");
    ASSERT_TRUE(d) << dump(c);
    EXPECT_EQ(d->offset, 10u);
    EXPECT_EQ(s.requests("/x.png"), 0);
    o.limits.max_redirects = 3;
    c = pack::fetch_collect(s.url("/"), o);
    ASSERT_EQ(c.resources.size(), 2u);
    EXPECT_EQ(c.resources[1].label, s.url("/r1"));  // an image keeps the URL referenced
    EXPECT_EQ(c.resources[1].data, binary(5, 1));
    // A hop is checked as a reference is: no hostile name, no Location-less redirect.
    s.add("/p2", "text/html", "<img src=\"r4\"><img src=\"r5\">");
    s.redirect("/r4", 302, "/a%2Fb.png");
    route bare;
    bare.status = 302;
    s.add("/r5", bare);
    c = pack::fetch_collect(s.url("/p2"), o);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources.size(), 1u);
    EXPECT_TRUE(find_diag(c, diag_code::fetch_redirect_refused, "%2F")) << dump(c);
    EXPECT_TRUE(find_diag(c, diag_code::fetch_http_status, "302 without a Location")) << dump(c);
    EXPECT_EQ(s.requests("/a%2Fb.png"), 0);
}

TEST(Fetch, EncodedPageAndDeflateBodies) {
    test_server s;
    const std::string page = "<html><body><img src=\"d.png\"></body></html>";
    route p;
    p.headers = {{"Content-Type", "text/html"}, {"Content-Encoding", "gzip"}};
    p.body = gzip(page);
    s.add("/", p);
    route d;
    d.headers = {{"Content-Type", "image/png"}, {"Content-Encoding", "deflate"}};
    {
        const std::string raw = binary(3000, 2);
        uLongf n = compressBound(raw.size());
        d.body.resize(n);
        compress2(reinterpret_cast<Bytef*>(d.body.data()), &n,
                  reinterpret_cast<const Bytef*>(raw.data()), raw.size(), 9);
        d.body.resize(n);
    }
    s.add("/d.png", d);
    route bad;  // says gzip, is not
    bad.headers = {{"Content-Type", "image/png"}, {"Content-Encoding", "gzip"}};
    bad.body = "this is not gzip at all";
    s.add("/bad.png", bad);
    s.add("/b.html", "text/html", "<img src=\"bad.png\">");
    pack::fetch_report rep;
    auto c = pack::fetch_collect(s.url("/"), quick(), &rep);
    ASSERT_TRUE(c.ok()) << c.error;
    ASSERT_EQ(c.resources.size(), 2u) << dump(c);
    EXPECT_EQ(c.resources[0].data, page);
    EXPECT_EQ(c.resources[1].data, binary(3000, 2));
    EXPECT_EQ(rep.wire_bytes, p.body.size() + d.body.size());
    EXPECT_EQ(c.counts.bytes, page.size() + 3000);
    EXPECT_EQ(expect_archive_resolves(c, {{s.url("/d.png"), binary(3000, 2)}}), 1u);
    c = pack::fetch_collect(s.url("/b.html"), quick());
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(find_ref(c, "bad.png")->reason, "bad_encoding");
    EXPECT_TRUE(find_diag(c, diag_code::fetch_failed, "Content-Encoding")) << dump(c);
}

TEST(Fetch, UnresolvableHostIsReported) {
    test_server s;
    s.add("/", "text/html", "<img src=\"http://no-such-host.invalid/x.png\">");
    auto o = quick();
    o.limits.connect_timeout = 3s;
    const auto c = pack::fetch_collect(s.url("/"), o);
    ASSERT_TRUE(c.ok());
    const auto* r = find_ref(c, "http://no-such-host.invalid/x.png");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->outcome, pack::ref_outcome::unresolved);
    const diagnostic* d = find_diag(c, diag_code::fetch_failed, "no-such-host.invalid");
    ASSERT_TRUE(d) << dump(c);
    EXPECT_EQ(d->offset, 10u);
    EXPECT_EQ(d->part_path, s.url("/"));
}

TEST(Fetch, CallsRunInParallel) {
    site w;
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([&] {
            const auto c = pack::fetch_collect(w.s.url("/index.html"), quick());
            // One note each: the image reference with a fragment is respelled.
            if (c.ok() && c.resources.size() == 12u && c.diagnostics.size() == 1u) ++ok;
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(ok.load(), 4);
}

std::string ok_response(std::string_view type, std::string_view body) {
    return "200 OK\r\nConnection: close\r\nContent-Type: " + std::string(type) +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

TEST(Fetch, HttpsNeverRedirectsToHttp) {
    tls_server tls;
    test_server plain;
    plain.add("/x.png", "image/png", binary(20, 1));
    const std::string page =
        "<img src=\"down.png\"><img src=\"up.png\"><img src=\"" + plain.url("/x.png") + "\">";
    tls.add("/", ok_response("text/html", page));
    tls.add("/down.png", "302 Found\r\nConnection: close\r\nLocation: " + plain.url("/x.png") +
                             "\r\nContent-Length: 0\r\n\r\n");
    tls.add("/up.png", ok_response("image/png", binary(30, 2)));
    auto o = quick();
    o.ca_file = tls.ca_file();
    const auto c = pack::fetch_collect(tls.url("/"), o);
    ASSERT_TRUE(c.ok()) << c.error;
    EXPECT_EQ(c.resources.size(), 3u) << dump(c);  // page, up.png, x.png (referenced as http)
    const auto* r = find_ref(c, "down.png");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->reason, "redirect");
    const diagnostic* d = find_diag(c, diag_code::fetch_redirect_refused, "from https to http");
    ASSERT_TRUE(d) << dump(c);
    EXPECT_EQ(d->offset, page.find("down.png"));
    EXPECT_EQ(d->part_path, tls.url("/"));
    EXPECT_EQ(plain.requests("/x.png"), 1);  // only by the page's own http reference
    EXPECT_EQ(expect_archive_resolves(c, {{tls.url("/up.png"), binary(30, 2)}}), 2u);
    // Without the certificate's authority, the page is refused.
    const auto refused = pack::fetch_collect(tls.url("/"), quick());
    EXPECT_EQ(refused.error_code, "fetch_failed");
    EXPECT_NE(refused.error.find("certificate"), std::string::npos) << refused.error;
}

// 500 images fetched in parallel: all packed, connections limited and reused.
TEST(Fetch, FiveHundredResourcesInParallel) {
    test_server s;
    std::string page = "<!DOCTYPE html><title>500</title>";
    std::map<std::string, std::string> served;
    for (int i = 0; i < 500; ++i) {
        const std::string path = "/img/" + std::to_string(i) + ".png";
        page += "<img src=\"" + path.substr(1) + "\">";
        served[s.url(path)] = binary(2000 + static_cast<std::size_t>(i), static_cast<unsigned>(i));
        s.add(path, "image/png", served[s.url(path)]);
    }
    s.add("/", "text/html", page);
    pack::fetch_report rep;
    const auto c = pack::fetch_collect(s.url("/"), quick(), &rep);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources.size(), 501u);
    EXPECT_EQ(c.counts.packed, 500u);
    EXPECT_TRUE(c.diagnostics.empty()) << dump(c);
    EXPECT_EQ(rep.transfers, 501u);
    EXPECT_LE(s.peak_connections(), 6);  // max_host_connections
    EXPECT_LE(rep.connections, 12u);     // reused, not one per request
    EXPECT_EQ(s.total_requests(), 501);
    EXPECT_EQ(expect_archive_resolves(c, served), 500u);
}

// A fetched body over 1 MiB that is not a document waits in a file of a private temporary
// folder (the site is never held whole in memory); the folder goes with the collection.
TEST(Fetch, LargeBodiesWaitInTemporaryFiles) {
    namespace fs = std::filesystem;
    test_server s;
    const std::string big = binary(std::size_t{3} << 20, 11), small = binary(5000, 12);
    s.add("/big.png", "image/png", big);
    s.add("/small.png", "image/png", small);
    s.add("/", "text/html", "<!DOCTYPE html><img src=big.png><img src=small.png>");
    const std::map<std::string, std::string> served = {{s.url("/big.png"), big},
                                                       {s.url("/small.png"), small}};
    fs::path spooled;
    {
        const auto c = pack::fetch_collect(s.url("/"), quick());
        ASSERT_TRUE(c.ok()) << c.error;
        ASSERT_EQ(c.resources.size(), 3u);
        for (const auto& r : c.resources) {
            if (r.origin != s.url("/big.png")) {
                EXPECT_TRUE(r.in_memory) << r.origin;
                continue;
            }
            EXPECT_FALSE(r.in_memory);
            EXPECT_TRUE(r.data.empty());
            spooled = r.file;
        }
        ASSERT_FALSE(spooled.empty());
        EXPECT_EQ(file_bytes(spooled), big);
        EXPECT_EQ(fs::status(spooled.parent_path()).permissions() & fs::perms::all,
                  fs::perms::owner_all);
        EXPECT_EQ(c.counts.bytes, c.resources[0].data.size() + big.size() + small.size());
        EXPECT_EQ(expect_archive_resolves(c, served), 2u);
    }
    EXPECT_FALSE(fs::exists(spooled.parent_path()));
}

#if defined(MHTML_FETCH_BENCH)
// A benchmark, not a test: compiled only with -DMHTML_FETCH_BENCH=ON (never in CI), run by
// hand with --gtest_filter='*Bench*'; compares fetch_collect with `curl --parallel
// --parallel-max 16` on the same 500 URLs.
TEST(Fetch, BenchAgainstCurlParallel) {
    using clock = std::chrono::steady_clock;
    // Two servers: answers at once, and answers after 5 ms (a stand-in for a network's latency).
    for (const int latency_ms : {0, 5}) {
        test_server s;
        std::string page = "<!DOCTYPE html><title>500</title>";
        std::string config = "url = \"" + s.url("/") + "\"\noutput = \"/dev/null\"\n";
        for (int i = 0; i < 500; ++i) {
            const std::string path = "/img/" + std::to_string(i) + ".png";
            page += "<img src=\"" + path.substr(1) + "\">";
            route r;
            r.headers = {{"Content-Type", "image/png"}};
            r.body = binary(20'000, static_cast<unsigned>(i));
            r.latency = std::chrono::milliseconds(latency_ms);
            s.add(path, r);
            config += "url = \"" + s.url(path) + "\"\noutput = \"/dev/null\"\n";
        }
        s.add("/", "text/html", page);
        const std::string cfg = ::testing::TempDir() + "fetch_bench_urls.txt";
        std::ofstream(cfg) << config;
        std::vector<double> fetch_times, curl_times;
        for (int round = 0; round < 5; ++round) {
            auto o = quick();
            o.max_host_connections = 16;  // as curl --parallel-max 16 to one host
            auto t0 = clock::now();
            const auto c = pack::fetch_collect(s.url("/"), o);
            fetch_times.push_back(
                std::chrono::duration<double, std::milli>(clock::now() - t0).count());
            ASSERT_EQ(c.resources.size(), 501u);
            t0 = clock::now();
            const std::string cmd = "curl -s --parallel --parallel-max 16 -K " + cfg;
            ASSERT_EQ(std::system(cmd.c_str()), 0);
            curl_times.push_back(
                std::chrono::duration<double, std::milli>(clock::now() - t0).count());
        }
        std::sort(fetch_times.begin(), fetch_times.end());
        std::sort(curl_times.begin(), curl_times.end());
        std::printf(
            "latency %d ms, 501 URLs x 20000 octets, median of 5: fetch_collect %.1f ms, "
            "curl --parallel --parallel-max 16 %.1f ms, ratio %.2f\n",
            latency_ms, fetch_times[2], curl_times[2], fetch_times[2] / curl_times[2]);
    }
}
#endif  // MHTML_FETCH_BENCH

}  // namespace
}  // namespace mhtml
