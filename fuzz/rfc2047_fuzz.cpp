/// libFuzzer target for RFC 2047 encoded-words and the charset layer.
///
/// Checks, on arbitrary input: decoding never crashes and yields well-formed UTF-8 with
/// sane segments; encode_words followed by decode_to_octets gives the input back for
/// UNKNOWN-8BIT (and for anything labelled UTF-8), within the RFC 2047 §2 line limits;
/// charset conversion into and out of UTF-8 is total and well-formed.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mhtml/mime/charset.hpp"
#include "mhtml/mime/rfc2047.hpp"

#include "fuzz_check.hpp"

namespace {

using namespace mhtml::mime;

bool is_utf8(std::string_view s) {
    const auto r = to_utf8(s, "UTF-8");
    return r && *r == s;
}

/// Every line of an encode_words result is at most 76 columns (the first one after
/// `first_line_used` columns), and every word at most 75.
void check_lines(std::string_view encoded, std::size_t first_line_used) {
    std::size_t start = 0;
    bool first = true;
    for (;;) {
        const std::size_t end = encoded.find("\r\n", start);
        const std::size_t len = (end == std::string_view::npos ? encoded.size() : end) - start;
        if (!(first && len == 0)) MHTML_CHECK(len + (first ? first_line_used : 0) <= 76);
        if (end == std::string_view::npos) break;
        MHTML_CHECK(encoded.substr(end + 2, 1) == " ");
        start = end + 2;
        first = false;
    }
}

std::string_view strip_fold(std::string_view v) {
    if (v.substr(0, 3) == "\r\n ") v.remove_prefix(3);
    return v;
}

constexpr std::string_view charsets[] = {
    "UTF-8",       "ISO-8859-1", "windows-1252", "us-ascii",       "Shift_JIS",
    "ISO-2022-JP", "GB2312",     "Big5",         "ks_c_5601-1987", "KOI8-R",
    "UTF-16",      "UTF-7",      "EUC-JP",       "x-unknown",      "x-no-such-charset"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view in(reinterpret_cast<const char*>(data), size);

    // Decoding.
    const rfc2047_result r = decode_words(in);
    std::size_t next = 0;
    for (const auto& seg : r.segments) {
        MHTML_CHECK(seg.offset >= next && seg.offset < in.size());
        if (!seg.encoded) MHTML_CHECK(in.substr(seg.offset, seg.octets.size()) == seg.octets);
        next = seg.offset + 1;
    }
    bool malformed = false;
    const std::string text = decode_to_utf8(in, &malformed);
    MHTML_CHECK(malformed == r.malformed);
    MHTML_CHECK(is_utf8(text));
    const std::string octets = decode_to_octets(in);
    if (in.find("=?") == std::string_view::npos) MHTML_CHECK(octets == in);

    // Encoding round trips, bounded so that a run stays fast.
    const std::string_view payload = in.substr(0, 4096);
    const std::size_t used = size != 0 ? data[0] % 90 : 0;
    for (const auto enc : {rfc2047_encoding::q, rfc2047_encoding::b, rfc2047_encoding::shortest}) {
        MHTML_CHECK(decode_to_octets(encode_words(payload, "UNKNOWN-8BIT", enc)) == payload);
        const std::string e = encode_words(payload, "UNKNOWN-8BIT", enc, used);
        check_lines(e, used);
        MHTML_CHECK(decode_to_octets(strip_fold(e)) == payload);
    }
    const std::string as_utf8 = encode_words(payload, "utf-8", rfc2047_encoding::shortest, used);
    check_lines(as_utf8, used);
    MHTML_CHECK(decode_to_octets(strip_fold(as_utf8)) == payload);

    // Charset conversion: total, and always well-formed UTF-8.
    if (size != 0) {
        const std::string_view cs = charsets[data[0] % std::size(charsets)];
        const std::string_view body = payload.substr(1);
        const auto u = to_utf8(body, cs);
        MHTML_CHECK(u.has_value() == charset_known(cs));
        if (u) {
            MHTML_CHECK(is_utf8(*u));
            if (const auto back = from_utf8(*u, cs)) MHTML_CHECK(to_utf8(*back, cs) == u);
            // Words in the charset decode to the same text as the octets they came from.
            const std::string words = encode_words(body, cs, rfc2047_encoding::shortest);
            MHTML_CHECK(decode_to_utf8(words) == *u);
        }
        if (const auto lengths = character_lengths(body, cs)) {
            std::size_t total = 0;
            for (const std::size_t n : *lengths) total += n;
            MHTML_CHECK(total == body.size());
        }
        (void)from_utf8(body, cs);
    }
    return 0;
}
