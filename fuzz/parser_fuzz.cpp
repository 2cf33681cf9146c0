// libFuzzer target for the MIME parser: must not crash, hang or leak; an untouched
// document always serialises back to the input; every leaf decodes. Multiparts read from
// their decoded body (REL-2.2 salvage): the tree read from a decoded body covers it exactly,
// the encoded body decodes to it, and every diagnostic offset is inside the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mhtml/mime/document.hpp"

namespace {

using mhtml::mime::document;
using mhtml::mime::entity_kind;
namespace detail = mhtml::mime::detail;

void write_body(const document& d, std::uint32_t i, std::string& out);

void write_entity(const document& d, std::uint32_t i, std::string& out) {
    const auto& r = d.record(i);
    out += d.view(r.begin, r.body_begin);
    if (r.kind == entity_kind::leaf || r.decoded_body) {
        out += d.view(r.body_begin, r.body_end);
        return;
    }
    write_body(d, i, out);
}

// Multipart or message i's body from the tree, through document::view; a multipart read
// from its decoded body gives that decoded body.
void write_body(const document& d, std::uint32_t i, std::string& out) {
    const auto& r = d.record(i);
    std::uint64_t pos = r.body_begin, end = r.body_end;
    if (const detail::decoded_body* b = d.decoded_body_of(i)) {
        pos = b->base;
        end = b->base + b->bytes.size();
    }
    for (auto c = r.first_child; c != detail::entity_record::none; c = d.record(c).next_sibling) {
        const auto& cr = d.record(c);
        out += d.view(pos, cr.delim_begin);
        out += d.view(cr.delim_begin, cr.begin);
        write_entity(d, c, out);
        pos = cr.body_end;
    }
    if (r.kind == entity_kind::multipart) {
        out += d.view(pos, r.close_begin);
        out += d.view(r.close_begin, r.close_end);
        pos = r.close_end;
    }
    out += d.view(pos, end);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    mhtml::mime::parse_options opts;
    opts.limits.max_depth = 64;
    auto doc = mhtml::mime::document::parse(in, opts);
    if (mhtml::mime::serialize(doc) != in) __builtin_trap();
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
