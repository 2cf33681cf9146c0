#pragma once
// A JSON string literal for arbitrary octets (internal to src/view): valid UTF-8 is kept,
// every octet that is not part of valid UTF-8 becomes U+FFFD, controls are escaped.

#include <string>
#include <string_view>

namespace mhtml::view::detail {

std::string json_string(std::string_view s);

}  // namespace mhtml::view::detail
