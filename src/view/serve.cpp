// view::server: the viewer server (include/mhtml/view/serve.hpp). Boost.Beast over Asio:
// asynchronous sessions on a thread pool; each request is answered by handle(), which reads
// the archive's parts through the aggregate.

#include "mhtml/view/serve.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/archive/check.hpp"
#include "mhtml/ascii.hpp"
#include "mhtml/detail/keyed_hash.hpp"
#include "mhtml/html/tokenizer.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/store/index.hpp"
#include "mhtml/store/maildir.hpp"
#include "mhtml/store/mbox.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/reference.hpp"
#include "mhtml/uri/whatwg_url.hpp"
#include "mhtml/view/paths.hpp"
#include "text_cat.hpp"
#include "uri/percent_encode.hpp"
#include "view/document_rewrite.hpp"

namespace mhtml::view {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using mhtml::detail::cat;

namespace {

// ---------------------------------------------------------------------------------------------
// Small helpers

using uri::detail::percent_encoded;

// Every octet but the unreserved ones %-encoded (a query value).
std::string percent_encode(std::string_view s) {
    return percent_encoded(s, [](unsigned char u) {
        return !(std::isalnum(u) || u == '-' || u == '.' || u == '_' || u == '~');
    });
}

// A URI as a browser sends it in a request line: octets that cannot appear there (controls,
// space, quotes, angle brackets, octets above 0x7E, and others a URL may not hold raw)
// %-encoded; '%' itself kept (the URI's own escapes).
std::string request_form(std::string_view s) {
    return percent_encoded(s, [](unsigned char u) {
        return u <= 0x20 || u >= 0x7f || u == '"' || u == '<' || u == '>' || u == '\\' ||
               u == '^' || u == '`' || u == '{' || u == '|' || u == '}';
    });
}

std::optional<std::string> percent_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%') {
            if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
                !std::isxdigit(static_cast<unsigned char>(s[i + 2])))
                return std::nullopt;
            out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += s[i] == '+' ? ' ' : s[i];
        }
    }
    return out;
}

// The value of `name` in a query string ("" when it is there without a value).
std::optional<std::string> query_param(std::string_view query, std::string_view name) {
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        const std::size_t eq = pair.find('=');
        if (pair.substr(0, eq) == name)
            return eq == std::string_view::npos ? std::string()
                                                : percent_decode(pair.substr(eq + 1));
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return std::nullopt;
}

// An RFC 9110 token: what a Content-Type's type, subtype or charset may be when it is
// written into a response header.
bool is_token(std::string_view s) {
    if (s.empty() || s.size() > 100) return false;
    for (const char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) &&
            std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos)
            return false;
    return true;
}

std::string hex_of(const unsigned char* p, std::size_t n) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        out += hex[p[i] >> 4];
        out += hex[p[i] & 15];
    }
    return out;
}

std::string random_ticket() {
    unsigned char b[16];
    if (RAND_bytes(b, sizeof b) != 1) throw std::runtime_error("no random octets for a ticket");
    return hex_of(b, sizeof b);
}

std::string hmac_ticket(const std::string& secret, const std::string& identity) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
         reinterpret_cast<const unsigned char*>(identity.data()), identity.size(), md, &n);
    return hex_of(md, 16);
}

std::string human_size(std::uint64_t n) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(n);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

constexpr std::string_view page_style =
    "<style>body{font:14px/1.4 system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}"
    "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}"
    "td.n{text-align:right}code{word-break:break-all}</style>";

std::string page(std::string_view title, std::string_view body) {
    return cat("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>",
               detail::html_escape(title), "</title>", page_style, "</head><body>", body,
               "</body></html>\n");
}

// ---------------------------------------------------------------------------------------------
// Archives

struct file_identity {
    std::uint64_t size = 0, inode = 0;
    std::int64_t mtime_ns = 0;
    bool operator==(const file_identity&) const = default;
};

file_identity identity_from(const struct stat& st) {
    return file_identity{
        static_cast<std::uint64_t>(st.st_size), static_cast<std::uint64_t>(st.st_ino),
        static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

std::optional<file_identity> identity_of(const std::filesystem::path& p, std::string& error) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
        error = std::strerror(errno);
        return std::nullopt;
    }
    if (!S_ISREG(st.st_mode)) {
        error = "not a regular file";
        return std::nullopt;
    }
    return identity_from(st);
}

// The file's octets and the identity of what was read: one descriptor, fstat'ed, so that a
// file replaced meanwhile is never paired with the other file's identity. Read again (up to
// three times) when the file changed while it was read.
std::optional<std::pair<file_identity, std::string>> read_file(const std::filesystem::path& p,
                                                               std::string& error) {
    // O_NONBLOCK: a FIFO put in the archive's place does not hold the thread (and is refused).
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        error = std::strerror(errno);
        return std::nullopt;
    }
    std::optional<std::pair<file_identity, std::string>> out;
    for (int attempt = 0; attempt < 3 && !out; ++attempt) {
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            error = "not a regular file";
            break;
        }
        std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
        std::size_t got = 0;
        bool failed = false;
        while (got < bytes.size()) {
            const ssize_t n =
                ::pread(fd, bytes.data() + got, bytes.size() - got, static_cast<off_t>(got));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) failed = true;
            if (n <= 0) break;  // cut while read: what came
            got += static_cast<std::size_t>(n);
        }
        if (failed) {
            error = std::strerror(errno);
            break;
        }
        bytes.resize(got);
        struct stat after {};
        if (::fstat(fd, &after) == 0 && identity_from(after) == identity_from(st) &&
            got == static_cast<std::size_t>(st.st_size))
            out.emplace(identity_from(st), std::move(bytes));
        else if (attempt == 2)
            out.emplace(identity_from(after), std::move(bytes));  // still changing: what came
    }
    ::close(fd);
    return out;
}

