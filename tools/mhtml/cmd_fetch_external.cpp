// mhtml fetch-external ARCHIVE -o OUT: retrieve the message/external-body parts and write them
// in as ordinary parts (external/retrieve.hpp).

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/external/retrieve.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/pack/writer.hpp"
#include "output_name.hpp"

namespace mhtml::cli {

namespace {

struct fetch_external_options {
    std::string in, out;
    std::string allow_local;
    double timeout = 60;
    std::uint64_t max_size = 1ull << 30;
    unsigned parallel = 8;
    std::size_t max_parts = 10'000;
    bool ignore_expiration = false;
    bool json = false;
    parse_limits limits;
};

void write_report(std::string& out, const fetch_external_options& o,
                  const external::materialize_report& r) {
    if (o.json) {
        json_writer w(out);
        w.begin_object();
        w.key("input");
        w.string(o.in);
        w.key("output");
        w.string(o.out);
        w.key("fetched");
        w.number(r.fetched);
        w.key("failed");
        w.number(r.failed);
        w.key("parts");
        w.begin_array();
        for (const auto& p : r.parts) {
            w.begin_object();
            w.key("path");
            w.string(p.path);
            w.key("offset");
            w.number(p.offset);
            w.key("access_type");
            w.string(p.model.access_type);
            w.key("url");
            w.string(p.result.url);
            w.key("content_type");
            w.string(p.model.type.essence());
            w.key("status");
            w.string(external::status_name(p.result.st));
            w.key("replaced");
            w.boolean(p.replaced);
            w.key("reason");
            p.result.reason.empty() ? w.null() : w.string(p.result.reason);
            w.key("message");
            w.string(p.result.message);
            w.key("response_type");
            p.result.content_type.empty() ? w.null() : w.string(p.result.content_type);
            w.key("octets");
            p.replaced ? w.number(p.octets) : w.null();
            // URL-4.2: what the digest comparison found; not a signature.
            w.key("md5_matches");
            p.result.md5_matches ? w.boolean(*p.result.md5_matches) : w.null();
            w.key("redirects");
            w.number(p.result.redirects);
            w.end_object();
        }
        w.end_array();
        w.end_object();
        out += '\n';
        return;
    }
    // What comes from the message or the server is shown printable (no terminal escapes).
    for (const auto& p : r.parts)
        out += std::string(p.replaced ? "fetched " : "kept    ") + "part " +
               (p.path.empty() ? "." : p.path) + " @" + std::to_string(p.offset) + " (" +
               printable(p.model.access_type, 40) + "): " +
               (p.replaced ? printable(p.result.message, 600)
                           : std::string(external::status_name(p.result.st)) + ", " +
                                 p.result.reason + ": " + printable(p.result.message, 600)) +
               '\n';
    out += std::to_string(r.fetched) + " of " + std::to_string(r.parts.size()) +
           " external bodies fetched into " + o.out + "\n";
}

int run_fetch_external(fetch_external_options o) {
    o.out = output_name(o.out);
    auto in = open_input("fetch-external", o.in);
    if (!in) return exit_usage;
    mime::parse_options po;
    po.limits = o.limits;
    const mime::document doc = mime::document::parse(std::move(*in), po);
    external::retrieve_options ro;
    if (!o.allow_local.empty()) ro.allow_local = o.allow_local;
    ro.timeout = std::chrono::milliseconds(static_cast<long long>(o.timeout * 1000));
    ro.max_size = o.max_size;
    ro.parallel = o.parallel;
    ro.max_parts = o.max_parts;
    ro.ignore_expiration = o.ignore_expiration;
    external::materialize_report r;
    const bool to_stdout = o.out == "-";
    if (to_stdout) {
        const bool ok = external::materialize_to(doc, ro, r, [](std::string_view s) {
            return std::fwrite(s.data(), 1, s.size(), stdout) == s.size();
        });
        if (!ok || std::fflush(stdout) != 0) {
            std::cerr << "mhtml fetch-external: cannot write the archive to standard output\n";
            return exit_usage;
        }
    } else {
        pack::file_sink sink(o.out);
        if (!sink.is_open()) {
            std::cerr << "mhtml fetch-external: cannot write " << o.out << ": " << sink.error()
                      << '\n';
            return exit_usage;
        }
        // Pieces gathered into writes of about 1 MiB (a part comes as several small pieces).
        std::string buffer;
        buffer.reserve(1 << 20);
        const auto flush = [&] {
            const bool wrote = buffer.empty() || sink.write(buffer);
            buffer.clear();
            return wrote;
        };
        bool ok = external::materialize_to(doc, ro, r, [&](std::string_view s) {
            if (buffer.size() + s.size() > (1u << 20) && !flush()) return false;
            if (s.size() >= (1u << 20)) return sink.write(s);
            buffer.append(s);
            return true;
        });
        ok = ok && flush();
        if (!ok || !sink.commit()) {
            std::cerr << "mhtml fetch-external: cannot write " << o.out << ": " << sink.error()
                      << '\n';
            return exit_usage;
        }
    }
    std::string report;
    write_report(report, o, r);
    std::FILE* where = to_stdout ? stderr : stdout;
    std::fwrite(report.data(), 1, report.size(), where);
    return r.failed == 0 ? exit_ok : exit_input_errors;
}

}  // namespace

runner add_fetch_external_command(CLI::App& app) {
    auto o = std::make_shared<fetch_external_options>();
    CLI::App* cmd = app.add_subcommand(
        "fetch-external",
        "retrieve the message/external-body parts (RFC 2017 URLs, anon-ftp, local files) and "
        "write them in as ordinary parts");
    cmd->add_option("input", o->in, "the archive or message, or - for standard input")->required();
    cmd->add_option("-o,--output", o->out, "the archive to write, or - for standard output")
        ->required();
    cmd->add_option("--allow-local", o->allow_local,
                    "read local-file parts and file: URLs, only inside this folder");
    cmd->add_option("--timeout", o->timeout,
                    "seconds per retrieval, redirects included (default 60)")
        ->check(CLI::Range(0.1, 86400.0));
    cmd->add_option("--max-size", o->max_size, "octets of one body at most, e.g. 100M (default 1G)")
        ->transform(CLI::AsSizeValue(false))
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 50));
    cmd->add_option("--parallel", o->parallel, "transfers at once (default 8)")
        ->check(CLI::Range(1u, 256u));
    cmd->add_option("--max-fetches", o->max_parts,
                    "external bodies retrieved at most (default 10000); later ones are kept")
        ->check(CLI::Range(std::size_t{1}, std::size_t{10'000'000}));
    cmd->add_flag("--ignore-expiration", o->ignore_expiration,
                  "retrieve parts whose expiration date has passed");
    cmd->add_flag("--json", o->json, "the report as JSON (to standard error with -o -)");
    add_limit_options(*cmd, o->limits);
    cmd->footer(
        "Only http, https and ftp URLs (and anon-ftp parts) are retrieved; file: URLs and "
        "local-file parts only inside --allow-local. HTTP asks for the part's declared type and "
        "rejects another; a Content-MD5 in the part must match the data (an integrity check, "
        "not a signature). Redirects: at most 5, never from https to http. Every other octet "
        "of the input is copied as it is; the output is written to a temporary file and renamed.\n"
        "Exit status: 0 all fetched, 1 some kept as they were (listed), 2 usage or I/O failure.\n"
        "Examples:\n"
        "  mhtml fetch-external message.eml -o complete.eml\n"
        "  mhtml fetch-external page.mhtml -o - --json 2> report.json > complete.mhtml\n"
        "  mhtml fetch-external note.eml -o out.eml --allow-local ~/shared");
    return [o] { return run_fetch_external(*o); };
}

}  // namespace mhtml::cli
