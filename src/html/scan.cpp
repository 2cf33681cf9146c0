// The HTML scanner: the tokens of html/tokenizer.hpp, and a table of the attributes that
// hold URIs.
#include "mhtml/html/scan.hpp"

#include "entities.hpp"

#include "mhtml/ascii.hpp"
#include "mhtml/html/tokenizer.hpp"

#include <algorithm>

namespace mhtml::html {

namespace {

using detail::decode_text;

using ascii::iequals;
using ascii::lower;
constexpr bool is_space(char c) noexcept {
    return ascii::is_html_space(c);
}

using attribute = attribute_view;
using tag = token;

const attribute* find_attribute(const tag& t, std::string_view name) noexcept {
    return t.attribute(name);
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

bool rel_has(std::string_view rel, std::string_view keyword) {
    std::size_t i = 0;
    while (i < rel.size()) {
        while (i < rel.size() && is_space(rel[i])) ++i;
        std::size_t start = i;
        while (i < rel.size() && !is_space(rel[i])) ++i;
        if (iequals(rel.substr(start, i - start), keyword)) return true;
    }
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
    scanner(std::string_view in, bool svg) : in_(in), tokens_(in, svg) {}

    scan_result run() {
        bool style = false;          // the next raw text is an HTML <style> element's
        bool foreign_style = false;  // inside an SVG/MathML <style>
        while (tokens_.next(tag_)) {
            if (foreign_style) {
                // Its content is markup to the tokenizer: the style sheet is its text and its
                // CDATA sections (each scanned on its own); tags inside are not loaded.
                if (tag_.type == token_type::text) {
                    css_element(tag_.begin, tag_.end);
                } else if (tag_.type == token_type::cdata) {
                    const std::size_t end =
                        in_.substr(tag_.begin, tag_.end - tag_.begin).ends_with("]]>")
                            ? tag_.end - 3
                            : tag_.end;
                    css_element(tag_.begin + 9, end);
                } else if (tag_.type == token_type::end_tag && tag_.name == "style") {
                    foreign_style = false;
                }
                continue;
            }
            if (tag_.type == token_type::start_tag) {
                const bool svg = tag_.foreign;
                uri_attributes_of(tag_, svg, svg || element_has_uri_attributes(tag_.name, false));
                if (tag_.name == "meta") meta_charset(tag_);
                style = tag_.name == "style" && !svg;
                foreign_style = svg && tag_.name == "style" && !tag_.self_closing;
            } else if (tag_.type == token_type::raw_text) {
                if (style) css_element(tag_.begin, tag_.end);
                style = false;
            } else {
                style = false;
            }
        }
        return std::move(result_);
    }

private:
    // The text of a <style> element, scanned as CSS: in HTML its raw text; in SVG a text run
    // or a CDATA section of it (character references not decoded here, see the header).
    void css_element(std::size_t start, std::size_t end) {
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
    }

    static void set_css_syntax(reference& r, const css_reference& c) {
        r.syntax = c.form == css_token_form::url_unquoted ? value_syntax::css_url_unquoted
                   : c.form == css_token_form::url_quoted ? value_syntax::css_url_quoted
                                                          : value_syntax::css_string;
        r.css_quote = c.quote;
        r.css_import = c.import;
    }

    // The value of an attribute, decoded, with the map back to raw offsets when it has '&'.
    std::string_view decoded_value(const attribute& a) {
        std::string_view raw = in_.substr(a.value_offset, a.value_length);
        has_map_ = raw.find('&') != std::string_view::npos;
        if (!has_map_) return raw;
        decode_text(raw, true, decoded_, &map_);
        return decoded_;
    }

    // The value of an attribute, decoded, as a copy (decoded_value's buffer stays free).
    std::string attribute_text(const attribute& a) const {
        return decode_attribute_value(in_.substr(a.value_offset, a.value_length));
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
            std::string rel_value = rel ? decoded_rel(*rel) : "";  // character references too
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
            // Compared as the browser does, with character references decoded
            // (`&#114;efresh` is a refresh).
            if (!equiv || !iequals(trimmed(attribute_text(*equiv)), "refresh")) return;
        }
        const bool stylesheet_link =
            t.name == "link" && row.attribute == "href" && kind == ref_kind::resource && [&] {
                const attribute* rel = find_attribute(t, "rel");
                return rel && rel_has(decoded_rel(*rel), "stylesheet");
            }();
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
            std::string(value.substr(a, b - a)))
            .stylesheet_link = stylesheet_link;
        if (first_base) result_.base = result_.refs.size() - 1;
    }

    std::string decoded_rel(const attribute& rel) const {
        return decode_attribute_value(in_.substr(rel.value_offset, rel.value_length));
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
        if (!equiv || !content || !iequals(trimmed(attribute_text(*equiv)), "content-type")) return;
        std::string v = attribute_text(*content);
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
    tokenizer tokens_;
    scan_result result_;
    token tag_;
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
        r.css_import = c.import;
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
