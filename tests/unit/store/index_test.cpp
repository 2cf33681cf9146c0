// store::index and store::indexed_store: generated threads whose messages reference each other's
// parts by mid: and cid:, spread over an mbox, a Maildir and a folder of .eml files; incremental
// updates (append, delete, edit, new and removed files) against a fresh index; a process that
// indexes while another queries; schema versions.
#include "mhtml/store/index.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mhtml/html/scan.hpp"
#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/uri/cid.hpp"

namespace mhtml::store {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
    fs::path d =
        fs::temp_directory_path() / ("mhtml_index_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

void write(const fs::path& p, std::string_view bytes, bool append = false) {
    std::ofstream f(p, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// The pieces one after the other (GCC's -Wrestrict misreads long chains of +).
std::string cat(std::initializer_list<std::string_view> pieces) {
    std::string out;
    for (std::string_view p : pieces) out.append(p);
    return out;
}

// The image of message k: distinct bytes, some of them not ASCII.
std::string image_of(int k) {
    std::string s = "GIF89a";
    for (int i = 0; i < 40 + k; ++i) s += static_cast<char>((i * 7 + k * 13) & 0xff);
    return s;
}

// Message k of thread t: an HTML page with its own image (cid:) and, after the first, links to
// the previous message's image and to the first message (mid:). The body has a line starting
// "From " (so an mbox quotes it).
std::string message(int t, int k) {
    const std::string id = "m" + std::to_string(k) + ".t" + std::to_string(t) + "@thread.example";
    std::string html = "<p>message " + std::to_string(k) + "<img src=\"cid:img" +
                       std::to_string(k) + "@thread.example\">";
    if (k > 1) {
        html += "<img src=\"mid:m" + std::to_string(k - 1) + ".t" + std::to_string(t) +
                "@thread.example/img" + std::to_string(k - 1) + "@thread.example\">";
        html += "<a href=\"mid:m1.t" + std::to_string(t) + "@thread.example\">first</a>";
    }
    std::string m = "From: Sender " + std::to_string(k) + " <s" + std::to_string(k) +
                    "@thread.example>\n"
                    "Date: Mon, " +
                    std::to_string(k % 28 + 1) +
                    " Jan 2024 10:00:00 +0000\n"
                    "Subject: =?UTF-8?Q?caf=C3=A9_" +
                    std::to_string(k) +
                    "?=\n"
                    "Message-ID: <" +
                    id + ">\n";
    if (k > 1)
        m += "In-Reply-To: <m" + std::to_string(k - 1) + ".t" + std::to_string(t) +
             "@thread.example>\n";
    m += "MIME-Version: 1.0\nContent-Type: multipart/related; boundary=\"b" + std::to_string(k) +
         "\"\n\n--b" + std::to_string(k) + "\nContent-Type: text/html; charset=utf-8\n\n" + html +
         "\nFrom the thread, line one\n--b" + std::to_string(k) +
         "\nContent-Type: image/gif\nContent-ID: <img" + std::to_string(k) +
         "@thread.example>\nContent-Location: img/" + std::to_string(k) +
         ".gif\nContent-Transfer-Encoding: base64\n\n" + mime::base64_encode(image_of(k)) +
         "\n--b" + std::to_string(k) + "--\n";
    return m;
}

std::string mbox_entry(const std::string& msg) {
    return "From sender@thread.example Mon Jan  1 00:00:00 2024\n" +
           quote(msg, mbox_format::mboxrd) + "\n";
}

// Every row of the index, ids left out, in a stable order.
std::vector<std::string> dump(const fs::path& db) {
    sqlite3* h = nullptr;
    EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    std::vector<std::string> rows;
    const char* sql =
        "SELECT f.path, f.kind, ifnull(f.format,''), m.number, m.offset, m.size, m.quoted, "
        "ifnull(m.message_id,''), m.date, m.from_, m.subject, m.in_reply_to, m.refs, m.flags, "
        "m.parts, m.diagnostics, p.path, ifnull(p.content_id,''), ifnull(p.message_id,''), "
        "ifnull(p.location,''), p.type, ifnull(p.decoded_size,-1) FROM files f JOIN messages m "
        "ON m.file = f.id JOIN parts p ON p.message = m.id ORDER BY f.path, m.number, p.path";
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(h, sql, -1, &s, nullptr), SQLITE_OK);
    while (sqlite3_step(s) == SQLITE_ROW) {
        std::string row;
        for (int c = 0; c < sqlite3_column_count(s); ++c) {
            const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
            row += t ? t : "NULL";
            row += '|';
        }
        rows.push_back(std::move(row));
    }
    sqlite3_finalize(s);
    sqlite3_close(h);
    return rows;
}

// The folders of the thread tests: messages 1..n of thread t, the odd ones in an mbox, the
// even ones alternately in a Maildir (new/ and cur/ with flags) and a folder of .eml files.
struct thread_folder {
    fs::path root, mbox, maildir, eml;
};

thread_folder make_thread(const fs::path& root, int t, int n) {
    thread_folder f{root, root / "inbox.mbox", root / "Maildir", root / "saved"};
    fs::create_directories(f.maildir / "cur");
    fs::create_directories(f.maildir / "new");
    fs::create_directories(f.maildir / "tmp");
    fs::create_directories(f.eml / "deeper");
    std::string box;
    for (int k = 1; k <= n; ++k) {
        const std::string m = message(t, k);
        if (k % 2 == 1) {
            box += mbox_entry(m);
        } else if (k % 4 == 2) {
            const bool seen = k % 8 == 2;
            const std::string n = std::to_string(k);
            write(f.maildir / (seen ? "cur" : "new") /
                      cat({"17000000", n, ".x.host", seen ? ":2,RS" : ""}),
                  m);
        } else {
            const std::string n = std::to_string(k);
            write(f.eml / (k % 8 == 0 ? fs::path("deeper") : fs::path()) / cat({"m", n, ".eml"}),
                  m);
        }
    }
    write(f.mbox, box);
    write(f.eml / "notes.txt", "not a message: not indexed\n");
    return f;
}

// Checks that every mid: reference of every message of the thread resolves, through the store,
// to the right bytes.
void expect_thread_resolves(const fs::path& db, int t, int n) {
    indexed_store store(db);
    for (int k = 2; k <= n; ++k) {
        const mime::document doc = mime::document::parse(message(t, k));
        archive::aggregate_options ao;
        ao.store = &store;
        const archive::aggregate agg = archive::aggregate::build(doc, ao);
        const mime::part_view html = *doc.find("1");
        int from_store = 0;
        for (const html::reference& r : agg.references(html).refs) {
            const archive::resolution res = agg.resolve(html, r);
            ASSERT_TRUE(res.target) << "message " << k << ": " << r.url;
            if (!res.from_store) continue;
            ++from_store;
            if (r.url.find("/img") != std::string::npos) {
                std::string body;
                res.target->decode_to(body);
                EXPECT_EQ(body, image_of(k - 1)) << r.url;
            } else {
                // mid:m1: the whole first message.
                EXPECT_EQ(res.target->index(), 0u);
                const auto f = res.target->header("Message-ID");
                ASSERT_TRUE(f);
                EXPECT_EQ(std::string(f->value()),
                          "<m1.t" + std::to_string(t) + "@thread.example>");
                const auto rec = store.record_of(*res.target);
                ASSERT_TRUE(rec);
                EXPECT_EQ(rec->kind, source_kind::mbox);
                EXPECT_EQ(rec->number, 1u);
            }
        }
        EXPECT_EQ(from_store, 2) << "message " << k;
    }
}

TEST(StoreIndex, CID_6_ThreadReferencesAcrossMessagesResolveToTheRightBytes) {
    const fs::path dir = fresh_dir("thread");
    const thread_folder f = make_thread(dir / "mail", 1, 24);
    index idx = index::open(dir / "i.db");
    const index_report r = idx.update({f.root});
    EXPECT_TRUE(r.problems.empty());
    EXPECT_EQ(r.files, 1u + 6u + 6u);  // the mbox, the Maildir's files, the .eml files
    EXPECT_EQ(r.files_read, r.files);
    EXPECT_EQ(r.messages_added, 24u);
    EXPECT_EQ(idx.message_count(), 24u);
    EXPECT_EQ(idx.part_count(), 24u * 3);
    expect_thread_resolves(dir / "i.db", 1, 24);

    // What the tables hold for one message of each kind.
    const auto m3 = idx.find_message("m3.t1@thread.example");
    ASSERT_EQ(m3.size(), 1u);
    EXPECT_EQ(m3[0].kind, source_kind::mbox);
    EXPECT_EQ(m3[0].format, mbox_format::mboxo);  // only ">From " lines: mboxo reads them alike
    EXPECT_EQ(m3[0].number, 2u);
    EXPECT_TRUE(m3[0].quoted);
    EXPECT_EQ(m3[0].subject, "café 3");
    EXPECT_EQ(m3[0].in_reply_to, "<m2.t1@thread.example>");
    const std::string box = read(f.mbox);
    EXPECT_EQ(unquote(std::string_view(box).substr(m3[0].offset, m3[0].size), m3[0].format),
              message(1, 3));
    const auto m2 = idx.find_message("m2.t1@thread.example");
    ASSERT_EQ(m2.size(), 1u);
    EXPECT_EQ(m2[0].kind, source_kind::maildir);
    EXPECT_EQ(m2[0].flags, "RS");
    const auto m8 = idx.find_message("m8.t1@thread.example");
    ASSERT_EQ(m8.size(), 1u);
    EXPECT_EQ(m8[0].kind, source_kind::message);
    EXPECT_EQ(m8[0].file, f.eml / "deeper" / "m8.eml");
    EXPECT_TRUE(idx.find_message("nothing@thread.example").empty());

    // A part of a message that the store does not have, and a message that is not there.
    indexed_store store(dir / "i.db");
    EXPECT_FALSE(store.find("m3.t1@thread.example", "img9@thread.example"));
    EXPECT_FALSE(store.find("m99.t1@thread.example", ""));
    EXPECT_TRUE(store.find("m3.t1@thread.example", "img3@thread.example"));
    fs::remove_all(dir);
}

TEST(StoreIndex, CID_6_CorpusMessagesInAMailboxAreFoundWithTheirParts) {
    // The corpus's e-mails (tests/data/corpus, PROVENANCE.md) in one mbox (mboxrd), and for
    // each a reply that names it and every part of it with a Content-ID by mid: URLs. Each
    // reference resolves, through the index, to that message and to that part's bytes.
    const fs::path dir = fresh_dir("corpus");
    struct original {
        std::string id;                            // id_key of its Message-ID
        std::map<std::string, std::string> parts;  // Content-ID key -> decoded bytes
    };
    std::vector<original> originals;
    std::map<std::string, int> seen;  // Message-ID -> how many corpus files have it
    std::string box;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(MHTML_TEST_DATA) / "corpus"))
        if (e.path().extension() == ".eml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
        std::string bytes = read(file);
        if (!bytes.ends_with('\n')) bytes += '\n';
        const mime::document doc = mime::document::parse(bytes);
        const auto mid = doc.root().header("Message-ID");
        if (!mid) continue;
        original o;
        o.id = uri::id_key(mid->raw_value());
        if (o.id.empty() || ++seen[o.id] > 1) continue;
        std::map<std::string, int> cids;
        for (const mime::part_view& p : doc.parts())
            if (auto c = p.content_id()) ++cids[uri::id_key(*c)];
        for (const mime::part_view& p : doc.parts()) {
            const auto c = p.content_id();
            // Leaves outside any attached message, with a Content-ID that is theirs alone.
            bool attached = false;
            for (auto up = p.parent(); up && !attached; up = up->parent())
                attached = up->kind() == mime::entity_kind::message;
            if (!c || !p.is_leaf() || cids[uri::id_key(*c)] != 1 || attached) continue;
            std::string body;
            p.decode_to(body);
            o.parts[uri::id_key(*c)] = body;
        }
        box += "From corpus@example Mon Jan  1 00:00:00 2024\n" +
               quote(bytes, mbox_format::mboxrd) + "\n";
        originals.push_back(std::move(o));
    }
    ASSERT_GE(originals.size(), 25u);
    std::size_t named_parts = 0;
    for (const original& o : originals) named_parts += o.parts.size();
    EXPECT_GE(named_parts, 30u);
    write(dir / "corpus.mbox", box);
    index idx = index::open(dir / "i.db");
    const index_report r = idx.update({dir / "corpus.mbox"});
    EXPECT_TRUE(r.problems.empty());
    EXPECT_GE(idx.message_count(), originals.size());

    indexed_store store(dir / "i.db");
    for (const original& o : originals) {
        // The reply's references, each with what it must resolve to ("" for the message).
        std::vector<std::pair<std::string, std::string>> refs{
            {"mid:" + uri::url_encode_id(o.id), ""}};
        for (const auto& [cid, bytes] : o.parts)
            refs.emplace_back("mid:" + uri::url_encode_id(o.id) + "/" + uri::url_encode_id(cid),
                              cid);
        std::string html;
        for (const auto& [url, cid] : refs) html += "<img src=\"" + url + "\">";
        const mime::document reply = mime::document::parse(
            "Message-ID: <reply@example>\r\nContent-Type: text/html\r\n\r\n" + html);
        archive::aggregate_options ao;
        ao.store = &store;
        const archive::aggregate agg = archive::aggregate::build(reply, ao);
        const auto found = agg.references(reply.root()).refs;
        ASSERT_EQ(found.size(), refs.size()) << o.id;
        for (std::size_t i = 0; i < refs.size(); ++i) {
            const auto& [url, cid] = refs[i];
            ASSERT_EQ(found[i].url, url);
            const archive::resolution res = agg.resolve(reply.root(), found[i]);
            ASSERT_TRUE(res.target) << o.id << ": " << url;
            EXPECT_TRUE(res.from_store) << url;
            if (cid.empty()) {  // the message itself
                const auto f = res.target->header("Message-ID");
                ASSERT_TRUE(f);
                EXPECT_EQ(uri::id_key(f->raw_value()), o.id);
                EXPECT_EQ(res.target->index(), 0u);
                continue;
            }
            const auto got = res.target->content_id();
            ASSERT_TRUE(got) << url;
            EXPECT_EQ(uri::id_key(*got), cid);
            std::string body;
            res.target->decode_to(body);
            EXPECT_EQ(body, o.parts.at(cid)) << o.id << ": " << url;
        }
    }
    fs::remove_all(dir);
}

TEST(StoreIndex, UnchangedFilesAreNotReadAgain) {
    const fs::path dir = fresh_dir("unchanged");
    const thread_folder f = make_thread(dir / "mail", 2, 16);
    index idx = index::open(dir / "i.db");
    (void)idx.update({f.root});
    const auto before = dump(dir / "i.db");
    const index_report again = idx.update({f.root});
    EXPECT_EQ(again.files_unchanged, again.files);
    EXPECT_EQ(again.bytes_read, 0u);
    EXPECT_EQ(again.messages_added + again.messages_removed, 0u);
    EXPECT_EQ(dump(dir / "i.db"), before);
    fs::remove_all(dir);
}

// The incremental index after a change equals a fresh index of the same files.
void expect_same_as_fresh(const fs::path& dir, const thread_folder& f, index& idx,
                          index_report* out = nullptr) {
    const index_report r = idx.update({f.root});
    if (out) *out = r;
    const fs::path fresh = dir / ("fresh" + std::to_string(::rand()) + ".db");
    {
        index other = index::open(fresh);
        (void)other.update({f.root});
    }
    EXPECT_EQ(dump(dir / "i.db"), dump(fresh));
    fs::remove(fresh);
}

TEST(StoreIndex, IncrementalUpdatesMatchAFreshIndex) {
    const fs::path dir = fresh_dir("incremental");
    const thread_folder f = make_thread(dir / "mail", 3, 12);
    index idx = index::open(dir / "i.db");
    (void)idx.update({f.root});

    // Appending to the mbox reads only the new messages.
    write(f.mbox, mbox_entry(message(3, 13)) + mbox_entry(message(3, 15)), true);
    index_report r;
    expect_same_as_fresh(dir, f, idx, &r);
    EXPECT_EQ(r.files_appended, 1u);
    EXPECT_EQ(r.files_read, 0u);
    EXPECT_EQ(r.messages_added, 2u);
    EXPECT_EQ(r.messages_removed, 0u);
    EXPECT_LT(r.bytes_read, read(f.mbox).size() / 2);
    ASSERT_EQ(idx.find_message("m15.t3@thread.example").size(), 1u);
    EXPECT_EQ(idx.find_message("m15.t3@thread.example")[0].number, 8u);

    // Deleting a message from the mbox (it shrinks): the file is read again.
    {
        std::string box = read(f.mbox);
        const std::size_t at = box.find("From sender", 10);
        const std::size_t next = box.find("\nFrom sender", at) + 1;
        write(f.mbox, box.erase(at, next - at));
    }
    expect_same_as_fresh(dir, f, idx, &r);
    EXPECT_EQ(r.files_read, 1u);
    EXPECT_EQ(r.messages_removed, 8u);
    EXPECT_EQ(r.messages_added, 7u);
    EXPECT_TRUE(idx.find_message("m3.t3@thread.example").empty());

    // Editing a message in place (same size, new content): the mtime tells.
    {
        std::string box = read(f.mbox);
        const std::size_t at = box.find("message 5");
        box[at + 8] = '7';
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        write(f.mbox, box);
    }
    expect_same_as_fresh(dir, f, idx, &r);
    EXPECT_EQ(r.files_read, 1u);

    // New, removed and renamed files of the Maildir and the folder.
    fs::remove(f.eml / "m4.eml");
    write(f.eml / "m40.eml", message(3, 40));
    for (const auto& e : fs::directory_iterator(f.maildir / "new"))
        fs::rename(e.path(), f.maildir / "cur" / (e.path().filename().string() + ":2,S"));
    expect_same_as_fresh(dir, f, idx, &r);
    EXPECT_EQ(r.files_removed, 2u);  // m4.eml and the Maildir file that moved
    EXPECT_EQ(r.files_read, 2u);     // m40.eml and the moved file
    EXPECT_TRUE(idx.find_message("m4.t3@thread.example").empty());
    EXPECT_EQ(idx.find_message("m40.t3@thread.example").size(), 1u);

    // A file outside the sources given is kept.
    const fs::path other = dir / "other.eml";
    write(other, message(4, 1));
    (void)idx.update({other});
    EXPECT_EQ(idx.find_message("m1.t4@thread.example").size(), 1u);
    (void)idx.update({f.root});
    EXPECT_EQ(idx.find_message("m1.t4@thread.example").size(), 1u);
    fs::remove_all(dir);
}

TEST(StoreIndex, AnAppendThatChangesTheFormatReadsTheWholeFile) {
    const fs::path dir = fresh_dir("format");
    const fs::path box = dir / "box.mbox";
    const std::string plain =
        "From a@b Mon Jan  1 00:00:00 2024\nMessage-ID: <p1@x>\n\nhi\n"
        ">From quoted\n>>From deeper\n\n";
    write(box, "From a@b Mon Jan  1 00:00:00 2024\nMessage-ID: <p0@x>\n\n>From one\n\n");
    index idx = index::open(dir / "i.db");
    (void)idx.update({box});
    write(box, plain, true);  // ">>From ": the whole file is mboxrd now
    const index_report r = idx.update({box});
    EXPECT_EQ(r.files_read, 1u);
    EXPECT_EQ(r.files_appended, 0u);
    index fresh = index::open(dir / "f.db");
    (void)fresh.update({box});
    EXPECT_EQ(dump(dir / "i.db"), dump(dir / "f.db"));
    ASSERT_EQ(idx.find_message("p1@x").size(), 1u);
    EXPECT_EQ(idx.find_message("p1@x")[0].format, mbox_format::mboxrd);
    fs::remove_all(dir);
}

TEST(StoreIndex, AChangedFileNamesNothingUntilItIsIndexedAgain) {
    const fs::path dir = fresh_dir("stale");
    const fs::path eml = dir / "a.eml";
    write(eml, message(5, 1));
    index idx = index::open(dir / "i.db");
    (void)idx.update({eml});
    write(eml, message(5, 2));  // another message in the same file
    indexed_store store(dir / "i.db");
    EXPECT_FALSE(store.find("m1.t5@thread.example", ""));
    EXPECT_FALSE(store.find("m1.t5@thread.example", "img1@thread.example"));
    fs::remove(eml);
    EXPECT_FALSE(store.find("m1.t5@thread.example", ""));
    fs::remove_all(dir);
}

TEST(StoreIndex, MessagesInsideMessagesAreFoundByTheirMessageId) {
    const fs::path dir = fresh_dir("nested");
    const std::string outer =
        "Message-ID: <outer@x>\nMIME-Version: 1.0\n"
        "Content-Type: multipart/mixed; boundary=o\n\n--o\n"
        "Content-Type: text/plain\n\nsee attached\n--o\n"
        "Content-Type: message/rfc822\n\n" +
        message(6, 1) + "--o--\n";
    write(dir / "outer.eml", outer);
    index idx = index::open(dir / "i.db");
    (void)idx.update({dir / "outer.eml"});
    const auto found = idx.find_message("m1.t6@thread.example");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].message_id, "outer@x");
    indexed_store store(dir / "i.db");
    const auto image = store.find("m1.t6@thread.example", "img1@thread.example");
    ASSERT_TRUE(image);
    std::string body;
    image->decode_to(body);
    EXPECT_EQ(body, image_of(1));
    fs::remove_all(dir);
}

