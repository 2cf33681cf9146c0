#include "mhtml/pack/fetch.hpp"

#include "collect_support.hpp"

#include "mhtml/ascii.hpp"
#include "mhtml/detail/keyed_hash.hpp"
#include "mhtml/html/charset.hpp"
#include "mhtml/html/rewrite.hpp"
#include "mhtml/mime/charset.hpp"
#include "mhtml/pack/content_id.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/reference.hpp"
#include "mhtml/uri/virtual_filename.hpp"
#include "mhtml/version.hpp"
#include "net/lazy_curl.hpp"
#include "uri/percent_encode.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>
#include <utility>

namespace mhtml::pack {

bool is_fetchable_url(std::string_view url) noexcept {
    const uri::reference_parts p = uri::split_reference(url);
    return p.has_scheme && p.has_authority && !p.authority.empty() &&
           (ascii::iequals(p.scheme, "http") || ascii::iequals(p.scheme, "https"));
}

namespace {

using detail::doc_type;
using detail::make_diag;

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

/// Fetched bodies over this size that are not documents wait in files for the writer, so
/// that a site is never held whole in memory: only the transfers in flight and the documents
/// (which are scanned and rewritten) are.
constexpr std::size_t spool_over = std::size_t{1} << 20;

/// A private temporary folder (0700) for spooled bodies, removed with its contents by the
/// destructor. collection::spool keeps it alive as long as the collection.
class spool_folder {
public:
    /// A new folder under the system's temporary directory; nullptr if none can be made.
    static std::shared_ptr<spool_folder> make() {
        std::error_code ec;
        // Absolute, so that the resources' paths hold if the working directory changes.
        const auto dir = std::filesystem::absolute(std::filesystem::temp_directory_path(ec), ec);
        if (ec) return nullptr;
        std::string tmpl = (dir / "mhtml-fetch-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr) return nullptr;
        return std::shared_ptr<spool_folder>(new spool_folder(tmpl));
    }
    spool_folder(const spool_folder&) = delete;
    spool_folder& operator=(const spool_folder&) = delete;
    ~spool_folder() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }

    /// Writes `data` to a new file named `name`; its path, or an error message.
    [[nodiscard]] bool put(const std::string& name, std::string_view data,
                           std::filesystem::path& file, std::string& error) const {
        file = path_ / name;
        const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            error = std::generic_category().message(errno);
            return false;
        }
        while (!data.empty()) {
            const ssize_t n = ::write(fd, data.data(), data.size());
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                error = n < 0 ? std::generic_category().message(errno) : "no progress";
                ::close(fd);
                ::unlink(file.c_str());
                return false;
            }
            data.remove_prefix(static_cast<std::size_t>(n));
        }
        if (::close(fd) != 0) {
            error = std::generic_category().message(errno);
            ::unlink(file.c_str());
            return false;
        }
        return true;
    }

private:
    explicit spool_folder(std::filesystem::path p) : path_(std::move(p)) {}
    std::filesystem::path path_;
};

std::string lowered(std::string_view s) {
    return ascii::lowered(std::string(s));
}

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
        s.remove_suffix(1);
    return std::string(s);
}

// A parameter of a header value (`name=value` or `name="value"`), or nullopt.
std::optional<std::string> header_parameter(std::string_view value, std::string_view name) {
    std::size_t pos = value.find(';');
    while (pos != std::string_view::npos) {
        std::string_view rest = value.substr(pos + 1);
        while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
            rest.remove_prefix(1);
        const std::size_t eq = rest.find('=');
        if (eq != std::string_view::npos && ascii::iequals(trim(rest.substr(0, eq)), name)) {
            std::string_view v = rest.substr(eq + 1);
            if (!v.empty() && v.front() == '"') {
                std::string out;
                for (std::size_t i = 1; i < v.size() && v[i] != '"'; ++i) {
                    if (v[i] == '\\' && i + 1 < v.size()) ++i;
                    out += v[i];
                }
                return out;
            }
            return trim(v.substr(0, v.find(';')));
        }
        pos = value.find(';', pos + 1);
    }
    return std::nullopt;
}

// The URL as a request line takes it: the fragment dropped and every octet no URI may hold
// (space, controls, 8-bit, `"<>\^`{|}`) %-encoded; 8-bit octets of the path are UTF-8 (the
// URL Standard), so a path in another document charset is converted first.
std::string request_url(std::string_view url, std::string_view doc_charset) {
    url = uri::without_fragment(url);
    std::string text(url);
    const bool eight_bit = std::any_of(
        text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    if (eight_bit && !doc_charset.empty() && doc_charset != "UTF-8")
        if (auto u = mime::to_utf8(text, doc_charset)) text = std::move(*u);
    return uri::detail::percent_encoded(text, [](unsigned char c) {
        return c <= 0x20 || c >= 0x7F ||
               std::string_view("\"<>\\^`{|}").find(static_cast<char>(c)) != std::string_view::npos;
    });
}

// scheme://authority, lower-cased, the default port dropped.
std::string origin_of(std::string_view url) {
    const uri::reference_parts p = uri::split_reference(url);
    std::string scheme = lowered(p.scheme);
    std::string auth = lowered(p.authority);
    if (const std::size_t at = auth.rfind('@'); at != std::string::npos) auth.erase(0, at + 1);
    if ((scheme == "http" && auth.ends_with(":80")) ||
        (scheme == "https" && auth.ends_with(":443")))
        auth.erase(auth.rfind(':'));
    return scheme + "://" + auth;
}

bool is_http_scheme(std::string_view scheme) {
    return ascii::iequals(scheme, "http") || ascii::iequals(scheme, "https");
}

// A hostile name in a URL's path (collect's rules for a file name): nullopt when safe.
std::optional<std::string> bad_name_in(std::string_view url) {
    const uri::reference_parts p = uri::split_reference(url);
    std::string_view path = p.path;
    if (path.size() > 4096) return "the path is longer than 4096 octets";
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t slash = path.find('/', start);
        if (slash == std::string_view::npos) slash = path.size();
        const std::string_view raw = path.substr(start, slash - start);
        const std::string seg = detail::percent_decode(raw);
        if (seg.find('\0') != std::string::npos) return "a name holds a NUL octet (%00)";
        if (seg.find('/') != std::string::npos || seg.find('\\') != std::string::npos)
            return "an escaped '/' or '\\' (%2F, %5C) in a name";
        if (seg == ".." || seg == ".") return "an escaped dot segment (%2E) in the path";
        if (seg.size() > 255) return "a name is longer than 255 octets";
        start = slash + 1;
    }
    return std::nullopt;
}

