#pragma once
/// store::index: a SQLite index of the messages a user keeps (mbox files, Maildirs, folders of
/// .eml/.mht files), and store::indexed_store, the archive::message_store that resolves `mid:`
/// URLs (CID-6, MHT-8.3) through it.
///
/// Sources (store::list_sources) are made canonical (symbolic links and `..` resolved), so a
/// file has one path however it is named. A Maildir (a folder with cur/ and new/) gives its
/// messages; another folder is walked recursively (links are not followed, names starting with '.'
/// are skipped), and in it a file named *.eml, *.mht, *.mhtm or *.mhtml is one message (by its
/// name: it is not opened to be listed) and any other file that looks like an mbox is a mailbox; a
/// file named on the command line is a mailbox when it looks like one (or when a format is
/// forced) and one message otherwise.
///
/// Tables (schema version 1, PRAGMA user_version):
///   files(id, path, kind, format, size, mtime_ns, ctime_ns, inode, forced, head, tail,
///         messages, complete)
///   messages(id, file, number, offset, size, quoted, message_id, date, from_, subject,
///            in_reply_to, refs, flags, parts, diagnostics)
///   parts(message, path, content_id, message_id, location, type, decoded_size)
/// with indexes on messages(message_id), parts(content_id) and parts(message_id) (the
/// Message-ID of a message/rfc822 part inside a message). Ids are stored as uri::id_key gives
/// them (no angle brackets), text fields decoded to UTF-8 (RFC 2047), `location` is the
/// resolved Content-Location (archive::entity_info::location), `offset` an offset in the file.
///
/// Updates are incremental. A file whose size, mtime, ctime and inode are those recorded (and
/// read with the same forced format, if any) is skipped without being read. An mbox that only
/// grew is read from its old end only when: same inode, the first and last 4 KiB that were
/// indexed unchanged, the old content ends with the empty line after a message, no length
/// (Content-Length) took part in splitting it (not mboxcl2, no Content-Length pointing past
/// its end), and the new octets start with a From_ line and split in the recorded format (an
/// mboxrd file stays mboxrd when new messages look mboxo). Any other change re-reads the file;
/// a file that is gone, under a source given to update() that could be read, is removed with
/// its messages. Files are written in batched transactions, in WAL mode, each file's rows in
/// one of them, so a reader (another process, indexed_store) sees each file before or after,
/// never half; the recorded state of a file is read inside the transaction that writes it, so
/// two updates at once do not both add the same messages. A file cut while it is read (the
/// mapping then faults) is the one case not survived, as for every command that maps its input.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/limits.hpp"
#include "mhtml/store/mbox.hpp"

