#include "mhtml/mime/content_type.hpp"

#include <algorithm>
#include <charconv>

#include "mhtml/detail/keyed_hash.hpp"
#include "mhtml/mime/charset.hpp"
#include "mhtml/mime/header.hpp"

namespace mhtml::mime {

namespace {

constexpr bool is_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::size_t token_end(std::string_view s, std::size_t i) noexcept {
    while (i < s.size() && is_token_char(s[i])) ++i;
    return i;
}

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// RFC 2231 §4: extended-other-values are %-encoded octets.
std::string percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 &&
            hex_value(s[i + 2]) >= 0) {
            out += char(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// One raw parameter as written, before RFC 2231 assembly.
struct raw_param {
    std::string name;  // lower-case, with any '*' suffix
    std::string value;
    bool quoted = false;
};

// Reads a quoted-string starting at s[i] == '"'. RFC 5322 §3.2.4: quoted-pairs stand for
// the escaped character. Folding inside was already removed by unfolding.
std::string quoted_string(std::string_view s, std::size_t& i, value_issues& issues) {
    std::string out;
    ++i;
    for (; i < s.size(); ++i) {
        char c = s[i];
        if (c == '\\' && i + 1 < s.size()) {
            out += s[++i];
        } else if (c == '"') {
            ++i;
            return out;
        } else {
            out += c;
        }
    }
    issues.unterminated_quote = true;
    return out;
}

}  // namespace

std::optional<std::string_view> parameter_list::get(std::string_view name) const noexcept {
    if (const parameter* p = find(name)) return std::string_view(p->value);
    return std::nullopt;
}

const parameter* parameter_list::find(std::string_view name) const noexcept {
    for (const parameter& p : items_)
        if (iequals(p.name, name)) return &p;
    return nullptr;
}

parameter_list parse_parameters(std::string_view s, std::size_t i, value_issues& issues) {
    std::vector<raw_param> raw;
    bool need_separator = false;
    for (;;) {
        i = skip_cfws(s, i);
        if (i >= s.size()) break;
        if (s[i] == ';') {
            ++i;
            need_separator = false;
            continue;
        }
        if (need_separator) issues.missing_separator = true;  // seed erratum E-21: `a=b c=d`
        std::size_t name_begin = i;
        std::size_t name_end = token_end(s, i);
        if (name_end == name_begin) {
            // Not a parameter name: skip to the next ';'.
            issues.bad_parameter = true;
            std::size_t semi = s.find(';', i);
            if (semi == std::string_view::npos) break;
            i = semi;
            continue;
        }
        raw_param p;
        p.name = to_lower(s.substr(name_begin, name_end - name_begin));
        i = skip_cfws(s, name_end);
        if (i >= s.size() || s[i] != '=') {
            issues.bad_parameter = true;
            need_separator = true;
            continue;
        }
        i = skip_cfws(s, i + 1);
        if (i < s.size() && s[i] == '"') {
            p.value = quoted_string(s, i, issues);
            p.quoted = true;
        } else {
            // A token; real producers also write unquoted values with tspecials
            // (`boundary=----=_Part_1`, `start=<a@b>`, `type=text/html`): read up to the next
            // ';' or white space and report it (REL-3.4.2, E-5).
            std::size_t b = i;
            while (i < s.size() && s[i] != ';' && !is_space(s[i])) {
                if (!is_token_char(s[i])) issues.needs_quoting = true;
                ++i;
            }
            p.value = std::string(s.substr(b, i - b));
        }
        raw.push_back(std::move(p));
        need_separator = true;
    }

    parameter_list out;
    auto& items = out.items();
    // Most fields have a few plain parameters (no RFC 2231 '*'): a repeat is found by
    // comparing names, without the hashed sets a field of thousands needs.
    if (raw.size() <= 8 && std::none_of(raw.begin(), raw.end(), [](const raw_param& p) {
            return p.name.find('*') != std::string::npos;
        })) {
        for (raw_param& p : raw) {
            if (std::any_of(items.begin(), items.end(),
                            [&](const parameter& x) { return x.name == p.name; })) {
                issues.duplicate_parameter = true;  // the first occurrence wins, as in GMime
                continue;
            }
            std::string value = p.value;
            items.push_back(
                {std::move(p.name), std::move(value), std::move(p.value), {}, {}, false, p.quoted});
        }
        return out;
    }
    // RFC 2231 §3, §4: assemble name*0, name*1*, ... and decode name*=charset'lang'value.
    struct piece {
        unsigned index;
        bool extended;
        std::string value;
    };
    std::vector<std::pair<std::string, std::vector<piece>>> groups;
    // Names seen so far, hashed so that a field with thousands of parameters stays linear.
    mhtml::detail::keyed_string_set plain_names;
    mhtml::detail::keyed_string_map<std::size_t> group_of;  // base name -> index in groups
    for (raw_param& p : raw) {
        std::string_view n = p.name;
        std::size_t star = n.find('*');
        if (star == std::string_view::npos) {
            std::string name(n);
            if (plain_names.count(name) || group_of.count(name)) {
                issues.duplicate_parameter = true;  // the first occurrence wins, as in GMime
                continue;
            }
            plain_names.insert(name);
            items.push_back({std::move(name), p.value, p.value, {}, {}, false, p.quoted});
            continue;
        }
        std::string base(n.substr(0, star));
        if (base.empty()) {  // "*=..." names no parameter
            issues.bad_parameter = true;
            continue;
        }
        std::string_view rest = n.substr(star + 1);
        piece pc{0, false, std::move(p.value)};
        if (rest.empty()) {
            pc.extended = true;  // name*=charset'lang'value
        } else {
            bool ext = rest.back() == '*';
            if (ext) rest.remove_suffix(1);
            unsigned idx = 0;
            auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), idx);
            if (ec != std::errc{} || ptr != rest.data() + rest.size() || idx > 10000) {
                issues.bad_parameter = true;
                continue;
            }
            pc.index = idx;
            pc.extended = ext;
        }
        auto [slot, fresh] = group_of.try_emplace(base, groups.size());
        if (fresh) groups.push_back({base, {}});
        groups[slot->second].second.push_back(std::move(pc));
    }
    for (auto& group : groups) {
        const std::string& name =
            group.first;  // not a structured binding: clang 14 cannot capture one
        auto& pieces = group.second;
        std::stable_sort(pieces.begin(), pieces.end(),
                         [](const piece& a, const piece& b) { return a.index < b.index; });
        parameter prm;
        prm.name = name;
        prm.extended = true;
        std::string octets;
        for (std::size_t k = 0; k < pieces.size(); ++k) {
            piece& pc = pieces[k];
            if (pc.index != k) issues.bad_continuation = true;  // gaps or duplicates
            std::string_view v = pc.value;
            if (k == 0 && pc.extended) {
                // RFC 2231 §4: charset'language'value in the first piece only.
                std::size_t q1 = v.find('\'');
                std::size_t q2 = q1 == std::string_view::npos ? q1 : v.find('\'', q1 + 1);
                if (q2 != std::string_view::npos) {
                    prm.charset = std::string(v.substr(0, q1));
                    prm.language = std::string(v.substr(q1 + 1, q2 - q1 - 1));
                    v = v.substr(q2 + 1);
                } else {
                    issues.bad_continuation = true;
                }
            }
            octets += pc.extended ? percent_decode(v) : std::string(v);
        }
        prm.octets = octets;
        if (prm.charset.empty()) {
            prm.value = octets;
        } else if (auto u = to_utf8(octets, prm.charset)) {
            prm.value = std::move(*u);
        } else {
            issues.bad_charset = true;
            prm.value = octets;
        }
        // RFC 2231 §4: if both forms are present the extended one is preferred.
        auto old = plain_names.count(name)
                       ? std::find_if(items.begin(), items.end(),
                                      [&](const parameter& x) { return x.name == name; })
                       : items.end();
        if (old != items.end()) {
            *old = std::move(prm);
        } else {
            items.push_back(std::move(prm));
        }
    }
    return out;
}

