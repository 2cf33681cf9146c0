#pragma once
/// The aggregate documents of a message (MHTML draft chapters 5, 7, 8; RFC 2557): every
/// multipart/related structure with its root and its label index, the base URI of every
/// entity, and the resolution of a reference found in a part to a body part or to the
/// outside world.
///
/// Base URIs (chapter 5): for the body of a part, (a) the HTML `<base href>` (resolved
/// against what the next steps give), (b) the Content-Base of its own heading, (c) its own
/// Content-Location when that is literally absolute, (d) (b) then (c) of each enclosing
/// heading, innermost first, (e) `thismessage:/`. A Content-Location is resolved against
/// the base of its own heading: (b), then (d), then (e). A Content-Base that is not absolute
/// is reported and skipped (MHT-4.3.2); `FILE:` and `CID` are method indicators, never bases
/// (THTML-10.1).
///
/// `mid:` URLs (CID-6) name a message of this document (the top-level one or one attached as
/// message/rfc822) by Message-ID, and with `/content-id` a part inside it; other messages
/// are looked up in the `message_store` given in the options (none: they resolve as
/// external).
///
/// Resolution (8.2, 8.3): a reference is resolved against its part's base and looked up in
/// the label index of the part's own related structure, then of each enclosing one (RFC
/// 2557 §7; a hit there is noted). A `cid:` URL that names no body part but alternatives
/// inside a multipart/alternative body part names the last of them (CID-8). Unless
/// `strict`, a miss in a part whose resolved Content-Location differs from its base (a
/// relative Content-Location, REQUIREMENTS E-13; a Content-Base beside an absolute
/// Content-Location, L-1) is retried with the resolved Content-Location as base (ambiguous).
///
/// Style sheets Blink made from `<style>` elements: Blink saves the rules of a `<style>` as a
/// part labelled `Content-Location: cid:css-...@mhtml.blink` and links it from the document
/// with `<link rel=stylesheet href="cid:css-...">`. Chromium resolves the sheet's `url()`s
/// against the document that holds the `<style>` (its base URI, `<base href>` included), as the
/// live page did; chapter 5 resolves them against the `cid:` label, where they name nothing.
/// Unless `strict`, in an archive Blink wrote, a relative reference in such a sheet that misses
/// is resolved against the holding document's base (ambiguous). `@import` differs: Chromium
/// resolves it against the sheet's own `cid:` URL, so a relative one loads nothing (an absolute
/// one loads); `aggregate_options::blink_style_imports` chooses between that and the live page.

