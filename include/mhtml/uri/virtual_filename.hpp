#pragma once
/// Virtual file names: the file-name method of the text/html draft §9.2 (seed 004,
/// REQUIREMENTS THTML-9.2.1, THTML-9.2.2, E-31).
///
///     relative-url ::= 1ALPHA 0*7ALPHADIGIT [ "." 1*3ALPHADIGIT ]
///     ALPHADIGIT   ::= ALPHA / DIGIT          ; ASCII only
///
/// The seed writes `0#7` and `1#3` (RFC 822 lists); the prose ("1-8 characters plus 0-3
/// extension characters") shows that repetition is meant (E-31). A `.` needs 1 to 3
/// characters after it.

#include <string>
#include <string_view>
#include <vector>

#include "mhtml/export.hpp"

namespace mhtml::uri {

/// THTML-9.2.1: `name` matches `^[A-Za-z][A-Za-z0-9]{0,7}(\.[A-Za-z0-9]{1,3})?$`.
MHTML_EXPORT bool is_virtual_filename(std::string_view name) noexcept;

/// True when the base of `name` (the text before its first `.`) is a Windows device name
/// in any case: CON, PRN, AUX, NUL, COM1-COM9, LPT1-LPT9 (`con.txt`, `NUL`, `Lpt1.x`).
/// Such names are valid by the grammar but cannot be written as files on Windows.
MHTML_EXPORT bool is_windows_reserved_name(std::string_view name) noexcept;

/// One resource to name: where it came from and its Content-Type field body.
struct filename_request {
    std::string url;           ///< absolute, relative, `cid:`/`mid:`, or empty; as written
    std::string content_type;  ///< e.g. `image/png` or `text/html; charset=utf-8`; may be empty
};

/// THTML-9.2.2: one name per request, in order. Every name is valid
/// (`is_virtual_filename`), lower-case, not a Windows device name, and different from
/// every other name of the call; the same input always gives the same output.
///
/// - base: the last path segment of the URL (query and fragment dropped, `%hh` decoded;
///   for `cid:`/`mid:` the id's local part before the first `@`) up to its last `.`,
///   lower-cased, everything but ASCII letters and digits dropped, prefixed with `f` when it
///   does not begin with a letter, cut to 8. Empty -> `index` for a URL naming a directory
///   (`http://x`, `http://x/d/`), else `file` (an empty URL, `?q`, `.htaccess`).
/// - extension: `extension_for_type(content_type)`, else the URL's own extension
///   (lower-cased) when it is 1-3 ASCII letters or digits, else `bin`.
/// - a name already given (compared case-insensitively) or a device name gets a decimal
///   counter 1, 2, ... appended to the base, replacing its end when the base would pass 8
///   characters (`logo` -> `logo1`, `f2019rep` -> `f2019re1`, `con` -> `con1`).
///
/// Names stay valid for fewer than 10^7 requests sharing one base and extension. Each base
/// and extension keeps its next counter, so many requests with one URL cost linear time.
MHTML_EXPORT std::vector<std::string> make_virtual_filenames(
    const std::vector<filename_request>& resources);

/// A 1-3 character extension for a Content-Type (parameters and case ignored), or "" when
/// none is known: `image/png` -> `png`, `image/jpeg` -> `jpg`, `text/html` -> `htm`,
/// `application/javascript` -> `js`, .... Types whose usual extension is longer get a
/// 3-character one (`image/webp` -> `wbp`, `application/json` -> `jsn`, `font/woff` ->
/// `wof`). `application/octet-stream` gives "" so the URL's own extension is kept.
MHTML_EXPORT std::string_view extension_for_type(std::string_view content_type) noexcept;

}  // namespace mhtml::uri
