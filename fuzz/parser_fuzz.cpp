// libFuzzer target for the MIME parser: must not crash, hang or leak; an untouched
// document always serialises back to the input; every leaf decodes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mhtml/mime/document.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    mhtml::mime::parse_options opts;
    opts.limits.max_depth = 64;
    auto doc = mhtml::mime::document::parse(in, opts);
    if (mhtml::mime::serialize(doc) != in) __builtin_trap();
    std::string out;
    std::vector<mhtml::diagnostic> diags;
    for (auto p : doc.parts()) {
        (void)p.path();
        (void)p.content_id();
        (void)p.content_location();
        (void)p.disposition();
        if (p.is_leaf()) {
            out.clear();
            p.decode_to(out, diags);
        }
    }
    return 0;
}
