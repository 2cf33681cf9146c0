// Google Benchmark for finding URI-bearing attributes in HTML: gumbo (libgumbo, optional,
// built when MHTML_HAVE_GUMBO is defined by bench/CMakeLists.txt) against mhtml's own
// scanner. See docs/html-scanner.md for the numbers and what was measured.
//
// Two inputs, both built outside the timed loops:
//  - corpus_html_parts(): every text/html leaf of the archives in tests/data/corpus,
//    decoded with the library (set MHTML_CORPUS_DIR to use another directory);
//  - synthetic_page(): one deterministic ~50 MB page.
// Both functions have external linkage in namespace mhtml_bench so that other benchmark
// files can reuse them: declare them there as they are declared below.
#include <benchmark/benchmark.h>

#include "mhtml/html/rewrite.hpp"
#include "mhtml/html/scan.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/input.hpp"
#include "mhtml/mime/document.hpp"

#ifdef MHTML_HAVE_GUMBO
#include <gumbo.h>
#endif

namespace mhtml_bench {

const std::vector<std::string>& corpus_html_parts();
const std::string& synthetic_page();
std::size_t total_size(const std::vector<std::string>& parts);

// The decoded body of every text/html leaf in every corpus archive (files in name order;
// MANIFEST.tsv and *.md skipped). Charsets are left alone: the bytes are what a scanner sees.
const std::vector<std::string>& corpus_html_parts() {
    static const std::vector<std::string> parts = [] {
        std::filesystem::path dir =
            std::filesystem::path(__FILE__).parent_path() / ".." / "tests" / "data" / "corpus";
        if (const char* env = std::getenv("MHTML_CORPUS_DIR")) dir = env;
        std::vector<std::filesystem::path> files;
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
            auto ext = e.path().extension();
            if (e.is_regular_file() && ext != ".md" && ext != ".tsv") files.push_back(e.path());
        }
        std::sort(files.begin(), files.end());
        std::vector<std::string> out;
        for (const auto& f : files) {
            auto in = mhtml::input_buffer::open(f.string(), ec);
            if (ec) continue;
            auto doc = mhtml::mime::document::parse(std::move(in));
            for (std::size_t i = 0; i < doc.size(); ++i) {
                auto p = doc.part(i);
                if (!p.is_leaf() || !p.content_type().is("text", "html")) continue;
                std::string body;
                p.decode_to(body);
                out.push_back(std::move(body));
            }
        }
        return out;
    }();
    return parts;
}

std::size_t total_size(const std::vector<std::string>& parts) {
    std::size_t n = 0;
    for (const auto& p : parts) n += p.size();
    return n;
}

