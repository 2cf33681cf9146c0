#pragma once
// Where a file output (pack::file_sink, view's output_file) is written, and how.

#include <filesystem>

namespace mhtml::detail {

struct output_target_t {
    std::filesystem::path path;  ///< the file to replace (through links), or to open
    /// Open `path` and write into it (truncated) instead of renaming a temporary file over
    /// it: a device, a pipe or a socket (renamed over, it would become a file), or a name
    /// that leads through /proc or /dev/fd (`/dev/stdout`: an open descriptor's file, which a
    /// rename would not reach).
    bool direct = false;
};

/// `path`, or, when it is a symbolic link, the file it leads to (links followed up to 40
/// times, a relative one from its own folder; that file may not exist yet), so that a
/// temporary file renamed into place replaces that file and the link stays a link, as
/// writing through the link would (`> link` in a shell).
output_target_t output_target(const std::filesystem::path& path);

}  // namespace mhtml::detail
