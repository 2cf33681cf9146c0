#include "document_rewrite.hpp"

#include "text_cat.hpp"
#include "uri/text.hpp"

#include "mhtml/ascii.hpp"
#include "mhtml/html/charset.hpp"
#include "mhtml/html/policy.hpp"
#include "mhtml/html/rewrite.hpp"
#include "mhtml/uri/reference.hpp"

#include <algorithm>
#include <deque>
#include <unordered_set>

namespace mhtml::view::detail {

namespace {

using mhtml::detail::cat;

// True when a browser would fetch `uri` from somewhere (http, https, ftp, file, or a
// scheme-relative reference).
bool is_fetched(std::string_view uri) noexcept {
    if (uri.starts_with("//")) return true;
    for (std::string_view s : {"http:", "https:", "ftp:", "file:"})
        if (ascii::istarts_with(uri, s)) return true;
    return false;
}

// An <object data> or <embed src> naming a part that only a plugin shows.
bool needs_plugin(const html::reference& r, const mime::part_view& target) {
    if (!((r.element == "object" && r.attribute == "data") ||
          (r.element == "embed" && r.attribute == "src")))
        return false;
    const auto& ct = target.content_type();
    if (ct.type == "image" || ct.type == "text" || ct.type == "audio" || ct.type == "video")
        return false;
    return !(ct.is("application", "xhtml+xml") || ct.is("application", "xml"));
}

}  // namespace

int select_structure(const archive::aggregate& agg, const std::optional<std::string>& part,
                     std::string& error) {
    const auto& all = agg.related();
    if (!part) return all.empty() ? -1 : 0;
    std::string path = *part == "." ? std::string() : *part;
    auto p = agg.document().find(path);
    if (!p) {
        error = cat("no part ", *part, " in this message");
        return -1;
    }
    // The innermost related structure that is, or holds, the part.
    for (std::optional<mime::part_view> q = p; q; q = q->parent()) {
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].part == *q) return static_cast<int>(i);
    }
    error = cat("part ", *part, " is not in a multipart/related");
    return -1;
}

mime::part_view start_part(const archive::aggregate& agg, int rs) {
    if (rs >= 0) {
        const auto& s = agg.related()[static_cast<std::size_t>(rs)];
        if (s.root.root) {
            if (auto leaf = agg.shown_leaf(*s.root.root)) return *leaf;
        }
        return s.part;
    }
    mime::part_view root = agg.document().root();
    return agg.shown_leaf(root).value_or(root);
}

std::vector<mime::part_view> parts_to_write(const archive::aggregate& agg, int rs,
                                            const mime::part_view& start) {
    std::vector<mime::part_view> out;
    std::unordered_set<std::uint32_t> seen;
    auto add = [&](const mime::part_view& p) {
        if (p.is_leaf() && seen.insert(p.index()).second) out.push_back(p);
    };
    add(start);
    const std::size_t sorted_from = out.size();  // the start stays first
    if (rs >= 0) {
        const mime::part_view top = agg.related()[static_cast<std::size_t>(rs)].part;
        std::deque<mime::part_view> walk = {top};
        while (!walk.empty()) {
            mime::part_view p = walk.front();
            walk.pop_front();
            add(p);
            if (p.kind() == mime::entity_kind::multipart)
                for (const auto& k : p.children()) walk.push_back(k);
        }
        // Document order (the breadth-first walk above is not), the start first.
        std::sort(out.begin() + static_cast<std::ptrdiff_t>(sorted_from), out.end(),
                  [](const mime::part_view& a, const mime::part_view& b) {
                      return a.index() < b.index();
                  });
    }
    // Whatever the documents reach, transitively.
    for (std::size_t i = 0; i < out.size(); ++i) {
        const mime::part_view p = out[i];
        if (archive::document_type_of(p) == archive::document_type::none) continue;
        for (const auto& r : agg.references(p).refs) {
            if (r.kind == html::ref_kind::base) continue;
            auto res = agg.resolve(p, r);
            if (!res.target || res.from_store) continue;
            if (auto leaf = agg.shown_leaf(*res.target)) add(*leaf);
        }
    }
    return out;
}

std::string rewrite_references(const archive::aggregate& agg, const mime::part_view& p,
                               const archive::document_text& d, const local_url& local,
                               const rewrite_options& options, rewrite_counts& counts) {
    std::string out;
    out.reserve(d.text.size());
    rewrite_references_to(agg, p, d, local, options, counts,
                          [&](std::string_view piece) { out += piece; });
    return out;
}

namespace {

// The markup edits of a document written with `options`, merged with `insertions`.
std::vector<html::edit> edits_for(std::string_view text, const rewrite_options& options,
                                  rewrite_counts& counts, std::span<const html::edit> insertions) {
    std::vector<html::edit> edits;
    if (options.html_syntax) {
        html::markup_edits found = html::find_markup_edits(
            text, {.shadow_roots = true, .disable_refresh = options.disable_refresh});
        counts.shadow_roots += found.shadow_roots;
        counts.refreshes_disabled += found.refreshes;
        edits = std::move(found.edits);
    }
    if (!insertions.empty()) {
        edits.insert(edits.end(), insertions.begin(), insertions.end());
        // An insertion goes before an edit at the same offset (stable: the rest keep order).
        std::stable_sort(edits.begin(), edits.end(), [](const html::edit& a, const html::edit& b) {
            return a.offset < b.offset || (a.offset == b.offset && a.length == 0 && b.length != 0);
        });
    }
    return edits;
}

}  // namespace

