// mhtml batch: one job (ls, check, refs, extract, inline) over many archives and messages with
// every core busy. One JSON line per archive or message; --resume continues a run that was cut.
//
// Inputs are listed as `mhtml index` lists them (store::list_sources): files, folders
// (recursively: .eml/.mht/.mhtml files, mboxes, Maildirs), mailboxes (one line per message).
// Workers pull whole files from one list (a mailbox is never split between workers), so memory
// is about --jobs archives at once. A file that cannot be read or fails is a line with "ok":
// false; the batch goes on.
//
// --resume FILE: the JSON lines are appended to FILE, and a run finds there what an earlier
// run finished (each line's "key": the file, and "#N" for message N of a mailbox) and skips it.
// What failed ("ok": false: unreadable, gone) is tried again, and its new line appended: a
// key's last line is its result. (A mailbox that could not be read at all has a line under
// the file's key; once it is read, its messages have lines of their own, FILE#N.)
// A line is written with one write(2) of the whole line, so a kill leaves at most a cut last
// line, which the next run drops (it truncates FILE after the last whole line) and redoes.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/archive/check.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/json.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/store/index.hpp"
#include "mhtml/store/mbox.hpp"
#include "mhtml/view/extract.hpp"
#include "mhtml/view/inline.hpp"

namespace mhtml::cli {

namespace {

namespace fs = std::filesystem;

enum class job { ls, check, refs, extract, inline_ };

struct batch_options {
    std::vector<std::string> paths;
    bool ls = false, check = false, refs = false;
    std::string extract_to, inline_to;
    unsigned jobs = 0;
    std::string resume;
    std::string out = "-";
    bool offline = false;
    parse_limits limits;
    std::optional<store::mbox_format> format;
};

// The output: whole lines, each with one write(2), from any worker.
class line_sink {
public:
    explicit line_sink(int fd) : fd_(fd) {}
    // After a failed write nothing more is written: a cut line stays the last one, which
    // --resume drops.
    bool write(const std::string& line) {
        std::lock_guard lock(mutex_);
        if (failed_) return false;
        std::size_t done = 0;
        while (done < line.size()) {
            const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                failed_ = true;
                return false;
            }
            done += static_cast<std::size_t>(n);
        }
        return true;
    }

private:
    int fd_;
    std::mutex mutex_;
    bool failed_ = false;
};

// A name for an archive's output under --extract-to/--inline-to: its key with anything but
// [A-Za-z0-9._-] made '_', cut to 120 octets, and a hash of the whole key (two keys never share
// a name, and a name never leaves the folder).
std::string output_name(std::string_view key) {
    std::string name;
    for (char c : key.substr(key.size() > 120 ? key.size() - 120 : 0)) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
        name += ok ? c : '_';
    }
    while (!name.empty() && name.front() == '.') name.front() = '_';
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a
    for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
    char tail[20];
    std::snprintf(tail, sizeof tail, "-%016llx", static_cast<unsigned long long>(h));
    return name + tail;
}

// The output cannot be written: the batch stops (anything else that fails is a line).
class output_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct counters {
    std::atomic<std::uint64_t> archives{0}, failures{0}, bytes{0}, files_done{0};
};

class runner_state {
public:
    runner_state(const batch_options& o, job j, line_sink& sink, counters& c)
        : o_(o), job_(j), sink_(sink), c_(c) {}

    // One archive (a file, or a message of a mailbox): its line. A failure inside the job is
    // a line of its own (failure()), so a half-written object is never written.
    void archive(const std::string& key, const std::string& file,
                 std::optional<std::uint64_t> number, std::string_view bytes) {
        std::string line;
        json_writer w(line);
        begin_line(w, key, file, number);
        w.key("size");
        w.number(bytes.size());
        try {
            work(w, key, bytes);
        } catch (const std::exception& e) {
            failure(key, file, e.what(), number);
            return;
        }
        c_.bytes += bytes.size();
        end_line(w, line, true);
    }

