#include "mhtml/input.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace mhtml {

namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;

// Whether the kernel gives transparent huge pages to a region that asks (madvise(2)
// MADV_HUGEPAGE): "always" or "madvise" in /sys/kernel/mm/transparent_hugepage/enabled.
bool huge_pages_on_request() {
    static const bool on = [] {
        std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
        if (!f) return false;
        char line[128] = {};
        const bool read = std::fgets(line, sizeof line, f) != nullptr;
        std::fclose(f);
        return read && (std::strstr(line, "[always]") || std::strstr(line, "[madvise]"));
    }();
    return on;
}

// The most octets of inputs one process holds read into memory (read_huge) at once: an eighth
// of its memory, the machine's or its cgroup's (cgroup v2 memory.max) if lower. Beyond that
// (several large inputs held at once, as batch's workers and ls FOLDER hold them), files are
// mapped: their pages stay the page cache's, which the kernel can reclaim.
std::size_t huge_read_limit() {
    static const std::size_t limit = [] {
        const long pages = ::sysconf(_SC_PHYS_PAGES);
        const long page = ::sysconf(_SC_PAGESIZE);
        if (pages <= 0 || page <= 0) return std::size_t{0};
        std::uint64_t memory = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
        // "0::/PATH" in /proc/self/cgroup: the process's cgroup (v2).
        std::string group;
        if (std::FILE* f = std::fopen("/proc/self/cgroup", "re")) {
            char line[4096];
            while (std::fgets(line, sizeof line, f))
                if (std::strncmp(line, "0::", 3) == 0) {
                    group = line + 3;
                    while (!group.empty() && (group.back() == '\n' || group.back() == '\r'))
                        group.pop_back();
                }
            std::fclose(f);
        }
        if (std::FILE* f = std::fopen(("/sys/fs/cgroup" + group + "/memory.max").c_str(), "re")) {
            unsigned long long max = 0;
            if (std::fscanf(f, "%llu", &max) == 1 && max > 0 && max < memory) memory = max;
            std::fclose(f);  // "max": no limit (fscanf reads no number)
        }
        return static_cast<std::size_t>(memory / 8);
    }();
    return limit;
}

std::atomic<std::size_t> huge_read_bytes{0};  // held by live input_buffers now

// Takes `size` octets (the region for a file of `file_size`) of the budget for a read into
// huge pages, if the file is worth it (from 4 MiB: below, a mapping costs little) and they
// fit; false: map it. Measured on a virtual
// machine of the project's kind (docs/PERFORMANCE.md, "Repair"): the first touch of each
// 4 KiB page of a mapping costs about 2 us there, so a scan of a 305 MB mapped file took
// 0.15 s, and the same file read into huge pages 0.05 s, then scanned in 0.015 s.
bool take_huge_read(std::size_t file_size, std::size_t size) {
    if (file_size < (std::size_t{4} << 20) || !huge_pages_on_request()) return false;
    const std::size_t limit = huge_read_limit();
    std::size_t held = huge_read_bytes.load(std::memory_order_relaxed);
    do {
        if (size > limit || held > limit - size) return false;
    } while (!huge_read_bytes.compare_exchange_weak(held, held + size, std::memory_order_relaxed));
    return true;
}

void give_back_huge_read(std::size_t size) {
    huge_read_bytes.fetch_sub(size, std::memory_order_relaxed);
}

}  // namespace

input_buffer::input_buffer(input_buffer&& o) noexcept {
    *this = std::move(o);
}

