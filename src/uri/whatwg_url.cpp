// The URL Standard's basic URL parser (https://url.spec.whatwg.org/#concept-basic-url-parser),
// without state override (only whole URLs are parsed here), its host parser and serializer.
// Each state below is the standard's state of the same name; the comments quote the rule
// where it is subtle.
#include "mhtml/uri/whatwg_url.hpp"

#include "text.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

namespace mhtml::uri {

namespace {

using text::hex_value;

// -- percent-encode sets (URL Standard §1.3) -----------------------------------------------

using octet_set = std::array<bool, 256>;

constexpr octet_set with(octet_set s, std::string_view extra) {
    for (unsigned char c : extra) s[c] = true;
    return s;
}
// "The C0 control percent-encode set are the C0 controls and all code points greater than
// U+007E (~)."
constexpr octet_set make_c0_control() {
    octet_set s{};
    for (int c = 0; c < 0x20; ++c) s[c] = true;
    for (int c = 0x7F; c < 256; ++c) s[c] = true;
    return s;
}
constexpr octet_set c0_control_set = make_c0_control();
constexpr octet_set fragment_set = with(c0_control_set, " \"<>`");
constexpr octet_set query_set = with(c0_control_set, " \"#<>");
constexpr octet_set special_query_set = with(query_set, "'");
constexpr octet_set path_set = with(query_set, "?^`{}");
constexpr octet_set userinfo_set = with(path_set, "/:;=@[\\]|");

void percent_encode_append(std::string& out, std::string_view in, const octet_set& set) {
    for (char c : in) {
        const auto u = static_cast<unsigned char>(c);
        if (set[u]) {
            text::append_escape(out, u);
        } else {
            out += c;
        }
    }
}

std::string percent_decode_host(std::string_view in) {
    return text::percent_decode(in);
}

// -- schemes ---------------------------------------------------------------------------------

bool is_special_scheme(std::string_view s) noexcept {
    return s == "http" || s == "https" || s == "ws" || s == "wss" || s == "ftp" || s == "file";
}

std::optional<std::uint16_t> default_port(std::string_view s) noexcept {
    if (s == "http" || s == "ws") return 80;
    if (s == "https" || s == "wss") return 443;
    if (s == "ftp") return 21;
    return std::nullopt;
}

// -- path helpers ----------------------------------------------------------------------------

bool ascii_alpha(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool ieq(std::string_view a, std::string_view b) noexcept {
    return text::iequals(a, b);
}

// "A single-dot URL path segment is "." or an ASCII case-insensitive match for "%2e"."
bool single_dot(std::string_view s) noexcept {
    return s == "." || ieq(s, "%2e");
}
bool double_dot(std::string_view s) noexcept {
    return s == ".." || ieq(s, ".%2e") || ieq(s, "%2e.") || ieq(s, "%2e%2e");
}

// "A Windows drive letter is two code points, of which the first is an ASCII alpha and the
// second is either U+003A (:) or U+007C (|)." A normalized one has ':'.
bool windows_drive_letter(std::string_view s) noexcept {
    return s.size() == 2 && ascii_alpha(s[0]) && (s[1] == ':' || s[1] == '|');
}
bool normalized_windows_drive_letter(std::string_view s) noexcept {
    return s.size() == 2 && ascii_alpha(s[0]) && s[1] == ':';
}
// "A string starts with a Windows drive letter if all of the following are true: its length
// is greater than or equal to 2; its first two code points are a Windows drive letter; its
// length is 2 or its third code point is U+002F (/), U+005C (\), U+003F (?), or U+0023 (#)."
bool starts_with_windows_drive_letter(std::string_view s) noexcept {
    if (s.size() < 2 || !windows_drive_letter(s.substr(0, 2))) return false;
    if (s.size() == 2) return true;
    char c = s[2];
    return c == '/' || c == '\\' || c == '?' || c == '#';
}

// -- hosts -----------------------------------------------------------------------------------

// Forbidden host code points; forbidden domain code points add the C0 controls, '%' and DEL.
bool forbidden_host(char c) noexcept {
    switch (c) {
        case '\0':
        case '\t':
        case '\n':
        case '\r':
        case ' ':
        case '#':
        case '/':
        case ':':
        case '<':
        case '>':
        case '?':
        case '@':
        case '[':
        case '\\':
        case ']':
        case '^':
        case '|':
            return true;
        default:
            return false;
    }
}
bool forbidden_domain(char c) noexcept {
    const auto u = static_cast<unsigned char>(c);
    return forbidden_host(c) || u < 0x20 || c == '%' || u == 0x7F;
}

// The IPv4 number parser: nullopt on failure. Values are capped (anything that large fails
// the range checks of the caller anyway).
std::optional<std::uint64_t> ipv4_number(std::string_view in) {
    if (in.empty()) return std::nullopt;
    unsigned radix = 10;
    if (in.size() >= 2 && in[0] == '0' && (in[1] == 'x' || in[1] == 'X')) {
        in.remove_prefix(2);
        radix = 16;
    } else if (in.size() >= 2 && in[0] == '0') {
        in.remove_prefix(1);
        radix = 8;
    }
    if (in.empty()) return 0;
    std::uint64_t v = 0;
    for (char c : in) {
        int d = hex_value(c);
        if (d < 0 || static_cast<unsigned>(d) >= radix) return std::nullopt;
        if (v < (std::uint64_t(1) << 40)) v = v * radix + static_cast<unsigned>(d);
    }
    return v;
}

std::vector<std::string_view> split_dots(std::string_view s) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        std::size_t dot = s.find('.', start);
        if (dot == std::string_view::npos) {
            parts.push_back(s.substr(start));
            return parts;
        }
        parts.push_back(s.substr(start, dot - start));
        start = dot + 1;
    }
}

// "The ends in a number checker."
bool ends_in_a_number(std::string_view s) {
    std::vector<std::string_view> parts = split_dots(s);
    if (parts.back().empty()) {
        if (parts.size() == 1) return false;
        parts.pop_back();
    }
    std::string_view last = parts.back();
    if (!last.empty() && last.find_first_not_of("0123456789") == std::string_view::npos)
        return true;
    return ipv4_number(last).has_value();
}

// "The IPv4 parser", serialized dotted-decimal.
std::optional<std::string> ipv4(std::string_view s) {
    std::vector<std::string_view> parts = split_dots(s);
    if (parts.back().empty() && parts.size() > 1) parts.pop_back();
    if (parts.size() > 4) return std::nullopt;
    std::vector<std::uint64_t> numbers;
    for (std::string_view p : parts) {
        auto n = ipv4_number(p);
        if (!n) return std::nullopt;
        numbers.push_back(*n);
    }
    for (std::size_t i = 0; i + 1 < numbers.size(); ++i)
        if (numbers[i] > 255) return std::nullopt;
    if (numbers.back() >= (std::uint64_t(1) << (8 * (5 - numbers.size())))) return std::nullopt;
    std::uint64_t address = numbers.back();
    for (std::size_t i = 0; i + 1 < numbers.size(); ++i) address += numbers[i] << (8 * (3 - i));
    std::string out;
    for (int shift = 24; shift >= 0; shift -= 8) {
        out += std::to_string((address >> shift) & 0xFF);
        if (shift) out += '.';
    }
    return out;
}

// "The IPv6 parser" and "the IPv6 serializer" (with its brackets).
std::optional<std::string> ipv6(std::string_view in) {
    std::array<std::uint16_t, 8> address{};
    std::size_t piece = 0;
    std::optional<std::size_t> compress;
    std::size_t i = 0;
    const std::size_t n = in.size();
    auto at = [&](std::size_t k) -> int { return k < n ? static_cast<unsigned char>(in[k]) : -1; };
    if (at(i) == ':') {
        if (at(i + 1) != ':') return std::nullopt;
        i += 2;
        compress = ++piece;
    }
    while (at(i) != -1) {
        if (piece == 8) return std::nullopt;
        if (at(i) == ':') {
            if (compress) return std::nullopt;
            ++i;
            compress = ++piece;
            continue;
        }
        unsigned value = 0, length = 0;
        while (length < 4 && at(i) != -1 && hex_value(static_cast<char>(at(i))) >= 0) {
            value = value * 16 + static_cast<unsigned>(hex_value(static_cast<char>(at(i))));
            ++i;
            ++length;
        }
        if (at(i) == '.') {
            if (length == 0) return std::nullopt;
            i -= length;
            if (piece > 6) return std::nullopt;
            unsigned numbers_seen = 0;
            while (at(i) != -1) {
                std::optional<unsigned> ipv4_piece;
                if (numbers_seen > 0) {
                    if (at(i) == '.' && numbers_seen < 4) {
                        ++i;
                    } else {
                        return std::nullopt;
                    }
                }
                if (at(i) < '0' || at(i) > '9') return std::nullopt;
                while (at(i) >= '0' && at(i) <= '9') {
                    unsigned number = static_cast<unsigned>(at(i) - '0');
                    if (!ipv4_piece) {
                        ipv4_piece = number;
                    } else if (*ipv4_piece == 0) {
                        return std::nullopt;
                    } else {
                        *ipv4_piece = *ipv4_piece * 10 + number;
                    }
                    if (*ipv4_piece > 255) return std::nullopt;
                    ++i;
                }
                address[piece] = static_cast<std::uint16_t>(address[piece] * 0x100 + *ipv4_piece);
                ++numbers_seen;
                if (numbers_seen == 2 || numbers_seen == 4) ++piece;
            }
            if (numbers_seen != 4) return std::nullopt;
            break;
        }
        if (at(i) == ':') {
            ++i;
            if (at(i) == -1) return std::nullopt;
        } else if (at(i) != -1) {
            return std::nullopt;
        }
        address[piece] = static_cast<std::uint16_t>(value);
        ++piece;
    }
    if (compress) {
        std::size_t swaps = piece - *compress;
        piece = 7;
        while (piece != 0 && swaps > 0) {
            std::swap(address[piece], address[*compress + swaps - 1]);
            --piece;
            --swaps;
        }
    } else if (piece != 8) {
        return std::nullopt;
    }
    // The serializer: the first longest run of two or more zero pieces becomes "::".
    std::size_t best = 8, best_len = 1;
    for (std::size_t k = 0; k < 8;) {
        if (address[k] != 0) {
            ++k;
            continue;
        }
        std::size_t e = k;
        while (e < 8 && address[e] == 0) ++e;
        if (e - k > best_len) {
            best = k;
            best_len = e - k;
        }
        k = e;
    }
    std::string out = "[";
    bool ignore0 = false;
    for (std::size_t k = 0; k < 8; ++k) {
        if (ignore0 && address[k] == 0) continue;
        ignore0 = false;
        if (best == k) {
            out += k == 0 ? "::" : ":";
            ignore0 = true;
            continue;
        }
        static constexpr char hex[] = "0123456789abcdef";
        std::uint16_t v = address[k];
        bool started = false;
        for (int shift = 12; shift >= 0; shift -= 4) {
            unsigned d = (v >> shift) & 15;
            if (d || started || shift == 0) {
                out += hex[d];
                started = true;
            }
        }
        if (k != 7) out += ':';
    }
    out += ']';
    return out;
}

// "The host parser" (input is not empty for special schemes).
std::optional<std::string> parse_host(std::string_view in, bool opaque) {
    if (!in.empty() && in.front() == '[') {
        if (in.back() != ']' || in.size() < 2) return std::nullopt;
        return ipv6(in.substr(1, in.size() - 2));
    }
    if (opaque) {  // "The opaque-host parser"
        for (char c : in)
            if (forbidden_host(c)) return std::nullopt;
        std::string out;
        percent_encode_append(out, in, c0_control_set);
        return out;
    }
    std::string domain = percent_decode_host(in);
    // Domain to ASCII: for an ASCII domain with no "xn--" label this is ASCII lower-casing;
    // UTS #46 for the rest is not implemented (see the header).
    for (char c : domain)
        if (static_cast<unsigned char>(c) >= 0x80) return std::nullopt;
    std::string ascii = text::ascii_lower(domain);
    if (ascii.empty()) return std::nullopt;
    for (char c : ascii)
        if (forbidden_domain(c)) return std::nullopt;
    if (ends_in_a_number(ascii)) return ipv4(ascii);
    return ascii;
}

}  // namespace

