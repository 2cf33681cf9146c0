// RFC 3986 §5.2 resolution, written out rather than taken from Boost.URL: Boost.URL 1.81's
// resolve() keeps `..` segments above the root (`http://a/b/c/d;p?q` + `../../../g` gives
// `http://a/../g`, not RFC 3986 §5.4.2's `http://a/g`) and decodes `%2E` while removing dot
// segments (`a%2Eb` becomes `a.b`), and MHTML compares the result octet by octet. Boost.URL
// is used where it is exact: checking that a reference is valid RFC 3986 syntax.
#include "mhtml/uri/reference.hpp"
#include "mhtml/ascii.hpp"

#include "text.hpp"

#include <boost/url/parse.hpp>

#include <array>
#include <cstdio>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mhtml::uri {

namespace {

using text::ascii_lower;
using text::hex_upper;
using text::hex_value;
using text::is_unreserved;

// Octets that no part of any URI may contain (RFC 3986 §2: not in reserved, unreserved or
// '%'), so their presence makes a reference invalid wherever they stand.
constexpr std::array<bool, 256> make_never_allowed() {
    std::array<bool, 256> t{};
    for (int c = 0; c < 0x21; ++c) t[c] = true;
    for (int c = 0x7F; c < 256; ++c) t[c] = true;
    for (unsigned char c : std::string_view("\"<>\\^`{|}")) t[c] = true;
    return t;
}
constexpr auto never_allowed = make_never_allowed();

// Appends `scheme:` as written (RFC 3986 §5.2.2 copies it; the fictitious alias is
// equated when comparing, not rewritten).
void append_scheme(std::string& out, std::string_view scheme) {
    out += scheme;
    out += ':';
}

// RFC 3986 §5.2.3 merge followed by §5.2.4, or §5.2.4 alone; appended to `out`.
void append_path_without_dots(std::string& out, std::string_view path);

// append_path_without_dots for a URI with (`authority`) or without an authority. Without
// one, a path that comes out starting with "//" (from "/a/..//x") would be read back as an
// authority; it is written "/.//x", which means the same path (the WHATWG URL Standard does
// the same), so that recomposition and normalisation stay unambiguous.
void append_path(std::string& out, std::string_view path, bool authority) {
    const std::size_t start = out.size();
    append_path_without_dots(out, path);
    if (!authority && std::string_view(out).substr(start).starts_with("//"))
        out.insert(start, "/.");
}

bool has_dot_segment(std::string_view path) noexcept {
    std::size_t i = 0;
    while (i <= path.size()) {
        std::size_t end = path.find('/', i);
        if (end == std::string_view::npos) end = path.size();
        std::string_view seg = path.substr(i, end - i);
        if (seg == "." || seg == "..") return true;
        i = end + 1;
    }
    return false;
}

void append_path_without_dots(std::string& out, std::string_view in) {
    if (!has_dot_segment(in)) {
        out += in;
        return;
    }
    const std::size_t start = out.size();
    // Only this path's own output is searched (not what `out` held before, such as the
    // authority), so each removal costs the length of the segment it removes.
    auto drop_last_segment = [&] {
        std::size_t slash = std::string_view(out).substr(start).rfind('/');
        out.resize(slash == std::string_view::npos ? start : start + slash);
    };
    while (!in.empty()) {
        if (in.starts_with("../")) {
            in.remove_prefix(3);  // A
        } else if (in.starts_with("./")) {
            in.remove_prefix(2);  // A
        } else if (in.starts_with("/./")) {
            in.remove_prefix(2);  // B: "/./" -> "/"
        } else if (in == "/.") {
            out += '/';  // B: "/." -> "/"
            break;
        } else if (in.starts_with("/../")) {
            in.remove_prefix(3);  // C: "/../" -> "/", dropping the last output segment
            drop_last_segment();
        } else if (in == "/..") {
            drop_last_segment();  // C: "/.." -> "/"
            out += '/';
            break;
        } else if (in == "." || in == "..") {
            break;  // D
        } else {
            // E: the first segment, with its leading '/', up to the next '/'.
            std::size_t end = in.find('/', 1);
            if (end == std::string_view::npos) end = in.size();
            out += in.substr(0, end);
            in.remove_prefix(end);
        }
    }
}

// §5.3: "?" query and "#" fragment, each when it is defined.
void append_tail(std::string& out, bool has_query, std::string_view query, bool has_fragment,
                 std::string_view fragment) {
    if (has_query) {
        out += '?';
        out += query;
    }
    if (has_fragment) {
        out += '#';
        out += fragment;
    }
}

void recompose_tail(std::string& out, const reference_parts& r) {
    append_tail(out, r.has_query, r.query, r.has_fragment, r.fragment);
}

// §6.2.2.1 and §6.2.2.2: `%xx` upper-cased, escapes of unreserved octets decoded. A `%`
// that starts no escape becomes `%25`, so that a decoded octet never completes a new
// escape with it (normalising twice gives the same result).
std::string normalize_escapes(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        int hi = 0, lo = 0;
        if (s[i] != '%') {
            out += s[i];
        } else if (i + 2 < s.size() && (hi = hex_value(s[i + 1])) >= 0 &&
                   (lo = hex_value(s[i + 2])) >= 0) {
            char c = static_cast<char>(hi * 16 + lo);
            if (is_unreserved(c)) {
                out += c;
            } else {
                out += '%';
                out += hex_upper(static_cast<unsigned>(hi));
                out += hex_upper(static_cast<unsigned>(lo));
            }
            i += 2;
        } else {
            out += "%25";
        }
    }
    return out;
}

}  // namespace

