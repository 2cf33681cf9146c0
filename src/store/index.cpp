// The SQLite message index and the message store over it (include/mhtml/store/index.hpp).

#include "mhtml/store/index.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <utility>

#include "mhtml/detail/keyed_hash.hpp"
#include "mhtml/input.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/mime/rfc2047.hpp"
#include "mhtml/store/maildir.hpp"
#include "mhtml/uri/cid.hpp"

namespace mhtml::store {

std::string_view source_kind_name(source_kind k) noexcept {
    switch (k) {
        case source_kind::mbox:
            return "mbox";
        case source_kind::maildir:
            return "maildir";
        case source_kind::message:
            return "message";
    }
    return "message";
}

namespace {

namespace fs = std::filesystem;

std::optional<source_kind> kind_named(std::string_view s) {
    if (s == "mbox") return source_kind::mbox;
    if (s == "maildir") return source_kind::maildir;
    if (s == "message") return source_kind::message;
    return std::nullopt;
}

std::optional<mbox_format> format_named(std::string_view s) {
    if (s == "mboxo") return mbox_format::mboxo;
    if (s == "mboxrd") return mbox_format::mboxrd;
    if (s == "mboxcl2") return mbox_format::mboxcl2;
    return std::nullopt;
}

// A source as the index names it: canonical (links and `..` resolved, so that one file has
// one path), or absolute and lexically normal when that fails. Files found under a source are
// named from it (the walk follows no link, so they are canonical too).
fs::path normal(const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    if (!ec) return c;
    fs::path a = fs::absolute(p, ec);
    return (ec ? p : a).lexically_normal();
}

// The first octets of a file, enough for looks_like_mbox; nullopt when it cannot be read.
std::optional<std::string> file_head(const fs::path& p) {
    std::FILE* f = std::fopen(p.c_str(), "rb");
    if (!f) return std::nullopt;
    std::string out(4096, '\0');
    out.resize(std::fread(out.data(), 1, out.size(), f));
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return std::nullopt;
    return out;
}

// A file named directly or found in a folder whose first octets cannot be read: a problem,
// and what the index has of it is kept.
void unreadable(const fs::path& p, source_listing& out) {
    out.problems.push_back(
        p.string() + ": cannot read: " + std::error_code(errno, std::generic_category()).message());
    out.unlisted.push_back(p);
}

bool message_name(const fs::path& p) {
    std::string ext = p.extension().string();
    for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return ext == ".eml" || ext == ".mht" || ext == ".mhtml" || ext == ".mhtm";
}

void add_maildir(const fs::path& folder, source_listing& out) {
    maildir_listing l = list_maildir(folder);
    for (auto& m : l.messages)
        out.files.push_back({std::move(m.path), source_kind::maildir, m.flags, m.size, m.inode,
                             m.mtime_ns, m.ctime_ns});
    if (!l.problems.empty()) out.unlisted.push_back(folder);  // keep what it had
    for (auto& p : l.problems) out.problems.push_back(std::move(p));
}

void walk(const fs::path& folder, source_listing& out, std::size_t depth,
          const std::vector<fs::path>& untouched) {
    if (depth > 64) {
        out.problems.push_back(folder.string() + ": folders nested too deep; not read");
        return;
    }
    if (is_maildir(folder)) {
        add_maildir(folder, out);
        return;
    }
    std::error_code ec;
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(folder, ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
        entries.push_back(it->path());
    if (ec) {
        out.problems.push_back(folder.string() + ": " + ec.message());
        out.unlisted.push_back(folder);
    }
    std::sort(entries.begin(), entries.end());
    for (const fs::path& e : entries) {
        const std::string name = e.filename().string();
        if (std::find(untouched.begin(), untouched.end(), e) != untouched.end()) continue;
        if (name.empty() || name.front() == '.') continue;
        std::error_code se;
        const fs::file_status st = fs::symlink_status(e, se);
        if (se || fs::is_symlink(st)) continue;
        if (fs::is_directory(st)) {
            walk(e, out, depth + 1, untouched);
        } else if (fs::is_regular_file(st)) {
            // A message by its name (not opened here: a folder of 100,000 saved pages is listed
            // without reading them); any other file is a mailbox if it starts like one.
            if (message_name(e)) {
                out.files.push_back({e, source_kind::message, {}, {}, {}, 0, 0});
                continue;
            }
            const auto head = file_head(e);
            if (!head && (e.extension() == ".mbox" || e.extension().empty()))
                unreadable(e, out);
            else if (head && looks_like_mbox(*head))
                out.files.push_back({e, source_kind::mbox, {}, {}, {}, 0, 0});
        }
    }
}

// --- SQLite ---

// Another process's transaction: SQLITE_BUSY once the busy timeout has passed, or, in WAL
// mode, SQLITE_PROTOCOL when a connection could not get a consistent view of the WAL index
// while another was rebuilding or resetting it (a race SQLite reports rather than waits out).
// Outside an explicit transaction a statement that met either is simply run again.
bool contended(int rc) {
    return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_PROTOCOL;
}
void back_off(int attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(5 * (attempt + 1), 200)));
}
constexpr int contention_attempts = 50;

// A failure another process caused (contended() after the retries): update() runs again.
class contention_error : public store_error {
public:
    using store_error::store_error;
};

struct db_handle {
    sqlite3* db = nullptr;
    std::string name;
    ~db_handle() {
        if (db) sqlite3_close_v2(db);
    }
    [[noreturn]] void fail(std::string_view what) const {
        const std::string msg =
            name + ": " + std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "cannot open");
        if (db && contended(sqlite3_extended_errcode(db))) throw contention_error(msg);
        throw store_error(msg);
    }
    // BEGIN and COMMIT may be run again after contention (COMMIT keeps the transaction open
    // when it fails so); so may anything outside an explicit transaction.
    void exec(const char* sql) const {
        for (int attempt = 0;; ++attempt) {
            char* err = nullptr;
            const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
            if (rc == SQLITE_OK) return;
            std::string msg = err ? err : "error";
            sqlite3_free(err);
            const bool commit = std::string_view(sql) == "COMMIT";
            // A COMMIT that met contention may have rolled the transaction back: then it is
            // the whole update that runs again (contention_error), not the COMMIT.
            const bool rolled_back = commit && sqlite3_get_autocommit(db);
            const bool again = contended(rc) && attempt < contention_attempts && !rolled_back &&
                               (sqlite3_get_autocommit(db) || commit);
            if (again) {
                back_off(attempt);
                continue;
            }
            msg = name + ": " + msg + " (" + std::string(sql).substr(0, 60) + ")";
            if (contended(rc) || rolled_back) throw contention_error(msg);
            throw store_error(msg);
        }
    }
};

