// mhtml check: the conformance checker. One finding per line (level, requirement row, code,
// part, offset, explanation), a summary, exit 1 when a MUST is violated.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/archive/check.hpp"
#include "mhtml/input.hpp"
#include "mhtml/mime/document.hpp"

namespace mhtml::cli {

namespace {

struct check_options {
    std::string file;
    bool json = false;
    bool strict = false;
    archive::aggregate_options::style_imports blink_style_imports{};
    parse_limits limits;
};

// MHTML draft §2.1: all MUST met = conditionally compliant; all MUST and SHOULD met =
// unconditionally compliant.
std::string_view compliance(const archive::finding_counts& c) {
    if (c.errors) return "not compliant";
    if (c.warnings) return "conditionally compliant";
    return "unconditionally compliant";
}

std::string plural(std::size_t n, std::string_view word) {
    std::string out = std::to_string(n);
    out += ' ';
    out += word;
    if (n != 1) out += 's';
    return out;
}

int run_check(const check_options& o) {
    auto opened = open_input("check", o.file);
    if (!opened) return exit_usage;
    input_buffer in = std::move(*opened);
    mime::parse_options po;
    po.limits = o.limits;
    const mime::document doc = mime::document::parse(std::move(in), po);
    archive::check_options co;
    co.strict = o.strict;
    co.blink_style_imports = o.blink_style_imports;
    co.store = selected_store();
    const std::vector<archive::finding> findings = archive::check(doc, co);
    const archive::finding_counts counts = archive::count_levels(findings);
    // The list is capped like every list of diagnostics (--max-diagnostics); the counts and
    // the exit status still cover every finding.
    const std::size_t listed = std::min(findings.size(), o.limits.max_diagnostics);
    const std::size_t not_listed = findings.size() - listed;

    std::string out;
    if (o.json) {
        json_writer w(out);
        w.begin_object();
        w.key("file");
        w.string(o.file);
        w.key("findings");
        w.begin_array();
        for (std::size_t i = 0; i < listed; ++i) {
            const archive::finding& f = findings[i];
            w.begin_object();
            w.key("requirement");
            w.string(f.requirement);
            w.key("level");
            w.string(archive::level_name(f.level));
            w.key("code");
            w.string(f.code);
            w.key("part");
            w.string(f.part_path);
            w.key("offset");
            w.number(file_offset(f.offset));
            w.key("message");
            w.string(f.message);
            w.end_object();
        }
        w.end_array();
        w.key("findings_not_listed");
        w.number(not_listed);
        w.key("errors");
        w.number(counts.errors);
        w.key("warnings");
        w.number(counts.warnings);
        w.key("notes");
        w.number(counts.notes);
        w.end_object();
        out += '\n';
    } else {
        for (std::size_t i = 0; i < listed; ++i) {
            const archive::finding& f = findings[i];
            out += archive::level_name(f.level);
            out += ' ';
            out += f.requirement;
            out += ' ';
            out += f.code;
            out += " part ";
            out += f.part_path.empty() ? std::string(".") : f.part_path;
            out += " @";
            out += std::to_string(file_offset(f.offset));
            out += ": ";
            out += printable(f.message);
            out += '\n';
        }
        if (not_listed) {
            out += "... ";
            out += plural(not_listed, "more finding");
            out += " not listed (--max-diagnostics ";
            out += std::to_string(o.limits.max_diagnostics);
            out += "); the counts below include them\n";
        }
        out += o.file == "-" ? std::string("standard input") : o.file;
        out += ": ";
        out += plural(counts.errors, "error");
        out += ", ";
        out += plural(counts.warnings, "warning");
        out += ", ";
        out += plural(counts.notes, "note");
        out += " (";
        out += compliance(counts);
        out += ")\n";
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (std::fflush(stdout) != 0) {
        std::cerr << "mhtml check: cannot write the output\n";
        return exit_usage;
    }
    return counts.errors ? exit_input_errors : exit_ok;
}

}  // namespace

runner add_check_command(CLI::App& app) {
    auto o = std::make_shared<check_options>();
    CLI::App* cmd = app.add_subcommand(
        "check",
        "check an archive against the MHTML requirements: each finding with its requirement row");
    cmd->add_option("FILE", o->file, "the .mhtml/.mht/.eml file, or - for standard input")
        ->required();
    cmd->add_flag(
        "--json", o->json,
        "print one JSON document {\"file\", \"findings\": [{requirement, level, code, "
        "part, offset, message}], \"findings_not_listed\", \"errors\", \"warnings\", \"notes\"}: "
        "at most --max-diagnostics findings are listed, the counts cover all");
    cmd->add_flag("--strict", o->strict,
                  "resolve as RFC 2557 says, with no retries or compatibility matches (references "
                  "only a lenient reader finds then reach no part)");
    add_blink_style_imports_option(*cmd, o->blink_style_imports);
    add_message_option(*cmd);
    add_store_option(*cmd);
    add_limit_options(*cmd, o->limits);
    cmd->footer(
        "Each line: LEVEL REQUIREMENT code part PATH @OFFSET: explanation, sorted by part, then "
        "offset.\nerror = a MUST violated, warning = a SHOULD violated, note = worth knowing. "
        "REQUIREMENT is the\nrow of spec/REQUIREMENTS.md; docs/check.md lists every check. Paths "
        "are IMAP-style ('.' is the\nwhole message; \"\" in JSON); OFFSET is a byte offset in the "
        "input.\nExit status: 0 no MUST violated, 1 at least one error, 2 usage or I/O "
        "failure.\n\nExamples:\n  mhtml check saved.mhtml\n  mhtml check --json saved.mhtml | jq "
        "'.findings[] | select(.level == \"error\")'\n  mhtml check --strict - < page.mht\n");
    return [o] { return run_check(*o); };
}

}  // namespace mhtml::cli
