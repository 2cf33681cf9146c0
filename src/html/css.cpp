// CSS Syntax Level 3 §4 tokenization over octets, reduced to what decides where a URI
// reference stands. Section numbers below are those of https://www.w3.org/TR/css-syntax-3/.
//
// The input is not preprocessed (§3.3) and nothing is copied: CR LF counts as one newline
// wherever the count matters (the white space after a hex escape, `\` + newline in a
// string), CR and FF are newlines, and a NUL octet is treated as the U+FFFD it would become
// (an ident code point; U+FFFD in decoded values). Octets from 0x80 up are ident code
// points (the §4.2 definition of "non-ASCII code point"; the charset is not known here).
#include "mhtml/html/css.hpp"

#include "entities.hpp"

#include <array>
#include <cstring>

namespace mhtml::html {

namespace {

enum char_bits : std::uint16_t {
    ws = 1 << 0,           // §4.2 whitespace: newline, tab, space
    newline = 1 << 1,      // LF, CR, FF
    ident = 1 << 2,        // §4.2 ident code point
    ident_start = 1 << 3,  // §4.2 ident-start code point
    digit = 1 << 4,
    hex = 1 << 5,
    string_stop = 1 << 6,   // ends a plain run inside a string token
    url_stop = 1 << 7,      // ends a plain run inside a url-token
    nonprintable = 1 << 8,  // §4.2 non-printable code point (NUL excluded: it is U+FFFD)
};

constexpr std::array<std::uint16_t, 256> make_classes() {
    std::array<std::uint16_t, 256> t{};
    auto add = [&](int c, std::uint16_t bits) { t[static_cast<std::size_t>(c)] |= bits; };
    for (int c : {' ', '\t', '\n', '\r', '\f'}) add(c, ws | url_stop);
    for (int c : {'\n', '\r', '\f'}) add(c, newline | string_stop);
    for (int c = 'a'; c <= 'z'; ++c) add(c, ident | ident_start);
    for (int c = 'A'; c <= 'Z'; ++c) add(c, ident | ident_start);
    for (int c = 0x80; c < 256; ++c) add(c, ident | ident_start);
    add('_', ident | ident_start);
    add(0, ident | ident_start | string_stop | url_stop);
    add('-', ident);
    for (int c = '0'; c <= '9'; ++c) add(c, ident | digit | hex);
    for (int c = 'a'; c <= 'f'; ++c) add(c, hex);
    for (int c = 'A'; c <= 'F'; ++c) add(c, hex);
    for (int c : {'"', '\'', '\\'}) add(c, string_stop | url_stop);
    for (int c : {'(', ')'}) add(c, url_stop);
    for (int c = 1; c <= 8; ++c) add(c, nonprintable | url_stop);
    add(0x0B, nonprintable | url_stop);
    for (int c = 0x0E; c <= 0x1F; ++c) add(c, nonprintable | url_stop);
    add(0x7F, nonprintable | url_stop);
    return t;
}
constexpr auto classes = make_classes();

constexpr bool is(unsigned char c, std::uint16_t bits) noexcept {
    return (classes[c] & bits) != 0;
}

constexpr unsigned hex_value(unsigned char c) noexcept {
    if (c <= '9') return c - '0';
    return (c | 0x20u) - 'a' + 10;
}

constexpr char32_t replacement = 0xFFFD;

// What a `\` escape stands for: a code point (hex escapes, NUL, EOF) or one octet of the
// input as it is (any other escaped octet, which may be the first of a multi-octet char).
struct escaped {
    std::size_t next;  // first octet after the escape
    char32_t value;
    bool octet;  // `value` is an input octet, not a code point
};

// Kinds of open block (§5.4.8 simple blocks, §5.4.9 functions), by the token that closes them.
enum class level : std::uint8_t { paren, image_set, bracket, brace };

class scanner {
public:
    scanner(std::string_view css, std::vector<css_reference>& out) noexcept
        : s_(css.data()), n_(css.size()), out_(out) {}

    void run();

private:
    unsigned char at(std::size_t i) const noexcept { return static_cast<unsigned char>(s_[i]); }

