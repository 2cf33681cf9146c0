#include "mhtml/html/rewrite.hpp"

#include "mhtml/ascii.hpp"
#include "mhtml/html/tokenizer.hpp"

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
    (void)rewrite_to(input, refs, replace, {}, sink);
}

std::size_t rewrite_to(std::string_view input, std::span<const reference> refs,
                       const std::function<std::optional<std::string>(const reference&)>& replace,
                       std::span<const edit> edits,
                       const std::function<void(std::string_view)>& sink) {
    std::size_t copied = 0;  // everything before this has been written or replaced
    std::size_t skipped = 0;
    std::size_t e = 0;
    // The edits that start before `end` (and every insertion at `end` when `at_end`).
    auto edits_before = [&](std::size_t end, bool at_end) {
        for (; e < edits.size() && (edits[e].offset < end ||
                                    (edits[e].offset == end && (at_end || edits[e].length == 0)));
             ++e) {
            const edit& x = edits[e];
            if (x.offset < copied || x.offset + x.length > input.size() ||
                (x.length > 0 && x.offset + x.length > end && !at_end)) {
                ++skipped;  // overlaps what is already written, or the reference at `end`
                continue;
            }
            sink(input.substr(copied, x.offset - copied));
            sink(x.replacement);
            copied = x.offset + x.length;
        }
    };
    for (const reference& r : refs) {
        edits_before(r.offset, false);
        std::optional<std::string> value = replace(r);
        if (!value || *value == r.url || r.offset < copied) continue;
        sink(input.substr(copied, r.offset - copied));
        sink(escape_for(r, *value));
        copied = r.offset + r.length;
    }
    edits_before(input.size(), true);
    sink(input.substr(copied));
    return skipped;
}

std::string apply_edits(std::string_view input, std::span<const edit> edits) {
    std::string out;
    out.reserve(input.size());
    (void)rewrite_to(
        input, {}, [](const reference&) { return std::nullopt; }, edits,
        [&](std::string_view piece) { out += piece; });
    return out;
}

markup_edits find_markup_edits(std::string_view html, const markup_edit_options& options) {
    markup_edits out;
    if (!options.shadow_roots && !options.disable_refresh) return out;
    tokenizer tokens(html);
    token t;
    auto rename = [&](const attribute_view& a, std::string_view to) {
        out.edits.push_back({static_cast<std::size_t>(a.name.data() - html.data()), a.name.size(),
                             std::string(to)});
    };
    while (tokens.next(t)) {
        if (t.type != token_type::start_tag || t.foreign) continue;
        if (options.disable_refresh && t.name == "meta") {
            const attribute_view* equiv = t.attribute("http-equiv");
            if (!equiv) continue;
            // The value as the browser reads it: `&#114;efresh` is a refresh too.
            const std::string decoded = decode_attribute_value(tokens.value(*equiv));
            std::string_view v = decoded;
            while (!v.empty() && ascii::is_html_space(v.front())) v.remove_prefix(1);
            while (!v.empty() && ascii::is_html_space(v.back())) v.remove_suffix(1);
            if (!ascii::iequals(v, "refresh")) continue;
            // "http-equiv" -> "data-equiv": the first four octets, the rest as written. Every
            // http-equiv of the tag, repeats included: with only the first renamed, a repeat
            // would become the one that counts.
            for (const attribute_view& a : tokens.all_attributes(t))
                if (ascii::iequals(a.name, "http-equiv"))
                    out.edits.push_back(
                        {static_cast<std::size_t>(a.name.data() - html.data()), 4, "data"});
            ++out.refreshes;
        } else if (options.shadow_roots && t.name == "template") {
            const attribute_view* mode = t.attribute("shadowmode");
            if (!mode || t.attribute("shadowrootmode")) continue;
            // Chromium's loader takes these two values exactly (observed: "OPEN" and " open"
            // attach nothing), read as the attribute's value (character references decoded).
            const std::string v = decode_attribute_value(tokens.value(*mode));
            if (v != "open" && v != "closed") continue;
            // In attribute order, so that the edits stay sorted.
            const attribute_view* focus = t.attribute("shadowdelegatesfocus");
            if (focus && t.attribute("shadowrootdelegatesfocus")) focus = nullptr;
            for (const attribute_view& a : t.attributes) {
                if (&a == mode) rename(a, "shadowrootmode");
                if (&a == focus) rename(a, "shadowrootdelegatesfocus");
            }
            ++out.shadow_roots;
        }
    }
    return out;
}

std::string rewrite(std::string_view input, std::span<const reference> refs,
                    const std::function<std::optional<std::string>(const reference&)>& replace) {
    std::string out;
    out.reserve(input.size());
    rewrite_to(input, refs, replace, [&](std::string_view piece) { out += piece; });
    return out;
}

}  // namespace mhtml::html
