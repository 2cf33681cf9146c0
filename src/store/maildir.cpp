// The messages of a Maildir (include/mhtml/store/maildir.hpp).

#include "mhtml/store/maildir.hpp"

#include <algorithm>
#include <system_error>

namespace mhtml::store {

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
            m.size = it->file_size(fe);
            if (fe) {
                out.problems.push_back(m.path.string() + ": " + fe.message());
                continue;
            }
            // UNIQUE:2,FLAGS (or ';' / '!' for ':').
            std::size_t info = std::string::npos;
            for (const char sep : {':', ';', '!'}) {
                const std::size_t at = name.rfind(std::string(1, sep) + "2,");
                if (at != std::string::npos && (info == std::string::npos || at > info)) info = at;
            }
            m.unique = name.substr(0, info);
            if (info != std::string::npos) m.flags = name.substr(info + 3);
            out.messages.push_back(std::move(m));
        }
    }
    std::sort(out.messages.begin(), out.messages.end(),
              [](const maildir_message& a, const maildir_message& b) {
                  return a.path.filename() < b.path.filename();
              });
    return out;
}

}  // namespace mhtml::store
