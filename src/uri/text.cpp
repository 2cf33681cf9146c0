#include "text.hpp"

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
    std::size_t colon = ascii::find_first_of(uri, ":/?#");
    if (colon == std::string_view::npos || uri[colon] != ':') return 0;
    std::string_view scheme = uri.substr(0, colon);
    return is_scheme(scheme) || is_fictitious_scheme(scheme) ? colon : 0;
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
