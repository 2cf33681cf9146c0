#pragma once
/// The root of a multipart/related structure: the part a viewer processes first
/// (multipart/related draft §3.1-§3.4, which became RFC 2387; MHTML draft §7; REQUIREMENTS
/// REL-3.*, MHT-7.3, MHT-7.4, MHT-7.6, MHT-7.12, THTML-8.2).
///
///     related-param := [ ";" "start" "=" cid ]
///                      [ ";" "start-info" "=" ( cid-list / value ) ]
///                      [ ";" "type" "=" type "/" subtype ]
///     cid := msg-id          cid-list := cid cid-list   ; read as 1*(msg-id), E-20
///
/// RFC 2387 §3.2: the start part is the direct body part whose Content-ID equals `start`,
/// else the first body part. `start` (its quotes already removed by the Content-Type parser)
/// is compared with each Content-ID as an id (`uri::id_key`: surrounding CFWS and one `<>`
/// pair removed, then octet for octet, case included), so the bracketed, unbracketed and
/// quoted forms seen in the wild all match; an unbracketed match is noted
/// (`start_unbracketed`), in strict mode too. When the start part is a multipart/alternative,
/// the root is the alternative the viewer would display (MHT-7.4): the last one offering the
/// first of `preferred_types` that any offers, else the last one. A part offers a type when it
/// has it, is a multipart/related whose `type` is it, or is a multipart/alternative holding
/// such a part. Otherwise the root is the start part itself.
///
/// Recovery (off with `root_options::strict`, the CLI's `--strict`), each step reported:
/// - `start` names no direct body part but an alternative inside a multipart/alternative
///   body part (the text/html draft's §8 example, E-33): that alternative is the start and
///   the root (`start_inside_alternative`).
/// - no `start`, and the first part is not of the `type` given: the first part of that type,
///   else the first document part (one offering a preferred type), is taken
///   (`root_not_first_part`, REL-3.2.3: producers that write the images first).
///
/// Always reported: `start` naming nothing (`start_not_found`; the first part is used), no
/// `type` (`related_type_missing`), a `type` that is not the start part's media type
/// (`related_type_mismatch`; type/subtype compared case-insensitively, parameters ignored),
/// an alternative start without a preferred alternative (`no_html_alternative`; the last
/// alternative is used), two direct body parts with one Content-ID (`duplicate_content_id`;
/// the first is used; alternatives sharing an id are not duplicates, CID-8), and no body
/// parts at all (`related_without_parts`).

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/mime/part.hpp"

#include <optional>
#include <string>
#include <vector>

namespace mhtml::archive {

struct root_options {
    /// Literal RFC 2387: `start`, else the first part; no search inside alternatives and no
    /// type-based fallback.
    bool strict = false;
    /// Types the viewer can render, best first: which alternative of a multipart/alternative
    /// start part is the root (MHT-7.4), and what counts as a document part for the
    /// REL-3.2.3 fallback. Compared with type/subtype case-insensitively.
    std::vector<std::string> preferred_types = {"text/html"};
    /// Report `duplicate_content_id` for direct body parts (MHT-7.12). A caller that also
    /// builds a `uri::label_index` over the same parts, which reports them too, turns it off.
    bool report_duplicate_ids = true;
};

struct root_selection {
    /// The part `start` designates, or the default first part: what `type` should describe.
    /// nullopt only when the related has no body parts.
    std::optional<mime::part_view> start;
    /// What a viewer processes first: the start part, or an alternative inside it when it
    /// is multipart/alternative. nullopt when there are no body parts or the start part is
    /// a multipart/alternative without alternatives.
    std::optional<mime::part_view> root;
    /// The `type` parameter, as written (unquoted).
    std::optional<std::string> type;
    /// The `start-info` parameter, as written (unquoted), if present.
    std::optional<std::string> start_info;
    /// True when `start_info` is a cid-list: its first non-white-space character is `<`
    /// (REL-3.3.1). Otherwise it is a `value` for the application.
    bool start_info_is_cid_list = false;
    /// The ids of a cid-list `start_info`, in order, each as `uri::id_key` gives it (no
    /// brackets). Msg-ids may be separated by white space or by nothing (E-20).
    std::vector<std::string> start_info_ids;
    /// REL-3.3.2: what each of `start_info_ids` names, found as `start` is (the direct body
    /// part with that Content-ID, the first if several); nullopt for an id no part carries.
    std::vector<std::optional<mime::part_view>> start_info_parts;
};

/// Chooses the start part and the root of `related` (a multipart/related entity; its body
/// parts are read whatever its subtype). Diagnostics carry the related's path; their offset
/// is that of the field or part concerned.
MHTML_EXPORT root_selection select_root(const mime::part_view& related,
                                        const root_options& options = {},
                                        std::vector<diagnostic>* diags = nullptr);

}  // namespace mhtml::archive
