#include "mhtml/mime/header.hpp"

#include "field_name.hpp"
#include "mhtml/ascii.hpp"

namespace mhtml::mime {

namespace {
constexpr bool is_wsp(char c) noexcept {
    return c == ' ' || c == '\t';
}
}  // namespace

std::string unfold(std::string_view v) {
    if (ascii::find_first_of(v, "\r\n") == std::string_view::npos) {
        // One line (most fields): the white space around it trimmed, no copy octet by octet.
        while (!v.empty() && is_wsp(v.front())) v.remove_prefix(1);
        while (!v.empty() && is_wsp(v.back())) v.remove_suffix(1);
        return std::string(v);
    }
    std::string out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        char c = v[i];
        if (c == '\r' || c == '\n') {
            // RFC 5322 §2.2.3: a line end followed by WSP is folding and is removed; a line
            // end anywhere else (only possible in a malformed value) is removed as well.
            if (c == '\r' && i + 1 < v.size() && v[i + 1] == '\n') ++i;
            continue;
        }
        out += c;
    }
    std::size_t b = 0, e = out.size();
    while (b < e && (is_wsp(out[b]))) ++b;
    while (e > b && (is_wsp(out[e - 1]))) --e;
    if (b == 0 && e == out.size()) return out;
    return out.substr(b, e - b);
}

header_field_view::header_field_view(std::string_view raw) noexcept {
    // The parser's reading (parser::parse_headers): the name is the run of ftext, white
    // space may follow it (RFC 5322 §4.5.1), then the colon; the value runs to the final
    // line end, which is CRLF, LF or CR (a CR inside would have ended the line).
    std::size_t n = detail::ftext_run(raw);
    std::size_t colon = n;
    while (colon < raw.size() && is_wsp(raw[colon])) ++colon;
    *this = header_field_view(raw, n, colon < raw.size() ? colon + 1 : raw.size());
}

std::optional<header_field_view> header_list::find(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < count_; ++i) {
        const detail::field_record r = first_[i];
        if (r.size < name.size() ||
            !ascii::iequals(std::string_view(base_ + r.offset, name.size()), name))
            continue;
        const header_field_view f = make(base_, r);
        if (f.is(name)) return f;
    }
    return std::nullopt;
}

std::string header_field_view::value() const {
    return unfold(raw_value());
}

std::string to_lower(std::string_view s) {
    return ascii::lowered(s);
}

std::size_t skip_cfws(std::string_view s, std::size_t i) noexcept {
    while (i < s.size()) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            ++i;
        } else if (c == '(') {
            // RFC 5322 §3.2.2: comments nest and may contain quoted-pairs. An unterminated
            // comment runs to the end of the value.
            int depth = 0;
            for (; i < s.size(); ++i) {
                if (s[i] == '\\') {
                    ++i;
                } else if (s[i] == '(') {
                    ++depth;
                } else if (s[i] == ')' && --depth == 0) {
                    ++i;
                    break;
                }
            }
        } else {
            break;
        }
    }
    return i < s.size() ? i : s.size();
}

}  // namespace mhtml::mime
