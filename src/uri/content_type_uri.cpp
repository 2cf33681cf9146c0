#include "mhtml/uri/content_type_uri.hpp"
#include "mhtml/uri/reference.hpp"

#include <initializer_list>
#include <optional>
#include <utility>

#include "mhtml/detail/keyed_hash.hpp"
#include "mhtml/mime/content_type.hpp"
#include "mhtml/mime/header.hpp"
#include "text.hpp"

namespace mhtml::uri {

namespace {

using text::iequals;
using text::percent_decode;
using text::scheme_length;

using mime::is_token;
using mime::is_token_char;
using mime::is_tspecial;

constexpr std::string_view contenttype_scheme = "ContentType";
constexpr std::string_view uri_body_name = "URI-Body";
constexpr std::string_view uri_fragment_name = "URI-Fragment";
constexpr std::string_view mime_type_name = "MIME-Type";

std::size_t token_end(std::string_view s, std::size_t i) noexcept {
    while (i < s.size() && is_token_char(s[i])) ++i;
    return i;
}
// §2.1 (CTURI-2.1.2.4): what the basic Content-Type -> URI mapping encodes, in type,
// subtype, parameter names and values alike. §2.4 undoes one level of encoding and splits
// at `?`, `&`, `#`, so these must not appear raw; `"` and `\` are the quoting.
constexpr bool needs_escape_in_contenttype_uri(unsigned char u) noexcept {
    return u <= 0x20 || u >= 0x7f || u == '%' || u == '&' || u == '#' || u == '"' || u == '\\';
}
// §4: "those not permitted in a token in [RFC 2045] with the addition of percent sign and
// the deletion of double quote"; octets above 0x7F are not token characters either.
constexpr bool is_troublesome(unsigned char u) noexcept {
    return u <= 0x20 || u >= 0x7f || u == '%' || (u != '"' && is_tspecial(char(u)));
}
// E-28: the `uri.` subtype and parameter names are tokens, so `"` is encoded there too.
constexpr bool needs_escape_in_token(unsigned char u) noexcept {
    return is_troublesome(u) || u == '"';
}
// A `*` in a parameter name means RFC 2231 (`name*`, `name*0`) to a Content-Type parser;
// encoding it keeps a query name such as `a*` one ordinary parameter.
constexpr bool needs_escape_in_name(unsigned char u) noexcept {
    return needs_escape_in_token(u) || u == '*';
}

template <class Pred>
void percent_encode(std::string& out, std::string_view s, Pred must_encode) {
    for (char c : s) {
        auto u = static_cast<unsigned char>(c);
        if (must_encode(u))
            text::append_escape(out, u);  // CTURI-2.2.4: upper-case hex digits
        else
            out += c;
    }
}

// RFC 2045 §5.1 quoted-string, with `\` before `"` and `\`.
void append_quoted(std::string& out, std::string_view v) {
    out += '"';
    for (char c : v) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    out += '"';
}

// Drops one pair of enclosing double quotes (the draft's quoted query values, §2.1.2, §2.2).
std::string_view strip_quotes(std::string_view v) noexcept {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
    return v;
}

// "<before>\"<what>\"<after>" for messages (appending, not operator+: GCC 12 -Wrestrict).
std::string quoted_msg(std::string_view before, std::string_view what, std::string_view after) {
    std::string m;
    m.reserve(before.size() + what.size() + after.size() + 2);
    m += before;
    m += '"';
    m += what;
    m += '"';
    m += after;
    return m;
}

// ---------------------------------------------------------------------------------------
// Control characters. One level of %-decoding can turn `%0D%0A` into CR LF; a URI never
// holds a CTL (HTAB included), a Content-Type field body none but HTAB (header injection).

enum class ctl_target { uri, content_type };

// The first octet of `s` that `target` may not hold, or npos.
std::size_t find_ctl(std::string_view s, ctl_target target) noexcept {
    for (std::size_t i = 0; i < s.size(); ++i)
        if (text::is_ctl(s[i]) && (target == ctl_target::uri || s[i] != '\t')) return i;
    return std::string_view::npos;
}

// "octet 0x0D (CR) at offset 3 of <where><what> would put a control character into the URI"
std::string ctl_message(std::string_view s, std::size_t at, std::string_view where,
                        std::string_view what, ctl_target target) {
    static constexpr std::string_view names[32] = {
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS",  "HT",  "LF",
        "VT",  "FF",  "CR",  "SO",  "SI",  "DLE", "DC1", "DC2", "DC3", "DC4", "NAK",
        "SYN", "ETB", "CAN", "EM",  "SUB", "ESC", "FS",  "GS",  "RS",  "US"};
    auto u = static_cast<unsigned char>(s[at]);
    std::string m = "octet 0x";
    m += text::hex_upper(u >> 4);
    m += text::hex_upper(u & 15);
    m += " (";
    m += u < 32 ? names[u] : std::string_view("DEL");
    m += ") at offset ";
    m += std::to_string(at);
    m += " of ";
    m += where;
    if (!what.empty()) {
        m += '"';
        m += what;
        m += '"';
    }
    m += target == ctl_target::uri ? " would put a control character into the URI"
                                   : " would put a control character into the Content-Type";
    return m;
}

// Error "control_char" when `s` holds an octet `target` may not, else nullopt.
std::optional<result<mapping>> check_ctl(std::string_view s, ctl_target target,
                                         std::string_view where, std::string_view what = {}) {
    std::size_t at = find_ctl(s, target);
    if (at == std::string_view::npos) return std::nullopt;
    return result<mapping>::failure("control_char", ctl_message(s, at, where, what, target));
}

void report(std::vector<diagnostic>* diags, severity sev, diag_code code, std::size_t offset,
            std::string message) {
    if (!diags) return;
    diagnostic d;
    d.sev = sev;
    d.code = code;
    d.offset = offset;
    d.message = std::move(message);
    diags->push_back(std::move(d));
}

// ---------------------------------------------------------------------------------------
// Content-Type side

// The Content-Type parser lower-cases the subtype and parameter names; closure must keep
// the case of the URI inside `uri.` (CTURI-2.3.4) and of query names, so the spellings are
// read again here, following the same steps as mime::parse_content_type. One pass, and one
// hash lookup per parameter: linear in the number of parameters.
struct spelling {
    std::string_view subtype;
    // lower-case parameter base name (before any `*`) -> its first spelling
    mhtml::detail::keyed_string_map<std::string_view> names;
};

spelling read_spelling(std::string_view s) {
    spelling sp;
    std::size_t i = mime::skip_cfws(s, 0);
    std::size_t te = token_end(s, i);
    std::size_t slash = mime::skip_cfws(s, te);
    std::size_t st = slash < s.size() && s[slash] == '/' ? mime::skip_cfws(s, slash + 1) : s.size();
    std::size_t se = token_end(s, st);
    sp.subtype = s.substr(st, se - st);
    i = se;
    for (;;) {
        i = mime::skip_cfws(s, i);
        if (i >= s.size()) break;
        if (s[i] == ';') {
            ++i;
            continue;
        }
        std::size_t name_end = token_end(s, i);
        if (name_end == i) {
            std::size_t semi = s.find(';', i);
            if (semi == std::string_view::npos) break;
            i = semi;
            continue;
        }
        std::string_view name = s.substr(i, name_end - i);
        name = name.substr(0, name.find('*'));
        sp.names.try_emplace(text::ascii_lower(name), name);  // the first spelling stays
        i = mime::skip_cfws(s, name_end);
        if (i >= s.size() || s[i] != '=') continue;
        i = mime::skip_cfws(s, i + 1);
        if (i < s.size() && s[i] == '"') {
            for (++i; i < s.size() && s[i] != '"'; ++i)
                if (s[i] == '\\') ++i;
            if (i < s.size()) ++i;
        } else {
            while (i < s.size() && s[i] != ';' && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' &&
                   s[i] != '\n')
                ++i;
        }
    }
    return sp;
}

// The parameter name as first written (the parser's name is lower case).
std::string_view written_name(const spelling& sp, const std::string& lower_name) {
    auto it = sp.names.find(lower_name);
    return it == sp.names.end() ? std::string_view(lower_name) : it->second;
}

void report_parser_issues(const mime::value_issues& is, std::vector<diagnostic>* diags) {
    mime::each_parameter_issue(is, [&](severity sev, diag_code code, std::string_view what) {
        std::string message = "Content-Type ";
        message += what;
        report(diags, sev, code, 0, std::move(message));
    });
}

// Closure and controlled mapping append the parameters as a query, names as written,
// names and values with one level of %-encoding undone (CTURI-2.3.2, E-25). Error
// "control_char" when that decoding yields a CTL.
std::optional<result<mapping>> append_query(std::string& uri, char first_sep,
                                            const mime::content_type& ct, const spelling& sp,
                                            std::string_view skip_a, std::string_view skip_b) {
    char sep = first_sep;
    for (const mime::parameter& p : ct.params.items()) {
        if (iequals(p.name, skip_a) || iequals(p.name, skip_b)) continue;
        std::string_view written = written_name(sp, p.name);
        std::string name = percent_decode(written);
        if (auto e = check_ctl(name, ctl_target::uri, "the decoded parameter name ", written))
            return e;
        std::string value = percent_decode(p.value);
        if (auto e = check_ctl(value, ctl_target::uri, "the decoded value of parameter ", written))
            return e;
        uri += sep;
        sep = '&';
        uri += name;
        uri += "=\"";
        uri += value;
        uri += '"';
    }
    return std::nullopt;
}

std::optional<result<mapping>> append_fragment(std::string& uri, const mime::content_type& ct) {
    if (auto frag = ct.param(uri_fragment_name)) {
        std::string f = percent_decode(*frag);
        if (auto e = check_ctl(f, ctl_target::uri, "the decoded URI-Fragment parameter")) return e;
        uri += '#';
        uri += f;
    }
    return std::nullopt;
}

// §2.1: ContentType:type/subtype?name="value"&...
mapping basic_ct_to_uri(const mime::content_type& ct) {
    mapping m;
    std::string& u = m.text;
    u = contenttype_scheme;
    u += ':';
    percent_encode(u, ct.type, needs_escape_in_contenttype_uri);  // lower case already
    u += '/';
    percent_encode(u, ct.subtype, needs_escape_in_contenttype_uri);
    char sep = '?';  // CTURI-2.1.2.3: no parameters, no '?'
    for (const mime::parameter& p : ct.params.items()) {
        u += sep;
        sep = '&';
        percent_encode(u, p.name, needs_escape_in_contenttype_uri);  // lower case already
        u += "=\"";  // CTURI-2.1.2.2: values always quoted
        percent_encode(u, p.value, needs_escape_in_contenttype_uri);
        u += '"';
    }
    m.rule = mapping_rule::basic;
    return m;
}

// ---------------------------------------------------------------------------------------
// URI side

struct query_pair {
    std::string_view name;
    std::string_view value;
    std::size_t offset;  // of the pair in the URI
};

// Splits a query into name=value pairs at '&' and each pair's first '='. Returns nullopt
// if the query is not entirely such pairs with non-empty names (CTURI-2.2.5).
std::optional<std::vector<query_pair>> split_pairs(std::string_view q, std::size_t offset) {
    std::vector<query_pair> pairs;
    std::size_t b = 0;
    for (;;) {
        std::size_t e = q.find('&', b);
        if (e == std::string_view::npos) e = q.size();
        std::string_view piece = q.substr(b, e - b);
        std::size_t eq = piece.find('=');
        if (eq == std::string_view::npos || eq == 0) return std::nullopt;
        pairs.push_back({piece.substr(0, eq), piece.substr(eq + 1), offset + b});
        if (e == q.size()) break;
        b = e + 1;
    }
    return pairs;
}

// CTURI-1.3.1: the pairs become parameters only if the Content-Type gives each of them
// back: no name twice (the parser keeps the first of a name, in any case) and none of the
// names the mapping itself writes (`reserved`). `skip` is the pair the mapping consumes.
bool is_parameter_set(const std::vector<query_pair>& pairs, const query_pair* skip,
                      std::initializer_list<std::string_view> reserved) {
    mhtml::detail::keyed_string_set seen;
    seen.reserve(pairs.size());
    for (const query_pair& p : pairs) {
        if (&p == skip) continue;
        for (std::string_view r : reserved)
            if (iequals(p.name, r)) return false;
        if (!seen.insert(text::ascii_lower(p.name)).second) return false;
    }
    return true;
}

// One parameter of a §2.2 / §3 mapping: `; name="value"` with troublesome characters encoded.
void append_mapped_param(std::string& ct, std::string_view name, std::string_view value) {
    ct += "; ";
    percent_encode(ct, name, needs_escape_in_name);
    std::string v;
    percent_encode(v, value, is_troublesome);
    ct += '=';
    append_quoted(ct, v);
}

// A URI split per RFC 3986 appendix B, except that '?' always starts the query (E-30).
struct uri_parts {
    std::string_view body;  // before '?' and '#'
    std::optional<std::string_view> query;
    std::optional<std::string_view> fragment;
    std::size_t query_offset = 0;
    std::size_t fragment_offset = 0;
};

uri_parts split_uri(std::string_view u) noexcept {
    const reference_parts r = split_reference(u);
    auto at = [&](std::string_view piece) {
        return static_cast<std::size_t>(piece.data() - u.data());
    };
    uri_parts p;
    p.body = u.substr(0, at(r.path) + r.path.size());
    if (r.has_query) {
        p.query = r.query;
        p.query_offset = at(r.query);
    }
    if (r.has_fragment) {
        p.fragment = r.fragment;
        p.fragment_offset = at(r.fragment) - 1;  // the '#'
    }
    return p;
}

// §2.4: ContentType:type/subtype?name="value"&... -> type/subtype; name="value"; ...
result<mapping> closure_uri_to_ct(std::string_view uri, std::size_t scheme_len,
                                  std::vector<diagnostic>* diags) {
    std::string_view ssp = uri.substr(scheme_len + 1);
    // CTURI-2.1.1.5: "The meaning of URIs starting with ContentType:// is reserved".
    if (ssp.starts_with("//"))
        return result<mapping>::failure(
            "reserved_form",
            "URIs beginning \"ContentType://\" are reserved for future definition "
            "(draft-eastlake-cturi-02 §2.1.1)");
    uri_parts parts = split_uri(uri);
    std::string_view type_part = parts.body.substr(scheme_len + 1);
    std::string media = percent_decode(type_part);
    std::size_t slash = media.find('/');
    if (slash == std::string::npos || !is_token(std::string_view(media).substr(0, slash)) ||
        !is_token(std::string_view(media).substr(slash + 1)))
        return result<mapping>::failure(
            "invalid_content_type",
            quoted_msg("", type_part, " after ContentType: is not type/subtype"));
    mapping m;
    m.rule = mapping_rule::closure;
    m.text = std::move(media);  // case kept (vectors' output form)
    if (parts.query) {
        std::string_view q = *parts.query;
        std::size_t b = 0;
        while (b <= q.size()) {
            std::size_t e = q.find('&', b);
            if (e == std::string_view::npos) e = q.size();
            std::string_view piece = q.substr(b, e - b);
            if (!piece.empty()) {  // "a=1&&b=2": the empty pair gives nothing
                std::size_t eq = piece.find('=');
                std::string name =
                    percent_decode(eq == std::string_view::npos ? piece : piece.substr(0, eq));
                if (eq == std::string_view::npos || !is_token(name))
                    return result<mapping>::failure(
                        "invalid_content_type",
                        quoted_msg("query pair ", piece,
                                   " of a ContentType: URI is not name=value with a token name"));
                // E-27: the quotes may be written `"` or `%22`; both are gone after decoding.
                std::string decoded = percent_decode(piece.substr(eq + 1));
                std::string_view value = strip_quotes(decoded);
                if (auto e = check_ctl(value, ctl_target::content_type,
                                       "the decoded value of query parameter ", name))
                    return *e;
                m.text += "; ";
                m.text += name;
                m.text += '=';
                append_quoted(m.text, value);
            }
            b = e + 1;
        }
    }
    if (parts.fragment) {
        // CTURI-2.4.3: basic mapping never yields a fragment here; keep it as a parameter.
        m.text += "; ";
        m.text += uri_fragment_name;
        m.text += '=';
        std::string frag = percent_decode(*parts.fragment);
        if (auto e = check_ctl(frag, ctl_target::content_type, "the decoded fragment")) return *e;
        append_quoted(m.text, frag);
        report(diags, severity::note, diag_code::contenttype_uri_fragment, parts.fragment_offset,
               "a ContentType: URI has a #fragment, which basic mapping never produces; mapped "
               "to a URI-Fragment parameter");
    }
    return result<mapping>::success(std::move(m));
}

}  // namespace

std::string_view rule_name(mapping_rule r) noexcept {
    switch (r) {
        case mapping_rule::basic:
            return "basic";
        case mapping_rule::closure:
            return "closure";
        case mapping_rule::controlled:
            return "controlled";
    }
    return "basic";
}

result<mapping> ct_to_uri(std::string_view content_type, const mapping_options& opts,
                          std::vector<diagnostic>* diags) {
    // CTURI-1.2.4: folding is presentation; the parser drops comments and white space.
    std::string s = mime::unfold(content_type);
    mime::value_issues issues;
    mime::content_type ct = mime::parse_content_type(s, issues);
    if (issues.invalid)
        return result<mapping>::failure(
            "invalid_content_type", quoted_msg("", s, " is not a Content-Type (no type/subtype)"));
    report_parser_issues(issues, diags);
    spelling sp = read_spelling(s);

    // §2.3 (CTURI-2.3.1): the `uri.` tree, checked first; the top-level type is ignored.
    if (ct.subtype.starts_with("uri.")) {
        mapping m;
        m.rule = mapping_rule::closure;
        m.text = percent_decode(sp.subtype.substr(4));
        if (scheme_length(m.text) == 0)
            return result<mapping>::failure("not_absolute",
                                            quoted_msg("subtype ", sp.subtype,
                                                       " does not hold an absolute URI "
                                                       "(draft-eastlake-cturi-02 §1.2, §5)"));
        if (auto e =
                check_ctl(m.text, ctl_target::uri, "the URI decoded from subtype ", sp.subtype))
            return *e;
        if (auto e = append_query(m.text, '?', ct, sp, uri_fragment_name, {})) return *e;
        if (auto e = append_fragment(m.text, ct)) return *e;
        return result<mapping>::success(std::move(m));
    }

    // §3 (CTURI-3.3): a URI-Body parameter controls the non-query part of the URI.
    if (opts.controlled) {
        if (auto body = ct.param(uri_body_name)) {
            if (scheme_length(*body) != 0 && body->find('#') == std::string_view::npos) {
                if (auto e = check_ctl(*body, ctl_target::uri, "the URI-Body parameter")) return *e;
                mapping m;
                m.rule = mapping_rule::controlled;
                m.text = *body;
                // CTURI-3.5: a body with its own query is continued with '&'; MIME-Type first.
                m.text += body->find('?') == std::string_view::npos ? '?' : '&';
                m.text += mime_type_name;
                m.text += "=\"";
                percent_encode(m.text, ct.type, needs_escape_in_contenttype_uri);
                m.text += '/';
                percent_encode(m.text, ct.subtype, needs_escape_in_contenttype_uri);
                m.text += '"';
                if (auto e = append_query(m.text, '&', ct, sp, uri_body_name, uri_fragment_name))
                    return *e;
                if (auto e = append_fragment(m.text, ct)) return *e;
                return result<mapping>::success(std::move(m));
            }
            report(diags, severity::warning, diag_code::parameter_invalid, 0,
                   quoted_msg("URI-Body ", *body,
                              " is not an absolute URI without a fragment; ignored for "
                              "controlled mapping, basic mapping used "
                              "(draft-eastlake-cturi-02 §3)"));
        }
    }

    // §2.1. A value with control characters (other than HTAB) could not be mapped back:
    // the closure refuses to put them into a Content-Type, so refuse them here as well.
    for (const auto& p : ct.params.items())
        if (auto e =
                check_ctl(p.value, ctl_target::content_type, "the value of parameter ", p.name))
            return *e;
    return result<mapping>::success(basic_ct_to_uri(ct));
}

result<mapping> uri_to_ct(std::string_view uri, const mapping_options& opts,
                          std::vector<diagnostic>* diags) {
    // CTURI-1.2.1: only absolute URIs are mappable.
    std::size_t scheme_len = scheme_length(uri);
    if (scheme_len == 0)
        return result<mapping>::failure("not_absolute",
                                        quoted_msg("", uri,
                                                   " is not an absolute URI; resolve it first "
                                                   "(draft-eastlake-cturi-02 §1.2)"));

    // §2.4 (CTURI-2.4.1): scheme names are case-insensitive.
    if (iequals(uri.substr(0, scheme_len), contenttype_scheme))
        return closure_uri_to_ct(uri, scheme_len, diags);

    uri_parts parts = split_uri(uri);
    std::optional<std::vector<query_pair>> pairs;
    if (parts.query) pairs = split_pairs(*parts.query, parts.query_offset);

    mapping m;
    std::string& ct = m.text;
    const query_pair* mime_type = nullptr;

    // §3 (CTURI-3.2): a MIME-Type query parameter sets the media type; the first one wins.
    if (opts.controlled && pairs) {
        for (const query_pair& p : *pairs) {
            if (!iequals(p.name, mime_type_name)) continue;
            std::string media = percent_decode(strip_quotes(p.value));
            std::size_t slash = media.find('/');
            if (slash != std::string::npos && is_token(std::string_view(media).substr(0, slash)) &&
                is_token(std::string_view(media).substr(slash + 1))) {
                mime_type = &p;
                ct = std::move(media);  // case kept (vectors' output form)
            } else {
                report(diags, severity::warning, diag_code::parameter_invalid, p.offset,
                       quoted_msg("MIME-Type ", p.value,
                                  " is not type/subtype; ignored for controlled mapping, "
                                  "basic mapping used (draft-eastlake-cturi-02 §3)"));
            }
            break;
        }
        // CTURI-1.3.1: the other pairs must come back as they are; a repeated name, a
        // URI-Body or a URI-Fragment among them would not. Basic mapping applies then.
        if (mime_type && !is_parameter_set(*pairs, mime_type, {uri_body_name, uri_fragment_name})) {
            mime_type = nullptr;
            ct.clear();
        }
        if (mime_type) {
            // A Content-Type field body holds no CTL but HTAB; the body is copied verbatim.
            if (auto e = check_ctl(parts.body, ctl_target::content_type, "the URI body (URI-Body)"))
                return *e;
            for (const query_pair& p : *pairs)
                if (&p != mime_type && iequals(p.name, mime_type_name))
                    report(diags, severity::warning, diag_code::mime_type_repeated, p.offset,
                           "MIME-Type appears more than once in the query; the first one is "
                           "used, this one becomes an ordinary parameter (CTURI-3.5)");
        }
    }
    // CTURI-1.3.1: pairs that closure would not give back (a name twice, in any case, or a
    // URI-Fragment, which closure makes the fragment) stay in the subtype (CTURI-2.2.5).
    if (!mime_type && pairs && !is_parameter_set(*pairs, nullptr, {uri_fragment_name}))
        pairs.reset();

    if (mime_type) {
        m.rule = mapping_rule::controlled;
        ct += "; ";
        ct += uri_body_name;
        ct += '=';
        append_quoted(ct, parts.body);  // "preserved", not encoded
        for (const query_pair& p : *pairs)
            if (&p != mime_type) append_mapped_param(ct, p.name, strip_quotes(p.value));
    } else {
        // §2.2 (CTURI-2.2.1): application/uri. + the URI without query and fragment.
        m.rule = mapping_rule::basic;
        ct = "application/uri.";
        percent_encode(ct, parts.body, needs_escape_in_token);
        if (parts.query && !pairs) {
            // CTURI-2.2.5: not name=value pairs; the query stays in the subtype.
            percent_encode(ct, "?", needs_escape_in_token);
            percent_encode(ct, *parts.query, needs_escape_in_token);
        }
        if (pairs)
            for (const query_pair& p : *pairs)
                append_mapped_param(ct, p.name, strip_quotes(p.value));  // CTURI-2.2.3
    }
    if (parts.fragment) append_mapped_param(ct, uri_fragment_name, *parts.fragment);
    return result<mapping>::success(std::move(m));
}

}  // namespace mhtml::uri
