#pragma once
/// Generated Content-IDs (MHT-8.3.3, CID-5, CID-12, CID-15, THTML-9.3.3).

#include <string>
#include <string_view>

#include "mhtml/export.hpp"

namespace mhtml::pack {

/// A new globally unique Content-ID addr-spec, without angle brackets: 128 random bits
/// (from the operating system's generator) as 26 lower-case base32 characters, `@`, then
/// `domain` (default `mhtml.invalid`). It reveals no host name, user name, path or time
/// (CID-15): `^[0-9a-z]{26}@mhtml\.invalid$`. Thread-safe.
MHTML_EXPORT std::string make_content_id(std::string_view domain = "mhtml.invalid");

}  // namespace mhtml::pack
