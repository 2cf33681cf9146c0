// mhtml refs as a user runs it: text and JSON listings, --css, --base with the document's
// <base>, standard input, exit codes, --help.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli_support.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using mhtml::test::run_result;

run_result run(const std::string& args) {
    return mhtml::test::run_cli(args);
}

std::string temp_file(const std::string& name, const std::string& content) {
    return mhtml::test::temp_file(content, "_" + name);
}

const std::string page =
    "<base href=\"sub/\"><img src=\"a&amp;b.png\" srcset=\"x.png 1x, y.png 2x\">"
    "<style>@import \"s.css\";</style><a href=\"../up.html\">u</a>";

TEST(CliRefs, JsonListsEveryReferenceWithOffsetsAndValues) {
    auto file = temp_file("p.html", page);
    auto r = run("refs --json " + file);
    ASSERT_EQ(r.status, 0);
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 6u);
    EXPECT_EQ(j[0]["kind"], "base");
    EXPECT_EQ(j[1]["element"], "img");
    EXPECT_EQ(j[1]["attribute"], "src");
    EXPECT_EQ(j[1]["raw"], "a&amp;b.png");
    EXPECT_EQ(j[1]["url"], "a&b.png");
    EXPECT_EQ(page.substr(j[1]["offset"].get<std::size_t>(), j[1]["length"].get<std::size_t>()),
              "a&amp;b.png");
    EXPECT_EQ(j[3]["url"], "y.png");
    EXPECT_EQ(j[4]["element"], "style");
    EXPECT_EQ(j[5]["kind"], "navigation");
    EXPECT_FALSE(j[0].contains("resolved"));
}

TEST(CliRefs, BaseResolvesThroughTheDocumentBase) {
    auto file = temp_file("b.html", page);
    auto j = nlohmann::json::parse(run("refs --json --base http://e.example/d/ " + file).out);
    EXPECT_EQ(j[0]["resolved"],
              "http://e.example/d/sub/");  // <base> itself: against the given base
    EXPECT_EQ(j[1]["resolved"], "http://e.example/d/sub/a&b.png");
    EXPECT_EQ(j[5]["resolved"], "http://e.example/d/up.html");
    auto k = nlohmann::json::parse(
        run("refs --json --no-document-base --base http://e.example/d/ " + file).out);
    EXPECT_EQ(k[1]["resolved"], "http://e.example/d/a&b.png");
    EXPECT_EQ(run("refs --base relative/ " + file).status, 2);
}

TEST(CliRefs, StyleSheetsByNameOrFlag) {
    std::string css = "@import 'a.css';\nb{background:url(\"b.png\")}";
    auto by_name = run("refs --json " + temp_file("s.css", css));
    auto j = nlohmann::json::parse(by_name.out);
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0]["url"], "a.css");
    EXPECT_EQ(j[1]["syntax"], "css_url_quoted");
    auto by_flag = run("refs --css --json - < " + temp_file("s.txt", css));
    EXPECT_EQ(nlohmann::json::parse(by_flag.out).size(), 2u);
    // Without --css, a .txt file is HTML: no tags, so no references.
    EXPECT_EQ(nlohmann::json::parse(run("refs --json " + temp_file("s2.txt", css)).out).size(), 0u);
}

TEST(CliRefs, TextListing) {
    auto r = run("refs --base http://e.example/ " + temp_file("t.html", "<img src=\"i.png\">"));
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("1 references"), std::string::npos);
    EXPECT_NE(r.out.find("10\tresource\timg@src\ti.png\thttp://e.example/i.png"),
              std::string::npos);
}

TEST(CliRefs, MissingFileAndHelp) {
    EXPECT_EQ(run("refs /nonexistent/x.html").status, 2);
    auto h = run("refs --help");
    EXPECT_EQ(h.status, 0);
    EXPECT_NE(h.out.find("Examples:"), std::string::npos);
}

}  // namespace
