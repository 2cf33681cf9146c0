// libFuzzer target for the MIME parser: must not crash, hang or leak; an untouched
// document always serialises back to the input; every leaf decodes. Multiparts read from
// their decoded body (REL-2.2 salvage): the tree read from a decoded body covers it exactly,
// the encoded body decodes to it, and every diagnostic offset is inside the input. Encoded
// message/* bodies likewise. Diagnostics stay within their cap.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mhtml/mime/document.hpp"
#include "support/tree_walk.hpp"

namespace {

using mhtml::test::write_body;

using mhtml::mime::document;
using mhtml::mime::entity_kind;
namespace detail = mhtml::mime::detail;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    mhtml::mime::parse_options opts;
    opts.limits.max_depth = 64;
    opts.limits.max_diagnostics = 64;  // small, so that the cap is reached often
    auto doc = mhtml::mime::document::parse(in, opts);
    if (mhtml::mime::serialize(doc) != in) __builtin_trap();
    const auto& ds = doc.diagnostics();
    if (ds.size() > 65) __builtin_trap();
    for (std::size_t i = 0; i < ds.size(); ++i) {
        // Only the last may be the count, and only once the cap is reached.
        bool count = ds[i].code == mhtml::diag_code::diagnostics_dropped;
        if (count != (i == 64)) __builtin_trap();
        if (count && mhtml::dropped_count(ds[i]) == 0) __builtin_trap();
    }
    for (const auto& d : doc.diagnostics())
        if (d.offset > in.size()) __builtin_trap();
    std::string out;
    std::vector<mhtml::diagnostic> diags;
    for (auto p : doc.parts()) {
        (void)p.path();
        (void)p.content_id();
        (void)p.content_location();
        (void)p.disposition();
        if (p.input_offset() > in.size()) __builtin_trap();
        if (p.in_decoded_body() != (p.offset() > in.size())) __builtin_trap();
        for (const auto& f : p.headers()) {
            std::uint64_t at = doc.offset_of(f.raw().data());
            if (doc.view(at, at + f.raw().size()) != f.raw()) __builtin_trap();
        }
        if (p.is_leaf()) {
            out.clear();
            p.decode_to(out, diags);
        }
    }
    for (const auto& d : diags)
        if (d.offset > in.size()) __builtin_trap();
    std::uint64_t decoded_total = 0;
    for (const auto& b : doc.decoded_bodies()) {
        decoded_total += b->bytes.size();
        if (b->base <= in.size() || b->input_offset > in.size()) __builtin_trap();
        out.clear();
        write_body(doc, b->entity, out);
        if (out != b->bytes) __builtin_trap();
        out.clear();
        doc.part(b->entity).decode_to(out);
        if (out != b->bytes) __builtin_trap();
    }
    if (decoded_total > 2 * in.size() + (1u << 20)) __builtin_trap();
    return 0;
}
