#include "mhtml/uri/header_value.hpp"
#include "uri/percent_encode.hpp"

#include <algorithm>
#include <array>

#include "mhtml/mime/charset.hpp"
#include "mhtml/mime/rfc2047.hpp"
#include "text.hpp"

#include <cstdio>

namespace mhtml::uri {

namespace {

constexpr std::size_t max_url_word = 40;  // RFC 2017 §3.1
constexpr std::size_t max_line = 78;      // RFC 5322 §2.1.1 SHOULD

using text::is_lwsp;

// RFC 2017 §3.1 step 1: SPACE, CTLs, '"', '\\' and 8-bit octets.
constexpr bool needs_escape(char ch) noexcept {
    auto c = static_cast<unsigned char>(ch);
    return c <= 0x20 || c >= 0x7F || c == '"' || c == '\\';
}

// Text a reader would decode as an RFC 2047 encoded-word: "=?charset?Q?" or "=?charset?B?"
// and a later "?=" (a URL's "x=?" alone is not one: Blink writes such URLs bare).
bool has_encoded_word(std::string_view s) noexcept {
    for (std::size_t at = s.find("=?"); at != std::string_view::npos; at = s.find("=?", at + 2)) {
        const std::size_t q = s.find('?', at + 2);
        if (q == std::string_view::npos || q + 2 >= s.size()) return false;
        if (q == at + 2) continue;  // "=??": no charset here, but a word may follow
        const char e = s[q + 1];
        if ((e == 'Q' || e == 'q' || e == 'B' || e == 'b') && s[q + 2] == '?' &&
            s.find("?=", q + 3) != std::string_view::npos)
            return true;
    }
    return false;
}

void note(std::vector<diagnostic>* diags, severity sev, diag_code code, std::size_t offset,
          std::string message) {
    if (diags) diags->push_back({sev, code, {}, offset, std::move(message)});
}

// Labels that mean 7-bit ASCII: 8-bit octets cannot be labelled with them (MHT-4.4.1.11).
bool is_ascii_label(std::string_view label) noexcept {
    for (std::string_view a :
         {"us-ascii", "ascii", "us", "iso646-us", "ansi_x3.4-1968", "ansi_x3.4-1986", "csascii",
          "iso-ir-6", "cp367", "ibm367", "iso_646.irv:1991"})
        if (text::iequals(label, a)) return true;
    return false;
}

bool looks_like_encoded_word(std::string_view token) noexcept {
    return token.size() >= 8 && token.starts_with("=?") && token.ends_with("?=");
}

}  // namespace

std::string escape_url(std::string_view url) {
    return detail::percent_encoded(
        url, [](unsigned char c) { return needs_escape(static_cast<char>(c)); });
}

std::string extract_url_parameter(std::string_view value, std::vector<diagnostic>* diags,
                                  std::size_t offset) {
    std::size_t begin = 0, end = value.size();
    while (begin < end && is_lwsp(value[begin])) ++begin;
    while (end > begin && is_lwsp(value[end - 1])) --end;
    if (begin < end && value[begin] == '"') {
        ++begin;
        // The value ends at the closing quote; anything after it is not part of it.
        std::size_t close = value.find('"', begin);
        if (close != std::string_view::npos && close < end) {
            std::size_t rest = close + 1;
            while (rest < end && is_lwsp(value[rest])) ++rest;
            if (rest < end)
                note(diags, severity::warning, diag_code::header_uri_trailing_text, offset + rest,
                     "text after the closing quote of the URL is not part of it; ignored");
            end = close;
        }
    }
    std::string out;
    out.reserve(end - begin);
    std::size_t word_start = begin, longest_at = 0, longest = 0;
    bool reported_char = false;
    for (std::size_t i = begin; i <= end; ++i) {
        if (i == end || is_lwsp(value[i])) {
            if (i - word_start > longest) {
                longest = i - word_start;
                longest_at = word_start;
            }
            word_start = i + 1;
            continue;
        }
        char c = value[i];
        if (needs_escape(c) && !reported_char) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned char>(c));
            note(diags, severity::warning, diag_code::url_unescaped_char, offset + i,
                 std::string("octet ") + buf +
                     " inside a quoted URL should have been %-escaped (RFC 2017 §3.1 step 1); kept "
                     "as it is");
            reported_char = true;
        }
        out += c;
    }
    if (longest > max_url_word) {
        note(diags, severity::warning, diag_code::url_word_too_long, offset + longest_at,
             "URL-word of " + std::to_string(longest) +
                 " characters; RFC 2017 §3.1 allows at most 40; extracted anyway");
    }
    return out;
}

