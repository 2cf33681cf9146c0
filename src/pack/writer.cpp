// The streaming MHTML writer (pack/writer.hpp).

#include "mhtml/pack/writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <deque>
#include <limits>
#include <mutex>
#include <random>
#include <set>
#include <span>
#include <system_error>
#include <thread>
#include <utility>

#include "mhtml/ascii.hpp"
#include "mhtml/detail/string_index.hpp"
#include "mhtml/html/charset.hpp"
#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/charset.hpp"
#include "mhtml/mime/content_md5.hpp"
#include "mhtml/mime/content_type.hpp"
#include "mhtml/mime/node.hpp"
#include "mhtml/mime/quoted_printable.hpp"
#include "mhtml/mime/rfc2047.hpp"
#include "mhtml/pack/content_id.hpp"
#include "mhtml/uri/header_value.hpp"
#include "mhtml/utf8.hpp"
#include "pack/content_coding.hpp"
#include "pack/text_charset.hpp"
#include "pack/writable_id.hpp"

namespace mhtml::pack {

namespace {

constexpr std::size_t out_capacity = std::size_t{4} << 20;  // the output buffer
constexpr std::size_t read_chunk = 57 * 9198;  // file reads, base64 steps: ~512 KiB of whole lines
constexpr std::size_t qp_chunk = std::size_t{192} << 10;  // quoted-printable steps
constexpr std::size_t max_7bit_line = 998;                // RFC 5322 §2.1.1

enum class cte : std::uint8_t { seven_bit, quoted_printable, base64 };

std::string_view cte_name(cte c) noexcept {
    switch (c) {
        case cte::seven_bit:
            return "7bit";
        case cte::quoted_printable:
            return "quoted-printable";
        case cte::base64:
            return "base64";
    }
    return "7bit";
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::string random_chars(std::size_t n) {
    static constexpr char alphabet[] =
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    std::random_device rd;
    std::string s;
    s.reserve(n);
    while (s.size() < n) {
        std::uint32_t v = rd();
        for (int i = 0; i < 5 && s.size() < n; ++i, v /= 62) s += alphabet[v % 62];
    }
    return s;
}

/// A boundary with `=_`, which base64 and quoted-printable output never contain.
std::string make_boundary() {
    return "----=_mhtml_" + random_chars(24);
}

/// RFC 2046 §5.1.1 bchars, at most 70, not ending in a space; with "=_".
bool usable_boundary(std::string_view b) {
    if (b.empty() || b.size() > 70 || b.back() == ' ' || b.find("=_") == std::string_view::npos)
        return false;
    for (char c : b) {
        if (ascii::is_alpha(c) || (c >= '0' && c <= '9')) continue;
        if (std::string_view("'()+_,-./:=? ").find(c) == std::string_view::npos) return false;
    }
    return true;
}

/// `s` with each run of C0 controls and DEL made one space, white space collapsed and trimmed.
std::string without_controls(std::string_view s) {
    std::string out;
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        const bool space = c <= 0x20 || c == 0x7f;
        if (space) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += ch;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

/// RFC 5322 §3.3 date-time in UTC.
std::string format_date(std::chrono::system_clock::time_point tp) {
    static constexpr std::array<const char*, 7> days = {"Sun", "Mon", "Tue", "Wed",
                                                        "Thu", "Fri", "Sat"};
    static constexpr std::array<const char*, 12> months = {
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const std::time_t t = std::chrono::system_clock::to_time_t(tp);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d +0000",
                  days[static_cast<std::size_t>(tm.tm_wday) % 7], tm.tm_mday,
                  months[static_cast<std::size_t>(tm.tm_mon) % 12], tm.tm_year + 1900, tm.tm_hour,
                  tm.tm_min, tm.tm_sec);
    return buf;
}

/// A parameter value in quotes (RFC 2045 §5.1 quoted-string; `"` and `\` escaped).
std::string param_quoted(std::string_view v) {
    std::string s = "\"";
    for (char c : v) {
        if (c == '"' || c == '\\') s += '\\';
        s += c;
    }
    s += '"';
    return s;
}

/// The scheme of an absolute URI as written, or empty (RFC 3986 §3.1).
std::string_view scheme_as_written(std::string_view uri) {
    const auto colon = uri.find(':');
    if (colon == std::string_view::npos || colon == 0) return {};
    if (!ascii::is_alpha(uri[0])) return {};
    for (std::size_t i = 1; i < colon; ++i) {
        const char c = uri[i];
        if (!ascii::is_alpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.')
            return {};
    }
    return uri.substr(0, colon);
}

/// The lower-cased scheme of an absolute URI, or empty.
std::string scheme_of(std::string_view uri) {
    return ascii::lowered(scheme_as_written(uri));
}

bool parse_ipv4(std::string_view h, std::array<unsigned, 4>& o) {
    std::size_t k = 0;
    unsigned v = 0;
    int digits = 0;
    for (char c : h) {
        if (c == '.') {
            if (digits == 0 || k == 3) return false;
            o[k++] = v;
            v = 0;
            digits = 0;
        } else if (c >= '0' && c <= '9') {
            v = v * 10 + static_cast<unsigned>(c - '0');
            if (++digits > 3 || v > 255) return false;
        } else {
            return false;
        }
    }
    if (digits == 0 || k != 3) return false;
    o[3] = v;
    return true;
}

/// Why a label may reveal internal information (MHT-12.2, MHT-12.6), or empty. (Called for
/// every part: nothing is copied unless there is something to say.)
std::string privacy_issue(std::string_view label) {
    const std::string_view scheme = scheme_as_written(label);
    if (scheme.empty()) return {};
    if (ascii::iequals(scheme, "file"))
        return "a file: URL (it may reveal local paths and user names)";
    const auto slashes = label.find("//", scheme.size() + 1);
    if (slashes != scheme.size() + 1) return {};
    std::string_view auth = label.substr(slashes + 2);
    auth = auth.substr(0, ascii::find_first_of(auth, "/?#"));
    if (const auto at = auth.rfind('@'); at != std::string_view::npos) auth.remove_prefix(at + 1);
    if (!auth.empty() && auth.front() == '[') {
        const std::string host = ascii::lowered(auth.substr(1, auth.find(']') - 1));
        if (host == "::1" || host == "0:0:0:0:0:0:0:1" || host.starts_with("fc") ||
            host.starts_with("fd"))
            return "a private-network host (" + host + ")";
        return {};
    }
    std::string_view name = auth.substr(0, auth.find(':'));
    while (!name.empty() && name.back() == '.') name.remove_suffix(1);
    if (ascii::iequals(name, "localhost") || ascii::iends_with(name, ".localhost") ||
        ascii::iends_with(name, ".local"))
        return "a private-network host (" + ascii::lowered(name) + ")";
    std::array<unsigned, 4> ip{};
    if (parse_ipv4(name, ip)) {
        if (ip[0] == 127 || ip[0] == 10 || (ip[0] == 172 && ip[1] >= 16 && ip[1] <= 31) ||
            (ip[0] == 192 && ip[1] == 168))
            return "a private-network address (" + std::string(name) + ")";
    }
    return {};
}

/// Content-MD5 (RFC 1864), the code check and the external-body reader share.
using md5 = mime::md5_digest;

/// Fields the writer writes itself: a resource cannot carry them over.
bool writer_owned_field(std::string_view name) {
    static constexpr std::array<std::string_view, 8> owned = {
        "content-type", "content-transfer-encoding", "content-location", "content-id",
        "content-base", "content-encoding",          "content-length",   "mime-version"};
    for (auto o : owned)
        if (ascii::iequals(name, o)) return true;
    return false;
}

bool is_utf16_or_32(std::string_view charset) {
    const std::string c = ascii::lowered(charset);
    return c.starts_with("utf-16") || c.starts_with("utf-32") || c.starts_with("ucs-2") ||
           c.starts_with("ucs-4") || c == "utf16" || c == "utf32";
}

/// A UTF-16/32 byte order mark: its charset, or empty.
std::string_view bom_charset(std::string_view s) {
    if (s.starts_with(std::string_view("\xFF\xFE\0\0", 4))) return "UTF-32LE";
    if (s.starts_with(std::string_view("\0\0\xFE\xFF", 4))) return "UTF-32BE";
    if (s.starts_with("\xFF\xFE")) return "UTF-16LE";
    if (s.starts_with("\xFE\xFF")) return "UTF-16BE";
    return {};
}

bool all_ascii(std::string_view s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
}

/// Whether `s` has a line end that is not CRLF.
bool has_bare_line_end(std::string_view s) {
    // Two memchr passes (one call per line): find_first_of("\r\n") costs a call per octet.
    const char* const b = s.data();
    const char* const e = b + s.size();
    for (const char* p = b; (p = static_cast<const char*>(std::memchr(p, '\n', e - p))); ++p)
        if (p == b || p[-1] != '\r') return true;  // LF without CR before it
    for (const char* p = b; (p = static_cast<const char*>(std::memchr(p, '\r', e - p))); ++p)
        if (p + 1 == e || p[1] != '\n') return true;  // CR without LF after it
    return false;
}

/// RFC 2045 §2.7 line form: CRLF for every LF, CR and CRLF of `s`.
void to_crlf(std::string_view s, std::string& out) {
    out.clear();
    out.reserve(s.size() + s.size() / 32 + 2);
    // Runs between line ends are copied whole (memchr finds the ends): text has few of them.
    const char* p = s.data();
    const char* const e = p + s.size();
    auto next = [e](const char* from, char c) {
        const void* f = std::memchr(from, c, static_cast<std::size_t>(e - from));
        return f ? static_cast<const char*>(f) : e;
    };
    const char* cr = next(p, '\r');
    while (p < e) {
        if (cr < p) cr = next(p, '\r');
        const char* stop = std::min(next(p, '\n'), cr);
        out.append(p, stop);
        if (stop == e) break;
        out += "\r\n";
        p = stop + ((*stop == '\r' && stop + 1 < e && stop[1] == '\n') ? 2 : 1);
    }
}

/// Whether a charset parameter is a charset name: a token (RFC 2045 5.1). Anything else (a
/// damaged header's NUL or 8-bit octets) names no charset and is treated as none given.
bool charset_token(std::string_view v) {
    return !v.empty() && v.size() <= 64 && std::all_of(v.begin(), v.end(), [](char c) {
        return c > 0x20 && c < 0x7f && !std::strchr("()<>@,;:\\\"/[]?=", c);
    });
}

/// Whether no quoted-printable body in the encoder's form (mime::canonical_qp) can hold a
/// delimiter line of `boundary`: it has an '=' that no escape or soft break begins with.
bool qp_cannot_hold(std::string_view boundary) {
    const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
    for (std::size_t i = boundary.find('='); i != std::string_view::npos;
         i = boundary.find('=', i + 1)) {
        if (i + 1 < boundary.size() && !hex(boundary[i + 1]) && boundary[i + 1] != '\r')
            return true;
        if (i + 2 < boundary.size() && hex(boundary[i + 1]) && !hex(boundary[i + 2])) return true;
    }
    return false;
}

/// `--boundary` at the start of a line of `body`.
bool has_delimiter(std::string_view body, std::string_view boundary) {
    std::string dash = "--";
    dash += boundary;
    for (std::size_t i = body.find(dash); i != std::string_view::npos; i = body.find(dash, i + 1)) {
        if (i == 0 || body[i - 1] == '\n' || body[i - 1] == '\r') return true;
    }
    return false;
}

struct text_stats {
    std::size_t high = 0;      // octets >= 0x80
    std::size_t nul = 0;       // NUL octets
    std::size_t escapes = 0;   // octets quoted-printable writes as =XX
    std::size_t max_line = 0;  // longest line without its CRLF
};

text_stats measure(std::string_view s) {
    text_stats t;
    // Line by line (memchr finds the ends), each line counted without branches.
    const char* p = s.data();
    const char* const e = p + s.size();
    std::size_t high = 0, nul = 0, escapes = 0;
    while (p < e) {
        const void* f = std::memchr(p, '\n', static_cast<std::size_t>(e - p));
        const char* const nl = f ? static_cast<const char*>(f) : e;
        const auto len = static_cast<std::size_t>(nl - p);
        // A line's length without its CRLF (the text is canonical by now).
        t.max_line = std::max(t.max_line, nl < e ? (len > 0 ? len - 1 : 0) : len);
        // 32-bit counters (blocks of at most 1 MiB) vectorize twice as wide as size_t ones.
        for (const char* b = p; b < nl;) {
            const char* const be = nl - b > (1 << 20) ? b + (1 << 20) : nl;
            std::uint32_t h = 0, z = 0, x = 0;
            for (const char* q = b; q < be; ++q) {
                const unsigned c = static_cast<unsigned char>(*q);
                h += c >= 0x80;
                z += c == 0;
                x += (c >= 0x7f) | (c == '=') | ((c < 32) & (c != '\t') & (c != '\r'));
            }
            high += h;
            nul += z;
            escapes += x;
            b = be;
        }
        p = nl < e ? nl + 1 : e;
    }
    t.high = high;
    t.nul = nul;
    t.escapes = escapes;
    return t;
}

/// Splits `Name <addr>` and encodes the name with RFC 2047 when it is not ASCII.
std::string mail_address(std::string_view a) {
    std::string out;
    std::size_t start = 0;
    while (start <= a.size()) {
        std::size_t comma = a.find(',', start);
        // A comma inside a quoted display name does not separate addresses.
        if (comma != std::string_view::npos) {
            const auto q = std::count(a.begin() + static_cast<std::ptrdiff_t>(start),
                                      a.begin() + static_cast<std::ptrdiff_t>(comma), '"');
            if (q % 2 == 1) {
                const auto close = a.find('"', comma);
                comma =
                    close == std::string_view::npos ? std::string_view::npos : a.find(',', close);
            }
        }
        std::string_view one =
            trim(a.substr(start, comma == std::string_view::npos ? a.npos : comma - start));
        if (!out.empty()) out += ", ";
        const auto lt = one.rfind('<');
        if (lt != std::string_view::npos && lt > 0 && !all_ascii(one.substr(0, lt))) {
            std::string_view name = trim(one.substr(0, lt));
            if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
                name = name.substr(1, name.size() - 2);
            out += mime::encode_words(name, "UTF-8", mime::rfc2047_encoding::shortest, 6);
            out += ' ';
            out += one.substr(lt);
        } else {
            out += one;
        }
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

/// An unstructured field value (Subject): as it is when ASCII, else RFC 2047 words.
std::string unstructured(std::string_view name, std::string_view utf8) {
    const bool looks_encoded = utf8.find("=?") != std::string_view::npos;
    if (all_ascii(utf8) && !looks_encoded) return std::string(utf8);
    return mime::encode_words(utf8, "UTF-8", mime::rfc2047_encoding::shortest, name.size() + 2);
}

}  // namespace

std::string detail::chosen_charset(std::string_view body, bool is_html) {
    if (body.starts_with("\xEF\xBB\xBF")) return "UTF-8";
    if (is_html) {
        const html::detected_charset d = html::detect_charset({}, body);
        if (d.source == html::charset_source::meta) return d.name;
    }
    if (all_ascii(body)) return is_html ? "UTF-8" : "us-ascii";
    if (utf8::valid(body)) return "UTF-8";
    return {};
}

// ---------------------------------------------------------------------------------------------

/// One resource made ready to write: its canonical content (in `owned`, or a view of the
/// resource's data), or a file to stream.
struct prepared {
    std::size_t index = 0;
    const resource* res = nullptr;
    std::string owned;
    std::string_view view;
    bool in_owned = false;
    int fd = -1;  // a binary file streamed as it is
    std::uint64_t size = 0;
    std::uint64_t source_size = 0;  // octets of the resource as given (data or file)
    std::string content_type;       // as written
    std::string charset;            // text: the charset written
    bool text = false;
    bool converted = false;  // the octets differ from the resource's
    cte encoding = cte::base64;
    std::string md5;  // the Content-MD5 to write, if any
    std::vector<std::pair<std::string, std::string>> fields;
    std::string label, content_id;
    bool external = false;
    std::string external_url;
    std::string_view encoded;  // base64 or quoted-printable to copy as it is
                               // (resource::base64_body, qp_body)

    [[nodiscard]] std::string_view body() const noexcept {
        return in_owned ? std::string_view(owned) : view;
    }
    void set_owned() {
        view = {};
        in_owned = true;
    }
    void close_file() {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
    void reset() {
        close_file();
        owned.clear();
        view = {};
        in_owned = false;
        size = source_size = 0;
        content_type.clear();
        charset.clear();
        text = converted = external = false;
        encoded = {};
        encoding = cte::base64;
        md5.clear();
        fields.clear();
        label.clear();
        content_id.clear();
        external_url.clear();
        res = nullptr;
    }
    ~prepared() { close_file(); }
};

/// A resource's file, opened: either read whole (`whole`) or left open for the writer to
/// read as it goes. `error` says why it cannot be read ("" when it can).
struct file_data {
    int fd = -1;
    std::string bytes;
    bool whole = false;
    std::uint64_t size = 0;
    std::string error;

    file_data() = default;
    file_data(file_data&& o) noexcept
        : fd(std::exchange(o.fd, -1)),
          bytes(std::move(o.bytes)),
          whole(o.whole),
          size(o.size),
          error(std::move(o.error)) {}
    file_data& operator=(file_data&& o) noexcept {
        if (this != &o) {
            close();
            fd = std::exchange(o.fd, -1);
            bytes = std::move(o.bytes);
            whole = o.whole;
            size = o.size;
            error = std::move(o.error);
        }
        return *this;
    }
    ~file_data() { close(); }
    /// Opened without error (an open descriptor or the whole content).
    [[nodiscard]] bool fd_or_bytes() const noexcept { return error.empty() && (fd >= 0 || whole); }
    void close() noexcept {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }

    /// Reads the rest of an open file into `bytes` (all `size` octets); false with `error`.
    bool read_whole() {
        if (whole) return error.empty();
        bytes.resize(size);
        std::size_t got = 0;
        int err = 0;
        while (got < bytes.size()) {
            const ssize_t n =
                ::pread(fd, bytes.data() + got, std::min(bytes.size() - got, read_chunk),
                        static_cast<off_t>(got));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                err = n < 0 ? errno : 0;
                break;
            }
            got += static_cast<std::size_t>(n);
        }
        close();
        whole = true;
        if (got != bytes.size()) {
            error = err != 0 ? std::generic_category().message(err)
                             : "the file shrank while it was read";
            bytes.clear();
            return false;
        }
        return true;
    }
};

/// Opens `path` (a regular file) and reads it whole if it has at most `whole_up_to` octets.
file_data load_file(const std::filesystem::path& path, std::uint64_t whole_up_to) {
    file_data f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (f.fd < 0 || ::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        f.error = f.fd < 0 ? std::generic_category().message(errno) : "not a regular file";
        f.close();
        return f;
    }
    f.size = static_cast<std::uint64_t>(st.st_size);
    if (f.size <= whole_up_to) f.read_whole();
    return f;
}

/// Opens and reads the files of the resources that the next add() calls will get, on a
/// second thread, while the writer encodes and writes the ones before (writer::expect). At
/// most `window_files` files and about `window_bytes` octets are held ahead; files over
/// `small` octets are only opened (the writer streams them).
class read_ahead {
public:
    static constexpr std::size_t window_files = 64;
    static constexpr std::uint64_t window_bytes = std::uint64_t{16} << 20;
    static constexpr std::uint64_t small = std::uint64_t{128} << 10;

    /// Starts the thread; throws std::system_error if it cannot.
    explicit read_ahead(std::span<const resource> upcoming) : upcoming_(upcoming) {
        thread_ = std::thread([this] { run(); });
    }
    read_ahead(const read_ahead&) = delete;
    read_ahead& operator=(const read_ahead&) = delete;
    ~read_ahead() {
        {
            std::unique_lock lock(m_);
            quit_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    /// Called for every resource given to add(), in order. If `r` is the next expected one,
    /// its turn is taken, and for a file read without trouble `out` receives it (true).
    /// False otherwise: an in-memory resource, a file the thread could not read (the caller
    /// reads it itself, as without reading ahead, and reports what it finds), or a thread
    /// that stopped.
    bool take(const resource& r, file_data& out) {
        std::unique_lock lock(m_);
        if (consumed_ >= upcoming_.size() || &r != &upcoming_[consumed_]) return false;
        cv_.wait(lock, [&] { return !ready_.empty() || stopped_; });
        ++consumed_;
        if (ready_.empty()) return false;  // the thread stopped (out of memory)
        file_data f = std::move(ready_.front());
        ready_.pop_front();
        held_ -= f.bytes.size();
        lock.unlock();
        cv_.notify_all();
        if (r.in_memory || !f.error.empty()) return false;
        out = std::move(f);
        return true;
    }

    /// True when `r` is an expected resource that was not given in turn.
    [[nodiscard]] bool out_of_order(const resource& r) const noexcept {
        return consumed_ < upcoming_.size() && &r != &upcoming_[consumed_];
    }

private:
    void run() {
        for (std::size_t i = 0; i < upcoming_.size(); ++i) {
            {
                std::unique_lock lock(m_);
                cv_.wait(lock, [&] {
                    return quit_ || (ready_.size() < window_files && held_ < window_bytes);
                });
                if (quit_) return;
            }
            const resource& r = upcoming_[i];
            try {
                file_data f = r.in_memory ? file_data{} : load_file(r.file, small);
                std::unique_lock lock(m_);
                held_ += f.bytes.size();
                ready_.push_back(std::move(f));
            } catch (const std::exception&) {  // std::bad_alloc: the writer reads from here on
                break;
            }
            cv_.notify_all();
        }
        {
            std::unique_lock lock(m_);
            stopped_ = true;
        }
        cv_.notify_all();
    }

    std::span<const resource> upcoming_;
    std::deque<file_data> ready_;
    std::size_t consumed_ = 0;
    std::uint64_t held_ = 0;
    std::mutex m_;
    std::condition_variable cv_;
    bool quit_ = false, stopped_ = false;
    std::thread thread_;  // last: started by the constructor, joined by the destructor
};

/// An output buffer of out_capacity octets, not zero-filled: its pages are touched only as
/// they are written (a small archive never faults in 4 MiB).
struct out_buffer {
    std::unique_ptr<char[]> p;
    [[nodiscard]] char* data() const noexcept { return p.get(); }
    [[nodiscard]] static constexpr std::size_t size() noexcept { return out_capacity; }
    void allocate() {
        if (!p) p.reset(new char[out_capacity]);  // default-initialized: no memset
    }
};

/// Writes full output buffers, and borrowed octets (submit_view), to a sink from a second
/// thread, in the order they are handed over, so that the system calls overlap the reading
/// and encoding that follow. Up to `max_buffers` buffers and `max_items` hand-overs wait in
/// the queue; submit() waits only when they are all taken. A failed write is reported by the
/// next submit() or by drain(); what was queued after it is not written.
class write_behind {
public:
    explicit write_behind(sink& out) : out_(out) {}
    write_behind(const write_behind&) = delete;
    write_behind& operator=(const write_behind&) = delete;
    /// Waits for the write in progress; what is still queued is dropped (a writer destroyed
    /// before finish() abandons its output, and borrowed octets may be gone).
    ~write_behind() {
        {
            std::unique_lock lock(m_);
            quit_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    enum class handed { yes, failed, no_thread };

    /// Takes the first `n` octets of `buf` to write, leaving an unused buffer of the same
    /// capacity in `buf`. `failed` if a write failed; `no_thread` if the thread could not be
    /// started (then nothing was taken and the caller writes on its own thread from now on).
    handed submit(out_buffer& buf, std::size_t n) {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return failed_ || (buffers_queued_ < max_buffers && room()); });
        if (failed_) return handed::failed;
        if (!thread_.joinable()) {
            try {
                for (std::size_t i = 0; i < max_buffers; ++i) {  // at the first hand-over
                    free_.emplace_back();
                    free_.back().allocate();
                }
                thread_ = std::thread([this] { run(); });
            } catch (const std::exception&) {  // std::system_error, std::bad_alloc
                free_.clear();
                return handed::no_thread;
            }
        }
        queue_.emplace_back();  // first: if it throws, `buf` still has its buffer
        item& it = queue_.back();
        it.buffer = std::move(buf.p);
        it.octets = std::string_view(it.buffer.get(), n);
        ++buffers_queued_;
        buf.p = std::move(free_.back().p);
        free_.pop_back();
        lock.unlock();
        cv_.notify_all();
        return handed::yes;
    }

    /// Takes `v` to write as it is (octets that outlive the writing, e.g. an input's mapped
    /// body): no copy into a buffer. As submit().
    handed submit_view(std::string_view v) {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return failed_ || room(); });
        if (failed_) return handed::failed;
        if (!thread_.joinable()) return handed::no_thread;  // only after a buffer started it
        queue_.push_back({nullptr, v});
        lock.unlock();
        cv_.notify_all();
        return handed::yes;
    }

    /// Waits until everything queued is written (or dropped after a failure); false if a
    /// write failed.
    bool drain() {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return queue_.empty() && !writing_; });
        return !failed_;
    }

    /// Octets the sink has accepted (after drain() or a failed submit(): all of them).
    [[nodiscard]] std::uint64_t written() {
        std::unique_lock lock(m_);
        return written_;
    }

private:
    static constexpr std::size_t max_buffers = 2;  // queued; one more is the writer's own
    static constexpr std::size_t max_items = 64;
    struct item {
        std::unique_ptr<char[]> buffer;  // a submitted buffer, or null for a view
        std::string_view octets;
    };
    [[nodiscard]] bool room() const noexcept { return queue_.size() < max_items; }

    // Under the lock: a written or dropped item's buffer goes back to the free ones.
    void recycle(item& it) {
        if (!it.buffer) return;
        free_.emplace_back();
        free_.back().p = std::move(it.buffer);
        --buffers_queued_;
    }

    void run() {
        std::unique_lock lock(m_);
        for (;;) {
            cv_.wait(lock, [&] { return !queue_.empty() || quit_; });
            if (quit_ || failed_) {
                // Dropped: after a failure nothing more reaches the sink, and at quit the
                // borrowed octets may be gone.
                while (!queue_.empty()) {
                    recycle(queue_.front());
                    queue_.pop_front();
                }
                cv_.notify_all();
                if (quit_) return;
                continue;
            }
            item it = std::move(queue_.front());
            queue_.pop_front();
            writing_ = true;
            lock.unlock();
            bool ok = false;
            try {  // a sink that throws fails the writing, as on the writer's thread
                ok = out_.write(it.octets);
            } catch (...) {
                ok = false;
            }
            lock.lock();
            writing_ = false;
            if (ok) {
                written_ += it.octets.size();
            } else {
                failed_ = true;
            }
            recycle(it);
            cv_.notify_all();
        }
    }

    sink& out_;
    std::deque<item> queue_;
    std::vector<out_buffer> free_;
    std::size_t buffers_queued_ = 0;
    std::mutex m_;
    std::condition_variable cv_;
    std::uint64_t written_ = 0;
    bool writing_ = false, quit_ = false, failed_ = false;
    std::thread thread_;  // last: started lazily, joined by the destructor
};

struct writer::state {
    sink& out;
    writer_options opt;
    out_buffer buf;
    std::size_t used = 0;
    std::uint64_t flushed = 0;
    bool failed = false;
    bool started = false;
    bool finished = false;
    std::string boundary;
    write_report report;
    std::size_t next_index = 0;
    std::size_t part_no = 0;  // parts of the outer multipart/related written
    std::size_t others = 0;   // non-root parts written
    std::unique_ptr<prepared> held_root;
    resource held_root_res;  // the held root's resource (its label, file name)
    std::string root_charset;
    // The labels and Content-IDs written: those of report.parts, by index.
    mhtml::detail::string_index labels, ids;
    prepared work;  // reused for each resource
    // The types of the last resources, parsed (an archive has a few, image/png, text/css, in
    // turn): the least recently parsed of them makes room for a new one.
    std::array<std::pair<std::string, mime::content_type>, 8> types;
    std::size_t types_used = 0, types_next = 0;
    const mime::content_type& type_of(std::string_view text) {
        for (std::size_t k = 0; k < types_used; ++k)
            if (types[k].first == text) return types[k].second;
        mime::value_issues issues;
        mime::content_type parsed = parse_content_type(text, issues);
        std::string key(text);
        // Replaced only once both are made (nothing below throws).
        auto& slot = types[types_next];
        slot.first = std::move(key);
        slot.second = std::move(parsed);
        types_next = (types_next + 1) % types.size();
        types_used = std::max(types_used, types_next == 0 ? types.size() : types_next);
        return slot.second;
    }
    std::string scratch;   // decoding and conversions
    std::string id_field;  // a Content-ID field's value, reused
    std::vector<char> rbuf;
    std::unique_ptr<write_behind> behind;  // when the sink and options allow it
    std::unique_ptr<read_ahead> ahead;     // after expect()

    state(sink& s, writer_options o) : out(s), opt(std::move(o)) {
        // Every Content-ID written is then writable (take_id, make_content_id), and written
        // without a check of its own.
        if (!detail::writable_id(opt.content_id_domain)) {
            report.diagnostics.push_back(diagnostic{
                severity::warning, diag_code::field_value_invalid, "", 0,
                "content_id_domain cannot be written in a Content-ID or Message-ID (white "
                "space, a control character, brackets, quotes or 8-bit octets): mhtml.invalid "
                "is used"});
            opt.content_id_domain = "mhtml.invalid";
        }
        buf.allocate();
        if (opt.write_behind && out.writes_from_any_thread() &&
            std::thread::hardware_concurrency() > 1)
            behind = std::make_unique<write_behind>(out);
    }

    [[nodiscard]] std::uint64_t position() const noexcept { return flushed + used; }

    void diag(severity sev, diag_code code, std::string path, std::string message) {
        report.diagnostics.push_back(
            diagnostic{sev, code, std::move(path), position(), std::move(message)});
    }

    bool flush() {
        if (failed) return false;
        if (used == 0) return true;
        if (behind) {
            switch (behind->submit(buf, used)) {
                case write_behind::handed::yes:
                    flushed += used;
                    used = 0;
                    return true;
                case write_behind::handed::failed:
                    return sink_failed(behind->written());
                case write_behind::handed::no_thread:
                    behind.reset();  // on this thread from now on
                    break;
            }
        }
        if (!out.write(std::string_view(buf.data(), used))) return sink_failed(flushed);
        flushed += used;
        used = 0;
        return true;
    }

    /// Flushes and waits for the octets written behind; false if the sink failed. The last
    /// buffer is written on this thread (a small archive never starts the writing thread).
    bool flush_all() {
        if (failed) return false;
        if (behind) {
            if (!behind->drain()) return sink_failed(behind->written());
            behind.reset();
        }
        return flush();
    }

    /// The sink failed: `confirmed` octets reached it. The report says so: `bytes` is that
    /// count, the error's offset is where the failed write began, and a part whose octets did
    /// not all reach the sink is not `written` (the same whether or not it wrote behind).
    bool sink_failed(std::uint64_t confirmed) {
        failed = true;
        ahead.reset();
        std::string why = out.error();
        report.error = diagnostic{severity::error, diag_code::sink_write_failed, "", confirmed,
                                  "the sink failed" + (why.empty() ? "" : ": " + why)};
        const std::uint64_t end = position();
        for (std::size_t i = 0; i < report.parts.size(); ++i) {
            const std::uint64_t part_end =
                i + 1 < report.parts.size() ? report.parts[i + 1].offset : end;
            if (part_end > confirmed) report.parts[i].written = false;
        }
        flushed = confirmed;
        used = 0;
        return false;
    }

    /// Room for `n` octets in the buffer (n <= out_capacity), flushing first if needed.
    char* reserve(std::size_t n) {
        if (buf.size() - used < n) flush();
        return buf.data() + used;
    }

    /// Writes `v` (octets that outlive the writer's use of them) without copying it into the
    /// buffer when it is large and written behind; else as put().
    void put_view(std::string_view v) {
        if (v.size() < (1u << 18) || !behind || failed) return put(v);
        if (!flush()) return;
        if (!behind) return put(v);  // flush() found no thread: on this one
        switch (behind->submit_view(v)) {
            case write_behind::handed::yes:
                flushed += v.size();
                return;
            case write_behind::handed::failed:
                sink_failed(behind->written());
                return;
            case write_behind::handed::no_thread:
                return put(v);
        }
    }

    void put(std::string_view s) {
        while (!s.empty() && !failed) {
            if (used == buf.size()) flush();
            const std::size_t n = std::min(s.size(), buf.size() - used);
            std::memcpy(buf.data() + used, s.data(), n);
            used += n;
            s.remove_prefix(n);
        }
    }

    /// Writes `name: value` folded, after check_field; a refused field is left out.
    bool field(std::string_view name, std::string_view value, const std::string& path) {
        if (auto refused = mime::check_field(name, value)) {
            refused->part_path = path;
            refused->message = "field " + std::string(name) + " not written: " + refused->message;
            refused->offset = position();
            report.diagnostics.push_back(std::move(*refused));
            return false;
        }
        put_field(name, value);
        return true;
    }
    /// Writes `name: value` folded, for a value check_field accepts (the caller knows it
    /// does: a token of its own, a bare URI, a writable Content-ID).
    void put_field(std::string_view name, std::string_view value) {
        // A field that fits on its line and has no line end is written as it is (what
        // fold_field would make of it), without a string of its own. (check_field refuses a
        // CR without its LF, so a value without LF has no line end.)
        if (name.size() + 2 + value.size() <= fold_width &&
            value.find('\n') == std::string_view::npos) {
            if (buf.size() - used >= name.size() + value.size() + 4 && !failed) {
                // The usual case: the line fits in the buffer, copied at once.
                char* o = buf.data() + used;
                std::memcpy(o, name.data(), name.size());
                o += name.size();
                *o++ = ':';
                *o++ = ' ';
                std::memcpy(o, value.data(), value.size());
                o += value.size();
                *o++ = '\r';
                *o++ = '\n';
                used = static_cast<std::size_t>(o - buf.data());
                return;
            }
            put(name);
            put(": ");
            put(value);
            put("\r\n");
        } else {
            put(mime::fold_field(name, value, fold_width));
        }
    }
    static constexpr std::size_t fold_width = 78;

    /// The resource's Content-ID, or a generated one (with `field_dropped`) when it cannot be
    /// written: `start` and the part's Content-ID must agree.
    std::string take_id(const resource& r, const std::string& path) {
        if (r.content_id.empty() || detail::writable_id(r.content_id)) return r.content_id;
        diag(severity::warning, diag_code::field_dropped, path,
             "Content-ID <" + r.content_id +
                 "> cannot be written (white space, brackets, quotes or 8-bit octets): a "
                 "generated one replaces it");
        return make_content_id(opt.content_id_domain);
    }
    /// Writes a URI field, `name` (of `used` columns with its ": ") and `u` in the form
    /// uri::write_header_uri chooses; without fold_uris a bare URI may take the whole line of
    /// 998 octets. A URI written bare is copied as it is, without a string of its own.
    void uri_field(std::string_view name, std::string_view u, std::size_t used,
                   const std::string& path) {
        const bool unsafe =
            opt.encode_unsafe_uris && ascii::find_first_of(u, "<>^`{|}") != std::string_view::npos;
        const std::size_t limit = opt.fold_uris ? 78 : 998;
        if (uri::header_uri_is_bare(u, used, unsafe, limit)) {
            put_field(name, u);  // printable US-ASCII without white space
        } else {
            field(name, uri::write_header_uri(u, used, root_charset, unsafe, limit).value, path);
        }
    }
    void top_header(const prepared& root);
    bool prepare(const resource& r, std::size_t index, prepared& p, const std::string& path,
                 bool is_root, file_data* preloaded);
    void prepare_text(prepared& p, const mime::content_type& ct, const std::string& path,
                      bool is_html);
    void emit(prepared& p, const std::string& path, bool is_root);
    void emit_body(prepared& p);
    void emit_external(prepared& p, const std::string& path);
    void write_resource(const resource& r, bool is_root);
    void write_held_root();
};

// ---------------------------------------------------------------------------------------------

bool writer::state::prepare(const resource& r, std::size_t index, prepared& p,
                            const std::string& path, bool is_root, file_data* preloaded) {
    p.reset();
    p.index = index;
    p.res = &r;
    // The resource by its number, in a diagnostic of one left out.
    const auto where = [index] { return "#" + std::to_string(index); };
    const mime::content_type& ct = type_of(
        r.content_type.empty() ? std::string_view("application/octet-stream") : r.content_type);
    p.text = ct.type == "text";
    const bool coded =
        !r.content_encoding.empty() && !ascii::iequals(r.content_encoding, "identity");

    // The octets: the resource's data, the whole file (text or compressed), or a file to stream.
    if (r.in_memory && !r.base64_body.empty()) {
        // Already base64: copied when it is the encoder's own form and nothing needs the
        // octets themselves; else decoded here.
        const bool copy = !p.text && ct.type != "message" && !coded && !is_root &&
                          !opt.content_md5 && opt.external_over == 0;
        const auto form = [&r] {
            return r.checked.done ? r.checked.size : mime::canonical_base64_size(r.base64_body);
        };
        if (const auto n = copy ? form() : std::nullopt) {
            p.encoded = r.base64_body;
            p.size = p.source_size = *n;
        } else {
            (void)mime::base64_decode(r.base64_body, p.owned);
            p.set_owned();
            p.source_size = p.owned.size();
        }
    } else if (r.in_memory && !r.qp_body.empty()) {
        // Already quoted-printable: copied as it is when it is the encoder's own form and the
        // writer needs no more than its charset from the octets (UTF-16 and UTF-32, by their
        // name or their BOM, are transcoded; in that form the first octets are the first
        // characters, as no line starts with a soft break); else decoded here.
        const auto declared = ct.param("charset");
        const bool named = declared && charset_token(*declared);
        const std::string_view q = r.qp_body;
        const bool wide = (named && is_utf16_or_32(*declared)) || q.starts_with("=FF") ||
                          q.starts_with("=FE") || q.starts_with("=00");
        std::optional<std::uint64_t> form;
        if (p.text && !coded && !is_root && !opt.content_md5 && opt.external_over == 0 && !wide)
            form = r.checked.done ? r.checked.size : mime::canonical_qp(q);
        if (form && !qp_cannot_hold(boundary) && has_delimiter(q, boundary)) form.reset();
        if (form) {
            p.encoded = q;
            p.size = p.source_size = *form;
        }
        if (!form || !named) {
            // The octets to write, or to choose the charset from (prepare_text).
            (void)mime::qp_decode(q, p.owned);
            p.set_owned();
            if (!form) p.source_size = p.owned.size();
        }
    } else if (r.in_memory) {
        p.view = r.data;
        p.source_size = r.data.size();
    } else {
        // Read ahead by the second thread (expect()), or here.
        const bool whole = p.text || coded;
        file_data f;
        if (!preloaded || !preloaded->fd_or_bytes())
            f = load_file(r.file, whole ? std::numeric_limits<std::uint64_t>::max() : 0);
        else
            f = std::move(*preloaded);
        if (f.error.empty() && whole) f.read_whole();
        if (!f.error.empty()) {
            diag(severity::error, diag_code::resource_unreadable, where(),
                 "cannot read " + r.file.string() + ": " + f.error + "; the resource is left out");
            return false;
        }
        p.size = p.source_size = f.size;
        if (f.whole) {
            p.owned = std::move(f.bytes);
            p.set_owned();
        } else {
            p.fd = std::exchange(f.fd, -1);  // streamed by emit_body
        }
    }

    // MHT-11.6: HTTP Content-Encoding is not MIME; undo it.
    if (coded) {
        const auto st =
            detail::decode_content(r.content_encoding, p.body(), scratch, opt.max_decoded_size);
        if (st != detail::decode_status::ok) {
            const bool limit = st == detail::decode_status::limit;
            diag(severity::error,
                 limit ? diag_code::decompression_limit : diag_code::content_encoding_invalid,
                 where(),
                 limit ? "Content-Encoding " + r.content_encoding + " decodes to more than " +
                             std::to_string(opt.max_decoded_size) +
                             " octets; the resource is left out"
                 : st == detail::decode_status::unknown_coding
                     ? "unknown Content-Encoding " + r.content_encoding +
                           "; the resource is left out"
                     : "Content-Encoding " + r.content_encoding +
                           " does not decode; the resource is left out");
            return false;
        }
        p.owned.swap(scratch);
        p.set_owned();
        p.converted = true;
        diag(severity::note, diag_code::content_encoding_decoded, path,
             "Content-Encoding " + r.content_encoding + " undone (MHT-11.6)");
    }
    if (p.fd < 0 && p.encoded.empty()) p.size = p.body().size();

    p.label = r.label;
    p.content_id = take_id(r, path);
    if (p.content_id.empty() &&
        (opt.method == method::cid || (is_root && opt.root_position > 0 && !opt.mail)))
        p.content_id = make_content_id(opt.content_id_domain);

    // External bodies (RFC 2017): large resources with a retrievable URL.
    if (opt.external_over > 0 && p.size > opt.external_over && !is_root) {
        const std::string scheme = scheme_of(r.label);
        if (scheme == "http" || scheme == "https" || scheme == "ftp") {
            p.external = true;
            p.content_type = r.content_type.empty() ? "application/octet-stream" : r.content_type;
            if (p.content_id.empty()) p.content_id = make_content_id(opt.content_id_domain);
        } else {
            diag(severity::note, diag_code::external_not_url, path,
                 "over " + std::to_string(opt.external_over) +
                     " octets but its label is not an http, https or ftp URL: written inline");
        }
    }

    const bool external_body = ct.type == "message" && ct.subtype == "external-body";
    if (external_body) {
        // A reference to data elsewhere (RFC 2046 §5.2.3), e.g. copied by repair: its
        // parameters as given, and its encapsulated header and phantom body as they are, in
        // 7bit, the only encoding it may have.
        p.external = false;
        if (has_bare_line_end(p.body())) {
            to_crlf(p.body(), scratch);
            p.owned.swap(scratch);
            p.set_owned();
            p.size = p.owned.size();
        }
        const text_stats st = measure(p.body());
        if (st.high != 0 || st.nul != 0 || st.max_line > 998 || has_delimiter(p.body(), boundary)) {
            diag(severity::error, diag_code::resource_unreadable, where(),
                 "a message/external-body must be 7bit (RFC 2046 5.2.3) and this one is not (or "
                 "holds the boundary); the resource is left out");
            return false;
        }
        p.content_type = r.content_type;
        p.encoding = cte::seven_bit;
    } else if (p.text && !p.external) {
        prepare_text(p, ct, path, ct.subtype == "html");
    } else if (!p.external) {
        p.content_type = r.content_type.empty() ? "application/octet-stream" : r.content_type;
        p.encoding = cte::base64;
    } else if (p.text && p.fd < 0 && has_bare_line_end(p.body())) {
        // RFC 1864: the digest is over the canonical form.
        to_crlf(p.body(), scratch);
        p.owned.swap(scratch);
        p.set_owned();
        p.size = p.owned.size();
    }

    // Carried fields; Content-MD5 only when the octets are unchanged (MHT-11.5).
    for (const auto& [name, value] : r.fields) {
        if (writer_owned_field(name)) {
            diag(severity::warning, diag_code::field_dropped, path,
                 "field " + name + " is written by the writer; the carried one is dropped");
            continue;
        }
        if (ascii::iequals(name, "content-md5")) {
            if (p.converted) {
                diag(severity::note, diag_code::content_md5_dropped, path,
                     "Content-MD5 dropped: a conversion changed the octets (MHT-11.5)");
                continue;
            }
            if (opt.content_md5) continue;  // replaced by the one computed below
        }
        p.fields.emplace_back(name, value);
    }
    // Content-MD5 is for a leaf's octets (RFC 1864), not an external body's header block.
    if ((opt.content_md5 && !external_body) || p.external) {
        md5 h;
        if (p.fd >= 0) {
            rbuf.resize(read_chunk);
            std::uint64_t off = 0;
            while (off < p.size) {
                const ssize_t n = ::pread(p.fd, rbuf.data(), rbuf.size(), static_cast<off_t>(off));
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) break;
                h.update(std::string_view(rbuf.data(), static_cast<std::size_t>(n)));
                off += static_cast<std::uint64_t>(n);
            }
            if (off != p.size) {
                diag(severity::error, diag_code::resource_unreadable, where(),
                     "cannot read " + r.file.string() + "; the resource is left out");
                p.close_file();
                return false;
            }
        } else {
            h.update(p.body());
        }
        p.md5 = h.base64();
    }
    return true;
}

void writer::state::prepare_text(prepared& p, const mime::content_type& ct, const std::string& path,
                                 bool is_html) {
    const auto declared = ct.param("charset");
    // A charset name is a token (RFC 2045 5.1); anything else (a damaged header's NUL or
    // 8-bit octets) names no charset and is treated as none given.
    std::string charset =
        declared && charset_token(*declared) ? std::string(*declared) : std::string();
    if (declared && charset.empty())
        diag(severity::warning, diag_code::charset_chosen, path,
             "the declared charset is not a charset name; chosen from the content instead");
    std::string_view body = p.body();

    // MHT-11.7: UTF-16 and UTF-32 cannot carry CRLF as octets; transcode to UTF-8.
    std::string_view wide = bom_charset(body);
    std::string from;
    if (!wide.empty()) {
        from = std::string(wide);
    } else if (!charset.empty() && is_utf16_or_32(charset)) {
        from = charset;
    }
    if (!from.empty()) {
        if (auto u = mime::to_utf8(body, from)) {
            std::string_view v = *u;
            if (v.starts_with("\xEF\xBB\xBF")) v.remove_prefix(3);  // the BOM, now UTF-8
            scratch.assign(v);
            p.owned.swap(scratch);
            p.set_owned();
            p.converted = true;
            charset = "UTF-8";
            body = p.body();
            diag(severity::note, diag_code::text_transcoded, path,
                 "text in " + from + " transcoded to UTF-8 (MHT-11.7)");
        }
    }
    if (charset.empty()) {
        charset = detail::chosen_charset(body, is_html);
        if (charset.empty()) {
            charset = "windows-1252";
            diag(severity::note, diag_code::charset_chosen, path,
                 "no charset given, not UTF-8: labelled windows-1252 (MHT-11.9)");
        }
    }
    p.charset = charset;

    // MHT-11.4, MHT-11.8: CRLF only where it is not already (quoted-printable copied as it is
    // has no other line ends, mime::canonical_qp).
    const bool copied = !p.encoded.empty();
    if (!copied && has_bare_line_end(body)) {
        to_crlf(body, scratch);
        p.owned.swap(scratch);
        p.set_owned();
        p.converted = true;
        diag(severity::note, diag_code::line_ends_converted, path,
             "bare LF or CR line ends converted to CRLF (MHT-11.4)");
        body = p.body();
    }
    if (!copied) p.size = body.size();

    // The Content-Type: type and parameters, the charset replaced, every value quoted.
    std::string t = ct.essence();
    for (const auto& prm : ct.params.items()) {
        if (prm.name == "charset") continue;
        t += "; ";
        t += prm.name;
        t += '=';
        t += param_quoted(prm.value);
    }
    t += "; charset=";
    t += param_quoted(charset);
    p.content_type = std::move(t);

    if (copied) {
        p.encoding = cte::quoted_printable;
        return;
    }
    const text_stats s = measure(body);
    // 7bit only for text of one line: Chromium's MHTML reader joins the lines of a 7bit or
    // 8bit part without their line breaks (tests/browser/pack_test.py saw the white space
    // between images vanish; a `<pre>` or a `//` comment would break), and keeps those of a
    // quoted-printable one. So text of several lines goes quoted-printable, as Chrome
    // writes it.
    const bool one_line = body.find('\n') == std::string_view::npos;
    if (one_line && s.high == 0 && s.nul == 0 && s.max_line <= max_7bit_line) {
        if (has_delimiter(body, boundary)) {
            diag(severity::note, diag_code::boundary_in_body, path,
                 "the body holds the boundary at a line start: written quoted-printable");
            p.encoding = cte::quoted_printable;
        } else {
            p.encoding = cte::seven_bit;
        }
    } else {
        // Quoted-printable triples each escaped octet; base64 costs 4/3 of everything.
        p.encoding = s.escapes * 3 > body.size() ? cte::base64 : cte::quoted_printable;
    }
}

void writer::state::top_header(const prepared& root) {
    if (opt.mail) {
        if (!opt.from.empty()) field("From", mail_address(opt.from), "");
        if (!opt.to.empty()) field("To", mail_address(opt.to), "");
    }
    // Control characters never go into the Subject (they would garble or void the field):
    // each run becomes one space. A given subject with nothing else gives way to the title.
    std::string subject;
    if (opt.subject) subject = without_controls(*opt.subject);
    if (subject.empty() &&
        ascii::iequals(root.content_type.substr(0, root.content_type.find(';')), "text/html")) {
        subject = html_title(root.body().substr(0, std::size_t{1} << 20), root.charset);
        if (subject.size() > 400) subject.resize(400);
        subject = without_controls(utf8::sanitized(subject));
    }
    if (!subject.empty()) field("Subject", unstructured("Subject", subject), "");
    if (opt.date_field.empty() || !field("Date", opt.date_field, ""))
        field("Date", format_date(opt.date.value_or(std::chrono::system_clock::now())), "");
    if (opt.mail) {
        const std::string id =
            opt.message_id.empty() ? make_content_id(opt.content_id_domain) : opt.message_id;
        field("Message-ID", "<" + id + ">", "");
    }
    field("MIME-Version", "1.0", "");
    if (opt.snapshot_content_location && !opt.mail && !root.label.empty() &&
        !scheme_of(root.label).empty()) {
        uri_field("Snapshot-Content-Location", root.label, 27, "");
    }
    std::string ct = "multipart/related;\r\n type=";
    if (opt.mail) {
        ct += param_quoted("multipart/alternative");
    } else {
        ct += param_quoted(root.content_type.substr(0, root.content_type.find(';')));
        if (opt.root_position > 0) ct += "; start=" + param_quoted("<" + root.content_id + ">");
    }
    ct += ";\r\n boundary=" + param_quoted(boundary);
    field("Content-Type", ct, "");
    put("\r\n");
}

void writer::state::emit_body(prepared& p) {
    const std::uint64_t start = position();
    if (!p.encoded.empty()) {
        put_view(p.encoded);
        // Base64 ends with CRLF, as the encoder writes it; quoted-printable ends as its text
        // does (the CRLF before the delimiter is the delimiter's).
        if (p.encoding == cte::base64 && !p.encoded.ends_with("\r\n")) put("\r\n");
        report.parts.back().copied_encoded = true;
    } else if (p.fd >= 0) {
        // A binary file: read in chunks, base64 as it goes.
        mime::base64_encoder enc(76);
        rbuf.resize(read_chunk);
        std::uint64_t off = 0;
        while (off < p.size && !failed) {
            const ssize_t n = ::pread(p.fd, rbuf.data(), rbuf.size(), static_cast<off_t>(off));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                // The file shrank or failed after its header was written: the part keeps
                // what was read (still valid base64), and says so.
                diag(severity::error, diag_code::resource_unreadable, "#" + std::to_string(p.index),
                     "reading " + p.res->file.string() + " failed after " + std::to_string(off) +
                         " octets; the part is truncated");
                break;
            }
            const std::string_view chunk(rbuf.data(), static_cast<std::size_t>(n));
            char* o = reserve(mime::base64_encoder::max_output(chunk.size()));
            used += enc.step(chunk, o);
            off += static_cast<std::uint64_t>(n);
        }
        char* o = reserve(8);
        used += enc.finish(o);
        p.close_file();
    } else {
        std::string_view body = p.body();
        switch (p.encoding) {
            case cte::seven_bit:
                put(body);
                break;
            case cte::quoted_printable: {
                mime::qp_encoder enc(mime::qp_mode::text);
                while (!body.empty() && !failed) {
                    const std::string_view chunk = body.substr(0, qp_chunk);
                    char* o = reserve(mime::qp_encoder::max_output(chunk.size()));
                    used += enc.step(chunk, o);
                    body.remove_prefix(chunk.size());
                }
                char* o = reserve(mime::qp_encoder::max_output(0));
                used += enc.finish(o);
                break;
            }
            case cte::base64: {
                mime::base64_encoder enc(76);
                while (!body.empty() && !failed) {
                    const std::string_view chunk = body.substr(0, read_chunk);
                    char* o = reserve(mime::base64_encoder::max_output(chunk.size()));
                    used += enc.step(chunk, o);
                    body.remove_prefix(chunk.size());
                }
                char* o = reserve(8);
                used += enc.finish(o);
                break;
            }
        }
    }
    // The encoders end base64 with CRLF; the CRLF before the next delimiter is its own.
    report.parts.back().encoded_size = position() - start;
}

void writer::state::emit_external(prepared& p, const std::string& path) {
    auto param = uri::url_parameter(p.label);
    std::string ct = "message/external-body; access-type=URL; size=" + std::to_string(p.size) +
                     ";\r\n URL=" + uri::fold_url_parameter(param.value, 5);
    field("Content-Type", ct, path);
    uri_field("Content-Location", p.label, 18, path);
    put("\r\n");
    // The encapsulated header (URL-3.0.4): the object's type, a Content-ID (RFC 2046 §5.2.3),
    // Content-MD5 of the canonical form (URL-4.1); then an empty phantom body (URL-3.0.3).
    const std::uint64_t start = position();
    field("Content-Type", p.content_type, path);
    field("Content-ID", "<" + p.content_id + ">", path);
    if (!p.md5.empty()) field("Content-MD5", p.md5, path);
    put("\r\n");
    report.parts.back().encoded_size = position() - start;
    diag(severity::note, diag_code::external_body_written, path,
         "written as message/external-body (" + std::to_string(p.size) + " octets at " + p.label +
             ")");
    p.close_file();
}

void writer::state::emit(prepared& p, const std::string& path, bool is_root) {
    part_report pr;
    pr.index = p.index;
    pr.path = path;
    pr.offset = position();
    pr.decoded_size = p.size;
    pr.source_size = p.source_size;
    pr.external = p.external;

    // MHT-4.2.5, MHT-7.13: one Content-Location, never two parts with the same one.
    // This part's report will be report.parts[number].
    const auto number = static_cast<std::uint32_t>(report.parts.size());
    if (!p.label.empty()) {
        if (labels.find_or_insert(p.label, number, [this](std::size_t k) -> std::string_view {
                return report.parts[k].label;
            }) != mhtml::detail::string_index::npos) {
            diag(severity::warning, diag_code::field_dropped, path,
                 "Content-Location " + p.label +
                     " already labels another part: this part is written without it");
            p.label.clear();
        } else if (auto why = privacy_issue(p.label); !why.empty()) {
            diag(severity::warning, diag_code::private_label, path,
                 "label " + p.label + " is " + why + " (MHT-12.2)");
        }
    }
    // MHT-7.12: Content-IDs differ.
    if (!p.content_id.empty() &&
        ids.find_or_insert(p.content_id, number, [this](std::size_t k) -> std::string_view {
            return report.parts[k].content_id;
        }) != mhtml::detail::string_index::npos) {
        diag(severity::warning, diag_code::field_dropped, path,
             "Content-ID <" + p.content_id + "> already names another part: left out here");
        p.content_id.clear();
    }
    pr.content_id = p.content_id;
    if (p.external && !p.label.empty()) {
        pr.label = p.label;
        pr.content_type = "message/external-body";
        report.parts.push_back(std::move(pr));
        emit_external(p, path);
        return;
    }
    if (p.external) p.external = false;  // its label was a duplicate: inline after all
    pr.label = std::move(p.label);       // written below from the report's copy
    pr.content_type = p.content_type;
    pr.transfer_encoding = std::string(cte_name(p.encoding));
    report.parts.push_back(std::move(pr));
    const std::string& label = report.parts.back().label;

    // A Content-Type refused (a parameter with a NUL) leaves its media type alone, or
    // application/octet-stream: a part is never written without one.
    if (!field("Content-Type", p.content_type, path)) {
        std::string essence = p.content_type.substr(0, p.content_type.find(';'));
        if (!field("Content-Type", essence, path)) {
            essence = "application/octet-stream";
            field("Content-Type", essence, path);
        }
        report.parts.back().content_type = essence;
    }
    put_field("Content-Transfer-Encoding", cte_name(p.encoding));
    if (!label.empty()) uri_field("Content-Location", label, 18, path);
    if (!p.content_id.empty()) {
        // Writable (take_id; make_content_id with the domain the constructor checked):
        // printable US-ASCII without white space or brackets.
        id_field.assign(1, '<');
        id_field += p.content_id;
        id_field += '>';
        put_field("Content-ID", id_field);
    }
    for (const auto& [name, value] : p.fields) field(name, value, path);
    if (!p.md5.empty()) field("Content-MD5", p.md5, path);
    (void)is_root;
    put("\r\n");
    emit_body(p);
}

void writer::state::write_resource(const resource& r, bool is_root) {
    const std::size_t index = next_index++;
    if (failed || finished) return;
    const bool hold = is_root && opt.root_position > 0 && !opt.mail;
    const std::string path = is_root && opt.mail ? "1.2" : std::to_string(part_no + 1);
    prepared& p = hold ? *(held_root = std::make_unique<prepared>()) : work;
    if (is_root) boundary = usable_boundary(opt.boundary) ? opt.boundary : make_boundary();
    // Every resource takes its turn in the reading ahead, files or not.
    file_data pre;
    const bool have = !is_root && ahead && ahead->take(r, pre);
    const bool ok = prepare(r, index, p, hold ? "" : path, is_root, have ? &pre : nullptr);
    if (is_root) {
        root_charset = p.charset;
        report.boundary = boundary;
        started = true;
        if (!ok) {
            // A root that cannot be read: the archive still needs a root. Write an empty
            // text/html one so the output stays a valid aggregate.
            p.reset();
            p.index = index;
            p.res = &r;
            p.content_type = "text/html; charset=\"UTF-8\"";
            p.charset = "UTF-8";
            p.encoding = cte::seven_bit;
            p.label = r.label;
            p.content_id = take_id(r, path);
            if (p.content_id.empty() && (opt.root_position > 0 || opt.method == method::cid))
                p.content_id = make_content_id(opt.content_id_domain);
        }
        top_header(p);
        if (opt.mail) {
            // Part 1: multipart/alternative of the text/plain rendering and the HTML.
            const std::string alt = make_boundary();
            put("--" + boundary + "\r\n");
            field("Content-Type", "multipart/alternative;\r\n boundary=" + param_quoted(alt), "1");
            put("\r\n--" + alt + "\r\n");
            std::string utf8;
            const std::string_view body = p.body();
            const std::string& cs = p.charset;
            if (ascii::iequals(cs, "utf-8") || ascii::iequals(cs, "us-ascii")) {
                utf8 = html_to_text(body);
            } else {
                auto u = mime::to_utf8(body, cs);
                utf8 = html_to_text(u ? *u : utf8::sanitized(body));
            }
            prepared text;
            text.owned = std::move(utf8);
            text.set_owned();
            text.size = text.owned.size();
            text.index = index;
            text.res = &r;
            mime::value_issues issues;
            prepare_text(text, parse_content_type("text/plain; charset=UTF-8", issues), "1.1",
                         false);
            field("Content-Type", text.content_type, "1.1");
            field("Content-Transfer-Encoding", cte_name(text.encoding), "1.1");
            put("\r\n");
            report.parts.push_back(part_report{});  // emit_body fills the last entry
            emit_body(text);
            report.parts.pop_back();
            put("\r\n--" + alt + "\r\n");
            emit(p, "1.2", true);
            put("\r\n--" + alt + "--\r\n");
            part_no = 1;
            return;
        }
        if (hold) {
            if (p.fd < 0 && !p.in_owned) {
                // Keep the root's octets: the caller's resource may be gone when it is written.
                p.owned.assign(p.view);
                p.set_owned();
            }
            held_root_res = r;
            p.res = &held_root_res;
            return;
        }
    } else if (!ok) {
        part_report pr;
        pr.index = index;
        pr.label = r.label;
        pr.content_id = r.content_id;
        pr.content_type = r.content_type;
        pr.written = false;
        report.parts.push_back(std::move(pr));
        return;
    }
    put(part_no == 0 ? "--" : "\r\n--");
    put(boundary);
    put("\r\n");
    ++part_no;
    emit(p, path, is_root);
    p.reset();
    if (!is_root) {
        ++others;
        if (held_root && others == opt.root_position) write_held_root();
    }
}

void writer::state::write_held_root() {
    std::unique_ptr<prepared> p = std::move(held_root);
    const std::string path = std::to_string(part_no + 1);
    put(part_no == 0 ? "--" : "\r\n--");
    put(boundary);
    put("\r\n");
    ++part_no;
    // Diagnostics made while preparing it had no path yet.
    for (auto& d : report.diagnostics)
        if (d.part_path.empty() && d.code != diag_code::field_value_invalid &&
            d.code != diag_code::field_name_invalid)
            d.part_path = path;
    emit(*p, path, true);
}

// ---------------------------------------------------------------------------------------------

writer::writer(sink& out, writer_options options)
    : s_(std::make_unique<state>(out, std::move(options))) {}
writer::~writer() = default;
writer::writer(writer&&) noexcept = default;
writer& writer::operator=(writer&&) noexcept = default;

bool writer::root(const resource& r) {
    if (s_->started) return add(r);
    s_->write_resource(r, true);
    return !s_->failed;
}

void writer::expect(std::span<const resource> next) {
    s_->ahead.reset();
    if (!s_->opt.read_ahead || std::thread::hardware_concurrency() < 2 ||
        std::none_of(next.begin(), next.end(), [](const resource& r) { return !r.in_memory; }))
        return;
    try {
        s_->ahead = std::make_unique<read_ahead>(next);
    } catch (const std::exception&) {  // no thread (std::system_error): read on this one
        s_->ahead.reset();
    }
}

bool writer::add(const resource& r) {
    if (!s_->started) return root(r);
    if (s_->ahead && s_->ahead->out_of_order(r)) s_->ahead.reset();  // read here from now on
    s_->write_resource(r, false);
    return !s_->failed;
}

void writer::reserve(std::size_t resources) {
    s_->report.parts.reserve(resources);
}

const write_report& writer::report() const noexcept {
    return s_->report;
}

write_report writer::finish() {
    state& s = *s_;
    if (!s.finished) {
        if (!s.started) {
            resource empty;
            empty.content_type = "text/html";
            s.write_resource(empty, true);
        }
        if (s.held_root) s.write_held_root();
        s.put("\r\n--" + s.boundary + "--\r\n");
        s.flush_all();
        s.ahead.reset();
        s.finished = true;
        s.report.bytes = s.flushed;
    }
    return std::move(s.report);
}

write_report write_archive(sink& out, const resource& root, std::span<const resource> others,
                           const writer_options& options) {
    writer w(out, options);
    w.expect(others);
    if (w.root(root))
        for (const resource& r : others)
            if (!w.add(r)) break;
    return w.finish();
}

}  // namespace mhtml::pack