// The parser's state, as the standard's variables (url, buffer, flags, pointer).
class whatwg_parser {
public:
    whatwg_parser(std::string_view input, const whatwg_url* base) : base_(base) {
        // Remove leading and trailing C0 controls and spaces, then every ASCII tab or newline.
        std::size_t b = 0, e = input.size();
        while (b < e && static_cast<unsigned char>(input[b]) <= 0x20) ++b;
        while (e > b && static_cast<unsigned char>(input[e - 1]) <= 0x20) --e;
        s_.reserve(e - b);
        for (std::size_t i = b; i < e; ++i)
            if (input[i] != '\t' && input[i] != '\n' && input[i] != '\r') s_ += input[i];
    }

    std::optional<whatwg_url> run();

private:
    enum class state {
        scheme_start,
        scheme,
        no_scheme,
        special_relative_or_authority,
        path_or_authority,
        relative,
        relative_slash,
        special_authority_slashes,
        special_authority_ignore_slashes,
        authority,
        host,
        port,
        file,
        file_slash,
        file_host,
        path_start,
        path,
        opaque_path,
        query,
        fragment
    };
    static constexpr int eof = -1;
    int c(std::ptrdiff_t i) const noexcept {
        return i >= 0 && static_cast<std::size_t>(i) < s_.size()
                   ? static_cast<unsigned char>(s_[static_cast<std::size_t>(i)])
                   : eof;
    }
    // The code point substring from `i` to the end.
    std::string_view from(std::ptrdiff_t i) const noexcept {
        return std::string_view(s_).substr(std::min(static_cast<std::size_t>(i), s_.size()));
    }
    void shorten_path() {
        auto& p = url_.path_;
        if (url_.scheme_ == "file" && p.size() == 1 && normalized_windows_drive_letter(p[0]))
            return;
        if (!p.empty()) p.pop_back();
    }
    void copy_base_authority() {
        url_.username_ = base_->username_;
        url_.password_ = base_->password_;
        url_.host_ = base_->host_;
        url_.port_ = base_->port_;
    }

