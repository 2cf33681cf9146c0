#pragma once
// Private helpers shared by collect.cpp and collect_extracted.cpp.

#include "mhtml/diagnostic.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/pack/collect.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mhtml::pack::detail {

/// The whole file, or nullopt (and `error` set) when it cannot be read.
std::optional<std::string> read_file(const std::filesystem::path& p, std::string& error);

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

/// The charset `text/...` parameter value for a WHATWG encoding name (as given).
std::string with_charset(std::string_view type, std::string_view charset);

}  // namespace mhtml::pack::detail
