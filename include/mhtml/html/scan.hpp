#pragma once
/// Every URI reference in an HTML document or a style sheet: where its bytes are, what it
/// says after decoding, what kind of reference it is, and how its bytes are quoted, so that
/// it can be rewritten without touching any other byte (html/rewrite.hpp).
///
/// The HTML scanner reads the tokens of the one tokenizer (html/tokenizer.hpp: the WHATWG
/// tokenizer's decisions about what is a tag and an attribute, with the tree builder's rules
/// for foreign content) and a table of the attributes that hold URIs; it builds no tree. It
/// reads bytes, so any charset whose octets below 0x80 are always ASCII works as it is
/// (UTF-8, ISO-8859-x, windows-125x, Shift_JIS, EUC-*, GBK, GB18030, Big5, KOI8); ISO-2022-JP
/// (whose JIS octets include '<' and '"') and UTF-16 must be transcoded first
/// (archive::aggregate does). Offsets are octet offsets into the input.
/// Known limits: those of the tokenizer; `<noscript>` content is scanned as markup (what a
/// browser with scripting off sees, and what an offline copy needs); an SVG `<style>`'s text
/// runs and CDATA sections are each scanned as CSS, without decoding character references.

#include "mhtml/export.hpp"
#include "mhtml/html/css.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::html {

enum class ref_kind : std::uint8_t {
    resource,  ///< loaded to display the page: images, style sheets, scripts, frames, media, fonts
    navigation,   ///< followed when the user acts: a/area href, link rel=alternate, meta refresh,
                  ///< longdesc
    form_action,  ///< form action, button/input formaction
    citation,     ///< cite on blockquote, q, del, ins
    base,         ///< <base href>
};
MHTML_EXPORT std::string_view kind_name(ref_kind k) noexcept;  ///< "resource", "navigation", ...

/// How the raw bytes of a reference are written, which decides how a new value is escaped.
enum class value_syntax : std::uint8_t {
    attribute,         ///< a whole attribute value
    srcset,            ///< one candidate URL of srcset / imagesrcset
    list_item,         ///< one URL of a space-separated (object archive) or comma-separated (applet
                       ///< archive) list
    meta_refresh,      ///< the URL in <meta http-equiv=refresh content="5; url=...">
    css_url_unquoted,  ///< url(x)
    css_url_quoted,    ///< url("x") / url('x')
    css_string,        ///< @import "x", image-set("x" 1x)
};
MHTML_EXPORT std::string_view syntax_name(value_syntax s) noexcept;

struct reference {
    ref_kind kind = ref_kind::resource;
    std::string element;  ///< lower-case tag name; "" for a standalone style sheet
    std::string_view
        attribute;           ///< lower-case attribute name; "" for <style> text and style sheets
    std::size_t offset = 0;  ///< first octet of the raw value in the input
    std::size_t length = 0;  ///< octets of the raw value (quotes excluded)
    std::string url;         ///< the value with character references / CSS escapes decoded
    value_syntax syntax = value_syntax::attribute;
    char attribute_quote =
        0;  ///< the enclosing attribute's quote: '"', '\'', or 0 (unquoted, or not in an attribute)
    char css_quote = 0;         ///< for css_url_quoted and css_string: '"' or '\''
    bool in_attribute = false;  ///< inside an attribute value (character references apply)
    bool raw_text = false;      ///< inside a <style> element (its text must not contain "</style")
    char list_separator = 0;    ///< for list_item: ' ' or ','
    bool css_import = false;    ///< the URL of a CSS @import rule
    bool stylesheet_link = false;  ///< the href of a <link> whose rel has "stylesheet"
};

struct scan_result {
    std::vector<reference> refs;  ///< in document order, non-overlapping
    std::optional<std::size_t>
        base;  ///< index in refs of the first <base href>, the one that counts
    /// Charset declared by a <meta charset> / http-equiv Content-Type seen while scanning (the
    /// label as written); see html/charset.hpp for the browser's full algorithm.
    std::string meta_charset;
};

/// Every reference in an HTML document (or an SVG document, scanned as foreign content
/// when `svg` is set).
MHTML_EXPORT scan_result scan_html(std::string_view html, bool svg = false);

/// Every reference in a standalone style sheet (a text/css part).
MHTML_EXPORT scan_result scan_style_sheet(std::string_view css);

/// Decodes the character references in an attribute value as the tokenizer does in an
/// attribute (legacy names without ';' are left alone before '=' or an alphanumeric).
MHTML_EXPORT std::string decode_attribute_value(std::string_view raw);

}  // namespace mhtml::html
