// mhtml ls as a user runs it: exit codes, JSON shape, standard input, --help.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_support.hpp"
#include "unit/view/view_support.hpp"

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace {

using mhtml::test::run_result;
using mhtml::test::temp_file;

run_result run(const std::string& args) {
    return mhtml::test::run_cli(args);
}

std::string corpus(const char* name) {
    return std::string(MHTML_TEST_DATA) + "/corpus/" + name;
}

TEST(CliLs, CleanArchiveExitsZeroAndListsParts) {
    auto r = run("ls " + corpus("chromium__page_with_image_ie.mht"));
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("multipart/related"), std::string::npos);
    EXPECT_NE(r.out.find("image/png"), std::string::npos);
    EXPECT_NE(r.out.find("location=http://localhost/resources/red_square.png"), std::string::npos);
}

TEST(CliLs, JsonHasPartsAndDiagnostics) {
    auto r = run("ls --json --hash " + corpus("chromium__malformed_mhtml_no_footer.mht"));
    EXPECT_EQ(r.status, 0);  // a missing close delimiter is a warning
    for (const char* key :
         {"\"parts\":[", "\"diagnostics\":[", "\"path\":\"1\"", "\"content_type\":\"image/png\"",
          "\"encoding\":\"base64\"", "\"leaf\":true", "\"sha256\":\"",
          "\"encoded_size\":", "\"decoded_size\":", "\"content_id\":null",
          "\"content_location\":\"http://", "\"code\":\"missing_close_delimiter\"",
          "\"severity\":\"warning\"", "\"offset\":", "\"parameters\":{"})
        EXPECT_NE(r.out.find(key), std::string::npos) << key;
}

TEST(CliLs, ErrorsInInputExitOne) {
    std::string f = temp_file(
        "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Transfer-Encoding: "
        "base64\r\n"
        "\r\nQUJDR\r\n--b--\r\n");
    auto r = run("ls --json " + f);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("\"code\":\"base64_truncated\""), std::string::npos);
    EXPECT_NE(r.out.find("\"path\":\"1\""), std::string::npos);
    std::filesystem::remove(f);
}

TEST(CliLs, MissingFileAndBadUsageExitTwo) {
    EXPECT_EQ(run("ls /nonexistent/file.mht").status, 2);
    EXPECT_EQ(run("ls").status, 2);
    EXPECT_EQ(run("frobnicate").status, 2);
    EXPECT_EQ(run("ls --max-depth 0 x").status, 2);
}

TEST(CliLs, ReadsStandardInput) {
    auto r = run("ls --json - < " + corpus("chromium__page_with_image_ie.mht"));
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("\"file\":\"-\""), std::string::npos);
    EXPECT_NE(r.out.find("\"content_type\":\"image/png\""), std::string::npos);
}

TEST(CliLs, HelpHasExamples) {
    auto r = run("ls --help");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("Examples:"), std::string::npos);
    EXPECT_NE(run("--help").out.find("mhtml ls"), std::string::npos);
}

TEST(CliLs, Rfc2047FileNameIsDecoded) {
    auto r = run("ls --json " + corpus("nylas__raw_message_with_outlook_emoji_inline.eml"));
    EXPECT_NE(r.out.find("\"filename\":\"OutlookEmoji-\xF0\x9F\x98\x8A.png\""), std::string::npos);
}

