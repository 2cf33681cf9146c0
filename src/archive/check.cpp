#include "mhtml/archive/check.hpp"

#include "mhtml/external/body.hpp"

#include "text_cat.hpp"

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/header_value.hpp"
#include "mhtml/uri/reference.hpp"
#include "uri/text.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <unordered_map>

namespace mhtml::archive {

namespace {

using mhtml::detail::cat;

std::string shown_path(std::string_view path) {
    return path.empty() ? std::string(".") : std::string(path);
}

// Header text for a message: at most 200 octets, line ends of folding shown as one space.
std::string quoted_value(std::string_view v) {
    std::string out;
    for (char c : v.substr(0, 200)) {
        if (c == '\r' || c == '\n') {
            if (!out.empty() && out.back() != ' ') out += ' ';
            continue;
        }
        out += c;
    }
    if (v.size() > 200) out += "...";
    return out;
}

// The key a resolved location is indexed under (as the label index does): no fragment, and
// the fictitious scheme in one spelling.
std::string location_key(std::string_view resolved) {
    std::string_view s = uri::without_fragment(resolved);
    std::size_t colon = s.find(':');
    if (colon != std::string_view::npos && uri::is_fictitious_scheme(s.substr(0, colon))) {
        std::string out = "thismessage";
        out += s.substr(colon);
        return out;
    }
    return std::string(s);
}

// MHT-4.4.1.1: octets a Content-Location / Content-Base cannot carry as they are: not
// allowed in a header (CTLs, 8-bit) or not allowed in an RFC 1738 URL (`"`, `\`, `<`, `>`,
// `^`, backquote, `{`, `|`, `}`). SP is judged apart (raw interior white space).
bool needs_encoding(char ch) noexcept {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f) return true;
    switch (ch) {
        case '"':
        case '\\':
        case '<':
        case '>':
        case '^':
        case '`':
        case '{':
        case '|':
        case '}':
            return true;
        default:
            return false;
    }
}

bool looks_like_encoded_word(std::string_view token) noexcept {
    return token.size() >= 8 && token.starts_with("=?") && token.ends_with("?=");
}

struct encoding_problem {
    bool raw_space = false;     // white space inside an unquoted URI
    std::optional<char> octet;  // the first octet that needed encoding
};

// Reads a Content-Location / Content-Base field body the way uri::extract_header_uri does
// (comments around the URI dropped; the quoted RFC 2017 form; RFC 2047 encoded-words) and
// says what the writer put there as it is although it needed encoding. Encoded-words may
// decode to anything: that is method (b), the right way to carry such octets.
encoding_problem header_uri_problem(std::string_view body) {
    encoding_problem out;
    std::size_t begin = 0, end = body.size();
    auto trim = [&] {
        while (begin < end && uri::text::is_lwsp(body[begin])) ++begin;
        while (end > begin && uri::text::is_lwsp(body[end - 1])) --end;
    };
    trim();
    if (begin < end && body[begin] == '(') {
        std::size_t close = uri::text::comment_end(body.substr(0, end), begin);
        if (close != std::string_view::npos) {
            begin = close;
            trim();
        }
    }
    if (end > begin && body[end - 1] == ')') {
        std::size_t cut = uri::text::trailing_cfws_begin(body.substr(0, end), begin);
        if (cut > begin && cut < end && uri::text::is_lwsp(body[cut])) {
            end = cut;
            trim();
        }
    }
    std::string_view value = body.substr(begin, end - begin);
    auto look_at = [&](std::string_view s) {
        for (char c : s)
            if (!out.octet && needs_encoding(c)) out.octet = c;
    };
    if (value.starts_with('"')) {  // RFC 2017: white space separates words; the quotes end it
        value.remove_prefix(1);
        if (std::size_t close = value.find('"'); close != std::string_view::npos)
            value = value.substr(0, close);
        for (char c : value)
            if (!uri::text::is_lwsp(c) && !out.octet && needs_encoding(c)) out.octet = c;
        return out;
    }
    bool previous_plain = false;
    std::size_t i = 0;
    while (i < value.size()) {
        std::size_t start = i;
        while (i < value.size() && !uri::text::is_lwsp(value[i])) ++i;
        std::string_view token = value.substr(start, i - start);
        while (i < value.size() && uri::text::is_lwsp(value[i])) ++i;
        if (looks_like_encoded_word(token)) {
            previous_plain = false;
            continue;
        }
        if (previous_plain) out.raw_space = true;
        previous_plain = true;
        look_at(token);
    }
    return out;
}

std::string octet_name(char ch) {
    auto c = static_cast<unsigned char>(ch);
    if (c > 0x20 && c < 0x7f) return cat({"'", std::string_view(&ch, 1), "'"});
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out = "octet 0x";
    out += hex[c >> 4];
    out += hex[c & 15];
    return out;
}

// Parameters of a Content-Type field body whose value is written unquoted although it has
// tspecials (RFC 2045 §5.1), as name=value.
std::vector<std::pair<std::string, std::string>> unquoted_special_values(std::string_view v) {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t i = 0;
    auto skip_ws = [&] {
        while (i < v.size() && uri::text::is_lwsp(v[i])) ++i;
    };
    auto skip_quoted = [&] {  // v[i] == '"'
        for (++i; i < v.size() && v[i] != '"'; ++i)
            if (v[i] == '\\') ++i;
        if (i < v.size()) ++i;
    };
    while (i < v.size()) {
        // to the next ';' outside quoted strings
        while (i < v.size() && v[i] != ';') {
            if (v[i] == '"') {
                skip_quoted();
            } else {
                ++i;
            }
        }
        if (i >= v.size()) break;
        ++i;
        skip_ws();
        std::size_t name_begin = i;
        while (i < v.size() && v[i] != '=' && v[i] != ';' && !uri::text::is_lwsp(v[i])) ++i;
        std::string name = uri::text::ascii_lower(v.substr(name_begin, i - name_begin));
        skip_ws();
        if (i >= v.size() || v[i] != '=') continue;
        ++i;
        skip_ws();
        if (i < v.size() && v[i] == '"') {
            skip_quoted();
            continue;
        }
        std::size_t value_begin = i;
        while (i < v.size() && v[i] != ';' && !uri::text::is_lwsp(v[i])) ++i;
        std::string_view value = v.substr(value_begin, i - value_begin);
        if (std::any_of(value.begin(), value.end(), [](char c) { return mime::is_tspecial(c); }))
            out.emplace_back(std::move(name), std::string(value));
    }
    return out;
}

// Where a path sorts: numerically, segment by segment, the message ("") first.
std::vector<std::uint32_t> path_key(std::string_view path) {
    std::vector<std::uint32_t> key;
    std::uint32_t n = 0;
    bool any = false;
    for (char c : path) {
        if (c == '.') {
            key.push_back(n);
            n = 0;
            any = false;
        } else if (c >= '0' && c <= '9') {
            n = n * 10 + static_cast<std::uint32_t>(c - '0');
            any = true;
        }
    }
    if (any) key.push_back(n);
    return key;
}

bool is_multipart_related(const mime::part_view& p) noexcept {
    return p.kind() == mime::entity_kind::multipart && p.content_type().is("multipart", "related");
}

bool is_alternative(const mime::part_view& p) noexcept {
    return p.kind() == mime::entity_kind::multipart &&
           p.content_type().is("multipart", "alternative");
}

bool is_alternative_child(const mime::part_view& p) {
    auto parent = p.parent();
    return parent && is_alternative(*parent);
}

// The heading inside a message/external-body describes a body sent elsewhere (RFC 2046
// §5.2.3); nothing of it is in the message.
bool is_phantom(const mime::part_view& p) noexcept {
    auto parent = p.parent();
    return parent && parent->content_type().is("message", "external-body");
}

// Schemes a viewer would fetch from the network (or the local disk) to show a resource.
bool is_fetched_scheme(std::string_view scheme) noexcept {
    for (std::string_view s : {"http", "https", "ftp", "file"})
        if (uri::text::iequals(scheme, s)) return true;
    return false;
}

// Labels -> the first part carrying them, as a sorted vector rather than a hash table: a
// hostile archive chooses its labels, and sorting stays O(n log n) whatever they are (as
// archive/root.cpp does for Content-IDs). Built once, then looked up by binary search.
class label_table {
public:
    void add(std::string key, std::uint32_t part) { entries_.emplace_back(std::move(key), part); }
    /// Sorts by key; parts with one key stay in the order added (document order).
    void seal() {
        std::stable_sort(entries_.begin(), entries_.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    [[nodiscard]] std::optional<std::uint32_t> find(std::string_view key) const {
        auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                                   [](const auto& e, std::string_view k) { return e.first < k; });
        if (it == entries_.end() || it->first != key) return std::nullopt;
        return it->second;
    }
    /// (key, part) in key order, repeats adjacent.
    [[nodiscard]] const std::vector<std::pair<std::string, std::uint32_t>>& entries()
        const noexcept {
        return entries_;
    }

private:
    std::vector<std::pair<std::string, std::uint32_t>> entries_;
};

class checker {
public:
    checker(const mime::document& doc, const check_options& options)
        : doc_(doc),
          agg_(aggregate::build(
              doc, aggregate_options{.strict = options.strict,
                                     .store = options.store,
                                     .blink_style_imports = options.blink_style_imports})),
          store_(options.store) {}

