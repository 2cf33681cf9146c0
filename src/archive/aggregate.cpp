#include "mhtml/archive/aggregate.hpp"

#include "text_cat.hpp"

#include "mhtml/html/charset.hpp"
#include "mhtml/mime/charset.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/header_value.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>

namespace mhtml::archive {

namespace {

diagnostic make_diag(severity sev, diag_code code, const mime::part_view& p, std::uint64_t offset,
                     std::string message) {
    // `offset` is in the document's offset space; a diagnostic gives a position in the input.
    return diagnostic{sev, code, p.path(), p.doc().input_offset(offset), std::move(message)};
}

using mhtml::detail::cat;

// What one heading contributes to base URIs: its usable Content-Base, and its
// Content-Location as written (extracted, not resolved).
struct heading_values {
    std::optional<std::string> content_base;   // absolute, not a method indicator
    std::optional<std::string> location_text;  // extracted Content-Location
    bool location_absolute = false;
};

// The raw values of the fields the aggregate reads of every part, found in one visit of its
// header block (which has left the cache since the parser read it).
struct heading_fields {
    std::optional<std::string_view> content_id, content_location, content_base;
    explicit heading_fields(const mime::part_view& p) {
        if (auto f = p.header("Content-ID")) content_id = f->raw_value();
        if (auto f = p.header("Content-Location")) content_location = f->raw_value();
        if (auto f = p.header("Content-Base")) content_base = f->raw_value();
    }
};

heading_values read_heading(const mime::part_view& p, const heading_fields& fields,
                            std::vector<diagnostic>& diags) {
    heading_values h;
    if (fields.content_base) {
        std::string cb = uri::extract_header_uri(*fields.content_base);
        if (uri::is_legacy_method_indicator(cb)) {
            diags.push_back(
                make_diag(severity::note, diag_code::legacy_method_indicator, p, p.offset(),
                          cat({"Content-Base ", cb,
                               " says which linking method the sender used (text/html draft 10); "
                               "it is not a base"})));
        } else if (!uri::is_absolute(cb)) {
            diags.push_back(
                make_diag(severity::error, diag_code::content_base_not_absolute, p, p.offset(),
                          cat({"Content-Base '", cb,
                               "' is not an absolute URI (MHT-4.3.2 MUST); not used as a base"})));
        } else {
            h.content_base = std::move(cb);
        }
    }
    if (fields.content_location) {
        h.location_text = uri::extract_header_uri(*fields.content_location);
        h.location_absolute = uri::is_absolute(*h.location_text);
    }
    return h;
}

bool is_related(const mime::part_view& p) noexcept {
    return p.kind() == mime::entity_kind::multipart && p.content_type().is("multipart", "related");
}

bool is_alternative(const mime::part_view& p) noexcept {
    return p.kind() == mime::entity_kind::multipart &&
           p.content_type().is("multipart", "alternative");
}

// CID-8: the ids of the alternatives of `alternative` (and of alternatives nested in it);
// a later alternative with an id replaces an earlier one, so the last, preferred one wins.
void collect_alternative_ids(const mime::part_view& alternative,
                             mhtml::detail::keyed_string_map<std::uint32_t>& ids) {
    std::vector<mime::part_view> stack = {alternative};
    std::vector<mime::part_view> order;  // the alternatives, sorted into document order below
    while (!stack.empty()) {
        mime::part_view a = stack.back();
        stack.pop_back();
        for (const auto& k : a.children()) {
            order.push_back(k);
            if (is_alternative(k)) stack.push_back(k);
        }
    }
    std::sort(order.begin(), order.end(), [](const mime::part_view& x, const mime::part_view& y) {
        return x.index() < y.index();
    });
    for (const auto& k : order)
        if (auto f = k.header("Content-ID"))
            ids.insert_or_assign(uri::id_key(f->raw_value()), k.index());
}

}  // namespace

namespace {
std::unique_ptr<const uri::base_uri> parse_base(std::string_view text) {
    auto b = uri::base_uri::make(text);
    return b ? std::make_unique<const uri::base_uri>(std::move(*b)) : nullptr;
}
}  // namespace

struct aggregate::lazy_bases {
    explicit lazy_bases(std::size_t n)
        : done(std::make_unique<std::atomic<bool>[]>(n)),
          parsed(std::make_unique<std::atomic<bool>[]>(n)) {}
    std::unique_ptr<std::atomic<bool>[]> done;    // entity i's base is final (false at first)
    std::unique_ptr<std::atomic<bool>[]> parsed;  // bases_[i] is made (false at first)
    std::mutex write;  // held while an HTML base or a parsed base is written
};

aggregate::aggregate() = default;
aggregate::aggregate(aggregate&&) noexcept = default;
aggregate& aggregate::operator=(aggregate&&) noexcept = default;
aggregate::~aggregate() = default;

document_type document_type_of(const mime::part_view& p) noexcept {
    if (!p.is_leaf()) return document_type::none;
    const auto& ct = p.content_type();
    if (ct.is("text", "html") || ct.is("application", "xhtml+xml")) return document_type::html;
    if (ct.is("text", "css")) return document_type::css;
    if (ct.is("image", "svg+xml")) return document_type::svg;
    return document_type::none;
}

aggregate aggregate::build(const mime::document& doc, const aggregate_options& options) {
    aggregate a;
    a.top_ = doc.root();
    a.options_ = options;
    a.match_.strict = options.strict;
    const mime::part_view top = doc.root();
    bool blink = false;
    if (auto from = top.header("From"))
        blink = from->value().find("<Saved by Blink>") != std::string_view::npos;
    if (auto snap = top.header("Snapshot-Content-Location"))
        a.snapshot_ = uri::extract_header_uri(snap->raw_value());
    a.match_.cid_content_location =
        !options.strict && (options.blink == aggregate_options::blink_mode::on ||
                            (options.blink == aggregate_options::blink_mode::automatic && blink));

    const std::size_t n = doc.size();
    a.entities_.resize(n);
    // own_heading_base[i]: what heading i gives its body and the bodies below it: its
    // Content-Base, else its absolute Content-Location (chapter 5 b, c).
    // (Pointers: to the entity's location_text, or into content_bases.)
    std::vector<std::string_view> own_heading_base(n);  // empty: none
    // inherited_from[i]: the nearest ancestor whose heading gives one (chapter 5 d), or -1.
    std::vector<std::int64_t> inherited_from(n, -1);
    auto inherited = [&](std::size_t i) -> std::string_view {
        return inherited_from[i] >= 0
                   ? own_heading_base[static_cast<std::size_t>(inherited_from[i])]
                   : uri::fictitious_base;
    };

    // resolved_by_base[i]: e.location was resolved against its parsed heading base (the base
    // the label index resolves it against too: it is given the result).
    std::vector<bool> resolved_by_base(n);
    std::vector<heading_fields> fields;
    fields.reserve(n);
    std::optional<uri::base_uri> heading_parsed;
    for (std::size_t i = 0; i < n; ++i) {  // depth-first order: a parent comes before its children
        mime::part_view p = doc.part(i);
        fields.emplace_back(p);
        heading_values h = read_heading(p, fields.back(), a.diags_);
        if (auto parent = p.parent()) {
            std::size_t pi = parent->index();
            inherited_from[i] =
                !own_heading_base[pi].empty() ? static_cast<std::int64_t>(pi) : inherited_from[pi];
        }
        entity_info& e = a.entities_[i];
        e.heading_base = h.content_base
                             ? std::string_view(a.base_texts_.emplace_back(*h.content_base))
                             : inherited(i);
        if (h.location_text) {
            // Siblings share their heading base: parse it once per run of equal bases.
            if (!heading_parsed || heading_parsed->str() != e.heading_base)
                heading_parsed = uri::base_uri::make(e.heading_base);
            e.location =
                heading_parsed ? heading_parsed->resolve(*h.location_text) : *h.location_text;
            resolved_by_base[i] = heading_parsed.has_value();
            e.location_text = std::move(h.location_text);
        }
        if (h.content_base) {
            own_heading_base[i] = e.heading_base;  // the text just kept
        } else if (h.location_absolute) {
            own_heading_base[i] = *e.location_text;  // in place: entities_ is not resized
        }
        e.base = !own_heading_base[i].empty() ? own_heading_base[i] : inherited(i);
    }

    // Related structures, outer before inner; each entity belongs to the structure it is a
    // body part of, or (below a member: an HTML part in a multipart/alternative of a related,
    // as in HTML mail) to its parent's.
    std::vector<int> structure_of(n, -1);  // for a multipart/related entity: its index in related_
    for (std::size_t i = 0; i < n; ++i) {
        mime::part_view p = doc.part(i);
        if (auto parent = p.parent()) {
            std::size_t pi = parent->index();
            a.entities_[i].related =
                structure_of[pi] >= 0 ? structure_of[pi] : a.entities_[pi].related;
        }
        if (!is_related(p)) continue;
        std::vector<mime::part_view> members = p.children();
        std::vector<uri::part_labels> labels(members.size());
        std::vector<std::string> paths(members.size());
        for (std::size_t k = 0; k < members.size(); ++k) {
            const auto& m = members[k];
            const heading_fields& f = fields[m.index()];
            labels[k].content_id = f.content_id;
            labels[k].content_location = f.content_location;
            if (const auto& text = a.entities_[m.index()].location_text)
                labels[k].extracted_location = &*text;
            if (f.content_location && resolved_by_base[m.index()] &&
                a.entities_[m.index()].location)
                labels[k].resolved_location = &*a.entities_[m.index()].location;
            labels[k].content_base = f.content_base;
            paths[k] = m.path();
            labels[k].path = paths[k];
        }
        // The children's relative Content-Locations resolve against what this heading and
        // those outside it give (the same for every child without its own Content-Base).
        const std::string_view children_base =
            !own_heading_base[i].empty() ? own_heading_base[i] : inherited(i);
        auto base = uri::base_uri::make(children_base);
        std::vector<diagnostic> index_diags;
        related_structure rs{
            p,
            {},
            members,
            uri::label_index(labels, base ? *base : uri::base_uri::fictitious(), &index_diags),
            a.entities_[i].related,
            {}};
        for (auto& d : index_diags) {
            d.offset = p.input_offset();
            a.diags_.push_back(std::move(d));
        }
        for (const auto& m : members)
            if (is_alternative(m)) collect_alternative_ids(m, rs.alternative_ids);
        root_options ro = options.root;
        ro.strict = ro.strict || options.strict;
        ro.report_duplicate_ids = false;  // the label index reports them
        rs.root = select_root(p, ro, &a.diags_);
        structure_of[i] = static_cast<int>(a.related_.size());
        a.related_.push_back(std::move(rs));
    }
    // Messages and the Content-IDs inside each (for mid: URLs).
    std::vector<std::uint32_t> message_of(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        mime::part_view p = doc.part(i);
        auto parent = p.parent();
        bool is_message = !parent || parent->kind() == mime::entity_kind::message;
        message_of[i] = is_message ? static_cast<std::uint32_t>(i) : message_of[parent->index()];
        if (is_message) {
            if (auto f = p.header("Message-ID"))
                a.messages_.try_emplace(uri::id_key(f->raw_value()), static_cast<std::uint32_t>(i));
        }
        if (const auto& id = fields[i].content_id) {
            std::string key = std::to_string(message_of[i]);
            key += '/';
            key += uri::id_key(*id);
            a.ids_in_message_.try_emplace(std::move(key), static_cast<std::uint32_t>(i));
        }
    }
    // Parsed on first use (parsed_base): only the parts that references are resolved from
    // need theirs, and most parts of a large archive are images.
    a.bases_.resize(n);  // null pointers: 8 octets a part until one is parsed
    a.lazy_ = std::make_unique<lazy_bases>(n);
    if (a.match_.cid_content_location) a.find_style_holders();
    cap_diagnostics(a.diags_, options.max_diagnostics);  // as the parser's, per document
    return a;
}

// The HTML part that links each style sheet Blink made from a <style> element: a text/css
// part labelled with a cid: URL, named by a <link rel=stylesheet href="cid:..."> (through the
// cid: Content-Location match). Only in archives Blink wrote, and only when there is such a
// sheet: then every HTML part in a related structure is scanned (once; the scan also finds its
// <base href>).
void aggregate::find_style_holders() {
    std::vector<bool> is_sheet(document().size(), false);
    bool any = false;
    for (const related_structure& rs : related_)
        for (const mime::part_view& m : rs.members) {
            const auto& loc = entities_[m.index()].location;
            if (loc && uri::is_cid_url(*loc) && document_type_of(m) == document_type::css)
                any = is_sheet[m.index()] = true;
        }
    if (!any) return;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> found;
    for (std::size_t i = 0; i < document().size(); ++i) {
        const mime::part_view h = document().part(i);
        if (entities_[i].related < 0 || document_type_of(h) != document_type::html) continue;
        for (const html::reference& r : references(h).refs) {
            if (!r.stylesheet_link || !uri::is_cid_url(r.url)) continue;
            resolution res = resolve(h, r.url);
            if (!res.target || !is_sheet[res.target->index()]) continue;
            found.emplace_back(res.target->index(), static_cast<std::uint32_t>(i));
        }
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t k = 0; k < found.size(); ++k) {
        if (k > 0 && found[k].first == found[k - 1].first) {
            if (found[k].second != style_holders_.back().second) {
                const mime::part_view sheet = document().part(found[k].first);
                diags_.push_back(make_diag(
                    severity::note, diag_code::style_element_sheet, sheet, sheet.offset(),
                    cat({"the style sheet ", sheet.path(), " (",
                         *entities_[found[k].first].location, ") is linked from part ",
                         document().part(found[k].second).path(), " as well as from part ",
                         document().part(style_holders_.back().second).path(),
                         "; its relative references resolve against the first"})));
            }
            continue;
        }
        style_holders_.push_back(found[k]);
    }
}

std::optional<mime::part_view> aggregate::style_element_holder(const mime::part_view& sheet) const {
    auto it = std::lower_bound(style_holders_.begin(), style_holders_.end(), sheet.index(),
                               [](const std::pair<std::uint32_t, std::uint32_t>& e,
                                  std::uint32_t v) { return e.first < v; });
    if (it == style_holders_.end() || it->first != sheet.index()) return std::nullopt;
    return document().part(it->second);
}

// <base href> of an HTML part (chapter 5 a), resolved against what steps b-e gave; found the
// first time the part's base is asked for, so that building stays as cheap as reading the
// headings (an archive of 30,000 HTML parts need not scan them all up front).
void aggregate::ensure_html_base(std::size_t i) const {
    std::atomic<bool>& done = lazy_->done[i];
    if (done.load(std::memory_order_acquire)) return;
    mime::part_view p = part(i);
    if (document_type_of(p) != document_type::html) {
        done.store(true, std::memory_order_release);  // nothing to write
        return;
    }
    (void)references(p);  // sets the base as a side effect
}

// An HTML part's first <base href>, resolved against what steps b-e gave, once. Several
// threads may get here for one part with the same scan; the first one writes.
void aggregate::apply_html_base(std::size_t i, const html::scan_result& scan) const {
    std::atomic<bool>& done = lazy_->done[i];
    if (done.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(lazy_->write);
    if (done.load(std::memory_order_relaxed)) return;
    if (scan.base) {
        std::atomic<bool>& parsed = lazy_->parsed[i];
        if (!parsed.load(std::memory_order_relaxed)) {
            bases_[i] = parse_base(entities_[i].base);
            parsed.store(true, std::memory_order_release);
        }
        if (bases_[i]) {
            std::string resolved = bases_[i]->resolve(scan.refs[*scan.base].url);
            if (uri::is_absolute(resolved)) {
                entities_[i].base = base_texts_.emplace_back(std::move(resolved));
                entities_[i].has_html_base = true;
                bases_[i] = parse_base(entities_[i].base);
            }
        }
    }
    done.store(true, std::memory_order_release);
}

// Entity i's base, parsed (nullptr when it does not parse), once its <base href> is applied.
// bases_[i] is written under the lock, before `parsed` is set (release), and read only after
// (acquire); apply_html_base writes it before `done` is set, which ensure_html_base waits for.
const uri::base_uri* aggregate::parsed_base(std::size_t i) const {
    ensure_html_base(i);
    std::atomic<bool>& parsed = lazy_->parsed[i];
    if (!parsed.load(std::memory_order_acquire)) {
        std::lock_guard<std::mutex> lock(lazy_->write);
        if (!parsed.load(std::memory_order_relaxed)) {
            bases_[i] = parse_base(entities_[i].base);
            parsed.store(true, std::memory_order_release);
        }
    }
    return bases_[i].get();
}

const entity_info& aggregate::info(const mime::part_view& p) const {
    ensure_html_base(p.index());
    return entities_[p.index()];
}

mime::part_view aggregate::main_root() const {
    if (!related_.empty() && related_.front().root.root) return *related_.front().root.root;
    return top_;
}

html::scan_result aggregate::references(const mime::part_view& p) const {
    return read_document(p).scan;
}

document_text aggregate::read_document(const mime::part_view& p) const {
    document_text d;
    d.type = document_type_of(p);
    if (d.type == document_type::none) return d;
    p.decode_to(d.text);
    std::string declared(p.content_type().param("charset").value_or(""));
    if (d.type == document_type::css) {
        d.charset = std::string(html::encoding_for_label(declared));
    } else {
        // The scanners read bytes, which is right for every charset whose octets below 0x80
        // are ASCII; ISO-2022-JP (JIS octets include '<' and '"') and UTF-16 are read in UTF-8.
        // An XML document is decoded by XML's rules (its declaration, not <meta>) and always
        // read in UTF-8: what a view writes of it is then UTF-8 for every reader, with the
        // declaration saying so (html::declare_xml_utf8).
        const bool xml =
            d.type == document_type::svg || p.content_type().is("application", "xhtml+xml");
        html::detected_charset cs = xml ? html::detect_xml_charset(declared, d.text)
                                        : html::detect_charset(declared, d.text);
        d.charset = cs.name;
        if (cs.name == "ISO-2022-JP" || cs.name == "UTF-16LE" || cs.name == "UTF-16BE" ||
            (xml && cs.name != "UTF-8")) {
            if (auto utf8 =
                    mime::to_utf8(std::string_view(d.text).substr(cs.bom_length), cs.name)) {
                d.text = std::move(*utf8);
                d.charset = "UTF-8";
                d.transcoded = true;
            }
        }
    }
    d.scan = d.type == document_type::css ? html::scan_style_sheet(d.text)
                                          : html::scan_html(d.text, d.type == document_type::svg);
    if (d.type == document_type::html) apply_html_base(p.index(), d.scan);  // one scan serves both
    return d;
}

std::optional<mime::part_view> aggregate::resolve_mid(std::string_view reference,
                                                      bool& from_store) const {
    auto ids = uri::mid_to_ids(reference);
    if (!ids) return std::nullopt;
    const std::string message_id = uri::id_key(ids.value.message_id);
    auto message = messages_.find(message_id);
    if (message == messages_.end()) {
        if (!options_.store) return std::nullopt;
        const std::string content_id =
            ids.value.content_id.empty() ? std::string() : uri::id_key(ids.value.content_id);
        auto found = options_.store->find(message_id, content_id);
        from_store = found.has_value();
        return found;
    }
    if (ids.value.content_id.empty()) return part(message->second);
    std::string key = std::to_string(message->second);
    key += '/';
    key += uri::id_key(ids.value.content_id);
    auto hit = ids_in_message_.find(key);
    if (hit == ids_in_message_.end()) return std::nullopt;
    return part(hit->second);
}

std::optional<mime::part_view> aggregate::shown_leaf(mime::part_view p) const {
    for (int guard = 0; guard < 1000; ++guard) {
        if (p.is_leaf()) return p;
        const std::vector<mime::part_view> kids = p.children();
        if (kids.empty()) return std::nullopt;
        if (p.kind() == mime::entity_kind::message) {
            p = kids.front();
        } else if (is_related(p)) {
            const auto it = std::find_if(related_.begin(), related_.end(),
                                         [&](const related_structure& rs) { return rs.part == p; });
            if (it == related_.end() || !it->root.root) return std::nullopt;
            p = *it->root.root;
        } else if (is_alternative(p)) {
            p = kids.back();
        } else {
            // multipart/mixed and the like: the first HTML leaf, else the first part.
            const auto html = std::find_if(kids.begin(), kids.end(), [](const mime::part_view& k) {
                return k.is_leaf() && k.content_type().is("text", "html");
            });
            p = html != kids.end() ? *html : kids.front();
        }
    }
    return std::nullopt;
}

resolution aggregate::resolve(const mime::part_view& from, std::string_view reference,
                              std::vector<diagnostic>* diags) const {
    return resolve_reference(from, reference, false, diags);
}

resolution aggregate::resolve(const mime::part_view& from, const html::reference& r,
                              std::vector<diagnostic>* diags) const {
    return resolve_reference(from, r.url, r.css_import, diags);
}

resolution aggregate::resolve_reference(const mime::part_view& from, std::string_view reference,
                                        bool css_import, std::vector<diagnostic>* diags) const {
    resolution out;
    if (uri::is_mid_url(reference)) {
        out.resolved = std::string(reference);
        out.target = resolve_mid(reference, out.from_store);
        return out;
    }
    const entity_info& e = info(from);
    static const uri::base_uri fictitious = uri::base_uri::fictitious();
    const uri::base_uri* parsed = parsed_base(from.index());
    const uri::base_uri& b = parsed ? *parsed : fictitious;
    std::vector<diagnostic> found;
    int structure = e.related;
    bool first = true;
    while (structure >= 0) {
        const related_structure& rs = related_[structure];
        uri::reference_match m = rs.index.find(reference, b, match_, &found);
        if (first) {
            out.resolved = m.resolved;
            out.same_document = m.same_document;
        }
        if (m.same_document) break;
        if (!m.part && !rs.alternative_ids.empty() && uri::is_cid_url(reference)) {
            auto id = uri::cid_to_content_id(uri::without_fragment(reference));
            auto hit =
                id ? rs.alternative_ids.find(uri::id_key(id.value)) : rs.alternative_ids.end();
            if (hit != rs.alternative_ids.end()) out.target = part(hit->second);
        }
        if (m.part) out.target = rs.members[*m.part];
        if (out.target) {
            out.lenient = m.lenient;
            if (!first && diags)
                diags->push_back(make_diag(
                    severity::note, diag_code::matched_in_enclosing_related, from, from.offset(),
                    cat({"'", reference,
                         "' names a part of an enclosing related structure (RFC 2557 7)"})));
            break;
        }
        first = false;
        structure = rs.parent;
    }
    if (e.related < 0) {
        out.resolved = b.resolve(reference, &found);
        out.same_document = uri::is_same_document(reference);
    }
    // REQUIREMENTS E-13: a part whose Content-Location is relative; and L-1: a heading with
    // both a Content-Base and a different absolute Content-Location. Its resolved location as
    // the base finds what the literal chapter 5 does not.
    if (!out.target && !out.same_document && !options_.strict && e.related >= 0 && e.location &&
        !e.has_html_base && !uri::is_absolute(reference)) {
        if (auto loc_base = uri::base_uri::make(*e.location);
            loc_base && loc_base->str() != b.str()) {
            const related_structure& rs = related_[e.related];
            uri::reference_match m = rs.index.find(reference, *loc_base, match_);
            if (m.part) {
                out.target = rs.members[*m.part];
                out.lenient = true;
                found.push_back(
                    make_diag(severity::ambiguous, diag_code::matched_after_normalisation, from,
                              from.offset(),
                              cat({"'", reference,
                                   "' matches only when resolved against the part's own "
                                   "Content-Location, not its base ",
                                   b.str(), " (REQUIREMENTS E-13, L-1)"})));
            }
        }
    }
    // A style sheet Blink made from a <style> element: Chromium resolves its url()s against
    // the document that holds the <style>, and its @imports against its own cid: label.
    if (!out.target && !out.same_document && !options_.strict && !style_holders_.empty() &&
        !uri::is_absolute(reference)) {
        if (auto holder = style_element_holder(from)) {
            const bool live =
                options_.blink_style_imports == aggregate_options::style_imports::live_page;
            const std::string& sheet = e.location ? *e.location : b.str();
            if (css_import && !live) {
                found.push_back(make_diag(
                    severity::note, diag_code::style_element_sheet, from, from.offset(),
                    cat({"'", reference, "' (@import in the style sheet ", sheet,
                         ", which Blink made from a <style> element of part ", holder->path(),
                         ") resolves against the sheet's own label, as Chromium resolves it, and "
                         "names nothing; the live page resolved it against the document (the "
                         "live_page reading, --blink-style-imports=live)"})));
            } else {
                static const uri::base_uri none = uri::base_uri::fictitious();
                const entity_info& hi = info(*holder);
                const uri::base_uri* holder_base = parsed_base(holder->index());
                const uri::base_uri& hb = holder_base ? *holder_base : none;
                // The sheet's own structure, then the enclosing ones, as above. This note
                // comes before whatever the label index says about the match.
                const std::size_t note_at = found.size();
                for (int k = e.related; k >= 0 && !out.target;
                     k = related_[static_cast<std::size_t>(k)].parent) {
                    const related_structure& rs = related_[static_cast<std::size_t>(k)];
                    uri::reference_match m = rs.index.find(reference, hb, match_, &found);
                    if (k == e.related) out.resolved = m.resolved;
                    if (m.part) out.target = rs.members[*m.part];
                }
                if (out.target) {
                    out.lenient = true;
                    found.insert(
                        found.begin() + static_cast<std::ptrdiff_t>(note_at),
                        make_diag(
                            severity::ambiguous, diag_code::matched_after_normalisation, from,
                            from.offset(),
                            cat({"'", reference, "' (", css_import ? "@import" : "a reference",
                                 " in the style sheet ", sheet,
                                 ", which Blink made from a <style> element of part ",
                                 holder->path(),
                                 ") matches only when resolved against that document's base ",
                                 hi.base,
                                 css_import
                                     ? ", as the live page resolved it (Chromium's view of the "
                                       "archive resolves an @import against the sheet's label "
                                       "and loads nothing)"
                                     : ", as Chromium resolves it; RFC 2557 resolves it "
                                       "against the sheet's own label"})));
                }
            }
        }
    }
    if (diags)
        for (auto& d : found) {
            if (d.part_path.empty()) d.part_path = from.path();
            diags->push_back(std::move(d));
        }
    return out;
}

}  // namespace mhtml::archive
