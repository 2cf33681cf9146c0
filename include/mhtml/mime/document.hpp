#pragma once
/// A parsed MIME document: one pass over one contiguous input buffer into a tree of
/// entities whose headers and bodies are views into that buffer (RFC 2045, RFC 2046,
/// RFC 5322). Parsing never fails: bad MIME yields a tree plus diagnostics, and the tree
/// covers every input octet, so serialize(parse(x)) == x.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/ascii.hpp"
#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/input.hpp"
#include "mhtml/limits.hpp"
#include "mhtml/mime/part.hpp"

namespace mhtml::mime {

struct parse_options {
    parse_limits limits;
    /// REL-2.2 salvage: how many decoded bodies may nest (an encoded multipart or message/*
    /// found inside the decoded body of another one). Beyond it the multipart is parsed as
    /// it is, the message kept as a leaf (`decode_limit`). 0 turns the salvage off.
    std::uint32_t max_decoded_nesting = 4;
};

namespace detail {
// One entity as offsets into the input. Every range is half-open. A multipart's body is
// [body_begin, body_end) = preamble, then per child its delimiter [delim_begin, child.begin)
// and the child, then the close delimiter [close_begin, close_end) of its multipart_record,
// then the epilogue [close_end, body_end). 64 bytes: on archives of 100,000 small parts the
// tables are what the parser writes most, and memory touched for the first time is dear.
struct entity_record {
    static constexpr std::uint32_t none = 0xffffffffu;
    std::uint64_t begin = 0, body_begin = 0, body_end = 0;
    std::uint64_t delim_begin = 0;  // body part: start of the delimiter before it
    std::uint32_t parent = none, first_child = none, next_sibling = none;
    std::uint32_t number = 0;  // 1-based position among siblings
    // Its header fields are the document's field records [first_header, the next entity's
    // first_header): each entity's header block is read before the next entity is made.
    std::uint32_t first_header = 0;
    std::uint32_t type = 0;          // index into the document's distinct content types
    std::uint32_t multipart = none;  // multipart: index into the document's multipart table
    entity_kind kind = entity_kind::leaf;
    transfer_encoding encoding = transfer_encoding::seven_bit;
    bool has_content_type : 1 = false;
    // A multipart or message read from its decoded body (REL-2.2 salvage): begin, body_begin,
    // body_end and delim_begin are in the space of its container as usual (its body is the
    // encoded one), while its close delimiter and its children address its decoded body.
    bool decoded_body : 1 = false;
    // Where the first Content-ID, Content-Location and Content-Base fields are among its
    // fields (known_field): found while the header block was read, so that lookups by these
    // names, which the aggregate makes for every part, go straight to the field. Four bits
    // each, to keep the record in 64 bytes.
    static constexpr std::uint8_t known_absent = 14;   // no such field
    static constexpr std::uint8_t known_unknown = 15;  // not recorded (look it up)
    std::uint8_t known_id : 4 = known_unknown;
    std::uint8_t known_location : 4 = known_unknown;
    std::uint8_t known_base : 4 = known_unknown;
    [[nodiscard]] std::uint8_t known(int field) const noexcept {
        return field == 0 ? known_id : field == 1 ? known_location : known_base;
    }
    void set_known(int field, std::uint8_t v) noexcept {
        if (field == 0)
            known_id = v & 15u;
        else if (field == 1)
            known_location = v & 15u;
        else
            known_base = v & 15u;
    }
};

/// The fields entity_record::known records: their index there, or -1 for another name.
inline int known_field(std::string_view name) noexcept {
    switch (name.size()) {
        case 10:
            return ascii::iequals(name, "Content-ID") ? 0 : -1;
        case 16:
            return ascii::iequals(name, "Content-Location") ? 1 : -1;
        case 12:
            return ascii::iequals(name, "Content-Base") ? 2 : -1;
        default:
            return -1;
    }
}

// What only a multipart has.
struct multipart_record {
    std::uint64_t close_begin = 0, close_end = 0;  // close delimiter (empty if missing)
    std::uint32_t last_child = entity_record::none, child_count = 0;
    std::string boundary;  // in use: declared or found by salvage; "" if none
};

// The body of a base64 or quoted-printable multipart, decoded because the body as written
// holds no delimiter (REL-2.2, RFC 2045 §6.4), or of a base64 or quoted-printable message/*.
// Offsets address one space: the input is [0, input size], and each decoded body follows at
// `base` (one past the end of what precedes it, so that an offset at the end of one range
// never names the next).
struct decoded_body {
    std::uint32_t entity = 0;        // the multipart or message whose decoded body this is
    std::uint32_t end_entity = 0;    // one past its last descendant
    std::uint64_t base = 0;          // offset of bytes[0]
    std::uint64_t input_offset = 0;  // the encoded body in the input (outermost, if nested)
    std::string bytes;
};
}  // namespace detail

class document;
class parser;

namespace detail {
// What a parse produced: the input, the entity tables, the decoded bodies, the diagnostics.
// It lives on the heap behind its `document` and never moves, so the part_views that point
// at it, and whatever holds them (an aggregate), stay valid when the document is moved.
class MHTML_EXPORT document_state {
public:
    document_state() = default;
    document_state(const document_state&) = delete;
    document_state& operator=(const document_state&) = delete;