std::string extract_header_uri(std::string_view field_body, std::vector<diagnostic>* diags,
                               const header_uri_options& options) {
    std::size_t begin = 0, end = field_body.size();
    auto trim = [&] {
        while (begin < end && is_lwsp(field_body[begin])) ++begin;
        while (end > begin && is_lwsp(field_body[end - 1])) --end;
    };
    trim();
    // RFC 2557 §4.1 allows CFWS around the URI: a leading comment and a trailing comment
    // after white space are dropped.
    if (begin < end && field_body[begin] == '(') {
        std::size_t close = text::comment_end(field_body.substr(0, end), begin);
        if (close != std::string_view::npos) {
            note(diags, severity::note, diag_code::header_uri_comment, begin,
                 "comment before the URI dropped");
            begin = close;
            trim();
        }
    }
    // A trailing comment counts only after white space: "A_(b)" at the end of a URL is
    // part of it.
    if (end > begin && field_body[end - 1] == ')') {
        std::size_t cut = text::trailing_cfws_begin(field_body.substr(0, end), begin);
        if (cut > begin && cut < end && is_lwsp(field_body[cut])) {
            note(diags, severity::note, diag_code::header_uri_comment, cut,
                 "comment after the URI dropped");
            end = cut;
            trim();
        }
    }
    std::string_view value = field_body.substr(begin, end - begin);
    if (value.starts_with('"')) return extract_url_parameter(value, diags, begin);

    // Unquoted: white-space separated pieces, encoded-words decoded to raw octets, joined
    // with nothing between them (MHT-4.4.2.3; RFC 2047 §6.2 drops the white space between
    // adjacent encoded-words, and RFC 2017 extraction drops the rest).
    std::string out;
    out.reserve(value.size());
    bool previous_plain = false;
    std::size_t i = 0;
    while (i < value.size()) {
        std::size_t start = i;
        while (i < value.size() && !is_lwsp(value[i])) ++i;
        std::string_view token = value.substr(start, i - start);
        while (i < value.size() && is_lwsp(value[i])) ++i;
        if (looks_like_encoded_word(token)) {
            for (auto& seg : mime::decode_words(token).segments) out += seg.octets;
            previous_plain = false;
        } else {
            if (options.keep_interior_spaces && previous_plain) out += ' ';
            out += token;
            previous_plain = true;
        }
    }
    return out;
}

result<std::string> url_parameter(std::string_view url) {
    if (url.empty())
        return result<std::string>::failure("empty_url",
                                            "a URL parameter needs at least one character");
    const std::string escaped = escape_url(url);
    std::string out = "\"";
    std::size_t pos = 0;
    while (pos < escaped.size()) {
        std::size_t n = std::min(max_url_word, escaped.size() - pos);
        // Never split a %XX escape (URL-3.1.3): move a '%' in the last two places to the next word.
        if (pos + n < escaped.size()) {
            for (std::size_t back = 1; back <= 2 && back < n; ++back) {
                std::size_t at = pos + n - back;
                if (text::is_escape_at(escaped, at)) {
                    n -= back;
                    break;
                }
            }
        }
        if (pos != 0) out += ' ';
        out.append(escaped, pos, n);
        pos += n;
    }
    out += '"';
    return result<std::string>::success(std::move(out));
}

