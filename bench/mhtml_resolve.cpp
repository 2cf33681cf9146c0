// Resolving every reference of an archive: parse, build the aggregate (roots, bases, one
// label index per related structure), scan every HTML/CSS/SVG part and resolve each
// reference. Prints the counts and the time of each step, so that resolution can be
// compared with parsing (docs/PERFORMANCE.md).
//   mhtml_resolve FILE...            real archives (e.g. the ../shared/bench workloads)
//   mhtml_resolve --scaling          synthetic archives of 1,000 to 100,000 parts, one
//                                    reference per part: time per reference must stay flat

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/input.hpp"
#include "mhtml/mime/document.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) {
    return std::chrono::duration<double>(clock_type::now() - t).count();
}

struct totals {
    std::size_t parts = 0, documents = 0, references = 0, to_parts = 0;
    double parse = 0, build = 0, resolve = 0;
};

totals run(mhtml::mime::document doc, double parse_seconds) {
    totals t;
    t.parse = parse_seconds;
    auto start = clock_type::now();
    auto agg = mhtml::archive::aggregate::build(doc);
    t.build = seconds_since(start);
    t.parts = doc.size();
    start = clock_type::now();
    for (auto p : doc.parts()) {
        if (mhtml::archive::document_type_of(p) == mhtml::archive::document_type::none) continue;
        ++t.documents;
        for (const auto& r : agg.references(p).refs) {
            ++t.references;
            t.to_parts += agg.resolve(p, r.url).target.has_value();
        }
    }
    t.resolve = seconds_since(start);
    return t;
}

std::string synthetic(std::size_t parts) {
    std::string boundary = "----b";
    std::string out =
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"text/html\"; boundary=\"" +
        boundary + "\"\r\n\r\n--" + boundary +
        "\r\nContent-Type: text/html\r\nContent-Location: https://e.example/page.html\r\n\r\n";
    for (std::size_t i = 1; i < parts; ++i)
        out += "<img src=\"img/" + std::to_string(i) + ".png\">\r\n";
    for (std::size_t i = 1; i < parts; ++i) {
        out += "--" + boundary +
               "\r\nContent-Type: image/png\r\nContent-Location: https://e.example/img/" +
               std::to_string(i) + ".png\r\n\r\nx\r\n";
    }
    out += "--" + boundary + "--\r\n";
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::string_view(argv[1]) == "--scaling") {
        std::printf("%8s %10s %12s %12s %14s\n", "parts", "refs", "build ms", "resolve ms",
                    "ns/reference");
        for (std::size_t parts : {1000u, 10000u, 100000u}) {
            std::string text = synthetic(parts);
            auto start = clock_type::now();
            auto doc = mhtml::mime::document::parse(std::move(text));
            totals t = run(std::move(doc), seconds_since(start));
            std::printf("%8zu %10zu %12.1f %12.1f %14.0f\n", t.parts, t.references, t.build * 1e3,
                        t.resolve * 1e3, t.resolve * 1e9 / static_cast<double>(t.references));
        }
        return 0;
    }
    for (int i = 1; i < argc; ++i) {
        std::error_code ec;
        auto in = mhtml::input_buffer::open(argv[i], ec);
        if (ec) {
            std::fprintf(stderr, "mhtml_resolve: cannot read %s: %s\n", argv[i],
                         ec.message().c_str());
            return 2;
        }
        auto start = clock_type::now();
        auto doc = mhtml::mime::document::parse(std::move(in));
        totals t = run(std::move(doc), seconds_since(start));
        std::printf(
            "%s: entities=%zu documents=%zu refs=%zu to_parts=%zu parse=%.1fms build=%.1fms "
            "resolve=%.1fms\n",
            argv[i], t.parts, t.documents, t.references, t.to_parts, t.parse * 1e3, t.build * 1e3,
            t.resolve * 1e3);
    }
    return 0;
}
