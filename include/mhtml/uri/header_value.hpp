#pragma once
/// URIs in MIME header fields: the Content-Location and Content-Base values of MHTML and
/// the RFC 2017 URL parameter of message/external-body.
///
/// Reading (MHT-4.4.2.3): unfold; drop a leading comment and a trailing comment that follows
/// white space; a value in quotes is the RFC 2017 form (quotes and all linear white space
/// removed, URL-3.1.5); otherwise RFC 2047 encoded-words are decoded to their raw octets
/// (MHT-4.4.1.6, MHT-4.4.1.10) and the pieces joined with nothing between them. Nothing is
/// ever %-decoded or case-folded.
///
/// Writing: RFC 2017 §3.1 escaping and 40-character words (URL-3.1.2 to URL-3.1.4), or
/// RFC 2047 encoded-words for a URI that a header cannot carry as it is (MHT-4.4.1, E-12).

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/uri/result.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::uri {

struct header_uri_options {
    /// REQUIREMENTS E-14 retry: keep one space where an unquoted value had white space
    /// between two plain pieces (producers that wrote raw spaces into Content-Location).
    bool keep_interior_spaces = false;
};

/// The URI in a Content-Location / Content-Base field body (the text after the colon, as
/// it stands in the message, folding included). Offsets of diagnostics are positions in
/// `field_body`.
MHTML_EXPORT std::string extract_header_uri(std::string_view field_body,
                                            std::vector<diagnostic>* diags = nullptr,
                                            const header_uri_options& options = {});

/// RFC 2017 §3.1 extraction of a URL parameter value, quotes included or not: the quotes
/// and every SP, HTAB, CR and LF are removed; nothing else changes. Reports URL-words over
/// 40 characters (`url_word_too_long`) and unescaped CTLs, `"`, `\` and 8-bit octets
/// (`url_unescaped_char`).
MHTML_EXPORT std::string extract_url_parameter(std::string_view value,
                                               std::vector<diagnostic>* diags = nullptr,
                                               std::size_t offset = 0);

/// RFC 2017 §3.1 step 1 (URL-3.1.2): SPACE, CTLs, `"`, `\` and octets above 0x7F become
/// `%XX` (upper-case hex); everything else, existing escapes and a lone `%` included, stays.
MHTML_EXPORT std::string escape_url(std::string_view url);

/// The URL parameter in the toolkit's canonical form (URL-3.1.3, URL-3.1.4): escaped, cut
/// greedily into words of at most 40 characters that never split a `%XX`, joined by single
/// spaces, in double quotes. Fails with `empty_url` for an empty URL.
MHTML_EXPORT result<std::string> url_parameter(std::string_view url);

/// The words of `url_parameter` folded for a header: a new line (CRLF SP) before a word
/// that would take the line past 78 characters. `first_line_used` is how many columns the
/// field name and anything before the value take (`Content-Location: ` is 18).
MHTML_EXPORT std::string fold_url_parameter(std::string_view parameter,
                                            std::size_t first_line_used);

/// `FILE`, `FILE:`, `CID` or `CID:` (any case): the text/html draft's method indicators in
/// Content-Base (THTML-10.1, E-32), which are never a base.
MHTML_EXPORT bool is_legacy_method_indicator(std::string_view uri) noexcept;

enum class header_uri_form { bare, quoted, encoded_words };
/// "bare", "quoted", "encoded-words"
MHTML_EXPORT std::string_view form_name(header_uri_form f) noexcept;

struct header_uri_text {
    std::string value;  ///< the field body to write after "Name: " (may contain CRLF SP)
    header_uri_form form = header_uri_form::bare;
    std::string charset;  ///< the encoded-words' charset (form encoded_words only)
};

/// How the toolkit writes a URI into Content-Location (MHT-4.4.1, MHT-4.4.2):
///  * bare when the URI has nothing a header cannot carry and the line fits in 78 columns
///    (MHT-4.4.2.2);
///  * the quoted RFC 2017 form, folded between 40-character words, when it is only long;
///  * RFC 2047 Q encoded-words (method b, MHT-4.4.1.5) when it has SPACE, CTLs, `"`, `\`,
///    8-bit octets, or text a reader would take for an encoded-word or a comment. The
///    charset is US-ASCII for 7-bit URIs (MHT-4.4.1.7), else `document_charset` when the
///    octets are valid in it (MHT-4.4.1.8), else UNKNOWN-8BIT (MHT-4.4.1.9).
/// `force_encoded_words` always takes the third form. extract_header_uri() of the result
/// gives back `uri` octet for octet, for any non-empty `uri`.
/// `bare_line_limit` is the line length up to which the bare form is written (78 by
/// MHT-4.4.2.2; up to RFC 5322's 998 for a reader that takes only one line, as Chromium's).
MHTML_EXPORT header_uri_text write_header_uri(std::string_view uri,
                                              std::size_t first_line_used = 18,
                                              std::string_view document_charset = {},
                                              bool force_encoded_words = false,
                                              std::size_t bare_line_limit = 78);

/// Whether write_header_uri() with the same arguments writes `uri` bare, as it is: the check
/// alone, for a writer that then copies `uri` itself.
MHTML_EXPORT bool header_uri_is_bare(std::string_view uri, std::size_t first_line_used = 18,
                                     bool force_encoded_words = false,
                                     std::size_t bare_line_limit = 78) noexcept;

}  // namespace mhtml::uri
