// mhtml ls: the tree of a MIME document with sizes, identifiers and diagnostics.

#include <openssl/evp.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/external/body.hpp"
#include "mhtml/mime/content_md5.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/mime/rfc2047.hpp"
#include "mhtml/store/index.hpp"
#include "mhtml/store/maildir.hpp"
#include "mhtml/store/mbox.hpp"

namespace mhtml::cli {

namespace {

struct ls_options {
    std::string file;
    bool json = false;
    bool hash = false;
    bool mbox = false;     // read as a mailbox even if it does not look like one
    bool no_mbox = false;  // read as one message even if it looks like a mailbox
    parse_limits limits;
};

std::string sha256_hex(std::string_view data) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < len; ++i) {
        out += hex[md[i] >> 4];
        out += hex[md[i] & 15];
    }
    return out;
}

// A file name for display: RFC 2231 values arrive decoded; many mailers (Outlook, Apple
// Mail) put RFC 2047 encoded-words inside the quoted value instead, which is decoded too.
std::optional<std::string> display_filename(const mime::part_view& p) {
    std::optional<std::string_view> raw;
    auto disp = p.disposition();
    if (disp) raw = disp->filename();
    if (!raw) raw = p.content_type().param("name");
    if (!raw) return std::nullopt;
    if (raw->find("=?") == std::string_view::npos) return std::string(*raw);
    return mime::decode_to_utf8(*raw);
}

struct part_info {
    mime::part_view part;
    std::uint64_t decoded_size = 0;
    std::string sha256;
    bool has_md5 = false;
    std::optional<bool> md5_matches;  // RFC 1864; nullopt: not a digest value
    std::optional<external::body> external;
};

// An external-body part's model as JSON (URL-4.2: `md5` is what the header says; nothing
// here is called verified).
void write_external(json_writer& w, const external::body& b) {
    const auto opt = [&](const char* key, const std::optional<std::string>& v) {
        w.key(key);
        v ? w.string(*v) : w.null();
    };
    w.begin_object();
    w.key("access_type");
    w.string(b.access_type);
    w.key("access");
    w.string(external::access_name(b.kind));
    opt("url", b.url);
    w.key("retrievable");
    w.boolean(b.kind == external::access::url && b.retrievable_url());
    opt("name", b.name);
    opt("site", b.site);
    opt("directory", b.directory);
    opt("mode", b.mode);
    opt("server", b.server);
    opt("subject", b.subject);
    opt("permission", b.permission);
    opt("expiration", b.expiration);
    w.key("expires_at");  // seconds since the epoch, when `expiration` parses
    b.expires_at ? w.number(*b.expires_at) : w.null();
    w.key("size");
    b.size ? w.number(*b.size) : w.null();
    w.key("content_type");
    w.string(b.type.essence());
    w.key("type_given");
    w.boolean(b.type_given);
    w.key("encoding");
    w.string(mime::transfer_encoding_name(b.encoding));
    opt("content_id", b.content_id);
    opt("content_md5", b.content_md5);
    w.end_object();
}

// One message of a mailbox or Maildir, as `mhtml ls` lists it.
struct listed_message {
    std::string_view mailbox;  // mbox: the whole file, `entry` its message
    store::mbox_message entry;
    store::mbox_format format = store::mbox_format::mboxo;
    std::optional<std::uint64_t> offset;  // mbox: where it starts in the file
    std::uint64_t from_line = 0;          // mbox: its From_ line
    std::string envelope;                 // mbox: the From_ line after "From "
    std::string path;                     // Maildir, folder: its file
    std::string flags;                    // Maildir: the letters after ":2,"
    bool is_new = false;                  // Maildir: in new/
};

