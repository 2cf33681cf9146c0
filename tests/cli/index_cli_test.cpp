// mhtml index and --store on the command line: the report (text and JSON), incremental runs,
// mid: URLs across messages in refs, cat, check, inline and extract, and the exit codes.
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using mhtml::test::run_cli;

const std::string gif("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\x00\x00", 16);

fs::path make_dir(const std::string& name) {
    fs::path d =
        fs::temp_directory_path() / ("mhtml_index_cli_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

void write(const fs::path& p, const std::string& s, bool append = false) {
    std::ofstream(p, std::ios::binary | (append ? std::ios::app : std::ios::trunc)) << s;
}

std::string read(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// An mbox with the first message of a thread (a page with a logo), and a reply in its own
// .eml file that shows the logo through mid:, links the first message and names a message
// nobody has.
struct thread {
    fs::path dir, box, reply, db;
};

thread make_thread(const std::string& name) {
    thread t;
    t.dir = make_dir(name);
    t.box = t.dir / "inbox.mbox";
    t.reply = t.dir / "reply.eml";
    t.db = t.dir / "mail.db";
    write(t.box,
          "From a@example.com Mon Jan  1 00:00:00 2024\n"
          "Message-ID: <m1@example.com>\nFrom: A <a@example.com>\nSubject: first\n"
          "MIME-Version: 1.0\nContent-Type: multipart/related; boundary=\"b\"\n\n"
          "--b\nContent-Type: text/html; charset=utf-8\n\n<p>hi<img src=\"cid:logo@example.com\">\n"
          "--b\nContent-Type: image/gif\nContent-ID: <logo@example.com>\n"
          "Content-Transfer-Encoding: base64\n\nR0lGODlhAQABAIAAAP8AAA==\n--b--\n\n");
    write(t.reply,
          "Message-ID: <m2@example.com>\nIn-Reply-To: <m1@example.com>\nSubject: reply\n"
          "MIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n"
          "<p>see <img src=\"mid:m1@example.com/logo@example.com\"> and "
          "<a href=\"mid:m1@example.com\">it</a> and <img src=\"mid:nobody@example.com\">\n");
    return t;
}

TEST(CliIndex, BuildsTheIndexAndReportsIt) {
    const thread t = make_thread("report");
    auto r = run_cli({"index", t.box.string(), t.reply.string(), "--db", t.db.string(), "--json"});
    ASSERT_EQ(r.status, 0) << r.out;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["files"], 2);
    EXPECT_EQ(j["files_read"], 2);
    EXPECT_EQ(j["messages"], 2);
    EXPECT_EQ(j["parts"], 4);
    EXPECT_TRUE(j["problems"].empty());
    // Again: nothing read.
    r = run_cli({"index", t.box.string(), t.reply.string(), "--db", t.db.string(), "--json"});
    ASSERT_EQ(r.status, 0);
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["files_unchanged"], 2);
    EXPECT_EQ(j["bytes_read"], 0);
    // An appended message is read from the old end.
    write(t.box,
          "From b@example.com Mon Jan  1 00:00:00 2024\nMessage-ID: <m3@example.com>\n\nthree\n\n",
          true);
    r = run_cli({"index", t.dir.string(), "--db", t.db.string()});
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("1 read from their old end"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("3 messages"), std::string::npos) << r.out;
    fs::remove_all(t.dir);
}

TEST(CliIndex, StoreResolvesMidUrlsAcrossMessages) {
    const thread t = make_thread("store");
    ASSERT_EQ(run_cli({"index", t.dir.string(), "--db", t.db.string()}).status, 0);

    // refs: the two mid: URLs the store has are parts of another message.
    auto r = run_cli({"refs", "--json", "--store", t.db.string(), t.reply.string()});
    ASSERT_EQ(r.status, 0) << r.out;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 3u);
    EXPECT_EQ(j[0]["target"], "2");
    EXPECT_EQ(j[0]["from_store"], true);
    EXPECT_EQ(j[1]["target"], "");
    EXPECT_EQ(j[1]["from_store"], true);
    EXPECT_TRUE(j[2]["target"].is_null());
    EXPECT_FALSE(j[2].contains("from_store"));
    // Without --store nothing is found.
    j = nlohmann::json::parse(run_cli({"refs", "--json", t.reply.string()}).out);
    EXPECT_TRUE(j[0]["target"].is_null());

    // cat: a part of a message in the store, and a whole message (its page).
    r = run_cli({"cat", "--store", t.db.string(), "mid:m1@example.com/logo@example.com"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, gif);
    r = run_cli({"cat", "--store", t.db.string(), "mid:m1@example.com"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "<p>hi<img src=\"cid:logo@example.com\">");
    r = run_cli({"cat", "--store", t.db.string(), "mid:nobody@example.com"});
    EXPECT_EQ(r.status, 1);
    // A message whose attachment is a page: the message's own text, not the attachment's
    // page; the attached message by its own Message-ID: its page.
    write(t.dir / "outer.eml",
          "Message-ID: <outer@example.com>\nMIME-Version: 1.0\n"
          "Content-Type: multipart/mixed; boundary=o\n\n--o\nContent-Type: text/plain\n\n"
          "see attached\n--o\nContent-Type: message/rfc822\n\n"
          "Message-ID: <inner@example.com>\nMIME-Version: 1.0\n"
          "Content-Type: multipart/related; boundary=i\n\n--i\nContent-Type: text/html\n\n"
          "<p>inner</p>\n--i--\n--o--\n");
    ASSERT_EQ(run_cli({"index", t.dir.string(), "--db", t.db.string()}).status, 0);
    r = run_cli({"cat", "--store", t.db.string(), "mid:outer@example.com"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "see attached");
    r = run_cli({"cat", "--store", t.db.string(), "mid:inner@example.com"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "<p>inner</p>");
    r = run_cli(
        {"cat", "--store", t.db.string(), t.reply.string(), "mid:m1@example.com/logo@example.com"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, gif);

    // check: the mid: URL nobody has is a finding with --store, and none without.
    r = run_cli({"check", "--json", "--store", t.db.string(), t.reply.string()});
    j = nlohmann::json::parse(r.out);
    int not_found = 0;
    for (const auto& f : j["findings"])
        if (f["code"] == "mid_not_found") {
            ++not_found;
            EXPECT_EQ(f["requirement"], "CID-6");
            EXPECT_NE(f["message"].get<std::string>().find("mid:nobody@example.com"),
                      std::string::npos);
        }
    EXPECT_EQ(not_found, 1);
    j = nlohmann::json::parse(run_cli({"check", "--json", t.reply.string()}).out);
    for (const auto& f : j["findings"]) EXPECT_NE(f["code"], "mid_not_found");

    // inline: the image of the other message is a data: URI; the link to a whole message and
    // the URL nobody has stay as they are.
    const fs::path page = t.dir / "page.html";
    r = run_cli(
        {"inline", "--json", "--store", t.db.string(), t.reply.string(), "-o", page.string()});
    ASSERT_EQ(r.status, 0) << r.out;
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["parts_from_store"], 1);
    const std::string html = read(page);
    EXPECT_NE(html.find("<img src=\"data:image/gif;base64,R0lGODlhAQABAIAAAP8AAA==\">"),
              std::string::npos)
        << html;
    EXPECT_NE(html.find("href=\"mid:m1@example.com\""), std::string::npos);
    EXPECT_NE(html.find("src=\"mid:nobody@example.com\""), std::string::npos);

    // extract: the image is a file of the folder, named in the manifest with its message.
    const fs::path out = t.dir / "out";
    r = run_cli(
        {"extract", "--json", "--store", t.db.string(), t.reply.string(), "-o", out.string()});
    ASSERT_EQ(r.status, 0) << r.out;
    j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["files"].size(), 2u);
    EXPECT_EQ(j["files"][1]["message_id"], "m1@example.com");
    EXPECT_EQ(j["files"][1]["part"], "2");
    const std::string file = j["files"][1]["file"];
    EXPECT_EQ(read(out / file), gif);
    EXPECT_NE(read(out / "index.html").find("<img src=\"" + file + "\">"), std::string::npos);
    const auto manifest = nlohmann::json::parse(read(out / "manifest.json"));
    EXPECT_EQ(manifest["files"][1]["message_id"], "m1@example.com");
    // Without --store the folder has the page alone.
    r = run_cli({"extract", "--json", t.reply.string(), "-o", (t.dir / "alone").string()});
    EXPECT_EQ(nlohmann::json::parse(r.out)["files"].size(), 1u);
    fs::remove_all(t.dir);
}

TEST(CliIndex, ErrorsAndExitCodes) {
    const thread t = make_thread("errors");
    // A store that is not there, or not an index: usage failure, the file named.
    auto r = run_cli({"refs", "--store", (t.dir / "missing.db").string(), t.reply.string()});
    EXPECT_EQ(r.status, 2);
    EXPECT_FALSE(fs::exists(t.dir / "missing.db"));
    write(t.dir / "not.db", "hello, not a database at all, just text\n");
    r = run_cli({"cat", "--store", (t.dir / "not.db").string(), "mid:m1@example.com"});
    EXPECT_EQ(r.status, 2);
    // cat with one argument but no --store, or not a mid: URL.
    EXPECT_EQ(run_cli({"cat", t.reply.string()}).status, 2);
    ASSERT_EQ(run_cli({"index", t.box.string(), "--db", t.db.string()}).status, 0);
    EXPECT_EQ(run_cli({"cat", "--store", t.db.string(), "cid:x@y"}).status, 2);
    EXPECT_EQ(run_cli({"cat", "--store", t.db.string(), "mid:"}).status, 2);
    // A source that is not there: indexed what there is, exit 1, the problem reported.
    r = run_cli(
        {"index", t.box.string(), (t.dir / "gone").string(), "--db", t.db.string(), "--json"});
    EXPECT_EQ(r.status, 1);
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["problems"].size(), 1u);
    EXPECT_NE(j["problems"][0].get<std::string>().find("gone"), std::string::npos);
    // A damaged mailbox: indexed, exit 1, its diagnostics named by file and message.
    write(t.dir / "cut.mbox", read(t.box).substr(0, read(t.box).size() - 2));
    r = run_cli({"index", (t.dir / "cut.mbox").string(), "--db", t.db.string(), "--json"});
    EXPECT_EQ(r.status, 1) << r.out;
    j = nlohmann::json::parse(r.out);
    ASSERT_FALSE(j["diagnostics"].empty());
    EXPECT_EQ(j["diagnostics"][0]["code"], "mbox_truncated");
    EXPECT_EQ(j["diagnostics"][0]["path"], (t.dir / "cut.mbox").string() + "#1");
    // An index that cannot be written.
    EXPECT_EQ(run_cli({"index", t.box.string(), "--db", "/proc/mhtml-no.db"}).status, 2);
    fs::remove_all(t.dir);
}

}  // namespace
