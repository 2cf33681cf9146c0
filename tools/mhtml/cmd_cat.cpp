// mhtml cat: the decoded body of one part of an archive, named by a URI (resolved from the
// root, or from another part with --base) or by its path.

#include <cstdio>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/input.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/uri/cid.hpp"

namespace mhtml::cli {

namespace {

struct cat_options {
    std::string file;
    std::string what;
    bool what_given = false;  // "" is a path too (the whole message)
    std::string base_part;
    bool strict = false;
};

// A part path: "." or "" (the whole message) or digits separated by dots.
bool is_part_path(std::string_view s) {
    if (s == "." || s.empty()) return true;
    bool digit = false;
    for (char c : s) {
        if (c >= '0' && c <= '9') {
            digit = true;
        } else if (c == '.' && digit) {
            digit = false;
        } else {
            return false;
        }
    }
    return digit;
}

std::optional<mime::part_view> part_by_path(const mime::document& doc, std::string_view path) {
    return doc.find(path == "." ? std::string_view() : path);
}

// Writes the decoded body of a leaf (a multipart or a message: an error naming it).
int write_leaf(const mime::part_view& target) {
    if (!target.is_leaf()) {
        std::cerr << "mhtml cat: part " << (target.path().empty() ? "." : target.path()) << " is a "
                  << target.content_type().essence() << ", not a leaf; name one of its parts\n";
        return exit_input_errors;
    }
    std::string body;
    target.decode_to(body);
    std::fwrite(body.data(), 1, body.size(), stdout);
    if (std::fflush(stdout) != 0) {
        std::cerr << "mhtml cat: cannot write the output\n";
        return exit_usage;
    }
    return exit_ok;
}

// mhtml cat --store DB mid:MESSAGE[/CONTENT]: the message or part the store has.
int run_cat_from_store(const std::string& url) {
    const archive::message_store* store = selected_store();
    auto ids = uri::mid_to_ids(url);
    if (!ids) {
        std::cerr << "mhtml cat: " << printable(url, 400) << " is not a valid mid: URL ("
                  << ids.message << ")\n";
        return exit_usage;
    }
    const std::string content_id =
        ids.value.content_id.empty() ? std::string() : uri::id_key(ids.value.content_id);
    const auto part = store->find(uri::id_key(ids.value.message_id), content_id);
    if (!part) {
        std::cerr << "mhtml cat: the store has no " << (content_id.empty() ? "message" : "part")
                  << " named " << printable(url, 400) << '\n';
        return exit_input_errors;
    }
    // A whole message: what a viewer shows of it (aggregate::shown_leaf: the root of its
    // related structure, its displayed alternative, ...).
    mime::part_view shown = *part;
    if (content_id.empty())
        shown = archive::aggregate::build(part->doc()).shown_leaf(*part).value_or(*part);
    return write_leaf(shown);
}

int run_cat(const cat_options& o) {
    if (!o.what_given) {
        if (selected_store() && uri::is_mid_url(o.file)) return run_cat_from_store(o.file);
        std::cerr << "mhtml cat: name the part: mhtml cat FILE URI|PATH (or, with --store, "
                     "mhtml cat --store DB mid:...)\n";
        return exit_usage;
    }
    auto opened = open_input("cat", o.file);
    if (!opened) return exit_usage;
    input_buffer in = std::move(*opened);
    auto doc = mime::document::parse(std::move(in));
    std::optional<mime::part_view> target;
    if (is_part_path(o.what)) {
        target = part_by_path(doc, o.what);
        if (!target) {
            std::cerr << "mhtml cat: there is no part " << o.what
                      << " (mhtml ls lists the paths)\n";
            return exit_input_errors;
        }
    } else {
        archive::aggregate_options options;
        options.strict = o.strict;
        options.store = selected_store();
        auto agg = archive::aggregate::build(doc, options);
        mime::part_view from = agg.main_root();
        if (!o.base_part.empty()) {
            auto b = part_by_path(doc, o.base_part);
            if (!b) {
                std::cerr << "mhtml cat: --base: there is no part " << o.base_part << '\n';
                return exit_usage;
            }
            from = *b;
        }
        std::vector<diagnostic> diags;
        auto r = agg.resolve(from, o.what, &diags);
        for (const auto& d : diags)
            std::cerr << "mhtml cat: " << severity_name(d.sev) << ' ' << code_name(d.code) << ": "
                      << d.message << '\n';
        if (!r.target) {
            std::cerr << "mhtml cat: " << o.what << " resolves to " << r.resolved
                      << ", which no part of the archive is labelled with\n";
            return exit_input_errors;
        }
        target = r.target;
    }
    return write_leaf(*target);
}

}  // namespace

runner add_cat_command(CLI::App& app) {
    auto o = std::make_shared<cat_options>();
    CLI::App* cmd =
        app.add_subcommand("cat", "write the decoded body of one part, named by URI or path");
    cmd->add_option("file", o->file,
                    "the archive (.mhtml, .mht, .eml), or - for standard input; with --store and "
                    "nothing after it, a mid: URL of a message or part in the store")
        ->required();
    cmd->add_option(
        "what", o->what,
        "a URI as the root would reference it (resolved as MHTML does), or a part path (1, 2.1)");
    cmd->add_option("--base", o->base_part,
                    "resolve the URI as the part with this path would (default: the root)");
    add_message_option(*cmd);
    add_store_option(*cmd);
    cmd->add_flag("--strict", o->strict, "match as RFC 2557 says, no retries");
    cmd->footer(
        "Exit status: 0 written, 1 no such part (or not a leaf), 2 usage or I/O failure.\n"
        "\n"
        "Examples:\n"
        "  mhtml cat saved.mhtml 2 > image.png\n"
        "  mhtml cat saved.mhtml https://example.com/style.css\n"
        "  mhtml cat mail.eml cid:logo@example.com > logo.gif\n"
        "  mhtml cat saved.mhtml ../img/a.png --base 3\n"
        "  mhtml cat --store mail.db 'mid:m1@example.com/logo@example.com' > logo.png\n");
    return [o, cmd] {
        o->what_given = cmd->count("what") > 0;
        return run_cat(*o);
    };
}

}  // namespace mhtml::cli
