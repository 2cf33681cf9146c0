#pragma once
/// URI references and their resolution (RFC 3986 §5.2), as MHTML compares them.
///
/// MHTML matches a reference to a body part octet by octet after resolution (MHT-8.2), so
/// resolution here never decodes `%XX`, never changes case and never "fixes" octets that a
/// URI may not contain: a reference written `a b.gif` in the HTML must still match a
/// Content-Location that decodes to `a b.gif` (MHT-4.4.1.6). Such references are resolved
/// as written and reported (`uri_invalid_chars`, `uri_invalid_syntax`).
///
/// The fictitious base of MHTML (chapter 5 e) is `thismessage:/` (RFC 2557). The seed's
/// spelling `this_message:` is not a valid scheme (`_`), but it is read as a scheme and
/// compared as the same one (REQUIREMENTS L-2); resolution keeps whichever spelling it was
/// given, as RFC 3986 copies schemes, and normalize() writes `thismessage`.

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::uri {

inline constexpr std::string_view fictitious_base = "thismessage:/";

/// The five components of a URI reference (RFC 3986 appendix B), as views into it. A
/// component that is absent differs from one that is present but empty (`has_*`).
struct reference_parts {
    std::string_view scheme, authority, path, query, fragment;
    bool has_scheme = false, has_authority = false, has_query = false, has_fragment = false;
};

/// Splits any octet string into the five components. Never fails: the split of appendix B
/// accepts every string, except that a scheme must be RFC 3986 syntax (`ALPHA *( ALPHA /
/// DIGIT / "+" / "-" / "." )`, or the `this_message` alias); otherwise the text before
/// the colon is part of a relative path, as browsers read it.
MHTML_EXPORT reference_parts split_reference(std::string_view ref) noexcept;

/// True when `ref` has a scheme (RFC 3986 §4.3 absolute, fragment allowed).
MHTML_EXPORT bool is_absolute(std::string_view ref) noexcept;

/// True for a scheme spelled `thismessage` or `this_message`, in any case.
MHTML_EXPORT bool is_fictitious_scheme(std::string_view scheme) noexcept;

/// `ref` without its `#fragment` (RFC 3986 §6.1: fragments are set aside when comparing).
MHTML_EXPORT std::string_view without_fragment(std::string_view ref) noexcept;

/// An empty or fragment-only reference names the document it is in (MHT-8.2.6).
MHTML_EXPORT bool is_same_document(std::string_view ref) noexcept;

/// RFC 3986 §5.2.4 on a path: literal `.` and `..` segments only (`%2E` is not a dot here).
MHTML_EXPORT std::string remove_dot_segments(std::string_view path);

/// Checks `ref` against RFC 3986 and reports what is wrong with it. Returns true when it is
/// a valid URI reference. `offset` is added to the offsets of the diagnostics.
MHTML_EXPORT bool check_reference(std::string_view ref, std::vector<diagnostic>* diags = nullptr,
                                  std::size_t offset = 0);

/// A base URI, split once and reused for many references (RFC 3986 §5.1: the base is an
/// absolute URI; its fragment is dropped).
class MHTML_EXPORT base_uri {
public:
    /// nullopt when `text` has no scheme.
    static std::optional<base_uri> make(std::string_view text);
    /// The fictitious base `thismessage:/`.
    static base_uri fictitious();

    // The components are views into text_, so copies and moves split again.
    base_uri(const base_uri& o) : text_(o.text_) { split(); }
    base_uri(base_uri&& o) noexcept : text_(std::move(o.text_)) { split(); }
    base_uri& operator=(const base_uri& o) {
        if (this != &o) {
            text_ = o.text_;
            split();
        }
        return *this;
    }
    base_uri& operator=(base_uri&& o) noexcept {
        text_ = std::move(o.text_);
        split();
        return *this;
    }
    ~base_uri() = default;

    /// The target URI of `ref` (RFC 3986 §5.2.2 strict, §5.3 recomposition), fragment kept.
    /// `ref` is checked and problems reported to `diags` (see check_reference).
    [[nodiscard]] std::string resolve(std::string_view ref,
                                      std::vector<diagnostic>* diags = nullptr) const;
    /// As resolve(), writing into `out` (cleared first) so a caller can reuse its buffer.
    void resolve_into(std::string& out, std::string_view ref,
                      std::vector<diagnostic>* diags = nullptr) const;

    /// The non-strict reading of RFC 3986 §5.2.2 (§5.4.2, REQUIREMENTS L-8): a reference
    /// whose scheme is the base's (any case) is resolved as if it had none, so `http:g`
    /// against `http://a/b/c/d;p?q` gives `http://a/b/c/g`. nullopt when that reading gives
    /// what resolve() gives (another scheme, no scheme, or an authority of its own).
    [[nodiscard]] std::optional<std::string> resolve_same_scheme(std::string_view ref) const;

    [[nodiscard]] const std::string& str() const noexcept { return text_; }
    [[nodiscard]] bool is_fictitious() const noexcept {
        return is_fictitious_scheme(parts_.scheme);
    }

private:
    base_uri() = default;
    void split() noexcept;
    std::string text_;
    reference_parts parts_;  // views into text_
};

/// Resolves `ref` against `base`; nullopt when `base` is not absolute.
MHTML_EXPORT std::optional<std::string> resolve(std::string_view base, std::string_view ref,
                                                std::vector<diagnostic>* diags = nullptr);

/// The octet-exact comparison of MHT-8.2.4: fragments set aside, and the schemes
/// `this_message` and `thismessage` (any case) taken as one. Nothing else is equivalent.
MHTML_EXPORT bool same_resource(std::string_view a, std::string_view b) noexcept;

/// RFC 3986 §6.2.2 syntax-based normalisation, for the `ambiguous` retry after a strict
/// miss (MHT-8.2.5): scheme and host lower-cased, `%xx` hex upper-cased, escapes of
/// unreserved octets decoded, dot segments removed. The fictitious scheme becomes
/// `thismessage`. The fragment is kept.
MHTML_EXPORT std::string normalize(std::string_view ref);

/// A quick test that normalize(ref) is `ref` itself: no `%`, a lower-case scheme (the
/// fictitious one spelled `thismessage`), no upper-case letter in the authority, no dot
/// segment. It may say false of a reference that is normal (then normalize() tells).
[[nodiscard]] MHTML_EXPORT bool is_normal_form(std::string_view ref) noexcept;

}  // namespace mhtml::uri
