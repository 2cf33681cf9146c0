/// libFuzzer target for the base64 codec (RFC 2045 §6.8). Traps when:
///  - decoding in pieces (split where the first input byte says, then in small chunks) gives
///    another result than decoding the input whole;
///  - the AVX2 / AVX-512 paths disagree with the portable scalar path;
///  - encoding then decoding the input does not give it back cleanly, or encoding in pieces
///    differs from encoding whole.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codec_fuzz_support.hpp"

#include "mhtml/mime/base64.hpp"

namespace {

using namespace mhtml::mime;

using fuzz::result;
using fuzz::same;
constexpr auto decode_whole = fuzz::decode_whole<base64_decode>;
constexpr auto decode_pieces = fuzz::decode_pieces<base64_decoder>;

std::string encode_pieces(std::string_view in, std::size_t line, std::size_t chunk) {
    base64_encoder e(line);
    std::string out;
    std::vector<char> buf(base64_encoder::max_output(chunk, line));
    for (std::size_t at = 0; at < in.size(); at += chunk) {
        const std::string_view piece = in.substr(at, chunk);
        out.append(buf.data(), e.step(piece, buf.data()));
    }
    out.append(buf.data(), e.finish(buf.data()));
    return out;
}

/// Decodes `in` whole with every implementation and in pieces; all must agree.
void check_decoding(std::string_view in, std::size_t split, std::size_t chunk) {
    set_simd_level(simd_level::scalar);
    const result whole = decode_whole(in);
    for (simd_level level : {simd_level::avx2, simd_level::avx512}) {
        set_simd_level(level);
        if (active_simd_level() != level) continue;
        if (!same(decode_whole(in), whole)) __builtin_trap();
        if (!same(decode_pieces(in, split, chunk), whole)) __builtin_trap();
    }
    set_simd_level(simd_level::scalar);
    if (!same(decode_pieces(in, split, in.size()), whole)) __builtin_trap();
    if (!same(decode_pieces(in, split, chunk), whole)) __builtin_trap();
    set_simd_level(simd_level::automatic);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view in(reinterpret_cast<const char*>(data), size);
    const std::uint8_t first = size != 0 ? data[0] : 0;
    const std::size_t split = size * first / 255;
    const std::size_t chunk = 1 + first % 13;
    check_decoding(in, split, chunk);

    const std::size_t line = (first % 20) * 4;
    const std::string encoded = base64_encode(in, line);
    if (encode_pieces(in, line, chunk) != encoded) __builtin_trap();
    const result back = decode_whole(encoded);
    if (back.out != in || !back.st.clean()) __builtin_trap();

    // The same, MIME-shaped (lines of equal length) with a few octets overwritten as the
    // input says, so that the bulk paths that take whole lines are always exercised.
    std::string shaped = base64_encode(in, line == 0 ? 76 : line);
    if (!shaped.empty()) {
        for (std::size_t k = 1; k + 1 < size && k < 12; k += 2) {
            shaped[(data[k] * 7919u + k * 131u) % shaped.size()] = static_cast<char>(data[k + 1]);
        }
    }
    check_decoding(shaped, shaped.size() * first / 255, chunk);
    return 0;
}