#include "mhtml/archive/root.hpp"
#include "mhtml/detail/keyed_hash.hpp"
#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/uri/label_index.hpp"
#include "mhtml/uri/reference.hpp"

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::archive {

/// Messages other than the one being read, by Message-ID (CID-6, CID-7): a mail store, a
/// folder of .eml files, the other messages of a batch. The archive layer asks it only for
/// `mid:` URLs that name no message of the document itself.
class MHTML_EXPORT message_store {
public:
    virtual ~message_store() = default;
    /// The message whose Message-ID is `message_id` (an id as `uri::id_key` gives it: no
    /// angle brackets) or, when `content_id` is not empty, the part of that message whose
    /// Content-ID is `content_id` (also an id_key). nullopt when the store has no such thing.
    /// The part's document must outlive every resolution that returns it.
    [[nodiscard]] virtual std::optional<mime::part_view> find(
        std::string_view message_id, std::string_view content_id) const = 0;
};

struct aggregate_options {
    bool strict = false;  ///< no retries, compatibility matches or root recovery (`--strict`)
    root_options root{};
    /// Blink's cid: Content-Locations (uri::match_options::cid_content_location): `automatic`
    /// turns the match on for archives Blink wrote ("From: <Saved by Blink>").
    enum class blink_mode { automatic, on, off } blink = blink_mode::automatic;
    /// Where `mid:` URLs naming other messages are looked up; nullptr: nowhere. It must
    /// outlive the aggregate.
    const message_store* store = nullptr;
    /// Diagnostics kept (parse_limits::max_diagnostics): past it, one final
    /// `diagnostics_dropped` counts the rest.
    std::size_t max_diagnostics = parse_limits{}.max_diagnostics;
    /// A relative `@import` in a style sheet Blink made from a `<style>` element (see above):
    /// `chromium` resolves it against the sheet's `cid:` label, as Chromium's view of the
    /// archive does (it names nothing and the imported sheet is not used, reported as
    /// `style_element_sheet`); `live_page` against the document that holds the `<style>`,
    /// as the live page did (`mhtml extract|inline --blink-style-imports=live`).
    enum class style_imports { chromium, live_page } blink_style_imports = style_imports::chromium;
};

/// What the layer knows about one entity.
struct entity_info {
    std::optional<std::string> location;  ///< the resolved Content-Location, if the heading has one
    /// The URI the Content-Location field carries (uri::extract_header_uri: RFC 2017 quoted
    /// words and RFC 2047 words undone), before resolution.
    std::optional<std::string> location_text;
    /// The base its own Content-Location resolves against. (Views into the aggregate, which
    /// keeps each base once: most parts share theirs, or have their own Content-Location.
    /// They live as long as the aggregate: copy them to keep them longer.)
    std::string_view heading_base;
    std::string_view base;  ///< the base for its body (chapter 5, <base href> included)
    int related = -1;       ///< index in related() of the structure it is a body part of, or -1
    bool has_html_base = false;  ///< the base came from a <base href> in the body
};

/// One multipart/related structure.
struct related_structure {
    mime::part_view part;
    root_selection root;
    std::vector<mime::part_view> members;  ///< its direct body parts, in order
    uri::label_index index;
    int parent = -1;  ///< index of the enclosing related structure, or -1
    /// CID-8: Content-IDs carried by alternatives inside a multipart/alternative body part
    /// (id_key -> entity index). Alternatives may share one id; it names the one a reader
    /// displays, the last (RFC 2046 §5.1.4: alternatives are in increasing preference).
    mhtml::detail::keyed_string_map<std::uint32_t> alternative_ids;
};

enum class document_type { none, html, css, svg };
/// What a part holds that can contain URI references (MHT-1.1: HTML, and CSS and SVG too).
MHTML_EXPORT document_type document_type_of(const mime::part_view& p) noexcept;

/// A document part's text as the scanners read it, and what they found.
struct document_text {
    document_type type = document_type::none;
    /// The decoded body; for a part in ISO-2022-JP or UTF-16, and for an XML document (SVG,
    /// application/xhtml+xml) in anything but UTF-8, transcoded to UTF-8 (without its byte
    /// order mark).
    std::string text;
    /// How a browser decodes `text` (WHATWG name, html::detect_charset: BOM, the Content-Type
    /// charset, <meta>, windows-1252; for XML html::detect_xml_charset); "UTF-8" after
    /// transcoding. For CSS: the Content-Type
    /// charset as a WHATWG name, or "" (the sheet's own @charset or its referrer decide).
    std::string charset;
    bool transcoded = false;  ///< `text` is UTF-8 made from another charset
    html::scan_result scan;
};

struct resolution {
    std::string resolved;  ///< the absolute URI (cid:/mid: as written)
    std::optional<mime::part_view> target;
    bool same_document = false;  ///< empty or fragment-only reference
    bool lenient = false;        ///< found only by a retry or a compatibility match
    /// The target is a part of another message, found in the message store: info() and
    /// references() do not apply to it (they are about this document).
    bool from_store = false;
};

/// Threads: every const member function may be called from several threads at once on one
/// aggregate (as long as its document is neither destroyed nor moved meanwhile, and the
/// message_store, if any, may itself be called from several threads). The only state they
/// change is an HTML part's <base href>, found the first time that part's base is needed,
/// and that is synchronised (tests/unit/archive/aggregate_test.cpp; docs/design.md says how
/// it was run under ThreadSanitizer).
class MHTML_EXPORT aggregate {
public:
    /// Reads every related structure and every heading of `doc`, which must outlive the
    /// aggregate (it may be moved meanwhile: the aggregate follows it).
    static aggregate build(const mime::document& doc, const aggregate_options& options = {});
    aggregate(aggregate&&) noexcept;
    aggregate& operator=(aggregate&&) noexcept;
    ~aggregate();

    /// The first call for an HTML part (or the first resolve() from it, or read_document()
    /// of it) scans it for <base href>; two threads asking at once may both scan it.
    [[nodiscard]] const entity_info& info(const mime::part_view& p) const;
    /// The resolved Content-Location of `p`'s heading (entity_info::location), without the
    /// `<base href>` scan info() makes for an HTML part (a heading's base never depends on it).
    [[nodiscard]] const std::optional<std::string>& location(
        const mime::part_view& p) const noexcept {
        return entities_[p.index()].location;
    }
    /// The document this aggregate was built over.
    [[nodiscard]] const mime::document& document() const noexcept { return top_.doc(); }
    [[nodiscard]] const std::vector<related_structure>& related() const noexcept {
        return related_;
    }
    /// The first related structure's root (the page), or the document's own root entity when
    /// the message has no multipart/related.
    [[nodiscard]] mime::part_view main_root() const;
    /// Snapshot-Content-Location of the top-level heading (Chromium): the page's URL.
    [[nodiscard]] const std::optional<std::string>& snapshot_location() const noexcept {
        return snapshot_;
    }
    /// True when Blink wrote the archive (and its cid: Content-Locations are matched).
    [[nodiscard]] bool blink() const noexcept { return match_.cid_content_location; }

    /// Resolves `reference`, found in the body of `from`.
    [[nodiscard]] resolution resolve(const mime::part_view& from, std::string_view reference,
                                     std::vector<diagnostic>* diags = nullptr) const;
    /// Resolves a reference the scanner found in `from` (as above; it also knows whether the
    /// reference is a CSS `@import`, which a style sheet Blink made from a `<style>` element
    /// resolves differently).
    [[nodiscard]] resolution resolve(const mime::part_view& from, const html::reference& r,
                                     std::vector<diagnostic>* diags = nullptr) const;

    /// The leaf a viewer shows for `p` (a part of this aggregate's document): `p` itself when
    /// it is a leaf, the displayed alternative of a multipart/alternative (the last), the
    /// root of a multipart/related, the body of a message, the first HTML leaf (else the first
    /// part) of any other multipart; nullopt when there is none.
    [[nodiscard]] std::optional<mime::part_view> shown_leaf(mime::part_view p) const;

    /// The HTML document whose `<link rel=stylesheet>` names `sheet`, when `sheet` is a style
    /// sheet Blink made from a `<style>` element (a text/css part labelled with a `cid:` URL in
    /// an archive Blink wrote); nullopt otherwise, and always with `strict`. Found when the
    /// aggregate is built: in such an archive, the HTML parts are scanned then.
    [[nodiscard]] std::optional<mime::part_view> style_element_holder(
        const mime::part_view& sheet) const;

    /// The references in a document part (HTML, CSS, SVG), decoded from its body. A part in
    /// ISO-2022-JP or UTF-16 is transcoded to UTF-8 first (its octets are not ASCII-based),
    /// so offsets then refer to the UTF-8 text (read_document() gives that text).
    [[nodiscard]] html::scan_result references(const mime::part_view& p) const;
    /// The text references() scanned, with the scan (for rewriting it).
    [[nodiscard]] document_text read_document(const mime::part_view& p) const;

    /// What building found: root selection, Content-Base values, duplicate labels.
    [[nodiscard]] const std::vector<diagnostic>& diagnostics() const noexcept { return diags_; }

private:
    mime::part_view top_{nullptr, 0};  // the document's outermost entity (follows its moves)
    mime::part_view part(std::size_t i) const { return top_.doc().part(i); }
    aggregate_options options_;
    uri::match_options match_;
    void ensure_html_base(std::size_t i) const;
    void apply_html_base(std::size_t i, const html::scan_result& scan) const;
    [[nodiscard]] const uri::base_uri* parsed_base(std::size_t i) const;
    std::optional<mime::part_view> resolve_mid(std::string_view reference, bool& from_store) const;
    resolution resolve_reference(const mime::part_view& from, std::string_view reference,
                                 bool css_import, std::vector<diagnostic>* diags) const;
    void find_style_holders();

    aggregate();
    // entities_[i] and bases_[i] gain an HTML part's <base href> on first use
    // (ensure_html_base), under the lock of lazy_, which then marks i done (release); they are
    // read only once i is done (acquire). bases_[i] is parsed on first use too (parsed_base),
    // under the same lock, and marked parsed. Other entries are not written after build().
    // Sized once in build(): views into its location_text strings stay valid (also when the
    // aggregate moves: the vector's buffer moves with it).
    mutable std::vector<entity_info> entities_;
    // entities_[i].base, parsed once (null: not yet, or it does not parse).
    mutable std::vector<std::unique_ptr<const uri::base_uri>> bases_;
    // The texts of bases that are no entity's location_text (Content-Base values, resolved
    // <base href>s): entity_info::base and heading_base view them (a deque: they stay put).
    mutable std::deque<std::string> base_texts_;
    struct lazy_bases;  // the done marks and the lock (aggregate.cpp)
    std::unique_ptr<lazy_bases> lazy_;
    std::vector<related_structure> related_;
    // mid: URLs (CID-6): Message-ID key -> message entity; "message index/Content-ID key" ->
    // the first part with that Content-ID inside that message.
    mhtml::detail::keyed_string_map<std::uint32_t> messages_;
    mhtml::detail::keyed_string_map<std::uint32_t> ids_in_message_;
    std::optional<std::string> snapshot_;
    std::vector<diagnostic> diags_;
    // Style sheets Blink made from <style> elements -> the HTML part linking each, by entity
    // index, sorted by sheet.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> style_holders_;
};

}  // namespace mhtml::archive
