#include "mhtml/view/inline.hpp"

#include "document_rewrite.hpp"
#include "output_files.hpp"
#include "text_cat.hpp"

#include "mhtml/html/charset.hpp"
#include "mhtml/html/policy.hpp"
#include "mhtml/mime/base64.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace mhtml::view {

namespace {

using mhtml::detail::cat;

constexpr std::size_t max_nesting = 32;

// Thrown when the output would pass its budget; inline_page() turns it into an error.
struct budget_exceeded {};

// Data: URIs of non-document parts are kept for their next reference up to this much.
constexpr std::size_t leaf_cache_limit = 64u << 20;

class inliner {
public:
    inliner(const archive::aggregate& agg, const inline_options& o, inline_report& report,
            std::uint64_t budget)
        : agg_(agg),
          options_(o),
          report_(report),
          policy_(detail::content_security_policy(detail::parts_scheme::data, o.offline,
                                                  o.allow_scripts)),
          csp_(policy_.empty() ? std::string() : html::policy_meta(policy_, false)),
          budget_(budget) {}

    // The page itself, streamed to `sink`. The page is an .html file whatever its root is,
    // so its declarations are in HTML syntax.
    void page(const mime::part_view& root, const std::function<void(std::string_view)>& sink) {
        const archive::document_type type = archive::document_type_of(root);
        if (type == archive::document_type::none || type == archive::document_type::css) {
            wrap_non_html(root, sink);
            return;
        }
        stack_.push_back(root.index());  // a frame that is the page itself is a cycle
        archive::document_text d = agg_.read_document(root);
        report_.charset = d.transcoded ? "UTF-8" : d.charset;
        report_.transcoded = d.transcoded;
        std::size_t at = html::declaration_point(d.text);
        if (!d.scan.refs.empty()) at = std::min(at, d.scan.refs.front().offset);
        html::edit declarations{at, 0, {}};
        if (!report_.charset.empty())
            declarations.replacement = cat("<meta charset=\"", report_.charset, "\">");
        declarations.replacement += csp_;
        detail::rewrite_counts counts;
        detail::rewrite_references_to(agg_, root, d, local(d.charset), rewriting(true), counts,
                                      sink, {&declarations, 1});
        add(counts, root);
    }

private:
    detail::local_url local(const std::string& charset) {
        return [this, charset](const mime::part_view& target,
                               const html::reference& r) -> std::optional<std::string> {
            if (r.kind != html::ref_kind::resource) return std::nullopt;
            return data_uri(target, charset);
        };
    }

    detail::rewrite_options rewriting(bool html_syntax) const {
        return {options_.offline,
                !options_.allow_scripts,
                html_syntax,
                !options_.allow_scripts,
                {},
                /*store_parts=*/true,
                {}};
    }

    void add(const detail::rewrite_counts& c, const mime::part_view& p) {
        report_.references_inlined += c.to_parts;
        report_.external_left += c.external_left;
        report_.external_removed += c.external_removed;
        report_.plugins_blocked += c.plugins_blocked;
        report_.refreshes_disabled += c.refreshes_disabled;
        if (c.refreshes_disabled)
            note(p, "refresh_disabled", refresh_message(c.refreshes_disabled));
        report_.shadow_roots += c.shadow_roots;
        if (c.shadow_roots) note(p, "shadow_roots", detail::shadow_root_message(c.shadow_roots));
    }

    void note(const mime::part_view& p, std::string code, std::string message) {
        report_.notices.push_back({p.path(), std::move(code), std::move(message)});
    }

    static std::string refresh_message(std::size_t n) {
        return cat(std::to_string(n),
                   n == 1 ? " <meta http-equiv=refresh> was" : " <meta http-equiv=refresh> were",
                   " disabled (renamed data-equiv): Chromium's view of an archive follows none, "
                   "and a policy cannot stop one (--allow-scripts keeps them)");
    }

    // A string being built may not pass the budget either (nested frames multiply).
    void check_size(std::size_t n) const {
        if (n > budget_) throw budget_exceeded{};
    }