    std::vector<finding> run();

private:
    void add(std::string_view requirement, finding_level level, std::string_view code,
             std::string path, std::uint64_t offset, std::string message) {
        // `offset` is in the document's offset space (REL-2.2 decoded bodies lie beyond the
        // input); a finding gives a position in the input.
        out_.push_back(finding{std::string(requirement), level, std::string(code), std::move(path),
                               doc_.input_offset(offset), std::move(message)});
    }
    std::uint64_t offset_of(const mime::header_field_view& f) const noexcept {
        return doc_.offset_of(f.raw().data());
    }
    std::uint64_t field_offset(const mime::part_view& p, std::string_view name) const noexcept {
        auto f = p.header(name);
        return f ? offset_of(*f) : p.offset();
    }
    std::optional<mime::part_view> part_at(const std::string& path);
    std::string message_key(const mime::part_view& p, std::string_view key) const {
        std::string k = std::to_string(message_of_[p.index()]);
        k += ' ';
        k += key;
        return k;
    }

    void check_heading(const mime::part_view& p);
    void check_header_uri(const mime::part_view& p, const mime::header_field_view& f);
    void check_content_id(const mime::part_view& p, const mime::header_field_view& f);
    void check_content_id_uniqueness();
    void check_related_parameters(const mime::part_view& p);
    void check_line_ends(const mime::part_view& p, std::string_view body);
    void check_references(const mime::part_view& p, const document_text& d);
    void map_aggregate_diagnostic(const diagnostic& d);
    void check_related_structures();
    void check_external_and_md5(const mime::part_view& p);

