// input_buffer: files mapped, or (documents from 4 MiB, where the kernel has transparent huge
// pages, within a per-process budget) read into memory; the octets are the file's either way.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstring>
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

TEST(InputBuffer, EveryWayOfReadingGivesTheFilesOctets) {
    // Below and above 4 MiB, and not a multiple of a page or of 2 MiB.
    int n = 0;
    for (const std::size_t size : {std::size_t{1}, std::size_t{5000}, (std::size_t{4} << 20) - 1,
                                   (std::size_t{6} << 20) + 12345}) {
        const std::string bytes = file_of(size, static_cast<unsigned>(size));
        const fs::path p = write_temp(bytes, n++);
        for (const auto mode : {input_buffer::read_mode::automatic, input_buffer::read_mode::map}) {
            std::error_code ec = std::make_error_code(std::errc::io_error);  // cleared by open
            input_buffer in = input_buffer::open(p.string(), ec, mode);
            ASSERT_FALSE(ec) << size;
            EXPECT_EQ(in.bytes(), bytes) << size;
            if (mode == input_buffer::read_mode::map || size < (std::size_t{4} << 20)) {
                EXPECT_TRUE(in.is_mapped()) << size;
            }
            // Moved, the octets stay where they are.
            const char* at = in.data();
            input_buffer moved = std::move(in);
            EXPECT_EQ(moved.data(), at);
            EXPECT_EQ(moved.bytes(), bytes);
            moved.narrow(1, 3);
            EXPECT_EQ(moved.bytes(), bytes.substr(1, 3));
        }
        fs::remove(p);
    }
}

// A file read into memory is read in chunks of 16 MiB by several threads: each chunk lands
// where it belongs (every 8 octets here say where they are, so a misplaced chunk shows).
TEST(InputBuffer, FileReadInChunksByThreadsKeepsItsOrder) {
    const std::size_t size = (std::size_t{16} << 20) * 3 + 4321;
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i + 8 <= size; i += 8) {
        const std::uint64_t at = i;
        std::memcpy(bytes.data() + i, &at, 8);
    }
    const fs::path p = write_temp(bytes, 100);
    std::error_code ec;
    const input_buffer in = input_buffer::open(p.string(), ec);
    ASSERT_FALSE(ec);
    ASSERT_EQ(in.size(), size);
    EXPECT_TRUE(in.bytes() == bytes);
    fs::remove(p);
}

// Many large documents held at once (batch's workers, a list of files): each is read into
// memory or mapped, as the per-process budget decides; all read right, twice over (what the
// first round held is given back).
TEST(InputBuffer, ManyLargeInputsHeldAtOnce) {
    const std::string bytes = file_of((std::size_t{5} << 20) + 7, 3);
    const fs::path p = write_temp(bytes, 100);
    for (int round = 0; round < 2; ++round) {
        std::vector<input_buffer> held;
        for (int i = 0; i < 40; ++i) {
            std::error_code ec;
            held.push_back(input_buffer::open(p.string(), ec));
            ASSERT_FALSE(ec);
        }
        for (const input_buffer& in : held) EXPECT_EQ(in.bytes(), bytes);
    }
    fs::remove(p);
}

}  // namespace
