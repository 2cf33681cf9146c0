// Retrieving external bodies and materializing them (include/mhtml/external/retrieve.hpp).

#include "mhtml/external/retrieve.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>

#include "mhtml/ascii.hpp"
#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/codec_status.hpp"
#include "mhtml/mime/content_md5.hpp"
#include "mhtml/mime/quoted_printable.hpp"
#include "mhtml/uri/reference.hpp"
#include "mhtml/version.hpp"
#include "net/lazy_curl.hpp"
#include "text_cat.hpp"
#include "uri/percent_encode.hpp"

namespace mhtml::external {

using mhtml::detail::cat;
using status = retrieval::status;

namespace {

namespace lazy_curl = mhtml::detail::lazy_curl;

// What failed, and why when libcurl could not be loaded.
std::string unavailable(std::string_view what) {
    const std::string why = lazy_curl::why();
    return std::string(what) + " failed" + (why.empty() ? "" : ": " + why);
}

void init_curl() {
    static std::once_flag once;
    std::call_once(once, [] { lazy_curl::global_init(CURL_GLOBAL_DEFAULT); });
}

std::string scheme_of(std::string_view url) {
    const uri::reference_parts p = uri::split_reference(url);
    return p.has_scheme ? ascii::lowered(p.scheme) : std::string();
}

// Path segments %-encoded for an ftp URL (everything but unreserved characters and '/').
std::string ftp_path(std::string_view s) {
    return uri::detail::percent_encoded(s, [](unsigned char c) {
        return !(std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/');
    });
}

std::optional<std::string> percent_decoded(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
            !std::isxdigit(static_cast<unsigned char>(s[i + 2])))
            return std::nullopt;
        out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
        i += 2;
    }
    return out;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) noexcept {
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

// The decoded octets a body may have: its `size` with a tenth and 1 KiB more (RFC 2046 calls
// it approximate), or nullopt without one.
std::optional<std::uint64_t> size_limit(const body& b) noexcept {
    if (!b.size) return std::nullopt;
    return saturating_add(saturating_add(*b.size, *b.size / 10), 1024);
}

// What one body asks for: a URL (curl) or a local file; or why nothing.
struct job {
    std::string url;                            // curl
    std::optional<std::filesystem::path> file;  // local
    std::uint64_t limit = 0;                    // octets at most
};

void refuse(retrieval& r, std::string reason, std::string message) {
    r.st = status::refused;
    r.reason = std::move(reason);
    r.message = std::move(message);
}

void fail(retrieval& r, status s, std::string reason, std::string message) {
    r.st = s;
    r.reason = std::move(reason);
    r.message = std::move(message);
    r.data.clear();
}

// The local file a local-file part or a file: URL names, if it lies inside allow_local.
std::optional<std::filesystem::path> local_path(const std::filesystem::path& wanted,
                                                const retrieve_options& o, retrieval& r) {
    if (!o.allow_local) {
        refuse(r, "not_allowed",
               cat("local file ", wanted.string(), " is read only with --allow-local DIR"));
        return std::nullopt;
    }
    std::error_code ec;
    const std::filesystem::path root = std::filesystem::canonical(*o.allow_local, ec);
    if (ec) {
        refuse(r, "not_allowed",
               cat("the --allow-local folder ", o.allow_local->string(),
                   " cannot be read: ", ec.message()));
        return std::nullopt;
    }
    const std::filesystem::path p =
        std::filesystem::canonical(wanted.is_absolute() ? wanted : root / wanted, ec);
    if (ec) {
        fail(r, status::failed, "not_found",
             cat("local file ", wanted.string(), ": ", ec.message()));
        return std::nullopt;
    }
    const auto [a, b] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
    if (a != root.end()) {
        refuse(r, "not_allowed",
               cat("local file ", wanted.string(), " (", p.string(), ") lies outside ",
                   root.string(), " (--allow-local)"));
        return std::nullopt;
    }
    return p;
}

// Plans one body: a job, or `r` says why not.
std::optional<job> plan(const body& b, const retrieve_options& o, std::int64_t now, retrieval& r) {
    if (b.expires_at && *b.expires_at < now && !o.ignore_expiration) {
        refuse(r, "expired",
               cat("the part expired on ", b.expiration.value_or(""),
                   " (RFC 2046 5.2.3); --ignore-expiration retrieves it anyway"));
        return std::nullopt;
    }
    job j;
    j.limit = o.max_size;
    if (const auto decoded = size_limit(b)) {
        // `size` is the decoded object's (RFC 2046 5.2.3): base64 carries 4 characters per 3
        // octets and line breaks, quoted-printable up to 3 per octet.
        std::uint64_t wire = *decoded;
        if (b.encoding == mime::transfer_encoding::base64) wire = saturating_mul(*decoded, 2);
        if (b.encoding == mime::transfer_encoding::quoted_printable)
            wire = saturating_mul(*decoded, 3);
        j.limit = std::min(j.limit, wire);
    }
    switch (b.kind) {
        case access::url: {
            if (!b.url) {
                refuse(r, "no_url", "access-type=URL without a URL parameter (URL-3.0.2)");
                return std::nullopt;
            }
            r.url = *b.url;
            const std::string scheme = scheme_of(*b.url);
            if (scheme == "file") {
                const uri::reference_parts p = uri::split_reference(*b.url);
                const std::string host = ascii::lowered(p.authority);
                const auto path = percent_decoded(p.path);
                if (!path || (!host.empty() && host != "localhost")) {
                    refuse(r, "not_allowed", cat(*b.url, " is not a file of this machine"));
                    return std::nullopt;
                }
                j.file = local_path(*path, o, r);
                if (!j.file) return std::nullopt;
                return j;
            }
            if (!retrieving_scheme(*b.url)) {
                refuse(r, "scheme",
                       cat(*b.url, ": only http, https and ftp URLs are retrieved (URL-2.2)"));
                return std::nullopt;
            }
            j.url = *b.url;
            return j;
        }
        case access::anon_ftp:
        case access::ftp: {
            if (!b.name || !b.site) {
                refuse(r, "parameter",
                       cat("access-type=", b.access_type,
                           " without name and site (RFC 2046 5.2.3.1)"));
                return std::nullopt;
            }
            std::string path;
            if (b.directory && !b.directory->empty()) path = cat(*b.directory, "/");
            path += *b.name;
            j.url = cat("ftp://", *b.site, "/", ftp_path(path));
            if (b.mode) {
                const std::string m = ascii::lowered(*b.mode);
                if (m == "image") j.url += ";type=i";
                if (m == "ascii") j.url += ";type=a";
            }
            r.url = j.url;
            return j;
        }
        case access::local_file: {
            if (!b.name) {
                refuse(r, "parameter", "access-type=local-file without a name (RFC 2046 5.2.3.4)");
                return std::nullopt;
            }
            r.url = *b.name;
            if (b.site) {
                char host[256] = {};
                ::gethostname(host, sizeof host - 1);
                const std::string s = ascii::lowered(*b.site);
                if (s != "localhost" && s != ascii::lowered(host)) {
                    refuse(
                        r, "not_allowed",
                        cat("local file ", *b.name, " is on ", *b.site, ", not on this machine"));
                    return std::nullopt;
                }
            }
            j.file = local_path(*b.name, o, r);
            if (!j.file) return std::nullopt;
            return j;
        }
        default:
            refuse(r, "access_type",
                   cat("access-type=", b.access_type.empty() ? "(none)" : b.access_type,
                       " is not retrieved (only URL, anon-ftp, ftp and, with --allow-local, "
                       "local-file)"));
            return std::nullopt;
    }
}

struct transfer {
    std::size_t index = 0;
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    std::string body, location, content_type;
    std::uint64_t limit = 0;
    std::uint64_t announced = 0;  // Content-Length, to reserve the body once
    bool too_large = false;
    std::vector<std::string> chain;
    std::optional<std::chrono::steady_clock::time_point> started;  // the first hop's start
    char error[CURL_ERROR_SIZE] = {};
    ~transfer() {
        if (easy) lazy_curl::easy_cleanup(easy);
        if (headers) lazy_curl::slist_free_all(headers);
    }
};

std::size_t on_body(char* p, std::size_t, std::size_t n, void* ud) {
    auto* t = static_cast<transfer*>(ud);
    if (t->body.empty() && t->announced > 0) {
        try {
            t->body.reserve(static_cast<std::size_t>(std::min(t->announced, t->limit)));
        } catch (...) {
        }
    }
    if (t->body.size() + n > t->limit) {
        t->too_large = true;
        return 0;  // the transfer stops here
    }
    try {  // no exception may cross libcurl's C frames
        t->body.append(p, n);
    } catch (...) {
        t->too_large = true;
        return 0;
    }
    return n;
}

std::size_t on_header(char* p, std::size_t, std::size_t n, void* ud) {
    auto* t = static_cast<transfer*>(ud);
    std::string_view line(p, n);
    if (line.starts_with("HTTP/")) {
        t->location.clear();
        t->content_type.clear();
        t->announced = 0;
        return n;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return n;
    const std::string_view name = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
        value.remove_suffix(1);
    try {
        if (ascii::iequals(name, "location")) t->location = value;
        if (ascii::iequals(name, "content-type")) t->content_type = value;
        if (ascii::iequals(name, "content-length")) {
            std::uint64_t v = 0;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
            if (ec == std::errc() && end == value.data() + value.size()) t->announced = v;
        }
    } catch (...) {
        return 0;
    }
    return n;
}

// Checks the data of a finished retrieval against its body: type (HTTP only), transfer
// encoding, Content-MD5.
void accept_data(const body& b, retrieval& r, std::string data, bool typed) {
    if (typed) {
        mime::value_issues issues;
        const mime::content_type got = mime::parse_content_type(r.content_type, issues);
        if (r.content_type.empty() || issues.invalid || issues.missing_subtype ||
            !ascii::iequals(got.essence(), b.type.essence())) {
            fail(r, status::type_mismatch, "type",
                 cat(r.url, " answered ",
                     r.content_type.empty() ? std::string("without a Content-Type")
                                            : cat("with type ", got.essence()),
                     ", not the ", b.type.essence(), " the part declares; discarded (URL-3.1.8)"));
            return;
        }
    }
    if (b.encoding == mime::transfer_encoding::base64 ||
        b.encoding == mime::transfer_encoding::quoted_printable) {
        std::string decoded;
        const mime::codec_status cs = b.encoding == mime::transfer_encoding::base64
                                          ? mime::base64_decode(data, decoded)
                                          : mime::qp_decode(data, decoded);
        if (!cs.clean()) {
            fail(r, status::failed, "bad_encoding",
                 cat(r.url, ": the data is not valid ",
                     b.encoding == mime::transfer_encoding::base64 ? "base64" : "quoted-printable",
                     ", as the part's Content-Transfer-Encoding says it is; discarded"));
            return;
        }
        data = std::move(decoded);
    }
    if (const auto most = size_limit(b); most && data.size() > *most) {
        fail(r, status::too_large, "too_large",
             cat(r.url, ": ", std::to_string(data.size()), " octets, more than the part's size=",
                 std::to_string(*b.size), " with a tenth and 1 KiB more"));
        return;
    }
    if (b.content_md5) {
        r.md5_matches = mime::content_md5_matches(*b.content_md5, data, b.type.type == "text");
        if (r.md5_matches != true) {
            fail(
                r, status::md5_mismatch, "md5",
                cat(r.url, ": the data's MD5 is ", mime::content_md5(data, b.type.type == "text"),
                    ", not the Content-MD5 ", *b.content_md5, " of the part; discarded (URL-4.1)"));
            return;
        }
    }
    r.st = status::fetched;
    r.reason.clear();
    r.message = cat(r.url, ": ", std::to_string(data.size()), " octets");
    r.data = std::move(data);
}

void read_local(const body& b, const job& j, retrieval& r) {
    // Opened without following a link and without blocking (a FIFO put there meanwhile), and
    // read only if it is a regular file.
    const int fd = ::open(j.file->c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        fail(r, status::failed, "not_found", cat(j.file->string(), ": ", std::strerror(errno)));
        return;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        refuse(r, "not_allowed", cat(j.file->string(), " is not a regular file"));
        return;
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > j.limit) {
        ::close(fd);
        fail(r, status::too_large, "too_large",
             cat(j.file->string(), " has ", std::to_string(size), " octets, more than ",
                 std::to_string(j.limit), b.size ? " (the part's size, with its tolerance)" : ""));
        return;
    }
    std::string data(static_cast<std::size_t>(size), '\0');
    std::size_t got = 0;
    while (got < data.size()) {
        const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    if (got != data.size()) {
        fail(r, status::failed, "unreadable", cat(j.file->string(), " cannot be read whole"));
        return;
    }
    accept_data(b, r, std::move(data), false);
}

class runner {
public:
    runner(const std::vector<body>& bodies, const retrieve_options& o, std::vector<retrieval>& out,
           const std::function<void(std::size_t)>& done, const std::uint64_t* held)
        : bodies_(bodies), o_(o), out_(out), done_(done), held_(held) {
        init_curl();
        multi_ = lazy_curl::multi_init();
        lazy_curl::multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS,
                                static_cast<long>(std::max<std::size_t>(1, o.parallel)));
        agent_ = o.user_agent.empty() ? std::string("mhtml/") + MHTML_VERSION_STRING : o.user_agent;
    }
    ~runner() {
        for (auto& t : running_) lazy_curl::multi_remove_handle(multi_, t->easy);
        running_.clear();
        lazy_curl::multi_cleanup(multi_);
    }
    runner(const runner&) = delete;
    runner& operator=(const runner&) = delete;

    void queue(std::size_t index, std::string url, std::uint64_t limit) {
        auto t = std::make_unique<transfer>();
        t->index = index;
        t->limit = limit;
        t->chain.push_back(std::move(url));
        waiting_.push_back(std::move(t));
    }

    void run() {
        for (;;) {
            // Past max_held, a transfer starts only when none runs: the waiting one with the
            // lowest index, which all held ones wait for, so writing goes on.
            while (running_.size() < std::max<std::size_t>(1, o_.parallel) && !waiting_.empty() &&
                   (running_.empty() || !held_ || *held_ <= o_.max_held)) {
                std::unique_ptr<transfer> t = std::move(waiting_.front());
                waiting_.pop_front();
                const std::size_t index = t->index;
                start(std::move(t));
                if (!active(index)) done_(index);
            }
            if (running_.empty()) return;
            int still = 0;
            lazy_curl::multi_perform(multi_, &still);
            int n = 0;
            while (CURLMsg* m = lazy_curl::multi_info_read(multi_, &n)) {
                if (m->msg != CURLMSG_DONE) continue;
                auto it = std::find_if(running_.begin(), running_.end(),
                                       [&](const auto& t) { return t->easy == m->easy_handle; });
                if (it == running_.end()) continue;
                std::unique_ptr<transfer> t = std::move(*it);
                running_.erase(it);
                lazy_curl::multi_remove_handle(multi_, t->easy);
                const std::size_t index = t->index;
                finish(std::move(t), m->data.result);
                if (!active(index)) done_(index);  // not redirected: its result is final
            }
            if (!running_.empty()) lazy_curl::multi_poll(multi_, nullptr, 0, 100, nullptr);
        }
    }

private:
    const std::vector<body>& bodies_;
    const retrieve_options& o_;
    std::vector<retrieval>& out_;
    const std::function<void(std::size_t)>& done_;
    const std::uint64_t* held_;  // octets retrieved and not yet written (materialize), or null
    CURLM* multi_ = nullptr;
    std::string agent_;
    std::deque<std::unique_ptr<transfer>> waiting_;
    std::vector<std::unique_ptr<transfer>> running_;

    bool active(std::size_t index) const {
        return std::any_of(running_.begin(), running_.end(),
                           [&](const auto& t) { return t->index == index; });
    }

    void start(std::unique_ptr<transfer> t) {
        retrieval& r = out_[t->index];
        const body& b = bodies_[t->index];
        if (!t->started) t->started = std::chrono::steady_clock::now();  // kept across hops
        const auto spent = std::chrono::steady_clock::now() - *t->started;
        const auto left = o_.timeout - std::chrono::duration_cast<std::chrono::milliseconds>(spent);
        if (left.count() <= 0) {
            fail(r, status::failed, "timeout", cat(r.url, " timed out (redirects included)"));
            return;
        }
        t->body.clear();
        t->easy = lazy_curl::easy_init();
        if (!t->easy) {
            fail(r, status::failed, "network", unavailable("curl_easy_init"));
            return;
        }
        r.url = t->chain.back();
        CURL* h = t->easy;
        lazy_curl::easy_setopt(h, CURLOPT_URL, r.url.c_str());
        lazy_curl::easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https,ftp");
        lazy_curl::easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);  // each hop is checked here
        lazy_curl::easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
        const std::string accept = cat("Accept: ", b.type.essence());
        t->headers = lazy_curl::slist_append(t->headers, accept.c_str());
        lazy_curl::easy_setopt(h, CURLOPT_HTTPHEADER, t->headers);
        lazy_curl::easy_setopt(h, CURLOPT_USERAGENT, agent_.c_str());
        if (!o_.ca_file.empty()) lazy_curl::easy_setopt(h, CURLOPT_CAINFO, o_.ca_file.c_str());
        lazy_curl::easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        lazy_curl::easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(left.count()));
        lazy_curl::easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                               static_cast<long>(o_.connect_timeout.count()));
        lazy_curl::easy_setopt(
            h, CURLOPT_MAXFILESIZE_LARGE,
            static_cast<curl_off_t>(std::min<std::uint64_t>(t->limit, 1ull << 62)));
        lazy_curl::easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
        lazy_curl::easy_setopt(h, CURLOPT_WRITEDATA, t.get());
        lazy_curl::easy_setopt(h, CURLOPT_HEADERFUNCTION, &on_header);
        lazy_curl::easy_setopt(h, CURLOPT_HEADERDATA, t.get());
        lazy_curl::easy_setopt(h, CURLOPT_ERRORBUFFER, t->error);
        if (lazy_curl::multi_add_handle(multi_, h) != CURLM_OK) {
            fail(r, status::failed, "network", "curl_multi_add_handle failed");
            return;
        }
        running_.push_back(std::move(t));
    }

