#include "mhtml/diagnostic.hpp"

#include <array>

namespace mhtml {

namespace {
constexpr std::array code_names{
    "empty_input",
    "depth_limit",
    "header_block_limit",
    "header_count_limit",
    "part_count_limit",
    "line_length_limit",
    "header_without_colon",
    "header_empty_name",
    "header_name_whitespace",
    "header_8bit",
    "header_nul",
    "header_missing_blank_line",
    "header_continuation_first",
    "duplicate_field",
    "content_type_invalid",
    "parameter_invalid",
    "parameter_duplicate",
    "parameter_needs_quoting",
    "missing_parameter_separator",
    "rfc2231_bad_continuation",
    "rfc2231_bad_charset",
    "unknown_transfer_encoding",
    "multipart_without_boundary",
    "boundary_invalid",
    "boundary_not_found",
    "boundary_guessed",
    "multipart_no_parts",
    "missing_close_delimiter",
    "implicit_close_by_outer",
    "near_miss_delimiter",
    "multipart_with_encoding",
    "message_with_encoding",
    "line_ending_lf",
    "line_ending_cr",
    "line_ending_mixed",
    "no_mime_structure",
    "truncated_header",
    "base64_invalid_char",
    "base64_bad_padding",
    "base64_truncated",
    "base64_data_after_padding",
    "qp_invalid_escape",
    "qp_soft_break_at_end",
    "qp_8bit",
    "qp_long_line",
    "serialize_line_too_long",
    "repeated_delimiter",
    "url_word_too_long",
    "url_unescaped_char",
    "header_uri_comment",
    "uri_invalid_chars",
    "uri_invalid_syntax",
    "content_id_without_brackets",
    "content_id_not_addr_spec",
    "cid_url_with_brackets",
    "contenttype_uri_fragment",
    "mime_type_repeated",
    "duplicate_content_location",
    "duplicate_content_id",
    "matched_after_normalisation",
    "cid_matched_content_location",
    "header_uri_trailing_text",
    "start_not_found",
    "start_unbracketed",
    "start_inside_alternative",
    "related_type_missing",
    "related_type_mismatch",
    "root_not_first_part",
    "no_html_alternative",
    "related_without_parts",
    "content_base_not_absolute",
    "legacy_method_indicator",
    "matched_in_enclosing_related",
    "style_element_sheet",
    "multipart_body_decoded",
    "decode_limit",
};
static_assert(code_names.size() == std::size_t(diag_code::decode_limit) + 1,
              "every diag_code needs a name");
}  // namespace

std::string_view code_name(diag_code c) noexcept {
    auto i = static_cast<std::size_t>(c);
    return i < code_names.size() ? code_names[i] : "unknown";
}

std::string_view severity_name(severity s) noexcept {
    switch (s) {
        case severity::note:
            return "note";
        case severity::warning:
            return "warning";
        case severity::ambiguous:
            return "ambiguous";
        case severity::error:
            return "error";
    }
    return "unknown";
}

}  // namespace mhtml
