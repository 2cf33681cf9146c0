#include "mhtml/pack/collect.hpp"
#include "uri/percent_encode.hpp"

#include "collect_support.hpp"

#include "mhtml/ascii.hpp"
#include "mhtml/detail/keyed_hash.hpp"
#include "mhtml/html/charset.hpp"
#include "mhtml/html/rewrite.hpp"
#include "mhtml/html/tokenizer.hpp"
#include "mhtml/mime/charset.hpp"
#include "mhtml/pack/content_id.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/reference.hpp"
#include "mhtml/uri/virtual_filename.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <fstream>
#include <sstream>
#include <utility>

namespace mhtml::pack {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------
// Shared helpers (collect_support.hpp)

namespace detail {

// MIME Sniffing §7.1: after white space (and a UTF-8 BOM), `<!DOCTYPE HTML`, `<html`,
// `<head`, `<body`, `<script`, `<iframe`, `<title`, `<p`, `<div`, `<!--`, ... in any case.
bool looks_like_html(std::string_view body) {
    if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);
    while (!body.empty() && (body[0] == ' ' || body[0] == '\t' || body[0] == '\n' ||
                             body[0] == '\r' || body[0] == '\f'))
        body.remove_prefix(1);
    static constexpr std::string_view tags[] = {"<!doctype html",
                                                "<html",
                                                "<head",
                                                "<script",
                                                "<iframe",
                                                "<h1",
                                                "<div",
                                                "<font",
                                                "<table",
                                                "<a",
                                                "<style",
                                                "<title",
                                                "<b",
                                                "<body",
                                                "<br",
                                                "<p",
                                                "<!--"};
    for (std::string_view t : tags) {
        if (body.size() <= t.size() || !ascii::iequals(body.substr(0, t.size()), t)) continue;
        if (t == "<!--") return true;
        const char next = body[t.size()];
        if (next == ' ' || next == '>') return true;
    }
    return false;
}

std::optional<std::string> read_file(const fs::path& p, std::string& error) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
        error = "cannot open " + p.string();
        return std::nullopt;
    }
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad()) {
        error = "cannot read " + p.string();
        return std::nullopt;
    }
    return std::move(s).str();
}

namespace {
int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
}  // namespace

std::string percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            const int h = hex_value(s[i + 1]), l = hex_value(s[i + 2]);
            if (h >= 0 && l >= 0) {
                out += static_cast<char>(h * 16 + l);
                i += 2;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

std::string encode_segment(std::string_view s) {
    return uri::detail::percent_encoded(s, [](unsigned char c) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') ||
                          std::string_view("-._~!$&'()*+,;=@").find(static_cast<char>(c)) !=
                              std::string_view::npos;
        return !keep;
    });
}

std::string encode_path(std::string_view path) {
    std::string out;
    std::size_t start = 0;
    while (true) {
        const std::size_t slash = path.find('/', start);
        out += encode_segment(path.substr(start, slash - start));
        if (slash == std::string_view::npos) break;
        out += '/';
        start = slash + 1;
    }
    return out;
}

std::optional<std::string> relative_reference(std::string_view prefix, std::string_view from,
                                              std::string_view to) {
    if (!from.starts_with(prefix) || !to.starts_with(prefix)) return std::nullopt;
    std::string_view f = from.substr(prefix.size());
    std::string_view t = to.substr(prefix.size());
    // The base's query and fragment do not matter; its last segment is not a folder.
    f = f.substr(0, ascii::find_first_of(f, "?#"));
    const std::size_t f_dir_end = f.rfind('/');
    f = f_dir_end == std::string_view::npos ? std::string_view() : f.substr(0, f_dir_end + 1);
    const std::size_t t_path_end = std::min(ascii::find_first_of(t, "?#"), t.size());
    std::string_view t_path = t.substr(0, t_path_end);
    if (f.find("//") != std::string_view::npos || t_path.find("//") != std::string_view::npos ||
        t_path.empty() || t_path.back() == '/')
        return std::nullopt;
    // Common folders.
    std::size_t common = 0;
    for (std::size_t i = 0; i < f.size() && i < t_path.size() && f[i] == t_path[i]; ++i)
        if (f[i] == '/') common = i + 1;
    std::string out;
    for (std::size_t i = common; i < f.size(); ++i)
        if (f[i] == '/') out += "../";
    std::string_view rest = t.substr(common);
    const std::size_t colon = rest.find(':'), slash = rest.find('/');
    if (out.empty() && colon != std::string_view::npos &&
        (slash == std::string_view::npos || colon < slash))
        out = "./";  // "a:b" would read as a scheme
    if (out.empty() && (rest.empty() || rest[0] == '?' || rest[0] == '#')) return std::nullopt;
    out += rest;
    return out;
}

std::string escape_attribute(std::string_view value, char quote) {
    if (quote == 0) quote = '"';
    std::string out;
    for (char c : value) {
        if (c == '&')
            out += "&amp;";
        else if (c == quote)
            out += quote == '"' ? "&quot;" : "&#39;";
        else
            out += c;
    }
    return out;
}

std::optional<std::string> credential_parameter(std::string_view url) {
    const std::size_t q = url.find('?');
    if (q == std::string_view::npos) return std::nullopt;
    std::string_view query = url.substr(q + 1);
    query = query.substr(0, query.find('#'));
    static constexpr std::array exact{"key",  "sig",    "sid",    "pwd",     "pass",      "auth",
                                      "code", "ticket", "apikey", "api_key", "signature", "jwt"};
    static constexpr std::array contains{"token", "passw",      "secret", "session",
                                         "auth",  "credential", "csrf"};
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        const std::string name = ascii::lowered(percent_decode(pair.substr(0, pair.find('='))));
        if (name.empty()) continue;
        for (std::string_view e : exact)
            if (name == e) return name;
        for (std::string_view c : contains)
            if (name.find(c) != std::string::npos) return name;
    }
    return std::nullopt;
}

