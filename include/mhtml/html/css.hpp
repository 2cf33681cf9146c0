#pragma once
/// URI references in CSS (CSS Syntax Level 3 tokenizer; CSS Values `url()`; CSS Cascade
/// `@import`; CSS Images `image-set()`): where they are, what they say, and how to write
/// a new one in their place.
///
/// The scanner runs the CSS Syntax Level 3 §4 tokenizer over octets, so it works on a style
/// sheet, a `<style>` element's text and a `style` attribute value alike, in any
/// ASCII-compatible charset. It keeps only what decides where a reference is: comments,
/// strings, url-tokens and bad-urls, ident-like, at-keyword, hash and numeric tokens (so
/// `#url(x)`, `1url(x)` and `xurl(x)` are not references), and block nesting (so a string is
/// known to stand directly inside `image-set()`). It never allocates per octet, runs in
/// linear time on any input and has no failure mode: malformed CSS gives fewer references.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/export.hpp"

namespace mhtml::html {

/// How a reference is written in the CSS source.
enum class css_token_form : std::uint8_t {
    url_unquoted,  ///< url(x): the raw value is the text between the parentheses, white space
                   ///< trimmed
    url_quoted,    ///< url("x") or url('x'): the raw value is the text inside the quotes
    string,        ///< "x" or 'x' standing for a URL: @import "x", image-set("x" 1x)
};

struct css_reference {
    std::size_t offset = 0;  ///< first octet of the raw value in the scanned text
    std::size_t length = 0;  ///< octets of the raw value (quotes and url( ) excluded; the one
                             ///< white space ending a hex escape, as in `url(a\20 )`, is included)
    std::string url;         ///< the value with CSS escapes decoded (see scan_css)
    css_token_form form = css_token_form::url_unquoted;
    char quote = 0;       ///< '"' or '\'' for url_quoted and string, else 0
    bool import = false;  ///< from @import (names a style sheet)

    friend bool operator==(const css_reference&, const css_reference&) = default;
};

/// Appends every reference in `css`, in source order:
/// - a url-token (`url(x)`, any case, name possibly escaped as in `u\72l(`): url_unquoted.
///   A bad-url (a quote, `(`, a non-printable octet, inner white space or `\` + newline in
///   the value) is not a reference. `url (x)` is not a url() either.
/// - the first string inside a `url(` function token (`url( "x" )`): url_quoted.
/// - a string right after `@import` (white space and comments between): string, import.
///   `@import url(x)` and `@import url("x")` set `import` on the url() reference.
/// - a string standing directly inside `image-set(` or `-webkit-image-set(` (any case):
///   string. Strings anywhere else (`content: "x"`, font names, `type("image/png")` inside
///   image-set) are not references.
///
/// Empty values (`url()`, `url("")`) are references with an empty `url`. A url-token or
/// string cut short by the end of input is still a reference (CSS Syntax §4.3.5/§4.3.6: a
/// parse error, but the token stands); a string cut short by a newline is a bad-string and
/// is not. `url` is the value with escapes decoded: `\` + 1-6 hex digits (+ one white space)
/// becomes the code point's UTF-8 octets (zero, surrogates and values above U+10FFFF give
/// U+FFFD), `\` + newline inside a string vanishes, `\` + any other octet gives that octet;
/// a raw NUL octet becomes U+FFFD (§3.3 preprocessing); every other octet is kept as is.
MHTML_EXPORT void scan_css(std::string_view css, std::vector<css_reference>& out);

/// The text to write in place of a raw value of `form` (and `quote`) so that a CSS reader
/// gets `url` back exactly: escapes what that form cannot hold as it is.
///
/// - url_unquoted: white space, `"`, `'`, `(`, `)`, `\` and non-printable octets become hex
///   escapes (`\29`), followed by a space only when the next octet is a hex digit. `quote`
///   is ignored.
/// - url_quoted and string: `quote` and `\` become `\"` / `\'` / `\\`, newlines (LF, CR, FF)
///   become hex escapes (`\a`), followed by a space only when the next octet is a hex digit,
///   a space or a tab. If `quote` is neither `"` nor `'`, both quotes are escaped.
/// Octets from 0x80 up are written as they are, so the result is in the charset of `url`.
///
/// For any `url` without NUL octets, scanning `url(` + result + `)` (url_unquoted),
/// `url("` + result + `")` or `@import "` + result + `";` (quoted forms) gives back `url`.
/// NUL cannot be written in CSS at all (§3.3 turns it into U+FFFD, and so does `\0`): it is
/// written as `\fffd`.
MHTML_EXPORT std::string css_escape_url(std::string_view url, css_token_form form, char quote);

}  // namespace mhtml::html
