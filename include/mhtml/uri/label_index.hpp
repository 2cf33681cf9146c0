#pragma once
/// The labels of the body parts of one related structure, indexed for resolving references
/// (MHTML draft §8.2, §8.3; REQUIREMENTS MHT-8.2.4 to MHT-8.2.7, MHT-8.3.1, MHT-8.3.2).
///
/// A `cid:` reference matches only Content-IDs, compared as ids (percent-decoded URL
/// against the id between the angle brackets). Any other reference is resolved against the
/// referencing part's base and matched octet for octet, fragment set aside, against each
/// part's resolved Content-Location; the schemes `thismessage` and `this_message` are the
/// only equivalence. A Content-Location that is a `cid:` URL labels nothing. When two parts
/// carry the same label the first wins (reported). Lookups are hash lookups, so resolving
/// every reference of an archive is linear in the number of references.
///
/// Unless `strict` is set, a miss is retried: locations after RFC 3986 §6.2.2
/// normalisation, then both the reference and the labels parsed as a browser parses them
/// (the URL Standard, uri/whatwg_url.hpp: what Chromium does before it looks a URL up in an
/// archive, so `img/with space.png` finds `img/with%20space.png`), then an unquoted
/// Content-Location read with its raw spaces kept (REQUIREMENTS E-14), then labels and
/// references like `http:g` read with RFC 3986's non-strict "same scheme" rule (§5.4.2,
/// REQUIREMENTS L-3, L-8); ids case-insensitively and, for a `cid:` URL with `%`, undecoded
/// (RFC 2392's printed example). A hit found this way is reported
/// `matched_after_normalisation` with severity `ambiguous`. A separate, documented compatibility
/// match covers the cid: Content-Locations Chromium writes (match_options::cid_content_location).
///
/// Fragments: labels that differ only by their fragment are one label for the strict match
/// (the first part wins, reported as a duplicate). Unless `strict`, a reference whose fragment
/// equals one of those labels' fragments exactly picks that part, as Chromium, which compares
/// fragments too, does (reported `ambiguous` when that is not the first part).

#include "mhtml/detail/string_index.hpp"
#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/uri/reference.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mhtml::uri {

/// One body part's labels: field bodies as they stand in its heading (nullopt = no field).
struct part_labels {
    std::optional<std::string_view> content_id;
    std::optional<std::string_view> content_location;
    std::optional<std::string_view> content_base;
    std::string_view path;  ///< the part's path, for diagnostics (may be empty)
    /// extract_header_uri(*content_location), when the caller has it already; null: the index
    /// extracts it.
    const std::string* extracted_location = nullptr;
    /// The Content-Location as the index would resolve it (extracted, then resolved against
    /// the part's absolute Content-Base, else `parts_base`), when the caller has it already;
    /// null: the index resolves it. The index keeps this pointer (no copy): the string must
    /// stay as it is, where it is, as long as the index (the aggregate's entity records).
    const std::string* resolved_location = nullptr;
};

struct match_options {
    bool strict = false;  ///< no retries and no compatibility matches (the CLI's --strict)
    /// Chromium compatibility: Blink saves style sheets as parts labelled
    /// `Content-Location: cid:css-...@mhtml.blink` with no Content-ID, links them as
    /// `href="cid:css-..."`, and resolves them by Content-Location when it opens the archive.
    /// RFC 2557 (MHT-8.3.1) says such a label names nothing; with this option (and not
    /// `strict`) a cid: reference that matches no Content-ID matches a part whose
    /// Content-Location is that same cid: URL, octet for octet, reported
    /// `cid_matched_content_location` (ambiguous). Off by default, because it contradicts a
    /// MUST; the archive layer turns it on for archives Blink wrote ("Saved by Blink").
    bool cid_content_location = false;
    /// Every lenient reading is tried even when no label has the reference's last path
    /// segment (a filter that skips them, since none can match then). For the tests that
    /// check the filter changes no answer.
    bool every_reading = false;
};

struct reference_match {
    std::string resolved;             ///< after resolution, fragment kept; cid:/mid: as written
    std::optional<std::size_t> part;  ///< index into the parts, or nullopt
    bool same_document = false;       ///< empty or fragment-only: names the referencing part
    bool lenient = false;             ///< found only by a retry
};

class MHTML_EXPORT label_index {
public:
    /// `parts` in document order. `parts_base` resolves the relative Content-Locations of
    /// parts without an absolute Content-Base of their own (MHTML chapter 5 applied to the
    /// enclosing headings; `thismessage:/` when none gives one).
    label_index(std::span<const part_labels> parts, const base_uri& parts_base,
                std::vector<diagnostic>* diags = nullptr);
    ~label_index();
    label_index(label_index&&) noexcept;
    label_index& operator=(label_index&&) noexcept;