    const mime::document& doc_;
    aggregate agg_;
    const message_store* store_ = nullptr;
    std::vector<finding> out_;
    std::vector<bool> referenced_;
    std::vector<std::uint32_t> message_of_;  // the innermost message each entity belongs to
    label_table ids_;                        // message + Content-ID -> part
    label_table locations_;                  // message + resolved Content-Location -> part
    mhtml::detail::keyed_string_map<std::uint32_t> paths_;  // filled on first use
    bool skipped_lf_text_ = false;
};

std::optional<mime::part_view> checker::part_at(const std::string& path) {
    if (paths_.empty())
        for (std::size_t i = 0; i < doc_.size(); ++i)
            paths_.emplace(doc_.part(i).path(), static_cast<std::uint32_t>(i));
    auto it = paths_.find(path);
    if (it == paths_.end()) return std::nullopt;
    return doc_.part(it->second);
}

std::vector<finding> checker::run() {
    const std::size_t n = doc_.size();
    referenced_.assign(n, false);
    message_of_.assign(n, 0);
    for (std::size_t i = 1; i < n; ++i) {
        mime::part_view p = doc_.part(i);
        auto parent = p.parent();
        if (!parent) continue;
        message_of_[i] = parent->kind() == mime::entity_kind::message
                             ? static_cast<std::uint32_t>(i)
                             : message_of_[parent->index()];
    }

    // Headings: repeated fields, header URIs, Content-IDs, charset, related parameters; and
    // the message-wide label indexes that tell a reference to a part outside its structure.
    for (std::size_t i = 0; i < n; ++i) check_heading(doc_.part(i));
    ids_.seal();
    locations_.seal();
    check_content_id_uniqueness();

    for (const diagnostic& d : agg_.diagnostics()) map_aggregate_diagnostic(d);
    // REL-2.2: a multipart/related (any multipart, RFC 2045 §6.4) has no transfer encoding.
    for (const diagnostic& d : doc_.diagnostics())
        if (d.code == diag_code::multipart_with_encoding)
            add("REL-2.2", finding_level::error, "multipart_with_encoding", d.part_path, d.offset,
                cat({d.message,
                     " (REL-2.2, RFC 2045 6.4: a multipart is 7bit, 8bit or binary only; other "
                     "readers may not find its parts)"}));

    // Bodies: canonical line ends of text; references of document parts, read as the rest of
    // the library reads them (aggregate::read_document: decoded once, a UTF-16 or ISO-2022-JP
    // page transcoded, scanned once, its <base href> taken from that scan).
    std::string body;
    for (std::size_t i = 0; i < n; ++i) {
        mime::part_view p = doc_.part(i);
        if (!p.is_leaf()) continue;
        const bool text = p.content_type().type == "text";
        const document_type type = document_type_of(p);
        if (!text && type == document_type::none) continue;
        if (type == document_type::none) {
            body.clear();
            p.decode_to(body);
            if (!is_phantom(p)) check_line_ends(p, body);
            continue;
        }
        const document_text d = agg_.read_document(p);
        if (text && !is_phantom(p)) {
            if (d.transcoded) {  // line ends are judged on the octets as sent
                body.clear();
                p.decode_to(body);
                check_line_ends(p, body);
            } else {
                check_line_ends(p, d.text);
            }
        }
        check_references(p, d);
    }
    check_related_structures();
    for (std::size_t i = 0; i < n; ++i) check_external_and_md5(doc_.part(i));

    if (skipped_lf_text_)
        add("MHT-11.4", finding_level::note, "stored_with_lf", "", 0,
            "the message is stored with bare LF line ends (as Unix mail files are), so the line "
            "ends of its 7bit, 8bit and quoted-printable text parts are those of the file, not of "
            "the text; MHT-11.4 (canonical CRLF text) was judged on base64 text parts only");

    std::vector<std::pair<std::vector<std::uint32_t>, std::size_t>> order;
    order.reserve(out_.size());
    for (std::size_t i = 0; i < out_.size(); ++i)
        order.emplace_back(path_key(out_[i].part_path), i);
    std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first < b.first;
        return out_[a.second].offset < out_[b.second].offset;
    });
    std::vector<finding> sorted;
    sorted.reserve(out_.size());
    for (const auto& o : order) sorted.push_back(std::move(out_[o.second]));
    return sorted;
}

