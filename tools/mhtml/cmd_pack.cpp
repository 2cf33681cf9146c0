// mhtml pack: a local page, folder or `mhtml extract` folder written as one archive
// (pack/collect.hpp finds what the page needs, pack/writer.hpp streams it out).

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/pack/collect.hpp"
#include "mhtml/pack/fetch.hpp"
#include "mhtml/pack/writer.hpp"
#include "output_name.hpp"
#include "view_output.hpp"

namespace mhtml::cli {

namespace {

struct pack_cli_options {
    std::string source;
    std::string out;
    pack::method method = pack::method::content_location;
    bool method_given = false;
    bool mail = false, content_md5 = false, all = false, anonymize_labels = false, json = false;
    bool fold_uris = false;  // --fold-uris: RFC 2017 quoted words for long labels
    std::string from, to, subject, base;
    std::uint64_t external_over = 0;
    pack::collect_limits limits;
    bool limits_given = false;  // one of --max-resource-size, --max-resources, --max-total
    // http(s) sources (pack::fetch_collect)
    bool same_origin = false;
    double timeout = 0;  // seconds for the whole page; 0: the fetcher's default (10 min)
    std::string user_agent;
    std::size_t connections = 0;  // 0: the fetcher's default
};

std::string_view method_name(pack::method m) {
    switch (m) {
        case pack::method::cid:
            return "cid";
        case pack::method::filename:
            return "filename";
        case pack::method::content_location:
            break;
    }
    return "content-location";
}

/// Counts what goes through and, on a terminal, shows files, octets and rate on standard
/// error (five times a second, from 200 ms on: a quick pack shows nothing).
class progress_sink final : public pack::sink {
public:
    progress_sink(pack::sink& inner, bool show, std::size_t total_files)
        : inner_(inner),
          show_(show),
          total_files_(total_files),
          start_(std::chrono::steady_clock::now()),
          last_(start_) {}
    bool write(std::string_view bytes) override {
        bytes_ += bytes.size();
        return inner_.write(bytes);
    }
    [[nodiscard]] std::string error() const override { return inner_.error(); }
    [[nodiscard]] bool writes_from_any_thread() const noexcept override {
        return inner_.writes_from_any_thread();  // bytes_ is atomic
    }
    void file_done() {
        ++files_;
        if (!show_) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < std::chrono::milliseconds(200)) return;
        last_ = now;
        print(now, false);
    }
    void end() {
        if (show_ && shown_) print(std::chrono::steady_clock::now(), true);
    }

private:
    void print(std::chrono::steady_clock::time_point now, bool last) {
        const double secs = std::chrono::duration<double>(now - start_).count();
        const double mib = static_cast<double>(bytes_.load()) / (1024.0 * 1024.0);
        std::fprintf(stderr, "\rmhtml pack: %zu/%zu files, %.1f MiB, %.1f MiB/s%s", files_,
                     total_files_, mib, secs > 0 ? mib / secs : 0.0, last ? "\n" : "");
        shown_ = true;
    }
    pack::sink& inner_;
    bool show_;
    std::size_t total_files_;
    std::size_t files_ = 0;
    std::atomic<std::uint64_t> bytes_ = 0;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_, last_;
};

/// Writes the collected resources to `out`; false with `error` set when the sink failed.
pack::write_report write_resources(const pack::collection& c, pack::sink& out,
                                   const pack::writer_options& wo, bool show_progress) {
    progress_sink ps(out, show_progress, c.resources.size());
    pack::writer w(ps, wo);
    w.expect(std::span(c.resources).subspan(1));
    bool ok = w.root(c.resources.front());
    ps.file_done();
    for (std::size_t i = 1; ok && i < c.resources.size(); ++i) {
        ok = w.add(c.resources[i]);
        ps.file_done();
    }
    pack::write_report r = w.finish();
    ps.end();
    return r;
}

void write_json(std::string& out, const pack_cli_options& o, const pack::collection& c,
                const pack::write_report& r, bool complete) {
    json_writer w(out);
    w.begin_object();
    w.key("source");
    w.string(o.source);
    w.key("output");
    w.string(o.out);
    w.key("method");
    w.string(method_name(o.method));
    w.key("mail");
    w.boolean(o.mail);
    w.key("from_extract");
    w.boolean(c.from_extract);
    w.key("complete");
    w.boolean(complete);
    w.key("bytes");
    w.number(r.bytes);
    w.key("boundary");
    w.string(r.boundary);
    w.key("parts");
    w.begin_array();
    for (const auto& p : r.parts)
        write_part_report(w, p, "origin",
                          p.index < c.resources.size() ? c.resources[p.index].origin : "");
    w.end_array();
    w.key("references");
    w.begin_array();
    for (const auto& ref : c.references) {
        w.begin_object();
        w.key("document");
        w.string(ref.document);
        w.key("offset");
        w.number(ref.offset);
        w.key("srcdoc_offset");
        ref.srcdoc_offset ? w.number(*ref.srcdoc_offset) : w.null();
        w.key("raw");
        w.string(ref.raw);
        w.key("url");
        w.string(ref.url);
        w.key("kind");
        w.string(html::kind_name(ref.kind));
        w.key("element");
        w.string(ref.element);
        w.key("attribute");
        w.string(ref.attribute);
        w.key("outcome");
        w.string(pack::outcome_name(ref.outcome));
        w.key("resource");
        ref.resource ? w.number(*ref.resource) : w.null();
        w.key("reason");
        ref.reason.empty() ? w.null() : w.string(ref.reason);
        w.key("rewritten");
        ref.rewritten ? w.string(*ref.rewritten) : w.null();
        w.end_object();
    }
    w.end_array();
    const pack::collect_counts& n = c.counts;
    w.key("counts");
    w.begin_object();
    w.key("resources");
    w.number(n.resources);
    w.key("documents");
    w.number(n.documents);
    w.key("references");
    w.number(n.references);
    w.key("packed");
    w.number(n.packed);
    w.key("unresolved");
    w.number(n.unresolved);
    w.key("external");
    w.number(n.external);
    w.key("rewritten");
    w.number(n.rewritten);
    w.key("rewritten_documents");
    w.number(n.rewritten_documents);
    w.key("input_bytes");
    w.number(n.bytes);
    w.end_object();
    // Collection diagnostics name a source document; writing diagnostics an output part.
    w.key("diagnostics");
    w.begin_array();
    for (const auto& d : c.diagnostics) write_staged_diagnostic(w, d, "collect");
    for (const auto& d : r.diagnostics) write_staged_diagnostic(w, d, "write");
    w.end_array();
    w.end_object();
    out += '\n';
}

void write_text(std::string& out, const pack_cli_options& o, const pack::collection& c,
                const pack::write_report& r) {
    std::size_t written = 0, left_out = 0, external = 0;
    for (const auto& p : r.parts) {
        if (!p.written) {
            ++left_out;
        } else {
            ++written;
            if (p.external) ++external;
        }
    }
    const pack::collect_counts& n = c.counts;
    out += o.out == "-" ? std::string("archive") : o.out;
    out += ": " + std::to_string(written) + " parts, " + std::to_string(r.bytes) +
           " octets (method " + std::string(method_name(o.method)) + (o.mail ? ", mail" : "") + ")";
    if (external) out += ", " + std::to_string(external) + " as message/external-body";
    if (left_out) out += ", " + std::to_string(left_out) + " left out";
    out += "; " + std::to_string(n.references) + " references: " + std::to_string(n.packed) +
           " packed, " + std::to_string(n.unresolved) + " unresolved, " +
           std::to_string(n.external) + " external; " + std::to_string(n.rewritten) +
           " rewritten\n";
    for (const auto& ref : c.references) {
        if (ref.outcome != pack::ref_outcome::unresolved) continue;
        out += "  unresolved " + printable(ref.document, 200) + '@' + std::to_string(ref.offset) +
               ' ' + printable(ref.raw, 200) + ": " + ref.reason + '\n';
    }
    for (const auto& p : r.parts) {
        if (p.written) continue;
        out +=
            "  left out #" + std::to_string(p.index) + ' ' +
            printable(p.index < c.resources.size() ? c.resources[p.index].origin : p.label, 200) +
            '\n';
    }
    auto diag = [&](const diagnostic& d, std::string_view where) {
        out += "  ";
        out += severity_name(d.sev);
        out += ' ';
        out += code_name(d.code);
        out += " (";
        out += where;
        out += ' ';
        out += d.part_path.empty() ? "." : printable(d.part_path, 200);
        out += "): ";
        out += printable(d.message, 400);
        out += '\n';
    };
    for (const auto& d : c.diagnostics) diag(d, "file");
    for (const auto& d : r.diagnostics) diag(d, "part");
}

/// URLs are a source kind of their own, for pack::fetch.
bool is_url(std::string_view s) {
    auto starts = [&](std::string_view p) {
        if (s.size() < p.size()) return false;
        for (std::size_t i = 0; i < p.size(); ++i)
            if (std::tolower(static_cast<unsigned char>(s[i])) != p[i]) return false;
        return true;
    };
    return starts("http://") || starts("https://");
}

int fail(const pack_cli_options& o, const std::string& code, const std::string& message) {
    if (o.json) std::fputs(error_json(code, message).c_str(), o.out == "-" ? stderr : stdout);
    std::cerr << "mhtml pack: " << message << '\n';
    return exit_usage;
}

int run_pack(pack_cli_options o) {
    o.out = output_name(o.out);
    if (o.mail) {
        if (o.method_given && o.method != pack::method::cid)
            return fail(o, "usage", "--mail links the parts by cid: (no other --method)");
        o.method = pack::method::cid;
    }
    pack::collection c;
    if (is_url(o.source)) {
        if (!o.base.empty() || o.all || o.anonymize_labels)
            return fail(o, "usage", "--base, --all and --anonymize-labels are for local sources");
        pack::fetch_options fo;
        fo.method = o.method;
        fo.same_origin = o.same_origin;
        fo.user_agent = o.user_agent;
        if (o.connections) fo.max_connections = o.connections;
        if (o.connections && o.connections < fo.max_host_connections)
            fo.max_host_connections = o.connections;
        if (o.limits_given) {
            fo.limits.max_resources = o.limits.max_resources;
            fo.limits.max_resource_size = o.limits.max_resource_size;
            fo.limits.max_total_bytes = o.limits.max_total_bytes;
        }
        if (o.timeout > 0)
            fo.limits.total_timeout =
                std::chrono::milliseconds(static_cast<std::int64_t>(o.timeout * 1000));
        c = pack::fetch_collect(o.source, fo);
    } else {
        if (o.same_origin || o.timeout > 0 || !o.user_agent.empty() || o.connections)
            return fail(o, "usage",
                        "--same-origin, --timeout, --user-agent and --connections are for "
                        "http(s) sources");
        pack::collect_options co;
        co.method = o.method;
        co.base = o.base;
        co.all = o.all;
        co.anonymize_labels = o.anonymize_labels;
        co.limits = o.limits;
        c = pack::collect(o.source, co);
    }
    if (!c.ok() || c.resources.empty())
        return fail(o, c.ok() ? "no_root" : c.error_code, c.ok() ? "nothing to pack" : c.error);

    pack::writer_options wo;
    wo.method = o.method;
    if (!o.subject.empty()) wo.subject = o.subject;
    wo.content_md5 = o.content_md5;
    wo.fold_uris = o.fold_uris;
    wo.external_over = o.external_over;
    wo.mail = o.mail;
    wo.from = o.from;
    wo.to = o.to;

    const bool to_stdout = o.out == "-";
    const bool show_progress = !o.json && ::isatty(2) != 0;
    pack::write_report r;
    // Standard output gets the archive only once it is whole: it is spooled to an anonymous
    // temporary file first (removed when closed).
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> spool(nullptr, &std::fclose);
    if (to_stdout) {
        spool.reset(std::tmpfile());
        if (!spool) return fail(o, "io_error", "cannot create a temporary file to spool into");
        pack::fd_sink sink(::fileno(spool.get()));
        r = write_resources(c, sink, wo, show_progress);
        if (!r.ok()) return fail(o, "io_error", "cannot spool the archive: " + r.error->message);
        if (!copy_to_stdout(spool.get()))
            return fail(o, "io_error", "cannot write the archive to standard output");
    } else {
        pack::file_sink sink(o.out);
        if (!sink.is_open())
            return fail(o, "io_error", "cannot write " + o.out + ": " + sink.error());
        r = write_resources(c, sink, wo, show_progress);
        if (!r.ok()) return fail(o, "io_error", "cannot write " + o.out + ": " + r.error->message);
        if (!sink.commit())
            return fail(o, "io_error", "cannot write " + o.out + ": " + sink.error());
    }

    bool complete = c.counts.unresolved == 0;
    for (const auto& p : r.parts)
        if (!p.written) complete = false;
    for (const auto& d : r.diagnostics)
        if (d.sev == severity::error) complete = false;

    std::string out;
    if (o.json) {
        write_json(out, o, c, r, complete);
    } else {
        write_text(out, o, c, r);
    }
    // With -o -, the archive went to standard output: the report goes to standard error.
    std::FILE* report = to_stdout ? stderr : stdout;
    std::fwrite(out.data(), 1, out.size(), report);
    if (std::fflush(report) != 0) return exit_usage;
    return complete ? exit_ok : exit_input_errors;
}

}  // namespace

