#include "mhtml/archive/root.hpp"

#include "text_cat.hpp"

#include "mhtml/ascii.hpp"
#include "mhtml/mime/content_type.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/mime/header.hpp"
#include "mhtml/uri/cid.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace mhtml::archive {

namespace {

using mime::part_view;

constexpr std::string_view white_space = " \t\r\n";

using mhtml::detail::cat;

std::string_view trimmed(std::string_view s) noexcept {
    std::size_t b = s.find_first_not_of(white_space);
    if (b == std::string_view::npos) return {};
    return s.substr(b, s.find_last_not_of(white_space) - b + 1);
}

// "type/subtype" of a media type as written in a parameter: trimmed, lower-case, anything
// from a ';' on dropped (REL-3.1.3: parameters are not compared).
std::string essence_of(std::string_view media_type) {
    return mime::to_lower(trimmed(media_type.substr(0, media_type.find(';'))));
}

bool has_essence(const part_view& p, std::string_view essence) {
    const mime::content_type& ct = p.content_type();
    std::size_t slash = essence.find('/');
    return slash != std::string_view::npos && ct.type == essence.substr(0, slash) &&
           ct.subtype == essence.substr(slash + 1);
}

bool is_alternative(const part_view& p) {
    return p.content_type().is("multipart", "alternative");
}

// A part offers `essence` (lower-case) when it has that type, is a multipart/related whose
// `type` is that type (a nested aggregate, REL-6.3.1), or is a multipart/alternative with an
// alternative that offers it.
bool offers(const part_view& p, std::string_view essence) {
    if (has_essence(p, essence)) return true;
    const mime::content_type& ct = p.content_type();
    if (!ct.is_multipart()) return false;
    if (ct.subtype == "related") {
        auto t = ct.param("type");
        return t && essence_of(*t) == essence;
    }
    if (ct.subtype != "alternative") return false;
    for (const part_view& c : p.children())
        if (offers(c, essence)) return true;
    return false;
}

// REL-3.2.3: a part a viewer can show as the page: one that offers a preferred type.
bool is_document(const part_view& p, const std::vector<std::string>& preferred) {
    return std::any_of(preferred.begin(), preferred.end(),
                       [&](const std::string& t) { return offers(p, t); });
}

// Offsets here are in the document's offset space (beyond the input for parts recovered
// from a decoded body, REL-2.2); report() turns them into input positions.
std::uint64_t offset_of(const part_view& p, const mime::header_field_view& f) {
    return p.doc().offset_of(f.raw().data());
}

// Where a field of `p` begins in the input, else where `p` does.
std::uint64_t field_offset(const part_view& p, std::string_view name) {
    if (auto f = p.header(name)) return offset_of(p, *f);
    return p.offset();
}

// The comparison key of a part's Content-ID ("" when it has none).
std::string id_of(const part_view& p) {
    if (auto f = p.header("Content-ID")) return uri::id_key(f->value());
    return {};
}

std::string essence_text(const part_view& p) {
    return p.content_type().essence();
}

// REL-3.3.1, REL-3.4.1: a start-info whose first non-white-space character is '<' is a
// cid-list; the seed's `cid-list := cid cid-list` never ends (E-20), so it is read as one or
// more msg-ids separated by optional white space. Commas and a missing '>' are forgiven.
void read_start_info(std::string_view value, root_selection& sel) {
    std::size_t i = value.find_first_not_of(white_space);
    if (i == std::string_view::npos || value[i] != '<') return;
    sel.start_info_is_cid_list = true;
    constexpr std::string_view separators = " \t\r\n,";
    while ((i = value.find_first_not_of(separators, i)) != std::string_view::npos) {
        std::size_t end;
        std::string_view piece;
        if (value[i] == '<') {
            std::size_t close = value.find('>', i);
            end = close == std::string_view::npos ? value.size() : close + 1;
            piece = value.substr(close == std::string_view::npos ? i + 1 : i, end - i);
        } else {
            end = std::min(ascii::find_first_of(value, " \t\r\n,<", i), value.size());
            piece = value.substr(i, end - i);
        }
        std::string key = uri::id_key(piece);
        if (!key.empty()) sel.start_info_ids.push_back(std::move(key));
        i = end;
    }
}

class selector {
public:
    selector(const part_view& related, const root_options& options, std::vector<diagnostic>* diags)
        : related_(related), options_(options), diags_(diags) {
        for (const std::string& t : options.preferred_types) preferred_.push_back(essence_of(t));
    }

    root_selection run();

private:
    void report(severity sev, diag_code code, std::uint64_t offset, std::string message) const {
        if (diags_)
            diags_->push_back({sev, code, related_.path(), related_.doc().input_offset(offset),
                               std::move(message)});
    }
    std::uint64_t type_field_offset() const { return field_offset(related_, "Content-Type"); }

