#pragma once
// The -o of pack, repair, fetch-external and inline, as they take it.

#include <sys/stat.h>

#include <string>

namespace mhtml::cli {

/// "-" when `out` names the file standard output already writes to (`/dev/stdout`, a link to
/// it, the file or pipe the shell sent standard output to): the output then goes there as with
/// `-o -`, whole once it is done, and the report to standard error, not into the same stream.
/// Anything else as it is.
inline std::string output_name(const std::string& out) {
    if (out == "-") return out;
    struct stat named {
    }, standard{};
    if (::stat(out.c_str(), &named) == 0 && ::fstat(1, &standard) == 0 &&
        named.st_dev == standard.st_dev && named.st_ino == standard.st_ino)
        return "-";
    return out;
}

}  // namespace mhtml::cli
