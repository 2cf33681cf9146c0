// mhtml extract: an archive written out as a folder of ordinary files (view/extract.hpp).

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/view/extract.hpp"
#include "view_output.hpp"

namespace mhtml::cli {

namespace {

struct extract_cli_options {
    fetch_external_flags fetch;
    std::string file;
    std::string dir;
    std::string part;
    bool keep_names = false, offline = false, allow_scripts = false, force = false, json = false,
         strict = false;
    archive::aggregate_options::style_imports blink_style_imports{};
    parse_limits limits;
};

int run_extract(const extract_cli_options& o) {
    archive::aggregate_options ao;
    ao.strict = o.strict;
    ao.blink_style_imports = o.blink_style_imports;
    auto opened = open_archive("extract", o.file, o.limits, ao, &o.fetch);
    if (!opened) return exit_usage;
    const archive::aggregate& agg = opened->agg;

    view::extract_options eo;
    if (!o.part.empty()) eo.part = o.part;
    eo.keep_names = o.keep_names;
    eo.offline = o.offline;
    eo.allow_scripts = o.allow_scripts;
    eo.force = o.force;
    const bool show_progress = !o.json && ::isatty(2);
    if (show_progress)
        eo.progress = [](std::size_t done, std::size_t total) {
            if (total >= 200 && (done % 100 == 0 || done == total))
                std::fprintf(stderr, "\rmhtml extract: %zu/%zu files%s", done, total,
                             done == total ? "\n" : "");
        };
    const view::extract_report r = view::extract(agg, o.dir, eo);
    if (!r.ok()) {
        if (o.json) std::fputs(error_json(r.error_code, r.error).c_str(), stdout);
        std::cerr << "mhtml extract: " << r.error << '\n';
        return exit_usage;
    }
    std::string out;
    if (o.json) {
        json_writer w(out);
        w.begin_object();
        w.key("dir");
        w.string(o.dir);
        w.key("files");
        w.begin_array();
        for (const auto& f : r.files) {
            w.begin_object();
            w.key("part");
            w.string(f.part);
            w.key("file");
            w.string(f.file);
            if (!f.message_id.empty()) {  // a leaf of another message (--store)
                w.key("message_id");
                w.string(f.message_id);
            }
            w.key("content_type");
            w.string(f.content_type);
            w.key("content_id");
            f.content_id ? w.string(*f.content_id) : w.null();
            w.key("content_location");
            f.content_location ? w.string(*f.content_location) : w.null();
            w.key("size");
            w.number(f.size);
            w.key("rewritten");
            w.number(f.rewritten);
            w.key("root");
            w.boolean(f.root);
            w.end_object();
        }
        w.end_array();
        w.key("references_rewritten");
        w.number(r.references_rewritten);
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
        w.key("file_name_method");
        w.boolean(r.file_name_method);
        write_notices(w, r.notices);
        w.end_object();
        out += '\n';
    } else {
        std::string root;
        for (const auto& f : r.files)
            if (f.root) root = f.file;
        out += std::to_string(r.files.size());
        out += " files written to ";
        out += o.dir;
        out += " (open ";
        out += root;
        out += "); ";
        out += std::to_string(r.references_rewritten);
        out += " references rewritten, ";
        out += std::to_string(r.external_left);
        out += " external references left";
        if (o.offline) {
            out += ", ";
            out += std::to_string(r.external_removed);
            out += " pointed at nothing (--offline)";
        }
        if (r.plugins_blocked) {
            out += "; ";
            out += std::to_string(r.plugins_blocked);
            out += " plugin objects pointed at nothing";
        }
        if (!o.allow_scripts) out += "; scripts blocked (--allow-scripts to run them)";
        if (r.file_name_method) out += "; virtual file names: nothing rewritten";
        out += '\n';
        append_notices(out, r.notices);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (std::fflush(stdout) != 0) return exit_usage;
    return exit_ok;
}

}  // namespace

runner add_extract_command(CLI::App& app) {
    auto o = std::make_shared<extract_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "extract", "Write an archive out as a folder of files a browser opens (index.html)");
    cmd->add_option("ARCHIVE", o->file, "the .mhtml/.mht/.eml file, or - for standard input")
        ->required();
    cmd->add_option("-o,--output", o->dir,
                    "the folder to create (refused if it exists and is "
                    "not empty, unless --force)")
        ->required();
    cmd->add_option("--part", o->part,
                    "the multipart/related to extract, by path (or a part inside it); default: "
                    "the first");
    cmd->add_flag("--keep-names", o->keep_names,
                  "write the root at the path of its URL instead of index.html");
    cmd->add_flag("--offline", o->offline,
                  "point external resources at nothing and forbid fetching (CSP), so opening "
                  "the folder makes no network request");
    cmd->add_flag("--allow-scripts", o->allow_scripts,
                  "let the pages' scripts, plugins and refreshes run (by default every page "
                  "carries a policy that blocks them, as Chromium's view of an archive does)");
    cmd->add_flag("--force", o->force, "replace an existing non-empty folder");
    cmd->add_flag("--strict", o->strict,
                  "resolve as RFC 2557 says, with no retries or compatibility matches");
    cmd->add_flag("--json", o->json, "print the result as JSON (files, counts, notices)");
    add_blink_style_imports_option(*cmd, o->blink_style_imports);
    add_fetch_external_options(*cmd, o->fetch);
    add_message_option(*cmd);
    add_store_option(*cmd);
    add_limit_options(*cmd, o->limits);
    cmd->footer(
        "Every part the page uses is written under the folder at host/path of its URL (cid/ID\n"
        "for cid: parts), its references in HTML and CSS rewritten to relative paths; every\n"
        "other byte is kept. manifest.json maps part path, Content-ID, Content-Location and\n"
        "file. Every HTML, XHTML and SVG file carries a Content-Security-Policy that blocks\n"
        "scripts and plugins, and meta refreshes are disabled, unless --allow-scripts.\n"
        "The folder is built beside its destination and renamed into place: nothing is\n"
        "written outside it, whatever names the archive gives.\n"
        "Exit status: 0 written, 2 usage, I/O failure or refusal (nothing written).\n"
        "\n"
        "Examples:\n"
        "  mhtml extract saved.mhtml -o saved\n"
        "  mhtml extract --offline --force page.mht -o /tmp/page && chromium /tmp/page/index.html\n"
        "  mhtml extract --json mail.eml --part 2 -o mail | jq '.files[].file'");
    return [o] { return run_extract(*o); };
}

}  // namespace mhtml::cli