// Octets [offset, offset + size) of the file open as `fd` (pread: a mailbox is not mapped, so
// that a file cut meanwhile cannot fault the server); nullopt when fewer could be read.
std::optional<std::string> read_range(int fd, std::uint64_t offset, std::uint64_t size) {
    std::string buf(static_cast<std::size_t>(size), '\0');
    std::uint64_t done = 0;
    while (done < size) {
        const ssize_t n = ::pread(fd, buf.data() + done, static_cast<std::size_t>(size - done),
                                  static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return std::nullopt;
        done += static_cast<std::uint64_t>(n);
    }
    return buf;
}

// The id_key of the Message-ID of the message that `text` starts (its header block only is
// read), or "".
std::string header_message_id(std::string_view text) {
    std::size_t end = text.find("\n\n");
    if (const std::size_t crlf = text.find("\r\n\r\n"); crlf < end) end = crlf;
    if (end != std::string_view::npos) text = text.substr(0, end + 2);
    const mime::document d = mime::document::parse(text);
    const auto f = d.root().header("Message-ID");
    return f ? uri::id_key(f->raw_value()) : std::string();
}

// FNV-1a of a message's first 4 KiB: which message is at a place, for one without Message-ID.
std::uint64_t head_hash(std::string_view message) {
    std::uint64_t h = 14695981039346656037ull;
    for (const unsigned char c : message.substr(0, 4096)) h = (h ^ c) * 1099511628211ull;
    return h;
}

struct summary {
    std::string title, original_url, date;
    std::size_t parts = 0, diagnostics = 0;
};

// One archive read into memory, with its aggregate and the URL of each leaf.
struct loaded {
    // Names these octets in response_cache: the same for every reading of an unchanged file
    // (set by server::impl::open before the reading is shared).
    std::uint64_t serial = 0;
    file_identity id;
    mime::document doc;
    archive::aggregate agg;
    std::string message_id;  // of the message (id_key), or ""
    // A message of an mbox: where its octets are in the mailbox (offsets shown are the file's).
    std::optional<store::message_origin> origin;
    summary sum;
    std::unordered_map<std::uint32_t, std::string> url_of;  // leaf index -> its URL (after /T)
    mhtml::detail::keyed_string_map<std::uint32_t> by_url;  // "/r/..." -> leaf index

    loaded(file_identity i, std::string bytes, const archive::message_store* store)
        : id(i), doc(mime::document::parse(std::move(bytes))), agg(build(doc, store)) {
        if (const auto f = doc.root().header("Message-ID"))
            message_id = uri::id_key(f->raw_value());
        index_urls();
        summarize();
    }

    static archive::aggregate build(const mime::document& d, const archive::message_store* store) {
        archive::aggregate_options o;
        o.store = store;
        return archive::aggregate::build(d, o);
    }

    // The path form of an http or https label: /r/SCHEME/AUTHORITY/PATH?QUERY.
    static std::optional<std::string> r_form(const std::string& label) {
        const uri::reference_parts parts = uri::split_reference(label);
        if (!parts.has_scheme || !parts.has_authority) return std::nullopt;
        const std::string scheme = ascii::lowered(parts.scheme);
        if (scheme != "http" && scheme != "https") return std::nullopt;
        if (parts.authority.empty()) return std::nullopt;
        std::string out = cat("/r/", scheme, "/", request_form(parts.authority));
        const std::string_view path = parts.path.empty() ? std::string_view("/") : parts.path;
        out += request_form(path);
        // The path must be the one a browser asks for: one it reads otherwise (a segment that
        // is `.` or `..`, also %2e-spelled, which the reader's resolution keeps) would lead
        // out of the ticket's path, where the policy's sources are. Such a part is served at
        // /part/ only. The browser's reading is the URL Standard's parser (uri::whatwg_url).
        const auto as_sent = uri::whatwg_url::parse(cat("http://localhost", out));
        if (!as_sent || as_sent->pathname() != out) return std::nullopt;
        if (parts.has_query) {
            // As a browser sends a query: a quote %-encoded too.
            std::string q = request_form(parts.query);
            for (std::size_t k; (k = q.find('\'')) != std::string::npos;) q.replace(k, 1, "%27");
            out += cat("?", q);
        }
        return out;
    }

    void index_urls() {
        for (const mime::part_view& p : doc.parts()) {
            if (!p.is_leaf()) continue;
            std::string url;
            if (const auto& loc = agg.info(p).location)
                if (auto r = r_form(*loc); r && by_url.emplace(*r, p.index()).second) url = *r;
            if (url.empty()) url = cat("/part/", p.path());
            url_of.emplace(p.index(), std::move(url));
        }
    }

    void summarize() {
        for (const mime::part_view& p : doc.parts()) sum.parts += p.is_leaf() ? 1 : 0;
        sum.diagnostics = doc.diagnostics().size() + agg.diagnostics().size();
        const mime::part_view top = doc.root();
        if (auto d = top.header("Date")) sum.date = d->value();
        if (auto s = top.header("Snapshot-Content-Location")) sum.original_url = s->value();
        const mime::part_view root = agg.main_root();
        if (sum.original_url.empty() && agg.info(root).location)
            sum.original_url = *agg.info(root).location;
        if (archive::document_type_of(root) == archive::document_type::html) {
            std::string text;
            root.decode_to(text);
            if (text.size() > 256 * 1024) text.resize(256 * 1024);
            html::tokenizer tk(text);
            html::token t;
            bool in_title = false;
            while (tk.next(t)) {
                if (t.type == html::token_type::start_tag && t.name == "title") {
                    in_title = true;
                } else if (in_title && (t.type == html::token_type::raw_text ||
                                        t.type == html::token_type::text)) {
                    std::string_view raw = std::string_view(text).substr(t.begin, t.end - t.begin);
                    bool space = false;
                    for (char c : raw) {
                        const bool ws = c == ' ' || c == '\t' || c == '\r' || c == '\n';
                        if (ws) {
                            space = !sum.title.empty();
                        } else {
                            if (space) sum.title += ' ';
                            space = false;
                            sum.title += c;
                        }
                    }
                    break;
                } else if (t.type == html::token_type::start_tag && t.name == "body") {
                    break;
                }
            }
        }
        if (sum.title.empty()) {
            if (auto s = top.header("Subject")) sum.title = s->value();
        }
    }
};

// An mbox as listed: its messages' ranges, split again when the file has changed.
struct mailbox {
    std::filesystem::path path;
    std::mutex m;                     // guards what follows
    std::optional<file_identity> id;  // of the octets split
    store::mbox_format format = store::mbox_format::mboxo;
    std::vector<store::mbox_message> messages;
};

struct archive_entry {
    std::filesystem::path path;  // the file; for a Maildir message, as last found (guarded by m)
    std::string name;            // as listed (relative to its folder; a mailbox's "NAME #N")
    std::string file_name;       // as listed, without " #N": the order of the index
    std::string ticket;
    std::uint64_t listed_size = 0;
    store::source_kind kind = store::source_kind::message;
    std::shared_ptr<mailbox> box;                 // an mbox listed at start: its message `number`
    std::uint64_t number = 0;                     // in its mailbox, from 1
    std::optional<store::message_record> record;  // an mbox message found through the index
    std::uint64_t head_hash = 0;  // a listed mbox message without Message-ID: its first octets

    std::mutex m;                           // guards what follows
    std::optional<std::string> message_id;  // id_key, once known ("" for none)
    // The parts of other messages ("TICKET/INDEX") that this one's pages show (/T/m/...).
    std::set<std::string> store_links;
    std::shared_ptr<const loaded> doc;
    std::optional<summary> sum;
    std::string error;  // why it last failed to open
    std::uint64_t last_use = 0;
    // The response cache's name for the octets of the file as last read, and their identity:
    // kept when the archive is let go, so that reading the unchanged file again finds its
    // responses still cached.
    std::uint64_t serial = 0;
    std::optional<file_identity> serial_of;
};

// Octets of archives alive in memory: counted from reading to the moment the last response
// that borrows from an archive is written (a deleter counts down), not only while the index
// holds it.
struct memory_meter {
    std::atomic<std::uint64_t> bytes{0};
};

// ---------------------------------------------------------------------------------------------
// Responses

struct reply {
    http::status status = http::status::ok;
    std::string content_type = "text/html; charset=utf-8";
    std::string body;                  // made for this request, unless `keep` is set
    std::shared_ptr<const void> keep;  // owns `shared`: a cached response or an archive
    std::string_view shared;           // a body served without a copy
    std::string etag;                  // known already (cached); else made from the body
    std::vector<std::pair<std::string, std::string>> headers;
    bool archive_part = false;  // carries the archive's policy

    std::string_view data() const noexcept { return keep ? shared : std::string_view(body); }
    void clear_body() noexcept {
        body.clear();
        shared = {};
    }
};

// A part's response as the server sends it, made once per archive read (loaded) and kept in
// response_cache: the decoded or rewritten body, its type and its ETag.
struct rendered {
    std::string body;
    bool identity = false;  // the body is the part's raw body, in the archive's buffer
    std::string content_type;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string etag;

    std::uint64_t charge() const noexcept {
        std::uint64_t n = sizeof(rendered) + body.capacity() + content_type.capacity() + 128;
        for (const auto& [k, v] : headers) n += k.capacity() + v.capacity() + 64;
        return n;
    }
};

// The ETag of a body: 96 bits of its SHA-256, quoted.
std::string etag_of(std::string_view body) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(body.data(), body.size(), md, &n, EVP_sha256(), nullptr);
    return cat("\"", hex_of(md, 12), "\"");
}

// Least recently used responses within a byte budget. Keyed by the content of the archive's
// file (a serial number that changes when the file does: see archive_entry::serial), the part
// and whether it is a download.
class response_cache {
public:
    explicit response_cache(std::uint64_t budget) : budget_(budget) {}

    std::shared_ptr<const rendered> find(std::uint64_t serial, std::uint32_t part, bool download) {
        std::lock_guard<std::mutex> lock(m_);
        auto it = map_.find(key{serial, part, download});
        if (it == map_.end()) return nullptr;
        lru_.splice(lru_.begin(), lru_, it->second);
        return it->second->second;
    }

    // Keeps `r` unless it is larger than a quarter of the budget.
    void insert(std::uint64_t serial, std::uint32_t part, bool download,
                std::shared_ptr<const rendered> r) {
        const std::uint64_t size = r->charge();
        if (size > budget_ / 4) return;
        std::lock_guard<std::mutex> lock(m_);
        const key k{serial, part, download};
        const auto [slot, fresh] = map_.try_emplace(k);
        if (!fresh) return;
        try {  // the map and the list stay in step if either allocation fails
            lru_.emplace_front(k, std::move(r));
        } catch (...) {
            map_.erase(slot);
            throw;
        }
        slot->second = lru_.begin();
        bytes_ += size;
        while (bytes_ > budget_ && !lru_.empty()) {
            bytes_ -= lru_.back().second->charge();
            map_.erase(lru_.back().first);
            lru_.pop_back();
        }
    }

