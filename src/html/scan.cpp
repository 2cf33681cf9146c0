// The HTML scanner: the WHATWG tokenizer's decisions about what is markup, and a table of
// the attributes that hold URIs. One pass; memchr to the next '<' in text.
#include "mhtml/html/scan.hpp"

#include "entities.hpp"
#include "mhtml/detail/keyed_hash.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_set>

namespace mhtml::html {

namespace {

using detail::decode_text;

constexpr bool is_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}
constexpr bool is_alpha(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr char lower(char c) noexcept {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

// Octets that end an attribute name, or an unquoted attribute value ('>' and white space).
constexpr std::array<bool, 256> make_name_end() {
    std::array<bool, 256> t{};
    for (unsigned char c : std::string_view(" \t\n\f\r/>=")) t[c] = true;
    return t;
}
constexpr auto name_end = make_name_end();

struct attribute {
    std::string_view name;  // as written
    std::size_t value_offset = 0;
    std::size_t value_length = 0;
    char quote = 0;
    bool has_value = false;
};

struct tag {
    std::string name;  // lower-case
    std::vector<attribute> attributes;
    mhtml::detail::keyed_string_set names;  // lower-case names, only for tags with many attributes
    bool self_closing = false;
};

std::string lowered(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = lower(c);
    return out;
}

const attribute* find_attribute(const tag& t, std::string_view name) noexcept {
    for (const auto& a : t.attributes)
        if (iequals(a.name, name)) return &a;
    return nullptr;
}

// The URI-bearing attributes. `svg` rows apply in foreign content, the others in HTML.
struct uri_attribute {
    std::string_view element;  // "*" for every element
    std::string_view attribute;
    ref_kind kind;
    value_syntax syntax;
    bool svg;
};

constexpr uri_attribute uri_attributes[] = {
    {"a", "href", ref_kind::navigation, value_syntax::attribute, false},
    {"area", "href", ref_kind::navigation, value_syntax::attribute, false},
    {"img", "src", ref_kind::resource, value_syntax::attribute, false},
    {"img", "srcset", ref_kind::resource, value_syntax::srcset, false},
    {"img", "lowsrc", ref_kind::resource, value_syntax::attribute, false},
    {"img", "longdesc", ref_kind::navigation, value_syntax::attribute, false},
    {"img", "usemap", ref_kind::resource, value_syntax::attribute, false},
    {"image", "src", ref_kind::resource, value_syntax::attribute,
     false},  // the tree builder makes it <img>
    {"source", "src", ref_kind::resource, value_syntax::attribute, false},
    {"source", "srcset", ref_kind::resource, value_syntax::srcset, false},
    {"link", "href", ref_kind::resource, value_syntax::attribute, false},  // kind decided by rel
    {"link", "imagesrcset", ref_kind::resource, value_syntax::srcset, false},
    {"script", "src", ref_kind::resource, value_syntax::attribute, false},
    {"iframe", "src", ref_kind::resource, value_syntax::attribute, false},
    {"frame", "src", ref_kind::resource, value_syntax::attribute, false},
    {"frame", "longdesc", ref_kind::navigation, value_syntax::attribute, false},
    {"iframe", "longdesc", ref_kind::navigation, value_syntax::attribute, false},
    {"object", "data", ref_kind::resource, value_syntax::attribute, false},
    {"object", "codebase", ref_kind::resource, value_syntax::attribute, false},
    {"object", "classid", ref_kind::resource, value_syntax::attribute, false},
    {"object", "archive", ref_kind::resource, value_syntax::list_item, false},
    {"object", "usemap", ref_kind::resource, value_syntax::attribute, false},
    {"embed", "src", ref_kind::resource, value_syntax::attribute, false},
    {"applet", "code", ref_kind::resource, value_syntax::attribute, false},
    {"applet", "codebase", ref_kind::resource, value_syntax::attribute, false},
    {"applet", "archive", ref_kind::resource, value_syntax::list_item, false},
    {"input", "src", ref_kind::resource, value_syntax::attribute, false},  // type=image only
    {"input", "formaction", ref_kind::form_action, value_syntax::attribute, false},
    {"input", "usemap", ref_kind::resource, value_syntax::attribute, false},
    {"button", "formaction", ref_kind::form_action, value_syntax::attribute, false},
    {"form", "action", ref_kind::form_action, value_syntax::attribute, false},
    {"body", "background", ref_kind::resource, value_syntax::attribute, false},
    {"table", "background", ref_kind::resource, value_syntax::attribute, false},
    {"td", "background", ref_kind::resource, value_syntax::attribute, false},
    {"th", "background", ref_kind::resource, value_syntax::attribute, false},
    {"tr", "background", ref_kind::resource, value_syntax::attribute, false},
    {"video", "src", ref_kind::resource, value_syntax::attribute, false},
    {"video", "poster", ref_kind::resource, value_syntax::attribute, false},
    {"audio", "src", ref_kind::resource, value_syntax::attribute, false},
    {"track", "src", ref_kind::resource, value_syntax::attribute, false},
    {"blockquote", "cite", ref_kind::citation, value_syntax::attribute, false},
    {"q", "cite", ref_kind::citation, value_syntax::attribute, false},
    {"del", "cite", ref_kind::citation, value_syntax::attribute, false},
    {"ins", "cite", ref_kind::citation, value_syntax::attribute, false},
    {"base", "href", ref_kind::base, value_syntax::attribute, false},
    {"meta", "content", ref_kind::navigation, value_syntax::meta_refresh,
     false},  // http-equiv=refresh only
    {"image", "href", ref_kind::resource, value_syntax::attribute, true},
    {"image", "xlink:href", ref_kind::resource, value_syntax::attribute, true},
    {"feimage", "href", ref_kind::resource, value_syntax::attribute, true},
    {"feimage", "xlink:href", ref_kind::resource, value_syntax::attribute, true},
    {"use", "href", ref_kind::resource, value_syntax::attribute, true},
    {"use", "xlink:href", ref_kind::resource, value_syntax::attribute, true},
    {"script", "href", ref_kind::resource, value_syntax::attribute, true},
    {"script", "xlink:href", ref_kind::resource, value_syntax::attribute, true},
    {"a", "href", ref_kind::navigation, value_syntax::attribute, true},
    {"a", "xlink:href", ref_kind::navigation, value_syntax::attribute, true},
};

// Does any row name this element? (Most tags are <div>, <span>, <p>: skip them fast.)
bool element_has_uri_attributes(std::string_view element, bool svg) noexcept {
    for (const auto& row : uri_attributes)
        if (row.svg == svg && row.element == element) return true;
    return false;
}

bool rel_loads_resource(std::string_view rel) {
    static constexpr std::string_view loading[] = {
        "stylesheet", "icon",     "apple-touch-icon", "apple-touch-icon-precomposed",
        "mask-icon",  "preload",  "prefetch",         "modulepreload",
        "manifest",   "image_src"};
    std::size_t i = 0;
    while (i < rel.size()) {
        while (i < rel.size() && is_space(rel[i])) ++i;
        std::size_t start = i;
        while (i < rel.size() && !is_space(rel[i])) ++i;
        std::string_view token = rel.substr(start, i - start);
        for (auto l : loading)
            if (iequals(token, l)) return true;
    }
    return false;
}

class scanner {
public:
    scanner(std::string_view in, bool svg) : in_(in), foreign_(svg ? 1 : 0) {}

    scan_result run() {
        std::size_t i = 0;
        const std::size_t n = in_.size();
        while (i < n) {
            const void* lt = std::memchr(in_.data() + i, '<', n - i);
            if (!lt) break;
            i = static_cast<std::size_t>(static_cast<const char*>(lt) - in_.data());
            i = markup(i);
        }
        return std::move(result_);
    }

private:
    // At s[i] == '<' in the data state; returns where the data state resumes.
    std::size_t markup(std::size_t i) {
        const std::size_t n = in_.size();
        if (i + 1 >= n) return n;
        char c = in_[i + 1];
        if (is_alpha(c)) return start_tag(i + 1);
        if (c == '/') {
            if (i + 2 < n && is_alpha(in_[i + 2])) return end_tag(i + 2);
            if (i + 2 < n && in_[i + 2] == '>') return i + 3;
            return bogus_comment(i + 2);
        }
        if (c == '!') {
            if (in_.compare(i + 2, 2, "--") == 0) return comment(i + 4);
            if (foreign_ > 0 && in_.compare(i + 2, 7, "[CDATA[") == 0) {
                std::size_t end = in_.find("]]>", i + 9);
                return end == std::string_view::npos ? n : end + 3;
            }
            return bogus_comment(i + 2);  // DOCTYPE and the rest end at the next '>'
        }
        if (c == '?') return bogus_comment(i + 1);
        return i + 1;
    }

    std::size_t bogus_comment(std::size_t i) {
        std::size_t end = in_.find('>', i);
        return end == std::string_view::npos ? in_.size() : end + 1;
    }

    // After "<!--": "<!-->" and "<!--->" end at once; otherwise at "-->" or "--!>".
    std::size_t comment(std::size_t i) {
        const std::size_t n = in_.size();
        if (i < n && in_[i] == '>') return i + 1;
        if (i + 1 < n && in_[i] == '-' && in_[i + 1] == '>') return i + 2;
        std::size_t k = i;
        while (true) {
            std::size_t dash = in_.find("--", k);
            if (dash == std::string_view::npos) return n;
            if (dash + 2 < n && in_[dash + 2] == '>') return dash + 3;
            if (dash + 3 < n && in_[dash + 2] == '!' && in_[dash + 3] == '>') return dash + 4;
            k = dash + 1;
        }
    }

    // Reads the tag name and attributes starting at s[i] (the first letter of the name).
    // Returns the position after '>' or npos when the input ends inside the tag (the
    // tokenizer then emits nothing).
    std::size_t read_tag(std::size_t i, tag& t) {
        const std::size_t n = in_.size();
        t.name.clear();
        t.attributes.clear();
        t.names.clear();
        t.self_closing = false;
        while (i < n && !is_space(in_[i]) && in_[i] != '/' && in_[i] != '>')
            t.name += lower(in_[i++]);
        while (true) {
            while (i < n && (is_space(in_[i]) || in_[i] == '/')) {
                t.self_closing = in_[i] == '/' && i + 1 < n && in_[i + 1] == '>';
                ++i;
            }
            if (i >= n) return std::string_view::npos;
            if (in_[i] == '>') return i + 1;
            t.self_closing = false;
            attribute a;
            std::size_t name_start = i++;  // the first octet is part of the name, even '='
            while (i < n && !name_end[static_cast<unsigned char>(in_[i])]) ++i;
            a.name = in_.substr(name_start, i - name_start);
            while (i < n && is_space(in_[i])) ++i;
            if (i < n && in_[i] == '=') {
                ++i;
                while (i < n && is_space(in_[i])) ++i;
                if (i >= n) return std::string_view::npos;
                a.has_value = true;
                if (in_[i] == '"' || in_[i] == '\'') {
                    a.quote = in_[i];
                    std::size_t close = in_.find(a.quote, i + 1);
                    if (close == std::string_view::npos) return std::string_view::npos;
                    a.value_offset = i + 1;
                    a.value_length = close - i - 1;
                    i = close + 1;
                } else if (in_[i] != '>') {
                    a.value_offset = i;
                    while (i < n && !is_space(in_[i]) && in_[i] != '>') ++i;
                    a.value_length = i - a.value_offset;
                } else {
                    a.value_offset = i;
                }
            }
            // A repeated attribute is dropped by the tokenizer; the first one counts. (A set
            // of names takes over from the linear search when a tag has many attributes.)
            if (t.attributes.size() < 32) {
                if (!find_attribute(t, a.name)) t.attributes.push_back(a);
            } else {
                if (t.names.empty())
                    for (const auto& x : t.attributes) t.names.insert(lowered(x.name));
                if (t.names.insert(lowered(a.name)).second) t.attributes.push_back(a);
            }
        }
    }

    std::size_t end_tag(std::size_t i) {
        std::size_t end = read_tag(i, tag_);
        if (end == std::string_view::npos) return in_.size();
        if (foreign_ > 0 && (tag_.name == "svg" || tag_.name == "math")) --foreign_;
        return end;
    }

    std::size_t start_tag(std::size_t i) {
        std::size_t end = read_tag(i, tag_);
        if (end == std::string_view::npos) return in_.size();
        const bool svg = foreign_ > 0;
        uri_attributes_of(tag_, svg, svg || element_has_uri_attributes(tag_.name, false));
        if (tag_.name == "meta") meta_charset(tag_);
        if (svg) {
            if (tag_.name == "style" && !tag_.self_closing) return css_element(end);
            if ((tag_.name == "svg" || tag_.name == "math") && !tag_.self_closing) ++foreign_;
            return end;
        }
        const std::string& name = tag_.name;
        if ((name == "svg" || name == "math") && !tag_.self_closing) {
            ++foreign_;
            return end;
        }
        if (name == "style") return css_element(end);
        if (name == "script") return script_data(end);
        if (name == "plaintext") return in_.size();
        if (name == "xmp" || name == "iframe" || name == "noembed" || name == "noframes" ||
            name == "textarea" || name == "title") {
            std::size_t close = find_end_tag(end, name);
            return close;
        }
        return end;
    }

    // The position of "</name" + (white space, '/' or '>') at or after `from`, or the end;
    // the data state resumes there (the end tag itself is read as markup).
    std::size_t find_end_tag(std::size_t from, std::string_view name) const {
        const std::size_t n = in_.size();
        std::size_t k = from;
        while (true) {
            std::size_t lt = in_.find("</", k);
            if (lt == std::string_view::npos) return n;
            if (is_end_tag_of(lt, name)) return lt;
            k = lt + 2;
        }
    }

    bool is_end_tag_of(std::size_t lt, std::string_view name) const {
        std::size_t p = lt + 2;
        if (p + name.size() > in_.size()) return false;
        if (!iequals(in_.substr(p, name.size()), name)) return false;
        p += name.size();
        return p < in_.size() && (is_space(in_[p]) || in_[p] == '/' || in_[p] == '>');
    }

    // "<script" / "<!--" / "-->" tests for the script data states.
    bool is_tag_named_at(std::size_t lt, std::string_view name) const {
        std::size_t p = lt + 1;
        if (p + name.size() > in_.size()) return false;
        if (!iequals(in_.substr(p, name.size()), name)) return false;
        p += name.size();
        return p < in_.size() && (is_space(in_[p]) || in_[p] == '/' || in_[p] == '>');
    }

    // Script data with its escaped and double-escaped states: "<!--" escapes, "<script"
    // inside an escape double-escapes, so a "</script>" there does not end the element.
    std::size_t script_data(std::size_t i) {
        const std::size_t n = in_.size();
        enum { data, escaped, double_escaped } state = data;
        while (i < n) {
            std::size_t k = state == data ? in_.find('<', i) : in_.find_first_of("<-", i);
            if (k == std::string_view::npos) return n;
            if (in_[k] == '-') {
                if (in_.compare(k, 3, "-->") == 0) {
                    state = data;
                    i = k + 3;
                } else {
                    i = k + 1;
                }
                continue;
            }
            if (state == data) {
                if (in_.compare(k, 4, "<!--") == 0) {
                    state = escaped;
                    i = k + 4;
                    if (i < n && in_[i] == '>') state = data;  // "<!-->"
                    continue;
                }
                if (is_end_tag_of(k, "script")) return k;
            } else if (state == escaped) {
                if (is_end_tag_of(k, "script")) return k;
                if (is_tag_named_at(k, "script")) state = double_escaped;
            } else if (is_end_tag_of(k, "script")) {
                state = escaped;
            }
            i = k + 1;
        }
        return n;
    }

    // The text of a <style> element, scanned as CSS. In HTML it is raw text; in SVG it is
    // ordinary text (character references not decoded here, see the header). Either way
    // it ends at "</style".
    std::size_t css_element(std::size_t start) {
        std::size_t end = find_end_tag(start, "style");
        css_refs_.clear();
        scan_css(in_.substr(start, end - start), css_refs_);
        for (auto& c : css_refs_) {
            reference r;
            r.kind = ref_kind::resource;
            r.element = "style";
            r.offset = start + c.offset;
            r.length = c.length;
            r.url = std::move(c.url);
            set_css_syntax(r, c);
            r.raw_text = true;
            result_.refs.push_back(std::move(r));
        }
        return end;
    }

    static void set_css_syntax(reference& r, const css_reference& c) {
        r.syntax = c.form == css_token_form::url_unquoted ? value_syntax::css_url_unquoted
                   : c.form == css_token_form::url_quoted ? value_syntax::css_url_quoted
                                                          : value_syntax::css_string;
        r.css_quote = c.quote;
    }

    // The value of an attribute, decoded, with the map back to raw offsets when it has '&'.
    std::string_view decoded_value(const attribute& a) {
        std::string_view raw = in_.substr(a.value_offset, a.value_length);
        has_map_ = raw.find('&') != std::string_view::npos;
        if (!has_map_) return raw;
        decode_text(raw, true, decoded_, &map_);
        return decoded_;
    }

    // Adds a reference for decoded range [a, b) of attribute `attr`'s value.
    reference& add(const attribute& attr, std::string_view element, std::string_view attribute_name,
                   ref_kind kind, value_syntax syntax, std::size_t a, std::size_t b,
                   std::string url) {
        reference r;
        r.kind = kind;
        r.element = std::string(element);
        r.attribute = attribute_name;
        std::size_t raw_a = has_map_ ? map_[a] : a;
        std::size_t raw_b = has_map_ ? map_[b] : b;
        r.offset = attr.value_offset + raw_a;
        r.length = raw_b - raw_a;
        r.url = std::move(url);
        r.syntax = syntax;
        r.attribute_quote = attr.quote;
        r.in_attribute = true;
        result_.refs.push_back(std::move(r));
        return result_.refs.back();
    }

    void uri_attributes_of(const tag& t, bool svg, bool has_rows) {
        // In attribute order, so the references stay in document order.
        for (const attribute& attr : t.attributes) {
            if (!attr.has_value) continue;
            if (iequals(attr.name, "style")) {
                css_in_attribute(attr);
                continue;
            }
            if (!has_rows) continue;
            for (const auto& row : uri_attributes) {
                if (row.svg != svg || row.element != t.name || !iequals(attr.name, row.attribute))
                    continue;
                emit(t, attr, row);
                break;
            }
        }
    }

    void emit(const tag& t, const attribute& attr, const uri_attribute& row) {
        ref_kind kind = row.kind;
        if (t.name == "link" && row.attribute == "href") {
            const attribute* rel = find_attribute(t, "rel");
            std::string rel_value =
                rel ? std::string(in_.substr(rel->value_offset, rel->value_length)) : "";
            kind = rel_loads_resource(rel_value) ? ref_kind::resource : ref_kind::navigation;
        }
        if (t.name == "input" && row.attribute == "src") {
            const attribute* type = find_attribute(t, "type");
            if (!type ||
                !iequals(trimmed(in_.substr(type->value_offset, type->value_length)), "image"))
                return;
        }
        if (t.name == "meta") {
            const attribute* equiv = find_attribute(t, "http-equiv");
            if (!equiv ||
                !iequals(trimmed(in_.substr(equiv->value_offset, equiv->value_length)), "refresh"))
                return;
        }
        std::string_view value = decoded_value(attr);
        switch (row.syntax) {
            case value_syntax::srcset:
                srcset(t, attr, row, value);
                return;
            case value_syntax::list_item:
                list(t, attr, row, value, row.element == "applet" ? ',' : ' ');
                return;
            case value_syntax::meta_refresh:
                refresh(t, attr, row, value);
                return;
            default:
                break;
        }
        // A URL attribute's value is stripped of leading and trailing ASCII white space.
        std::size_t a = 0, b = value.size();
        while (a < b && is_space(value[a])) ++a;
        while (b > a && is_space(value[b - 1])) --b;
        bool first_base = kind == ref_kind::base && !result_.base;
        add(attr, t.name, row.attribute, kind, value_syntax::attribute, a, b,
            std::string(value.substr(a, b - a)));
        if (first_base) result_.base = result_.refs.size() - 1;
    }

    static std::string_view trimmed(std::string_view s) {
        while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
        while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
        return s;
    }

    // HTML "parse a srcset attribute": candidates separated by commas; a URL is a run of
    // non-white-space whose trailing commas are not part of it; descriptors run to the next
    // comma outside parentheses.
    void srcset(const tag& t, const attribute& attr, const uri_attribute& row, std::string_view v) {
        std::size_t i = 0;
        const std::size_t n = v.size();
        while (i < n) {
            while (i < n && (is_space(v[i]) || v[i] == ',')) ++i;
            if (i >= n) return;
            std::size_t start = i;
            while (i < n && !is_space(v[i])) ++i;
            std::size_t end = i;
            bool descriptors = true;
            if (end > start && v[end - 1] == ',') {
                while (end > start && v[end - 1] == ',') --end;
                descriptors = false;
            }
            if (end > start) {
                reference& r = add(attr, t.name, row.attribute, row.kind, value_syntax::srcset,
                                   start, end, std::string(v.substr(start, end - start)));
                (void)r;
            }
            if (!descriptors) continue;
            int depth = 0;  // descriptor tokenizer: commas inside parentheses do not end it
            while (i < n) {
                char c = v[i];
                if (c == '(')
                    ++depth;
                else if (c == ')' && depth > 0)
                    --depth;
                else if (c == ',' && depth == 0)
                    break;
                ++i;
            }
        }
    }

    void list(const tag& t, const attribute& attr, const uri_attribute& row, std::string_view v,
              char separator) {
        std::size_t i = 0;
        const std::size_t n = v.size();
        while (i < n) {
            while (i < n && (is_space(v[i]) || v[i] == separator)) ++i;
            std::size_t start = i;
            while (i < n && v[i] != separator && !(separator == ' ' && is_space(v[i]))) ++i;
            std::size_t end = i;
            while (end > start && is_space(v[end - 1])) --end;
            if (end > start) {
                reference& r = add(attr, t.name, row.attribute, row.kind, value_syntax::list_item,
                                   start, end, std::string(v.substr(start, end - start)));
                r.list_separator = separator;
            }
        }
    }

    // HTML "shared declarative refresh steps": [time] [; or ,] [url=] [quote] URL [quote].
    void refresh(const tag& t, const attribute& attr, const uri_attribute& row,
                 std::string_view v) {
        std::size_t i = 0;
        const std::size_t n = v.size();
        while (i < n && is_space(v[i])) ++i;
        std::size_t digits = i;
        while (i < n && v[i] >= '0' && v[i] <= '9') ++i;
        if (i == digits && !(i < n && v[i] == '.')) return;
        while (i < n && ((v[i] >= '0' && v[i] <= '9') || v[i] == '.')) ++i;
        if (i < n && !is_space(v[i]) && v[i] != ';' && v[i] != ',') return;
        while (i < n && is_space(v[i])) ++i;
        if (i < n && (v[i] == ';' || v[i] == ',')) ++i;
        while (i < n && is_space(v[i])) ++i;
        if (i >= n) return;
        std::size_t url_start = i;
        if (n - i >= 3 && iequals(v.substr(i, 3), "url")) {
            std::size_t k = i + 3;
            while (k < n && is_space(v[k])) ++k;
            if (k < n && v[k] == '=') {
                ++k;
                while (k < n && is_space(v[k])) ++k;
                url_start = k;
            }
        }
        std::size_t url_end = n;
        if (url_start < n && (v[url_start] == '"' || v[url_start] == '\'')) {
            char q = v[url_start++];
            std::size_t close = v.find(q, url_start);
            if (close != std::string_view::npos) url_end = close;
        }
        while (url_end > url_start && is_space(v[url_end - 1])) --url_end;
        if (url_end <= url_start) return;
        add(attr, t.name, row.attribute, row.kind, value_syntax::meta_refresh, url_start, url_end,
            std::string(v.substr(url_start, url_end - url_start)));
    }

    void css_in_attribute(const attribute& attr) {
        std::string_view value = decoded_value(attr);
        css_refs_.clear();
        scan_css(value, css_refs_);
        for (auto& c : css_refs_) {
            reference& r =
                add(attr, tag_.name, "style", ref_kind::resource, value_syntax::css_url_unquoted,
                    c.offset, c.offset + c.length, std::move(c.url));
            set_css_syntax(r, c);
        }
    }

    void meta_charset(const tag& t) {
        if (!result_.meta_charset.empty()) return;
        if (const attribute* cs = find_attribute(t, "charset"); cs && cs->has_value) {
            result_.meta_charset =
                std::string(trimmed(in_.substr(cs->value_offset, cs->value_length)));
            return;
        }
        const attribute* equiv = find_attribute(t, "http-equiv");
        const attribute* content = find_attribute(t, "content");
        if (!equiv || !content ||
            !iequals(trimmed(in_.substr(equiv->value_offset, equiv->value_length)), "content-type"))
            return;
        std::string v(in_.substr(content->value_offset, content->value_length));
        std::string low = v;
        for (char& c : low) c = lower(c);
        std::size_t at = low.find("charset");
        if (at == std::string::npos) return;
        std::size_t k = at + 7;
        while (k < v.size() && is_space(v[k])) ++k;
        if (k >= v.size() || v[k] != '=') return;
        ++k;
        while (k < v.size() && is_space(v[k])) ++k;
        std::size_t end = k;
        if (k < v.size() && (v[k] == '"' || v[k] == '\'')) {
            char q = v[k++];
            end = v.find(q, k);
            if (end == std::string::npos) return;
        } else {
            while (end < v.size() && !is_space(v[end]) && v[end] != ';') ++end;
        }
        result_.meta_charset = v.substr(k, end - k);
    }

    std::string_view in_;
    int foreign_ = 0;  // depth of <svg>/<math>
    scan_result result_;
    tag tag_;
    std::vector<css_reference> css_refs_;
    std::string decoded_;
    std::vector<std::size_t> map_;
    bool has_map_ = false;
};

}  // namespace

std::string_view kind_name(ref_kind k) noexcept {
    switch (k) {
        case ref_kind::resource:
            return "resource";
        case ref_kind::navigation:
            return "navigation";
        case ref_kind::form_action:
            return "form_action";
        case ref_kind::citation:
            return "citation";
        case ref_kind::base:
            return "base";
    }
    return "resource";
}

std::string_view syntax_name(value_syntax s) noexcept {
    switch (s) {
        case value_syntax::attribute:
            return "attribute";
        case value_syntax::srcset:
            return "srcset";
        case value_syntax::list_item:
            return "list_item";
        case value_syntax::meta_refresh:
            return "meta_refresh";
        case value_syntax::css_url_unquoted:
            return "css_url";
        case value_syntax::css_url_quoted:
            return "css_url_quoted";
        case value_syntax::css_string:
            return "css_string";
    }
    return "attribute";
}

scan_result scan_html(std::string_view html, bool svg) {
    return scanner(html, svg).run();
}

scan_result scan_style_sheet(std::string_view css) {
    scan_result result;
    std::vector<css_reference> found;
    scan_css(css, found);
    result.refs.reserve(found.size());
    for (auto& c : found) {
        reference r;
        r.kind = ref_kind::resource;
        r.offset = c.offset;
        r.length = c.length;
        r.url = std::move(c.url);
        r.syntax = c.form == css_token_form::url_unquoted ? value_syntax::css_url_unquoted
                   : c.form == css_token_form::url_quoted ? value_syntax::css_url_quoted
                                                          : value_syntax::css_string;
        r.css_quote = c.quote;
        result.refs.push_back(std::move(r));
    }
    return result;
}

std::string decode_attribute_value(std::string_view raw) {
    std::string out;
    detail::decode_text(raw, true, out);
    return out;
}

}  // namespace mhtml::html
