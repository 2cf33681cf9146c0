#include "output_files.hpp"

#include "output_target.hpp"
#include "text_cat.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include <system_error>
#include <vector>

namespace mhtml::view::detail {

namespace fs = std::filesystem;
using mhtml::detail::cat;

namespace {

std::string why(int err) {
    return std::generic_category().message(err);
}

// A path for a temporary file or folder beside `target`, as mkstemp/mkdtemp templates.
std::string temp_template(const fs::path& target) {
    fs::path parent = target.parent_path();
    if (parent.empty()) parent = ".";
    std::string name = ".";
    name += target.filename().string();
    name += ".mhtml-XXXXXX";
    return (parent / name).string();
}

bool safe_relative(std::string_view rel) {
    if (rel.empty() || rel.front() == '/' || rel.back() == '/') return false;
    std::size_t i = 0;
    while (i <= rel.size()) {
        std::size_t j = std::min(rel.find('/', i), rel.size());
        std::string_view seg = rel.substr(i, j - i);
        if (seg.empty() || seg == "." || seg == "..") return false;
        i = j + 1;
    }
    for (char c : rel)
        if (c == '\\' || c == '\0' || c == ':') return false;
    return true;
}

bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

}  // namespace

output_folder::~output_folder() {
    if (!temp_.empty() && !committed_) {
        std::error_code ec;
        fs::remove_all(temp_, ec);  // remove_all does not follow links
    }
}

bool output_folder::open(const fs::path& dir, bool force, std::string& error) {
    target_ = dir.lexically_normal();
    if (!target_.has_filename()) target_ = target_.parent_path();
    if (target_.empty() || target_ == "." || target_ == "..") {
        code_ = "bad_dir";
        error = cat({"'", dir.string(), "' does not name a folder to create"});
        return false;
    }
    std::error_code ec;
    fs::path parent = target_.parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (ec) {
        code_ = "io_error";
        error = cat({"cannot create ", parent.string(), ": ", ec.message()});
        return false;
    }
    fs::file_status st = fs::symlink_status(target_, ec);
    if (fs::is_symlink(st)) {
        code_ = "dir_is_link";
        error = target_.string() +
                " is a symbolic link; refusing to write through it (remove it or choose another "
                "folder)";
        return false;
    }
    if (fs::exists(st)) {
        if (!fs::is_directory(st)) {
            code_ = "not_a_directory";
            error = cat({target_.string(), " exists and is not a folder"});
            return false;
        }
        if (!fs::is_empty(target_, ec) && !force) {
            code_ = "dir_not_empty";
            error = target_.string() +
                    " exists and is not empty; nothing was written (--force replaces it)";
            return false;
        }
        replace_ = true;
    }
    std::string tmpl = temp_template(target_);
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) {
        code_ = "io_error";
        error =
            cat({"cannot create a temporary folder beside ", target_.string(), ": ", why(errno)});
        return false;
    }
    temp_ = buf.data();
    ::chmod(temp_.c_str(), 0755);
    return true;
}

bool output_folder::write(std::string_view relative, std::string_view content, std::string& error) {
    if (!safe_relative(relative)) {
        error = cat({"refusing to write '", relative, "': not a plain relative path"});
        return false;
    }
    std::string path = temp_.string();
    std::size_t i = 0;
    for (std::size_t slash; (slash = relative.find('/', i)) != std::string_view::npos;
         i = slash + 1) {
        path += '/';
        path += relative.substr(i, slash - i);
        if (::mkdir(path.c_str(), 0755) != 0) {
            struct stat s {};
            if (errno != EEXIST || ::lstat(path.c_str(), &s) != 0 || !S_ISDIR(s.st_mode)) {
                error = cat({"cannot create folder ", relative.substr(0, slash), ": ",
                             why(errno == EEXIST ? ENOTDIR : errno)});
                return false;
            }
        }
    }
    path += '/';
    path += relative.substr(i);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        error = cat({"cannot create ", relative, ": ", why(errno)});
        return false;
    }
    bool ok = write_all(fd, content);
    int err = errno;
    if (::close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok) error = cat({"cannot write ", relative, ": ", why(err)});
    return ok;
}

