/// Base64 bulk decoding with AVX2 (RFC 2045 §6.8): 32 characters -> 24 octets per step.
/// Compiled with a function-level target attribute, so the library still runs on CPUs without
/// AVX2; base64.cpp only calls this after checking the CPU.

#include "base64_tables.hpp"

#if defined(MHTML_BASE64_X86)

#include <immintrin.h>

namespace mhtml::mime::detail {

namespace {

#define MHTML_TARGET_AVX2 __attribute__((target("avx2")))

/// Translates 32 characters to sextets and returns the mask of those outside the alphabet.
///
/// Validity: each high nibble 2..7 is given one class bit, and each low nibble the set of
/// classes in which it is an alphabet character; a character is valid when they intersect.
///   class 0x01 = 0x2_ ('+' 0x2B, '/' 0x2F)      class 0x02 = 0x3_ ('0'..'9')
///   class 0x04 = 0x4_, 0x6_ (low nibble 1..F)   class 0x08 = 0x5_, 0x7_ (low nibble 0..A)
/// Value: the high nibble picks the offset to add ('A'..'Z' -65, 'a'..'z' -71, digits +4,
/// '+' +19); '/' shares '+''s high nibble, so it is moved to index 1 (offset +16).
MHTML_TARGET_AVX2 inline std::uint32_t translate(__m256i in, __m256i& sextets) noexcept {
    const __m256i class_of_hi =
        _mm256_setr_epi8(0, 0, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                         0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i classes_of_lo =
        _mm256_setr_epi8(0x0a, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0c, 0x05,
                         0x04, 0x04, 0x04, 0x05, 0x0a, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e,
                         0x0e, 0x0e, 0x0c, 0x05, 0x04, 0x04, 0x04, 0x05);
    const __m256i offsets =
        _mm256_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 19, 4,
                         -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi32(in, 4), nibble);
    const __m256i lo = _mm256_and_si256(in, nibble);
    const __m256i both = _mm256_and_si256(_mm256_shuffle_epi8(class_of_hi, hi),
                                          _mm256_shuffle_epi8(classes_of_lo, lo));
    const __m256i bad = _mm256_cmpeq_epi8(both, _mm256_setzero_si256());
    const __m256i slash = _mm256_cmpeq_epi8(in, _mm256_set1_epi8('/'));
    const __m256i index = _mm256_add_epi8(hi, slash);  // '/' -> 2 + (-1)
    sextets = _mm256_add_epi8(in, _mm256_shuffle_epi8(offsets, index));
    return static_cast<std::uint32_t>(_mm256_movemask_epi8(bad));
}

/// Packs 8 groups of 4 sextets into 24 octets at the start of the result.
MHTML_TARGET_AVX2 inline __m256i pack(__m256i sextets) noexcept {
    // Pairs of sextets -> 12-bit words, then pairs of words -> 24-bit values per 32-bit lane.
    const __m256i words = _mm256_maddubs_epi16(sextets, _mm256_set1_epi32(0x01400140));
    const __m256i values = _mm256_madd_epi16(words, _mm256_set1_epi32(0x00011000));
    // Each lane holds its octets little-endian in bytes 0..2; output wants them reversed.
    const __m256i order = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
                                           2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i in_lanes = _mm256_shuffle_epi8(values, order);
    return _mm256_permutevar8x32_epi32(in_lanes, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7));
}

/// Decodes the 32 characters at p into 24 octets at o (storing 32); returns the mask of the
/// characters outside the alphabet (the output is then partly garbage).
MHTML_TARGET_AVX2 inline std::uint32_t decode_block(const std::uint8_t* p,
                                                    std::uint8_t* o) noexcept {
    __m256i sextets;
    const __m256i in = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const std::uint32_t bad = translate(in, sextets);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), pack(sextets));
    return bad;
}

/// Decodes whole lines shaped like the last two: `len` alphabet characters (a multiple of 4,
/// at least 32) and then the line end `eol` (1 or 2 octets). Each line is a fixed set of
/// blocks (the last one overlapping its predecessor), so the position of the next line never
/// waits for the previous one's validity mask. Stops, without consuming it, at the first line
/// that differs.
MHTML_TARGET_AVX2 void decode_lines(const std::uint8_t*& pp, const std::uint8_t* end,
                                    std::uint8_t*& oo, std::uint8_t* o_end, std::size_t len,
                                    const std::uint8_t* eol, std::size_t eol_len) noexcept {
    const std::uint8_t* p = pp;
    std::uint8_t* o = oo;
    const std::size_t stride = len + eol_len;
    const std::size_t out_len = len / 4 * 3;
    const std::size_t last = len - 32;
    const std::uint8_t eol0 = eol[0];
    const std::uint8_t eol1 = eol[eol_len - 1];
    while (static_cast<std::size_t>(end - p) >= stride &&
           static_cast<std::size_t>(o_end - o) >= out_len + 8) {
        if (p[len] != eol0 || p[stride - 1] != eol1) break;
        std::uint32_t bad = 0;
        for (std::size_t at = 0; at < last; at += 32) bad |= decode_block(p + at, o + at / 4 * 3);
        bad |= decode_block(p + last, o + last / 4 * 3);
        if (bad != 0) break;
        p += stride;
        o += out_len;
    }
    pp = p;
    oo = o;
}

}  // namespace

MHTML_TARGET_AVX2 void base64_decode_avx2(const std::uint8_t*& pp, const std::uint8_t* end,
                                          std::uint8_t*& oo, std::uint8_t* o_end) noexcept {
    const std::uint8_t* p = pp;
    std::uint8_t* o = oo;
    const std::uint8_t* line = p;  // start of the current line (as far as this call knows)
    std::size_t previous = 0;      // length of the previous line
    while (end - p >= 32 && o_end - o >= 32) {
        // Stored whole even when only a prefix is valid: the rest is overwritten later.
        const std::uint32_t bad = decode_block(p, o);
        if (bad == 0) {
            p += 32;
            o += 24;
            continue;
        }
        // Keep the whole quanta before the first octet outside the alphabet.
        const unsigned first = static_cast<unsigned>(__builtin_ctz(bad));
        p += first & ~3u;
        o += (first >> 2) * 3;
        // A line break between quanta is skipped here; anything else goes back to the caller.
        if ((first & 3u) != 0 || !is_base64_space(*p)) break;
        const std::uint8_t* const eol = p;
        do ++p;
        while (p < end && is_base64_space(*p));
        const auto length = static_cast<std::size_t>(eol - line);
        if (length == previous && length >= 32 && p - eol <= 2) {
            decode_lines(p, end, o, o_end, length, eol, static_cast<std::size_t>(p - eol));
        }
        previous = length;
        line = p;
    }
    pp = p;
    oo = o;
}

}  // namespace mhtml::mime::detail

#endif
