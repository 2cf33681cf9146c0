// mhtml serve PATH...: the viewer server (view/serve.hpp).

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/store/index.hpp"
#include "mhtml/view/serve.hpp"

extern char** environ;

namespace mhtml::cli {

namespace {

struct serve_cli_options {
    std::vector<std::string> paths;
    std::string listen;
    int port = 0;
    unsigned threads = 0;
    bool allow_scripts = false;
    std::string secret_file;
    std::string store;
    bool open = false;
    bool json_log = false;
    bool quiet = false;
    double timeout = 10;
    std::uint64_t memory = 1ull << 30;
    std::uint64_t cache = 256ull << 20;
    fetch_external_flags fetch;
    parse_limits limits;
};

// Raises the soft limit on open files to the hard one (at most 65,536): each connection takes
// a descriptor, and the usual soft limit of 1,024 would cap the server at some 960.
void raise_descriptor_limit() {
    rlimit rl{};
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    const rlim_t want = rl.rlim_max == RLIM_INFINITY ? 65536 : std::min<rlim_t>(rl.rlim_max, 65536);
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        rl.rlim_cur = want;
        ::setrlimit(RLIMIT_NOFILE, &rl);
    }
}

bool loopback(const std::string& a) {
    return a == "127.0.0.1" || a == "::1" || a.starts_with("127.");
}

void log_line(const view::access_entry& e, bool json) {
    std::string line;
    if (json) {
        json_writer w(line);
        w.begin_object();
        w.key("remote");
        w.string(e.remote);
        w.key("method");
        w.string(e.method);
        w.key("target");
        w.string(e.target);
        w.key("status");
        w.number(e.status);
        w.key("bytes");
        w.number(e.bytes);
        w.key("microseconds");
        w.number(static_cast<std::uint64_t>(e.milliseconds * 1000));
        w.end_object();
    } else {
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.1f", e.milliseconds);
        line = e.remote + " \"" + e.method + " " + e.target + "\" " + std::to_string(e.status) +
               " " + std::to_string(e.bytes) + " " + ms + " ms";
    }
    line += '\n';
    std::fputs(line.c_str(), stderr);
}

int run_serve(const serve_cli_options& o) {
    memory_for_long_runs();
    view::serve_options so;
    so.listen = o.listen.empty() ? "127.0.0.1" : o.listen;
    if (o.port < 0 || o.port > 65535) {
        std::cerr << "mhtml serve: --port must be 0 to 65535\n";
        return exit_usage;
    }
    so.port = static_cast<std::uint16_t>(o.port);
    so.threads = o.threads;
    so.allow_scripts = o.allow_scripts;
    so.stop_on_signals = true;
    if (!(o.timeout >= 0.1 && o.timeout <= 3600)) {
        std::cerr << "mhtml serve: --timeout must be 0.1 to 3600 seconds\n";
        return exit_usage;
    }
    so.request_timeout = std::chrono::milliseconds(static_cast<long>(o.timeout * 1000));
    if (!o.secret_file.empty()) {
        std::ifstream in(o.secret_file, std::ios::binary);
        std::string secret{std::istreambuf_iterator<char>(in), {}};
        if (!in.is_open() || (!in.good() && !in.eof())) {
            std::cerr << "mhtml serve: cannot read " << o.secret_file << '\n';
            return exit_usage;
        }
        while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r'))
            secret.pop_back();
        if (secret.size() < 16) {
            std::cerr << "mhtml serve: the secret in " << o.secret_file
                      << " is shorter than 16 octets\n";
            return exit_usage;
        }
        so.secret = std::move(secret);
    }
    if (!o.quiet) {
        const bool json = o.json_log;
        so.log = [json](const view::access_entry& e) { log_line(e, json); };
    }
    if (o.fetch.enabled) {
        const fetch_external_flags fetch = o.fetch;
        const parse_limits limits = o.limits;
        so.prepare = [fetch, limits](std::string_view bytes) -> std::optional<std::string> {
            return with_external_bodies("serve", bytes, limits, fetch);
        };
    }
    so.memory_budget = o.memory;
    so.response_cache_bytes = o.cache;
    if (!o.store.empty()) so.store = o.store;
    raise_descriptor_limit();
    std::vector<std::filesystem::path> paths(o.paths.begin(), o.paths.end());
    std::unique_ptr<view::server> made;
    try {
        made = std::make_unique<view::server>(paths, so);
    } catch (const store::store_error& e) {
        std::cerr << "mhtml serve: --store: " << e.what() << '\n';
        return exit_usage;
    }
    view::server& server = *made;
    for (const auto& p : server.problems())
        std::cerr << "mhtml serve: " << p.path.string() << ": " << p.message << '\n';
    if (server.archive_count() == 0) {
        std::cerr << "mhtml serve: no archive found (.mht, .mhtml, .mhtm or .eml files, mboxes "
                     "or Maildirs)\n";
        return exit_usage;
    }
    try {
        server.start();
    } catch (const std::exception& e) {
        std::cerr << "mhtml serve: cannot listen on " << so.listen << ":" << o.port << ": "
                  << e.what() << '\n';
        return exit_usage;
    }
    if (!loopback(so.listen))
        std::cerr << "mhtml serve: warning: listening on " << so.listen
                  << ", not a loopback address: anyone who can reach it and knows a ticket can "
                     "read the archives\n";
    std::cout << "mhtml serve: " << server.url() << " (" << server.archive_count()
              << (server.archive_count() == 1 ? " archive" : " archives") << "; Ctrl-C stops)"
              << std::endl;
    if (o.open) {
        std::string url = server.url();
        char* argv[] = {const_cast<char*>("xdg-open"), url.data(), nullptr};
        pid_t pid = 0;
        if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, argv, environ) != 0)
            std::cerr << "mhtml serve: --open: xdg-open is not available; open the URL above\n";
        else
            std::thread([pid] { ::waitpid(pid, nullptr, 0); }).detach();
    }
    server.run();
    return exit_ok;
}

}  // namespace

