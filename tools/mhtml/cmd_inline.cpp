// mhtml inline: an archive's page as one self-contained HTML file (view/inline.hpp).

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/view/inline.hpp"
#include "output_name.hpp"
#include "view_output.hpp"

namespace mhtml::cli {

namespace {

struct inline_cli_options {
    fetch_external_flags fetch;
    std::string file;
    std::string out;
    std::string part;
    bool offline = false, allow_scripts = false, json = false, strict = false;
    std::uint64_t max_output = 0;
    archive::aggregate_options::style_imports blink_style_imports{};
    parse_limits limits;
};

int run_inline(inline_cli_options o) {
    o.out = output_name(o.out);
    archive::aggregate_options ao;
    ao.strict = o.strict;
    ao.blink_style_imports = o.blink_style_imports;
    auto opened = open_archive("inline", o.file, o.limits, ao, &o.fetch);
    if (!opened) return exit_usage;
    const archive::aggregate& agg = opened->agg;

    view::inline_options io;
    if (!o.part.empty()) io.part = o.part;
    io.offline = o.offline;
    io.allow_scripts = o.allow_scripts;
    io.max_output = o.max_output;
    const view::inline_report r = view::inline_page(agg, o.out, io);
    // With -o -, the page went to standard output: the summary goes to standard error.
    std::FILE* summary = o.out == "-" ? stderr : stdout;
    std::string out;
    if (o.json && !r.ok()) {
        out = error_json(r.error_code, r.error);
    } else if (o.json) {
        json_writer w(out);
        w.begin_object();
        {
            w.key("output");
            w.string(o.out);
            w.key("root");
            w.string(r.root);
            w.key("size");
            w.number(r.size);
            w.key("parts_inlined");
            w.number(r.parts_inlined);
            w.key("parts_from_store");
            w.number(r.parts_from_store);
            w.key("references_inlined");
            w.number(r.references_inlined);
            w.key("external_left");
            w.number(r.external_left);
            w.key("external_removed");
            w.number(r.external_removed);
            w.key("plugins_blocked");
            w.number(r.plugins_blocked);
            w.key("refreshes_disabled");
            w.number(r.refreshes_disabled);
            w.key("shadow_roots");
            w.number(r.shadow_roots);
            w.key("charset");
            w.string(r.charset);
            w.key("transcoded");
            w.boolean(r.transcoded);
            w.key("scripts_allowed");
            w.boolean(o.allow_scripts);
            write_notices(w, r.notices);
        }
        w.end_object();
        out += '\n';
    } else if (r.ok()) {
        out += o.out == "-" ? std::string("page") : o.out;
        out += ": " + std::to_string(r.size) + " octets, " + std::to_string(r.parts_inlined) +
               " parts inlined" +
               (r.parts_from_store ? " (" + std::to_string(r.parts_from_store) + " from the store)"
                                   : std::string()) +
               " by " + std::to_string(r.references_inlined) + " references, " +
               std::to_string(r.external_left) + " external references left";
        if (o.offline) out += ", " + std::to_string(r.external_removed) + " removed (--offline)";
        out += "; charset " + (r.charset.empty() ? std::string("unknown") : r.charset);
        if (r.transcoded) out += " (transcoded)";
        out += o.allow_scripts ? "; scripts allowed\n" : "; scripts blocked (CSP)\n";
        append_notices(out, r.notices);
    }
    if (!r.ok()) std::cerr << "mhtml inline: " << r.error << '\n';
    std::fwrite(out.data(), 1, out.size(), summary);
    if (std::fflush(summary) != 0) return exit_usage;
    return r.ok() ? exit_ok : exit_usage;
}

}  // namespace

runner add_inline_command(CLI::App& app) {
    auto o = std::make_shared<inline_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "inline", "Write an archive's page as one self-contained HTML file (data: URIs)");
    cmd->add_option("ARCHIVE", o->file, "the .mhtml/.mht/.eml file, or - for standard input")
        ->required();
    cmd->add_option("-o,--output", o->out, "the HTML file to write, or - for standard output")
        ->required();
    cmd->add_option("--part", o->part,
                    "the multipart/related to inline, by path (or a part inside it); default: "
                    "the first");
    cmd->add_flag("--offline", o->offline,
                  "remove external resources and forbid every fetch (CSP default-src 'none')");
    cmd->add_flag("--allow-scripts", o->allow_scripts,
                  "let the page's scripts, plugins and refreshes run (by default a "
                  "Content-Security-Policy blocks them, as Chromium's view of an archive does)");
    cmd->add_option("--max-output", o->max_output,
                    "the most the page may weigh, e.g. 500M or 2G (default: 10 times the "
                    "archive plus 64 MiB); a larger page is an error and nothing is written")
        ->transform(CLI::AsSizeValue(false));
    cmd->add_flag("--strict", o->strict,
                  "resolve as RFC 2557 says, with no retries or compatibility matches");
    cmd->add_flag("--json", o->json, "print the summary as JSON");
    add_blink_style_imports_option(*cmd, o->blink_style_imports);
    add_fetch_external_options(*cmd, o->fetch);
    add_message_option(*cmd);
    add_store_option(*cmd);
    add_limit_options(*cmd, o->limits);
    cmd->footer(
        "Images, fonts, style sheets (with their own url()s) and frames that the archive holds\n"
        "become data: URIs; the page's charset is kept and declared. Received scripts do not run\n"
        "unless --allow-scripts. Frames and style sheets that repeat each other can multiply\n"
        "the page's size: past --max-output it stops with an error. The file is written beside\n"
        "its destination and renamed into place (nothing is left on error); with -o - the page\n"
        "goes to standard output and the summary to standard error.\n"
        "Exit status: 0 written, 2 usage, I/O failure or a page over --max-output.\n"
        "\n"
        "Examples:\n"
        "  mhtml inline saved.mhtml -o saved.html\n"
        "  mhtml inline --offline page.mht -o - > page.html\n"
        "  mhtml inline --json --part 2 mail.eml -o mail.html");
    return [o] { return run_inline(*o); };
}

}  // namespace mhtml::cli
