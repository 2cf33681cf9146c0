// mhtml batch: a folder mixing good, damaged and hostile inputs gives one correct line per
// archive or message; --jobs does not change the lines; --resume after a kill loses nothing
// and repeats nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "cli/cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using mhtml::test::run_cli;
using mhtml::test::shell_quote;

// The pieces one after the other (GCC's -Wrestrict misreads chains of + on strings).
std::string cat(std::initializer_list<std::string_view> pieces) {
    std::string out;
    for (std::string_view p : pieces) out.append(p);
    return out;
}

fs::path make_dir(const std::string& name) {
    fs::path d =
        fs::temp_directory_path() / cat({"mhtml_batch_", name, "_", std::to_string(::getpid())});
    fs::remove_all(d);
    fs::create_directories(d);
    fs::permissions(d, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
    return d;
}

std::string read(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

void write(const fs::path& p, const std::string& s) {
    std::ofstream(p, std::ios::binary) << s;
}

const fs::path corpus = fs::path(MHTML_TEST_DATA) / "corpus";

// The lines of a batch output by key.
std::map<std::string, nlohmann::json> by_key(const std::string& out) {
    std::map<std::string, nlohmann::json> m;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        auto j = nlohmann::json::parse(line);
        EXPECT_FALSE(m.count(j["key"])) << "twice: " << j["key"];
        m[j["key"]] = j;
    }
    return m;
}

// good, damaged and hostile inputs, a mailbox of two messages, a zero-byte file and a folder
// named like an archive.
fs::path mixed_folder() {
    const fs::path d = make_dir("mixed");
    fs::copy_file(corpus / "chromium__page_with_image_ie.mht", d / "good.mht");
    fs::copy_file(corpus / "blink__frames.mhtml", d / "frames.mhtml");
    const std::string page = read(corpus / "blink__frames.mhtml");
    write(d / "cut.mhtml", page.substr(0, page.size() / 2));
    std::string deep;
    for (int i = 0; i < 300; ++i) {
        const std::string n = std::to_string(i);
        deep += cat({"Content-Type: multipart/mixed; boundary=b", n, "\n\n--b", n, "\n"});
    }
    write(d / "deep.eml", deep);
    write(d / "empty.eml", "");
    fs::create_directories(d / "folder.mhtml");
    fs::create_directories(d / "mail");
    write(d / "mail" / "inbox.mbox",
          "From a@x Mon Jan  1 00:00:00 2024\nMessage-ID: <1@x>\n\none\n\n"
          "From a@x Mon Jan  1 00:00:00 2024\nMessage-ID: <2@x>\n\ntwo\n\n");
    write(d / "notes.txt", "not an archive\n");
    return d;
}

TEST(CliBatch, AMixedFolderGivesOneCorrectLineEach) {
    const fs::path d = mixed_folder();
    auto r = run_cli({"batch", d.string(), "--check"});
    EXPECT_EQ(r.status, 0) << r.out;
    auto lines = by_key(r.out);
    const std::string box = (d / "mail" / "inbox.mbox").string();
    std::set<std::string> keys;
    for (const auto& [k, j] : lines) keys.insert(k);
    EXPECT_EQ(keys,
              (std::set<std::string>{(d / "cut.mhtml").string(), (d / "deep.eml").string(),
                                     (d / "empty.eml").string(), (d / "frames.mhtml").string(),
                                     (d / "good.mht").string(), box + "#1", box + "#2"}));
    for (const auto& [k, j] : lines) EXPECT_TRUE(j["ok"]) << k;
    EXPECT_EQ(lines[box + "#2"]["message"], 2);
    EXPECT_EQ(lines[(d / "empty.eml").string()]["size"], 0);
    // The counts are those of mhtml check.
    const auto check =
        nlohmann::json::parse(run_cli({"check", "--json", (d / "cut.mhtml").string()}).out);
    const auto& line = lines[(d / "cut.mhtml").string()];
    EXPECT_EQ(line["findings"]["errors"], check["errors"]);
    EXPECT_EQ(line["findings"]["warnings"], check["warnings"]);
    // The same with two workers and with one.
    auto one = by_key(run_cli({"batch", d.string(), "--check", "--jobs", "1"}).out);
    auto two = by_key(run_cli({"batch", d.string(), "--check", "--jobs", "2"}).out);
    EXPECT_EQ(one, two);
    EXPECT_EQ(one, lines);
    // --ls: leaves and decoded octets as mhtml ls counts them.
    auto ls = by_key(run_cli({"batch", (d / "good.mht").string(), "--ls"}).out);
    EXPECT_EQ(ls[(d / "good.mht").string()]["leaves"], 2);
    EXPECT_EQ(ls[(d / "good.mht").string()]["decoded_bytes"], 592);
    fs::remove_all(d);
}

TEST(CliBatch, WhatCannotBeReadIsAFailedLineAndTheBatchGoesOn) {
    const fs::path d = mixed_folder();
    write(d / "locked.eml", "Message-ID: <l@x>\n\nsecret\n");
    fs::permissions(d / "locked.eml", fs::perms::none);
    // As root every file is readable: run the batch as nobody then.
    const std::string as =
        ::getuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
    // A FIFO named as a source: not a file or folder, not read, and a line says so.
    ASSERT_EQ(::mkfifo((d / "pipe").c_str(), 0600), 0);
    const std::string cmd = cat({as, MHTML_CLI_PATH, " batch ", shell_quote(d.string()), " ",
                                 shell_quote((d / "gone").string()), " ",
                                 shell_quote((d / "pipe").string()), " --ls 2>/dev/null"});
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int st = pclose(p);
    EXPECT_EQ(WEXITSTATUS(st), 1) << out;
    auto lines = by_key(out);
    ASSERT_TRUE(lines.count((d / "locked.eml").string())) << out;
    EXPECT_FALSE(lines[(d / "locked.eml").string()]["ok"]);
    ASSERT_TRUE(lines.count((d / "gone").string())) << out;
    EXPECT_FALSE(lines[(d / "gone").string()]["ok"]);
    ASSERT_TRUE(lines.count((d / "pipe").string())) << out;
    EXPECT_FALSE(lines[(d / "pipe").string()]["ok"]);
    EXPECT_NE(lines[(d / "pipe").string()]["error"].get<std::string>().find("not a file or folder"),
              std::string::npos);
    EXPECT_TRUE(lines[(d / "good.mht").string()]["ok"]);
    EXPECT_EQ(lines.size(), 10u);
    fs::remove_all(d);
}

TEST(CliBatch, ResumeTriesWhatFailedAgain) {
    const fs::path d = make_dir("retry");
    write(d / "a.eml", "Message-ID: <a@x>\n\na\n");
    const fs::path results = d / "results.jsonl";
    const std::string cmd = cat({MHTML_CLI_PATH, " batch ", shell_quote((d / "a.eml").string()),
                                 " ", shell_quote((d / "late.eml").string()), " --ls --resume ",
                                 shell_quote(results.string()), " 2>/dev/null"});
    EXPECT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 1);  // late.eml is not there yet
    write(d / "late.eml", "Message-ID: <late@x>\n\nlate\n");
    EXPECT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 0);
    std::vector<std::pair<std::string, bool>> lines;  // key, ok; in order
    std::istringstream in(read(results));
    for (std::string line; std::getline(in, line);) {
        const auto j = nlohmann::json::parse(line);
        lines.emplace_back(j["key"], j["ok"]);
    }
    const std::vector<std::pair<std::string, bool>> expected{
        {(d / "late.eml").string(), false},  // (what cannot be listed is written first)
        {(d / "a.eml").string(), true},
        {(d / "late.eml").string(), true}};  // tried again; a.eml is not repeated
    EXPECT_EQ(lines, expected);
    fs::remove_all(d);
}

