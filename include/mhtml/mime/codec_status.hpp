#pragma once
/// What a transfer decoder saw that was not conforming. The decoder never fails: it
/// recovers as RFC 2045 says (or as GMime/Python do where RFC 2045 is silent) and records
/// the first offending offset so that the caller can report a precise diagnostic.

#include <cstdint>
#include <limits>

namespace mhtml::mime {

struct codec_status {
    static constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();

    bool invalid_char = false;        ///< base64: octet outside the alphabet (skipped, RFC 2045 §6.8)
    bool bad_padding = false;         ///< base64: '=' where it does not belong, or missing
    bool truncated = false;           ///< base64: 1 leftover sextet at the end (dropped)
    bool data_after_padding = false;  ///< base64: alphabet octets after the final '='
    bool invalid_escape = false;      ///< QP: '=' not followed by two hex digits or a line end (kept literally)
    bool soft_break_at_end = false;   ///< QP: input ends with '=' (dropped)
    bool eight_bit = false;           ///< QP: unencoded octet >= 0x80 (kept)
    bool long_line = false;           ///< QP: encoded line over 76 characters (kept)
    /// Offset, within all the input given to the decoder so far, of the first problem.
    std::uint64_t first_problem = none;

    bool clean() const noexcept { return first_problem == none; }
};

}  // namespace mhtml::mime
