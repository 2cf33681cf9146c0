// The writer's sinks: a string, a file descriptor, a callback, an atomic file (or a device
// or pipe, written directly).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

#include "mhtml/pack/writer.hpp"
#include "output_target.hpp"

namespace mhtml::pack {

sink::~sink() = default;

bool string_sink::write(std::string_view bytes) {
    out_.append(bytes);
    return true;
}

bool string_sink::restart() {
    if (out_.size() > start_) out_.resize(start_);
    return true;
}

namespace {

bool write_all(int fd, std::string_view bytes, std::string& error) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            error = std::string("write: ") + std::generic_category().message(errno);
            return false;
        }
        if (n == 0) {
            error = "write: no progress";
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Cuts the file `fd` writes back to `at` and writes on from there (restart()).
bool cut_back(int fd, off_t at, std::string_view what, std::string& error) {
    if (::ftruncate(fd, at) != 0 || ::lseek(fd, at, SEEK_SET) != at) {
        error = "cannot start " + std::string(what) +
                " over: " + std::generic_category().message(errno);
        return false;
    }
    error.clear();
    return true;
}

}  // namespace

fd_sink::fd_sink(int fd, bool may_restart) noexcept : fd_(fd) {
    if (!may_restart) return;
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) return;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    const off_t at = ::lseek(fd, 0, SEEK_CUR);
    if (at >= 0 && at == st.st_size) start_ = at;
}

bool fd_sink::write(std::string_view bytes) {
    return write_all(fd_, bytes, error_);
}

bool fd_sink::restart() {
    return start_ >= 0 && cut_back(fd_, start_, "the output", error_);
}

bool callback_sink::write(std::string_view bytes) {
    return f_ && f_(bytes);
}

file_sink::file_sink(std::filesystem::path path) {
    // Through a symbolic link, the file it names. A device or a pipe, or an open descriptor's
    // file, is written as it is (renamed over, it would be replaced by a file).
    detail::output_target_t target = detail::output_target(path);
    path_ = std::move(target.path);
    if (target.direct) {
        fd_ = ::open(path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd_ < 0)
            error_ =
                "cannot open " + path_.string() + ": " + std::generic_category().message(errno);
        return;
    }
    std::random_device rd;
    for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
        temp_ = path_;
        temp_ += ".tmp-" + std::to_string(rd()) + std::to_string(rd());
        fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd_ < 0 && errno != EEXIST) break;
    }
    if (fd_ < 0)
        error_ = "cannot create " + temp_.string() + ": " + std::generic_category().message(errno);
}

file_sink::~file_sink() {
    if (fd_ >= 0) {
        ::close(fd_);
        if (!temp_.empty()) ::unlink(temp_.c_str());
    }
}

bool file_sink::write(std::string_view bytes) {
    if (fd_ < 0) return false;
    return write_all(fd_, bytes, error_);
}

bool file_sink::restart() {
    return restartable() && cut_back(fd_, 0, temp_.string(), error_);
}

bool file_sink::commit() {
    if (fd_ < 0) return false;
    if (temp_.empty()) {  // a device or a pipe: nothing to sync or rename
        const bool closed = ::close(fd_) == 0;
        fd_ = -1;
        if (!closed)
            error_ =
                "cannot write " + path_.string() + ": " + std::generic_category().message(errno);
        return closed;
    }
    const bool synced = ::fsync(fd_) == 0;
    const int saved = errno;
    const bool closed = ::close(fd_) == 0;
    fd_ = -1;
    if (!synced || !closed) {
        error_ = std::string("cannot write ") + temp_.string() + ": " +
                 std::generic_category().message(synced ? errno : saved);
        ::unlink(temp_.c_str());
        return false;
    }
    if (::rename(temp_.c_str(), path_.c_str()) != 0) {
        error_ =
            "cannot rename to " + path_.string() + ": " + std::generic_category().message(errno);
        ::unlink(temp_.c_str());
        return false;
    }
    return true;
}

}  // namespace mhtml::pack
