#pragma once
/// part_view: one entity (message or body part) of a parsed document. Borrowed: valid
/// while its document lives (moving the document does not invalidate it); cheap to copy.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/mime/codec_status.hpp"
#include "mhtml/mime/content_type.hpp"
#include "mhtml/mime/header.hpp"

namespace mhtml::mime {

class document;
namespace detail {
class document_state;
}

enum class entity_kind : std::uint8_t {
    leaf,       ///< a body that is not parsed further
    multipart,  ///< RFC 2046 §5.1: body parts between delimiters
    message,    ///< message/rfc822, global, news, external-body: one encapsulated entity
};

class MHTML_EXPORT part_view {
public:
    /// Entity `index` of a parsed document (document::part, document::root make them).
    part_view(const detail::document_state* doc, std::uint32_t index) noexcept
        : doc_(doc), index_(index) {}

    /// IMAP-style path: "" for the outermost entity, "1", "1.2", ... for body parts. The
    /// entity encapsulated by a message/rfc822 part P is "P.1".
    std::string path() const;
    /// Position in the document's depth-first order (0 = the outermost entity).
    std::uint32_t index() const noexcept { return index_; }
    std::uint32_t depth() const noexcept;
    entity_kind kind() const noexcept;
    /// Neither multipart nor an encapsulated message.
    bool is_leaf() const noexcept { return kind() == entity_kind::leaf; }

    /// The effective type: the Content-Type field, or the default of RFC 2045 §5.2
    /// (text/plain; charset=us-ascii) or RFC 2046 §5.1.5 (message/rfc822 in a digest).
    const mime::content_type& content_type() const noexcept;
    /// True if the entity has a Content-Type field that could be parsed.
    bool has_content_type() const noexcept;
    transfer_encoding encoding() const noexcept;

    /// The header fields in order, repeated ones included (a range of header_field_view).
    header_list headers() const noexcept;
    /// The first field of that name (case-insensitive), if any.
    std::optional<header_field_view> header(std::string_view name) const noexcept;
    /// Content-ID without angle brackets (brackets are optional on input).
    std::optional<std::string> content_id() const;
    /// Content-Location, unfolded and trimmed, otherwise as written (URI semantics are
    /// the uri/ layer's job).
    std::optional<std::string> content_location() const;
    /// Content-Base, unfolded and trimmed.
    std::optional<std::string> content_base() const;
    std::optional<content_disposition> disposition() const;

    /// Offsets in the input. An entity recovered from a decoded body (in_decoded_body()) has
    /// offsets beyond the input, which address that decoded body (document::view reads
    /// them; input_offset() is a position in the input).
    std::uint64_t offset() const noexcept;       ///< first octet of the header block
    std::uint64_t body_offset() const noexcept;  ///< first octet of the body
    /// offset() as a position in the input: for an entity in a decoded body, the first octet
    /// of the encoded body it was decoded from (the outermost one, if nested).
    std::uint64_t input_offset() const noexcept;
    /// REL-2.2 salvage: a base64 or quoted-printable multipart whose body as written has no
    /// delimiter, and whose parts were found in its decoded body; or a base64 or
    /// quoted-printable message/* whose message was read from its decoded body. Its
    /// raw_body() is the encoded body and decode_to() gives the decoded one; preamble(),
    /// epilogue() and its children are read from the decoded body.
    bool body_was_decoded() const noexcept;
    /// True for an entity found in such a decoded body (at any depth below it).
    bool in_decoded_body() const noexcept;
    /// The whole entity: header block and body (for a body part, without the delimiters).
    std::string_view raw() const noexcept;
    /// The header block as written, including the empty line that ends it.
    std::string_view raw_headers() const noexcept;
    /// The body, still transfer-encoded. For a multipart: preamble, parts and epilogue.
    std::string_view raw_body() const noexcept;
    /// multipart: the preamble and epilogue (RFC 2046 §5.1.1), without delimiter lines.
    std::string_view preamble() const noexcept;
    std::string_view epilogue() const noexcept;
    /// multipart: the boundary in use (declared, or found by salvage).
    std::string_view boundary() const noexcept;

    std::optional<part_view> parent() const noexcept;
    std::vector<part_view> children() const;
    std::size_t child_count() const noexcept;

    /// Appends the body with its Content-Transfer-Encoding removed to `out`. Never fails:
    /// undecodable input is recovered and reported in the returned status.
    codec_status decode_to(std::string& out) const;
    /// decode_to plus diagnostics (code, part path, input offset) for what it recovered.
    codec_status decode_to(std::string& out, std::vector<diagnostic>& diags) const;

    /// The document it belongs to (wherever that document has been moved since).
    const document& doc() const noexcept;
    friend bool operator==(const part_view& a, const part_view& b) noexcept {
        return a.doc_ == b.doc_ && a.index_ == b.index_;
    }

private:
    const detail::document_state* doc_;
    std::uint32_t index_;
};

}  // namespace mhtml::mime
