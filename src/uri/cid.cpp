#include "mhtml/uri/cid.hpp"

#include <cstddef>
#include <utility>

#include "mhtml/mime/header.hpp"
#include "text.hpp"

namespace mhtml::uri {

namespace {

// RFC 3986 §2.3 unreserved (beyond ALPHA / DIGIT), §2.2 sub-delims, and the two other
// pchar octets ':' '@' (§3.3): what CID-3 leaves unescaped.
constexpr std::string_view pchar_marks = "-._~!$&'()*+,;=:@";
// RFC 3986 §2: what else a URI may contain (the other gen-delims, and '%').
constexpr std::string_view other_uri_chars = "/?#[]%";

constexpr bool is_pchar_literal(char c) noexcept {
    return text::is_alnum(c) || pchar_marks.find(c) != std::string_view::npos;
}
constexpr bool is_uri_char(char c) noexcept {
    return is_pchar_literal(c) || other_uri_chars.find(c) != std::string_view::npos;
}

// RFC 3986 §3.5: a fragment (from the first literal '#') is not part of the id.
constexpr std::string_view without_fragment(std::string_view url) noexcept {
    return url.substr(0, url.find('#'));
}

struct id_span {
    std::size_t begin = 0, end = 0;
    bool bracketed = false;
};

// CID-16 / E-34: the id inside a Content-ID or Message-ID field body.
id_span locate_id(std::string_view s) noexcept {
    std::size_t b = mime::skip_cfws(s, 0);
    std::size_t e = text::trailing_cfws_begin(s, b);
    if (e < b) e = b;
    if (e - b >= 2 && s[b] == '<' && s[e - 1] == '>') return {b + 1, e - 1, true};
    return {b, e, false};
}

diagnostic make_diag(severity sev, diag_code code, std::size_t offset, std::string message) {
    diagnostic d;
    d.sev = sev;
    d.code = code;
    d.offset = offset;
    d.message = std::move(message);
    return d;
}

void note_not_addr_spec(std::string_view id, std::size_t offset, std::vector<diagnostic>& out) {
    if (id.find('@') != std::string_view::npos) return;
    out.push_back(make_diag(severity::note, diag_code::content_id_not_addr_spec, offset,
                            "id '" + std::string(id) +
                                "' has no '@', so it is not an addr-spec; used as opaque octets"));
}

// One id of a cid:/mid: URL (`part` starts at `offset` of the whole URL) -> decoded id.
result<std::string> decode_url_id(std::string_view part, std::size_t offset,
                                  std::vector<diagnostic>& found) {
    using R = result<std::string>;
    // CID-2: RFC 2111-era producers wrote the brackets inside the URL.
    if (part.size() >= 2 && part.front() == '<' && part.back() == '>') {
        found.push_back(make_diag(severity::warning, diag_code::cid_url_with_brackets, offset,
                                  "angle brackets inside the URL (RFC 2111 form); dropped"));
        part = part.substr(1, part.size() - 2);
        ++offset;
    }
    if (part.empty()) return R::failure("empty_id", "the URL names no id");
    std::string id;
    id.reserve(part.size());
    for (std::size_t i = 0; i < part.size(); ++i) {
        char c = part[i];
        if (c == '%') {
            if (!text::is_escape_at(part, i))
                return R::failure("bad_percent_escape", "'%' at offset " +
                                                            std::to_string(offset + i) +
                                                            " is not followed by two hex digits");
            auto c2 =
                static_cast<char>(text::hex_value(part[i + 1]) * 16 + text::hex_value(part[i + 2]));
            // A decoded CTL would land in a header field (CR LF: header injection).
            if (text::is_ctl(c2))
                return R::failure("control_char_in_id", "the escape at offset " +
                                                            std::to_string(offset + i) +
                                                            " decodes to a control character");
            id.push_back(c2);
            i += 2;
        } else if (!is_uri_char(c)) {
            return R::failure("invalid_url_char",
                              "octet " + std::to_string(unsigned(static_cast<unsigned char>(c))) +
                                  " at offset " + std::to_string(offset + i) +
                                  " cannot occur in a URL");
        } else {
            id.push_back(c);
        }
    }
    note_not_addr_spec(id, offset, found);
    return R::success(std::move(id));
}

// A Content-ID / Message-ID field body -> its id in URL form (without scheme).
result<std::string> encode_field_id(std::string_view field, const char* what,
                                    std::vector<diagnostic>& found) {
    using R = result<std::string>;
    id_span sp = locate_id(field);
    std::string_view id = field.substr(sp.begin, sp.end - sp.begin);
    if (id.empty()) return R::failure("empty_id", std::string(what) + " holds no id");
    if (!sp.bracketed)
        found.push_back(
            make_diag(severity::note, diag_code::content_id_without_brackets, sp.begin,
                      std::string(what) + " without '<' '>'; the trimmed value is the id"));
    note_not_addr_spec(id, sp.begin, found);
    return R::success(url_encode_id(id));
}

std::string bracket(std::string_view id) {
    std::string out;
    out.reserve(id.size() + 2);
    out += '<';
    out += id;
    out += '>';
    return out;
}

void append(std::vector<diagnostic>* diags, std::vector<diagnostic>& found) {
    if (!diags) return;
    for (diagnostic& d : found) diags->push_back(std::move(d));
}

bool has_scheme(std::string_view url, std::string_view scheme_colon) noexcept {
    return url.size() >= scheme_colon.size() &&
           text::iequals(url.substr(0, scheme_colon.size()), scheme_colon);
}

}  // namespace

bool is_cid_url(std::string_view url) noexcept {
    return has_scheme(url, "cid:");
}
bool is_mid_url(std::string_view url) noexcept {
    return has_scheme(url, "mid:");
}

std::string url_encode_id(std::string_view id) {
    std::string out;
    out.reserve(id.size());
    for (char c : id) {
        if (is_pchar_literal(c)) {
            out.push_back(c);
        } else {
            text::append_escape(out, static_cast<unsigned char>(c));
        }
    }
    return out;
}

result<std::string> cid_to_content_id(std::string_view url, std::vector<diagnostic>* diags) {
    using R = result<std::string>;
    if (!is_cid_url(url)) return R::failure("wrong_scheme", "not a cid: URL");
    std::vector<diagnostic> found;
    constexpr std::size_t prefix = 4;  // "cid:"
    auto id = decode_url_id(without_fragment(url.substr(prefix)), prefix, found);
    if (!id) return id;
    append(diags, found);
    return R::success(bracket(id.value));
}

result<std::string> content_id_to_cid(std::string_view field_body, std::vector<diagnostic>* diags) {
    using R = result<std::string>;
    std::vector<diagnostic> found;
    auto enc = encode_field_id(field_body, "Content-ID", found);
    if (!enc) return enc;
    append(diags, found);
    return R::success("cid:" + enc.value);
}

result<mid_ids> mid_to_ids(std::string_view url, std::vector<diagnostic>* diags) {
    using R = result<mid_ids>;
    if (!is_mid_url(url)) return R::failure("wrong_scheme", "not a mid: URL");
    constexpr std::size_t prefix = 4;  // "mid:"
    std::string_view rest = without_fragment(url.substr(prefix));
    // CID-4: split at the first literal '/'; an escaped %2F belongs to an id.
    std::size_t slash = rest.find('/');
    if (slash != std::string_view::npos && rest.find('/', slash + 1) != std::string_view::npos)
        return R::failure("extra_slash",
                          "a mid: URL has at most one '/'; a '/' inside an id "
                          "must be written %2F");
    std::vector<diagnostic> found;
    mid_ids out;
    auto mid = decode_url_id(rest.substr(0, slash), prefix, found);
    if (!mid) return R::failure(mid.error, "message-id: " + mid.message);
    out.message_id = bracket(mid.value);
    if (slash != std::string_view::npos) {
        auto cid = decode_url_id(rest.substr(slash + 1), prefix + slash + 1, found);
        if (!cid) return R::failure(cid.error, "content-id: " + cid.message);
        out.content_id = bracket(cid.value);
    }
    append(diags, found);
    return R::success(std::move(out));
}

result<std::string> ids_to_mid(std::string_view message_id_field, std::string_view content_id_field,
                               std::vector<diagnostic>* diags) {
    using R = result<std::string>;
    std::vector<diagnostic> found;
    auto mid = encode_field_id(message_id_field, "Message-ID", found);
    if (!mid) return mid;
    std::string url = "mid:" + mid.value;
    if (!content_id_field.empty()) {
        auto cid = encode_field_id(content_id_field, "Content-ID", found);
        if (!cid) return cid;
        url += '/';
        url += cid.value;
    }
    append(diags, found);
    return R::success(std::move(url));
}

std::string id_key(std::string_view field_body) {
    id_span sp = locate_id(field_body);
    return std::string(field_body.substr(sp.begin, sp.end - sp.begin));
}

}  // namespace mhtml::uri
