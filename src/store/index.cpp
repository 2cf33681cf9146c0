// The SQLite message index and the message store over it (include/mhtml/store/index.hpp).

#include "mhtml/store/index.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
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

fs::path normal(const fs::path& p) {
    std::error_code ec;
    fs::path a = fs::absolute(p, ec);
    return (ec ? p : a).lexically_normal();
}

// The first octets of a file, enough for looks_like_mbox.
std::string file_head(const fs::path& p) {
    std::string out;
    if (std::FILE* f = std::fopen(p.c_str(), "rb")) {
        out.resize(4096);
        out.resize(std::fread(out.data(), 1, out.size(), f));
        std::fclose(f);
    }
    return out;
}

bool message_name(const fs::path& p) {
    std::string ext = p.extension().string();
    for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return ext == ".eml" || ext == ".mht" || ext == ".mhtml";
}

void add_maildir(const fs::path& folder, source_listing& out) {
    maildir_listing l = list_maildir(folder);
    for (auto& m : l.messages)
        out.files.push_back(
            {normal(m.path), source_kind::maildir, m.flags, m.size, m.inode, m.mtime_ns});
    for (auto& p : l.problems) out.problems.push_back(std::move(p));
}

void walk(const fs::path& folder, source_listing& out, std::size_t depth) {
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
    if (ec) out.problems.push_back(folder.string() + ": " + ec.message());
    std::sort(entries.begin(), entries.end());
    for (const fs::path& e : entries) {
        const std::string name = e.filename().string();
        if (name.empty() || name.front() == '.') continue;
        std::error_code se;
        const fs::file_status st = fs::symlink_status(e, se);
        if (se || fs::is_symlink(st)) continue;
        if (fs::is_directory(st)) {
            walk(e, out, depth + 1);
        } else if (fs::is_regular_file(st)) {
            if (looks_like_mbox(file_head(e)))
                out.files.push_back({normal(e), source_kind::mbox, {}, {}, {}, 0});
            else if (message_name(e))
                out.files.push_back({normal(e), source_kind::message, {}, {}, {}, 0});
        }
    }
}

// --- SQLite ---

