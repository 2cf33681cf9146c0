#pragma once
/// view::server: the viewer server of the text/html draft's Annex A (the proxy design). A
/// local HTTP server answers a browser's requests from the body parts of archives, never from
/// the network (MHT-12.1, 12.3 to 12.5, THTML-14.2).
///
/// Sources are archive files, mailboxes and folders of them, listed as `mhtml index` lists
/// them (store::list_sources): in a folder, searched recursively without following links,
/// .mht, .mhtml, .mhtm and .eml files, files that start like an mbox, and Maildirs; a file
/// named on its own is a mailbox when it starts like one, else an archive whatever its name.
/// Every message of a mailbox is served as an archive of its own ("NAME #N"), under a ticket of
/// its own. Sources are only listed at start (an mbox is split then, read whole and let go); an
/// archive or message is read when first asked for, and a background thread reads the others
/// in turn for the index page's columns. A message of an mbox is read from its range; when the
/// mailbox changed, it is split again, and a message that is no longer at its place (its number
/// now names another Message-ID, or, for one without, other first octets) is an error. A Maildir
/// message renamed by a reader (its flags) is found again by its unique name.
///
/// `mid:` URLs (RFC 2392, CID-6, MHT-8.3) that name no message of their own archive resolve
/// among the served messages (by Message-ID, read on the first lookup) and then in the index of
/// serve_options::store. A link to another message (or a part of it) leads to that message's
/// page under its own ticket; a resource of another message that is not a document (an image,
/// a font) is served under the ticket of the page that names it, at `/T/m/OTHER/PATH`, and only
/// that very part, after one of the page's archive's pages named it (a plugin's object of it is
/// blocked as the page's own would be); a frame of another message is not shown (its ticket is not
/// the page's). So a page still loads nothing outside its own ticket.
///
/// URLs (all of one archive's under its ticket, 128 random bits new per run, or an HMAC of
/// the archive's path with `secret`, so that bookmarks survive a restart):
///  * `/`: the index of archives (title, original URL, date, size, parts, diagnostics), with
///    a filter (`?q=`), as plain HTML;
///  * `/T/`: the archive's root document;
///  * `/T/r/SCHEME/AUTHORITY/PATH?QUERY`: the part labelled SCHEME://AUTHORITY/PATH?QUERY
///    (http and https labels), so that a page keeps a path like its original URL;
///  * `/T/part/PATH`: the part at that IMAP-style path (`?download` as an attachment);
///  * `/T/parts`, `/T/check`: the part tree, and what `mhtml check` finds;
///  * `/T/missing?u=URL`: the page a reference that names no part is sent to (404);
///  * `/T/m/OTHER/PATH`: the part at PATH of the message served as OTHER, when T's pages
///    name it by a `mid:` URL (see above).
/// Documents (HTML, CSS, SVG) are served with every reference that names a part rewritten to
/// that part's URL (archive::aggregate's resolution: the translation table of THTML A.3), and
/// every other reference a browser would fetch rewritten to the missing page: nothing a page
/// loads leaves the server, and nothing outside its archive's ticket.
///
/// Every response carries `Cache-Control: no-store` (MHT-12.4), `X-Content-Type-Options:
/// nosniff` and `Referrer-Policy: no-referrer`. An archive's parts carry a
/// Content-Security-Policy whose sources are the archive's own URLs (its ticket's path), with
/// no script unless `allow_scripts`; then scripts run in a sandbox with an opaque origin (no
/// popups; no response of the server, storage or cookie is theirs to read) and may load
/// nothing outside the ticket's path, though they can navigate their own page anywhere.
/// Nothing under a ticket redirects (after a redirect a policy's path is not checked): `/T/`
/// is the root itself, and a part whose URL would hold a dot segment is served at /T/part/.
///
/// Requests: GET and HEAD only (else 405); the Host header must name the loopback address,
/// `localhost` or the address listened on, with the server's port (else 421: DNS
/// rebinding); header blocks over `max_header_bytes` get 431; a request must arrive within
/// `request_timeout` (slow senders are cut off); at most `max_connections` at once.
/// An archive is read into memory, not mapped, so a file cut or replaced on disk cannot fault
/// the server; each request checks the file's size, time and inode, and reads it again when
/// they changed (a removed or unreadable file gets an error page).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mhtml/export.hpp"