// A Content-Disposition file name that is not safe to write as a file: why, or nullopt.
std::optional<std::string> unsafe_file_name(std::string_view name) {
    if (name.empty()) return "an empty file name";
    if (name == "." || name == "..") return "a dot name";
    if (name.size() > 255) return "a name longer than 255 octets";
    for (char ch : name) {
        const auto c = static_cast<unsigned char>(ch);
        if (ch == '/' || ch == '\\') return "a path separator";
        if (c < 0x20 || c == 0x7F) return "a control character or NUL";
    }
    return std::nullopt;
}

struct srcdoc_info;

struct ref_info {
    std::size_t report = 0;
    int entry = -1;          // the fetched entry it names (resources), or -1
    std::string fragment;    // "#..." as written
    std::string resolved;    // absolute URL without fragment, as a browser requests it
    std::string as_written;  // the same before that spelling (resolved from the text)
};

struct unit {
    std::vector<html::reference> refs;
    std::vector<ref_info> info;
    std::string base;
    std::optional<std::size_t> base_ref;
    std::vector<srcdoc_info> srcdocs;
};

struct srcdoc_info {
    std::size_t value_offset = 0, value_length = 0;
    char quote = 0;
    unit content;
};

enum class state : std::uint8_t { queued, running, done, failed };

struct entry {
    std::string url;                 // as referenced, fragment dropped: key, origin and usual label
    std::string request;             // what is requested now (encoded; after redirects)
    std::vector<std::string> chain;  // URLs requested, for loops
    state st = state::queued;
    std::string referrer;  // first referencing document ("" for the page)
    std::size_t referrer_offset = 0;
    std::string referrer_charset;
    // failure
    std::string reason, why;
    diag_code code = diag_code::fetch_failed;
    severity sev = severity::error;
    // success
    std::string data;
    std::filesystem::path spooled;  // the body is in this file instead of `data`
    std::uint64_t size = 0;         // octets of the body (in `data` or the file)
    std::string type;               // media type, lower case, no parameters
    doc_type doc = doc_type::none;
    std::string charset;
    std::string file_name;  // a safe Content-Disposition file name
    std::vector<std::pair<std::string, std::string>> fields;
    bool scanned = false;
    bool framed = false;  // named by a frame, iframe, object or embed (or the page itself)
    unit u;
    std::size_t packed = 0;  // index in collection::resources
    std::string label;
};

struct transfer {
    CURL* easy = nullptr;
    std::size_t entry = 0;
    std::string host;
    std::string body;
    long status = 0;
    std::string location, content_type, disposition;
    bool too_large = false, over_total = false, no_memory = false;
    class fetcher* owner = nullptr;
    char error[CURL_ERROR_SIZE] = {};
};

class fetcher {
public:
    fetcher(const fetch_options& o, collection& out, fetch_report& rep)
        : opt_(o), out_(out), rep_(rep) {}
    ~fetcher() {
        for (auto& t : running_) {
            lazy_curl::multi_remove_handle(multi_, t->easy);
            lazy_curl::easy_cleanup(t->easy);
        }
        if (multi_) lazy_curl::multi_cleanup(multi_);
    }
    fetcher(const fetcher&) = delete;
    fetcher& operator=(const fetcher&) = delete;

    bool run(const std::string& url);

    static std::size_t on_body(char* p, std::size_t, std::size_t n, void* ud);
    static std::size_t on_header(char* p, std::size_t, std::size_t n, void* ud);

private:
    const fetch_options& opt_;
    collection& out_;
    fetch_report& rep_;
    CURLM* multi_ = nullptr;
    std::vector<entry> entries_;
    mhtml::detail::keyed_string_map<std::size_t> by_url_;
    std::deque<std::size_t> queue_;
    std::vector<std::size_t> to_scan_;  // HTML fetched before a frame named it
    std::vector<std::unique_ptr<transfer>> running_;
    mhtml::detail::keyed_string_map<std::size_t> per_host_;
    std::uint64_t total_ = 0;     // decoded octets of finished responses
    std::uint64_t inflight_ = 0;  // decoded octets of running ones
    std::string origin_;          // the page's, for same_origin
    std::string user_agent_;
    std::shared_ptr<spool_folder> spool_;  // made when the first body is spooled
    bool spool_failed_ = false;            // reported once; bodies then stay in memory

