#pragma once
/// ASCII helpers shared by every layer: one implementation of each (the protocols mhtml
/// reads compare names ASCII case-insensitively, never by locale).

#include <cstddef>
#include <string>
#include <string_view>

namespace mhtml::ascii {

constexpr char lower(char c) noexcept {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

constexpr bool is_alpha(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/// HTML's "ASCII whitespace" (also CSS's and the URL standard's): TAB, LF, FF, CR, SP.
constexpr bool is_html_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/// ASCII case-insensitive equality.
constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i] && lower(a[i]) != lower(b[i])) return false;
    return true;
}

/// `s` starts with `prefix`, ASCII case-insensitively.
constexpr bool istarts_with(std::string_view s, std::string_view prefix) noexcept {
    return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

/// `s` ends with `suffix`, ASCII case-insensitively.
constexpr bool iends_with(std::string_view s, std::string_view suffix) noexcept {
    return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}

/// The first position at or after `from` of an octet in `set` (npos when none): what
/// std::string_view::find_first_of answers, without the library call per octet that
/// libstdc++ makes (a memchr over `set` for each octet of `s`). For short sets.
constexpr std::size_t find_first_of(std::string_view s, std::string_view set,
                                    std::size_t from = 0) noexcept {
    for (std::size_t i = from; i < s.size(); ++i)
        for (const char c : set)
            if (s[i] == c) return i;
    return std::string_view::npos;
}

/// As find_first_of, the first octet not in `set`.
constexpr std::size_t find_first_not_of(std::string_view s, std::string_view set,
                                        std::size_t from = 0) noexcept {
    for (std::size_t i = from; i < s.size(); ++i) {
        bool in = false;
        for (const char c : set) in |= s[i] == c;
        if (!in) return i;
    }
    return std::string_view::npos;
}

/// ASCII lower-case copy.
inline std::string lowered(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = lower(c);
    return out;
}

}  // namespace mhtml::ascii