TEST(StoreIndex, DamagedMailboxesAreIndexedWithTheirDiagnostics) {
    const fs::path dir = fresh_dir("damaged");
    const fs::path box = dir / "box.mbox";
    // CRLF, a truncated last message (no empty line at the end).
    std::string crlf =
        "From a@b Mon Jan  1 00:00:00 2024\r\nMessage-ID: <c1@x>\r\n\r\none\r\n\r\n"
        "From a@b Mon Jan  1 00:00:00 2024\r\nMessage-ID: <c2@x>\r\n\r\ntwo";
    write(box, crlf);
    index idx = index::open(dir / "i.db");
    const index_report r = idx.update({box});
    EXPECT_EQ(r.messages_added, 2u);
    bool truncated = false;
    for (const diagnostic& d : r.diagnostics)
        if (d.code == diag_code::mbox_truncated) {
            truncated = true;
            EXPECT_EQ(d.part_path, box.string() + "#2");
        }
    EXPECT_TRUE(truncated);
    // The truncated message grows: the file is read whole again (its old end was not the end
    // of a message), and the result is that of a fresh index.
    write(box, " and more\r\n\r\n", true);
    const index_report again = idx.update({box});
    EXPECT_EQ(again.files_read, 1u);
    index fresh = index::open(dir / "f.db");
    (void)fresh.update({box});
    EXPECT_EQ(dump(dir / "i.db"), dump(dir / "f.db"));
    fs::remove_all(dir);
}

