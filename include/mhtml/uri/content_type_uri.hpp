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
///
/// Failures are `result` error codes (stable):
/// - `invalid_content_type`: no type/subtype where one is needed.
/// - `not_absolute`: a URI (given, or held in a `uri.` subtype) has no scheme.
/// - `reserved_form`: a `ContentType://` URI (CTURI-2.1.1.5).
/// - `control_char`: the result would hold a control character (header injection). One
///   level of %-decoding turns `%0D%0A` into CR LF; a URI never holds a CTL (0x00-0x1F,
///   HTAB included) or DEL, a Content-Type field body none but HTAB. The message names the
///   octet (`0x0D (CR)`), the part it comes from and its offset in that part (decoded).
///   Basic mapping encodes every such octet, so only closure and controlled mapping can
///   fail so.
///
/// An "absolute URI" has an RFC 3986 scheme or the fictitious `this_message` /
/// `thismessage` (any case), as for `uri::is_absolute`.

#include <string>
#include <string_view>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/uri/result.hpp"

namespace mhtml::uri {

/// Which rule of the draft produced a mapping.
enum class mapping_rule {
    basic,    ///< §2.1 (Content-Type -> `ContentType:` URI) or §2.2 (URI -> `application/uri.*`)
    closure,  ///< §2.3 (`uri.*` subtype -> URI) or §2.4 (`ContentType:` URI -> Content-Type)
    controlled,  ///< §3: the `URI-Body` parameter or the `MIME-Type` query parameter
};

/// "basic", "closure" or "controlled".
MHTML_EXPORT std::string_view rule_name(mapping_rule r) noexcept;

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
///   Error "not_absolute" if the decoded URI has no scheme, "control_char" if the decoded
///   URI, a decoded name or value, or the decoded fragment holds a CTL.
/// - controlled (§3, when enabled): a `URI-Body` parameter (any case). The URI is its
///   value as is, then `MIME-Type="type/subtype"` (lower case) joined with `?` (`&` if the
///   body already has a query, CTURI-3.5), then the other parameters as in closure, then
///   `#` + `URI-Fragment`. A `URI-Body` that is not an absolute URI without a fragment is
///   ignored: basic mapping applies and `diag_code::parameter_invalid` is reported. Error
///   "control_char" as for closure, the `URI-Body` value included (it is copied verbatim).
/// - basic (§2.1): `ContentType:type/subtype?name="value"&...`, type, subtype and
///   parameter names lower-cased, values always quoted; in all of them `%`, `&`, `#`,
///   `"`, `\`, SP, CTLs, DEL and octets above 0x7F are %-encoded (upper-case hex,
///   CTURI-2.1.2.4) so that §2.4 gives the Content-Type back (CTURI-2.4.2). RFC 2231
///   values are mapped after charset conversion (`parameter::value`).
///
/// Error "invalid_content_type" if the value has no type/subtype. Other problems the
/// Content-Type parser forgives are reported as its usual diagnostics (offset 0).
MHTML_EXPORT result<mapping> ct_to_uri(std::string_view content_type,
                                       const mapping_options& opts = {},
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
///   `diag_code::contenttype_uri_fragment` (CTURI-2.4.3). Error "control_char" when a
///   decoded value or the decoded fragment holds a CTL other than HTAB.
/// - controlled (§3, when enabled): the query is all `name=value` pairs and one is named
///   `MIME-Type` (any case). Its value (quotes dropped, decoded one level) is the media
///   type; `URI-Body` is the URI before `?`, verbatim; other pairs and the fragment map as
///   in basic. A repeated `MIME-Type`: the first wins, later ones stay ordinary
///   parameters, `diag_code::mime_type_repeated`. A value that is not `type/subtype` is
///   ignored: basic mapping applies, `diag_code::parameter_invalid`. So is a query whose
///   other pairs would not come back from the Content-Type (CTURI-1.3.1): a name twice
///   (any case; `MIME-Type` once more is allowed, as above), a `URI-Body` or a
///   `URI-Fragment` pair. Error "control_char" when the URI before `?` holds a CTL other
///   than HTAB (it is copied verbatim).
/// - basic (§2.2): `application/uri.` + the URI before `?` with the troublesome characters
///   of §4 (codes 0-32, 127, `()<>@,;:\/[]?%=`), `"` and 8-bit octets %-encoded (E-28).
///   If the query is all `name=value` pairs (non-empty names) that form a parameter set
///   closure gives back (CTURI-1.3.1: no name twice, in any case, and no `URI-Fragment`
///   pair, which closure would make the fragment) they become parameters (enclosing quotes
///   dropped, troublesome characters and 8-bit octets encoded in name and value, `"` and
///   `*` (RFC 2231) also in names); otherwise the whole query stays in the subtype, `?`
///   encoded (CTURI-2.2.5), so `ct_to_uri` gives the URI back. The fragment becomes
///   `URI-Fragment`, encoded like a value.
MHTML_EXPORT result<mapping> uri_to_ct(std::string_view uri, const mapping_options& opts = {},
                                       std::vector<diagnostic>* diags = nullptr);

}  // namespace mhtml::uri
