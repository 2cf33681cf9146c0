// view::server: a server on 127.0.0.1 and a free port, started and stopped by each test,
// asked with raw HTTP/1.1 over sockets (so that malformed, slow and abrupt requests can be
// sent too). Every wait is bounded.
#include "mhtml/view/serve.hpp"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "mhtml/store/index.hpp"
#include "view_support.hpp"

namespace mhtml::view {
namespace {

using test::crlf;
using test::sandbox;
using test::write_bytes;

// A page, its style sheet and image (by label), a frame by cid:, and a reference to nothing.
std::string archive(std::string_view host, std::string_view marker) {
    return crlf(std::string("MIME-Version: 1.0\n"
                            "Subject: Page ") +
                std::string(marker) +
                "\n"
                "Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n"
                "--b\nContent-Type: text/html; charset=utf-8\nContent-Location: http://" +
                std::string(host) +
                "/dir/page.html\n\n"
                "<!DOCTYPE html><html><head><title>Title " +
                std::string(marker) +
                "</title><link rel=stylesheet href=\"s.css\"></head><body>\n"
                "<img src=\"img/a.png\"><iframe src=\"cid:frame@x\"></iframe>\n"
                "<img src=\"https://elsewhere.example/tracker.gif\"><a href=\"other.html\">o</a>\n"
                "<script>alert(1)</script></body></html>\n"
                "--b\nContent-Type: text/css\nContent-Location: http://" +
                std::string(host) +
                "/dir/s.css\n\nbody { background: url(img/a.png) }\n"
                "--b\nContent-Type: image/png\nContent-Location: http://" +
                std::string(host) + "/dir/img/a.png\nContent-Transfer-Encoding: base64\n\n" +
                (marker == "A" ? "QUFBQQ==" : "QkJCQg==") +
                "\n"
                "--b\nContent-Type: text/html\nContent-ID: <frame@x>\n\n<p>frame " +
                std::string(marker) + "</p>\n--b--\n");
}

struct response {
    int status = 0;
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
    bool ok = false;  // a whole response was read
};

int connect_to(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool send_all(int fd, std::string_view s) {
    while (!s.empty()) {
        const ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
        if (n <= 0) return false;
        s.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Reads until the peer closes or `limit` passes.
std::string read_all(int fd, std::chrono::milliseconds limit) {
    std::string out;
    const auto end = std::chrono::steady_clock::now() + limit;
    char buf[65536];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            end - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

response parse(const std::string& raw, bool head = false) {
    response r;
    const std::size_t end = raw.find("\r\n\r\n");
    if (end == std::string::npos || !raw.starts_with("HTTP/1.1 ")) return r;
    r.status = std::stoi(raw.substr(9, 3));
    std::size_t at = raw.find("\r\n") + 2;
    while (at < end) {
        const std::size_t eol = raw.find("\r\n", at);
        const std::string line = raw.substr(at, eol - at);
        const std::size_t colon = line.find(':');
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        r.headers[name] = line.substr(colon + 2);
        at = eol + 2;
    }
    r.body = raw.substr(end + 4);
    const std::size_t length = r.headers.count("content-length")
                                   ? std::stoul(r.headers["content-length"])
                                   : std::string::npos;
    r.ok = head ? r.body.empty() : length == r.body.size();
    return r;
}

// One request on a new connection (Connection: close), the whole response.
response request(std::uint16_t port, std::string_view target, std::string_view method = "GET",
                 std::string host = {}, std::string_view extra = {}) {
    if (host.empty()) host = "127.0.0.1:" + std::to_string(port);
    const int fd = connect_to(port);
    if (fd < 0) return {};
    send_all(fd, std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: " + host +
                     "\r\n" + std::string(extra) + "Connection: close\r\n\r\n");
    const std::string raw = read_all(fd, std::chrono::seconds(10));
    ::close(fd);
    return parse(raw, method == "HEAD");
}

// The server over `paths`, running on its own thread for the test's lifetime.
class running {
public:
    explicit running(std::vector<std::filesystem::path> paths, serve_options o = {})
        : server_(paths, with_defaults(std::move(o))) {
        server_.start();
        thread_ = std::thread([this] { server_.run(); });
    }
    ~running() {
        server_.stop();
        thread_.join();
    }
    server& get() { return server_; }
    std::uint16_t port() const { return server_.port(); }

private:
    static serve_options with_defaults(serve_options o) {
        o.threads = 2;
        return o;
    }
    server server_;
    std::thread thread_;
};

void expect_safe_headers(const response& r) {
    EXPECT_EQ(r.headers.at("cache-control"), "no-store");
    EXPECT_EQ(r.headers.at("x-content-type-options"), "nosniff");
    EXPECT_EQ(r.headers.at("referrer-policy"), "no-referrer");
    EXPECT_TRUE(r.headers.count("content-security-policy"));
}

TEST(Serve, MHT_12_3_PageViewServesTheArchivesOwnPartsUnderItsTicket) {
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    running s({box.path()});
    const std::string t = s.get().ticket_of(box / "a.mhtml");
    ASSERT_EQ(t.size(), 32u);

    const response index = request(s.port(), "/");
    ASSERT_TRUE(index.ok);
    EXPECT_EQ(index.status, 200);
    expect_safe_headers(index);
    EXPECT_THAT(index.body, testing::HasSubstr("href=\"/" + t + "/\""));

    // The page at /T/ itself (nothing under a ticket redirects), and at its URL.
    const response start = request(s.port(), "/" + t + "/");
    EXPECT_EQ(start.status, 200);
    const std::string page_url = "/" + t + "/r/http/a.example/dir/page.html";
    const response page = request(s.port(), page_url);
    EXPECT_EQ(start.body, page.body);
    ASSERT_TRUE(page.ok);
    EXPECT_EQ(page.status, 200);
    expect_safe_headers(page);
    EXPECT_THAT(page.headers.at("content-type"), testing::StartsWith("text/html"));
    // Every reference that names a part points at it under the ticket; the others at the
    // missing page (nothing a browser would fetch leaves the server).
    EXPECT_THAT(page.body, testing::HasSubstr("href=\"/" + t + "/r/http/a.example/dir/s.css\""));
    EXPECT_THAT(page.body, testing::HasSubstr("src=\"/" + t + "/r/http/a.example/dir/img/a.png\""));
    EXPECT_THAT(page.body, testing::HasSubstr("src=\"/" + t + "/part/4\""));
    EXPECT_THAT(page.body,
                testing::HasSubstr("src=\"/" + t +
                                   "/missing?u=https%3A%2F%2Felsewhere.example%2Ftracker.gif\""));
    EXPECT_THAT(page.body, testing::Not(testing::HasSubstr("\"https://elsewhere")));
    // MHT-12.5: no received script runs; the policy allows only the ticket's own URLs.
    const std::string csp = page.headers.at("content-security-policy");
    EXPECT_THAT(csp, testing::HasSubstr("script-src 'none'"));
    EXPECT_THAT(csp, testing::HasSubstr("default-src 'none'"));
    EXPECT_THAT(csp, testing::HasSubstr("img-src http://127.0.0.1:" + std::to_string(s.port()) +
                                        "/" + t + "/ "));

    const response css = request(s.port(), "/" + t + "/r/http/a.example/dir/s.css");
    EXPECT_EQ(css.status, 200);
    EXPECT_THAT(css.body, testing::HasSubstr("url(/" + t + "/r/http/a.example/dir/img/a.png)"));
    const response png = request(s.port(), "/" + t + "/r/http/a.example/dir/img/a.png");
    EXPECT_EQ(png.status, 200);
    EXPECT_EQ(png.body, "AAAA");
    EXPECT_EQ(png.headers.at("content-type"), "image/png");
    const response frame = request(s.port(), "/" + t + "/part/4");
    EXPECT_THAT(frame.body, testing::HasSubstr("frame A"));

    const response missing =
        request(s.port(), "/" + t + "/missing?u=https%3A%2F%2Felsewhere.example%2Ftracker.gif");
    EXPECT_EQ(missing.status, 404);
    EXPECT_THAT(missing.body, testing::HasSubstr("https://elsewhere.example/tracker.gif"));
    expect_safe_headers(missing);

    const response parts = request(s.port(), "/" + t + "/parts");
    EXPECT_EQ(parts.status, 200);
    EXPECT_THAT(parts.body, testing::HasSubstr("/" + t + "/part/3?download"));
    const response download = request(s.port(), "/" + t + "/part/3?download");
    EXPECT_EQ(download.body, "AAAA");
    EXPECT_THAT(download.headers.at("content-disposition"), testing::StartsWith("attachment"));
    const response check = request(s.port(), "/" + t + "/check");
    EXPECT_EQ(check.status, 200);
    EXPECT_THAT(check.body, testing::HasSubstr("findings"));
}

TEST(Serve, MHT_12_3_TicketsIsolateArchives) {
    sandbox box;
    write_bytes(box / "a.mhtml", archive("same.example", "A"));
    write_bytes(box / "b.mhtml", archive("same.example", "B"));
    running s({box.path()});
    const std::string ta = s.get().ticket_of(box / "a.mhtml");
    const std::string tb = s.get().ticket_of(box / "b.mhtml");
    ASSERT_NE(ta, tb);
    // The same path under each ticket: each archive's own octets, never the other's.
    EXPECT_EQ(request(s.port(), "/" + ta + "/r/http/same.example/dir/img/a.png").body, "AAAA");
    EXPECT_EQ(request(s.port(), "/" + tb + "/r/http/same.example/dir/img/a.png").body, "BBBB");
    EXPECT_THAT(request(s.port(), "/" + tb + "/part/4").body, testing::HasSubstr("frame B"));
    // Guessed, altered and case-changed tickets: 404, with no archive's content.
    std::string upper = ta;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string flipped = ta;
    flipped[0] = flipped[0] == '0' ? '1' : '0';
    for (const std::string& bad : {upper, flipped, std::string(32, '0'), ta.substr(0, 31), ta + "0",
                                   std::string("r"), std::string("part")}) {
        SCOPED_TRACE(bad);
        const response r = request(s.port(), "/" + bad + "/r/http/same.example/dir/img/a.png");
        EXPECT_EQ(r.status, 404);
        EXPECT_THAT(r.body, testing::Not(testing::HasSubstr("AAAA")));
        expect_safe_headers(r);
    }
    // Paths that climb out of a ticket reach nothing of another archive, nor any file.
    for (const std::string& path : std::vector<std::string>{
             "/" + ta + "/../" + tb + "/part/3", "/" + ta + "/part/../../" + tb + "/part/3",
             "/" + ta + "/part/%2e%2e/3", "/../../etc/passwd", "/" + ta + "/r/../../etc/passwd",
             "/" + ta + "/part//3", "/" + ta + "/part/3/../4"}) {
        SCOPED_TRACE(path);
        const response r = request(s.port(), path);
        EXPECT_EQ(r.status, 404);
        EXPECT_THAT(r.body, testing::Not(testing::HasSubstr("BBBB")));
        EXPECT_THAT(r.body, testing::Not(testing::HasSubstr("root:")));
    }
    // The policy of A's responses names A's ticket only.
    const response page = request(s.port(), "/" + ta + "/r/http/same.example/dir/page.html");
    EXPECT_THAT(page.headers.at("content-security-policy"), testing::HasSubstr(ta));
    EXPECT_THAT(page.headers.at("content-security-policy"), testing::Not(testing::HasSubstr(tb)));
}

TEST(Serve, HmacTicketsSurviveARestartAndRandomOnesDoNot) {
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    serve_options o;
    o.secret = "0123456789abcdef0123456789abcdef";
    o.index_in_background = false;
    const server one({box.path()}, o), two({box.path()}, o);
    EXPECT_EQ(one.ticket_of(box / "a.mhtml"), two.ticket_of(box / "a.mhtml"));
    o.secret = "another secret, another ticket";
    const server three({box.path()}, o);
    EXPECT_NE(three.ticket_of(box / "a.mhtml"), one.ticket_of(box / "a.mhtml"));
    const server four({box.path()}), five({box.path()});
    EXPECT_NE(four.ticket_of(box / "a.mhtml"), five.ticket_of(box / "a.mhtml"));
}

TEST(Serve, RequestsAreChecked) {
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    serve_options o;
    o.request_timeout = std::chrono::milliseconds(1000);
    o.max_header_bytes = 4096;
    running s({box.path()}, o);
    const std::string t = s.get().ticket_of(box / "a.mhtml");
    // DNS rebinding: a Host that is not this server's.
    for (const std::string& host :
         std::vector<std::string>{"evil.example", "evil.example:" + std::to_string(s.port()),
                                  "127.0.0.1:1", "127.0.0.1.evil.example"}) {
        SCOPED_TRACE(host);
        const response r = request(s.port(), "/", "GET", host);
        EXPECT_EQ(r.status, 421);
        expect_safe_headers(r);
    }
    EXPECT_EQ(request(s.port(), "/", "GET", "localhost:" + std::to_string(s.port())).status, 200);
    EXPECT_EQ(request(s.port(), "/", "GET", "127.0.0.1").status, 200);
    // Methods other than GET and HEAD.
    for (const std::string_view m : {"POST", "PUT", "DELETE", "OPTIONS", "TRACE"}) {
        const response r = request(s.port(), "/", m);
        EXPECT_EQ(r.status, 405) << m;
        EXPECT_EQ(r.headers.at("allow"), "GET, HEAD");
    }
    // HEAD: GET's status and headers, no body.
    const response get = request(s.port(), "/" + t + "/r/http/a.example/dir/img/a.png");
    const response head = request(s.port(), "/" + t + "/r/http/a.example/dir/img/a.png", "HEAD");
    EXPECT_TRUE(head.ok);
    EXPECT_EQ(head.status, 200);
    EXPECT_EQ(head.headers.at("content-length"), "4");
    EXPECT_EQ(head.headers.at("content-type"), get.headers.at("content-type"));
    EXPECT_TRUE(head.body.empty());
    // A header block over the limit: 431.
    const response big =
        request(s.port(), "/", "GET", {}, "X-Big: " + std::string(8000, 'x') + "\r\n");
    EXPECT_EQ(big.status, 431);
    // Absolute-form targets and garbage.
    EXPECT_EQ(request(s.port(), "http://127.0.0.1/").status, 400);
    {
        const int fd = connect_to(s.port());
        send_all(fd, "NOT HTTP AT ALL\r\n\r\n");
        const response r = parse(read_all(fd, std::chrono::seconds(5)));
        EXPECT_EQ(r.status, 400);
        ::close(fd);
    }
}

TEST(Serve, RangesEtagsAndHeadForms) {
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));  // the image is "AAAA"
    running s({box.path()});
    const std::string t = s.get().ticket_of(box / "a.mhtml");
    const std::string png = "/" + t + "/r/http/a.example/dir/img/a.png";
    const response whole = request(s.port(), png);
    ASSERT_EQ(whole.status, 200);
    EXPECT_EQ(whole.headers.at("accept-ranges"), "bytes");
    const std::string etag = whole.headers.at("etag");
    struct form {
        std::string range;
        int status;
        std::string body, content_range;
    };
    for (const form& f : std::vector<form>{{"bytes=0-1", 206, "AA", "bytes 0-1/4"},
                                           {"bytes=1-", 206, "AAA", "bytes 1-3/4"},
                                           {"bytes=-1", 206, "A", "bytes 3-3/4"},
                                           {"bytes=-9", 206, "AAAA", "bytes 0-3/4"},
                                           {"bytes=2-99", 206, "AA", "bytes 2-3/4"},
                                           {"bytes=4-", 416, "", "bytes */4"},
                                           {"bytes=-0", 416, "", "bytes */4"},
                                           {"bytes=0-1,2-3", 200, "AAAA", ""},
                                           {"bytes=3-1", 200, "AAAA", ""},
                                           {"bytes=x-y", 200, "AAAA", ""},
                                           {"items=0-1", 200, "AAAA", ""}}) {
        SCOPED_TRACE(f.range);
        for (const std::string_view method : {"GET", "HEAD"}) {
            const response r = request(s.port(), png, method, {}, "Range: " + f.range + "\r\n");
            EXPECT_TRUE(r.ok);
            EXPECT_EQ(r.status, f.status);
            if (method == "GET") {
                EXPECT_EQ(r.body, f.body);
            } else {
                EXPECT_TRUE(r.body.empty());
                EXPECT_EQ(r.headers.at("content-length"), std::to_string(f.body.size()));
            }
            EXPECT_EQ(r.headers.count("content-range") ? r.headers.at("content-range") : "",
                      f.content_range);
            expect_safe_headers(r);
        }
    }
    const response same = request(s.port(), png, "GET", {}, "If-None-Match: " + etag + "\r\n");
    EXPECT_EQ(same.status, 304);
    EXPECT_TRUE(same.body.empty());
    const response other =
        request(s.port(), png, "GET", {}, "If-None-Match: \"0000000000000000\"\r\n");
    EXPECT_EQ(other.status, 200);
    EXPECT_EQ(other.body, "AAAA");
}

TEST(Serve, ArchiveValuesNeverSplitAResponseHeader) {
    // A charset parameter and a label made to carry a header of their own: what reaches the
    // response is tokens, or nothing.
    sandbox box;
    write_bytes(box / "h.mhtml",
                crlf("MIME-Version: 1.0\n"
                     "Content-Type: multipart/related; boundary=\"b\"; type=\"text/plain\"\n\n"
                     "--b\nContent-Type: text/plain; charset=\"utf-8\\\"; X-Injected: 1\"\n"
                     "Content-Location: http://a.example/x\\\"%0D%0AX-Injected:%201\n\n"
                     "text\n--b--\n"));
    running s({box.path()});
    const std::string t = s.get().ticket_of(box / "h.mhtml");
    const response page = request(s.port(), "/" + t + "/part/1");
    EXPECT_EQ(page.status, 200);
    EXPECT_EQ(page.headers.at("content-type"), "text/plain");
    EXPECT_EQ(page.headers.count("x-injected"), 0u);
    const response file = request(s.port(), "/" + t + "/part/1?download");
    EXPECT_EQ(file.headers.count("x-injected"), 0u);
    const std::string cd = file.headers.at("content-disposition");
    EXPECT_TRUE(cd.starts_with("attachment; filename=\""));
    EXPECT_EQ(cd.find('"', 22), cd.size() - 1) << cd;
}

TEST(Serve, NothingUnderATicketLeadsOutOfIt) {
    // From a subagent's review: a root labelled with %2e%2e segments made /T/ redirect to a
    // URL a browser reads as /, where a script (allowed) read the index; and a root label of
    // 70,000 octets in that redirect's Location stopped the server. Now /T/ is the page, and a
    // part whose URL would hold a dot segment is served at /T/part/ only.
    sandbox box;
    const std::string long_label = "http://a.example/" + std::string(70'000, 'x');
    for (const auto& [file, label] : std::vector<std::pair<std::string, std::string>>{
             {"dots.mhtml", "http://ex.example/%2e%2e/%2E%2e/.%2e/%2e./"},
             {"long.mhtml", long_label}}) {
        write_bytes(box / file,
                    crlf("MIME-Version: 1.0\n"
                         "Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n"
                         "--b\nContent-Type: text/html\nContent-Location: " +
                         label + "\n\n<p>page</p><img src=\"i.png\">\n--b--\n"));
    }
    running s({box.path()});
    for (const std::string file : {"dots.mhtml", "long.mhtml"}) {
        SCOPED_TRACE(file);
        const std::string t = s.get().ticket_of(box / file);
        const response page = request(s.port(), "/" + t + "/");
        EXPECT_EQ(page.status, 200);
        EXPECT_EQ(page.headers.count("location"), 0u);
        EXPECT_THAT(page.body, testing::HasSubstr("<p>page</p>"));
        if (file == "dots.mhtml") {
            const response parts = request(s.port(), "/" + t + "/parts");
            EXPECT_NE(parts.body.find("/" + t + "/part/1\">open"), std::string::npos);
            EXPECT_EQ(parts.body.find("/r/"), std::string::npos);
        }
    }
    EXPECT_EQ(request(s.port(), "/").status, 200);  // still serving
    // Two Host headers: 400.
    EXPECT_EQ(request(s.port(), "/", "GET", {}, "Host: 127.0.0.1\r\n").status, 400);
}

TEST(Serve, SlowAndAbruptClientsAreCutOffAndTheServerGoesOn) {
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    serve_options o;
    o.request_timeout = std::chrono::milliseconds(800);
    running s({box.path()}, o);
    // Slowloris: a header block sent a few octets at a time never completes in time; the
    // server closes the connection (bounded: 5 s).
    {
        const int fd = connect_to(s.port());
        ASSERT_GE(fd, 0);
        const auto begin = std::chrono::steady_clock::now();
        bool closed = false;
        const std::string slow = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ";
        for (std::size_t i = 0; i < 50 && !closed; ++i) {
            if (!send_all(fd, std::string(1, i < slow.size() ? slow[i] : 'a'))) closed = true;
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 100) > 0) {
                char c;
                if (::recv(fd, &c, 1, 0) <= 0) closed = true;
            }
        }
        EXPECT_TRUE(closed);
        EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
        ::close(fd);
    }
    // Connections dropped mid-request and right after connecting.
    for (int i = 0; i < 50; ++i) {
        const int fd = connect_to(s.port());
        if (i % 2) send_all(fd, "GET / HTTP/1.1\r\nHo");
        ::close(fd);
    }
    // A burst of connections, each asking once (bounded: 200 connections).
    std::vector<int> fds;
    for (int i = 0; i < 200; ++i) fds.push_back(connect_to(s.port()));
    int answered = 0;
    for (int fd : fds) {
        if (fd < 0) continue;
        send_all(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    }
    for (int fd : fds) {
        if (fd < 0) continue;
        answered += parse(read_all(fd, std::chrono::seconds(10))).status == 200 ? 1 : 0;
        ::close(fd);
    }
    EXPECT_EQ(answered, 200);
    EXPECT_EQ(request(s.port(), "/").status, 200);
}

// Raises this process's descriptor limit to at least `n` (within the hard limit) for its
// lifetime; ok() is false when the hard limit is lower.
class descriptors_at_least {
public:
    explicit descriptors_at_least(rlim_t n) {
        if (::getrlimit(RLIMIT_NOFILE, &saved_) != 0) return;
        if (saved_.rlim_cur == RLIM_INFINITY || saved_.rlim_cur >= n) {
            ok_ = true;
            return;
        }
        if (saved_.rlim_max != RLIM_INFINITY && saved_.rlim_max < n) return;
        rlimit raised = saved_;
        raised.rlim_cur = n;
        ok_ = ::setrlimit(RLIMIT_NOFILE, &raised) == 0;
        restore_ = ok_;
    }
    ~descriptors_at_least() {
        if (restore_) ::setrlimit(RLIMIT_NOFILE, &saved_);
    }
    descriptors_at_least(const descriptors_at_least&) = delete;
    descriptors_at_least& operator=(const descriptors_at_least&) = delete;
    bool ok() const { return ok_; }

private:
    rlimit saved_{};
    bool ok_ = false, restore_ = false;
};

TEST(Serve, AFiveThousandConnectionBurstIsAnswered) {
    // 5,000 connections opened at once and held, then each asks for a part: the server holds
    // all 5,000 sessions together and answers every one. The test holds both ends, so it
    // needs some 10,000 descriptors; one deadline bounds it all (60 s).
    const descriptors_at_least fds_enough(10'500);
    ASSERT_TRUE(fds_enough.ok()) << "the hard limit on open files (ulimit -Hn) is below 10,500";
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    serve_options o;
    o.request_timeout = std::chrono::seconds(60);  // the first connections wait for the last
    running s({box.path()}, o);
    const std::string t = s.get().ticket_of(box / "a.mhtml");
    const std::string ask = "GET /" + t +
                            "/r/http/a.example/dir/img/a.png HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            "Connection: close\r\n\r\n";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::vector<int> fds;
    fds.reserve(5000);
    for (int i = 0; i < 5000 && std::chrono::steady_clock::now() < deadline; ++i)
        fds.push_back(connect_to(s.port()));
    ASSERT_EQ(fds.size(), 5000u);
    EXPECT_EQ(std::count(fds.begin(), fds.end(), -1), 0);
    for (int fd : fds)
        if (fd >= 0) send_all(fd, ask);
    int answered = 0;
    for (int fd : fds) {
        if (fd < 0) continue;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        const response r = parse(read_all(fd, std::max(left, std::chrono::milliseconds(1))));
        answered += r.ok && r.status == 200 && r.body == "AAAA" ? 1 : 0;
        ::close(fd);
    }
    EXPECT_EQ(answered, 5000);
    EXPECT_LT(std::chrono::steady_clock::now(), deadline);
    EXPECT_EQ(request(s.port(), "/").status, 200);
}

TEST(Serve, ConnectionsBeyondTheCapAreClosedCleanly) {
    // With room for 50 connections, a burst of 500 held open: those past the cap are closed
    // at once, without a partial response, and the server answers again once they are gone.
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    serve_options o;
    o.max_connections = 50;
    running s({box.path()}, o);
    std::vector<int> fds;
    for (int i = 0; i < 500; ++i) fds.push_back(connect_to(s.port()));
    int answered = 0, refused = 0, other = 0;
    for (int fd : fds) {
        if (fd < 0) {
            ++refused;
            continue;
        }
        send_all(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        const std::string raw = read_all(fd, std::chrono::seconds(10));
        const response r = parse(raw);
        if (raw.empty())
            ++refused;
        else if (r.ok && r.status == 200)
            ++answered;
        else
            ++other;
        ::close(fd);
    }
    EXPECT_GE(answered, 50);
    EXPECT_GT(refused, 0);
    EXPECT_EQ(other, 0);
    EXPECT_EQ(answered + refused, 500);
    EXPECT_EQ(request(s.port(), "/").status, 200);
}

TEST(Serve, ResponsesAreTheSameWithAndWithoutTheCache) {
    // Every route, twice, with the default cache and with none: the same status, type, ETag
    // and body. A part stored unencoded (served from the archive's buffer) and one in base64
    // (decoded once, then cached) answer ranges alike.
    sandbox box;
    std::string a = archive("a.example", "A");
    a.insert(
        a.rfind("--b--"),
        crlf("--b\nContent-Type: application/octet-stream\nContent-Location: "
             "http://a.example/dir/raw.bin\nContent-Transfer-Encoding: binary\n\n0123456789\n"));
    write_bytes(box / "a.mhtml", a);
    serve_options none;
    none.response_cache_bytes = 0;
    running cached({box.path()});
    running uncached({box.path()}, none);
    const std::string tc = cached.get().ticket_of(box / "a.mhtml");
    const std::string tu = uncached.get().ticket_of(box / "a.mhtml");
    // A body with its ticket replaced by T (the two servers' tickets differ).
    const auto untick = [](const std::string& body, const std::string& ticket) {
        std::string out;
        std::size_t at = 0;
        for (std::size_t k; (k = body.find(ticket, at)) != std::string::npos;
             at = k + ticket.size()) {
            out.append(body, at, k - at);
            out += 'T';
        }
        out.append(body, at);
        return out;
    };
    for (const std::string path :
         {"/", "/r/http/a.example/dir/page.html", "/r/http/a.example/dir/s.css",
          "/r/http/a.example/dir/img/a.png", "/r/http/a.example/dir/raw.bin", "/part/4",
          "/part/3?download", "/part/5?download", "/parts", "/r/http/a.example/none"}) {
        SCOPED_TRACE(path);
        std::map<std::string, std::string> etags;
        for (int round = 0; round < 2; ++round) {
            std::string under_c = "/", under_u = "/";
            under_c += tc;
            under_c += path;
            under_u += tu;
            under_u += path;
            const response c = request(cached.port(), under_c);
            const response u = request(uncached.port(), under_u);
            ASSERT_TRUE(c.ok);
            EXPECT_EQ(c.status, u.status);
            EXPECT_EQ(c.headers.at("content-type"), u.headers.at("content-type"));
            const auto etag = [](const response& r) {
                return r.headers.count("etag") ? r.headers.at("etag") : "";
            };
            // A rewritten document holds its ticket, and so its ETag differs between the two.
            if (c.body.find(tc) == std::string::npos) {
                EXPECT_EQ(etag(c), etag(u));
            }
            if (round == 0) {
                etags[path] = etag(c);
            } else {
                EXPECT_EQ(etag(c), etags[path]);
            }
            EXPECT_EQ(untick(c.body, tc), untick(u.body, tu));
        }
    }
    // The cache holds what the first server answered; the second holds nothing.
    EXPECT_GT(cached.get().cached_bytes(), 0u);
    EXPECT_EQ(uncached.get().cached_bytes(), 0u);
    // A range of the base64 image (decoded once, then cached) answers alike in both.
    for (auto [srv, ticket] : {std::pair{&cached, tc}, std::pair{&uncached, tu}}) {
        const response r = request(srv->port(), "/" + ticket + "/r/http/a.example/dir/img/a.png",
                                   "GET", {}, "Range: bytes=1-2\r\n");
        EXPECT_EQ(r.status, 206);
        EXPECT_EQ(r.body, "AA");
        EXPECT_EQ(r.headers.at("content-range"), "bytes 1-2/4");
    }
    const std::string raw = "/" + tc + "/r/http/a.example/dir/raw.bin";
    EXPECT_EQ(request(cached.port(), raw).body, "0123456789");
    const response part = request(cached.port(), raw, "GET", {}, "Range: bytes=3-5\r\n");
    EXPECT_EQ(part.status, 206);
    EXPECT_EQ(part.body, "345");
    EXPECT_EQ(part.headers.at("content-range"), "bytes 3-5/10");
    const response tail = request(uncached.port(), "/" + tu + "/r/http/a.example/dir/raw.bin",
                                  "GET", {}, "Range: bytes=-2\r\n");
    EXPECT_EQ(tail.body, "89");
}

TEST(Serve, KeepAliveAnswersSeveralRequestsOnOneConnection) {
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    running s({box.path()});
    const std::string t = s.get().ticket_of(box / "a.mhtml");
    const int fd = connect_to(s.port());
    ASSERT_GE(fd, 0);
    const std::string one = "GET /" + t + "/part/3 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    send_all(fd, one + one + "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    const std::string raw = read_all(fd, std::chrono::seconds(10));
    ::close(fd);
    std::size_t n = 0;
    for (std::size_t at = 0; (at = raw.find("HTTP/1.1 200 OK", at)) != std::string::npos; ++at) ++n;
    EXPECT_EQ(n, 3u);
}

TEST(Serve, ArchivesChangedOnDiskAreReadAgainAndRemovedOnesSaySo) {
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    running s({box.path()});
    const std::string t = s.get().ticket_of(box / "a.mhtml");
    const std::string png = "/" + t + "/r/http/a.example/dir/img/a.png";
    EXPECT_EQ(request(s.port(), png).body, "AAAA");
    // Replaced (another size, so the change is seen whatever the clock's resolution).
    write_bytes(box / "a.mhtml", archive("a.example", "B") + "\r\n");
    EXPECT_EQ(request(s.port(), png).body, "BBBB");
    // Cut in the middle: read with the reader's salvage, no crash.
    const std::string whole = archive("a.example", "A");
    write_bytes(box / "a.mhtml", whole.substr(0, whole.find("Content-Type: image/png") + 30));
    const response cut = request(s.port(), png);
    EXPECT_TRUE(cut.ok);
    EXPECT_TRUE(cut.status == 200 || cut.status == 404) << cut.status;
    // Removed: an error page that says so.
    std::filesystem::remove(box / "a.mhtml");
    const response gone = request(s.port(), png);
    EXPECT_EQ(gone.status, 404);
    EXPECT_THAT(gone.body, testing::HasSubstr("cannot be read"));
    EXPECT_EQ(request(s.port(), "/").status, 200);
}

TEST(Serve, ArchivesLetGoAndReadAgainKeepTheirCachedResponses) {
    // A budget of one octet: every request lets the other archive go. Reading an unchanged
    // file again finds its responses in the cache (same serial), so the cache does not grow;
    // a changed file gets new ones.
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    write_bytes(box / "b.mhtml", archive("b.example", "B"));
    serve_options o;
    o.memory_budget = 1;
    o.index_in_background = false;
    running s({box.path()}, o);
    const std::string a =
        "/" + s.get().ticket_of(box / "a.mhtml") + "/r/http/a.example/dir/img/a.png";
    const std::string b =
        "/" + s.get().ticket_of(box / "b.mhtml") + "/r/http/b.example/dir/img/a.png";
    EXPECT_EQ(request(s.port(), a).body, "AAAA");
    EXPECT_EQ(request(s.port(), b).body, "BBBB");
    const std::uint64_t both = s.get().cached_bytes();
    EXPECT_GT(both, 0u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(request(s.port(), a).body, "AAAA");
        EXPECT_EQ(request(s.port(), b).body, "BBBB");
    }
    EXPECT_EQ(s.get().cached_bytes(), both);
    write_bytes(box / "a.mhtml", archive("a.example", "B") + "\r\n");
    EXPECT_EQ(request(s.port(), a).body, "BBBB");
    EXPECT_GT(s.get().cached_bytes(), both);
}

TEST(Serve, PrepareReplacesAnArchivesOctetsWhenItIsRead) {
    // serve_options::prepare (the CLI's --fetch-external): what it returns is served; it runs
    // once per reading of the file.
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    serve_options o;
    o.index_in_background = false;
    std::atomic<int> calls{0};
    o.prepare = [&calls](std::string_view bytes) -> std::optional<std::string> {
        ++calls;
        std::string b(bytes);
        const std::size_t at = b.find("QUFBQQ==");
        if (at != std::string::npos) b.replace(at, 8, "Q0NDQw==");  // AAAA -> CCCC
        return b;
    };
    running s({box.path()}, o);
    const std::string png =
        "/" + s.get().ticket_of(box / "a.mhtml") + "/r/http/a.example/dir/img/a.png";
    EXPECT_EQ(request(s.port(), png).body, "CCCC");
    EXPECT_EQ(request(s.port(), png).body, "CCCC");
    EXPECT_EQ(calls.load(), 1);
}

TEST(Serve, ScriptsAllowedRunInASandboxThatReachesOnlyTheirArchive) {
    sandbox box;
    write_bytes(box / "a.mhtml", archive("a.example", "A"));
    serve_options o;
    o.allow_scripts = true;
    running s({box.path()}, o);
    const std::string t = s.get().ticket_of(box / "a.mhtml");
    const response page = request(s.port(), "/" + t + "/r/http/a.example/dir/page.html");
    const std::string csp = page.headers.at("content-security-policy");
    const std::string own = "http://127.0.0.1:" + std::to_string(s.port()) + "/" + t + "/";
    EXPECT_THAT(csp, testing::HasSubstr("script-src " + own));
    EXPECT_THAT(csp, testing::HasSubstr("connect-src " + own + ";"));
    // An opaque origin: no response of the server (the index lists every ticket), no storage
    // of the loopback origin; no popups.
    EXPECT_THAT(csp, testing::HasSubstr("sandbox allow-scripts allow-forms"));
    EXPECT_THAT(csp, testing::Not(testing::HasSubstr("allow-same-origin")));
    EXPECT_THAT(csp, testing::Not(testing::HasSubstr("allow-popups")));
    EXPECT_THAT(page.body, testing::HasSubstr("<script>alert(1)</script>"));
}

TEST(Serve, FoldersAreListedRecursivelyAndProblemsReported) {
    sandbox box;
    std::filesystem::create_directories(box / "x/y");
    write_bytes(box / "x/y/deep.mht", archive("a.example", "A"));
    write_bytes(box / "x/notes.txt", "not an archive");
    write_bytes(box / "top.eml", archive("a.example", "B"));
    // A link in a folder is not followed (it may name any file of the user's).
    std::filesystem::create_symlink(box / "x/notes.txt", box / "x/link.mht");
    serve_options o;
    o.index_in_background = false;
    const server s({box.path(), box / "nothing-here"}, o);
    EXPECT_EQ(s.archive_count(), 2u);
    EXPECT_FALSE(s.ticket_of(box / "x/y/deep.mht").empty());
    EXPECT_TRUE(s.ticket_of(box / "x/notes.txt").empty());
    ASSERT_EQ(s.problems().size(), 1u);
    EXPECT_EQ(s.problems()[0].path, box / "nothing-here");
}

TEST(Serve, AFolderOfTenThousandArchives) {
    // Listed at start (nothing read), every archive in the index, and one found by the filter
    // and served while the background reader goes through the others (bounded: 10,000 small
    // files).
    sandbox box;
    const std::string one = archive("a.example", "A");
    for (int i = 0; i < 10'000; ++i) {
        std::string dir_name = "d";  // (built in steps: GCC 12's -Wrestrict and "x" + s)
        dir_name += std::to_string(i % 100);
        std::string name = "page-";
        name += std::to_string(i);
        name += ".mhtml";
        const std::filesystem::path dir = box / dir_name;
        if (i < 100) std::filesystem::create_directories(dir);
        write_bytes(dir / name, one);
    }
    running s({box.path()});
    EXPECT_EQ(s.get().archive_count(), 10'000u);
    const response index = request(s.port(), "/");
    ASSERT_EQ(index.status, 200);
    EXPECT_THAT(index.body, testing::HasSubstr("10000 of 10000 archives"));
    const response found = request(s.port(), "/?q=page-9876.mhtml");
    EXPECT_THAT(found.body, testing::HasSubstr("1 of 10000 archives"));
    const std::string t = s.get().ticket_of(box / "d76" / "page-9876.mhtml");
    EXPECT_THAT(found.body, testing::HasSubstr("/" + t + "/"));
    EXPECT_EQ(request(s.port(), "/" + t + "/r/http/a.example/dir/img/a.png").body, "AAAA");
}

// --- Mailboxes: every message a page of its own; mid: across messages (issue 17)

// Message 1: a page with an image by cid:. Message 2: links and an image by mid: into message
// 1, a frame of it, a link to a message only the index has, and a body line quoted in the
// mbox (mboxrd). Message 3: plain text.
std::string thread_mbox() {
    return "From a@x Mon Jan  1 00:00:00 2024\n" +
           crlf(
               "Message-ID: <one@x>\nSubject: first\nMIME-Version: 1.0\n"
               "Content-Type: multipart/related; boundary=\"r\"; type=\"text/html\"\n\n"
               "--r\nContent-Type: text/html\n\n<p>one</p><img src=\"cid:pic@x\">\n"
               "--r\nContent-Type: image/png\nContent-ID: <pic@x>\n"
               "Content-Transfer-Encoding: base64\n\nQUFBQQ==\n"
               "--r\nContent-Type: text/plain\nContent-ID: <secret@x>\n\nnot named\n"
               "--r\nContent-Type: application/pdf\nContent-ID: <pdf@x>\n\n%PDF-1.4\n--r--\n") +
           "\nFrom b@x Mon Jan  1 00:00:01 2024\n" +
           crlf(
               "Message-ID: <two@x>\nSubject: second\nMIME-Version: 1.0\n"
               "Content-Type: text/html\n\n"
               "<a id=prev href=\"mid:one@x\">prev</a><img src=\"mid:one@x/pic@x\">\n"
               "<iframe src=\"mid:one@x\"></iframe><a id=far href=\"mid:far@y\">far</a>\n"
               "<img src=\"mid:far@y/img@y\"><a id=none href=\"mid:nobody@z\">none</a>\n"
               "<object id=pdf data=\"mid:one@x/pdf@x\"></object>\n"
               ">>From the start\n") +
           "\nFrom c@x Mon Jan  1 00:00:02 2024\n" +
           crlf("Message-ID: <three@x>\nSubject: third\n\nplain text\n") + "\n";
}

std::string far_mbox() {
    return "From f@y Mon Jan  1 00:00:00 2024\n" +
           crlf(
               "Message-ID: <far@y>\nSubject: far away\nMIME-Version: 1.0\n"
               "Content-Type: multipart/related; boundary=\"r\"\n\n"
               "--r\nContent-Type: text/html\n\n<p>the far page</p>\n"
               "--r\nContent-Type: image/gif\nContent-ID: <img@y>\n"
               "Content-Transfer-Encoding: base64\n\nRkFSIQ==\n--r--\n") +
           "\n";
}

TEST(Serve, CID_6_EachMessageOfAMailboxIsAPageAndMidLinksLeadBetweenThem) {
    sandbox box;
    write_bytes(box / "thread.mbox", thread_mbox());
    std::filesystem::create_directories(box / "elsewhere");
    write_bytes(box / "elsewhere/far.mbox", far_mbox());
    store::index::open(box / "mail.db").update({box / "elsewhere"});
    serve_options o;
    o.store = box / "mail.db";
    o.index_in_background = false;
    running s({box / "thread.mbox"}, o);
    EXPECT_EQ(s.get().archive_count(), 3u);
    const std::string t1 = s.get().ticket_of(box / "thread.mbox", 1);
    const std::string t2 = s.get().ticket_of(box / "thread.mbox", 2);
    const std::string t3 = s.get().ticket_of(box / "thread.mbox", 3);
    ASSERT_FALSE(t1.empty());
    ASSERT_FALSE(t2.empty());
    EXPECT_NE(t1, t2);
    const response page = request(s.port(), "/" + t2 + "/");
    ASSERT_EQ(page.status, 200);
    // Unquoted as the mailbox's format says (mboxrd: one '>' removed).
    EXPECT_THAT(page.body, testing::HasSubstr("\n>From the start"));
    EXPECT_THAT(page.body, testing::Not(testing::HasSubstr(">>From")));
    // A link to another served message: that message's page, under its own ticket.
    EXPECT_THAT(page.body, testing::HasSubstr("id=prev href=\"/" + t1 + "/\""));
    // Its image: under this page's ticket, the bytes of message 1's part 2.
    const std::string image = "/" + t2 + "/m/" + t1 + "/2";
    EXPECT_THAT(page.body, testing::HasSubstr("<img src=\"" + image + "\""));
    const response png = request(s.port(), image);
    EXPECT_EQ(png.status, 200);
    EXPECT_EQ(png.body, "AAAA");
    EXPECT_EQ(png.headers.at("content-type"), "image/png");
    EXPECT_THAT(png.headers.at("content-security-policy"),
                testing::HasSubstr("img-src http://127.0.0.1:" + std::to_string(s.port()) + "/" +
                                   t2 + "/ "));
    // A frame of another message: not under this ticket, so the missing page.
    EXPECT_THAT(page.body,
                testing::HasSubstr("<iframe src=\"/" + t2 + "/missing?u=mid%3Aone%40x\""));
    // A message only the index has: served on demand, under a ticket of its own.
    const std::smatch far = [&] {
        std::smatch m;
        std::regex_search(page.body, m, std::regex("id=far href=\"/([0-9a-f]{32})/\""));
        return m;
    }();
    ASSERT_EQ(far.size(), 2u) << page.body;
    const std::string tf = far[1].str();
    EXPECT_NE(tf, t1);
    EXPECT_THAT(request(s.port(), "/" + tf + "/").body, testing::HasSubstr("the far page"));
    EXPECT_THAT(page.body, testing::HasSubstr("<img src=\"/" + t2 + "/m/" + tf + "/2\""));
    EXPECT_EQ(request(s.port(), "/" + t2 + "/m/" + tf + "/2").body, "FAR!");
    // A Message-ID nobody has: the missing page.
    EXPECT_THAT(page.body, testing::HasSubstr("id=none href=\"/" + t2 + "/missing?u="));

    // A plugin's object of another message is blocked as one of the page's own would be.
    EXPECT_THAT(page.body, testing::HasSubstr("id=pdf data=\"mhtml-blocked:plugin\""));
    // Only what a page names is served under its ticket, and never a document: not another
    // part of a message it names a part of, nor a part to a page that names none.
    EXPECT_EQ(request(s.port(), "/" + t2 + "/m/" + t1 + "/3").status, 404);
    EXPECT_EQ(request(s.port(), "/" + t2 + "/m/" + t1 + "/4").status, 404);
    EXPECT_EQ(request(s.port(), "/" + t3 + "/m/" + t1 + "/2").status, 404);
    EXPECT_EQ(request(s.port(), "/" + t2 + "/m/" + t1 + "/1").status, 404);
    EXPECT_EQ(request(s.port(), "/" + t2 + "/m/" + t1 + "/9").status, 404);
    EXPECT_EQ(request(s.port(), "/" + t2 + "/m/" + t3 + "/").status, 404);
    // Message 1's own page: its image by cid: as for any archive.
    EXPECT_THAT(request(s.port(), "/" + t1 + "/").body,
                testing::HasSubstr("<img src=\"/" + t1 + "/part/2\""));
    EXPECT_EQ(request(s.port(), "/" + t3 + "/").body, "plain text\r\n");
    // The check page gives offsets in the mailbox file (message 2 has a quoted line, unquoted
    // when read): its text/html part without charset, at its Content-Type field.
    const std::string mbox = thread_mbox();
    const std::size_t field = mbox.find("Content-Type: text/html", mbox.find("<two@x>"));
    EXPECT_THAT(request(s.port(), "/" + t2 + "/check").body,
                testing::HasSubstr("<td class=n>" + std::to_string(field) + "</td>"));
    // The index lists each message, with its Subject once read.
    const response index = request(s.port(), "/");
    EXPECT_THAT(index.body, testing::HasSubstr("thread.mbox #2"));
    EXPECT_THAT(index.body, testing::HasSubstr(">second</a>"));
}

TEST(Serve, MailboxesThatChangeAreSplitAgainAndMaildirMessagesFoundAfterARename) {
    sandbox box;
    write_bytes(box / "thread.mbox", thread_mbox());
    std::filesystem::create_directories(box / "md/cur");
    std::filesystem::create_directories(box / "md/new");
    std::filesystem::create_directories(box / "md/tmp");
    write_bytes(box / "md/new/100.a.host",
                crlf("Message-ID: <md@x>\nContent-Type: text/html\n\n<a href=\"mid:three@x\">3</a>"
                     "\n"));
    serve_options o;
    o.index_in_background = false;
    o.secret = "0123456789abcdef0123";
    running s({box / "thread.mbox", box / "md"}, o);
    ASSERT_EQ(s.get().archive_count(), 4u);
    const std::string t2 = s.get().ticket_of(box / "thread.mbox", 2);
    const std::string t3 = s.get().ticket_of(box / "thread.mbox", 3);
    const std::string tm = s.get().ticket_of(box / "md/new/100.a.host");
    ASSERT_FALSE(tm.empty());
    // Served messages are found by Message-ID from any served archive.
    EXPECT_THAT(request(s.port(), "/" + tm + "/").body,
                testing::HasSubstr("href=\"/" + t3 + "/\""));
    // A reader marks it seen: renamed into cur/ with flags, found again by its unique name.
    std::filesystem::rename(box / "md/new/100.a.host", box / "md/cur/100.a.host:2,S");
    EXPECT_THAT(request(s.port(), "/" + tm + "/").body,
                testing::HasSubstr("href=\"/" + t3 + "/\""));
    // Mail delivered (appended): the mailbox is split again and message 2 is still message 2.
    write_bytes(box / "thread.mbox", thread_mbox() + "From d@x Mon Jan  1 00:00:03 2024\n" +
                                         crlf("Message-ID: <four@x>\n\nfour\n") + "\n");
    EXPECT_THAT(request(s.port(), "/" + t2 + "/").body, testing::HasSubstr("From the start"));
    // Message 1 deleted: message 2's place now holds another Message-ID, which is said.
    const std::string all = thread_mbox();
    write_bytes(box / "thread.mbox", all.substr(all.find("From b@x")));
    const response moved = request(s.port(), "/" + t2 + "/");
    EXPECT_EQ(moved.status, 404);
    EXPECT_THAT(moved.body, testing::HasSubstr("another message"));
    // A message without Message-ID is recognised by its first octets.
    const std::string noid =
        "From a@x Mon Jan  1 00:00:00 2024\nSubject: 1\n\none\n\n"
        "From a@x Mon Jan  1 00:00:00 2024\nSubject: 2\n\ntwo\n\n"
        "From a@x Mon Jan  1 00:00:00 2024\nSubject: 3\n\nthree\n\n";
    write_bytes(box / "noid.mbox", noid);
    {
        running third({box / "noid.mbox"}, o);
        const std::string second = "/" + third.get().ticket_of(box / "noid.mbox", 2) + "/";
        EXPECT_EQ(request(third.port(), second).body, "two\n");
        write_bytes(box / "noid.mbox", noid.substr(noid.find("From", 5)));  // #1 deleted
        const response gone = request(third.port(), second);
        EXPECT_EQ(gone.status, 404);
        EXPECT_THAT(gone.body, testing::HasSubstr("another message"));
    }
    // Tickets from a secret: the same for the same place (path and number, or Maildir and
    // unique name) on a restart.
    write_bytes(box / "thread.mbox", thread_mbox());
    running again({box / "thread.mbox", box / "md"}, o);
    EXPECT_EQ(again.get().ticket_of(box / "thread.mbox", 2), t2);
    EXPECT_EQ(again.get().ticket_of(box / "md/cur/100.a.host:2,S"), tm);
}

TEST(Serve, CID_6_ServedArchivesAreFoundByMessageIdWhateverTheSizeOfTheirHeader) {
    // The first lookup reads each served archive's header block: 16 KiB first, more (up to
    // 256 KiB) when the block does not end within it.
    sandbox box;
    std::string big = "X-Padding: ";
    big.append(40 * 1024, 'p');
    big += "\r\nMessage-ID: <big@x>\r\nContent-Type: text/plain\r\n\r\nbig\r\n";
    write_bytes(box / "big.eml", big);
    write_bytes(
        box / "ref.eml",
        crlf("Message-ID: <ref@x>\nContent-Type: text/html\n\n<a href=\"mid:big@x\">b</a>\n"));
    serve_options o;
    o.index_in_background = false;
    running s({box.path()}, o);
    const std::string tb = s.get().ticket_of(box / "big.eml");
    ASSERT_FALSE(tb.empty());
    EXPECT_THAT(request(s.port(), "/" + s.get().ticket_of(box / "ref.eml") + "/").body,
                testing::HasSubstr("href=\"/" + tb + "/\""));
}

}  // namespace
}  // namespace mhtml::view