runner add_serve_command(CLI::App& app) {
    auto o = std::make_shared<serve_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "serve", "serve archives to a browser from a local web server, nothing from the network");
    cmd->add_option("paths", o->paths,
                    "archives, mailboxes (mbox files, Maildirs: each message a page of its own), "
                    "and folders searched for .mht, .mhtml, .mhtm and .eml files and mailboxes")
        ->required();
    cmd->add_option("--port", o->port, "the port (default 0: a free one, printed)");
    cmd->add_option("--listen", o->listen,
                    "the address to listen on (default 127.0.0.1; another exposes the archives)");
    cmd->add_option("--threads", o->threads, "threads answering requests (default: one per core)");
    cmd->add_flag("--allow-scripts", o->allow_scripts,
                  "run the archives' scripts (sandboxed: they read nothing of the server or of "
                  "other archives, but can navigate their page away; for trusted archives)");
    cmd->add_option("--secret-file", o->secret_file,
                    "tickets derived from this secret and each archive's path, so that URLs "
                    "survive a restart (default: new random tickets each run)");
    cmd->add_option("--store", o->store,
                    "an index made by 'mhtml index': mid: URLs that name no served message are "
                    "looked up there, and the messages found are served too");
    cmd->add_option("--timeout", o->timeout, "seconds a request may take to arrive (default 10)");
    cmd->add_option("--memory", o->memory,
                    "octets of archives kept in memory, e.g. 2G (default 1G); the least recently "
                    "used are let go beyond it")
        ->transform(CLI::AsSizeValue(false))
        ->check(CLI::Range(std::uint64_t{1} << 20, std::uint64_t{1} << 50));
    cmd->add_option("--cache", o->cache,
                    "octets of decoded and rewritten parts kept ready, e.g. 512M (default 256M; "
                    "0: none)")
        ->transform(CLI::AsSizeValue(false))
        ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 50));
    add_fetch_external_options(*cmd, o->fetch);
    cmd->add_flag("--open", o->open, "open the index page in the desktop's browser (xdg-open)");
    cmd->add_flag("--json-log", o->json_log, "the access log as JSON lines on standard error");
    cmd->add_flag("-q,--quiet", o->quiet, "no access log");
    cmd->footer(
        "Prints the URL to open. Each archive is served under a ticket of its own: its page "
        "(/TICKET/), its parts (/TICKET/parts) and what check finds (/TICKET/check); so is each "
        "message of a mailbox. A mid: link leads to the message it names (among those served, "
        "then in --store's index); an image of another message shows only on a page that "
        "names it. Every "
        "response forbids caching; pages run no script unless --allow-scripts.\n"
        "Exit status: 0 after Ctrl-C or SIGTERM; 2 on a usage error or when it cannot listen.\n"
        "Examples:\n"
        "  mhtml serve saved.mhtml\n"
        "  mhtml serve ~/Mail/inbox.mbox --store ~/mail.db   one page per message; mid: links "
        "work\n"
        "  mhtml serve ~/archives --port 8080 --secret-file ~/.mhtml-secret\n"
        "  mhtml serve a.mht b.mht --json-log 2> access.log");
    return [o] { return run_serve(*o); };
}

}  // namespace mhtml::cli