    void diag(severity s, diag_code c, std::string part, std::uint64_t off, std::string msg) {
        out_.diagnostics.push_back(make_diag(s, c, std::move(part), off, std::move(msg)));
    }
    int add_entry(const std::string& url, const std::string& referrer, std::size_t offset,
                  const std::string& charset, std::string& reason, std::string& why);
    void start_transfers();
    void start(std::size_t index);
    void finish(std::unique_ptr<transfer> t, CURLcode rc);
    void fail(entry& e, diag_code code, severity sev, std::string reason, std::string why);
    void complete(entry& e, transfer& t);
    void spool(entry& e, std::size_t index);
    void scan(std::size_t index);
    void scan_unit(unit& u, std::string_view text, doc_type type, const std::string& doc,
                   const std::string& charset, std::size_t srcdoc_attr, std::size_t depth);
    void report_failures(unit& u);
    std::optional<std::string> rewrite_unit(unit& u, std::string_view text,
                                            const std::vector<std::string>& cids,
                                            const std::vector<std::string>& names);
    void abort_all(const std::string& why);
    // HTML is scanned as a page only where a browser shows it as one: the page, a frame, an
    // object; an HTML answer to an `<img>` or a style sheet link (a soft 404, a hotlink
    // refusal) is packed as it came, not followed. SVG and CSS are always scanned.
    static bool scannable(const entry& e) {
        if (e.st != state::done || e.scanned || e.doc == doc_type::none) return false;
        return e.doc != doc_type::html || e.framed;
    }
    static bool is_frame_element(std::string_view element) {
        return element == "iframe" || element == "frame" || element == "object" ||
               element == "embed";
    }
};

std::size_t fetcher::on_body(char* p, std::size_t, std::size_t n, void* ud) {
    auto* t = static_cast<transfer*>(ud);
    const fetch_limits& l = t->owner->opt_.limits;
    if (t->body.size() + n > l.max_resource_size) {
        t->too_large = true;
        return 0;  // CURLE_WRITE_ERROR: the transfer stops here
    }
    if (t->owner->total_ + t->owner->inflight_ + n > l.max_total_bytes) {
        t->over_total = true;
        return 0;
    }
    try {  // no exception may cross libcurl's C frames
        t->body.append(p, n);
    } catch (...) {
        t->no_memory = true;
        return 0;
    }
    t->owner->inflight_ += n;
    return n;
}

std::size_t fetcher::on_header(char* p, std::size_t, std::size_t n, void* ud) {
    auto* t = static_cast<transfer*>(ud);
    const std::string_view line(p, n);
    if (line.starts_with("HTTP/")) {  // a new response (after 1xx, or a proxy's CONNECT)
        t->location.clear();
        t->content_type.clear();
        t->disposition.clear();
        return n;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return n;
    const std::string_view name = line.substr(0, colon);
    try {  // no exception may cross libcurl's C frames
        if (ascii::iequals(name, "location"))
            t->location = trim(line.substr(colon + 1));
        else if (ascii::iequals(name, "content-type"))
            t->content_type = trim(line.substr(colon + 1));
        else if (ascii::iequals(name, "content-disposition"))
            t->disposition = trim(line.substr(colon + 1));
    } catch (...) {
        return 0;  // the transfer fails (CURLE_WRITE_ERROR)
    }
    return n;
}

int fetcher::add_entry(const std::string& url, const std::string& referrer, std::size_t offset,
                       const std::string& charset, std::string& reason, std::string& why) {
    if (auto it = by_url_.find(url); it != by_url_.end()) return static_cast<int>(it->second);
    if (auto bad = bad_name_in(url)) {
        reason = "bad_name";
        why = *bad;
        return -1;
    }
    if (entries_.size() >= opt_.limits.max_resources) {
        reason = "limit";
        why =
            "more than " + std::to_string(opt_.limits.max_resources) + " resources (max_resources)";
        return -1;
    }
    entry e;
    e.url = url;
    e.request = request_url(url, charset);
    e.referrer = referrer;
    e.referrer_offset = offset;
    e.referrer_charset = charset;
    e.framed = entries_.empty();  // the page
    entries_.push_back(std::move(e));
    by_url_.emplace(url, entries_.size() - 1);
    queue_.push_back(entries_.size() - 1);
    return static_cast<int>(entries_.size() - 1);
}

void fetcher::start_transfers() {
    const std::size_t max_total = std::max<std::size_t>(1, opt_.max_connections);
    const std::size_t max_host = std::max<std::size_t>(1, opt_.max_host_connections);
    const std::size_t n = queue_.size();
    for (std::size_t k = 0; k < n && running_.size() < max_total; ++k) {
        const std::size_t i = queue_.front();
        queue_.pop_front();
        const std::string host = origin_of(entries_[i].request);
        if (per_host_[host] >= max_host) {
            queue_.push_back(i);
            continue;
        }
        start(i);
    }
}

void fetcher::start(std::size_t index) {
    entry& e = entries_[index];
    auto t = std::make_unique<transfer>();
    t->entry = index;
    t->owner = this;
    t->host = origin_of(e.request);
    t->easy = lazy_curl::easy_init();
    if (!t->easy) {
        fail(e, diag_code::fetch_failed, severity::error, "network", unavailable("curl_easy_init"));
        return;
    }
    e.st = state::running;
    e.chain.push_back(e.request);
    CURL* h = t->easy;
    lazy_curl::easy_setopt(h, CURLOPT_URL, e.request.c_str());
    lazy_curl::easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    lazy_curl::easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    lazy_curl::easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);  // each hop is checked here
    lazy_curl::easy_setopt(h, CURLOPT_ACCEPT_ENCODING,
                           "");  // all this libcurl decodes; decoded here
    lazy_curl::easy_setopt(h, CURLOPT_USERAGENT, user_agent_.c_str());
    if (!e.referrer.empty()) lazy_curl::easy_setopt(h, CURLOPT_REFERER, e.referrer.c_str());
    if (!opt_.ca_file.empty()) lazy_curl::easy_setopt(h, CURLOPT_CAINFO, opt_.ca_file.c_str());
    lazy_curl::easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    lazy_curl::easy_setopt(h, CURLOPT_PIPEWAIT, 1L);
    lazy_curl::easy_setopt(h, CURLOPT_TIMEOUT_MS,
                           static_cast<long>(opt_.limits.transfer_timeout.count()));
    lazy_curl::easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                           static_cast<long>(opt_.limits.connect_timeout.count()));
    lazy_curl::easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE,
                           static_cast<curl_off_t>(std::min<std::uint64_t>(
                               opt_.limits.max_resource_size, std::uint64_t{1} << 62)));
    lazy_curl::easy_setopt(h, CURLOPT_WRITEFUNCTION, &fetcher::on_body);
    lazy_curl::easy_setopt(h, CURLOPT_WRITEDATA, t.get());
    lazy_curl::easy_setopt(h, CURLOPT_HEADERFUNCTION, &fetcher::on_header);
    lazy_curl::easy_setopt(h, CURLOPT_HEADERDATA, t.get());
    lazy_curl::easy_setopt(h, CURLOPT_ERRORBUFFER, t->error);
    lazy_curl::easy_setopt(h, CURLOPT_PRIVATE, t.get());
    ++per_host_[t->host];
    ++rep_.transfers;
    if (lazy_curl::multi_add_handle(multi_, h) != CURLM_OK) {
        --per_host_[t->host];
        lazy_curl::easy_cleanup(h);
        fail(e, diag_code::fetch_failed, severity::error, "network",
             "curl_multi_add_handle failed");
        return;
    }
    running_.push_back(std::move(t));
}

