#pragma once
// What `extract` and `inline` share: choosing the related structure, collecting the parts a
// view needs, and rewriting one document part's references (internal to src/view).

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/html/rewrite.hpp"
#include "mhtml/view/extract.hpp"

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::view::detail {

/// The related structure `part` names (its path or a part inside it), or the first one;
/// -1 when the message has none. Sets `error` when `part` names nothing.
int select_structure(const archive::aggregate& agg, const std::optional<std::string>& part,
                     std::string& error);

/// The part a view starts from: the root of structure `rs`, or the message's root entity
/// (its displayed alternative for a multipart/alternative) when `rs` is -1.
mime::part_view start_part(const archive::aggregate& agg, int rs);

/// Every leaf under structure `rs` (or `start` alone), then every part the document parts
/// among them reach by resolved references, transitively; `start` first, then document order.
std::vector<mime::part_view> parts_to_write(const archive::aggregate& agg, int rs,
                                            const mime::part_view& start);

struct rewrite_counts {
    std::size_t to_parts = 0, external_left = 0, external_removed = 0, plugins_blocked = 0;
    std::size_t refreshes_disabled = 0, shadow_roots = 0;
    std::size_t from_store = 0;  ///< of to_parts: leaves of other messages (store_parts)
};

/// Where a blocked plugin object points: a scheme that no policy allows.
inline constexpr std::string_view blocked_object_url = "mhtml-blocked:plugin";

struct rewrite_options {
    /// Resources that resolve to no part and that a browser would fetch point at nothing.
    bool offline = false;
    /// An `<object data>` or `<embed src>` that names a part only a plugin shows (anything
    /// but an image, a text or XML document, audio or video: a PDF, Flash, a Java archive)
    /// points at `blocked_object_url`, which the policy refuses, so its fallback content
    /// shows, as in Chromium's view of an archive, which runs no plugin.
    bool block_plugins = false;
    /// The document is read as HTML (a text/html part, or the inlined page whatever its
    /// root): Blink's shadow-root templates are made standard (html::markup_edit_options).
    bool html_syntax = false;
    /// With html_syntax: `<meta http-equiv=refresh>` is disabled (unless scripts are allowed).
    bool disable_refresh = false;
    /// What a reference that names no part and that a browser would fetch (a relative one,
    /// an http, https, ftp or file URL, a cid: or mid: URL; `resolved` is it made absolute)
    /// becomes, when this gives a URL: the viewer server's page that names it. Before
    /// `offline`.
    std::function<std::optional<std::string>(std::string_view resolved)> unresolved;
    /// A resource that resolves, through the message store, to a leaf of another message that
    /// is not a document (an image, a font, a video: aggregate_options::store) is given to
    /// `local` too (its part_view is of that other message's document). Documents of other
    /// messages never are: their references are resolved by another aggregate.
    bool store_parts = false;
    /// A reference resolved through the message store to a part of another message that
    /// `store_parts` did not take (a link to that message, a frame of it): what it becomes
    /// (the viewer server's page of that message), or nullopt to go on as for one that names
    /// no part (`unresolved`, `offline`).
    std::function<std::optional<std::string>(const mime::part_view& target,
                                             const html::reference& r)>
        other_message;
};

/// What becomes of a reference that resolved to `target`: the new URL (without the
/// reference's fragment, which is added back), or nullopt to treat it as external.
using local_url = std::function<std::optional<std::string>(const mime::part_view& target,
                                                           const html::reference& r)>;

/// `d.text` with its references rewritten: to `local(target)` when it gives a URL; else a
/// relative one made absolute when the part's base is a real URL; else, when offline and a
/// browser would fetch it on its own (a resource), `data:,`. A `<base href>` is emptied. With
/// `options.html_syntax`, in the same pass, Blink's shadow-root templates become declarative
/// shadow roots and (`disable_refresh`) refreshes are disabled (html::find_markup_edits).
std::string rewrite_references(const archive::aggregate& agg, const mime::part_view& p,
                               const archive::document_text& d, const local_url& local,
                               const rewrite_options& options, rewrite_counts& counts);
/// As rewrite_references(), streaming the result to `sink`; `insertions` (sorted, length 0)
/// are written at their offsets too.
void rewrite_references_to(const archive::aggregate& agg, const mime::part_view& p,
                           const archive::document_text& d, const local_url& local,
                           const rewrite_options& options, rewrite_counts& counts,
                           const std::function<void(std::string_view)>& sink,
                           std::span<const html::edit> insertions = {});

/// Only the markup edits of rewrite_references() (for a document whose references are kept).
std::string apply_markup_edits(std::string_view text, const rewrite_options& options,
                               rewrite_counts& counts);

/// Where an output keeps the archive's parts, which decides what its policy allows.
enum class parts_scheme { data /* inline: data: URIs */, file /* extract: files */ };

/// The Content-Security-Policy of every document an output writes (MHT-12.5, REL-7.1), or ""
/// for none (scripts allowed and not offline). Scripts: `script-src 'none'` unless `allow_scripts`.
/// Plugins and external objects: `object-src` allows only the archive's own parts (data: or file:),
/// as Chromium's own view of an archive shows an `<object>` or `<embed>` of an image, an
/// SVG or an HTML document from it. `offline`: `default-src 'none'` with exceptions for the
/// parts' scheme only.
std::string content_security_policy(parts_scheme where, bool offline, bool allow_scripts);

/// What an output does to a document before writing it (`text` is already rewritten, its
/// refreshes disabled): `charset_meta` (HTML syntax only) and the policy inserted where they
/// are in force before anything runs (html/policy.hpp): HTML syntax for text/html and for an
/// inlined page (an .html file whatever its root), XML syntax for XHTML and SVG documents
/// read on their own.
void add_declarations(std::string& text, bool html_syntax, std::string_view charset_meta,
                      std::string_view policy);

/// The notice for `n` shadow-root templates made standard.
std::string shadow_root_message(std::size_t n);

/// `<meta charset="...">` when a browser reading `html` (already rewritten) from a file
/// would not find `charset` on its own (no BOM or <meta> gives it), else "".
std::string charset_declaration(std::string_view html, std::string_view charset, bool transcoded);

/// `s` with `&`, `<`, `>`, `"` and `'` written as character references (text or a quoted
/// attribute value of a page the view writes).
std::string html_escape(std::string_view s);

/// True for text/html parts (declarations are inserted in HTML only, not in XHTML or SVG).
bool is_text_html(const mime::part_view& p) noexcept;

}  // namespace mhtml::view::detail
