#pragma once
/// The charset of an HTML part, found the way a browser finds it (WHATWG HTML §13.2.3
/// "determining the character encoding", the encoding sniffing algorithm), so the writer can
/// label URIs correctly (MHTML draft 4.4.1).
///
/// Order, first match wins:
///  1. A byte order mark (UTF-8 EF BB BF, UTF-16BE FE FF, UTF-16LE FF FE).
///  2. The Content-Type charset parameter, if it is a label of the Encoding Standard.
///  3. A UTF-16 XML declaration without BOM (`<?x` in UTF-16), then `<meta charset=…>` or
///     `<meta http-equiv="Content-Type" content="…charset=…">`, searched for as Chromium
///     searches (HTMLMetaCharsetParser) rather than with the standard's byte-level prescan:
///     with the HTML tokenizer (html/tokenizer.hpp), so the text of `<script>`, `<title>`,
///     `<textarea>` and the like and comments (which `--!>` ends) hide what looks like a
///     `<meta>`; through the whole head, as long as only elements that may stand in a head
///     have been seen (`<title>`, `<style>`, `<script>`, `<noscript>`, `<link>`, `<meta>`,
///     `<object>`, `<base>`, and the `<html>` and `<head>` start tags), and in any case
///     through the first `prescan_length` octets. Each of these differences from the
///     standard's prescan was checked against Chromium 156 (tests/unit/html/charset_test.cpp
///     lists them; tests/browser/ compares them with the running browser).
///  4. windows-1252.
///
/// The BOM comes before the Content-Type although the project issue lists Content-Type
/// first: we follow the browser. WHATWG HTML (step 1 of the sniffing algorithm) and the
/// Encoding Standard's "decode" both let a BOM override the transport charset, and every
/// current browser does so. The writer labels bytes for a browser to read, so a different
/// order here would make us rewrite URIs in one charset while the browser reads another.
///
/// Step 4: the HTML standard leaves the default to the implementation ("locale-dependent",
/// windows-1252 for most locales) and allows frequency analysis before it. We do neither:
/// the result depends only on the input, and windows-1252 is what browsers use when the
/// locale gives no other default. A caller that knows better checks `source == fallback`.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mhtml/export.hpp"

namespace mhtml::html {

enum class charset_source : std::uint8_t {
    bom,           ///< a byte order mark at the start of the body
    content_type,  ///< the Content-Type charset parameter
    meta,          ///< a `<meta>` element found by the prescan
    fallback,      ///< nothing found: windows-1252
    /// the prescan saw `<?x` in UTF-16 without a BOM (UTF-16LE or UTF-16BE); for
    /// detect_xml_charset also the `encoding` of the XML declaration
    xml_declaration,
};

struct detected_charset {
    std::string name;  ///< WHATWG encoding name, e.g. "UTF-8", "windows-1252", "Shift_JIS"
    charset_source source = charset_source::fallback;
    /// The label as found: the Content-Type parameter as given, or for `meta` the octets of
    /// the label in the body (case kept, surrounding white space and quotes excluded).
    /// Empty for `bom`, `xml_declaration` and `fallback`.
    std::string label;
    std::size_t label_offset = 0;  ///< for `meta`: offset of `label` in the body, else 0
    std::size_t bom_length = 0;    ///< octets of a byte order mark at the start (0 if none)
};

/// Octets of the body searched for a `<meta>` whatever it holds (Chromium's
/// kBytesToCheckUnconditionally; WHATWG HTML encourages 1024): past them the search ends at
/// the first token that ends there once an element that does not belong in a head was seen.
inline constexpr std::size_t prescan_length = 1024;

/// Encoding Standard "get an encoding": the encoding name for `label` after ASCII white
/// space is trimmed and case is folded ("Latin1 " -> "windows-1252", "sjis" -> "Shift_JIS",
/// "gb2312" -> "GBK", "utf-16" -> "UTF-16LE", "iso-2022-kr" -> "replacement"); empty if
/// `label` is not in the table. The returned view points to static storage.
MHTML_EXPORT std::string_view encoding_for_label(std::string_view label) noexcept;

/// Runs the steps above. `content_type_charset` is the part's Content-Type charset
/// parameter, empty if the header has none; pass only a parameter that is present, not
/// RFC 2045's implied `us-ascii`, or it would hide the document's `<meta>`. An unknown
/// label there is ignored, as a browser ignores it. `bytes` is the decoded body.
///
/// A `<meta>` naming UTF-16LE or UTF-16BE yields UTF-8 and one naming x-user-defined yields
/// windows-1252 (the prescan's rule: the meta was read as ASCII, so the document is not
/// UTF-16). A `<meta>` with an unknown label is skipped and the prescan goes on.
MHTML_EXPORT detected_charset detect_charset(std::string_view content_type_charset,
                                             std::string_view bytes);

/// How a browser decodes an XML document (SVG, XHTML served as XML; XML 1.0 Appendix F,
/// RFC 7303 §3): a byte order mark, else the Content-Type charset (an unknown label
/// ignored), else UTF-16 by the octets of `<?` without a BOM, else the `encoding` of the XML
/// declaration (`source` = xml_declaration, with `label` and `label_offset`), else UTF-8
/// (`fallback`). No `<meta>` is looked at.
MHTML_EXPORT detected_charset detect_xml_charset(std::string_view content_type_charset,
                                                 std::string_view bytes);

/// For an XML document now in UTF-8 (after transcoding): the encoding named by its XML
/// declaration becomes `UTF-8` when it named another one. Returns whether it changed. A
/// document without a declaration or without an encoding in it is UTF-8 already for XML.
MHTML_EXPORT bool declare_xml_utf8(std::string& xml);

}  // namespace mhtml::html
