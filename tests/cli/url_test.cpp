// mhtml url as a user runs it: arguments or '-' for lines on standard input, one result per
// line, --json lines, exit codes, --help with examples.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli_support.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using mhtml::test::run_result;

run_result run(const std::vector<std::string>& args, const std::string* stdin_text = nullptr) {
    return mhtml::test::run_cli(args, stdin_text);
}

std::vector<std::string> lines(const std::string& s) {
    return mhtml::test::lines_of(s);
}

TEST(CliUrl, ResolveArgumentsOnePerLine) {
    auto r = run({"url", "resolve", "http://a/b/c/d;p?q", "../g", "../../../g", "g?y#s"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(lines(r.out),
              (std::vector<std::string>{"http://a/b/g", "http://a/g", "http://a/b/c/g?y#s"}));
}

TEST(CliUrl, ResolveReadsStandardInputLines) {
    std::string in = "a.gif\r\n../b.gif\n#top\n";
    auto r = run({"url", "resolve", "this_message:/d/", "-"}, &in);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(lines(r.out),
              (std::vector<std::string>{"this_message:/d/a.gif", "this_message:/b.gif",
                                        "this_message:/d/#top"}));
}

TEST(CliUrl, ResolveJsonReportsDiagnostics) {
    auto r = run({"url", "resolve", "--json", "thismessage:/", "a b.gif", "#x"});
    EXPECT_EQ(r.status, 0);
    auto l = lines(r.out);
    ASSERT_EQ(l.size(), 2u);
    auto first = nlohmann::json::parse(l[0]);
    EXPECT_EQ(first["output"], "thismessage:/a b.gif");
    EXPECT_EQ(first["fictitious"], true);
    EXPECT_EQ(first["diagnostics"][0]["code"], "uri_invalid_chars");
    EXPECT_EQ(nlohmann::json::parse(l[1])["same_document"], true);
}

TEST(CliUrl, ResolveWhatwgParsesAsABrowserDoes) {
    auto r = run({"url", "resolve", "--whatwg", "HTTP://H.Example:80/d/p", "a b.png", "..\\x",
                  "http://x y/", "q?\xC3\xA9"});
    EXPECT_EQ(r.status, 1);  // the host with a space fails, and its line is empty
    EXPECT_EQ(lines(r.out),
              (std::vector<std::string>{"http://h.example/d/a%20b.png", "http://h.example/x", "",
                                        "http://h.example/d/q?%C3%A9"}));
    EXPECT_EQ(run({"url", "resolve", "--whatwg", "not a url", "x"}).status, 2);
    EXPECT_EQ(run({"url", "resolve", "--whatwg", "--normalize", "http://h/", "x"}).status, 2);
}

TEST(CliUrl, RelativeBaseIsAUsageError) {
    EXPECT_EQ(run({"url", "resolve", "images/", "a.gif"}).status, 2);
}

TEST(CliUrl, CidBothDirections) {
    auto r = run({"url", "cid", "cid:foo4%25foo1@bar.net", "<a/b@example.net>"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(lines(r.out),
              (std::vector<std::string>{"<foo4%foo1@bar.net>", "cid:a%2Fb@example.net"}));
}

TEST(CliUrl, FailedInputKeepsLinesAlignedAndExitsOne) {
    std::string in = "cid:a@x\ncid:\ncid:b@x\n";
    auto r = run({"url", "cid", "-"}, &in);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(lines(r.out), (std::vector<std::string>{"<a@x>", "", "<b@x>"}));
    auto j = run({"url", "cid", "--json", "cid:"});
    EXPECT_EQ(nlohmann::json::parse(lines(j.out).at(0))["error"], "empty_id");
}

TEST(CliUrl, MidBothDirections) {
    auto r = run({"url", "mid", "mid:m@x.example/p%2F1@x.example", "<m@x> <p/1@x>", "<only@x>"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(lines(r.out), (std::vector<std::string>{"<m@x.example> <p/1@x.example>",
                                                      "mid:m@x/p%2F1@x", "mid:only@x"}));
}

TEST(CliUrl, ControlOctetsInAResultNeverBreakTheLines) {
    std::string in = "=?US-ASCII?Q?a=0Ab?=\nx\n";
    auto r = run({"url", "decode-header", "-"}, &in);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(lines(r.out), (std::vector<std::string>{"", "x"}));
    auto j = run({"url", "decode-header", "--json", "=?US-ASCII?Q?a=0Ab?="});
    EXPECT_EQ(nlohmann::json::parse(lines(j.out).at(0))["output"], "a\nb");
}

TEST(CliUrl, MidIdsWithoutBrackets) {
    EXPECT_EQ(lines(run({"url", "mid", "m@x c@x"}).out).at(0), "mid:m@x/c@x");
}

TEST(CliUrl, ContentTypeMappingBothDirections) {
    auto a = run({"url", "ct2uri", "text/plain; charset=us-ascii"});
    EXPECT_EQ(lines(a.out).at(0), "ContentType:text/plain?charset=\"us-ascii\"");
    auto b =
        run({"url", "uri2ct", "--json", "mailto:joe@blow.test?MIME-Type=\"message/rfc822\"#123"});
    auto j = nlohmann::json::parse(lines(b.out).at(0));
    EXPECT_EQ(j["output"],
              "message/rfc822; URI-Body=\"mailto:joe@blow.test\"; URI-Fragment=\"123\"");
    EXPECT_EQ(j["rule"], "controlled");  // CTURI-6.2
    auto c = run(
        {"url", "uri2ct", "--no-controlled", "http://xml.example?MIME-Type=\"application/xml\""});
    EXPECT_EQ(lines(c.out).at(0),
              "application/uri.http%3A%2F%2Fxml.example; MIME-Type=\"application%2Fxml\"");
    EXPECT_EQ(run({"url", "uri2ct", "relative/x"}).status, 1);
}

TEST(CliUrl, FoldUnfoldAndHeaderForms) {
    auto f = run({"url", "fold", "http://h.example/a b", std::string(100, 'a')});
    EXPECT_EQ(lines(f.out).at(0), "\"http://h.example/a%20b\"");
    std::string words = "\"";
    words += std::string(40, 'a') + ' ' + std::string(40, 'a') + ' ' + std::string(20, 'a') + '"';
    EXPECT_EQ(lines(f.out).at(1), words);
    auto u = run({"url", "unfold", "\"http://h.example/a/ \t b\""});
    EXPECT_EQ(lines(u.out).at(0), "http://h.example/a/b");
    auto e = run({"url", "encode-header", "http://x.example/a b.gif"});
    EXPECT_EQ(lines(e.out).at(0), "=?US-ASCII?Q?http://x.example/a=20b.gif?=");
    auto d = run({"url", "decode-header", lines(e.out).at(0), "(c) \"http://x.example/q\""});
    EXPECT_EQ(lines(d.out),
              (std::vector<std::string>{"http://x.example/a b.gif", "http://x.example/q"}));
    auto a = run({"url", "encode-header", "--auto", "--json", "http://x.example/a.gif"});
    EXPECT_EQ(nlohmann::json::parse(lines(a.out).at(0))["form"], "bare");
}

TEST(CliUrl, EncodeDecodeRoundTripThroughAPipe) {
    std::string in = "http://x.example/caf\xE9 1.gif\nhttp://x.example/";
    in += std::string(120, 'z');
    in += " y\n";
    auto e = run({"url", "encode-header", "--charset", "windows-1252", "-"}, &in);
    ASSERT_EQ(e.status, 0);
    auto d = run({"url", "decode-header", "-"}, &e.out);
    EXPECT_EQ(d.out, in);
}

TEST(CliUrl, FilenamesAreUniqueAcrossTheSet) {
    auto r = run({"url", "filename", "https://e.example/Logo.PNG image/png",
                  "https://f.example/logo.png", "https://e.example/con text/html",
                  "https://e.example/2019-report.pdf application/pdf"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(lines(r.out),
              (std::vector<std::string>{"logo.png", "logo1.png", "con1.htm", "f2019rep.pdf"}));
    auto c = run({"url", "filename", "--check", "logo.gif", "logo.jpeg"});
    EXPECT_EQ(c.status, 1);
}

TEST(CliUrl, HelpHasExamples) {
    auto r = run({"url", "--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("Examples:"), std::string::npos);
    for (const char* sub : {"resolve", "cid", "mid", "ct2uri", "uri2ct", "fold", "unfold",
                            "encode-header", "decode-header", "filename"})
        EXPECT_NE(r.out.find(sub), std::string::npos) << sub;
}

}  // namespace
