// The messages of a Maildir (include/mhtml/store/maildir.hpp).

#include "mhtml/store/maildir.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace mhtml::store {

std::string maildir_unique(std::string_view name) {
    // UNIQUE:2,FLAGS (or ';' / '!' for ':'): the last such info.
    std::size_t info = std::string_view::npos;
    for (const char sep : {':', ';', '!'}) {
        const char tag[] = {sep, '2', ','};
        const std::size_t at = name.rfind(std::string_view(tag, 3));
        if (at != std::string_view::npos && (info == std::string_view::npos || at > info))
            info = at;
    }
    return std::string(name.substr(0, info));
}

bool is_maildir(const std::filesystem::path& folder) {
    std::error_code ec;
    return std::filesystem::is_directory(folder / "cur", ec) &&
           std::filesystem::is_directory(folder / "new", ec);
}

maildir_listing list_maildir(const std::filesystem::path& folder) {
    maildir_listing out;
    for (const char* sub : {"new", "cur"}) {
        const std::filesystem::path dir = folder / sub;
        std::error_code ec;
        std::filesystem::directory_iterator it(dir, ec);
        if (ec) {
            out.problems.push_back(dir.string() + ": " + ec.message());
            continue;
        }
        for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
            if (ec) {
                out.problems.push_back(dir.string() + ": " + ec.message());
                break;
            }
            std::error_code fe;
            const std::string name = it->path().filename().string();
            if (name.empty() || name.front() == '.') continue;
            if (it->is_symlink(fe) || !it->is_regular_file(fe)) continue;
            maildir_message m;
            m.path = it->path();
            m.is_new = std::string_view(sub) == "new";
            struct stat st {};
            if (::lstat(m.path.c_str(), &st) != 0) {
                out.problems.push_back(m.path.string() + ": " +
                                       std::error_code(errno, std::generic_category()).message());
                continue;
            }
            m.size = static_cast<std::uint64_t>(st.st_size);
            m.mtime_ns =
                static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
            m.ctime_ns =
                static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
            m.inode = static_cast<std::uint64_t>(st.st_ino);
            m.unique = maildir_unique(name);
            if (m.unique.size() < name.size()) m.flags = name.substr(m.unique.size() + 3);
            out.messages.push_back(std::move(m));
        }
    }
    // By file name (compared as strings: path comparison splits every path into elements).
    const auto name = [](const maildir_message& m) {
        const std::string& s = m.path.native();
        return std::string_view(s).substr(s.rfind('/') + 1);
    };
    std::sort(
        out.messages.begin(), out.messages.end(),
        [&](const maildir_message& a, const maildir_message& b) { return name(a) < name(b); });
    return out;
}

}  // namespace mhtml::store