    void failure(const std::string& key, const std::string& file, const std::string& why,
                 std::optional<std::uint64_t> number = std::nullopt) {
        std::string line;
        json_writer w(line);
        begin_line(w, key, file, number);
        w.key("error");
        w.string(why);
        end_line(w, line, false);
    }

private:
    static void begin_line(json_writer& w, const std::string& key, const std::string& file,
                           std::optional<std::uint64_t> number) {
        w.begin_object();
        w.key("key");  // first: --resume reads it back from the start of the line
        w.string(key);
        w.key("file");
        w.string(file);
        if (number) {  // message `number` of the mailbox `file`
            w.key("message");
            w.number(*number);
        }
    }
    void end_line(json_writer& w, std::string& line, bool ok) {
        w.key("ok");
        w.boolean(ok);
        w.end_object();
        line += '\n';
        ++c_.archives;
        if (!ok) ++c_.failures;
        if (!sink_.write(line)) throw output_error("cannot write the output");
    }

    void work(json_writer& w, const std::string& key, std::string_view bytes) {
        mime::parse_options po;
        po.limits = o_.limits;
        const mime::document doc = mime::document::parse(bytes, po);
        std::size_t leaves = 0;
        for (std::size_t i = 0; i < doc.size(); ++i) leaves += doc.part(i).is_leaf() ? 1 : 0;
        w.key("parts");
        w.number(doc.size());
        w.key("leaves");
        w.number(leaves);
        std::uint64_t by_severity[4] = {0, 0, 0, 0};
        for (const diagnostic& d : doc.diagnostics())
            ++by_severity[std::min<std::size_t>(static_cast<std::size_t>(d.sev), 3)];
        w.key("diagnostics");
        w.begin_object();
        for (std::size_t s = 0; s < 4; ++s) {
            w.key(severity_name(static_cast<severity>(s)));
            w.number(by_severity[s]);
        }
        w.end_object();
        archive::aggregate_options ao;
        ao.max_diagnostics = o_.limits.max_diagnostics;
        switch (job_) {
            case job::ls: {
                std::string body;
                std::uint64_t decoded = 0;
                for (std::size_t i = 0; i < doc.size(); ++i) {
                    const mime::part_view p = doc.part(i);
                    if (!p.is_leaf()) continue;
                    body.clear();
                    p.decode_to(body);
                    decoded += body.size();
                }
                w.key("decoded_bytes");
                w.number(decoded);
                const archive::aggregate agg = archive::aggregate::build(doc, ao);
                w.key("root");
                w.string(agg.main_root().path());
                break;
            }
            case job::check: {
                const std::vector<archive::finding> findings = archive::check(doc);
                const archive::finding_counts n = archive::count_levels(findings);
                w.key("findings");
                w.begin_object();
                w.key("errors");
                w.number(n.errors);
                w.key("warnings");
                w.number(n.warnings);
                w.key("notes");
                w.number(n.notes);
                w.end_object();
                w.key("codes");
                w.begin_array();
                std::set<std::string> codes;
                for (const archive::finding& f : findings) codes.insert(f.code);
                for (const std::string& c : codes) w.string(c);
                w.end_array();
                break;
            }
            case job::refs: {
                const archive::aggregate agg = archive::aggregate::build(doc, ao);
                std::uint64_t total = 0, to_parts = 0, external = 0;
                for (std::size_t i = 0; i < doc.size(); ++i) {
                    const mime::part_view p = doc.part(i);
                    if (archive::document_type_of(p) == archive::document_type::none) continue;
                    for (const html::reference& r : agg.references(p).refs) {
                        if (r.kind == html::ref_kind::base) continue;
                        ++total;
                        const archive::resolution res = agg.resolve(p, r);
                        if (res.target)
                            ++to_parts;
                        else if (!res.same_document)
                            ++external;
                    }
                }
                w.key("references");
                w.number(total);
                w.key("to_parts");
                w.number(to_parts);
                w.key("external");
                w.number(external);
                break;
            }
            case job::extract: {
                const archive::aggregate agg = archive::aggregate::build(doc, ao);
                view::extract_options eo;
                eo.offline = o_.offline;
                eo.force = true;  // a run that is resumed writes its folder again
                const fs::path dir = fs::path(o_.extract_to) / output_name(key);
                const view::extract_report r = view::extract(agg, dir, eo);
                if (!r.ok()) throw std::runtime_error(r.error_code + ": " + r.error);
                w.key("output");
                w.string(dir.string());
                w.key("files");
                w.number(r.files.size());
                break;
            }
            case job::inline_: {
                const archive::aggregate agg = archive::aggregate::build(doc, ao);
                view::inline_options io;
                io.offline = o_.offline;
                const fs::path file = fs::path(o_.inline_to) / (output_name(key) + ".html");
                const view::inline_report r = view::inline_page(agg, file, io);
                if (!r.ok()) throw std::runtime_error(r.error_code + ": " + r.error);
                w.key("output");
                w.string(file.string());
                w.key("bytes_written");
                w.number(r.size);
                break;
            }
        }
    }