bool is_fictitious_scheme(std::string_view scheme) noexcept {
    return text::is_fictitious_scheme(scheme);
}

namespace {

// Where the authority of `ref` ("//" first) ends: at the first '/', '?' or '#' after the
// "//", else at the end. Sixteen octets at a time where SSE2 is there.
std::size_t authority_end(std::string_view ref) noexcept {
    std::size_t i = 2;
#if defined(__SSE2__)
    const __m128i slash = _mm_set1_epi8('/'), question = _mm_set1_epi8('?'),
                  hash = _mm_set1_epi8('#');
    for (; i + 16 <= ref.size(); i += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ref.data() + i));
        const int hit = _mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(x, slash),
                         _mm_or_si128(_mm_cmpeq_epi8(x, question), _mm_cmpeq_epi8(x, hash))));
        if (hit != 0)
            return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(hit)));
    }
#endif
    while (i < ref.size() && ref[i] != '/' && ref[i] != '?' && ref[i] != '#') ++i;
    return i;
}

}  // namespace

reference_parts split_reference(std::string_view ref) noexcept {
    reference_parts r;
    if (std::size_t colon = text::scheme_length(ref)) {
        r.scheme = ref.substr(0, colon);
        r.has_scheme = true;
        ref.remove_prefix(colon + 1);
    }
    if (ref.starts_with("//")) {
        const std::size_t end = authority_end(ref);
        r.authority = ref.substr(2, end - 2);
        r.has_authority = true;
        ref.remove_prefix(end);
    }
    std::size_t hash = ref.find('#');
    if (hash != std::string_view::npos) {
        r.fragment = ref.substr(hash + 1);
        r.has_fragment = true;
        ref = ref.substr(0, hash);
    }
    std::size_t question = ref.find('?');
    if (question != std::string_view::npos) {
        r.query = ref.substr(question + 1);
        r.has_query = true;
        ref = ref.substr(0, question);
    }
    r.path = ref;
    return r;
}

bool is_absolute(std::string_view ref) noexcept {
    return text::scheme_length(ref) != 0;  // split_reference's has_scheme
}

std::string_view without_fragment(std::string_view ref) noexcept {
    return ref.substr(0, ref.find('#'));
}

