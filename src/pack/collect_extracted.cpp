// pack::collect_extracted: a folder written by `mhtml extract` (view/extract.hpp) packed back.

#include "../html/entities.hpp"  // detail::append_utf8
#include "collect_support.hpp"

#include "mhtml/ascii.hpp"
#include "mhtml/detail/keyed_hash.hpp"
#include "mhtml/html/charset.hpp"
#include "mhtml/html/policy.hpp"
#include "mhtml/html/rewrite.hpp"
#include "mhtml/pack/collect.hpp"
#include "mhtml/pack/content_id.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/reference.hpp"

#include <algorithm>

namespace mhtml::pack {

namespace fs = std::filesystem;

namespace {

// A small JSON reader (RFC 8259) for the manifest: objects, arrays, strings, numbers as
// text, true/false/null. A `\u00XX` escape above 0x7F gives the octet XX back: extract's
// writer (json::append_string) escapes only the octets of ill-formed UTF-8 that way.
struct json_value {
    enum class kind { null, boolean, number, string, array, object } k = kind::null;
    bool b = false;
    std::string s;  // string, or number text
    std::vector<json_value> items;
    // Not std::pair<std::string, json_value>: a pair needs its types complete where the
    // vector is instantiated (clang refuses it, with libstdc++ too), a member struct does not.
    struct member;
    std::vector<member> members;
    const json_value* get(std::string_view name) const;
};

struct json_value::member {
    std::string name;
    json_value value;
};

const json_value* json_value::get(std::string_view name) const {
    for (const auto& m : members)
        if (m.name == name) return &m.value;
    return nullptr;
}

class json_reader {
public:
    explicit json_reader(std::string_view in) : in_(in) {}
    bool parse(json_value& v) {
        if (!value(v, 0)) return false;
        space();
        return i_ == in_.size();
    }

private:
    std::string_view in_;
    std::size_t i_ = 0;
    void space() {
        while (i_ < in_.size() &&
               (in_[i_] == ' ' || in_[i_] == '\n' || in_[i_] == '\r' || in_[i_] == '\t'))
            ++i_;
    }
    bool literal(std::string_view w) {
        if (in_.substr(i_, w.size()) != w) return false;
        i_ += w.size();
        return true;
    }
    bool hex4(unsigned& cp) {
        if (i_ + 4 > in_.size()) return false;
        cp = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = in_[i_++];
            cp <<= 4;
            if (c >= '0' && c <= '9')
                cp |= unsigned(c - '0');
            else if (c >= 'a' && c <= 'f')
                cp |= unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                cp |= unsigned(c - 'A' + 10);
            else
                return false;
        }
        return true;
    }
    bool string(std::string& out) {
        if (i_ >= in_.size() || in_[i_] != '"') return false;
        ++i_;
        while (i_ < in_.size()) {
            const char c = in_[i_++];
            if (c == '"') return true;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i_ >= in_.size()) return false;
            const char e = in_[i_++];
            switch (e) {
                case '"':
                    out += '"';
                    break;
                case '\\':
                    out += '\\';
                    break;
                case '/':
                    out += '/';
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'u': {
                    unsigned cp = 0;
                    if (!hex4(cp)) return false;
                    if (cp >= 0x80 && cp <= 0xFF) {
                        out += static_cast<char>(cp);  // an ill-formed octet (see above)
                    } else if (cp >= 0xD800 && cp <= 0xDBFF && literal("\\u")) {
                        unsigned lo = 0;
                        if (!hex4(lo)) return false;
                        html::detail::append_utf8(out,
                                                  0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
                    } else {
                        html::detail::append_utf8(out, cp);
                    }
                    break;
                }
                default:
                    return false;
            }
        }
        return false;
    }
    bool value(json_value& v, int depth) {
        if (depth > 16) return false;
        space();
        if (i_ >= in_.size()) return false;
        const char c = in_[i_];
        if (c == '{') {
            ++i_;
            v.k = json_value::kind::object;
            space();
            if (i_ < in_.size() && in_[i_] == '}') return ++i_, true;
            while (true) {
                space();
                std::string name;
                if (!string(name)) return false;
                space();
                if (!literal(":")) return false;
                json_value m;
                if (!value(m, depth + 1)) return false;
                v.members.push_back({std::move(name), std::move(m)});
                space();
                if (literal(",")) continue;
                return literal("}");
            }
        }
        if (c == '[') {
            ++i_;
            v.k = json_value::kind::array;
            space();
            if (i_ < in_.size() && in_[i_] == ']') return ++i_, true;
            while (true) {
                json_value m;
                if (!value(m, depth + 1)) return false;
                v.items.push_back(std::move(m));
                space();
                if (literal(",")) continue;
                return literal("]");
            }
        }
        if (c == '"') {
            v.k = json_value::kind::string;
            return string(v.s);
        }
        if (literal("true")) return v.k = json_value::kind::boolean, v.b = true, true;
        if (literal("false")) return v.k = json_value::kind::boolean, true;
        if (literal("null")) return v.k = json_value::kind::null, true;
        v.k = json_value::kind::number;
        while (i_ < in_.size() &&
               std::string_view("-+.eE0123456789").find(in_[i_]) != std::string_view::npos)
            v.s += in_[i_++];
        return !v.s.empty();
    }
};

struct manifest_file {
    std::string part, file, content_type;
    std::optional<std::string> content_id, content_location;
    bool root = false;
};

std::optional<std::string> optional_string(const json_value* v) {
    if (v && v->k == json_value::kind::string) return v->s;
    return std::nullopt;
}

bool read_manifest(std::string_view text, std::vector<manifest_file>& files, std::string& error) {
    json_value top;
    if (!json_reader(text).parse(top) || top.k != json_value::kind::object) {
        error = "manifest.json is not JSON";
        return false;
    }
    const auto root = optional_string(top.get("root"));
    const json_value* list = top.get("files");
    if (!root || !list || list->k != json_value::kind::array) {
        error = "manifest.json has no \"root\" and \"files\" (not one mhtml extract wrote)";
        return false;
    }
    for (const json_value& f : list->items) {
        manifest_file m;
        auto file = optional_string(f.get("file"));
        auto type = optional_string(f.get("content_type"));
        if (!file || !type) {
            error = "a manifest entry without \"file\" or \"content_type\"";
            return false;
        }
        m.file = *file;
        m.content_type = *type;
        m.part = optional_string(f.get("part")).value_or("");
        m.content_id = optional_string(f.get("content_id"));
        m.content_location = optional_string(f.get("content_location"));
        m.root = m.file == *root;
        files.push_back(std::move(m));
    }
    return true;
}

// The Content-Security-Policy values view/extract writes (view/document_rewrite.cpp,
// content_security_policy() with the file: scheme): plain, offline, offline with scripts.
std::vector<std::string> extract_policies() {
    const std::string own = "file: data:";
    const std::string offline = "default-src 'none'; img-src " + own + "; style-src " + own +
                                " 'unsafe-inline'; font-src " + own + "; frame-src " + own +
                                "; media-src " + own + "; ";
    return {"script-src 'none'; object-src " + own,
            offline + "script-src 'none'; object-src " + own,
            offline + "script-src " + own + " 'unsafe-inline' 'unsafe-eval'; object-src " + own};
}

// Removes the declarations extract added to a document; returns the charset its
// `<meta charset>` declared when extract added one.
std::optional<std::string> remove_declarations(std::string& text, bool xml) {
    std::optional<std::string> charset;
    for (const std::string& policy : extract_policies()) {
        const std::string meta = html::policy_meta(policy, xml);
        const std::size_t at = text.find(meta);
        if (at == std::string::npos) continue;
        text.erase(at, meta.size());
        if (!xml) {
            // `<meta charset="X">` right before it came with it (charset_declaration()).
            const std::size_t open = text.rfind("<meta charset=\"", at);
            if (open != std::string::npos && at >= 2 && text.compare(at - 2, 2, "\">") == 0) {
                const std::string_view name =
                    std::string_view(text).substr(open + 15, at - 2 - (open + 15));
                if (name.find_first_of("<>\" ") == std::string_view::npos) {
                    charset = std::string(name);
                    text.erase(open, at - open);
                }
            }
        }
        break;
    }
    return charset;
}

constexpr std::string_view folder_base = "thismessage:/%00extract/";

}  // namespace

