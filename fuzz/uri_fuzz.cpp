/// libFuzzer target for the URI layer: reference splitting and checking, RFC 3986
/// resolution and normalisation, Content-Location / Content-Base reading and writing,
/// cid:/mid: conversion, Content-Type <-> URI mapping, virtual file names and the label
/// index.
///
/// Checks, on arbitrary input: nothing crashes; resolution against an absolute base is an
/// absolute URI with the base's or the reference's scheme and never contains a dot
/// segment in a hierarchical path; normalisation is idempotent; write_header_uri followed
/// by extract_header_uri gives the input back; url_parameter words are at most 40
/// characters and extract to escape_url(input); cid and mid conversions round-trip; what
/// basic Content-Type <-> URI mapping writes, the closure reads back; generated file names
/// are valid and distinct; the URL Standard's parser (whatwg_url) gives a serialization that
/// parses back to itself, and the label index's browser key has no fragment.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/content_type_uri.hpp"
#include "mhtml/uri/header_value.hpp"
#include "mhtml/uri/label_index.hpp"
#include "mhtml/uri/reference.hpp"
#include "mhtml/uri/virtual_filename.hpp"
#include "mhtml/uri/whatwg_url.hpp"

#include "fuzz_check.hpp"

namespace {

using namespace mhtml::uri;

bool has_dot_segment(std::string_view path) {
    return remove_dot_segments(path) != path;
}

void check_resolution(std::string_view base_text, std::string_view ref) {
    std::vector<mhtml::diagnostic> diags;
    check_reference(ref, &diags);
    auto base = base_uri::make(base_text);
    if (!base) {
        MHTML_CHECK(!is_absolute(base_text));
        return;
    }
    std::string target = base->resolve(ref, &diags);
    reference_parts t = split_reference(target);
    MHTML_CHECK(t.has_scheme);
    // A reference with a path (merged or not) or an authority loses its dot segments (RFC
    // 3986 §5.2.2); an empty one takes the base's path as it is.
    reference_parts r = split_reference(ref);
    // Without an authority, a path that would start with "//" is written "/.//" (so that it
    // is not read back as an authority): that one "." is the only dot segment allowed.
    std::string_view path = t.path;
    if (!t.has_authority && path.starts_with("/.//")) path.remove_prefix(2);
    if ((r.has_scheme || r.has_authority || !r.path.empty()) && !path.empty() &&
        (path[0] == '/' || t.has_authority))
        MHTML_CHECK(!has_dot_segment(path));
    std::string n = normalize(target);
    MHTML_CHECK(normalize(n) == n);
    MHTML_CHECK(same_resource(target, target));
    // L-8: the non-strict reading exists only for a reference of the base's scheme, and gives
    // an absolute URI of that scheme.
    if (auto compat = base->resolve_same_scheme(ref)) {
        MHTML_CHECK(r.has_scheme && !r.has_authority);
        MHTML_CHECK(*compat != target);
        MHTML_CHECK(split_reference(*compat).has_scheme);
    }
}

// The URL Standard's parser: its serialization is a fixed point, with and without a base.
void check_whatwg(std::string_view base_text, std::string_view ref) {
    auto base = whatwg_url::parse(base_text);
    if (base) {
        auto again = whatwg_url::parse(base->href());
        MHTML_CHECK(again && again->href() == base->href());
    }
    auto url = whatwg_url::parse(ref, base ? &*base : nullptr);
    if (!url) return;
    const std::string href = url->href();
    auto again = whatwg_url::parse(href);
    MHTML_CHECK(again && again->href() == href);
    MHTML_CHECK(href.starts_with(url->href(false)));
    MHTML_CHECK(url->scheme() == again->scheme());
    // The browser key is the serialization without fragment, '|' in the path as %7C (it
    // respells this_message, so it may parse what the standard alone does not, or the reverse).
    if (auto key = browser_key(ref, base_text)) MHTML_CHECK(key->find('#') == std::string::npos);
}

void check_header_uri(std::string_view s) {
    std::vector<mhtml::diagnostic> diags;
    (void)extract_header_uri(s, &diags);
    (void)extract_header_uri(s, &diags, {.keep_interior_spaces = true});
    if (s.empty()) return;
    for (bool force : {false, true}) {
        auto w = write_header_uri(s, s.size() % 60, s.size() % 3 == 0 ? "ISO-8859-1" : "", force);
        MHTML_CHECK(extract_header_uri(w.value) == s);
    }
    auto p = url_parameter(s);
    MHTML_CHECK(p.ok());
    MHTML_CHECK(extract_url_parameter(p.value) == escape_url(s));
    std::size_t word = 0;
    for (char c : std::string_view(p.value).substr(1, p.value.size() - 2)) {
        word = c == ' ' ? 0 : word + 1;
        MHTML_CHECK(word <= 40);
    }
}

void check_ids(std::string_view s) {
    std::vector<mhtml::diagnostic> diags;
    if (auto h = cid_to_content_id(s, &diags)) {
        auto back = content_id_to_cid(h.value, &diags);
        MHTML_CHECK(back.ok());
        auto again = cid_to_content_id(back.value, &diags);
        MHTML_CHECK(again.ok() && again.value == h.value);
    }
    // An id with control characters is escaped on the way to a URL and refused on the way
    // back (a header must not get them); every other id comes back as it was.
    if (auto url = content_id_to_cid(s, &diags)) {
        auto back = cid_to_content_id(url.value, &diags);
        bool has_ctl = false;
        for (char c : id_key(s)) has_ctl |= static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
        if (!has_ctl) MHTML_CHECK(back.ok() && id_key(back.value) == id_key(s));
    }
    if (auto ids = mid_to_ids(s, &diags)) {
        auto back = ids_to_mid(ids.value.message_id, ids.value.content_id, &diags);
        MHTML_CHECK(back.ok());
        auto again = mid_to_ids(back.value, &diags);
        MHTML_CHECK(again.ok() && again.value.message_id == ids.value.message_id &&
                    again.value.content_id == ids.value.content_id);
    }
    (void)id_key(s);
}

void check_mapping(std::string_view s) {
    std::vector<mhtml::diagnostic> diags;
    for (bool controlled : {true, false}) {
        mapping_options o{.controlled = controlled};
        // What basic mapping writes, the closure reads back (CTURI-2.4, CTURI-2.3).
        if (auto u = ct_to_uri(s, o, &diags); u && u.value.rule == mapping_rule::basic)
            MHTML_CHECK(uri_to_ct(u.value.text, o, &diags).ok());
        // A URI with raw control octets is mapped (CTURI-4.1 encodes them), but the closure
        // never writes control octets into a URI, so only clean URIs must come back.
        bool has_ctl = false;
        for (char c : s) has_ctl |= static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
        if (auto t = uri_to_ct(s, o, &diags); t && t.value.rule == mapping_rule::basic && !has_ctl)
            MHTML_CHECK(ct_to_uri(t.value.text, o, &diags).ok());
    }
}

void check_filenames(std::string_view s) {
    std::vector<filename_request> requests;
    std::size_t start = 0;
    while (start <= s.size() && requests.size() < 64) {
        std::size_t end = s.find('\n', start);
        if (end == std::string_view::npos) end = s.size();
        std::string_view line = s.substr(start, end - start);
        std::size_t tab = line.find('\t');
        filename_request r;
        r.url = std::string(line.substr(0, tab));
        if (tab != std::string_view::npos) r.content_type = std::string(line.substr(tab + 1));
        requests.push_back(std::move(r));
        start = end + 1;
    }
    auto names = make_virtual_filenames(requests);
    MHTML_CHECK(names.size() == requests.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        MHTML_CHECK(is_virtual_filename(names[i]));
        MHTML_CHECK(!is_windows_reserved_name(names[i]));
        for (std::size_t j = 0; j < i; ++j) {
            std::string a = names[i], b = names[j];
            for (char& c : a) c = static_cast<char>(c | 0x20);
            for (char& c : b) c = static_cast<char>(c | 0x20);
            MHTML_CHECK(a != b);
        }
    }
    (void)is_virtual_filename(s);
}

void check_index(std::string_view s) {
    // Lines: labels "L<location>", "I<content-id>", "B<content-base>" starting new parts at
    // "-", then references "R<ref>".
    std::vector<std::string> storage;
    storage.reserve(s.size() + 1);
    std::vector<part_labels> parts(1);
    std::vector<std::string_view> refs;
    std::size_t start = 0;
    while (start < s.size()) {
        std::size_t end = s.find('\n', start);
        if (end == std::string_view::npos) end = s.size();
        std::string_view line = s.substr(start, end - start);
        start = end + 1;
        if (line.empty()) continue;
        storage.emplace_back(line.substr(1));
        std::string_view v = storage.back();
        switch (line[0]) {
            case 'L':
                parts.back().content_location = v;
                break;
            case 'I':
                parts.back().content_id = v;
                break;
            case 'B':
                parts.back().content_base = v;
                break;
            case '-':
                parts.emplace_back();
                break;
            default:
                refs.push_back(v);
        }
    }
    std::vector<mhtml::diagnostic> diags;
    label_index index(parts, base_uri::fictitious(), &diags);
    for (auto ref : refs) {
        auto m = index.find(ref, base_uri::fictitious(), {}, &diags);
        if (m.part) MHTML_CHECK(*m.part < parts.size());
        auto strict = index.find(ref, base_uri::fictitious(), {.strict = true});
        if (strict.part) MHTML_CHECK(m.part == strict.part && !m.lenient);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
    switch (data[0] % 6) {
        case 0: {
            std::size_t split = in.find('\n');
            if (split == std::string_view::npos) {
                check_resolution("http://a/b/c/d;p?q", in);
                check_resolution("thismessage:/", in);
                check_whatwg("http://a/b/c/d;p?q", in);
                check_whatwg("thismessage:/", in);
            } else {
                check_resolution(in.substr(0, split), in.substr(split + 1));
                check_whatwg(in.substr(0, split), in.substr(split + 1));
            }
            break;
        }
        case 1:
            check_header_uri(in);
            break;
        case 2:
            check_ids(in);
            break;
        case 3:
            check_mapping(in);
            break;
        case 4:
            check_filenames(in);
            break;
        default:
            check_index(in);
            break;
    }
    return 0;
}
