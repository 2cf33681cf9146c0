#pragma once
/// The one HTML tokenizer: everything in mhtml that walks HTML (the reference scanner, the
/// charset detector, where a policy or a declaration is inserted, the outputs' checks)
/// walks it with this, so that they all agree with each other and with the browser about
/// what is markup.
///
/// It follows the WHATWG tokenizer (HTML §13.2.5) where it decides what is a tag, an
/// attribute, a comment or text:
/// - comments: `<!--` ends at `-->` or `--!>`; `<!-->` and `<!--->` are whole comments; an
///   unterminated one runs to the end of the input;
/// - bogus comments: `<?…>`, `</` not followed by a letter, `<!` followed by anything but
///   `--`, `DOCTYPE` or (in foreign content) `[CDATA[`, each to the next `>`; `</>` is
///   nothing at all;
/// - `<!DOCTYPE` (any case) to the next `>`;
/// - tags: the name to white space, `/` or `>`; attributes as the attribute states read them
///   (a quoted value hides `>`; the first attribute of a name counts, later ones are
///   dropped); a tag cut by the end of the input is no token (the tokenizer emits nothing);
/// - the content of `<script>` (script data with its escaped and double-escaped states),
///   `<style>`, `<xmp>`, `<iframe>`, `<noembed>`, `<noframes>` (raw text), `<textarea>`,
///   `<title>` (RCDATA) up to their end tag, and of `<plaintext>` to the end, is one
///   `raw_text` token;
/// - `<svg>` and `<math>` open foreign content, where tags are read the same way, no element
///   has raw text and `<![CDATA[…]]>` is a section of its own. As the tree builder does, foreign
///   content is left by the "breakout" start tags (`<p>`, `<div>`, `<meta>`, `<img>`, ...; `<font>`
///   with color, face or size) and the end tags `</p>` and `</br>`; and inside an HTML
///   integration point (SVG `<foreignObject>`, `<desc>`, `<title>`; MathML `<mi>`, `<mo>`,
///   `<mn>`, `<ms>`, `<mtext>`, and `<annotation-xml>` whose encoding is HTML) up to its end
///   tag, content is HTML again.
///
/// It reads octets, so any charset whose octets below 0x80 are ASCII works as it is;
/// ISO-2022-JP and UTF-16 must be transcoded first. A UTF-8 byte order mark at the start is
/// not a token (a browser's decoder removes it).
///
/// Known limits (a tree builder, which knows every open element, would differ; none of them
/// lets markup that a browser sees pass for text or comment): `<noscript>` content is read as
/// markup (what a browser with scripting off does); an end tag closes the innermost foreign
/// or integration-point element of its name without checking what else is open.
///
/// With `xml` (an SVG or XHTML document read on its own), the whole input is foreign
/// content, `<?…?>` ends at `?>`, a DOCTYPE's internal subset (`[…]`) is skipped as part
/// of the DOCTYPE, and `<!--` ends only at `-->`.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>
#include "mhtml/export.hpp"

namespace mhtml::html {

enum class token_type : std::uint8_t {
    text,       ///< character data; includes any '<' that opens no markup
    raw_text,   ///< the content of a raw-text, RCDATA, script or plaintext element
    start_tag,  ///< `name` and `attributes` are set
    end_tag,    ///< `name` is set (attributes of an end tag are read but not kept)
    comment,    ///< a comment or a bogus comment
    doctype,    ///< `<!DOCTYPE …>`
    cdata,      ///< `<![CDATA[…]]>` in foreign content
};
MHTML_EXPORT std::string_view type_name(token_type t) noexcept;  ///< "text", "start_tag", ...

/// One attribute of a tag, as octet ranges of the input.
struct attribute_view {
    std::string_view name;         ///< as written (compare with iequals)
    std::size_t value_offset = 0;  ///< first octet of the raw value (quotes excluded)
    std::size_t value_length = 0;  ///< character references not decoded
    char quote = 0;                ///< '"', '\'' or 0 (unquoted or no value)
    bool has_value = false;
};

struct MHTML_EXPORT token {
    token_type type = token_type::text;
    std::size_t begin = 0;                   ///< first octet of the token
    std::size_t end = 0;                     ///< one past its last octet
    std::string name;                        ///< tags: the lower-cased name
    std::vector<attribute_view> attributes;  ///< start tags: in order, first of each name
    bool self_closing = false;               ///< tags: ended by "/>"
    bool foreign = false;                    ///< in SVG or MathML content
    /// The attribute named `name` (ASCII case-insensitive), or nullptr.
    [[nodiscard]] const attribute_view* attribute(std::string_view name) const noexcept;
};

class MHTML_EXPORT tokenizer {
public:
    /// `xml`: see the header comment. The input must outlive the tokenizer.
    explicit tokenizer(std::string_view input, bool xml = false) noexcept;

    /// Reads the next token into `t` (its storage is reused); false at the end of the input.
    bool next(token& t);

    /// Every attribute of start tag `t` (a token this tokenizer returned), in order, with the
    /// repeats that `t.attributes` leaves out (the first of each name is the one that counts;
    /// a policy that renames an attribute must rename the repeats too).
    [[nodiscard]] std::vector<attribute_view> all_attributes(const token& t) const;

    /// The raw value of an attribute of the current input.
    [[nodiscard]] std::string_view value(const attribute_view& a) const noexcept {
        return in_.substr(a.value_offset, a.value_length);
    }
    [[nodiscard]] std::string_view input() const noexcept { return in_; }
    /// Where the next token starts.
    [[nodiscard]] std::size_t position() const noexcept { return pos_; }

private:
    std::size_t read_tag(std::size_t i, token& t, bool keep_repeated = false) const;
    std::size_t comment_end(std::size_t i) const;
    std::size_t bogus_comment_end(std::size_t i) const;
    std::size_t doctype_end(std::size_t i) const;
    std::size_t find_end_tag(std::size_t from, std::string_view name) const;
    bool is_end_tag_of(std::size_t lt, std::string_view name) const;
    bool is_tag_named_at(std::size_t lt, std::string_view name) const;
    std::size_t script_data_end(std::size_t i) const;
    bool opens_markup(std::size_t i) const noexcept;
    bool markup(std::size_t i, token& t);
    void start_content(const token& t);

    bool foreign() const noexcept { return xml_ || (!scopes_.empty() && !scopes_.back().html); }
    void enter_or_leave_foreign(token& t);

    std::string_view in_;
    std::size_t pos_ = 0;
    bool xml_ = false;
    // The open <svg>/<math> elements and HTML integration points inside them, innermost last
    // (HTML documents only).
    struct scope {
        bool html;         // an integration point: HTML inside
        std::string name;  // "svg"/"math", or the integration point's lower-cased name
    };
    std::vector<scope> scopes_;
    // After a start tag whose content is raw text: where that text ends.
    enum class pending : std::uint8_t { none, raw_text } pending_ = pending::none;
    std::size_t raw_end_ = 0;
};

}  // namespace mhtml::html
