// mhtml repair IN|- -o OUT|-: a damaged or odd archive written canonical (pack/repair.hpp).

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/pack/repair.hpp"
#include "output_name.hpp"
#include "view_output.hpp"

namespace mhtml::cli {

namespace {

struct repair_cli_options {
    std::string in;
    std::string out;
    bool json = false;
    bool keep_labels = false;
    bool drop_unreferenced = false;
    pack::repair_target target = pack::repair_target::chromium;
    parse_limits limits;
};

int fail(const repair_cli_options& o, const std::string& code, const std::string& message) {
    if (o.json) std::fputs(error_json(code, message).c_str(), o.out == "-" ? stderr : stdout);
    std::cerr << "mhtml repair: " << message << '\n';
    return exit_usage;
}

void write_json(std::string& out, const repair_cli_options& o, const pack::repair_report& r) {
    json_writer w(out);
    w.begin_object();
    w.key("input");
    w.string(o.in);
    w.key("output");
    w.string(o.out);
    w.key("target");
    w.string(o.target == pack::repair_target::chromium ? "chromium" : "rfc");
    w.key("bytes");
    w.number(r.written.bytes);
    w.key("changes");
    w.begin_array();
    for (const auto& c : r.changes) {
        w.begin_object();
        w.key("what");
        w.string(c.what);
        w.key("part");
        w.string(c.part);
        w.key("offset");
        w.number(c.offset);
        w.key("why");
        w.string(c.why);
        w.key("requirement");
        w.string(c.requirement);
        w.end_object();
    }
    w.end_array();
    auto paths = [&](const char* key, const std::vector<std::string>& v) {
        w.key(key);
        w.begin_array();
        for (const auto& p : v) w.string(p);
        w.end_array();
    };
    paths("incomplete", r.incomplete);
    paths("unreferenced", r.unreferenced);
    paths("dropped", r.dropped);
    w.key("parts");
    w.begin_array();
    for (const auto& p : r.written.parts)
        write_part_report(w, p, "input_part", p.index < r.inputs.size() ? r.inputs[p.index] : "");
    w.end_array();
    w.key("diagnostics");
    w.begin_array();
    for (const auto& d : r.read) write_staged_diagnostic(w, d, "read");
    for (const auto& d : r.written.diagnostics) write_staged_diagnostic(w, d, "write");
    w.end_array();
    w.end_object();
    out += '\n';
}

void write_text(std::string& out, const repair_cli_options& o, const pack::repair_report& r) {
    std::size_t written = 0;
    for (const auto& p : r.written.parts) written += p.written ? 1 : 0;
    out += (o.out == "-" ? std::string("archive") : o.out) + ": " + std::to_string(written) +
           " parts, " + std::to_string(r.written.bytes) + " octets; " +
           std::to_string(r.changes.size()) + " changes, " + std::to_string(r.read.size()) +
           " findings on reading";
    if (!r.incomplete.empty()) out += ", " + std::to_string(r.incomplete.size()) + " incomplete";
    if (!r.unreferenced.empty())
        out += ", " + std::to_string(r.unreferenced.size()) + " unreferenced";
    if (!r.dropped.empty()) out += " (" + std::to_string(r.dropped.size()) + " left out)";
    out += '\n';
    for (const auto& c : r.changes)
        out += "  " + c.what + " (part " + (c.part.empty() ? std::string(".") : c.part) + " @" +
               std::to_string(c.offset) + (c.requirement.empty() ? "" : ", " + c.requirement) +
               "): " + printable(c.why, 400) + '\n';
}

int run_repair(repair_cli_options o) {
    o.out = output_name(o.out);
    pack::repair_options ro;
    ro.target = o.target;
    ro.keep_labels = o.keep_labels;
    ro.drop_unreferenced = o.drop_unreferenced;
    ro.read.max_diagnostics = o.limits.max_diagnostics;
    auto in = open_input("repair", o.in);
    if (!in) return exit_usage;
    mime::parse_options po;
    po.limits = o.limits;

    const bool to_stdout = o.out == "-";
    pack::repair_report r;
    // Standard output gets the archive only once it is whole (spooled to a temporary file).
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> spool(nullptr, &std::fclose);
    if (to_stdout) {
        spool.reset(std::tmpfile());
        if (!spool) return fail(o, "io_error", "cannot create a temporary file to spool into");
        pack::fd_sink sink(::fileno(spool.get()), /*may_restart=*/true);  // ours alone
        r = pack::repair_bytes(in->bytes(), sink, ro, po);
        if (!r.ok() && r.written.error->code == diag_code::no_mime_structure)
            return fail(o, "no_parts", o.in + ": " + r.written.error->message);
        if (!r.ok())
            return fail(o, "io_error", "cannot spool the archive: " + r.written.error->message);
        if (!copy_to_stdout(spool.get()))
            return fail(o, "io_error", "cannot write the archive to standard output");
    } else {
        pack::file_sink sink(o.out);
        if (!sink.is_open())
            return fail(o, "io_error", "cannot write " + o.out + ": " + sink.error());
        r = pack::repair_bytes(in->bytes(), sink, ro, po);
        if (!r.ok() && r.written.error->code == diag_code::no_mime_structure)
            return fail(o, "no_parts", o.in + ": " + r.written.error->message);
        if (!r.ok())
            return fail(o, "io_error", "cannot write " + o.out + ": " + r.written.error->message);
        if (!sink.commit())
            return fail(o, "io_error", "cannot write " + o.out + ": " + sink.error());
    }
    std::string out;
    if (o.json) {
        write_json(out, o, r);
    } else {
        write_text(out, o, r);
    }
    std::FILE* report = to_stdout ? stderr : stdout;
    std::fwrite(out.data(), 1, out.size(), report);
    if (!to_stdout) {
        // Chromium opens a file as an archive by its name alone.
        std::string ext = std::filesystem::path(o.out).extension().string();
        for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (ext != ".mhtml" && ext != ".mht")
            std::fprintf(stderr,
                         "mhtml repair: note: %s is not named .mhtml or .mht; Chromium opens "
                         "only such files as archives (others as text or HTML)\n",
                         o.out.c_str());
    }
    // 1: the output lost something (an incomplete part, a part left out by the writer).
    bool complete = r.incomplete.empty();
    for (const auto& p : r.written.parts)
        if (!p.written) complete = false;
    return complete ? exit_ok : exit_input_errors;
}

}  // namespace

runner add_repair_command(CLI::App& app) {
    auto o = std::make_shared<repair_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "repair", "write a damaged or odd archive as a canonical one that Chromium shows in full");
    cmd->add_option("input", o->in, "the archive (.mhtml, .mht, .eml), or - for standard input")
        ->required();
    cmd->add_option("-o,--output", o->out, "the repaired archive, or - for standard output")
        ->required();
    cmd->add_flag("--json", o->json, "report every change as JSON (to stderr with -o -)");
    cmd->add_flag("--keep-labels", o->keep_labels,
                  "keep each Content-Location as written (no resolving against its base)");
    cmd->add_flag("--drop-unreferenced", o->drop_unreferenced,
                  "leave out the parts no reference reaches (listed either way)");
    const std::map<std::string, pack::repair_target> targets{
        {"chromium", pack::repair_target::chromium}, {"rfc", pack::repair_target::rfc}};
    cmd->add_option("--target", o->target,
                    "chromium (default): also what Chromium needs beyond RFC 2557 (an HTML root "
                    "typed text/html, the first document of an alternative, Content-Locations "
                    "on one line); rfc: RFC 2557 alone")
        ->transform(CLI::CheckedTransformer(targets, CLI::ignore_case));
    add_limit_options(*cmd, o->limits);
    cmd->footer(
        "Reads with every salvage (LF line ends, bad base64 or quoted-printable, a missing close "
        "delimiter, a cut file, a root that is not first...) and writes CRLF, valid encodings, "
        "the root first with `type`, every label absolute. Decoded content changes only where "
        "the report says so.\n"
        "Exit status: 0 repaired whole; 1 written, but a part is incomplete (listed); 2 usage or "
        "I/O error.\n"
        "Examples:\n"
        "  mhtml repair broken.mht -o fixed.mhtml\n"
        "  mhtml repair saved.txt -o - --json > fixed.mhtml 2> report.json\n"
        "  cat page.mht | mhtml repair - -o fixed.mhtml --target rfc");
    return [o] { return run_repair(*o); };
}

}  // namespace mhtml::cli
