// Built against an installed mhtml (scripts/test.sh): parses a file, prints its parts.
#include <mhtml/archive/aggregate.hpp>
#include <mhtml/mime/document.hpp>
#include <mhtml/uri/reference.hpp>
#include <mhtml/version.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    std::error_code ec;
    auto in = mhtml::input_buffer::open(argv[1], ec);
    if (ec) return 2;
    auto doc = mhtml::mime::document::parse(std::move(in));
    std::size_t leaves = 0;
    for (auto p : doc.parts()) leaves += p.is_leaf();
    // The URI layer links Boost.URL (a private dependency the package config must bring).
    if (!mhtml::uri::check_reference("http://a/b/c?d#e")) return 1;
    if (mhtml::uri::resolve("http://a/b/c/d;p?q", "../../../g").value_or("") != "http://a/g")
        return 1;
    // The archive layer: a class with hidden state (exported from a shared library).
    auto agg = mhtml::archive::aggregate::build(doc);
    if (agg.related().empty()) return 1;
    // The library run is the one whose headers this was compiled with.
    if (mhtml::version() != MHTML_VERSION_STRING) return 1;
    std::printf("consumer: mhtml %s, %zu entities, %zu leaves\n", MHTML_VERSION_STRING, doc.size(),
                leaves);
    return leaves > 0 ? 0 : 1;
}
