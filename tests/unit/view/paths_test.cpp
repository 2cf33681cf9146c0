// File names for extracted parts (view/paths.hpp): safe on every platform whatever the
// archive says, distinct ignoring case, extensions agreeing with the content type.
#include "mhtml/view/paths.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace mhtml::view {
namespace {

bool safe_path(const std::string& p) {
    if (p.empty() || p.front() == '/' || p.size() > 240) return false;
    std::size_t i = 0;
    while (i <= p.size()) {
        std::size_t j = std::min(p.find('/', i), p.size());
        std::string seg = p.substr(i, j - i);
        if (seg.empty() || seg == "." || seg == ".." || seg.front() == '.' || seg.size() > 80)
            return false;
        for (unsigned char c : seg)
            if (!(std::isalnum(c) || std::string_view("-_.~+=,@").find(static_cast<char>(c)) !=
                                         std::string_view::npos))
                return false;
        i = j + 1;
    }
    return true;
}

TEST(ViewPaths, ExtensionsFollowTheContentType) {
    EXPECT_EQ(extension_for("image/jpeg"), ".jpg");
    EXPECT_EQ(extension_for("Text/HTML; charset=utf-8"), ".html");
    EXPECT_EQ(extension_for("application/x-unknown"), "");
    EXPECT_TRUE(extension_fits(".JPEG", "image/jpeg"));
    EXPECT_TRUE(extension_fits(".htm", "text/html"));
    EXPECT_FALSE(extension_fits(".php", "text/html"));
    EXPECT_FALSE(extension_fits("", "text/css"));
}

TEST(ViewPaths, SegmentsAreMadeSafe) {
    EXPECT_EQ(safe_segment(".."), "_");
    EXPECT_EQ(safe_segment("."), "_");
    EXPECT_EQ(safe_segment(""), "_");
    EXPECT_EQ(safe_segment(".htaccess"), "_htaccess");
    EXPECT_EQ(safe_segment("C:"), "C_");
    EXPECT_EQ(safe_segment("a\\b"), "a_b");
    EXPECT_EQ(safe_segment(std::string("a\0b", 3)), "a_b");
    EXPECT_EQ(safe_segment("a\r\nb\x7f"), "a__b_");
    EXPECT_EQ(safe_segment("caf\xC3\xA9 x.png"), "caf___x.png");
    EXPECT_EQ(safe_segment("name..."), "name");
    EXPECT_EQ(safe_segment("name. . "), "name._._");  // spaces become _, so no dot ends it
    EXPECT_EQ(safe_segment("CON"), "_CON");
    EXPECT_EQ(safe_segment("aux.png"), "_aux.png");
    EXPECT_EQ(safe_segment("lpt9"), "_lpt9");
    std::string longest = safe_segment(std::string(300, 'a') + ".png");
    EXPECT_EQ(longest.size(), 80u);
    EXPECT_TRUE(longest.ends_with(".png"));
    EXPECT_NE(safe_segment(std::string(300, 'a') + "1.png"), longest);  // the hash keeps them apart
}

TEST(ViewPaths, UrlsBecomeHostAndPath) {
    path_planner p;
    EXPECT_EQ(p.add("http://Example.COM:8080/img/logo.png", "image/png", "x"),
              "example.com_8080/img/logo.png");
    EXPECT_EQ(p.add("https://example.com/", "text/html", "x"), "example.com/index.html");
    EXPECT_EQ(p.add("https://example.com/dir/", "text/html", "x"), "example.com/dir/index.html");
    EXPECT_EQ(p.add("https://example.com/page.php", "text/html", "x"), "example.com/page.php.html");
    EXPECT_EQ(p.add("https://example.com/photo", "image/jpeg", "x"), "example.com/photo.jpg");
    EXPECT_EQ(p.add("https://example.com/a%20b.gif", "image/gif", "x"), "example.com/a_b.gif");
    EXPECT_EQ(p.add("cid:img1@example.com", "image/png", "x"), "cid/img1@example.com.png");
    EXPECT_EQ(p.add("thismessage:/images/a.gif", "image/gif", "x"), "images/a.gif");
    EXPECT_EQ(p.add("", "image/gif", "part-3"), "parts/part-3.gif");
    // A query keeps siblings apart, and the same URL twice gets a number.
    std::string a = p.add("https://fonts.example/css?family=A", "text/css", "x");
    std::string b = p.add("https://fonts.example/css?family=B", "text/css", "x");
    EXPECT_NE(a, b);
    EXPECT_TRUE(a.starts_with("fonts.example/css_") && a.ends_with(".css")) << a;
    EXPECT_EQ(p.add("https://fonts.example/css?family=A", "text/css", "x"),
              a.substr(0, a.size() - 4) + "-2.css");
}

TEST(ViewPaths, HostileLabelsStayInsideAndSayWhy) {
    path_planner p;
    const char* hostile[] = {
        "http://x/../../../etc/passwd",
        "http://x/%2e%2e/%2E%2E/evil.html",
        "http://x/a%2Fb%5Cc",
        "file:///etc/passwd",
        "file://C:/Windows/evil.dll",
        "thismessage:/../../outside.gif",
        "thismessage:/C:%5Cboot.ini",
        "http://x/CON",
        "http://x/nul.txt",
        "http://x/%00hidden%0Aname",
        "http://x/.ssh/authorized_keys",
        "http://x/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q.png",
    };
    std::set<std::string> seen;
    for (const char* h : hostile) {
        SCOPED_TRACE(h);
        std::string why;
        std::string path = p.add(h, "text/plain", "x", &why);
        EXPECT_TRUE(safe_path(path)) << path;
        EXPECT_TRUE(seen.insert(path).second);
        EXPECT_EQ(path.find(".."), std::string::npos);
    }
    std::string why;
    p.add("http://y/../../etc/passwd", "text/plain", "x", &why);
    EXPECT_NE(why.find("'..' segments dropped"), std::string::npos) << why;
    why.clear();
    p.add("http://y/CON", "text/plain", "x", &why);
    EXPECT_NE(why.find("device name"), std::string::npos) << why;
    why.clear();
    std::string deep =
        p.add(std::string("http://y/") + std::string(400, 'd') + "/x", "text/plain", "x", &why);
    EXPECT_TRUE(safe_path(deep)) << deep;
    EXPECT_NE(why.find("longer than 80"), std::string::npos) << why;
}

TEST(ViewPaths, NamesDifferIgnoringCaseAndNoFileIsAFolder) {
    path_planner p;
    EXPECT_EQ(p.add("http://x/A.png", "image/png", "x"), "x/A.png");
    std::string why;
    EXPECT_EQ(p.add("http://x/a.png", "image/png", "x", &why), "x/a-2.png");
    EXPECT_NE(why.find("was taken"), std::string::npos);
    EXPECT_EQ(p.add("http://X/a.PNG", "image/png", "x"), "x/a-3.PNG");
    // A file where a folder is wanted, and a folder where a file is wanted.
    EXPECT_EQ(p.add("http://x/a.html", "text/html", "x"), "x/a.html");
    EXPECT_EQ(p.add("http://x/a.html/b.png", "image/png", "x"), "x/a.html-2/b.png");
    EXPECT_EQ(p.add("http://x/d/e.png", "image/png", "x"), "x/d/e.png");
    EXPECT_EQ(p.add("http://x/d", "application/octet-stream", "x"), "x/d-2");
    EXPECT_TRUE(p.reserve("index.html"));
    EXPECT_FALSE(p.reserve("INDEX.html"));
    EXPECT_FALSE(p.reserve("../x"));
}

TEST(ViewPaths, NumberingKeepsLongNamesWithinTheLimit) {
    // Found by fuzz_view: a name of exactly 80 octets that clashes got "-2" appended.
    path_planner p;
    const std::string name(80, 'n');
    std::string first = p.add("http://x/" + name, "application/octet-stream", "x");
    std::string second = p.add("http://x/" + name, "application/octet-stream", "x");
    EXPECT_NE(first, second);
    EXPECT_TRUE(safe_path(first)) << first;
    EXPECT_TRUE(safe_path(second)) << second;
    const std::string dotted = "a." + std::string(70, 'e');  // an "extension" too long to keep
    EXPECT_TRUE(safe_path(p.add("http://x/" + dotted, "", "x")));
    EXPECT_TRUE(safe_path(p.add("http://x/" + dotted, "", "x")));
}

TEST(ViewPaths, RelativeUrlsBetweenFiles) {
    EXPECT_EQ(relative_url("index.html", "x.example/a.png"), "x.example/a.png");
    EXPECT_EQ(relative_url("x.example/css/s.css", "x.example/img/a.png"), "../img/a.png");
    EXPECT_EQ(relative_url("x.example/css/s.css", "x.example/css/t.css"), "t.css");
    EXPECT_EQ(relative_url("a/b/c.html", "index.html"), "../../index.html");
    EXPECT_EQ(relative_url("index.html", "index.html"), "index.html");
}

}  // namespace
}  // namespace mhtml::view