// `mhtml ls MAILBOX|MAILDIR`: one line (or JSON object) per message: number, where, size,
// Date, From, Subject, parts; then the mailbox's diagnostics.
int list_messages(const ls_options& o, std::string_view kind, std::uint64_t total,
                  const std::vector<listed_message>& messages,
                  const std::vector<diagnostic>& diagnostics) {
    std::string out;
    json_writer w(out);
    bool unreadable = false;
    if (o.json) {
        w.begin_object();
        w.key("file");
        w.string(o.file);
        w.key("size");
        w.number(total);
        w.key("mailbox");
        w.string(kind);
        w.key("messages");
        w.begin_array();
    } else {
        out += (o.file == "-" ? std::string("(stdin)") : o.file) + ": " + std::string(kind) +
               (kind == "folder" ? ", " : " mailbox, ") + std::to_string(messages.size()) +
               " messages, " + std::to_string(total) + " octets\n";
        char head[160];
        std::snprintf(head, sizeof head, "%-6s %12s %10s %5s  %-31s %-28s %s\n", "#",
                      kind == "maildir" ? "FLAGS" : "OFFSET", "SIZE", "PARTS", "DATE", "FROM",
                      kind == "folder" ? "SUBJECT  (FILE)" : "SUBJECT");
        out += head;
    }
    bool errors = false;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const listed_message& m = messages[i];
        mime::parse_options po;
        po.limits = o.limits;
        // A message is read here: an mbox's as a view of the file (unquoted into `storage` if it
        // has quoted lines), a Maildir's mapped, one at a time.
        input_buffer file;
        std::string storage;
        std::string_view bytes;
        if (m.offset) {
            bytes = store::message_text(m.mailbox, m.entry, m.format, storage);
        } else {
            std::error_code ec;
            file = input_buffer::open(m.path, ec);  // its headers
            if (ec) {
                std::cerr << "mhtml ls: cannot read " << printable(m.path, 400) << ": "
                          << ec.message() << '\n';
                unreadable = true;
                continue;
            }
            bytes = file.bytes();
        }
        const mime::document doc = mime::document::parse(bytes, po);
        for (const diagnostic& d : doc.diagnostics()) errors |= d.sev == severity::error;
        const auto field = [&](const char* name) {
            const auto f = doc.root().header(name);
            return f ? mime::decode_to_utf8(f->value()) : std::string();
        };
        std::size_t leaves = 0;
        for (const mime::part_view& p : doc.parts()) leaves += p.is_leaf() ? 1 : 0;
        if (o.json) {
            w.begin_object();
            w.key("number");
            w.number(i + 1);
            if (m.offset) {
                if (!m.path.empty()) {  // a mailbox in a folder
                    w.key("path");
                    w.string(m.path);
                }
                w.key("from_line_offset");
                w.number(m.from_line);
                w.key("offset");
                w.number(*m.offset);
                w.key("envelope");
                w.string(m.envelope);
            } else {
                w.key("path");
                w.string(m.path);
                w.key("new");
                w.boolean(m.is_new);
                w.key("flags");
                w.string(m.flags);
            }
            w.key("size");
            w.number(bytes.size());
            w.key("date");
            w.string(field("Date"));
            w.key("from");
            w.string(field("From"));
            w.key("subject");
            w.string(field("Subject"));
            w.key("message_id");
            w.string(field("Message-ID"));
            w.key("parts");
            w.number(leaves);
            w.key("diagnostics");
            w.number(doc.diagnostics().size());
            w.end_object();
        } else {
            const std::string where = m.offset ? std::to_string(*m.offset)
                                               : (m.is_new ? "new " : "") + printable(m.flags, 8);
            char line[512];
            std::snprintf(line, sizeof line, "%-6zu %12s %10zu %5zu  %-31s %-28s %s", i + 1,
                          where.c_str(), bytes.size(), leaves, printable(field("Date"), 31).c_str(),
                          printable(field("From"), 28).c_str(),
                          printable(field("Subject"), 200).c_str());
            out += line;
            if (kind == "folder") out += "  (" + printable(m.path, 400) + ")";
            out += '\n';
        }
    }
    if (o.json) {
        w.end_array();
        write_diagnostics(w, diagnostics, true);  // path: "#N", the message's number
        w.end_object();
        out += '\n';
    } else if (!diagnostics.empty()) {
        out += "diagnostics:\n";
        for (const diagnostic& d : diagnostics)
            out += "  " + std::string(severity_name(d.sev)) + ' ' + std::string(code_name(d.code)) +
                   " message " + d.part_path + " @" + std::to_string(d.offset) + ": " +
                   printable(d.message) + '\n';
    }
    for (const diagnostic& d : diagnostics) errors |= d.sev == severity::error;
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (std::fflush(stdout) != 0) {
        std::cerr << "mhtml ls: cannot write the output\n";
        return exit_usage;
    }
    return errors || unreadable ? exit_input_errors : exit_ok;
}

