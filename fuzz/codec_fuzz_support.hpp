#pragma once
// Shared by the codec fuzz targets: decoding whole and in pieces, and comparing results.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/mime/codec_status.hpp"

namespace mhtml::mime::fuzz {

struct result {
    std::string out;
    codec_status st;
};

inline bool same(const result& a, const result& b) {
    return a.out == b.out && a.st.invalid_char == b.st.invalid_char &&
           a.st.bad_padding == b.st.bad_padding && a.st.truncated == b.st.truncated &&
           a.st.data_after_padding == b.st.data_after_padding &&
           a.st.invalid_escape == b.st.invalid_escape &&
           a.st.soft_break_at_end == b.st.soft_break_at_end && a.st.eight_bit == b.st.eight_bit &&
           a.st.long_line == b.st.long_line && a.st.first_problem == b.st.first_problem;
}

/// The one-shot decoder (`base64_decode`, `qp_decode`) over the whole input.
template <auto Decode>
result decode_whole(std::string_view in) {
    result r;
    r.st = Decode(in, r.out);
    return r;
}

/// A resumable `Decoder` fed [0, split) first, then pieces of `chunk` octets.
template <class Decoder>
result decode_pieces(std::string_view in, std::size_t split, std::size_t chunk) {
    Decoder d;
    result r;
    std::vector<char> buf(Decoder::max_output(in.size()));
    std::size_t at = 0;
    std::size_t n = split;
    while (at < in.size()) {
        n = std::min(n, in.size() - at);
        r.out.append(buf.data(), d.step(in.substr(at, n), buf.data()));
        at += n;
        n = chunk;
    }
    std::vector<char> tail(Decoder::max_output(0));
    r.out.append(tail.data(), d.finish(tail.data()));
    r.st = d.status();
    return r;
}

}  // namespace mhtml::mime::fuzz
