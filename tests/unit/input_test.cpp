// input_buffer: regular files mapped, pipes and standard input read; the octets are the file's.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mhtml/input.hpp"

namespace {

namespace fs = std::filesystem;
using mhtml::input_buffer;

std::string file_of(std::size_t size, unsigned seed) {
    std::string s(size, '\0');
    for (std::size_t i = 0; i < size; ++i) s[i] = static_cast<char>((i * 131 + seed) >> 3);
    return s;
}

fs::path write_temp(const std::string& bytes, int n) {
    const fs::path p = fs::temp_directory_path() /
                       ("mhtml_input_test_" + std::to_string(::getpid()) + "_" + std::to_string(n));
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
}

TEST(InputBuffer, MappedFileGivesItsOctets) {
    // One octet, less than a page, and sizes that are no multiple of a page.
    int n = 0;
    for (const std::size_t size : {std::size_t{1}, std::size_t{5000}, (std::size_t{4} << 20) - 1,
                                   (std::size_t{6} << 20) + 12345}) {
        const std::string bytes = file_of(size, static_cast<unsigned>(size));
        const fs::path p = write_temp(bytes, n++);
        std::error_code ec = std::make_error_code(std::errc::io_error);  // cleared by open
        input_buffer in = input_buffer::open(p.string(), ec);
        ASSERT_FALSE(ec) << size;
        EXPECT_EQ(in.bytes(), bytes) << size;
        EXPECT_TRUE(in.is_mapped()) << size;
        // Moved, the octets stay where they are.
        const char* at = in.data();
        input_buffer moved = std::move(in);
        EXPECT_EQ(moved.data(), at);
        EXPECT_EQ(moved.bytes(), bytes);
        moved.narrow(1, 3);
        EXPECT_EQ(moved.bytes(), bytes.substr(1, 3));
        fs::remove(p);
    }
}

// An empty file: nothing to map (a mapping of zero octets is an error), an empty buffer.
TEST(InputBuffer, EmptyFileIsAnEmptyBuffer) {
    const fs::path p = write_temp("", 200);
    std::error_code ec = std::make_error_code(std::errc::io_error);
    const input_buffer in = input_buffer::open(p.string(), ec);
    EXPECT_FALSE(ec);
    EXPECT_FALSE(in.is_mapped());
    EXPECT_EQ(in.size(), 0u);
    EXPECT_TRUE(in.bytes().empty());
    fs::remove(p);
}

// A pipe is read whole, not mapped.
TEST(InputBuffer, PipeIsReadWhole) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const std::string bytes = file_of(3000, 7);
    ASSERT_EQ(::write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    ::close(fds[1]);
    std::error_code ec = std::make_error_code(std::errc::io_error);
    const input_buffer in = input_buffer::open("/dev/fd/" + std::to_string(fds[0]), ec);
    ::close(fds[0]);
    ASSERT_FALSE(ec);
    EXPECT_FALSE(in.is_mapped());
    EXPECT_EQ(in.bytes(), bytes);
}

// Many large documents held at once (a list of files): all mapped and all read right, twice
// over (the first round's mappings released before the second).
TEST(InputBuffer, ManyLargeInputsHeldAtOnce) {
    const std::string bytes = file_of((std::size_t{5} << 20) + 7, 3);
    const fs::path p = write_temp(bytes, 100);
    for (int round = 0; round < 2; ++round) {
        std::vector<input_buffer> held;
        for (int i = 0; i < 40; ++i) {
            std::error_code ec;
            held.push_back(input_buffer::open(p.string(), ec));
            ASSERT_FALSE(ec);
            EXPECT_TRUE(held.back().is_mapped());
        }
        for (const input_buffer& in : held) EXPECT_EQ(in.bytes(), bytes);
    }
    fs::remove(p);
}

}  // namespace