int run_ls_mailbox(const ls_options& o, std::string_view bytes) {
    const store::mbox_split split = store::split_mbox(bytes);
    std::vector<listed_message> messages;
    messages.reserve(split.messages.size());
    for (const store::mbox_message& m : split.messages) {
        listed_message l;
        l.mailbox = bytes;
        l.entry = m;
        l.format = split.format;
        l.offset = m.offset;
        l.from_line = m.from_line;
        l.envelope = m.envelope;
        messages.push_back(std::move(l));
    }
    return list_messages(o, store::mbox_format_name(split.format), bytes.size(), messages,
                         split.diagnostics);
}

int run_ls_maildir(const ls_options& o) {
    const store::maildir_listing listing = store::list_maildir(o.file);
    std::vector<listed_message> messages;
    std::uint64_t total = 0;
    bool unreadable = !listing.problems.empty();
    for (const store::maildir_message& m : listing.messages) {
        listed_message l;
        l.path = m.path.string();
        l.flags = m.flags;
        l.is_new = m.is_new;
        total += m.size;
        messages.push_back(std::move(l));
    }
    for (const std::string& p : listing.problems)
        std::cerr << "mhtml ls: " << printable(p, 400) << '\n';
    const int rc = list_messages(o, "maildir", total, messages, {});
    return rc == exit_ok && unreadable ? exit_input_errors : rc;
}

// `mhtml ls FOLDER` (not a Maildir): its messages as index and batch find them
// (store::list_sources: .eml/.mht/.mhtm/.mhtml files by name, mboxes by their first line,
// Maildirs; recursively, links not followed), one row per message.
int run_ls_folder(const ls_options& o) {
    const store::source_listing listing = store::list_sources({o.file});
    std::vector<listed_message> messages;
    std::vector<input_buffer> mailboxes;  // mapped while the rows are read
    std::vector<diagnostic> diagnostics;
    std::uint64_t total = 0;
    bool unreadable = !listing.problems.empty();
    for (const store::source_file& f : listing.files) {
        listed_message l;
        l.path = f.path.string();
        if (f.kind != store::source_kind::mbox) {
            l.flags = f.flags;
            l.is_new =
                f.kind == store::source_kind::maildir && f.path.parent_path().filename() == "new";
            std::error_code ec;
            const std::uintmax_t size = f.size ? *f.size : std::filesystem::file_size(f.path, ec);
            if (!ec) total += size;
            messages.push_back(std::move(l));
            continue;
        }
        std::error_code ec;
        input_buffer box = input_buffer::open(l.path, ec);
        if (ec) {
            std::cerr << "mhtml ls: cannot read " << printable(l.path, 400) << ": " << ec.message()
                      << '\n';
            unreadable = true;
            continue;
        }
        total += box.size();
        store::mbox_split split = store::split_mbox(box.bytes());
        for (const store::mbox_message& m : split.messages) {
            listed_message r;
            r.path = l.path;
            r.mailbox = box.bytes();
            r.entry = m;
            r.format = split.format;
            r.offset = m.offset;
            r.from_line = m.from_line;
            r.envelope = m.envelope;
            messages.push_back(std::move(r));
        }
        for (diagnostic& d : split.diagnostics) {
            d.part_path = l.path + d.part_path;  // FILE#N
            diagnostics.push_back(std::move(d));
        }
        mailboxes.push_back(std::move(box));  // (the views stay valid: a mapping does not move)
    }
    for (const std::string& p : listing.problems)
        std::cerr << "mhtml ls: " << printable(p, 400) << '\n';
    const int rc = list_messages(o, "folder", total, messages, diagnostics);
    return rc == exit_ok && unreadable ? exit_input_errors : rc;
}

