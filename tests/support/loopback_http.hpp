#pragma once
// Loopback HTTP and HTTPS servers for the tests that fetch (pack::fetch_collect, external
// retrieval): 127.0.0.1, a port the kernel chooses, started and stopped by the test; every
// wait is bounded. The process is told to reach 127.0.0.1 without a proxy.

#include <arpa/inet.h>
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

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mhtml::test {

using namespace std::chrono_literals;

// A loopback HTTP/1.1 server: 127.0.0.1, a port the kernel chooses, one thread per
// connection, keep-alive. Every wait is bounded (poll ticks of 20 ms, 10 s idle at most) and
// the destructor stops and joins every thread.

struct route {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::chrono::milliseconds delay{0};    ///< wait this long (or until stopped) before the body
    std::size_t content_length_extra = 0;  ///< announce more octets than sent, then close
    std::chrono::milliseconds latency{0};  ///< wait this long before answering (keep-alive)
};

class test_server {
public:
    test_server() {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0;
        if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 128) != 0)
            ADD_FAILURE() << "cannot listen on 127.0.0.1";
        socklen_t len = sizeof a;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        accepter_ = std::thread([this] { accept_loop(); });
    }
    ~test_server() {
        stop_ = true;
        accepter_.join();
        std::lock_guard<std::mutex> g(m_);
        for (auto& t : workers_) t.join();
        ::close(fd_);
    }
    test_server(const test_server&) = delete;
    test_server& operator=(const test_server&) = delete;

    void add(const std::string& path, route r) {
        std::lock_guard<std::mutex> g(m_);
        routes_[path] = std::move(r);
    }
    void add(const std::string& path, std::string type, std::string body) {
        route r;
        r.headers = {{"Content-Type", std::move(type)}};
        r.body = std::move(body);
        add(path, std::move(r));
    }
    void redirect(const std::string& path, int status, std::string location) {
        route r;
        r.status = status;
        r.headers = {{"Location", std::move(location)}};
        add(path, std::move(r));
    }
    std::string url(std::string_view path) const {
        return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
    }
    int requests(const std::string& path) {
        std::lock_guard<std::mutex> g(m_);
        return hits_[path];
    }
    /// The header block of the last request for `path`.
    std::string last_head(const std::string& path) {
        std::lock_guard<std::mutex> g(m_);
        return heads_[path];
    }
    int total_requests() const { return total_.load(); }
    int connections() const { return connections_.load(); }
    int peak_connections() const { return peak_.load(); }

private:
    int fd_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> total_{0}, connections_{0}, open_{0}, peak_{0};
    std::thread accepter_;
    std::mutex m_;
    std::vector<std::thread> workers_;
    std::map<std::string, route> routes_;
    std::map<std::string, int> hits_;
    std::map<std::string, std::string> heads_;

    void accept_loop() {
        while (!stop_) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0) continue;
            const int c = ::accept(fd_, nullptr, nullptr);
            if (c < 0) continue;
            int one = 1;
            ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            ++connections_;
            const int now = ++open_;
            int peak = peak_.load();
            while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
            }
            std::lock_guard<std::mutex> g(m_);
            workers_.emplace_back([this, c] {
                serve(c);
                --open_;
                ::close(c);
            });
        }
    }

    bool send_all(int c, std::string_view s) {
        while (!s.empty()) {
            const ssize_t n = ::send(c, s.data(), s.size(), MSG_NOSIGNAL);
            if (n <= 0) return false;
            s.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }

    void serve(int c) {
        std::string in;
        auto idle_since = std::chrono::steady_clock::now();
        while (!stop_ && std::chrono::steady_clock::now() - idle_since < 10s) {
            const std::size_t end = in.find("\r\n\r\n");
            if (end == std::string::npos) {
                pollfd p{c, POLLIN, 0};
                if (::poll(&p, 1, 20) <= 0) continue;
                char buf[4096];
                const ssize_t n = ::recv(c, buf, sizeof buf, 0);
                if (n <= 0) return;
                in.append(buf, static_cast<std::size_t>(n));
                continue;
            }
            const std::string head = in.substr(0, end);
            in.erase(0, end + 4);
            idle_since = std::chrono::steady_clock::now();
            const std::size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
            const std::string path = head.substr(sp1 + 1, sp2 - sp1 - 1);
            route r;
            {
                std::lock_guard<std::mutex> g(m_);
                ++hits_[path];
                heads_[path] = head;
                auto it = routes_.find(path);
                if (it != routes_.end()) {
                    r = it->second;
                } else {
                    r.status = 404;
                    r.body = "not found";
                    r.headers = {{"Content-Type", "text/plain"}};
                }
            }
            ++total_;
            if (r.latency.count() > 0) std::this_thread::sleep_for(r.latency);
            std::string out = "HTTP/1.1 " + std::to_string(r.status) + " X\r\n";
            for (const auto& [n, v] : r.headers) out += n + ": " + v + "\r\n";
            out += "Content-Length: " + std::to_string(r.body.size() + r.content_length_extra) +
                   "\r\n\r\n";
            if (r.delay.count() == 0) out += r.body;  // one send: no Nagle wait
            if (!send_all(c, out)) return;
            if (r.delay.count() == 0 && r.content_length_extra == 0) continue;
            const auto until = std::chrono::steady_clock::now() + r.delay;
            while (!stop_ && std::chrono::steady_clock::now() < until)
                std::this_thread::sleep_for(10ms);
            if (r.delay.count() > 0) send_all(c, r.body);
            return;  // a slow or truncated response: the connection is closed
        }
    }
};

