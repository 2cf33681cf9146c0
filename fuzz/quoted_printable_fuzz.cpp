/// libFuzzer target for the quoted-printable codec (RFC 2045 §6.7). Traps when:
///  - decoding in pieces (split where the first input byte says, then in small chunks) gives
///    another result than decoding the input whole;
///  - the portable scalar scan disagrees with the SSE2 one;
///  - binary-mode encoding then decoding does not give the input back cleanly, nor text mode
///    when the input's line breaks are all CRLF;
///  - encoding in pieces differs from encoding whole, or a line exceeds 76 characters.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codec_fuzz_support.hpp"

#include "mhtml/mime/base64.hpp"  // simd_level
#include "mhtml/mime/quoted_printable.hpp"

namespace {

using namespace mhtml::mime;

using fuzz::result;
using fuzz::same;
constexpr auto decode_whole = fuzz::decode_whole<qp_decode>;
constexpr auto decode_pieces = fuzz::decode_pieces<qp_decoder>;

std::string encode_pieces(std::string_view in, qp_mode mode, std::size_t chunk) {
    qp_encoder e(mode);
    std::string out;
    std::vector<char> buf(qp_encoder::max_output(chunk));
    for (std::size_t at = 0; at < in.size(); at += chunk) {
        out.append(buf.data(), e.step(in.substr(at, chunk), buf.data()));
    }
    out.append(buf.data(), e.finish(buf.data()));
    return out;
}

bool crlf_only(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\r' && (i + 1 == s.size() || s[i + 1] != '\n')) return false;
        if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r')) return false;
    }
    return true;
}

bool short_lines(std::string_view s) {
    std::size_t start = 0;
    for (;;) {
        const std::size_t crlf = s.find("\r\n", start);
        const std::size_t stop = crlf == std::string_view::npos ? s.size() : crlf;
        if (stop - start > 76) return false;
        if (crlf == std::string_view::npos) return true;
        start = crlf + 2;
    }
}

void round_trip(std::string_view in, qp_mode mode, std::size_t chunk) {
    const std::string encoded = qp_encode(in, mode);
    if (!short_lines(encoded)) __builtin_trap();
    if (encode_pieces(in, mode, chunk) != encoded) __builtin_trap();
    const result back = decode_whole(encoded);
    if (!back.st.clean()) __builtin_trap();
    if ((mode == qp_mode::binary || crlf_only(in)) && back.out != in) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view in(reinterpret_cast<const char*>(data), size);
    const std::uint8_t first = size != 0 ? data[0] : 0;
    const std::size_t split = size * first / 255;
    const std::size_t chunk = 1 + first % 13;

    set_simd_level(simd_level::automatic);
    const result whole = decode_whole(in);
    if (!same(decode_pieces(in, split, in.size()), whole)) __builtin_trap();
    if (!same(decode_pieces(in, split, chunk), whole)) __builtin_trap();
    set_simd_level(simd_level::scalar);
    if (!same(decode_whole(in), whole)) __builtin_trap();
    if (!same(decode_pieces(in, split, chunk), whole)) __builtin_trap();
    set_simd_level(simd_level::automatic);

    round_trip(in, qp_mode::binary, chunk);
    round_trip(in, qp_mode::text, chunk);
    return 0;
}