namespace {

// Appends `n` in decimal (no std::to_string temporaries inside string concatenations).
void append_number(std::string& out, std::uint32_t n) {
    char buf[16];
    int len = 0;
    do {
        buf[len++] = static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n != 0);
    while (len > 0) out += buf[--len];
}

// One screenful of markup: every kind of URI-bearing attribute with the three quoting
// styles, entities in values and text, a comment hiding a link, non-ASCII UTF-8 text.
void append_section(std::string& out, std::mt19937& rng, std::uint32_t i) {
    auto n = [&](std::uint32_t mod) { return static_cast<std::uint32_t>(rng() % mod); };
    static constexpr std::string_view words[] = {
        "lorem", "ipsum",     "dolor",    "sit",      "amet",     "Grüße",
        "naïve", "café",      "日本語",   "текст",    "ελληνικά", "😀",
        "&amp;", "&lt;b&gt;", "&eacute;", "&#x263A;", "&nbsp;"};
    auto text = [&](std::uint32_t count) {
        for (std::uint32_t k = 0; k < count; ++k) {
            out += words[n(std::size(words))];
            out += ' ';
        }
    };
    out += "<div class=\"section s";
    append_number(out, i);
    out += "\" style=\"background-image: url('img/bg";
    append_number(out, n(500));
    out += ".png'); color: #333\">\n<h2 id=h";
    append_number(out, i);
    out += ">";
    text(4);
    out += "</h2>\n<p>";
    text(20 + n(20));
    out += "<a href=\"https://example.com/articles/";
    append_number(out, n(100000));
    out += "?ref=home&amp;utm_source=x#part\" title='";
    text(3);
    out += "'>";
    text(3);
    out += "</a> ";
    text(10);
    out += "<a href=/local/page";
    append_number(out, n(1000));
    out += ".html rel=nofollow>";
    text(2);
    out += "</a></p>\n<img src=\"https://cdn.example.com/img/photo";
    append_number(out, n(100000));
    out += ".jpg\" srcset=\"img/a";
    append_number(out, i);
    out += "-480.jpg 480w, img/a";
    append_number(out, i);
    out += "-960.jpg 960w, img/a";
    append_number(out, i);
    out += "-1920.jpg 1920w\" sizes=\"(max-width: 600px) 480px, 960px\" alt=\"";
    text(3);
    out += "\" width=640 height=480 loading=lazy>\n";
    out += "<!-- old: <a href=\"https://example.com/commented/";
    append_number(out, i);
    out += "\">x</a> -->\n<ul>\n";
    for (std::uint32_t k = 0, m = 2 + n(4); k < m; ++k) {
        out += "  <li><a href='../cat/";
        append_number(out, n(50));
        out += "/item";
        append_number(out, n(10000));
        out += ".html'>";
        text(3);
        out += "</a></li>\n";
    }
    out += "</ul>\n";
    switch (i % 8) {
        case 0:
            out += "<style>\n.s";
            append_number(out, i);
            out += " { background: url(\"img/s";
            append_number(out, i);
            out += ".png\") no-repeat; }\n@import url(css/part";
            append_number(out, n(20));
            out += ".css);\n.x > a[href^='http'] { content: '<a href=x>'; }\n</style>\n";
            break;
        case 1:
            out += "<script>\nvar u = 'https://api.example.com/v1/items/";
            append_number(out, i);
            out += "';\nif (a < b && c > d) document.write('<img src=\"/track.gif?i=";
            append_number(out, i);
            out += "\">');\n// </div> is just text here\n</script>\n";
            break;
        case 2:
            out += "<picture><source type=image/webp srcset=\"img/p";
            append_number(out, i);
            out += ".webp 1x, img/p";
            append_number(out, i);
            out += "@2x.webp 2x\"><img src=img/p";
            append_number(out, i);
            out += ".jpg alt=\"\"></picture>\n";
            break;
        case 3:
            out += "<video controls poster=\"media/v";
            append_number(out, i);
            out += ".jpg\"><source src=\"media/v";
            append_number(out, i);
            out += ".mp4\" type=\"video/mp4\"><track src=media/v";
            append_number(out, i);
            out += ".vtt kind=subtitles></video>\n";
            break;
        case 4:
            out += "<form action=\"/search\" method=get><input name=q value=\"";
            text(2);
            out +=
                "\"><input type=image src=\"img/go.png\" alt=Go>"
                "<button formaction=/search/advanced>Go</button></form>\n";
            break;
        case 5:
            out += "<table background=\"img/t.gif\"><tr><td background=img/td.gif>";
            text(5);
            out += "</td><td><blockquote cite=\"https://example.org/q/";
            append_number(out, i);
            out += "\">";
            text(8);
            out += "</blockquote></td></tr></table>\n";
            break;
        case 6:
            out += "<svg width=24 height=24 viewBox=\"0 0 24 24\"><use href=\"#icon";
            append_number(out, n(30));
            out += "\"/><image xlink:href=\"img/i";
            append_number(out, i);
            out += ".svg\" width=24 height=24/></svg>\n";
            break;
        case 7:
            out += "<iframe src=\"https://embed.example.com/e/";
            append_number(out, i);
            out +=
                "\" width=560 height=315></iframe><object data=media/o.swf "
                "type=application/x-shockwave-flash><embed src=media/o.swf></object>\n";
            break;
    }
    out += "<p>";
    text(30 + n(30));
    out += "<br>";
    text(10);
    out += "</p>\n</div>\n";
}

}  // namespace

// A deterministic ~50 MB HTML page (same bytes on every platform: std::mt19937's output is
// fixed by the C++ standard and no distribution is used). Reusable by any benchmark that
// needs a large realistic page: declare `namespace mhtml_bench { const std::string&
// synthetic_page(); }`.
const std::string& synthetic_page() {
    static const std::string page = [] {
        constexpr std::size_t target = 50u * 1024 * 1024;
        std::string out;
        out.reserve(target + 64 * 1024);
        out +=
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>Synthetic page &mdash; mhtml benchmark</title>\n"
            "<link rel=stylesheet href=\"css/site.css\">\n"
            "<link rel=preload as=image href=\"img/hero.jpg\" "
            "imagesrcset=\"img/hero-1x.jpg 1x, img/hero-2x.jpg 2x\">\n"
            "<script src=\"js/app.js\" defer></script>\n"
            "<base href=\"https://example.com/\">\n</head>\n"
            "<body background=\"img/body.png\">\n";
        std::mt19937 rng(20240611u);
        for (std::uint32_t i = 0; out.size() < target; ++i) append_section(out, rng, i);
        out += "</body>\n</html>\n";
        return out;
    }();
    return page;
}

}  // namespace mhtml_bench

