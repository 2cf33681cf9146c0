#include "mhtml/view/paths.hpp"

#include "text_cat.hpp"
#include "uri/text.hpp"

#include "mhtml/uri/reference.hpp"
#include "mhtml/uri/virtual_filename.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace mhtml::view {

namespace {

using mhtml::detail::cat;

constexpr std::size_t max_segment = 80;
constexpr std::size_t max_segments = 12;
constexpr std::size_t max_path = 240;

struct type_extensions {
    std::string_view type;
    std::array<std::string_view, 3> extensions;  // the first is the canonical one
};

constexpr type_extensions known_types[] = {
    {"text/html", {".html", ".htm", ".shtml"}},
    // Not ".html": a browser would read the file as HTML, not as the XML it is.
    {"application/xhtml+xml", {".xhtml", ".xht", ""}},
    {"text/css", {".css", "", ""}},
    {"text/javascript", {".js", ".mjs", ""}},
    {"application/javascript", {".js", ".mjs", ""}},
    {"application/x-javascript", {".js", "", ""}},
    {"application/json", {".json", "", ""}},
    {"text/plain", {".txt", ".text", ""}},
    {"text/xml", {".xml", "", ""}},
    {"application/xml", {".xml", "", ""}},
    {"image/png", {".png", "", ""}},
    {"image/jpeg", {".jpg", ".jpeg", ".jpe"}},
    {"image/pjpeg", {".jpg", ".jpeg", ""}},
    {"image/gif", {".gif", "", ""}},
    {"image/webp", {".webp", "", ""}},
    {"image/avif", {".avif", "", ""}},
    {"image/svg+xml", {".svg", "", ""}},
    {"image/bmp", {".bmp", "", ""}},
    {"image/x-icon", {".ico", "", ""}},
    {"image/vnd.microsoft.icon", {".ico", "", ""}},
    {"image/tiff", {".tif", ".tiff", ""}},
    {"font/woff", {".woff", "", ""}},
    {"font/woff2", {".woff2", "", ""}},
    {"application/font-woff", {".woff", "", ""}},
    {"application/font-woff2", {".woff2", "", ""}},
    {"application/x-font-woff", {".woff", "", ""}},
    {"font/ttf", {".ttf", "", ""}},
    {"font/otf", {".otf", "", ""}},
    {"application/x-font-ttf", {".ttf", "", ""}},
    {"application/vnd.ms-fontobject", {".eot", "", ""}},
    {"audio/mpeg", {".mp3", "", ""}},
    {"audio/ogg", {".ogg", ".oga", ""}},
    {"video/mp4", {".mp4", "", ""}},
    {"video/webm", {".webm", "", ""}},
    {"application/pdf", {".pdf", "", ""}},
    {"message/rfc822", {".eml", "", ""}},
};

// Extensions that a browser opening the file shows as a document that may run scripts.
bool opens_as_document(std::string_view extension) {
    static constexpr std::string_view active[] = {".html", ".htm",  ".shtml", ".xhtml", ".xht",
                                                  ".svg",  ".svgz", ".xml",   ".xsl",   ".xslt"};
    const std::string e = uri::text::ascii_lower(extension);
    return std::find(std::begin(active), std::end(active), e) != std::end(active);
}

std::string essence(std::string_view content_type) {
    std::string_view t =
        content_type.substr(0, std::min(content_type.find(';'), content_type.size()));
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
    return uri::text::ascii_lower(t);
}

const type_extensions* find_type(std::string_view content_type) {
    const std::string e = essence(content_type);
    for (const auto& t : known_types)
        if (t.type == e) return &t;
    return nullptr;
}

bool allowed(unsigned char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~' || c == '+' || c == '=' || c == ',' || c == '@';
}

std::uint64_t fnv1a(std::string_view s) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

std::string hex8(std::string_view s) {
    static constexpr char digits[] = "0123456789abcdef";
    std::uint64_t h = fnv1a(s);
    std::string out(8, '0');
    for (int i = 7; i >= 0; --i) {
        out[static_cast<std::size_t>(i)] = digits[h & 15];
        h >>= 4;
    }
    return out;
}

// The extension of a file name (".png"), or "" (a leading dot does not start one).
std::string_view extension_of(std::string_view name) {
    std::size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || dot == 0) return {};
    return name.substr(dot);
}

// Splits on '/', dropping empty, "." and ".." segments.
std::vector<std::string> split_segments(std::string_view path) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i <= path.size()) {
        std::size_t j = std::min(path.find('/', i), path.size());
        std::string_view seg = path.substr(i, j - i);
        if (!seg.empty() && seg != "." && seg != "..") out.emplace_back(seg);
        i = j + 1;
    }
    return out;
}

