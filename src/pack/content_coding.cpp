// HTTP Content-Encoding decoding (MHT-11.6): zlib for gzip and deflate, libbrotli for br.

#include "pack/content_coding.hpp"

#include <brotli/decode.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>

#include "mhtml/ascii.hpp"

namespace mhtml::pack::detail {

namespace {

constexpr std::size_t chunk = 256 * 1024;

// Grows `out` by at most one chunk within the limit; false when the limit is reached.
bool grow(std::string& out, std::size_t used, std::uint64_t max_out) {
    if (used >= max_out) return false;
    const std::size_t room = static_cast<std::size_t>(
        std::min<std::uint64_t>(max_out - used + 1, std::max<std::size_t>(chunk, used)));
    out.resize(used + room);
    return true;
}

// window_bits: 15 + 16 gzip, 15 zlib, -15 raw deflate.
decode_status inflate_all(std::string_view in, std::string& out, std::uint64_t max_out,
                          int window_bits) {
    out.clear();
    std::size_t used = 0;
    z_stream z{};
    if (inflateInit2(&z, window_bits) != Z_OK) return decode_status::corrupt;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    std::size_t left = in.size();
    decode_status status = decode_status::ok;
    for (;;) {
        if (used == out.size() && !grow(out, used, max_out + 1)) {
            status = decode_status::limit;
            break;
        }
        const auto in_now = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
        z.avail_in = in_now;
        const auto out_now = static_cast<uInt>(std::min<std::size_t>(out.size() - used, 1u << 30));
        z.next_out = reinterpret_cast<Bytef*>(out.data() + used);
        z.avail_out = out_now;
        const int r = inflate(&z, Z_NO_FLUSH);
        left -= in_now - z.avail_in;
        used += out_now - z.avail_out;
        if (used > max_out) {
            status = decode_status::limit;
            break;
        }
        if (r == Z_STREAM_END) {
            // gzip files may hold several members (RFC 1952 §2.2): go on with the next one.
            if (window_bits > 15 && left > 0) {
                inflateReset(&z);
                continue;
            }
            break;
        }
        if (r == Z_BUF_ERROR && left == 0 && z.avail_out != 0) {
            status = decode_status::corrupt;  // truncated
            break;
        }
        if (r != Z_OK && r != Z_BUF_ERROR) {
            status = decode_status::corrupt;
            break;
        }
    }
    inflateEnd(&z);
    out.resize(std::min<std::size_t>(used, out.size()));
    return status;
}

decode_status brotli_all(std::string_view in, std::string& out, std::uint64_t max_out) {
    out.clear();
    BrotliDecoderState* st = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
    if (st == nullptr) return decode_status::corrupt;
    std::size_t used = 0;
    std::size_t avail_in = in.size();
    const auto* next_in = reinterpret_cast<const std::uint8_t*>(in.data());
    decode_status status = decode_status::ok;
    for (;;) {
        if (used == out.size() && !grow(out, used, max_out + 1)) {
            status = decode_status::limit;
            break;
        }
        std::size_t avail_out = out.size() - used;
        auto* next_out = reinterpret_cast<std::uint8_t*>(out.data() + used);
        const std::size_t before = avail_out;
        const BrotliDecoderResult r =
            BrotliDecoderDecompressStream(st, &avail_in, &next_in, &avail_out, &next_out, nullptr);
        used += before - avail_out;
        if (used > max_out) {
            status = decode_status::limit;
            break;
        }
        if (r == BROTLI_DECODER_RESULT_SUCCESS) break;
        if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) continue;
        status = decode_status::corrupt;  // an error, or input ended too soon
        break;
    }
    BrotliDecoderDestroyInstance(st);
    out.resize(std::min<std::size_t>(used, out.size()));
    return status;
}

}  // namespace

decode_status decode_content(std::string_view coding, std::string_view in, std::string& out,
                             std::uint64_t max_out) {
    if (coding.empty() || ascii::iequals(coding, "identity")) {
        if (in.size() > max_out) return decode_status::limit;
        out.assign(in);
        return decode_status::ok;
    }
    if (ascii::iequals(coding, "gzip") || ascii::iequals(coding, "x-gzip"))
        return inflate_all(in, out, max_out, 15 + 16);
    if (ascii::iequals(coding, "deflate")) {
        const decode_status s = inflate_all(in, out, max_out, 15);
        if (s != decode_status::corrupt) return s;
        return inflate_all(in, out, max_out, -15);  // raw deflate, as some servers send
    }
    if (ascii::iequals(coding, "br")) return brotli_all(in, out, max_out);
    return decode_status::unknown_coding;
}

}  // namespace mhtml::pack::detail