void each_parameter_issue(
    const value_issues& is,
    const std::function<void(severity, diag_code, std::string_view)>& report) {
    if (is.missing_separator)
        report(severity::warning, diag_code::missing_parameter_separator,
               "parameters not separated by ';'; read as separate parameters");
    if (is.needs_quoting)
        report(severity::note, diag_code::parameter_needs_quoting,
               "parameter value with special characters is not quoted; read up to the next ';' or "
               "space");
    if (is.bad_parameter || is.unterminated_quote)
        report(severity::warning, diag_code::parameter_invalid,
               "malformed parameter; skipped or read to the end of the field");
    if (is.duplicate_parameter)
        report(severity::warning, diag_code::parameter_duplicate,
               "repeated parameter; the first one is used");
    if (is.bad_continuation)
        report(
            severity::warning, diag_code::rfc2231_bad_continuation,
            "RFC 2231 parameter continuations are missing or out of order; joined in index order");
    if (is.bad_charset)
        report(severity::warning, diag_code::rfc2231_bad_charset,
               "RFC 2231 parameter charset is unknown; octets kept as they are");
}

bool content_type::is(std::string_view t, std::string_view st) const noexcept {
    return iequals(type, t) && iequals(subtype, st);
}

bool content_type::is_encapsulated_message() const noexcept {
    return type == "message" && (subtype == "rfc822" || subtype == "global" || subtype == "news");
}

content_type content_type::default_text() {
    content_type ct;
    ct.params.items().push_back({"charset", "us-ascii", "us-ascii", {}, {}, false});
    return ct;
}

content_type content_type::default_digest() {
    content_type ct;
    ct.type = "message";
    ct.subtype = "rfc822";
    return ct;
}

