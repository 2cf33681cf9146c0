// mhtml url: the URI layer by hand. Every subcommand takes its inputs as arguments, or `-`
// to read one input per line from standard input, and prints one result per line (or, with
// --json, one JSON object per line), so it works in a pipeline. A failed input prints an
// empty line (to keep the lines aligned), its error on standard error, and exit status 1.

#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/content_type_uri.hpp"
#include "mhtml/uri/header_value.hpp"
#include "mhtml/uri/reference.hpp"
#include "mhtml/uri/virtual_filename.hpp"
#include "mhtml/uri/whatwg_url.hpp"

namespace mhtml::cli {

namespace {

struct url_options {
    std::vector<std::string> inputs;
    bool json = false;
    std::string base;               // resolve
    bool normalized = false;        // resolve --normalize
    bool whatwg = false;            // resolve --whatwg
    bool no_controlled = false;     // ct2uri / uri2ct
    std::string charset;            // encode-header
    bool automatic = false;         // encode-header --auto
    std::size_t name_columns = 18;  // encode-header: "Content-Location: "
    bool check = false;             // filename --check
};

/// The inputs: the arguments, or the lines of standard input when the only argument is
/// "-" (a trailing CR is dropped, so CRLF files work).
std::vector<std::string> read_inputs(const std::vector<std::string>& args) {
    if (args.size() != 1 || args[0] != "-") return args;
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

/// One result line: text mode prints `output`; JSON mode prints an object with the input,
/// the output (or null), the error, the diagnostics and any extra fields.
class reporter {
public:
    reporter(std::string command, bool json) : command_(std::move(command)), json_(json) {}

    template <class Extra>
    void emit(std::string_view input, const std::string* output, std::string_view error,
              std::string_view message, const std::vector<diagnostic>& diags, Extra&& extra) {
        if (!error.empty()) {
            failed_ = true;
            std::cerr << "mhtml url " << command_ << ": " << error << ": " << message
                      << " (input: " << input << ")\n";
        }
        if (!json_) {
            // One result per line: a result with a line break or another control octet
            // cannot be printed as it is (use --json, which escapes it).
            bool printable = true;
            if (output)
                for (char c : *output)
                    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F)
                        printable = false;
            if (output && printable) std::cout << *output;
            if (output && !printable) {
                failed_ = true;
                std::cerr << "mhtml url " << command_
                          << ": unprintable_output: the result contains control octets; use --json "
                             "to see it "
                             "exactly (input: "
                          << input << ")\n";
            }
            std::cout << '\n';
            for (auto& d : diags)
                std::cerr << "mhtml url " << command_ << ": " << severity_name(d.sev) << ' '
                          << code_name(d.code) << " at " << d.offset << ": " << d.message << '\n';
            return;
        }
        std::string out;
        json_writer w(out);
        w.begin_object();
        w.key("input");
        w.string(input);
        w.key("output");
        if (output) {
            w.string(*output);
        } else {
            w.null();
        }
        if (!error.empty()) {
            w.key("error");
            w.string(error);
            w.key("message");
            w.string(message);
        }
        extra(w);
        write_diagnostics(w, diags, false);
        w.end_object();
        std::cout << out << '\n';
    }
    void emit(std::string_view input, const std::string* output, std::string_view error,
              std::string_view message, const std::vector<diagnostic>& diags) {
        emit(input, output, error, message, diags, [](json_writer&) {});
    }
    template <class T>
    void emit_result(std::string_view input, const uri::result<T>& r, const std::string& text,
                     const std::vector<diagnostic>& diags) {
        emit(input, r.ok() ? &text : nullptr, r.error, r.message, diags);
    }
    [[nodiscard]] int status() const { return failed_ ? exit_input_errors : exit_ok; }

private:
    std::string command_;
    bool json_;
    bool failed_ = false;
};

// resolve --whatwg: the URL Standard's parser, as a browser resolves (uri/whatwg_url.hpp).
int run_resolve_whatwg(const url_options& o) {
    reporter rep("resolve", o.json);
    auto base = uri::whatwg_url::parse(o.base);
    if (!base) {
        std::cerr << "mhtml url resolve: the URL Standard's parser refuses the base '" << o.base
                  << "'\n";
        return exit_usage;
    }
    const std::string base_href = base->href();
    for (auto& ref : read_inputs(o.inputs)) {
        auto url = uri::whatwg_url::parse(ref, &*base);
        std::string href = url ? url->href() : std::string();
        rep.emit(
            ref, url ? &href : nullptr, url ? "" : "url_parse_failure",
            url ? ""
                : "the URL Standard's parser returns failure for it (or its host is not ASCII)",
            {}, [&](json_writer& w) {
                w.key("base");
                w.string(base_href);
            });
    }
    return rep.status();
}

int run_resolve(const url_options& o) {
    if (o.whatwg) return run_resolve_whatwg(o);
    reporter rep("resolve", o.json);
    auto base = uri::base_uri::make(o.base);
    if (!base) {
        std::cerr << "mhtml url resolve: the base must be an absolute URI (with a scheme), e.g. "
                     "thismessage:/ or https://example.com/; got '"
                  << o.base << "'\n";
        return exit_usage;
    }
    for (auto& ref : read_inputs(o.inputs)) {
        std::vector<diagnostic> diags;
        std::string target = base->resolve(ref, &diags);
        if (o.normalized) target = uri::normalize(target);
        rep.emit(ref, &target, {}, {}, diags, [&](json_writer& w) {
            w.key("base");
            w.string(base->str());
            w.key("same_document");
            w.boolean(uri::is_same_document(ref));
            w.key("fictitious");
            w.boolean(uri::is_fictitious_scheme(uri::split_reference(target).scheme));
        });
    }
    return rep.status();
}

int run_cid(const url_options& o) {
    reporter rep("cid", o.json);
    for (auto& in : read_inputs(o.inputs)) {
        std::vector<diagnostic> diags;
        auto r = uri::is_cid_url(in) ? uri::cid_to_content_id(in, &diags)
                                     : uri::content_id_to_cid(in, &diags);
        rep.emit_result(in, r, r.value, diags);
    }
    return rep.status();
}

// "<m@x>" or "<m@x> <c@x>": the Content-ID starts after white space that follows a '>';
// without brackets ("m@x c@x"), at the first white space.
std::pair<std::string_view, std::string_view> split_mid_ids(std::string_view in) {
    auto rest_after = [&](std::size_t i) {
        std::string_view rest = in.substr(i);
        rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
        return rest;
    };
    for (std::size_t i = 0; i + 1 < in.size(); ++i)
        if (in[i] == '>' && (in[i + 1] == ' ' || in[i + 1] == '\t'))
            return {in.substr(0, i + 1), rest_after(i + 1)};
    std::size_t start = in.find_first_not_of(" \t");
    if (start != std::string_view::npos && in[start] != '<') {
        std::size_t space = in.find_first_of(" \t", start);
        if (space != std::string_view::npos && rest_after(space).size() > 0)
            return {in.substr(0, space), rest_after(space)};
    }
    return {in, {}};
}

int run_mid(const url_options& o) {
    reporter rep("mid", o.json);
    for (auto& in : read_inputs(o.inputs)) {
        std::vector<diagnostic> diags;
        if (uri::is_mid_url(in)) {
            auto r = uri::mid_to_ids(in, &diags);
            std::string text = r.value.message_id;
            if (!r.value.content_id.empty()) text += ' ' + r.value.content_id;
            rep.emit(in, r.ok() ? &text : nullptr, r.error, r.message, diags, [&](json_writer& w) {
                if (!r.ok()) return;
                w.key("message_id");
                w.string(r.value.message_id);
                w.key("content_id");
                if (r.value.content_id.empty()) {
                    w.null();
                } else {
                    w.string(r.value.content_id);
                }
            });
        } else {
            auto [message_id, content_id] = split_mid_ids(in);
            auto r = uri::ids_to_mid(message_id, content_id, &diags);
            rep.emit_result(in, r, r.value, diags);
        }
    }
    return rep.status();
}

int run_mapping(const url_options& o, bool to_uri) {
    reporter rep(to_uri ? "ct2uri" : "uri2ct", o.json);
    uri::mapping_options opts;
    opts.controlled = !o.no_controlled;
    for (auto& in : read_inputs(o.inputs)) {
        std::vector<diagnostic> diags;
        auto r = to_uri ? uri::ct_to_uri(in, opts, &diags) : uri::uri_to_ct(in, opts, &diags);
        rep.emit(in, r.ok() ? &r.value.text : nullptr, r.error, r.message, diags,
                 [&](json_writer& w) {
                     if (!r.ok()) return;
                     w.key("rule");
                     w.string(uri::rule_name(r.value.rule));
                 });
    }
    return rep.status();
}

int run_fold(const url_options& o) {
    reporter rep("fold", o.json);
    for (auto& in : read_inputs(o.inputs)) {
        auto r = uri::url_parameter(in);
        rep.emit_result(in, r, r.value, {});
    }
    return rep.status();
}

int run_unfold(const url_options& o) {
    reporter rep("unfold", o.json);
    for (auto& in : read_inputs(o.inputs)) {
        std::vector<diagnostic> diags;
        std::string url = uri::extract_url_parameter(in, &diags);
        rep.emit(in, &url, {}, {}, diags);
    }
    return rep.status();
}

int run_encode_header(const url_options& o) {
    reporter rep("encode-header", o.json);
    for (auto& in : read_inputs(o.inputs)) {
        if (in.empty()) {
            rep.emit(in, nullptr, "empty_uri", "there is no URI to encode", {});
            continue;
        }
        auto written = uri::write_header_uri(in, o.name_columns, o.charset, !o.automatic);
        // One result per line: the folds (CRLF SP) are shown as single spaces, which a
        // reader removes the same way.
        std::string line;
        for (std::size_t i = 0; i < written.value.size(); ++i) {
            if (written.value.compare(i, 3, "\r\n ") == 0) {
                line += ' ';
                i += 2;
            } else {
                line += written.value[i];
            }
        }
        rep.emit(in, &line, {}, {}, {}, [&](json_writer& w) {
            w.key("form");
            w.string(uri::form_name(written.form));
            w.key("charset");
            if (written.charset.empty()) {
                w.null();
            } else {
                w.string(written.charset);
            }
            w.key("field_body");
            w.string(written.value);
        });
    }
    return rep.status();
}

int run_decode_header(const url_options& o) {
    reporter rep("decode-header", o.json);
    for (auto& in : read_inputs(o.inputs)) {
        std::vector<diagnostic> diags;
        std::string url = uri::extract_header_uri(in, &diags);
        rep.emit(in, &url, {}, {}, diags);
    }
    return rep.status();
}

int run_filename(const url_options& o) {
    reporter rep("filename", o.json);
    auto inputs = read_inputs(o.inputs);
    if (o.check) {
        for (auto& in : inputs) {
            bool valid = uri::is_virtual_filename(in);
            bool reserved = uri::is_windows_reserved_name(in);
            std::string verdict =
                valid ? (reserved ? "valid (a Windows device name)" : "valid") : "invalid";
            rep.emit(
                in, &verdict,
                valid ? std::string_view{} : std::string_view("invalid_virtual_filename"),
                "not of the form 1ALPHA 0*7ALPHADIGIT [\".\" 1*3ALPHADIGIT] (text/html draft 9.2)",
                {}, [&](json_writer& w) {
                    w.key("valid");
                    w.boolean(valid);
                    w.key("windows_reserved");
                    w.boolean(reserved);
                });
        }
        return rep.status();
    }
    // "URL" or "URL TYPE": the content type is the last white-space separated word when it
    // has a '/'.
    std::vector<uri::filename_request> requests;
    for (auto& in : inputs) {
        uri::filename_request r;
        std::size_t space = in.find_last_of(" \t");
        if (space != std::string::npos && in.find('/', space) != std::string::npos &&
            in.find_first_not_of(" \t") < space) {
            r.url = in.substr(0, in.find_last_not_of(" \t", space) + 1);
            r.content_type = in.substr(space + 1);
        } else {
            r.url = in;
        }
        requests.push_back(std::move(r));
    }
    auto names = uri::make_virtual_filenames(requests);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        rep.emit(inputs[i], &names[i], {}, {}, {}, [&](json_writer& w) {
            w.key("url");
            w.string(requests[i].url);
            w.key("content_type");
            w.string(requests[i].content_type);
        });
    }
    return rep.status();
}

}  // namespace

