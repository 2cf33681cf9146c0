#pragma once
/// Header fields, RFC 5322 §2.2 / §3.6 and RFC 2045 §3 (with the obsolete syntax of
/// RFC 5322 §4.5: white space before the colon, empty field bodies).
///
/// A header_field_view is a set of views into the input: nothing is copied or decoded
/// until asked. Repeated fields are kept in the order they appear.

#include <cstddef>
#include <string>
#include <string_view>

namespace mhtml::mime {

/// One field of a header block, exactly as it appears in the input. Borrowed.
struct header_field_view {
    std::string_view raw;        ///< the whole field: name, colon, value, folding, final line end
    std::string_view name;       ///< the field name as written (obsolete trailing WSP removed)
    std::string_view raw_value;  ///< after the colon, up to the final line end; folding kept

    /// The field body unfolded (RFC 5322 §2.2.3: each line end before WSP removed) with
    /// leading and trailing white space trimmed. CRLF, bare LF and bare CR are all line ends.
    std::string value() const;
    /// True if the name equals `n` ignoring ASCII case.
    bool is(std::string_view n) const noexcept;
};

/// Unfolds a raw field body: removes every line end (CRLF, LF or CR) that is followed by
/// SP or HTAB, and trims leading and trailing white space.
std::string unfold(std::string_view raw_value);

/// ASCII case-insensitive equality.
bool iequals(std::string_view a, std::string_view b) noexcept;
/// ASCII lower-case copy.
std::string to_lower(std::string_view s);

/// RFC 5322 §3.2.2: skips white space, line ends and (nested) comments from `pos`.
/// Returns the position of the first other character (or s.size()).
std::size_t skip_cfws(std::string_view s, std::size_t pos) noexcept;

}  // namespace mhtml::mime
