// The version comes from CMake's project() (cmake/version.hpp.in): the headers' macros and
// the library's version() agree, and the tool prints it (tests/cli/version_test.cpp).
#include "mhtml/version.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mhtml {
namespace {

TEST(Version, LibraryAndHeadersAgree) {
    EXPECT_EQ(version(), MHTML_VERSION_STRING);
    EXPECT_EQ(std::string(version()), std::to_string(MHTML_VERSION_MAJOR) + "." +
                                          std::to_string(MHTML_VERSION_MINOR) + "." +
                                          std::to_string(MHTML_VERSION_PATCH));
}

}  // namespace
}  // namespace mhtml