class statement {
public:
    statement(const db_handle& h, const char* sql) : h_(&h) {
        if (sqlite3_prepare_v3(h.db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s_, nullptr) != SQLITE_OK)
            h.fail("cannot prepare a statement");
    }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;
    ~statement() { sqlite3_finalize(s_); }
    statement& bind(int i, std::int64_t v) {
        sqlite3_bind_int64(s_, i, v);
        return *this;
    }
    statement& bind(int i, std::string_view v) {
        sqlite3_bind_text64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
        return *this;
    }
    statement& bind_blob(int i, std::string_view v) {
        sqlite3_bind_blob64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT);
        return *this;
    }
    statement& bind_null(int i) {
        sqlite3_bind_null(s_, i);
        return *this;
    }
    /// true: a row is there.
    bool step() {
        for (int attempt = 0;; ++attempt) {
            const int rc = sqlite3_step(s_);
            if (rc == SQLITE_ROW) return true;
            if (rc == SQLITE_DONE) return false;
            if (contended(rc) && attempt < contention_attempts && sqlite3_get_autocommit(h_->db)) {
                sqlite3_reset(s_);  // keeps the bindings
                back_off(attempt);
                continue;
            }
            h_->fail("a statement failed");
        }
    }
    void run() {
        step();
        reset();
    }
    void reset() {
        sqlite3_reset(s_);
        sqlite3_clear_bindings(s_);
    }
    std::int64_t integer(int col) const { return sqlite3_column_int64(s_, col); }
    std::string text(int col) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, col)))
                 : std::string();
    }
    std::string blob(int col) const {
        const auto* p = static_cast<const char*>(sqlite3_column_blob(s_, col));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, col)))
                 : std::string();
    }

private:
    const db_handle* h_;
    sqlite3_stmt* s_ = nullptr;
};

// Migrations: entry i takes the schema from version i to i + 1.
constexpr const char* migrations[] = {
    R"sql(
CREATE TABLE files(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  format TEXT,
  size INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL,
  ctime_ns INTEGER NOT NULL,
  inode INTEGER NOT NULL,
  forced INTEGER NOT NULL DEFAULT 0,
  head BLOB,
  tail BLOB,
  messages INTEGER NOT NULL DEFAULT 0,
  complete INTEGER NOT NULL DEFAULT 1);
CREATE TABLE messages(
  id INTEGER PRIMARY KEY,
  file INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  size INTEGER NOT NULL,
  quoted INTEGER NOT NULL,
  message_id TEXT,
  date TEXT, from_ TEXT, subject TEXT, in_reply_to TEXT, refs TEXT, flags TEXT,
  parts INTEGER NOT NULL,
  diagnostics INTEGER NOT NULL);
CREATE TABLE parts(
  message INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  content_id TEXT,
  message_id TEXT,
  location TEXT,
  type TEXT NOT NULL,
  decoded_size INTEGER);
CREATE INDEX messages_by_file ON messages(file, number);
CREATE INDEX messages_by_id ON messages(message_id) WHERE message_id IS NOT NULL;
CREATE INDEX parts_by_message ON parts(message);
CREATE INDEX parts_by_cid ON parts(content_id) WHERE content_id IS NOT NULL;
CREATE INDEX parts_by_mid ON parts(message_id) WHERE message_id IS NOT NULL;
)sql",
};
constexpr int schema_version = static_cast<int>(std::size(migrations));
// PRAGMA application_id of an index: "mhtm". A SQLite file of another program has another
// (usually 0) and is refused rather than given mhtml's tables.
constexpr std::int64_t application_id = 0x6d68746d;

