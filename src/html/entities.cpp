// Character references (WHATWG HTML "character reference state"), decoded into UTF-8, with
// a map from decoded octets back to raw octets so that a reference found in a decoded
// attribute value can be located in the input.
#include "entities.hpp"

#include <algorithm>
#include <array>

namespace mhtml::html::detail {

namespace {

struct named {
    std::string_view name;   // without '&'; ends with ';' when the reference needs one
    std::string_view value;  // UTF-8
};

constexpr named table[] = {
#include "entities.inc"
};

constexpr std::size_t longest_name = 32;

const named* find_named(std::string_view name) noexcept {
    auto it = std::lower_bound(std::begin(table), std::end(table), name,
                               [](const named& e, std::string_view n) { return e.name < n; });
    return it != std::end(table) && it->name == name ? it : nullptr;
}

bool is_alnum(char c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// "numeric character reference end state": the code points a numeric reference may not
// stand for, and the windows-1252 reading of 0x80-0x9F.
char32_t fix_code_point(char32_t cp) noexcept {
    static constexpr std::array<char16_t, 32> c1 = {
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
        0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0xFFFD;
    if (cp >= 0x80 && cp <= 0x9F) return c1[cp - 0x80];
    return cp;
}

}  // namespace

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::size_t decode_reference(std::string_view s, std::size_t pos, bool in_attribute,
                             std::string& out) {
    // s[pos] == '&'
    const std::size_t n = s.size();
    std::size_t i = pos + 1;
    if (i < n && s[i] == '#') {
        ++i;
        bool hex = i < n && (s[i] == 'x' || s[i] == 'X');
        if (hex) ++i;
        std::size_t digits_start = i;
        char32_t cp = 0;
        bool overflow = false;
        while (i < n) {
            char c = s[i];
            int d = c >= '0' && c <= '9'          ? c - '0'
                    : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                  : -1;
            if (d < 0) break;
            if (!overflow) {
                cp = cp * (hex ? 16 : 10) + static_cast<char32_t>(d);
                if (cp > 0x10FFFF) overflow = true;
            }
            ++i;
        }
        if (i == digits_start) return 0;  // "&#" or "&#x" with no digits: not a reference
        if (i < n && s[i] == ';') ++i;
        append_utf8(out, overflow ? char32_t(0xFFFD) : fix_code_point(cp));
        return i - pos;
    }
    std::size_t run = 0;
    while (i + run < n && run < longest_name && is_alnum(s[i + run])) ++run;
    if (run == 0) return 0;
    if (i + run < n && s[i + run] == ';') {
        std::string name(s.substr(i, run + 1));
        if (const named* e = find_named(name)) {
            out += e->value;
            return run + 2;
        }
    }
    // The longest name without ';' (the legacy ones) that starts the run.
    for (std::size_t len = std::min<std::size_t>(run, 8); len >= 2; --len) {
        const named* e = find_named(s.substr(i, len));
        if (!e) continue;
        char next = i + len < n ? s[i + len] : '\0';
        if (in_attribute && (next == '=' || is_alnum(next))) return 0;  // historical: left as it is
        out += e->value;
        return len + 1;
    }
    return 0;
}

void decode_text(std::string_view raw, bool in_attribute, std::string& out,
                 std::vector<std::size_t>* map) {
    out.clear();
    if (map) map->clear();
    std::size_t i = 0;
    while (i < raw.size()) {
        std::size_t amp = raw.find('&', i);
        if (amp == std::string_view::npos) amp = raw.size();
        for (std::size_t k = i; k < amp; ++k) {
            out += raw[k];
            if (map) map->push_back(k);
        }
        i = amp;
        if (i == raw.size()) break;
        std::size_t before = out.size();
        std::size_t used = decode_reference(raw, i, in_attribute, out);
        if (used == 0) {
            out += '&';
            used = 1;
        }
        if (map)
            for (std::size_t k = before; k < out.size(); ++k) map->push_back(i);
        i += used;
    }
    if (map) map->push_back(raw.size());
}

}  // namespace mhtml::html::detail
