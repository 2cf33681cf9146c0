#pragma once
// Shared by the base64 and quoted-printable tests: feeding a resumable decoder in pieces
// and comparing statuses field by field (so a failure names the field).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/mime/codec_status.hpp"

namespace mhtml::mime::test {

struct decoded {
    std::string out;
    codec_status st;
};

inline void expect_same_status(const codec_status& a, const codec_status& b) {
    EXPECT_EQ(a.invalid_char, b.invalid_char);
    EXPECT_EQ(a.bad_padding, b.bad_padding);
    EXPECT_EQ(a.truncated, b.truncated);
    EXPECT_EQ(a.data_after_padding, b.data_after_padding);
    EXPECT_EQ(a.invalid_escape, b.invalid_escape);
    EXPECT_EQ(a.soft_break_at_end, b.soft_break_at_end);
    EXPECT_EQ(a.eight_bit, b.eight_bit);
    EXPECT_EQ(a.long_line, b.long_line);
    EXPECT_EQ(a.first_problem, b.first_problem);
}

/// Feeds `in` to one `Decoder` in pieces of the given sizes (cycled), then finishes.
template <class Decoder>
decoded decode_in_pieces(std::string_view in, const std::vector<std::size_t>& sizes) {
    Decoder d;
    decoded r;
    std::size_t at = 0;
    std::size_t k = 0;
    while (at < in.size()) {
        const std::size_t n = std::min(sizes[k++ % sizes.size()], in.size() - at);
        std::vector<char> buf(Decoder::max_output(n));
        const std::size_t got = d.step(in.substr(at, n), buf.data());
        EXPECT_LE(got, buf.size());
        r.out.append(buf.data(), got);
        at += n;
    }
    std::vector<char> tail(Decoder::max_output(0));
    r.out.append(tail.data(), d.finish(tail.data()));
    r.st = d.status();
    return r;
}

}  // namespace mhtml::mime::test
