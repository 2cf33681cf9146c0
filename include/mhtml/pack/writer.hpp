#pragma once
/// pack::writer: writes an MHTML aggregate (RFC 2557, draft-ietf-mhtml-rev-04) or an HTML
/// mail as it goes, one resource at a time.
///
/// Memory is bounded by one resource plus constant buffers (two 4 MiB output buffers, a
/// 512 KiB read buffer, and with writer::expect a window of at most 16 MiB of small files
/// read ahead): a binary resource read from a file is never held whole, and the archive is
/// never held whole either (except by a string_sink, by request).
///
/// What goes on the wire:
///  * `MIME-Version: 1.0`, `Date`, `Subject` (the root's `<title>` by default, RFC 2047
///    words when it is not ASCII), Chromium's `Snapshot-Content-Location` when the root's
///    label is absolute, then `Content-Type: multipart/related; type="..."; boundary="..."`
///    with `type` always (MHT-7.6) and `start` whenever the root is not the first part
///    (MHT-7.7); parameters are always quoted (REL-3.4.2); multiparts are never
///    transfer-encoded (REL-2.2); CRLF everywhere.
///  * One Content-Location per part (MHT-4.2.5) written by uri::write_header_uri (bare, the
///    RFC 2017 folded form, or RFC 2047 words, MHT-4.4.1, MHT-4.4.2), a Content-ID when the
///    resource has one. Every field is checked by mime::check_field first, so no value can
///    start a field of its own.
///  * The boundary contains `=_` (never in base64 or quoted-printable output) and 24 random
///    characters; a 7bit body is scanned for it and goes quoted-printable if it has it.
///  * Text: canonical CRLF (converted only where it is not, MHT-11.4, MHT-11.8), always a
///    charset (MHT-11.9), UTF-16/32 transcoded to UTF-8 (MHT-11.7), quoted-printable, or
///    base64 when more than a third of the octets would need escaping; 7bit only for valid
///    text of one line, for Chromium's reader joins the lines of a 7bit part without their
///    line breaks (tests/browser/pack_test.py).
///    Anything else: base64 in 76-character lines.
///  * HTTP Content-Encoding (gzip, deflate, br) is undone first (MHT-11.6), with a bound.
///  * A Content-MD5 the resource carried is dropped when a conversion changed the octets
///    (MHT-11.5).
///
/// Nothing here throws for bad input or I/O: a resource that cannot be read is left out
/// with a diagnostic (the archive stays valid), a sink that fails ends the writing with
/// `write_report::error`.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/pack/resource.hpp"