runner add_url_command(CLI::App& app) {
    auto o = std::make_shared<url_options>();
    CLI::App* url = app.add_subcommand(
        "url", "URI tools: resolve, cid:/mid:, Content-Type <-> URI, header forms");
    url->require_subcommand(1);
    url->footer(
        "Every subcommand takes its inputs as arguments, or '-' to read one per line from "
        "standard\n"
        "input, and prints one result per line (--json: one JSON object per line). A failed input\n"
        "prints an empty line, its error on standard error, and the exit status is 1; so does a "
        "result that\n"
        "holds a line break or another control octet (--json shows it exactly). 'filename --check' "
        "prints\n"
        "valid or invalid for each name and exits 1 if any is invalid.\n"
        "\n"
        "Examples:\n"
        "  mhtml url resolve 'http://a/b/c/d;p?q' ../g ../../../g    http://a/b/g, http://a/g\n"
        "  mhtml url resolve thismessage:/ images/logo.gif           thismessage:/images/logo.gif\n"
        "  mhtml url resolve --whatwg HTTP://H:80/d/ 'a b.png'       http://h/d/a%20b.png\n"
        "  mhtml url cid 'cid:foo4%25foo1@bar.net'                   <foo4%foo1@bar.net>\n"
        "  mhtml url cid '<a/b@example.net>'                         cid:a%2Fb@example.net\n"
        "  mhtml url mid 'mid:m@x.example/p@x.example'               <m@x.example> <p@x.example>\n"
        "  mhtml url ct2uri 'text/plain; charset=us-ascii'           "
        "ContentType:text/plain?charset=\"us-ascii\"\n"
        "  mhtml url uri2ct 'http://example.com/tag42'               "
        "application/uri.http%3A%2F%2Fexample.com%2Ftag42\n"
        "  mhtml url fold 'http://h.example/a b'                     \"http://h.example/a%20b\"\n"
        "  mhtml url decode-header '=?US-ASCII?Q?a=20b.gif?='        a b.gif\n"
        "  mhtml url filename 'https://e.example/Logo.PNG image/png' logo.png\n"
        "  mhtml refs --json page.html | jq -r '.[].url' | mhtml url resolve https://e.example/ "
        "-\n");

    auto inputs = [&](CLI::App* sub, const char* what) {
        sub->add_option("inputs", o->inputs, what)->required();
        sub->add_flag("--json", o->json, "one JSON object per line, with diagnostics");
    };
    std::vector<std::pair<CLI::App*, std::function<int()>>> subs;

    CLI::App* resolve = url->add_subcommand(
        "resolve", "resolve references against a base (RFC 3986 5.2, no normalisation)");
    resolve
        ->add_option("base", o->base,
                     "absolute base URI (thismessage:/ is MHTML's fictitious base)")
        ->required();
    inputs(resolve, "references, or - for one per line on standard input");
    resolve->add_flag("--normalize", o->normalized,
                      "print the RFC 3986 6.2.2 normal form (what the lenient match compares)");
    resolve->add_flag("--whatwg", o->whatwg,
                      "parse as browsers do (the URL Standard: %-encodes spaces and 8-bit octets, "
                      "lower-cases hosts, drops default ports), as the lenient browser match and "
                      "Chromium read references");
    resolve->excludes(resolve->get_option("--normalize"));
    subs.emplace_back(resolve, [o] { return run_resolve(*o); });

    CLI::App* cid =
        url->add_subcommand("cid", "cid: URL <-> Content-ID (direction from the input)");
    inputs(cid, "cid: URLs or Content-ID field bodies, or -");
    subs.emplace_back(cid, [o] { return run_cid(*o); });

    CLI::App* mid = url->add_subcommand(
        "mid", "mid: URL <-> Message-ID [Content-ID] (direction from the input)");
    inputs(mid, "mid: URLs, or '<message-id> [<content-id>]', or -");
    subs.emplace_back(mid, [o] { return run_mid(*o); });

    CLI::App* ct2uri = url->add_subcommand("ct2uri", "Content-Type -> URI (draft-eastlake-cturi)");
    inputs(ct2uri, "Content-Type field bodies, or -");
    ct2uri->add_flag("--no-controlled", o->no_controlled,
                     "no controlled mapping (URI-Body, MIME-Type)");
    subs.emplace_back(ct2uri, [o] { return run_mapping(*o, true); });

    CLI::App* uri2ct = url->add_subcommand("uri2ct", "URI -> Content-Type (draft-eastlake-cturi)");
    inputs(uri2ct, "absolute URIs, or -");
    uri2ct->add_flag("--no-controlled", o->no_controlled,
                     "no controlled mapping (MIME-Type query parameter)");
    subs.emplace_back(uri2ct, [o] { return run_mapping(*o, false); });

    CLI::App* fold = url->add_subcommand(
        "fold", "URL -> RFC 2017 URL parameter (escaped, 40-character words, quoted)");
    inputs(fold, "URLs, or -");
    subs.emplace_back(fold, [o] { return run_fold(*o); });

    CLI::App* unfold = url->add_subcommand(
        "unfold", "RFC 2017 URL parameter -> URL (quotes and white space removed)");
    inputs(unfold, "URL parameter values, or -");
    subs.emplace_back(unfold, [o] { return run_unfold(*o); });

    CLI::App* encode =
        url->add_subcommand("encode-header", "URI -> RFC 2047 encoded-words for Content-Location");
    inputs(encode, "URIs, or -");
    encode->add_option(
        "--charset", o->charset,
        "charset of the document the URI came from, used for 8-bit octets that are valid in "
        "it (else UNKNOWN-8BIT)");
    encode->add_flag(
        "--auto", o->automatic,
        "write what the packer writes: bare when possible, quoted RFC 2017 words when only long, "
        "encoded-words otherwise");
    encode->add_option(
        "--name-columns", o->name_columns,
        "columns taken by the field name on the first line (default 18, 'Content-Location: ')");
    subs.emplace_back(encode, [o] { return run_encode_header(*o); });

    CLI::App* decode = url->add_subcommand(
        "decode-header", "Content-Location / Content-Base field body -> URI (MHTML 4.4.2)");
    inputs(decode, "field bodies, or -");
    subs.emplace_back(decode, [o] { return run_decode_header(*o); });

    CLI::App* filename = url->add_subcommand(
        "filename", "virtual file names (text/html draft 9.2) for a set of URLs");
    inputs(filename, "'URL [CONTENT-TYPE]' items, or -; names are unique across all of them");
    filename->add_flag("--check", o->check,
                       "validate names instead of making them (exit 1 if any is invalid)");
    subs.emplace_back(filename, [o] { return run_filename(*o); });

    return [subs] {
        for (auto& [sub, run] : subs)
            if (sub->parsed()) return run();
        return int(exit_usage);
    };
}

}  // namespace mhtml::cli