    void finish(std::unique_ptr<transfer> t, CURLcode rc) {
        retrieval& r = out_[t->index];
        const body& b = bodies_[t->index];
        const std::string at = r.url;
        if (rc != CURLE_OK) {
            const std::string detail =
                t->error[0] ? std::string(t->error) : lazy_curl::easy_strerror(rc);
            if (t->too_large || rc == CURLE_FILESIZE_EXCEEDED)
                fail(r, status::too_large, "too_large",
                     cat(at, " is larger than ", std::to_string(t->limit), " octets",
                         b.size ? cat(" (the part's size=", std::to_string(*b.size),
                                      ", with a tenth and 1 KiB more)")
                                : std::string(" (--max-size)"),
                         "; the transfer was stopped"));
            else if (rc == CURLE_OPERATION_TIMEDOUT)
                fail(r, status::failed, "timeout", cat(at, " timed out: ", detail));
            else if (rc == CURLE_REMOTE_FILE_NOT_FOUND)
                fail(r, status::failed, "not_found", cat(at, ": no such file (", detail, ")"));
            else if (rc == CURLE_PARTIAL_FILE)
                fail(r, status::failed, "truncated", cat(at, ": the body is truncated: ", detail));
            else
                fail(r, status::failed, "network",
                     cat(at, ": ", lazy_curl::easy_strerror(rc), " (", detail, ")"));
            return;
        }
        const std::string scheme = scheme_of(at);
        if (scheme == "ftp") {
            // Through an HTTP proxy (ftp_proxy), the answer is HTTP: its status counts.
            long http = 0;
            lazy_curl::easy_getinfo(t->easy, CURLINFO_HTTP_CODE, &http);
            if (http != 0 && (http < 200 || http > 299)) {
                fail(r, status::failed, cat("http_", std::to_string(http)),
                     cat(at, ": the proxy answered HTTP status ", std::to_string(http)));
                return;
            }
            accept_data(b, r, std::move(t->body), false);
            return;
        }
        long s = 0;
        lazy_curl::easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &s);
        const bool redirect = s == 301 || s == 302 || s == 303 || s == 307 || s == 308;
        if (redirect && !t->location.empty()) {
            const auto next = uri::resolve(at, t->location);
            const std::string to = next ? *next : t->location;
            const std::string to_scheme = next ? scheme_of(*next) : std::string();
            std::string refused;
            if (!next || to_scheme.empty())
                refused = cat("a Location that is not a URL ('", t->location, "')");
            else if (to_scheme != "http" && to_scheme != "https" && to_scheme != "ftp")
                refused = cat("a redirect to '", to, "', which is not http, https or ftp");
            else if (scheme == "https" && to_scheme != "https")
                refused = cat("a redirect from https to ", to_scheme, " ('", to, "')");
            else if (std::find(t->chain.begin(), t->chain.end(), to) != t->chain.end())
                refused = cat("a redirect loop (back to '", to, "')");
            else if (t->chain.size() > o_.max_redirects)
                refused = cat("more than ", std::to_string(o_.max_redirects), " redirects");
            if (!refused.empty()) {
                refuse(
                    r, "redirect",
                    cat(at, " answered ", std::to_string(s), " with ", refused, "; not followed"));
                return;
            }
            ++r.redirects;
            t->chain.push_back(to);
            lazy_curl::easy_cleanup(t->easy);
            t->easy = nullptr;
            lazy_curl::slist_free_all(t->headers);
            t->headers = nullptr;
            start(std::move(t));
            return;
        }
        if (s < 200 || s > 299) {
            fail(r, status::failed, cat("http_", std::to_string(s)),
                 cat(at, " answered HTTP status ", std::to_string(s),
                     redirect ? " without a Location" : ""));
            return;
        }
        r.content_type = t->content_type;
        accept_data(b, r, std::move(t->body), true);
    }
};

}  // namespace