void checker::check_heading(const mime::part_view& p) {
    // A copy: header_list makes each view on the fly, so no address of one outlives its step.
    std::optional<mime::header_field_view> first_location;
    for (const mime::header_field_view f : p.headers()) {
        if (f.is("Content-Location")) {
            if (!first_location) {
                first_location = f;
            } else {
                // MHT-4.2.5: at most one Content-Location per heading.
                add("MHT-4.2.5", finding_level::error, "multiple_content_location", p.path(),
                    offset_of(f),
                    cat({"another Content-Location field (", quoted_value(f.value()),
                         ") in one heading; MHT-4.2.5 allows one, holding one URI. Readers label "
                         "the part with the first (",
                         quoted_value(first_location->value()), ") and disagree about the rest"}));
            }
            check_header_uri(p, f);
        } else if (f.is("Content-Base")) {
            check_header_uri(p, f);
        } else if (f.is("Content-ID")) {
            check_content_id(p, f);
        }
    }
    // L-1: RFC 2557 removed Content-Base; a usable one is still honoured (the relative and
    // FILE:/CID ones are reported by the aggregate).
    if (auto f = p.header("Content-Base")) {
        std::string cb = uri::extract_header_uri(f->raw_value());
        if (uri::is_absolute(cb) && !uri::is_legacy_method_indicator(cb))
            add("L-1", finding_level::note, "legacy_content_base", p.path(), offset_of(*f),
                cat({"Content-Base ", quoted_value(cb),
                     " is the MHTML draft's (RFC 2110) header, which RFC 2557 removed: this "
                     "toolkit uses it as the base, RFC 2557 readers ignore it and may resolve "
                     "relative references differently"}));
    }
    // Message-wide index of resolved Content-Locations (MHT-7.1, MHT-4.1.3).
    if (first_location) {
        const entity_info& e = agg_.info(p);
        if (e.location && !uri::is_cid_url(*e.location))
            locations_.add(message_key(p, location_key(*e.location)), p.index());
    }
    const mime::content_type& ct = p.content_type();
    // MHT-11.9: text sent by e-mail carries its charset.
    if (p.is_leaf() && p.has_content_type() && ct.type == "text" && !ct.param("charset") &&
        !is_phantom(p))
        add("MHT-11.9", finding_level::warning, "charset_missing", p.path(),
            field_offset(p, "Content-Type"),
            cat({"Content-Type ", ct.essence(),
                 " has no charset parameter (MHT-11.9 SHOULD); readers fall back on a default "
                 "(US-ASCII for MIME, something else for a browser) and may show the text "
                 "garbled"}));
    if (is_multipart_related(p)) check_related_parameters(p);
}

// MHT-4.4.1.1: a URI with characters a header cannot carry is RFC 2047 encoded (method b)
// or %-encoded (method a) by the writer, never written as it is.
void checker::check_header_uri(const mime::part_view& p, const mime::header_field_view& f) {
    encoding_problem problem = header_uri_problem(f.raw_value());
    if (!problem.raw_space && !problem.octet) return;
    std::string what = problem.octet ? octet_name(*problem.octet) : std::string();
    if (problem.raw_space) what = what.empty() ? "white space" : cat({"white space and ", what});
    // White space, CTLs, 8-bit, '"' and '\' make readers disagree about the value itself;
    // '<', '>', '^', '`', '{', '|', '}' only make it an invalid URI.
    const bool header_unsafe =
        problem.raw_space ||
        (problem.octet && (static_cast<unsigned char>(*problem.octet) < 0x20 ||
                           static_cast<unsigned char>(*problem.octet) >= 0x7f ||
                           *problem.octet == '"' || *problem.octet == '\\'));
    add("MHT-4.4.1.1", finding_level::error, "uri_needs_encoding", p.path(), offset_of(f),
        cat({std::string(f.name()), " ", quoted_value(f.value()), " has ", what,
             " written as it is, which MHT-4.4.1.1 (and MHT-4.1.4: URIs in these headers are RFC "
             "1738 URLs) requires to be %-encoded, or the value RFC 2047 encoded. ",
             header_unsafe ? "Readers differ on what the URI is (spaces dropped or kept), so "
                             "references may not match it"
                           : "Readers that match octet for octet still find the part; strict URI "
                             "parsers reject the value"}));
}

// E-34: ids are taken as written, with or without brackets and '@'; CID-12, MHT-8.3.3: no
// two parts of a message share a Content-ID, except alternatives of one multipart/alternative
// (CID-8). Duplicates among the body parts of one related structure are the aggregate's
// MHT-7.12 finding.
void checker::check_content_id(const mime::part_view& p, const mime::header_field_view& f) {
    if (p.header("Content-ID")->raw().data() != f.raw().data())
        return;  // the first Content-ID counts
    const std::string value = f.value();
    bool brackets = false;
    auto id = mime::parse_msg_id(value, &brackets);
    const std::string key = uri::id_key(f.raw_value());
    if (!id || key.empty()) return;
    if (!brackets)
        add("E-34", finding_level::note, "content_id_without_brackets", p.path(), offset_of(f),
            cat({"Content-ID ", quoted_value(value),
                 " is not in angle brackets (RFC 2045 msg-id); readers use the whole value as the "
                 "id, so cid:",
                 key, " still reaches this part"}));
    if (key.find('@') == std::string::npos)
        add("E-34", finding_level::note, "content_id_not_addr_spec", p.path(), offset_of(f),
            cat({"Content-ID <", key,
                 "> has no '@' (not an addr-spec, RFC 2045); ids are compared as opaque octets, so "
                 "this is harmless for matching"}));
    ids_.add(message_key(p, key), p.index());
}

