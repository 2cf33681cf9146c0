#pragma once
/// Rewriting the references found by html/scan.hpp: only the raw value bytes of the
/// references that get a new value change, re-escaped for where they stand (attribute
/// quoting and character references, srcset and list separators, the meta refresh URL,
/// CSS url() and string escapes, raw text that must not close its <style>); every other
/// byte is copied unchanged.

#include "mhtml/html/scan.hpp"

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mhtml::html {

/// The raw text that, put in place of `r`'s raw value, reads back as `url`.
std::string escape_for(const reference& r, std::string_view url);

/// `input` with each reference for which `replace` returns a value written as that value.
/// `refs` must be a scan of `input` (document order, no overlaps). A reference left alone
/// (nullopt), or given its own decoded value, keeps its raw bytes, so a rewrite that changes
/// nothing returns `input` byte for byte.
std::string rewrite(std::string_view input, std::span<const reference> refs,
                    const std::function<std::optional<std::string>(const reference&)>& replace);

}  // namespace mhtml::html