    std::string s_;
    const whatwg_url* base_;
    whatwg_url url_;
};

std::optional<whatwg_url> whatwg_parser::run() {
    state st = state::scheme_start;
    std::string buffer;
    bool at_sign_seen = false, inside_brackets = false, password_token_seen = false;
    const auto n = static_cast<std::ptrdiff_t>(s_.size());
    // `p` is the standard's pointer; "decrease pointer by 1" before the loop increases it
    // makes the next run read the same code point again, and -1 starts over.
    for (std::ptrdiff_t p = 0;; ++p) {
        const std::ptrdiff_t i = p;
        const int ch = c(i);
        const bool special = url_.special_;
        switch (st) {
            case state::scheme_start:
                if (ch != eof && ascii_alpha(static_cast<char>(ch))) {
                    buffer += text::ascii_lower(from(i).substr(0, 1));
                    st = state::scheme;
                } else {
                    st = state::no_scheme;
                    --p;
                }
                break;
            case state::scheme:
                if (ch != eof && (text::is_alnum(static_cast<char>(ch)) || ch == '+' || ch == '-' ||
                                  ch == '.')) {
                    buffer += text::ascii_lower(from(i).substr(0, 1));
                } else if (ch == ':') {
                    url_.scheme_ = std::move(buffer);
                    buffer.clear();
                    url_.special_ = is_special_scheme(url_.scheme_);
                    if (url_.scheme_ == "file") {
                        st = state::file;
                    } else if (url_.special_ && base_ && base_->scheme_ == url_.scheme_) {
                        st = state::special_relative_or_authority;
                    } else if (url_.special_) {
                        st = state::special_authority_slashes;
                    } else if (c(i + 1) == '/') {
                        st = state::path_or_authority;
                        ++p;
                    } else {
                        url_.opaque_path_ = true;
                        url_.path_.assign(1, std::string());
                        st = state::opaque_path;
                    }
                } else {
                    buffer.clear();
                    st = state::no_scheme;
                    p = -1;  // start over from the first code point
                }
                break;
            case state::no_scheme:
                if (!base_ || (base_->opaque_path_ && ch != '#')) return std::nullopt;
                if (base_->opaque_path_ && ch == '#') {
                    url_.scheme_ = base_->scheme_;
                    url_.special_ = base_->special_;
                    url_.path_ = base_->path_;
                    url_.opaque_path_ = true;
                    url_.query_ = base_->query_;
                    url_.fragment_ = std::string();
                    st = state::fragment;
                } else if (base_->scheme_ != "file") {
                    st = state::relative;
                    --p;
                } else {
                    st = state::file;
                    --p;
                }
                break;
            case state::special_relative_or_authority:
                if (ch == '/' && c(i + 1) == '/') {
                    st = state::special_authority_ignore_slashes;
                    ++p;
                } else {
                    st = state::relative;
                    --p;
                }
                break;
            case state::path_or_authority:
                if (ch == '/') {
                    st = state::authority;
                } else {
                    st = state::path;
                    --p;
                }
                break;
            case state::relative:
                url_.scheme_ = base_->scheme_;
                url_.special_ = base_->special_;
                if (ch == '/' || (url_.special_ && ch == '\\')) {
                    st = state::relative_slash;
                } else {
                    copy_base_authority();
                    url_.path_ = base_->path_;
                    url_.query_ = base_->query_;
                    if (ch == '?') {
                        url_.query_ = std::string();
                        st = state::query;
                    } else if (ch == '#') {
                        url_.fragment_ = std::string();
                        st = state::fragment;
                    } else if (ch != eof) {
                        url_.query_.reset();
                        shorten_path();
                        st = state::path;
                        --p;
                    }
                }
                break;
            case state::relative_slash:
                if (special && (ch == '/' || ch == '\\')) {
                    st = state::special_authority_ignore_slashes;
                } else if (ch == '/') {
                    st = state::authority;
                } else {
                    copy_base_authority();
                    st = state::path;
                    --p;
                }
                break;
            case state::special_authority_slashes:
                if (ch == '/' && c(i + 1) == '/') {
                    st = state::special_authority_ignore_slashes;
                    ++p;
                } else {
                    st = state::special_authority_ignore_slashes;
                    --p;
                }
                break;
            case state::special_authority_ignore_slashes:
                if (ch != '/' && ch != '\\') {
                    st = state::authority;
                    --p;
                }
                break;
            case state::authority:
                if (ch == '@') {
                    if (at_sign_seen) buffer.insert(0, "%40");
                    at_sign_seen = true;
                    for (char b : buffer) {
                        if (b == ':' && !password_token_seen) {
                            password_token_seen = true;
                            continue;
                        }
                        percent_encode_append(password_token_seen ? url_.password_ : url_.username_,
                                              std::string_view(&b, 1), userinfo_set);
                    }
                    buffer.clear();
                } else if (ch == eof || ch == '/' || ch == '?' || ch == '#' ||
                           (special && ch == '\\')) {
                    if (at_sign_seen && buffer.empty()) return std::nullopt;
                    p -= static_cast<std::ptrdiff_t>(buffer.size()) + 1;
                    buffer.clear();
                    st = state::host;
                } else {
                    buffer += static_cast<char>(ch);
                }
                break;
            case state::host:
                if (ch == ':' && !inside_brackets) {
                    if (buffer.empty()) return std::nullopt;
                    auto h = parse_host(buffer, !special);
                    if (!h) return std::nullopt;
                    url_.host_ = std::move(*h);
                    buffer.clear();
                    st = state::port;
                } else if (ch == eof || ch == '/' || ch == '?' || ch == '#' ||
                           (special && ch == '\\')) {
                    --p;
                    if (special && buffer.empty()) return std::nullopt;
                    if (buffer.empty()) {
                        url_.host_ = std::string();
                    } else {
                        auto h = parse_host(buffer, !special);
                        if (!h) return std::nullopt;
                        url_.host_ = std::move(*h);
                    }
                    buffer.clear();
                    st = state::path_start;
                } else {
                    if (ch == '[') inside_brackets = true;
                    if (ch == ']') inside_brackets = false;
                    buffer += static_cast<char>(ch);
                }
                break;
            case state::port:
                if (ch >= '0' && ch <= '9') {
                    buffer += static_cast<char>(ch);
                } else if (ch == eof || ch == '/' || ch == '?' || ch == '#' ||
                           (special && ch == '\\')) {
                    if (!buffer.empty()) {
                        std::uint32_t port = 0;
                        for (char d : buffer) {
                            port = port * 10 + static_cast<std::uint32_t>(d - '0');
                            if (port > 65535) return std::nullopt;
                        }
                        if (default_port(url_.scheme_) == port) {
                            url_.port_.reset();
                        } else {
                            url_.port_ = static_cast<std::uint16_t>(port);
                        }
                        buffer.clear();
                    }
                    st = state::path_start;
                    --p;
                } else {
                    return std::nullopt;
                }
                break;
            case state::file:
                url_.scheme_ = "file";
                url_.special_ = true;
                url_.host_ = std::string();
                if (ch == '/' || ch == '\\') {
                    st = state::file_slash;
                } else if (base_ && base_->scheme_ == "file") {
                    url_.host_ = base_->host_;
                    url_.path_ = base_->path_;
                    url_.query_ = base_->query_;
                    if (ch == '?') {
                        url_.query_ = std::string();
                        st = state::query;
                    } else if (ch == '#') {
                        url_.fragment_ = std::string();
                        st = state::fragment;
                    } else if (ch != eof) {
                        url_.query_.reset();
                        if (!starts_with_windows_drive_letter(from(i))) {
                            shorten_path();
                        } else {
                            url_.path_.clear();
                        }
                        st = state::path;
                        --p;
                    }
                } else {
                    st = state::path;
                    --p;
                }
                break;
            case state::file_slash:
                if (ch == '/' || ch == '\\') {
                    st = state::file_host;
                } else {
                    if (base_ && base_->scheme_ == "file") {
                        url_.host_ = base_->host_;
                        if (!starts_with_windows_drive_letter(from(i)) && !base_->path_.empty() &&
                            normalized_windows_drive_letter(base_->path_[0]))
                            url_.path_.push_back(base_->path_[0]);
                    }
                    st = state::path;
                    --p;
                }
                break;
            case state::file_host:
                if (ch == eof || ch == '/' || ch == '\\' || ch == '?' || ch == '#') {
                    --p;
                    if (windows_drive_letter(buffer)) {
                        st = state::path;  // the buffer is the path's first segment
                    } else if (buffer.empty()) {
                        url_.host_ = std::string();
                        st = state::path_start;
                    } else {
                        auto h = parse_host(buffer, false);
                        if (!h) return std::nullopt;
                        if (*h == "localhost") h->clear();
                        url_.host_ = std::move(*h);
                        buffer.clear();
                        st = state::path_start;
                    }
                } else {
                    buffer += static_cast<char>(ch);
                }
                break;
            case state::path_start:
                if (special) {
                    st = state::path;
                    if (ch != '/' && ch != '\\') --p;
                } else if (ch == '?') {
                    url_.query_ = std::string();
                    st = state::query;
                } else if (ch == '#') {
                    url_.fragment_ = std::string();
                    st = state::fragment;
                } else if (ch != eof) {
                    st = state::path;
                    if (ch != '/') --p;
                }
                break;
            case state::path:
                if (ch == eof || ch == '/' || (special && ch == '\\') || ch == '?' || ch == '#') {
                    const bool slash = ch == '/' || (special && ch == '\\');
                    if (double_dot(buffer)) {
                        shorten_path();
                        if (!slash) url_.path_.emplace_back();
                    } else if (single_dot(buffer) && !slash) {
                        url_.path_.emplace_back();
                    } else if (!single_dot(buffer)) {
                        if (url_.scheme_ == "file" && url_.path_.empty() &&
                            windows_drive_letter(buffer))
                            buffer[1] = ':';
                        url_.path_.push_back(std::move(buffer));
                    }
                    buffer.clear();
                    if (ch == '?') {
                        url_.query_ = std::string();
                        st = state::query;
                    }
                    if (ch == '#') {
                        url_.fragment_ = std::string();
                        st = state::fragment;
                    }
                } else {
                    char b = static_cast<char>(ch);
                    percent_encode_append(buffer, std::string_view(&b, 1), path_set);
                }
                break;
            case state::opaque_path:
                if (ch == '?') {
                    url_.query_ = std::string();
                    st = state::query;
                } else if (ch == '#') {
                    url_.fragment_ = std::string();
                    st = state::fragment;
                } else if (ch == ' ') {
                    // A space is kept, but as %20 before a query or fragment, where a trailing
                    // space would otherwise be lost when the URL is serialized and read again.
                    const int next = c(i + 1);
                    url_.path_[0] += next == '?' || next == '#' ? "%20" : " ";
                } else if (ch != eof) {
                    char b = static_cast<char>(ch);
                    percent_encode_append(url_.path_[0], std::string_view(&b, 1), c0_control_set);
                }
                break;
            case state::query:
                if (ch == eof || ch == '#') {
                    percent_encode_append(*url_.query_, buffer,
                                          special ? special_query_set : query_set);
                    buffer.clear();
                    if (ch == '#') {
                        url_.fragment_ = std::string();
                        st = state::fragment;
                    }
                } else {
                    buffer += static_cast<char>(ch);
                }
                break;
            case state::fragment:
                if (ch != eof) {
                    char b = static_cast<char>(ch);
                    percent_encode_append(*url_.fragment_, std::string_view(&b, 1), fragment_set);
                }
                break;
        }
        if (p >= n) break;  // "if after a run pointer points to the EOF code point"
    }
    return std::move(url_);
}