int run_ls(const ls_options& o) {
    if (!message_selected() && store::is_maildir(o.file)) return run_ls_maildir(o);
    if (std::error_code ec;
        !message_selected() && o.file != "-" && std::filesystem::is_directory(o.file, ec))
        return run_ls_folder(o);
    auto opened = open_input("ls", o.file);
    if (!opened) return exit_usage;
    input_buffer in = std::move(*opened);
    if (!message_selected() && (o.mbox || (!o.no_mbox && store::looks_like_mbox(in.bytes()))))
        return run_ls_mailbox(o, in.bytes());
    mime::parse_options po;
    po.limits = o.limits;
    mime::document doc = mime::document::parse(std::move(in), po);
    std::vector<diagnostic> diags = doc.diagnostics();

    std::vector<part_info> infos;
    infos.reserve(doc.size());
    std::string buf;
    std::vector<diagnostic> decoding;
    for (mime::part_view p : doc.parts()) {
        part_info pi{p, 0, {}, false, std::nullopt, std::nullopt};
        if (p.is_leaf()) {
            buf.clear();
            decoding.clear();
            p.decode_to(buf, decoding);
            // The document's cap covers what decoding finds too.
            for (diagnostic& d : decoding)
                append_capped(diags, std::move(d), o.limits.max_diagnostics);
            pi.decoded_size = buf.size();
            if (o.hash) pi.sha256 = sha256_hex(buf);
            const auto parent = p.parent();
            const bool phantom = parent && parent->content_type().is("message", "external-body");
            // The encapsulated header of an external body describes the object elsewhere: its
            // Content-MD5 is not for the phantom body.
            if (auto md5 = p.header("Content-MD5"); md5 && !phantom) {
                pi.has_md5 = true;
                pi.md5_matches =
                    mime::content_md5_matches(md5->value(), buf, p.content_type().type == "text");
            }
        }
        if (p.content_type().is("message", "external-body")) {
            std::vector<diagnostic> found;
            pi.external = external::read(doc, p, &found);
            for (diagnostic& d : found)
                append_capped(diags, std::move(d), o.limits.max_diagnostics);
        }
        infos.push_back(std::move(pi));
    }
    bool errors = false;
    for (const diagnostic& d : diags) errors |= d.sev == severity::error;
    // The aggregate view: roots, base URIs, resolved Content-Locations (its own findings are
    // for `mhtml check`; ls reports how the MIME was read).
    const archive::aggregate agg = archive::aggregate::build(doc);
    std::vector<bool> is_root(doc.size(), false);
    for (const auto& rs : agg.related())
        if (rs.root.root) is_root[rs.root.root->index()] = true;

    std::string out;
    if (o.json) {
        json_writer w(out);
        w.begin_object();
        w.key("file");
        w.string(o.file);
        w.key("size");
        w.number(doc.bytes().size());
        w.key("parts");
        w.begin_array();
        for (const part_info& pi : infos) {
            const mime::part_view& p = pi.part;
            const auto& ct = p.content_type();
            w.begin_object();
            w.key("path");
            w.string(p.path());
            w.key("content_type");
            w.string(ct.essence());
            w.key("parameters");
            w.begin_object();
            for (const auto& prm : ct.params.items()) {
                w.key(prm.name);
                w.string(prm.value);
            }
            w.end_object();
            w.key("encoding");
            w.string(mime::transfer_encoding_name(p.encoding()));
            auto disp = p.disposition();
            w.key("disposition");
            disp ? w.string(disp->type) : w.null();
            w.key("filename");
            auto fname = display_filename(p);
            fname ? w.string(*fname) : w.null();
            auto cid = p.content_id();
            w.key("content_id");
            cid ? w.string(*cid) : w.null();
            auto loc = p.content_location();
            w.key("content_location");
            loc ? w.string(*loc) : w.null();
            w.key("offset");
            w.number(file_offset(p.input_offset()));
            w.key("decoded");  // found in a decoded body (REL-2.2): offset is that body's
            w.boolean(p.in_decoded_body());
            w.key("encoded_size");
            w.number(p.raw_body().size());
            w.key("decoded_size");
            p.is_leaf() ? w.number(pi.decoded_size) : w.null();
            w.key("leaf");
            w.boolean(p.is_leaf());
            const archive::entity_info& ai = agg.info(p);
            w.key("root");
            w.boolean(is_root[p.index()]);
            w.key("base");
            w.string(ai.base);
            w.key("resolved_location");
            ai.location ? w.string(*ai.location) : w.null();
            if (o.hash && p.is_leaf()) {
                w.key("sha256");
                w.string(pi.sha256);
            }
            if (pi.has_md5) {
                // RFC 1864 over the decoded body (CRLF line breaks for text); null when the
                // field is not a digest. A match is not a signature (URL-4.2).
                w.key("md5_matches");
                pi.md5_matches ? w.boolean(*pi.md5_matches) : w.null();
            }
            if (pi.external) {
                w.key("external");
                write_external(w, *pi.external);
            }
            w.end_object();
        }
        w.end_array();
        // The related structures: root, start, type and start-info (REL-3.3.2) of each.
        auto path_or_null = [&](const std::optional<mime::part_view>& p) {
            p ? w.string(p->path()) : w.null();
        };
        w.key("related");
        w.begin_array();
        for (const auto& rs : agg.related()) {
            w.begin_object();
            w.key("path");
            w.string(rs.part.path());
            w.key("root");
            path_or_null(rs.root.root);
            w.key("start");
            path_or_null(rs.root.start);
            w.key("type");
            rs.root.type ? w.string(*rs.root.type) : w.null();
            w.key("start_info");
            if (!rs.root.start_info) {
                w.null();
            } else {
                w.begin_object();
                w.key("kind");
                w.string(rs.root.start_info_is_cid_list ? "references" : "value");
                w.key("value");
                w.string(*rs.root.start_info);
                w.key("references");
                w.begin_array();
                for (std::size_t k = 0; k < rs.root.start_info_ids.size(); ++k) {
                    w.begin_object();
                    w.key("content_id");
                    w.string(rs.root.start_info_ids[k]);
                    w.key("part");
                    path_or_null(rs.root.start_info_parts[k]);
                    w.end_object();
                }
                w.end_array();
                w.end_object();
            }
            w.end_object();
        }
        w.end_array();
        w.key("snapshot_location");
        agg.snapshot_location() ? w.string(*agg.snapshot_location()) : w.null();
        write_diagnostics(w, diags, true);
        w.end_object();
        out += '\n';
    } else {
        std::size_t leaves = 0;
        for (const part_info& pi : infos) leaves += pi.part.is_leaf();
        out += (o.file == "-" ? std::string("(stdin)") : o.file) + ": " +
               std::to_string(doc.size()) + " entities, " + std::to_string(leaves) + " leaves, " +
               std::to_string(doc.bytes().size()) + " octets\n";
        char line[256];
        std::snprintf(line, sizeof line, "%-12s %-32s %-16s %10s %10s  %s\n", "PATH", "TYPE",
                      "ENCODING", "SIZE", "DECODED", "DETAILS");
        out += line;
        for (const part_info& pi : infos) {
            const mime::part_view& p = pi.part;
            const auto& ct = p.content_type();
            std::string path = std::string(p.depth() * 1, ' ') +
                               (p.path().empty() ? "." : p.path()) +
                               (is_root[p.index()] ? "*" : "");
            std::string details;
            for (const char* key : {"charset", "type", "start", "boundary"}) {
                if (auto v = ct.param(key))
                    details += std::string(key) + "=\"" + printable(*v, 200) + "\" ";
            }
            if (auto disp = p.disposition()) details += disp->type + ' ';
            if (auto fn = display_filename(p))
                details += "filename=\"" + printable(*fn, 200) + "\" ";
            if (auto cid = p.content_id()) details += "id=<" + printable(*cid, 200) + "> ";
            if (auto loc = p.content_location())
                details += "location=" + printable(*loc, 200) + ' ';
            if (pi.external) {
                details += "access-type=" + printable(pi.external->access_type, 40) + ' ';
                if (pi.external->url) details += "url=" + printable(*pi.external->url, 200) + ' ';
                if (pi.external->name)
                    details += "name=" + printable(*pi.external->name, 200) + ' ';
                if (pi.external->site)
                    details += "site=" + printable(*pi.external->site, 200) + ' ';
                details += "external-type=" + printable(pi.external->type.essence(), 60) + ' ';
            }
            if (pi.has_md5)
                details += std::string("md5=") +
                           (!pi.md5_matches   ? "malformed"
                            : *pi.md5_matches ? "matches"
                                              : "differs") +
                           ' ';
            if (const auto& resolved = agg.info(p).location;
                resolved && *resolved != p.content_location())
                details += "resolved=" + printable(*resolved, 200) + ' ';
            std::string decoded = p.is_leaf() ? std::to_string(pi.decoded_size) : "-";
            std::snprintf(line, sizeof line, "%-12s %-32s %-16s %10llu %10s  ", path.c_str(),
                          printable(ct.essence(), 32).c_str(),
                          std::string(mime::transfer_encoding_name(p.encoding())).c_str(),
                          static_cast<unsigned long long>(p.raw_body().size()), decoded.c_str());
            out += line;
            out += details;
            while (!out.empty() && out.back() == ' ') out.pop_back();
            out += '\n';
            if (o.hash && p.is_leaf()) out += std::string(14, ' ') + "sha256 " + pi.sha256 + '\n';
        }
        if (!diags.empty()) {
            out += "diagnostics:\n";
            for (const diagnostic& d : diags) {
                out += "  " + std::string(severity_name(d.sev)) + ' ' +
                       std::string(code_name(d.code)) + " part " +
                       (d.part_path.empty() ? "." : d.part_path) + " @" +
                       std::to_string(file_offset(d.offset)) + ": " + printable(d.message) + '\n';
            }
        }
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (std::fflush(stdout) != 0) {
        std::cerr << "mhtml ls: cannot write the output\n";
        return exit_usage;
    }
    return errors ? exit_input_errors : exit_ok;
}

}  // namespace

