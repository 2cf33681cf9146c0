#pragma once
/// Rewriting the references found by html/scan.hpp: only the raw value bytes of the
/// references that get a new value change, re-escaped for where they stand (attribute
/// quoting and character references, srcset and list separators, the meta refresh URL,
/// CSS url() and string escapes, raw text that must not close its <style>); every other
/// byte is copied unchanged, except where an `edit` (markup found by a tokenizer pass, such
/// as an attribute name to change, or a declaration to insert) says otherwise.

#include "mhtml/export.hpp"
#include "mhtml/html/scan.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::html {

/// A change to a document other than a reference's value: the `length` octets at `offset`
/// become `replacement` (an insertion when `length` is 0).
struct edit {
    std::size_t offset = 0;
    std::size_t length = 0;
    std::string replacement;
};

struct markup_edit_options {
    /// Blink's shadow roots made standard: Blink saves a shadow root as `<template
    /// shadowmode="open|closed">` (and `shadowdelegatesfocus` when it delegates focus), which
    /// only Chromium's MHTML loader attaches (in any archive it opens, Blink's or not). On an
    /// HTML `<template>` (not in SVG or MathML) whose `shadowmode` is exactly `open` or
    /// `closed` (Chromium's loader attaches nothing for `OPEN` or ` open`) and that has no
    /// `shadowrootmode` of its own (which then decides, in Chromium's loader too), the
    /// attribute is renamed `shadowrootmode`, and `shadowdelegatesfocus`
    /// `shadowrootdelegatesfocus` (unless that is there too): the declarative shadow DOM every
    /// browser attaches. Blink writes no other attribute on these templates; other
    /// attributes are left as they are.
    bool shadow_roots = false;
    /// `<meta http-equiv="refresh">` becomes an inert `<meta data-equiv="refresh">` (a refresh
    /// navigates without a script, so a policy cannot stop it; Chromium's view of an archive
    /// never follows one).
    bool disable_refresh = false;
};

struct markup_edits {
    std::vector<edit> edits;       ///< sorted by offset, none overlapping, none inside a reference
    std::size_t shadow_roots = 0;  ///< templates made declarative shadow roots
    std::size_t refreshes = 0;     ///< refreshes disabled
};

/// The edits `options` asks for in an HTML document, found in one pass of the tokenizer
/// (html/tokenizer.hpp). They change attribute names only, so they never touch a reference.
MHTML_EXPORT markup_edits find_markup_edits(std::string_view html,
                                            const markup_edit_options& options);

/// The raw text that, put in place of `r`'s raw value, reads back as `url`.
MHTML_EXPORT std::string escape_for(const reference& r, std::string_view url);

/// `input` with each reference for which `replace` returns a value written as that value.
/// `refs` must be a scan of `input` (document order, no overlaps). A reference left alone
/// (nullopt), or given its own decoded value, keeps its raw bytes, so a rewrite that changes
/// nothing returns `input` byte for byte.
MHTML_EXPORT std::string rewrite(
    std::string_view input, std::span<const reference> refs,
    const std::function<std::optional<std::string>(const reference&)>& replace);

/// As rewrite(), handing the output to `sink` piece by piece instead of building it (for
/// outputs larger than the caller wants to hold: every replacement is made when it is
/// reached, so only one replacement value is in memory at a time).
MHTML_EXPORT void rewrite_to(
    std::string_view input, std::span<const reference> refs,
    const std::function<std::optional<std::string>(const reference&)>& replace,
    const std::function<void(std::string_view)>& sink);

/// As rewrite_to(), also applying `edits` (sorted by offset). An insertion at a reference's
/// offset comes before the reference. An edit that overlaps a reference or an earlier edit
/// is not applied (the scanner's references and find_markup_edits() never overlap) and is
/// counted in the return value, which is otherwise 0.
MHTML_EXPORT std::size_t rewrite_to(
    std::string_view input, std::span<const reference> refs,
    const std::function<std::optional<std::string>(const reference&)>& replace,
    std::span<const edit> edits, const std::function<void(std::string_view)>& sink);

/// `input` with `edits` applied (sorted, not overlapping; an overlapping one is skipped).
MHTML_EXPORT std::string apply_edits(std::string_view input, std::span<const edit> edits);

}  // namespace mhtml::html
