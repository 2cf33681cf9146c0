#pragma once
/// pack::repair: rewrites a damaged or odd archive as a canonical one that strict readers
/// (Chromium first) show in full, with the pack writer.
///
/// The input is read with every salvage the reader has (mime::document::parse: LF or mixed
/// line ends, quoted-printable soft breaks written `=` LF, base64 with LF breaks, blanks or a
/// bad character, transport padding, a missing close delimiter, a truncated file, a blank line
/// or a byte order mark before the headers, a top-level type that is not multipart over a body
/// that is; archive::aggregate: root selection by `start`, `type`, then check's heuristics).
/// The output is written by pack::writer: CRLF everywhere, base64 in 76-character lines,
/// well-formed quoted-printable, charsets declared, multiparts never encoded, a close
/// delimiter, the root first with `type` (MHT-7.6).
///
/// What is kept: every leaf entity (an archive wrapped in message/rfc822, or nested
/// multiparts, are flattened into one multipart/related; a message/external-body stays one
/// part, with its parameters and encapsulated header), its decoded octets, its Content-ID,
/// and its Content-Location resolved against its base chain (absolute; MHT-4.2.3, chapter 5),
/// so that every reference the reader resolves by label still resolves. What changes is listed
/// in the report (`what`) with the requirement behind it:
///  * `leading_junk`, `top_type`: a BOM or blank lines before the headers left out; a
///    multipart body under another type read as multipart/related;
///  * `root_moved`: the root written first (MHT-7.6); in a multipart/alternative it is the
///    first text/html for Chromium (which shows the first document), the last for rfc;
///  * `label_resolved`, `label_dropped`, `content_id_replaced`: a label made absolute, a
///    second part's duplicate label left out (it keeps a stable Content-ID), a Content-ID
///    that cannot be written replaced by a stable one;
///  * for Chromium: `root_labelled` (a root without a label gets thismessage:/, the base its
///    references had), `label_file_mapped` (file: labels under thismessage: with the same
///    path; Chromium serves no file: URL from an archive), labels written on one line
///    (writer_options::fold_uris), and `root_type`: a root whose type is text/plain or
///    application/octet-stream but whose content is HTML, or application/xhtml+xml (Chromium
///    does not show them as a page), is written text/html; for rfc, URIs with octets RFC 1738
///    calls unsafe are written as RFC 2047 words (writer_options::encode_unsafe_uris);
///  * `external_header_ended`: an external body's encapsulated header gets its empty line;
///  * `charset_changed`: a rewritten document written as UTF-8;
///  * `reference_rewritten`: a reference that the reader matches only leniently (another
///  percent-encoding, a query
///    or fragment difference, a relative Content-Location, a `cid:` form) is rewritten in its
///    document to the form that names its part exactly (MHT-4.4.1 method (a)): there is no
///    header-only fix, since a part has one Content-Location (MHT-4.2.5);
///  * `incomplete`: a part whose body could not be decoded whole (a truncated file, bad
///    base64) is written with what was recovered, and listed as incomplete.
/// Decoded octets are never changed otherwise (text line ends become CRLF, MHT-11.4).
///
/// Deterministic: the boundary is a fixed one (with "=_", so no encoded body can hold it), the
/// Date and Subject are kept from the input, so repair(repair(x)) is repair(x) byte for byte once x
/// had a Date (the first repair of an archive without one writes the time it ran). An input
/// that is not one multipart/related of leaves, or whose labels are written otherwise than
/// it had them (label_resolved, root_labelled, label_file_mapped), is planned against its
/// first pass (written into memory), where references may resolve otherwise.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/pack/writer.hpp"

namespace mhtml::pack {

enum class repair_target {
    chromium,  ///< also what Chromium needs beyond RFC 2557 (see above)
    rfc,       ///< RFC 2557 alone (for mail readers): types are kept as they are
};

struct repair_options {
    repair_target target = repair_target::chromium;
    /// Keep each Content-Location as written instead of resolving it (relative labels stay
    /// relative; references are not rewritten for them).
    bool keep_labels = false;
    /// Leave out the leaves that no reference reaches and that are not the root (they are
    /// listed either way).
    bool drop_unreferenced = false;
    /// How the input is read (strict = false: every salvage).
    archive::aggregate_options read;
    /// The writer's options; method, boundary, Date and Subject are set by repair unless
    /// given here (a non-empty boundary, a date, a subject).
    writer_options write;
};

/// One change repair made, or one thing it found and kept.
struct repair_change {
    std::string what;          ///< a stable name: "root_type", "reference_rewritten", ...
    std::string part;          ///< the input part's IMAP-style path ("" = the top entity)
    std::uint64_t offset = 0;  ///< where in the input
    std::string why;           ///< a sentence
    std::string requirement;   ///< the requirement ID behind it, if any (e.g. "MHT-4.4.1")
};

struct repair_report {
    std::vector<repair_change> changes;
    /// What reading the input found (parser, codecs, aggregate), as mhtml check lists it.
    std::vector<diagnostic> read;
    std::vector<std::string> incomplete;    ///< input paths of parts written with lost octets
    std::vector<std::string> unreferenced;  ///< input paths of leaves no reference reaches
    std::vector<std::string> dropped;       ///< those left out (drop_unreferenced)
    /// The input path of each resource given to the writer (write_report's part index).
    std::vector<std::string> inputs;
    write_report written;  ///< the writer's report (output paths)
    [[nodiscard]] bool ok() const noexcept { return written.ok(); }
};

/// Repairs `doc` into `out`. Where `out` can start over (sink::restartable) and may be
/// written from another thread (sink::writes_from_any_thread, or a string_sink), the parts
/// are written on a thread of their own while later documents are still read; if the output
/// then turns out to need a first pass, `out` is started over (sink::restart) and written
/// again. An exception while so writing starts `out` over before it is thrown on.
MHTML_EXPORT repair_report repair(const mime::document& doc, sink& out,
                                  const repair_options& options = {});

/// Repairs the octets of a file: repair() after two salvages the parser does not make, since
/// they change what the octets are (each is listed in the report):
///  * a UTF-8 byte order mark and blank lines before the first header field are left out
///    ("leading_junk");
///  * a message whose Content-Type is not multipart but whose body is one (it opens with a
///    delimiter line `--X` that recurs, and `--X--` closes it) is read as
///    multipart/related with boundary X ("top_type").
MHTML_EXPORT repair_report repair_bytes(std::string_view input, sink& out,
                                        const repair_options& options = {},
                                        const mime::parse_options& parse = {});

}  // namespace mhtml::pack