// CID-12, MHT-8.3.3: each part after the first with an id of its message.
void checker::check_content_id_uniqueness() {
    const auto& entries = ids_.entries();
    for (std::size_t i = 1, first = 0; i < entries.size(); ++i) {
        if (entries[i].first != entries[first].first) {
            first = i;
            continue;
        }
        const mime::part_view p = doc_.part(entries[i].second);
        const mime::part_view head = doc_.part(entries[first].second);
        auto parent = p.parent();
        auto head_parent = head.parent();
        if (parent && head_parent && *parent == *head_parent && is_multipart_related(*parent))
            continue;  // MHT-7.12, reported by the aggregate
        // CID-8: the closest common ancestor is a multipart/alternative.
        std::optional<mime::part_view> a = head, b = p;
        while (a && b && a->depth() > b->depth()) a = a->parent();
        while (a && b && b->depth() > a->depth()) b = b->parent();
        while (a && b && !(*a == *b)) {
            a = a->parent();
            b = b->parent();
        }
        if (a && is_alternative(*a)) continue;
        const std::string_view key =
            std::string_view(entries[i].first).substr(entries[i].first.find(' ') + 1);
        add("MHT-8.3.3", finding_level::error, "content_id_not_unique", p.path(),
            field_offset(p, "Content-ID"),
            cat({"Content-ID <", key, "> is also on part ", shown_path(head.path()),
                 "; Content-IDs MUST be unique (MHT-8.3.3, CID-12). A cid: reference reaches "
                 "whichever part the reader finds first"}));
    }
}

// REL-3.4.2: start, start-info and type hold tspecials (`<`, `>`, `@`, `/`) and are quoted.
void checker::check_related_parameters(const mime::part_view& p) {
    auto f = p.header("Content-Type");
    if (!f) return;
    for (const auto& [name, value] : unquoted_special_values(f->value())) {
        if (name != "start" && name != "type" && name != "start-info") continue;
        add("REL-3.4.2", finding_level::error, "parameter_needs_quoting", p.path(), offset_of(*f),
            cat({"the multipart/related parameter ", name, "=", quoted_value(value),
                 " is not quoted although it contains special characters (REL-3.4.2, RFC 2045 "
                 "5.1); lenient readers take it up to the next ';', strict ones reject it"}));
    }
}

// MHT-11.4: text is in canonical form, CRLF line ends, before a transfer encoding is
// applied. A message stored with LF line ends (a Unix mail file) has the file's line ends
// in its unencoded text, so only base64 text is judged there.
void checker::check_line_ends(const mime::part_view& p, std::string_view body) {
    const bool base64 = p.encoding() == mime::transfer_encoding::base64;
    std::string_view heading = p.raw_headers();
    const bool lf_stored = heading.find('\n') != std::string_view::npos &&
                           heading.find("\r\n") == std::string_view::npos;
    if (!base64 && lf_stored) {
        skipped_lf_text_ = skipped_lf_text_ || body.find('\n') != std::string_view::npos;
        return;
    }
    std::size_t bare = 0, first = std::string_view::npos;
    for (std::size_t i = 0; i < body.size(); ++i) {
        const bool bare_lf = body[i] == '\n' && (i == 0 || body[i - 1] != '\r');
        const bool bare_cr = body[i] == '\r' && (i + 1 == body.size() || body[i + 1] != '\n');
        if (bare_lf || bare_cr) {
            if (bare++ == 0) first = i;
        }
    }
    if (bare == 0) return;
    const bool identity = p.encoding() != mime::transfer_encoding::base64 &&
                          p.encoding() != mime::transfer_encoding::quoted_printable;
    add("MHT-11.4", finding_level::warning, "text_not_canonical", p.path(),
        identity ? p.body_offset() + first : p.body_offset(),
        cat({p.content_type().essence(), " part has ", std::to_string(bare), " bare ",
             body[first] == '\n' ? "LF" : "CR", bare > 1 ? " line ends" : " line end",
             base64 ? " inside its base64 encoding" : "",
             "; MHT-11.4 wants text in canonical form (CRLF) before the transfer encoding. Readers "
             "accept it; a signature or checksum over the canonical text will not match"}));
}

