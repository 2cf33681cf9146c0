// mhtml refs: every URI reference in an HTML document or a style sheet, in document order,
// with its kind, element and attribute, byte offset and raw value; --base resolves them.

#include <iostream>
#include <string>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/input.hpp"
#include "mhtml/uri/reference.hpp"

namespace mhtml::cli {

namespace {

struct refs_options {
    std::string file;
    bool css = false;
    bool html = false;
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

// One line per reference in the text listing: control octets shown as '?'.
std::string printable(std::string_view s) {
    std::string out;
    for (char c : s) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    return out;
}

int run_refs(const refs_options& o) {
    std::error_code ec;
    input_buffer in = input_buffer::open(o.file, ec);
    if (ec) {
        std::cerr << "mhtml refs: cannot read " << (o.file == "-" ? "standard input" : o.file) << ": "
                  << ec.message() << '\n';
        return exit_usage;
    }
    const bool css = o.css || (!o.html && (ends_with_ci(o.file, ".css")));
    const bool svg = !o.css && !o.html && ends_with_ci(o.file, ".svg");
    html::scan_result scan = css ? html::scan_style_sheet(in.bytes()) : html::scan_html(in.bytes(), svg);

    // The base: --base, then (unless --no-document-base) the document's first <base href>
    // resolved against it, as a browser does (HTML "document base URL").
    std::optional<uri::base_uri> base, given;  // the document's base; the one given (for <base> itself)
    if (!o.base.empty()) {
        given = base = uri::base_uri::make(o.base);
        if (!base) {
            std::cerr << "mhtml refs: --base must be an absolute URI (with a scheme), e.g. https://example.com/ or "
                         "thismessage:/; got '"
                      << o.base << "'\n";
            return exit_usage;
        }
        if (o.use_document_base && scan.base) {
            if (auto doc_base = uri::base_uri::make(base->resolve(scan.refs[*scan.base].url))) base = doc_base;
        }
    }

    std::string out;
    if (o.json) {
        json_writer w(out);
        w.begin_array();
        for (std::size_t i = 0; i < scan.refs.size(); ++i) {
            const auto& r = scan.refs[i];
            w.begin_object();
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
            w.string(in.bytes().substr(r.offset, r.length));
            w.key("url");
            w.string(r.url);
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
    std::cout << (o.file == "-" ? "standard input" : o.file) << ": " << scan.refs.size() << " references"
              << (css ? " (style sheet)" : "") << '\n';
    for (const auto& r : scan.refs) {
        std::string where = r.element.empty() ? "css" : r.element;
        if (!r.attribute.empty()) where += "@" + std::string(r.attribute);
        std::cout << r.offset << '\t' << html::kind_name(r.kind) << '\t' << where << '\t'
                  << printable(in.bytes().substr(r.offset, r.length));
        if (base) std::cout << '\t' << printable((r.kind == html::ref_kind::base ? *given : *base).resolve(r.url));
        std::cout << '\n';
    }
    return exit_ok;
}

}  // namespace

runner add_refs_command(CLI::App& app) {
    auto o = std::make_shared<refs_options>();
    CLI::App* cmd = app.add_subcommand("refs", "list the URI references in an HTML document or a style sheet");
    cmd->add_option("file", o->file, "HTML, SVG or CSS file, or - for standard input")->required();
    cmd->add_flag("--css", o->css, "the input is a style sheet (default: decided by the .css file name)");
    cmd->add_flag("--html", o->html, "the input is HTML whatever its name");
    cmd->add_flag("--json", o->json,
                  "a JSON array of {kind, element, attribute, offset, length, raw, url, syntax[, resolved]}");
    cmd->add_option("--base", o->base, "resolve each reference against this absolute URI (and the document's <base>)");
    cmd->add_flag("!--no-document-base", o->use_document_base, "with --base, ignore the document's own <base href>");
    cmd->footer(
        "Columns: byte offset, kind (resource, navigation, form_action, citation, base), element@attribute,\n"
        "the raw value as written (character references and CSS escapes not decoded), and with --base the\n"
        "resolved URI. --json gives the decoded value as well.\n"
        "\n"
        "Examples:\n"
        "  mhtml refs page.html\n"
        "  mhtml refs --json --base https://example.com/dir/ page.html\n"
        "  mhtml refs site.css\n"
        "  curl -s https://example.com/ | mhtml refs --base https://example.com/ -");
    return [o] { return run_refs(*o); };
}

}  // namespace mhtml::cli