std::string_view status_name(retrieval::status s) noexcept {
    switch (s) {
        case status::fetched:
            return "fetched";
        case status::refused:
            return "refused";
        case status::failed:
            return "failed";
        case status::type_mismatch:
            return "type_mismatch";
        case status::md5_mismatch:
            return "md5_mismatch";
        case status::too_large:
            return "too_large";
    }
    return "failed";
}

namespace {

// Retrieves into `out` (one per body), calling `done(i)` once for each body as soon as its
// result is final (refused and local ones at once, the others as their transfers end).
void retrieve_each(const std::vector<body>& bodies, const retrieve_options& o,
                   std::vector<retrieval>& out, const std::function<void(std::size_t)>& done,
                   const std::uint64_t* held = nullptr) {
    out.assign(bodies.size(), retrieval{});
    const std::int64_t now = o.now ? *o.now : static_cast<std::int64_t>(std::time(nullptr));
    runner net(bodies, o, out, done, held);
    std::size_t planned = 0;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        std::optional<job> j;
        if (planned < o.max_parts) {
            j = plan(bodies[i], o, now, out[i]);
            planned += j ? 1 : 0;
        } else {
            refuse(out[i], "limit",
                   cat("more than ", std::to_string(o.max_parts),
                       " external bodies to retrieve (--max-fetches); this one is not tried"));
        }
        if (j && !j->file) {
            net.queue(i, j->url, j->limit);
            continue;
        }
        if (j) read_local(bodies[i], *j, out[i]);
        done(i);
    }
    net.run();
}

}  // namespace

