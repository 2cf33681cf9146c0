#pragma once
/// Charset conversion through iconv, for RFC 2047 words and RFC 2231 parameter values.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/export.hpp"

namespace mhtml::mime {

/// Converts `bytes` in `charset` (any name iconv knows, matched case-insensitively, plus
/// the MIME aliases iconv lacks) to UTF-8. `us-ascii` with 8-bit octets and `unknown-8bit`
/// are read as windows-1252 (what mail readers do). Returns nullopt for an unknown charset;
/// invalid sequences in a known charset become U+FFFD.
MHTML_EXPORT std::optional<std::string> to_utf8(std::string_view bytes, std::string_view charset);

/// Converts UTF-8 `text` to `charset`; nullopt if the charset is unknown or cannot
/// represent the text.
MHTML_EXPORT std::optional<std::string> from_utf8(std::string_view text, std::string_view charset);

/// True if iconv knows `charset` (after alias mapping).
MHTML_EXPORT bool charset_known(std::string_view charset);

/// The name iconv is asked for: `charset` without surrounding white space and quotes,
/// upper-cased, with the MIME aliases above applied ("ks_c_5601-1987" -> "CP949",
/// "utf8" -> "UTF-8"). nullopt if it is not a plausible charset name (empty, longer than
/// 64 octets, or a character outside letters, digits and "-_.:+"; this also keeps iconv
/// suffixes such as "//IGNORE" out). Does not check that iconv knows the charset.
MHTML_EXPORT std::optional<std::string> canonical_charset(std::string_view charset);

/// Splits `bytes` in `charset` into characters as iconv reads them and returns the octet
/// length of each, so that an encoder never splits a multi-octet character (RFC 2047 §5).
/// An invalid or truncated sequence counts as characters of one octet; the lengths always
/// add up to bytes.size(). nullopt for an unknown charset.
MHTML_EXPORT std::optional<std::vector<std::size_t>> character_lengths(std::string_view bytes,
                                                                       std::string_view charset);

}  // namespace mhtml::mime
