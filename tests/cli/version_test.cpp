// mhtml --version prints the version of project() in CMakeLists.txt (through mhtml::version());
// what the tool loads when it starts.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "cli/cli_support.hpp"
#include "mhtml/version.hpp"

namespace {

TEST(CliVersion, PrintsTheProjectVersion) {
    auto r = mhtml::test::run_cli("--version");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string("mhtml ") + MHTML_VERSION_STRING + "\n");
}

// libcurl (and the 25 libraries it brings) is loaded when a command first fetches
// (src/net/lazy_curl.hpp), not when the tool starts: the dynamic loader, asked to say which
// libraries it loads, names none of them for a command that does not fetch. (The fetching
// commands' tests, fetch_external_cli_test.cpp and pack_cli_test.cpp, show it loads then.)
TEST(CliVersion, LibcurlIsNotLoadedAtStartUp) {
    const std::string cmd = std::string("LD_DEBUG=libs ") + MHTML_CLI_PATH + " --version 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    ASSERT_EQ(pclose(p), 0);
    ASSERT_NE(out.find("libc.so"), std::string::npos) << out;  // LD_DEBUG is honoured
    EXPECT_EQ(out.find("libcurl"), std::string::npos) << out;
}

}  // namespace
