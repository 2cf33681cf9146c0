// Google Benchmark for the MIME parser: parse only, and parse + decode every leaf, over
// in-memory archives shaped like the ../shared/bench workloads (a saved page with base64
// images; many tiny parts). Input is built outside the timed loop; MB/s via SetBytesProcessed.
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/document.hpp"

namespace {

std::string make_archive(std::size_t parts, std::size_t part_size, unsigned seed) {
    std::mt19937 rng(seed);
    std::string out =
        "From: <Saved by Blink>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/related;\r\n"
        "\ttype=\"text/"
        "html\";\r\n\tboundary=\"----MultipartBoundary--abcdefghijklmnop----\"\r\n\r\n";
    for (std::size_t i = 0; i < parts; ++i) {
        std::string data(part_size, '\0');
        for (char& c : data) c = static_cast<char>(rng() & 0xff);
        out +=
            "------MultipartBoundary--abcdefghijklmnop----\r\nContent-Type: image/png\r\n"
            "Content-Transfer-Encoding: base64\r\nContent-Location: https://example.com/img/" +
            std::to_string(i) + ".png\r\n\r\n";
        out += mhtml::mime::base64_encode(data);
        out += "\r\n";
    }
    out += "------MultipartBoundary--abcdefghijklmnop------\r\n";
    return out;
}

void run(benchmark::State& state, const std::string& in, bool decode) {
    std::string buf;
    for (auto _ : state) {
        auto doc = mhtml::mime::document::parse(in);
        if (decode) {
            for (std::size_t i = 0; i < doc.size(); ++i) {
                auto p = doc.part(i);
                if (!p.is_leaf()) continue;
                buf.clear();
                p.decode_to(buf);
            }
        }
        benchmark::DoNotOptimize(doc.size());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
}

void BM_ParseLargeParts(benchmark::State& s) {
    static const std::string in = make_archive(40, 512 * 1024, 1);
    run(s, in, false);
}
void BM_ParseDecodeLargeParts(benchmark::State& s) {
    static const std::string in = make_archive(40, 512 * 1024, 1);
    run(s, in, true);
}
void BM_ParseManyTinyParts(benchmark::State& s) {
    static const std::string in = make_archive(20000, 300, 2);
    run(s, in, false);
}
void BM_ParseDecodeManyTinyParts(benchmark::State& s) {
    static const std::string in = make_archive(20000, 300, 2);
    run(s, in, true);
}
BENCHMARK(BM_ParseLargeParts);
BENCHMARK(BM_ParseDecodeLargeParts);
BENCHMARK(BM_ParseManyTinyParts);
BENCHMARK(BM_ParseDecodeManyTinyParts);

}  // namespace
