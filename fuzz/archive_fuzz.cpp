/// libFuzzer target for the archive layer: parse a message, build the aggregate (roots,
/// base URIs, label indexes), resolve every reference of every document part, and run the
/// conformance checker.
///
/// Checks, on arbitrary input: nothing crashes or hangs; a resolved target is a body part
/// of the same document; strict resolution never finds a part the default one misses.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/archive/check.hpp"
#include "mhtml/mime/document.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace mhtml;
    auto doc = mime::document::parse(std::string(reinterpret_cast<const char*>(data), size));
    auto lenient = archive::aggregate::build(doc);
    auto strict = archive::aggregate::build(doc, {.strict = true});
    for (auto p : doc.parts()) {
        (void)lenient.info(p);
        for (const auto& r : lenient.references(p).refs) {
            auto a = lenient.resolve(p, r.url);
            auto b = strict.resolve(p, r.url);
            if (a.target) MHTML_CHECK(a.target->index() < doc.size());
            if (b.target) MHTML_CHECK(a.target.has_value());
        }
    }
    (void)archive::check(doc);
    return 0;
}
