#include "mhtml/mime/node.hpp"

#include <algorithm>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/content_type.hpp"
#include "mhtml/mime/header.hpp"
#include "mhtml/mime/quoted_printable.hpp"

namespace mhtml::mime {

namespace {

content_type type_of(const node& n) {
    if (auto v = n.get("Content-Type")) {
        value_issues is;
        return parse_content_type(*v, is);
    }
    return content_type::default_text();
}

bool is_token_value(std::string_view v) {
    if (v.empty()) return false;
    for (char c : v) {
        auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f ||
            std::string_view("()<>@,;:\\\"/[]?=").find(c) != std::string_view::npos)
            return false;
    }
    return true;
}

// A parameter as written: token, quoted-string, or RFC 2231 extended value for 8-bit.
void append_param(std::string& out, std::string_view name, std::string_view value) {
    out += "; ";
    out += name;
    bool eight_bit = std::any_of(value.begin(), value.end(),
                                 [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    if (eight_bit) {
        // RFC 2231 §4: name*=charset''%XX (values are UTF-8 after parsing).
        static const char hex[] = "0123456789ABCDEF";
        out += "*=utf-8''";
        for (char c : value) {
            auto u = static_cast<unsigned char>(c);
            if (u >= 0x80 || u <= 0x20 ||
                std::string_view("*'%()<>@,;:\\\"/[]?=").find(c) != std::string_view::npos) {
                out += '%';
                out += hex[u >> 4];
                out += hex[u & 15];
            } else {
                out += c;
            }
        }
        return;
    }
    out += '=';
    if (is_token_value(value)) {
        out += value;
        return;
    }
    out += '"';
    for (char c : value) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    out += '"';
}

// RFC 2046 §5.1.1: 1 to 70 bchars, not ending in a space. A caller's boundary that is not
// one (CRLF and white space would pass check_field as a fold, and the delimiter lines would
// then not match the parameter) is replaced like one that occurs in the content.
bool is_boundary(std::string_view b) noexcept {
    if (b.empty() || b.size() > 70 || b.back() == ' ') return false;
    for (char c : b) {
        const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                        (c >= 'A' && c <= 'Z') ||
                        std::string_view("'()+_,-./:=? ").find(c) != std::string_view::npos;
        if (!ok) return false;
    }
    return true;
}

std::string content_type_value(const content_type& ct, std::string_view boundary) {
    std::string v = ct.essence();
    if (!boundary.empty()) append_param(v, "boundary", boundary);
    for (const parameter& p : ct.params.items())
        if (p.name != "boundary") append_param(v, p.name, p.value);
    return v;
}

std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 1469598103934665603ull) {
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

// Text in canonical form (RFC 2045 §2.10, MHT-11.4): every line end CRLF.
std::string canonical_crlf(std::string_view s) {
    std::string out;
    out.reserve(s.size() + s.size() / 32);
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '\r') {
            out += "\r\n";
            if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
        } else if (c == '\n') {
            out += "\r\n";
        } else {
            out += c;
        }
    }
    return out;
}

struct text_stats {
    bool eight_bit = false, nul = false, bare_cr_lf = false;
    std::size_t longest_line = 0;
};

text_stats stats(std::string_view s) {
    text_stats st;
    std::size_t line = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto u = static_cast<unsigned char>(s[i]);
        if (u == '\r' && i + 1 < s.size() && s[i + 1] == '\n') {
            st.longest_line = std::max(st.longest_line, line);
            line = 0;
            ++i;
            continue;
        }
        if (u == '\r' || u == '\n') st.bare_cr_lf = true;
        if (u >= 0x80) st.eight_bit = true;
        if (u == 0) st.nul = true;
        ++line;
    }
    st.longest_line = std::max(st.longest_line, line);
    return st;
}