    // The document that owns this state (kept up to date when that document is moved).
    const document& owner() const noexcept { return *owner_; }
    std::string_view bytes() const noexcept { return bytes_; }
    std::string_view view(std::uint64_t begin, std::uint64_t end) const noexcept {
        if (end <= bytes_.size()) [[likely]]
            return bytes_.substr(begin, end - begin);
        return decoded_view(begin, end);
    }
    std::uint64_t offset_of(const char* p) const noexcept;
    std::uint64_t input_offset(std::uint64_t offset) const noexcept;
    const std::vector<std::unique_ptr<decoded_body>>& decoded_bodies() const noexcept {
        return decoded_;
    }
    const decoded_body* decoded_body_of(std::uint32_t i) const noexcept;
    std::size_t size() const noexcept { return entities_.size(); }
    const entity_record& record(std::uint32_t i) const noexcept { return entities_[i]; }
    const multipart_record& multipart_of(std::uint32_t i) const noexcept {
        static const multipart_record no_multipart;
        auto m = entities_[i].multipart;
        return m == entity_record::none ? no_multipart : multiparts_[m];
    }
    const content_type& type_of(std::uint32_t i) const noexcept {
        return types_[entities_[i].type];
    }
    header_list headers_of(std::uint32_t i) const noexcept;
    std::string_view boundary_of(std::uint32_t i) const noexcept {
        return multipart_of(i).boundary;
    }
    const std::vector<diagnostic>& diagnostics() const noexcept { return diagnostics_; }

private:
    friend class mime::document;
    friend class mime::parser;
    const document* owner_ = nullptr;
    input_buffer input_;
    std::string_view bytes_;
    std::vector<entity_record> entities_;
    std::vector<content_type> types_;  // distinct content types, parsed once each
    std::vector<field_record> fields_;
    std::vector<multipart_record> multiparts_;  // entity_record stays small
    std::vector<diagnostic> diagnostics_;
    // Decoded bodies (REL-2.2 salvage), by increasing base. Each is allocated once, so
    // header views into it stay valid however the vector grows.
    std::vector<std::unique_ptr<decoded_body>> decoded_;
    std::vector<std::uint32_t> by_address_;  // decoded_ indices by bytes.data(), for offset_of
    const decoded_body* segment_at(std::uint64_t offset) const noexcept;
    std::string_view decoded_view(std::uint64_t begin, std::uint64_t end) const noexcept;
};
}  // namespace detail

/// A parsed document. It owns what the parse produced (and the input, unless it was given
/// as a borrowed string_view); part_views, header views and aggregates made from it borrow
/// that and stay valid until the document is destroyed, however often the document is
/// moved in between (into a container, out of a function): the parsed state lives on the
/// heap and a move hands it over. A moved-from document holds nothing and may only be
/// assigned to or destroyed.
class MHTML_EXPORT document {
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

