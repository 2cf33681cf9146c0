#include "text.hpp"

#include <array>
#include <vector>

#include "mhtml/ascii.hpp"

namespace mhtml::uri::text {

std::string percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (is_escape_at(s, i)) {
            out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

bool is_scheme(std::string_view s) noexcept {
    if (s.empty() || !is_alpha(s[0])) return false;
    for (char c : s)
        if (!is_alnum(c) && c != '+' && c != '-' && c != '.') return false;
    return true;
}

bool is_fictitious_scheme(std::string_view s) noexcept {
    return iequals(s, "thismessage") || iequals(s, "this_message");
}

std::size_t scheme_length(std::string_view uri) noexcept {
    // A scheme is letters, digits, '+', '-' and '.' after a letter (RFC 3986 3.1), or the
    // `this_message` alias: an octet of any other kind before the first ':' means there is
    // none (':', '/', '?' and '#' end the search, and no scheme has the others).
    static constexpr auto kind = [] {
        std::array<unsigned char, 256> t{};  // 1: a scheme octet, 2: '_'
        for (int c = 0; c < 256; ++c)
            t[c] = is_alnum(static_cast<char>(c)) || c == '+' || c == '-' || c == '.' ? 1 : 0;
        t['_'] = 2;
        return t;
    }();
    std::size_t colon = 0;
    unsigned char seen = 0;
    while (colon < uri.size()) {
        const unsigned char k = kind[static_cast<unsigned char>(uri[colon])];
        if (k == 0) break;
        seen |= k;
        ++colon;
    }
    if (colon == 0 || colon == uri.size() || uri[colon] != ':' || !is_alpha(uri[0])) return 0;
    return (seen & 2) == 0 || is_fictitious_scheme(uri.substr(0, colon)) ? colon : 0;
}

std::size_t comment_end(std::string_view s, std::size_t open) noexcept {
    int depth = 0;
    for (std::size_t i = open; i < s.size(); ++i) {
        if (s[i] == '\\') {
            ++i;  // quoted-pair
        } else if (s[i] == '(') {
            ++depth;
        } else if (s[i] == ')' && --depth == 0) {
            return i + 1;
        }
    }
    return std::string_view::npos;
}

std::size_t trailing_cfws_begin(std::string_view s, std::size_t floor) noexcept {
    if (floor >= s.size()) return floor;
    // escaped[k]: s[k] is the second octet of a quoted-pair (an odd run of '\' before it),
    // computed once so the backward walk below stays linear.
    std::vector<bool> escaped(s.size() - floor + 1, false);
    std::size_t run = 0;
    for (std::size_t k = floor; k < s.size(); ++k) {
        escaped[k - floor] = run % 2 == 1;
        run = s[k] == '\\' ? run + 1 : 0;
    }
    auto is_escaped = [&](std::size_t k) { return escaped[k - floor]; };
    std::size_t e = s.size();
    while (e > floor) {
        char c = s[e - 1];
        if (is_lwsp(c)) {
            --e;
            continue;
        }
        if (c != ')' || is_escaped(e - 1)) break;
        std::size_t k = e;
        int depth = 0;
        bool matched = false;
        while (k > floor) {
            --k;
            char d = s[k];
            if ((d != '(' && d != ')') || is_escaped(k)) continue;
            if (d == ')') {
                ++depth;
            } else if (--depth == 0) {
                matched = true;
                break;
            }
        }
        if (!matched) break;
        e = k;
    }
    return e;
}

}  // namespace mhtml::uri::text
