// Inputs over 4 GiB (users have 8 GB chat-export archives): offsets and sizes are 64-bit.
// The file is sparse, so it costs page cache but little disk.
#include "mhtml/mime/document.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <filesystem>

namespace mhtml::mime {
namespace {

TEST(LargeInput, PartsBeyondFourGiBAreFoundAndDecoded) {
    const std::uint64_t gap = (std::uint64_t(4) << 30) + 12345;  // 4 GiB + a bit of zeros
    auto path =
        std::filesystem::temp_directory_path() / ("mhtml_large_" + std::to_string(::getpid()));
    std::string head =
        "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: "
        "application/octet-stream\r\n\r\n";
    std::string tail =
        "\r\n--b\r\nContent-Type: text/plain\r\n\r\nafter four gigabytes\r\n--b--\r\n";
    int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, head.data(), head.size(), 0), ssize_t(head.size()));
    ASSERT_EQ(::pwrite(fd, tail.data(), tail.size(), off_t(head.size() + gap)),
              ssize_t(tail.size()));
    ::close(fd);

    std::error_code ec;
    auto in = input_buffer::open(path.string(), ec);
    ASSERT_FALSE(ec) << ec.message();
    ASSERT_EQ(in.size(), head.size() + gap + tail.size());
    auto doc = document::parse(std::move(in));
    std::filesystem::remove(path);  // the mapping stays valid

    ASSERT_EQ(doc.root().child_count(), 2u);
    auto big = *doc.find("1");
    EXPECT_EQ(big.raw_body().size(), gap);
    auto after = *doc.find("2");
    EXPECT_GT(after.offset(), std::uint64_t(4) << 30);
    // Field records count from their header block, so fields past 4 GiB read as any other.
    ASSERT_EQ(after.headers().size(), 1u);
    EXPECT_EQ(after.headers()[0].name(), "Content-Type");
    EXPECT_EQ(after.headers()[0].value(), "text/plain");
    EXPECT_TRUE(after.content_type().is("text", "plain"));
    std::string s;
    after.decode_to(s);
    EXPECT_EQ(s, "after four gigabytes");
    EXPECT_TRUE(doc.diagnostics().empty());
}

}  // namespace
}  // namespace mhtml::mime