    std::uint64_t bytes() const {
        std::lock_guard<std::mutex> lock(m_);
        return bytes_;
    }

private:
    struct key {
        std::uint64_t serial;
        std::uint32_t part;
        bool download;
        bool operator==(const key&) const = default;
    };
    struct key_hash {
        std::size_t operator()(const key& k) const noexcept {
            std::uint64_t h = (k.serial * 0x9E3779B97F4A7C15ull) ^
                              ((static_cast<std::uint64_t>(k.part) << 1) | k.download);
            h ^= h >> 29;
            return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ull);
        }
    };
    using entry = std::pair<key, std::shared_ptr<const rendered>>;
    mutable std::mutex m_;
    std::list<entry> lru_;
    std::unordered_map<key, std::list<entry>::iterator, key_hash> map_;
    std::uint64_t bytes_ = 0;
    const std::uint64_t budget_;
};

reply error_page(http::status status, std::string_view title, std::string_view message) {
    reply r;
    r.status = status;
    r.body = page(title, cat("<h1>", detail::html_escape(title), "</h1><p>", message, "</p>"));
    return r;
}

// Another message a rendering resolved through the message store, kept alive until the
// rendering ends (its part_views are in the resolutions), with its entry.
struct pinned {
    const mime::document* doc;
    archive_entry* entry;
    std::shared_ptr<const loaded> message;
};

// One rendering of a document, on one thread: the messages it took parts from. The store
// answers only inside one (the aggregates of served messages ask it nothing otherwise).
struct render_scope {
    std::vector<pinned> pins;
    // What each lookup (Message-ID, Content-ID) found: a page that names one part many times
    // asks once.
    std::map<std::pair<std::string, std::string>, std::optional<mime::part_view>, std::less<>>
        found;
    bool finding = false;  // inside a lookup: the found message's own aggregate asks no further
    render_scope* outer;
    static thread_local render_scope* current;

    render_scope() : outer(current) { current = this; }
    ~render_scope() { current = outer; }
    render_scope(const render_scope&) = delete;
    render_scope& operator=(const render_scope&) = delete;

    const pinned* of(const mime::document* d) const noexcept {
        for (const pinned& p : pins)  // as many as the distinct messages a page names
            if (p.doc == d) return &p;
        return nullptr;
    }
    const pinned* of(const archive_entry* e) const noexcept {
        for (const pinned& p : pins)
            if (p.entry == e) return &p;
        return nullptr;
    }
};
thread_local render_scope* render_scope::current = nullptr;

}  // namespace

// The message_store of the served messages (and of the index given as serve_options::store):
// what `mid:` URLs that name no message of their own archive resolve to.
class served_store final : public archive::message_store {
public:
    explicit served_store(server::impl& s) : s_(s) {}
    std::optional<mime::part_view> find(std::string_view message_id,
                                        std::string_view content_id) const override;

private:
    server::impl& s_;
};

// ---------------------------------------------------------------------------------------------

struct server::impl {
    serve_options opt;
    response_cache cache;
    std::vector<std::unique_ptr<archive_entry>> archives;
    mhtml::detail::keyed_string_map<archive_entry*> by_ticket;
    std::vector<source_problem> problems;

    // mid: across messages (served_store): the served messages by Message-ID (read on the first
    // lookup), and messages found through the index, served on demand under tickets of their own.
    served_store messages{*this};
    std::optional<store::index> index;
    std::mutex index_m;
    std::mutex ids_m;
    bool ids_known = false;
    mhtml::detail::keyed_string_map<archive_entry*> by_message_id;
    std::mutex found_m;  // guards what follows
    std::vector<std::unique_ptr<archive_entry>> found;
    mhtml::detail::keyed_string_map<archive_entry*> found_by_ticket;
    mhtml::detail::keyed_string_map<archive_entry*> by_place;  // place_key -> entry

    std::atomic<std::size_t> connections{0};  // before ioc: sessions count down as it goes
    net::io_context ioc;
    tcp::acceptor acceptor{ioc};
    std::optional<net::signal_set> signals;
    std::uint16_t bound_port = 0;
    std::atomic<bool> stopping{false};
    std::atomic<std::uint64_t> clock{0};

    std::shared_ptr<memory_meter> meter = std::make_shared<memory_meter>();
    std::atomic<std::uint64_t> serials{0};
    std::thread indexer;
    std::mutex log_m;

    impl(const std::vector<std::filesystem::path>& sources, serve_options o)
        : opt(std::move(o)), cache(opt.response_cache_bytes) {
        if (opt.store) index.emplace(store::index::open(*opt.store, true));
        for (const std::filesystem::path& s : sources) list(s);
        std::stable_sort(archives.begin(), archives.end(), [](const auto& a, const auto& b) {
            return std::tie(a->file_name, a->number) < std::tie(b->file_name, b->number);
        });
        // A file under two sources is served once.
        std::erase_if(archives, [&](const auto& a) {
            return !by_place.emplace(place_key(a->kind, a->path, a->number), a.get()).second;
        });
        for (auto& a : archives) {
            a->ticket = ticket_for(*a);
            if (!by_ticket.emplace(a->ticket, a.get()).second) {  // (a 2^-128 chance)
                a->ticket = random_ticket();
                by_ticket.emplace(a->ticket, a.get());
            }
        }
    }

    // Where a message is, as a key: its file, and in an mbox its number there.
    static std::string place_key(store::source_kind kind, const std::filesystem::path& path,
                                 std::uint64_t number) {
        return kind == store::source_kind::mbox ? cat(path.native(), "#", std::to_string(number))
                                                : path.native();
    }

    // A new random ticket, or with a secret the HMAC of where the message is: the absolute
    // path of its file, with its number in an mbox, or its Maildir's path and unique name (a
    // Maildir message is renamed when its flags change).
    std::string ticket_for(const archive_entry& a) const {
        if (!opt.secret) return random_ticket();
        // The kind first and NUL separators: no two places read alike.
        using namespace std::string_literals;
        if (a.kind == store::source_kind::maildir)
            return hmac_ticket(*opt.secret,
                               cat("maildir\0"s, a.path.parent_path().parent_path().native(), "\0"s,
                                   store::maildir_unique(a.path.filename().native())));
        if (a.kind == store::source_kind::mbox)
            return hmac_ticket(*opt.secret,
                               cat("mbox\0"s, a.path.native(), "\0"s, std::to_string(a.number)));
        return hmac_ticket(*opt.secret, a.path.native());
    }

    archive_entry& add(const std::filesystem::path& p, std::string name, std::uint64_t size,
                       store::source_kind kind = store::source_kind::message) {
        auto e = std::make_unique<archive_entry>();
        e->path = p;
        e->file_name = name;
        e->name = std::move(name);
        e->listed_size = size;
        e->kind = kind;
        archives.push_back(std::move(e));
        return *archives.back();
    }

    // The messages of an mbox, split now (read whole, then let go) and read one at a time.
    void add_mailbox(const std::filesystem::path& path, const std::string& name) {
        std::string why;
        auto read = read_file(path, why);
        if (!read) {
            problems.push_back({path, cat("cannot read: ", why)});
            return;
        }
        auto box = std::make_shared<mailbox>();
        box->path = path;
        store::mbox_split split = store::split_mbox(read->second);
        box->id = read->first;
        box->format = split.format;
        for (std::size_t i = 0; i < split.messages.size(); ++i) {
            const store::mbox_message& m = split.messages[i];
            archive_entry& e =
                add(path, cat(name, " #", std::to_string(i + 1)), m.size, store::source_kind::mbox);
            e.file_name = name;
            e.box = box;
            e.number = i + 1;
            e.head_hash = head_hash(std::string_view(read->second).substr(m.offset, m.size));
            e.message_id = header_message_id(
                std::string_view(read->second)
                    .substr(m.offset, std::min<std::uint64_t>(m.size, 256 * 1024)));
        }
        box->messages = std::move(split.messages);
    }