// RFC 2045 §6.4, RFC 2046 §5.2.1: a multipart or a message/rfc822 has no transfer encoding
// but 7bit, 8bit or binary. A base64 or quoted-printable label (kept from a parsed entity
// whose encoded body was decoded) would not describe the body written: it is dropped, and
// the body labelled 8bit or binary if it is not 7bit.
void drop_encoding(std::vector<std::pair<std::string, std::string>>& fields,
                   std::string_view body) {
    auto encoded = [](const auto& f) {
        if (!iequals(f.first, "Content-Transfer-Encoding")) return false;
        transfer_encoding e = parse_transfer_encoding(f.second);
        return e == transfer_encoding::base64 || e == transfer_encoding::quoted_printable;
    };
    auto it = std::find_if(fields.begin(), fields.end(), encoded);
    if (it == fields.end()) return;
    text_stats st = stats(body);
    if (st.nul || st.bare_cr_lf || st.longest_line > 998) {
        it->second = "binary";
    } else if (st.eight_bit) {
        it->second = "8bit";
    } else {
        fields.erase(it);
    }
    std::erase_if(fields, encoded);  // a repeated label
}

class writer {
public:
    void entity(const node& n, std::string& out, const std::string& path);
    std::vector<diagnostic> diags;
    std::optional<diagnostic> error;  // a field refused: writing stops

private:
    bool refuse(const std::vector<std::pair<std::string, std::string>>& fields,
                const std::string& path);
    void leaf_body(const node& n, const content_type& ct,
                   std::vector<std::pair<std::string, std::string>>& fields, std::string& body,
                   const std::string& path);
};

void writer::leaf_body(const node& n, const content_type& ct,
                       std::vector<std::pair<std::string, std::string>>& fields, std::string& body,
                       const std::string& path) {
    auto cte_it = std::find_if(fields.begin(), fields.end(), [](auto& f) {
        return iequals(f.first, "Content-Transfer-Encoding");
    });
    std::string data = ct.type == "text" ? canonical_crlf(n.content()) : n.content();
    transfer_encoding enc;
    if (cte_it != fields.end()) {
        enc = parse_transfer_encoding(cte_it->second);
    } else {
        text_stats st = stats(data);
        bool textual = ct.type == "text" || ct.type == "message";
        if (textual && !st.eight_bit && !st.nul && !st.bare_cr_lf && st.longest_line <= 998) {
            enc = transfer_encoding::seven_bit;
        } else if (ct.type == "text") {
            enc = transfer_encoding::quoted_printable;
        } else {
            enc = transfer_encoding::base64;
        }
        if (enc != transfer_encoding::seven_bit)
            fields.emplace_back("Content-Transfer-Encoding",
                                std::string(transfer_encoding_name(enc)));
    }
    switch (enc) {
        case transfer_encoding::base64:
            body = base64_encode(data);
            // The line end after the last line would be content of the delimiter's CRLF.
            if (body.size() >= 2 && body.ends_with("\r\n")) body.resize(body.size() - 2);
            break;
        case transfer_encoding::quoted_printable:
            body = qp_encode(data, ct.type == "text" ? qp_mode::text : qp_mode::binary);
            break;
        default: {
            body = std::move(data);
            text_stats st = stats(body);
            if (st.longest_line > 998)
                diags.push_back({severity::warning, diag_code::serialize_line_too_long, path, 0,
                                 "a line of " + std::to_string(st.longest_line) + " octets in a " +
                                     std::string(transfer_encoding_name(enc)) +
                                     " body exceeds 998 (RFC 5322 §2.1.1); written as it is"});
            break;
        }
    }
}

