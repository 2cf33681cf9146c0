/// Base64 bulk decoding with AVX-512 VBMI (RFC 2045 §6.8): 64 characters -> 48 octets per
/// step. Compiled with a function-level target attribute, so the library still runs on CPUs
/// without it; base64.cpp only calls this after checking the CPU.

#include "base64_tables.hpp"

#if defined(MHTML_BASE64_X86)

#include <immintrin.h>

namespace mhtml::mime::detail {

namespace {

#define MHTML_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi")))

struct alignas(64) byte_table {
    std::uint8_t v[128];
};

/// ASCII -> sextet, with 0x80 for every character outside the alphabet.
constexpr byte_table make_ascii_rank() {
    byte_table t{};
    for (std::size_t c = 0; c < 128; ++c) {
        const std::uint8_t s = base64_rank[c];
        t.v[c] = s == base64_not_alphabet ? 0x80 : s;
    }
    return t;
}

/// Output octet j of 48 comes from 32-bit lane j / 3, byte 2 - j % 3 (lanes hold 24-bit values
/// little-endian, the output is big-endian).
constexpr byte_table make_pack_order() {
    byte_table t{};
    for (std::size_t j = 0; j < 64; ++j) {
        t.v[j] = static_cast<std::uint8_t>(j < 48 ? j / 3 * 4 + 2 - j % 3 : j);
    }
    return t;
}

constexpr byte_table ascii_rank = make_ascii_rank();
constexpr byte_table pack_order = make_pack_order();

/// The constants of one decoding step, kept in registers across calls.
struct decode_constants {
    __m512i rank_lo, rank_hi, order, pair_weights, word_weights;
};

MHTML_TARGET_AVX512 inline decode_constants load_constants() noexcept {
    return {_mm512_load_si512(ascii_rank.v), _mm512_load_si512(ascii_rank.v + 64),
            _mm512_load_si512(pack_order.v), _mm512_set1_epi32(0x01400140),
            _mm512_set1_epi32(0x00011000)};
}

/// Decodes the 64 characters at p into 48 octets at o (storing 64); returns the mask of the
/// characters outside the alphabet (the output is then partly garbage).
MHTML_TARGET_AVX512 inline std::uint64_t decode_block(const decode_constants& k,
                                                      const std::uint8_t* p,
                                                      std::uint8_t* o) noexcept {
    const __m512i in = _mm512_loadu_si512(p);
    // A 128-entry lookup on the low 7 bits; octets >= 0x80 keep their high bit and so are
    // flagged by the same sign test as the 0x80 entries.
    const __m512i sextets = _mm512_permutex2var_epi8(k.rank_lo, in, k.rank_hi);
    const std::uint64_t bad = _mm512_movepi8_mask(_mm512_or_si512(sextets, in));
    // Pairs of sextets -> 12-bit words, pairs of words -> 24-bit values per 32-bit lane.
    const __m512i words = _mm512_maddubs_epi16(sextets, k.pair_weights);
    const __m512i values = _mm512_madd_epi16(words, k.word_weights);
    const __mmask64 out_bytes = (std::uint64_t{1} << 48) - 1;
    _mm512_storeu_si512(o, _mm512_maskz_permutexvar_epi8(out_bytes, k.order, values));
    return bad;
}

/// Decodes whole lines shaped like the last two: `len` alphabet characters (a multiple of 4,
/// at least 64) and then the line end `eol` (1 or 2 octets). Each line is a fixed set of
/// blocks (the last one overlapping its predecessor), so the position of the next line never
/// waits for the previous one's validity mask. Stops, without consuming it, at the first line
/// that differs.
MHTML_TARGET_AVX512 void decode_lines(const decode_constants& k, const std::uint8_t*& pp,
                                      const std::uint8_t* end, std::uint8_t*& oo,
                                      std::uint8_t* o_end, std::size_t len, const std::uint8_t* eol,
                                      std::size_t eol_len) noexcept {
    const std::uint8_t* p = pp;
    std::uint8_t* o = oo;
    const std::size_t stride = len + eol_len;
    const std::size_t out_len = len / 4 * 3;
    const std::size_t last = len - 64;
    const std::uint8_t eol0 = eol[0];
    const std::uint8_t eol1 = eol[eol_len - 1];
    while (static_cast<std::size_t>(end - p) >= stride &&
           static_cast<std::size_t>(o_end - o) >= out_len + 16) {
        if (p[len] != eol0 || p[stride - 1] != eol1) break;
        std::uint64_t bad = 0;
        for (std::size_t at = 0; at < last; at += 64)
            bad |= decode_block(k, p + at, o + at / 4 * 3);
        bad |= decode_block(k, p + last, o + last / 4 * 3);
        if (bad != 0) break;
        p += stride;
        o += out_len;
    }
    pp = p;
    oo = o;
}

}  // namespace

MHTML_TARGET_AVX512 void base64_decode_avx512(const std::uint8_t*& pp, const std::uint8_t* end,
                                              std::uint8_t*& oo, std::uint8_t* o_end) noexcept {
    const decode_constants k = load_constants();
    const std::uint8_t* p = pp;
    std::uint8_t* o = oo;
    const std::uint8_t* line = p;  // start of the current line (as far as this call knows)
    std::size_t previous = 0;      // length of the previous line
    while (end - p >= 64 && o_end - o >= 64) {
        // Stored whole even when only a prefix is valid: the rest is overwritten later.
        const std::uint64_t bad = decode_block(k, p, o);
        if (bad == 0) {
            p += 64;
            o += 48;
            continue;
        }
        // Keep the whole quanta before the first octet outside the alphabet.
        const unsigned first = static_cast<unsigned>(__builtin_ctzll(bad));
        p += first & ~3u;
        o += (first >> 2) * 3;
        // A line break between quanta is skipped here; anything else goes back to the caller.
        if ((first & 3u) != 0 || !is_base64_space(*p)) break;
        const std::uint8_t* const eol = p;
        do ++p;
        while (p < end && is_base64_space(*p));
        const auto length = static_cast<std::size_t>(eol - line);
        if (length == previous && length >= 64 && p - eol <= 2) {
            decode_lines(k, p, end, o, o_end, length, eol, static_cast<std::size_t>(p - eol));
        }
        previous = length;
        line = p;
    }
    pp = p;
    oo = o;
}

}  // namespace mhtml::mime::detail

#endif
