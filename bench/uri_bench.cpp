/// Micro-benchmarks of the URI layer: resolving 1,000,000 references against one base
/// (RFC 3986 §5.2, the work MHTML does for every link of an archive), with and without the
/// syntax check, and finding each one's part in a label index of 100,000 parts.

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "mhtml/uri/label_index.hpp"
#include "mhtml/uri/reference.hpp"

namespace {

using namespace mhtml::uri;

constexpr std::size_t million = 1'000'000;

/// References as pages hold them: relative names, directories, dot segments, absolute
/// paths, queries, fragments and absolute URLs, in a fixed pseudo-random mix.
const std::vector<std::string>& references() {
    static const std::vector<std::string> refs = [] {
        std::mt19937 rng(3986);
        std::vector<std::string> out;
        out.reserve(million);
        for (std::size_t i = 0; i < million; ++i) {
            std::string n = std::to_string(rng() % 100000);
            switch (rng() % 8) {
                case 0:
                    out.push_back("img" + n + ".png");
                    break;
                case 1:
                    out.push_back("assets/css/site" + n + ".css?v=3");
                    break;
                case 2:
                    out.push_back("../static/js/app." + n + ".js");
                    break;
                case 3:
                    out.push_back("/images/2019/" + n + "/photo.jpg");
                    break;
                case 4:
                    out.push_back("./a/../b/" + n + ".gif#top");
                    break;
                case 5:
                    out.push_back("https://cdn.example.com/lib/" + n + "/x.js");
                    break;
                case 6:
                    out.push_back("//fonts.example.net/f" + n + ".woff2");
                    break;
                default:
                    out.push_back("page" + n + ".html#section-" + n);
                    break;
            }
        }
        return out;
    }();
    return refs;
}

void BM_Resolve1M(benchmark::State& state) {
    const auto& refs = references();
    auto base = base_uri::make("https://www.example.com/news/2019/05/article.html?id=7");
    std::string out;
    std::size_t bytes = 0;
    for (auto _ : state) {
        for (const auto& r : refs) {
            base->resolve_into(out, r);
            bytes += out.size();
        }
        benchmark::DoNotOptimize(bytes);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * refs.size()));
}
BENCHMARK(BM_Resolve1M)->Unit(benchmark::kMillisecond);

void BM_Resolve1MChecked(benchmark::State& state) {
    // As a reader resolves them: with the RFC 3986 syntax check (Boost.URL) and diagnostics.
    const auto& refs = references();
    auto base = base_uri::make("https://www.example.com/news/2019/05/article.html?id=7");
    std::string out;
    std::vector<mhtml::diagnostic> diags;
    for (auto _ : state) {
        for (const auto& r : refs) base->resolve_into(out, r, &diags);
        benchmark::DoNotOptimize(out);
        diags.clear();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * refs.size()));
}
BENCHMARK(BM_Resolve1MChecked)->Unit(benchmark::kMillisecond);

void BM_FindInIndex1M(benchmark::State& state) {
    // 1,000,000 lookups in the index of a 100,000-part related structure (MHT-8.2.7).
    std::vector<std::string> storage;
    storage.reserve(100000);
    std::vector<part_labels> parts(100000);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        storage.push_back("img" + std::to_string(i) + ".png");
        parts[i].content_location = storage.back();
    }
    auto base = base_uri::make("https://www.example.com/news/");
    label_index index(parts, *base);
    const auto& refs = references();
    std::size_t hits = 0;
    for (auto _ : state) {
        for (const auto& r : refs) hits += index.find(r, *base, {.strict = true}).part.has_value();
        benchmark::DoNotOptimize(hits);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * refs.size()));
}
BENCHMARK(BM_FindInIndex1M)->Unit(benchmark::kMillisecond);

}  // namespace
