#pragma once
/// Input buffers: one contiguous, read-only block of bytes that parsed views point into.
/// A regular file is memory-mapped (inputs over 4 GiB work on 64-bit systems; its pages stay
/// the page cache's, which the kernel can reclaim): as with any mapping, a file that another
/// program cuts while the buffer lives makes reading past its new end fault (SIGBUS); read it
/// into a string (from_string) where that can happen. Pipes, devices, standard input and
/// in-memory data are held in an owned buffer.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "mhtml/export.hpp"

namespace mhtml {

/// Owns the bytes of one input. Move-only; views into data() stay valid while it lives.
class MHTML_EXPORT input_buffer {
public:
    input_buffer() noexcept = default;
    input_buffer(input_buffer&&) noexcept;
    input_buffer& operator=(input_buffer&&) noexcept;
    input_buffer(const input_buffer&) = delete;
    input_buffer& operator=(const input_buffer&) = delete;
    ~input_buffer();

    /// Takes ownership of a string's bytes.
    static input_buffer from_string(std::string bytes);
    /// Memory-maps a regular file; reads a pipe or device, and "-" (standard input), whole.
    /// Errors: open/stat/mmap/read.
    static input_buffer open(const std::string& path, std::error_code& ec);
    /// Reads a whole stream-like file descriptor (a pipe, standard input) into memory.
    static input_buffer read_fd(int fd, std::error_code& ec);

    std::string_view bytes() const noexcept { return {data(), size()}; }
    const char* data() const noexcept { return data_ + first_; }
    std::size_t size() const noexcept { return count_ == npos_ ? size_ - first_ : count_; }
    /// The file is mapped (not read into memory).
    bool is_mapped() const noexcept { return mapped_; }
    /// Keeps only the octets [offset, offset + size) of what is visible now (clamped to it),
    /// without a copy: the mapping or string stays whole until the buffer is released (one
    /// message of a mailbox read in place).
    void narrow(std::size_t offset, std::size_t size) noexcept;

private:
    static constexpr std::size_t npos_ = static_cast<std::size_t>(-1);
    void release() noexcept;
    const char* data_ = "";
    std::size_t size_ = 0;
    std::size_t first_ = 0, count_ = npos_;  // the visible window (npos_: to the end)
    bool mapped_ = false;
    std::string owned_;
};

}  // namespace mhtml