runner add_pack_command(CLI::App& app) {
    auto o = std::make_shared<pack_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "pack",
        "Write a page (local, or fetched from an http(s) URL), a folder or an extract folder "
        "as one archive (.mhtml or mail)");
    cmd->add_option("SOURCE", o->source,
                    "a page (.html, .xhtml, .svg), a folder (its index.html), a folder "
                    "written by 'mhtml extract', or an http(s) URL")
        ->required();
    cmd->add_option("-o,--output", o->out, "the archive to write, or - for standard output")
        ->required();
    const std::map<std::string, pack::method> methods{
        {"content-location", pack::method::content_location},
        {"cid", pack::method::cid},
        {"filename", pack::method::filename}};
    cmd->add_option_function<pack::method>(
           "--method",
           [o](const pack::method& m) {
               o->method = m;
               o->method_given = true;
           },
           "how references find their parts: content-location (default: links unchanged, "
           "parts labelled with their URL), cid (links rewritten to cid: URLs), filename "
           "(links rewritten to virtual file names)")
        ->transform(CLI::CheckedTransformer(methods, CLI::ignore_case));
    CLI::Option* mail = cmd->add_flag(
        "--mail", o->mail,
        "write an HTML mail (RFC 5322 message; text/plain and HTML alternatives); implies "
        "--method cid");
    cmd->add_option("--from", o->from, "mail: the From address ('Name <addr>' or 'addr')")
        ->needs(mail);
    cmd->add_option("--to", o->to, "mail: the To addresses, separated by commas")->needs(mail);
    cmd->add_option("--subject", o->subject, "the Subject (UTF-8); default: the page's <title>");
    cmd->add_option("--external-over", o->external_over,
                    "write resources larger than SIZE (e.g. 10M, 512k) whose label is an "
                    "http(s) or ftp URL (see --base) as message/external-body references")
        ->transform(CLI::AsSizeValue(false));
    cmd->add_flag("--content-md5", o->content_md5, "add a Content-MD5 to every part");
    cmd->add_flag("--fold-uris", o->fold_uris,
                  "fold Content-Locations longer than a 78-column line into RFC 2017 quoted "
                  "words (Chromium then cannot find those parts); default: one line, as Chrome "
                  "writes them");
    cmd->add_option("--base", o->base,
                    "an absolute URL standing for the root folder: parts are labelled with it "
                    "(default: relative labels, read against thismessage:/)");
    cmd->add_flag("--all", o->all, "also pack every file of the folder that nothing references");
    cmd->add_flag("--anonymize-labels", o->anonymize_labels,
                  "with a file: --base, write relative labels rather than local paths");
    cmd->add_option_function<std::uint64_t>(
           "--max-resource-size",
           [o](const std::uint64_t& v) {
               o->limits.max_resource_size = v;
               o->limits_given = true;
           },
           "the largest file packed, e.g. 100M (default 1G)")
        ->transform(CLI::AsSizeValue(false));
    cmd->add_option_function<std::size_t>(
           "--max-resources",
           [o](const std::size_t& v) {
               o->limits.max_resources = v;
               o->limits_given = true;
           },
           "the most files packed, the page included (default 100000)")
        ->check(CLI::PositiveNumber);
    cmd->add_option_function<std::uint64_t>(
           "--max-total",
           [o](const std::uint64_t& v) {
               o->limits.max_total_bytes = v;
               o->limits_given = true;
           },
           "the most octets of all files together, e.g. 2G (default 8G)")
        ->transform(CLI::AsSizeValue(false));
    cmd->add_flag("--same-origin", o->same_origin,
                  "URL: fetch only resources of the page's own origin (scheme, host, port)");
    cmd->add_option("--timeout", o->timeout,
                    "URL: seconds for the page and everything it needs (default 600)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--user-agent", o->user_agent, "URL: the User-Agent (default mhtml/VERSION)");
    cmd->add_option("--connections", o->connections,
                    "URL: transfers at once (default 16, at most 6 per host)")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--json", o->json,
                  "print the report as JSON: every part, every reference and what became of "
                  "it, every diagnostic");
    cmd->footer(
        "What the page needs is found by reading it: images, style sheets (with their\n"
        "@imports and url()s), fonts, frames, SVG documents, media; navigation links are not\n"
        "followed. Nothing outside the page's folder is read: a reference leaving it stays as\n"
        "written and is reported. A folder written by 'mhtml extract' goes back with the\n"
        "labels its manifest.json records. The archive is written beside its destination and\n"
        "renamed into place (nothing is left on failure); with -o - it goes to standard output\n"
        "once whole, and the report to standard error. An http(s) URL is fetched with its\n"
        "resources in parallel (redirects checked hop by hop: never https to http, never\n"
        "file:); every failure is reported at the references it leaves unresolved.\n"
        "Exit status: 0 everything packed, 1 something left out (listed: unresolved\n"
        "references, unreadable files), 2 usage or I/O failure (nothing written).\n"
        "\n"
        "Examples:\n"
        "  mhtml pack site/ -o site.mhtml\n"
        "  mhtml pack https://example.org/ --same-origin --timeout 60 -o example.mhtml\n"
        "  mhtml pack page.html --method cid --base https://e.example/ -o page.mht\n"
        "  mhtml pack --mail --from me@e.example --to you@e.example news/ -o - | sendmail -t\n"
        "  mhtml extract saved.mhtml -o dir && mhtml pack dir -o again.mhtml\n"
        "  mhtml pack --json --all site/ -o site.mhtml | jq '.references[] | "
        "select(.outcome==\"unresolved\")'");
    return [o] { return run_pack(*o); };
}

}  // namespace mhtml::cli
