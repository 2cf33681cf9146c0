#include "mhtml/html/policy.hpp"

#include "mhtml/ascii.hpp"
#include "mhtml/html/rewrite.hpp"
#include "mhtml/html/tokenizer.hpp"

#include <algorithm>
#include <vector>

namespace mhtml::html {

std::size_t declaration_point(std::string_view html) {
    tokenizer tokens(html);
    token t;
    std::size_t at = tokens.position();  // after a byte order mark
    bool doctype_seen = false;           // a second DOCTYPE is an ordinary token
    // A comment or DOCTYPE that the end of the input cuts holds everything after it: the
    // declarations go before it, not inside.
    auto closed = [&](const token& k) {
        const std::string_view s = html.substr(k.begin, k.end - k.begin);
        if (k.type == token_type::comment && s.starts_with("<!--"))
            return s == "<!-->" || s == "<!--->" ||
                   (s.size() >= 7 && (s.ends_with("-->") || s.ends_with("--!>")));
        return s.ends_with(">");
    };
    while (tokens.next(t)) {
        if ((t.type == token_type::comment || t.type == token_type::doctype) && !closed(t))
            return t.begin;
        if (t.type == token_type::comment) {
            at = t.end;
            continue;
        }
        if (t.type == token_type::text &&
            std::all_of(html.begin() + static_cast<std::ptrdiff_t>(t.begin),
                        html.begin() + static_cast<std::ptrdiff_t>(t.end), ascii::is_html_space)) {
            at = t.end;
            continue;
        }
        if (t.type == token_type::doctype && !doctype_seen) {
            doctype_seen = true;
            at = t.end;
            continue;
        }
        return t.begin;
    }
    // Nothing but comments, white space and a DOCTYPE: at the end.
    return at;
}

xml_root find_xml_root(std::string_view xml) {
    tokenizer tokens(xml, true);
    token t;
    while (tokens.next(t)) {
        if (t.type != token_type::start_tag) continue;
        xml_root r;
        r.found = true;
        r.begin = t.begin;
        r.end = t.end;
        r.self_closing = t.self_closing;
        std::size_t e = t.begin + 1;
        while (e < xml.size() && !ascii::is_html_space(xml[e]) && xml[e] != '/' && xml[e] != '>')
            ++e;
        r.name = xml.substr(t.begin + 1, e - t.begin - 1);
        return r;
    }
    return {};
}

std::string policy_meta(std::string_view policy, bool xml) {
    std::string out;
    if (xml)
        out = "<html:head xmlns:html=\"http://www.w3.org/1999/xhtml\"><html:meta";
    else
        out = "<meta";
    out += " http-equiv=\"Content-Security-Policy\" content=\"";
    out += policy;
    out += xml ? "\"/></html:head>" : "\">";
    return out;
}

std::string with_html_declarations(std::string_view html, std::string_view declarations) {
    const std::size_t at = declaration_point(html);
    std::string out;
    out.reserve(html.size() + declarations.size());
    out.append(html.substr(0, at));
    out.append(declarations);
    out.append(html.substr(at));
    return out;
}

std::string with_xml_declarations(std::string_view xml, std::string_view declarations) {
    const xml_root root = find_xml_root(xml);
    if (!root.found) {
        std::string out(declarations);
        out.append(xml);
        return out;
    }
    std::string out;
    out.reserve(xml.size() + declarations.size() + root.name.size() + 3);
    if (!root.self_closing) {
        out.append(xml.substr(0, root.end));
        out.append(declarations);
        out.append(xml.substr(root.end));
        return out;
    }
    // "<svg …/>" -> "<svg …>" declarations "</svg>"
    std::size_t slash = root.end - 2;  // the tokenizer saw "/>" at the end of the tag
    out.append(xml.substr(0, slash));
    out += '>';
    out.append(declarations);
    out += "</";
    out.append(root.name);
    out += '>';
    out.append(xml.substr(root.end));
    return out;
}

std::size_t disable_meta_refresh(std::string& html) {
    markup_edits found = find_markup_edits(html, {.disable_refresh = true});
    // Each edit renames "http-equiv" to "data-equiv", which has the same length.
    for (const edit& e : found.edits) html.replace(e.offset, e.length, e.replacement);
    return found.refreshes;
}

}  // namespace mhtml::html
