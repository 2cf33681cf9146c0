#include "mhtml/uri/virtual_filename.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

#include "mhtml/detail/keyed_hash.hpp"
#include "text.hpp"

namespace mhtml::uri {

namespace {

constexpr std::size_t max_base = 8;  // 1ALPHA 0*7ALPHADIGIT
constexpr std::size_t max_ext = 3;   // 1*3ALPHADIGIT

using text::iequals;
using text::is_alnum;
using text::is_alpha;
using text::is_lwsp;
using text::percent_decode;

struct type_extension {
    std::string_view type, ext;
};

// THTML-9.2.2's list first, then common web types. At most 3 characters each (THTML-9.2.1).
constexpr std::array<type_extension, 52> type_extensions{{
    {"image/png", "png"},
    {"image/jpeg", "jpg"},
    {"image/gif", "gif"},
    {"text/css", "css"},
    {"text/html", "htm"},
    {"application/javascript", "js"},
    {"text/javascript", "js"},
    {"application/x-javascript", "js"},
    {"application/ecmascript", "js"},
    {"text/ecmascript", "js"},
    {"application/xhtml+xml", "htm"},
    {"application/json", "jsn"},
    {"text/plain", "txt"},
    {"text/xml", "xml"},
    {"application/xml", "xml"},
    {"text/csv", "csv"},
    {"text/calendar", "ics"},
    {"text/vcard", "vcf"},
    {"text/markdown", "md"},
    {"image/apng", "png"},
    {"image/pjpeg", "jpg"},
    {"image/jpg", "jpg"},
    {"image/webp", "wbp"},
    {"image/svg+xml", "svg"},
    {"image/x-icon", "ico"},
    {"image/vnd.microsoft.icon", "ico"},
    {"image/bmp", "bmp"},
    {"image/x-ms-bmp", "bmp"},
    {"image/tiff", "tif"},
    {"audio/mpeg", "mp3"},
    {"audio/ogg", "ogg"},
    {"audio/wav", "wav"},
    {"audio/x-wav", "wav"},
    {"audio/midi", "mid"},
    {"video/mp4", "mp4"},
    {"video/mpeg", "mpg"},
    {"video/ogg", "ogv"},
    {"video/quicktime", "mov"},
    {"video/x-msvideo", "avi"},
    {"application/pdf", "pdf"},
    {"application/zip", "zip"},
    {"application/gzip", "gz"},
    {"application/rtf", "rtf"},
    {"application/postscript", "ps"},
    {"font/ttf", "ttf"},
    {"font/otf", "otf"},
    {"font/woff", "wof"},
    {"font/woff2", "wf2"},
    {"application/font-woff", "wof"},
    {"application/x-font-ttf", "ttf"},
    {"message/rfc822", "eml"},
    {"multipart/related", "mht"},
}};

// "type/subtype" of a Content-Type field body: leading white space skipped, cut at the
// first ';', white space or comment.
std::string_view essence_of(std::string_view ct) noexcept {
    std::size_t b = 0;
    while (b < ct.size() && is_lwsp(ct[b])) ++b;
    std::size_t e = b;
    while (e < ct.size() && ct[e] != ';' && !is_lwsp(ct[e]) && ct[e] != '(') ++e;
    return ct.substr(b, e - b);
}

struct name_parts {
    std::string base;     ///< valid base (1-8 lower-case letters/digits, letter first)
    std::string url_ext;  ///< the URL's own extension, lower-cased, or "" if not usable
};

name_parts parts_from_url(std::string_view url) {
    std::size_t sl = text::scheme_length(url);
    std::string_view scheme = url.substr(0, sl);
    std::string_view rest = sl ? url.substr(sl + 1) : url;
    rest = rest.substr(0, rest.find('#'));
    rest = rest.substr(0, rest.find('?'));

    std::string segment;
    bool directory = false;  // no last segment, but an authority or a path ending in '/'
    if (iequals(scheme, "cid") || iequals(scheme, "mid")) {
        // The id's local part, e.g. Outlook's `cid:image001.png@01D2...` -> image001.png.
        std::string id = percent_decode(rest);
        segment = id.substr(0, id.find('@'));
    } else if (iequals(scheme, "data")) {
        segment.clear();  // `data:image/png;base64,...`: nothing that looks like a name
    } else {
        bool authority = rest.substr(0, 2) == "//";
        if (authority) {
            std::size_t path = rest.find('/', 2);
            rest = path == std::string_view::npos ? std::string_view() : rest.substr(path);
        }
        std::size_t cut = rest.find_last_of("/\\");
        std::string_view last = cut == std::string_view::npos ? rest : rest.substr(cut + 1);
        directory = last.empty() && (authority || !rest.empty());
        segment = percent_decode(last);
    }

    name_parts out;
    std::size_t dot = segment.rfind('.');
    std::string_view stem = std::string_view(segment).substr(0, dot);
    if (dot != std::string::npos) {
        std::string_view ext = std::string_view(segment).substr(dot + 1);
        if (!ext.empty() && ext.size() <= max_ext && std::all_of(ext.begin(), ext.end(), is_alnum))
            out.url_ext = text::ascii_lower(ext);
    }
    for (char c : stem)
        if (is_alnum(c)) out.base.push_back(c);
    out.base = text::ascii_lower(out.base);
    if (out.base.empty()) out.base = directory ? "index" : "file";
    if (!is_alpha(out.base[0])) out.base.insert(out.base.begin(), 'f');
    if (out.base.size() > max_base) out.base.resize(max_base);
    return out;
}

}  // namespace

bool is_virtual_filename(std::string_view name) noexcept {
    if (name.empty() || !is_alpha(name[0])) return false;
    std::size_t dot = name.find('.');
    std::string_view base = name.substr(0, dot);
    if (base.size() > max_base || !std::all_of(base.begin(), base.end(), is_alnum)) return false;
    if (dot == std::string_view::npos) return true;
    std::string_view ext = name.substr(dot + 1);
    return !ext.empty() && ext.size() <= max_ext && std::all_of(ext.begin(), ext.end(), is_alnum);
}

bool is_windows_reserved_name(std::string_view name) noexcept {
    std::string_view base = name.substr(0, name.find('.'));
    for (std::string_view dev : {"con", "prn", "aux", "nul"})
        if (iequals(base, dev)) return true;
    if (base.size() == 4 && base[3] >= '1' && base[3] <= '9')
        return iequals(base.substr(0, 3), "com") || iequals(base.substr(0, 3), "lpt");
    return false;
}

std::string_view extension_for_type(std::string_view content_type) noexcept {
    std::string_view essence = essence_of(content_type);
    for (const type_extension& te : type_extensions)
        if (iequals(essence, te.type)) return te.ext;
    return {};
}

std::vector<std::string> make_virtual_filenames(const std::vector<filename_request>& resources) {
    std::vector<std::string> names;
    names.reserve(resources.size());
    mhtml::detail::keyed_string_set used;  // lower-case: uniqueness is case-insensitive
    used.reserve(resources.size());
    // The next counter to try for each natural name (base '.' ext). Names are only ever
    // added to `used`, so a counter that was taken once stays taken: continuing where the
    // last request of the same base and extension stopped gives the same names as starting
    // from 1 again, without passing over the same candidates once per request.
    mhtml::detail::keyed_string_map<unsigned long> next_counter;
    for (const filename_request& r : resources) {
        name_parts p = parts_from_url(r.url);
        std::string ext(extension_for_type(r.content_type));
        if (ext.empty()) ext = p.url_ext.empty() ? "bin" : p.url_ext;
        std::string name = p.base;
        name += '.';
        name += ext;
        // THTML-9.2.2: a taken or device name gets a counter that replaces the end of the
        // base so it stays within 8 characters.
        if (is_windows_reserved_name(name) || used.count(name)) {
            unsigned long& counter = next_counter.try_emplace(name, 1).first->second;
            for (;; ++counter) {
                std::string digits = std::to_string(counter);
                std::size_t keep = digits.size() < max_base ? max_base - digits.size() : 1;
                name = p.base.substr(0, std::min(p.base.size(), keep));
                name += digits;
                name += '.';
                name += ext;
                if (!is_windows_reserved_name(name) && !used.count(name)) break;
            }
            ++counter;  // this one is taken now
        }
        used.insert(name);
        names.push_back(std::move(name));
    }
    return names;
}

}  // namespace mhtml::uri
