#pragma once
/// JSON string escaping shared by the library (extract's manifest.json) and the CLI's --json
/// output (RFC 8259 §7): one rule for every JSON string mhtml writes.

#include "mhtml/export.hpp"
#include <string>
#include <string_view>

namespace mhtml::json {

/// Appends `s` as a JSON string (quotes included): '"' and '\' escaped, control characters
/// and DEL as \n, \r, \t or \u00XX, well-formed UTF-8 as it is, and each octet of an
/// ill-formed sequence as \u00XX (its Latin-1 reading), so the output is always valid JSON
/// and the octets can be told from a U+FFFD that was in the text.
MHTML_EXPORT void append_string(std::string& out, std::string_view s);

/// The same, returned.
MHTML_EXPORT std::string quoted(std::string_view s);

}  // namespace mhtml::json
