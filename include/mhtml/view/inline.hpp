#pragma once
/// `mhtml inline`: an archive's page as one self-contained HTML file (the text/html draft's
/// reader design "translate the references", Annex A).
///
/// Every resource reference of the page that resolves to a part becomes a `data:` URI of
/// that part: images, fonts, media as they are (base64); style sheets with their own
/// references (url(), @import) turned into `data:` URIs in turn; frames and iframes as
/// `data:text/html` documents made the same way (recursively; a frame that contains itself
/// gets `about:blank`). Links the reader follows (a href, forms) that name a part are not
/// inlined: they keep the URL the part was saved from. A relative reference that resolves
/// to no part is made absolute; `offline` points resources that resolve to no part at
/// nothing (`data:,`) instead.
///
/// Charset: the page's bytes are kept and its charset declared with `<meta charset>` after
/// its doctype (data: URIs are ASCII, so they fit any ASCII-based charset). A page in
/// ISO-2022-JP or UTF-16 is transcoded to UTF-8 and declared so (`transcoded`). Frames and
/// style sheets carry their charset in their data: URI.
///
/// Scripts never run unless `allow_scripts` (the posture Chromium takes when it opens an
/// archive): the page, every frame and every SVG document carry a Content-Security-Policy
/// `<meta>` with `script-src 'none'; object-src data:`, put where it is in force before
/// anything in the document can run (html/policy.hpp: after a byte order mark, comments and
/// the DOCTYPE, before every other token; in an SVG or XHTML frame, in an XHTML `<head>`
/// after the root's start tag); `<meta http-equiv=refresh>` is disabled (a policy cannot stop
/// one, and Chromium's archive view follows none); an `<object>` or `<embed>` of a part that
/// only a plugin shows (a PDF, Flash) points at nothing, so its fallback content shows,
/// while one of an image, an SVG or an HTML document shows as in Chromium. `offline` adds
/// `default-src 'none'` with exceptions for `data:` only, so nothing at all is fetched from
/// anywhere.
///
/// Bounded output: each part is encoded once (documents always; other parts while the kept
/// URIs stay under 64 MiB), and the page may not pass `max_output` octets (default: 10 times
/// the archive plus 64 MiB), which frames and style sheets that each repeat the next could
/// otherwise multiply exponentially. Past it the result is the error "output_too_large" and
/// nothing is left at the destination (written to standard output, what came before stays).
///
/// The output is written as it is made (the page between references, one data: URI at a
/// time), to a temporary file beside the destination renamed into place at the end, or to
/// standard output for "-".

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/export.hpp"
#include "mhtml/view/extract.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::view {

struct inline_options {
    /// As extract_options::part.
    std::optional<std::string> part;
    bool offline = false;
    bool allow_scripts = false;
    /// The most octets the page may have; 0: default_output_budget() of the archive's size.
    std::uint64_t max_output = 0;
};

/// 10 times `input_size` plus 64 MiB.
MHTML_EXPORT std::uint64_t default_output_budget(std::uint64_t input_size) noexcept;

struct inline_report {
    std::string root;                    ///< path of the part that is the page
    std::size_t parts_inlined = 0;       ///< distinct parts put in as data: URIs
    std::size_t parts_from_store = 0;    ///< of those, leaves of other messages (mid: URLs
                                         ///< resolved through aggregate_options::store)
    std::size_t encodings = 0;           ///< data: URIs encoded (a part's is reused)
    std::size_t references_inlined = 0;  ///< references turned into data: URIs
    std::size_t external_left = 0;       ///< resolve to no part and were kept (absolute)
    std::size_t external_removed = 0;    ///< offline: pointed at nothing
    std::size_t plugins_blocked = 0;     ///< object/embed of plugin content pointed at nothing
    std::size_t refreshes_disabled = 0;  ///< <meta http-equiv=refresh> made inert
    std::size_t shadow_roots = 0;  ///< Blink's <template shadowmode> made declarative shadow roots
    std::string charset;           ///< the page's charset as written (WHATWG name)
    bool transcoded = false;       ///< the page was transcoded to UTF-8
    std::uint64_t size = 0;        ///< octets written
    std::vector<notice> notices;
    std::string error_code;  ///< empty on success ("no_such_part", "output_too_large", "io_error")
    std::string error;
    [[nodiscard]] bool ok() const noexcept { return error_code.empty(); }
};

/// Writes the page of `agg` as one HTML file `out` ("-" for standard output).
MHTML_EXPORT inline_report inline_page(const archive::aggregate& agg,
                                       const std::filesystem::path& out,
                                       const inline_options& options = {});

/// Hands the page of `agg` to `sink` piece by piece (for a caller that writes it somewhere
/// else: a socket, a database, memory).
MHTML_EXPORT inline_report inline_page(const archive::aggregate& agg,
                                       const std::function<void(std::string_view)>& sink,
                                       const inline_options& options = {});

}  // namespace mhtml::view
