// HTML to text for the writer: the Subject from <title> and mail mode's text/plain
// alternative. Both walk the HTML with the one tokenizer (html/tokenizer.hpp).

#include <array>
#include <string>
#include <string_view>

#include "html/entities.hpp"
#include "mhtml/ascii.hpp"
#include "mhtml/html/tokenizer.hpp"
#include "mhtml/mime/charset.hpp"
#include "mhtml/pack/writer.hpp"
#include "mhtml/utf8.hpp"

namespace mhtml::pack {

namespace {

constexpr bool is_html_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

// Appends `text` with runs of white space collapsed to one space.
void append_collapsed(std::string& out, std::string_view text) {
    for (char c : text) {
        if (is_html_space(c)) {
            if (!out.empty() && out.back() != ' ' && out.back() != '\n') out += ' ';
        } else {
            out += c;
        }
    }
}

// Elements that start and end a block (a line break in the text).
bool is_block(std::string_view name) noexcept {
    static constexpr std::array<std::string_view, 38> blocks = {
        "address", "article", "aside", "blockquote", "br",       "caption",    "dd",     "details",
        "dialog",  "div",     "dl",    "dt",         "fieldset", "figcaption", "figure", "footer",
        "form",    "h1",      "h2",    "h3",         "h4",       "h5",         "h6",     "header",
        "hr",      "li",      "main",  "nav",        "ol",       "p",          "pre",    "section",
        "summary", "table",   "tr",    "ul",         "body",     "title"};
    for (auto b : blocks)
        if (name == b) return true;
    return false;
}

void line_break(std::string& out) {
    while (!out.empty() && out.back() == ' ') out.pop_back();
    // One line break between blocks, however many end and start there.
    if (out.empty() || out.back() == '\n') return;
    out += '\n';
}

std::string to_crlf(std::string_view s) {
    std::string r;
    r.reserve(s.size() + s.size() / 16);
    for (char c : s) {
        if (c == '\n') r += '\r';
        r += c;
    }
    return r;
}

}  // namespace

std::string html_to_text(std::string_view html) {
    html::tokenizer tok(html);
    html::token t;
    std::string out;
    std::string scratch;
    std::string raw_owner;  // the element whose raw text comes next
    int pre = 0;
    while (tok.next(t)) {
        switch (t.type) {
            case html::token_type::start_tag:
                raw_owner = t.name;
                if (t.name == "pre") ++pre;
                if (is_block(t.name)) line_break(out);
                if (t.name == "br" || t.name == "hr") {
                    // `<br>` always breaks, even after a break.
                    if (!out.empty() && out.back() != '\n') out += '\n';
                }
                if (t.name == "li") out += "* ";
                break;
            case html::token_type::end_tag:
                if (t.name == "pre" && pre > 0) --pre;
                if (is_block(t.name)) line_break(out);
                break;
            case html::token_type::text:
            case html::token_type::cdata:
                scratch.clear();
                html::detail::decode_text(html.substr(t.begin, t.end - t.begin), false, scratch);
                if (pre > 0) {
                    for (char c : scratch)
                        if (c != '\r') out += c;
                } else {
                    append_collapsed(out, scratch);
                }
                break;
            case html::token_type::raw_text:
                // script, style, title and the like are not text of the page; textarea is.
                if (raw_owner == "textarea") {
                    scratch.clear();
                    html::detail::decode_text(html.substr(t.begin, t.end - t.begin), false,
                                              scratch);
                    append_collapsed(out, scratch);
                }
                break;
            default:
                break;
        }
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
    // Trailing spaces before each line break.
    std::string tidy;
    tidy.reserve(out.size() + 1);
    for (char c : out) {
        if (c == '\n')
            while (!tidy.empty() && tidy.back() == ' ') tidy.pop_back();
        tidy += c;
    }
    if (!tidy.empty()) tidy += '\n';
    return to_crlf(tidy);
}

std::string html_title(std::string_view html, std::string_view charset) {
    html::tokenizer tok(html);
    html::token t;
    bool in_title = false;
    while (tok.next(t)) {
        if (t.type == html::token_type::start_tag && t.name == "title" && !t.foreign) {
            in_title = true;
            continue;
        }
        if (in_title) {
            if (t.type != html::token_type::raw_text) return {};
            std::string_view raw = html.substr(t.begin, t.end - t.begin);
            std::string utf8;
            const bool is_utf8 = charset.empty() || ascii::iequals(charset, "utf-8") ||
                                 ascii::iequals(charset, "us-ascii");
            if (!is_utf8) {
                if (auto converted = mime::to_utf8(raw, charset)) utf8 = std::move(*converted);
            }
            if (utf8.empty()) utf8 = mhtml::utf8::sanitized(raw);
            std::string decoded;
            html::detail::decode_text(utf8, false, decoded);
            std::string out;
            append_collapsed(out, decoded);
            while (!out.empty() && out.back() == ' ') out.pop_back();
            if (!out.empty() && out.front() == ' ') out.erase(0, 1);
            return out;
        }
    }
    return {};
}

}  // namespace mhtml::pack