    void check_duplicate_ids();
    std::optional<part_view> find_start(std::string_view start);
    part_view default_start();
    std::optional<part_view> root_of(const part_view& start);
    part_view pick_alternative(const std::vector<part_view>& alts, bool& preferred) const;

    const part_view& related_;
    const root_options& options_;
    std::vector<diagnostic>* diags_;
    std::vector<std::string> preferred_;
    std::vector<part_view> kids_;
    std::vector<std::string> ids_;  // per kid: id_key of its Content-ID, "" for none
    std::string type_;              // essence_of(type); "" when absent or empty
};

root_selection selector::run() {
    root_selection sel;
    const mime::content_type& ct = related_.content_type();
    if (auto t = ct.param("type")) {
        sel.type = std::string(*t);
        type_ = essence_of(*t);
    }
    if (auto si = ct.param("start-info")) {
        sel.start_info = std::string(*si);
        read_start_info(*si, sel);
    }
    if (type_.empty())
        report(
            severity::warning, diag_code::related_type_missing, type_field_offset(),
            sel.type
                ? "the multipart/related type parameter is empty (REL-3.1.1); the root is chosen "
                  "without it"
                : "the multipart/related has no type parameter (REL-3.1.1); the root is chosen "
                  "without it");

    kids_ = related_.children();
    if (kids_.empty()) {
        report(severity::warning, diag_code::related_without_parts, related_.body_offset(),
               "the multipart/related has no body parts; there is no root");
        return sel;
    }
    ids_.reserve(kids_.size());
    for (const part_view& k : kids_) ids_.push_back(id_of(k));
    if (options_.report_duplicate_ids) check_duplicate_ids();
    for (const std::string& id : sel.start_info_ids) {
        auto hit = std::find(ids_.begin(), ids_.end(), id);
        sel.start_info_parts.push_back(
            hit == ids_.end() ? std::nullopt
                              : std::optional(kids_[static_cast<std::size_t>(hit - ids_.begin())]));
    }

    auto start = ct.param("start");
    sel.start = start ? find_start(*start) : default_start();
    if (!type_.empty() && !has_essence(*sel.start, type_))
        report(severity::warning, diag_code::related_type_mismatch, type_field_offset(),
               cat("type=\"", *sel.type, "\" differs from the start part ", sel.start->path(), " (",
                   essence_text(*sel.start), ", REL-3.1.3, MHT-7.6); the start part is used as ",
                   essence_text(*sel.start)));
    sel.root = root_of(*sel.start);
    return sel;
}

// MHT-7.12: Content-IDs of the direct body parts must differ. Sorting (not hashing) keeps
// this O(n log n) whatever ids a hostile archive chooses. Alternatives inside a
// multipart/alternative body part may share an id (CID-8) and are not looked at.
void selector::check_duplicate_ids() {
    std::vector<std::uint32_t> order;
    for (std::size_t i = 0; i < kids_.size(); ++i)
        if (!ids_[i].empty()) order.push_back(static_cast<std::uint32_t>(i));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return ids_[a] < ids_[b]; });
    std::vector<std::pair<std::uint32_t, std::uint32_t>> dups;  // (duplicate, first)
    for (std::size_t i = 1, first = 0; i < order.size(); ++i) {
        if (ids_[order[i]] == ids_[order[first]]) {
            dups.emplace_back(order[i], order[first]);
        } else {
            first = i;
        }
    }
    std::sort(dups.begin(), dups.end());  // report in document order
    for (auto [dup, first] : dups)
        report(severity::warning, diag_code::duplicate_content_id,
               field_offset(kids_[dup], "Content-ID"),
               cat("Content-ID <", ids_[dup], "> of part ", kids_[dup].path(), " is also on part ",
                   kids_[first].path(), " (MHT-7.12); the first is used"));
}