void fetcher::fail(entry& e, diag_code code, severity sev, std::string reason, std::string why) {
    e.st = state::failed;
    e.code = code;
    e.sev = sev;
    e.reason = std::move(reason);
    e.why = std::move(why);
    e.data.clear();
    ++rep_.failed;
}

void fetcher::finish(std::unique_ptr<transfer> t, CURLcode rc) {
    entry& e = entries_[t->entry];
    inflight_ -= t->body.size();
    --per_host_[t->host];
    curl_off_t wire = 0;
    if (lazy_curl::easy_getinfo(t->easy, CURLINFO_SIZE_DOWNLOAD_T, &wire) == CURLE_OK && wire > 0)
        rep_.wire_bytes += static_cast<std::uint64_t>(wire);
    long connects = 0;
    if (lazy_curl::easy_getinfo(t->easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK &&
        connects > 0)
        rep_.connections += static_cast<std::size_t>(connects);
    lazy_curl::easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->status);
    lazy_curl::multi_remove_handle(multi_, t->easy);
    lazy_curl::easy_cleanup(t->easy);
    t->easy = nullptr;
    const std::string at = "'" + e.request + "'";
    if (rc != CURLE_OK) {
        const std::string detail =
            t->error[0] ? std::string(t->error) : lazy_curl::easy_strerror(rc);
        if (t->too_large || rc == CURLE_FILESIZE_EXCEEDED)
            fail(e, diag_code::resource_limit, severity::error, "too_large",
                 at + " is larger than max_resource_size (" +
                     std::to_string(opt_.limits.max_resource_size) +
                     " octets); the transfer was stopped");
        else if (t->no_memory)
            fail(e, diag_code::resource_limit, severity::error, "limit",
                 at + ": out of memory; the transfer was stopped");
        else if (t->over_total)
            fail(e, diag_code::resource_limit, severity::error, "limit",
                 at + " would pass max_total_bytes; the transfer was stopped");
        else if (rc == CURLE_OPERATION_TIMEDOUT)
            fail(e, diag_code::fetch_failed, severity::error, "timeout",
                 at + " timed out: " + detail);
        else if (rc == CURLE_PARTIAL_FILE)
            fail(e, diag_code::fetch_failed, severity::error, "truncated",
                 at + ": the body is truncated: " + detail);
        else if (rc == CURLE_BAD_CONTENT_ENCODING)
            fail(e, diag_code::fetch_failed, severity::error, "bad_encoding",
                 at + ": the Content-Encoding cannot be decoded: " + detail);
        else
            fail(e, diag_code::fetch_failed, severity::error, "network",
                 at + ": " + std::string(lazy_curl::easy_strerror(rc)) + " (" + detail + ")");
        return;
    }
    const long s = t->status;
    const bool redirect = s == 301 || s == 302 || s == 303 || s == 307 || s == 308;
    if (redirect && !t->location.empty()) {
        auto next = uri::resolve(e.request, t->location);
        const std::string to = next ? request_url(*next, "UTF-8") : t->location;
        const uri::reference_parts np = uri::split_reference(to);
        std::string refused;
        if (!next || !np.has_scheme)
            refused = "a Location that is not a URL ('" + t->location + "')";
        else if (!is_http_scheme(np.scheme))
            refused = "a redirect to '" + to + "', which is not http or https";
        else if (ascii::istarts_with(e.request, "https:") && ascii::iequals(np.scheme, "http"))
            refused = "a redirect from https to http ('" + to + "')";
        else if (auto bad = bad_name_in(to))
            refused = "a redirect to '" + to + "' (" + *bad + ")";
        else if (std::find(e.chain.begin(), e.chain.end(), to) != e.chain.end())
            refused = "a redirect loop (back to '" + to + "')";
        else if (e.chain.size() > opt_.limits.max_redirects)
            refused = "more than " + std::to_string(opt_.limits.max_redirects) +
                      " redirects (max_redirects)";
        if (!refused.empty()) {
            fail(e, diag_code::fetch_redirect_refused, severity::error, "redirect",
                 at + " answered " + std::to_string(s) + " with " + refused + "; not followed");
            return;
        }
        ++rep_.redirects;
        e.request = to;
        e.st = state::queued;
        queue_.push_front(t->entry);
        return;
    }
    if (s < 200 || s > 299) {
        fail(e, diag_code::fetch_http_status,
             s == 404 || s == 410 ? severity::warning : severity::error,
             "http_" + std::to_string(s),
             at + " answered HTTP status " + std::to_string(s) +
                 (redirect ? " without a Location" : ""));
        return;
    }
    complete(e, *t);
    const std::size_t index = t->entry;
    if (index == 0) origin_ = origin_of(e.chain.back());  // the page's, after redirects
    // A redirected document is labelled with its final URL: references found later that
    // name that URL are that resource (not a second one with the same label).
    if (e.chain.size() > 1 && (index == 0 || e.doc != doc_type::none))
        by_url_.emplace(e.chain.back(), index);
    if (scannable(entries_[index])) scan(index);
}