std::string fold_url_parameter(std::string_view parameter, std::size_t first_line_used) {
    std::string out;
    out.reserve(parameter.size() + 16);
    std::size_t column = first_line_used;
    std::size_t i = 0;
    while (i < parameter.size()) {
        std::size_t space = parameter.find(' ', i);
        std::size_t end = space == std::string_view::npos ? parameter.size() : space;
        std::string_view word = parameter.substr(i, end - i);
        if (i != 0) {
            if (column + 1 + word.size() > max_line) {
                out += "\r\n ";
                column = 1;
            } else {
                out += ' ';
                ++column;
            }
        }
        out += word;
        column += word.size();
        i = end == parameter.size() ? end : end + 1;
    }
    return out;
}

bool is_legacy_method_indicator(std::string_view uri) noexcept {
    if (uri.ends_with(':')) uri.remove_suffix(1);
    return text::iequals(uri, "file") || text::iequals(uri, "cid");
}

std::string_view form_name(header_uri_form f) noexcept {
    switch (f) {
        case header_uri_form::bare:
            return "bare";
        case header_uri_form::quoted:
            return "quoted";
        case header_uri_form::encoded_words:
            return "encoded-words";
    }
    return "bare";
}

namespace {

// What write_header_uri looks at first: an octet a header cannot carry bare (or text a reader
// would take for an encoded-word or a comment), and an 8-bit octet.
struct uri_octets {
    bool offending = false, eight_bit = false;
};

uri_octets look_at(std::string_view uri, bool force_encoded_words) noexcept {
    static constexpr auto escaped = [] {
        std::array<bool, 256> t{};
        for (int c = 0; c < 256; ++c) t[c] = needs_escape(static_cast<char>(c));
        return t;
    }();
    bool offending = force_encoded_words;
    unsigned char any = 0;  // the octets or'ed: 0x80 set where one is 8-bit
    for (const char ch : uri) {
        const auto c = static_cast<unsigned char>(ch);
        offending |= escaped[c];
        any |= c;
    }
    // A reader would decode an encoded-word or drop a comment (MHT-4.4.2.3), so such text is
    // encoded too; so is a value that starts like the quoted form.
    offending |= has_encoded_word(uri) || uri.starts_with('(');
    return {offending, any >= 0x80};
}

// Whether `uri` fits bare on its line after `first_line_used` columns.
bool fits_bare(std::string_view uri, std::size_t first_line_used,
               std::size_t bare_line_limit) noexcept {
    return first_line_used + uri.size() <= std::min<std::size_t>(bare_line_limit, 998);
}

}  // namespace

bool header_uri_is_bare(std::string_view uri, std::size_t first_line_used, bool force_encoded_words,
                        std::size_t bare_line_limit) noexcept {
    return !uri.empty() && !look_at(uri, force_encoded_words).offending &&
           fits_bare(uri, first_line_used, bare_line_limit);
}

header_uri_text write_header_uri(std::string_view uri, std::size_t first_line_used,
                                 std::string_view document_charset, bool force_encoded_words,
                                 std::size_t bare_line_limit) {
    header_uri_text out;
    const auto [offending, eight_bit] = look_at(uri, force_encoded_words);
    if (uri.empty()) return out;
    if (!offending) {
        if (fits_bare(uri, first_line_used, bare_line_limit)) {
            out.value = std::string(uri);
            return out;
        }
        out.form = header_uri_form::quoted;
        out.value = fold_url_parameter(url_parameter(uri).value, first_line_used);
        return out;
    }
    out.form = header_uri_form::encoded_words;
    out.charset = "US-ASCII";
    if (eight_bit) {
        out.charset = "UNKNOWN-8BIT";
        auto canon = is_ascii_label(document_charset) ? std::nullopt
                                                      : mime::canonical_charset(document_charset);
        if (canon && mime::charset_known(*canon) && *canon != "UNKNOWN-8BIT") {
            auto text = mime::to_utf8(uri, *canon);
            auto back = text ? mime::from_utf8(*text, *canon) : std::nullopt;
            if (back && *back == uri) out.charset = *canon;
        }
    }
    out.value =
        mime::encode_words(uri, out.charset, mime::rfc2047_encoding::q_uri, first_line_used);
    return out;
}

}  // namespace mhtml::uri
