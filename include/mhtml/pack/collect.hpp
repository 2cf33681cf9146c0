#pragma once
/// pack::collect: which local files a page needs, with what labels, and the documents
/// rewritten for the chosen link method (THTML §9, MHT-7.9): the first half of `pack`,
/// whose output the streaming writer (pack/writer.hpp) writes.
///
/// Sources (all local; nothing is fetched):
/// - an HTML, XHTML or SVG file: the root folder is the folder holding it;
/// - a folder: its root is `index.html`, else `index.htm`, else its only HTML file, else an
///   error naming the candidates;
/// - a folder written by `mhtml extract` (it holds extract's `manifest.json`): every file the
///   manifest lists goes back with its Content-Location, Content-ID and type, and references
///   in its documents are turned back from file paths into those labels (see
///   collect_extracted below for what cannot be restored).
///
/// What is collected: every `resource` reference the scanner (html/scan.hpp) finds in the
/// root, then in every HTML, SVG and CSS file so collected (frames, iframes, `object`/`embed`
/// documents, SVG images, CSS `@import`s and `url()`s), and in `<iframe srcdoc>` content
/// (scanned in place, with its parent's base). Navigation links are not followed (but a
/// navigation link to a file that is packed anyway is rewritten with it). `<base href>` is
/// honoured. `data:` URIs stay. Each file is one resource, however many references name it;
/// cycles end because a file is scanned once.
///
/// URLs: the root folder is a site root: without `base`, a file `d/x.png` has the fictitious
/// URL `thismessage:/d/x.png` (so `/d/x.png`, an absolute path, is taken from the root
/// folder, not from the file system's root); with `base`, `base` + `d/x.png`. A reference
/// whose resolved URL is under neither (`http://elsewhere/`) stays external. A `file:` URL
/// naming a file under the root folder is a local reference too.
///
/// Safety: nothing outside the root folder is read: a reference climbing out of it (`..`),
/// a `%2F` or NUL in a name, a name over 255 octets (segment) or 4096 (path), and a symbolic
/// link leading out of the root are refused with a diagnostic; the reference stays as written.
///
/// Labels (content_location method): a file's label is the URL of the first reference that
/// found it (THTML-9.1.4: identical to the URI as used), spelled as a browser requests it
/// (octets above 0x7F of the path in UTF-8, percent-encoded: Chromium compares the label
/// with its request and reads no RFC 2047 in Content-Location), written relative (`d/x.png`)
/// without `base` so that the reader's resolution against `thismessage:/` finds it, except for a
/// document in a sub-folder whose own relative references need its folder as base: that one
/// is labelled `thismessage:/d/page.html` (absolute, so the reader's chapter 5 (c) makes it
/// the base of its body). A part has one Content-Location (MHT-4.2.5), so a reference that
/// names the same file with another spelling (`a%20b.png` beside `a b.png`, a query) is
/// rewritten to the label's spelling (MHT-4.4.1 method (a)) and reported
/// (`reference_respelled`); references spelled like the label leave the document untouched.
///
/// What Chromium needs besides (tests/browser/pack_test.py): with `base`, a relative
/// `<base href>` is written absolute (Chromium resolves it against the archive file); a
/// reference keeps its fragment only into an HTML or SVG document (Chromium looks an
/// archived resource up with its fragment). Both are reported as `reference_respelled`.
///
/// cid: every packed reference becomes `cid:` + a generated Content-ID (labels are kept:
/// Chromium keys resources by URL, extract names files by them). filename: references become
/// uri::make_virtual_filenames names, which are also the labels; a `<base href>` is emptied
/// and the relative references it made external are written absolute.
///
/// Diagnostics: `part_path` is the referencing document's path under the root folder (for
/// a collect error, ""), `offset` the octet offset of the reference's raw value in that file.
///
/// Thread-safety: collect() shares no state; calls may run in parallel.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/pack/resource.hpp"