void fetcher::complete(entry& e, transfer& t) {
    total_ += t.body.size();
    e.data = std::move(t.body);
    e.st = state::done;
    std::string type =
        lowered(trim(std::string_view(t.content_type)
                         .substr(0, std::min(t.content_type.find(';'), t.content_type.size()))));
    if (type.empty() || type.find('/') == std::string::npos) {
        // No usable Content-Type: the URL's extension, else (`/`, `/page`) a body that opens
        // as HTML does (MIME Sniffing §7.1's HTML patterns, the common ones).
        type = std::string(content_type_for_path(uri::split_reference(e.request).path));
        if (type == "application/octet-stream" && detail::looks_like_html(e.data))
            type = "text/html";
    }
    e.type = type;
    e.doc = detail::doc_type_for(type);
    // The header's charset: a label the Encoding Standard knows, else ignored (reported).
    std::string header_charset;
    if (auto cs = header_parameter(t.content_type, "charset")) {
        const std::string_view name = html::encoding_for_label(*cs);
        if (name.empty() || name == "replacement") {
            if (detail::is_text_type(type) || e.doc != doc_type::none)
                diag(severity::warning, diag_code::fetch_unknown_charset, e.referrer,
                     e.referrer_offset,
                     "'" + e.request + "' is served with the charset '" + *cs +
                         "', which is no label of the Encoding Standard; ignored, as a browser "
                         "ignores it");
        } else {
            header_charset = std::string(name);
        }
    }
    if (e.doc == doc_type::html && type == "text/html") {
        e.charset = html::detect_charset(header_charset, e.data).name;
    } else if (e.doc == doc_type::html || e.doc == doc_type::svg) {
        e.charset = html::detect_xml_charset(header_charset, e.data).name;
    } else if (e.doc == doc_type::css) {
        e.charset = e.data.starts_with("\xEF\xBB\xBF") ? "UTF-8" : header_charset;
        if (e.charset.empty()) e.charset = detail::css_declared_charset(e.data);
        if (e.charset.empty()) e.charset = e.referrer_charset;
        if (e.charset.empty()) e.charset = "UTF-8";
    } else if (detail::is_text_type(type)) {
        e.charset = header_charset;
    }
    if (e.doc != doc_type::none &&
        (e.charset == "UTF-16LE" || e.charset == "UTF-16BE" || e.charset == "ISO-2022-JP")) {
        // The scanner reads ASCII-based text: the document is kept as UTF-8.
        std::string_view in = e.data;
        if (in.starts_with("\xFF\xFE") || in.starts_with("\xFE\xFF")) in.remove_prefix(2);
        if (auto utf8 = mime::to_utf8(in, e.charset)) {
            e.data = std::move(*utf8);
            e.charset = "UTF-8";
            if (e.doc == doc_type::svg || type == "application/xhtml+xml")
                html::declare_xml_utf8(e.data);
        } else {
            diag(severity::error, diag_code::resource_unreadable, e.referrer, e.referrer_offset,
                 "'" + e.request + "' cannot be transcoded from " + e.charset +
                     "; packed as it came, not scanned");
            e.doc = doc_type::none;
        }
    }
    if (!t.disposition.empty()) {
        std::optional<std::string> name = header_parameter(t.disposition, "filename*");
        if (name) {  // RFC 8187: charset'language'%-encoded
            const std::size_t q = name->find('\'', name->find('\'') + 1);
            *name = detail::percent_decode(q == std::string::npos ? *name : name->substr(q + 1));
        } else {
            name = header_parameter(t.disposition, "filename");
        }
        std::optional<std::string> why = name ? unsafe_file_name(*name) : std::nullopt;
        if (why) {
            diag(severity::warning, diag_code::fetch_unsafe_name, e.referrer, e.referrer_offset,
                 "'" + e.request + "' is served with Content-Disposition file name '" + *name +
                     "' (" + *why + "); the field is not packed");
        } else {
            if (name) e.file_name = *name;
            e.fields.emplace_back("Content-Disposition", t.disposition);
        }
    }
    e.size = e.data.size();
    if (e.doc == doc_type::none && e.data.size() > spool_over) spool(e, t.entry);
}