std::string apply_markup_edits(std::string_view text, const rewrite_options& options,
                               rewrite_counts& counts) {
    return html::apply_edits(text, edits_for(text, options, counts, {}));
}

void rewrite_references_to(const archive::aggregate& agg, const mime::part_view& p,
                           const archive::document_text& d, const local_url& local,
                           const rewrite_options& options, rewrite_counts& counts,
                           const std::function<void(std::string_view)>& sink,
                           std::span<const html::edit> insertions) {
    const bool offline = options.offline;
    const std::vector<html::edit> edits = edits_for(d.text, options, counts, insertions);
    html::rewrite_to(
        d.text, d.scan.refs,
        [&](const html::reference& r) -> std::optional<std::string> {
            if (r.kind == html::ref_kind::base) return std::string();
            if (uri::is_same_document(r.url)) return std::nullopt;
            archive::resolution res = agg.resolve(p, r);
            if (res.same_document) return std::nullopt;
            if (res.target && res.from_store && options.store_parts &&
                r.kind == html::ref_kind::resource && res.target->is_leaf() &&
                archive::document_type_of(*res.target) == archive::document_type::none) {
                if (options.block_plugins && needs_plugin(r, *res.target)) {
                    ++counts.plugins_blocked;
                    return std::string(blocked_object_url);
                }
                if (auto url = local(*res.target, r)) {
                    if (const std::size_t hash = r.url.find('#'); hash != std::string::npos)
                        *url += r.url.substr(hash);
                    ++counts.to_parts;
                    ++counts.from_store;
                    return url;
                }
            }
            if (res.target && res.from_store && options.other_message) {
                if (auto url = options.other_message(*res.target, r)) {
                    if (const std::size_t hash = r.url.find('#'); hash != std::string::npos)
                        *url += r.url.substr(hash);
                    ++counts.to_parts;
                    ++counts.from_store;
                    return url;
                }
            }
            if (res.target && !res.from_store) {
                if (auto leaf = agg.shown_leaf(*res.target)) {
                    if (options.block_plugins && needs_plugin(r, *leaf)) {
                        // A scheme no policy allows: the load fails and the fallback shows
                        // (a data: URL would load as an empty document instead).
                        ++counts.plugins_blocked;
                        return std::string(blocked_object_url);
                    }
                    if (auto url = local(*leaf, r)) {
                        ++counts.to_parts;
                        std::size_t hash = r.url.find('#');
                        if (hash != std::string::npos) *url += r.url.substr(hash);
                        return url;
                    }
                }
            }
            const bool absolute = uri::is_absolute(r.url);
            const bool fetched = is_fetched(res.resolved);
            const bool fictitious =
                uri::is_fictitious_scheme(uri::split_reference(res.resolved).scheme);
            if (options.unresolved && (fetched || !absolute || ascii::istarts_with(r.url, "cid:") ||
                                       ascii::istarts_with(r.url, "mid:")))
                if (auto u = options.unresolved(res.resolved)) return u;
            if (offline && r.kind == html::ref_kind::resource && (fetched || !absolute)) {
                ++counts.external_removed;
                return std::string("data:,");
            }
            if (fetched) ++counts.external_left;
            if (!absolute && !fictitious && uri::is_absolute(res.resolved)) return res.resolved;
            return std::nullopt;
        },
        edits, sink);
}

std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string content_security_policy(parts_scheme where, bool offline, bool allow_scripts) {
    if (allow_scripts && !offline) return {};
    const std::string_view own = where == parts_scheme::data ? "data:" : "file: data:";
    std::string p;
    if (offline) {
        p = cat("default-src 'none'; img-src ", own, "; style-src ", own,
                " 'unsafe-inline'; font-src ", own, "; frame-src ", own, "; media-src ", own, "; ");
    }
    p += allow_scripts ? cat("script-src ", own, " 'unsafe-inline' 'unsafe-eval'")
                       : std::string("script-src 'none'");
    p += cat("; object-src ", own);
    return p;
}

void add_declarations(std::string& text, bool html_syntax, std::string_view charset_meta,
                      std::string_view policy) {
    if (html_syntax) {
        std::string declarations(charset_meta);
        if (!policy.empty()) declarations += html::policy_meta(policy, false);
        if (!declarations.empty()) text = html::with_html_declarations(text, declarations);
    } else if (!policy.empty()) {
        text = html::with_xml_declarations(text, html::policy_meta(policy, true));
    }
}

std::string charset_declaration(std::string_view html, std::string_view charset, bool transcoded) {
    if (transcoded) return "<meta charset=\"utf-8\">";
    if (charset.empty()) return {};
    if (html::detect_charset({}, html).name == charset) return {};
    std::string out = "<meta charset=\"";
    out += charset;
    out += "\">";
    return out;
}

std::string shadow_root_message(std::size_t n) {
    return cat(std::to_string(n),
               n == 1 ? " shadow root Blink saved as <template shadowmode> was"
                      : " shadow roots Blink saved as <template shadowmode> were",
               " made a declarative shadow root (shadowrootmode), which every browser attaches; "
               "only Chromium's MHTML loader reads shadowmode");
}

bool is_text_html(const mime::part_view& p) noexcept {
    return p.is_leaf() && p.content_type().is("text", "html");
}

}  // namespace mhtml::view::detail