    const batch_options& o_;
    job job_;
    line_sink& sink_;
    counters& c_;
};

// A file of at most 256 MiB is read into the worker's reused buffer rather than mapped: with
// several threads in one process, mapping and unmapping a file per archive makes every
// thread wait on the process's memory map (and munmap interrupts the other cores to flush
// their TLBs), and a mapped file that another program cuts meanwhile (a shared folder) would
// end the whole run (SIGBUS) instead of failing one line. True when it was read (or failed:
// `ec`); false for a larger file, to be mapped.
bool read_small(const std::string& path, std::string& buf, std::string_view& bytes,
                std::error_code& ec) {
    constexpr std::size_t limit = std::size_t{256} << 20;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ec = std::error_code(errno, std::generic_category());
        return true;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<std::uint64_t>(st.st_size) > limit) {
        ::close(fd);
        return false;
    }
    // The buffer only grows (its new octets zeroed once), so a worker's later files of the
    // same size are not zeroed again before they are read over.
    const auto want = static_cast<std::size_t>(st.st_size);
    if (buf.size() < want) buf.resize(want);
    std::size_t done = 0;
    while (done < want) {
        const ssize_t n = ::read(fd, buf.data() + done, want - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            ec = std::error_code(errno, std::generic_category());
            break;
        }
        if (n == 0) break;  // it shrank meanwhile: what is there
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    bytes = std::string_view(buf.data(), done);
    return true;
}

// What an earlier run finished: the keys of the whole lines of FILE that say "ok": true, as
// written there (JSON strings, quotes included; compared with json::quoted of a key). A cut last
// line is dropped from the file, so that appending goes on after the last whole line.
std::set<std::string> finished_keys(const std::string& file) {
    std::set<std::string> keys;
    std::FILE* f = std::fopen(file.c_str(), "rb");
    if (!f) return keys;  // a first run
    std::string all;
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) all.append(buf, n);
    std::fclose(f);
    std::size_t whole = 0;  // octets of whole lines
    for (std::size_t at = 0; at < all.size();) {
        const std::size_t nl = all.find('\n', at);
        if (nl == std::string::npos) break;
        const std::string_view line(all.data() + at, nl - at);
        constexpr std::string_view head = "{\"key\":\"";
        if (line.starts_with(head) && line.ends_with(",\"ok\":true}")) {
            std::size_t i = head.size();
            while (i < line.size() && line[i] != '"') i += line[i] == '\\' ? 2 : 1;
            if (i < line.size())
                keys.insert(std::string(line.substr(head.size() - 1, i - head.size() + 2)));
        }
        whole = nl + 1;
        at = nl + 1;
    }
    if (whole < all.size() && ::truncate(file.c_str(), static_cast<off_t>(whole)) != 0)
        throw std::runtime_error("--resume: cannot drop the cut last line of " + file);
    return keys;
}