void fetcher::spool(entry& e, std::size_t index) {
    if (spool_failed_) return;
    std::string error = "no temporary folder could be made";
    if (!spool_) spool_ = spool_folder::make();
    std::filesystem::path file;
    if (spool_ && spool_->put(std::to_string(index), e.data, file, error)) {
        e.spooled = std::move(file);
        std::string().swap(e.data);
        return;
    }
    spool_failed_ = true;
    diag(severity::note, diag_code::fetch_spool_failed, e.referrer, e.referrer_offset,
         "fetched bodies over " + std::to_string(spool_over) +
             " octets cannot wait in temporary files (" + error + "); they are kept in memory");
}

void fetcher::scan(std::size_t index) {
    entry& e = entries_[index];
    e.scanned = true;
    ++out_.counts.documents;
    unit u;
    const std::string& last = e.chain.back();
    u.base = last;
    // `e` may move while scanning (entries_ grows): copy what is needed.
    const std::string text = e.data, doc = e.url, charset = e.charset;
    const doc_type type = e.doc;
    scan_unit(u, text, type, doc, charset, std::string::npos, 0);
    entries_[index].u = std::move(u);
}

void fetcher::scan_unit(unit& u, std::string_view text, doc_type type, const std::string& doc,
                        const std::string& charset, std::size_t srcdoc_attr, std::size_t depth) {
    const bool css = type == doc_type::css;
    const bool svg = type == doc_type::svg;
    html::scan_result scan = css ? html::scan_style_sheet(text) : html::scan_html(text, svg);
    const bool in_srcdoc = srcdoc_attr != std::string::npos;
    auto where = [&](std::size_t off) { return in_srcdoc ? srcdoc_attr : off; };
    if (scan.base) {
        if (auto r = uri::resolve(u.base, scan.refs[*scan.base].url))
            u.base = std::string(uri::without_fragment(*r));
    }
    u.base_ref = scan.base;
    u.refs = std::move(scan.refs);
    u.info.resize(u.refs.size());
    for (std::size_t i = 0; i < u.refs.size(); ++i) {
        const html::reference& r = u.refs[i];
        ref_info& info = u.info[i];
        reference_report rep =
            detail::start_report(r, text, doc, where(r.offset), in_srcdoc, out_.diagnostics);
        info.report = out_.references.size();
        const uri::reference_parts parts = uri::split_reference(r.url);
        if (r.kind == html::ref_kind::base || uri::is_same_document(r.url)) {
            rep.outcome = ref_outcome::same_document;
        } else if (parts.has_scheme && ascii::iequals(parts.scheme, "data")) {
            rep.outcome = ref_outcome::data;
        } else if (auto resolved = uri::resolve(u.base, r.url);
                   !resolved || !is_http_scheme(uri::split_reference(*resolved).scheme)) {
            rep.outcome = ref_outcome::external;  // mailto:, javascript:, ftp:, file:, ...
            ++out_.counts.external;
        } else {
            const std::string_view nofrag = uri::without_fragment(*resolved);
            info.fragment = resolved->substr(nofrag.size());
            // Spelled as the browser asks for it (path in UTF-8, %-encoded): one entry per
            // URL a browser would request (`a b.png` and `a%20b.png` are one), and the label
            // Chromium compares with that request.
            info.resolved = request_url(nofrag, charset);
            info.as_written = std::string(nofrag);
            if (r.kind != html::ref_kind::resource) {
                rep.outcome = ref_outcome::not_followed;
            } else if (opt_.same_origin && origin_of(info.resolved) != origin_) {
                rep.outcome = ref_outcome::external;
                rep.reason = "other_origin";
                ++out_.counts.external;
            } else {
                std::string reason, why;
                const int target =
                    add_entry(info.resolved, doc, where(r.offset), charset, reason, why);
                if (target < 0) {
                    rep.outcome = ref_outcome::unresolved;
                    rep.reason = reason;
                    diag(severity::error,
                         reason == "bad_name" ? diag_code::resource_bad_name
                                              : diag_code::resource_limit,
                         doc, where(r.offset),
                         "'" + r.url + "' (" + info.resolved + "): " + why +
                             "; not fetched, the reference stays as written");
                    ++out_.counts.unresolved;
                } else {
                    info.entry = target;
                    entry& t = entries_[static_cast<std::size_t>(target)];
                    if (!t.framed && is_frame_element(r.element)) {
                        t.framed = true;
                        if (scannable(t)) to_scan_.push_back(static_cast<std::size_t>(target));
                    }
                    rep.outcome = ref_outcome::packed;  // until its transfer fails
                }
            }
        }
        out_.references.push_back(std::move(rep));
    }
    if (css) return;
    detail::markup_pass(
        text, svg, doc, where, out_.diagnostics, [&](const detail::srcdoc_attribute& a) {
            if (depth >= opt_.limits.max_srcdoc_depth) {
                diag(severity::error, diag_code::resource_limit, doc, where(a.value_offset),
                     "srcdoc nested deeper than max_srcdoc_depth; its content is not scanned");
                return;
            }
            srcdoc_info s;
            s.value_offset = a.value_offset;
            s.value_length = a.value_length;
            s.quote = a.quote;
            s.content.base = u.base;
            scan_unit(s.content, a.content, doc_type::html, doc, charset,
                      in_srcdoc ? srcdoc_attr : a.value_offset, depth + 1);
            u.srcdocs.push_back(std::move(s));
        });
}

// A reference to a resource that could not be fetched: reported where it stands.
void fetcher::report_failures(unit& u) {
    for (srcdoc_info& s : u.srcdocs) report_failures(s.content);
    for (ref_info& info : u.info) {
        if (info.entry < 0) continue;
        const entry& e = entries_[static_cast<std::size_t>(info.entry)];
        reference_report& rep = out_.references[info.report];
        if (e.st == state::done) {
            rep.resource = e.packed;
            ++out_.counts.packed;
            continue;
        }
        info.entry = -1;
        rep.outcome = ref_outcome::unresolved;
        rep.reason = e.reason;
        ++out_.counts.unresolved;
        diag(e.sev, e.code, rep.document, rep.offset,
             "'" + rep.url + "' (" + e.url + "): " + e.why +
                 "; not packed, the reference stays as written");
    }
}

