#pragma once
// Internal: the length of a header field's name, shared by the parser (which decides what
// a field is) and header_field_view (which finds the name again from the raw field).

#include <cstddef>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mhtml::mime::detail {

// RFC 5322 §3.6.8 ftext, as Python's email accepts it: printable US-ASCII except ':'.
constexpr bool is_ftext(char c) noexcept {
    auto u = static_cast<unsigned char>(c);
    return u >= 0x21 && u <= 0x7e && c != ':';
}

// Length of the run of ftext octets at the start of `s` (the field name). Line ends are
// not ftext, so for a whole field it is the same as for its first line.
inline std::size_t ftext_run(std::string_view s) noexcept {
    std::size_t n = 0;
#if defined(__SSE2__)
    const __m128i colon = _mm_set1_epi8(':'), del = _mm_set1_epi8(0x7f), low = _mm_set1_epi8(0x21);
    while (s.size() - n >= 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + n));
        // Signed compare: 0x00-0x20 and 0x80-0xFF are all "less than 0x21".
        __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, del)),
                                   _mm_cmplt_epi8(v, low));
        int mask = _mm_movemask_epi8(bad);
        if (mask != 0)
            return n + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
        n += 16;
    }
#endif
    while (n < s.size() && is_ftext(s[n])) ++n;
    return n;
}

}  // namespace mhtml::mime::detail