    // A part as a data: URI; `referrer_charset` is the charset of the document naming it (a
    // style sheet without its own is read in it). Each part is encoded once per output: a
    // document's URI is kept, and a leaf's while the kept leaves stay under leaf_cache_limit.
    std::string data_uri(const mime::part_view& target, const std::string& referrer_charset) {
        const archive::document_type type = archive::document_type_of(target);
        // A leaf of another message (the message store; never a document: store_parts).
        const mime::document* const owner = &target.doc();
        if (owner != &agg_.document()) {
            if (from_store_.insert({owner, target.index()}).second) {
                ++report_.parts_inlined;
                ++report_.parts_from_store;
            }
        } else if (std::find(stack_.begin(), stack_.end(), target.index()) != stack_.end()) {
            note(target, "cycle",
                 cat("part ", target.path(),
                     " contains itself (through frames or imports); the inner occurrence is left "
                     "empty"));
            return type == archive::document_type::html ? "about:blank" : "data:,";
        }
        if (stack_.size() >= max_nesting) {
            note(target, "too_deep",
                 cat("part ", target.path(), " is nested more than 32 documents deep; left empty"));
            return "data:,";
        }
        if (owner == &agg_.document() && inlined_.insert(target.index()).second)
            ++report_.parts_inlined;
        // A style sheet without a charset of its own is read in its referrer's: one URI per
        // such charset (review finding: the first referrer's charset served all of them).
        const uri_key key{
            owner, target.index(),
            type == archive::document_type::css && !target.content_type().param("charset")
                ? referrer_charset
                : std::string()};
        auto cached = uris_.find(key);
        if (cached != uris_.end()) return cached->second;
        if (type == archive::document_type::none) {
            std::string body;
            target.decode_to(body);
            check_size(body.size() / 3 * 4);
            std::string essence(target.content_type().essence());
            if (essence.empty() || essence.find_first_of(" \t\";,") != std::string::npos)
                essence = "application/octet-stream";
            std::string uri = cat("data:", essence, ";base64,", mime::base64_encode(body, 0));
            ++report_.encodings;
            if (leaf_cache_bytes_ + uri.size() > leaf_cache_limit) return uri;
            leaf_cache_bytes_ += uri.size();
            return uris_.emplace(key, std::move(uri)).first->second;
        }
        stack_.push_back(target.index());
        archive::document_text d = agg_.read_document(target);
        std::string charset = d.transcoded ? std::string("UTF-8") : d.charset;
        if (type == archive::document_type::css && charset.empty()) charset = referrer_charset;
        detail::rewrite_counts counts;
        std::string text;
        text.reserve(d.text.size());
        detail::rewrite_references_to(agg_, target, d, local(charset),
                                      rewriting(detail::is_text_html(target)), counts,
                                      [&](std::string_view piece) {
                                          check_size(text.size() + piece.size());
                                          text += piece;
                                      });
        add(counts, target);
        // An XML document is UTF-8 now (read_document); its declaration must say so too.
        if (type != archive::document_type::css && !detail::is_text_html(target) &&
            d.charset == "UTF-8")
            html::declare_xml_utf8(text);
        if (type != archive::document_type::css)
            detail::add_declarations(text, detail::is_text_html(target), {}, policy_);
        stack_.pop_back();
        std::string_view mime_type = type == archive::document_type::css   ? "text/css"
                                     : type == archive::document_type::svg ? "image/svg+xml"
                                     : detail::is_text_html(target)        ? "text/html"
                                                                    : "application/xhtml+xml";
        std::string uri = cat("data:", mime_type);
        if (!charset.empty() && type != archive::document_type::svg)
            uri += cat(";charset=", charset);
        uri += ";base64,";
        check_size(uri.size() + text.size() / 3 * 4);
        uri += mime::base64_encode(text, 0);
        ++report_.encodings;
        return uris_.emplace(key, std::move(uri)).first->second;
    }