void checker::check_references(const mime::part_view& p, const document_text& d) {
    const html::scan_result& scan = d.scan;
    const entity_info& info = agg_.info(p);
    // Offsets point at the reference in the input only when the body is the input's octets.
    const bool identity = p.encoding() != mime::transfer_encoding::base64 &&
                          p.encoding() != mime::transfer_encoding::quoted_printable &&
                          !d.transcoded;
    // One finding per (code, resolved URI) in a part, the first; the count is added to its
    // message. Grouped by sorting, not hashing: the document chooses its URIs.
    struct pending {
        std::string key;
        finding f;
    };
    std::vector<pending> found;
    auto report = [&](std::string_view requirement, finding_level level, std::string_view code,
                      std::string_view resolved, std::uint64_t offset, std::string message) {
        std::string key(code);
        key += '\n';
        key += resolved;
        found.push_back(pending{std::move(key), finding{std::string(requirement),
                                                        level,
                                                        std::string(code),
                                                        {},
                                                        doc_.input_offset(offset),
                                                        std::move(message)}});
    };
    for (const html::reference& r : scan.refs) {
        if (r.kind == html::ref_kind::base) continue;
        std::vector<diagnostic> diags;
        resolution res = agg_.resolve(p, r, &diags);
        if (res.same_document) continue;
        const std::uint64_t offset = identity ? p.body_offset() + r.offset : p.body_offset();
        const bool cid = uri::is_cid_url(r.url);
        const std::string where = cat(
            {r.element.empty() ? std::string_view("in a style sheet") : std::string_view(r.element),
             r.attribute.empty() ? "" : " ", r.attribute});
        bool normalisation_reported = false;  // one per reference, the first (the main reason)
        for (const diagnostic& d : diags) {
            if (d.code == diag_code::matched_after_normalisation) {
                if (normalisation_reported) continue;
                normalisation_reported = true;
                report(cid ? "THTML-9.3.2" : "THTML-9.1.4", finding_level::warning,
                       "matched_after_normalisation", res.resolved, offset,
                       cat({d.message,
                            "; RFC 2557 readers compare octet for octet (MHT-8.2.4) and find no "
                            "part. ",
                            cid ? "The part's Content-ID should be the id the reference names"
                                : "The part's Content-Location should be the URI exactly as the "
                                  "document writes it"}));
            } else if (d.code == diag_code::cid_matched_content_location) {
                report(
                    "THTML-9.3.2", finding_level::warning, "cid_matched_content_location",
                    res.resolved, offset,
                    cat({"'", r.url, "' (", where,
                         ") matches no Content-ID, only a part labelled Content-Location: ", r.url,
                         ", which MHT-8.3.1 says labels nothing: Chromium finds that part, RFC "
                         "2557 readers do not. The part should carry Content-ID: <id>"}));
            } else if (d.code == diag_code::style_element_sheet) {
                report("MHT-8.2.3", finding_level::note, "style_import_not_followed", res.resolved,
                       offset,
                       cat({d.message,
                            ". Chapter 5 gives the same answer: the sheet's base is its cid: "
                            "label"}));
            } else if (d.code == diag_code::matched_in_enclosing_related) {
                report("MHT-7.2", finding_level::note, "matched_in_enclosing_related", res.resolved,
                       offset,
                       cat({d.message,
                            "; readers of the MHTML draft look only in the reference's own "
                            "structure"}));
            }
        }
        if (res.target && res.from_store) continue;  // a part of another message (CID-6)
        if (res.target) {
            // The target, and the multipart/alternative body parts around it (CID-8).
            for (std::optional<mime::part_view> t = res.target; t && !referenced_[t->index()];
                 t = is_alternative_child(*t) ? t->parent() : std::nullopt)
                referenced_[t->index()] = true;
            continue;
        }
        if (uri::is_mid_url(r.url)) {  // another message: the store's business (CID-6)
            if (store_)
                report("CID-6", finding_level::warning, "mid_not_found", res.resolved, offset,
                       cat({"'", r.url, "' (", where,
                            ") names a message (or a part of one) that neither this document nor "
                            "the message store has; a reader shows nothing for it"}));
            continue;
        }
        // A part outside the reference's related structure with that label (MHT-7.1, MHT-4.1.3).
        std::optional<std::uint32_t> elsewhere;
        if (cid) {
            auto id = uri::cid_to_content_id(uri::without_fragment(r.url));
            if (id) {
                elsewhere = ids_.find(message_key(p, uri::id_key(id.value)));
            }
        } else {
            elsewhere = locations_.find(message_key(p, location_key(res.resolved)));
        }
        if (elsewhere && *elsewhere == p.index()) continue;  // the document's own label
        if (elsewhere) {
            mime::part_view target = doc_.part(*elsewhere);
            const entity_info& ti = agg_.info(target);
            referenced_[*elsewhere] = true;
            if (info.related >= 0 && ti.related == info.related) {
                // The body part of the related structure that holds the target.
                const mime::part_view related =
                    agg_.related()[static_cast<std::size_t>(info.related)].part;
                mime::part_view member = target;
                bool through_alternatives = true;  // every entity from the target up to the member
                while (auto parent = member.parent()) {
                    if (*parent == related) break;
                    member = *parent;
                    through_alternatives = through_alternatives && is_alternative(member);
                }
                referenced_[member.index()] = true;
                if (member == target) continue;
                // CID-8: alternatives sharing a Content-ID; the reader picks the one it shows.
                if (cid && through_alternatives) continue;
                report("MHT-7.1", finding_level::warning, "target_not_body_part", res.resolved,
                       offset,
                       cat({"'", r.url, "' (", where, ") names part ", shown_path(target.path()),
                            ", which is inside another body part of the multipart/related, not one "
                            "of its body parts; readers look a reference up among the body parts "
                            "only (MHT-8.2.4), so it reaches nothing (MHT-7.1: the parts a "
                            "document uses should be body parts of its multipart/related)"}));
                continue;
            }
            if (info.related < 0) {
                report("MHT-7.1", finding_level::warning, "related_expected", res.resolved, offset,
                       cat({"'", r.url, "' (", where, ") names part ", shown_path(target.path()),
                            ", but this document is not in a multipart/related with it; MHT-7.1 "
                            "wants a document and the parts it references in one "
                            "multipart/related, and MHTML readers resolve only there, so the "
                            "reference reaches nothing for them"}));
            } else {
                report("MHT-4.1.3", finding_level::warning, "reference_crosses_related",
                       res.resolved, offset,
                       cat({"'", r.url, "' (", where, ") names part ", shown_path(target.path()),
                            ", which is in another multipart/related; MHT-4.1.3 wants links only "
                            "within one related structure (or to an enclosing one, RFC 2557), so "
                            "readers find no part"}));
            }
            continue;
        }
        if (cid) {
            report(
                "THTML-9.3.2", finding_level::warning, "cid_not_found", res.resolved, offset,
                cat({"'", r.url, "' (", where,
                     ") names no part: no Content-ID in the message is that id (THTML-9.3.2). The "
                     "reference is broken; a cid: URL cannot be fetched from anywhere else"}));
            continue;
        }
        const std::string_view scheme = uri::split_reference(res.resolved).scheme;
        const bool fictitious = uri::is_fictitious_scheme(scheme);
        if (r.kind == html::ref_kind::resource) {
            if (fictitious) {
                report("MHT-7.1", finding_level::warning, "resource_not_in_archive", res.resolved,
                       offset,
                       cat({"'", r.url, "' (", where, ") resolves to ", res.resolved,
                            ", which no part is labelled with; with no base URI it can never be "
                            "loaded, so the resource is missing from the page (MHT-7.1: the parts "
                            "a document uses should be enclosed with it)"}));
            } else if (is_fetched_scheme(scheme)) {
                report("MHT-7.1", finding_level::warning, "resource_not_in_archive", res.resolved,
                       offset,
                       cat({"'", r.url, "' (", where, ") resolves to ", res.resolved,
                            ", which no part is labelled with; a viewer that needs it must fetch "
                            "it from the network (revealing that the page is read) or do without "
                            "it (MHT-7.1: the parts a document uses should be enclosed with it)"}));
            }
        } else if (fictitious) {
            report("MHT-6.2", finding_level::note, "link_not_in_archive", res.resolved, offset,
                   cat({"'", r.url, "' (", where, ") resolves to ", res.resolved,
                        ", which no part is labelled with; with no base URI the link leads nowhere "
                        "(MHT-6.2 allows unresolvable links but discourages them)"}));
        }
    }
    if (found.empty()) return;
    std::vector<std::size_t> order(found.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return found[a].key < found[b].key; });
    std::vector<bool> keep(found.size(), false);
    for (std::size_t k = 0; k < order.size();) {
        std::size_t end = k + 1;
        while (end < order.size() && found[order[end]].key == found[order[k]].key) ++end;
        keep[order[k]] = true;  // the first in document order
        if (end - k > 1)
            found[order[k]].f.message +=
                cat({" (", std::to_string(end - k), " references in this part)"});
        k = end;
    }
    const std::string path = p.path();
    for (std::size_t k = 0; k < found.size(); ++k) {
        if (!keep[k]) continue;
        found[k].f.part_path = path;
        out_.push_back(std::move(found[k].f));
    }
}