bool output_folder::commit(std::string& error) {
    std::error_code ec;
    if (!replace_) {
        if (::rename(temp_.c_str(), target_.c_str()) != 0) {
            error = cat({"cannot move the result to ", target_.string(), ": ", why(errno)});
            return false;
        }
        committed_ = true;
        return true;
    }
    // Replace the existing folder: move it aside, move ours in, then remove the old one.
    std::string tmpl = temp_template(target_);
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) {
        error =
            cat({"cannot create a temporary folder beside ", target_.string(), ": ", why(errno)});
        return false;
    }
    fs::path old = fs::path(buf.data()) / "old";
    if (::rename(target_.c_str(), old.c_str()) != 0) {
        error = cat({"cannot move the existing ", target_.string(), " aside: ", why(errno)});
        fs::remove_all(buf.data(), ec);
        return false;
    }
    if (::rename(temp_.c_str(), target_.c_str()) != 0) {
        int err = errno;
        ::rename(old.c_str(), target_.c_str());  // put it back
        fs::remove_all(buf.data(), ec);
        error = cat({"cannot move the result to ", target_.string(), ": ", why(err)});
        return false;
    }
    committed_ = true;
    fs::remove_all(buf.data(), ec);
    return true;
}

output_file::~output_file() {
    if (f_) std::fclose(f_);
    if (!temp_.empty() && !committed_) ::unlink(temp_.c_str());
}

bool output_file::open(const fs::path& file, std::string& error) {
    if (file == "-") {
        stdout_ = true;
        f_ = std::tmpfile();
        if (!f_) {
            error = cat({"cannot make a temporary file for standard output: ", why(errno)});
            return false;
        }
        return true;
    }
    // Through a symbolic link, the file it names. A device or a pipe (/dev/null, a named
    // pipe), or an open descriptor's file (/dev/stdout), is written as it is: renamed over, it
    // would be replaced by a file.
    mhtml::detail::output_target_t target = mhtml::detail::output_target(file);
    target_ = std::move(target.path);
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(target_, ec))) {
        error = cat({target_.string(), " is a folder"});
        return false;
    }
    if (target.direct) {
        f_ = std::fopen(target_.c_str(), "wb");
        if (!f_) {
            error = cat({"cannot open ", target_.string(), ": ", why(errno)});
            return false;
        }
        return true;  // temp_ stays empty
    }
    std::string tmpl = temp_template(target_);
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    int fd = ::mkstemp(buf.data());
    if (fd < 0) {
        error = cat({"cannot create a temporary file beside ", target_.string(), ": ", why(errno)});
        return false;
    }
    ::fchmod(fd, 0644);
    temp_ = buf.data();
    f_ = ::fdopen(fd, "wb");
    if (!f_) {
        ::close(fd);
        error = cat({"cannot open ", temp_.string(), ": ", why(errno)});
        return false;
    }
    return true;
}

bool output_file::write(std::string_view data) {
    if (failed_ || !f_) return false;
    if (std::fwrite(data.data(), 1, data.size(), f_) != data.size()) failed_ = true;
    return !failed_;
}

bool output_file::commit(std::string& error) {
    if (!f_) {
        error = "no output open";
        return false;
    }
    if (std::fflush(f_) != 0) failed_ = true;
    if (stdout_) {
        committed_ = true;
        if (!failed_ && std::fseek(f_, 0, SEEK_SET) != 0) failed_ = true;
        std::vector<char> buffer(1 << 20);
        while (!failed_) {
            const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), f_);
            if (n == 0) break;
            if (std::fwrite(buffer.data(), 1, n, stdout) != n) failed_ = true;
        }
        if (std::ferror(f_) || std::fflush(stdout) != 0) failed_ = true;
        std::fclose(f_);
        f_ = nullptr;
        if (failed_) error = "cannot write to standard output";
        return !failed_;
    }
    if (std::fclose(f_) != 0) failed_ = true;
    f_ = nullptr;
    if (failed_) {
        error = cat({"cannot write ", target_.string()});
        return false;
    }
    if (temp_.empty()) {  // a device or a pipe, written directly
        committed_ = true;
        return true;
    }
    if (::rename(temp_.c_str(), target_.c_str()) != 0) {
        error = cat({"cannot move the result to ", target_.string(), ": ", why(errno)});
        return false;
    }
    committed_ = true;
    return true;
}

}  // namespace mhtml::view::detail
