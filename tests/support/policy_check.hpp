#pragma once
// The property every document that extract or inline writes must have while scripts are
// blocked (MHT-12.5), read with the one tokenizer (html/tokenizer.hpp): the script-blocking
// Content-Security-Policy comes before everything that could run or load.
// - HTML: in token order only white space, comments, one DOCTYPE and `<meta charset>`
//   elements precede the policy `<meta>` (so no script, no handler, no <base>, no refresh,
//   no <html> or <head> with attributes, no text).
// - XML (SVG, XHTML read on their own): the root's start tag is followed at once by an
//   XHTML-namespace `<head>` holding the policy `<meta>`.
// Used by the unit and corpus tests and by the view fuzzer.

#include "mhtml/ascii.hpp"
#include "mhtml/html/tokenizer.hpp"

#include <algorithm>
#include <string>
#include <string_view>

namespace mhtml::test {

inline bool is_policy_meta(const html::tokenizer& tokens, const html::token& t,
                           std::string_view name) {
    if (t.type != html::token_type::start_tag || t.name != name) return false;
    const auto* equiv = t.attribute("http-equiv");
    const auto* content = t.attribute("content");
    return equiv && content &&
           ascii::iequals(tokens.value(*equiv), "content-security-policy") &&
           tokens.value(*content).find("script-src 'none'") != std::string_view::npos;
}

/// Empty when the policy comes first; else what came before it (or "no policy").
inline std::string policy_first_violation(std::string_view doc, bool xml) {
    html::tokenizer tokens(doc, xml);
    html::token t;
    if (xml) {
        while (tokens.next(t) && t.type != html::token_type::start_tag) {
        }
        if (t.type != html::token_type::start_tag) return "no root element";
        if (!tokens.next(t) || t.type != html::token_type::start_tag || t.name != "html:head")
            return "the root's first child is not an XHTML <head>";
        const auto* ns = t.attribute("xmlns:html");
        if (!ns || tokens.value(*ns) != "http://www.w3.org/1999/xhtml")
            return "the <head> is not in the XHTML namespace";
        if (!tokens.next(t) || !is_policy_meta(tokens, t, "html:meta"))
            return "the <head> does not start with the policy";
        return {};
    }
    bool doctype = false;
    while (tokens.next(t)) {
        if (is_policy_meta(tokens, t, "meta")) return {};
        const std::string_view text = doc.substr(t.begin, t.end - t.begin);
        if (t.type == html::token_type::comment) continue;
        if (t.type == html::token_type::doctype && !doctype) {
            doctype = true;
            continue;
        }
        if (t.type == html::token_type::text &&
            std::all_of(text.begin(), text.end(), ascii::is_html_space))
            continue;
        if (t.type == html::token_type::start_tag && t.name == "meta" &&
            t.attributes.size() == 1 && t.attribute("charset"))
            continue;
        return std::string(html::type_name(t.type)) + " before the policy: " +
               std::string(text.substr(0, 80));
    }
    return "no policy";
}

}  // namespace mhtml::test