    void list(const std::filesystem::path& source) {
        std::error_code ec;
        const auto st = std::filesystem::status(source, ec);
        if (ec || !std::filesystem::exists(st)) {
            problems.push_back({source, ec ? ec.message() : "no such file or folder"});
            return;
        }
        const bool folder = std::filesystem::is_directory(st);
        if (!folder && !std::filesystem::is_regular_file(st)) {
            problems.push_back({source, "not a file or folder"});
            return;
        }
        // What index and batch read: message files by name, mboxes by their first line,
        // Maildirs; links are not followed in a folder (one may name any file of the user's).
        // The index's own files (--store) are never opened: closing a descriptor of one would drop
        // SQLite's fcntl locks on it in this process.
        const store::source_listing l = store::list_sources(
            {source}, false,
            opt.store ? store::database_files(*opt.store) : std::vector<std::filesystem::path>{});
        for (const std::string& p : l.problems) {
            const std::size_t colon = p.find(": ");
            if (colon == std::string::npos)
                problems.push_back({source, p});
            else
                problems.push_back({p.substr(0, colon), p.substr(colon + 2)});
        }
        std::filesystem::path base = std::filesystem::weakly_canonical(source, ec);
        if (ec) base = std::filesystem::absolute(source, ec).lexically_normal();
        std::map<std::filesystem::path, std::uint64_t> in_maildir;  // messages numbered so far
        for (const store::source_file& f : l.files) {
            std::error_code fe;
            std::string name =
                folder ? f.path.lexically_relative(base).string() : f.path.filename().string();
            if (name.empty() || name.starts_with("..")) name = f.path.string();
            switch (f.kind) {
                case store::source_kind::message:
                    add(f.path, std::move(name), std::filesystem::file_size(f.path, fe));
                    break;
                case store::source_kind::maildir: {
                    archive_entry& e = add(f.path, std::move(name), f.size.value_or(0),
                                           store::source_kind::maildir);
                    e.number = ++in_maildir[f.path.parent_path().parent_path()];
                    break;
                }
                case store::source_kind::mbox:
                    add_mailbox(f.path, name);
                    break;
            }
        }
    }

    // ---- reading messages

    // A Maildir message's file, found again by its unique name when a reader renamed it.
    std::filesystem::path relocate(archive_entry& a) {
        std::filesystem::path p;
        {
            std::lock_guard<std::mutex> lock(a.m);
            p = a.path;
        }
        std::error_code ec;
        if (std::filesystem::exists(p, ec)) return p;
        const std::string unique = store::maildir_unique(p.filename().native());
        for (store::maildir_message& m :
             store::list_maildir(p.parent_path().parent_path()).messages)
            if (m.unique == unique) {
                std::lock_guard<std::mutex> lock(a.m);
                return a.path = std::move(m.path);
            }
        return p;
    }

    // A message of a listed mbox: its range, the mailbox split again when the file changed
    // (a message no longer there, or another one in its place, is an error).
    std::optional<std::pair<file_identity, std::string>> read_from_mailbox(
        archive_entry& a, std::string& why, store::message_origin& origin) {
        mailbox& b = *a.box;
        std::lock_guard<std::mutex> lock(b.m);
        for (int attempt = 0; attempt < 3; ++attempt) {
            if (b.id) {
                const int fd = ::open(b.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
                if (fd < 0) {
                    why = std::strerror(errno);
                    return std::nullopt;
                }
                struct stat st {};
                if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
                    ::close(fd);
                    why = "not a regular file";
                    return std::nullopt;
                }
                const file_identity now = identity_from(st);
                if (now == *b.id) {
                    if (a.number > b.messages.size()) {
                        ::close(fd);
                        why = "the message is no longer in the mailbox";
                        return std::nullopt;
                    }
                    const store::mbox_message& m = b.messages[a.number - 1];
                    std::optional<std::string> bytes = read_range(fd, m.offset, m.size);
                    struct stat after {};
                    const bool same = ::fstat(fd, &after) == 0 && identity_from(after) == now;
                    ::close(fd);
                    if (bytes && same) {
                        const std::uint64_t stored_head = head_hash(*bytes);  // as listed
                        origin.offset = m.offset;
                        if (m.quoted && b.format != store::mbox_format::mboxcl2)
                            *bytes = store::unquote(*bytes, b.format, &origin);
                        std::optional<std::string> expected;
                        {
                            std::lock_guard<std::mutex> entry_lock(a.m);
                            expected = a.message_id;
                        }
                        // The message at this place is the one listed: by its Message-ID, or,
                        // without one, by its first octets.
                        const bool moved = expected && !expected->empty()
                                               ? header_message_id(*bytes) != *expected
                                               : stored_head != a.head_hash;
                        if (moved) {
                            why = "the mailbox changed: another message is at this place now";
                            return std::nullopt;
                        }
                        return std::pair{now, std::move(*bytes)};
                    }
                } else {
                    ::close(fd);
                }
            }
            auto whole = read_file(b.path, why);
            if (!whole) return std::nullopt;
            store::mbox_split split = store::split_mbox(whole->second);
            b.id = whole->first;
            b.format = split.format;
            b.messages = std::move(split.messages);
        }
        why = "the mailbox keeps changing";
        return std::nullopt;
    }

