// mhtml index: builds or updates the SQLite index of mailboxes, Maildirs and folders of
// messages (store/index.hpp) that --store reads to resolve mid: URLs across messages.

#include <chrono>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/store/index.hpp"

namespace mhtml::cli {

namespace {

struct index_cli_options {
    std::vector<std::string> sources;
    std::string db;
    bool json = false;
    std::optional<store::mbox_format> format;
    parse_limits limits;
};

int run_index(const index_cli_options& o) {
    const auto started = std::chrono::steady_clock::now();
    store::index idx = store::index::open(o.db);
    std::vector<std::filesystem::path> sources(o.sources.begin(), o.sources.end());
    store::index_options io;
    io.format = o.format;
    io.limits = o.limits;
    const store::index_report r = idx.update(sources, io);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    bool errors = !r.problems.empty();
    for (const diagnostic& d : r.diagnostics) errors |= d.sev != severity::note;
    std::string out;
    if (o.json) {
        json_writer w(out);
        w.begin_object();
        w.key("db");
        w.string(o.db);
        const std::pair<const char*, std::uint64_t> counts[] = {
            {"files", r.files},
            {"files_unchanged", r.files_unchanged},
            {"files_appended", r.files_appended},
            {"files_read", r.files_read},
            {"files_removed", r.files_removed},
            {"messages_added", r.messages_added},
            {"messages_removed", r.messages_removed},
            {"parts_added", r.parts_added},
            {"bytes_read", r.bytes_read},
            {"messages", idx.message_count()},
            {"parts", idx.part_count()},
        };
        for (const auto& [k, v] : counts) {
            w.key(k);
            w.number(v);
        }
        w.key("milliseconds");
        w.number(static_cast<std::uint64_t>(seconds * 1000));
        w.key("problems");
        w.begin_array();
        for (const std::string& p : r.problems) w.string(p);
        w.end_array();
        write_diagnostics(w, r.diagnostics, true);  // path: "FILE#N"
        w.end_object();
        out += '\n';
    } else {
        out += o.db + ": " + std::to_string(idx.message_count()) + " messages, " +
               std::to_string(idx.part_count()) + " parts in " + std::to_string(idx.file_count()) +
               " files\n";
        out += "  " + std::to_string(r.files) + " files: " + std::to_string(r.files_read) +
               " read, " + std::to_string(r.files_appended) + " read from their old end, " +
               std::to_string(r.files_unchanged) + " unchanged, " +
               std::to_string(r.files_removed) + " removed\n";
        out += "  messages: " + std::to_string(r.messages_added) + " added, " +
               std::to_string(r.messages_removed) + " removed; " + std::to_string(r.bytes_read) +
               " octets read in " + std::to_string(static_cast<std::uint64_t>(seconds * 1000)) +
               " ms\n";
        for (const std::string& p : r.problems) out += "  problem: " + printable(p, 600) + '\n';
        for (const diagnostic& d : r.diagnostics)
            out += "  " + std::string(severity_name(d.sev)) + ' ' + std::string(code_name(d.code)) +
                   ' ' + printable(d.part_path, 400) + " @" + std::to_string(d.offset) + ": " +
                   printable(d.message) + '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (std::fflush(stdout) != 0) {
        std::cerr << "mhtml index: cannot write the output\n";
        return exit_usage;
    }
    return errors ? exit_input_errors : exit_ok;
}

}  // namespace

runner add_index_command(CLI::App& app) {
    auto o = std::make_shared<index_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "index",
        "build or update the SQLite index of mailboxes, Maildirs and folders of messages "
        "(for --store: mid: URLs across messages)");
    cmd->add_option("SOURCE", o->sources,
                    "an mbox file, a Maildir, a folder (searched for mailboxes, Maildirs and "
                    ".eml/.mht/.mhtml files) or one message file")
        ->required();
    cmd->add_option("--db", o->db, "the index file (created if missing)")->required();
    cmd->add_flag("--json", o->json, "print the report as one JSON object");
    const std::map<std::string, store::mbox_format> formats{
        {"mboxo", store::mbox_format::mboxo},
        {"mboxrd", store::mbox_format::mboxrd},
        {"mboxcl2", store::mbox_format::mboxcl2}};
    cmd->add_option("--mbox-format", o->format,
                    "read mailboxes in this format instead of detecting it; a file named as "
                    "SOURCE is then read as a mailbox")
        ->transform(CLI::CheckedTransformer(formats, CLI::ignore_case));
    add_limit_options(*cmd, o->limits);
    cmd->footer(
        "A file whose size, mtime and inode are as recorded is not read again; an mbox that only\n"
        "grew is read from its old end; files gone from a SOURCE leave the index.\n"
        "Exit status: 0 indexed, 1 indexed but some file could not be read or a mailbox is\n"
        "damaged (see the report), 2 usage failure or the index cannot be written.\n"
        "\n"
        "Examples:\n"
        "  mhtml index ~/Mail/inbox.mbox ~/Maildir --db mail.db\n"
        "  mhtml refs --store mail.db reply.eml       mid: links resolved through the index\n"
        "  mhtml cat --store mail.db 'mid:m1@example.com/logo@example.com' > logo.png");
    return [o] { return run_index(*o); };
}

}  // namespace mhtml::cli
