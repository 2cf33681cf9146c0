#pragma once
/// node: an entity to write, built in code or taken from a parsed document.
///
/// A node taken from a document keeps the exact octets of the entity, and write() copies
/// them unchanged (so integrity checks and signatures over them stay valid) until a
/// field, the body or the children are changed. Everything else is written canonically:
/// CRLF line ends, header fields folded at 78 columns without breaking a quoted string or
/// an encoded-word, a boundary that occurs nowhere in the content, and a transfer
/// encoding chosen for the content where none is set.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/mime/part.hpp"

namespace mhtml::mime {

class MHTML_EXPORT node {
public:
    /// A leaf with this Content-Type field value and decoded content.
    static node leaf(std::string_view content_type, std::string content);
    /// A multipart/<subtype> with these body parts; `params` is appended to the
    /// Content-Type after the boundary (e.g. `type="text/html"`).
    static node multipart(std::string_view subtype, std::vector<node> parts,
                          std::string_view params = {});
    /// A message/rfc822 wrapping `inner`.
    static node message(node inner);
    /// The entity `p` and everything in it, kept as raw octets until changed.
    static node from(part_view p);

    /// Replaces the first field of that name (case-insensitive) or appends one. The field is
    /// checked when the node is written (check_field): a bad name or value makes write()
    /// fail rather than write it.
    node& set(std::string_view name, std::string_view value);
    /// Appends a field even if one of that name exists (checked by write(), as set()).
    node& add(std::string_view name, std::string_view value);
    node& remove(std::string_view name);
    std::optional<std::string_view> get(std::string_view name) const;
    const std::vector<std::pair<std::string, std::string>>& fields() const noexcept {
        return fields_;
    }

    /// Decoded content of a leaf.
    const std::string& content() const noexcept { return content_; }
    node& set_content(std::string content);
    std::vector<node>& children() noexcept {
        raw_.reset();
        return children_;
    }
    const std::vector<node>& children() const noexcept { return children_; }
    node& set_preamble(std::string s);
    node& set_epilogue(std::string s);
    const std::string& preamble() const noexcept { return preamble_; }
    const std::string& epilogue() const noexcept { return epilogue_; }

    /// True while the node still holds its original octets.
    bool untouched() const noexcept { return raw_.has_value(); }
    std::optional<std::string_view> raw() const noexcept {
        if (raw_) return std::string_view(*raw_);
        return std::nullopt;
    }
    /// The effective kind, from the Content-Type field.
    entity_kind kind() const;

private:
    std::vector<std::pair<std::string, std::string>> fields_;  // name, unfolded value
    std::string content_;
    std::vector<node> children_;
    std::string preamble_, epilogue_;
    std::optional<std::string> raw_;
};

struct write_result {
    std::string bytes;                    ///< empty if `error` is set
    std::vector<diagnostic> diagnostics;  ///< e.g. serialize_line_too_long
    /// A header field write() refused (see check_field): nothing was written. Its code is
    /// field_name_invalid or field_value_invalid, part_path the entity, offset the position
    /// of the first bad octet in the name or value.
    std::optional<diagnostic> error;
    bool ok() const noexcept { return !error.has_value(); }
};

/// Writes `n` as MIME octets (see the class comment for the rules). Every field of every
/// entity that is written (not copied untouched) is checked first with check_field; if one
/// is refused, the result has that error and no bytes, so a value can never inject a
/// field, a header block end or a body.
[[nodiscard]] MHTML_EXPORT write_result write(const node& n);

/// Whether write() accepts a field. The name must be an RFC 5322 §3.6.8 field-name,
/// `1*ftext` (printable US-ASCII except ':'; no space, no control, no 8-bit octet, not
/// empty): else `field_name_invalid`. The value (unfolded, or folded by the caller) must
/// contain no NUL, and no CR or LF except as CRLF followed by white space that goes on to
/// something else (RFC 5322 §2.2.3 folding; a line of only white space is refused too):
/// else `field_value_invalid`. Returns the refusal (offset = position in the name or value)
/// or nothing. 8-bit octets in values are accepted (RFC 6532).
MHTML_EXPORT std::optional<diagnostic> check_field(std::string_view name,
                                                 std::string_view value);

/// Folds `name: value` at white space outside quoted strings so that lines are at most
/// `width` columns where possible (RFC 5322 §2.2.3); returns the field with final CRLF. A
/// fold already in the value (CRLF followed by white space) is kept, and no fold is added
/// next to it. It does not check the field (check_field does; write() calls it).
MHTML_EXPORT std::string fold_field(std::string_view name, std::string_view value,
                                    std::size_t width = 78);

}  // namespace mhtml::mime