    // An mbox message found through the index: read only from the file as indexed (the same
    // file, no shorter: mail is delivered by appending).
    static std::optional<std::pair<file_identity, std::string>> read_indexed(
        const store::message_record& r, std::string& why, store::message_origin& origin) {
        const int fd = ::open(r.file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) {
            why = std::strerror(errno);
            return std::nullopt;
        }
        struct stat st {};
        std::optional<std::string> bytes;
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            static_cast<std::uint64_t>(st.st_ino) == r.file_inode &&
            static_cast<std::uint64_t>(st.st_size) >= r.file_size)
            bytes = read_range(fd, r.offset, r.size);
        ::close(fd);
        if (!bytes) {
            why = "the mailbox changed since it was indexed (mhtml index brings it up to date)";
            return std::nullopt;
        }
        origin.offset = r.offset;
        if (r.quoted && r.format != store::mbox_format::mboxcl2)
            *bytes = store::unquote(*bytes, r.format, &origin);
        if (header_message_id(*bytes) != r.message_id) {  // another message is there now
            why = "the mailbox changed since it was indexed (mhtml index brings it up to date)";
            return std::nullopt;
        }
        return std::pair{identity_from(st), std::move(*bytes)};
    }

    // The message's octets as the parser reads them (unquoted) and the identity of the file
    // they came from (for a mailbox, the mailbox's: any change to it reads them again); for
    // a message of an mbox, where its octets are in the mailbox (`origin`).
    std::optional<std::pair<file_identity, std::string>> read_message(
        archive_entry& a, std::string& why, std::optional<store::message_origin>& origin) {
        switch (a.kind) {
            case store::source_kind::message:
                return read_file(a.path, why);
            case store::source_kind::maildir:
                return read_file(relocate(a), why);
            case store::source_kind::mbox:
                origin.emplace();
                return a.record ? read_indexed(*a.record, why, *origin)
                                : read_from_mailbox(a, why, *origin);
        }
        return std::nullopt;
    }

    // ---- mid: across messages

    // The entries that may hold the message `id`: served messages with that Message-ID, then
    // messages the index names.
    std::vector<archive_entry*> entries_with_id(std::string_view id) {
        std::vector<archive_entry*> out;
        {
            std::lock_guard<std::mutex> lock(ids_m);
            if (!ids_known) learn_ids();
            if (auto it = by_message_id.find(id); it != by_message_id.end())
                out.push_back(it->second);
        }
        if (index) {
            std::vector<store::message_record> records;
            {
                std::lock_guard<std::mutex> lock(index_m);
                records = index->find_message(id);
            }
            for (store::message_record& r : records)
                if (archive_entry* e = entry_for(std::move(r)); e && (out.empty() || e != out[0]))
                    out.push_back(e);
        }
        return out;
    }

    // The Message-IDs of the served messages (ids_m held): those read already, and the others'
    // header blocks, read now, once.
    void learn_ids() {
        for (auto& a : archives) {
            std::optional<std::string> id;
            {
                std::lock_guard<std::mutex> lock(a->m);
                id = a->message_id;
            }
            const std::filesystem::path path =
                a->kind == store::source_kind::maildir ? relocate(*a) : a->path;
            if (!id) {
                std::string head;
                const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
                if (fd >= 0) {
                    struct stat st {};
                    // The header block only: 16 KiB hold almost every one (a first lookup
                    // reads this much of every served archive), 256 KiB at most.
                    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
                        const auto size = static_cast<std::uint64_t>(st.st_size);
                        head = read_range(fd, 0, std::min<std::uint64_t>(size, 16 * 1024))
                                   .value_or("");
                        if (size > head.size() && head.find("\n\n") == std::string::npos &&
                            head.find("\r\n\r\n") == std::string::npos)
                            head = read_range(fd, 0, std::min<std::uint64_t>(size, 256 * 1024))
                                       .value_or("");
                    }
                    ::close(fd);
                }
                id = header_message_id(head);
            }
            if (!id->empty()) by_message_id.emplace(*id, a.get());
        }
        ids_known = true;
    }

    // The entry of a message the index names: a served one at that place, else one made now.
    archive_entry* entry_for(store::message_record r) {
        std::lock_guard<std::mutex> lock(found_m);
        const std::string key = place_key(r.kind, r.file, r.number);
        if (auto it = by_place.find(key); it != by_place.end()) return it->second;
        auto e = std::make_unique<archive_entry>();
        e->path = r.file;
        e->kind = r.kind;
        e->number = r.number;
        e->listed_size = r.size;
        e->name = r.kind == store::source_kind::mbox
                      ? cat(r.file.string(), " #", std::to_string(r.number))
                      : r.file.string();
        if (r.kind == store::source_kind::mbox) e->record = std::move(r);
        e->ticket = ticket_for(*e);
        archive_entry* out = e.get();
        found_by_ticket.emplace(out->ticket, out);
        by_place.emplace(key, out);
        found.push_back(std::move(e));
        return out;
    }

    archive_entry* entry_of(const std::string& ticket) {
        if (auto it = by_ticket.find(ticket); it != by_ticket.end()) return it->second;
        std::lock_guard<std::mutex> lock(found_m);
        auto it = found_by_ticket.find(ticket);
        return it == found_by_ticket.end() ? nullptr : it->second;
    }

    // The archive, read (again) when it is not in memory or its file changed.
    std::shared_ptr<const loaded> open(archive_entry& a, std::string& error) {
        std::string why;
        std::filesystem::path path;
        {
            std::lock_guard<std::mutex> lock(a.m);
            path = a.path;
        }
        const auto id = identity_of(path, why);
        {
            std::lock_guard<std::mutex> lock(a.m);
            a.last_use = ++clock;
            if (!id && a.kind != store::source_kind::maildir) {  // a Maildir's may be renamed
                release(a);
                a.error = cat("the archive cannot be read: ", why);
                error = a.error;
                return nullptr;
            }
            if (id && a.doc && a.doc->id == *id) return a.doc;
        }
        // Read and parsed without the lock, so that the index page and other requests do not
        // wait for a large archive (two requests may both read it; the first one kept wins).
        std::optional<store::message_origin> origin;
        auto read = read_message(a, why, origin);
        if (!read) {
            std::lock_guard<std::mutex> lock(a.m);
            release(a);
            a.error = cat("the archive cannot be read: ", why);
            error = a.error;
            return nullptr;
        }
        if (opt.prepare) {
            try {
                if (auto prepared = opt.prepare(read->second)) {
                    read->second = std::move(*prepared);
                    origin.reset();  // other octets: offsets are the prepared message's
                }
            } catch (const std::exception&) {  // served as read
            }
        }
        const std::uint64_t size = read->second.size();
        meter->bytes += size;
        std::shared_ptr<loaded> fresh(new loaded(read->first, std::move(read->second), &messages),
                                      [m = meter, size](loaded* l) {
                                          m->bytes -= size;
                                          delete l;
                                      });
        fresh->origin = std::move(origin);
        std::lock_guard<std::mutex> lock(a.m);
        if (a.doc && a.doc->id == fresh->id) return a.doc;
        if (!a.serial_of || !(*a.serial_of == fresh->id)) {
            a.serial = ++serials;
            a.serial_of = fresh->id;
            a.store_links.clear();  // made again as its pages are
        }
        fresh->serial = a.serial;
        release(a);
        a.sum = fresh->sum;
        a.message_id = fresh->message_id;
        a.error.clear();
        a.doc = std::move(fresh);
        return a.doc;
    }

    void release(archive_entry& a) {  // a.m held
        a.doc.reset();
    }

    // Lets go of the least recently used archives while more than the budget is in memory
    // (requests in flight keep theirs alive, and they count until they are done).
    void trim(const archive_entry* keep) {
        while (meter->bytes.load() > opt.memory_budget) {
            archive_entry* oldest = nullptr;
            std::uint64_t when = UINT64_MAX;
            const auto consider = [&](archive_entry& a) {
                if (&a == keep) return;
                std::lock_guard<std::mutex> lock(a.m);
                if (a.doc && a.last_use < when) {
                    when = a.last_use;
                    oldest = &a;
                }
            };
            for (auto& a : archives) consider(*a);
            {
                std::lock_guard<std::mutex> lock(found_m);
                for (auto& a : found) consider(*a);
            }
            if (!oldest) return;
            std::lock_guard<std::mutex> lock(oldest->m);
            release(*oldest);
        }
    }

    // ---- pages

    reply index_page(std::string_view query) const {
        const std::string q = ascii::lowered(query_param(query, "q").value_or(""));
        std::string rows;
        std::size_t shown = 0;
        for (const auto& a : archives) {
            std::optional<summary> sum;
            std::string error;
            {
                std::lock_guard<std::mutex> lock(a->m);
                sum = a->sum;
                error = a->error;
            }
            if (!q.empty()) {
                std::string hay = ascii::lowered(a->name);
                if (sum)
                    hay += "\n" + ascii::lowered(sum->title) + "\n" +
                           ascii::lowered(sum->original_url);
                if (hay.find(q) == std::string::npos) continue;
            }
            if (++shown > 5000) continue;
            const std::string title = sum && !sum->title.empty() ? sum->title : a->name;
            rows +=
                cat("<tr><td><a href=\"/", a->ticket, "/\">", detail::html_escape(title),
                    "</a><br><small>", detail::html_escape(a->name), "</small></td><td><code>",
                    detail::html_escape(sum ? sum->original_url : ""), "</code></td><td>",
                    detail::html_escape(sum ? sum->date : ""), "</td><td class=n>",
                    human_size(a->listed_size), "</td><td class=n>",
                    sum ? std::to_string(sum->parts) : std::string("&hellip;"), "</td><td class=n>",
                    sum ? std::to_string(sum->diagnostics)
                        : std::string(error.empty() ? "&hellip;" : "!"),
                    "</td><td><a href=\"/", a->ticket, "/parts\">parts</a> <a href=\"/", a->ticket,
                    "/check\">check</a></td></tr>");
        }
        std::string body = cat(
            "<h1>Archives</h1><form method=get action=\"/\"><input name=q value=\"",
            detail::html_escape(q), "\" placeholder=\"filter\"> <button>Filter</button></form><p>",
            std::to_string(shown), " of ", std::to_string(archives.size()), " archives",
            shown > 5000 ? " (the first 5000 shown; filter to see others)" : "",
            "</p><table><tr><th>Title</th><th>Original URL</th><th>Date</th><th>Size</th>"
            "<th>Parts</th><th>Diagnostics</th><th></th></tr>",
            rows, "</table>");
        reply r;
        r.body = page("Archives", body);
        return r;
    }

    static reply parts_page(const archive_entry& a, const loaded& l) {
        std::string rows;
        for (const mime::part_view& p : l.doc.parts()) {
            const std::string path = p.path();
            std::string actions;
            if (p.is_leaf()) {
                const std::string& url = l.url_of.at(p.index());
                actions = cat("<a href=\"/", a.ticket, url, "\">open</a> <a href=\"/", a.ticket,
                              "/part/", path, "?download\">download</a>");
            }
            rows += cat("<tr><td><code>", path.empty() ? "." : path, "</code></td><td>",
                        detail::html_escape(p.content_type().essence()), "</td><td><code>",
                        detail::html_escape(l.agg.info(p).location.value_or("")),
                        "</code></td><td><code>", detail::html_escape(p.content_id().value_or("")),
                        "</code></td><td class=n>", std::to_string(p.raw_body().size()),
                        "</td><td>", actions, "</td></tr>");
        }
        reply r;
        r.body =
            page(cat("Parts of ", a.name),
                 cat("<h1>Parts of ", detail::html_escape(a.name),
                     "</h1><p><a href=\"/\">all archives</a> "
                     "<a href=\"/",
                     a.ticket, "/\">page</a> <a href=\"/", a.ticket,
                     "/check\">check</a></p><table><tr><th>Path</th><th>Type</th>"
                     "<th>Content-Location</th><th>Content-ID</th><th>Octets</th><th></th></tr>",
                     rows, "</table>"));
        return r;
    }

    static reply check_page(const archive_entry& a, const loaded& l) {
        // Offsets: in the file (for a message of an mbox, in the mailbox).
        const std::vector<archive::finding> findings = archive::check(l.doc);
        std::string rows;
        for (const archive::finding& f : findings)
            rows += cat("<tr><td>", archive::level_name(f.level), "</td><td>",
                        detail::html_escape(f.requirement), "</td><td><code>",
                        detail::html_escape(f.code), "</code></td><td>",
                        f.part_path.empty() ? "." : detail::html_escape(f.part_path),
                        "</td><td class=n>",
                        std::to_string(l.origin ? l.origin->file_offset(f.offset) : f.offset),
                        "</td><td>", detail::html_escape(f.message), "</td></tr>");
        reply r;
        r.body = page(cat("Check of ", a.name),
                      cat("<h1>Check of ", detail::html_escape(a.name),
                          "</h1><p><a href=\"/\">all archives</a> "
                          "<a href=\"/",
                          a.ticket, "/\">page</a> <a href=\"/", a.ticket,
                          "/parts\">parts</a></p><p>", std::to_string(findings.size()),
                          " findings</p><table><tr><th>Level</th><th>Requirement</th><th>Code</th>"
                          "<th>Part</th><th>Offset</th><th>Message</th></tr>",
                          rows, "</table>"));
        return r;
    }

    // A part's response: from the cache, else rendered and kept there. A body left as
    // written (7bit, 8bit, binary) is served from the archive's buffer without a copy.
    reply serve_part(archive_entry& a, const std::shared_ptr<const loaded>& l,
                     const mime::part_view& p, bool download) {
        std::shared_ptr<const rendered> r = cache.find(l->serial, p.index(), download);
        if (!r) {
            auto made = std::make_shared<const rendered>(render(a, *l, p, download));
            cache.insert(l->serial, p.index(), download, made);
            r = std::move(made);
        }
        reply out;
        out.archive_part = true;
        out.content_type = r->content_type;
        out.headers = r->headers;
        out.etag = r->etag;
        if (r->identity) {
            out.shared = p.raw_body();
            out.keep = l;
        } else {
            out.shared = r->body;
            out.keep = r;
        }
        return out;
    }

    rendered render(archive_entry& a, const loaded& l, const mime::part_view& p,
                    bool download) const {
        rendered r;
        const mime::content_type& ct = p.content_type();
        // What goes into a header from the archive is tokens only (no CR, LF or quote can
        // split or extend a field).
        std::string type = ct.essence();
        if (!is_token(ct.type) || !is_token(ct.subtype)) type = "application/octet-stream";
        const auto body = [&] {
            const mime::transfer_encoding e = p.encoding();
            if (e == mime::transfer_encoding::base64 ||
                e == mime::transfer_encoding::quoted_printable)
                p.decode_to(r.body);
            else
                r.identity = true;
        };
        const archive::document_type dt = archive::document_type_of(p);
        if (download) {
            body();
            r.content_type = "application/octet-stream";
            std::string name;
            for (const char c : safe_segment(l.agg.info(p).location.value_or("")))
                if (name.size() < 120)
                    name += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-'
                                ? c
                                : '_';
            if (name.empty()) name = cat("part-", p.path());
            r.headers.emplace_back("Content-Disposition",
                                   cat("attachment; filename=\"", name, "\""));
        } else if (dt == archive::document_type::none) {
            body();
            if (auto cs = ct.param("charset"); cs && ct.type == "text" && is_token(*cs))
                type += cat("; charset=", *cs);
            r.content_type = type;
        } else {
            archive::document_text d = l.agg.read_document(p);
            render_scope scope;  // the other messages its mid: URLs name, kept while it is made
            detail::rewrite_options ro;
            ro.block_plugins = !opt.allow_scripts;
            ro.html_syntax = detail::is_text_html(p);
            ro.disable_refresh = !opt.allow_scripts;
            const std::string ticket = a.ticket;
            ro.unresolved = [&ticket](std::string_view resolved) -> std::optional<std::string> {
                return cat("/", ticket, "/missing?u=", percent_encode(resolved));
            };
            // A part of another message (mid:, through the store): an image, a font or another
            // resource that is not a document is served under this message's ticket (/T/m/...:
            // its policy allows nothing else), and only because this page names it; a link
            // to another message leads to that message's page, under its own ticket.
            ro.store_parts = true;
            ro.other_message = [&](const mime::part_view& target,
                                   const html::reference& ref) -> std::optional<std::string> {
                if (ref.kind != html::ref_kind::navigation && ref.kind != html::ref_kind::citation)
                    return std::nullopt;  // a frame of it: another ticket, which the policy refuses
                const pinned* pin = scope.of(&target.doc());
                if (!pin) return std::nullopt;
                const loaded& other = *pin->message;
                const std::string& t = pin->entry->ticket;
                if (target.path().empty()) return cat("/", t, "/");
                const auto leaf = other.agg.shown_leaf(target);
                const auto it = leaf ? other.url_of.find(leaf->index()) : other.url_of.end();
                if (it == other.url_of.end()) return cat("/", t, "/parts");
                return cat("/", t, it->second);
            };
            detail::rewrite_counts counts;
            r.body = detail::rewrite_references(
                l.agg, p, d,
                [&](const mime::part_view& target,
                    const html::reference&) -> std::optional<std::string> {
                    if (&target.doc() != &l.doc) {
                        const pinned* pin = scope.of(&target.doc());
                        if (!pin) return std::nullopt;
                        {
                            std::lock_guard<std::mutex> lock(a.m);
                            a.store_links.insert(
                                cat(pin->entry->ticket, "/", std::to_string(target.index())));
                        }
                        return cat("/", ticket, "/m/", pin->entry->ticket, "/", target.path());
                    }
                    auto it = l.url_of.find(target.index());
                    if (it == l.url_of.end()) return std::nullopt;
                    return cat("/", ticket, it->second);
                },
                ro, counts);
            if (!d.charset.empty() && is_token(d.charset)) type += cat("; charset=", d.charset);
            r.content_type = type;
        }
        r.etag = etag_of(r.identity ? p.raw_body() : std::string_view(r.body));
        return r;
    }

    reply handle(std::string_view target) {
        // origin-form only: /path?query
        if (!target.starts_with('/'))
            return error_page(http::status::bad_request, "Bad request",
                              "The request target must be a path.");
        const std::size_t qmark = target.find('?');
        const std::string_view path = target.substr(0, qmark);
        const std::string_view query =
            qmark == std::string_view::npos ? std::string_view() : target.substr(qmark + 1);
        if (path == "/") return index_page(query);
        std::string_view rest = path.substr(1);
        const std::size_t slash = rest.find('/');
        const std::string ticket(rest.substr(0, slash));
        archive_entry* found_entry = entry_of(ticket);
        if (!found_entry)
            return error_page(http::status::not_found, "Not found",
                              "No archive is served under this path.");
        archive_entry& a = *found_entry;
        if (slash == std::string_view::npos) {
            reply r = error_page(http::status::moved_permanently, "Moved", "");
            r.headers.emplace_back("Location", cat("/", ticket, "/"));
            return r;
        }
        rest.remove_prefix(slash);  // "/..."
        std::string error;
        const std::shared_ptr<const loaded> l = open(a, error);
        if (!l)
            return error_page(http::status::not_found, "Archive unavailable",
                              cat(detail::html_escape(a.name), ": ", detail::html_escape(error)));
        trim(&a);
        if (rest == "/") {
            // The page itself, not a redirect: after a redirect the policy's path is no longer
            // checked, so nothing under a ticket redirects anywhere.
            const mime::part_view root = l->agg.main_root();
            if (root.is_leaf()) return serve_part(a, l, root, false);
            return parts_page(a, *l);
        }
        if (rest == "/parts") return parts_page(a, *l);
        if (rest == "/check") return check_page(a, *l);
        if (rest == "/missing") {
            const std::string u = query_param(query, "u").value_or("");
            reply r = error_page(http::status::not_found, "Not in this archive",
                                 cat("<code>", detail::html_escape(u),
                                     "</code> is not in this archive, and nothing is fetched from "
                                     "the network. <a href=\"/",
                                     ticket, "/parts\">Parts</a>"));
            r.archive_part = true;
            return r;
        }
        if (rest.starts_with("/part/")) {
            const auto p = l->doc.find(rest.substr(6));
            if (!p || !p->is_leaf())
                return error_page(
                    http::status::not_found, "Not found",
                    cat("This archive has no part ", detail::html_escape(rest.substr(6)), "."));
            return serve_part(a, l, *p, query_param(query, "download").has_value());
        }
        if (rest.starts_with("/m/")) {
            // A part of another message that this one's pages show (see render()).
            const std::string_view tail = rest.substr(3);
            const std::size_t cut = tail.find('/');
            const std::string other(tail.substr(0, cut));
            bool linked = false;
            if (cut != std::string_view::npos) {
                std::lock_guard<std::mutex> lock(a.m);
                const auto it = a.store_links.lower_bound(cat(other, "/"));
                linked = it != a.store_links.end() && it->starts_with(cat(other, "/"));
            }
            archive_entry* e = linked ? entry_of(other) : nullptr;
            std::shared_ptr<const loaded> o = e ? open(*e, error) : nullptr;
            auto p = o ? o->doc.find(tail.substr(cut + 1)) : std::nullopt;
            if (p) {  // this very part was named
                std::lock_guard<std::mutex> lock(a.m);
                if (!a.store_links.contains(cat(other, "/", std::to_string(p->index())))) p.reset();
            }
            if (!p || !p->is_leaf() ||
                archive::document_type_of(*p) != archive::document_type::none) {
                reply r = error_page(http::status::not_found, "Not in this archive",
                                     "This archive's pages name no such part of another message.");
                r.archive_part = true;
                return r;
            }
            return serve_part(*e, o, *p, false);
        }
        if (rest.starts_with("/r/")) {
            const std::string key = cat(rest, qmark == std::string_view::npos ? "" : "?", query);
            auto hit = l->by_url.find(key);
            if (hit != l->by_url.end()) return serve_part(a, l, l->doc.part(hit->second), false);
            reply r = error_page(http::status::not_found, "Not in this archive",
                                 cat("<code>", detail::html_escape(key),
                                     "</code> names no part of this archive. <a href=\"/", ticket,
                                     "/parts\">Parts</a>"));
            r.archive_part = true;
            return r;
        }
        return error_page(http::status::not_found, "Not found",
                          "This archive has nothing under this path.");
    }

    // The policy of an archive's responses: its own URLs (the ticket's path) and data:.
    std::string policy(std::string_view host, const std::string& ticket) const {
        const std::string own = cat("http://", host, "/", ticket, "/");
        std::string p = cat("default-src 'none'; img-src ", own, " data: blob:; style-src ", own,
                            " 'unsafe-inline' data:; font-src ", own, " data:; media-src ", own,
                            " data: blob:; frame-src ", own, " data:; object-src ", own,
                            "; base-uri 'none'; frame-ancestors 'self'; ");
        // Scripts run in a sandbox without allow-same-origin: an opaque origin, so they read
        // no response of this server (its index lists every ticket), no storage or cookie of
        // the loopback origin, and no other archive's; no popups. They can still navigate their
        // own page anywhere (no policy stops that): --allow-scripts is for trusted archives.
        if (opt.allow_scripts)
            p += cat("script-src ", own, " 'unsafe-inline' 'unsafe-eval'; connect-src ", own,
                     "; worker-src ", own, "; form-action ", own,
                     "; sandbox allow-scripts allow-forms");
        else
            p += "script-src 'none'; form-action 'none'";
        return p;
    }

    // Whether the Host header names this server (DNS rebinding: a name that resolves here
    // but is not one of ours is refused).
    bool host_ok(std::string_view host) const {
        std::string_view name = host;
        std::string_view port;
        if (name.starts_with('[')) {
            const std::size_t close = name.find(']');
            if (close == std::string_view::npos) return false;
            port = name.substr(close + 1);
            name = name.substr(0, close + 1);
        } else if (const std::size_t colon = name.rfind(':'); colon != std::string_view::npos) {
            port = name.substr(colon);
            name = name.substr(0, colon);
        }
        if (!port.empty() && port != cat(":", std::to_string(bound_port))) return false;
        const std::string lower = ascii::lowered(name);
        return lower == "127.0.0.1" || lower == "localhost" || lower == "[::1]" ||
               lower == opt.listen || lower == cat("[", opt.listen, "]");
    }

    void log(access_entry e) {
        if (!opt.log) return;
        std::lock_guard<std::mutex> lock(log_m);
        opt.log(e);
    }

    void index_all() {
        for (auto& a : archives) {
            if (stopping) return;
            {
                std::lock_guard<std::mutex> lock(a->m);
                if (a->sum || !a->error.empty()) continue;
            }
            std::string error;
            try {
                (void)open(*a, error);
            } catch (const std::exception& e) {
                std::lock_guard<std::mutex> lock(a->m);
                a->error = e.what();
            }
            trim(nullptr);
        }
    }

    void accept();
};

