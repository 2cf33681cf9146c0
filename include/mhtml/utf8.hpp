#pragma once
/// UTF-8 validation shared by every layer (RFC 3629 §4): one reading of what is well formed,
/// and one rule for what replaces what is not (Unicode's "maximal subpart": U+FFFD for each
/// maximal ill-formed subsequence, as the WHATWG Encoding Standard decodes).

#include "mhtml/export.hpp"
#include <cstddef>
#include <string>
#include <string_view>

namespace mhtml::utf8 {

/// U+FFFD REPLACEMENT CHARACTER in UTF-8.
inline constexpr std::string_view replacement = "\xEF\xBF\xBD";

/// Length of the well-formed sequence at s[i] (1 for ASCII), or 0 when it is ill-formed;
/// then `*bad`, when given, is the length of its maximal ill-formed subpart (at least 1).
/// No overlong forms, no surrogates, nothing above U+10FFFF.
MHTML_EXPORT std::size_t sequence_length(std::string_view s, std::size_t i,
                                     std::size_t* bad = nullptr) noexcept;

/// True when all of `s` is well-formed UTF-8.
MHTML_EXPORT bool valid(std::string_view s) noexcept;

/// `s` with every maximal ill-formed subpart replaced by U+FFFD.
MHTML_EXPORT std::string sanitized(std::string_view s);

}  // namespace mhtml::utf8
