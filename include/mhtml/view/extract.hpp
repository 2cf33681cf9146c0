#pragma once
/// `mhtml extract`: an archive's aggregate written out as a folder of ordinary files that a
/// browser or an editor opens (the text/html draft's reader design, Annex A: store the parts
/// in a folder and translate the references).
///
/// What is written: every leaf under the chosen multipart/related (and every part that its
/// documents reach by resolved references, even outside it), the root as `index.html`
/// (`keep_names`: at the path of its URL), the others at paths from view/paths.hpp, and
/// `manifest.json` (part path, Content-ID, Content-Location, file). In HTML, SVG and CSS
/// parts every reference resolved to a written part is rewritten to the relative path of
/// its file (its fragment kept); every other byte is copied as it is, with three
/// exceptions, each made only where needed:
/// - a `<base href>` is emptied, because the rewritten paths are relative to the file;
/// - a relative reference that resolves to no part is made absolute (its resolved URI), so
///   that it means what it meant in the archive rather than a file next to this one;
/// - an HTML part whose charset came from its Content-Type only (no BOM, no `<meta>`) gets
///   `<meta charset="...">` after its doctype, because a file:// URL has no Content-Type.
///   ISO-2022-JP and UTF-16 documents are written in UTF-8 (with that meta first).
///
/// Scripts never run unless `allow_scripts`, as in Chromium's own view of an archive: every
/// HTML, XHTML and SVG file gets a Content-Security-Policy `<meta>` with
/// `script-src 'none'; object-src file: data:`, put where it is in force before anything in
/// the document can run (html/policy.hpp); `<meta http-equiv=refresh>` is disabled; an
/// `<object>` or `<embed>` of a part only a plugin shows points at nothing (see inline.hpp);
/// and a part that is not such a document is never written under a name a browser would
/// open as one (`.html`, `.svg`, `.xhtml`, `.xml`...: view/paths.hpp renames it).
///
/// `offline`: references that would make a browser fetch something from the network when the
/// folder is opened (resources; not links the reader has to click) and resolve to no part
/// are pointed at nothing (`data:,`), and the policy becomes `default-src 'none'` with
/// exceptions for `file:`, `data:` and inline styles, so even references the scanner cannot
/// see (script-made ones) fetch nothing.
///
/// The virtual file-name method (text/html draft 9.2, 10: `Content-Base: FILE:` on the
/// related or its root): parts are written at the names their Content-Locations give and
/// no reference is rewritten (the declarations above are still added); a name that had to
/// be changed to be safe is reported.
///
/// Safety: the folder is built in a new temporary folder next to `dir` and renamed into
/// place, so nothing is ever written outside `dir`, no link already in `dir` is followed,
/// and a failure leaves nothing behind. An existing non-empty `dir` is refused unless
/// `force` (it is then replaced as a whole); `dir` being a symbolic link is refused.

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/export.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mhtml::view {

/// Something worth telling about one part (a renamed file, an unsafe label).
struct notice {
    std::string part;  ///< the part's path
    /// Stable: "renamed", "file_name_changed" (extract); "cycle", "too_deep", "not_html",
    /// "transcoded" (inline); "refresh_disabled" (both).
    std::string code;
    std::string message;
};

struct extract_options {
    /// The multipart/related to extract (its path, or the path of any part inside one: the
    /// innermost related holding it). Default: the first related structure; a message
    /// without one is written as its root part alone.
    std::optional<std::string> part;
    bool keep_names = false;
    bool offline = false;
    bool allow_scripts = false;
    bool force = false;
    /// Called after each file is written (files written, files to write).
    std::function<void(std::size_t, std::size_t)> progress;
};

struct extracted_file {
    std::string part;  ///< part path (in the message message_id names, if it is not empty)
    /// A leaf of another message that a document shows through a mid: URL resolved by the
    /// message store (aggregate_options::store): that message's Message-ID (an id_key).
    std::string message_id;
    std::string file;  ///< path under the folder, '/'-separated
    std::string content_type;
    std::optional<std::string> content_id;
    std::optional<std::string> content_location;  ///< resolved
    std::uint64_t size = 0;                       ///< octets written
    std::size_t rewritten = 0;                    ///< references rewritten in it
    bool root = false;
};

struct extract_report {
    std::vector<extracted_file> files;     ///< this archive's parts, then leaves of other messages
    std::size_t files_from_store = 0;      ///< of files: leaves of other messages
    std::size_t references_rewritten = 0;  ///< to the path of a written part
    std::size_t external_left = 0;         ///< resolve to no part and were kept (absolute)
    std::size_t external_removed = 0;      ///< offline: pointed at nothing
    std::size_t plugins_blocked = 0;       ///< object/embed of plugin content pointed at nothing
    std::size_t refreshes_disabled = 0;    ///< <meta http-equiv=refresh> made inert
    std::size_t shadow_roots = 0;   ///< Blink's <template shadowmode> made declarative shadow roots
    bool file_name_method = false;  ///< the virtual file-name method: nothing rewritten
    std::vector<notice> notices;
    /// Empty on success; else a stable code ("dir_not_empty", "dir_is_link", "no_such_part",
    /// "io_error", ...) and a message saying why. Nothing is left in or next to `dir` then.
    std::string error_code;
    std::string error;
    [[nodiscard]] bool ok() const noexcept { return error_code.empty(); }
};

/// Writes the aggregate of `agg` (built over the document being extracted) into `dir`.
MHTML_EXPORT extract_report extract(const archive::aggregate& agg, const std::filesystem::path& dir,
                                    const extract_options& options = {});

}  // namespace mhtml::view