// An Outlook attachment (base64 message/rfc822): the attached mail's parts are listed, each
// at the input offset of the encoded body it was decoded from.
TEST(CliLs, EncodedMessagePartsAreListedWithInputOffsets) {
    const std::string file =
        std::string(MHTML_TEST_DATA) + "/differences/outlook_forward_base64_rfc822.eml";
    std::ifstream f(file, std::ios::binary);
    const std::string input((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const std::string marker = "filename=\"Quarterly report.eml\"\r\n\r\n";
    const std::size_t body = input.find(marker) + marker.size();
    ASSERT_GT(body, marker.size());

    auto r = run("ls --json --hash " + file);
    EXPECT_EQ(r.status, 0);
    const auto doc = nlohmann::json::parse(r.out);
    std::vector<std::string> paths;
    for (const auto& p : doc["parts"]) {
        const std::string path = p["path"];
        paths.push_back(path);
        if (path.starts_with("2.1")) {
            EXPECT_TRUE(p["decoded"].get<bool>()) << path;
            EXPECT_EQ(p["offset"].get<std::size_t>(), body) << path;
        } else {
            EXPECT_FALSE(p["decoded"].get<bool>()) << path;
        }
    }
    EXPECT_EQ(paths, (std::vector<std::string>{"", "1", "2", "2.1", "2.1.1", "2.1.1.1", "2.1.1.2",
                                               "2.1.2"}));
    EXPECT_EQ(doc["parts"][2]["content_type"], "message/rfc822");
    EXPECT_FALSE(doc["parts"][2]["leaf"].get<bool>());
    EXPECT_EQ(doc["parts"][7]["content_type"], "image/png");
    EXPECT_EQ(doc["related"][0]["root"], "2.1.1.2");
    ASSERT_EQ(doc["diagnostics"].size(), 1u);
    EXPECT_EQ(doc["diagnostics"][0]["code"], "message_with_encoding");
    EXPECT_EQ(doc["diagnostics"][0]["path"], "2");

    auto text = run("ls " + file);
    EXPECT_NE(text.out.find("  2.1        multipart/related"), std::string::npos) << text.out;
}

// The cap covers what decoding the leaves finds: 30 parts with truncated base64 each give
// base64_truncated (an error); with --max-diagnostics 5 ls keeps 5 and counts the other 25,
// and still exits 1 because what it dropped holds errors.
TEST(CliLs, DiagnosticsAreCappedWithACount) {
    std::string in = "Content-Type: multipart/mixed; boundary=b\r\n\r\n";
    for (int i = 0; i < 30; ++i)
        in +=
            "--b\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: "
            "base64\r\n\r\nQUJDR\r\n";
    in += "--b--\r\n";
    std::string f = temp_file(in);
    auto r = run("ls --json --max-diagnostics 5 " + f);
    EXPECT_EQ(r.status, 1);
    const auto doc = nlohmann::json::parse(r.out);
    const auto& ds = doc["diagnostics"];
    ASSERT_EQ(ds.size(), 6u);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(ds[i]["code"], "base64_truncated");
    EXPECT_EQ(ds[5]["code"], "diagnostics_dropped");
    EXPECT_EQ(ds[5]["severity"], "error");
    EXPECT_TRUE(
        ds[5]["message"].get<std::string>().starts_with("25 more diagnostics were dropped"));
    EXPECT_EQ(run("ls --json " + f).out.find("diagnostics_dropped"), std::string::npos);
    std::filesystem::remove(f);
}

}  // namespace

namespace {

TEST(CliLs, URL_4_2_ExternalBodiesAndContentMd5InJson) {
    // An external body's model, and md5_matches (never "verified": URL-4.2) for leaves with a
    // Content-MD5.
    const std::string file = temp_file(
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
        "--b\r\nContent-Type: message/external-body; access-type=URL;\r\n"
        " URL=\"http://x.example/a/\r\n b.html\"; size=42\r\n\r\n"
        "Content-Type: text/html\r\nContent-ID: <e@x>\r\n"
        "Content-MD5: XUFAKrxLKna5cZ2REBfFkg==\r\n\r\n"
        "--b\r\nContent-Type: application/octet-stream\r\n"
        "Content-MD5: XUFAKrxLKna5cZ2REBfFkg==\r\n\r\nhello\r\n"
        "--b\r\nContent-Type: application/octet-stream\r\n"
        "Content-MD5: XUFAKrxLKna5cZ2REBfFkg==\r\n\r\nhellp\r\n"
        "--b--\r\n",
        ".eml");
    auto r = run("ls --json " + file);
    ASSERT_EQ(r.status, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    const auto& parts = j["parts"];
    ASSERT_EQ(parts.size(), 5u);
    const auto& ext = parts[1]["external"];
    EXPECT_EQ(ext["access"], "url");
    EXPECT_EQ(ext["url"], "http://x.example/a/b.html");
    EXPECT_EQ(ext["retrievable"], true);
    EXPECT_EQ(ext["size"], 42);
    EXPECT_EQ(ext["content_type"], "text/html");
    EXPECT_EQ(ext["content_id"], "<e@x>");
    EXPECT_EQ(ext["content_md5"], "XUFAKrxLKna5cZ2REBfFkg==");
    EXPECT_EQ(parts[3]["md5_matches"], true);
    EXPECT_EQ(parts[4]["md5_matches"], false);
    EXPECT_FALSE(parts[0].contains("md5_matches"));
    // The encapsulated header's Content-MD5 is the remote object's, not the phantom body's.
    EXPECT_FALSE(parts[2].contains("md5_matches"));
    EXPECT_EQ(r.out.find("verified"), std::string::npos);
    std::filesystem::remove(file);
}

}  // namespace

namespace {

TEST(CliLs, MailboxesAreListedByMessage) {
    const std::string content =
        "From a@b.example Mon Jan  1 00:00:00 2024\n"
        "From: Ann <a@b.example>\nSubject: =?UTF-8?Q?caf=C3=A9?=\n"
        "Date: Mon, 1 Jan 2024 00:00:00 +0000\nMessage-ID: <1@b.example>\n\nhello\n>From me\n\n"
        "From c@d.example Tue Jan  2 00:00:00 2024\nFrom: c@d.example\nSubject: two\n"
        "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=x\n\n"
        "--x\n\na\n--x\n\nb\n--x--\n\n";
    const std::string file = temp_file(content, ".mbox");
    auto r = run("ls " + file);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("mboxo mailbox, 2 messages"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("café"), std::string::npos);
    auto j = run("ls --json " + file);
    ASSERT_EQ(j.status, 0);
    const auto doc = nlohmann::json::parse(j.out);
    EXPECT_EQ(doc["mailbox"], "mboxo");
    ASSERT_EQ(doc["messages"].size(), 2u);
    EXPECT_EQ(doc["messages"][0]["subject"], "café");
    EXPECT_EQ(doc["messages"][0]["message_id"], "<1@b.example>");
    EXPECT_EQ(doc["messages"][0]["offset"], 42);
    EXPECT_EQ(doc["messages"][1]["parts"], 2);
    EXPECT_EQ(doc["messages"][1]["from_line_offset"], content.find("From c@d.example"));
    // --message N or its Message-ID: that message, unquoted, for ls, check, cat and the rest.
    auto second = run("ls --json --message 2 " + file);
    ASSERT_EQ(second.status, 0) << second.out;
    EXPECT_EQ(nlohmann::json::parse(second.out)["parts"].size(), 3u);
    auto by_id = run("cat --message '<1@b.example>' " + file + " ''");
    EXPECT_EQ(by_id.status, 0);
    EXPECT_EQ(by_id.out, "hello\nFrom me\n");  // >From unquoted
    EXPECT_EQ(run("check --message 1@b.example " + file).status, 0);
    EXPECT_EQ(run("ls --message 3 " + file).status, 2);
    EXPECT_EQ(run("ls --message nobody@nowhere " + file).status, 2);
    EXPECT_EQ(run("ls --message '' " + file).status, 2);
    EXPECT_EQ(run("ls --message '<>' " + file).status, 2);
    EXPECT_EQ(run("ls --message 0 " + file).status, 2);
    EXPECT_EQ(run("ls --json --message 0002 " + file).status, 0);
    // A Message-ID of digits, with a comment after it: by its <...>.
    const std::string digits = temp_file(
        "From a@b Mon Jan  1 00:00:00 2024\nMessage-ID: <123> (digits)\nSubject: s\n\nbody\n\n",
        ".mbox");
    EXPECT_EQ(run("cat --message '<123>' " + digits + " ''").out, "body\n");
    std::filesystem::remove(digits);
    // Offsets of a message read with --message are offsets in the mailbox file, a quoted
    // message's too (each '>' unquoting removed counted back in).
    const std::string damaged =
        "From a@x Mon Jan  1 00:00:00 2024\nMessage-ID: <q@x>\n"
        "Content-Type: multipart/mixed; boundary=b\n\n--b\n\n>From here\n>From there\n"
        "--b\nContent-Transfer-Encoding: base64\n\n!!!!\n--b--\n\n"
        "From b@x Mon Jan  1 00:00:00 2024\nMessage-ID: <r@x>\n"
        "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Transfer-Encoding: "
        "base64\n\n!!!!\n--b--\n\n";
    const std::string dfile = temp_file(damaged, ".mbox");
    for (const int n : {1, 2}) {
        auto m = run("ls --json --message " + std::to_string(n) + " " + dfile);
        ASSERT_EQ(m.status, 0) << m.out;
        const auto listed = nlohmann::json::parse(m.out);
        const std::size_t bad = n == 1 ? damaged.find("!!!!") : damaged.rfind("!!!!");
        bool found = false;
        for (const auto& d : listed["diagnostics"])
            if (d["code"] == "base64_invalid_char") found = d["offset"] == bad;
        EXPECT_TRUE(found) << m.out;
        const std::size_t start = damaged.find(n == 1 ? "Message-ID: <q" : "Message-ID: <r");
        EXPECT_EQ(listed["parts"].at(0)["offset"], start);
        EXPECT_EQ(listed["parts"].back()["offset"],
                  damaged.find("--b\nContent-Transfer", start) + 4);
    }
    std::filesystem::remove(dfile);
    // A diagnostic about a line that lost its '>' is given where that line starts in the file.
    const std::string header =
        "From a@x Mon Jan  1 00:00:00 2024\nSubject: x\n>From bad\n\nbody\n\n";
    const std::string hfile = temp_file(header, ".mbox");
    auto h = run("ls --json --message 1 " + hfile);
    ASSERT_EQ(h.status, 0) << h.out;
    bool at_line = false;
    const auto hj = nlohmann::json::parse(h.out);  // (kept: a range-for over a temporary's
                                                   // member would read freed memory)
    for (const auto& d : hj["diagnostics"]) at_line |= d["offset"] == header.find(">From bad");
    EXPECT_TRUE(at_line) << h.out;
    std::filesystem::remove(hfile);
    // --no-mbox: one message, as before.
    auto one = run("ls --no-mbox " + file);
    EXPECT_NE(one.out.find("1 entities"), std::string::npos) << one.out;
    std::filesystem::remove(file);
}

}  // namespace

namespace {

TEST(CliLs, MaildirsAreListedAndTheirMessagesSelected) {
    mhtml::test::sandbox box;
    const std::filesystem::path md = box / "Mail";
    for (const char* d : {"cur", "new", "tmp"}) std::filesystem::create_directories(md / d);
    mhtml::test::write_bytes(md / "cur" / "1600000000.A.host:2,S",
                             "From: a@b.example\nSubject: older\nMessage-ID: <o@x>\n\na\n");
    mhtml::test::write_bytes(
        md / "new" / "1700000000.B.host",
        "From: c@d.example\nSubject: newer\nMIME-Version: 1.0\n"
        "Content-Type: multipart/mixed; boundary=q\n\n--q\n\nx\n--q\n\ny\n--q--\n");
    const std::string dir = mhtml::test::shell_quote(md.string());
    auto r = run("ls " + dir);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("maildir mailbox, 2 messages"), std::string::npos) << r.out;
    auto j = run("ls --json " + dir);
    const auto doc = nlohmann::json::parse(j.out);
    ASSERT_EQ(doc["messages"].size(), 2u);
    EXPECT_EQ(doc["messages"][0]["subject"], "older");
    EXPECT_EQ(doc["messages"][0]["flags"], "S");
    EXPECT_EQ(doc["messages"][1]["new"], true);
    EXPECT_EQ(doc["messages"][1]["parts"], 2);
    auto second = run("ls --json --message 2 " + dir);
    ASSERT_EQ(second.status, 0);
    EXPECT_EQ(nlohmann::json::parse(second.out)["parts"].size(), 3u);
    EXPECT_EQ(run("cat --message o@x " + dir + " ''").out, "a\n");
    EXPECT_EQ(run("ls --message 3 " + dir).status, 2);
}

TEST(CliLs, FoldersListTheirMessagesFilesMailboxesAndMaildirs) {
    // As index and batch read a folder: message files by name (recursively), mboxes by their
    // first line, Maildirs; other files are not messages.
    mhtml::test::sandbox box;
    std::filesystem::create_directories(box / "f/deeper");
    std::filesystem::create_directories(box / "f/md/cur");
    std::filesystem::create_directories(box / "f/md/new");
    mhtml::test::write_bytes(box / "f/page.mht", "Subject: page\n\ny\n");
    mhtml::test::write_bytes(box / "f/deeper/mail.eml", "Subject: mail\nFrom: a@b\n\nx\n");
    mhtml::test::write_bytes(box / "f/notes.txt", "just notes\n");
    const std::string mbox =
        "From a@x Mon Jan  1 00:00:00 2024\nSubject: one\n\n1\n\n"
        "From b@x Mon Jan  1 00:00:00 2024\nSubject: two\n\n2\n\n";
    mhtml::test::write_bytes(box / "f/inbox", mbox);
    mhtml::test::write_bytes(box / "f/md/cur/1.a.host:2,S", "Subject: seen\n\nz\n");
    const std::string dir = mhtml::test::shell_quote((box / "f").string());
    auto r = run("ls " + dir);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("folder, 5 messages"), std::string::npos) << r.out;
    auto j = run("ls --json " + dir);
    ASSERT_EQ(j.status, 0) << j.out;
    const auto doc = nlohmann::json::parse(j.out);
    EXPECT_EQ(doc["mailbox"], "folder");
    std::map<std::string, std::string> subjects;  // path (offset) -> subject
    for (const auto& m : doc["messages"]) {
        const std::string path = std::filesystem::path(m["path"].get<std::string>())
                                     .lexically_relative(std::filesystem::canonical(box / "f"))
                                     .string();
        std::string key = path;  // (in steps: GCC 12's -Wrestrict and "x" + s)
        if (m.contains("offset")) {
            key += '@';
            key += std::to_string(m["offset"].get<int>());
        }
        subjects[key] = m["subject"];
    }
    const std::map<std::string, std::string> expected{
        {"deeper/mail.eml", "mail"},
        {"inbox@34", "one"},
        {std::string("inbox@").append(std::to_string(mbox.find("Subject: two"))), "two"},
        {"md/cur/1.a.host:2,S", "seen"},
        {"page.mht", "page"}};
    EXPECT_EQ(subjects, expected);
}

}  // namespace