// The loopback servers are reached directly whatever proxy the environment names (libcurl
// honours http_proxy and no_proxy).
inline const bool no_proxy_for_loopback = [] {
    ::setenv("no_proxy", "127.0.0.1,localhost", 1);
    ::setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    return true;
}();

// https: a loopback TLS server with a self-signed certificate for 127.0.0.1 made here (one
// request per connection, every wait bounded), to test that https never goes back to http.

class tls_server {
public:
    tls_server() {
        EVP_PKEY* key = EVP_EC_gen("P-256");
        X509* x = X509_new();
        X509_set_version(x, 2);
        ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
        X509_gmtime_adj(X509_getm_notBefore(x), -3600);
        X509_gmtime_adj(X509_getm_notAfter(x), 86400);
        X509_set_pubkey(x, key);
        X509_NAME* name = X509_get_subject_name(x);
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
        X509_set_issuer_name(x, name);
        X509V3_CTX v3;
        X509V3_set_ctx_nodb(&v3);
        X509V3_set_ctx(&v3, x, x, nullptr, nullptr, 0);
        for (auto [nid, value] : {std::pair{NID_subject_alt_name, "IP:127.0.0.1"},
                                  std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
            X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
            X509_add_ext(x, ext, -1);
            X509_EXTENSION_free(ext);
        }
        X509_sign(x, key, EVP_sha256());
        ca_file_ = ::testing::TempDir() + "loopback_ca_" + std::to_string(::getpid()) + ".pem";
        FILE* f = std::fopen(ca_file_.c_str(), "w");
        PEM_write_X509(f, x);
        std::fclose(f);
        ctx_ = SSL_CTX_new(TLS_server_method());
        SSL_CTX_use_certificate(ctx_, x);
        SSL_CTX_use_PrivateKey(ctx_, key);
        X509_free(x);
        EVP_PKEY_free(key);
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0)
            ADD_FAILURE() << "cannot listen on 127.0.0.1";
        socklen_t len = sizeof a;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { loop(); });
    }
    ~tls_server() {
        stop_ = true;
        thread_.join();
        ::close(fd_);
        SSL_CTX_free(ctx_);
        std::remove(ca_file_.c_str());
    }
    tls_server(const tls_server&) = delete;
    tls_server& operator=(const tls_server&) = delete;
    /// `response`: the status line's code and what follows it (headers, blank line, body).
    void add(const std::string& path, std::string response) { routes_[path] = std::move(response); }
    std::string url(std::string_view path) const {
        return "https://127.0.0.1:" + std::to_string(port_) + std::string(path);
    }
    const std::string& ca_file() const { return ca_file_; }

private:
    int fd_ = -1;
    std::uint16_t port_ = 0;
    SSL_CTX* ctx_ = nullptr;
    std::string ca_file_;
    std::map<std::string, std::string> routes_;  // set before any request
    std::atomic<bool> stop_{false};
    std::thread thread_;

    void loop() {
        while (!stop_) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0) continue;
            const int c = ::accept(fd_, nullptr, nullptr);
            if (c < 0) continue;
            timeval tv{2, 0};  // a client that stalls cannot hold the server
            ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            ::setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
            SSL* ssl = SSL_new(ctx_);
            SSL_set_fd(ssl, c);
            if (SSL_accept(ssl) == 1) {
                std::string in;
                char buf[4096];
                for (int i = 0; i < 64 && in.find("\r\n\r\n") == std::string::npos; ++i) {
                    const int n = SSL_read(ssl, buf, sizeof buf);
                    if (n <= 0) break;
                    in.append(buf, static_cast<std::size_t>(n));
                }
                const std::size_t sp1 = in.find(' '), sp2 = in.find(' ', sp1 + 1);
                const std::string path =
                    sp2 == std::string::npos ? "" : in.substr(sp1 + 1, sp2 - sp1 - 1);
                auto it = routes_.find(path);
                const std::string out =
                    "HTTP/1.1 " +
                    (it == routes_.end() ? "404 X\r\nContent-Length: 0\r\n\r\n" : it->second);
                SSL_write(ssl, out.data(), static_cast<int>(out.size()));
                SSL_shutdown(ssl);
            }
            SSL_free(ssl);
            ::close(c);
        }
    }
};

/// `s` compressed with zlib: gzip (an HTTP Content-Encoding: gzip body) by default; 15 gives
/// zlib's own format (deflate), -15 raw deflate.
inline std::string gzip(std::string_view s, int window_bits = 15 + 16) {
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, s.size()) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
    z.avail_in = static_cast<uInt>(s.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

}  // namespace mhtml::test
