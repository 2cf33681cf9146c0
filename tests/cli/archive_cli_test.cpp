// The archive view in the CLI: mhtml ls marks roots and shows bases and resolved
// Content-Locations; mhtml refs on an archive resolves every reference; mhtml cat.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_support.hpp"

namespace {

using mhtml::test::run_cli;
using mhtml::test::shell_quote;

std::string corpus(const char* name) {
    return shell_quote(std::string(MHTML_TEST_DATA) + "/corpus/" + name);
}

TEST(CliArchive, LsShowsRootBaseAndResolvedLocation) {
    auto r = run_cli("ls --json " + corpus("jwz__082_mhtml_test_cbase_cloc_mixed.eml"));
    auto j = nlohmann::json::parse(r.out);
    auto& parts = j["parts"];
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0]["root"], false);
    EXPECT_EQ(parts[1]["root"], true);
    EXPECT_EQ(parts[1]["content_location"], "jwz/index.html");
    EXPECT_EQ(parts[1]["resolved_location"], "http://www.netscape.com/people/jwz/index.html");
    EXPECT_EQ(parts[1]["base"],
              "http://www.netscape.com/people/index.html");  // its own Content-Base (5 b)
    EXPECT_TRUE(parts[0]["resolved_location"].is_null());
    auto text = run_cli("ls " + corpus("jwz__082_mhtml_test_cbase_cloc_mixed.eml"));
    EXPECT_NE(text.out.find(" 1*"), std::string::npos);
    EXPECT_NE(text.out.find("resolved=http://www.netscape.com/people/jwz/index.html"),
              std::string::npos);
}

TEST(CliArchive, LsListsRelatedStructuresWithStartInfo_REL_3_3_2) {
    const std::string message =
        "Content-Type: multipart/related; boundary=\"b\";\r\n type=\"application/x-app\"; "
        "start=\"<a@x>\"; start-info=\"<b@x> <none@x>\"\r\n\r\n"
        "--b\r\nContent-Type: application/x-app\r\nContent-ID: <a@x>\r\n\r\nroot\r\n"
        "--b\r\nContent-Type: text/plain\r\nContent-ID: <b@x>\r\n\r\nb\r\n--b--\r\n";
    auto r = mhtml::test::run_cli(std::vector<std::string>{"ls", "--json", "-"}, &message);
    ASSERT_EQ(r.status, 0);
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["related"].size(), 1u);
    const auto& rel = j["related"][0];
    EXPECT_EQ(rel["path"], "");
    EXPECT_EQ(rel["root"], "1");
    EXPECT_EQ(rel["start"], "1");
    EXPECT_EQ(rel["type"], "application/x-app");
    EXPECT_EQ(rel["start_info"]["kind"], "references");
    EXPECT_EQ(rel["start_info"]["value"], "<b@x> <none@x>");
    ASSERT_EQ(rel["start_info"]["references"].size(), 2u);
    EXPECT_EQ(rel["start_info"]["references"][0]["content_id"], "b@x");
    EXPECT_EQ(rel["start_info"]["references"][0]["part"], "2");
    EXPECT_TRUE(rel["start_info"]["references"][1]["part"].is_null());
    EXPECT_TRUE(j["snapshot_location"].is_null());
    // Chromium's Snapshot-Content-Location is the page's URL.
    auto hn = nlohmann::json::parse(run_cli("ls --json " + corpus("testim__hn.mhtml")).out);
    EXPECT_EQ(hn["snapshot_location"], "https://news.ycombinator.com/");
    EXPECT_TRUE(hn["related"][0]["start_info"].is_null());
}

TEST(CliArchive, RefsResolvesEveryReferenceOfAnArchive) {
    auto r = run_cli("refs --json " + corpus("chromium__page_with_css_and_js_ie.mht"));
    ASSERT_EQ(r.status, 0);
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 5u);
    EXPECT_EQ(j[0]["part"], "1");
    EXPECT_EQ(j[0]["kind"], "resource");
    EXPECT_EQ(j[0]["raw"], "http://localhost/resources/hide_image.css");
    EXPECT_EQ(j[0]["resolved"], "http://localhost/resources/hide_image.css");
    EXPECT_EQ(j[0]["target"], "3");
    EXPECT_EQ(j[2]["target"], "2");
    auto text = run_cli("refs " + corpus("chromium__page_with_css_and_js_ie.mht"));
    EXPECT_NE(text.out.find("5 references, 5 to parts, 0 external"), std::string::npos);
    // An external reference has a null target.
    auto hn = nlohmann::json::parse(run_cli("refs --json " + corpus("testim__hn.mhtml")).out);
    bool some_external = false;
    for (auto& x : hn) some_external |= x["target"].is_null() && !x["same_document"].get<bool>();
    EXPECT_TRUE(some_external);
}

TEST(CliArchive, CatByUriAndByPath) {
    auto css = run_cli("cat " + corpus("chromium__page_with_css_and_js_ie.mht") +
                       " http://localhost/resources/hide_image.css");
    EXPECT_EQ(css.status, 0);
    EXPECT_NE(css.out.find("#secondDiv"), std::string::npos);
    auto by_path = run_cli("cat " + corpus("chromium__page_with_css_and_js_ie.mht") + " 3");
    EXPECT_EQ(by_path.out, css.out);
    EXPECT_EQ(
        run_cli("cat " + corpus("chromium__page_with_css_and_js_ie.mht") + " nothere.png").status,
        1);
    EXPECT_EQ(run_cli("cat " + corpus("chromium__page_with_css_and_js_ie.mht") + " 9").status, 1);
    EXPECT_EQ(run_cli("cat " + corpus("chromium__page_with_css_and_js_ie.mht") + " .").status,
              1);  // a multipart
}

// Review finding: check's list of findings is capped by --max-diagnostics like every other
// list; the counts and the exit status still cover all of them.
TEST(CliArchive, CheckListsAtMostMaxDiagnosticsFindings) {
    std::string page;
    for (int i = 0; i < 500; ++i) page += "<img src=\"cid:m" + std::to_string(i) + "@x\">";
    const std::string file = mhtml::test::temp_file(
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"text/html\"; "
        "boundary=B\r\n\r\n--B\r\nContent-Type: text/html; charset=us-ascii\r\n\r\n" +
        page + "\r\n--B--\r\n");
    auto r = run_cli({"check", "--max-diagnostics", "10", file});
    EXPECT_EQ(r.status, 0);  // broken cid: links are warnings
    auto lines = mhtml::test::lines_of(r.out);
    ASSERT_EQ(lines.size(), 12u) << r.out;
    EXPECT_EQ(lines[10].rfind("... 490 more findings not listed", 0), 0u) << lines[10];
    EXPECT_NE(lines[11].find("500 warnings"), std::string::npos) << lines[11];
    auto j = run_cli({"check", "--json", "--max-diagnostics", "10", file});
    EXPECT_NE(j.out.find("\"findings_not_listed\":490"), std::string::npos) << j.out.substr(0, 200);
    std::filesystem::remove(file);
}

}  // namespace
