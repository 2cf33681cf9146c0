#pragma once
/// Internal to the base64 codec (RFC 2045 §6.8): lookup tables shared by the scalar code and
/// the bulk-decoding kernels, and the kernels' declarations.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace mhtml::mime::detail {

/// The base64 alphabet, RFC 2045 §6.8 Table 1 (= RFC 4648 §4).
inline constexpr char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Marks an octet that is not in the alphabet in base64_rank.
inline constexpr std::uint8_t base64_not_alphabet = 0xff;

constexpr std::array<std::uint8_t, 256> make_base64_rank() {
    std::array<std::uint8_t, 256> t{};
    for (auto& v : t) v = base64_not_alphabet;
    for (std::uint8_t i = 0; i < 64; ++i) t[static_cast<unsigned char>(base64_alphabet[i])] = i;
    return t;
}

/// Octet -> sextet value (0..63), or base64_not_alphabet.
inline constexpr std::array<std::uint8_t, 256> base64_rank = make_base64_rank();

/// White space that RFC 2045 §6.8 expects between encoded characters (line breaks, and the
/// spaces some transports add); skipped without being reported as invalid.
constexpr bool is_base64_space(std::uint8_t c) noexcept {
    return c == '\r' || c == '\n' || c == ' ' || c == '\t';
}

/// Bit set in every entry of base64_quad for an octet outside the alphabet. The tables put
/// the three decoded octets in the first three bytes of the 32-bit word as stored in memory
/// and this flag in the fourth, so a decoded quantum is one 4-byte store.
inline constexpr std::uint32_t base64_quad_invalid =
    std::endian::native == std::endian::little ? 0x01000000u : 0x00000001u;

constexpr std::uint32_t base64_place(std::uint32_t value24) noexcept {
    const std::uint32_t b0 = (value24 >> 16) & 0xff;
    const std::uint32_t b1 = (value24 >> 8) & 0xff;
    const std::uint32_t b2 = value24 & 0xff;
    if constexpr (std::endian::native == std::endian::little) {
        return b0 | (b1 << 8) | (b2 << 16);
    } else {
        return (b0 << 24) | (b1 << 16) | (b2 << 8);
    }
}

constexpr std::array<std::array<std::uint32_t, 256>, 4> make_base64_quad() {
    std::array<std::array<std::uint32_t, 256>, 4> t{};
    for (int pos = 0; pos < 4; ++pos) {
        for (int c = 0; c < 256; ++c) {
            const std::uint8_t s = base64_rank[static_cast<std::size_t>(c)];
            t[static_cast<std::size_t>(pos)][static_cast<std::size_t>(c)] =
                s == base64_not_alphabet
                    ? base64_quad_invalid
                    : base64_place(static_cast<std::uint32_t>(s) << (18 - 6 * pos));
        }
    }
    return t;
}

/// base64_quad[i][c]: the contribution of character c at position i of a quantum, already in
/// output byte order; OR the four together to get the decoded quantum.
inline constexpr std::array<std::array<std::uint32_t, 256>, 4> base64_quad = make_base64_quad();

/// A bulk decoder. Decodes whole quanta of alphabet characters from [p, end) into o, and skips
/// white space found between two quanta. Returns (advancing p and o) at the first quantum it
/// cannot decode on its own (one holding '=', white space or another octet outside the
/// alphabet), or when fewer input octets or less output room than it needs remain. Never
/// writes at or past o_end. The caller's decoder must be between quanta, with no '=' pending.
using base64_kernel = void (*)(const std::uint8_t*& p, const std::uint8_t* end, std::uint8_t*& o,
                               std::uint8_t* o_end) noexcept;

void base64_decode_scalar(const std::uint8_t*& p, const std::uint8_t* end, std::uint8_t*& o,
                          std::uint8_t* o_end) noexcept;
/// Encoding kernels: encode whole lines of `line_octets` input octets (57 for 76-character
/// lines), each followed by CRLF, while that much input is left; with `line_octets` 0, encode
/// 3-octet groups without line breaks while enough input is left for a vector step. They
/// leave the rest (and any partial line) to the scalar code, and give its exact output.
using base64_encode_kernel = void (*)(const std::uint8_t*& p, const std::uint8_t* end, char*& o,
                                      std::size_t line_octets) noexcept;

/// One 3-octet group as four characters (the kernels' scalar tail).
inline char* base64_put_group(const std::uint8_t* p, char* o) noexcept {
    const std::uint32_t v = (std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2];
    o[0] = base64_alphabet[v >> 18];
    o[1] = base64_alphabet[(v >> 12) & 63];
    o[2] = base64_alphabet[(v >> 6) & 63];
    o[3] = base64_alphabet[v & 63];
    return o + 4;
}

#if defined(__x86_64__) || defined(__i386__)
#define MHTML_BASE64_X86 1
void base64_encode_avx2(const std::uint8_t*& p, const std::uint8_t* end, char*& o,
                        std::size_t line_octets) noexcept;
void base64_encode_avx512(const std::uint8_t*& p, const std::uint8_t* end, char*& o,
                          std::size_t line_octets) noexcept;
void base64_decode_avx2(const std::uint8_t*& p, const std::uint8_t* end, std::uint8_t*& o,
                        std::uint8_t* o_end) noexcept;
void base64_decode_avx512(const std::uint8_t*& p, const std::uint8_t* end, std::uint8_t*& o,
                          std::uint8_t* o_end) noexcept;
#endif

}  // namespace mhtml::mime::detail