struct db_handle {
    sqlite3* db = nullptr;
    std::string name;
    ~db_handle() {
        if (db) sqlite3_close_v2(db);
    }
    [[noreturn]] void fail(std::string_view what) const {
        throw store_error(name + ": " + std::string(what) + ": " +
                          (db ? sqlite3_errmsg(db) : "cannot open"));
    }
    void exec(const char* sql) const {
        char* err = nullptr;
        if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "error";
            sqlite3_free(err);
            throw store_error(name + ": " + msg + " (" + std::string(sql).substr(0, 60) + ")");
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
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        h_->fail("a statement failed");
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
  inode INTEGER NOT NULL,
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
    std::int64_t mtime_ns = 0;
    std::uint64_t inode = 0;
};

std::optional<file_stat> stat_of(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return std::nullopt;
    return file_stat{static_cast<std::uint64_t>(st.st_size),
                     static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                     static_cast<std::uint64_t>(st.st_ino)};
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

source_listing list_sources(const std::vector<fs::path>& sources, bool force_mbox) {
    source_listing out;
    for (const fs::path& s : sources) {
        std::error_code ec;
        const fs::file_status st = fs::status(s, ec);
        if (ec) {
            out.problems.push_back(s.string() + ": " + ec.message());
        } else if (fs::is_directory(st)) {
            walk(s, out, 0);
        } else if (fs::is_regular_file(st)) {
            const bool mbox = force_mbox || looks_like_mbox(file_head(s));
            out.files.push_back(
                {normal(s), mbox ? source_kind::mbox : source_kind::message, {}, {}, {}, 0});
        } else {
            out.problems.push_back(s.string() + ": not a file or folder");
        }
    }
    std::sort(out.files.begin(), out.files.end(), [](const source_file& a, const source_file& b) {
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

class writer {
public:
    writer(const db_handle& h, const index_options& o, index_report& r)
        : h_(h),
          options_(o),
          report_(r),
          edges_(h, "SELECT head, tail FROM files WHERE id = ?"),
          insert_file_(h,
                       "INSERT INTO files(path, kind, format, size, mtime_ns, inode, head, tail, "
                       "messages, complete) VALUES(?,?,?,?,?,?,?,?,?,?)"),
          update_file_(h,
                       "UPDATE files SET kind=?, format=?, size=?, mtime_ns=?, inode=?, head=?, "
                       "tail=?, messages=?, complete=? WHERE id=?"),
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
          release_(h, "RELEASE file") {
        // What the index has of every file, read once (a re-index of a Maildir of 100,000
        // files would otherwise make as many queries).
        statement all(h,
                      "SELECT path, id, kind, format, size, mtime_ns, inode, messages, complete "
                      "FROM files");
        while (all.step())
            known_.emplace(all.text(0),
                           recorded{all.integer(1),
                                    kind_named(all.text(2)).value_or(source_kind::message),
                                    format_named(all.text(3)),
                                    {static_cast<std::uint64_t>(all.integer(4)), all.integer(5),
                                     static_cast<std::uint64_t>(all.integer(6))},
                                    static_cast<std::uint64_t>(all.integer(7)),
                                    all.integer(8) != 0});
    }

    void file(const source_file& f) {
        ++report_.files;
        const auto st = f.size && f.inode
                            ? std::optional<file_stat>(file_stat{*f.size, f.mtime_ns, *f.inode})
                            : stat_of(f.path);
        if (!st) {
            report_.problems.push_back(f.path.string() + ": cannot read: " +
                                       std::error_code(errno, std::generic_category()).message());
            return;
        }
        std::optional<recorded> old;
        if (const auto it = known_.find(f.path.string()); it != known_.end()) old = it->second;
        if (old && old->kind == f.kind && old->st.size == st->size &&
            old->st.mtime_ns == st->mtime_ns && old->st.inode == st->inode) {
            ++report_.files_unchanged;
            return;
        }
        std::error_code ec;
        input_buffer in = input_buffer::open(f.path.string(), ec);
        if (ec) {
            report_.problems.push_back(f.path.string() + ": cannot read: " + ec.message());
            return;
        }
        const std::string_view bytes = in.bytes();
        // An mbox that only grew is read from its old end: its recorded edges are unchanged,
        // it ended with a complete message, and the new octets split into messages from their
        // first octet, in a format that reading the whole file would also find.
        std::uint64_t from = 0, number = 0;
        std::optional<mbox_split> appended;
        if (old && f.kind == source_kind::mbox && old->kind == source_kind::mbox && old->format &&
            old->complete && old->st.inode == st->inode && bytes.size() > old->st.size &&
            (!options_.format || *options_.format == *old->format)) {
            const std::uint64_t n = old->st.size;
            const std::uint64_t e = std::min<std::uint64_t>(n, edge);
            const std::string_view added = bytes.substr(n);
            edges_.bind(1, old->id);
            const bool same_edges = edges_.step() && bytes.substr(0, e) == edges_.blob(0) &&
                                    bytes.substr(n - e, e) == edges_.blob(1);
            edges_.reset();
            if (same_edges && added.starts_with("From ")) {
                mbox_split sp = split_mbox(added, options_.format);
                // Quoting styles only differ in unquoting, lengths only count in mboxcl2: an
                // mboxrd or mboxcl2 file stays one when new messages look mboxo.
                const bool same =
                    sp.format == *old->format ||
                    (sp.format == mbox_format::mboxo && *old->format == mbox_format::mboxrd);
                if (same && sp.format != *old->format) sp = split_mbox(added, old->format);
                if (same && !sp.messages.empty() && sp.messages.front().from_line == 0) {
                    from = n;
                    number = old->messages;
                    appended = std::move(sp);
                }
            }
        }
        begin_file();
        if (old && from == 0) {
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
            const std::string_view head =
                bytes.substr(0, std::min<std::size_t>(bytes.size(), edge));
            const std::string_view tail =
                bytes.substr(bytes.size() - std::min<std::size_t>(bytes.size(), edge));
            statement& s = old ? update_file_ : insert_file_;
            const int k = old ? 0 : 1;
            if (!old) s.bind(1, f.path.string());
            s.bind(1 + k, source_kind_name(f.kind));
            if (kept_format)
                s.bind(2 + k, mbox_format_name(*kept_format));
            else
                s.bind_null(2 + k);
            s.bind(3 + k, static_cast<std::int64_t>(bytes.size()));
            s.bind(4 + k, st->mtime_ns);
            s.bind(5 + k, static_cast<std::int64_t>(st->inode));
            if (f.kind == source_kind::mbox) {  // only an mbox is read from its old end
                s.bind_blob(6 + k, head);
                s.bind_blob(7 + k, tail);
            } else {
                s.bind_null(6 + k);
                s.bind_null(7 + k);
            }
            s.bind(8 + k, static_cast<std::int64_t>(messages));
            s.bind(9 + k, complete ? 1 : 0);
            if (old) s.bind(10, old->id);
            s.run();
            if (!old) file_id = sqlite3_last_insert_rowid(h_.db);
        };
        if (f.kind == source_kind::mbox) {
            const std::string_view region = bytes.substr(from);
            const mbox_split split =
                appended ? std::move(*appended) : split_mbox(region, options_.format);
            kept_format = split.format;
            for (const diagnostic& d : split.diagnostics) {
                complete &= d.code != diag_code::mbox_truncated;
                diagnostic c = d;
                c.offset += from;
                std::uint64_t n = 0;
                for (char ch : d.part_path.substr(1))
                    n = n * 10 + static_cast<std::uint64_t>(ch - '0');
                c.part_path = f.path.string() + "#" + std::to_string(n + number);
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
        end_file();
    }

    void remove_missing(const std::vector<fs::path>& sources, const std::set<std::string>& seen) {
        statement all(h_, "SELECT id, path FROM files");
        std::vector<std::pair<std::int64_t, std::string>> gone;
        while (all.step()) {
            std::string path = all.text(1);
            if (seen.count(path)) continue;
            const fs::path p(path);
            for (const fs::path& s : sources) {
                fs::path root = normal(s);
                if (root.filename().empty()) root = root.parent_path();  // "dir/"
                auto [a, b] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
                if (a == root.end()) {
                    gone.emplace_back(all.integer(0), std::move(path));
                    break;
                }
            }
        }
        all.reset();
        if (gone.empty()) return;
        h_.exec("BEGIN IMMEDIATE");
        statement del(h_, "DELETE FROM files WHERE id = ?");
        for (const auto& [id, path] : gone) {
            count_messages_.bind(1, id);
            count_messages_.step();
            report_.messages_removed += static_cast<std::uint64_t>(count_messages_.integer(0));
            count_messages_.reset();
            del.bind(1, id).run();
            ++report_.files_removed;
        }
        h_.exec("COMMIT");
    }

    void finish() {
        if (in_transaction_) h_.exec("COMMIT");
        in_transaction_ = false;
    }

private:
    void begin_file() {
        if (!in_transaction_) {
            h_.exec("BEGIN IMMEDIATE");
            in_transaction_ = true;
            pending_ = 0;
        }
        savepoint_.run();
    }
    // Files are batched into transactions of about 20,000 messages; a file's rows are never
    // split between two.
    void end_file() {
        release_.run();
        if (pending_ >= 20000) {
            h_.exec("COMMIT");
            in_transaction_ = false;
        }
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
        m.bind(12, flags);
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
    struct recorded {
        std::int64_t id;
        source_kind kind;
        std::optional<mbox_format> format;
        file_stat st;
        std::uint64_t messages;
        bool complete;
    };
    mhtml::detail::keyed_string_map<recorded> known_;
    statement edges_, insert_file_, update_file_, count_messages_, delete_messages_,
        insert_message_, insert_part_, savepoint_, release_;
    bool in_transaction_ = false;
    std::uint64_t pending_ = 0;
    std::vector<indexed_part> parts_;
    std::string body_;
};

}  // namespace

index_report index::update(const std::vector<fs::path>& sources, const index_options& options) {
    if (p_->read_only) throw store_error(p_->h.name + ": opened read-only");
    index_report report;
    source_listing listing = list_sources(sources, options.format.has_value());
    report.problems = std::move(listing.problems);
    writer w(p_->h, options, report);
    std::set<std::string> seen;
    try {
        for (const source_file& f : listing.files) {
            seen.insert(f.path.string());
            w.file(f);
        }
        w.finish();
        w.remove_missing(sources, seen);
    } catch (...) {
        sqlite3_exec(p_->h.db, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    return report;
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
    return r;
}

constexpr const char* message_columns =
    "m.id, f.path, f.kind, f.format, m.number, m.offset, m.size, m.quoted, m.message_id, m.date, "
    "m.from_, m.subject, m.in_reply_to, m.refs, m.flags";

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
    std::map<const mime::document*, const loaded*> by_document;

    // The message's octets, read with pread (a mailbox may be gigabytes: mapping it to read one
    // message costs more than reading that message); nullopt when the file is gone or shorter.
    static std::optional<std::string> read_range(const fs::path& file, std::uint64_t offset,
                                                 std::uint64_t size) {
        const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return std::nullopt;
        std::optional<std::string> out;
        struct stat st {};
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
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
        if (auto it = messages.find(r.id); it != messages.end()) return it->second.get();
        std::optional<std::string> bytes = read_range(r.file, r.offset, r.size);
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