void checker::map_aggregate_diagnostic(const diagnostic& d) {
    auto error = finding_level::error, warning = finding_level::warning, note = finding_level::note;
    switch (d.code) {
        case diag_code::content_base_not_absolute:
            add("MHT-4.3.2", error, "content_base_not_absolute", d.part_path, d.offset,
                cat({d.message,
                     "; relative references in the part resolve against the next base outward"}));
            break;
        case diag_code::legacy_method_indicator:
            add("THTML-10.1", note, "legacy_method_indicator", d.part_path, d.offset,
                cat({d.message, " (E-32; RFC 2557 readers ignore Content-Base)"}));
            break;
        case diag_code::duplicate_content_id: {
            auto p = part_at(d.part_path);
            add("MHT-7.12", error, "duplicate_content_id", d.part_path,
                p ? field_offset(*p, "Content-ID") : d.offset,
                cat({d.message,
                     " (MHT-7.12: each body part of a multipart/related has its own Content-ID)"}));
            break;
        }
        case diag_code::duplicate_content_location: {
            auto p = part_at(d.part_path);
            add("MHT-7.13", error, "duplicate_content_location", d.part_path,
                p ? field_offset(*p, "Content-Location") : d.offset,
                cat({d.message,
                     " (MHT-7.13: the Content-Locations of one multipart/related resolve to "
                     "different URIs)"}));
            break;
        }
        case diag_code::start_not_found:
            add("REL-3.2.1", error, "start_not_found", d.part_path, d.offset,
                cat({d.message, "; REL-3.2.1 requires start to be the Content-ID of the root"}));
            break;
        case diag_code::start_unbracketed:
            add("REL-3.2.2", note, "start_unbracketed", d.part_path, d.offset, d.message);
            break;
        case diag_code::start_inside_alternative:
            add("REL-3.2.2", warning, "start_inside_alternative", d.part_path, d.offset,
                cat({d.message,
                     "; a strict RFC 2387 reader finds no start part and takes the first (E-33)"}));
            break;
        case diag_code::related_type_missing:
            add("REL-3.1.1", error, "related_type_missing", d.part_path, d.offset,
                cat({d.message, "; the type parameter MUST be given (REL-3.1.1, MHT-7.6)"}));
            break;
        case diag_code::related_type_mismatch:
            add("MHT-7.6", error, "related_type_mismatch", d.part_path, d.offset,
                cat({d.message, "; type MUST be the start part's type (MHT-7.6, REL-3.1.1)"}));
            break;
        case diag_code::root_not_first_part: {
            auto p = part_at(d.part_path);
            if (p && p->content_type().param("type")) {
                add("MHT-7.7", error, "root_not_first_part", d.part_path, d.offset,
                    cat({d.message,
                         ". MHT-7.7: a start part that is not the first body part MUST be named by "
                         "start"}));
            } else {
                add("REL-3.2.3", note, "root_not_first_part", d.part_path, d.offset, d.message);
            }
            break;
        }
        case diag_code::no_html_alternative:
            add("MHT-7.4", note, "no_html_alternative", d.part_path, d.offset, d.message);
            break;
        case diag_code::related_without_parts:
            add("REL-3.2.1", error, "related_without_parts", d.part_path, d.offset,
                cat({d.message, " (RFC 2046 5.1.1 requires at least one body part; REL-3.2.1)"}));
            break;
        default:  // content_id_without_brackets: judged for every heading in check_content_id
            break;
    }
}