TEST(CliBatch, OutputFoldersAreNotReadAsInputsButFilesNamedThereAre) {
    const fs::path d = make_dir("outputs");
    write(d / "a.eml", "Message-ID: <a@x>\nContent-Type: text/html\n\n<p>a</p>\n");
    fs::create_directories(d / "out");
    write(d / "out" / "left.eml", "Message-ID: <left@x>\n\nleft\n");
    write(d / "out" / "named.eml", "Message-ID: <named@x>\n\nnamed\n");
    const std::string cmd = cat({MHTML_CLI_PATH, " batch ", shell_quote(d.string()), " ",
                                 shell_quote((d / "out" / "named.eml").string()), " --inline-to ",
                                 shell_quote((d / "out").string()), " 2>/dev/null"});
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    EXPECT_EQ(WEXITSTATUS(pclose(p)), 0) << out;
    auto lines = by_key(out);
    EXPECT_TRUE(lines.count((d / "a.eml").string())) << out;
    EXPECT_TRUE(lines.count((d / "out" / "named.eml").string())) << out;
    EXPECT_FALSE(lines.count((d / "out" / "left.eml").string())) << out;
    EXPECT_EQ(lines.size(), 2u);
    fs::remove_all(d);
}

TEST(CliBatch, ResumeAfterAKillLosesNothingAndRepeatsNothing) {
    const fs::path d = make_dir("resume");
    const std::string page = read(corpus / "blink__frames.mhtml");
    for (int i = 0; i < 1500; ++i) write(d / cat({"p", std::to_string(i), ".mhtml"}), page);
    const fs::path results = d / "results.jsonl";
    const fs::path out = d / "out";
    // Killed partway (a bounded time), perhaps in the middle of a line.
    const std::string cmd =
        cat({"timeout -s KILL 0.2 ", MHTML_CLI_PATH, " batch ", shell_quote(d.string()),
             " --extract-to ", shell_quote(out.string()), " --jobs 2 --resume ",
             shell_quote(results.string()), " 2>/dev/null"});
    ASSERT_NE(std::system(cmd.c_str()), -1);
    // Cut the last line as a kill during a write would.
    std::string partial = read(results);
    const auto killed_at = std::count(partial.begin(), partial.end(), '\n');
    EXPECT_LT(killed_at, 1500) << "the run was not cut";
    if (!partial.empty()) write(results, partial.substr(0, partial.size() - 5));
    auto r = run_cli({"batch", d.string(), "--extract-to", out.string(), "--jobs", "2", "--resume",
                      results.string()});
    EXPECT_EQ(r.status, 0);
    const auto lines = by_key(read(results));  // fails on a key seen twice
    EXPECT_EQ(lines.size(), 1500u);
    for (const auto& [k, j] : lines) {
        EXPECT_TRUE(j["ok"]) << k;
        EXPECT_TRUE(fs::exists(fs::path(j["output"].get<std::string>()) / "index.html")) << k;
    }
    // Nothing left to do.
    r = run_cli({"batch", d.string(), "--extract-to", out.string(), "--resume", results.string()});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(by_key(read(results)).size(), 1500u);
    fs::remove_all(d);
}

}  // namespace