input_buffer& input_buffer::operator=(input_buffer&& o) noexcept {
    if (this == &o) return *this;
    release();
    mapped_ = o.mapped_;
    region_ = o.region_;
    region_size_ = o.region_size_;
    size_ = o.size_;
    owned_ = std::move(o.owned_);
    data_ = mapped_ || region_ ? o.data_ : (owned_.empty() ? "" : owned_.data());
    first_ = o.first_;
    count_ = o.count_;
    o.data_ = "";
    o.size_ = 0;
    o.mapped_ = false;
    o.region_ = nullptr;
    o.region_size_ = 0;
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
    if (region_) {
        ::munmap(region_, region_size_);
        give_back_huge_read(region_size_);
    }
    mapped_ = false;
    region_ = nullptr;
    region_size_ = 0;
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

namespace {

// Reads [0, size) of `fd` into `to` in chunks of 16 MiB taken in turn by up to four threads
// (this one among them): copying from the page cache and the first touch of the pages it
// copies into (their zeroing, and on some virtual machines more) are most of the cost of
// reading, and they run on every core at once. What a shorter file (one that shrank meanwhile)
// leaves is cut at its first short chunk.
struct read_result {
    std::size_t got = 0;
    int error = 0;
};

read_result read_chunks(int fd, char* to, std::size_t size) {
    constexpr std::size_t chunk = std::size_t{16} << 20;
    const std::size_t chunks = (size + chunk - 1) / chunk;
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> end{size};  // the first octet not read (a short chunk's end)
    std::atomic<int> error{0};
    const auto work = [&] {
        for (;;) {
            const std::size_t k = next.fetch_add(1, std::memory_order_relaxed);
            if (k >= chunks || error.load(std::memory_order_relaxed)) return;
            const std::size_t from = k * chunk;
            const std::size_t want = std::min(chunk, size - from);
            std::size_t got = 0;
            while (got < want) {
                const ssize_t n =
                    ::pread(fd, to + from + got, want - got, static_cast<off_t>(from + got));
                if (n < 0 && errno == EINTR) continue;
                if (n < 0) {
                    int none = 0;
                    error.compare_exchange_strong(none, errno);
                    return;
                }
                if (n == 0) break;
                got += static_cast<std::size_t>(n);
            }
            if (got < want) {
                std::size_t e = end.load();
                while (from + got < e && !end.compare_exchange_weak(e, from + got)) {
                }
            }
        }
    };
    std::size_t helpers = 0;
    if (chunks > 1) {
        const unsigned cores = std::thread::hardware_concurrency();
        helpers = std::min<std::size_t>({chunks - 1, 3, cores > 1 ? cores - 1 : 0});
    }
    std::vector<std::thread> threads;
    threads.reserve(helpers);
    for (std::size_t i = 0; i < helpers; ++i) {
        try {
            threads.emplace_back(work);
        } catch (const std::exception&) {
            break;  // no thread (or no memory for one) to be had: fewer readers
        }
    }
    work();
    for (std::thread& t : threads) t.join();
    return {end.load(), error.load()};
}

}  // namespace

input_buffer input_buffer::read_huge(int fd, std::size_t size, std::error_code& ec) {
    input_buffer b;
    // A region aligned to a huge page, so that every 2 MiB of it can be one.
    const std::size_t length = (size + huge_page - 1) / huge_page * huge_page;
    // Charged against the memory the kernel commits (no MAP_NORESERVE): where it has none to
    // give, this fails and the file is mapped instead.
    void* raw = ::mmap(nullptr, length + huge_page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        give_back_huge_read(length);
        return b;
    }
    auto* const start = static_cast<char*>(raw);
    char* const aligned = reinterpret_cast<char*>(
        (reinterpret_cast<std::uintptr_t>(start) + huge_page - 1) / huge_page * huge_page);
    // The unaligned ends go back at once.
    if (aligned > start) ::munmap(start, static_cast<std::size_t>(aligned - start));
    if (char* const end = start + length + huge_page; end > aligned + length)
        ::munmap(aligned + length, static_cast<std::size_t>(end - aligned - length));
    ::madvise(aligned, length, MADV_HUGEPAGE);
    b.region_ = aligned;
    b.region_size_ = length;
    b.data_ = aligned;
    const read_result r = read_chunks(fd, aligned, size);
    if (r.error) {
        ec = std::error_code(r.error, std::generic_category());
        return {};
    }
    b.size_ = r.got;
    ec.clear();
    return b;
}

input_buffer input_buffer::open(const std::string& path, std::error_code& ec, read_mode mode) {
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
    const std::size_t length = (size + huge_page - 1) / huge_page * huge_page;
    if (mode == read_mode::automatic && take_huge_read(size, length)) {
        b = read_huge(fd, size, ec);  // gives the budget back when it fails
        if (b.region_ || ec) {
            ::close(fd);
            return b;
        }
        // No memory for it: mapped instead.
    }
    // Lazy mapping with MADV_SEQUENTIAL: the kernel maps ahead on each fault (measured: no
    // faster with MAP_POPULATE, which would also block on an 8 GB file before any output).
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
