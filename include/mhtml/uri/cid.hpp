#pragma once
/// `cid:` and `mid:` URLs (Levinson, "Content-ID and Message-ID URLs", seed 002, which
/// became RFC 2392; REQUIREMENTS CID-*) and their conversion to and from the header form
/// of Content-ID and Message-ID.
///
///     content-id    = url-addr-spec
///     message-id    = url-addr-spec
///     url-addr-spec = addr-spec  ; URL encoding of RFC 822 addr-spec
///     cid-url       = "cid" ":" content-id
///     mid-url       = "mid" ":" message-id [ "/" content-id ]
///
/// Ids are opaque octets (E-34): no `@` (`content_id_not_addr_spec`) or no angle brackets
/// in a header (`content_id_without_brackets`) are tolerated and reported as notes. URL to
/// header %-decodes every `%hh` (CID-9, following the prose over RFC 2392's printed
/// example, L-10); header to URL %-encodes every octet outside RFC 3986 `pchar`, and `%`,
/// with upper-case hex (CID-3), so `cid_to_content_id(content_id_to_cid(h)) == h` for every
/// bracketed id without control characters (CID-10).
///
/// Failures are `result` error codes (stable): `wrong_scheme`, `empty_id`,
/// `bad_percent_escape`, `invalid_url_char`, `control_char_in_id`, `extra_slash`.
/// Diagnostics (empty `part_path`, `offset` into the argument they concern) are appended to
/// `*diags` only when the conversion succeeds.

#include <string>
#include <string_view>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/uri/result.hpp"

namespace mhtml::uri {

/// True when `url` begins with the scheme `cid:` (any case). Nothing else is checked.
MHTML_EXPORT bool is_cid_url(std::string_view url) noexcept;
/// True when `url` begins with the scheme `mid:` (any case). Nothing else is checked.
MHTML_EXPORT bool is_mid_url(std::string_view url) noexcept;

/// CID-3: an id (no brackets) in URL form: every octet that is not RFC 3986 unreserved, a
/// sub-delim, `:` or `@` becomes `%XX` (upper-case hex). `/`, `%`, `?`, `#`, SP, `"`,
/// `<`, `>`, `[`, `]`, CTLs and 8-bit octets are therefore escaped.
MHTML_EXPORT std::string url_encode_id(std::string_view id);

/// CID-9: `cid:foo4%25foo1@bar.net` -> `<foo4%foo1@bar.net>`.
///
/// Removes the scheme (any case) and a `#fragment` (from the first literal `#`: RFC 3986
/// §3.5, a fragment is not part of the id; a `#` inside an id is written `%23`), %-decodes
/// every `%hh` (hex in any case) and encloses the result in `<` `>`. The fragment is
/// neither decoded nor checked. A URL whose whole id is enclosed in `<` `>` (RFC 2111-era
/// form) is accepted without them and reported (`cid_url_with_brackets`, warning, CID-2).
/// Errors: `wrong_scheme` (not `cid:`), `empty_id` (also `cid:#x`), `bad_percent_escape`
/// (`%` not followed by two hex digits), `invalid_url_char` (an octet no URL may contain:
/// SP, CTL, 8-bit, `"`, `<`, `>`, `\`, `^`, backquote, `{`, `|`, `}`), `control_char_in_id`
/// (an escape decodes to a CTL or DEL, which would end up in a header, e.g. CR LF).
MHTML_EXPORT result<std::string> cid_to_content_id(std::string_view url,
                                                   std::vector<diagnostic>* diags = nullptr);

/// CID-10: a Content-ID field body -> `cid:` URL.
///
/// The id is `id_key(field_body)`: CFWS around it (comments included) is ignored and one
/// enclosing `<` `>` pair removed; without that pair the whole trimmed value is the id
/// (`content_id_without_brackets`, note, E-34). The id is encoded with `url_encode_id`.
/// Error `empty_id` when nothing is left (`""`, `<>`, only a comment).
MHTML_EXPORT result<std::string> content_id_to_cid(std::string_view field_body,
                                                   std::vector<diagnostic>* diags = nullptr);

/// The ids a `mid:` URL names, in header form (with `<` `>`).
struct mid_ids {
    std::string message_id;  ///< `<...>`
    std::string content_id;  ///< `<...>`; empty for the short form (the whole message)
};

/// CID-4, CID-11: `mid:m@x/c@y` -> (`<m@x>`, `<c@y>`); `mid:m@x` -> (`<m@x>`, "").
///
/// Drops a `#fragment` (from the first literal `#`, so a `/` after it separates nothing),
/// splits at the first literal `/` (an escaped `%2F` belongs to an id), then converts each
/// half as `cid_to_content_id` does. Errors as there, plus `extra_slash` (a second literal
/// `/`) and `empty_id` for an empty half (`mid:/c@x`, `mid:m@x/`).
MHTML_EXPORT result<mid_ids> mid_to_ids(std::string_view url,
                                        std::vector<diagnostic>* diags = nullptr);

/// CID-11: Message-ID field body (and optionally a Content-ID field body; empty = none) ->
/// `mid:` URL, each id taken and encoded as in `content_id_to_cid`. Diagnostic offsets are
/// into the field they concern. Error `empty_id` when an id given is empty.
MHTML_EXPORT result<std::string> ids_to_mid(std::string_view message_id_field,
                                            std::string_view content_id_field = {},
                                            std::vector<diagnostic>* diags = nullptr);

/// CID-16, E-34: the comparison key of an id: the field body with surrounding CFWS
/// (white space, line ends, comments) trimmed and one enclosing `<` `>` pair removed. No
/// case folding and nothing removed inside the brackets; two ids are equal when their keys
/// are equal octet for octet. `id_key("<a@b>") == id_key(" a@b (c)") == "a@b"`.
MHTML_EXPORT std::string id_key(std::string_view field_body);

}  // namespace mhtml::uri