int run_batch(const batch_options& o) {
    const int chosen = int(o.ls) + int(o.check) + int(o.refs) + int(!o.extract_to.empty()) +
                       int(!o.inline_to.empty());
    if (chosen != 1) {
        std::cerr << "mhtml batch: choose one job: --ls, --check, --refs, --extract-to DIR or "
                     "--inline-to DIR\n";
        return exit_usage;
    }
    const job j = o.ls                    ? job::ls
                  : o.check               ? job::check
                  : o.refs                ? job::refs
                  : !o.extract_to.empty() ? job::extract
                                          : job::inline_;
    for (const std::string& dir : {o.extract_to, o.inline_to}) {
        std::error_code ec;
        if (!dir.empty()) fs::create_directories(dir, ec);
        if (ec) {
            std::cerr << "mhtml batch: cannot make " << dir << ": " << ec.message() << '\n';
            return exit_usage;
        }
    }
    // The output: standard output, -o FILE, or the --resume file (appended to).
    std::set<std::string> done;
    int fd = 1;
    const std::string out_file = !o.resume.empty() ? o.resume : o.out;
    if (out_file != "-") {
        if (!o.resume.empty()) done = finished_keys(o.resume);
        fd = ::open(out_file.c_str(),
                    O_WRONLY | O_CREAT | O_CLOEXEC | (o.resume.empty() ? O_TRUNC : O_APPEND), 0644);
        if (fd < 0) {
            std::cerr << "mhtml batch: cannot write " << out_file << ": " << std::strerror(errno)
                      << '\n';
            return exit_usage;
        }
    }
    std::vector<fs::path> sources(o.paths.begin(), o.paths.end());
    store::source_listing listing = store::list_sources(sources, o.format.has_value());
    // What this batch writes is not an input (a run resumed with its output folder inside an
    // input folder would otherwise read the files it wrote); a file named on its own is.
    std::set<std::string> named;
    for (const fs::path& p : sources) {
        std::error_code ec;
        named.insert(fs::weakly_canonical(p, ec).native());
    }
    for (const std::string& dir : {o.extract_to, o.inline_to}) {
        if (dir.empty()) continue;
        std::error_code ec;
        const std::string inside = (fs::weakly_canonical(dir, ec) / "").native();
        if (ec) continue;
        std::erase_if(listing.files, [&](const store::source_file& f) {
            return f.path.native().starts_with(inside) && !named.contains(f.path.native());
        });
    }
    line_sink sink(fd);
    counters c;
    runner_state state(o, j, sink, c);
    const auto is_done = [&](const std::string& key) {
        return !done.empty() && done.count(json::quoted(key)) > 0;
    };
    // Sources and files that could not be read: a line each.
    std::vector<fs::path> not_read = listing.unlisted;
    not_read.insert(not_read.end(), listing.skipped.begin(), listing.skipped.end());
    for (const fs::path& p : not_read) {
        const std::string key = p.string();
        if (is_done(key)) continue;
        std::string why = "cannot be read";
        for (const std::string& problem : listing.problems)
            if (problem.starts_with(key + ": ")) why = problem;
        state.failure(key, key, why);
    }
    const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
    std::atomic<std::size_t> next{0};
    std::atomic<bool> write_failed{false};
    const auto worker = [&] {
        std::string small;  // this worker's buffer for small files (see read_small)
        for (std::size_t i = next++; i < listing.files.size() && !write_failed; i = next++) {
            const store::source_file& f = listing.files[i];
            const std::string path = f.path.string();
            try {
                std::error_code ec;
                std::string_view bytes;
                input_buffer in;
                if (!read_small(path, small, bytes, ec)) {
                    in = input_buffer::open(path, ec);
                    bytes = in.bytes();
                }
                if (ec) {
                    if (!is_done(path)) state.failure(path, path, "cannot read: " + ec.message());
                } else if (f.kind == store::source_kind::mbox) {
                    const store::mbox_split split = store::split_mbox(bytes, o.format);
                    std::string storage;
                    for (std::size_t m = 0; m < split.messages.size(); ++m) {
                        const std::string key = path + "#" + std::to_string(m + 1);
                        if (is_done(key)) continue;
                        state.archive(
                            key, path, m + 1,
                            store::message_text(bytes, split.messages[m], split.format, storage));
                    }
                } else if (!is_done(path)) {
                    state.archive(path, path, std::nullopt, bytes);
                }
            } catch (const output_error& e) {
                write_failed = true;
                std::cerr << "mhtml batch: " << e.what() << '\n';
            } catch (const std::exception& e) {
                // Outside a job (reading, splitting a mailbox): a line for the file; the
                // batch goes on.
                try {
                    state.failure(path, path, e.what());
                } catch (const output_error& w) {
                    write_failed = true;
                    std::cerr << "mhtml batch: " << w.what() << '\n';
                }
            }
            ++c.files_done;
        }
    };
    const bool progress = ::isatty(2) != 0;
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(worker);
    if (progress) {
        while (c.files_done < listing.files.size() && !write_failed) {
            std::this_thread::sleep_for(std::chrono::milliseconds(250));
            const double s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            const double mbs = static_cast<double>(c.bytes) / 1e6 / std::max(s, 1e-3);
            const std::size_t files = c.files_done;
            const double eta = files ? s / static_cast<double>(files) *
                                           static_cast<double>(listing.files.size() - files)
                                     : 0;
            std::fprintf(stderr,
                         "\rmhtml batch: %zu/%zu files, %llu archives, %.0f MB/s, ETA %.0f s, "
                         "%llu failed   ",
                         files, listing.files.size(),
                         static_cast<unsigned long long>(c.archives.load()), mbs, eta,
                         static_cast<unsigned long long>(c.failures.load()));
        }
        std::fputc('\n', stderr);
    }
    for (std::thread& t : threads) t.join();
    if (fd != 1) ::close(fd);
    std::cerr << "mhtml batch: " << c.archives << " archives from " << listing.files.size()
              << " files, " << c.failures << " failed"
              << (done.empty() ? std::string()
                               : ", " + std::to_string(done.size()) + " done by an earlier run")
              << '\n';
    if (write_failed) return exit_usage;
    return c.failures ? exit_input_errors : exit_ok;
}

}  // namespace

