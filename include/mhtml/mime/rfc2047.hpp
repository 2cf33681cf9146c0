#pragma once
/// RFC 2047 encoded-words in header fields ("=?charset?B?...?=" / "=?charset*lang?Q?...?=").

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/export.hpp"

namespace mhtml::mime {

/// One piece of a header value as RFC 2047 §6 reads it.
struct rfc2047_segment {
    bool encoded = false;    ///< an encoded-word (then charset/language/octets are set)
    std::string charset;     ///< as written, e.g. "ISO-8859-1"
    std::string language;    ///< RFC 2231 §5 "charset*lang", or empty
    std::string octets;      ///< decoded octets of an encoded-word, or the literal text
    std::size_t offset = 0;  ///< offset of the segment in the input value
};

struct rfc2047_result {
    std::vector<rfc2047_segment> segments;
    bool malformed = false;  ///< something looked like an encoded-word but was not (kept literally)
    bool unknown_charset =
        false;  ///< a word's charset is unknown to iconv (octets kept, shown as windows-1252)
};

/// Splits a header value into literal text and decoded encoded-words. White space between
/// two adjacent encoded-words is dropped (§6.2); malformed words are left as they are.
MHTML_EXPORT rfc2047_result decode_words(std::string_view value);

/// The value with every encoded-word decoded and converted to UTF-8 (display form).
MHTML_EXPORT std::string decode_to_utf8(std::string_view value, bool* malformed = nullptr);

/// The value with every encoded-word replaced by its raw decoded octets, no transcoding
/// (the form MHTML compares URIs in, MHT-4.4.1.10).
MHTML_EXPORT std::string decode_to_octets(std::string_view value);

/// `q` is Q safe in a `phrase` (RFC 2047 §5 (3)); `q_uri` is Q for a URI in
/// Content-Location (MHT-4.4.1.12: only SPACE, "=", "?", "_", '"', "\\", CTLs and 8-bit
/// octets are escaped, SPACE as =20); `shortest` picks phrase-safe Q or B.
enum class rfc2047_encoding : char { q = 'Q', b = 'B', shortest = 0, q_uri = 'U' };

/// Encodes `octets` (in `charset`) as encoded-words of at most 75 characters each, split
/// on character boundaries (UTF-8 aware), joined by CRLF SP. `first_line_used` is how many
/// columns of the first line the field name already takes, so no line exceeds 76.
MHTML_EXPORT std::string encode_words(std::string_view octets, std::string_view charset,
                                      rfc2047_encoding enc = rfc2047_encoding::shortest,
                                      std::size_t first_line_used = 0);

}  // namespace mhtml::mime