// A frame document as Blink saves it: Content-ID <frame-...@mhtml.blink>, an HTML part.
bool is_blink_frame(const mime::part_view& p) {
    auto id = p.content_id();
    return id && id->starts_with("frame-") && id->ends_with("@mhtml.blink") &&
           document_type_of(p) == document_type::html;
}

void checker::check_related_structures() {
    for (const related_structure& rs : agg_.related()) {
        // THTML-6.2: the root should be HTML (any type is read, MHT-1.1).
        if (rs.root.root && document_type_of(*rs.root.root) != document_type::html)
            add("THTML-6.2", finding_level::note, "root_not_html", rs.root.root->path(),
                rs.root.root->offset(),
                cat({"the root of the multipart/related ", shown_path(rs.part.path()), " is ",
                     rs.root.root->content_type().essence(),
                     ", not text/html (THTML-6.2 SHOULD for HTML aggregates); readers show it as "
                     "it is"}));
        // start-info ids name parts for the application (REL-3.3.2).
        for (const auto& named : rs.root.start_info_parts)
            if (named) referenced_[named->index()] = true;
        // The body part that holds the root (the root itself, or the multipart/alternative
        // it was chosen from).
        std::optional<mime::part_view> root_member = rs.root.root;
        while (root_member) {
            auto parent = root_member->parent();
            if (!parent || *parent == rs.part) break;
            root_member = parent;
        }
        for (const mime::part_view& m : rs.members) {
            if (referenced_[m.index()]) continue;
            if (rs.root.start && *rs.root.start == m) continue;
            if (root_member && *root_member == m) continue;
            // Blink saves the document of every frame, also of frames it writes without a src
            // (about:blank ones, frames a script made and filled): nothing can name them, and
            // Chromium's own view does not show them either. Not a finding.
            if (agg_.blink() && is_blink_frame(m)) continue;
            add("REL-1.1", finding_level::note, "part_not_referenced", m.path(), m.offset(),
                cat({m.content_type().essence(), " part ", shown_path(m.path()),
                     " of the multipart/related ", shown_path(rs.part.path()),
                     " is not the root and no reference in the message reaches it; a viewer that "
                     "shows the aggregate through its root (REL-1.1) never shows it"}));
        }
    }
}

}  // namespace

// message/external-body parts (external::read: RFC 2046 5.2.3, RFC 2017) and Content-MD5
// (RFC 1864) of every leaf, mapped to their rows.
void checker::check_external_and_md5(const mime::part_view& p) {
    std::vector<diagnostic> found;
    if (p.content_type().is("message", "external-body")) (void)external::read(doc_, p, &found);
    if (p.is_leaf() && !is_phantom(p)) (void)external::check_content_md5(doc_, p, &found);
    for (diagnostic& d : found) {
        std::string_view row = "URL-3.0.4";
        finding_level level = finding_level::warning;
        switch (d.code) {
            case diag_code::access_type_missing:
                row = "URL-3.0.1";
                level = finding_level::error;
                break;
            case diag_code::external_parameter_missing:
            case diag_code::url_parameter_missing:
                row = "URL-3.0.2";
                level = finding_level::error;
                break;
            case diag_code::url_not_retrievable:
                row = "URL-2.1";
                level = finding_level::error;
                break;
            case diag_code::url_parameter_unquoted:
                row = "URL-3.1.4";
                level = finding_level::error;
                break;
            case diag_code::url_parameter_continued:
                row = "URL-3.1.7";
                level = finding_level::note;
                break;
            case diag_code::url_word_too_long:
                row = "URL-3.1.1";
                level = finding_level::error;
                break;
            case diag_code::url_unescaped_char:
                row = "URL-3.1.2";
                level = finding_level::error;
                break;
            case diag_code::external_body_without_content_id:
                level = finding_level::note;
                break;
            case diag_code::external_phantom_body:
                row = "URL-3.0.3";
                break;
            case diag_code::content_md5_mismatch:
            case diag_code::content_md5_malformed:
                row = "URL-4.1";
                break;
            default:
                break;  // external_size_invalid, external_expiration_invalid: URL-3.0.4
        }
        out_.push_back(finding{std::string(row), level, std::string(code_name(d.code)),
                               std::move(d.part_path), d.offset, std::move(d.message)});
    }
}

std::string_view level_name(finding_level l) noexcept {
    switch (l) {
        case finding_level::error:
            return "error";
        case finding_level::warning:
            return "warning";
        case finding_level::note:
            return "note";
    }
    return "note";
}

finding_counts count_levels(const std::vector<finding>& findings) noexcept {
    finding_counts c;
    for (const finding& f : findings) {
        switch (f.level) {
            case finding_level::error:
                ++c.errors;
                break;
            case finding_level::warning:
                ++c.warnings;
                break;
            case finding_level::note:
                ++c.notes;
                break;
        }
    }
    return c;
}

std::vector<finding> check(const mime::document& doc, const check_options& options) {
    return checker(doc, options).run();
}

}  // namespace mhtml::archive