std::optional<whatwg_url> whatwg_url::parse(std::string_view input, const whatwg_url* base) {
    return whatwg_parser(input, base).run();
}

std::string whatwg_url::pathname() const {
    std::string out;
    if (opaque_path_) return path_.empty() ? std::string() : path_[0];
    for (const std::string& segment : path_) {
        out += '/';
        out += segment;
    }
    return out;
}

std::string whatwg_url::href(bool with_fragment) const {
    std::string out = scheme_;
    out += ':';
    if (host_) {
        out += "//";
        if (!username_.empty() || !password_.empty()) {
            out += username_;
            if (!password_.empty()) {
                out += ':';
                out += password_;
            }
            out += '@';
        }
        out += *host_;
        if (port_) {
            out += ':';
            out += std::to_string(*port_);
        }
    }
    // "If url's host is null, url does not have an opaque path, url's path's size is greater
    // than 1, and url's path[0] is the empty string, append "/." to output."
    if (!host_ && !opaque_path_ && path_.size() > 1 && path_[0].empty()) out += "/.";
    out += pathname();
    if (query_) {
        out += '?';
        out += *query_;
    }
    if (with_fragment && fragment_) {
        out += '#';
        out += *fragment_;
    }
    return out;
}

}  // namespace mhtml::uri
