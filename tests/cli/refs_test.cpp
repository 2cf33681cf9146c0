// mhtml refs as a user runs it: text and JSON listings, --css, --base with the document's
// <base>, standard input, exit codes, --help.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

struct run_result {
    int status;
    std::string out;
};

run_result run(const std::string& args) {
    std::string cmd = MHTML_CLI_PATH;
    cmd += ' ';
    cmd += args;
    cmd += " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    int st = pclose(p);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

std::string temp_file(const std::string& name, const std::string& content) {
    auto p = std::filesystem::temp_directory_path() / ("mhtml_refs_test_" + std::to_string(::getpid()) + "_" + name);
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
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
    EXPECT_EQ(page.substr(j[1]["offset"].get<std::size_t>(), j[1]["length"].get<std::size_t>()), "a&amp;b.png");
    EXPECT_EQ(j[3]["url"], "y.png");
    EXPECT_EQ(j[4]["element"], "style");
    EXPECT_EQ(j[5]["kind"], "navigation");
    EXPECT_FALSE(j[0].contains("resolved"));
}

TEST(CliRefs, BaseResolvesThroughTheDocumentBase) {
    auto file = temp_file("b.html", page);
    auto j = nlohmann::json::parse(run("refs --json --base http://e.example/d/ " + file).out);
    EXPECT_EQ(j[0]["resolved"], "http://e.example/d/sub/");  // <base> itself: against the given base
    EXPECT_EQ(j[1]["resolved"], "http://e.example/d/sub/a&b.png");
    EXPECT_EQ(j[5]["resolved"], "http://e.example/d/up.html");
    auto k = nlohmann::json::parse(run("refs --json --no-document-base --base http://e.example/d/ " + file).out);
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
    EXPECT_NE(r.out.find("10\tresource\timg@src\ti.png\thttp://e.example/i.png"), std::string::npos);
}

TEST(CliRefs, MissingFileAndHelp) {
    EXPECT_EQ(run("refs /nonexistent/x.html").status, 2);
    auto h = run("refs --help");
    EXPECT_EQ(h.status, 0);
    EXPECT_NE(h.out.find("Examples:"), std::string::npos);
}

}  // namespace