namespace {

// One connection: requests read and answered in turn (HTTP/1.1 keep-alive).
class session : public std::enable_shared_from_this<session> {
public:
    session(tcp::socket&& s, server::impl& srv) : stream_(std::move(s)), srv_(srv) {
        beast::error_code ec;
        const auto ep = stream_.socket().remote_endpoint(ec);
        if (!ec) remote_ = cat(ep.address().to_string(), ":", std::to_string(ep.port()));
    }
    ~session() { --srv_.connections; }

    void run() { read(); }

private:
    void read() {
        parser_.emplace();
        parser_->header_limit(static_cast<std::uint32_t>(srv_.opt.max_header_bytes));
        parser_->body_limit(64 * 1024);
        stream_.expires_after(srv_.opt.request_timeout);
        http::async_read(
            stream_, buffer_, *parser_,
            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }

    void on_read(beast::error_code ec) {
        if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
            ec == net::error::operation_aborted || ec == net::error::connection_reset ||
            ec == net::error::eof)
            return close();
        start_ = std::chrono::steady_clock::now();
        if (ec) {
            // A header block too large gets 431; anything else unreadable, 400. Then close.
            const bool big = ec == http::error::header_limit;
            reply r = error_page(
                big ? http::status::request_header_fields_too_large : http::status::bad_request,
                big ? "Request header fields too large" : "Bad request",
                big ? "The request's header block is too large."
                    : "The request could not be read.");
            try {
                send(std::move(r), "", false, "-", "-", false);
            } catch (const std::exception&) {
                close();
            }
            return;
        }
        // Whatever goes wrong in answering (a header Beast refuses, memory) closes this
        // connection, never the server.
        try {
            respond();
        } catch (const std::exception&) {
            close();
        }
    }