runner add_batch_command(CLI::App& app) {
    auto o = std::make_shared<batch_options>();
    CLI::App* cmd = app.add_subcommand(
        "batch",
        "run ls, check, refs, extract or inline over many archives and mailboxes on "
        "every core: one JSON line per archive or message");
    cmd->add_option("PATH", o->paths,
                    "files, folders (searched for .eml/.mht/.mhtml files, mboxes and Maildirs) "
                    "and mailboxes")
        ->required();
    cmd->add_flag("--ls", o->ls, "parts, leaves, decoded octets, diagnostics by severity, root");
    cmd->add_flag("--check", o->check, "findings by level and their codes (as mhtml check)");
    cmd->add_flag("--refs", o->refs, "references: how many, to parts, external (as mhtml refs)");
    cmd->add_option("--extract-to", o->extract_to,
                    "extract each archive into a folder of DIR (as mhtml extract)");
    cmd->add_option("--inline-to", o->inline_to,
                    "inline each archive into an .html file of DIR (as mhtml inline)");
    cmd->add_flag("--json")->description("JSON lines (the only output; accepted for symmetry)");
    cmd->add_flag("--offline", o->offline, "with --extract-to/--inline-to: as their --offline");
    cmd->add_option("--jobs,-j", o->jobs, "worker threads (default: the number of cores)")
        ->check(CLI::Range(1u, 1024u));
    cmd->add_option("--resume", o->resume,
                    "append the lines to FILE, skipping what an earlier run finished there "
                    "(what failed is tried again: a key's last line is its result)")
        ->excludes(cmd->add_option("-o,--output", o->out, "write the lines here (default -)"));
    add_limit_options(*cmd, o->limits);
    cmd->footer(
        "Each line: key (the file, or FILE#N for message N of a mailbox), file, message, size,\n"
        "parts, leaves, diagnostics by severity, then the job's fields; ok, and error when it\n"
        "failed. Lines come in the order archives finish. Progress goes to a terminal's stderr.\n"
        "Exit status: 0 all done, 1 some archive failed (its line says why), 2 usage or output "
        "failure.\n"
        "\n"
        "Examples:\n"
        "  mhtml batch ~/archives --check > findings.jsonl\n"
        "  mhtml batch mail.mbox saved/ --ls --jobs 8\n"
        "  mhtml batch crawl/ --extract-to out/ --resume done.jsonl   (run again after a kill)");
    return [o] { return run_batch(*o); };
}

}  // namespace mhtml::cli