// Shortens `name` to `limit` octets keeping its extension and a hash of the whole.
std::string shortened(const std::string& name, std::size_t limit) {
    if (name.size() <= limit) return name;
    std::string_view ext = extension_of(name);
    if (ext.size() > 12) ext = {};
    const std::string tag = cat("-", hex8(name));
    std::size_t keep = limit - tag.size() - ext.size();
    return cat(std::string_view(name).substr(0, keep), tag, ext);
}

}  // namespace

std::string_view extension_for(std::string_view content_type) noexcept {
    const type_extensions* t = find_type(content_type);
    return t ? t->extensions[0] : std::string_view();
}

bool extension_fits(std::string_view extension, std::string_view content_type) noexcept {
    const type_extensions* t = find_type(content_type);
    if (!t || extension.empty()) return false;
    const std::string e = uri::text::ascii_lower(extension);
    return std::any_of(t->extensions.begin(), t->extensions.end(),
                       [&](std::string_view x) { return !x.empty() && x == e; });
}

std::string safe_segment(std::string_view raw) {
    std::string s;
    s.reserve(raw.size());
    for (unsigned char c : raw) s += allowed(c) ? static_cast<char>(c) : '_';
    while (!s.empty() && (s.back() == '.' || s.back() == ' ')) s.pop_back();
    if (s.empty()) return "_";
    if (s.front() == '.') s.front() = '_';
    if (uri::is_windows_reserved_name(s)) s.insert(s.begin(), '_');
    return shortened(s, max_segment);
}

std::string relative_url(std::string_view from, std::string_view to) {
    std::vector<std::string> a = split_segments(from), b = split_segments(to);
    std::size_t common = 0;
    while (common + 1 < a.size() && common + 1 < b.size() && a[common] == b[common]) ++common;
    std::string out;
    for (std::size_t i = common; i + 1 < a.size(); ++i) out += "../";
    for (std::size_t i = common; i < b.size(); ++i) {
        if (i > common) out += '/';
        for (unsigned char c : b[i]) {
            if (allowed(c)) {  // the safe alphabet is all URL path characters
                out += static_cast<char>(c);
            } else {
                uri::text::append_escape(out, c);
            }
        }
    }
    // A first segment with ':' would read as a scheme; ours never have one, but be sure.
    if (out.find(':') < out.find('/')) out.insert(0, "./");
    return out;
}

bool path_planner::is_free(std::string_view lower_path) const {
    const std::string key(lower_path);
    if (files_.count(key) || folders_.count(key)) return false;
    for (std::size_t slash = key.find('/'); slash != std::string::npos;
         slash = key.find('/', slash + 1))
        if (files_.count(key.substr(0, slash))) return false;
    return true;
}

std::string path_planner::take(std::string path, std::string* why) {
    std::vector<std::string> segs;
    for (std::size_t i = 0; i <= path.size();) {
        std::size_t j = std::min(path.find('/', i), path.size());
        segs.push_back(path.substr(i, j - i));
        i = j + 1;
    }
    // A folder on the way that is already a file gets a number; then the name itself, until
    // it is neither a file nor a folder already.
    // "name-N.ext", the name cut so that the segment stays within max_segment.
    auto numbered = [](const std::string& seg, unsigned n, bool keep_extension) {
        std::string_view ext = keep_extension ? extension_of(seg) : std::string_view();
        if (ext.size() > 12) ext = {};
        std::string suffix = cat("-", std::to_string(n), ext);
        std::size_t stem = std::min(seg.size() - ext.size(), max_segment - suffix.size());
        return cat(std::string_view(seg).substr(0, stem), suffix);
    };
    std::string prefix;
    for (std::size_t k = 0; k + 1 < segs.size(); ++k) {
        std::string base = prefix.empty() ? std::string() : cat(prefix, "/");
        std::string candidate = cat(base, segs[k]);
        for (unsigned n = 2; files_.count(uri::text::ascii_lower(candidate)); ++n)
            candidate = cat(base, numbered(segs[k], n, false));
        segs[k] = candidate.substr(base.size());
        prefix = std::move(candidate);
    }
    std::string base = prefix.empty() ? std::string() : cat(prefix, "/");
    std::string candidate = cat(base, segs.back());
    for (unsigned n = 2; files_.count(uri::text::ascii_lower(candidate)) ||
                         folders_.count(uri::text::ascii_lower(candidate));
         ++n)
        candidate = cat(base, numbered(segs.back(), n, true));
    if (why && candidate != path) {
        if (!why->empty()) *why += "; ";
        *why += cat(path,
                    " was taken (names are compared ignoring case, and a file cannot also be a "
                    "folder)");
    }
    files_.insert(uri::text::ascii_lower(candidate));
    for (std::size_t s = candidate.find('/'); s != std::string::npos;
         s = candidate.find('/', s + 1))
        folders_.insert(uri::text::ascii_lower(candidate.substr(0, s)));
    return candidate;
}

