/// Base64 bulk encoding (RFC 2045 §6.8) with AVX2 (24 octets -> 32 characters per step) and
/// AVX-512 VBMI (48 -> 64). The method is Muła and Lemire's ("Faster Base64 Encoding and
/// Decoding Using AVX2 Instructions", 2018; the AVX-512 VBMI variant of the same authors):
/// spread each 3-octet group over a 32-bit lane, cut it into four sextets, and translate the
/// sextets to the alphabet. Compiled with function-level target attributes, so the library
/// still runs on CPUs without them; base64.cpp only calls these after checking the CPU.

#include <cstring>

#include "base64_tables.hpp"

#if defined(MHTML_BASE64_X86)

// GCC 12's VBMI intrinsics pass an undefined vector as the unused merge operand, which
// -Wmaybe-uninitialized reports (a false positive).
#pragma GCC diagnostic push
#if !defined(__clang__)  // clang has no such warning and rejects the unknown name
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace mhtml::mime::detail {

namespace {

#define MHTML_TARGET_AVX2 __attribute__((target("avx2")))
#define MHTML_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi")))

/// 24 octets (12 in each 128-bit lane) -> 32 sextets, one per byte.
MHTML_TARGET_AVX2 inline __m256i sextets_avx2(const std::uint8_t* p) noexcept {
    // Each lane reads 16 octets and uses 12: [0, 16) and [12, 28).
    __m256i in = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 12)), 1);
    // Each group (a b c) becomes the 32-bit lane (b a c b).
    in =
        _mm256_shuffle_epi8(in, _mm256_set_epi8(10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1,
                                                10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1));
    // Sextets 0 and 2 by a high multiply, 1 and 3 by a low multiply, each to its own byte.
    const __m256i t0 = _mm256_and_si256(in, _mm256_set1_epi32(0x0fc0fc00));
    const __m256i t1 = _mm256_mulhi_epu16(t0, _mm256_set1_epi32(0x04000040));
    const __m256i t2 = _mm256_and_si256(in, _mm256_set1_epi32(0x003f03f0));
    const __m256i t3 = _mm256_mullo_epi16(t2, _mm256_set1_epi32(0x01000010));
    return _mm256_or_si256(t1, t3);
}

/// Sextets -> alphabet: add the offset of each sextet's range ('A', 'a', '0', '+', '/').
MHTML_TARGET_AVX2 inline __m256i translate_avx2(__m256i x) noexcept {
    // 0..51 -> 0, 52..61 -> 1..10, 62 -> 11, 63 -> 12; then 0..25 -> 13.
    __m256i idx = _mm256_subs_epu8(x, _mm256_set1_epi8(51));
    const __m256i below26 = _mm256_cmpgt_epi8(_mm256_set1_epi8(26), x);
    idx = _mm256_or_si256(idx, _mm256_and_si256(below26, _mm256_set1_epi8(13)));
    const __m256i offsets =
        _mm256_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                         '0' - 52, '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0,
                         'a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                         '0' - 52, '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
    return _mm256_add_epi8(_mm256_shuffle_epi8(offsets, idx), x);
}

MHTML_TARGET_AVX2 inline void block_avx2(const std::uint8_t* p, char* o) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), translate_avx2(sextets_avx2(p)));
}

/// 48 octets -> 64 characters: bytes spread to (b a c b) per 32-bit lane by one permute, the
/// four sextets picked out of each 64-bit lane by a multishift, the alphabet by a permute.
MHTML_TARGET_AVX512 inline void block_avx512(const std::uint8_t* p, char* o, __m512i spread,
                                             __m512i shifts, __m512i alphabet) noexcept {
    const __m512i in = _mm512_maskz_loadu_epi8(0x0000ffffffffffffULL, p);
    const __m512i x = _mm512_permutexvar_epi8(spread, in);
    const __m512i idx = _mm512_multishift_epi64_epi8(shifts, x);
    _mm512_storeu_si512(o, _mm512_permutexvar_epi8(idx, alphabet));
}

}  // namespace

MHTML_TARGET_AVX2 void base64_encode_avx2(const std::uint8_t*& pp, const std::uint8_t* end,
                                          char*& oo, std::size_t line_octets) noexcept {
    const std::uint8_t* p = pp;
    char* o = oo;
    if (line_octets == 57) {
        // A 76-character line: two vector blocks (48 octets) and three groups.
        while (end - p >= 57) {
            block_avx2(p, o);
            block_avx2(p + 24, o + 32);
            o = base64_put_group(p + 48, o + 64);
            o = base64_put_group(p + 51, o);
            o = base64_put_group(p + 54, o);
            o[0] = '\r';
            o[1] = '\n';
            o += 2;
            p += 57;
        }
    } else if (line_octets == 0) {
        while (end - p >= 28) {  // a block reads 28 octets
            block_avx2(p, o);
            p += 24;
            o += 32;
        }
    }
    pp = p;
    oo = o;
}

MHTML_TARGET_AVX512 void base64_encode_avx512(const std::uint8_t*& pp, const std::uint8_t* end,
                                              char*& oo, std::size_t line_octets) noexcept {
    const __m512i spread =
        _mm512_setr_epi32(0x01020001, 0x04050304, 0x07080607, 0x0a0b090a, 0x0d0e0c0d, 0x10110f10,
                          0x13141213, 0x16171516, 0x191a1819, 0x1c1d1b1c, 0x1f201e1f, 0x22232122,
                          0x25262425, 0x28292728, 0x2b2c2a2b, 0x2e2f2d2e);
    const __m512i shifts = _mm512_set1_epi64(0x3036242a1016040aLL);
    const __m512i alphabet = _mm512_loadu_si512(base64_alphabet);
    const std::uint8_t* p = pp;
    char* o = oo;
    if (line_octets == 57) {
        // A 76-character line: one vector block (48 octets) and three groups.
        while (end - p >= 57) {
            block_avx512(p, o, spread, shifts, alphabet);
            o = base64_put_group(p + 48, o + 64);
            o = base64_put_group(p + 51, o);
            o = base64_put_group(p + 54, o);
            o[0] = '\r';
            o[1] = '\n';
            o += 2;
            p += 57;
        }
    } else if (line_octets == 0) {
        while (end - p >= 48) {
            block_avx512(p, o, spread, shifts, alphabet);
            p += 48;
            o += 64;
        }
    }
    pp = p;
    oo = o;
}

}  // namespace mhtml::mime::detail

#pragma GCC diagnostic pop

#endif
