#include "mhtml/html/rewrite.hpp"

namespace mhtml::html {

namespace {

constexpr bool is_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

void append_percent(std::string& out, unsigned char c) {
    static constexpr char hex[] = "0123456789ABCDEF";
    out += '%';
    out += hex[c >> 4];
    out += hex[c & 15];
}

// What the value's own syntax needs (before any attribute escaping).
std::string syntax_escape(const reference& r, std::string_view url) {
    std::string out;
    out.reserve(url.size() + 8);
    switch (r.syntax) {
        case value_syntax::css_url_unquoted:
        case value_syntax::css_url_quoted:
        case value_syntax::css_string: {
            css_token_form form =
                r.syntax == value_syntax::css_url_unquoted ? css_token_form::url_unquoted
                : r.syntax == value_syntax::css_url_quoted ? css_token_form::url_quoted
                                                           : css_token_form::string;
            std::string css = css_escape_url(url, form, r.css_quote);
            if (!r.raw_text) return css;
            // Inside <style> the text must not contain "</style": '<' as a CSS escape.
            for (char c : css) {
                if (c == '<') {
                    out += "\\3c ";
                } else {
                    out += c;
                }
            }
            return out;
        }
        case value_syntax::srcset:
        case value_syntax::list_item: {
            // No white space inside, and no separator at either end (srcset strips trailing
            // commas and skips leading ones; a list splits at its separator).
            for (std::size_t i = 0; i < url.size(); ++i) {
                char c = url[i];
                bool separator = r.syntax == value_syntax::srcset
                                     ? c == ',' && (i == 0 || i + 1 == url.size())
                                     : c == r.list_separator;
                if (is_space(c) || separator) {
                    append_percent(out, static_cast<unsigned char>(c));
                } else {
                    out += c;
                }
            }
            return out;
        }
        case value_syntax::meta_refresh:
        case value_syntax::attribute: {
            // URL attributes lose leading and trailing white space; a refresh URL also ends at
            // a quote that opened it.
            for (std::size_t i = 0; i < url.size(); ++i) {
                char c = url[i];
                bool edge = i == 0 || i + 1 == url.size();
                bool quote = r.syntax == value_syntax::meta_refresh && (c == '"' || c == '\'');
                if ((edge && is_space(c)) || quote) {
                    append_percent(out, static_cast<unsigned char>(c));
                } else {
                    out += c;
                }
            }
            return out;
        }
    }
    return std::string(url);
}

// Character references for an attribute value with the given quote.
std::string attribute_escape(std::string_view v, char quote, bool whole_value) {
    std::string out;
    out.reserve(v.size() + 8);
    for (char c : v) {
        if (c == '&') {
            out += "&amp;";
        } else if (quote == '"' && c == '"') {
            out += "&quot;";
        } else if (quote == '\'' && c == '\'') {
            out += "&#39;";
        } else if (quote == 0 && (is_space(c) || c == '"' || c == '\'' || c == '=' || c == '<' ||
                                  c == '>' || c == '`')) {
            out += "&#";
            out += std::to_string(static_cast<unsigned char>(c));
            out += ';';
        } else {
            out += c;
        }
    }
    // An unquoted attribute value cannot be empty: "src=" would take the next attribute.
    if (quote == 0 && whole_value && out.empty()) out = "\"\"";
    return out;
}

}  // namespace

std::string escape_for(const reference& r, std::string_view url) {
    std::string v = syntax_escape(r, url);
    if (!r.in_attribute) return v;
    return attribute_escape(v, r.attribute_quote, r.syntax == value_syntax::attribute);
}

void rewrite_to(std::string_view input, std::span<const reference> refs,
                const std::function<std::optional<std::string>(const reference&)>& replace,
                const std::function<void(std::string_view)>& sink) {
    std::size_t copied = 0;
    for (const reference& r : refs) {
        std::optional<std::string> value = replace(r);
        if (!value || *value == r.url) continue;
        sink(input.substr(copied, r.offset - copied));
        sink(escape_for(r, *value));
        copied = r.offset + r.length;
    }
    sink(input.substr(copied));
}

std::string rewrite(std::string_view input, std::span<const reference> refs,
                    const std::function<std::optional<std::string>(const reference&)>& replace) {
    std::string out;
    out.reserve(input.size());
    rewrite_to(input, refs, replace, [&](std::string_view piece) { out += piece; });
    return out;
}

}  // namespace mhtml::html