    /// Takes over `other`'s parsed state: views made from `other` now belong to this.
    document(document&& other) noexcept : s_(std::move(other.s_)) {
        if (s_) s_->owner_ = this;
    }
    /// Destroys this document's state (its views dangle) and takes over `other`'s.
    document& operator=(document&& other) noexcept {
        if (this != &other) {
            s_ = std::move(other.s_);
            if (s_) s_->owner_ = this;
        }
        return *this;
    }
    document(const document&) = delete;
    document& operator=(const document&) = delete;
    ~document() = default;

    /// The input. Entities recovered from a decoded body (part_view::in_decoded_body) are
    /// not in it: their offsets are beyond its size and view() reads them.
    std::string_view bytes() const noexcept { return s_->bytes(); }
    /// The octets [begin, end) of the offset space: the input, or a decoded body (REL-2.2
    /// salvage) for offsets beyond the input. A range lies in one of them.
    std::string_view view(std::uint64_t begin, std::uint64_t end) const noexcept {
        return s_->view(begin, end);
    }
    /// The offset of an octet of the input or of a decoded body (a header field's
    /// `raw().data()`, a body's `data()`), in the space view() reads; 0 if it is in neither.
    std::uint64_t offset_of(const char* p) const noexcept { return s_->offset_of(p); }
    /// A position in the input for an offset of the space: itself inside the input; for a
    /// decoded body, where its encoded body (the outermost one, if nested) starts. This is
    /// the offset diagnostics report.
    std::uint64_t input_offset(std::uint64_t offset) const noexcept {
        return s_->input_offset(offset);
    }
    /// The bodies decoded to recover encoded multiparts and messages, in document order.
    const std::vector<std::unique_ptr<detail::decoded_body>>& decoded_bodies() const noexcept {
        return s_->decoded_bodies();
    }
    /// The decoded body of a multipart with `record(i).decoded_body`, else null.
    const detail::decoded_body* decoded_body_of(std::uint32_t i) const noexcept {
        return s_->decoded_body_of(i);
    }
    part_view root() const noexcept { return part_view(s_.get(), 0); }
    /// Number of entities (every message, multipart and leaf).
    std::size_t size() const noexcept { return s_->size(); }
    /// The entity at depth-first position `i`.
    part_view part(std::size_t i) const noexcept { return part_view(s_.get(), std::uint32_t(i)); }
    std::vector<part_view> parts() const;
    /// The entity with this IMAP-style path ("" for the outermost), if any.
    std::optional<part_view> find(std::string_view path) const;
    const std::vector<diagnostic>& diagnostics() const noexcept { return s_->diagnostics(); }

    // Internal representation, used by part_view and the serializer.
    const detail::entity_record& record(std::uint32_t i) const noexcept { return s_->record(i); }
    /// The multipart table entry of a multipart entity; an empty one for any other.
    const detail::multipart_record& multipart_of(std::uint32_t i) const noexcept {
        return s_->multipart_of(i);
    }
    const content_type& type_of(std::uint32_t i) const noexcept { return s_->type_of(i); }
    /// The header fields of entity i.
    header_list headers_of(std::uint32_t i) const noexcept { return s_->headers_of(i); }
    /// The boundary a multipart uses ("" if none).
    std::string_view boundary_of(std::uint32_t i) const noexcept { return s_->boundary_of(i); }

private:
    document() : s_(std::make_unique<detail::document_state>()) { s_->owner_ = this; }
    friend class parser;
    std::unique_ptr<detail::document_state> s_;
};

/// The input again, written from the tree: every header block, body, delimiter, preamble
/// and epilogue in order. Byte-exact for an untouched document.
MHTML_EXPORT std::string serialize(const document& doc);

}  // namespace mhtml::mime
