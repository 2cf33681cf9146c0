#include "mhtml/view/extract.hpp"

#include "document_rewrite.hpp"
#include "output_files.hpp"
#include "text_cat.hpp"

#include "mhtml/html/charset.hpp"
#include "mhtml/json.hpp"
#include "mhtml/mime/charset.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/header_value.hpp"
#include "mhtml/uri/reference.hpp"
#include "mhtml/view/paths.hpp"

#include <map>
#include <unordered_map>
#include <utility>

namespace mhtml::view {

namespace {

using mhtml::detail::cat;

std::string fallback_name(const mime::part_view& p) {
    std::string name = "part-";
    for (char c : p.path()) name += c == '.' ? '-' : c;
    return name;
}

bool is_xml(const mime::part_view& p) {
    const auto& ct = p.content_type();
    return p.is_leaf() && (ct.is("text", "xml") || ct.is("application", "xml"));
}

// THTML-10.1: `Content-Base: FILE:` (any case, quotes, colon optional) on the related's
// heading or on its root's marks the virtual file-name method.
bool uses_file_names(const archive::aggregate& agg, int rs) {
    if (rs < 0) return false;
    const auto& s = agg.related()[static_cast<std::size_t>(rs)];
    for (std::optional<mime::part_view> p : {std::optional(s.part), s.root.root}) {
        if (!p) continue;
        if (auto f = p->header("Content-Base")) {
            std::string v = uri::extract_header_uri(f->raw_value());
            if (uri::is_legacy_method_indicator(v) && (v[0] == 'f' || v[0] == 'F')) return true;
        }
    }
    return false;
}

std::string manifest_json(const extract_report& r) {
    std::string out = "{\n  \"root\": ";
    std::string root;
    for (const auto& f : r.files)
        if (f.root) root = f.file;
    out += json::quoted(root);
    out += ",\n  \"file_name_method\": ";
    out += r.file_name_method ? "true" : "false";
    out += ",\n  \"files\": [";
    bool first = true;
    for (const auto& f : r.files) {
        out += first ? "\n" : ",\n";
        first = false;
        out += cat("    {\"part\": ", json::quoted(f.part));
        out += cat(", \"file\": ", json::quoted(f.file));
        if (!f.message_id.empty()) out += cat(", \"message_id\": ", json::quoted(f.message_id));
        out += cat(", \"content_type\": ", json::quoted(f.content_type));
        out += ", \"content_id\": ";
        out += f.content_id ? json::quoted(*f.content_id) : "null";
        out += ", \"content_location\": ";
        out += f.content_location ? json::quoted(*f.content_location) : "null";
        out += cat(", \"size\": ", std::to_string(f.size));
        out += cat(", \"rewritten\": ", std::to_string(f.rewritten), "}");
    }
    out += "\n  ]\n}\n";
    return out;
}

}  // namespace

extract_report extract(const archive::aggregate& agg, const std::filesystem::path& dir,
                       const extract_options& options) {
    extract_report report;
    auto fail = [&](std::string code, std::string message) {
        report.error_code = std::move(code);
        report.error = std::move(message);
        return report;
    };
    std::string error;
    const int rs = detail::select_structure(agg, options.part, error);
    if (!error.empty()) return fail("no_such_part", error);
    const mime::part_view start = detail::start_part(agg, rs);
    const std::vector<mime::part_view> parts = detail::parts_to_write(agg, rs, start);
    report.file_name_method = uses_file_names(agg, rs);

    // Where each part goes.
    path_planner planner;
    planner.reserve("manifest.json");
    std::unordered_map<std::uint32_t, std::size_t> file_of;  // entity index -> report.files
    for (const mime::part_view& p : parts) {
        extracted_file f;
        f.part = p.path();
        f.content_type = std::string(p.content_type().essence());
        if (auto id = p.content_id()) f.content_id = std::string(*id);
        f.content_location = agg.info(p).location;
        f.root = p == start;
        std::string why;
        const std::string type(p.content_type().essence());
        auto raw_location = p.header("Content-Location");
        std::string label =
            raw_location ? uri::extract_header_uri(raw_location->raw_value()) : std::string();
        if (f.root && !options.keep_names) {
            // index.html for an HTML page; a root of another type (an image, a text file)
            // keeps a name its type fits, which a browser then shows as it would the archive.
            f.file = "index.html";
            if (!detail::is_text_html(p) || !planner.reserve(f.file))
                f.file = planner.add("", type, "index", &why);
        } else if (report.file_name_method && !label.empty() && !uri::is_absolute(label)) {
            f.file = planner.add_path(label, type, &why);
            if (f.file != label) {
                report.notices.push_back(
                    {f.part, "file_name_changed",
                     cat("the virtual file name '", label, "' is written as ", f.file,
                         why.empty() ? std::string(" (its extension did not fit its type)")
                                     : cat(" (", why, ")"),
                         "; references to the old name will not find it")});
                why.clear();
            }
        } else {
            f.file = planner.add(f.content_location.value_or(std::string()), type, fallback_name(p),
                                 &why);
        }
        if (!why.empty())
            report.notices.push_back({f.part, "renamed", cat("written as ", f.file, ": ", why)});
        file_of.emplace(p.index(), report.files.size());
        report.files.push_back(std::move(f));
    }

    detail::output_folder out;
    if (!out.open(dir, options.force, error)) return fail(out.error_code(), error);

    const std::string policy = detail::content_security_policy(
        detail::parts_scheme::file, options.offline, options.allow_scripts);
    // Leaves of other messages that the documents show (mid: URLs resolved through the message
    // store): named as they are met, written after this archive's parts.
    std::vector<std::pair<mime::part_view, extracted_file>> store_files;
    std::map<std::pair<const mime::document*, std::uint32_t>, std::size_t> store_file_of;
    const auto store_file = [&](const mime::part_view& target) -> const std::string& {
        const auto key = std::make_pair(&target.doc(), target.index());
        auto it = store_file_of.find(key);
        if (it == store_file_of.end()) {
            extracted_file f;
            f.part = target.path();
            if (const auto m = target.doc().root().header("Message-ID"))
                f.message_id = uri::id_key(m->raw_value());
            f.content_type = std::string(target.content_type().essence());
            if (auto id = target.content_id()) f.content_id = std::string(*id);
            std::string why;
            f.file = planner.add(std::string(), f.content_type, fallback_name(target), &why);
            it = store_file_of.emplace(key, store_files.size()).first;
            store_files.emplace_back(target, std::move(f));
        }
        return store_files[it->second].second.file;
    };
    std::size_t done = 0;
    for (const mime::part_view& p : parts) {
        extracted_file& f = report.files[file_of.at(p.index())];
        std::string content;
        const archive::document_type type = archive::document_type_of(p);
        if (type != archive::document_type::none) {
            archive::document_text d = agg.read_document(p);
            const bool html_syntax = detail::is_text_html(p);
            const detail::rewrite_options rewriting{options.offline,
                                                    !options.allow_scripts,
                                                    html_syntax,
                                                    !options.allow_scripts,
                                                    {},
                                                    /*store_parts=*/true,
                                                    {}};
            detail::rewrite_counts counts;
            if (report.file_name_method) {
                content = detail::apply_markup_edits(d.text, rewriting, counts);
            } else {
                const std::string& self = f.file;
                content = detail::rewrite_references(
                    agg, p, d,
                    [&](const mime::part_view& target,
                        const html::reference&) -> std::optional<std::string> {
                        if (&target.doc() != &agg.document())
                            return relative_url(self, store_file(target));
                        auto it = file_of.find(target.index());
                        if (it == file_of.end()) return std::nullopt;
                        return relative_url(self, report.files[it->second].file);
                    },
                    rewriting, counts);
                f.rewritten = counts.to_parts;
                report.references_rewritten += counts.to_parts;
                report.external_left += counts.external_left;
                report.external_removed += counts.external_removed;
                report.plugins_blocked += counts.plugins_blocked;
            }
            report.refreshes_disabled += counts.refreshes_disabled;
            if (counts.refreshes_disabled)
                report.notices.push_back(
                    {f.part, "refresh_disabled",
                     cat(std::to_string(counts.refreshes_disabled),
                         " <meta http-equiv=refresh> disabled (renamed data-equiv); "
                         "--allow-scripts keeps them")});
            report.shadow_roots += counts.shadow_roots;
            if (counts.shadow_roots)
                report.notices.push_back(
                    {f.part, "shadow_roots", detail::shadow_root_message(counts.shadow_roots)});
            // An XML document is UTF-8 now (read_document): its declaration must say so,
            // for a file has no Content-Type to outrank it.
            if (type != archive::document_type::css && !html_syntax && d.charset == "UTF-8")
                html::declare_xml_utf8(content);
            if (type != archive::document_type::css) {
                const std::string charset_meta =
                    html_syntax ? detail::charset_declaration(content, d.charset, d.transcoded)
                                : std::string();
                detail::add_declarations(content, html_syntax, charset_meta, policy);
            }
        } else {
            p.decode_to(content);
            // A generic XML document is shown as a page too, and runs the scripts of any
            // XHTML element in it: it gets the policy as XHTML does, after it is made UTF-8
            // as the browser would decode it (the policy goes where the browser's parser
            // sees the root, whatever the charset).
            if (is_xml(p)) {
                const html::detected_charset cs = html::detect_xml_charset(
                    p.content_type().param("charset").value_or(""), content);
                if (cs.name != "UTF-8" || cs.bom_length) {
                    if (auto utf8 =
                            mime::to_utf8(std::string_view(content).substr(cs.bom_length), cs.name))
                        content = std::move(*utf8);
                }
                html::declare_xml_utf8(content);
                detail::add_declarations(content, false, {}, policy);
            }
        }
        if (!out.write(f.file, content, error)) return fail("io_error", error);
        f.size = content.size();
        ++done;
        if (options.progress) options.progress(done, parts.size());
    }
    for (auto& [target, f] : store_files) {
        std::string content;
        target.decode_to(content);
        if (!out.write(f.file, content, error)) return fail("io_error", error);
        f.size = content.size();
        report.files.push_back(std::move(f));
        ++report.files_from_store;
    }
    if (!out.write("manifest.json", manifest_json(report), error)) return fail("io_error", error);
    if (!out.commit(error)) return fail("io_error", error);
    return report;
}

}  // namespace mhtml::view
