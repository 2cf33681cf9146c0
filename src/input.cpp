#include "mhtml/input.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

namespace mhtml {

input_buffer::input_buffer(input_buffer&& o) noexcept {
    *this = std::move(o);
}

input_buffer& input_buffer::operator=(input_buffer&& o) noexcept {
    if (this == &o) return *this;
    release();
    mapped_ = o.mapped_;
    size_ = o.size_;
    owned_ = std::move(o.owned_);
    data_ = mapped_ ? o.data_ : (owned_.empty() ? "" : owned_.data());
    first_ = o.first_;
    count_ = o.count_;
    o.data_ = "";
    o.size_ = 0;
    o.mapped_ = false;
    o.owned_.clear();
    o.first_ = 0;
    o.count_ = npos_;
    return *this;
}

void input_buffer::narrow(std::size_t offset, std::size_t size) noexcept {
    const std::size_t visible = this->size();
    offset = std::min(offset, visible);
    first_ += offset;
    count_ = std::min(size, visible - offset);
}

input_buffer::~input_buffer() {
    release();
}

void input_buffer::release() noexcept {
    if (mapped_ && size_ > 0) ::munmap(const_cast<char*>(data_), size_);
    mapped_ = false;
    data_ = "";
    size_ = 0;
    first_ = 0;
    count_ = npos_;
    owned_.clear();
}

input_buffer input_buffer::from_string(std::string bytes) {
    input_buffer b;
    b.owned_ = std::move(bytes);
    // Views point into these bytes and must survive moves of the buffer: a string short
    // enough to live inside the object (small-string optimisation) would move with it, so
    // make sure the bytes are on the heap.
    if (b.owned_.capacity() < 64) b.owned_.reserve(64);
    b.data_ = b.owned_.data();
    b.size_ = b.owned_.size();
    return b;
}

input_buffer input_buffer::read_fd(int fd, std::error_code& ec) {
    std::string s;
    std::size_t cap = 1 << 16;
    for (;;) {
        std::size_t old = s.size();
        s.resize(old + cap);
        ssize_t n = ::read(fd, s.data() + old, cap);
        if (n < 0) {
            if (errno == EINTR) {
                s.resize(old);
                continue;
            }
            ec = std::error_code(errno, std::generic_category());
            return {};
        }
        s.resize(old + static_cast<std::size_t>(n));
        if (n == 0) break;
        if (cap < (std::size_t(1) << 24)) cap *= 2;
    }
    ec.clear();
    return from_string(std::move(s));
}

input_buffer input_buffer::open(const std::string& path, std::error_code& ec) {
    ec.clear();
    if (path == "-") return read_fd(0, ec);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ec = std::error_code(errno, std::generic_category());
        return {};
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ec = std::error_code(errno, std::generic_category());
        ::close(fd);
        return {};
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        ec = std::make_error_code(std::errc::is_a_directory);
        return {};
    }
    if (!S_ISREG(st.st_mode)) {  // a pipe or device: read it
        input_buffer b = read_fd(fd, ec);
        ::close(fd);
        return b;
    }
    input_buffer b;
    if (st.st_size == 0) {
        ::close(fd);
        ec.clear();
        return b;
    }
    auto size = static_cast<std::size_t>(st.st_size);
    // Lazy mapping with MADV_SEQUENTIAL: the kernel maps ahead on each fault (measured: no
    // faster with MAP_POPULATE, which would also block on an 8 GB file before any output).
    // Not read into memory: on a virtual machine of the project's kind (Linux 6.18), the first
    // touch of fresh anonymous memory is what costs most (0.06 to 0.7 s for 305 MB read into
    // huge pages, 0.009 s to map the same file from the page cache; docs/PERFORMANCE.md,
    // "Repair", Run 17).
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    ::close(fd);
    if (p == MAP_FAILED) {
        ec = std::error_code(err, std::generic_category());
        return {};
    }
    ::madvise(p, size, MADV_SEQUENTIAL);
    b.data_ = static_cast<const char*>(p);
    b.size_ = size;
    b.mapped_ = true;
    ec.clear();
    return b;
}

}  // namespace mhtml
