#pragma once
// The bytes of an entity read back from the tree through document::view, for the parser
// fuzzer and the REL-2.2 tests: for a multipart read from its decoded body, write_body gives
// that decoded body back only if every recovered range is where it should be (no gap, no
// overlap). An independent walk, not the serializer's.

#include <cstdint>
#include <string>

#include "mhtml/mime/document.hpp"

namespace mhtml::test {

inline void write_body(const mime::document& d, std::uint32_t i, std::string& out);

inline void write_entity(const mime::document& d, std::uint32_t i, std::string& out) {
    const auto& r = d.record(i);
    out += d.view(r.begin, r.body_begin);
    if (r.kind == mime::entity_kind::leaf || r.decoded_body) {
        out += d.view(r.body_begin, r.body_end);
        return;
    }
    write_body(d, i, out);
}

// Multipart or message i's body from the tree, through document::view; a multipart read
// from its decoded body gives that decoded body.
inline void write_body(const mime::document& d, std::uint32_t i, std::string& out) {
    const auto& r = d.record(i);
    std::uint64_t pos = r.body_begin, end = r.body_end;
    if (const mime::detail::decoded_body* b = d.decoded_body_of(i)) {
        pos = b->base;
        end = b->base + b->bytes.size();
    }
    for (auto c = r.first_child; c != mime::detail::entity_record::none;
         c = d.record(c).next_sibling) {
        const auto& cr = d.record(c);
        out += d.view(pos, cr.delim_begin);
        out += d.view(cr.delim_begin, cr.begin);
        write_entity(d, c, out);
        pos = cr.body_end;
    }
    if (r.kind == mime::entity_kind::multipart) {
        const auto& m = d.multipart_of(i);
        out += d.view(pos, m.close_begin);
        out += d.view(m.close_begin, m.close_end);
        pos = m.close_end;
    }
    out += d.view(pos, end);
}

}  // namespace mhtml::test
