#pragma once
/// Rewriting the references found by html/scan.hpp: only the raw value bytes of the
/// references that get a new value change, re-escaped for where they stand (attribute
/// quoting and character references, srcset and list separators, the meta refresh URL,
/// CSS url() and string escapes, raw text that must not close its <style>); every other
/// byte is copied unchanged.

#include "mhtml/export.hpp"
#include "mhtml/html/scan.hpp"

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mhtml::html {

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

}  // namespace mhtml::html
