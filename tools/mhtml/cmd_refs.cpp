// mhtml refs: every URI reference in an HTML document or a style sheet, in document order,
// with its kind, element and attribute, byte offset and raw value; --base resolves them.

#include <iostream>
#include <string>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/input.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/uri/reference.hpp"

namespace mhtml::cli {

namespace {

struct refs_options {
    std::string file;
    bool css = false;
    bool html = false;
    bool archive = false;
    bool strict = false;
    archive::aggregate_options::style_imports blink_style_imports{};
    bool json = false;
    std::string base;
    bool use_document_base = true;
};

bool ends_with_ci(std::string_view s, std::string_view suffix) {
    if (s.size() < suffix.size()) return false;
    for (std::size_t i = 0; i < suffix.size(); ++i) {
        char a = s[s.size() - suffix.size() + i];
        if (a >= 'A' && a <= 'Z') a = static_cast<char>(a + 32);
        if (a != suffix[i]) return false;
    }
    return true;
}

// kind, element, attribute, offset, length, raw (the bytes as written in `text`), url.
void write_reference_fields(json_writer& w, const html::reference& r, std::string_view text) {
    w.key("kind");
    w.string(html::kind_name(r.kind));
    w.key("element");
    w.string(r.element);
    w.key("attribute");
    w.string(r.attribute);
    w.key("offset");
    w.number(r.offset);
    w.key("length");
    w.number(r.length);
    w.key("raw");
    w.string(text.substr(r.offset, r.length));
    w.key("url");
    w.string(r.url);
}

// A MIME message starts with a header block that has a Content-Type or MIME-Version field
// (or is a "From " mbox line); HTML and CSS do not start with "Name: value" lines.
bool looks_like_mime(std::string_view s) {
    if (s.starts_with("From ")) return true;
    std::size_t end = s.find("\n\n");
    std::size_t crlf = s.find("\r\n\r\n");
    end = std::min(end, crlf);
    std::string_view head = s.substr(0, std::min<std::size_t>(end, 65536));
    std::size_t colon = head.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    for (std::size_t i = 0; i < colon; ++i) {
        char c = head[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-'))
            return false;
    }
    std::string lower(head);
    for (char& c : lower)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return lower.find("content-type:") != std::string::npos ||
           lower.find("mime-version:") != std::string::npos;
}

// Every reference in every document part of an archive, resolved as MHTML does.
int run_archive_refs(const refs_options& o, input_buffer&& in) {
    auto doc = mime::document::parse(std::move(in));
    archive::aggregate_options options;
    options.strict = o.strict;
    options.blink_style_imports = o.blink_style_imports;
    options.store = selected_store();
    auto agg = archive::aggregate::build(doc, options);
    std::string out;
    json_writer w(out);
    if (o.json) w.begin_array();
    std::size_t total = 0, external = 0, resolved_count = 0;
    std::string text;
    for (auto p : doc.parts()) {
        if (archive::document_type_of(p) == archive::document_type::none) continue;
        std::string body;
        p.decode_to(body);
        auto scan = archive::document_type_of(p) == archive::document_type::css
                        ? html::scan_style_sheet(body)
                        : html::scan_html(
                              body, archive::document_type_of(p) == archive::document_type::svg);
        for (std::size_t i = 0; i < scan.refs.size(); ++i) {
            const auto& r = scan.refs[i];
            archive::resolution res;
            if (r.kind == html::ref_kind::base) {
                res.resolved =
                    agg.info(p).has_html_base && scan.base == i ? agg.info(p).base : r.url;
            } else {
                res = agg.resolve(p, r);
            }
            ++total;
            if (res.target) {
                ++resolved_count;
            } else if (!res.same_document && r.kind != html::ref_kind::base) {
                ++external;
            }
            if (o.json) {
                w.begin_object();
                w.key("part");
                w.string(p.path());
                write_reference_fields(w, r, body);
                w.key("resolved");
                w.string(res.resolved);
                w.key("target");
                res.target ? w.string(res.target->path()) : w.null();
                if (res.from_store) {  // a part of another message, found through --store
                    w.key("from_store");
                    w.boolean(true);
                }
                w.key("same_document");
                w.boolean(res.same_document);
                w.end_object();
            } else {
                std::string where = r.element.empty() ? "css" : r.element;
                if (!r.attribute.empty()) {
                    where += '@';
                    where += r.attribute;
                }
                text += (p.path().empty() ? "." : p.path());
                text += '\t';
                text += std::to_string(r.offset);
                text += '\t';
                text += html::kind_name(r.kind);
                text += '\t';
                text += where;
                text += '\t';
                text += printable(std::string_view(body).substr(r.offset, r.length));
                text += "\t-> ";
                const std::string target_path =
                    res.target
                        ? (res.target->path().empty() ? std::string(".") : res.target->path())
                        : std::string();
                text += res.from_store      ? "part " + target_path + " of another message (store)"
                        : res.target        ? "part " + target_path
                        : res.same_document ? std::string("same document")
                                            : "external " + printable(res.resolved);
                text += '\n';
            }
        }
    }
    if (o.json) {
        w.end_array();
        std::cout << out << '\n';
    } else {
        std::cout << (o.file == "-" ? "standard input" : o.file) << ": " << total << " references, "
                  << resolved_count << " to parts, " << external << " external\n"
                  << text;
    }
    return exit_ok;
}

int run_refs(const refs_options& o) {
    auto opened = open_input("refs", o.file);
    if (!opened) return exit_usage;
    input_buffer in = std::move(*opened);
    if (o.archive || (!o.css && !o.html && looks_like_mime(in.bytes())))
        return run_archive_refs(o, std::move(in));
    const bool css = o.css || (!o.html && (ends_with_ci(o.file, ".css")));
    const bool svg = !o.css && !o.html && ends_with_ci(o.file, ".svg");
    html::scan_result scan =
        css ? html::scan_style_sheet(in.bytes()) : html::scan_html(in.bytes(), svg);

    // The base: --base, then (unless --no-document-base) the document's first <base href>
    // resolved against it, as a browser does (HTML "document base URL").
    std::optional<uri::base_uri> base,
        given;  // the document's base; the one given (for <base> itself)
    if (!o.base.empty()) {
        given = base = uri::base_uri::make(o.base);
        if (!base) {
            std::cerr << "mhtml refs: --base must be an absolute URI (with a scheme), e.g. "
                         "https://example.com/ or "
                         "thismessage:/; got '"
                      << o.base << "'\n";
            return exit_usage;
        }
        if (o.use_document_base && scan.base) {
            if (auto doc_base = uri::base_uri::make(base->resolve(scan.refs[*scan.base].url)))
                base = doc_base;
        }
    }

    std::string out;
    if (o.json) {
        json_writer w(out);
        w.begin_array();
        for (std::size_t i = 0; i < scan.refs.size(); ++i) {
            const auto& r = scan.refs[i];
            w.begin_object();
            write_reference_fields(w, r, in.bytes());
            w.key("syntax");
            w.string(html::syntax_name(r.syntax));
            if (scan.base && *scan.base == i) {
                w.key("document_base");
                w.boolean(true);
            }
            if (base) {
                w.key("resolved");
                w.string((r.kind == html::ref_kind::base ? *given : *base).resolve(r.url));
            }
            w.end_object();
        }
        w.end_array();
        std::cout << out << '\n';
        return exit_ok;
    }
    std::cout << (o.file == "-" ? "standard input" : o.file) << ": " << scan.refs.size()
              << " references" << (css ? " (style sheet)" : "") << '\n';
    for (const auto& r : scan.refs) {
        std::string where = r.element.empty() ? "css" : r.element;
        if (!r.attribute.empty()) where += "@" + std::string(r.attribute);
        std::cout << r.offset << '\t' << html::kind_name(r.kind) << '\t' << where << '\t'
                  << printable(in.bytes().substr(r.offset, r.length));
        if (base)
            std::cout << '\t'
                      << printable(
                             (r.kind == html::ref_kind::base ? *given : *base).resolve(r.url));
        std::cout << '\n';
    }
    return exit_ok;
}

}  // namespace

runner add_refs_command(CLI::App& app) {
    auto o = std::make_shared<refs_options>();
    CLI::App* cmd =
        app.add_subcommand("refs", "list the URI references in an HTML document or a style sheet");
    cmd->add_option(
           "file", o->file,
           "an archive (.mhtml, .mht, .eml), an HTML, SVG or CSS file, or - for standard input")
        ->required();
    add_message_option(*cmd);
    add_store_option(*cmd);
    cmd->add_flag("--css", o->css,
                  "the input is a style sheet (default: decided by the .css file name)");
    cmd->add_flag("--html", o->html, "the input is HTML whatever its name");
    cmd->add_flag(
        "--archive", o->archive,
        "the input is a MIME archive (the default when it starts with a MIME header block)");
    cmd->add_flag("--strict", o->strict,
                  "archives: match references to parts as RFC 2557 says, no retries");
    add_blink_style_imports_option(*cmd, o->blink_style_imports);
    cmd->add_flag(
        "--json", o->json,
        "a JSON array of {kind, element, attribute, offset, length, raw, url, syntax[, resolved]}");
    cmd->add_option("--base", o->base,
                    "resolve each reference against this absolute URI (and the document's <base>)");
    cmd->add_flag("!--no-document-base", o->use_document_base,
                  "with --base, ignore the document's own <base href>");
    cmd->footer(
        "Columns: byte offset, kind (resource, navigation, form_action, citation, base), "
        "element@attribute,\n"
        "the raw value as written (character references and CSS escapes not decoded), and with "
        "--base the\n"
        "resolved URI. --json gives the decoded value as well.\n"
        "\n"
        "An archive lists every reference in every HTML, CSS and SVG part with what it resolves "
        "to: a\n"
        "part (by path), the same document, or external; --json gives part, kind, element, "
        "attribute,\n"
        "offset, length, raw, url, resolved and target (the part's path or null).\n"
        "\n"
        "Examples:\n"
        "  mhtml refs saved.mhtml\n"
        "  mhtml refs --json saved.mhtml | jq '.[] | select(.target == null) | .resolved'\n"
        "  mhtml refs page.html\n"
        "  mhtml refs --json --base https://example.com/dir/ page.html\n"
        "  mhtml refs site.css\n"
        "  curl -s https://example.com/ | mhtml refs --base https://example.com/ -");
    return [o] { return run_refs(*o); };
}

}  // namespace mhtml::cli