void writer::entity(const node& n, std::string& out, const std::string& path) {
    if (auto raw = n.raw()) {
        out += *raw;
        return;
    }
    // Fields as given first, so that a refusal names what the caller set.
    if (refuse(n.fields(), path)) return;
    auto fields = n.fields();
    content_type ct = type_of(n);
    std::string body;
    if (ct.is_multipart()) {
        std::vector<std::string> parts;
        for (std::size_t i = 0; i < n.children().size(); ++i) {
            std::string p;
            entity(n.children()[i], p, (path.empty() ? "" : path + ".") + std::to_string(i + 1));
            if (error) return;
            parts.push_back(std::move(p));
        }
        // RFC 2046 §5.1.1: the boundary must not occur in any encapsulated part. Keep a
        // boundary the caller chose if it is safe; otherwise derive one from the content.
        auto occurs = [&](const std::string& b) {
            std::string d = "--" + b;
            if (n.preamble().find(d) != std::string::npos ||
                n.epilogue().find(d) != std::string::npos)
                return true;
            return std::any_of(parts.begin(), parts.end(), [&](const std::string& p) {
                return p.find(d) != std::string::npos;
            });
        };
        std::string boundary;
        if (auto b = ct.param("boundary"); b && is_boundary(*b) && !occurs(std::string(*b))) {
            boundary = std::string(*b);
        } else {
            std::uint64_t h = fnv1a(path);
            for (const std::string& p : parts) h = fnv1a(p, h);
            static const char hex[] = "0123456789abcdef";
            do {
                boundary = "=_mhtml_";
                for (int k = 0; k < 16; ++k) boundary += hex[(h >> (k * 4)) & 15];
                h = fnv1a(boundary, h);
            } while (occurs(boundary));
        }
        bool have_ct = false;
        for (auto& f : fields) {
            if (iequals(f.first, "Content-Type")) {
                f.second = content_type_value(ct, boundary);
                have_ct = true;
                break;
            }
        }
        if (!have_ct) fields.emplace_back("Content-Type", content_type_value(ct, boundary));
        if (!n.preamble().empty()) body += canonical_crlf(n.preamble()) + "\r\n";
        for (std::size_t i = 0; i < parts.size(); ++i) {
            body += (i == 0 ? "--" : "\r\n--") + boundary + "\r\n";
            body += parts[i];
        }
        body += (parts.empty() ? "--" : "\r\n--") + boundary + "--\r\n";
        body += canonical_crlf(n.epilogue());
        drop_encoding(fields, body);  // REL-2.2: a multipart is never encoded
    } else if (ct.is_encapsulated_message() || ct.is("message", "external-body")) {
        if (!n.children().empty())
            entity(n.children().front(), body, path.empty() ? "1" : path + ".1");
        if (error) return;
        auto cte = std::find_if(fields.begin(), fields.end(), [](const auto& f) {
            return iequals(f.first, "Content-Transfer-Encoding");
        });
        const transfer_encoding enc = cte == fields.end() ? transfer_encoding::seven_bit
                                                          : parse_transfer_encoding(cte->second);
        if (ct.is("message", "global") && enc == transfer_encoding::base64) {
            // RFC 6532 §3.5: message/global may have any encoding; keep the one asked for.
            body = base64_encode(body);
            if (body.ends_with("\r\n")) body.resize(body.size() - 2);  // the delimiter's CRLF
        } else if (ct.is("message", "global") && enc == transfer_encoding::quoted_printable) {
            body = qp_encode(body, stats(body).bare_cr_lf ? qp_mode::binary : qp_mode::text);
        } else {
            drop_encoding(fields, body);  // RFC 2046 §5.2.1
        }
    } else {
        leaf_body(n, ct, fields, body, path);
    }
    // What the writer made of the fields (a rebuilt Content-Type) is checked again.
    if (refuse(fields, path)) return;
    for (const auto& [name, value] : fields) out += fold_field(name, value);
    out += "\r\n";
    out += body;
}

bool writer::refuse(const std::vector<std::pair<std::string, std::string>>& fields,
                    const std::string& path) {
    for (const auto& [name, value] : fields) {
        if (auto bad = check_field(name, value)) {
            bad->part_path = path;
            error = std::move(bad);
            return true;
        }
    }
    return false;
}

constexpr bool is_wsp(char c) noexcept {
    return c == ' ' || c == '\t';
}

// Printable for a message: the octets of a refused name or value near `at`, escaped.
std::string shown(std::string_view s, std::size_t at) {
    std::size_t from = at > 20 ? at - 20 : 0;
    std::string out = from > 0 ? "..." : "";
    static const char hex[] = "0123456789ABCDEF";
    for (std::size_t i = from; i < s.size() && i < at + 20; ++i) {
        auto u = static_cast<unsigned char>(s[i]);
        if (u == '\r') {
            out += "\\r";
        } else if (u == '\n') {
            out += "\\n";
        } else if (u < 0x20 || u == 0x7f || u >= 0x80) {
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += s[i];
        }
    }
    if (at + 20 < s.size()) out += "...";
    return out;
}

}  // namespace