diagnostic make_diag(severity sev, diag_code code, std::string part, std::uint64_t offset,
                     std::string message) {
    diagnostic d;
    d.sev = sev;
    d.code = code;
    d.part_path = std::move(part);
    d.offset = offset;
    d.message = std::move(message);
    return d;
}

doc_type doc_type_for(std::string_view content_type) {
    if (content_type == "text/html" || content_type == "application/xhtml+xml")
        return doc_type::html;
    if (content_type == "image/svg+xml") return doc_type::svg;
    if (content_type == "text/css") return doc_type::css;
    return doc_type::none;
}

bool is_text_type(std::string_view type) {
    return type.starts_with("text/") || type == "application/xhtml+xml";
}

std::string css_declared_charset(std::string_view text) {
    if (text.starts_with("\xEF\xBB\xBF")) return "UTF-8";
    if (text.starts_with("@charset \"")) {
        const std::size_t end = text.find("\";", 10);
        if (end != std::string_view::npos)
            return std::string(html::encoding_for_label(text.substr(10, end - 10)));
    }
    return {};
}

void markup_pass(std::string_view text, bool svg, const std::string& part,
                 const std::function<std::uint64_t(std::size_t)>& where,
                 std::vector<diagnostic>& diags,
                 const std::function<void(const srcdoc_attribute&)>& on_srcdoc) {
    html::tokenizer tok(text, svg);
    html::token t;
    while (tok.next(t)) {
        if (t.type != html::token_type::start_tag || t.foreign) continue;
        if (t.name == "input") {
            const html::attribute_view* type = t.attribute("type");
            if (type && ascii::iequals(html::decode_attribute_value(tok.value(*type)), "hidden")) {
                const html::attribute_view* name = t.attribute("name");
                const html::attribute_view* value = t.attribute("value");
                if (value && value->value_length > 0)
                    diags.push_back(make_diag(
                        severity::warning, diag_code::hidden_field_may_leak, part, where(t.begin),
                        "a hidden form field" +
                            (name ? " '" + html::decode_attribute_value(tok.value(*name)) + "'"
                                  : std::string()) +
                            " has a value that may be a password or ticket; packing keeps it "
                            "(MHT-12.6)"));
            }
        } else if (t.name == "iframe") {
            const html::attribute_view* sd = t.attribute("srcdoc");
            if (!sd) continue;
            srcdoc_attribute a;
            a.value_offset = sd->value_offset;
            a.value_length = sd->value_length;
            a.quote = sd->quote;
            a.content = html::decode_attribute_value(tok.value(*sd));
            on_srcdoc(a);
        }
    }
}

reference_report start_report(const html::reference& r, std::string_view text,
                              const std::string& document, std::size_t offset, bool in_srcdoc,
                              std::vector<diagnostic>& diags) {
    reference_report rep;
    rep.document = document;
    rep.offset = offset;
    if (in_srcdoc) rep.srcdoc_offset = r.offset;
    rep.raw = std::string(text.substr(r.offset, r.length));
    rep.url = r.url;
    rep.kind = r.kind;
    rep.element = r.element;
    rep.attribute = std::string(r.attribute);
    if (auto cred = credential_parameter(r.url))
        diags.push_back(make_diag(severity::warning, diag_code::credential_in_url, document, offset,
                                  "the reference '" + r.url + "' has a query parameter '" + *cred +
                                      "' that may be a credential; packing keeps it "
                                      "(MHT-12.6)"));
    return rep;
}

html::edit srcdoc_edit(std::size_t value_offset, std::size_t value_length, char quote,
                       std::string_view content) {
    std::string value = escape_attribute(content, quote);
    if (quote == 0) value = "\"" + value + "\"";
    return {value_offset, value_length, std::move(value)};
}

