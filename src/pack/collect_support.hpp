#pragma once
// Private helpers shared by collect.cpp and collect_extracted.cpp.

#include "mhtml/diagnostic.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/pack/collect.hpp"

#include "mhtml/html/rewrite.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::pack::detail {

/// The whole file, or nullopt (and `error` set) when it cannot be read.
std::optional<std::string> read_file(const std::filesystem::path& p, std::string& error);

/// MIME Sniffing §7.1's HTML patterns (the common ones): after white space and a UTF-8 BOM,
/// `<!DOCTYPE HTML`, `<html`, `<head`, `<body`, `<p`, `<!--`, ... in any case.
bool looks_like_html(std::string_view body);

/// `%XX` decoded (a `%` not followed by two hex digits stays).
std::string percent_decode(std::string_view s);

/// One path segment as a URL path segment: every octet outside RFC 3986 `pchar` but `:`
/// (which would pass for a scheme in a first segment) becomes `%XX`.
std::string encode_segment(std::string_view s);

/// Every `/`-separated segment encoded.
std::string encode_path(std::string_view path);

/// A relative reference from a document whose base is `from` to `to` (both absolute and
/// sharing the hierarchy `prefix`); nullopt when it cannot be written safely.
std::optional<std::string> relative_reference(std::string_view prefix, std::string_view from,
                                              std::string_view to);

/// HTML attribute value text of `value` for an attribute quoted with `quote` ('"' when 0).
std::string escape_attribute(std::string_view value, char quote);

/// MHT-12.6: the name of the first query parameter of `url` that looks like a credential.
std::optional<std::string> credential_parameter(std::string_view url);

diagnostic make_diag(severity sev, diag_code code, std::string part, std::uint64_t offset,
                     std::string message);

/// What kind of document a media type (no parameters) is for the scanner.
enum class doc_type : std::uint8_t { none, html, svg, css };
doc_type doc_type_for(std::string_view content_type);

/// A text type that takes a charset parameter (`text/*`, XHTML).
bool is_text_type(std::string_view type);

/// CSS Syntax §3.2 before the referrer's charset: "UTF-8" for a BOM, else the encoding of an
/// `@charset "x";` at the very start when it is a known label, else "".
std::string css_declared_charset(std::string_view text);

/// One `<iframe srcdoc>` found by markup_pass().
struct srcdoc_attribute {
    std::size_t value_offset = 0, value_length = 0;  ///< the raw value in the text
    char quote = 0;
    std::string content;  ///< decoded
};

/// The tokenizer pass collect and fetch make over an HTML or SVG text after its references:
/// each `<input type=hidden>` with a value is warned of (`hidden_field_may_leak` in `part`,
/// at `where(offset of the tag)`, MHT-12.6), and each `<iframe srcdoc>` is handed to
/// `on_srcdoc` (to be scanned in place, with the text's base).
void markup_pass(std::string_view text, bool svg, const std::string& part,
                 const std::function<std::uint64_t(std::size_t)>& where,
                 std::vector<diagnostic>& diags,
                 const std::function<void(const srcdoc_attribute&)>& on_srcdoc);

/// The report of reference `r` of `text` in `document` at `offset` (inside a srcdoc, the
/// srcdoc attribute's, and `srcdoc_offset` the reference's own), outcome not yet set; a
/// query parameter that looks like a credential is warned of (`credential_in_url`, MHT-12.6).
reference_report start_report(const html::reference& r, std::string_view text,
                              const std::string& document, std::size_t offset, bool in_srcdoc,
                              std::vector<diagnostic>& diags);

/// The edit that puts `content` (a srcdoc's new decoded content) in place of its value.
html::edit srcdoc_edit(std::size_t value_offset, std::size_t value_length, char quote,
                       std::string_view content);

/// The charset `text/...` parameter value for a WHATWG encoding name (as given).
std::string with_charset(std::string_view type, std::string_view charset);

}  // namespace mhtml::pack::detail