TEST(StoreIndex, SchemaVersionsAreChecked) {
    const fs::path dir = fresh_dir("schema");
    {
        index idx = index::open(dir / "i.db");
        EXPECT_EQ(idx.message_count(), 0u);
    }
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(fs::path(dir / "i.db").c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(h);
    EXPECT_THROW((void)index::open(dir / "i.db"), store_error);
    EXPECT_THROW(indexed_store(dir / "i.db"), store_error);
    // Not an index at all, and a missing file read-only.
    write(dir / "plain.db", "");
    EXPECT_THROW(indexed_store(dir / "plain.db"), store_error);
    EXPECT_THROW(indexed_store(dir / "missing.db"), store_error);
    EXPECT_FALSE(fs::exists(dir / "missing.db"));
    // Another program's SQLite file is neither read nor given mhtml's tables.
    ASSERT_EQ(sqlite3_open(fs::path(dir / "other.db").c_str(), &h), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(h, "CREATE TABLE t(x); PRAGMA user_version=1", nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(h);
    EXPECT_THROW((void)index::open(dir / "other.db"), store_error);
    EXPECT_THROW(indexed_store(dir / "other.db"), store_error);
    ASSERT_EQ(sqlite3_open(fs::path(dir / "other2.db").c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(h);
    EXPECT_THROW((void)index::open(dir / "other2.db"), store_error);
    ASSERT_EQ(sqlite3_open(fs::path(dir / "other2.db").c_str(), &h), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_master", -1, &s, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(s, 0), 1);  // its one table, nothing added
    sqlite3_finalize(s);
    sqlite3_close(h);
    fs::remove_all(dir);
}

// One process appends to a mailbox and indexes it, again and again, while this one queries the
// index: every query sees a consistent index (each file's rows all there or not yet), and every
// message found has the right bytes.
TEST(StoreIndex, OneProcessIndexesWhileAnotherQueries) {
    const fs::path dir = fresh_dir("concurrent");
    const fs::path box = dir / "box.mbox";
    write(box, mbox_entry(message(7, 1)));
    {
        index idx = index::open(dir / "i.db");
        (void)idx.update({box});
    }
    constexpr int rounds = 150;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        int rc = 0;
        try {
            index idx = index::open(dir / "i.db");
            for (int k = 2; k <= rounds; ++k) {
                write(box, mbox_entry(message(7, k)), true);
                (void)idx.update({box});
            }
        } catch (...) {
            rc = 1;
        }
        ::_exit(rc);
    }
    int seen_max = 1, queries = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int status = 0;
    bool done = false;
    while (!done && std::chrono::steady_clock::now() < deadline) {
        done = ::waitpid(child, &status, WNOHANG) == child;
        indexed_store store(dir / "i.db");
        // One statement reads one snapshot.
        sqlite3* h = nullptr;
        ASSERT_EQ(
            sqlite3_open_v2(fs::path(dir / "i.db").c_str(), &h, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
        sqlite3_busy_timeout(h, 10000);
        sqlite3_stmt* s = nullptr;
        ASSERT_EQ(sqlite3_prepare_v2(h,
                                     "SELECT (SELECT count(*) FROM messages), (SELECT count(*) "
                                     "FROM parts)",
                                     -1, &s, nullptr),
                  SQLITE_OK);
        ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
        const auto n = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
        EXPECT_EQ(static_cast<std::uint64_t>(sqlite3_column_int64(s, 1)), n * 3);  // never half
        sqlite3_finalize(s);
        sqlite3_close(h);
        EXPECT_GE(static_cast<int>(n), seen_max);
        seen_max = static_cast<int>(n);
        const auto part = store.find("m" + std::to_string(n) + ".t7@thread.example",
                                     "img" + std::to_string(n) + "@thread.example");
        ASSERT_TRUE(part) << n;
        std::string body;
        part->decode_to(body);
        EXPECT_EQ(body, image_of(static_cast<int>(n)));
        ++queries;
    }
    if (!done) ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_GT(queries, 1);
    index idx = index::open(dir / "i.db", true);
    EXPECT_EQ(idx.message_count(), static_cast<std::uint64_t>(rounds));
    fs::remove_all(dir);
}

// An index update compared with a fresh index of the same sources (and options).
void expect_fresh_equal(const fs::path& dir, const std::vector<fs::path>& sources,
                        const index_options& o = {}) {
    const fs::path fresh = dir / "fresh.db";
    fs::remove(fresh);
    fs::remove(dir / "fresh.db-wal");
    fs::remove(dir / "fresh.db-shm");
    {
        index other = index::open(fresh);
        (void)other.update(sources, o);
    }
    EXPECT_EQ(dump(dir / "i.db"), dump(fresh));
}

const std::string from_line = "From a@x Mon Jan  1 00:00:00 2024\n";

// Review findings: appends where a Content-Length took part in the old split are read whole,
// as are appends whose format differs, and a forced format that changes.
TEST(StoreIndex, AppendsWhereLengthsTookPartAreReadWhole) {
    const fs::path dir = fresh_dir("lengths");
    const fs::path box = dir / "box";
    struct step {
        std::string before, after;
    };
    const std::vector<step> steps = {
        // A message ended by its Content-Length at the end of the file.
        {cat({from_line, "Message-ID: <m1@x>\nContent-Length: 5\n\nbody\n"}),
         cat({from_line, "Message-ID: <m2@x>\nContent-Length: 5\n\nbody\n"})},
        // A Content-Length pointing past the old end, which lands after the append.
        {cat({from_line, "Message-ID: <m1@x>\nContent-Length: 48\n\nbody\n\n"}),
         cat({from_line, "Message-ID: <m2@x>\n\nx\n\n", from_line, "Message-ID: <m3@x>\n\ny\n\n"})},
        // An mboxrd file, then messages with lengths that land.
        {cat({from_line, "Message-ID: <m1@x>\n\n>>From quoted\n\n"}),
         cat({from_line, "Message-ID: <m2@x>\nContent-Length: 9\n\n>From q\n\n", from_line,
              "Message-ID: <m3@x>\nContent-Length: 4\n\nbody\n"})},
    };
    for (const step& s : steps) {
        fs::remove(dir / "i.db");
        write(box, s.before);
        {
            index idx = index::open(dir / "i.db");
            (void)idx.update({box});
            write(box, s.after, true);
            (void)idx.update({box});
        }
        expect_fresh_equal(dir, {box});
    }
    // A forced format that changes between runs is a change.
    write(box, cat({from_line, "Message-ID: <m1@x>\n\n>>From here\n\n"}));
    fs::remove(dir / "i.db");
    index idx = index::open(dir / "i.db");
    (void)idx.update({box});
    index_options o;
    o.format = mbox_format::mboxo;
    const index_report r = idx.update({box}, o);
    EXPECT_EQ(r.files_read, 1u);
    expect_fresh_equal(dir, {box}, o);
    fs::remove_all(dir);
}

TEST(StoreIndex, AForcedFormatWithoutLengthsIsADiagnosticNotAFailure) {
    const fs::path dir = fresh_dir("forced");
    fs::create_directories(dir / "mail");
    write(dir / "mail" / "g.eml", "Message-ID: <g@x>\n\nhi\n");
    write(dir / "mail" / "box", cat({from_line, "Message-ID: <b@x>\n\nhi\n\n"}));
    index idx = index::open(dir / "i.db");
    index_options o;
    o.format = mbox_format::mboxcl2;
    const index_report r = idx.update({dir / "mail"}, o);
    EXPECT_EQ(idx.message_count(), 2u);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].part_path, fs::path(dir / "mail" / "box").string());
    fs::remove_all(dir);
}

// Two updates at once (two processes): no message is added twice.
TEST(StoreIndex, TwoUpdatesAtOnceAddEachMessageOnce) {
    const fs::path dir = fresh_dir("two");
    const fs::path box = dir / "box.mbox";
    std::string initial;
    for (int k = 1; k <= 20; ++k) initial += mbox_entry(message(8, k));
    write(box, initial);
    {
        index idx = index::open(dir / "i.db");
        (void)idx.update({box});
    }
    std::string more;
    for (int k = 21; k <= 400; ++k) more += mbox_entry(message(8, k));
    write(box, more, true);
    for (int i = 0; i < 30; ++i) {
        std::string name = std::to_string(i);
        name += ".eml";
        write(dir / name, message(9, i + 1));
    }
    pid_t kids[2];
    for (pid_t& kid : kids) {
        kid = ::fork();
        ASSERT_GE(kid, 0);
        if (kid == 0) {
            int rc = 0;
            try {
                index idx = index::open(dir / "i.db");
                (void)idx.update({dir});
            } catch (const std::exception& e) {
                std::fprintf(stderr, "indexing process: %s\n", e.what());
                rc = 1;
            }
            ::_exit(rc);
        }
    }
    for (pid_t kid : kids) {
        int status = 0;
        ASSERT_EQ(::waitpid(kid, &status, 0), kid);
        ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
        EXPECT_EQ(WEXITSTATUS(status), 0);
    }
    EXPECT_EQ(dump(dir / "i.db").size(), (400u + 30u) * 3);
    index idx = index::open(dir / "i.db", true);
    EXPECT_EQ(idx.message_count(), 430u);
    fs::remove_all(dir);
}

TEST(StoreIndex, AStoreFollowsUpdatesMadeAfterItOpened) {
    const fs::path dir = fresh_dir("follow");
    write(dir / "a.eml", message(10, 1));
    write(dir / "b.eml", message(10, 2));
    index idx = index::open(dir / "i.db");
    (void)idx.update({dir});
    indexed_store store(dir / "i.db");
    ASSERT_TRUE(store.find("m1.t10@thread.example", ""));
    // a.eml goes, another file takes its row id; b.eml is rewritten in place.
    fs::remove(dir / "a.eml");
    (void)idx.update({dir});
    write(dir / "c.eml", message(10, 3));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    write(dir / "b.eml", message(10, 4));
    (void)idx.update({dir});
    EXPECT_FALSE(store.find("m1.t10@thread.example", ""));
    EXPECT_FALSE(store.find("m2.t10@thread.example", ""));
    for (int k : {3, 4}) {
        const auto img = store.find("m" + std::to_string(k) + ".t10@thread.example",
                                    "img" + std::to_string(k) + "@thread.example");
        ASSERT_TRUE(img) << k;
        std::string body;
        img->decode_to(body);
        EXPECT_EQ(body, image_of(k));
    }
    // A file cut after it was indexed names nothing, and is not read past its end.
    const std::string c = read(dir / "c.eml");
    write(dir / "c.eml", c.substr(0, c.size() / 2));
    indexed_store fresh_store(dir / "i.db");
    EXPECT_FALSE(fresh_store.find("m3.t10@thread.example", ""));
    fs::remove_all(dir);
}

TEST(StoreIndex, SourcesAreCanonicalAndUnreadableOnesKeepTheirRows) {
    const fs::path dir = fresh_dir("canonical");
    fs::create_directories(dir / "real" / "sub");
    fs::create_directories(dir / "other");
    fs::create_symlink(dir / "real" / "sub", dir / "link");
    write(dir / "real" / "x.eml", message(11, 1));
    write(dir / "x.eml", message(11, 2));  // what link/.. would name lexically
    write(dir / "other" / "o.eml", message(11, 3));
    index idx = index::open(dir / "i.db");
    (void)idx.update({dir / "other"});
    (void)idx.update({dir / "link" / ".."});
    EXPECT_EQ(idx.find_message("m1.t11@thread.example").size(), 1u);
    EXPECT_TRUE(idx.find_message("m2.t11@thread.example").empty());
    EXPECT_EQ(idx.find_message("m3.t11@thread.example").size(), 1u);  // not removed
    // The same folder through the link and directly: one row per file.
    (void)idx.update({dir / "real", dir / "link" / ".."});
    EXPECT_EQ(idx.find_message("m1.t11@thread.example").size(), 1u);
    // A source that is gone (an unmounted drive): a problem, and its rows stay.
    fs::rename(dir / "other", dir / "elsewhere");
    const index_report r = idx.update({dir / "other"});
    EXPECT_EQ(r.problems.size(), 1u);
    EXPECT_EQ(r.files_removed, 0u);
    EXPECT_EQ(idx.find_message("m3.t11@thread.example").size(), 1u);
    fs::remove_all(dir);
}

TEST(StoreIndex, AFileReplacedByAFifoIsRemovedAndNeverBlocksALookup) {
    const fs::path dir = fresh_dir("fifo");
    const fs::path eml = dir / "m.eml";
    write(eml, message(13, 1));
    index idx = index::open(dir / "i.db");
    (void)idx.update({eml});
    indexed_store store(dir / "i.db");
    ASSERT_EQ(idx.find_message("m1.t13@thread.example").size(), 1u);
    // Replaced by a FIFO before the index is updated: a lookup finds nothing, at once (opening
    // a FIFO for reading would wait for a writer).
    fs::remove(eml);
    ASSERT_EQ(::mkfifo(eml.c_str(), 0600), 0);
    EXPECT_FALSE(store.find("m1.t13@thread.example", ""));
    // Named again: not a file or folder, a problem, and its rows are removed.
    const index_report r = idx.update({eml});
    ASSERT_EQ(r.problems.size(), 1u);
    EXPECT_NE(r.problems[0].find("not a file or folder"), std::string::npos);
    EXPECT_EQ(r.files_removed, 1u);
    EXPECT_TRUE(idx.find_message("m1.t13@thread.example").empty());
    fs::remove_all(dir);
}

TEST(StoreIndex, FilesToLeaveUntouchedAreNeitherOpenedNorListed) {
    // index::update leaves its own database's files alone (closing a descriptor of one would
    // drop SQLite's locks on it in this process); list_sources takes them as `untouched`.
    const fs::path dir = fresh_dir("untouched");
    write(dir / "box", mbox_entry(message(14, 1)));
    write(dir / "other", mbox_entry(message(14, 2)));
    const fs::path box = fs::weakly_canonical(dir / "box");
    EXPECT_EQ(list_sources({dir}).files.size(), 2u);
    const source_listing l = list_sources({dir}, false, {box});
    ASSERT_EQ(l.files.size(), 1u);
    EXPECT_EQ(l.files[0].path.filename(), "other");
    EXPECT_TRUE(list_sources({box}, false, {box}).files.empty());
    // An index's own files, however its path is spelled.
    const auto db = database_files(dir / "." / "box");
    ASSERT_EQ(db.size(), 5u);
    EXPECT_EQ(db[0], box);
    EXPECT_EQ(db[1].filename(), "box-wal");
    EXPECT_EQ(db[4].filename(), "box.update-lock");
    EXPECT_EQ(list_sources({dir}, false, db).files.size(), 1u);
    fs::remove_all(dir);
}

TEST(StoreIndex, ARewriteThatKeepsSizeAndMtimeIsSeenByItsCtime) {
    const fs::path dir = fresh_dir("ctime");
    const fs::path eml = dir / "a.eml";
    write(eml, message(12, 5));
    index idx = index::open(dir / "i.db");
    (void)idx.update({eml});
    const auto mtime = fs::last_write_time(eml);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    write(eml, message(12, 6));  // the same size: "5" -> "6" in ids and text
    fs::last_write_time(eml, mtime);
    const index_report r = idx.update({eml});
    EXPECT_EQ(r.files_read, 1u);
    EXPECT_EQ(idx.find_message("m6.t12@thread.example").size(), 1u);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace mhtml::store
