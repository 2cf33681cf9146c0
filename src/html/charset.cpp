// WHATWG HTML §13.2.3.2 "determining the character encoding", with the "algorithm for
// extracting a character encoding from a meta element", and the label table of the WHATWG
// Encoding Standard (§4.2 "names and labels"). The search for a <meta> is Chromium's (see
// the header): the one tokenizer's tokens, never decoded; an element cut short by the end
// of the input is not used.
#include "mhtml/html/charset.hpp"

#include "mhtml/ascii.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/html/tokenizer.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

namespace mhtml::html {

namespace {

struct label_entry {
    std::string_view label;  // lower case, as the Encoding Standard lists it
    std::string_view name;
};

// Encoding Standard §4.2, in the standard's order (one group per encoding).
constexpr label_entry label_table[] = {
    // clang-format off
    {"unicode-1-1-utf-8", "UTF-8"}, {"unicode11utf8", "UTF-8"}, {"unicode20utf8", "UTF-8"},
    {"utf-8", "UTF-8"}, {"utf8", "UTF-8"}, {"x-unicode20utf8", "UTF-8"},
    {"866", "IBM866"}, {"cp866", "IBM866"}, {"csibm866", "IBM866"}, {"ibm866", "IBM866"},
    {"csisolatin2", "ISO-8859-2"}, {"iso-8859-2", "ISO-8859-2"}, {"iso-ir-101", "ISO-8859-2"},
    {"iso8859-2", "ISO-8859-2"}, {"iso88592", "ISO-8859-2"}, {"iso_8859-2", "ISO-8859-2"},
    {"iso_8859-2:1987", "ISO-8859-2"}, {"l2", "ISO-8859-2"}, {"latin2", "ISO-8859-2"},
    {"csisolatin3", "ISO-8859-3"}, {"iso-8859-3", "ISO-8859-3"}, {"iso-ir-109", "ISO-8859-3"},
    {"iso8859-3", "ISO-8859-3"}, {"iso88593", "ISO-8859-3"}, {"iso_8859-3", "ISO-8859-3"},
    {"iso_8859-3:1988", "ISO-8859-3"}, {"l3", "ISO-8859-3"}, {"latin3", "ISO-8859-3"},
    {"csisolatin4", "ISO-8859-4"}, {"iso-8859-4", "ISO-8859-4"}, {"iso-ir-110", "ISO-8859-4"},
    {"iso8859-4", "ISO-8859-4"}, {"iso88594", "ISO-8859-4"}, {"iso_8859-4", "ISO-8859-4"},
    {"iso_8859-4:1988", "ISO-8859-4"}, {"l4", "ISO-8859-4"}, {"latin4", "ISO-8859-4"},
    {"csisolatincyrillic", "ISO-8859-5"}, {"cyrillic", "ISO-8859-5"}, {"iso-8859-5", "ISO-8859-5"},
    {"iso-ir-144", "ISO-8859-5"}, {"iso8859-5", "ISO-8859-5"}, {"iso88595", "ISO-8859-5"},
    {"iso_8859-5", "ISO-8859-5"}, {"iso_8859-5:1988", "ISO-8859-5"},
    {"arabic", "ISO-8859-6"}, {"asmo-708", "ISO-8859-6"}, {"csiso88596e", "ISO-8859-6"},
    {"csiso88596i", "ISO-8859-6"}, {"csisolatinarabic", "ISO-8859-6"}, {"ecma-114", "ISO-8859-6"},
    {"iso-8859-6", "ISO-8859-6"}, {"iso-8859-6-e", "ISO-8859-6"}, {"iso-8859-6-i", "ISO-8859-6"},
    {"iso-ir-127", "ISO-8859-6"}, {"iso8859-6", "ISO-8859-6"}, {"iso88596", "ISO-8859-6"},
    {"iso_8859-6", "ISO-8859-6"}, {"iso_8859-6:1987", "ISO-8859-6"},
    {"csisolatingreek", "ISO-8859-7"}, {"ecma-118", "ISO-8859-7"}, {"elot_928", "ISO-8859-7"},
    {"greek", "ISO-8859-7"}, {"greek8", "ISO-8859-7"}, {"iso-8859-7", "ISO-8859-7"},
    {"iso-ir-126", "ISO-8859-7"}, {"iso8859-7", "ISO-8859-7"}, {"iso88597", "ISO-8859-7"},
    {"iso_8859-7", "ISO-8859-7"}, {"iso_8859-7:1987", "ISO-8859-7"},
    {"sun_eu_greek", "ISO-8859-7"},
    {"csiso88598e", "ISO-8859-8"}, {"csisolatinhebrew", "ISO-8859-8"}, {"hebrew", "ISO-8859-8"},
    {"iso-8859-8", "ISO-8859-8"}, {"iso-8859-8-e", "ISO-8859-8"}, {"iso-ir-138", "ISO-8859-8"},
    {"iso8859-8", "ISO-8859-8"}, {"iso88598", "ISO-8859-8"}, {"iso_8859-8", "ISO-8859-8"},
    {"iso_8859-8:1988", "ISO-8859-8"}, {"visual", "ISO-8859-8"},
    {"csiso88598i", "ISO-8859-8-I"}, {"iso-8859-8-i", "ISO-8859-8-I"}, {"logical", "ISO-8859-8-I"},
    {"csisolatin6", "ISO-8859-10"}, {"iso-8859-10", "ISO-8859-10"}, {"iso-ir-157", "ISO-8859-10"},
    {"iso8859-10", "ISO-8859-10"}, {"iso885910", "ISO-8859-10"}, {"l6", "ISO-8859-10"},
    {"latin6", "ISO-8859-10"},
    {"iso-8859-13", "ISO-8859-13"}, {"iso8859-13", "ISO-8859-13"}, {"iso885913", "ISO-8859-13"},
    {"iso-8859-14", "ISO-8859-14"}, {"iso8859-14", "ISO-8859-14"}, {"iso885914", "ISO-8859-14"},
    {"csisolatin9", "ISO-8859-15"}, {"iso-8859-15", "ISO-8859-15"}, {"iso8859-15", "ISO-8859-15"},
    {"iso885915", "ISO-8859-15"}, {"iso_8859-15", "ISO-8859-15"}, {"l9", "ISO-8859-15"},
    {"iso-8859-16", "ISO-8859-16"},
    {"cskoi8r", "KOI8-R"}, {"koi", "KOI8-R"}, {"koi8", "KOI8-R"}, {"koi8-r", "KOI8-R"},
    {"koi8_r", "KOI8-R"},
    {"koi8-ru", "KOI8-U"}, {"koi8-u", "KOI8-U"},
    {"csmacintosh", "macintosh"}, {"mac", "macintosh"}, {"macintosh", "macintosh"},
    {"x-mac-roman", "macintosh"},
    {"dos-874", "windows-874"}, {"iso-8859-11", "windows-874"}, {"iso8859-11", "windows-874"},
    {"iso885911", "windows-874"}, {"tis-620", "windows-874"}, {"windows-874", "windows-874"},
    {"cp1250", "windows-1250"}, {"windows-1250", "windows-1250"}, {"x-cp1250", "windows-1250"},
    {"cp1251", "windows-1251"}, {"windows-1251", "windows-1251"}, {"x-cp1251", "windows-1251"},
    {"ansi_x3.4-1968", "windows-1252"}, {"ascii", "windows-1252"}, {"cp1252", "windows-1252"},
    {"cp819", "windows-1252"}, {"csisolatin1", "windows-1252"}, {"ibm819", "windows-1252"},
    {"iso-8859-1", "windows-1252"}, {"iso-ir-100", "windows-1252"}, {"iso8859-1", "windows-1252"},
    {"iso88591", "windows-1252"}, {"iso_8859-1", "windows-1252"},
    {"iso_8859-1:1987", "windows-1252"}, {"l1", "windows-1252"}, {"latin1", "windows-1252"},
    {"us-ascii", "windows-1252"}, {"windows-1252", "windows-1252"}, {"x-cp1252", "windows-1252"},
    {"cp1253", "windows-1253"}, {"windows-1253", "windows-1253"}, {"x-cp1253", "windows-1253"},
    {"cp1254", "windows-1254"}, {"csisolatin5", "windows-1254"}, {"iso-8859-9", "windows-1254"},
    {"iso-ir-148", "windows-1254"}, {"iso8859-9", "windows-1254"}, {"iso88599", "windows-1254"},
    {"iso_8859-9", "windows-1254"}, {"iso_8859-9:1989", "windows-1254"}, {"l5", "windows-1254"},
    {"latin5", "windows-1254"}, {"windows-1254", "windows-1254"}, {"x-cp1254", "windows-1254"},
    {"cp1255", "windows-1255"}, {"windows-1255", "windows-1255"}, {"x-cp1255", "windows-1255"},
    {"cp1256", "windows-1256"}, {"windows-1256", "windows-1256"}, {"x-cp1256", "windows-1256"},
    {"cp1257", "windows-1257"}, {"windows-1257", "windows-1257"}, {"x-cp1257", "windows-1257"},
    {"cp1258", "windows-1258"}, {"windows-1258", "windows-1258"}, {"x-cp1258", "windows-1258"},
    {"x-mac-cyrillic", "x-mac-cyrillic"}, {"x-mac-ukrainian", "x-mac-cyrillic"},
    {"chinese", "GBK"}, {"csgb2312", "GBK"}, {"csiso58gb231280", "GBK"}, {"gb2312", "GBK"},
    {"gb_2312", "GBK"}, {"gb_2312-80", "GBK"}, {"gbk", "GBK"}, {"iso-ir-58", "GBK"},
    {"x-gbk", "GBK"},
    {"gb18030", "gb18030"},
    {"big5", "Big5"}, {"big5-hkscs", "Big5"}, {"cn-big5", "Big5"}, {"csbig5", "Big5"},
    {"x-x-big5", "Big5"},
    {"cseucpkdfmtjapanese", "EUC-JP"}, {"euc-jp", "EUC-JP"}, {"x-euc-jp", "EUC-JP"},
    {"csiso2022jp", "ISO-2022-JP"}, {"iso-2022-jp", "ISO-2022-JP"},
    {"csshiftjis", "Shift_JIS"}, {"ms932", "Shift_JIS"}, {"ms_kanji", "Shift_JIS"},
    {"shift-jis", "Shift_JIS"}, {"shift_jis", "Shift_JIS"}, {"sjis", "Shift_JIS"},
    {"windows-31j", "Shift_JIS"}, {"x-sjis", "Shift_JIS"},
    {"cseuckr", "EUC-KR"}, {"csksc56011987", "EUC-KR"}, {"euc-kr", "EUC-KR"},
    {"iso-ir-149", "EUC-KR"}, {"korean", "EUC-KR"}, {"ks_c_5601-1987", "EUC-KR"},
    {"ks_c_5601-1989", "EUC-KR"}, {"ksc5601", "EUC-KR"}, {"ksc_5601", "EUC-KR"},
    {"windows-949", "EUC-KR"},
    {"csiso2022kr", "replacement"}, {"hz-gb-2312", "replacement"}, {"iso-2022-cn", "replacement"},
    {"iso-2022-cn-ext", "replacement"}, {"iso-2022-kr", "replacement"},
    {"replacement", "replacement"},
    {"unicodefffe", "UTF-16BE"}, {"utf-16be", "UTF-16BE"},
    {"csunicode", "UTF-16LE"}, {"iso-10646-ucs-2", "UTF-16LE"}, {"ucs-2", "UTF-16LE"},
    {"unicode", "UTF-16LE"}, {"unicodefeff", "UTF-16LE"}, {"utf-16", "UTF-16LE"},
    {"utf-16le", "UTF-16LE"},
    {"x-user-defined", "x-user-defined"},
    // clang-format on
};

constexpr auto sorted_labels = [] {
    auto a = std::to_array(label_table);
    std::sort(a.begin(), a.end(),
              [](const label_entry& x, const label_entry& y) { return x.label < y.label; });
    return a;
}();

constexpr std::size_t longest_label = [] {
    std::size_t n = 0;
    for (const auto& e : label_table) n = std::max(n, e.label.size());
    return n;
}();

static_assert(std::adjacent_find(sorted_labels.begin(), sorted_labels.end(),
                                 [](const label_entry& x, const label_entry& y) {
                                     return x.label == y.label;
                                 }) == sorted_labels.end(),
              "a label names two encodings");

// Infra "ASCII whitespace": TAB, LF, FF, CR, SPACE (not VT).
constexpr bool is_ascii_ws(char c) noexcept {
    return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ';
}
using ascii::lower;

std::string_view trim_ascii_ws(std::string_view s) noexcept {
    while (!s.empty() && is_ascii_ws(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_ascii_ws(s.back())) s.remove_suffix(1);
    return s;
}

// Where a label was found: the encoding, and the label's octets inside the scanned body.
struct label_hit {
    std::string_view name;
    std::size_t offset = 0;
    std::size_t length = 0;
};

// A found label: trims it and looks it up; `offset` is where `raw` starts in the body.
std::optional<label_hit> lookup(std::string_view raw, std::size_t offset) {
    std::string_view t = trim_ascii_ws(raw);
    std::string_view name = encoding_for_label(t);
    if (name.empty()) return std::nullopt;
    return label_hit{name, offset + static_cast<std::size_t>(t.data() - raw.data()), t.size()};
}

// HTML "algorithm for extracting a character encoding from a meta element", run on
// `s` (a `content` value). Gives the label's position inside `s` with the encoding, or nothing
// if there is no `charset=` or its label is unknown.
std::optional<label_hit> charset_in_content(std::string_view s) {
    std::size_t pos = 0;
    for (;;) {
        std::size_t k = pos;
        while (k + 7 <= s.size() && !ascii::istarts_with(s.substr(k), "charset")) ++k;
        if (k + 7 > s.size()) return std::nullopt;
        std::size_t i = k + 7;
        while (i < s.size() && is_ascii_ws(s[i])) ++i;
        if (i == s.size()) return std::nullopt;
        if (s[i] != '=') {
            pos = i;  // search again from the character after "charset" and its white space
            continue;
        }
        ++i;
        while (i < s.size() && is_ascii_ws(s[i])) ++i;
        if (i == s.size()) return std::nullopt;
        if (s[i] == '"' || s[i] == '\'') {
            std::size_t close = s.find(s[i], i + 1);
            if (close == std::string_view::npos) return std::nullopt;  // unmatched quote: nothing
            return lookup(s.substr(i + 1, close - i - 1), i + 1);
        }
        std::size_t end = i;
        while (end < s.size() && !is_ascii_ws(s[end]) && s[end] != ';') ++end;
        return lookup(s.substr(i, end - i), i);
    }
}

// What a <meta> start tag declares (Chromium's reading, which is the standard's "algorithm
// for extracting a character encoding from a meta element" with a `charset` attribute
// winning over `content` wherever it stands): the encoding and where its label is, or
// nothing (then the search goes on).
std::optional<label_hit> meta_declaration(const tokenizer& tokens, const token& t) {
    bool got_pragma = false;
    std::optional<label_hit> from_content;
    for (const attribute_view& a : t.attributes) {
        std::string_view raw = tokens.value(a);
        std::string decoded;
        if (raw.find('&') != std::string_view::npos) {  // a character reference in the value
            decoded = decode_attribute_value(raw);
            raw = decoded;
        }
        if (ascii::iequals(a.name, "http-equiv")) {
            if (ascii::iequals(raw, "content-type")) got_pragma = true;
        } else if (ascii::iequals(a.name, "charset")) {
            // The label's offset is that of the raw value when references were decoded.
            auto hit = lookup(raw, a.value_offset);
            if (hit && !decoded.empty()) hit->offset = a.value_offset;
            return hit;
        } else if (ascii::iequals(a.name, "content") && !from_content) {
            from_content = charset_in_content(raw);
            if (from_content && decoded.empty())
                from_content->offset += a.value_offset;
            else if (from_content)
                from_content->offset = a.value_offset;
        }
    }
    if (from_content && got_pragma) return from_content;
    return std::nullopt;
}

// The elements that may stand in <head>: the search for a <meta> goes on past
// `prescan_length` octets while only these (and the <html> and <head> start tags) are seen.
bool keeps_head_open(const token& t) {
    static constexpr std::string_view head_elements[] = {"script", "noscript", "style", "link",
                                                         "meta",   "object",   "title", "base"};
    if (std::find(std::begin(head_elements), std::end(head_elements), t.name) !=
        std::end(head_elements))
        return true;
    return t.type == token_type::start_tag && (t.name == "html" || t.name == "head");
}

// The search for a <meta> that declares an encoding, with the one tokenizer: raw text and
// comments hide what looks like a <meta>, as in the browser.
std::optional<label_hit> find_meta_charset(std::string_view html) {
    tokenizer tokens(html);
    token t;
    bool in_head = true;
    while (tokens.next(t)) {
        if (t.type == token_type::start_tag || t.type == token_type::end_tag) {
            if (t.type == token_type::start_tag && t.name == "meta") {
                if (auto hit = meta_declaration(tokens, t)) {
                    // The meta was read as ASCII, so the document cannot be UTF-16.
                    if (hit->name == "UTF-16LE" || hit->name == "UTF-16BE") hit->name = "UTF-8";
                    if (hit->name == "x-user-defined") hit->name = "windows-1252";
                    return hit;
                }
            }
            if (!keeps_head_open(t)) in_head = false;
        }
        if (!in_head && t.end >= prescan_length) return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace

std::string_view encoding_for_label(std::string_view label) noexcept {
    label = trim_ascii_ws(label);
    if (label.empty() || label.size() > longest_label) return {};
    std::array<char, longest_label> buf{};
    for (std::size_t i = 0; i < label.size(); ++i) buf[i] = lower(label[i]);
    std::string_view key(buf.data(), label.size());
    auto it =
        std::lower_bound(sorted_labels.begin(), sorted_labels.end(), key,
                         [](const label_entry& e, std::string_view k) { return e.label < k; });
    if (it == sorted_labels.end() || it->label != key) return {};
    return it->name;
}

namespace {

// A byte order mark (Encoding Standard "BOM sniff"), else the transport charset when it is
// a label: the first two steps of both HTML's and XML's rules. True when one decided.
bool bom_or_transport(std::string_view content_type_charset, std::string_view bytes,
                      detected_charset& r) {
    for (const auto& [octets, name] :
         {std::pair<std::string_view, std::string_view>{"\xEF\xBB\xBF", "UTF-8"},
          {"\xFE\xFF", "UTF-16BE"},
          {"\xFF\xFE", "UTF-16LE"}}) {
        if (bytes.starts_with(octets)) {
            r.name = name;
            r.source = charset_source::bom;
            r.bom_length = octets.size();
            return true;
        }
    }
    if (std::string_view name = encoding_for_label(content_type_charset); !name.empty()) {
        r.name = name;
        r.source = charset_source::content_type;
        r.label = content_type_charset;
        return true;
    }
    return false;
}

}  // namespace

namespace {

// The XML declaration at the very start of `bytes` (ASCII-compatible octets): the range of
// its encoding pseudo-attribute's value, or {npos, 0} when there is no declaration or no
// encoding in it. XML 1.0 §2.8 and §4.3.3: `<?xml` S ... `encoding` Eq quoted-name ... `?>`.
std::pair<std::size_t, std::size_t> xml_encoding_range(std::string_view bytes) {
    constexpr std::pair<std::size_t, std::size_t> none{std::string_view::npos, 0};
    if (!bytes.starts_with("<?xml") || bytes.size() < 6 || !ascii::is_html_space(bytes[5]))
        return none;
    const std::size_t end = bytes.find("?>");
    if (end == std::string_view::npos) return none;
    const std::string_view decl = bytes.substr(0, end);
    std::size_t at = decl.find("encoding");
    if (at == std::string_view::npos || !ascii::is_html_space(decl[at - 1])) return none;
    std::size_t i = at + 8;
    while (i < decl.size() && ascii::is_html_space(decl[i])) ++i;
    if (i >= decl.size() || decl[i] != '=') return none;
    ++i;
    while (i < decl.size() && ascii::is_html_space(decl[i])) ++i;
    if (i >= decl.size() || (decl[i] != '"' && decl[i] != '\'')) return none;
    const std::size_t close = decl.find(decl[i], i + 1);
    if (close == std::string_view::npos) return none;
    return {i + 1, close - i - 1};
}

}  // namespace

detected_charset detect_xml_charset(std::string_view content_type_charset, std::string_view bytes) {
    detected_charset r;
    if (bom_or_transport(content_type_charset, bytes, r)) return r;
    if (bytes.starts_with(std::string_view("<\0?\0", 4)) ||
        bytes.starts_with(std::string_view("\0<\0?", 4))) {
        r.name = bytes[0] == '<' ? "UTF-16LE" : "UTF-16BE";
        r.source = charset_source::xml_declaration;
        return r;
    }
    if (auto [at, length] = xml_encoding_range(bytes); at != std::string_view::npos) {
        std::string_view label = bytes.substr(at, length);
        std::string_view name = encoding_for_label(label);
        // A declaration naming UTF-16 in octets read as ASCII is not UTF-16 (as for <meta>).
        if (name == "UTF-16LE" || name == "UTF-16BE") name = "UTF-8";
        if (!name.empty()) {
            r.name = name;
            r.source = charset_source::xml_declaration;
            r.label = label;
            r.label_offset = at;
            return r;
        }
    }
    r.name = "UTF-8";
    r.source = charset_source::fallback;
    return r;
}

bool declare_xml_utf8(std::string& xml) {
    std::size_t bom = xml.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    auto [at, length] = xml_encoding_range(std::string_view(xml).substr(bom));
    if (at == std::string_view::npos) return false;
    if (encoding_for_label(std::string_view(xml).substr(bom + at, length)) == "UTF-8") return false;
    xml.replace(bom + at, length, "UTF-8");
    return true;
}

detected_charset detect_charset(std::string_view content_type_charset, std::string_view bytes) {
    detected_charset r;
    // HTML §13.2.3.2 step 1, Encoding Standard "BOM sniff", then step 3: the transport
    // layer's charset when it is a label (an unknown one is ignored).
    if (bom_or_transport(content_type_charset, bytes, r)) return r;
    // Step 5: the prescan.
    // "Prescan for UTF-16 XML declarations": `<?x` in UTF-16 without a BOM.
    if (bytes.starts_with(std::string_view("<\0?\0x\0", 6)) ||
        bytes.starts_with(std::string_view("\0<\0?\0x", 6))) {
        r.name = bytes[0] == '<' ? "UTF-16LE" : "UTF-16BE";
        r.source = charset_source::xml_declaration;
        return r;
    }
    if (auto hit = find_meta_charset(bytes)) {
        r.name = hit->name;
        r.source = charset_source::meta;
        r.label = bytes.substr(hit->offset, hit->length);
        r.label_offset = hit->offset;
        return r;
    }
    // Step 8: the implementation-defined default; see the header.
    r.name = "windows-1252";
    r.source = charset_source::fallback;
    return r;
}

}  // namespace mhtml::html
