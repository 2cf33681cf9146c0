#pragma once
/// Diagnostics: every recovery from non-conforming input is reported, never silent.
///
/// A diagnostic names the part (IMAP-style path: "" is the outermost entity, "1.2" the
/// second body part of the first body part), the byte offset in the input where the
/// problem was seen, a stable code (its name never changes; see docs/diagnostics.md) and
/// a message saying what was wrong and what the reader did about it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/export.hpp"

namespace mhtml {

enum class severity : std::uint8_t {
    note,       ///< worth knowing; nothing was lost or guessed
    warning,    ///< not conforming; recovered without losing data
    ambiguous,  ///< recovered, but another MIME reader may read this input differently
    error,      ///< content was lost, truncated or could not be decoded exactly
};

/// Stable diagnostic codes. Append only; never renumber (the names are the contract).
enum class diag_code : std::uint16_t {
    // input and limits
    empty_input,
    depth_limit,
    header_block_limit,
    header_count_limit,
    part_count_limit,
    line_length_limit,
    // header block
    header_without_colon,
    header_empty_name,
    header_name_whitespace,
    header_8bit,
    header_nul,
    header_missing_blank_line,
    header_continuation_first,
    duplicate_field,
    // structured fields
    content_type_invalid,
    parameter_invalid,
    parameter_duplicate,
    parameter_needs_quoting,
    missing_parameter_separator,
    rfc2231_bad_continuation,
    rfc2231_bad_charset,
    unknown_transfer_encoding,
    // multipart structure
    multipart_without_boundary,
    boundary_invalid,
    boundary_not_found,
    boundary_guessed,
    multipart_no_parts,
    missing_close_delimiter,
    implicit_close_by_outer,
    near_miss_delimiter,
    multipart_with_encoding,
    message_with_encoding,
    line_ending_lf,
    line_ending_cr,
    line_ending_mixed,
    no_mime_structure,
    truncated_header,
    // body decoding
    base64_invalid_char,
    base64_bad_padding,
    base64_truncated,
    base64_data_after_padding,
    qp_invalid_escape,
    qp_soft_break_at_end,
    qp_8bit,
    qp_long_line,
    // serializer
    serialize_line_too_long,
    // multipart structure (continued)
    repeated_delimiter,
    // URIs (uri/)
    url_word_too_long,
    url_unescaped_char,
    header_uri_comment,
    uri_invalid_chars,
    uri_invalid_syntax,
    content_id_without_brackets,
    content_id_not_addr_spec,
    cid_url_with_brackets,
    contenttype_uri_fragment,
    mime_type_repeated,
    duplicate_content_location,
    duplicate_content_id,
    matched_after_normalisation,
    cid_matched_content_location,
    header_uri_trailing_text,
    // aggregate documents (archive/)
    start_not_found,
    start_unbracketed,
    start_inside_alternative,
    related_type_missing,
    related_type_mismatch,
    root_not_first_part,
    no_html_alternative,
    related_without_parts,
    content_base_not_absolute,
    legacy_method_indicator,
    matched_in_enclosing_related,
    style_element_sheet,
    // multipart structure (continued): REL-2.2 salvage of encoded multiparts
    multipart_body_decoded,
    decode_limit,
    // input and limits (continued): the cap on diagnostics per document
    diagnostics_dropped,
    // writer (continued): fields node's write() refuses
    field_name_invalid,
    field_value_invalid,
    // collector (pack/collect.hpp): local files a page references
    resource_missing,
    resource_not_file,
    resource_outside_root,
    resource_bad_name,
    resource_unreadable,
    resource_limit,
    reference_respelled,
    hidden_field_may_leak,
    credential_in_url,
    label_leaks_local_path,
    extract_not_restored,
    // writer (pack/writer.hpp): conversions and refusals of the streaming writer
    content_encoding_decoded,
    content_encoding_invalid,
    decompression_limit,
    text_transcoded,
    line_ends_converted,
    content_md5_dropped,
    charset_chosen,
    boundary_in_body,
    private_label,
    external_body_written,
    external_not_url,
    field_dropped,
    sink_write_failed,
    // fetcher (pack/fetch.hpp): what could not be downloaded, and why
    fetch_failed,
    fetch_http_status,
    fetch_redirect_refused,
    fetch_unknown_charset,
    fetch_unsafe_name,
    fetch_spool_failed,
    // external bodies (external/body.hpp): message/external-body parts (RFC 2046 5.2.3, RFC 2017)
    access_type_missing,
    external_parameter_missing,
    url_parameter_missing,
    url_not_retrievable,
    url_parameter_unquoted,
    url_parameter_continued,
    external_body_without_content_id,
    external_phantom_body,
    external_size_invalid,
    external_expiration_invalid,
    // Content-MD5 (RFC 1864) of any part
    content_md5_mismatch,
    content_md5_malformed,
    // mailboxes (store/mbox.hpp)
    mbox_missing_from_line,
    mbox_unquoted_from,
    mbox_truncated,
    mbox_bad_content_length,
};

/// The stable name of a code, e.g. "missing_close_delimiter".
MHTML_EXPORT std::string_view code_name(diag_code c) noexcept;
/// The name of a severity: "note", "warning", "ambiguous", "error".
MHTML_EXPORT std::string_view severity_name(severity s) noexcept;

struct diagnostic {
    severity sev = severity::warning;
    diag_code code{};
    std::string part_path;     ///< IMAP-style path of the entity; "" is the outermost one
    std::uint64_t offset = 0;  ///< byte offset in the input where the problem was seen
    std::string message;       ///< what was wrong and what was done about it
};

// The cap on diagnostics per document (parse_limits::max_diagnostics). A list past its cap
// keeps its first `cap` diagnostics and ends with one `diagnostics_dropped` diagnostic:
// its message starts with the number dropped, its severity is the worst dropped (so an
// error is never hidden behind notes), its offset is the first dropped one's, its part
// path "". Memory then stays bounded however many problems an input has.

/// The `diagnostics_dropped` diagnostic that ends a list capped at `cap`: `count` were
/// dropped, the worst of severity `worst`, the first at input offset `offset`.
MHTML_EXPORT diagnostic dropped_diagnostics(std::uint64_t count, severity worst,
                                            std::uint64_t offset, std::size_t cap);
/// How many diagnostics a `diagnostics_dropped` diagnostic counts; 0 for any other.
MHTML_EXPORT std::uint64_t dropped_count(const diagnostic& d) noexcept;
/// Appends `d` to `list` while it holds fewer than `cap` diagnostics (a final
/// `diagnostics_dropped` one not counted); past that, `d` is counted in that final one,
/// which is added the first time.
MHTML_EXPORT void append_capped(std::vector<diagnostic>& list, diagnostic d, std::size_t cap);
/// Caps a list that was filled without append_capped: the diagnostics past the first `cap`
/// (other than `diagnostics_dropped` ones, which are merged) are counted in one final
/// `diagnostics_dropped` diagnostic. A list within its cap is left as it is.
MHTML_EXPORT void cap_diagnostics(std::vector<diagnostic>& list, std::size_t cap);

}  // namespace mhtml
