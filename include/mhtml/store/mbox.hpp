#pragma once
/// store::split_mbox: the messages of an mbox file, as ranges of it (no copy).
///
/// Formats (detected, or forced):
///  * mboxo and mboxrd: each message starts with a "From " line (the From_ line) at the start
///    of the file or after an empty line. A body line that would read as one was quoted by the
///    writer with '>': mboxo quotes "From " only (so ">From " in a message cannot be told from
///    a quoted one), mboxrd quotes any run of '>' before "From " (so unquoting removes one '>'
///    from every line matching ^>+From ). Detection: mboxrd when some line is ">>From ",
///    else mboxo (unquoting one '>' from ^>From  is the same for both then).
///  * mboxcl2: a Content-Length field in a message's header gives its body's size, and nothing
///    is quoted. Each message that has a Content-Length landing on the empty line before a
///    From_ line (or on the end of the file) ends there, so a "From " line in its body splits
///    nothing; a message without one ends at the next From_ line after an empty line. The
///    format is mboxcl2 when some message was split by its length, unless the bodies have
///    quoted ">From " lines and no bare "From " line (a writer that counts and quotes, mboxcl):
///    then mboxo or mboxrd, so that unquoting undoes the quoting.
/// Damage gives a diagnostic and the best split, never a lost octet:
///  * no From_ line at the start: the octets before the first one are a message of their own
///    (`mbox_missing_from_line`);
///  * a "From " line not preceded by an empty line is body text, not a new message
///    (`mbox_unquoted_from`, once per message);
///  * the file ends without the empty line after the last message (`mbox_truncated`);
///  * a Content-Length that points past the file or not at the empty line before a From_
///    line: the length is ignored for that message (`mbox_bad_content_length`).
/// Offsets are offsets in the file (64-bit: mailboxes over 4 GiB are read as mapped).
/// CRLF and LF line ends are both read.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"

namespace mhtml::store {

enum class mbox_format : std::uint8_t { mboxo, mboxrd, mboxcl2 };
/// "mboxo", "mboxrd", "mboxcl2".
MHTML_EXPORT std::string_view mbox_format_name(mbox_format f) noexcept;

struct mbox_message {
    std::uint64_t from_line = 0;  ///< offset of the From_ line (== offset when it has none)
    std::uint64_t offset = 0;     ///< the message's first octet (after the From_ line)
    std::uint64_t size = 0;       ///< octets of the message as stored, without the empty
                                  ///< line that separates it from the next From_ line
    std::string envelope;         ///< the From_ line after "From ", without its line end
    bool quoted = false;          ///< has a line that unquoting changes (^>+From )
};

struct mbox_split {
    mbox_format format = mbox_format::mboxo;
    bool crlf = false;  ///< the From_ lines end CRLF
    /// Messages that ended by their Content-Length (not by the next From_ line): what follows
    /// the mailbox's end can change how such a split reads.
    std::size_t ended_by_length = 0;
    std::vector<mbox_message> messages;
    std::vector<diagnostic> diagnostics;  ///< part_path "#N": the message's number, from 1
};

/// Whether `bytes` looks like an mbox: it starts with "From " (after at most a few empty
/// lines) followed on the same line by something like an address and a date.
MHTML_EXPORT bool looks_like_mbox(std::string_view bytes) noexcept;

/// The messages of `bytes`; `format` forces one instead of detecting it.
MHTML_EXPORT mbox_split split_mbox(std::string_view bytes,
                                   std::optional<mbox_format> format = std::nullopt);

/// A message as stored, unquoted: mboxrd removes one '>' from every line that matches
/// ^>+From ; mboxo the same for ^>From ; mboxcl2 nothing.
MHTML_EXPORT std::string unquote(std::string_view stored, mbox_format format);

/// Where the octets of a message read from an mbox were in the mailbox file.
struct message_origin {
    std::uint64_t offset = 0;  ///< the message's first octet in the file
    /// Offsets in the message as read (unquoted) of the lines from which unquoting removed one
    /// '>', ascending.
    std::vector<std::uint64_t> unquoted_lines;
    /// The offset in the file of octet `at` of the message as read; the first octet of a line
    /// that lost a '>' is given as that line's start in the file (the '>').
    [[nodiscard]] MHTML_EXPORT std::uint64_t file_offset(std::uint64_t at) const noexcept;
};

/// As unquote(), and where each octet of the result was (`origin->offset` is left as it is).
MHTML_EXPORT std::string unquote(std::string_view stored, mbox_format format,
                                 message_origin* origin);

/// Message `m` of `mailbox` as the MIME parser reads it: a view of the mailbox itself when
/// nothing in it is quoted (or the format quotes nothing), so that offsets in it are offsets in
/// the file minus m.offset; otherwise unquote()'s copy, kept in `storage`.
MHTML_EXPORT std::string_view message_text(std::string_view mailbox, const mbox_message& m,
                                           mbox_format format, std::string& storage);

/// A message quoted for storing in `format` (the inverse of unquote for mboxrd and mboxcl2;
/// for mboxo, ">From " lines already in the message cannot be told apart after storing).
MHTML_EXPORT std::string quote(std::string_view message, mbox_format format);

}  // namespace mhtml::store
