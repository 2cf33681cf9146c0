#pragma once
// Character classes and small text helpers shared by the uri/ layer (internal). One
// definition each, so the modules agree on what a scheme, an escape or a comment is.

#include "mhtml/ascii.hpp"
#include <cstddef>
#include <string>
#include <string_view>

namespace mhtml::uri::text {

constexpr bool is_alpha(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}
constexpr bool is_alnum(char c) noexcept {
    return is_alpha(c) || is_digit(c);
}
/// RFC 5322 white space and line ends.
constexpr bool is_lwsp(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
/// RFC 3986 unreserved.
constexpr bool is_unreserved(char c) noexcept {
    return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
/// CTL (0x00-0x1F, 0x7F).
constexpr bool is_ctl(char c) noexcept {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
}

/// Value of a hex digit, or -1.
constexpr int hex_value(char c) noexcept {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}
constexpr char hex_upper(unsigned v) noexcept {
    return "0123456789ABCDEF"[v & 15];
}

/// True when s[i] starts a `%XX` escape.
constexpr bool is_escape_at(std::string_view s, std::size_t i) noexcept {
    return i + 2 < s.size() && s[i] == '%' && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0;
}

/// Appends `%XX` (upper-case hex) for octet `c`.
inline void append_escape(std::string& out, unsigned char c) {
    out += '%';
    out += hex_upper(c >> 4);
    out += hex_upper(c & 15);
}

/// One level of %-decoding: every `%XX` becomes its octet; a `%` that starts no escape stays.
std::string percent_decode(std::string_view s);

/// ASCII lower-case copy, and ASCII case-insensitive equality (mhtml/ascii.hpp's).
inline std::string ascii_lower(std::string_view s) {
    return ascii::lowered(s);
}
using ascii::iequals;

/// RFC 3986 §3.1 scheme syntax: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
bool is_scheme(std::string_view s) noexcept;
/// The seed's `this_message` and RFC 2557's `thismessage`, any case.
bool is_fictitious_scheme(std::string_view s) noexcept;
/// Length of the scheme of an absolute URI (`scheme:` at the start, by RFC 3986 syntax or
/// the fictitious alias, before any of "/?#"), or 0.
std::size_t scheme_length(std::string_view uri) noexcept;

/// Where the RFC 5322 comment starting at s[open] == '(' ends (one past its ')'), with
/// nesting and quoted-pairs, or npos when it does not end.
std::size_t comment_end(std::string_view s, std::size_t open) noexcept;
/// Where the CFWS (white space, line ends, nested comments with quoted-pairs) that ends
/// `s` begins, not looking below `floor`. Linear.
std::size_t trailing_cfws_begin(std::string_view s, std::size_t floor = 0) noexcept;

}  // namespace mhtml::uri::text