runner add_ls_command(CLI::App& app) {
    auto o = std::make_shared<ls_options>();
    CLI::App* cmd = app.add_subcommand("ls",
                                       "List the parts of a MIME document: type, encoding, "
                                       "sizes, Content-ID, Content-Location; then diagnostics");
    cmd->add_option("FILE", o->file,
                    "the .mhtml/.mht/.eml file, or - for standard input; a mailbox (mbox file or "
                    "Maildir) or a folder lists its messages")
        ->required();
    cmd->add_flag("--json", o->json,
                  "print one JSON document {\"parts\": [...], \"related\": [...], \"diagnostics\": "
                  "[...]}");
    cmd->add_flag("--hash", o->hash, "add the SHA-256 of each leaf's decoded content");
    cmd->add_flag("--mbox", o->mbox,
                  "read FILE as an mbox mailbox and list its messages (the default when it starts "
                  "with a From_ line)");
    cmd->add_flag("--no-mbox", o->no_mbox,
                  "read FILE as one message even if it starts with a "
                  "From_ line")
        ->excludes("--mbox");
    add_message_option(*cmd);
    add_limit_options(*cmd, o->limits);
    cmd->footer(
        "Paths are IMAP-style: '.' (\"\" in JSON) is the whole message, 1, 2, ... its body parts,\n"
        "1.2 the second part inside part 1; the message inside a message/rfc822 part P is P.1.\n"
        "A '*' after a path marks the root of a multipart/related (the part a viewer shows "
        "first);\n"
        "resolved= is the Content-Location resolved as MHTML does (JSON: root, base, "
        "resolved_location).\n"
        "JSON also lists each multipart/related (\"related\": path, root, start, type, "
        "start_info)\n"
        "and the page's original URL (\"snapshot_location\", Chromium's "
        "Snapshot-Content-Location).\n"
        "Exit status: 0 read cleanly, 1 read but with errors (see diagnostics), 2 usage or I/O "
        "failure.\n"
        "\n"
        "Examples:\n"
        "  mhtml ls saved.mhtml\n"
        "  mhtml ls ~/Mail/inbox.mbox          one row per message (also a Maildir, or a folder "
        "of .eml/.mht files)\n"
        "  mhtml ls --json --hash saved.mhtml | jq '.parts[] | select(.leaf) | .sha256'\n"
        "  mhtml ls --max-depth 8 - < suspicious.eml");
    return [o] { return run_ls(*o); };
}

}  // namespace mhtml::cli
