#pragma once
/// A parsed MIME document: one pass over one contiguous input buffer into a tree of
/// entities whose headers and bodies are views into that buffer (RFC 2045, RFC 2046,
/// RFC 5322). Parsing never fails: bad MIME yields a tree plus diagnostics, and the tree
/// covers every input octet, so serialize(parse(x)) == x.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/input.hpp"
#include "mhtml/limits.hpp"
#include "mhtml/mime/part.hpp"

namespace mhtml::mime {

struct parse_options {
    parse_limits limits;
};

namespace detail {
// One entity as offsets into the input. Every range is half-open. A multipart's body is
// [body_begin, body_end) = preamble, then per child its delimiter [delim_begin, child.begin)
// and the child, then the close delimiter [close_begin, close_end), then the epilogue
// [close_end, body_end).
struct entity_record {
    static constexpr std::uint32_t none = 0xffffffffu;
    std::uint64_t begin = 0, body_begin = 0, body_end = 0;
    std::uint64_t delim_begin = 0;                 // body part: start of the delimiter before it
    std::uint64_t close_begin = 0, close_end = 0;  // multipart: close delimiter (empty if missing)
    std::uint32_t parent = none, first_child = none, last_child = none, next_sibling = none;
    std::uint32_t child_count = 0, number = 0;  // number: 1-based position among siblings
    std::uint32_t first_header = 0, header_count = 0;
    std::uint32_t depth = 0;
    entity_kind kind = entity_kind::leaf;
    transfer_encoding encoding = transfer_encoding::seven_bit;
    bool has_content_type = false;
    std::uint32_t boundary = none;  // multipart: index into document's boundary table
};
}  // namespace detail

class document {
public:
    /// Parses bytes that the document then owns (a memory-mapped file, standard input).
    static document parse(input_buffer input, const parse_options& opts = {});
    /// Parses bytes the caller owns; they must outlive the document and its views.
    static document parse(std::string_view bytes, const parse_options& opts = {});
    /// Parses a string that the document then owns (so `parse(read_file(...))` is safe).
    static document parse(std::string&& bytes, const parse_options& opts = {});
    /// Parses a string literal or other C string the caller keeps alive (borrowed).
    static document parse(const char* bytes, const parse_options& opts = {}) {
        return parse(std::string_view(bytes), opts);
    }

    document(document&&) noexcept = default;
    document& operator=(document&&) noexcept = default;

    std::string_view bytes() const noexcept { return bytes_; }
    part_view root() const noexcept { return part_view(this, 0); }
    /// Number of entities (every message, multipart and leaf).
    std::size_t size() const noexcept { return entities_.size(); }
    /// The entity at depth-first position `i`.
    part_view part(std::size_t i) const noexcept { return part_view(this, std::uint32_t(i)); }
    std::vector<part_view> parts() const;
    /// The entity with this IMAP-style path ("" for the outermost), if any.
    std::optional<part_view> find(std::string_view path) const;
    const std::vector<diagnostic>& diagnostics() const noexcept { return diagnostics_; }

    // Internal representation, used by part_view and the serializer.
    const detail::entity_record& record(std::uint32_t i) const noexcept { return entities_[i]; }
    const content_type& type_of(std::uint32_t i) const noexcept { return types_[type_index_[i]]; }
    const std::vector<header_field_view>& all_headers() const noexcept { return headers_; }
    /// The boundary a multipart uses ("" if none).
    std::string_view boundary_of(std::uint32_t i) const noexcept {
        auto b = entities_[i].boundary;
        return b == detail::entity_record::none ? std::string_view{}
                                                : std::string_view(boundaries_[b]);
    }

private:
    document() = default;
    friend class parser;
    input_buffer input_;
    std::string_view bytes_;
    std::vector<detail::entity_record> entities_;
    std::vector<content_type> types_;        // distinct content types, parsed once each
    std::vector<std::uint32_t> type_index_;  // per entity: its type in types_
    std::vector<header_field_view> headers_;
    std::vector<std::string> boundaries_;  // only multiparts have one; entity_record stays small
    std::vector<diagnostic> diagnostics_;
};

/// The input again, written from the tree: every header block, body, delimiter, preamble
/// and epilogue in order. Byte-exact for an untouched document.
std::string serialize(const document& doc);

}  // namespace mhtml::mime