namespace mhtml::view {

/// One request, as the access log reports it.
struct access_entry {
    std::string remote;  ///< address:port of the client
    std::string method;
    std::string target;
    unsigned status = 0;
    std::uint64_t bytes = 0;  ///< body octets sent (the length for HEAD)
    double milliseconds = 0;
};

struct serve_options {
    /// The address to listen on. Anything but a loopback address exposes the archives to the
    /// network (the CLI warns).
    std::string listen = "127.0.0.1";
    std::uint16_t port = 0;  ///< 0: a free port (port() says which)
    unsigned threads = 0;    ///< 0: one per core
    /// Let received scripts run (sandboxed, loading only their archive's URLs; see above).
    bool allow_scripts = false;
    /// With a value: tickets are HMAC-SHA256(secret, where the archive is: its canonical path, or
    /// for a message of a mailbox the mailbox's path and its number, or the Maildir and its
    /// unique name), 128 bits.
    std::optional<std::string> secret;
    std::size_t max_header_bytes = 16 * 1024;
    std::chrono::milliseconds request_timeout{10'000};
    std::size_t max_connections = 10'000;
    /// Octets of archives kept in memory; the least recently used are let go beyond it.
    std::uint64_t memory_budget = 1ull << 30;
    /// Octets of responses kept ready (decoded or rewritten parts with their ETags); the least
    /// recently used are dropped beyond it, and a response over a quarter of it is not kept.
    /// Parts stored unencoded (7bit, 8bit, binary) are served from the archive's buffer and
    /// cost only their ETag here.
    std::uint64_t response_cache_bytes = 256ull << 20;
    /// Read every archive in the background for the index page's columns.
    bool index_in_background = true;
    /// An index made by `mhtml index` (store/index.hpp): `mid:` URLs that name no served
    /// message are looked up there, and the messages found are served on demand. The
    /// constructor throws store::store_error when it cannot be opened.
    std::optional<std::filesystem::path> store;
    /// Stop on SIGINT and SIGTERM (the CLI sets it).
    bool stop_on_signals = false;
    /// Called with an archive's octets when it is read (from the server's threads, for each
    /// reading of a changed file); what it returns is served instead of them, nullopt keeps
    /// them. The CLI's --fetch-external retrieves external bodies here.
    std::function<std::optional<std::string>(std::string_view)> prepare;
    /// Called once per request, from the server's threads (one at a time).
    std::function<void(const access_entry&)> log;
};

/// One source that could not be listed (a missing path, a folder that cannot be read).
struct source_problem {
    std::filesystem::path path;
    std::string message;
};

class MHTML_EXPORT server {
public:
    /// Lists the sources (folders recursively); nothing is read yet.
    server(const std::vector<std::filesystem::path>& sources, serve_options options = {});
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    /// Binds and listens; throws std::system_error when it cannot.
    void start();
    /// Serves until stop() (or a signal, with stop_on_signals); start() first.
    void run();
    /// Stops serving (from any thread, or a log callback); run() then returns.
    void stop();

    [[nodiscard]] std::uint16_t port() const noexcept;
    /// The URL of the index page, e.g. "http://127.0.0.1:8080/".
    [[nodiscard]] std::string url() const;
    /// Octets the response cache holds now (serve_options::response_cache_bytes bounds it).
    [[nodiscard]] std::uint64_t cached_bytes() const;
    [[nodiscard]] std::size_t archive_count() const noexcept;
    /// The ticket of the archive at `path` (as listed), or of its message number `message` (from
    /// 1, in the order listed) for a mailbox; "" when it is not served.
    [[nodiscard]] std::string ticket_of(const std::filesystem::path& path,
                                        std::uint64_t message = 0) const;
    [[nodiscard]] const std::vector<source_problem>& problems() const noexcept;

    struct impl;  ///< internal (src/view/serve.cpp)

private:
    std::unique_ptr<impl> impl_;
};

}  // namespace mhtml::view