    void respond() {
        const auto& req = parser_->get();
        const std::string method(req.method_string());
        const std::string target(req.target());
        const std::string host(req[http::field::host]);
        const bool keep = req.keep_alive();
        const bool head = req.method() == http::verb::head;
        reply r;
        if (req.method() != http::verb::get && !head) {
            r = error_page(http::status::method_not_allowed, "Method not allowed",
                           "Only GET and HEAD are answered.");
            r.headers.emplace_back("Allow", "GET, HEAD");
        } else if (req.count(http::field::host) > 1) {
            r = error_page(http::status::bad_request, "Bad request",
                           "A request has one Host header (RFC 9112 3.2).");
        } else if (!srv_.host_ok(host)) {
            r = error_page(http::status::misdirected_request, "Misdirected request",
                           "The Host header does not name this server.");
        } else {
            try {
                r = srv_.handle(target);
            } catch (const std::exception& e) {
                r = error_page(http::status::internal_server_error, "Internal error",
                               detail::html_escape(e.what()));
            }
        }
        std::string ticket;
        if (r.archive_part && target.size() > 1) ticket = target.substr(1, target.find('/', 1) - 1);
        if (r.status == http::status::ok && r.archive_part)
            conditional_and_range(r, req[http::field::if_none_match], req[http::field::range]);
        send(std::move(r), ticket, head, method, target, keep, host);
    }

    // ETag from the content (its SHA-256, 96 bits of it); If-None-Match gives 304. One byte range
    // (RFC 9110 14.1.2: `a-b`, `a-`, `-n`) gives 206, or 416 when it lies past the end; several
    // ranges or a malformed header, the whole body.
    static void conditional_and_range(reply& r, std::string_view if_none_match,
                                      std::string_view range) {
        if (r.etag.empty()) r.etag = etag_of(r.data());
        const std::string& tag = r.etag;
        r.headers.emplace_back("ETag", tag);
        r.headers.emplace_back("Accept-Ranges", "bytes");
        if (!if_none_match.empty() &&
            (if_none_match.find(tag) != std::string_view::npos || if_none_match == "*")) {
            r.status = http::status::not_modified;
            r.clear_body();
            return;
        }
        if (!range.starts_with("bytes=") || range.find(',') != std::string_view::npos) return;
        const std::string_view spec = range.substr(6);
        const std::size_t dash = spec.find('-');
        if (dash == std::string_view::npos) return;
        const auto number = [](std::string_view d, std::uint64_t& v) {
            if (d.empty() || d.size() > 18 || d.find_first_not_of("0123456789") != d.npos)
                return false;
            v = std::stoull(std::string(d));
            return true;
        };
        const std::uint64_t size = r.data().size();
        std::uint64_t first = 0, last = size ? size - 1 : 0;
        std::uint64_t a = 0, b = 0;
        const std::string_view from = spec.substr(0, dash), to = spec.substr(dash + 1);
        if (from.empty()) {  // the last n octets
            if (!number(to, b)) return;
            if (b == 0) return set_unsatisfiable(r, size);
            first = size > b ? size - b : 0;
        } else {
            if (!number(from, a)) return;
            if (!to.empty()) {
                if (!number(to, b) || b < a) return;
                last = std::min(b, last);
            }
            first = a;
        }
        if (size == 0 || first >= size) return set_unsatisfiable(r, size);
        r.headers.emplace_back("Content-Range",
                               cat("bytes ", std::to_string(first), "-", std::to_string(last), "/",
                                   std::to_string(size)));
        if (r.keep)
            r.shared = r.shared.substr(first, last - first + 1);
        else
            r.body = r.body.substr(first, last - first + 1);
        r.status = http::status::partial_content;
    }