collection collect_extracted(const fs::path& dir, const collect_options& options) {
    collection out;
    out.from_extract = true;
    std::string error;
    auto manifest_text = detail::read_file(dir / "manifest.json", error);
    std::vector<manifest_file> files;
    if (!manifest_text) {
        out.error_code = "io_error";
        out.error = error;
        return out;
    }
    if (!read_manifest(*manifest_text, files, error)) {
        out.error_code = "bad_manifest";
        out.error = error;
        return out;
    }
    std::error_code ec;
    const fs::path root = fs::canonical(dir, ec);
    std::string root_generic = root.generic_string();
    if (!root_generic.ends_with('/')) root_generic += '/';
    // Root first, then the manifest's order.
    std::stable_partition(files.begin(), files.end(),
                          [](const manifest_file& f) { return f.root; });
    if (files.empty() || !files[0].root) {
        out.error_code = "bad_manifest";
        out.error = "manifest.json names no root file";
        return out;
    }
    if (files.size() > options.limits.max_resources) {
        out.error_code = "io_error";
        out.error = "more files than max_resources";
        return out;
    }
    mhtml::detail::keyed_string_map<std::size_t> by_file;
    for (std::size_t i = 0; i < files.size(); ++i) by_file.emplace(files[i].file, i);
    // A part without a label gets a Content-ID so that references can name it.
    std::vector<std::string> ids(files.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (files[i].content_id) {
            ids[i] = uri::id_key(*files[i].content_id);
        } else if (files[i].content_location && uri::is_cid_url(*files[i].content_location)) {
            // Blink labels its style sheets `Content-Location: cid:...`, which only readers
            // that know Blink match; the same id as Content-ID makes the cid: URL standard.
            if (auto id = uri::cid_to_content_id(*files[i].content_location))
                ids[i] = uri::id_key(id.value);
        }
        if (ids[i].empty() && (!files[i].content_location || options.method == method::cid))
            ids[i] = make_content_id();
    }
    // A label several parts share (Blink saves each frame of one URL as its own part, named
    // by a Content-ID) cannot name one of them: such parts are named by cid:.
    mhtml::detail::keyed_string_map<std::size_t> label_uses;
    for (const manifest_file& f : files)
        if (f.content_location) ++label_uses[*f.content_location];
    auto target_of = [&](std::size_t i, std::string_view fragment) {
        const manifest_file& t = files[i];
        const bool shared = t.content_location && label_uses[*t.content_location] > 1;
        if (options.method != method::cid && t.content_location && !(shared && !ids[i].empty())) {
            // A label with a fragment (Blink keeps one part per fragment) is used as it is.
            if (t.content_location->find('#') != std::string::npos) return *t.content_location;
            return *t.content_location + std::string(fragment);
        }
        return "cid:" + uri::url_encode_id(ids[i]) + std::string(fragment);
    };
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const manifest_file& m = files[i];
        const fs::path p = root / fs::path(m.file);
        const fs::path canon = fs::canonical(p, ec);
        if (ec || !canon.generic_string().starts_with(root_generic) || m.file.empty() ||
            fs::path(m.file).is_absolute() || !fs::is_regular_file(canon, ec)) {
            out.diagnostics.push_back(detail::make_diag(
                severity::error, diag_code::resource_outside_root, m.file, 0,
                "manifest entry '" + m.file + "' is not a file inside the folder; not packed"));
            out.error_code = "bad_manifest";
            out.error = "manifest entry '" + m.file + "' is not a file inside the folder";
            out.resources.clear();
            return out;
        }
        const std::uint64_t size = fs::file_size(canon, ec);
        total += size;
        if (size > options.limits.max_resource_size || total > options.limits.max_total_bytes) {
            out.error_code = "io_error";
            out.error = m.file + ": the files pass max_resource_size or max_total_bytes";
            out.resources.clear();
            return out;
        }
        resource r;
        r.origin = m.file;
        r.label = m.content_location.value_or("");
        r.content_id = ids[i];
        r.content_type = m.content_type;
        r.in_memory = false;
        r.file = canon;
        const std::string_view type = m.content_type;
        const bool is_html = type == "text/html" || type == "application/xhtml+xml";
        const bool xml = type == "application/xhtml+xml" || type == "image/svg+xml";
        const bool is_doc = is_html || type == "image/svg+xml" || type == "text/css";
        if (type == "text/xml" || type == "application/xml") {
            // Extract gives a generic XML document the policy too (it is shown as a page).
            auto text = detail::read_file(canon, error);
            if (text) {
                std::string doc = std::move(*text);
                const std::size_t before = doc.size();
                remove_declarations(doc, true);
                if (doc.size() != before) {
                    r.in_memory = true;
                    r.file.clear();
                    r.data = std::move(doc);
                }
            }
        }
        if (is_doc) {
            auto text = detail::read_file(canon, error);
            if (!text) {
                out.error_code = "io_error";
                out.error = error;
                out.resources.clear();
                return out;
            }
            ++out.counts.documents;
            std::string doc = std::move(*text);
            const std::size_t original_size = doc.size();
            std::optional<std::string> charset;
            if (type != "text/css") charset = remove_declarations(doc, xml);
            const bool declarations_removed = doc.size() != original_size;
            if (type == "text/html" && !charset) charset = html::detect_charset({}, doc).name;
            if (charset && type == "text/html")
                r.content_type = detail::with_charset(type, *charset);
            const html::scan_result scan = type == "text/css"
                                               ? html::scan_style_sheet(doc)
                                               : html::scan_html(doc, type == "image/svg+xml");
            const std::string self = std::string(folder_base) + detail::encode_path(m.file);
            std::size_t changed = 0;
            std::string rewritten = html::rewrite(
                doc, scan.refs, [&](const html::reference& ref) -> std::optional<std::string> {
                    reference_report rep;
                    rep.document = m.file;
                    rep.offset = ref.offset;
                    rep.raw = doc.substr(ref.offset, ref.length);
                    rep.url = ref.url;
                    rep.kind = ref.kind;
                    rep.element = ref.element;
                    rep.attribute = std::string(ref.attribute);
                    rep.outcome = ref_outcome::external;
                    std::optional<std::string> result;
                    if (uri::is_same_document(ref.url) || ref.kind == html::ref_kind::base) {
                        rep.outcome = ref_outcome::same_document;
                    } else if (auto resolved = uri::resolve(self, ref.url);
                               resolved && resolved->starts_with(folder_base)) {
                        const std::string_view whole = *resolved;
                        const std::string_view nofrag = uri::without_fragment(whole);
                        const std::string name =
                            detail::percent_decode(nofrag.substr(folder_base.size()));
                        if (auto it = by_file.find(name); it != by_file.end()) {
                            rep.outcome = ref_outcome::packed;
                            rep.resource = it->second;
                            result = target_of(it->second, whole.substr(nofrag.size()));
                            rep.rewritten = result;
                            ++out.counts.packed;
                            ++changed;
                        } else {
                            rep.outcome = ref_outcome::unresolved;
                            rep.reason = "missing";
                            ++out.counts.unresolved;
                        }
                    } else if (ascii::istarts_with(ref.url, "data:")) {
                        rep.outcome = ref_outcome::data;
                    } else {
                        ++out.counts.external;
                    }
                    out.references.push_back(std::move(rep));
                    return result;
                });
            out.counts.rewritten += changed;
            if (changed > 0 || declarations_removed) {
                r.in_memory = true;
                r.file.clear();
                r.data = std::move(rewritten);
                ++out.counts.rewritten_documents;
                out.diagnostics.push_back(detail::make_diag(
                    severity::note, diag_code::extract_not_restored, m.file, 0,
                    "restored from extract's copy: " + std::to_string(changed) +
                        " references turned back into labels and extract's declarations "
                        "removed; the original spelling of references, an emptied <base href> "
                        "or a transcoding are not undone (the manifest does not record them)"));
            }
        }
        out.counts.bytes += r.in_memory ? r.data.size() : size;
        out.resources.push_back(std::move(r));
    }
    out.counts.resources = out.resources.size();
    out.counts.references = out.references.size();
    return out;
}

}  // namespace mhtml::pack