namespace mhtml::store {

/// An index that cannot be opened, read or written (the message names the file and SQLite's
/// reason).
class MHTML_EXPORT store_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class source_kind : std::uint8_t { mbox, maildir, message };
/// "mbox", "maildir", "message".
MHTML_EXPORT std::string_view source_kind_name(source_kind k) noexcept;

struct source_file {
    std::filesystem::path path;  ///< absolute and lexically normal
    source_kind kind = source_kind::message;
    std::string flags;  ///< maildir: the letters after ":2,"
    /// maildir: what listing it found (size, inode, mtime and ctime in ns), so that it is not
    /// asked again
    std::optional<std::uint64_t> size, inode;
    std::int64_t mtime_ns = 0, ctime_ns = 0;
};

struct source_listing {
    std::vector<source_file> files;     ///< in path order, each once
    std::vector<std::string> problems;  ///< what could not be read, and why
    /// Sources and folders that could not be read: what the index has under them is kept.
    std::vector<std::filesystem::path> unlisted;
    /// Sources that are neither a file nor a folder (a FIFO, a device, a socket): not read,
    /// and, like a file that is gone, what the index has of them is removed.
    std::vector<std::filesystem::path> skipped;
};

/// The files of `sources` (see above). `force_mbox`: a file named directly is a mailbox even
/// when it does not look like one.
/// `untouched`: files never opened nor listed (index::update passes its own database's files:
/// opening and closing one of them would drop SQLite's fcntl locks on it in this process).
MHTML_EXPORT source_listing list_sources(const std::vector<std::filesystem::path>& sources,
                                         bool force_mbox = false,
                                         const std::vector<std::filesystem::path>& untouched = {});

/// The files an index at `db` keeps (the database, its -wal, -shm and -journal, and the
/// .update-lock beside it), as list_sources compares paths: its `untouched` for a walk that
/// may pass the index's folder.
MHTML_EXPORT std::vector<std::filesystem::path> database_files(const std::filesystem::path& db);

struct index_options {
    std::optional<mbox_format> format;  ///< force an mbox format (--mbox-format)
    parse_limits limits;
};

struct index_report {
    std::uint64_t files = 0;            ///< files of the sources
    std::uint64_t files_unchanged = 0;  ///< skipped: size, mtime and inode as recorded
    std::uint64_t files_appended = 0;   ///< mboxes read from their old end
    std::uint64_t files_read = 0;       ///< read whole (new or changed)
    std::uint64_t files_removed = 0;    ///< gone from a source
    std::uint64_t messages_added = 0;
    std::uint64_t messages_removed = 0;
    std::uint64_t parts_added = 0;
    std::uint64_t bytes_read = 0;         ///< octets of the files that were read
    std::vector<std::string> problems;    ///< files that could not be read, and why
    std::vector<diagnostic> diagnostics;  ///< the mailboxes' (part_path "FILE#N")
};

/// One indexed message.
struct message_record {
    std::int64_t id = 0;
    std::filesystem::path file;
    source_kind kind = source_kind::message;
    mbox_format format = mbox_format::mboxo;  ///< mbox only
    std::uint64_t number = 0;                 ///< in its file, from 1
    std::uint64_t offset = 0, size = 0;       ///< where it is stored in the file
    bool quoted = false;                      ///< mbox: has a line unquoting changes
    std::string message_id, date, from, subject, in_reply_to, references, flags;
    /// The file as it was indexed (size, inode, mtime and ctime in ns): indexed_store reads a
    /// message only from a file that is still so.
    std::uint64_t file_size = 0, file_inode = 0;
    std::int64_t file_mtime_ns = 0, file_ctime_ns = 0;
};

class MHTML_EXPORT index {
public:
    /// Opens the index in `db`, creating it (and its schema) unless `read_only`. Throws
    /// store_error.
    static index open(const std::filesystem::path& db, bool read_only = false);
    index(index&&) noexcept;
    index& operator=(index&&) noexcept;
    ~index();

    /// Brings the index up to date with `sources` (see above). Throws store_error when the
    /// database cannot be written; a file that cannot be read is a problem in the report.
    index_report update(const std::vector<std::filesystem::path>& sources,
                        const index_options& options = {});

    /// The messages whose Message-ID (an id_key) is `message_id`: top-level ones first, then
    /// messages inside messages (message/rfc822 parts), by file and offset.
    [[nodiscard]] std::vector<message_record> find_message(std::string_view message_id) const;
    /// Messages, parts and files in the index.
    [[nodiscard]] std::uint64_t message_count() const;
    [[nodiscard]] std::uint64_t part_count() const;
    [[nodiscard]] std::uint64_t file_count() const;

private:
    struct impl;
    explicit index(std::unique_ptr<impl> p) noexcept;
    std::unique_ptr<impl> p_;
};

/// The message_store of an index: find() looks the Message-ID up, reads the message from its
/// file (mapped; an mbox message unquoted), checks that it still has that Message-ID (the
/// file may have changed since it was indexed: then nothing is found), and resolves
/// `mid:MESSAGE/CONTENT` in it as the aggregate layer does for a message of its own document.
/// Loaded messages stay loaded (their part_views must outlive the resolutions), so memory
/// grows with the messages named, not with the store. find() may be called from several
/// threads.
class MHTML_EXPORT indexed_store final : public archive::message_store {
public:
    /// Opens the index in `db` read-only; throws store_error.
    explicit indexed_store(const std::filesystem::path& db, const parse_limits& limits = {});
    ~indexed_store() override;
    indexed_store(const indexed_store&) = delete;
    indexed_store& operator=(const indexed_store&) = delete;

    [[nodiscard]] std::optional<mime::part_view> find(std::string_view message_id,
                                                      std::string_view content_id) const override;
    /// The index record of the message find() took a part from (nullopt if none).
    [[nodiscard]] std::optional<message_record> record_of(const mime::part_view& p) const;

private:
    struct impl;
    std::unique_ptr<impl> p_;
};

}  // namespace mhtml::store
