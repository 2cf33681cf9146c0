// mhtml --version prints the version of project() in CMakeLists.txt (through mhtml::version()).
#include <gtest/gtest.h>

#include "cli/cli_support.hpp"
#include "mhtml/version.hpp"

namespace {

TEST(CliVersion, PrintsTheProjectVersion) {
    auto r = mhtml::test::run_cli("--version");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string("mhtml ") + MHTML_VERSION_STRING + "\n");
}

}  // namespace
