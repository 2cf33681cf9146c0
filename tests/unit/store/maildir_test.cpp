// store::list_maildir: cur/ and new/, flags from file names, in delivery order; tmp/, dot
// files and links left out.
#include "mhtml/store/maildir.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "unit/view/view_support.hpp"

namespace mhtml::store {
namespace {

TEST(Maildir, MessagesOfCurAndNewInNameOrderWithTheirFlags) {
    test::sandbox box;
    const std::filesystem::path md = box / "Mail";
    for (const char* d : {"cur", "new", "tmp"}) std::filesystem::create_directories(md / d);
    test::write_bytes(md / "new" / "1700000000.M1P1.host", "Subject: newer\n\nb\n");
    test::write_bytes(md / "cur" / "1600000000.M2P2.host:2,RS", "Subject: older\n\na\n");
    test::write_bytes(md / "cur" / "1650000000.M3P3.host!2,F", "Subject: bang\n\nc\n");
    test::write_bytes(md / "cur" / ".hidden", "x");
    test::write_bytes(md / "tmp" / "1800000000.M4P4.host", "Subject: in delivery\n\nd\n");
    test::write_bytes(box / "outside", "Subject: elsewhere\n\ne\n");
    std::filesystem::create_symlink(box / "outside", md / "cur" / "1690000000.M5P5.host:2,");
    EXPECT_TRUE(is_maildir(md));
    EXPECT_FALSE(is_maildir(box.path()));
    const maildir_listing l = list_maildir(md);
    EXPECT_TRUE(l.problems.empty());
    ASSERT_EQ(l.messages.size(), 3u);
    EXPECT_EQ(l.messages[0].unique, "1600000000.M2P2.host");
    EXPECT_EQ(l.messages[0].flags, "RS");
    EXPECT_FALSE(l.messages[0].is_new);
    EXPECT_EQ(l.messages[1].unique, "1650000000.M3P3.host");
    EXPECT_EQ(l.messages[1].flags, "F");
    EXPECT_EQ(l.messages[2].unique, "1700000000.M1P1.host");
    EXPECT_TRUE(l.messages[2].is_new);
    EXPECT_EQ(l.messages[2].flags, "");
    EXPECT_EQ(l.messages[2].size, 18u);
}

}  // namespace
}  // namespace mhtml::store
