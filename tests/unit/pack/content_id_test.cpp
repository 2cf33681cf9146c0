#include "mhtml/pack/content_id.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <regex>
#include <set>
#include <string>

namespace {

// MHT-8.3.3 / CID-5 / CID-12 / THTML-9.3.3: 10,000 generated IDs are distinct and contain
// no host name or user name.
TEST(ContentId, MHT_8_3_3_TenThousandIdsAreDistinctAndRevealNothing) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::string user = ::getenv("USER") ? ::getenv("USER") : "";
    std::set<std::string> seen;
    for (int i = 0; i < 10000; ++i) {
        auto id = mhtml::pack::make_content_id();
        EXPECT_TRUE(seen.insert(id).second) << id;
        if (std::string(host).size() >= 3) {
            EXPECT_EQ(id.find(host), std::string::npos);
        }
        if (user.size() >= 3) {
            EXPECT_EQ(id.find(user), std::string::npos);
        }
    }
    EXPECT_EQ(seen.size(), 10000u);
}

// CID-15: the generated form, with the default and a configured domain.
TEST(ContentId, CID_15_GeneratedIdForm) {
    std::regex form("^[0-9a-z]{26}@mhtml\\.invalid$");
    for (int i = 0; i < 100; ++i)
        EXPECT_TRUE(std::regex_match(mhtml::pack::make_content_id(), form));
    auto id = mhtml::pack::make_content_id("example.org");
    EXPECT_TRUE(std::regex_match(id, std::regex("^[0-9a-z]{26}@example\\.org$"))) << id;
}

}  // namespace
