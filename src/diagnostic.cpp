#include "mhtml/diagnostic.hpp"

#include <algorithm>
#include <array>
#include <charconv>

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
    "diagnostics_dropped",
    "field_name_invalid",
    "field_value_invalid",
    "resource_missing",
    "resource_not_file",
    "resource_outside_root",
    "resource_bad_name",
    "resource_unreadable",
    "resource_limit",
    "reference_respelled",
    "hidden_field_may_leak",
    "credential_in_url",
    "label_leaks_local_path",
    "extract_not_restored",
    "content_encoding_decoded",
    "content_encoding_invalid",
    "decompression_limit",
    "text_transcoded",
    "line_ends_converted",
    "content_md5_dropped",
    "charset_chosen",
    "boundary_in_body",
    "private_label",
    "external_body_written",
    "external_not_url",
    "field_dropped",
    "sink_write_failed",
    "fetch_failed",
    "fetch_http_status",
    "fetch_redirect_refused",
    "fetch_unknown_charset",
    "fetch_unsafe_name",
    "fetch_spool_failed",
    "access_type_missing",
    "external_parameter_missing",
    "url_parameter_missing",
    "url_not_retrievable",
    "url_parameter_unquoted",
    "url_parameter_continued",
    "external_body_without_content_id",
    "external_phantom_body",
    "external_size_invalid",
    "external_expiration_invalid",
    "content_md5_mismatch",
    "content_md5_malformed",
    "mbox_missing_from_line",
    "mbox_unquoted_from",
    "mbox_truncated",
    "mbox_bad_content_length",
};
static_assert(code_names.size() == std::size_t(diag_code::mbox_bad_content_length) + 1,
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

diagnostic dropped_diagnostics(std::uint64_t count, severity worst, std::uint64_t offset,
                               std::size_t cap) {
    // dropped_count() reads the number back from the start of the message.
    std::string msg = std::to_string(count);
    msg += count == 1 ? " more diagnostic was" : " more diagnostics were";
    msg += " dropped: at most " + std::to_string(cap) +
           " are kept per document (parse_limits::max_diagnostics, --max-diagnostics); this "
           "one has the severity of the worst dropped, and the offset of the first";
    return {worst, diag_code::diagnostics_dropped, "", offset, std::move(msg)};
}

std::uint64_t dropped_count(const diagnostic& d) noexcept {
    if (d.code != diag_code::diagnostics_dropped) return 0;
    std::uint64_t n = 0;
    const char* b = d.message.data();
    std::from_chars(b, b + d.message.size(), n);
    return n;
}

namespace {
// Folds `n` dropped diagnostics (worst severity `worst`, first at `offset`) into the
// `diagnostics_dropped` diagnostic at the end of `list`, adding it if there is none.
void count_dropped(std::vector<diagnostic>& list, std::uint64_t n, severity worst,
                   std::uint64_t offset, std::size_t cap) {
    if (n == 0) return;
    if (!list.empty() && list.back().code == diag_code::diagnostics_dropped) {
        diagnostic& last = list.back();
        last = dropped_diagnostics(dropped_count(last) + n, std::max(last.sev, worst), last.offset,
                                   cap);
    } else {
        list.push_back(dropped_diagnostics(n, worst, offset, cap));
    }
}
}  // namespace

void append_capped(std::vector<diagnostic>& list, diagnostic d, std::size_t cap) {
    if (d.code == diag_code::diagnostics_dropped) {  // another capped list's count
        count_dropped(list, dropped_count(d), d.sev, d.offset, cap);
        return;
    }
    const bool capped = !list.empty() && list.back().code == diag_code::diagnostics_dropped;
    if (!capped && list.size() < cap) {
        list.push_back(std::move(d));
        return;
    }
    count_dropped(list, 1, d.sev, d.offset, cap);
}

void cap_diagnostics(std::vector<diagnostic>& list, std::size_t cap) {
    std::size_t kept = 0;
    std::uint64_t dropped = 0;
    severity worst = severity::note;
    std::uint64_t first_offset = 0;
    bool any = false;
    auto drop = [&](std::uint64_t n, severity s, std::uint64_t offset) {
        if (!any) first_offset = offset;
        any = true;
        dropped += n;
        worst = std::max(worst, s);
    };
    std::size_t out = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        diagnostic& d = list[i];
        if (d.code == diag_code::diagnostics_dropped) {
            drop(dropped_count(d), d.sev, d.offset);
        } else if (kept < cap && !any) {
            ++kept;
            if (out != i) list[out] = std::move(d);
            ++out;
        } else {
            drop(1, d.sev, d.offset);
        }
    }
    if (!any) return;
    list.resize(out);
    list.push_back(dropped_diagnostics(dropped, worst, first_offset, cap));
}

}  // namespace mhtml
