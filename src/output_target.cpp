#include "output_target.hpp"

#include <sys/stat.h>

#include <string_view>
#include <system_error>

namespace mhtml::detail {

output_target_t output_target(const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    // Where the name leads now: a device, a pipe or a socket is opened, never renamed over.
    if (struct stat st{};
        ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return {path, true};
    fs::path p = path;
    for (int hops = 0; hops < 40; ++hops) {
        std::error_code ec;
        if (!fs::is_symlink(fs::symlink_status(p, ec)) || ec) return {p, false};
        const std::string_view name = p.native();
        if (name.starts_with("/proc/") || name.starts_with("/dev/fd/"))
            return {path, true};  // an open descriptor's file
        fs::path next = fs::read_symlink(p, ec);
        if (ec) return {p, false};
        p = next.is_absolute() ? next : p.parent_path() / next;
    }
    return {path, false};  // a loop: as named (the rename then replaces the link)
}

}  // namespace mhtml::detail