    // §4.3.8: `\` not followed by a newline (EOF after it counts as valid).
    bool valid_escape(std::size_t i) const noexcept {
        return i < n_ && s_[i] == '\\' && (i + 1 >= n_ || !is(at(i + 1), newline));
    }
    // §4.3.9 "would start an ident sequence", looking at the octets from i.
    bool starts_ident(std::size_t i) const noexcept {
        if (i >= n_) return false;
        const unsigned char c = at(i);
        if (c == '-')
            return i + 1 < n_ &&
                   (is(at(i + 1), ident_start) || s_[i + 1] == '-' || valid_escape(i + 1));
        if (is(c, ident_start)) return true;
        return valid_escape(i);
    }
    // §4.3.10 "starts a number".
    bool starts_number(std::size_t i) const noexcept {
        const unsigned char c = at(i);
        if (c == '+' || c == '-') {
            if (i + 1 < n_ && is(at(i + 1), digit)) return true;
            return i + 2 < n_ && s_[i + 1] == '.' && is(at(i + 2), digit);
        }
        if (c == '.') return i + 1 < n_ && is(at(i + 1), digit);
        return is(c, digit);
    }
    std::size_t skip_newline(std::size_t i) const noexcept {  // CR LF is one newline (§3.3)
        return i + (s_[i] == '\r' && i + 1 < n_ && s_[i + 1] == '\n' ? 2 : 1);
    }

    escaped escaped_code_point(std::size_t i) const noexcept;    // §4.3.7; i is after the `\`
    std::size_t consume_ident(std::size_t i) const noexcept;     // §4.3.11
    std::size_t consume_numeric(std::size_t i) const noexcept;   // §4.3.3
    std::size_t skip_comment(std::size_t i) const noexcept;      // §4.3.2; i is after `/*`
    std::size_t bad_url_remnants(std::size_t i) const noexcept;  // §4.3.14
    bool name_is(std::size_t b, std::size_t e, std::string_view lower) const noexcept;

    struct string_token {
        std::size_t end;   // the closing quote, or n_
        std::size_t next;  // first octet after the token
        bool bad;          // cut short by a newline (bad-string-token)
        bool plain;        // no escapes and no NUL: the raw value is the value
    };
    string_token consume_string(std::size_t i) const noexcept;  // §4.3.5; i is the quote

    std::size_t ident_like(std::size_t i, bool import);  // §4.3.4
    std::size_t url_after_paren(std::size_t i, bool import);
    void emit(std::size_t b, std::size_t e, css_token_form form, char quote, bool import,
              bool plain);
    void decode(std::size_t b, std::size_t e, bool in_string, std::string& out) const;

    // Open blocks, two bits each: the depth is bounded only by the input length.
    void push(level k) {
        const std::size_t word = depth_ / 32, shift = depth_ % 32 * 2;
        if (word == levels_.size()) levels_.push_back(0);
        levels_[word] = (levels_[word] & ~(std::uint64_t{3} << shift)) |
                        (std::uint64_t{static_cast<std::uint8_t>(k)} << shift);
        ++depth_;
    }
    bool top_is(level k) const noexcept {
        if (depth_ == 0) return false;
        const std::size_t d = depth_ - 1;
        return ((levels_[d / 32] >> (d % 32 * 2)) & 3) == static_cast<std::uint8_t>(k);
    }
    // §5.4.8/§5.4.9: only the matching token closes a block; others inside it are ignored.
    void close(unsigned char c) noexcept {
        if (c == ')' ? top_is(level::paren) || top_is(level::image_set)
                     : top_is(c == ']' ? level::bracket : level::brace))
            --depth_;
    }

