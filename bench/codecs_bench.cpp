/// Micro-benchmarks of the transfer codecs (RFC 2045 §6.7 quoted-printable, §6.8 base64).
/// Throughput is reported against the input size (encoded size for decoders).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/quoted_printable.hpp"

namespace {

using namespace mhtml::mime;

constexpr std::size_t eight_mb = 8u << 20;

std::string random_octets(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
}

/// About 8 MB of MIME base64: 76 characters per line, CRLF line breaks.
const std::string& base64_lines() {
    static const std::string s = base64_encode(random_octets(eight_mb / 78 * 57, 1), 76);
    return s;
}

/// The same octets with no line breaks at all.
const std::string& base64_flat() {
    static const std::string s = base64_encode(random_octets(eight_mb / 4 * 3, 1), 0);
    return s;
}

/// About 8 MB of HTML-like text with some non-ASCII (UTF-8) words, as a web page saved in an
/// MHTML archive looks before quoted-printable encoding.
const std::string& html_text() {
    static const std::string s = [] {
        static const char* const words[] = {"<div",
                                            "class=\"content\">",
                                            "the",
                                            "page",
                                            "<a",
                                            "href=\"/index.html\">",
                                            "link</a>",
                                            "caf\xc3\xa9",
                                            "and",
                                            "of",
                                            "<p>",
                                            "</p>",
                                            "text",
                                            "style=\"color:red\"",
                                            "r\xc3\xa9sum\xc3\xa9",
                                            "with",
                                            "more",
                                            "words"};
        std::mt19937 rng(7);
        std::string out;
        std::size_t column = 0;
        while (out.size() < eight_mb) {
            const char* w = words[rng() % (sizeof words / sizeof words[0])];
            out += w;
            column += std::char_traits<char>::length(w);
            if (column > 60 + rng() % 60) {
                out += "\r\n";
                column = 0;
            } else {
                out += ' ';
                ++column;
            }
        }
        return out;
    }();
    return s;
}

const std::string& qp_html() {
    static const std::string s = qp_encode(html_text(), qp_mode::text);
    return s;
}

bool use_level(benchmark::State& state, simd_level level) {
    set_simd_level(level);
    if (active_simd_level() != level) {
        state.SkipWithError("not supported by this CPU");
        return false;
    }
    return true;
}

void base64_decode_bench(benchmark::State& state, const std::string& in, simd_level level) {
    if (!use_level(state, level)) return;
    std::vector<char> out(base64_decoder::max_output(in.size()) + 2);
    for (auto _ : state) {
        base64_decoder d;
        std::size_t n = d.step(in, out.data());
        n += d.finish(out.data() + n);
        benchmark::DoNotOptimize(n);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
    set_simd_level(simd_level::automatic);
}

void BM_Base64DecodeCrlfScalar(benchmark::State& s) {
    base64_decode_bench(s, base64_lines(), simd_level::scalar);
}
void BM_Base64DecodeCrlfAvx2(benchmark::State& s) {
    base64_decode_bench(s, base64_lines(), simd_level::avx2);
}
void BM_Base64DecodeCrlfAvx512(benchmark::State& s) {
    base64_decode_bench(s, base64_lines(), simd_level::avx512);
}
void BM_Base64DecodeFlatScalar(benchmark::State& s) {
    base64_decode_bench(s, base64_flat(), simd_level::scalar);
}
void BM_Base64DecodeFlatAvx2(benchmark::State& s) {
    base64_decode_bench(s, base64_flat(), simd_level::avx2);
}
void BM_Base64DecodeFlatAvx512(benchmark::State& s) {
    base64_decode_bench(s, base64_flat(), simd_level::avx512);
}

/// The one-shot API into a std::string, as most callers use it.
void BM_Base64DecodeOneShot(benchmark::State& state) {
    const std::string& in = base64_lines();
    for (auto _ : state) {
        std::string out;
        benchmark::DoNotOptimize(base64_decode(in, out));
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
}

void BM_Base64Encode(benchmark::State& state) {
    const std::string in = random_octets(eight_mb / 4 * 3, 2);
    std::vector<char> out(base64_encoder::max_output(in.size()));
    for (auto _ : state) {
        base64_encoder e;
        std::size_t n = e.step(in, out.data());
        n += e.finish(out.data() + n);
        benchmark::DoNotOptimize(n);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
}

void base64_encode_bench(benchmark::State& state, simd_level level, std::size_t line) {
    const std::string in = random_octets(eight_mb / 4 * 3, 2);
    std::vector<char> out(base64_encoder::max_output(in.size(), line));
    mhtml::mime::set_simd_level(level);
    if (mhtml::mime::active_simd_level() != level) state.SkipWithError("level not supported");
    for (auto _ : state) {
        base64_encoder e(line);
        std::size_t n = e.step(in, out.data());
        n += e.finish(out.data() + n);
        benchmark::DoNotOptimize(n);
        benchmark::ClobberMemory();
    }
    mhtml::mime::set_simd_level(simd_level::automatic);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
}
void BM_Base64EncodeLinesScalar(benchmark::State& s) {
    base64_encode_bench(s, simd_level::scalar, 76);
}
void BM_Base64EncodeLinesAvx2(benchmark::State& s) {
    base64_encode_bench(s, simd_level::avx2, 76);
}
void BM_Base64EncodeLinesAvx512(benchmark::State& s) {
    base64_encode_bench(s, simd_level::avx512, 76);
}
void BM_Base64EncodeFlatScalar(benchmark::State& s) {
    base64_encode_bench(s, simd_level::scalar, 0);
}
void BM_Base64EncodeFlatAvx2(benchmark::State& s) {
    base64_encode_bench(s, simd_level::avx2, 0);
}
void BM_Base64EncodeFlatAvx512(benchmark::State& s) {
    base64_encode_bench(s, simd_level::avx512, 0);
}

void BM_QpDecodeHtml(benchmark::State& state) {
    const std::string& in = qp_html();
    std::vector<char> out(qp_decoder::max_output(in.size()) + 2);
    for (auto _ : state) {
        qp_decoder d;
        std::size_t n = d.step(in, out.data());
        n += d.finish(out.data() + n);
        benchmark::DoNotOptimize(n);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
}

void BM_QpEncodeHtml(benchmark::State& state) {
    const std::string& in = html_text();
    std::vector<char> out(qp_encoder::max_output(in.size()));
    for (auto _ : state) {
        qp_encoder e(qp_mode::text);
        std::size_t n = e.step(in, out.data());
        n += e.finish(out.data() + n);
        benchmark::DoNotOptimize(n);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
}

void BM_QpEncodeHtmlScalar(benchmark::State& state) {
    mhtml::mime::set_simd_level(simd_level::scalar);
    BM_QpEncodeHtml(state);
    mhtml::mime::set_simd_level(simd_level::automatic);
}

void BM_QpEncodeBinary(benchmark::State& state) {
    const std::string in = random_octets(eight_mb / 4, 3);
    std::vector<char> out(qp_encoder::max_output(in.size()));
    for (auto _ : state) {
        qp_encoder e(qp_mode::binary);
        std::size_t n = e.step(in, out.data());
        n += e.finish(out.data() + n);
        benchmark::DoNotOptimize(n);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
}

}  // namespace

BENCHMARK(BM_Base64DecodeCrlfScalar)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64DecodeCrlfAvx2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64DecodeCrlfAvx512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64DecodeFlatScalar)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64DecodeFlatAvx2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64DecodeFlatAvx512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64DecodeOneShot)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64Encode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64EncodeLinesScalar)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64EncodeLinesAvx2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64EncodeLinesAvx512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64EncodeFlatScalar)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64EncodeFlatAvx2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Base64EncodeFlatAvx512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QpDecodeHtml)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QpEncodeHtml)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QpEncodeHtmlScalar)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QpEncodeBinary)->Unit(benchmark::kMillisecond);