std::optional<std::string> fetcher::rewrite_unit(unit& u, std::string_view text,
                                                 const std::vector<std::string>& cids,
                                                 const std::vector<std::string>& names) {
    std::vector<html::edit> edits;
    for (srcdoc_info& s : u.srcdocs) {
        const std::string inner =
            html::decode_attribute_value(text.substr(s.value_offset, s.value_length));
        if (auto changed = rewrite_unit(s.content, inner, cids, names))
            edits.push_back(detail::srcdoc_edit(s.value_offset, s.value_length, s.quote, *changed));
    }
    bool changed = !edits.empty();
    std::vector<std::optional<std::string>> values(u.refs.size());
    auto set = [&](std::size_t i, std::string v) {
        if (v == u.refs[i].url) return;
        out_.references[u.info[i].report].rewritten = v;
        ++out_.counts.rewritten;
        values[i] = std::move(v);
        changed = true;
    };
    const bool filename = opt_.method == method::filename;
    if (filename && u.base_ref) {
        values[*u.base_ref] = std::string();
        out_.references[u.info[*u.base_ref].report].rewritten = std::string();
        changed = true;
    } else if (u.base_ref && !uri::split_reference(u.refs[*u.base_ref].url).has_scheme) {
        // Chromium resolves a relative <base href> of an archived page against the archive
        // file, not the page's Content-Location: it is written absolute (as in collect).
        reference_report& rep = out_.references[u.info[*u.base_ref].report];
        diag(severity::note, diag_code::reference_respelled, rep.document, rep.offset,
             "<base href='" + u.refs[*u.base_ref].url + "'> written as '" + u.base +
                 "': Chromium resolves a relative base of an archived page against the archive "
                 "file");
        set(*u.base_ref, u.base);
    }
    for (std::size_t i = 0; i < u.refs.size(); ++i) {
        ref_info& info = u.info[i];
        reference_report& rep = out_.references[info.report];
        int target = info.entry;
        if (target < 0 && rep.outcome == ref_outcome::not_followed) {
            // A navigation link to a URL fetched anyway goes with it.
            if (auto it = by_url_.find(info.resolved);
                it != by_url_.end() && entries_[it->second].st == state::done) {
                target = static_cast<int>(it->second);
                rep.resource = entries_[it->second].packed;
            }
        }
        if (target < 0) {
            // The file-name method's names resolve against the document's own name: a
            // relative reference to the web is written absolute.
            const bool relative = !uri::split_reference(u.refs[i].url).has_scheme;
            if (filename && relative && !info.resolved.empty() &&
                (rep.outcome == ref_outcome::external || rep.outcome == ref_outcome::not_followed))
                set(i, info.resolved + info.fragment);
            continue;
        }
        const entry& e = entries_[static_cast<std::size_t>(target)];
        switch (opt_.method) {
            case method::cid:
                // Chromium looks cid: URLs up with their fragment: kept only into SVG.
                set(i, "cid:" + uri::url_encode_id(cids[e.packed]) +
                           (e.doc == doc_type::svg ? info.fragment : std::string()));
                break;
            case method::filename:
                set(i, names[e.packed] + info.fragment);
                break;
            case method::content_location:
                // A fragment is kept into HTML and SVG only: Chromium looks an archived
                // resource up with it, so `x.png#f` finds nothing (as in collect).
                const bool drop =
                    e.doc != doc_type::html && e.doc != doc_type::svg && !info.fragment.empty();
                if (drop)
                    info.fragment.clear();
                else if (info.as_written == e.label)
                    break;  // resolves to the label as written
                diag(severity::note, diag_code::reference_respelled, rep.document, rep.offset,
                     "'" + u.refs[i].url + "' names '" + e.url + "', labelled '" + e.label +
                         (drop ? "'; rewritten without its fragment (Chromium looks an archived "
                                 "resource up with it)"
                               : "' (its URL as a browser requests it, after redirects); "
                                 "rewritten to that URL"));
                set(i, e.label + info.fragment);
                break;
        }
    }
    if (!changed) return std::nullopt;
    std::string out;
    html::rewrite_to(
        text, u.refs,
        [&](const html::reference& r) -> std::optional<std::string> {
            return values[static_cast<std::size_t>(&r - u.refs.data())];
        },
        edits, [&](std::string_view piece) { out += piece; });
    return out;
}

void fetcher::abort_all(const std::string& why) {
    for (auto& t : running_) {
        entry& e = entries_[t->entry];
        inflight_ -= t->body.size();
        --per_host_[t->host];
        lazy_curl::multi_remove_handle(multi_, t->easy);
        lazy_curl::easy_cleanup(t->easy);
        fail(e, diag_code::resource_limit, severity::error, "limit", "'" + e.request + "' " + why);
    }
    running_.clear();
    for (std::size_t i : queue_)
        fail(entries_[i], diag_code::resource_limit, severity::error, "limit",
             "'" + entries_[i].request + "' was not fetched: " + why);
    queue_.clear();
}