namespace {
void assign_lower(std::string& out, std::string_view s) {
    out.assign(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = char(c + 32);
}
}  // namespace

void parse_content_type(std::string_view s, value_issues& issues, content_type& ct) {
    std::size_t i = skip_cfws(s, 0);
    std::size_t te = token_end(s, i);
    std::size_t slash = skip_cfws(s, te);
    std::size_t st = slash < s.size() && s[slash] == '/' ? skip_cfws(s, slash + 1) : s.size();
    std::size_t se = token_end(s, st);
    if (te == i || se == st) {
        // RFC 2045 §5.2: a syntactically invalid Content-Type is treated as text/plain.
        issues.invalid = true;
        issues.missing_subtype = te != i;
        ct = content_type::default_text();
        return;
    }
    assign_lower(ct.type, s.substr(i, te - i));
    assign_lower(ct.subtype, s.substr(st, se - st));
    i = skip_cfws(s, se);
    if (i < s.size() && s[i] != ';') issues.missing_separator = true;
    if (i >= s.size()) {
        ct.params.items().clear();
    } else {
        ct.params = parse_parameters(s, i, issues);
    }
}

content_type parse_content_type(std::string_view s, value_issues& issues) {
    content_type ct;
    parse_content_type(s, issues, ct);
    return ct;
}

content_disposition parse_content_disposition(std::string_view s, value_issues& issues) {
    content_disposition cd;
    std::size_t i = skip_cfws(s, 0);
    std::size_t te = token_end(s, i);
    if (te == i) {
        issues.invalid = true;
    } else {
        cd.type = to_lower(s.substr(i, te - i));
    }
    i = skip_cfws(s, te);
    cd.params = parse_parameters(s, i, issues);
    return cd;
}

transfer_encoding parse_transfer_encoding(std::string_view s) noexcept {
    // Fast path: the value is one of the usual spellings with nothing around it.
    std::string_view t0 = s;
    while (!t0.empty() && (t0.front() == ' ' || t0.front() == '\t')) t0.remove_prefix(1);
    while (!t0.empty() && (t0.back() == ' ' || t0.back() == '\t')) t0.remove_suffix(1);
    if (t0 == "base64") return transfer_encoding::base64;
    if (t0 == "quoted-printable") return transfer_encoding::quoted_printable;
    if (t0 == "7bit") return transfer_encoding::seven_bit;
    if (t0 == "8bit") return transfer_encoding::eight_bit;
    if (t0 == "binary") return transfer_encoding::binary;
    std::size_t i = skip_cfws(s, 0);
    std::size_t e = i;
    while (e < s.size() && !is_space(s[e]) && s[e] != '(' && s[e] != ';') ++e;
    std::string_view t = s.substr(i, e - i);
    if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
    if (t.size() > 16) return transfer_encoding::unknown;
    char low[16];
    for (std::size_t k = 0; k < t.size(); ++k)
        low[k] = t[k] >= 'A' && t[k] <= 'Z' ? char(t[k] + 32) : t[k];
    std::string_view l(low, t.size());
    if (l == "base64") return transfer_encoding::base64;
    if (l == "quoted-printable") return transfer_encoding::quoted_printable;
    if (l == "7bit") return transfer_encoding::seven_bit;
    if (l == "8bit") return transfer_encoding::eight_bit;
    if (l == "binary") return transfer_encoding::binary;
    return transfer_encoding::unknown;
}

std::string_view transfer_encoding_name(transfer_encoding e) noexcept {
    switch (e) {
        case transfer_encoding::seven_bit:
            return "7bit";
        case transfer_encoding::eight_bit:
            return "8bit";
        case transfer_encoding::binary:
            return "binary";
        case transfer_encoding::quoted_printable:
            return "quoted-printable";
        case transfer_encoding::base64:
            return "base64";
        case transfer_encoding::unknown:
            break;
    }
    return "unknown";
}

std::optional<std::string> parse_msg_id(std::string_view s, bool* had_brackets) {
    std::size_t i = skip_cfws(s, 0);
    if (had_brackets) *had_brackets = false;
    if (i < s.size() && s[i] == '<') {
        std::size_t close = s.find('>', i + 1);
        if (close != std::string_view::npos) {
            if (had_brackets) *had_brackets = true;
            std::string id;
            // RFC 5322 §3.6.4 obs-id-left/right allow CFWS inside; drop white space.
            for (char c : s.substr(i + 1, close - i - 1))
                if (!is_space(c)) id += c;
            if (id.empty()) return std::nullopt;
            return id;
        }
        ++i;  // '<' without '>': take the rest
    }
    std::size_t e = s.size();
    while (e > i && is_space(s[e - 1])) --e;
    // A trailing comment after a bare id: cut at the first white space.
    std::size_t sp = i;
    while (sp < e && !is_space(s[sp])) ++sp;
    if (sp == i) return std::nullopt;
    return std::string(s.substr(i, sp - i));
}

}  // namespace mhtml::mime
