#pragma once
/// Base64 transfer encoding, RFC 2045 §6.8.
///
/// Decoding skips every octet outside the alphabet (line breaks, spaces, stray characters)
/// as §6.8 requires, tolerates missing or misplaced padding, and reports each of those in
/// codec_status. The decoder is resumable: the result does not depend on how the input is
/// split between step() calls. Large inputs use AVX2 / AVX-512 code selected at run time;
/// the portable scalar path gives identical output (set_simd_level forces it in tests).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mhtml/export.hpp"
#include "mhtml/mime/codec_status.hpp"

namespace mhtml::mime {

/// Which implementation the codecs may use. `automatic` picks the best the CPU supports.
enum class simd_level : std::uint8_t { scalar, avx2, avx512, automatic };
/// Restricts the codecs to at most `level` (process-wide; for tests and benchmarks). With
/// `scalar`, the quoted-printable decoder does not use its SSE2 scan either.
MHTML_EXPORT void set_simd_level(simd_level level) noexcept;
/// The implementation in use now.
MHTML_EXPORT simd_level active_simd_level() noexcept;

class MHTML_EXPORT base64_decoder {
public:
    /// Output room step() may need for `n` input octets (including a carried partial quantum).
    static constexpr std::size_t max_output(std::size_t n) noexcept { return n / 4 * 3 + 3; }
    /// Decodes `in` into `out` (room for max_output(in.size())); returns octets written.
    std::size_t step(std::string_view in, char* out) noexcept;
    /// Flushes a partial final quantum; returns octets written (at most 2).
    std::size_t finish(char* out) noexcept;
    const codec_status& status() const noexcept { return status_; }
    void reset() noexcept { *this = base64_decoder{}; }

private:
    friend codec_status base64_decode(std::string_view in, std::string& out);
    void octet(std::uint8_t c, std::uint64_t offset, std::uint8_t*& o) noexcept;

    std::uint32_t bits_ = 0;        // pending sextets, most significant first
    std::uint8_t count_ = 0;        // pending sextet count, 0..3
    std::uint8_t pad_ = 0;          // '=' seen in the current quantum
    bool ended_ = false;            // a quantum closed by padding was completed, no data since
    std::uint64_t pad_offset_ = 0;  // offset of the first '=' of the current quantum
    std::uint64_t consumed_ = 0;
    codec_status status_;
};

/// One shot: appends the decoded octets of `in` to `out`.
MHTML_EXPORT codec_status base64_decode(std::string_view in, std::string& out);

/// The decoded size of `in` when it is base64 exactly as base64_encoder(76) writes it, so that
/// decoding and encoding it again would give the same octets: lines of 76 alphabet characters
/// ending CRLF, then a last line of 4 to 76 characters (a multiple of 4), padded only at its
/// end and with zero pad bits; the CRLF after the last line may be missing. Otherwise (also
/// for an empty `in`) nullopt. It decodes `in` to check it, into a small reused buffer.
MHTML_EXPORT std::optional<std::uint64_t> canonical_base64_size(std::string_view in) noexcept;

class MHTML_EXPORT base64_encoder {
public:
    /// `line_length` encoded characters per line (a multiple of 4, at most 76); 0 = no breaks.
    explicit base64_encoder(std::size_t line_length = 76) noexcept;
    static std::size_t max_output(std::size_t n, std::size_t line_length = 76) noexcept;
    /// Encodes `in` into `out` (room for max_output(in.size())); returns octets written.
    std::size_t step(std::string_view in, char* out) noexcept;
    /// Writes the final quantum with padding and a final CRLF if a line is open.
    std::size_t finish(char* out) noexcept;

private:
    std::size_t line_length_;
    std::size_t column_ = 0;
    std::uint8_t carry_[2]{};
    std::uint8_t carried_ = 0;
};

/// One shot: the base64 form of `in`, CRLF line breaks every `line_length` characters.
MHTML_EXPORT std::string base64_encode(std::string_view in, std::size_t line_length = 76);

}  // namespace mhtml::mime
