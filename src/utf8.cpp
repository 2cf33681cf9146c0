#include "mhtml/utf8.hpp"

namespace mhtml::utf8 {

namespace {

constexpr bool is_continuation(unsigned char c) noexcept {
    return (c & 0xC0) == 0x80;
}

}  // namespace

std::size_t sequence_length(std::string_view s, std::size_t i, std::size_t* bad) noexcept {
    const auto at = [&](std::size_t k) -> int {
        return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : -1;
    };
    const int b0 = at(0);
    if (b0 < 0x80) return 1;
    std::size_t need = 0;
    int lo = 0x80, hi = 0xBF;  // range of the second octet
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 2;
        if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
        if (b0 == 0xED) hi = 0x9F;  // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 3;
        if (b0 == 0xF0) lo = 0x90;  // no overlong forms
        if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
        if (bad) *bad = 1;
        return 0;
    }
    for (std::size_t k = 1; k <= need; ++k) {
        const int b = at(k);
        const bool ok = k == 1 ? (b >= lo && b <= hi)
                               : (b >= 0 && is_continuation(static_cast<unsigned char>(b)));
        if (!ok) {
            if (bad) *bad = k;
            return 0;
        }
    }
    return need + 1;
}

bool valid(std::string_view s) noexcept {
    for (std::size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {  // the common case: ASCII
            ++i;
            continue;
        }
        const std::size_t n = sequence_length(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string sanitized(std::string_view s) {
    if (valid(s)) return std::string(s);
    std::string out;
    out.reserve(s.size() + s.size() / 2 + 3);
    for (std::size_t i = 0; i < s.size();) {
        std::size_t bad = 0;
        const std::size_t n = sequence_length(s, i, &bad);
        if (n != 0) {
            out.append(s.substr(i, n));
            i += n;
        } else {
            out.append(replacement);
            i += bad;
        }
    }
    return out;
}

}  // namespace mhtml::utf8