void open_db(db_handle& h, const fs::path& path, bool read_only) {
    h.name = path.string();
    const int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path.c_str(), &h.db, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK)
        h.fail("cannot open the index");
    sqlite3_busy_timeout(h.db, 30000);  // another process's transaction: wait, do not fail
    h.exec("PRAGMA foreign_keys=ON");
    statement v(h, "PRAGMA user_version");
    v.step();
    int version = static_cast<int>(v.integer(0));
    v.reset();
    if (version > schema_version)
        throw store_error(h.name + ": index schema version " + std::to_string(version) +
                          " is newer than this mhtml's (" + std::to_string(schema_version) + ")");
    const auto owner = [&] {
        statement a(h, "PRAGMA application_id");
        a.step();
        return a.integer(0);
    };
    if (version > 0 && owner() != application_id)
        throw store_error(h.name + ": a SQLite database of another program, not an mhtml index");
    if (read_only) {
        if (version < schema_version)
            throw store_error(h.name + ": not an mhtml index (schema version " +
                              std::to_string(version) + "); build it with 'mhtml index'");
        return;
    }
    h.exec("PRAGMA journal_mode=WAL");
    h.exec("PRAGMA synchronous=NORMAL");
    while (version < schema_version) {
        h.exec("BEGIN IMMEDIATE");
        statement again(h, "PRAGMA user_version");  // another process may have migrated it
        again.step();
        version = static_cast<int>(again.integer(0));
        again.reset();
        if (version == 0) {  // a new index: the file must be empty, not another program's
            statement tables(h, "SELECT count(*) FROM sqlite_master");
            tables.step();
            if (tables.integer(0) != 0 || owner() != 0) {
                h.exec("ROLLBACK");
                throw store_error(h.name +
                                  ": a SQLite database of another program, not an mhtml index");
            }
            h.exec(("PRAGMA application_id=" + std::to_string(application_id)).c_str());
        }
        if (version < schema_version) {
            h.exec(migrations[version]);
            ++version;
            h.exec(("PRAGMA user_version=" + std::to_string(version)).c_str());
        }
        h.exec("COMMIT");
    }
}

struct file_stat {
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0, ctime_ns = 0;  // ctime: a rewrite that keeps size and mtime
    std::uint64_t inode = 0;
    friend bool operator==(const file_stat&, const file_stat&) = default;
};

file_stat stat_from(const struct stat& st) {
    return file_stat{static_cast<std::uint64_t>(st.st_size),
                     static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                     static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec,
                     static_cast<std::uint64_t>(st.st_ino)};
}

std::optional<file_stat> stat_of(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return std::nullopt;
    return stat_from(st);
}

constexpr std::size_t edge = 4096;  // octets of head and tail kept to recognise an append

std::string field_text(const mime::part_view& p, const char* name) {
    const auto f = p.header(name);
    return f ? mime::decode_to_utf8(f->value()) : std::string();
}

std::string field_raw(const mime::part_view& p, const char* name) {
    const auto f = p.header(name);
    return f ? std::string(f->value()) : std::string();
}

// A message as it is indexed: the headers kept and its parts.
struct indexed_part {
    std::string path, content_id, message_id, type;
    std::optional<std::string> location;
    std::optional<std::uint64_t> decoded_size;
};

}  // namespace

std::vector<fs::path> database_files(const fs::path& db) {
    const std::string base = normal(db).native();
    std::vector<fs::path> files;
    for (const char* suffix : {"", "-wal", "-shm", "-journal", ".update-lock"})
        files.emplace_back(base + suffix);
    return files;
}

source_listing list_sources(const std::vector<fs::path>& sources, bool force_mbox,
                            const std::vector<fs::path>& untouched) {
    source_listing out;
    std::vector<source_file> direct;  // files named as sources
    for (const fs::path& given : sources) {
        const fs::path s = normal(given);
        if (std::find(untouched.begin(), untouched.end(), s) != untouched.end()) continue;
        std::error_code ec;
        const fs::file_status st = fs::status(s, ec);
        if (ec) {  // gone, or on a drive that is not mounted: nothing under it is removed
            out.problems.push_back(s.string() + ": " + ec.message());
            out.unlisted.push_back(s);
        } else if (fs::is_directory(st)) {
            walk(s, out, 0, untouched);
        } else if (fs::is_regular_file(st)) {
            const auto head = file_head(s);
            if (!head) {
                unreadable(s, out);
                continue;
            }
            const bool mbox = force_mbox || looks_like_mbox(*head);
            direct.push_back(
                {s, mbox ? source_kind::mbox : source_kind::message, {}, {}, {}, 0, 0});
        } else {  // a FIFO, a device, a socket: not read
            out.problems.push_back(s.string() + ": not a file or folder");
            out.skipped.push_back(s);
        }
    }
    // One entry per file: a file named directly comes before the same file found in a folder
    // (stable sort; unique keeps the first), so what it was named as (a mailbox) wins.
    out.files.insert(out.files.begin(), std::make_move_iterator(direct.begin()),
                     std::make_move_iterator(direct.end()));
    std::stable_sort(out.files.begin(), out.files.end(),
                     [](const source_file& a, const source_file& b) {
                         return a.path.native() < b.path.native();
                     });
    out.files.erase(
        std::unique(out.files.begin(), out.files.end(),
                    [](const source_file& a, const source_file& b) { return a.path == b.path; }),
        out.files.end());
    return out;
}

struct index::impl {
    db_handle h;
    bool read_only = false;
};

index::index(std::unique_ptr<impl> p) noexcept : p_(std::move(p)) {}
index::index(index&&) noexcept = default;
index& index::operator=(index&&) noexcept = default;
index::~index() = default;

index index::open(const fs::path& db, bool read_only) {
    auto p = std::make_unique<impl>();
    p->read_only = read_only;
    open_db(p->h, db, read_only);
    return index(std::move(p));
}

