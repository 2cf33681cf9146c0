#pragma once
// Writing results atomically (internal to src/view): a folder built as a temporary folder
// next to its destination and renamed into place, and a file written as a temporary file
// next to its destination and renamed over it. Until commit() nothing is visible at the
// destination; a destructor without commit() removes what was written.

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace mhtml::view::detail {

class output_folder {
public:
    output_folder() = default;
    output_folder(const output_folder&) = delete;
    output_folder& operator=(const output_folder&) = delete;
    ~output_folder();

    /// Checks `dir` (a symbolic link is refused; an existing non-empty folder unless `force`;
    /// anything else that is not a folder) and makes the temporary folder beside it (its
    /// parent folders are created). On failure `error` says why and error_code() names it.
    bool open(const std::filesystem::path& dir, bool force, std::string& error);
    [[nodiscard]] const std::string& error_code() const noexcept { return code_; }
    /// Writes `relative` ('/'-separated, no '.', '..' or empty segments, no '\', NUL or
    /// ':') with `content`, creating its folders; never follows a link, never overwrites.
    bool write(std::string_view relative, std::string_view content, std::string& error);
    /// Renames the temporary folder to `dir` (replacing an existing one when forced).
    bool commit(std::string& error);

private:
    std::filesystem::path target_, temp_;
    bool replace_ = false, committed_ = false;
    std::string code_;
};

class output_file {
public:
    output_file() = default;
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;
    ~output_file();

    /// A temporary file beside `file`. "-" is standard output: the octets are kept in an
    /// anonymous temporary file (tmpfile(3)) and copied to standard output by commit(), so
    /// that a failure (an output budget passed) writes nothing there either. A symbolic link
    /// is followed (the file it names is replaced; the link stays). A `file` that is a device
    /// or a pipe (/dev/null), or leads through /proc or /dev/fd (/dev/stdout), is written
    /// directly.
    bool open(const std::filesystem::path& file, std::string& error);
    /// Appends; false after a write error (reported by commit()).
    bool write(std::string_view data);
    /// Flushes and renames the temporary file to `file` (or closes the device or pipe).
    bool commit(std::string& error);

private:
    std::filesystem::path target_, temp_;
    std::FILE* f_ = nullptr;
    bool stdout_ = false, failed_ = false, committed_ = false;
};

}  // namespace mhtml::view::detail
