#pragma once
/// Header fields, RFC 5322 §2.2 / §3.6 and RFC 2045 §3 (with the obsolete syntax of
/// RFC 5322 §4.5: white space before the colon, empty field bodies).
///
/// A header_field_view is a set of views into the input: nothing is copied or decoded
/// until asked. Repeated fields are kept in the order they appear.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mhtml::mime {

/// One field of a header block, exactly as it appears in the input. Borrowed; 24 bytes
/// (archives with 100,000 parts have half a million of these).
class header_field_view {
public:
    header_field_view() = default;
    /// `raw` must contain `name` and `raw_value` (as the parser makes them).
    header_field_view(std::string_view raw, std::string_view name,
                      std::string_view raw_value) noexcept
        : data_(raw.data()),
          raw_size_(static_cast<std::uint32_t>(raw.size())),
          name_size_(static_cast<std::uint32_t>(name.size())),
          value_offset_(static_cast<std::uint32_t>(raw_value.data() - raw.data())),
          value_size_(static_cast<std::uint32_t>(raw_value.size())) {}

    /// The whole field: name, colon, value, folding, final line end.
    std::string_view raw() const noexcept { return {data_, raw_size_}; }
    /// The field name as written (obsolete trailing WSP removed).
    std::string_view name() const noexcept { return {data_, name_size_}; }
    /// After the colon, up to the final line end; folding kept.
    std::string_view raw_value() const noexcept { return {data_ + value_offset_, value_size_}; }

    /// The field body unfolded (RFC 5322 §2.2.3: each line end before WSP removed) with
    /// leading and trailing white space trimmed. CRLF, bare LF and bare CR are all line ends.
    std::string value() const;
    /// True if the name equals `n` ignoring ASCII case.
    bool is(std::string_view n) const noexcept;  // defined below, inline

    /// Longest field the 32-bit sizes hold; the parser does not store longer ones.
    static constexpr std::uint64_t max_size = 0xffffffffu;

private:
    const char* data_ = "";
    std::uint32_t raw_size_ = 0, name_size_ = 0, value_offset_ = 0, value_size_ = 0;
};

/// Unfolds a raw field body: removes every line end (CRLF, LF or CR) that is followed by
/// SP or HTAB, and trims leading and trailing white space.
std::string unfold(std::string_view raw_value);

/// ASCII case-insensitive equality.
inline bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    if (a == b) return true;  // the common case: the same spelling
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x == y) continue;
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
        if (x != y) return false;
    }
    return true;
}

inline bool header_field_view::is(std::string_view n) const noexcept {
    return iequals(name(), n);
}
/// ASCII lower-case copy.
std::string to_lower(std::string_view s);

/// RFC 5322 §3.2.2: skips white space, line ends and (nested) comments from `pos`.
/// Returns the position of the first other character (or s.size()).
std::size_t skip_cfws(std::string_view s, std::size_t pos) noexcept;

}  // namespace mhtml::mime