bool is_same_document(std::string_view ref) noexcept {
    return ref.empty() || ref[0] == '#';
}

std::string remove_dot_segments(std::string_view path) {
    std::string out;
    append_path_without_dots(out, path);
    return out;
}

bool check_reference(std::string_view ref, std::vector<diagnostic>* diags, std::size_t offset) {
    auto report = [&](diag_code code, std::size_t at, std::string message) {
        if (diags) diags->push_back({severity::warning, code, {}, offset + at, std::move(message)});
    };
    std::size_t hashes = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        auto c = static_cast<unsigned char>(ref[i]);
        hashes += c == '#';
        if (never_allowed[c] || hashes > 1) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "0x%02X", c);
            report(diag_code::uri_invalid_chars, i,
                   "URI reference has octet " + std::string(buf) + " at position " +
                       std::to_string(i) +
                       ", which a URI may not contain there; resolved as written, octets kept");
            return false;
        }
    }
    // Boost.URL checks the rest of the grammar; the fictitious alias is not a valid scheme,
    // so it is checked under the RFC 2557 spelling.
    reference_parts parts = split_reference(ref);
    std::string respelled;
    std::string_view to_check = ref;
    if (parts.has_scheme && !text::is_scheme(parts.scheme)) {
        respelled = "thismessage";
        respelled += ref.substr(parts.scheme.size());
        to_check = respelled;
    }
    auto parsed = boost::urls::parse_uri_reference(to_check);
    if (!parsed) {
        report(diag_code::uri_invalid_syntax, 0,
               "URI reference is not valid RFC 3986 syntax (" + parsed.error().message() +
                   "); resolved leniently as written");
        return false;
    }
    return true;
}

std::optional<base_uri> base_uri::make(std::string_view text) {
    reference_parts p = split_reference(text);
    if (!p.has_scheme) return std::nullopt;
    base_uri b;
    append_scheme(b.text_, p.scheme);
    if (p.has_authority) {
        b.text_ += "//";
        b.text_ += p.authority;
    }
    b.text_ += p.path;
    append_tail(b.text_, p.has_query, p.query, false, {});
    b.split();
    return b;
}

base_uri base_uri::fictitious() {
    return *make(fictitious_base);
}

void base_uri::split() noexcept {
    parts_ = split_reference(text_);
}

void base_uri::resolve_into(std::string& out, std::string_view ref_text,
                            std::vector<diagnostic>* diags) const {
    if (diags) check_reference(ref_text, diags);
    const reference_parts r = split_reference(ref_text);
    const reference_parts& b = parts_;
    out.clear();
    out.reserve(text_.size() + ref_text.size() + 2);
    // A reference with a scheme or an authority brings its own path (§5.2.2).
    if (r.has_scheme || r.has_authority) {
        append_scheme(out, r.has_scheme ? r.scheme : b.scheme);
        if (r.has_authority) {
            out += "//";
            out += r.authority;
        }
        append_path(out, r.path, r.has_authority);
        recompose_tail(out, r);
        return;
    }
    append_scheme(out, b.scheme);
    if (b.has_authority) {
        out += "//";
        out += b.authority;
    }
    if (r.path.empty()) {
        out += b.path;  // and the reference's query if it has one, else the base's
        const reference_parts& q = r.has_query ? r : b;
        append_tail(out, q.has_query, q.query, r.has_fragment, r.fragment);
        return;
    }
    {
        if (r.path[0] == '/') {
            append_path(out, r.path, b.has_authority);
        } else {
            // §5.2.3 merge: the base path up to its last '/', or "/" for a base with an
            // authority and an empty path.
            std::string merged;
            if (b.has_authority && b.path.empty()) {
                merged = "/";
            } else {
                std::size_t slash = b.path.rfind('/');
                if (slash != std::string_view::npos) merged = b.path.substr(0, slash + 1);
            }
            merged += r.path;
            append_path(out, merged, b.has_authority);
        }
        recompose_tail(out, r);
    }
}