namespace mhtml::pack {

struct collect_limits {
    std::size_t max_resources = 100'000;           ///< resources collected, root included
    std::uint64_t max_resource_size = 1ull << 30;  ///< octets of one file
    std::uint64_t max_total_bytes = 8ull << 30;    ///< octets of all files together
    std::size_t max_srcdoc_depth = 16;             ///< `srcdoc` inside `srcdoc`
};

struct collect_options {
    pack::method method = method::content_location;
    /// An absolute URL standing for the root folder (a `/` is appended when it has none):
    /// labels are `base` + the file's path. Empty: fictitious relative labels.
    std::string base;
    /// Also pack every file under the root folder that nothing references, after the others,
    /// sorted bytewise by path (symbolic links leading out of the root are skipped, reported).
    bool all = false;
    /// MHT-12.2: with a `file:` base, labels are made the fictitious relative ones instead
    /// (without it, each `file:` label is warned about: `label_leaks_local_path`).
    bool anonymize_labels = false;
    collect_limits limits;
};

/// What became of one reference (in the report).
enum class ref_outcome : std::uint8_t {
    packed,         ///< names a resource of the collection (`resource` is set)
    external,       ///< an absolute URL outside the root folder and `base`: left alone
    data,           ///< a `data:` URI: left alone
    same_document,  ///< empty or fragment-only
    not_followed,   ///< a navigation, form or citation link to a file not packed
    unresolved,     ///< meant a local file that is not packed: `reason` says why
};
MHTML_EXPORT std::string_view outcome_name(ref_outcome o) noexcept;  ///< "packed", ...

struct reference_report {
    std::string document;  ///< the referencing file's path under the root folder
    /// Offset of the raw value in that file; inside `<iframe srcdoc>`, the offset of the
    /// srcdoc attribute's value, and `srcdoc_offset` the offset in its decoded content.
    std::size_t offset = 0;
    std::optional<std::size_t> srcdoc_offset;
    std::string raw;  ///< the value as written (undecoded)
    std::string url;  ///< decoded (character references, CSS escapes)
    html::ref_kind kind = html::ref_kind::resource;
    std::string element;    ///< e.g. "img"; "" in a style sheet
    std::string attribute;  ///< e.g. "src"; "" for CSS text
    ref_outcome outcome = ref_outcome::unresolved;
    std::optional<std::size_t> resource;  ///< index in collection::resources
    /// For `unresolved`: "missing", "not_a_file", "outside_root", "link_outside_root",
    /// "bad_name", "too_large", "limit", "unreadable".
    std::string reason;
    std::optional<std::string> rewritten;  ///< the new value when the document was changed
};

struct collect_counts {
    std::size_t resources = 0;
    std::size_t documents = 0;  ///< HTML, SVG and CSS files scanned
    std::size_t references = 0;
    std::size_t packed = 0;
    std::size_t unresolved = 0;
    std::size_t external = 0;
    std::size_t rewritten = 0;  ///< references given a new value
    std::size_t rewritten_documents = 0;
    std::uint64_t bytes = 0;  ///< octets of all resources
};

struct collection {
    /// The parts to write, root first. Files kept as they are are not loaded
    /// (`in_memory = false`, `file` set); rewritten documents are in memory. `origin` is the
    /// file's path under the root folder.
    std::vector<resource> resources;
    std::vector<reference_report> references;
    std::vector<diagnostic> diagnostics;
    collect_counts counts;
    bool from_extract = false;  ///< the source was a folder written by `mhtml extract`
    /// Empty on success; else "not_found", "no_root", "ambiguous_root", "not_html",
    /// "bad_base", "bad_manifest", "io_error", and a message (no resources then).
    std::string error_code;
    std::string error;
    /// fetch_collect: the private temporary folder holding fetched bodies over 1 MiB that are
    /// not documents (their resources have `in_memory = false` and `file` in it). It is
    /// removed when the last copy of this pointer goes: keep the collection until written.
    std::shared_ptr<void> spool;
    [[nodiscard]] bool ok() const noexcept { return error_code.empty(); }
};

/// Collects the page at `source` (a file or a folder, see above).
MHTML_EXPORT collection collect(const std::filesystem::path& source,
                                const collect_options& options = {});

/// The inverse of `mhtml extract` for the folder `dir` holding its `manifest.json` (collect()
/// calls it when it finds one). Each listed file becomes a resource with the manifest's
/// Content-Location (the resolved one), Content-ID and type, root first, in manifest order;
/// a file that is not an HTML, SVG or CSS document keeps its decoded bytes exactly. In
/// documents, each reference to a listed file is turned back into that file's label (or
/// `cid:` URL when it has none), and the Content-Security-Policy `<meta>` and `<meta
/// charset>` extract added are removed, so every reference resolves to the part it resolved
/// to in the archive. Limits (what the manifest does not record): a document's references
/// come back as the resolved, absolute label rather than as originally spelled; an emptied
/// `<base href>` stays empty; a document extract transcoded (ISO-2022-JP, UTF-16) stays UTF-8;
/// a `<meta http-equiv=refresh>` extract disabled stays disabled; the Content-Type keeps only
/// its essence (HTML documents get their detected charset back). A label several parts
/// share (Blink's frames of one URL) names none of them: references to such a part use its
/// Content-ID (`cid:`); a Blink `Content-Location: cid:...` also becomes the Content-ID.
/// `options.method` cid names every part by `cid:`; `limits` apply; `base`, `all` and
/// `anonymize_labels` do not (the labels are the archive's own).
MHTML_EXPORT collection collect_extracted(const std::filesystem::path& dir,
                                          const collect_options& options = {});

/// The media type for a file name's extension (`x.PNG` -> `image/png`, `a.css` -> `text/css`;
/// `application/octet-stream` when unknown). No parameters.
MHTML_EXPORT std::string_view content_type_for_path(std::string_view file_name) noexcept;

}  // namespace mhtml::pack