namespace {

using mhtml_bench::corpus_html_parts;
using mhtml_bench::synthetic_page;
using mhtml_bench::total_size;

#ifdef MHTML_HAVE_GUMBO

// Attributes whose value is (or, for srcset and style, contains) a URI reference: HTML's
// URL-valued attributes, legacy ones browsers still fetch, and style (CSS url()).
constexpr std::array<std::string_view, 23> uri_attributes = {
    "href",     "src",        "srcset",  "imagesrcset", "poster",   "data",
    "action",   "formaction", "cite",    "background",  "longdesc", "usemap",
    "codebase", "archive",    "classid", "manifest",    "icon",     "profile",
    "lowsrc",   "dynsrc",     "ping",    "itemtype",    "style"};

bool is_uri_attribute(std::string_view name) noexcept {
    return std::find(uri_attributes.begin(), uri_attributes.end(), name) != uri_attributes.end();
}

// What a link scanner reports: where the raw value is and what it says.
struct found_value {
    std::uint32_t offset = 0;  // first octet of the raw value (inside any quotes)
    std::uint32_t length = 0;  // octets of the raw value
    std::string value;         // character references decoded
};

GumboOptions quiet_options() {
    GumboOptions o = kGumboDefaultOptions;
    o.max_errors = 0;  // do not record parse errors
    return o;
}

// gumbo_parse_with_options over each input; the tree is built and destroyed.
void gumbo_parse_all(benchmark::State& state, const std::vector<std::string_view>& inputs,
                     const GumboOptions& options) {
    std::size_t bytes = 0;
    for (auto in : inputs) bytes += in.size();
    for (auto _ : state) {
        for (auto in : inputs) {
            GumboOutput* out = gumbo_parse_with_options(&options, in.data(), in.size());
            benchmark::DoNotOptimize(out->root);
            gumbo_destroy_output(&options, out);
        }
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

// Parses, then walks the tree and collects the value of every URI-bearing attribute and the
// text of every <style> element: the same output the purpose-built scanner produces.
void gumbo_links_all(benchmark::State& state, const std::vector<std::string_view>& inputs,
                     const GumboOptions& options) {
    std::size_t bytes = 0;
    for (auto in : inputs) bytes += in.size();
    std::vector<found_value> found;
    std::vector<const GumboNode*> stack;
    std::size_t last_count = 0;
    for (auto _ : state) {
        last_count = 0;
        for (auto in : inputs) {
            found.clear();
            GumboOutput* out = gumbo_parse_with_options(&options, in.data(), in.size());
            stack.assign(1, out->document);
            while (!stack.empty()) {
                const GumboNode* node = stack.back();
                stack.pop_back();
                const GumboVector* children = nullptr;
                if (node->type == GUMBO_NODE_DOCUMENT) {
                    children = &node->v.document.children;
                } else if (node->type == GUMBO_NODE_ELEMENT || node->type == GUMBO_NODE_TEMPLATE) {
                    const GumboElement& e = node->v.element;
                    children = &e.children;
                    for (unsigned i = 0; i < e.attributes.length; ++i) {
                        const auto* a = static_cast<const GumboAttribute*>(e.attributes.data[i]);
                        if (a->value_start.line == 0 || !is_uri_attribute(a->name))
                            continue;  // line 0: an attribute without a value
                        std::uint32_t off = a->value_start.offset;
                        std::uint32_t len = static_cast<std::uint32_t>(a->original_value.length);
                        char q = a->original_value.data[0];
                        if (len >= 2 && (q == '"' || q == '\'')) {
                            ++off;
                            len -= 2;
                        }
                        found.push_back({off, len, a->value});
                    }
                    if (e.tag == GUMBO_TAG_STYLE && e.children.length == 1) {
                        const auto* t = static_cast<const GumboNode*>(e.children.data[0]);
                        found.push_back({t->v.text.start_pos.offset,
                                         static_cast<std::uint32_t>(t->v.text.original_text.length),
                                         {}});
                    }
                }
                if (children)
                    for (unsigned i = children->length; i-- > 0;)
                        stack.push_back(static_cast<const GumboNode*>(children->data[i]));
            }
            last_count += found.size();
            benchmark::DoNotOptimize(found.data());
            gumbo_destroy_output(&options, out);
        }
    }
    state.counters["values"] = static_cast<double>(last_count);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

std::vector<std::string_view> views(const std::vector<std::string>& parts) {
    return {parts.begin(), parts.end()};
}

void BM_GumboParse_Corpus(benchmark::State& s) {
    const auto& parts = corpus_html_parts();
    s.counters["parts"] = static_cast<double>(parts.size());
    gumbo_parse_all(s, views(parts), kGumboDefaultOptions);
}
void BM_GumboParse_Synthetic(benchmark::State& s) {
    gumbo_parse_all(s, {synthetic_page()}, kGumboDefaultOptions);
}
void BM_GumboParseNoErrors_Synthetic(benchmark::State& s) {
    gumbo_parse_all(s, {synthetic_page()}, quiet_options());
}
void BM_GumboLinks_Corpus(benchmark::State& s) {
    gumbo_links_all(s, views(corpus_html_parts()), kGumboDefaultOptions);
}
void BM_GumboLinks_Synthetic(benchmark::State& s) {
    gumbo_links_all(s, {synthetic_page()}, kGumboDefaultOptions);
}
BENCHMARK(BM_GumboParse_Corpus)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GumboParse_Synthetic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GumboParseNoErrors_Synthetic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GumboLinks_Corpus)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GumboLinks_Synthetic)->Unit(benchmark::kMillisecond);

#endif  // MHTML_HAVE_GUMBO

// Reports the sizes of the two inputs (counters only; nothing worth timing).
void BM_HtmlInputs(benchmark::State& s) {
    for (auto _ : s) {
        benchmark::DoNotOptimize(corpus_html_parts().size());
        benchmark::DoNotOptimize(synthetic_page().size());
    }
    s.counters["corpus_parts"] = static_cast<double>(corpus_html_parts().size());
    s.counters["corpus_bytes"] = static_cast<double>(total_size(corpus_html_parts()));
    s.counters["synthetic_bytes"] = static_cast<double>(synthetic_page().size());
}
BENCHMARK(BM_HtmlInputs)->Iterations(1);

// The purpose-built scanner on the same inputs: every reference with its raw range and
// decoded value, CSS in <style> and style="" included (more than the gumbo walk collects,
// which takes <style> text without scanning it).
void mhtml_scan_all(benchmark::State& state, const std::vector<std::string_view>& inputs) {
    std::size_t bytes = 0;
    for (auto in : inputs) bytes += in.size();
    std::size_t last_count = 0;
    for (auto _ : state) {
        last_count = 0;
        for (auto in : inputs) {
            auto result = mhtml::html::scan_html(in);
            last_count += result.refs.size();
            benchmark::DoNotOptimize(result.refs.data());
        }
    }
    state.counters["values"] = static_cast<double>(last_count);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

void BM_MhtmlScan_Corpus(benchmark::State& s) {
    const auto& parts = corpus_html_parts();
    mhtml_scan_all(s, {parts.begin(), parts.end()});
}
void BM_MhtmlScan_Synthetic(benchmark::State& s) {
    mhtml_scan_all(s, {synthetic_page()});
}
BENCHMARK(BM_MhtmlScan_Corpus)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MhtmlScan_Synthetic)->Unit(benchmark::kMillisecond);

// Scan and a rewrite of every reference (what extract and inline do per document part).
void BM_MhtmlScanRewrite_Synthetic(benchmark::State& s) {
    const std::string& page = synthetic_page();
    for (auto _ : s) {
        auto result = mhtml::html::scan_html(page);
        std::string out =
            mhtml::html::rewrite(page, result.refs, [](const mhtml::html::reference& r) {
                return std::optional<std::string>("x/" + r.url);
            });
        benchmark::DoNotOptimize(out.data());
    }
    s.SetBytesProcessed(static_cast<std::int64_t>(s.iterations() * page.size()));
}
BENCHMARK(BM_MhtmlScanRewrite_Synthetic)->Unit(benchmark::kMillisecond);

}  // namespace
