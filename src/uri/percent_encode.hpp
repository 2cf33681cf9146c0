#pragma once
// Internal: %-encoding with a caller's rule, shared by the layers that build URLs (header
// values, the fetchers, the viewer server). Upper-case hex (RFC 3986 2.1's preference).

#include <string>
#include <string_view>

namespace mhtml::uri::detail {

/// `s` with each octet for which `encode(octet)` holds written %XX.
template <typename Pred>
std::string percent_encoded(std::string_view s, Pred encode) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (encode(u)) {
            out += '%';
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace mhtml::uri::detail
