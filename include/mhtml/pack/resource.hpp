#pragma once
/// pack::resource: one body part the writer is to write, and where its octets come from.
///
/// This is the contract between the two halves of `pack`: the collector
/// (pack/collect.hpp: which files or URLs a page needs, with what labels, and the
/// documents rewritten for the chosen method) and the streaming writer (pack/writer.hpp:
/// how they go on the wire). A resource names its octets rather than holding them when
/// they are on disk, so that the writer holds at most one resource in memory.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mhtml/export.hpp"

namespace mhtml::pack {

/// How references are made to resolve (THTML §9, MHT-7.9).
enum class method : std::uint8_t {
    content_location,  ///< links unchanged; each part labelled with its URL (the default)
    cid,               ///< links rewritten to `cid:` URLs of generated Content-IDs
    filename,          ///< links rewritten to virtual file names (uri/virtual_filename)
};

struct resource {
    /// The Content-Location to write, as a URI (absolute, or relative to the aggregate's
    /// base); empty for none. The writer chooses its header form (bare, RFC 2017 folded,
    /// RFC 2047 words) with uri::write_header_uri.
    std::string label;
    /// The Content-ID without angle brackets; empty for none. With method::cid the
    /// collector sets it (pack::make_content_id) and the documents refer to `cid:` it.
    std::string content_id;
    /// The media type with its parameters, e.g. `text/html; charset=windows-1252` or
    /// `image/png`. A text type without a charset gets one from the writer (MHT-11.9).
    std::string content_type;
    /// An HTTP Content-Encoding the octets still carry (`gzip`, `deflate`, `br`, or empty):
    /// the writer undoes it first (MHT-11.6).
    std::string content_encoding;
    /// The octets: `data` when `in_memory` (a rewritten document, a download), else read
    /// from `file` when the writer reaches this resource.
    bool in_memory = true;
    std::string data;
    std::filesystem::path file;
    /// Instead of `data` (with `in_memory`): octets already base64 encoded, e.g. a body part
    /// of another archive, borrowed: they must stay valid until writer::finish() returns (a
    /// large body is written from where it is, by the writing thread). When they are
    /// exactly what the writer's encoder would write (mime::canonical_base64_size) and the
    /// writer needs nothing else from the octets (a type other than text, no Content-Encoding,
    /// no Content-MD5 to compute, no external bodies, not the root) they are copied as they
    /// are, without decoding and encoding again; otherwise the writer decodes them.
    std::string_view base64_body;
    /// Likewise for a text already quoted-printable encoded (instead of `data`, borrowed): copied
    /// as it is when it is in the encoder's own form (mime::canonical_qp), the type is text,
    /// and the writer needs nothing else from the octets (as for base64_body, and no UTF-16 or
    /// UTF-32 to transcode); the charset is the type's, or chosen from the decoded octets as
    /// for `data`. Otherwise the writer decodes it.
    std::string_view qp_body;
    /// The check of base64_body or qp_body by mime::canonical_base64_size or
    /// mime::canonical_qp, when the caller has run it already (repair checks the bodies on the
    /// thread that plans, beside the one that writes): the writer then does not run it again.
    /// `size` must be what that function returns for the body (nullopt: not in the encoder's
    /// form); any other value makes an output whose encoding is not checked.
    struct encoded_check {
        bool done = false;  ///< false: the writer runs the check itself
        std::optional<std::uint64_t> size;
    };
    encoded_check checked;
    /// Where the resource came from, for reports (a path, a URL); not written.
    std::string origin;
    /// Further header fields to carry over (name, unfolded value), e.g. Content-MD5,
    /// Content-Disposition, Content-Description, Content-Language. The writer drops the
    /// fields it writes itself (Content-Type, Content-Transfer-Encoding, Content-Location,
    /// Content-ID, Content-Base, Content-Encoding, Content-Length, MIME-Version), any field
    /// check_field refuses, and a Content-MD5 that a conversion made stale (MHT-11.5).
    std::vector<std::pair<std::string, std::string>> fields;

    /// A resource held in memory: its label, type and octets.
    static resource from_data(std::string label, std::string content_type, std::string data) {
        resource r;
        r.label = std::move(label);
        r.content_type = std::move(content_type);
        r.data = std::move(data);
        return r;
    }
};

}  // namespace mhtml::pack
