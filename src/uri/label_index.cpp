#include "mhtml/uri/label_index.hpp"

#include <array>
#include <cctype>
#include <mutex>
#include <span>
#include <system_error>
#include <thread>

#include "mhtml/ascii.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/header_value.hpp"
#include "mhtml/uri/whatwg_url.hpp"
#include "text.hpp"

namespace mhtml::uri {

namespace {

// The last path segment of a URL or reference as every lenient reading could spell it:
// fragment and query set aside, TAB, CR and LF removed and white space trimmed (as the URL
// Standard does), %XX decoded, ASCII lower-cased; `\` read as `/` when `backslash` says so
// (the URL Standard does for special schemes, and a relative reference takes its base's: so
// both readings are indexed and tried). None where there is no path (`http://host`), or the
// segment is empty, `.` or `..` (dot segments and an empty path are what normalisation
// changes). Two spellings that any reading of find() matches have a tail in common: a
// reference whose tails no label has matches nothing.
std::optional<std::string> tail_key(std::string_view u, bool backslash) {
    u = u.substr(0, std::min(u.find('#'), u.size()));
    u = u.substr(0, std::min(u.find('?'), u.size()));
    // Most labels: http: or https:, in printable ASCII without '%' or a backslash (so nothing
    // below changes an octet but the case): the last segment after the host.
    if (u.starts_with("http://") || u.starts_with("https://")) {
        static constexpr auto plain_octet = [] {
            std::array<bool, 256> t{};
            for (int c = 0x21; c < 0x7f; ++c) t[c] = c != '%' && c != '\\';
            return t;
        }();
        bool plain = true;
        for (const char c : u) plain &= plain_octet[static_cast<unsigned char>(c)];
        if (plain) {
            std::size_t host = u.find("//") + 2;
            while (host < u.size() && u[host] == '/') ++host;
            if (u.find('/', host) == std::string_view::npos) return std::nullopt;
            std::string out(u.substr(u.rfind('/') + 1));
            for (char& c : out) c = ascii::lower(c);
            if (out.empty() || out == "." || out == "..") return std::nullopt;
            return out;
        }
    }
    // A copy only where TAB, CR or LF go or a backslash becomes a slash.
    std::string s;
    std::string_view v = u;
    if (ascii::find_first_of(u, backslash ? "\t\r\n\\" : "\t\r\n") != std::string_view::npos) {
        s.reserve(u.size());
        for (const char c : u)
            if (c != '\t' && c != '\r' && c != '\n') s += c == '\\' && backslash ? '/' : c;
        v = s;
    }
    while (!v.empty() && static_cast<unsigned char>(v.back()) <= 0x20) v.remove_suffix(1);
    while (!v.empty() && static_cast<unsigned char>(v.front()) <= 0x20) v.remove_prefix(1);
    // An authority must be followed by a path. The URL Standard starts one after any run of
    // slashes, also none or one, behind a special scheme (`http:/x.example` is
    // http://x.example/), and after "//" elsewhere.
    const std::size_t colon = v.find(':');
    const bool has_scheme =
        colon != std::string_view::npos && colon > 0 &&
        std::isalpha(static_cast<unsigned char>(v[0])) &&
        v.substr(0, colon).find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.") ==
            std::string_view::npos;
    const std::string_view scheme = has_scheme ? v.substr(0, colon) : std::string_view();
    bool special = false;
    for (const std::string_view name : {"http", "https", "ftp", "ws", "wss", "file"})
        special = special || ascii::iequals(scheme, name);
    std::size_t host = std::string_view::npos;
    if (special) {
        host = colon + 1;
    } else if (const std::size_t slashes = v.find("//");
               slashes != std::string_view::npos && slashes == v.find('/') &&
               (slashes == 0 || (has_scheme && slashes == colon + 1))) {
        host = slashes + 2;
    }
    if (host != std::string_view::npos) {
        while (host < v.size() && v[host] == '/') ++host;
        if (v.find('/', host) == std::string_view::npos) return std::nullopt;
    }
    std::size_t start = v.rfind('/');
    if (start == std::string_view::npos) {
        start = has_scheme ? colon + 1 : 0;  // `http:g`; `g`, `a:b` after no scheme
    } else {
        ++start;
    }
    const auto hex = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    std::string out;
    out.reserve(v.size() - start);
    for (std::size_t i = start; i < v.size(); ++i) {
        const char c = v[i];
        if (c == '%' && i + 2 < v.size() && std::isxdigit(static_cast<unsigned char>(v[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(v[i + 2]))) {
            out += static_cast<char>(hex(v[i + 1]) * 16 + hex(v[i + 2]));
            i += 2;
        } else {
            out += c;
        }
    }
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (out.empty() || out == "." || out == "..") return std::nullopt;
    return out;
}

// The key a resolved location is indexed under: no fragment, and the fictitious scheme in
// one spelling so that `this_message:` and `thismessage:` (any case) meet. A view into
// `resolved`, or into `scratch` when the scheme had to be respelled.
std::string_view location_key(std::string_view resolved, std::string& scratch) {
    std::string_view s = without_fragment(resolved);
    std::size_t colon = s.find(':');
    if (colon != std::string_view::npos && is_fictitious_scheme(s.substr(0, colon)) &&
        s.substr(0, colon) != "thismessage") {
        scratch = "thismessage";
        scratch += s.substr(colon);
        return scratch;
    }
    return s;
}

// As location_key, with the fragment kept (the Chromium-style fragment match).
std::string_view location_key_with_fragment(std::string_view resolved, std::string& scratch) {
    std::size_t colon = resolved.find(':');
    if (colon != std::string_view::npos && is_fictitious_scheme(resolved.substr(0, colon)) &&
        resolved.substr(0, colon) != "thismessage") {
        scratch = "thismessage";
        scratch += resolved.substr(colon);
        return scratch;
    }
    return resolved;
}

// `s` with a fictitious scheme spelled `this_message` (any case) spelled `thismessage`: the
// URL Standard's scheme state does not take '_', and would read the whole as a path.
std::string fictitious_respelled(std::string_view s) {
    reference_parts parts = split_reference(s);
    if (parts.has_scheme && is_fictitious_scheme(parts.scheme))
        return "thismessage" + std::string(s.substr(parts.scheme.size()));
    return std::string(s);
}

std::optional<whatwg_url> parsed_base(std::string_view base) {
    return whatwg_url::parse(fictitious_respelled(base));
}

// Whether a browser may read `label` (whose location key is `key`) with another last segment
// than tail_key finds in its readings: a C0 control or space at either end (the URL Standard
// strips them; the header reading keeps controls), or a file: URL.
bool browser_reads_otherwise(std::string_view label, std::string_view key) {
    const auto c0 = [](char c) { return static_cast<unsigned char>(c) <= 0x20; };
    if (!label.empty() && (c0(label.front()) || c0(label.back()))) return true;
    return ascii::istarts_with(key, "file:");
}

// With no base (none, or one a browser cannot parse), an absolute reference still parses, as
// in a browser; a relative one does not.
std::optional<std::string> browser_key_with(std::string_view reference,
                                            const std::optional<whatwg_url>& base) {
    auto url = whatwg_url::parse(fictitious_respelled(reference), base ? &*base : nullptr);
    if (!url) return std::nullopt;
    std::string key = url->href(false);
    const std::string path = url->pathname();
    if (url->has_opaque_path() || path.find('|') == std::string::npos) return key;
    // Chromium writes '|' in a path as %7C (the URL Standard keeps it): both spellings meet.
    const std::size_t query = url->query() ? url->query()->size() + 1 : 0;
    const std::size_t at = key.size() - query - path.size();
    std::string out = key.substr(0, at);
    for (char c : path) {
        if (c == '|') {
            out += "%7C";
        } else {
            out += c;
        }
    }
    out += key.substr(at + path.size());
    return out;
}

std::string ascii_folded(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

void report(std::vector<diagnostic>* diags, severity sev, diag_code code, std::string_view path,
            std::string message) {
    if (diags) diags->push_back({sev, code, std::string(path), 0, std::move(message)});
}

template <class Map>
const std::size_t* lookup(const Map& map, std::string_view key) {
    return map.find(key);
}

}  // namespace

bool label_index::string_map::insert(std::string key, std::size_t value) {
    if (!insert_view(key, value)) return false;
    entries_.back().first = owned_.emplace_back(std::move(key));
    return true;
}

bool label_index::string_map::insert_view(std::string_view key, std::size_t value) {
    if (index_.find_or_insert(key, static_cast<std::uint32_t>(entries_.size()),
                              [this](std::size_t k) { return entries_[k].first; }) !=
        mhtml::detail::string_index::npos)
        return false;
    entries_.emplace_back(key, value);
    return true;
}

const std::size_t* label_index::string_map::find(std::string_view key) const noexcept {
    const std::size_t k =
        index_.find(key, [this](std::size_t n) -> std::string_view { return entries_[n].first; });
    return k == mhtml::detail::string_index::npos ? nullptr : &entries_[k].second;
}

std::optional<std::string> browser_key(std::string_view reference, std::string_view base) {
    return browser_key_with(reference, parsed_base(base));
}

// The tables only lenient lookups read: the tails and the §6.2.2 forms (made by
// lenient_tables() on the first miss; the few tails of rare readings are indexed as the index
// is built, apart), and the browser table with what it is made from, kept until it is
// (by_browser_location).
struct label_index::browser_table {
    hash_filter rare_tails;         // of the rare readings (spaced, same-scheme, browser)
    hash_filter tails;              // of the locations and their §6.2.2 forms
    string_map by_normal_location;  // RFC 3986 §6.2.2 form, where it differs
    std::once_flag lenient_made;
    // Where there are many labels, the tails and §6.2.2 forms are made on a thread of their
    // own as soon as the index is (most archives have a reference that misses: a link to a
    // page not saved), beside what the caller does next; lenient_tables() waits for it. The
    // thread reads a copy of the locations (`copied`, `copied_at`: part, offset and size), so
    // that nothing the index or its caller moves, assigns or frees is read while it runs.
    std::thread maker;
    std::string copied;
    std::vector<std::array<std::size_t, 3>> copied_at;
    bool lenient_ready = false;  // make_lenient() ran to its end (read after the join)
    browser_table() = default;
    browser_table(const browser_table&) = delete;
    browser_table& operator=(const browser_table&) = delete;
    ~browser_table() {
        if (maker.joinable()) maker.join();
    }
    // Makes the tails and the §6.2.2 table anew (after a failed attempt too) from
    // `each(f)`, which calls f(part, resolved location) for each label in part order.
    template <class Each>
    void make_lenient(std::size_t labels, Each each) {
        tails = hash_filter();
        by_normal_location = string_map();
        tails.reserve(labels);
        each([this](std::size_t i, std::string_view location) {
            std::string scratch;
            const std::string_view key = location_key(location, scratch);
            index_tail(tails, key);
            // The §6.2.2 form, kept only where it differs (lookups try both tables); the
            // first part wins, as in by_location_.
            if (!is_normal_form(key))
                if (std::string normal = normalize(key); normal != key) {
                    index_tail(tails, normal);
                    by_normal_location.insert(std::move(normal), i);
                }
        });
        lenient_ready = true;
    }
    void make_from_copy() {
        make_lenient(copied_at.size(), [this](const auto& f) {
            for (const auto& [part, at, size] : copied_at)
                f(part, std::string_view(copied).substr(at, size));
        });
    }
    // The last segments of `key` (both readings of a backslash where it has one).
    static void index_tail(hash_filter& into, std::string_view key) {
        const bool has_backslash = key.find('\\') != std::string_view::npos;
        for (const bool backslash : {true, false})
            if (backslash || has_backslash)
                if (auto t = tail_key(key, backslash)) into.insert(*t);
    }
    static constexpr std::uint32_t none = static_cast<std::uint32_t>(-1);
    struct label {
        std::size_t part = 0;
        std::uint32_t text = none;      // in texts; none: the part's resolved location
        std::uint32_t own_base = none;  // the part's absolute Content-Base (in bases), if any
    };
    std::vector<label> labels;       // in insertion order: the first part wins
    std::vector<std::string> texts;  // labels, or their spaced readings, other than the location
    std::vector<std::string> bases;  // a base once for a run of parts that share it
    std::string parts_base;
    std::once_flag made;
    string_map table;
    // `text` (the label, or its spaced reading) of part `part`, whose resolved location is
    // `location`: most labels are their location, and are not copied.
    void add(std::size_t part, const std::string& text, const std::string& location,
             const std::string* own_base) {
        label l{part, none, none};
        if (text != location) {
            l.text = static_cast<std::uint32_t>(texts.size());
            texts.push_back(text);
        }
        if (own_base) {
            if (bases.empty() || bases.back() != *own_base) bases.push_back(*own_base);
            l.own_base = static_cast<std::uint32_t>(bases.size() - 1);
        }
        labels.push_back(l);
    }
};

label_index::~label_index() = default;
label_index::label_index(label_index&&) noexcept = default;
label_index& label_index::operator=(label_index&&) noexcept = default;

const label_index::string_map& label_index::by_browser_location() const {
    static const string_map none;
    if (!browser_) return none;  // moved from
    browser_table& b = *browser_;
    std::call_once(b.made, [this, &b] {
        const std::optional<whatwg_url> parts_base = parsed_base(b.parts_base);
        std::optional<whatwg_url> own;
        std::uint32_t own_parsed = browser_table::none;
        for (const browser_table::label& l : b.labels) {
            const std::string& location = *locations_[l.part];
            if (l.own_base != browser_table::none && l.own_base != own_parsed) {
                own = parsed_base(b.bases[l.own_base]);
                own_parsed = l.own_base;
            }
            std::optional<std::string> browser =
                browser_key_with(l.text == browser_table::none ? location : b.texts[l.text],
                                 l.own_base != browser_table::none ? own : parts_base);
            // The table keeps what differs from the label's location key.
            std::string scratch;
            if (browser && *browser != location_key(location, scratch))
                b.table.insert(std::move(*browser), l.part);
        }
        b.labels = {};
        b.texts = {};
        b.bases = {};
    });
    return b.table;
}

const label_index::browser_table* label_index::lenient_tables() const {
    if (!browser_) return nullptr;  // moved from
    browser_table& b = *browser_;
    std::call_once(b.lenient_made, [this, &b] {
        if (b.maker.joinable()) b.maker.join();
        b.copied = {};
        b.copied_at = {};
        // Made here where there was no thread, or it ran out of memory.
        if (!b.lenient_ready) {
            std::size_t labels = 0;
            for (const std::string* l : locations_) labels += l != nullptr;
            b.make_lenient(labels, [this](const auto& f) {
                for (std::size_t i = 0; i < locations_.size(); ++i)
                    if (locations_[i]) f(i, *locations_[i]);
            });
        }
    });
    return &b;
}

label_index::label_index(std::span<const part_labels> parts, const base_uri& parts_base,
                         std::vector<diagnostic>* diags)
    : browser_(std::make_unique<browser_table>()) {
    locations_.assign(parts.size(), nullptr);
    // Most parts have a label (one location key, one last segment): no growing on the way.
    by_location_.reserve(parts.size());
    browser_->labels.reserve(parts.size());
    browser_->parts_base = parts_base.str();
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const part_labels& p = parts[i];
        if (p.content_id) {
            std::string key = id_key(*p.content_id);
            std::string_view trimmed = *p.content_id;
            trimmed.remove_prefix(
                std::min(ascii::find_first_not_of(trimmed, " \t\r\n"), trimmed.size()));
            if (!key.empty() && !trimmed.starts_with('<'))
                report(diags, severity::note, diag_code::content_id_without_brackets, p.path,
                       "Content-ID '" + key + "' has no angle brackets; used as the id");
            if (!key.empty()) {
                if (!by_id_.insert(key, i))
                    report(diags, severity::warning, diag_code::duplicate_content_id, p.path,
                           "Content-ID <" + key +
                               "> is also on an earlier part; references reach the first");
                by_folded_id_.insert(ascii_folded(key), i);
            }
        }
        if (!p.content_location) continue;
        std::string extracted;
        const std::string& label = p.extracted_location
                                       ? *p.extracted_location
                                       : (extracted = extract_header_uri(*p.content_location));
        if (is_cid_url(label)) {  // MHT-8.3.1: a CID: Content-Location labels nothing...
            by_cid_location_.insert(label, i);  // ...except for the Chromium compatibility match
            continue;
        }
        std::optional<base_uri> own;
        if (p.content_base) {
            std::string cb = extract_header_uri(*p.content_base);
            if (is_absolute(cb) && !is_legacy_method_indicator(cb)) own = base_uri::make(cb);
        }
        // Where it stays: by_location_ keeps a view into it.
        const std::string& resolved =
            p.resolved_location
                ? *p.resolved_location
                : owned_locations_.emplace_back((own ? *own : parts_base).resolve(label));
        locations_[i] = &resolved;
        std::string scratch;
        const std::string_view key = location_key(resolved, scratch);  // into one of the two
        // Its tail and §6.2.2 form: on the first miss (lenient_tables).
        // Labels that differ only by fragment: the fragment-exact match.
        if (resolved.find('#') != std::string::npos) {
            std::string fragment_scratch;
            by_fragment_location_.insert(
                std::string(location_key_with_fragment(resolved, fragment_scratch)), i);
        }
        // REQUIREMENTS E-14: a producer that wrote raw spaces into an unquoted
        // Content-Location meant them; the lenient pass also knows that reading.
        std::string_view raw = *p.content_location;
        while (!raw.empty() && text::is_lwsp(raw.front())) raw.remove_prefix(1);
        while (!raw.empty() && text::is_lwsp(raw.back())) raw.remove_suffix(1);
        std::optional<std::string> spaced_reading;  // only where there is white space
        if (ascii::find_first_of(raw, " \t\r\n") != std::string_view::npos)
            spaced_reading =
                extract_header_uri(*p.content_location, nullptr, {.keep_interior_spaces = true});
        const bool has_spaced = spaced_reading && *spaced_reading != label;
        const std::string& spaced = has_spaced ? *spaced_reading : label;
        if (has_spaced) {
            std::string spaced_scratch;
            std::string spaced_key(
                location_key((own ? *own : parts_base).resolve(spaced), spaced_scratch));
            index_tail(spaced_key);
            by_spaced_location_.insert(std::move(spaced_key), i);
        }
        // As a browser reads the label (MHT-8.2.5's browser retry), where that differs from
        // the location key: Chromium keeps the raw spaces of a Content-Location, so the
        // spaced reading (E-14) is indexed too.
        const std::string* readings[] = {&spaced, &label};
        for (const std::string* text : std::span(readings, has_spaced ? 2 : 1)) {
            browser_->add(i, *text, resolved, own ? &own->str() : nullptr);
            // The browser reading's last segment is the location's or the spaced reading's
            // (tail_key reads one as a browser would), but where a browser strips what the
            // header reading keeps (a C0 control or space at the start or the end) or reads
            // a file: URL its own way (a drive letter), its tail is indexed from it now.
            if (browser_reads_otherwise(*text, key)) {
                const std::optional<whatwg_url> b =
                    parsed_base(own ? own->str() : parts_base.str());
                if (auto browser = browser_key_with(*text, b)) index_tail(*browser);
            }
        }
        // REQUIREMENTS L-8: `http:images/x.gif` under an http base, read non-strictly.
        if (auto compat = (own ? *own : parts_base).resolve_same_scheme(label)) {
            std::string compat_scratch;
            std::string compat_key(location_key(*compat, compat_scratch));
            index_tail(compat_key);
            by_same_scheme_location_.insert(std::move(compat_key), i);
        }
        // The browser reading (made later) reads `http:c d` so too, its raw spaces kept: its
        // tail is that reading's.
        if (has_spaced)
            if (auto compat = (own ? *own : parts_base).resolve_same_scheme(spaced)) {
                std::string compat_scratch;
                index_tail(location_key(*compat, compat_scratch));
            }
        // A view where the key is the location's own text (no fictitious scheme respelled).
        const bool first = key.data() == resolved.data() ? by_location_.insert_view(key, i)
                                                         : by_location_.insert(std::string(key), i);
        if (!first)
            report(diags, severity::warning, diag_code::duplicate_content_location, p.path,
                   "Content-Location " + std::string(key) +
                       " is also on an earlier part; references reach the first");
    }
    // Many labels: their tails and §6.2.2 forms are made beside what the caller does next,
    // from a copy of the locations.
    std::size_t labels = 0, octets = 0;
    for (const std::string* l : locations_)
        if (l) {
            ++labels;
            octets += l->size();
        }
    if (labels >= 2048 && std::thread::hardware_concurrency() > 1) {
        browser_table* const b = browser_.get();
        try {
            b->copied.reserve(octets);
            b->copied_at.reserve(labels);
            for (std::size_t i = 0; i < locations_.size(); ++i)
                if (const std::string* l = locations_[i]) {
                    b->copied_at.push_back({i, b->copied.size(), l->size()});
                    b->copied += *l;
                }
            b->maker = std::thread([b]() noexcept {
                try {
                    b->make_from_copy();
                } catch (...) {
                    // out of memory: made on first use, on the caller's thread
                }
            });
        } catch (const std::exception&) {
            // no thread or no memory for the copy: made on first use
        }
    }
}

// A label without a tail (no path, or an empty or dot segment last) needs no entry: every
// reading of it keeps that, and a reference that could match it has no tail either, so it is
// never skipped.
void label_index::index_tail(std::string_view key) const {
    browser_table::index_tail(browser_->rare_tails, key);
}

void label_index::hash_filter::rehash(std::size_t slots) {
    std::vector<std::uint64_t> bigger(slots);
    const std::size_t mask = bigger.size() - 1;
    for (const std::uint64_t h : slots_) {
        if (h == 0) continue;
        std::size_t i = h & mask;
        while (bigger[i] != 0) i = (i + 1) & mask;
        bigger[i] = h;
    }
    slots_ = std::move(bigger);
}

void label_index::hash_filter::reserve(std::size_t n) {
    std::size_t slots = slots_.empty() ? 16 : slots_.size();
    while (slots < 2 * n + 2) slots *= 2;
    if (slots != slots_.size()) rehash(slots);
}

void label_index::hash_filter::insert(std::string_view s) {
    if ((used_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    std::uint64_t h = mhtml::detail::keyed_hash64(s);
    if (h == 0) h = 1;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
        if (slots_[i] == h) return;
        if (slots_[i] == 0) {
            slots_[i] = h;
            ++used_;
            return;
        }
    }
}

bool label_index::hash_filter::may_contain(std::string_view s) const noexcept {
    if (slots_.empty()) return false;
    std::uint64_t h = mhtml::detail::keyed_hash64(s);
    if (h == 0) h = 1;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
        if (slots_[i] == h) return true;
        if (slots_[i] == 0) return false;
    }
}

const std::string* label_index::location(std::size_t i) const {
    return i < locations_.size() ? locations_[i] : nullptr;
}

reference_match label_index::find(std::string_view reference, const base_uri& base,
                                  const match_options& options,
                                  std::vector<diagnostic>* diags) const {
    reference_match m;
    auto lenient_hit = [&](std::size_t part, std::string why) {
        m.part = part;
        m.lenient = true;
        std::string message = "'";
        message += reference;
        message += "' matches no label exactly; ";
        message += why;
        report(diags, severity::ambiguous, diag_code::matched_after_normalisation, {},
               std::move(message));
    };
    if (is_cid_url(reference)) {
        m.resolved = std::string(reference);      // cid: URLs are not resolved (MHT-8.3)
        reference = without_fragment(reference);  // a fragment is not part of the id
        auto converted = cid_to_content_id(reference);
        std::string key = converted ? id_key(converted.value) : std::string();
        if (converted) {
            if (auto hit = lookup(by_id_, key)) {
                m.part = *hit;
                return m;
            }
        }
        if (options.strict) return m;
        if (options.cid_content_location) {
            if (auto hit = lookup(by_cid_location_, reference)) {
                m.part = *hit;
                m.lenient = true;
                std::string message = "'";
                message += reference;
                message +=
                    "' matches no Content-ID; matched the part whose Content-Location is that cid: "
                    "URL, "
                    "as Chromium writes and reads its archives (RFC 2557 8.3 says it names "
                    "nothing)";
                report(diags, severity::ambiguous, diag_code::cid_matched_content_location, {},
                       std::move(message));
                return m;
            }
        }
        if (!key.empty()) {
            if (auto hit = lookup(by_folded_id_, ascii_folded(key))) {
                lenient_hit(*hit, "matched a Content-ID that differs only in letter case (CID-16)");
                return m;
            }
        }
        if (reference.find('%') != std::string_view::npos) {
            if (auto hit = lookup(by_id_, reference.substr(4))) {
                lenient_hit(*hit,
                            "matched the Content-ID written without %-decoding (RFC 2392's "
                            "example, MHT-8.3.2)");
            }
        }
        return m;
    }
    if (is_same_document(reference)) {
        m.same_document = true;
        m.resolved = base.resolve(reference, diags);
        return m;
    }
    m.resolved = base.resolve(reference, diags);
    if (is_mid_url(reference)) return m;  // other messages: the message store (a later layer)
    std::string scratch;
    std::string_view key = location_key(m.resolved, scratch);
    if (auto hit = lookup(by_location_, key)) {
        m.part = *hit;
        if (options.strict || m.resolved.find('#') == std::string::npos) return m;
        // Labels that differ only by fragment: the one whose fragment is the reference's.
        std::string fragment_scratch;
        const std::size_t* exact =
            lookup(by_fragment_location_, location_key_with_fragment(m.resolved, fragment_scratch));
        if (exact && *exact != *hit) {
            m.part = *exact;
            m.lenient = true;
            std::string message = "'";
            message += reference;
            message += "': several parts are labelled ";
            message += key;
            message +=
                " with different fragments; picked the one whose label's fragment is the "
                "reference's, as Chromium does (the strict reading sets fragments aside and takes "
                "the first, MHT-8.2.4)";
            report(diags, severity::ambiguous, diag_code::matched_after_normalisation, {},
                   std::move(message));
        }
        return m;
    }
    if (options.strict) return m;
    const browser_table* lenient = lenient_tables();
    if (!lenient) return m;  // moved from: no labels
    // Every reading below keeps the last path segment (tail_key): when no label has the
    // reference's, none can match, and the costly readings are skipped.
    if (!options.every_reading) {
        bool none = true;  // no reading of the reference has a tail some label has
        for (const std::string_view u : {std::string_view(m.resolved), reference})
            for (const bool backslash : {true, false}) {
                if (!backslash && u.find('\\') == std::string_view::npos) continue;  // the same
                const auto t = tail_key(u, backslash);
                none = none && t && !lenient->tails.may_contain(*t) &&
                       !lenient->rare_tails.may_contain(*t);
            }
        // A file: URL's drive letter (`C|` for `C:`) can make the browser's last segment
        // another: no skipping there.
        if (none && !ascii::istarts_with(m.resolved, "file:")) return m;
    }
    std::string normal = normalize(key);
    const std::size_t* normal_hit = lookup(lenient->by_normal_location, normal);
    if (!normal_hit && normal != key) normal_hit = lookup(by_location_, normal);
    const std::size_t* browser_hit = nullptr;
    std::optional<std::string> browser;
    if (!normal_hit) {
        browser = browser_key_with(reference, parsed_base(base.str()));
        if (browser) {
            const std::size_t* a = lookup(by_browser_location(), *browser);
            const std::size_t* b = lookup(by_location_, *browser);
            browser_hit = a && b ? (*a < *b ? a : b) : a ? a : b;  // the first part wins
        }
    }
    if (normal_hit) {
        lenient_hit(*normal_hit,
                    "matched after RFC 3986 6.2.2 normalisation (case, %-escapes, dot segments)");
    } else if (browser_hit) {
        lenient_hit(*browser_hit,
                    "matched after parsing the reference and the labels as a browser does (the URL "
                    "Standard: spaces, quotes and octets above 0x7E %-encoded, host lower-cased, "
                    "default port dropped, backslashes read as slashes), which is how Chromium "
                    "looks " +
                        *browser + " up in an archive");
    } else if (auto spaced = lookup(by_spaced_location_, key)) {
        lenient_hit(*spaced,
                    "matched a Content-Location read with its raw spaces kept (REQUIREMENTS E-14)");
    } else if (auto same = lookup(by_same_scheme_location_, key)) {
        lenient_hit(*same,
                    "matched a Content-Location like 'http:g' read as relative to a base of the "
                    "same scheme (RFC 3986 5.4.2 non-strict, REQUIREMENTS L-8)");
    } else if (auto compat = base.resolve_same_scheme(reference)) {
        std::string compat_scratch;
        if (auto hit = lookup(by_location_, location_key(*compat, compat_scratch)))
            lenient_hit(*hit,
                        "matched when read as relative to the base of the same scheme (RFC 3986 "
                        "5.4.2 non-strict, REQUIREMENTS L-8)");
    }
    return m;
}

}  // namespace mhtml::uri