    // A root that is not HTML (Chromium saves image documents and text files): a page showing
    // it as a browser shows such a document (an image centred on a dark background, text in
    // a wrapping <pre>).
    void wrap_non_html(const mime::part_view& root,
                       const std::function<void(std::string_view)>& sink) {
        report_.charset = "UTF-8";
        const auto& ct = root.content_type();
        if (ct.type == "image") {
            sink(cat("<!DOCTYPE html><meta charset=\"utf-8\">", csp_,
                     "<html style=\"height:100%\"><head>"
                     "<meta name=\"viewport\" content=\"width=device-width, minimum-scale=0.1\">"
                     "</head><body style=\"margin:0;height:100%;background-color:rgb(14,14,14);"
                     "display:flex;align-items:center;justify-content:center\"><img "
                     "style=\"display:block;user-select:none;max-width:100%;max-height:100%;"
                     "background-color:hsl(0,0%,90%)\" src=\""));
            sink(data_uri(root, {}));
            sink("\"></body></html>\n");
            ++report_.references_inlined;
            return;
        }
        std::string body;
        root.decode_to(body);
        sink(cat(
            "<!DOCTYPE html><meta charset=\"utf-8\">", csp_,
            "<html><head></head><body><pre style=\"word-wrap:break-word;white-space:pre-wrap\">"));
        sink(detail::html_escape(body));
        sink("</pre></body></html>\n");
        note(root, "not_html",
             cat("the root is ", ct.essence(), ", not HTML; it is shown as text"));
    }

    const archive::aggregate& agg_;
    const inline_options& options_;
    inline_report& report_;
    const std::string policy_;
    const std::string csp_;  // the policy's <meta> in HTML syntax
    const std::uint64_t budget_;
    std::vector<std::uint32_t> stack_;
    std::unordered_set<std::uint32_t> inlined_;
    // data: URIs made so far, by part and (style sheets without a charset) referrer charset
    std::set<std::pair<const mime::document*, std::uint32_t>> from_store_;
    // ... and by document: a leaf of another message (the store) has its own.
    using uri_key = std::tuple<const mime::document*, std::uint32_t, std::string>;
    std::map<uri_key, std::string> uris_;
    std::size_t leaf_cache_bytes_ = 0;
};

}  // namespace

std::uint64_t default_output_budget(std::uint64_t input_size) noexcept {
    return 10 * input_size + (64u << 20);
}

inline_report inline_page(const archive::aggregate& agg,
                          const std::function<void(std::string_view)>& sink,
                          const inline_options& options) {
    inline_report report;
    std::string error;
    const int rs = detail::select_structure(agg, options.part, error);
    if (!error.empty()) {
        report.error_code = "no_such_part";
        report.error = std::move(error);
        return report;
    }
    const mime::part_view root = detail::start_part(agg, rs);
    report.root = root.path();
    const std::uint64_t budget = options.max_output
                                     ? options.max_output
                                     : default_output_budget(agg.document().bytes().size());
    inliner in(agg, options, report, budget);
    try {
        in.page(root, [&](std::string_view piece) {
            if (report.size + piece.size() > budget) throw budget_exceeded{};
            sink(piece);
            report.size += piece.size();
        });
    } catch (const budget_exceeded&) {
        report.error_code = "output_too_large";
        report.error = cat("the page would be larger than ", std::to_string(budget),
                           " octets (frames or style sheets that repeat each other multiply; "
                           "the limit is --max-output, by default 10 times the archive plus "
                           "64 MiB); stopped after ",
                           std::to_string(report.size), " octets");
        return report;
    }
    if (report.transcoded)
        report.notices.push_back(
            {root.path(), "transcoded",
             "the page was transcoded to UTF-8 (its charset is not ASCII-based) and declared so"});
    return report;
}

inline_report inline_page(const archive::aggregate& agg, const std::filesystem::path& out,
                          const inline_options& options) {
    std::string error;
    {  // a bad --part is reported before anything is created
        (void)detail::select_structure(agg, options.part, error);
        if (!error.empty()) {
            inline_report report;
            report.error_code = "no_such_part";
            report.error = std::move(error);
            return report;
        }
    }
    detail::output_file file;
    if (!file.open(out, error)) {
        inline_report report;
        report.error_code = "io_error";
        report.error = std::move(error);
        return report;
    }
    inline_report report = inline_page(
        agg, [&](std::string_view piece) { file.write(piece); }, options);
    if (report.ok() && !file.commit(error)) {
        report.error_code = "io_error";
        report.error = std::move(error);
    }
    return report;
}

}  // namespace mhtml::view