    /// The part `reference`, found in a part whose base is `base`, names.
    [[nodiscard]] reference_match find(std::string_view reference, const base_uri& base,
                                       const match_options& options = {},
                                       std::vector<diagnostic>* diags = nullptr) const;

    /// The resolved Content-Location of part `i` (nullptr when it has none or it is a cid: URL).
    [[nodiscard]] const std::string* location(std::size_t i) const;

private:
    /// Keys in a detail::string_index: no node per entry, lookups by string_view without
    /// allocating. The first key inserted wins.
    class string_map {
    public:
        /// Inserts `key` -> `value` unless `key` is present; returns false if it was.
        bool insert(std::string key, std::size_t value);
        /// As insert(), keeping a view: `key` must stay as it is, where it is, as long as the
        /// map (a key inside locations_, whose strings neither move nor change).
        bool insert_view(std::string_view key, std::size_t value);
        [[nodiscard]] const std::size_t* find(std::string_view key) const noexcept;
        /// Room for `n` entries without growing.
        void reserve(std::size_t n) {
            index_.reserve(n);
            entries_.reserve(n);
        }

    private:
        mhtml::detail::string_index index_;  // the keys of entries_, by position
        std::vector<std::pair<std::string_view, std::size_t>> entries_;
        std::deque<std::string> owned_;  // the keys insert() was given (a deque: they stay put)
    };

    // Part i's resolved location (null: none, or a cid: URL): the caller's string
    // (part_labels::resolved_location) or one in owned_locations_. by_location_ keeps views
    // into them.
    std::vector<const std::string*> locations_;
    std::deque<std::string> owned_locations_;  // resolved here (a deque: they stay put)
    string_map by_location_;         // fragment-free; the fictitious scheme spelled `thismessage`
    string_map by_id_;               // id_key()
    string_map by_folded_id_;        // id_key(), ASCII lower-cased
    string_map by_cid_location_;     // Content-Locations that are cid: URLs, as written
    string_map by_spaced_location_;  // unquoted Content-Locations read keeping raw spaces (E-14)
    string_map by_same_scheme_location_;  // `http:g` labels read non-strictly (L-8)
    // What only a lenient lookup reads, made when the first one needs it (an archive whose
    // references all match exactly never does): the labels' last segments (tails, below) and
    // their RFC 3986 §6.2.2 forms on the first miss; browser_key() where it differs from the
    // location key when a miss gets that far (parsing every label as a browser does is the
    // index's costliest step). Its tails are the location's or the spaced reading's (tail_key
    // reads a segment as a browser would).
    struct browser_table;
    std::unique_ptr<browser_table> browser_;
    [[nodiscard]] const string_map& by_browser_location() const;
    /// The tails and the §6.2.2 table, made on first use; null when moved from.
    [[nodiscard]] const browser_table* lenient_tables() const;
    string_map by_fragment_location_;  // labels with a fragment, fragment kept
    // The last path segment of every label in the tables above, as the lenient readings can
    // spell it (tail_key in label_index.cpp): a reference whose segment is not here matches
    // nothing, and find() skips its costly retries. A filter: only each segment's keyed hash
    // is kept, so a segment no label has may pass it (the retries then run and find nothing:
    // the answer is the same), but one that a label has always does.
    class hash_filter {
    public:
        void insert(std::string_view s);
        [[nodiscard]] bool may_contain(std::string_view s) const noexcept;
        void reserve(std::size_t n);  ///< room for `n` hashes without growing

    private:
        void rehash(std::size_t slots);
        std::vector<std::uint64_t> slots_;  // 0 = empty; a hash of 0 is kept as 1
        std::size_t used_ = 0;
    };
    void index_tail(std::string_view key) const;  // a rare reading's, into browser_->rare_tails
};

/// The key the browser retry compares: `reference` parsed by the URL Standard's parser
/// against `base` (uri/whatwg_url.hpp), serialized without its fragment; the fictitious
/// scheme is spelled `thismessage` on the way in, and a `|` in the path is written `%7C`, as
/// Chromium writes it (the URL Standard keeps it; Chromium's labels have `%7C`). nullopt
/// where the parser fails (a relative reference against `cid:x` or against a base that does
/// not parse, a bad host or port); an absolute reference parses whatever the base.
MHTML_EXPORT std::optional<std::string> browser_key(std::string_view reference,
                                                    std::string_view base);

}  // namespace mhtml::uri