std::optional<diagnostic> check_field(std::string_view name, std::string_view value) {
    // RFC 5322 §3.6.8: field-name = 1*ftext; ftext = %d33-57 / %d59-126.
    if (name.empty())
        return diagnostic{severity::error, diag_code::field_name_invalid, "", 0,
                          "a header field with an empty name (RFC 5322 §3.6.8 field-name is "
                          "1*ftext); refused, nothing written"};
    for (std::size_t i = 0; i < name.size(); ++i) {
        auto u = static_cast<unsigned char>(name[i]);
        if (u < 33 || u > 126 || u == ':')
            return diagnostic{severity::error, diag_code::field_name_invalid, "", i,
                              "header field name \"" + shown(name, i) + "\" has " +
                                  (u == ':'                ? std::string("a colon")
                                   : u == ' ' || u == '\t' ? std::string("white space")
                                   : u >= 0x80 ? std::string("an octet that is not US-ASCII")
                                               : std::string("a control character")) +
                                  " at " + std::to_string(i) +
                                  " (RFC 5322 §3.6.8 field-name is printable US-ASCII but ':'); "
                                  "refused, nothing written"};
    }
    auto refuse_value = [&](std::size_t i, std::string_view what) {
        return diagnostic{severity::error, diag_code::field_value_invalid, "", i,
                          "the value of header field \"" + std::string(name) + "\" has " +
                              std::string(what) + " at " + std::to_string(i) + " (\"" +
                              shown(value, i) +
                              "\"): only CRLF followed by white space may break a field (RFC "
                              "5322 §2.2.3); refused, nothing written"};
    };
    // Most values hold no NUL, CR or LF: looked for 16 octets at a time first.
    {
        std::size_t i = 0;
        bool bad = false;
#if defined(__SSE2__)
        const __m128i zero = _mm_setzero_si128(), cr = _mm_set1_epi8('\r'),
                      lf = _mm_set1_epi8('\n');
        for (; i + 16 <= value.size() && !bad; i += 16) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(value.data() + i));
            const __m128i hit =
                _mm_or_si128(_mm_cmpeq_epi8(x, zero),
                             _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, lf)));
            bad = _mm_movemask_epi8(hit) != 0;
        }
#endif
        for (; i < value.size() && !bad; ++i)
            bad = value[i] == '\0' || value[i] == '\r' || value[i] == '\n';
        if (!bad) return std::nullopt;
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
        char c = value[i];
        if (c == '\0') return refuse_value(i, "a NUL");
        if (c == '\n') return refuse_value(i, "a bare LF");
        if (c != '\r') continue;
        if (i + 1 >= value.size() || value[i + 1] != '\n') return refuse_value(i, "a bare CR");
        // A fold: CRLF, white space, then something else on that line.
        std::size_t j = i + 2;
        if (j >= value.size() || !is_wsp(value[j]))
            return refuse_value(i, "a line end not followed by white space");
        while (j < value.size() && is_wsp(value[j])) ++j;
        if (j >= value.size() || value[j] == '\r' || value[j] == '\n')
            return refuse_value(i, "a line of only white space");
        i = j - 1;
    }
    return std::nullopt;
}

node node::leaf(std::string_view content_type, std::string content) {
    node n;
    n.fields_.emplace_back("Content-Type", std::string(content_type));
    n.content_ = std::move(content);
    return n;
}

node node::multipart(std::string_view subtype, std::vector<node> parts, std::string_view params) {
    node n;
    std::string v = "multipart/" + std::string(subtype);
    if (!params.empty()) v += "; " + std::string(params);
    n.fields_.emplace_back("Content-Type", v);
    n.children_ = std::move(parts);
    return n;
}

node node::message(node inner) {
    node n;
    n.fields_.emplace_back("Content-Type", "message/rfc822");
    n.children_.push_back(std::move(inner));
    return n;
}