std::vector<retrieval> retrieve(const std::vector<body>& bodies, const retrieve_options& o) {
    std::vector<retrieval> out;
    retrieve_each(bodies, o, out, [](std::size_t) {});
    return out;
}

namespace {

bool starts_content(std::string_view name) {
    return ascii::istarts_with(name, "content-");
}

using writer = std::function<bool(std::string_view)>;

// A line starting "--" could read as a delimiter of an enclosing multipart.
bool has_dash_line(std::string_view s) {
    if (s.starts_with("--")) return true;
    for (std::size_t at = 0; (at = s.find('\n', at)) != std::string_view::npos; ++at)
        if (s.substr(at + 1).starts_with("--")) return true;
    return false;
}

// Text that can go as it is (7bit): ASCII without NUL, lines of at most 998 octets ending
// `eol`, and no line that starts "--".
bool plain_text(std::string_view data, std::string_view eol) {
    std::size_t line = 0;
    for (std::size_t i = 0; i < data.size(); ++i) {
        const auto c = static_cast<unsigned char>(data[i]);
        if (eol == "\r\n" && c == '\r' && i + 1 < data.size() && data[i + 1] == '\n') {
            ++i;
            line = 0;
        } else if (eol == "\n" && c == '\n') {
            line = 0;
        } else if (c == 0 || c == '\r' || c == '\n' || c >= 0x80 || ++line > 998) {
            return false;
        }
    }
    return !has_dash_line(data);
}

// Writes `data` base64-encoded in lines of 76 ending `eol`, without a line end after the last
// line (the delimiter brings its own), in pieces of about 1 MiB.
bool write_base64(std::string_view data, std::string_view eol, const writer& write) {
    mime::base64_encoder enc;
    std::string pending;
    constexpr std::size_t chunk = 768 * 1024;  // input octets per step (the encoder carries)
    const auto flush = [&](bool last) {
        if (last) {
            if (pending.ends_with("\r\n")) pending.resize(pending.size() - 2);
        } else if (pending.size() < 2) {
            return true;
        }
        const std::size_t n = last ? pending.size() : pending.size() - 2;  // keep a tail back
        std::string_view out(pending.data(), n);
        std::string lf;
        if (eol == "\n") {
            lf.reserve(n);
            for (char c : out)
                if (c != '\r') lf += c;
            out = lf;
        }
        if (!write(out)) return false;
        pending.erase(0, n);
        return true;
    };
    for (std::size_t at = 0; at < data.size(); at += chunk) {
        const std::string_view piece = data.substr(at, chunk);
        const std::size_t old = pending.size();
        pending.resize(old + mime::base64_encoder::max_output(piece.size()));
        pending.resize(old + enc.step(piece, pending.data() + old));
        if (!flush(false)) return false;
    }
    const std::size_t old = pending.size();
    pending.resize(old + mime::base64_encoder::max_output(0) + 8);
    pending.resize(old + enc.finish(pending.data() + old));
    return flush(true);
}

// Writes the ordinary part that replaces external-body part `p` once `data` is retrieved.
bool write_replacement(const mime::part_view& p, const body& b, std::string_view data,
                       const writer& write) {
    const std::string_view raw = p.raw();
    const std::size_t first_eol = raw.find('\n');
    const std::string eol =
        first_eol != std::string_view::npos && first_eol > 0 && raw[first_eol - 1] == '\r' ? "\r\n"
                                                                                           : "\n";
    const auto line = [&](std::string_view field) {
        std::string f(field);
        while (!f.empty() && (f.back() == '\r' || f.back() == '\n')) f.pop_back();
        return f + eol;
    };
    const std::vector<mime::part_view> children = p.children();
    std::string head;
    // The outer header's fields, but those that describe the external-body itself, and the
    // Content-* ones the encapsulated header gives too (a Content-Location on the outer
    // header, as pack writes it, labels the object).
    const auto inner_has = [&](std::string_view name) {
        if (children.empty()) return false;
        for (const mime::header_field_view f : children.front().headers())
            if (f.is(name)) return true;
        return false;
    };
    for (const mime::header_field_view f : p.headers()) {
        if (starts_content(f.name()) &&
            (f.is("Content-Type") || f.is("Content-Transfer-Encoding") || f.is("Content-MD5") ||
             f.is("Content-Length") || inner_has(f.name())))
            continue;
        head += line(f.raw());
    }
    if (!children.empty())
        for (const mime::header_field_view f : children.front().headers())
            if (!f.is("Content-Transfer-Encoding")) head += line(f.raw());
    // Always a type: without one the part would read as the default of where it stands
    // (message/rfc822 inside a multipart/digest), not as the object's.
    if (!b.type_given) head += cat("Content-Type: ", b.type.essence(), eol);
    // A message or multipart is never encoded (RFC 2045 6.4, RFC 2046 5.2.1): as it is, 7bit
    // or 8bit (binary when it has a NUL or long lines). Its lines were checked against the
    // enclosing boundaries before.
    if (b.type.type == "message" || b.type.type == "multipart") {
        bool eight = false, binary = false;
        std::size_t line_length = 0;
        for (const char c : data) {
            const auto u = static_cast<unsigned char>(c);
            eight |= u >= 0x80;
            binary |= u == 0;
            line_length = c == '\n' ? 0 : line_length + 1;
            binary |= line_length > 998;
        }
        const char* cte = binary ? "binary" : eight ? "8bit" : "7bit";
        return write(cat(head, "Content-Transfer-Encoding: ", cte, eol, eol)) && write(data);
    }
    // 7bit for plain text, quoted-printable for other text (CRLF files), base64 otherwise.
    if (b.type.type == "text") {
        if (plain_text(data, eol))
            return write(cat(head, "Content-Transfer-Encoding: 7bit", eol, eol)) && write(data);
        if (eol == "\r\n") {
            const std::string qp = mime::qp_encode(data, mime::qp_mode::text);
            if (!has_dash_line(qp))
                return write(cat(head, "Content-Transfer-Encoding: quoted-printable", eol, eol)) &&
                       write(qp);
        }
    }
    return write(cat(head, "Content-Transfer-Encoding: base64", eol, eol)) &&
           write_base64(data, eol, write);
}

// Whether `data` has a line that an enclosing multipart of `p` would read as its delimiter.
bool collides_with_enclosing(const mime::part_view& p, std::string_view data) {
    for (auto a = p.parent(); a; a = a->parent()) {
        if (!a->content_type().is_multipart()) continue;
        const auto boundary = a->content_type().param("boundary");
        if (!boundary || boundary->empty()) continue;
        const std::string delimiter = cat("--", *boundary);
        if (data.starts_with(delimiter)) return true;
        for (std::size_t at = 0; (at = data.find(delimiter, at)) != std::string_view::npos; ++at)
            if (at > 0 && data[at - 1] == '\n') return true;
    }
    return false;
}

// Whether `p` lies inside the phantom body of another external-body part (unused: URL-3.0.3).
bool inside_phantom(const mime::part_view& p) {
    for (auto a = p.parent(); a; a = a->parent())
        if (a->content_type().is("message", "external-body")) return true;
    return false;
}

}  // namespace