namespace mhtml::pack {

// ---------------------------------------------------------------------------------------------
// Sinks

/// Where the octets go. write() is called with at most 4 MiB at a time, in order.
class MHTML_EXPORT sink {
public:
    virtual ~sink();
    /// Writes all of `bytes`; false on failure (then error() says why, and nothing more is
    /// written).
    virtual bool write(std::string_view bytes) = 0;
    /// What went wrong, after write() returned false.
    [[nodiscard]] virtual std::string error() const { return {}; }
    /// True if write() may be called from a thread other than the writer's (one call at a
    /// time, in order). The writer then writes behind: a second thread writes the buffers
    /// (and large copied bodies) handed to it, in order, while the next is encoded
    /// (writer_options::write_behind).
    [[nodiscard]] virtual bool writes_from_any_thread() const noexcept { return false; }
    /// True if restart() can drop what was written so far (a string_sink, a file_sink's
    /// temporary file, an fd_sink made so); false by default.
    [[nodiscard]] virtual bool restartable() const noexcept { return false; }
    /// Drops everything written so far, so that the output can begin again (after a writer
    /// was abandoned: pack::repair does so when a streamed output turns out to need a first
    /// pass). Called only once no writer writes to the sink (a writer's write-behind thread
    /// stops when the writer is destroyed). An earlier failure is forgotten. False if it
    /// cannot (then error() may say why).
    virtual bool restart() { return false; }
};

/// Appends to a string the caller owns.
class MHTML_EXPORT string_sink final : public sink {
public:
    explicit string_sink(std::string& out) noexcept : out_(out), start_(out.size()) {}
    bool write(std::string_view bytes) override;
    [[nodiscard]] bool restartable() const noexcept override { return true; }
    /// Back to the string as it was when the sink was made.
    bool restart() override;

private:
    std::string& out_;
    std::size_t start_;
};

/// Writes to an open file descriptor (partial writes and EINTR are retried). Does not close it.
class MHTML_EXPORT fd_sink final : public sink {
public:
    /// `may_restart`: the descriptor is the caller's own (no other code writes to the file),
    /// and restart() may cut the file back to where it stood when the sink was made. Honoured
    /// only for a regular file open for writing and positioned at its end.
    explicit fd_sink(int fd, bool may_restart = false) noexcept;
    bool write(std::string_view bytes) override;
    [[nodiscard]] std::string error() const override { return error_; }
    [[nodiscard]] bool writes_from_any_thread() const noexcept override { return true; }
    /// True when made with `may_restart` on a regular file open for writing that ended where
    /// it stood (nothing after it that starting over would cut off).
    [[nodiscard]] bool restartable() const noexcept override { return start_ >= 0; }
    /// Cuts the file back to where it stood when the sink was made.
    bool restart() override;

private:
    int fd_;
    std::int64_t start_ = -1;  // the offset to start over from, or -1: cannot
    std::string error_;
};

/// Calls a function; it returns false to fail the writing.
class MHTML_EXPORT callback_sink final : public sink {
public:
    explicit callback_sink(std::function<bool(std::string_view)> f) : f_(std::move(f)) {}
    bool write(std::string_view bytes) override;
    [[nodiscard]] std::string error() const override { return "the callback refused the octets"; }

private:
    std::function<bool(std::string_view)> f_;
};

/// Writes a file atomically: to a temporary file in the same directory, which commit()
/// flushes (fsync) and renames over `path`. Destroyed without commit() (or after a failure),
/// it removes the temporary file and `path` is untouched. A `path` that is a symbolic link is
/// followed: the file it names is replaced, and the link stays. A `path` that is neither a
/// regular file nor a folder (`/dev/null`, a named pipe), or that leads through /proc or
/// /dev/fd (`/dev/stdout`: an open descriptor's file), is opened and written directly:
/// renaming over it would replace the device, pipe or link with a file.
class MHTML_EXPORT file_sink final : public sink {
public:
    explicit file_sink(std::filesystem::path path);
    ~file_sink() override;
    file_sink(const file_sink&) = delete;
    file_sink& operator=(const file_sink&) = delete;
    /// False if the temporary file could not be created (then error() says why).
    [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
    bool write(std::string_view bytes) override;
    /// Makes the file appear at `path`; false (and error()) on failure.
    bool commit();
    [[nodiscard]] std::string error() const override { return error_; }
    [[nodiscard]] bool writes_from_any_thread() const noexcept override { return true; }
    /// True when it writes a temporary file (not a device or pipe written directly).
    [[nodiscard]] bool restartable() const noexcept override { return fd_ >= 0 && !temp_.empty(); }
    /// Empties the temporary file.
    bool restart() override;

private:
    std::filesystem::path path_, temp_;  // temp_ empty: written directly
    int fd_ = -1;
    std::string error_;
};

// ---------------------------------------------------------------------------------------------
// Options and report

struct writer_options {
    /// How the collector made references resolve; here it only changes what is written in
    /// headers (with method::cid every part gets a Content-ID, generated if missing).
    pack::method method = method::content_location;
    /// The Date field; now when unset.
    std::optional<std::chrono::system_clock::time_point> date;
    /// Long URIs in Content-Location (and Snapshot-Content-Location) folded per RFC 2017
    /// (MHT-4.4.2, in quoted words) when the line would pass 78 columns. False: a URI of
    /// printable ASCII is written bare on one line however long, up to RFC 5322's 998-octet
    /// limit, as Blink writes and reads them (its reader does not join RFC 2017's quoted
    /// words, so it never finds a part labelled so); other URIs are written as with true.
    bool fold_uris = true;
    /// A URI with an octet that RFC 1738 calls unsafe and a header may still carry (`<`, `>`,
    /// `^`, backquote, `{`, `|`, `}`) is written as RFC 2047 words (MHT-4.4.1.1 method (b)),
    /// as RFC 2557 wants; false writes it as browsers spell it (Chromium looks a part up by
    /// the URL as it parses it), which check reports as `uri_needs_encoding`.
    bool encode_unsafe_uris = false;
    /// The Date field's value as given (an archive's own, kept by repair); used instead of
    /// `date` when not empty, if it is a legal field value.
    std::string date_field;
    /// The Subject field (UTF-8; RFC 2047-encoded when not ASCII; control characters made
    /// spaces); when unset or nothing but white space, the root's `<title>`, and no Subject
    /// when it has none.
    std::optional<std::string> subject;
    /// Write Chromium's `Snapshot-Content-Location` (the root's label, when absolute).
    bool snapshot_content_location = true;
    /// The outer boundary; empty for a random one. It must contain `=_` (so that no base64 or
    /// quoted-printable body can hold it) and be a valid RFC 2046 boundary of at most 70
    /// characters, else a random one is used. For reproducible output and tests.
    std::string boundary;
    /// Domain of generated Content-IDs and Message-IDs (pack::make_content_id). One that
    /// cannot be written in a msg-id (white space, a control character, `<`, `>`, `"`, `\`,
    /// 8-bit octets) is replaced with mhtml.invalid, with a field_value_invalid diagnostic.
    std::string content_id_domain = "mhtml.invalid";
    /// Add a Content-MD5 (RFC 1864) of the canonical octets to every part.
    bool content_md5 = false;
    /// Resources larger than this (decoded octets) whose label is an http, https or ftp URL
    /// are written as message/external-body (RFC 2017); 0 = never.
    std::uint64_t external_over = 0;
    /// With a sink that allows it (sink::writes_from_any_thread) and more than one CPU, write
    /// each full 4 MiB buffer (and each large base64 body copied as it is) from a second
    /// thread while the next is filled; up to two buffers wait in its queue. A sink failure is
    /// then seen up to that queue later: add() may return true meanwhile, and the parts added
    /// meanwhile (how many depends on the timing of the writes) are listed as not written.
    /// The rest of the report is the same
    /// (write_report::error), but for `bytes` where the writes are cut otherwise (a large
    /// copied body is one write behind, buffered on one thread). False: one thread.
    bool write_behind = true;
    /// Let writer::expect() read files ahead on a second thread.
    bool read_ahead = true;
    /// Where the root goes among the parts: 0 = first. Otherwise the root is held back until
    /// that many other parts are written, and `start` names its Content-ID (MHT-7.7).
    std::size_t root_position = 0;
    /// The most octets an HTTP Content-Encoding may decode to (a decompression bomb gives
    /// `decompression_limit` and the resource is left out).
    std::uint64_t max_decoded_size = std::uint64_t{512} << 20;

