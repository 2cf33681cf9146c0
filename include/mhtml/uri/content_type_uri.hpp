#pragma once
/// Mapping between Content-Types and URIs: draft-eastlake-cturi-02 (seed 003, CTURI-*).
///
/// Two pure string functions; neither dereferences, opens nor executes anything
/// (CTURI-6.1). Each reports which of the draft's rules it applied (CTURI-6.2), tested in
/// this order:
///
///     ct_to_uri(CT)                                uri_to_ct(URI)
///       subtype "uri.*" (any case) -> closure        relative -> error "not_absolute"
///         (§2.3)                                      scheme ContentType (any case) -> closure
///       URI-Body parameter -> controlled (§3)          (§2.4); "ContentType://" -> "reserved_form"
///       else -> basic (§2.1)                        query has MIME-Type -> controlled (§3)
///                                                   else -> basic (§2.2)
///
/// The draft leaves much open and has typos (errata E-24 to E-30); the decisions taken
/// are those of spec/REQUIREMENTS.md §1.5 and the `conventions` of tests/data/spec/cturi.json.

#include <string>
#include <string_view>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/uri/result.hpp"

namespace mhtml::uri {

/// Which rule of the draft produced a mapping.
enum class mapping_rule {
    basic,    ///< §2.1 (Content-Type -> `ContentType:` URI) or §2.2 (URI -> `application/uri.*`)
    closure,  ///< §2.3 (`uri.*` subtype -> URI) or §2.4 (`ContentType:` URI -> Content-Type)
    controlled,  ///< §3: the `URI-Body` parameter or the `MIME-Type` query parameter
};

/// "basic", "closure" or "controlled".
std::string_view rule_name(mapping_rule r) noexcept;

/// A mapped label and the rule that made it.
struct mapping {
    std::string text;
    mapping_rule rule = mapping_rule::basic;
};

struct mapping_options {
    /// CTURI-3.1: controlled mapping (§3) is optional. When false, `URI-Body` and
    /// `MIME-Type` are ordinary parameters and the basic rules apply (closure still does).
    bool controlled = true;
};

/// Maps a Content-Type field body (no `Content-Type:` prefix; may be folded with CRLF or
/// LF followed by WSP, may hold comments) to a URI. CTURI-2.1, 2.3, 3.
///
/// - closure (§2.3): subtype begins `uri.` (any case, any top-level type). The URI is the
///   rest of the subtype as written (case kept, CTURI-2.3.4) with one level of %-encoding
///   undone; the other parameters follow as `?name="value"&...` (names as written, names
///   and values decoded one level, E-25) and `URI-Fragment` becomes the `#fragment`.
///   Error "not_absolute" if the decoded URI has no scheme.
/// - controlled (§3, when enabled): a `URI-Body` parameter (any case). The URI is its
///   value as is, then `MIME-Type="type/subtype"` (lower case) joined with `?` (`&` if the
///   body already has a query, CTURI-3.5), then the other parameters as in closure, then
///   `#` + `URI-Fragment`. A `URI-Body` that is not an absolute URI without a fragment is
///   ignored: basic mapping applies and `diag_code::parameter_invalid` is reported.
/// - basic (§2.1): `ContentType:type/subtype?name="value"&...`, type, subtype and
///   parameter names lower-cased, values always quoted; in all of them `%`, `&`, `#`,
///   `"`, `\`, SP, CTLs, DEL and octets above 0x7F are %-encoded (upper-case hex,
///   CTURI-2.1.2.4) so that §2.4 gives the Content-Type back (CTURI-2.4.2). RFC 2231
///   values are mapped after charset conversion (`parameter::value`).
///
/// Error "invalid_content_type" if the value has no type/subtype. Other problems the
/// Content-Type parser forgives are reported as its usual diagnostics (offset 0).
result<mapping> ct_to_uri(std::string_view content_type, const mapping_options& opts = {},
                          std::vector<diagnostic>* diags = nullptr);

/// Maps an absolute URI (bare, no `<` `>`) to a Content-Type field body of the form
/// `type/subtype; name="value"; ...` (values quoted, `"` and `\` escaped with `\`).
/// CTURI-1.2, 2.2, 2.4, 3.
///
/// - Error "not_absolute" if the URI has no scheme (CTURI-1.2.1).
/// - closure (§2.4): scheme `ContentType` (any case). Error "reserved_form" for
///   `ContentType://` (CTURI-2.1.1.5). The part before the first `?` must decode (one
///   level) to `type/subtype` (case kept); the query is split on `&`, each pair at its
///   first `=`, name and value decoded one level and one pair of enclosing quotes (`"` or
///   `%22`, E-27) dropped; empty pairs are skipped. Anything else is error
///   "invalid_content_type". A `#fragment` becomes `URI-Fragment`, with
///   `diag_code::contenttype_uri_fragment` (CTURI-2.4.3).
/// - controlled (§3, when enabled): the query is all `name=value` pairs and one is named
///   `MIME-Type` (any case). Its value (quotes dropped, decoded one level) is the media
///   type; `URI-Body` is the URI before `?`, verbatim; other pairs and the fragment map as
///   in basic. A repeated `MIME-Type`: the first wins, later ones stay ordinary
///   parameters, `diag_code::mime_type_repeated`. A value that is not `type/subtype` is
///   ignored: basic mapping applies, `diag_code::parameter_invalid`.
/// - basic (§2.2): `application/uri.` + the URI before `?` with the troublesome characters
///   of §4 (codes 0-32, 127, `()<>@,;:\/[]?%=`), `"` and 8-bit octets %-encoded (E-28).
///   If the query is all `name=value` pairs (non-empty names) they become parameters
///   (enclosing quotes dropped, troublesome characters and 8-bit octets encoded in name
///   and value, `"` and `*` (RFC 2231) also in names); otherwise the query stays in the subtype,
///   `?` encoded (CTURI-2.2.5). The fragment becomes `URI-Fragment`, encoded like a value.
result<mapping> uri_to_ct(std::string_view uri, const mapping_options& opts = {},
                          std::vector<diagnostic>* diags = nullptr);

}  // namespace mhtml::uri