// RFC 2387 §3.2 and REL-3.2.2: the direct body part whose Content-ID is `start`, compared as
// ids; else (not strict) an alternative inside a multipart/alternative body part (E-33); else
// the first part.
std::optional<part_view> selector::find_start(std::string_view start) {
    const std::string key = uri::id_key(start);
    std::size_t b = start.find_first_not_of(white_space);
    const bool bracketed = b != std::string_view::npos && start[b] == '<';
    std::optional<part_view> found;
    if (!key.empty()) {
        auto hit = std::find(ids_.begin(), ids_.end(), key);
        if (hit != ids_.end()) found = kids_[static_cast<std::size_t>(hit - ids_.begin())];
    }
    if (!found && !key.empty() && !options_.strict) {
        for (const part_view& k : kids_) {
            if (!is_alternative(k)) continue;
            std::vector<part_view> matches;  // CID-8: alternatives may share one id
            for (const part_view& alt : k.children())
                if (id_of(alt) == key) matches.push_back(alt);
            if (matches.empty()) continue;
            bool preferred = false;
            found = matches.size() == 1 ? matches.front() : pick_alternative(matches, preferred);
            report(severity::warning, diag_code::start_inside_alternative,
                   field_offset(*found, "Content-ID"),
                   cat("start=\"", start, "\" names part ", found->path(),
                       " inside the multipart/alternative ", k.path(),
                       ", not a body part of the multipart/related (THTML-8.2, E-33); that part is "
                       "the start"));
            break;
        }
    }
    if (!found) {
        report(severity::warning, diag_code::start_not_found, type_field_offset(),
               cat("start=\"", start,
                   "\" names no body part of the multipart/related (REL-3.2.2); the first part ",
                   kids_.front().path(), " is the start"));
        return kids_.front();
    }
    if (!bracketed)
        report(severity::note, diag_code::start_unbracketed, type_field_offset(),
               cat("start=\"", start,
                   "\" is not a msg-id in angle brackets (REL-3.4); it matched part ",
                   found->path(), " as <", key, ">"));
    return found;
}

// No start: RFC 2387 takes the first part. REL-3.2.3 (not strict): if the first part is not
// of `type`, the first part of that type; else the first document part; each reported.
part_view selector::default_start() {
    const part_view& first = kids_.front();
    if (options_.strict) return first;
    auto take_later = [&](const part_view& later, std::string_view why) {
        report(
            severity::ambiguous, diag_code::root_not_first_part, later.offset(),
            cat("no start parameter, and the first part ", first.path(), " (", essence_text(first),
                ") is not ", why, "; part ", later.path(), " (", essence_text(later),
                ") is the start (REL-3.2.3; strict RFC 2387 would take the first part)"));
        return later;
    };
    if (!type_.empty()) {
        if (offers(first, type_)) return first;
        for (std::size_t i = 1; i < kids_.size(); ++i)
            if (offers(kids_[i], type_)) return take_later(kids_[i], cat("of type ", type_));
    }
    if (is_document(first, preferred_)) return first;
    for (std::size_t i = 1; i < kids_.size(); ++i)
        if (is_document(kids_[i], preferred_))
            return take_later(kids_[i], type_.empty()
                                            ? "a document part"
                                            : cat("of type ", type_, " or a document part"));
    return first;
}

// MHT-7.4, CID-8: the alternative a viewer displays: the last one that offers the best
// preferred type (RFC 2046 §5.1.4: alternatives go from least to most preferred), else the
// last one (`preferred` false). `alts` is not empty.
part_view selector::pick_alternative(const std::vector<part_view>& alts, bool& preferred) const {
    for (const std::string& t : preferred_) {
        auto it = std::find_if(alts.rbegin(), alts.rend(),
                               [&](const part_view& a) { return offers(a, t); });
        if (it != alts.rend()) {
            preferred = true;
            return *it;
        }
    }
    preferred = false;
    return alts.back();
}

// MHT-7.3, MHT-7.4: an atomic start part is the root; in a multipart/alternative, the
// alternative a viewer displays (a missing preferred type is reported).
std::optional<part_view> selector::root_of(const part_view& start) {
    std::optional<part_view> root = start;
    bool reported = false;
    while (root && is_alternative(*root)) {
        std::vector<part_view> alts = root->children();
        if (alts.empty()) {
            report(severity::warning, diag_code::no_html_alternative, root->offset(),
                   cat("the multipart/alternative ", root->path(),
                       " has no alternatives; there is no root"));
            return std::nullopt;
        }
        bool preferred = false;
        part_view pick = pick_alternative(alts, preferred);
        if (!preferred && !reported) {
            std::string wanted;
            for (const std::string& t : preferred_) wanted += wanted.empty() ? t : cat(" or ", t);
            report(severity::warning, diag_code::no_html_alternative, root->offset(),
                   cat("the multipart/alternative ", root->path(), " has no ",
                       wanted.empty() ? std::string("preferred") : wanted,
                       " alternative (MHT-7.4); the last one, ", pick.path(), " (",
                       essence_text(pick), "), is the root"));
            reported = true;
        }
        root = pick;
    }
    return root;
}

}  // namespace

root_selection select_root(const mime::part_view& related, const root_options& options,
                           std::vector<diagnostic>* diags) {
    return selector(related, options, diags).run();
}

}  // namespace mhtml::archive