namespace {

// Adds the counts of what `from` did (files read and removed, messages, parts, octets) to
// `into`.
void add_counts(index_report& into, const index_report& from) {
    into.files_read += from.files_read;
    into.files_appended += from.files_appended;
    into.files_removed += from.files_removed;
    into.messages_added += from.messages_added;
    into.messages_removed += from.messages_removed;
    into.parts_added += from.parts_added;
    into.bytes_read += from.bytes_read;
}

class writer {
    // What the index has of a file.
    struct recorded {
        std::int64_t id;
        source_kind kind;
        std::optional<mbox_format> format;
        file_stat st;
        bool forced;
        std::uint64_t messages;
        bool complete;
    };

public:
    writer(const db_handle& h, const index_options& o, index_report& r)
        : h_(h),
          options_(o),
          report_(r),
          edges_(h, "SELECT head, tail FROM files WHERE id = ?"),
          insert_file_(h,
                       "INSERT INTO files(path, kind, format, size, mtime_ns, ctime_ns, inode, "
                       "forced, head, tail, messages, complete) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)"),
          update_file_(h,
                       "UPDATE files SET kind=?, format=?, size=?, mtime_ns=?, ctime_ns=?, "
                       "inode=?, forced=?, head=?, tail=?, messages=?, complete=? WHERE id=?"),
          count_messages_(h, "SELECT count(*) FROM messages WHERE file = ?"),
          delete_messages_(h, "DELETE FROM messages WHERE file = ?"),
          insert_message_(h,
                          "INSERT INTO messages(file, number, offset, size, quoted, message_id, "
                          "date, from_, subject, in_reply_to, refs, flags, parts, diagnostics) "
                          "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
          insert_part_(h,
                       "INSERT INTO parts(message, path, content_id, message_id, location, type, "
                       "decoded_size) VALUES(?,?,?,?,?,?,?)"),
          savepoint_(h, "SAVEPOINT file"),
          release_(h, "RELEASE file"),
          rollback_(h, "ROLLBACK TO file") {}

    // One file: skipped, read from its old end, or read whole. A failure that is not the
    // database's (an exception while reading it) is a problem of that file, whose rows stay
    // as they were.
    void file(const source_file& f) {
        ++report_.files;
        const auto st =
            f.size && f.inode
                ? std::optional<file_stat>(file_stat{*f.size, f.mtime_ns, f.ctime_ns, *f.inode})
                : stat_of(f.path);
        if (!st) {
            report_.problems.push_back(f.path.string() + ": cannot read: " +
                                       std::error_code(errno, std::generic_category()).message());
            return;
        }
        begin_transaction();  // what the index has of the file is read under the write lock
        std::optional<recorded> old;
        if (const auto it = known_.find(f.path.string()); it != known_.end()) old = it->second;
        const bool forced = options_.format.has_value();
        if (old && old->kind == f.kind && old->st == *st && old->forced == forced &&
            (!forced || old->format == options_.format)) {
            ++report_.files_unchanged;
            return;
        }
        savepoint_.run();
        try {
            read(f, *st, old);
        } catch (const store_error&) {
            throw;
        } catch (const std::exception& e) {
            rollback_.run();
            release_.run();
            report_.problems.push_back(f.path.string() + ": not indexed: " + e.what());
            return;
        }
        release_.run();
        if (pending_ >= 20000) finish();  // batches of ~20,000 messages; a file is never split
    }

    void remove_missing(const std::vector<fs::path>& sources, const std::set<std::string>& seen,
                        const std::vector<fs::path>& unlisted) {
        begin_transaction();
        const auto under = [](const fs::path& root, const fs::path& p) {
            auto [a, b] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
            return a == root.end();
        };
        std::vector<fs::path> roots;
        for (const fs::path& s : sources) {
            fs::path root = normal(s);
            if (root.filename().empty()) root = root.parent_path();  // "dir/"
            roots.push_back(std::move(root));
        }
        statement all(h_, "SELECT id, path FROM files");
        std::vector<std::int64_t> gone;
        while (all.step()) {
            const std::string path = all.text(1);
            if (seen.count(path)) continue;
            const fs::path p(path);
            if (std::any_of(unlisted.begin(), unlisted.end(),
                            [&](const fs::path& u) { return under(u, p); }))
                continue;  // under a folder (or a file) that could not be read: kept
            if (std::any_of(roots.begin(), roots.end(),
                            [&](const fs::path& r) { return under(r, p); }))
                gone.push_back(all.integer(0));
        }
        all.reset();
        statement del(h_, "DELETE FROM files WHERE id = ?");
        for (const std::int64_t id : gone) {
            count_messages_.bind(1, id);
            count_messages_.step();
            report_.messages_removed += static_cast<std::uint64_t>(count_messages_.integer(0));
            count_messages_.reset();
            del.bind(1, id).run();
            ++report_.files_removed;
        }
        finish();
    }

    void finish() {
        if (in_transaction_) h_.exec("COMMIT");
        in_transaction_ = false;
        // What the index now holds of this run: the counts, and how many diagnostics (not a
        // copy of them at every commit).
        committed_ = counts_of(report_);
        committed_diagnostics_ = report_.diagnostics.size();
    }
    /// The report as of the last COMMIT (what survives a transaction lost to contention).
    [[nodiscard]] index_report committed() const {
        index_report r = committed_;
        r.diagnostics.assign(
            report_.diagnostics.begin(),
            report_.diagnostics.begin() + static_cast<std::ptrdiff_t>(committed_diagnostics_));
        return r;
    }

private:
    // Starts a write transaction if none is open, and reads what the index has of every file
    // in it (one query, not one per file: a Maildir has 100,000 of them), so that decisions
    // are made on what no other writer can change until this one commits.
    void begin_transaction() {
        if (in_transaction_) return;
        h_.exec("BEGIN IMMEDIATE");
        in_transaction_ = true;
        pending_ = 0;
        known_.clear();
        statement all(h_,
                      "SELECT path, id, kind, format, size, mtime_ns, ctime_ns, inode, forced, "
                      "messages, complete FROM files");
        while (all.step())
            known_.emplace(all.text(0),
                           recorded{all.integer(1),
                                    kind_named(all.text(2)).value_or(source_kind::message),
                                    format_named(all.text(3)),
                                    {static_cast<std::uint64_t>(all.integer(4)), all.integer(5),
                                     all.integer(6), static_cast<std::uint64_t>(all.integer(7))},
                                    all.integer(8) != 0,
                                    static_cast<std::uint64_t>(all.integer(9)),
                                    all.integer(10) != 0});
    }

    // The messages of the old mbox `old` that grew to `bytes`, from its old end, when reading
    // the whole file would split the old part the same way (see index.hpp); else nullopt.
    std::optional<mbox_split> appended_messages(const recorded& old, const file_stat& st,
                                                std::string_view bytes) {
        const std::uint64_t n = old.st.size;
        if (!old.format || !old.complete || old.st.inode != st.inode || bytes.size() <= n ||
            n < 2 || *old.format == mbox_format::mboxcl2 ||
            old.forced != options_.format.has_value() ||
            (options_.format && *options_.format != *old.format))
            return std::nullopt;
        const std::string_view before = bytes.substr(0, n);
        if (!before.ends_with("\n\n") && !before.ends_with("\n\r\n")) return std::nullopt;
        const std::string_view added = bytes.substr(n);
        if (!added.starts_with("From ")) return std::nullopt;
        const std::uint64_t e = std::min<std::uint64_t>(n, edge);
        edges_.bind(1, old.id);
        const bool same_edges = edges_.step() && bytes.substr(0, e) == edges_.blob(0) &&
                                bytes.substr(n - e, e) == edges_.blob(1);
        edges_.reset();
        if (!same_edges) return std::nullopt;
        mbox_split sp = split_mbox(added, options_.format);
        if (sp.messages.empty() || sp.messages.front().from_line != 0) return std::nullopt;
        // Splitting does not depend on the quoting style: an mboxrd file stays mboxrd when the
        // new messages alone look mboxo (it only says how they are unquoted).
        if (sp.format == mbox_format::mboxo && *old.format == mbox_format::mboxrd)
            sp.format = mbox_format::mboxrd;
        if (sp.format != *old.format) return std::nullopt;
        return sp;
    }

    void read(const source_file& f, const file_stat& st, const std::optional<recorded>& old) {
        std::error_code ec;
        // Mapped: of a mailbox that grew, only the new messages are read.
        input_buffer in = input_buffer::open(f.path.string(), ec);
        if (ec) {
            report_.problems.push_back(f.path.string() + ": cannot read: " + ec.message());
            return;
        }
        const std::string_view bytes = in.bytes();
        std::uint64_t from = 0, number = 0;
        std::optional<mbox_split> appended;
        if (old && f.kind == source_kind::mbox && old->kind == source_kind::mbox)
            appended = appended_messages(*old, st, bytes);
        if (appended) {
            from = old->st.size;
            number = old->messages;
        } else if (old) {
            count_messages_.bind(1, old->id);
            count_messages_.step();
            report_.messages_removed += static_cast<std::uint64_t>(count_messages_.integer(0));
            count_messages_.reset();
            delete_messages_.bind(1, old->id).run();
        }
        std::optional<mbox_format> kept_format;
        bool complete = true;
        std::int64_t file_id = old ? old->id : 0;
        const auto write_file_row = [&](std::uint64_t messages) {
            statement& s = old ? update_file_ : insert_file_;
            const int k = old ? 0 : 1;
            if (!old) s.bind(1, f.path.string());
            s.bind(1 + k, source_kind_name(f.kind));
            if (kept_format)
                s.bind(2 + k, mbox_format_name(*kept_format));
            else
                s.bind_null(2 + k);
            s.bind(3 + k, static_cast<std::int64_t>(bytes.size()));
            s.bind(4 + k, st.mtime_ns);
            s.bind(5 + k, st.ctime_ns);
            s.bind(6 + k, static_cast<std::int64_t>(st.inode));
            s.bind(7 + k, options_.format ? 1 : 0);
            if (f.kind == source_kind::mbox) {  // only an mbox is read from its old end
                s.bind_blob(8 + k, bytes.substr(0, std::min<std::size_t>(bytes.size(), edge)));
                s.bind_blob(9 + k,
                            bytes.substr(bytes.size() - std::min<std::size_t>(bytes.size(), edge)));
            } else {
                s.bind_null(8 + k);
                s.bind_null(9 + k);
            }
            s.bind(10 + k, static_cast<std::int64_t>(messages));
            s.bind(11 + k, complete ? 1 : 0);
            if (old) s.bind(12, old->id);
            s.run();
            if (!old) file_id = sqlite3_last_insert_rowid(h_.db);
        };
        if (f.kind == source_kind::mbox) {
            const std::string_view region = bytes.substr(from);
            const mbox_split split =
                appended ? std::move(*appended) : split_mbox(region, options_.format);
            kept_format = split.format;
            // Appending after it reads the same only if no length took part in the split.
            complete = (!old || !appended || old->complete) && split.ended_by_length == 0 &&
                       split.format != mbox_format::mboxcl2;
            for (const diagnostic& d : split.diagnostics) {
                complete &= d.code != diag_code::mbox_truncated &&
                            d.code != diag_code::mbox_bad_content_length;
                diagnostic c = d;
                c.offset += from;
                c.part_path = f.path.string();
                if (d.part_path.size() > 1 && d.part_path.front() == '#') {
                    std::uint64_t n = 0;
                    for (char ch : std::string_view(d.part_path).substr(1))
                        n = n * 10 + static_cast<std::uint64_t>(ch - '0');
                    c.part_path += "#" + std::to_string(n + number);
                }
                report_.diagnostics.push_back(std::move(c));
            }
            write_file_row(number + split.messages.size());
            std::string storage;
            for (const mbox_message& m : split.messages) {
                ++number;
                const std::string_view text = message_text(region, m, split.format, storage);
                add_message(file_id, number, from + m.offset, m.size, m.quoted, text, {});
            }
        } else {
            write_file_row(1);
            add_message(file_id, 1, 0, bytes.size(), false, bytes, f.flags);
        }
        report_.bytes_read += bytes.size() - from;
        if (from > 0)
            ++report_.files_appended;
        else
            ++report_.files_read;
    }

    void add_message(std::int64_t file_id, std::uint64_t number, std::uint64_t offset,
                     std::uint64_t size, bool quoted, std::string_view text,
                     std::string_view flags) {
        mime::parse_options po;
        po.limits = options_.limits;
        const mime::document doc = mime::document::parse(text, po);
        archive::aggregate_options ao;
        ao.max_diagnostics = options_.limits.max_diagnostics;
        const archive::aggregate agg = archive::aggregate::build(doc, ao);
        const mime::part_view root = doc.root();
        parts_.clear();
        std::uint64_t leaves = 0;
        for (std::size_t i = 0; i < doc.size(); ++i) {
            const mime::part_view p = doc.part(i);
            indexed_part ip;
            ip.path = p.path();
            if (const auto f = p.header("Content-ID")) ip.content_id = uri::id_key(f->raw_value());
            const auto parent = p.parent();
            if (parent && parent->kind() == mime::entity_kind::message)
                if (const auto f = p.header("Message-ID"))
                    ip.message_id = uri::id_key(f->raw_value());
            ip.location = agg.location(p);
            ip.type = p.content_type().essence();
            if (p.is_leaf()) {
                ++leaves;
                body_.clear();
                p.decode_to(body_);
                ip.decoded_size = body_.size();
            }
            parts_.push_back(std::move(ip));
        }
        statement& m = insert_message_;
        m.bind(1, file_id);
        m.bind(2, static_cast<std::int64_t>(number));
        m.bind(3, static_cast<std::int64_t>(offset));
        m.bind(4, static_cast<std::int64_t>(size));
        m.bind(5, quoted ? 1 : 0);
        if (const auto f = root.header("Message-ID"))
            m.bind(6, uri::id_key(f->raw_value()));
        else
            m.bind_null(6);
        m.bind(7, field_text(root, "Date"));
        m.bind(8, field_text(root, "From"));
        m.bind(9, field_text(root, "Subject"));
        m.bind(10, field_raw(root, "In-Reply-To"));
        m.bind(11, field_raw(root, "References"));
        m.bind(12, flags.empty() ? std::string_view("") : flags);  // '' for an mbox too
        m.bind(13, static_cast<std::int64_t>(leaves));
        m.bind(14, static_cast<std::int64_t>(doc.diagnostics().size()));
        m.run();
        const std::int64_t message_id = sqlite3_last_insert_rowid(h_.db);
        for (const indexed_part& ip : parts_) {
            statement& s = insert_part_;
            s.bind(1, message_id);
            s.bind(2, ip.path);
            if (ip.content_id.empty())
                s.bind_null(3);
            else
                s.bind(3, ip.content_id);
            if (ip.message_id.empty())
                s.bind_null(4);
            else
                s.bind(4, ip.message_id);
            if (ip.location)
                s.bind(5, *ip.location);
            else
                s.bind_null(5);
            s.bind(6, ip.type);
            if (ip.decoded_size)
                s.bind(7, static_cast<std::int64_t>(*ip.decoded_size));
            else
                s.bind_null(7);
            s.run();
        }
        ++report_.messages_added;
        report_.parts_added += parts_.size();
        ++pending_;
    }

    const db_handle& h_;
    const index_options& options_;
    index_report& report_;
    mhtml::detail::keyed_string_map<recorded> known_;
    statement edges_, insert_file_, update_file_, count_messages_, delete_messages_,
        insert_message_, insert_part_, savepoint_, release_, rollback_;
    bool in_transaction_ = false;
    index_report committed_;  // its counts (diagnostics: the first committed_diagnostics_)
    std::size_t committed_diagnostics_ = 0;

    static index_report counts_of(const index_report& r) {  // all but the diagnostics
        index_report c;
        c.files = r.files;
        c.files_unchanged = r.files_unchanged;
        c.problems = r.problems;
        add_counts(c, r);
        return c;
    }
    std::uint64_t pending_ = 0;
    std::vector<indexed_part> parts_;
    std::string body_;
};

}  // namespace

namespace {

// One update at a time per index: an flock(2) on a lock file beside it, DB.update-lock, for the
// whole update. A second `mhtml index` waits for the first rather than racing it through
// SQLite's WAL locks, where two writers that commit often can make each other fail
// (SQLITE_PROTOCOL); readers are not affected. Never a descriptor of the database itself:
// closing any descriptor of a file drops every fcntl(2) lock the process holds on it, SQLite's
// included.
class update_lock {
public:
    explicit update_lock(const std::string& db)
        : fd_(::open((db + ".update-lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
        if (fd_ >= 0)
            while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
            }
    }
    ~update_lock() {
        if (fd_ >= 0) ::close(fd_);  // releases the lock
    }
    update_lock(const update_lock&) = delete;
    update_lock& operator=(const update_lock&) = delete;

private:
    int fd_;
};

// Adds what `from` did (files read and removed, messages, parts, octets, diagnostics) to
// `into`; the listing's counts (files, unchanged, problems) are left as they are.
void add_work(index_report& into, index_report&& from) {
    add_counts(into, from);
    for (diagnostic& d : from.diagnostics) into.diagnostics.push_back(std::move(d));
}

}  // namespace

index_report index::update(const std::vector<fs::path>& sources, const index_options& options) {
    if (p_->read_only) throw store_error(p_->h.name + ": opened read-only");
    const update_lock lock(p_->h.name);
    index_report report;
    // The index's own files are never opened by the walk: closing a descriptor of one drops
    // every fcntl lock this process holds on it, SQLite's included (a folder that holds its
    // index: another process then took the WAL index for unused and truncated it under this
    // one, SIGBUS in sqlite3WalFrames, seen in StoreIndex.TwoUpdatesAtOnceAddEachMessageOnce).
    source_listing listing =
        list_sources(sources, options.format.has_value(), database_files(p_->h.name));
    report.problems = std::move(listing.problems);
    // What is committed stays committed: after contention (another process writing the index
    // too) the update runs again, and finds the files done so far unchanged.
    for (int attempt = 0;; ++attempt) {
        index_report partial;
        partial.problems = report.problems;
        writer w(p_->h, options, partial);
        std::set<std::string> seen;
        try {
            for (const source_file& f : listing.files) {
                seen.insert(f.path.string());
                w.file(f);
            }
            w.finish();
            w.remove_missing(sources, seen, listing.unlisted);
            // The counts of this run, plus what earlier runs committed before they were cut
            // (the files those read, this run found unchanged).
            partial.files_unchanged -=
                std::min(partial.files_unchanged, report.files_read + report.files_appended);
            add_work(partial, std::move(report));
            return partial;
        } catch (const contention_error&) {
            sqlite3_exec(p_->h.db, "ROLLBACK", nullptr, nullptr, nullptr);
            if (attempt >= 5) throw;
            // Keep what the committed part of this run did (its files now look unchanged);
            // what the lost transaction did is done again by the next run.
            add_work(report, w.committed());
            back_off(attempt * 10);
        } catch (...) {
            sqlite3_exec(p_->h.db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }
}

namespace {

message_record record_from(const statement& s) {
    message_record r;
    r.id = s.integer(0);
    r.file = s.text(1);
    r.kind = kind_named(s.text(2)).value_or(source_kind::message);
    r.format = format_named(s.text(3)).value_or(mbox_format::mboxo);
    r.number = static_cast<std::uint64_t>(s.integer(4));
    r.offset = static_cast<std::uint64_t>(s.integer(5));
    r.size = static_cast<std::uint64_t>(s.integer(6));
    r.quoted = s.integer(7) != 0;
    r.message_id = s.text(8);
    r.date = s.text(9);
    r.from = s.text(10);
    r.subject = s.text(11);
    r.in_reply_to = s.text(12);
    r.references = s.text(13);
    r.flags = s.text(14);
    r.file_size = static_cast<std::uint64_t>(s.integer(15));
    r.file_mtime_ns = s.integer(16);
    r.file_ctime_ns = s.integer(17);
    r.file_inode = static_cast<std::uint64_t>(s.integer(18));
    return r;
}

constexpr const char* message_columns =
    "m.id, f.path, f.kind, f.format, m.number, m.offset, m.size, m.quoted, m.message_id, m.date, "
    "m.from_, m.subject, m.in_reply_to, m.refs, m.flags, f.size, f.mtime_ns, f.ctime_ns, "
    "f.inode";

// The two queries of a Message-ID lookup, prepared once per connection.
struct lookup {
    statement top, inner;
    explicit lookup(const db_handle& h)
        : top(h, (std::string("SELECT ") + message_columns +
                  " FROM messages m JOIN files f ON f.id = m.file WHERE m.message_id = ? ORDER "
                  "BY f.path, m.offset")
                     .c_str()),
          inner(h, (std::string("SELECT DISTINCT ") + message_columns +
                    " FROM parts p JOIN messages m ON m.id = p.message JOIN files f ON f.id = "
                    "m.file WHERE p.message_id = ? ORDER BY f.path, m.offset")
                       .c_str()) {}
    std::vector<message_record> find(std::string_view message_id) {
        std::vector<message_record> out;
        for (statement* s : {&top, &inner}) {
            s->bind(1, message_id);
            while (s->step()) out.push_back(record_from(*s));
            s->reset();
        }
        return out;
    }
};

std::uint64_t count(const db_handle& h, const char* sql) {
    statement s(h, sql);
    s.step();
    return static_cast<std::uint64_t>(s.integer(0));
}

}  // namespace

std::vector<message_record> index::find_message(std::string_view message_id) const {
    return lookup(p_->h).find(message_id);
}
std::uint64_t index::message_count() const {
    return count(p_->h, "SELECT count(*) FROM messages");
}
std::uint64_t index::part_count() const {
    return count(p_->h, "SELECT count(*) FROM parts");
}
std::uint64_t index::file_count() const {
    return count(p_->h, "SELECT count(*) FROM files");
}

// --- the message store ---

struct indexed_store::impl {
    db_handle h;
    parse_limits limits;
    std::mutex mutex;
    struct loaded {
        message_record record;
        std::string storage;  // the message (unquoted), which doc borrows
        std::optional<mime::document> doc;
        std::optional<archive::aggregate> agg;
    };
    std::optional<lookup> queries;  // prepared on first use
    std::map<std::int64_t, std::unique_ptr<loaded>> messages;
    std::vector<std::unique_ptr<loaded>> retired;  // replaced, but their part_views may live
    std::map<const mime::document*, const loaded*> by_document;

    // The message's octets, read with pread (a mailbox may be gigabytes: mapping it to read one
    // message costs more than reading that message); nullopt when the file is gone or shorter.
    // Only from the file as it was indexed: a message file changed since (edited, grown, cut,
    // replaced) names nothing until it is indexed again. An mbox may have grown (mail is
    // delivered by appending): its messages are read while it is the same file, no shorter.
    static std::optional<std::string> read_range(const message_record& r) {
        const std::uint64_t offset = r.offset, size = r.size;
        // O_NONBLOCK: a FIFO put in the file's place does not block the lookup (fstat then
        // refuses it).
        const int fd = ::open(r.file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) return std::nullopt;
        std::optional<std::string> out;
        struct stat st {};
        const file_stat indexed{r.file_size, r.file_mtime_ns, r.file_ctime_ns, r.file_inode};
        const auto same_file = [&] {
            const file_stat now = stat_from(st);
            if (r.kind == source_kind::mbox)
                return now.inode == indexed.inode && now.size >= indexed.size;
            return now == indexed;
        };
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && same_file() &&
            offset <= static_cast<std::uint64_t>(st.st_size) &&
            size <= static_cast<std::uint64_t>(st.st_size) - offset) {
            std::string buf(size, '\0');
            std::uint64_t done = 0;
            while (done < size) {
                const ssize_t n =
                    ::pread(fd, buf.data() + done, size - done, static_cast<off_t>(offset + done));
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) break;
                done += static_cast<std::uint64_t>(n);
            }
            if (done == size) out = std::move(buf);
        }
        ::close(fd);
        return out;
    }

    const loaded* load(const message_record& r) {
        if (auto it = messages.find(r.id); it != messages.end()) {
            const message_record& had = it->second->record;
            if (had.file == r.file && had.offset == r.offset && had.size == r.size &&
                had.file_size == r.file_size && had.file_inode == r.file_inode &&
                had.file_mtime_ns == r.file_mtime_ns && had.file_ctime_ns == r.file_ctime_ns)
                return it->second.get();
            retired.push_back(std::move(it->second));  // the row was reused or the file changed
            messages.erase(it);
        }
        std::optional<std::string> bytes = read_range(r);
        if (!bytes) return nullptr;  // gone or cut since it was indexed: not found
        auto l = std::make_unique<loaded>();
        l->record = r;
        l->storage = r.kind == source_kind::mbox && r.quoted && r.format != mbox_format::mboxcl2
                         ? unquote(*bytes, r.format)
                         : std::move(*bytes);
        mime::parse_options po;
        po.limits = limits;
        l->doc.emplace(mime::document::parse(std::string_view(l->storage), po));
        archive::aggregate_options ao;
        ao.max_diagnostics = limits.max_diagnostics;
        l->agg.emplace(archive::aggregate::build(*l->doc, ao));
        by_document[&*l->doc] = l.get();
        return (messages[r.id] = std::move(l)).get();
    }
};

indexed_store::indexed_store(const fs::path& db, const parse_limits& limits)
    : p_(std::make_unique<impl>()) {
    p_->limits = limits;
    open_db(p_->h, db, true);
}

indexed_store::~indexed_store() = default;

std::optional<mime::part_view> indexed_store::find(std::string_view message_id,
                                                   std::string_view content_id) const {
    if (message_id.empty()) return std::nullopt;
    const auto url = uri::ids_to_mid(message_id, content_id);
    if (!url) return std::nullopt;
    std::lock_guard lock(p_->mutex);
    if (!p_->queries) p_->queries.emplace(p_->h);
    for (const message_record& r : p_->queries->find(message_id)) {
        const impl::loaded* l = p_->load(r);
        if (!l) continue;
        // The aggregate of the loaded message resolves it as one of its own messages; a
        // message that no longer has this Message-ID (the file changed) names nothing.
        archive::resolution res = l->agg->resolve(l->doc->root(), url.value);
        if (res.target) return res.target;
    }
    return std::nullopt;
}

std::optional<message_record> indexed_store::record_of(const mime::part_view& p) const {
    std::lock_guard lock(p_->mutex);
    const auto it = p_->by_document.find(&p.doc());
    if (it == p_->by_document.end()) return std::nullopt;
    return it->second->record;
}

}  // namespace mhtml::store