node node::from(part_view p) {
    node n;
    for (const header_field_view& f : p.headers())
        n.fields_.emplace_back(std::string(f.name()), f.value());
    if (p.is_leaf()) p.decode_to(n.content_);
    for (part_view c : p.children()) n.children_.push_back(from(c));
    n.preamble_ = std::string(p.preamble());
    n.epilogue_ = std::string(p.epilogue());
    n.raw_ = std::string(p.raw());
    return n;
}

node& node::set(std::string_view name, std::string_view value) {
    raw_.reset();
    for (auto& f : fields_) {
        if (iequals(f.first, name)) {
            f.second = std::string(value);
            return *this;
        }
    }
    fields_.emplace_back(std::string(name), std::string(value));
    return *this;
}

node& node::add(std::string_view name, std::string_view value) {
    raw_.reset();
    fields_.emplace_back(std::string(name), std::string(value));
    return *this;
}

node& node::remove(std::string_view name) {
    raw_.reset();
    std::erase_if(fields_, [&](auto& f) { return iequals(f.first, name); });
    return *this;
}

std::optional<std::string_view> node::get(std::string_view name) const {
    for (const auto& f : fields_)
        if (iequals(f.first, name)) return std::string_view(f.second);
    return std::nullopt;
}

node& node::set_content(std::string content) {
    raw_.reset();
    content_ = std::move(content);
    return *this;
}

node& node::set_preamble(std::string s) {
    raw_.reset();
    preamble_ = std::move(s);
    return *this;
}

node& node::set_epilogue(std::string s) {
    raw_.reset();
    epilogue_ = std::move(s);
    return *this;
}

entity_kind node::kind() const {
    content_type ct = type_of(*this);
    if (ct.is_multipart()) return entity_kind::multipart;
    if (ct.is_encapsulated_message() || ct.is("message", "external-body"))
        return entity_kind::message;
    return entity_kind::leaf;
}

std::string fold_field(std::string_view name, std::string_view value, std::size_t width) {
    // Fold only by inserting CRLF before white space that is already there, outside quoted
    // strings (encoded-words contain no white space, so they are never broken): unfolding
    // (RFC 5322 §2.2.3) gives back the value exactly. A fold the value already has (CRLF
    // and white space) is kept as it is, and no fold is inserted before it, which would make
    // an empty line.
    auto fold_at = [&](std::size_t i) {
        return i + 2 < value.size() && value[i] == '\r' && value[i + 1] == '\n' &&
               is_wsp(value[i + 2]);
    };
    std::string out(name);
    out += ": ";
    std::size_t col = out.size();
    std::size_t i = 0;
    bool first = true;
    while (i < value.size()) {
        std::size_t ws = i;
        bool folded = false;
        for (;;) {
            if (i < value.size() && is_wsp(value[i])) {
                ++i;
            } else if (fold_at(i)) {
                folded = true;
                i += 2;
            } else {
                break;
            }
        }
        std::size_t b = i;
        bool quoted = false;
        for (; i < value.size(); ++i) {
            char c = value[i];
            if (quoted && c == '\\' && i + 1 < value.size()) {
                ++i;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && (is_wsp(c) || fold_at(i))) {
                break;
            }
        }
        std::string_view space = value.substr(ws, b - ws), word = value.substr(b, i - b);
        const std::size_t first_line = std::min(word.find('\r'), word.size());
        if (!first && !space.empty() && !folded && col + space.size() + first_line > width) {
            out += "\r\n";
            col = 0;
        }
        out += space;
        out += word;
        const std::string_view chunk = value.substr(ws, i - ws);
        const std::size_t nl = chunk.rfind('\n');
        col = nl == std::string_view::npos ? col + chunk.size() : chunk.size() - nl - 1;
        first = false;
    }
    out += "\r\n";
    return out;
}

write_result write(const node& n) {
    write_result r;
    writer w;
    w.entity(n, r.bytes, "");
    r.diagnostics = std::move(w.diags);
    if (w.error) {
        r.bytes.clear();  // a refused field is never written, nor anything around it
        r.error = std::move(w.error);
    }
    return r;
}

}  // namespace mhtml::mime