std::string base_uri::resolve(std::string_view ref, std::vector<diagnostic>* diags) const {
    std::string out;
    resolve_into(out, ref, diags);
    return out;
}

std::optional<std::string> base_uri::resolve_same_scheme(std::string_view ref) const {
    // Most labels have no scheme, or one and an authority: nothing to read otherwise.
    if (const std::size_t n = text::scheme_length(ref);
        n == 0 || ref.substr(n + 1).starts_with("//"))
        return std::nullopt;
    reference_parts r = split_reference(ref);
    if (!r.has_scheme || r.has_authority || !text::iequals(r.scheme, parts_.scheme))
        return std::nullopt;
    std::string_view rest = ref.substr(r.scheme.size() + 1);
    // Without its scheme, "g:h" in the first segment would read as a scheme: "./g:h" keeps it
    // a path, and the merge and dot-segment removal turn it back into "g:h" after the base's
    // directory.
    std::string relative;
    const std::size_t colon = rest.find(':');
    if (colon != std::string_view::npos && ascii::find_first_of(rest, "/?#") > colon)
        relative = "./";
    relative += rest;
    std::string out = resolve(relative);
    if (out == resolve(ref)) return std::nullopt;
    return out;
}

std::optional<std::string> resolve(std::string_view base, std::string_view ref,
                                   std::vector<diagnostic>* diags) {
    auto b = base_uri::make(base);
    if (!b) return std::nullopt;
    return b->resolve(ref, diags);
}

bool same_resource(std::string_view a, std::string_view b) noexcept {
    a = without_fragment(a);
    b = without_fragment(b);
    if (a == b) return true;
    reference_parts pa = split_reference(a), pb = split_reference(b);
    if (!pa.has_scheme || !pb.has_scheme) return false;
    if (!is_fictitious_scheme(pa.scheme) || !is_fictitious_scheme(pb.scheme)) return false;
    return a.substr(pa.scheme.size()) == b.substr(pb.scheme.size());
}

bool is_normal_form(std::string_view ref) noexcept {
    if (ref.find('%') != std::string_view::npos) return false;
    const reference_parts r = split_reference(ref);
    const auto has_upper = [](std::string_view v) {
        for (const char c : v)
            if (c >= 'A' && c <= 'Z') return true;
        return false;
    };
    if (r.has_scheme &&
        (has_upper(r.scheme) || (is_fictitious_scheme(r.scheme) && r.scheme != "thismessage")))
        return false;
    if (r.has_authority && has_upper(r.authority)) return false;
    // A relative path keeps its dot segments (normalize() leaves it as it is).
    return !((r.has_scheme || r.has_authority || r.path.starts_with('/')) &&
             has_dot_segment(r.path));
}

std::string normalize(std::string_view ref) {
    reference_parts r = split_reference(ref);
    std::string out;
    out.reserve(ref.size());
    if (r.has_scheme) {
        out += is_fictitious_scheme(r.scheme) ? std::string("thismessage") : ascii_lower(r.scheme);
        out += ':';
    }
    if (r.has_authority) {
        out += "//";
        std::string authority = normalize_escapes(r.authority);
        std::size_t at = authority.rfind('@');
        std::size_t host = at == std::string::npos ? 0 : at + 1;
        out += std::string_view(authority).substr(0, host);
        out += ascii_lower(std::string_view(authority).substr(host));
    }
    std::string path = normalize_escapes(r.path);
    if (r.has_scheme || r.has_authority || path.starts_with('/'))
        append_path(out, path, r.has_authority);
    else
        out += path;  // a relative path's dot segments mean something until it is resolved
    if (r.has_query) {
        out += '?';
        out += normalize_escapes(r.query);
    }
    if (r.has_fragment) {
        out += '#';
        out += normalize_escapes(r.fragment);
    }
    return out;
}

}  // namespace mhtml::uri
