#include "mhtml/view/inline.hpp"

#include "document_rewrite.hpp"
#include "output_files.hpp"
#include "text_cat.hpp"

#include "mhtml/mime/base64.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace mhtml::view {

namespace {

using mhtml::detail::cat;

constexpr std::size_t max_nesting = 32;

// The Content-Security-Policy of the page and of every frame.
std::string policy(const inline_options& o) {
    std::string p;
    if (o.offline) {
        p = "default-src 'none'; img-src data:; style-src data: 'unsafe-inline'; font-src data:; "
            "frame-src data:; media-src data:";
        p += o.allow_scripts ? "; script-src data: 'unsafe-inline' 'unsafe-eval'"
                             : "; script-src 'none'; object-src 'none'";
    } else if (!o.allow_scripts) {
        p = "script-src 'none'; object-src 'none'";
    }
    return p;
}

std::string csp_meta(const std::string& policy) {
    if (policy.empty()) return {};
    return cat("<meta http-equiv=\"Content-Security-Policy\" content=\"", policy, "\">");
}

std::string html_escaped(std::string_view s) {
    std::string out;
    for (char c : s) {
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
            default:
                out += c;
        }
    }
    return out;
}

class inliner {
public:
    inliner(const archive::aggregate& agg, const inline_options& o, inline_report& report)
        : agg_(agg), options_(o), report_(report), csp_(csp_meta(policy(o))) {}

    // The page itself, streamed to `sink`.
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
        std::size_t at = detail::is_text_html(root) ? detail::head_insertion_point(d.text) : 0;
        if (!d.scan.refs.empty()) at = std::min(at, d.scan.refs.front().offset);
        std::string declarations;
        if (detail::is_text_html(root)) {
            if (!report_.charset.empty())
                declarations = cat("<meta charset=\"", report_.charset, "\">");
            declarations += csp_;
        }
        sink(std::string_view(d.text).substr(0, at));
        sink(declarations);
        // The rest, with reference offsets made relative to it.
        archive::document_text tail;
        tail.type = d.type;
        tail.charset = d.charset;
        tail.transcoded = d.transcoded;
        tail.text = d.text.substr(at);
        tail.scan.refs = std::move(d.scan.refs);
        for (auto& r : tail.scan.refs) r.offset -= at;
        detail::rewrite_counts counts;
        detail::rewrite_references_to(agg_, root, tail, local(d.charset), options_.offline, counts,
                                      sink);
        add(counts);
    }

private:
    detail::local_url local(const std::string& charset) {
        return [this, charset](const mime::part_view& target,
                               const html::reference& r) -> std::optional<std::string> {
            if (r.kind != html::ref_kind::resource) return std::nullopt;
            return data_uri(target, charset);
        };
    }

    void add(const detail::rewrite_counts& c) {
        report_.references_inlined += c.to_parts;
        report_.external_left += c.external_left;
        report_.external_removed += c.external_removed;
    }

    void note(const mime::part_view& p, std::string code, std::string message) {
        report_.notices.push_back({p.path(), std::move(code), std::move(message)});
    }

    // A part as a data: URI; `referrer_charset` is the charset of the document naming it (a
    // style sheet without its own is read in it).
    std::string data_uri(const mime::part_view& target, const std::string& referrer_charset) {
        const archive::document_type type = archive::document_type_of(target);
        if (std::find(stack_.begin(), stack_.end(), target.index()) != stack_.end()) {
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
        if (inlined_.insert(target.index()).second) ++report_.parts_inlined;
        if (type == archive::document_type::none) {
            std::string body;
            target.decode_to(body);
            std::string essence(target.content_type().essence());
            if (essence.empty() || essence.find_first_of(" \t\";,") != std::string::npos)
                essence = "application/octet-stream";
            return cat("data:", essence, ";base64,", mime::base64_encode(body, 0));
        }
        auto cached = documents_.find(target.index());
        if (cached != documents_.end()) return cached->second;
        stack_.push_back(target.index());
        archive::document_text d = agg_.read_document(target);
        std::string charset = d.transcoded ? std::string("UTF-8") : d.charset;
        if (type == archive::document_type::css && charset.empty()) charset = referrer_charset;
        detail::rewrite_counts counts;
        std::string text =
            detail::rewrite_references(agg_, target, d, local(charset), options_.offline, counts);
        add(counts);
        if (detail::is_text_html(target) && !csp_.empty())
            text.insert(detail::head_insertion_point(text), csp_);
        stack_.pop_back();
        std::string_view mime_type = type == archive::document_type::css   ? "text/css"
                                     : type == archive::document_type::svg ? "image/svg+xml"
                                     : detail::is_text_html(target)        ? "text/html"
                                                                    : "application/xhtml+xml";
        std::string uri = cat("data:", mime_type);
        if (!charset.empty() && type != archive::document_type::svg)
            uri += cat(";charset=", charset);
        uri += ";base64,";
        uri += mime::base64_encode(text, 0);
        return documents_.emplace(target.index(), std::move(uri)).first->second;
    }

    // A root that is not HTML (Chromium saves image documents and text files): a page showing
    // it as a browser shows such a document (an image centred on a dark background, text in
    // a wrapping <pre>).
    void wrap_non_html(const mime::part_view& root,
                       const std::function<void(std::string_view)>& sink) {
        report_.charset = "UTF-8";
        const auto& ct = root.content_type();
        if (ct.type == "image") {
            sink(
                cat("<!DOCTYPE html><html style=\"height:100%\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"viewport\" content=\"width=device-width, minimum-scale=0.1\">",
                    csp_,
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
        sink(cat("<!DOCTYPE html><html><head><meta charset=\"utf-8\">", csp_,
                 "</head><body><pre style=\"word-wrap:break-word;white-space:pre-wrap\">"));
        sink(html_escaped(body));
        sink("</pre></body></html>\n");
        note(root, "not_html",
             cat("the root is ", ct.essence(), ", not HTML; it is shown as text"));
    }

    const archive::aggregate& agg_;
    const inline_options& options_;
    inline_report& report_;
    const std::string csp_;
    std::vector<std::uint32_t> stack_;
    std::unordered_set<std::uint32_t> inlined_;
    std::unordered_map<std::uint32_t, std::string> documents_;  // data: URIs of documents
};

}  // namespace

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
    inliner in(agg, options, report);
    in.page(root, [&](std::string_view piece) {
        sink(piece);
        report.size += piece.size();
    });
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