    const char* s_;
    std::size_t n_;
    std::vector<css_reference>& out_;
    std::vector<std::uint64_t> levels_;
    std::size_t depth_ = 0;
};

escaped scanner::escaped_code_point(std::size_t i) const noexcept {
    if (i >= n_) return {i, replacement, false};
    if (!is(at(i), hex)) {
        if (s_[i] == 0) return {i + 1, replacement, false};
        return {i + 1, at(i), true};
    }
    char32_t v = 0;
    const std::size_t limit = i + 6 < n_ ? i + 6 : n_;
    std::size_t e = i;
    for (; e < limit && is(at(e), hex); ++e) v = v * 16 + hex_value(at(e));
    if (e < n_ && is(at(e), ws)) e = skip_newline(e);  // one white space ends the escape
    if (v == 0 || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF) v = replacement;
    return {e, v, false};
}

std::size_t scanner::consume_ident(std::size_t i) const noexcept {
    for (;;) {
        while (i < n_ && is(at(i), ident)) ++i;
        if (!valid_escape(i)) return i;
        i = escaped_code_point(i + 1).next;
    }
}

std::size_t scanner::consume_numeric(std::size_t i) const noexcept {
    // §4.3.12 consume a number: [+-]? digits* ( . digits+ )? ( [eE] [+-]? digits+ )?
    if (s_[i] == '+' || s_[i] == '-') ++i;
    while (i < n_ && is(at(i), digit)) ++i;
    if (i + 1 < n_ && s_[i] == '.' && is(at(i + 1), digit)) {
        i += 2;
        while (i < n_ && is(at(i), digit)) ++i;
    }
    if (i < n_ && (s_[i] == 'e' || s_[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < n_ && (s_[j] == '+' || s_[j] == '-')) ++j;
        if (j < n_ && is(at(j), digit)) {
            i = j + 1;
            while (i < n_ && is(at(i), digit)) ++i;
        }
    }
    if (starts_ident(i)) return consume_ident(i);  // dimension: `1url(x)` is not a url()
    if (i < n_ && s_[i] == '%') ++i;
    return i;
}

std::size_t scanner::skip_comment(std::size_t i) const noexcept {
    while (i < n_) {
        const void* star = std::memchr(s_ + i, '*', n_ - i);
        if (star == nullptr) break;
        i = static_cast<std::size_t>(static_cast<const char*>(star) - s_) + 1;
        if (i < n_ && s_[i] == '/') return i + 1;
    }
    return n_;  // §4.3.2: an unterminated comment runs to the end
}

std::size_t scanner::bad_url_remnants(std::size_t i) const noexcept {
    for (;;) {
        while (i < n_ && s_[i] != ')' && s_[i] != '\\') ++i;
        if (i >= n_) return n_;
        if (s_[i] == ')') return i + 1;
        i = valid_escape(i) ? escaped_code_point(i + 1).next : i + 1;  // `\)` does not end it
    }
}

// Whether the ident sequence [b, e) names `lower` (ASCII lowercase), escapes decoded and
// ASCII case ignored (§4.3.4 "ASCII case-insensitive match").
bool scanner::name_is(std::size_t b, std::size_t e, std::string_view lower) const noexcept {
    if (e - b < lower.size()) return false;  // escapes only make the raw text longer
    std::size_t k = 0;
    while (b < e) {
        char32_t c = at(b);
        if (c == '\\') {
            const escaped x = escaped_code_point(b + 1);
            c = x.value;
            b = x.next;
        } else {
            ++b;
        }
        if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
        if (k == lower.size() || c != static_cast<unsigned char>(lower[k])) return false;
        ++k;
    }
    return k == lower.size();
}

scanner::string_token scanner::consume_string(std::size_t i) const noexcept {
    const char quote = s_[i];
    bool plain = true;
    ++i;
    for (;;) {
        while (i < n_ && !is(at(i), string_stop)) ++i;
        if (i >= n_) return {n_, n_, false, plain};  // EOF: a parse error, the string stands
        const unsigned char c = at(i);
        if (c == quote) return {i, i + 1, false, plain};
        if (is(c, newline)) return {i, i, true, plain};  // bad-string; the newline is reconsumed
        if (c == '"' || c == '\'') {
            ++i;
            continue;
        }
        plain = false;
        ++i;
        if (c == 0 || i >= n_) continue;  // NUL, or `\` at EOF (which adds nothing)
        if (is(at(i), newline))
            i = skip_newline(i);  // `\` + newline: a line continuation
        else
            i = escaped_code_point(i).next;
    }
}

void scanner::decode(std::size_t b, std::size_t e, bool in_string, std::string& out) const {
    out.reserve(e - b);
    while (b < e) {
        std::size_t r = b;
        while (r < e && s_[r] != '\\' && s_[r] != 0) ++r;
        out.append(s_ + b, r - b);
        if (r >= e) break;
        b = r + 1;
        if (s_[r] == 0) {
            detail::append_utf8(out, replacement);
            continue;
        }
        if (in_string) {
            if (b >= n_) break;  // `\` at EOF in a string adds nothing
            if (is(at(b), newline)) {
                b = skip_newline(b);
                continue;
            }
        }
        const escaped x = escaped_code_point(b);
        if (x.octet)
            out += static_cast<char>(x.value);
        else
            detail::append_utf8(out, x.value);
        b = x.next;
    }
}

void scanner::emit(std::size_t b, std::size_t e, css_token_form form, char quote, bool import,
                   bool plain) {
    css_reference& r = out_.emplace_back();
    r.offset = b;
    r.length = e - b;
    r.form = form;
    r.quote = quote;
    r.import = import;
    if (plain)
        r.url.assign(s_ + b, e - b);
    else
        decode(b, e, form != css_token_form::url_unquoted, r.url);
}

std::size_t scanner::ident_like(std::size_t i, bool import) {
    const std::size_t e = consume_ident(i);
    if (e >= n_ || s_[e] != '(') return e;
    if (name_is(i, e, "url")) return url_after_paren(e + 1, import);
    // CSS Images 4 §2.2: strings directly inside image-set() are URLs.
    push(name_is(i, e, "image-set") || name_is(i, e, "-webkit-image-set") ? level::image_set
                                                                          : level::paren);
    return e + 1;
}

// §4.3.4 after `url(`: white space then a quote makes a function-token (the string that
// follows is the URL, CSS Values 4 §4.5); anything else is consumed as a url-token (§4.3.6).
std::size_t scanner::url_after_paren(std::size_t i, bool import) {
    std::size_t v = i;
    while (v < n_ && is(at(v), ws)) ++v;
    if (v < n_ && (s_[v] == '"' || s_[v] == '\'')) {
        push(level::paren);
        const string_token t = consume_string(v);
        if (!t.bad) emit(v + 1, t.end, css_token_form::url_quoted, s_[v], import, t.plain);
        return t.next;
    }
    const std::size_t b = v;
    bool plain = true;
    for (;;) {
        while (v < n_ && !is(at(v), url_stop)) ++v;
        if (v >= n_) {  // EOF: a parse error, the url-token stands
            emit(b, n_, css_token_form::url_unquoted, 0, import, plain);
            return n_;
        }
        const unsigned char c = at(v);
        if (c == ')') {
            emit(b, v, css_token_form::url_unquoted, 0, import, plain);
            return v + 1;
        }
        if (is(c, ws)) {  // white space may only come before the `)`
            const std::size_t e = v;
            while (v < n_ && is(at(v), ws)) ++v;
            if (v < n_ && s_[v] != ')') return bad_url_remnants(v);
            emit(b, e, css_token_form::url_unquoted, 0, import, plain);
            return v < n_ ? v + 1 : n_;
        }
        if (c == 0) {
            plain = false;
            ++v;
        } else if (c == '\\' && valid_escape(v)) {
            plain = false;
            v = escaped_code_point(v + 1).next;
        } else {
            return bad_url_remnants(v);  // a quote, `(`, a non-printable, or `\` + newline
        }
    }
}

void scanner::run() {
    std::size_t i = 0;
    bool import_pending = false;  // just after an @import at-keyword
    while (i < n_) {
        const unsigned char c = at(i);
        // White space and comments leave @import pending; every other token ends it.
        if (is(c, ws)) {
            do ++i;
            while (i < n_ && is(at(i), ws));
            continue;
        }
        if (c == '/' && i + 1 < n_ && s_[i + 1] == '*') {
            i = skip_comment(i + 2);
            continue;
        }
        const bool import = import_pending;
        import_pending = false;
        if (is(c, ident_start)) {
            i = ident_like(i, import);
            continue;
        }
        if (is(c, digit)) {
            i = consume_numeric(i);
            continue;
        }
        switch (c) {
            case '"':
            case '\'': {
                const string_token t = consume_string(i);
                if (!t.bad && (import || top_is(level::image_set)))
                    emit(i + 1, t.end, css_token_form::string, s_[i], import, t.plain);
                i = t.next;
                break;
            }
            case '#':  // hash-token: `#url(x)` is a hash and a `(`
                i = i + 1 < n_ && (is(at(i + 1), ident) || valid_escape(i + 1))
                        ? consume_ident(i + 1)
                        : i + 1;
                break;
            case '@':  // at-keyword-token
                if (starts_ident(i + 1)) {
                    const std::size_t e = consume_ident(i + 1);
                    import_pending = name_is(i + 1, e, "import");
                    i = e;
                } else {
                    ++i;
                }
                break;
            case '(':
                push(level::paren);
                ++i;
                break;
            case '[':
                push(level::bracket);
                ++i;
                break;
            case '{':
                push(level::brace);
                ++i;
                break;
            case ')':
            case ']':
            case '}':
                close(c);
                ++i;
                break;
            case '+':
            case '.':
                i = starts_number(i) ? consume_numeric(i) : i + 1;
                break;
            case '-':
                if (starts_number(i))
                    i = consume_numeric(i);
                else if (i + 2 < n_ && s_[i + 1] == '-' && s_[i + 2] == '>')
                    i += 3;  // CDC
                else if (starts_ident(i))
                    i = ident_like(i, import);
                else
                    ++i;
                break;
            case '<':  // CDO: `<!--url(x)` is a url()
                i += i + 3 < n_ && s_[i + 1] == '!' && s_[i + 2] == '-' && s_[i + 3] == '-' ? 4 : 1;
                break;
            case '\\':
                i = valid_escape(i) ? ident_like(i, import) : i + 1;
                break;
            default:  // delim-token and the other one-octet tokens
                ++i;
                break;
        }
    }
}

}  // namespace

void scan_css(std::string_view css, std::vector<css_reference>& out) {
    // Every reference is a url( token or function, or an @import string, and both start with
    // a literal '(' or '@' (an escaped one makes neither): a sheet with neither has none.
    if (css.find('(') == std::string_view::npos && css.find('@') == std::string_view::npos) return;
    scanner(css, out).run();
}

std::string css_escape_url(std::string_view url, css_token_form form, char quote) {
    const bool unquoted = form == css_token_form::url_unquoted;
    const bool either_quote = quote != '"' && quote != '\'';
    auto hex_escaped = [&](unsigned char c) {
        if (c == 0) return true;
        if (unquoted)
            return is(c, ws | nonprintable) || c == '"' || c == '\'' || c == '(' || c == ')' ||
                   c == '\\';
        return is(c, newline);
    };
    auto char_escaped = [&](unsigned char c) {
        return !unquoted && (c == '\\' || c == static_cast<unsigned char>(quote) ||
                             (either_quote && (c == '"' || c == '\'')));
    };
    std::string out;
    out.reserve(url.size() + url.size() / 8 + 4);
    for (std::size_t k = 0; k < url.size(); ++k) {
        const auto c = static_cast<unsigned char>(url[k]);
        if (char_escaped(c)) {
            out += '\\';
            out += static_cast<char>(c);
        } else if (hex_escaped(c)) {
            out += '\\';
            const char32_t v = c == 0 ? replacement : c;  // §3.3: NUL reads as U+FFFD anyway
            bool digits = false;
            for (int shift = 20; shift >= 0; shift -= 4) {
                const unsigned d = (v >> shift) & 15;
                if (d != 0 || digits || shift == 0) {
                    out += "0123456789abcdef"[d];
                    digits = true;
                }
            }
            // §4.3.7: the escape would swallow a following hex digit or one white space.
            if (k + 1 < url.size()) {
                const auto next = static_cast<unsigned char>(url[k + 1]);
                if (!hex_escaped(next) && !char_escaped(next) && is(next, hex | ws)) out += ' ';
            }
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

}  // namespace mhtml::html