bool materialize_to(const mime::document& doc, const retrieve_options& o, materialize_report& rep,
                    const std::function<bool(std::string_view)>& write) {
    std::vector<mime::part_view> parts;
    std::vector<body> bodies;
    std::vector<std::size_t> entry;  // report index of each retrieved part
    for (const mime::part_view& p : doc.parts()) {
        if (!p.content_type().is("message", "external-body") || inside_phantom(p)) continue;
        auto b = read(doc, p, nullptr);
        if (!b) continue;
        materialized_part mp;
        mp.path = p.path();
        mp.offset = b->offset;
        mp.model = *b;
        if (p.in_decoded_body()) {
            refuse(mp.result, "encoded",
                   "the part lies inside a base64 or quoted-printable body, which is copied as "
                   "it is");
        } else {
            parts.push_back(p);
            bodies.push_back(*b);
            entry.push_back(rep.parts.size());
        }
        rep.parts.push_back(std::move(mp));
    }
    // Each part is written as soon as it and every part before it are done, so the network
    // and the writing overlap and only the parts waiting for an earlier one stay in memory.
    const std::string_view in = doc.bytes();
    std::uint64_t at = 0;
    bool ok = true;
    std::vector<retrieval> results;
    std::vector<char> done(parts.size(), 0);
    std::size_t next = 0;
    std::uint64_t held = 0;  // octets retrieved, waiting to be written
    const auto advance = [&] {
        for (; next < parts.size() && done[next]; ++next) {
            materialized_part& mp = rep.parts[entry[next]];
            held -= std::min<std::uint64_t>(held, results[next].data.size());
            mp.result = std::move(results[next]);
            if (mp.result.st != status::fetched || !ok) continue;
            const mime::part_view& p = parts[next];
            const std::uint64_t start = p.offset();
            std::uint64_t end = start + p.raw().size();
            // With an empty phantom body, the entity's last line end is also the one that
            // starts the next delimiter line: that one stays, for the delimiter.
            if (end < in.size() && in.substr(end).starts_with("--")) {
                if (end >= start + 2 && in.substr(end - 2, 2) == "\r\n")
                    end -= 2;
                else if (end > start && in[end - 1] == '\n')
                    end -= 1;
            }
            if (start < at || end > in.size()) continue;  // nested in one replaced already
            if ((mp.model.type.type == "message" || mp.model.type.type == "multipart") &&
                collides_with_enclosing(p, mp.result.data)) {
                fail(mp.result, status::failed, "boundary",
                     cat(mp.result.url, ": the ", mp.model.type.essence(),
                         " retrieved has a line that reads as a delimiter of an enclosing "
                         "multipart, and a ",
                         mp.model.type.type, " cannot be encoded; kept as it was"));
                continue;
            }
            ok = write(in.substr(at, start - at)) &&
                 write_replacement(p, bodies[next], mp.result.data, write);
            at = end;
            mp.replaced = ok;
            mp.octets = mp.result.data.size();
            std::string().swap(mp.result.data);  // written: let it go
        }
    };
    retrieve_each(
        bodies, o, results,
        [&](std::size_t i) {
            done[i] = 1;
            held += results[i].data.size();
            advance();
        },
        &held);
    ok = ok && write(in.substr(at));
    for (const materialized_part& mp : rep.parts) {
        if (mp.replaced)
            ++rep.fetched;
        else
            ++rep.failed;
    }
    return ok;
}

std::string materialize(const mime::document& doc, const retrieve_options& o,
                        materialize_report& rep) {
    std::string out;
    materialize_to(doc, o, rep, [&out](std::string_view s) {
        out.append(s);
        return true;
    });
    return out;
}

}  // namespace mhtml::external