    /// Mail mode (seed 004 §8, MHT-7.6): an RFC 5322 message whose body is
    /// multipart/related; type="multipart/alternative", the first part a
    /// multipart/alternative of a text/plain made from the HTML and the HTML itself.
    bool mail = false;
    std::string from;        ///< mail: `Name <addr>` or `addr` (UTF-8 names are encoded)
    std::string to;          ///< mail: as `from`; several separated by commas
    std::string message_id;  ///< mail: without brackets; generated when empty
};

/// One resource the writer was given (`index`: the order given, the root is 0). The report
/// lists them in output order (a held-back root where it was written; one left out where it
/// would have been).
struct part_report {
    std::size_t index = 0;
    std::string label;               ///< the Content-Location URI (as given)
    std::string content_id;          ///< without brackets (generated ones too)
    std::string content_type;        ///< as written, parameters included
    std::string transfer_encoding;   ///< "7bit", "quoted-printable", "base64"; "" when external
    std::string path;                ///< IMAP-style path in the output, e.g. "2" or "1.2"
    bool written = true;             ///< false: left out (see the diagnostics with this path)
    bool external = false;           ///< written as message/external-body
    bool copied_encoded = false;     ///< the resource's base64_body or qp_body written as it was
    std::uint64_t source_size = 0;   ///< octets of the resource as given (its data or file)
    std::uint64_t decoded_size = 0;  ///< octets of content (after the conversions)
    std::uint64_t encoded_size = 0;  ///< octets of the encoded body as written
    std::uint64_t offset = 0;        ///< where the part's header block starts in the output
};

struct write_report {
    std::vector<part_report> parts;
    /// What the writer did or refused (part_path = the part's output path, or the resource
    /// index as "#N" for a resource left out; offset = output offset where known).
    std::vector<diagnostic> diagnostics;
    /// An I/O failure of the sink (`sink_write_failed`, offset = where the failed write
    /// began): the output is incomplete, and a part whose octets did not all reach the sink
    /// is not `written`.
    std::optional<diagnostic> error;
    std::uint64_t bytes = 0;  ///< octets the sink accepted
    std::string boundary;     ///< of the outermost multipart/related
    [[nodiscard]] bool ok() const noexcept { return !error.has_value(); }
};

// ---------------------------------------------------------------------------------------------
// The writer

/// The sink must outlive the writer (a writer destroyed before finish() completes the write
/// in progress, if any, and drops what is queued for it).
class MHTML_EXPORT writer {
public:
    explicit writer(sink& out, writer_options options = {});
    ~writer();
    writer(writer&&) noexcept;
    writer& operator=(writer&&) noexcept;