bool fetcher::run(const std::string& url) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    if (!is_fetchable_url(url)) {
        out_.error_code = "bad_url";
        out_.error = "'" + url + "' is not an absolute http or https URL";
        return false;
    }
    init_curl();
    multi_ = lazy_curl::multi_init();
    if (!multi_) {
        out_.error_code = "fetch_failed";
        out_.error = unavailable("curl_multi_init");
        return false;
    }
    // The fetcher limits transfers itself (so that none waits in libcurl's queue while its
    // timeout runs); libcurl's limits only back that up.
    lazy_curl::multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS,
                            static_cast<long>(std::max<std::size_t>(1, opt_.max_connections)));
    lazy_curl::multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS,
                            static_cast<long>(std::max<std::size_t>(1, opt_.max_host_connections)));
    user_agent_ =
        opt_.user_agent.empty() ? std::string("mhtml/") + MHTML_VERSION_STRING : opt_.user_agent;
    std::string reason, why;
    const std::string root_url(uri::without_fragment(url));
    if (add_entry(root_url, "", 0, "UTF-8", reason, why) < 0) {
        out_.error_code = "bad_url";
        out_.error = "'" + url + "': " + why;
        return false;
    }
    const bool has_deadline = opt_.limits.total_timeout.count() > 0;
    const auto deadline = t0 + opt_.limits.total_timeout;
    while (true) {
        start_transfers();
        if (running_.empty()) break;
        int still = 0;
        lazy_curl::multi_perform(multi_, &still);
        int left = 0;
        bool finished = false;
        while (CURLMsg* m = lazy_curl::multi_info_read(multi_, &left)) {
            if (m->msg != CURLMSG_DONE) continue;
            transfer* raw = nullptr;
            lazy_curl::easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &raw);
            const CURLcode rc = m->data.result;
            auto it = std::find_if(running_.begin(), running_.end(),
                                   [&](const auto& p) { return p.get() == raw; });
            if (it == running_.end()) continue;
            std::unique_ptr<transfer> t = std::move(*it);
            running_.erase(it);
            finish(std::move(t), rc);
            finished = true;
        }
        // Iterating by index: a scan may name more (to_scan_ grows).
        for (std::size_t k = 0; k < to_scan_.size(); ++k)
            if (scannable(entries_[to_scan_[k]])) scan(to_scan_[k]);
        to_scan_.clear();
        if (has_deadline && clock::now() >= deadline) {
            abort_all("was stopped: the fetch passed total_timeout (" +
                      std::to_string(opt_.limits.total_timeout.count()) + " ms)");
            break;
        }
        // A slot freed: fill it before waiting (bounded: each pass finished a transfer).
        if (!running_.empty() && !finished) lazy_curl::multi_poll(multi_, nullptr, 0, 100, nullptr);
    }
    rep_.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0);
    entry& root = entries_.front();
    if (root.st != state::done) {
        out_.error_code = "fetch_failed";
        out_.error = root.why.empty() ? "'" + url + "' could not be fetched" : root.why;
        return false;
    }
    if (root.doc != doc_type::html && root.doc != doc_type::svg) {
        out_.error_code = "not_html";
        out_.error = "'" + url + "' is " + root.type + ", not an HTML, XHTML or SVG document";
        return false;
    }

    // Phase 2: the resources, in the order found (the page first), and the rewriting.
    std::vector<std::size_t> order;
    mhtml::detail::keyed_string_set labels;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        entry& e = entries_[i];
        if (e.st != state::done) continue;
        e.packed = order.size();
        const std::string& final_url = e.chain.back();
        e.label = (i == 0 || (e.doc != doc_type::none && final_url != e.chain.front())) ? final_url
                                                                                        : e.url;
        // A part has one Content-Location and two parts should not share one (MHT-7.13):
        // a final URL fetched under another URL too keeps the URL it was referenced by.
        if (!labels.insert(e.label).second) {
            e.label = e.url;
            labels.insert(e.label);
        }
        order.push_back(i);
    }
    for (entry& e : entries_) report_failures(e.u);
    std::vector<std::string> cids(order.size()), names(order.size());
    if (opt_.method == method::cid)
        for (auto& c : cids) c = make_content_id();
    if (opt_.method == method::filename) {
        std::vector<uri::filename_request> req;
        for (std::size_t i : order) {
            const entry& e = entries_[i];
            req.push_back({e.file_name.empty() ? e.chain.back() : e.file_name, e.type});
        }
        names = uri::make_virtual_filenames(req);
    }
    for (std::size_t k = 0; k < order.size(); ++k) {
        entry& e = entries_[order[k]];
        resource r;
        r.origin = e.url;
        r.label = opt_.method == method::filename ? names[k] : e.label;
        if (opt_.method == method::cid) r.content_id = cids[k];
        r.in_memory = e.spooled.empty();
        if (!r.in_memory) r.file = e.spooled;
        if (e.scanned) {
            if (auto rewritten = rewrite_unit(e.u, e.data, cids, names)) {
                e.data = std::move(*rewritten);
                ++out_.counts.rewritten_documents;
            }
        }
        r.content_type =
            detail::is_text_type(e.type) ? detail::with_charset(e.type, e.charset) : e.type;
        r.fields = std::move(e.fields);
        r.data = std::move(e.data);
        out_.counts.bytes += r.in_memory ? r.data.size() : e.size;
        out_.resources.push_back(std::move(r));
    }
    out_.spool = spool_;
    out_.counts.resources = out_.resources.size();
    out_.counts.references = out_.references.size();
    return true;
}

}  // namespace

collection fetch_collect(const std::string& url, const fetch_options& options,
                         fetch_report* report) {
    collection out;
    fetch_report local;
    fetch_report& rep = report ? *report : local;
    rep = {};
    fetcher f(options, out, rep);
    if (!f.run(url)) {
        out.resources.clear();
        out.references.clear();
    }
    return out;
}

}  // namespace mhtml::pack