std::string with_charset(std::string_view type, std::string_view charset) {
    std::string out(type);
    if (!charset.empty()) {
        out += "; charset=";
        out += charset;
    }
    return out;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------

std::string_view outcome_name(ref_outcome o) noexcept {
    switch (o) {
        case ref_outcome::packed:
            return "packed";
        case ref_outcome::external:
            return "external";
        case ref_outcome::data:
            return "data";
        case ref_outcome::same_document:
            return "same_document";
        case ref_outcome::not_followed:
            return "not_followed";
        case ref_outcome::unresolved:
            return "unresolved";
    }
    return "unknown";
}

std::string_view content_type_for_path(std::string_view name) noexcept {
    const std::size_t slash = name.find_last_of('/');
    if (slash != std::string_view::npos) name = name.substr(slash + 1);
    const std::size_t dot = name.rfind('.');
    if (dot == std::string_view::npos) return "application/octet-stream";
    const std::string_view ext = name.substr(dot + 1);
    struct entry {
        std::string_view ext, type;
    };
    static constexpr entry table[] = {
        {"html", "text/html"},
        {"htm", "text/html"},
        {"shtml", "text/html"},
        {"xhtml", "application/xhtml+xml"},
        {"xht", "application/xhtml+xml"},
        {"svg", "image/svg+xml"},
        {"svgz", "image/svg+xml"},
        {"css", "text/css"},
        {"js", "text/javascript"},
        {"mjs", "text/javascript"},
        {"json", "application/json"},
        {"xml", "application/xml"},
        {"txt", "text/plain"},
        {"csv", "text/csv"},
        {"png", "image/png"},
        {"apng", "image/apng"},
        {"gif", "image/gif"},
        {"jpg", "image/jpeg"},
        {"jpeg", "image/jpeg"},
        {"jpe", "image/jpeg"},
        {"jfif", "image/jpeg"},
        {"webp", "image/webp"},
        {"avif", "image/avif"},
        {"bmp", "image/bmp"},
        {"ico", "image/x-icon"},
        {"cur", "image/x-icon"},
        {"tif", "image/tiff"},
        {"tiff", "image/tiff"},
        {"woff", "font/woff"},
        {"woff2", "font/woff2"},
        {"ttf", "font/ttf"},
        {"otf", "font/otf"},
        {"eot", "application/vnd.ms-fontobject"},
        {"mp4", "video/mp4"},
        {"m4v", "video/mp4"},
        {"webm", "video/webm"},
        {"ogv", "video/ogg"},
        {"mp3", "audio/mpeg"},
        {"m4a", "audio/mp4"},
        {"ogg", "audio/ogg"},
        {"oga", "audio/ogg"},
        {"opus", "audio/ogg"},
        {"wav", "audio/wav"},
        {"flac", "audio/flac"},
        {"vtt", "text/vtt"},
        {"pdf", "application/pdf"},
        {"swf", "application/x-shockwave-flash"},
        {"wasm", "application/wasm"},
        {"manifest", "application/manifest+json"},
        {"webmanifest", "application/manifest+json"},
    };
    for (const entry& e : table)
        if (ascii::iequals(ext, e.ext)) return e.type;
    return "application/octet-stream";
}

namespace {

using detail::make_diag;

// The fictitious origin of the root folder while collecting: `%00` cannot come from a file
// name the collector accepts, so a reference that climbs out of the root and back in by name
// (`../root/x`) still reads as outside.
constexpr std::string_view sentinel = "thismessage:/%00root/";

using detail::doc_type;
using detail::doc_type_for;
using detail::is_text_type;

// One reference found in a document, with what it came to.
struct ref_info {
    std::size_t report = 0;
    int file = -1;         // index in files, when packed
    std::string fragment;  // "#..." as written, or ""
    std::string resolved;  // internal URL without fragment (packed refs)
    std::string external;  // a relative reference's absolute URL, when it is external
};

struct srcdoc_info;

// A scanned text: a file, or an iframe's srcdoc content inside one.
struct unit {
    std::vector<html::reference> refs;
    std::vector<ref_info> info;           // parallel to refs
    std::string base;                     // the effective base (internal or external URL)
    std::optional<std::size_t> base_ref;  // the <base href> that counts, in refs
    std::vector<srcdoc_info> srcdocs;
};

struct srcdoc_info {
    std::size_t value_offset = 0, value_length = 0;
    char quote = 0;
    unit content;
};

struct file_entry {
    std::string rel;   // path under the root, '/'-separated, as on disk (UTF-8 usually)
    fs::path path;     // on disk
    std::string type;  // media type, no parameters
    doc_type doc = doc_type::none;
    std::string charset;  // documents: WHATWG name of how it is read
    bool transcoded = false;
    std::string label;  // internal URL of its label (no fragment)
    std::uint64_t size = 0;
    bool scanned = false;
    unit u;
};

class collector {
public:
    collector(const collect_options& o, collection& out) : opt_(o), out_(out) {}

    bool run(const fs::path& root_dir, const std::string& root_rel);

private:
    const collect_options& opt_;
    collection& out_;
    fs::path root_;             // canonical
    std::string root_generic_;  // root_.generic_string() + '/'
    std::string base_;          // options.base with a trailing '/', or ""
    bool file_base_ = false;    // base_ is a file: URL
    std::vector<file_entry> files_;
    mhtml::detail::keyed_string_map<std::size_t> by_rel_;
    std::deque<std::size_t> queue_;
    std::uint64_t total_ = 0;

    void diag(severity s, diag_code c, std::string part, std::uint64_t off, std::string msg) {
        out_.diagnostics.push_back(make_diag(s, c, std::move(part), off, std::move(msg)));
    }
    std::optional<std::string> to_internal(std::string_view url) const;
    int add_file(const std::string& rel, const fs::path& p, std::uint64_t size,
                 std::string_view referrer_charset, std::string& reason, std::string& why);
    int locate(const std::string& internal, const std::string& doc_charset, std::string& reason,
               std::string& why);
    void scan_file(std::size_t index);
    void scan_unit(unit& u, std::string_view text, doc_type type, const std::string& doc_rel,
                   const std::string& doc_charset, std::size_t srcdoc_attr, std::size_t depth);
    std::optional<std::string> load_text(const file_entry& f, std::string& error) const;
    std::string replacement_for(const unit& u, std::size_t i, const std::vector<std::string>& cids,
                                const std::vector<std::string>& names) const;
    std::optional<std::string> rewrite_unit(unit& u, std::string_view text,
                                            const std::vector<std::string>& cids,
                                            const std::vector<std::string>& names);
    std::string external_label(const file_entry& f) const;
    std::string kept_fragment(const file_entry& f, const ref_info& info) const;
    void add_all_files();
};

namespace {

// A URL as a browser spells it when it requests it: octets above 0x7F in the path are
// characters of the document's charset, sent as UTF-8 and percent-encoded (URL Standard:
// the path is always UTF-8); in the query they stay in the document's charset,
// percent-encoded. A label must be spelled so (Chromium compares Content-Location with the
// URL it asks for, and a raw 8-bit label would need RFC 2047, which it does not read).
std::string browser_spelling(std::string_view url, const std::string& doc_charset) {
    auto eight_bit = [](std::string_view v) {
        return std::any_of(v.begin(), v.end(),
                           [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    };
    if (!eight_bit(url)) return std::string(url);
    const std::size_t q = url.find('?');
    std::string path(url.substr(0, q));
    if (eight_bit(path) && !doc_charset.empty() && doc_charset != "UTF-8")
        if (auto u = mime::to_utf8(path, doc_charset)) path = std::move(*u);
    auto escape = [](std::string_view v, std::string& out) {
        static constexpr char hex[] = "0123456789ABCDEF";
        for (char c : v) {
            const auto b = static_cast<unsigned char>(c);
            if (b >= 0x80) {
                out += '%';
                out += hex[b >> 4];
                out += hex[b & 15];
            } else {
                out += c;
            }
        }
    };
    std::string out;
    escape(path, out);
    if (q != std::string_view::npos) escape(url.substr(q), out);
    return out;
}

}  // namespace

std::optional<std::string> collector::to_internal(std::string_view url) const {
    if (url.starts_with(sentinel)) return std::string(url);
    if (!base_.empty() && url.starts_with(base_))
        return std::string(sentinel) + std::string(url.substr(base_.size()));
    const uri::reference_parts parts = uri::split_reference(url);
    if (parts.has_scheme && ascii::iequals(parts.scheme, "file") &&
        (!parts.has_authority || parts.authority.empty() ||
         ascii::iequals(parts.authority, "localhost"))) {
        const std::string path = detail::percent_decode(parts.path);
        if (path.starts_with(root_generic_)) {
            std::string out(sentinel);
            out += detail::encode_path(std::string_view(path).substr(root_generic_.size()));
            if (parts.has_query) {
                out += '?';
                out += parts.query;
            }
            return out;
        }
    }
    return std::nullopt;
}

std::optional<std::string> collector::load_text(const file_entry& f, std::string& error) const {
    auto bytes = detail::read_file(f.path, error);
    if (!bytes) return std::nullopt;
    if (f.transcoded) {
        std::string_view in = *bytes;
        if (in.starts_with("\xFF\xFE") || in.starts_with("\xFE\xFF")) in.remove_prefix(2);
        auto utf8 = mime::to_utf8(in, f.charset);
        if (!utf8) {
            error = "cannot transcode from " + f.charset;
            return std::nullopt;
        }
        return utf8;
    }
    return bytes;
}

// Which local file an internal URL names (its query dropped: a file has none).
int collector::locate(const std::string& internal, const std::string& doc_charset,
                      std::string& reason, std::string& why) {
    std::string_view rest = std::string_view(internal).substr(sentinel.size());
    rest = rest.substr(0, rest.find('?'));
    // Octets above 0x7F are in the document's charset; a file name is UTF-8 (the URL
    // Standard encodes a path in UTF-8 whatever the document's encoding).
    std::string raw(rest);
    const bool eight_bit = std::any_of(
        raw.begin(), raw.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    if (eight_bit && !doc_charset.empty() && doc_charset != "UTF-8") {
        if (auto u = mime::to_utf8(raw, doc_charset)) raw = std::move(*u);
    }
    const std::string decoded = detail::percent_decode(raw);
    if (decoded.empty() || decoded.back() == '/') {
        reason = "not_a_file";
        why = "names a folder";
        return -1;
    }
    if (decoded.find('\0') != std::string::npos || decoded.size() > 4096) {
        reason = "bad_name";
        why = decoded.size() > 4096 ? "the path is longer than 4096 octets"
                                    : "the name holds a NUL octet";
        return -1;
    }
    // Segments: `%2F` decoded into a '/', `%2E%2E` into '..', empty ones.
    std::string rel;
    std::size_t start = 0;
    while (start <= decoded.size()) {
        std::size_t slash = decoded.find('/', start);
        if (slash == std::string::npos) slash = decoded.size();
        std::string_view seg = std::string_view(decoded).substr(start, slash - start);
        if (seg == "..") {
            reason = "outside_root";
            why = "a `..` segment (escaped as %2E) would leave the root folder";
            return -1;
        }
        if (seg.size() > 255) {
            reason = "bad_name";
            why = "a name is longer than 255 octets";
            return -1;
        }
        if (!seg.empty() && seg != ".") {
            if (!rel.empty()) rel += '/';
            rel += seg;
        }
        start = slash + 1;
    }
    // An escaped '/' makes the file name differ from what the URL's segments say.
    if (raw.find("%2F") != std::string::npos || raw.find("%2f") != std::string::npos) {
        reason = "bad_name";
        why = "an escaped '/' (%2F) in a name";
        return -1;
    }
    if (rel.empty()) {
        reason = "not_a_file";
        why = "names the root folder";
        return -1;
    }
    if (auto it = by_rel_.find(rel); it != by_rel_.end()) return static_cast<int>(it->second);
    const fs::path p = root_ / fs::path(rel);
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(p, ec);
    if (ec || !fs::exists(st)) {
        reason = "missing";
        why = "no such file";
        return -1;
    }
    // Every link on the way must stay inside the root.
    const fs::path canon = fs::canonical(p, ec);
    if (ec) {
        reason = "missing";
        why = "a symbolic link leads nowhere";
        return -1;
    }
    const std::string cg = canon.generic_string();
    if (!cg.starts_with(root_generic_)) {
        reason = "link_outside_root";
        why = "a symbolic link leads out of the root folder (to " + cg + "); not read";
        return -1;
    }
    const fs::file_status target = fs::status(canon, ec);
    if (ec || !fs::is_regular_file(target)) {
        reason = "not_a_file";
        why = fs::is_directory(target) ? "names a folder" : "not a regular file";
        return -1;
    }
    const std::string canon_rel = cg.substr(root_generic_.size());
    if (auto it = by_rel_.find(canon_rel); it != by_rel_.end()) {
        by_rel_.emplace(rel, it->second);
        return static_cast<int>(it->second);
    }
    const std::uint64_t size = fs::file_size(canon, ec);
    if (ec) {
        reason = "unreadable";
        why = ec.message();
        return -1;
    }
    const int index = add_file(canon_rel, canon, size, "", reason, why);
    if (index >= 0 && canon_rel != rel) by_rel_.emplace(rel, static_cast<std::size_t>(index));
    return index;
}

int collector::add_file(const std::string& rel, const fs::path& p, std::uint64_t size,
                        std::string_view referrer_charset, std::string& reason, std::string& why) {
    if (files_.size() >= opt_.limits.max_resources) {
        reason = "limit";
        why =
            "more than " + std::to_string(opt_.limits.max_resources) + " resources (max_resources)";
        return -1;
    }
    if (size > opt_.limits.max_resource_size) {
        reason = "too_large";
        why = std::to_string(size) + " octets, over max_resource_size";
        return -1;
    }
    if (total_ + size > opt_.limits.max_total_bytes) {
        reason = "limit";
        why = "the resources would pass max_total_bytes";
        return -1;
    }
    total_ += size;
    file_entry f;
    f.rel = rel;
    f.path = p;
    f.size = size;
    f.type = std::string(content_type_for_path(rel));
    f.doc = doc_type_for(f.type);
    f.charset = std::string(referrer_charset);
    files_.push_back(std::move(f));
    by_rel_.emplace(rel, files_.size() - 1);
    if (files_.back().doc != doc_type::none) queue_.push_back(files_.size() - 1);
    return static_cast<int>(files_.size() - 1);
}

void collector::scan_file(std::size_t index) {
    file_entry& f = files_[index];
    f.scanned = true;
    std::string error;
    auto bytes = detail::read_file(f.path, error);
    if (!bytes) {
        diag(severity::error, diag_code::resource_unreadable, f.rel, 0, error);
        return;
    }
    std::string text = std::move(*bytes);
    if (f.doc == doc_type::html) {
        f.charset = html::detect_charset({}, text).name;
    } else if (f.doc == doc_type::css) {
        // CSS Syntax §3.2: a BOM, else `@charset "x";` at the very start, else the referrer's.
        if (std::string declared = detail::css_declared_charset(text); !declared.empty())
            f.charset = std::move(declared);
        if (f.charset.empty()) f.charset = "UTF-8";
    } else {
        f.charset = "UTF-8";
    }
    if (f.charset == "UTF-16LE" || f.charset == "UTF-16BE" || f.charset == "ISO-2022-JP") {
        // The scanner reads ASCII-based text: read a transcoded copy (rewritten as UTF-8).
        f.transcoded = true;
        auto utf8 = load_text(f, error);
        if (!utf8) {
            diag(severity::error, diag_code::resource_unreadable, f.rel, 0, error);
            f.transcoded = false;
            return;
        }
        text = std::move(*utf8);
    }
    ++out_.counts.documents;
    unit u;
    u.base = f.label.empty() ? std::string(sentinel) + detail::encode_path(f.rel) : f.label;
    const std::string rel = f.rel, charset = f.charset;
    const doc_type type = f.doc;
    scan_unit(u, text, type, rel, charset, std::string::npos, 0);
    files_[index].u = std::move(u);  // files_ may have grown: index again
}

void collector::scan_unit(unit& u, std::string_view text, doc_type type, const std::string& doc_rel,
                          const std::string& doc_charset, std::size_t srcdoc_attr,
                          std::size_t depth) {
    const bool css = type == doc_type::css;
    const bool svg = type == doc_type::svg;
    html::scan_result scan = css ? html::scan_style_sheet(text) : html::scan_html(text, svg);
    const bool in_srcdoc = srcdoc_attr != std::string::npos;
    auto where = [&](std::size_t off) { return in_srcdoc ? srcdoc_attr : off; };
    // <base href>, resolved against the document's own URL (or, in srcdoc, its parent's base).
    if (scan.base) {
        const html::reference& b = scan.refs[*scan.base];
        if (auto resolved = uri::resolve(u.base, b.url)) {
            std::string r = std::string(uri::without_fragment(*resolved));
            u.base = to_internal(r).value_or(r);
        }
    }
    u.base_ref = scan.base;
    u.refs = std::move(scan.refs);
    u.info.resize(u.refs.size());
    for (std::size_t i = 0; i < u.refs.size(); ++i) {
        const html::reference& r = u.refs[i];
        ref_info& info = u.info[i];
        reference_report rep =
            detail::start_report(r, text, doc_rel, where(r.offset), in_srcdoc, out_.diagnostics);
        info.report = out_.references.size();
        if (r.kind == html::ref_kind::base) {
            rep.outcome = ref_outcome::same_document;
            out_.references.push_back(std::move(rep));
            continue;
        }
        if (uri::is_same_document(r.url)) {
            rep.outcome = ref_outcome::same_document;
            out_.references.push_back(std::move(rep));
            continue;
        }
        const uri::reference_parts parts = uri::split_reference(r.url);
        if (parts.has_scheme && ascii::iequals(parts.scheme, "data")) {
            rep.outcome = ref_outcome::data;
            out_.references.push_back(std::move(rep));
            continue;
        }
        // Without a base, an absolute path is taken from the root folder (a site root).
        std::optional<std::string> resolved;
        if (!parts.has_scheme && !parts.has_authority && parts.path.starts_with("/") &&
            std::string_view(u.base).starts_with(sentinel))
            resolved = uri::resolve(sentinel, r.url.substr(1));
        else
            resolved = uri::resolve(u.base, r.url);
        std::optional<std::string> internal;
        if (resolved) {
            const std::string_view whole = *resolved;
            const std::string_view nofrag = uri::without_fragment(whole);
            info.fragment = std::string(whole.substr(nofrag.size()));
            internal = to_internal(nofrag);
        }
        if (!internal) {
            // `thismessage:/` with the sentinel gone: the reference climbed out of the root.
            const bool climbed = resolved && uri::split_reference(*resolved).has_scheme &&
                                 uri::is_fictitious_scheme(uri::split_reference(*resolved).scheme);
            if (climbed || (parts.has_scheme && ascii::iequals(parts.scheme, "file"))) {
                rep.outcome = ref_outcome::unresolved;
                rep.reason = "outside_root";
                diag(severity::warning, diag_code::resource_outside_root, doc_rel, where(r.offset),
                     "'" + r.url +
                         "' names a file outside the root folder; not read, the "
                         "reference stays as written");
                ++out_.counts.unresolved;
            } else {
                rep.outcome = ref_outcome::external;
                if (resolved && !parts.has_scheme) info.external = *resolved;
                ++out_.counts.external;
            }
            out_.references.push_back(std::move(rep));
            continue;
        }
        const bool follow = r.kind == html::ref_kind::resource;
        std::string reason, why;
        int target = -1;
        if (follow) {
            target = locate(*internal, doc_charset, reason, why);
        } else {
            // Not followed; but a link to a file packed anyway goes with it (phase 2 looks).
            rep.outcome = ref_outcome::not_followed;
            info.resolved = *internal;
            out_.references.push_back(std::move(rep));
            continue;
        }
        if (target < 0) {
            rep.outcome = ref_outcome::unresolved;
            rep.reason = reason;
            const diag_code code = reason == "missing"      ? diag_code::resource_missing
                                   : reason == "not_a_file" ? diag_code::resource_not_file
                                   : reason == "outside_root" || reason == "link_outside_root"
                                       ? diag_code::resource_outside_root
                                   : reason == "bad_name"   ? diag_code::resource_bad_name
                                   : reason == "unreadable" ? diag_code::resource_unreadable
                                                            : diag_code::resource_limit;
            diag(reason == "missing" ? severity::warning : severity::error, code, doc_rel,
                 where(r.offset),
                 "'" + r.url + "': " + why + "; not packed, the reference stays as written");
            ++out_.counts.unresolved;
            out_.references.push_back(std::move(rep));
            continue;
        }
        file_entry& t = files_[static_cast<std::size_t>(target)];
        if (t.label.empty()) t.label = browser_spelling(*internal, doc_charset);
        if (t.doc == doc_type::css && t.charset.empty() && !t.scanned) t.charset = doc_charset;
        info.file = target;
        info.resolved = *internal;
        rep.outcome = ref_outcome::packed;
        rep.resource = static_cast<std::size_t>(target);
        ++out_.counts.packed;
        out_.references.push_back(std::move(rep));
    }
    // <iframe srcdoc>: scanned in place with this text's base; <input type=hidden> warned of.
    if (css) return;
    detail::markup_pass(
        text, svg, doc_rel, where, out_.diagnostics, [&](const detail::srcdoc_attribute& a) {
            if (depth >= opt_.limits.max_srcdoc_depth) {
                diag(severity::error, diag_code::resource_limit, doc_rel, where(a.value_offset),
                     "srcdoc nested deeper than max_srcdoc_depth; its content "
                     "is not scanned");
                return;
            }
            srcdoc_info s;
            s.value_offset = a.value_offset;
            s.value_length = a.value_length;
            s.quote = a.quote;
            s.content.base = u.base;
            scan_unit(s.content, a.content, doc_type::html, doc_rel, doc_charset,
                      in_srcdoc ? srcdoc_attr : a.value_offset, depth + 1);
            u.srcdocs.push_back(std::move(s));
        });
}

std::string collector::external_label(const file_entry& f) const {
    std::string_view rest = std::string_view(f.label).substr(sentinel.size());
    if (!base_.empty() && !(file_base_ && opt_.anonymize_labels)) return base_ + std::string(rest);
    // Relative labels resolve against thismessage:/ ; a document in a sub-folder needs its
    // own folder as the base of its body, which only an absolute label gives (chapter 5 c).
    const std::string_view path = rest.substr(0, rest.find('?'));
    const std::size_t slash = path.find('/');
    const bool scheme_like = path.substr(0, slash).find(':') != std::string_view::npos;
    if ((f.doc != doc_type::none && slash != std::string_view::npos) || scheme_like ||
        rest.empty() || rest[0] == '/')
        return std::string(uri::fictitious_base) + std::string(rest);
    return std::string(rest);
}

// Chromium looks an archived resource up by its URL with the fragment, so `x.png#f` finds
// nothing unless `x.png` was loaded too (tests/browser/pack_test.py): a reference to
// anything but an HTML or SVG document (where a fragment names an element) loses it.
std::string collector::kept_fragment(const file_entry& f, const ref_info& info) const {
    return f.doc == doc_type::html || f.doc == doc_type::svg ? info.fragment : std::string();
}

std::string collector::replacement_for(const unit& u, std::size_t i,
                                       const std::vector<std::string>& cids,
                                       const std::vector<std::string>& names) const {
    const ref_info& info = u.info[i];
    const auto target = static_cast<std::size_t>(info.file);
    switch (opt_.method) {
        case method::cid:
            // Chromium looks a cid: URL up with its fragment, so `cid:x#f` finds nothing
            // (tests/browser/pack_test.py). Only an SVG document keeps it (`use`, views).
            return "cid:" + uri::url_encode_id(cids[target]) +
                   (files_[target].doc == doc_type::svg ? info.fragment : std::string());
        case method::filename:
            return names[target] + info.fragment;
        case method::content_location:
            break;
    }
    const file_entry& f = files_[target];
    if (std::string_view(u.base).starts_with(sentinel)) {
        if (auto rel = detail::relative_reference(sentinel, u.base, f.label))
            return *rel + kept_fragment(f, info);
    }
    return external_label(f) + kept_fragment(f, info);
}

std::optional<std::string> collector::rewrite_unit(unit& u, std::string_view text,
                                                   const std::vector<std::string>& cids,
                                                   const std::vector<std::string>& names) {
    std::vector<html::edit> edits;
    for (srcdoc_info& s : u.srcdocs) {
        const std::string inner =
            html::decode_attribute_value(text.substr(s.value_offset, s.value_length));
        if (auto changed = rewrite_unit(s.content, inner, cids, names))
            edits.push_back(detail::srcdoc_edit(s.value_offset, s.value_length, s.quote, *changed));
    }
    bool changed = !edits.empty();
    std::vector<std::optional<std::string>> values(u.refs.size());
    // The file-name method's names resolve against the document itself: a <base href> is
    // emptied, and the relative references it made external are written absolute.
    if (opt_.method == method::filename && u.base_ref) {
        values[*u.base_ref] = std::string();
        out_.references[u.info[*u.base_ref].report].rewritten = std::string();
        for (std::size_t i = 0; i < u.refs.size(); ++i) {
            if (u.info[i].external.empty()) continue;
            values[i] = u.info[i].external;
            out_.references[u.info[i].report].rewritten = u.info[i].external;
        }
        changed = true;
    }
    // Chromium resolves a relative <base href> of an archived page against the archive
    // file's own URL, not against the page's Content-Location (tests/browser/pack_test.py:
    // `<base href="sub/">` made it look for file:///…/sub/x.png). With absolute labels, the
    // base is written absolute, so every reader resolves it the same way (MHT-4.4.1 (a)).
    if (opt_.method != method::filename && u.base_ref && !base_.empty() &&
        !(file_base_ && opt_.anonymize_labels) && std::string_view(u.base).starts_with(sentinel) &&
        !uri::split_reference(u.refs[*u.base_ref].url).has_scheme) {
        std::string absolute = base_ + u.base.substr(sentinel.size());
        reference_report& rep = out_.references[u.info[*u.base_ref].report];
        diag(severity::note, diag_code::reference_respelled, rep.document, rep.offset,
             "<base href='" + u.refs[*u.base_ref].url + "'> written as '" + absolute +
                 "': Chromium resolves a relative base of an archived page against the archive "
                 "file, not against the page's Content-Location");
        rep.rewritten = absolute;
        values[*u.base_ref] = std::move(absolute);
        ++out_.counts.rewritten;
        changed = true;
    }
    for (std::size_t i = 0; i < u.refs.size(); ++i) {
        ref_info& info = u.info[i];
        int file = info.file;
        if (file < 0 && !info.resolved.empty()) {
            // A navigation link to a file packed anyway.
            std::string_view rest = std::string_view(info.resolved).substr(sentinel.size());
            rest = rest.substr(0, rest.find('?'));
            const std::string rel = detail::percent_decode(rest);
            if (auto it = by_rel_.find(rel); it != by_rel_.end()) {
                file = static_cast<int>(it->second);
                info.file = file;
                out_.references[info.report].resource = it->second;
            }
        }
        if (file < 0) continue;
        // content_location: only a spelling other than the label's changes.
        if (opt_.method == method::content_location &&
            info.resolved == files_[static_cast<std::size_t>(file)].label &&
            kept_fragment(files_[static_cast<std::size_t>(file)], info) == info.fragment)
            continue;
        std::string v = replacement_for(u, i, cids, names);
        if (v == u.refs[i].url) continue;
        if (opt_.method == method::content_location)
            diag(severity::note, diag_code::reference_respelled,
                 out_.references[info.report].document, out_.references[info.report].offset,
                 "'" + u.refs[i].url + "' names the file labelled '" +
                     external_label(files_[static_cast<std::size_t>(file)]) +
                     "' with another spelling; rewritten to '" + v +
                     "' so that it resolves to that part (a part has one Content-Location)");
        out_.references[info.report].rewritten = v;
        ++out_.counts.rewritten;
        values[i] = std::move(v);
        changed = true;
    }
    if (!changed) return std::nullopt;
    std::string out;
    html::rewrite_to(
        text, u.refs,
        [&](const html::reference& r) -> std::optional<std::string> {
            const std::size_t i = static_cast<std::size_t>(&r - u.refs.data());
            return values[i];
        },
        edits, [&](std::string_view piece) { out += piece; });
    return out;
}

void collector::add_all_files() {
    std::vector<std::pair<std::string, fs::path>> found;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root_, fs::directory_options::none, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const fs::path p = it->path();
        std::error_code e2;
        if (it->is_symlink(e2)) {
            const fs::path canon = fs::canonical(p, e2);
            if (e2 || !canon.generic_string().starts_with(root_generic_)) {
                diag(severity::warning, diag_code::resource_outside_root,
                     fs::relative(p, root_, e2).generic_string(), 0,
                     "a symbolic link leading out of the root folder (or nowhere); not packed");
                continue;
            }
            if (!fs::is_regular_file(canon, e2)) continue;
            found.emplace_back(canon.generic_string().substr(root_generic_.size()), canon);
            continue;
        }
        if (!it->is_regular_file(e2)) continue;
        found.emplace_back(p.generic_string().substr(root_generic_.size()), p);
    }
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [rel, p] : found) {
        if (by_rel_.count(rel)) continue;
        std::error_code e3;
        const std::uint64_t size = fs::file_size(p, e3);
        if (e3) continue;
        std::string reason, why;
        if (add_file(rel, p, size, "", reason, why) < 0)
            diag(severity::error, diag_code::resource_limit, rel, 0,
                 rel + ": " + why + "; not packed");
        else
            files_.back().label = std::string(sentinel) + detail::encode_path(rel);
    }
}

bool collector::run(const fs::path& root_dir, const std::string& root_rel) {
    std::error_code ec;
    root_ = fs::canonical(root_dir, ec);
    if (ec) {
        out_.error_code = "not_found";
        out_.error = root_dir.string() + ": " + ec.message();
        return false;
    }
    root_generic_ = root_.generic_string();
    if (!root_generic_.ends_with('/')) root_generic_ += '/';
    if (!opt_.base.empty()) {
        if (!uri::is_absolute(opt_.base)) {
            out_.error_code = "bad_base";
            out_.error = "the base '" + opt_.base + "' is not an absolute URL";
            return false;
        }
        base_ = std::string(uri::without_fragment(opt_.base));
        base_ = base_.substr(0, base_.find('?'));
        if (!base_.ends_with('/')) base_ += '/';
        file_base_ = ascii::istarts_with(base_, "file:");
        if (file_base_ && !opt_.anonymize_labels)
            diag(severity::warning, diag_code::label_leaks_local_path, "", 0,
                 "labels start with the file: URL '" + base_ +
                     "', which reveals a local path (MHT-12.2); anonymize_labels makes them "
                     "fictitious relative ones");
    }
    const fs::path root_path = root_ / fs::path(root_rel);
    const std::uint64_t root_size = fs::file_size(root_path, ec);
    if (ec) {
        out_.error_code = "not_found";
        out_.error = root_path.string() + ": " + ec.message();
        return false;
    }
    std::string reason, why;
    if (add_file(root_rel, root_path, root_size, "", reason, why) < 0) {
        out_.error_code = "io_error";
        out_.error = root_rel + ": " + why;
        return false;
    }
    files_[0].label = std::string(sentinel) + detail::encode_path(root_rel);
    if (files_[0].doc == doc_type::none) {
        out_.error_code = "not_html";
        out_.error = root_rel + " is not an HTML, XHTML or SVG document";
        return false;
    }
    for (int round = 0; round < 2; ++round) {
        while (!queue_.empty()) {
            const std::size_t i = queue_.front();
            queue_.pop_front();
            if (!files_[i].scanned) scan_file(i);
        }
        if (!opt_.all || round == 1) break;
        add_all_files();
    }

    // Phase 2: names, ids, rewritten documents, resources.
    std::vector<std::string> cids(files_.size()), names(files_.size());
    if (opt_.method == method::cid)
        for (auto& c : cids) c = make_content_id();
    if (opt_.method == method::filename) {
        std::vector<uri::filename_request> req;
        for (const file_entry& f : files_) req.push_back({f.rel, f.type});
        names = uri::make_virtual_filenames(req);
    }
    for (std::size_t i = 0; i < files_.size(); ++i) {
        file_entry& f = files_[i];
        resource r;
        r.origin = f.rel;
        r.label = opt_.method == method::filename ? names[i] : external_label(f);
        if (opt_.method == method::cid) r.content_id = cids[i];
        std::string charset = f.doc == doc_type::html || f.doc == doc_type::css ? f.charset : "";
        r.in_memory = false;
        r.file = f.path;
        if (f.doc != doc_type::none && f.scanned) {
            std::string error;
            std::optional<std::string> rewritten;
            bool must_load = f.transcoded;
            auto text = load_text(f, error);
            if (!text) {
                diag(severity::error, diag_code::resource_unreadable, f.rel, 0, error);
            } else {
                rewritten = rewrite_unit(f.u, *text, cids, names);
                if (rewritten || must_load) {
                    r.in_memory = true;
                    r.file.clear();
                    if (rewritten) ++out_.counts.rewritten_documents;
                    r.data = rewritten ? std::move(*rewritten) : std::move(*text);
                    if (f.transcoded) charset = "UTF-8";
                }
            }
        }
        r.content_type = is_text_type(f.type) ? detail::with_charset(f.type, charset) : f.type;
        out_.counts.bytes += r.in_memory ? r.data.size() : f.size;
        out_.resources.push_back(std::move(r));
    }
    out_.counts.resources = out_.resources.size();
    out_.counts.references = out_.references.size();
    return true;
}

bool is_html_name(std::string_view name) {
    const std::string_view t = content_type_for_path(name);
    return t == "text/html" || t == "application/xhtml+xml";
}

}  // namespace

collection collect(const fs::path& source, const collect_options& options) {
    collection out;
    std::error_code ec;
    const fs::file_status st = fs::status(source, ec);
    if (ec || !fs::exists(st)) {
        out.error_code = "not_found";
        out.error = source.string() + ": no such file or folder";
        return out;
    }
    fs::path root_dir;
    std::string root_rel;
    if (fs::is_directory(st)) {
        if (fs::is_regular_file(source / "manifest.json", ec)) {
            collection extracted = collect_extracted(source, options);
            if (extracted.ok() || extracted.error_code != "bad_manifest") return extracted;
            // Not extract's manifest: an ordinary folder.
        }
        root_dir = source;
        std::vector<std::string> candidates;
        for (std::string_view name : {"index.html", "index.htm"})
            if (fs::is_regular_file(source / name, ec)) {
                root_rel = std::string(name);
                break;
            }
        if (root_rel.empty()) {
            for (const auto& e : fs::directory_iterator(source, ec))
                if (e.is_regular_file(ec) && is_html_name(e.path().filename().string()))
                    candidates.push_back(e.path().filename().string());
            std::sort(candidates.begin(), candidates.end());
            if (candidates.size() == 1) {
                root_rel = candidates[0];
            } else if (candidates.empty()) {
                out.error_code = "no_root";
                out.error = source.string() + " holds no index.html, index.htm or other HTML file";
                return out;
            } else {
                out.error_code = "ambiguous_root";
                out.error = source.string() + " has no index.html or index.htm and " +
                            std::to_string(candidates.size()) + " HTML files; name one:";
                for (const auto& c : candidates) out.error += " " + c;
                return out;
            }
        }
    } else {
        root_dir = source.parent_path().empty() ? fs::path(".") : source.parent_path();
        root_rel = source.filename().string();
    }
    collector c(options, out);
    if (!c.run(root_dir, root_rel)) {
        out.resources.clear();
        out.references.clear();
    }
    return out;
}

}  // namespace mhtml::pack
