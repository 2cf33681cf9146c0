#pragma once
/// Content-Type (RFC 2045 §5) and Content-Disposition (RFC 2183) values with their
/// parameters, including RFC 2231 continuations, charsets and languages.
///
/// The parser is lenient the way GMime and Python's email package are, and says so:
/// comments anywhere CFWS is allowed, unquoted values containing tspecials
/// (`start=<a@b>`, `type=text/html`), a missing `;` between parameters (seed erratum
/// E-21), unterminated quoted strings. Every such recovery is reported as a flag that
/// the caller turns into a diagnostic.

#include <cstdint>
#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::mime {

/// RFC 2045 §5.1 tspecials, and token characters (US-ASCII CHAR except SPACE, CTLs and
/// tspecials).
constexpr bool is_tspecial(char c) noexcept {
    for (char t : {'(', ')', '<', '>', '@', ',', ';', ':', '\\', '"', '/', '[', ']', '?', '='})
        if (c == t) return true;
    return false;
}
constexpr bool is_token_char(char c) noexcept {
    auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7f && !is_tspecial(c);
}
/// A non-empty run of token characters.
constexpr bool is_token(std::string_view s) noexcept {
    if (s.empty()) return false;
    for (char c : s)
        if (!is_token_char(c)) return false;
    return true;
}

struct parameter {
    std::string name;   ///< lower-case, without the RFC 2231 `*` / `*N*` suffix
    std::string value;  ///< quoted-pairs removed; RFC 2231 pieces joined and converted to UTF-8
    std::string
        octets;  ///< RFC 2231: the %-decoded octets before charset conversion (else == value)
    std::string charset;    ///< RFC 2231 charset, or empty
    std::string language;   ///< RFC 2231 language, or empty
    bool extended = false;  ///< came from RFC 2231 syntax
    bool quoted = false;    ///< a plain parameter written as a quoted-string
};

/// What the structured-value parser had to forgive.
struct value_issues {
    bool invalid = false;  ///< no usable type/subtype (defaulted)
    bool missing_subtype = false;
    bool missing_separator = false;    ///< `a=b c=d`
    bool needs_quoting = false;        ///< unquoted value with tspecials
    bool bad_parameter = false;        ///< a parameter without '=' or name (skipped)
    bool duplicate_parameter = false;  ///< the first one wins
    bool unterminated_quote = false;
    bool bad_continuation = false;  ///< RFC 2231 pieces missing or out of order
    bool bad_charset = false;       ///< RFC 2231 charset unknown (octets kept)
    bool any() const noexcept {
        return invalid || missing_subtype || missing_separator || needs_quoting || bad_parameter ||
               duplicate_parameter || unterminated_quote || bad_continuation || bad_charset;
    }
};

/// Calls `report(severity, code, message)` for each parameter problem the parser forgave
/// (everything but `invalid` and `missing_subtype`, which the caller words for its field).
MHTML_EXPORT void each_parameter_issue(
    const value_issues& is,
    const std::function<void(severity, diag_code, std::string_view)>& report);

/// A parameter list as found after the value of Content-Type or Content-Disposition.
class MHTML_EXPORT parameter_list {
public:
    /// The parameter's value (case-insensitive name), or nullopt.
    std::optional<std::string_view> get(std::string_view name) const noexcept;
    const parameter* find(std::string_view name) const noexcept;
    const std::vector<parameter>& items() const noexcept { return items_; }
    std::vector<parameter>& items() noexcept { return items_; }
    bool empty() const noexcept { return items_.empty(); }

private:
    std::vector<parameter> items_;
};

/// Parses `;`-separated parameters starting at `pos` of `s` (the unfolded field body).
MHTML_EXPORT parameter_list parse_parameters(std::string_view s, std::size_t pos,
                                             value_issues& issues);

struct MHTML_EXPORT content_type {
    std::string type = "text";      ///< lower-case
    std::string subtype = "plain";  ///< lower-case
    parameter_list params;

    /// "type/subtype", lower-case.
    std::string essence() const { return type + '/' + subtype; }
    bool is(std::string_view t, std::string_view st) const noexcept;
    bool is_multipart() const noexcept { return type == "multipart"; }
    /// message/rfc822, message/global and message/news: an encapsulated message.
    bool is_encapsulated_message() const noexcept;
    std::optional<std::string_view> param(std::string_view name) const noexcept {
        return params.get(name);
    }
    /// The default of RFC 2045 §5.2: text/plain; charset=us-ascii.
    static content_type default_text();
    /// The default inside multipart/digest, RFC 2046 §5.1.5: message/rfc822.
    static content_type default_digest();
};

/// Parses a Content-Type field body (unfolded). An unusable value gives text/plain with
/// charset=us-ascii (RFC 2045 §5.2) and `issues.invalid`.
MHTML_EXPORT content_type parse_content_type(std::string_view value, value_issues& issues);
/// The same, into an existing object (reuses its storage).
MHTML_EXPORT void parse_content_type(std::string_view value, value_issues& issues,
                                     content_type& out);

struct content_disposition {
    std::string type;  ///< lower-case: "inline", "attachment", ...
    parameter_list params;
    std::optional<std::string_view> filename() const noexcept { return params.get("filename"); }
};

MHTML_EXPORT content_disposition parse_content_disposition(std::string_view value,
                                                           value_issues& issues);

/// Content-Transfer-Encoding, RFC 2045 §6.
enum class transfer_encoding : std::uint8_t {
    seven_bit,
    eight_bit,
    binary,
    quoted_printable,
    base64,
    unknown
};

/// Parses the field body (case-insensitive, comments allowed). `x-` tokens and anything
/// else unknown give `unknown` (the body is then treated as binary, RFC 2045 §6.4).
MHTML_EXPORT transfer_encoding parse_transfer_encoding(std::string_view value) noexcept;
MHTML_EXPORT std::string_view transfer_encoding_name(transfer_encoding e) noexcept;

/// msg-id of RFC 5322 §3.6.4 as used by Content-ID and Message-ID: the text between the
/// angle brackets with CFWS around it removed. Missing brackets are tolerated
/// (`*had_brackets` false). Returns nullopt for an empty value.
MHTML_EXPORT std::optional<std::string> parse_msg_id(std::string_view value,
                                                     bool* had_brackets = nullptr);

}  // namespace mhtml::mime
