// external::retrieve and external::materialize against loopback servers started here
// (tests/support/loopback_http.hpp: HTTP on 127.0.0.1, and HTTPS with a certificate made for
// the test). Every fault gives its outcome and a message that names the URL. Tests are named
// after the URL-... rows they check.
#include "mhtml/external/retrieve.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/content_md5.hpp"
#include "mhtml/mime/document.hpp"
#include "support/loopback_http.hpp"

extern char** environ;

namespace mhtml::external {
namespace {

using namespace std::chrono_literals;
using test::route;
using test::test_server;
using test::tls_server;
using st = retrieval::status;

// A message whose body parts are external bodies: each given as the text after
// "Content-Type: message/external-body; " up to the encapsulated header's end.
std::string message(const std::vector<std::string>& parts) {
    std::string m = "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n";
    for (const std::string& p : parts)
        m += "--b\r\nContent-Type: message/external-body; " + p + "\r\n";
    return m + "--b--\r\n";
}

std::string url_part(const std::string& url, const std::string& type = "text/html",
                     const std::string& more = "", const std::string& params = "") {
    return "access-type=URL; URL=\"" + url + "\"" + params + "\r\n\r\nContent-Type: " + type +
           "\r\nContent-ID: <x@y>\r\n" + more + "\r\n";
}

std::vector<body> bodies_of(const mime::document& doc) {
    std::vector<body> out;
    for (const mime::part_view& p : doc.parts())
        if (auto b = read(doc, p)) out.push_back(*b);
    return out;
}

retrieval one(const std::string& part, retrieve_options o = {}) {
    const mime::document doc = mime::document::parse(message({part}));
    const std::vector<body> bodies = bodies_of(doc);
    EXPECT_EQ(bodies.size(), 1u);
    if (o.timeout == std::chrono::milliseconds(60'000)) o.timeout = 5s;
    const auto r = retrieve(bodies, o);
    return r.empty() ? retrieval{} : r.front();
}

TEST(Retrieve, URL_3_1_8_OnlyTheDeclaredTypeIsUsed) {
    test_server s;
    s.add("/a.html", "text/html; charset=utf-8", "<p>a</p>");
    s.add("/b.html", "image/png", "PNG");
    route untyped;
    untyped.body = "<p>c</p>";
    s.add("/c.html", untyped);
    s.add("/d.html", "TEXT/HTML", "<p>d</p>");

    const retrieval a = one(url_part(s.url("/a.html")));
    EXPECT_EQ(a.st, st::fetched) << a.message;
    EXPECT_EQ(a.data, "<p>a</p>");
    EXPECT_EQ(a.content_type, "text/html; charset=utf-8");
    EXPECT_NE(s.last_head("/a.html").find("\r\nAccept: text/html"), std::string::npos)
        << s.last_head("/a.html");

    const retrieval b = one(url_part(s.url("/b.html")));
    EXPECT_EQ(b.st, st::type_mismatch);
    EXPECT_TRUE(b.data.empty());
    EXPECT_NE(b.message.find("image/png"), std::string::npos) << b.message;
    EXPECT_NE(b.message.find(s.url("/b.html")), std::string::npos) << b.message;

    EXPECT_EQ(one(url_part(s.url("/c.html"))).st, st::type_mismatch);  // no type declared
    EXPECT_EQ(one(url_part(s.url("/d.html"))).st, st::fetched);        // case-insensitive
}

TEST(Retrieve, HttpErrorsTimeoutsAndTruncation) {
    test_server s;
    route missing;
    missing.status = 404;
    s.add("/404", missing);
    route broken;
    broken.status = 500;
    s.add("/500", broken);
    route slow;
    slow.headers = {{"Content-Type", "text/html"}};
    slow.body = "late";
    slow.delay = 3s;
    s.add("/slow", slow);
    route cut;
    cut.headers = {{"Content-Type", "text/html"}};
    cut.body = "half";
    cut.content_length_extra = 100;
    s.add("/cut", cut);

    const retrieval r404 = one(url_part(s.url("/404")));
    EXPECT_EQ(r404.st, st::failed);
    EXPECT_EQ(r404.reason, "http_404");
    EXPECT_EQ(one(url_part(s.url("/500"))).reason, "http_500");

    retrieve_options quick;
    quick.timeout = 500ms;
    const auto begin = std::chrono::steady_clock::now();
    const retrieval late = one(url_part(s.url("/slow")), quick);
    EXPECT_EQ(late.st, st::failed);
    EXPECT_EQ(late.reason, "timeout");
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 3s);

    const retrieval truncated = one(url_part(s.url("/cut")));
    EXPECT_EQ(truncated.st, st::failed);
    EXPECT_EQ(truncated.reason, "truncated");
    EXPECT_TRUE(truncated.data.empty());

    // Nothing listens there.
    const retrieval refused_conn = one(url_part("http://127.0.0.1:1/x"));
    EXPECT_EQ(refused_conn.st, st::failed);
    EXPECT_EQ(refused_conn.reason, "network");
}

TEST(Retrieve, URL_4_1_AContentMd5MustMatchTheData) {
    test_server s;
    s.add("/hello", "text/plain", "hello");
    s.add("/hellp", "text/plain", "hellp");
    s.add("/lf", "text/plain", "a\nb\n");
    const std::string md5 = "Content-MD5: XUFAKrxLKna5cZ2REBfFkg==\r\n";
    const retrieval good = one(url_part(s.url("/hello"), "text/plain", md5));
    EXPECT_EQ(good.st, st::fetched) << good.message;
    EXPECT_EQ(good.md5_matches, true);
    const retrieval bad = one(url_part(s.url("/hellp"), "text/plain", md5));
    EXPECT_EQ(bad.st, st::md5_mismatch);
    EXPECT_EQ(bad.md5_matches, false);
    EXPECT_TRUE(bad.data.empty());
    // Text is digested with CRLF line breaks (RFC 1864's canonical form).
    const std::string crlf_md5 = "Content-MD5: " + mime::content_md5("a\r\nb\r\n", false) + "\r\n";
    EXPECT_EQ(one(url_part(s.url("/lf"), "text/plain", crlf_md5)).st, st::fetched);
    // Without a Content-MD5 nothing is compared.
    EXPECT_EQ(one(url_part(s.url("/hellp"), "text/plain")).md5_matches, std::nullopt);
}

TEST(Retrieve, RedirectsAreFollowedAndEachIsChecked) {
    test_server s;
    s.add("/target", "text/html", "<p>t</p>");
    s.redirect("/moved", 302, "/target");
    s.redirect("/loop-a", 301, "/loop-b");
    s.redirect("/loop-b", 301, "/loop-a");
    s.redirect("/to-file", 302, "file:///etc/passwd");
    for (int i = 0; i < 8; ++i)
        s.redirect("/hop" + std::to_string(i), 302, "/hop" + std::to_string(i + 1));
    s.add("/hop8", "text/html", "far");

    const retrieval moved = one(url_part(s.url("/moved")));
    EXPECT_EQ(moved.st, st::fetched) << moved.message;
    EXPECT_EQ(moved.redirects, 1u);
    EXPECT_EQ(moved.url, s.url("/target"));

    const retrieval loop = one(url_part(s.url("/loop-a")));
    EXPECT_EQ(loop.st, st::refused);
    EXPECT_EQ(loop.reason, "redirect");
    EXPECT_NE(loop.message.find("loop"), std::string::npos) << loop.message;

    const retrieval file = one(url_part(s.url("/to-file")));
    EXPECT_EQ(file.reason, "redirect");
    EXPECT_NE(file.message.find("not http, https or ftp"), std::string::npos) << file.message;

    const retrieval far = one(url_part(s.url("/hop0")));
    EXPECT_EQ(far.reason, "redirect");
    EXPECT_NE(far.message.find("more than 5 redirects"), std::string::npos) << far.message;
    EXPECT_EQ(s.requests("/hop6"), 0);
}

TEST(Retrieve, HttpsNeverRedirectsToHttp) {
    tls_server tls;
    test_server plain;
    plain.add("/x.html", "text/html", "plain");
    tls.add("/down", "302 Found\r\nConnection: close\r\nLocation: " + plain.url("/x.html") +
                         "\r\nContent-Length: 0\r\n\r\n");
    tls.add("/ok",
            "200 OK\r\nConnection: close\r\nContent-Type: text/html\r\n"
            "Content-Length: 6\r\n\r\nsecure");
    retrieve_options o;
    o.ca_file = tls.ca_file();
    const retrieval down = one(url_part(tls.url("/down")), o);
    EXPECT_EQ(down.st, st::refused);
    EXPECT_NE(down.message.find("from https to http"), std::string::npos) << down.message;
    EXPECT_EQ(plain.requests("/x.html"), 0);
    const retrieval ok = one(url_part(tls.url("/ok")), o);
    EXPECT_EQ(ok.st, st::fetched) << ok.message;
    EXPECT_EQ(ok.data, "secure");
    // Without the test's authority, the certificate is refused.
    EXPECT_EQ(one(url_part(tls.url("/ok"))).reason, "network");
}

TEST(Retrieve, GzipTransferAndTheInnerTransferEncoding) {
    test_server s;
    route zipped;
    zipped.headers = {{"Content-Type", "text/html"}, {"Content-Encoding", "gzip"}};
    zipped.body = test::gzip("<p>compressed</p>");
    s.add("/z", zipped);
    s.add("/b64", "image/png", "UE5HIQ==");  // "PNG!" as the part's base64 says it is sent
    const retrieval z = one(url_part(s.url("/z")));
    EXPECT_EQ(z.st, st::fetched) << z.message;
    EXPECT_EQ(z.data, "<p>compressed</p>");
    // URL-3.0.4: the encapsulated Content-Transfer-Encoding applies to the data retrieved.
    const retrieval b =
        one(url_part(s.url("/b64"), "image/png", "Content-Transfer-Encoding: base64\r\n"));
    EXPECT_EQ(b.st, st::fetched) << b.message;
    EXPECT_EQ(b.data, "PNG!");
}

TEST(Retrieve, SizeAndMaxSizeStopTheTransfer) {
    test_server s;
    s.add("/big", "text/html", std::string(5000, 'x'));
    // size=1000: at most 1000 + 100 + 1024 octets.
    const retrieval big = one(url_part(s.url("/big"), "text/html", "", "; size=1000"));
    EXPECT_EQ(big.st, st::too_large);
    EXPECT_NE(big.message.find("size=1000"), std::string::npos) << big.message;
    // Within the tolerance: fetched.
    EXPECT_EQ(one(url_part(s.url("/big"), "text/html", "", "; size=4800")).st, st::fetched);
    retrieve_options small;
    small.max_size = 100;
    EXPECT_EQ(one(url_part(s.url("/big")), small).st, st::too_large);
    // Compressed: the Content-Length is small and the limit cuts the decoded octets.
    route zipped;
    zipped.headers = {{"Content-Type", "text/html"}, {"Content-Encoding", "gzip"}};
    zipped.body = test::gzip(std::string(200'000, 'z'));
    s.add("/zipped", zipped);
    const retrieval bomb = one(url_part(s.url("/zipped")), small);
    EXPECT_EQ(bomb.st, st::too_large);
    EXPECT_EQ(one(url_part(s.url("/zipped"), "text/html", "", "; size=1000")).st, st::too_large);
    // size is the decoded object's: base64 on the wire may be 4/3 of it and more.
    const std::string object(30'000, 'q');
    s.add("/b64big", "application/octet-stream", mime::base64_encode(object));
    const retrieval encoded =
        one(url_part(s.url("/b64big"), "application/octet-stream",
                     "Content-Transfer-Encoding: base64\r\n", "; size=30000"));
    EXPECT_EQ(encoded.st, st::fetched) << encoded.message;
    EXPECT_EQ(encoded.data, object);
    EXPECT_EQ(one(url_part(s.url("/b64big"), "application/octet-stream",
                           "Content-Transfer-Encoding: base64\r\n", "; size=20000"))
                  .st,
              st::too_large);
    // A size near 2^64 does not wrap to a limit of nothing.
    EXPECT_EQ(one(url_part(s.url("/big"), "text/html", "", "; size=16769767339735955084")).st,
              st::fetched);
}

TEST(Retrieve, TheTimeLimitStartsWhenATransferStarts) {
    // 8 parts answered after 300 ms each, 2 at a time, 1 s each: all fetched (the time a part
    // waits for a free transfer is not its own).
    test_server s;
    std::vector<std::string> parts;
    for (int i = 0; i < 8; ++i) {
        route slow;
        slow.headers = {{"Content-Type", "text/plain"}};
        slow.body = "late";
        slow.latency = 300ms;
        s.add("/late" + std::to_string(i), slow);
        parts.push_back(url_part(s.url("/late" + std::to_string(i)), "text/plain"));
    }
    const mime::document doc = mime::document::parse(message(parts));
    retrieve_options o;
    o.parallel = 2;
    o.timeout = 1s;
    for (const retrieval& r : retrieve(bodies_of(doc), o))
        EXPECT_EQ(r.st, st::fetched) << r.message;
}

TEST(Retrieve, MalformedResponseTypesAreRejected) {
    test_server s;
    s.add("/t", "text", "x");
    s.add("/g", "garbage", "x");
    EXPECT_EQ(one(url_part(s.url("/t"), "text/plain")).st, st::type_mismatch);
    EXPECT_EQ(one(url_part(s.url("/g"), "text/plain")).st, st::type_mismatch);
    // Data that is not the base64 the part says it is.
    s.add("/bad64", "image/png", "not base64 at all!");
    EXPECT_EQ(
        one(url_part(s.url("/bad64"), "image/png", "Content-Transfer-Encoding: base64\r\n")).reason,
        "bad_encoding");
}

TEST(Retrieve, FtpThroughAnHttpProxyHonoursItsStatus) {
    test_server proxy;
    route bad;
    bad.status = 502;
    bad.headers = {{"Content-Type", "text/html"}};
    bad.body = "<h1>Bad Gateway</h1>";
    proxy.add("ftp://ftp.invalid/pub/f.bin", bad);
    ::setenv("ftp_proxy", proxy.url("").c_str(), 1);
    const std::string saved_no = std::getenv("no_proxy") ? std::getenv("no_proxy") : "";
    ::unsetenv("no_proxy");
    ::unsetenv("NO_PROXY");
    const retrieval r = one(url_part("ftp://ftp.invalid/pub/f.bin", "application/octet-stream"));
    ::unsetenv("ftp_proxy");
    ::setenv("no_proxy", saved_no.c_str(), 1);
    ::setenv("NO_PROXY", saved_no.c_str(), 1);
    EXPECT_EQ(proxy.requests("ftp://ftp.invalid/pub/f.bin"), 1);
    EXPECT_EQ(r.st, st::failed);
    EXPECT_EQ(r.reason, "http_502");
    EXPECT_TRUE(r.data.empty());
}

TEST(Retrieve, ExpiredPartsAreRefusedUnlessAsked) {
    test_server s;
    s.add("/a", "text/html", "a");
    const std::string part =
        url_part(s.url("/a"), "text/html", "", "; expiration=\"Fri, 14 Jun 1991 19:13:14 -0400\"");
    const retrieval expired = one(part);
    EXPECT_EQ(expired.st, st::refused);
    EXPECT_EQ(expired.reason, "expired");
    EXPECT_EQ(s.requests("/a"), 0);
    retrieve_options o;
    o.ignore_expiration = true;
    EXPECT_EQ(one(part, o).st, st::fetched);
    retrieve_options before;
    before.now = 600'000'000;  // 1989: not yet expired
    EXPECT_EQ(one(part, before).st, st::fetched);
}

TEST(Retrieve, URL_4_3_LocalFilesOnlyInsideAllowLocal) {
    const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                      ("retrieve_local_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "in");
    std::ofstream(dir / "in/a.txt") << "local";
    std::ofstream(dir / "secret.txt") << "secret";
    std::filesystem::create_symlink(dir / "secret.txt", dir / "in/link.txt");
    const auto local = [&](const std::string& name) {
        return "access-type=local-file; name=\"" + name +
               "\"\r\n\r\nContent-Type: text/plain\r\nContent-ID: <l@x>\r\n";
    };
    const retrieval no = one(local((dir / "in/a.txt").string()));
    EXPECT_EQ(no.st, st::refused);
    EXPECT_EQ(no.reason, "not_allowed");
    retrieve_options o;
    o.allow_local = dir / "in";
    const retrieval yes = one(local((dir / "in/a.txt").string()), o);
    EXPECT_EQ(yes.st, st::fetched) << yes.message;
    EXPECT_EQ(yes.data, "local");
    EXPECT_EQ(one(local("a.txt"), o).data, "local");  // relative: inside the folder
    EXPECT_EQ(one(local((dir / "secret.txt").string()), o).reason, "not_allowed");
    EXPECT_EQ(one(local((dir / "in/../secret.txt").string()), o).reason, "not_allowed");
    EXPECT_EQ(one(local((dir / "in/link.txt").string()), o).reason, "not_allowed");  // a link out
    // file: URLs follow the same rule, and are refused without allow_local.
    const std::string file_url = "file://" + (dir / "in/a.txt").string();
    EXPECT_EQ(one(url_part(file_url, "text/plain")).reason, "not_allowed");
    EXPECT_EQ(one(url_part(file_url, "text/plain"), o).data, "local");
    EXPECT_EQ(one(url_part("file:///etc/passwd", "text/plain"), o).reason, "not_allowed");
    std::filesystem::remove_all(dir);
}

TEST(Retrieve, URL_2_2_WhatIsNeverRetrieved) {
    for (const std::string& part :
         {url_part("mailto:a@b.example"), url_part("telnet://h.example/"),
          std::string(
              "access-type=mail-server; server=\"a@b.example\"\r\n\r\nContent-ID: <m@x>\r\n"),
          std::string("access-type=afs; name=\"/afs/x\"\r\n\r\n"),
          std::string("access-type=URL\r\n\r\nContent-Type: text/plain\r\n")}) {
        SCOPED_TRACE(part);
        const retrieval r = one(part);
        EXPECT_EQ(r.st, st::refused);
        EXPECT_FALSE(r.reason.empty());
        EXPECT_FALSE(r.message.empty());
    }
}

TEST(Retrieve, ManyPartsInParallelOnFewConnections) {
    test_server s;
    std::vector<std::string> parts;
    for (int i = 0; i < 60; ++i) {
        s.add("/p" + std::to_string(i), "application/octet-stream",
              std::string(1000 + i, 'a' + i % 26));
        parts.push_back(url_part(s.url("/p" + std::to_string(i)), "application/octet-stream"));
    }
    const mime::document doc = mime::document::parse(message(parts));
    retrieve_options o;
    o.parallel = 4;
    const auto results = retrieve(bodies_of(doc), o);
    ASSERT_EQ(results.size(), 60u);
    for (int i = 0; i < 60; ++i) {
        EXPECT_EQ(results[i].st, st::fetched) << results[i].message;
        EXPECT_EQ(results[i].data, std::string(1000 + i, 'a' + i % 26));
    }
    EXPECT_LE(s.peak_connections(), 4);
    EXPECT_LT(s.connections(), 60);  // reused
}

// tests/support/ftp_server.py (Debian's python3-pyftpdlib) serving `folder` to anonymous
// users on 127.0.0.1; stopped when this object goes (its standard input closes).
class ftp_server {
public:
    explicit ftp_server(const std::filesystem::path& folder) {
        int in[2], out[2];
        if (::pipe(in) != 0 || ::pipe(out) != 0) return;
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_addclose(&fa, in[1]);
        posix_spawn_file_actions_addclose(&fa, out[0]);
        const std::string script =
            (std::filesystem::path(MHTML_TEST_DATA) / ".." / "support" / "ftp_server.py").string();
        std::string python = "/usr/bin/python3", dir = folder.string();
        char* argv[] = {python.data(), const_cast<char*>(script.c_str()), dir.data(), nullptr};
        const bool spawned = posix_spawn(&pid_, argv[0], &fa, nullptr, argv, environ) == 0;
        posix_spawn_file_actions_destroy(&fa);
        ::close(in[0]);
        ::close(out[1]);
        stdin_ = in[1];
        if (!spawned) pid_ = 0;
        std::string line;
        const auto end = std::chrono::steady_clock::now() + 20s;
        while (pid_ && line.find('\n') == std::string::npos &&
               std::chrono::steady_clock::now() < end) {
            pollfd p{out[0], POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            char buf[64];
            const ssize_t n = ::read(out[0], buf, sizeof buf);
            if (n <= 0) break;
            line.append(buf, static_cast<std::size_t>(n));
        }
        ::close(out[0]);
        if (line.starts_with("port ")) port_ = std::stoi(line.substr(5));
    }
    ~ftp_server() {
        if (stdin_ >= 0) ::close(stdin_);
        if (pid_ <= 0) return;
        int st = 0;
        for (int i = 0; i < 100 && ::waitpid(pid_, &st, WNOHANG) == 0; ++i)
            std::this_thread::sleep_for(50ms);
        if (::waitpid(pid_, &st, WNOHANG) == 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, &st, 0);
        }
    }
    ftp_server(const ftp_server&) = delete;
    ftp_server& operator=(const ftp_server&) = delete;
    int port() const { return port_; }
    std::string site() const { return "127.0.0.1:" + std::to_string(port_); }

private:
    pid_t pid_ = 0;
    int stdin_ = -1;
    int port_ = 0;
};

TEST(Retrieve, FtpUrlsAndAnonFtpAgainstALoopbackServer) {
    const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                      ("retrieve_ftp_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "pub");
    const std::string data = std::string("binary\0data\r\n", 13) + std::string(3000, 'z');
    { std::ofstream(dir / "pub" / "file.bin", std::ios::binary) << data; }
    ftp_server ftp(dir);
    ASSERT_GT(ftp.port(), 0) << "tests/support/ftp_server.py did not start (python3-pyftpdlib)";
    const retrieval by_url =
        one(url_part("ftp://" + ftp.site() + "/pub/file.bin", "application/octet-stream"));
    EXPECT_EQ(by_url.st, st::fetched) << by_url.message;
    EXPECT_EQ(by_url.data, data);
    const retrieval anon = one("access-type=anon-ftp; site=\"" + ftp.site() +
                               "\"; directory=pub; name=\"file.bin\"; mode=image\r\n\r\n"
                               "Content-Type: application/octet-stream\r\nContent-ID: <f@x>\r\n");
    EXPECT_EQ(anon.st, st::fetched) << anon.message;
    EXPECT_EQ(anon.data, data);
    EXPECT_EQ(anon.url, "ftp://" + ftp.site() + "/pub/file.bin;type=i");
    const retrieval missing = one(url_part("ftp://" + ftp.site() + "/pub/none.bin", "text/plain"));
    EXPECT_EQ(missing.st, st::failed);
    EXPECT_EQ(missing.reason, "not_found");
    std::filesystem::remove_all(dir);
}

TEST(Retrieve, AtMostMaxPartsAreTried) {
    test_server s;
    std::vector<std::string> parts;
    for (int i = 0; i < 5; ++i) {
        s.add("/q" + std::to_string(i), "text/plain", "x");
        parts.push_back(url_part(s.url("/q" + std::to_string(i)), "text/plain"));
    }
    parts.insert(parts.begin() + 1, url_part("mailto:a@b.example"));  // refused: not counted
    const mime::document doc = mime::document::parse(message(parts));
    retrieve_options o;
    o.max_parts = 3;
    const auto r = retrieve(bodies_of(doc), o);
    ASSERT_EQ(r.size(), 6u);
    EXPECT_EQ(r[0].st, st::fetched);
    EXPECT_EQ(r[1].reason, "scheme");
    EXPECT_EQ(r[2].st, st::fetched);
    EXPECT_EQ(r[3].st, st::fetched);
    EXPECT_EQ(r[4].reason, "limit");
    EXPECT_EQ(r[5].reason, "limit");
    EXPECT_EQ(s.total_requests(), 3);
}

TEST(Retrieve, TheProxyEnvironmentIsHonoured) {
    // http_proxy names a loopback "proxy" (the test server, answering the absolute-form
    // request); the name in the URL is never resolved.
    test_server proxy;
    proxy.add("http://external.invalid/doc.html", "text/html", "<p>via proxy</p>");
    const std::string saved_no = std::getenv("no_proxy") ? std::getenv("no_proxy") : "";
    const std::string saved_NO = std::getenv("NO_PROXY") ? std::getenv("NO_PROXY") : "";
    ::setenv("http_proxy", proxy.url("").c_str(), 1);
    ::unsetenv("no_proxy");
    ::unsetenv("NO_PROXY");
    const retrieval r = one(url_part("http://external.invalid/doc.html"));
    ::unsetenv("http_proxy");
    ::setenv("no_proxy", saved_no.c_str(), 1);
    ::setenv("NO_PROXY", saved_NO.c_str(), 1);
    EXPECT_EQ(r.st, st::fetched) << r.message;
    EXPECT_EQ(r.data, "<p>via proxy</p>");
    EXPECT_EQ(proxy.requests("http://external.invalid/doc.html"), 1);
}

TEST(Materialize, FetchedPartsAreWrittenInAndEverythingElseIsCopied) {
    test_server s;
    s.add("/page.html", "text/html", "<p>page</p>\r\n");
    s.add("/img.png", "image/png", std::string("\x89PNG\r\n\x1a\n\0\0", 10));
    s.add("/dash.txt", "text/plain", "--b\r\nnot a delimiter\r\n");
    const std::string input =
        "MIME-Version: 1.0\r\nSubject: test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
        "preamble\r\n"
        "--b\r\nContent-Type: text/plain\r\n\r\nfirst\r\n"
        "--b\r\nContent-Type: message/external-body; access-type=URL;\r\n"
        "  URL=\"" +
        s.url("/page.html") +
        "\"\r\nContent-Description: the page\r\n\r\n"
        "Content-Type: text/html\r\nContent-ID: <page@x>\r\n\r\n"
        "--b\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
        s.url("/img.png") +
        "\"\r\n\r\nContent-Type: image/png\r\nContent-ID: <img@x>\r\n\r\n"
        "--b\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
        s.url("/gone") +
        "\"\r\n\r\nContent-Type: text/html\r\nContent-ID: <gone@x>\r\n\r\n"
        "--b\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
        s.url("/dash.txt") +
        "\"\r\n\r\nContent-Type: text/plain\r\nContent-ID: <dash@x>\r\n\r\n"
        "--b--\r\nepilogue\r\n";
    const mime::document doc = mime::document::parse(input);
    materialize_report rep;
    const std::string out = materialize(doc, {}, rep);
    ASSERT_EQ(rep.parts.size(), 4u);
    EXPECT_EQ(rep.fetched, 3u);
    EXPECT_EQ(rep.failed, 1u);
    EXPECT_EQ(rep.parts[2].result.reason, "http_404");
    EXPECT_FALSE(rep.parts[2].replaced);

    // Read back: the fetched parts are ordinary parts with the data; the failed one is as it was.
    const mime::document back = mime::document::parse(out);
    EXPECT_TRUE(back.diagnostics().empty()) << back.diagnostics().front().message;
    const auto decoded = [&](const char* path) {
        std::string d;
        back.find(path)->decode_to(d);
        return d;
    };
    EXPECT_EQ(back.find("2")->content_type().essence(), "text/html");
    EXPECT_EQ(back.find("2")->content_id(), "page@x");
    EXPECT_EQ(back.find("2")->header("Content-Description")->value(), "the page");
    EXPECT_EQ(decoded("2"), "<p>page</p>\r\n");
    EXPECT_EQ(back.find("3")->encoding(), mime::transfer_encoding::base64);
    EXPECT_EQ(decoded("3"), std::string("\x89PNG\r\n\x1a\n\0\0", 10));
    EXPECT_TRUE(back.find("4")->content_type().is("message", "external-body"));
    EXPECT_EQ(decoded("5"), "--b\r\nnot a delimiter\r\n");  // encoded so that no line is "--b"
    EXPECT_EQ(back.find("5")->encoding(), mime::transfer_encoding::base64);
    // Octets outside the replaced parts are the input's.
    const std::size_t first = input.find("Content-Type: message/external-body");
    EXPECT_EQ(out.substr(0, first), input.substr(0, first));
    const std::size_t gone = input.find(
        "--b\r\nContent-Type: message/external-body; access-type=URL; URL=\"" + s.url("/gone"));
    const std::size_t gone_end = input.find("--b\r\n", gone + 5);
    EXPECT_NE(out.find(input.substr(gone, gone_end - gone)), std::string::npos);
    EXPECT_TRUE(out.ends_with("--b--\r\nepilogue\r\n"));

    // Again on the output: only the failed part is left to fetch, and nothing else changes.
    materialize_report again;
    EXPECT_EQ(materialize(back, {}, again), out);
    EXPECT_EQ(again.parts.size(), 1u);
}

TEST(Materialize, Base64BodiesOfEverySizeReadBackExactly) {
    // Sizes around a line (57 octets), a quantum and the writer's 768 KiB pieces; in a CRLF
    // and in an LF file. Each reads back to its octets, with no line over 76 characters.
    test_server s;
    const std::vector<std::size_t> sizes = {0,  1,   2,      56,     57,
                                            58, 114, 786432, 786433, 1572864 + 171};
    for (std::size_t n : sizes) {
        std::string data(n, '\0');
        for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<char>((i * 7919) % 256);
        s.add("/d" + std::to_string(n), "application/octet-stream", data);
    }
    for (const std::string eol : {"\r\n", "\n"}) {
        std::string input =
            "MIME-Version: 1.0" + eol + "Content-Type: multipart/mixed; boundary=b" + eol + eol;
        for (std::size_t n : sizes)
            input += "--b" + eol + "Content-Type: message/external-body; access-type=URL; URL=\"" +
                     s.url("/d" + std::to_string(n)) + "\"" + eol + eol +
                     "Content-Type: application/octet-stream" + eol + eol;
        input += "--b--" + eol;
        materialize_report rep;
        const std::string out = materialize(mime::document::parse(input), {}, rep);
        EXPECT_EQ(rep.fetched, sizes.size());
        const mime::document back = mime::document::parse(out);
        for (std::size_t k = 0; k < sizes.size(); ++k) {
            SCOPED_TRACE(std::to_string(sizes[k]) + (eol == "\n" ? " LF" : " CRLF"));
            const auto p = back.find(std::to_string(k + 1));
            ASSERT_TRUE(p);
            std::string d;
            EXPECT_TRUE(p->decode_to(d).clean());
            std::string want(sizes[k], '\0');
            for (std::size_t i = 0; i < sizes[k]; ++i)
                want[i] = static_cast<char>((i * 7919) % 256);
            EXPECT_EQ(d, want);
            std::size_t longest = 0, line = 0;
            for (char c : p->raw_body()) {
                line = c == '\n' ? 0 : line + 1;
                longest = std::max(longest, line);
            }
            EXPECT_LE(longest, eol == "\n" ? 76u : 77u);  // 76, and the CR of CRLF
        }
        for (const diagnostic& d : back.diagnostics())
            EXPECT_NE(d.sev, severity::error) << d.message;
    }
}

TEST(Materialize, MessagesAndMultipartsAreNeverEncodedAndPhantomsAreLeftAlone) {
    test_server s;
    s.add("/m.eml", "message/rfc822", "Subject: inner\r\n\r\nhello \xc3\xa9\r\n");
    s.add("/clash.eml", "message/rfc822", "Subject: inner\r\n\r\n--b\r\nclash\r\n");
    s.add("/hidden", "text/plain", "hidden");
    s.add("/plain", "text/plain", "plain text\r\n");
    const std::string input =
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
        "--b\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
        s.url("/m.eml") +
        "\"\r\n\r\nContent-Type: message/rfc822\r\nContent-ID: <m@x>\r\n\r\n"
        "--b\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
        s.url("/clash.eml") +
        "\"\r\n\r\nContent-Type: message/rfc822\r\nContent-ID: <c@x>\r\n\r\n"
        "--b\r\nContent-Type: message/external-body; access-type=URL; "
        "URL=\"http://127.0.0.1:1/x\"\r\n"
        "\r\nContent-Type: multipart/mixed; boundary=inner\r\nContent-ID: <p@x>\r\n\r\n"
        "--inner\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
        s.url("/hidden") +
        "\"\r\n\r\nContent-Type: text/plain\r\n\r\n--inner--\r\n"
        "--b\r\nContent-Type: multipart/digest; boundary=d\r\n\r\n"
        "--d\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
        s.url("/plain") + "\"\r\n\r\nContent-ID: <d@x>\r\n\r\n--d--\r\n--b--\r\n";
    materialize_report rep;
    const std::string out = materialize(mime::document::parse(input), {}, rep);
    EXPECT_EQ(s.requests("/hidden"), 0);  // inside a phantom body (URL-3.0.3): never fetched
    ASSERT_EQ(rep.parts.size(), 4u);
    EXPECT_TRUE(rep.parts[0].replaced);
    EXPECT_FALSE(rep.parts[1].replaced);
    EXPECT_EQ(rep.parts[1].result.reason, "boundary");
    EXPECT_FALSE(rep.parts[2].replaced);  // nothing listens on port 1
    EXPECT_TRUE(rep.parts[3].replaced);
    const mime::document back = mime::document::parse(out);
    // No diagnostic the input did not have already (its phantom is as it was).
    const mime::document before = mime::document::parse(input);
    for (const diagnostic& d : back.diagnostics()) {
        bool known = false;
        for (const diagnostic& e : before.diagnostics()) known |= e.code == d.code;
        EXPECT_TRUE(known) << d.message;
    }
    const auto m = back.find("1");
    EXPECT_TRUE(m->content_type().is("message", "rfc822"));
    EXPECT_EQ(m->encoding(), mime::transfer_encoding::eight_bit);
    EXPECT_EQ(back.find("1.1")->header("Subject")->value(), "inner");
    // In a digest, a part without a type would be message/rfc822: the type is written.
    EXPECT_TRUE(back.find("4.1")->content_type().is("text", "plain"));
    std::string d;
    back.find("4.1")->decode_to(d);
    EXPECT_EQ(d, "plain text\r\n");
    EXPECT_NE(out.find(s.url("/hidden")), std::string::npos);  // the phantom, as it was
}

TEST(Materialize, HeldBodiesStayWithinTheBudgetAndWritingGoesOn) {
    // The first part is slow, the others quick; with a budget of one octet no transfer starts
    // while another runs and something is held, yet every part is written, in order.
    test_server s;
    route slow;
    slow.headers = {{"Content-Type", "text/plain"}};
    slow.body = "first\r\n";
    slow.latency = 300ms;
    s.add("/0", slow);
    std::string input = "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n";
    for (int i = 0; i < 6; ++i) {
        if (i > 0)
            s.add("/" + std::to_string(i), "text/plain", "part " + std::to_string(i) + "\r\n");
        input += "--b\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
                 s.url("/" + std::to_string(i)) + "\"\r\n\r\nContent-Type: text/plain\r\n\r\n";
    }
    input += "--b--\r\n";
    retrieve_options o;
    o.parallel = 4;
    o.max_held = 1;
    materialize_report rep;
    const std::string out = materialize(mime::document::parse(input), o, rep);
    EXPECT_EQ(rep.fetched, 6u);
    EXPECT_EQ(s.total_requests(), 6);
    EXPECT_LT(out.find("first"), out.find("part 1"));
    EXPECT_LT(out.find("part 4"), out.find("part 5"));
}

TEST(Materialize, AWholeMessageThatIsAnExternalBodyKeepsItsHeading) {
    test_server s;
    s.add("/m.txt", "text/plain", "the text\r\n");
    const std::string input =
        "From: a@b.example\r\nSubject: pointer\r\nMIME-Version: 1.0\r\n"
        "Content-Type: message/external-body; access-type=URL; URL=\"" +
        s.url("/m.txt") +
        "\"\r\n\r\nContent-Type: text/plain\r\n"
        "Content-ID: <m@x>\r\n\r\n";
    materialize_report rep;
    const std::string out = materialize(mime::document::parse(input), {}, rep);
    EXPECT_EQ(rep.fetched, 1u);
    EXPECT_EQ(out,
              "From: a@b.example\r\nSubject: pointer\r\nMIME-Version: 1.0\r\n"
              "Content-Type: text/plain\r\nContent-ID: <m@x>\r\n"
              "Content-Transfer-Encoding: 7bit\r\n\r\nthe text\r\n");
}

}  // namespace
}  // namespace mhtml::external
