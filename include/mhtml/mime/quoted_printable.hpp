#pragma once
/// Quoted-printable transfer encoding, RFC 2045 §6.7.
///
/// Decoding: `=XX` (upper- or lower-case hex) is one octet, `=` at the end of a line is a
/// soft line break, trailing white space on a line is removed (rule 3), and an invalid
/// escape is passed through literally (as GMime and Python do) and reported. Line ends
/// (CRLF, bare LF, bare CR) are kept as they are in the input. Resumable like base64.
///
/// Encoding: lines of at most 76 characters; trailing SP/HTAB before a line break is
/// encoded; a line starting with "From " or "." has that first character encoded.
/// In text mode line breaks of the input (CRLF or bare LF) are written as CRLF hard
/// breaks; in binary mode CR and LF are encoded as =0D and =0A.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mhtml/export.hpp"
#include "mhtml/mime/codec_status.hpp"

namespace mhtml::mime {

class MHTML_EXPORT qp_decoder {
public:
    static constexpr std::size_t max_output(std::size_t n) noexcept { return n + 80; }
    /// Decodes `in` into `out` (room for max_output(in.size())); returns octets written.
    std::size_t step(std::string_view in, char* out) noexcept;
    /// Flushes what is held back; returns octets written (at most 2: an escape cut short).
    std::size_t finish(char* out) noexcept;
    const codec_status& status() const noexcept { return status_; }
    void reset() noexcept { *this = qp_decoder{}; }

private:
    void octet(std::uint8_t c, std::uint64_t offset, std::uint8_t*& o) noexcept;
    void run(const std::uint8_t*& p, const std::uint8_t* end, std::uint8_t*& o,
             std::uint64_t offset, bool vector) noexcept;
    void line_end(std::uint64_t offset) noexcept;

    char pending_[80]{};  // held-back octets: '=' with its partial escape, or trailing white space
    std::size_t npending_ = 0;
    std::uint64_t consumed_ = 0;
    std::uint64_t line_start_ = 0;  // offset of the first octet of the current encoded line
    bool skip_lf_ = false;          // a soft break "=" CR was seen: an LF right after belongs to it
    codec_status status_;
};

MHTML_EXPORT codec_status qp_decode(std::string_view in, std::string& out);

enum class qp_mode : std::uint8_t { text, binary };

class MHTML_EXPORT qp_encoder {
public:
    explicit qp_encoder(qp_mode mode = qp_mode::text) noexcept : mode_(mode) {}
    /// Output room step() (and finish(), with n = 0) may need for `n` input octets.
    static std::size_t max_output(std::size_t n) noexcept;
    /// Encodes `in` into `out`; up to 4 octets whose encoding depends on what follows are held
    /// back. Returns octets written.
    std::size_t step(std::string_view in, char* out) noexcept;
    /// Writes the held-back octets; no soft break is added at the end.
    std::size_t finish(char* out) noexcept;

private:
    std::size_t encode(const std::uint8_t* in, std::size_t n, bool final, char*& o) noexcept;

    qp_mode mode_;
    std::size_t column_ = 0;
    char pending_[4]{};  // octets whose encoding depends on what follows
    std::size_t npending_ = 0;
};

/// Whether `in` is quoted-printable in the form the encoder (text mode) writes, so that it can
/// be copied as it is: CRLF line ends only, lines of at most 76 characters, every octet a
/// printable ASCII character other than '=', SP or HTAB not ending a line (nor the data), an
/// escape of '=' and two upper-case hex digits (not of CR or LF: the text's line breaks are
/// its hard ones), or a soft break ("=" CRLF) that ends a line of something (not an empty one)
/// and is not the last thing; no line starts with "From " (a mailbox would mangle it). A line
/// may start with "." (Chrome writes it so; only an SMTP exchange treats it specially, and
/// undoes what it does), which the encoder escapes. Then the number of octets it decodes to;
/// otherwise (also for an empty `in`) nullopt. One pass, no output.
MHTML_EXPORT std::optional<std::uint64_t> canonical_qp(std::string_view in) noexcept;

MHTML_EXPORT std::string qp_encode(std::string_view in, qp_mode mode = qp_mode::text);

}  // namespace mhtml::mime