    /// Writes the message header and (unless root_position holds it back) the root. Call it
    /// once, first. False once the sink has failed.
    bool root(const resource& r);
    /// Writes one more resource. False once the sink has failed (a resource that cannot be
    /// read is not a failure: it is left out and reported).
    bool add(const resource& r);
    /// Says which resources the next add() calls will get, in this order: with
    /// writer_options::read_ahead and more than one CPU, a second thread opens and reads their
    /// files ahead (a window of 64 files or 16 MiB). `next` must outlive finish() (or the
    /// writer, if finish() is never called). An add() out of that order ends the reading
    /// ahead; the output is the same octets either way. Without a thread, nothing happens.
    void expect(std::span<const resource> next);
    /// Makes room in the report for `resources` parts (a hint, for a caller that knows how
    /// many it will write: the output is the same octets either way).
    void reserve(std::size_t resources);
    /// Writes what is held back and the close delimiters, flushes, and returns the report.
    write_report finish();
    /// The report so far: the parts written until now (a root held back comes at finish()).
    [[nodiscard]] const write_report& report() const noexcept;

private:
    struct state;
    std::unique_ptr<state> s_;
};

/// root(), add() for each of `others`, finish().
MHTML_EXPORT write_report write_archive(sink& out, const resource& root,
                                        std::span<const resource> others,
                                        const writer_options& options = {});

/// The text/plain rendering of an HTML document (UTF-8 in, UTF-8 out, CRLF line ends):
/// text content with character references decoded, script and style skipped, white space
/// collapsed outside `<pre>`, line breaks for block elements. Used for mail mode's
/// text/plain alternative.
MHTML_EXPORT std::string html_to_text(std::string_view html_utf8);

/// The text of the first `<title>` of an HTML document (in `charset`), converted to UTF-8,
/// character references decoded and white space collapsed; empty if none.
MHTML_EXPORT std::string html_title(std::string_view html, std::string_view charset);

}  // namespace mhtml::pack