bool path_planner::reserve(std::string_view path) {
    std::vector<std::string> segs = split_segments(path);
    std::string joined;
    for (const auto& s : segs) {
        if (safe_segment(s) != s) return false;
        if (!joined.empty()) joined += '/';
        joined += s;
    }
    if (joined.empty() || joined != path || !is_free(uri::text::ascii_lower(joined))) return false;
    take(joined);
    return true;
}

std::string path_planner::add_path(std::string_view path, std::string_view content_type,
                                   std::string* why) {
    std::string reasons;
    auto note = [&](std::string_view r) {
        if (reasons.find(r) != std::string::npos) return;
        if (!reasons.empty()) reasons += "; ";
        reasons += r;
    };
    std::vector<std::string> segs;
    std::size_t i = 0;
    while (i <= path.size()) {
        std::size_t j = std::min(path.find('/', i), path.size());
        std::string raw = uri::text::percent_decode(path.substr(i, j - i));
        i = j + 1;
        if (raw.empty()) continue;
        if (raw == "." || raw == "..") {
            note("'.' and '..' segments dropped");
            continue;
        }
        std::string safe = safe_segment(raw);
        if (safe != raw) {
            if (uri::is_windows_reserved_name(raw)) {
                note("a Windows device name prefixed with '_'");
            } else if (safe.size() < raw.size() && raw.size() > max_segment) {
                note("a name longer than 80 octets shortened");
            } else {
                note(
                    "characters that are unsafe in file names (anything but ASCII letters, "
                    "digits and - _ . ~ + = , @) replaced with '_'");
            }
        }
        segs.push_back(std::move(safe));
    }
    if (segs.empty()) segs.push_back("index");
    // Too deep: the overflow joins the last segment.
    if (segs.size() > max_segments) note("more than 12 folders deep: the deepest ones merged");
    while (segs.size() > max_segments) {
        std::string last = segs.back();
        segs.pop_back();
        segs.back() = safe_segment(cat(segs.back(), "_", last));
    }
    std::string& name = segs.back();
    std::string_view ext = extension_of(name);
    std::string_view wanted = extension_for(content_type);
    if (!wanted.empty() && !extension_fits(ext, content_type)) {
        name = shortened(cat(name, wanted), max_segment);
    } else if (wanted.empty() && opens_as_document(ext)) {
        // A part of another type under a name a browser opens as a page would be a page
        // that nothing made safe (no policy: it is not read as a document).
        note("an extension a browser opens as a document given '.bin' (the part is not one)");
        name = shortened(cat(name, ".bin"), max_segment);
    }
    std::string joined;
    for (const auto& s : segs) {
        if (!joined.empty()) joined += '/';
        joined += s;
    }
    if (joined.size() > max_path - 16) {  // room for a -N counter
        note("a path longer than 240 octets shortened");
        std::string flat = cat(segs.front(), "/", hex8(joined), extension_of(name));
        joined = flat.size() > max_path - 16 ? cat(hex8(joined), extension_of(name)) : flat;
    }
    std::string taken = take(std::move(joined), why ? &reasons : nullptr);
    if (why && !reasons.empty()) *why = std::move(reasons);
    return taken;
}

std::string path_planner::add(std::string_view url, std::string_view content_type,
                              std::string_view fallback, std::string* why) {
    uri::reference_parts r = uri::split_reference(url);
    std::string path;
    const std::string scheme = uri::text::ascii_lower(r.scheme);
    if (url.empty() || !r.has_scheme) {
        path = cat("parts/", fallback);
    } else if (r.has_authority) {
        std::string host = uri::text::ascii_lower(r.authority.substr(
            r.authority.rfind('@') == std::string_view::npos ? 0 : r.authority.rfind('@') + 1));
        for (char& c : host)
            if (c == ':') c = '_';
        if (host.empty()) host = scheme;
        path = cat(host, "/");
        std::string_view p = r.path;
        path += p;
        if (p.empty() || p.back() == '/') path += "index";
    } else if (scheme == "cid" || scheme == "mid") {
        path = cat("cid/", r.path);
    } else if (uri::is_fictitious_scheme(r.scheme)) {
        path = std::string(r.path);
        if (path.empty() || path.back() == '/') path += "index";
    } else {
        path = cat(scheme, "/", r.path);
    }
    if (r.has_query) {
        // The query keeps the name apart from its siblings: name_HASH.ext.
        std::vector<std::string> segs = split_segments(path);
        std::string last = segs.empty() ? std::string("index") : segs.back();
        std::string_view ext = extension_of(last);
        std::string stem = last.substr(0, last.size() - ext.size());
        std::string tagged = cat(stem, "_", hex8(r.query), ext);
        std::size_t cut = path.rfind('/');
        path = cat(cut == std::string::npos ? std::string() : path.substr(0, cut + 1), tagged);
    }
    return add_path(path, content_type, why);
}

}  // namespace mhtml::view
