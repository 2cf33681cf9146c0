#pragma once
/// File names for the parts of an archive written out as a folder (`mhtml extract`; the
/// text/html draft's reader design "store the parts in a folder", Annex A).
///
/// Every path the planner gives is relative, `/`-separated and safe to create under the
/// output folder on Linux, macOS and Windows, whatever the archive says:
/// - segments hold only ASCII letters, digits and `- _ . ~ + = , @`; every other octet
///   (`/` inside a %-escape, `\`, `:`, NUL and other controls, 8-bit octets, spaces) becomes
///   `_`, so there are no drive letters, backslashes or absolute paths;
/// - `.` and `..` segments are dropped, empty segments are skipped, a leading `.` becomes
///   `_` (no hidden files), trailing dots and spaces are removed (Windows drops them);
/// - Windows device names (CON, NUL, COM1, LPT1, ... with any extension) get a `_` prefix;
/// - a segment is at most 80 octets and a path at most 12 segments and 240 octets (longer
///   ones are shortened, keeping a hash of what was cut so they stay distinct);
/// - no two paths are equal ignoring ASCII case, and no path is a folder of another
///   (`a/b` and `a/b/c`): a later one gets `-2`, `-3`, ... before its extension.
///
/// Where a part goes: an absolute URL with an authority gives `host/path` (the host
/// lower-cased, a port as `host_port`; `%xx` decoded; a directory URL gets `index`); a query
/// adds `_` and 8 hex digits of its hash to the name, so `css?family=A` and `css?family=B`
/// stay apart; `cid:` and `mid:` URLs give `cid/ID`; `thismessage:/` URLs their path; other
/// schemes `SCHEME/REST`; a part without a URL the fallback name given. The extension is
/// made to agree with the content type when it does not already (a browser opening a
/// file:// URL goes by the extension): `logo` as image/png becomes `logo.png`, `page.php`
/// as text/html `page.php.html`; `x.htm` as text/html stays.

#include <cstddef>
#include <string>
#include <string_view>

#include "mhtml/detail/keyed_hash.hpp"
#include "mhtml/export.hpp"

namespace mhtml::view {

/// The canonical extension (with its dot) for a content type (`image/jpeg` -> `.jpg`,
/// `text/html` -> `.html`), or "" when none is known. Parameters and case are ignored.
MHTML_EXPORT std::string_view extension_for(std::string_view content_type) noexcept;

/// True when `extension` (with its dot, any case) is a usual one for `content_type`
/// (`.jpeg` and `.jpg` for image/jpeg, `.htm` and `.html` for text/html).
MHTML_EXPORT bool extension_fits(std::string_view extension,
                                 std::string_view content_type) noexcept;

/// One path segment made safe (see above); never empty.
MHTML_EXPORT std::string safe_segment(std::string_view raw);

/// The relative URL reference from the file `from` to the file `to` (both planner paths),
/// each segment %-escaped where a URL needs it: `a/b.html` -> `a/c/d.png` gives `c/d.png`,
/// `a/b.html` -> `e.css` gives `../e.css`.
MHTML_EXPORT std::string relative_url(std::string_view from, std::string_view to);

class MHTML_EXPORT path_planner {
public:
    /// Takes `path` exactly if it is safe and free (e.g. "index.html", "manifest.json").
    bool reserve(std::string_view path);
    /// A free, safe path for a part whose resolved URL is `url` (may be empty), of
    /// `content_type`; `fallback` names it when the URL gives no name (e.g. "part-1.2").
    /// When the URL's own name could not be kept as it is for safety (a `..` or `.`
    /// segment, a character replaced, a device name, a name too long or too deep, a clash),
    /// `why` (if given) receives a sentence saying so; it is left alone otherwise.
    std::string add(std::string_view url, std::string_view content_type, std::string_view fallback,
                    std::string* why = nullptr);
    /// As add(), for a relative path given as it is (a virtual file name, say).
    std::string add_path(std::string_view path, std::string_view content_type,
                         std::string* why = nullptr);

private:
    std::string take(std::string path, std::string* why = nullptr);  // numbers it until free
    bool is_free(std::string_view lower) const;
    mhtml::detail::keyed_string_set files_, folders_;  // lower-cased
};

}  // namespace mhtml::view
