#include "mhtml/mime/document.hpp"

namespace mhtml::mime {

namespace {

// Writes entity i from the tree: header block, then the body as the tree describes it.
// Every range is taken from the records, so a gap or overlap in the tree shows up as a
// difference from the input.
void write_entity(const document& d, std::uint32_t i, std::string& out) {
    const auto& r = d.record(i);
    std::string_view in = d.bytes();
    auto put = [&](std::uint64_t a, std::uint64_t b) {
        if (b > a) out.append(in.substr(a, b - a));
    };
    put(r.begin, r.body_begin);
    // A multipart whose parts were read from its decoded body (REL-2.2 salvage) is written
    // as its encoded body: its parts are not in the input.
    if (r.kind == entity_kind::leaf || r.decoded_body) {
        put(r.body_begin, r.body_end);
        return;
    }
    std::uint64_t pos = r.body_begin;
    for (auto c = r.first_child; c != detail::entity_record::none; c = d.record(c).next_sibling) {
        const auto& cr = d.record(c);
        put(pos, cr.delim_begin);       // preamble (before the first part)
        put(cr.delim_begin, cr.begin);  // the delimiter line
        write_entity(d, c, out);
        pos = cr.body_end;
    }
    if (r.kind == entity_kind::multipart) {
        const auto& m = d.multipart_of(i);
        put(pos, m.close_begin);
        put(m.close_begin, m.close_end);  // close delimiter
        pos = m.close_end;
    }
    put(pos, r.body_end);  // epilogue
}

}  // namespace

std::string serialize(const document& doc) {
    std::string out;
    out.reserve(doc.bytes().size());
    if (doc.size() > 0) write_entity(doc, 0, out);
    return out;
}

}  // namespace mhtml::mime