    static void set_unsatisfiable(reply& r, std::uint64_t size) {
        r.status = http::status::range_not_satisfiable;
        r.clear_body();
        r.headers.emplace_back("Content-Range", cat("bytes */", std::to_string(size)));
    }

    // A response and what its body is borrowed from, alive until it is written.
    struct outgoing {
        reply r;
        http::response<http::span_body<const char>> res;
    };

    void send(reply r, const std::string& ticket, bool head, std::string method, std::string target,
              bool keep, const std::string& host = {}) {
        auto out = std::make_shared<outgoing>();
        out->r = std::move(r);
        const reply& rr = out->r;
        auto& res = out->res;
        res.result(rr.status);
        res.version(11);
        res.set(http::field::content_type, rr.content_type);
        res.set(http::field::cache_control, "no-store");
        res.set("X-Content-Type-Options", "nosniff");
        res.set("Referrer-Policy", "no-referrer");
        if (rr.archive_part && !ticket.empty())
            res.set("Content-Security-Policy", srv_.policy(host, ticket));
        else
            res.set("Content-Security-Policy",
                    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                    "base-uri 'none'; frame-ancestors 'none'");
        for (const auto& [name, value] : rr.headers) res.set(name, value);
        const std::string_view body = rr.data();
        const std::uint64_t size = body.size();
        res.keep_alive(keep);
        if (head || rr.status == http::status::not_modified) {
            if (rr.status != http::status::not_modified) res.content_length(size);
        } else {
            res.body() = http::span_body<const char>::value_type(body.data(), body.size());
            res.prepare_payload();
        }
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                .count();
        srv_.log({remote_, std::move(method), std::move(target), static_cast<unsigned>(rr.status),
                  size, ms});
        stream_.expires_after(srv_.opt.request_timeout);
        http::async_write(
            stream_, res,
            [self = shared_from_this(), out, keep](beast::error_code ec, std::size_t) {
                if (ec || !keep || self->srv_.stopping) return self->close();
                self->read();
            });
    }

    void close() {
        beast::error_code ec;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
        stream_.socket().close(ec);
    }

    beast::tcp_stream stream_;
    server::impl& srv_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    std::string remote_ = "-";
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

void server::impl::accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket s) {
        if (ec) {
            if (stopping || !acceptor.is_open()) return;
            // Out of descriptors (or another passing failure): try again a little later,
            // not at once, which would spin.
            auto timer = std::make_shared<net::steady_timer>(ioc, std::chrono::milliseconds(100));
            timer->async_wait([this, timer](beast::error_code) {
                if (!stopping) accept();
            });
            return;
        }
        if (connections.load() >= opt.max_connections) {
            beast::error_code ignore;
            s.close(ignore);  // too many at once: refused
        } else {
            ++connections;
            std::make_shared<session>(std::move(s), *this)->run();
        }
        if (!stopping) accept();
    });
}

server::server(const std::vector<std::filesystem::path>& sources, serve_options options)
    : impl_(std::make_unique<impl>(sources, std::move(options))) {}

server::~server() {
    stop();
    if (impl_->indexer.joinable()) impl_->indexer.join();
}

void server::start() {
    impl& s = *impl_;
    beast::error_code ec;
    const auto address = net::ip::make_address(s.opt.listen, ec);
    if (ec) throw std::system_error(ec, "not an IP address: " + s.opt.listen);
    const tcp::endpoint ep(address, s.opt.port);
    s.acceptor.open(ep.protocol());
    s.acceptor.set_option(net::socket_base::reuse_address(true));
    s.acceptor.bind(ep);
    s.acceptor.listen(net::socket_base::max_listen_connections);
    s.bound_port = s.acceptor.local_endpoint().port();
    // Each connection takes a descriptor; archives being read take more.
    if (rlimit rl{}; ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        s.opt.max_connections =
            std::min<std::size_t>(s.opt.max_connections, rl.rlim_cur > 128 ? rl.rlim_cur - 64 : 64);
    s.accept();
    if (s.opt.stop_on_signals) {
        s.signals.emplace(s.ioc, SIGINT, SIGTERM);
        s.signals->async_wait([this](beast::error_code, int) { stop(); });
    }
    if (s.opt.index_in_background) s.indexer = std::thread([&s] { s.index_all(); });
}

void server::run() {
    impl& s = *impl_;
    const unsigned n =
        s.opt.threads ? s.opt.threads : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < n; ++i) pool.emplace_back([&s] { s.ioc.run(); });
    s.ioc.run();
    for (auto& t : pool) t.join();
}

void server::stop() {
    impl& s = *impl_;
    if (s.stopping.exchange(true)) return;
    net::post(s.ioc, [&s] {
        beast::error_code ec;
        s.acceptor.close(ec);
        if (s.signals) s.signals->cancel(ec);
        s.ioc.stop();
    });
}

std::uint16_t server::port() const noexcept {
    return impl_->bound_port;
}

std::string server::url() const {
    const std::string host = impl_->opt.listen.find(':') != std::string::npos
                                 ? cat("[", impl_->opt.listen, "]")
                                 : impl_->opt.listen;
    return cat("http://", host, ":", std::to_string(impl_->bound_port), "/");
}

std::uint64_t server::cached_bytes() const {
    return impl_->cache.bytes();
}

std::size_t server::archive_count() const noexcept {
    return impl_->archives.size();
}

std::string server::ticket_of(const std::filesystem::path& path, std::uint64_t message) const {
    std::error_code ec;
    std::filesystem::path want = std::filesystem::weakly_canonical(path, ec);
    if (ec) want = std::filesystem::absolute(path, ec).lexically_normal();
    for (const auto& a : impl_->archives) {
        std::filesystem::path p;
        {
            std::lock_guard<std::mutex> lock(a->m);
            p = a->path;
        }
        if (p != want && p != path) continue;
        if (message == 0 || a->number == message) return a->ticket;
    }
    return {};
}

const std::vector<source_problem>& server::problems() const noexcept {
    return impl_->problems;
}

std::optional<mime::part_view> served_store::find(std::string_view message_id,
                                                  std::string_view content_id) const {
    render_scope* scope = render_scope::current;
    if (!scope || scope->finding || message_id.empty()) return std::nullopt;
    const auto url = uri::ids_to_mid(message_id, content_id);
    if (!url) return std::nullopt;
    const auto key = std::pair{std::string(message_id), std::string(content_id)};
    if (auto it = scope->found.find(key); it != scope->found.end()) return it->second;
    scope->finding = true;
    struct done_finding {
        render_scope* s;
        ~done_finding() { s->finding = false; }
    } reset{scope};
    std::optional<mime::part_view> out;
    for (archive_entry* e : s_.entries_with_id(message_id)) {
        // A message this rendering read already is used as read (one copy, however often
        // it is named, whatever the memory budget lets go meanwhile).
        const pinned* pin = scope->of(e);
        std::shared_ptr<const loaded> l = pin ? pin->message : nullptr;
        if (!l) {
            std::string error;
            l = s_.open(*e, error);
        }
        if (!l) continue;
        // The message's own aggregate resolves it as one of its own messages (itself or one
        // inside it); one that no longer has this Message-ID names nothing.
        const archive::resolution res = l->agg.resolve(l->doc.root(), url.value);
        if (!res.target) continue;
        if (!pin) scope->pins.push_back({&l->doc, e, l});
        out = res.target;
        break;
    }
    scope->found.emplace(key, out);
    return out;
}

}  // namespace mhtml::view
