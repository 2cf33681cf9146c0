#pragma once
/// store::list_maildir: the messages of a Maildir (one file per message in cur/ and new/;
/// tmp/ holds deliveries in progress and is not read).
///
/// A message's file name is UNIQUE, or UNIQUE:2,FLAGS once a reader has seen it (in cur/);
/// some systems write ';' or '!' instead of ':' (file systems without ':'). FLAGS are letters
/// in ASCII order: D draft, F flagged, P passed, R replied, S seen, T trashed (and lower-case
/// letters of one's own). Messages are listed in the order of their names, which start with
/// the delivery time, new/ and cur/ together. Links are not followed (a Maildir is a user's
/// folder, and a link in it may name any file).

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/export.hpp"

namespace mhtml::store {

struct maildir_message {
    std::filesystem::path path;
    bool is_new = false;  ///< in new/ (not yet seen by a reader)
    std::string unique;   ///< the name before the info (":2,...")
    std::string flags;    ///< the letters after ":2," (empty when there are none)
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;  ///< modification time, nanoseconds since the epoch
    std::int64_t ctime_ns = 0;  ///< status change time, nanoseconds since the epoch
    std::uint64_t inode = 0;
};

struct maildir_listing {
    std::vector<maildir_message> messages;
    std::vector<std::string> problems;  ///< entries that could not be read, and why
};

/// The unique part of a Maildir file name: the name before its info (":2,FLAGS", or ";2,"
/// or "!2,"), which stays when a reader renames the file to change its flags.
MHTML_EXPORT std::string maildir_unique(std::string_view file_name);

/// Whether `folder` is a Maildir: it has cur/ and new/ folders.
MHTML_EXPORT bool is_maildir(const std::filesystem::path& folder);

/// The messages of the Maildir `folder` (regular files of cur/ and new/ whose names do not
/// start with '.'), sorted by name.
MHTML_EXPORT maildir_listing list_maildir(const std::filesystem::path& folder);

}  // namespace mhtml::store
