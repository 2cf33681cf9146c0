#pragma once
// Character references, internal to the html/ layer.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::html::detail {

/// Appends the UTF-8 form of code point `cp` (at most U+10FFFF).
void append_utf8(std::string& out, char32_t cp);

/// Decodes the character reference at s[pos] == '&', appending its UTF-8 to `out`.
/// Returns the octets it used, or 0 when it is not a reference (then nothing is appended
/// and the '&' stands for itself). `in_attribute` applies the attribute rule for legacy
/// names without ';' followed by '=' or an alphanumeric.
std::size_t decode_reference(std::string_view s, std::size_t pos, bool in_attribute,
                             std::string& out);

/// Decodes every reference in `raw` into `out`. With `map`, map[i] is the raw offset of
/// decoded octet i (every octet of one reference maps to its '&') and map[out.size()] is
/// raw.size(), so a decoded range [a, b) is the raw range [map[a], map[b]).
void decode_text(std::string_view raw, bool in_attribute, std::string& out,
                 std::vector<std::size_t>* map = nullptr);

}  // namespace mhtml::html::detail
