// The WHATWG tokenizer's decisions about what is markup (see the header). One pass; memchr
// to the next '<' in text.
#include "mhtml/html/tokenizer.hpp"

#include "mhtml/ascii.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>

namespace mhtml::html {

namespace {

using ascii::iequals;
using ascii::is_alpha;
using ascii::lower;
constexpr bool is_space(char c) noexcept {
    return ascii::is_html_space(c);
}

// Octets that end an attribute name, or an unquoted attribute value ('>' and white space).
constexpr std::array<bool, 256> make_name_end() {
    std::array<bool, 256> t{};
    for (unsigned char c : std::string_view(" \t\n\f\r/>=")) t[c] = true;
    return t;
}
constexpr auto name_end = make_name_end();

// Up to this many attributes, a repeated name is found by a linear search as each is read;
// beyond it, once per tag by sorting (a hostile tag may have millions).
constexpr std::size_t linear_dedup_limit = 32;

void drop_repeated_attributes(std::vector<attribute_view>& attributes) {
    std::vector<std::size_t> order(attributes.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto less = [&](std::size_t a, std::size_t b) {
        std::string_view x = attributes[a].name, y = attributes[b].name;
        const std::size_t n = std::min(x.size(), y.size());
        for (std::size_t i = 0; i < n; ++i)
            if (lower(x[i]) != lower(y[i])) return lower(x[i]) < lower(y[i]);
        return x.size() < y.size();
    };
    std::stable_sort(order.begin(), order.end(), less);
    std::vector<bool> drop(attributes.size());
    for (std::size_t k = 1; k < order.size(); ++k)
        if (iequals(attributes[order[k]].name, attributes[order[k - 1]].name))
            drop[order[k]] = true;
    std::size_t out = 0;
    for (std::size_t k = 0; k < attributes.size(); ++k)
        if (!drop[k]) attributes[out++] = attributes[k];
    attributes.resize(out);
}

}  // namespace

std::string_view type_name(token_type t) noexcept {
    switch (t) {
        case token_type::text:
            return "text";
        case token_type::raw_text:
            return "raw_text";
        case token_type::start_tag:
            return "start_tag";
        case token_type::end_tag:
            return "end_tag";
        case token_type::comment:
            return "comment";
        case token_type::doctype:
            return "doctype";
        case token_type::cdata:
            return "cdata";
    }
    return "text";
}

const attribute_view* token::attribute(std::string_view n) const noexcept {
    for (const auto& a : attributes)
        if (iequals(a.name, n)) return &a;
    return nullptr;
}

tokenizer::tokenizer(std::string_view input, bool xml) noexcept : in_(input), xml_(xml) {
    if (in_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
}

bool tokenizer::next(token& t) {
    const std::size_t n = in_.size();
    t.name.clear();
    t.attributes.clear();
    t.self_closing = false;
    if (pending_ == pending::raw_text) {
        pending_ = pending::none;
        if (raw_end_ > pos_) {
            t.type = token_type::raw_text;
            t.begin = pos_;
            t.end = raw_end_;
            t.foreign = false;
            pos_ = raw_end_;
            return true;
        }
    }
    while (pos_ < n) {
        t.foreign = foreign();
        if (in_[pos_] == '<' && opens_markup(pos_)) {
            if (markup(pos_, t)) {
                if (t.type == token_type::start_tag || t.type == token_type::end_tag) {
                    // Most tags are HTML outside foreign content: only <svg> and <math> matter.
                    if (!xml_ && !scopes_.empty()) {
                        enter_or_leave_foreign(t);
                    } else if (!xml_ && t.type == token_type::start_tag && !t.self_closing &&
                               (t.name == std::string_view("svg") ||
                                t.name == std::string_view("math"))) {
                        scopes_.push_back({false, t.name});
                    }
                }
                if (t.type == token_type::start_tag && !t.foreign) start_content(t);
                return true;
            }
            continue;  // markup that is no token ("</>", a tag cut by the end)
        }
        // Text, up to the next '<' that opens markup.
        t.type = token_type::text;
        t.begin = pos_;
        std::size_t i = in_[pos_] == '<' ? pos_ + 1 : pos_;
        for (;;) {
            const void* lt = i < n ? std::memchr(in_.data() + i, '<', n - i) : nullptr;
            if (!lt) {
                i = n;
                break;
            }
            i = static_cast<std::size_t>(static_cast<const char*>(lt) - in_.data());
            if (opens_markup(i)) break;
            ++i;
        }
        t.end = pos_ = i;
        return true;
    }
    return false;
}

// Whether the '<' at in_[i] starts markup (a tag, possibly cut by the end of the input, a
// comment, a DOCTYPE, "</>") rather than standing for itself in text.
bool tokenizer::opens_markup(std::size_t i) const noexcept {
    if (i + 1 >= in_.size()) return false;
    const char c = in_[i + 1];
    if (is_alpha(c) || c == '!' || c == '?') return true;
    return c == '/' && i + 2 < in_.size();
}

// At in_[i] == '<' where opens_markup(i). Reads the markup there into `t` and returns true,
// moving pos_ past it; returns false with pos_ moved past markup that is no token ("</>", a
// tag cut by the end of the input).
bool tokenizer::markup(std::size_t i, token& t) {
    const std::size_t n = in_.size();
    t.begin = i;
    const char c = in_[i + 1];
    if (is_alpha(c)) {
        std::size_t end = read_tag(i + 1, t);
        if (end == std::string_view::npos) {
            pos_ = n;
            return false;
        }
        t.type = token_type::start_tag;
        t.end = pos_ = end;
        return true;
    }
    if (c == '/') {
        if (i + 2 < n && is_alpha(in_[i + 2])) {
            std::size_t end = read_tag(i + 2, t);
            if (end == std::string_view::npos) {
                pos_ = n;
                return false;
            }
            t.attributes.clear();
            t.type = token_type::end_tag;
            t.end = pos_ = end;
            return true;
        }
        if (in_[i + 2] == '>') {  // "</>": a parse error, no token
            pos_ = i + 3;
            return false;
        }
        t.type = token_type::comment;
        t.end = pos_ = bogus_comment_end(i + 2);
        return true;
    }
    if (c == '!') {
        if (in_.compare(i + 2, 2, "--") == 0) {
            t.type = token_type::comment;
            t.end = pos_ = comment_end(i + 4);
            return true;
        }
        if (i + 9 <= n && ascii::istarts_with(in_.substr(i + 2), "doctype")) {
            t.type = token_type::doctype;
            t.end = pos_ = doctype_end(i + 9);
            return true;
        }
        if (foreign() && in_.compare(i + 2, 7, "[CDATA[") == 0) {
            std::size_t end = in_.find("]]>", i + 9);
            t.type = token_type::cdata;
            t.end = pos_ = end == std::string_view::npos ? n : end + 3;
            return true;
        }
        t.type = token_type::comment;
        t.end = pos_ = bogus_comment_end(i + 2);
        return true;
    }
    {  // c == '?'
        t.type = token_type::comment;
        if (xml_) {
            std::size_t end = in_.find("?>", i + 2);
            t.end = pos_ = end == std::string_view::npos ? n : end + 2;
        } else {
            t.end = pos_ = bogus_comment_end(i + 1);
        }
        return true;
    }
}

std::size_t tokenizer::bogus_comment_end(std::size_t i) const {
    std::size_t end = in_.find('>', i);
    return end == std::string_view::npos ? in_.size() : end + 1;
}

// After "<!--": "<!-->" and "<!--->" end at once; otherwise at "-->" or "--!>" (XML: "-->").
std::size_t tokenizer::comment_end(std::size_t i) const {
    const std::size_t n = in_.size();
    if (xml_) {
        std::size_t end = in_.find("-->", i);
        return end == std::string_view::npos ? n : end + 3;
    }
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

// After "<!DOCTYPE": HTML ends it at the next '>'. XML skips quoted strings and an internal
// subset in brackets first; inside the subset, comments and processing instructions are
// whole units (XML 1.0 §2.8: a `]>` or a lone quote in them ends nothing), and so are quoted
// literals of its declarations.
std::size_t tokenizer::doctype_end(std::size_t i) const {
    const std::size_t n = in_.size();
    if (!xml_) return bogus_comment_end(i);
    bool subset = false;
    auto past = [&](std::size_t from, std::string_view end) {
        std::size_t e = in_.find(end, from);
        return e == std::string_view::npos ? n : e + end.size();
    };
    while (i < n) {
        const char c = in_[i];
        if (c == '"' || c == '\'') {
            i = past(i + 1, std::string_view(&c, 1));
        } else if (subset && in_.compare(i, 4, "<!--") == 0) {
            i = past(i + 4, "-->");
        } else if (subset && in_.compare(i, 2, "<?") == 0) {
            i = past(i + 2, "?>");
        } else if (c == '[') {
            subset = true;
            ++i;
        } else if (c == ']') {
            subset = false;
            ++i;
        } else if (c == '>' && !subset) {
            return i + 1;
        } else {
            ++i;
        }
    }
    return n;
}

// Reads the tag name and attributes starting at in_[i] (the first letter of the name).
// Returns the position after '>' or npos when the input ends inside the tag.
std::size_t tokenizer::read_tag(std::size_t i, token& t, bool keep_repeated) const {
    const std::size_t n = in_.size();
    t.name.clear();
    t.attributes.clear();
    t.self_closing = false;
    while (i < n && !is_space(in_[i]) && in_[i] != '/' && in_[i] != '>') t.name += lower(in_[i++]);
    while (true) {
        while (i < n && (is_space(in_[i]) || in_[i] == '/')) {
            t.self_closing = in_[i] == '/' && i + 1 < n && in_[i + 1] == '>';
            ++i;
        }
        if (i >= n) return std::string_view::npos;
        if (in_[i] == '>') {
            if (!keep_repeated && t.attributes.size() > linear_dedup_limit)
                drop_repeated_attributes(t.attributes);
            return i + 1;
        }
        t.self_closing = false;
        attribute_view a;
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
        } else {
            a.value_offset = i;
        }
        // A repeated attribute is dropped by the tokenizer; the first one counts.
        if (keep_repeated || t.attributes.size() >= linear_dedup_limit || !t.attribute(a.name))
            t.attributes.push_back(a);
    }
}

std::vector<attribute_view> tokenizer::all_attributes(const token& t) const {
    if (t.type != token_type::start_tag || t.begin + 1 >= in_.size()) return {};
    token again;
    if (read_tag(t.begin + 1, again, true) == std::string_view::npos) return t.attributes;
    return std::move(again.attributes);
}

// The tree builder's part that the tokenizer needs (HTML §13.2.6.5, "the rules for parsing
// tokens in foreign content"): which tags open, leave or re-enter foreign content. `t` is a
// tag read in the current scope; a tag that breaks out of foreign content is an HTML one.
void tokenizer::enter_or_leave_foreign(token& t) {
    static constexpr std::string_view breakout[] = {
        "b",      "big",  "blockquote", "body",  "br",   "center", "code",    "dd",   "div",
        "dl",     "dt",   "em",         "embed", "h1",   "h2",     "h3",      "h4",   "h5",
        "h6",     "head", "hr",         "i",     "img",  "li",     "listing", "menu", "meta",
        "nobr",   "ol",   "p",          "pre",   "ruby", "s",      "small",   "span", "strong",
        "strike", "sub",  "sup",        "table", "tt",   "u",      "ul",      "var"};
    const std::string& name = t.name;
    auto leave_foreign = [&] {
        while (!scopes_.empty() && !scopes_.back().html) scopes_.pop_back();
        t.foreign = false;
    };
    if (t.type == token_type::end_tag) {
        if (foreign()) {
            if (name == "p" || name == "br") {
                leave_foreign();
            } else if (name == scopes_.back().name) {
                scopes_.pop_back();
            }
        } else if (!scopes_.empty() && scopes_.back().name == name) {
            scopes_.pop_back();  // the end of an integration point
        }
        return;
    }
    if (foreign()) {
        const bool font =
            name == "font" && (t.attribute("color") || t.attribute("face") || t.attribute("size"));
        if (font ||
            std::find(std::begin(breakout), std::end(breakout), name) != std::end(breakout)) {
            leave_foreign();
            return;
        }
        if (t.self_closing) return;
        bool integration = false;
        if (scopes_.back().name == "svg") {
            integration = name == "foreignobject" || name == "desc" || name == "title";
        } else if (name == "annotation-xml") {
            const attribute_view* encoding = t.attribute("encoding");
            integration = encoding && (iequals(value(*encoding), "text/html") ||
                                       iequals(value(*encoding), "application/xhtml+xml"));
        } else {
            integration =
                name == "mi" || name == "mo" || name == "mn" || name == "ms" || name == "mtext";
        }
        if (integration) {
            scopes_.push_back({true, name});
        } else if (name == "svg" || name == "math") {
            scopes_.push_back({false, name});
        }
        return;
    }
    if ((name == "svg" || name == "math") && !t.self_closing) scopes_.push_back({false, name});
}

// After an HTML start tag: the element's text is raw (the next token) or markup.
void tokenizer::start_content(const token& t) {
    const std::string_view name = t.name;
    auto is = [&](std::string_view n) { return name.size() == n.size() && name == n; };
    std::size_t end = std::string_view::npos;
    switch (name.empty() ? '\0' : name[0]) {  // most tags are none of these: one test
        case 's':
            if (is("script"))
                end = script_data_end(pos_);
            else if (is("style"))
                end = find_end_tag(pos_, name);
            break;
        case 'p':
            if (is("plaintext")) end = in_.size();
            break;
        case 'x':
        case 'i':
        case 'n':
        case 't':
            if (is("xmp") || is("iframe") || is("noembed") || is("noframes") || is("textarea") ||
                is("title"))
                end = find_end_tag(pos_, name);
            break;
        default:
            break;
    }
    if (end != std::string_view::npos) {
        pending_ = pending::raw_text;
        raw_end_ = end;
    }
}

// The position of "</name" + (white space, '/' or '>') at or after `from`, or the end;
// the element's end tag is then read as markup.
std::size_t tokenizer::find_end_tag(std::size_t from, std::string_view name) const {
    const std::size_t n = in_.size();
    std::size_t k = from;
    while (true) {
        std::size_t lt = in_.find("</", k);
        if (lt == std::string_view::npos) return n;
        if (is_end_tag_of(lt, name)) return lt;
        k = lt + 2;
    }
}

bool tokenizer::is_end_tag_of(std::size_t lt, std::string_view name) const {
    std::size_t p = lt + 2;
    if (p + name.size() > in_.size()) return false;
    if (!iequals(in_.substr(p, name.size()), name)) return false;
    p += name.size();
    return p < in_.size() && (is_space(in_[p]) || in_[p] == '/' || in_[p] == '>');
}

// "<script" followed by white space, '/' or '>' (the script data states' test).
bool tokenizer::is_tag_named_at(std::size_t lt, std::string_view name) const {
    std::size_t p = lt + 1;
    if (p + name.size() > in_.size()) return false;
    if (!iequals(in_.substr(p, name.size()), name)) return false;
    p += name.size();
    return p < in_.size() && (is_space(in_[p]) || in_[p] == '/' || in_[p] == '>');
}

// Script data with its escaped and double-escaped states: "<!--" escapes, "<script"
// inside an escape double-escapes, so a "</script>" there does not end the element.
std::size_t tokenizer::script_data_end(std::size_t i) const {
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

}  // namespace mhtml::html
