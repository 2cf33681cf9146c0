// WHATWG HTML §13.2.3.2 "determining the character encoding", with its "prescan a byte
// stream to determine its encoding" and the "algorithm for extracting a character encoding
// from a meta element", and the label table of the WHATWG Encoding Standard (§4.2 "names and
// labels"). The prescan works on octets, never decodes, and never reads past
// `prescan_length`; running out of octets inside a comment, tag or attribute ends it with
// nothing found (an element cut short is not used).
#include "mhtml/html/charset.hpp"

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
constexpr bool is_ascii_upper(char c) noexcept {
    return c >= 'A' && c <= 'Z';
}
constexpr bool is_ascii_alpha(char c) noexcept {
    return is_ascii_upper(c) || (c >= 'a' && c <= 'z');
}
constexpr char ascii_lower(char c) noexcept {
    return is_ascii_upper(c) ? static_cast<char>(c + 32) : c;
}

std::string_view trim_ascii_ws(std::string_view s) noexcept {
    while (!s.empty() && is_ascii_ws(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_ascii_ws(s.back())) s.remove_suffix(1);
    return s;
}

bool starts_with_ascii_ci(std::string_view s, std::string_view lower_prefix) noexcept {
    if (s.size() < lower_prefix.size()) return false;
    for (std::size_t i = 0; i < lower_prefix.size(); ++i)
        if (ascii_lower(s[i]) != lower_prefix[i]) return false;
    return true;
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
        while (k + 7 <= s.size() && !starts_with_ascii_ci(s.substr(k), "charset")) ++k;
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

// The prescan over at most `prescan_length` octets. Names follow the standard's steps.
class prescanner {
public:
    explicit prescanner(std::string_view in)
        : in_(in.substr(0, std::min(in.size(), prescan_length))) {}

    enum class outcome { meta, xml_declaration, none };
    outcome run();
    label_hit found() const noexcept { return found_; }

private:
    enum class got { attribute, none, end_of_input };
    struct attribute {
        std::string name;              // ASCII lower-cased
        std::string value;             // ASCII lower-cased
        std::size_t value_offset = 0;  // the value's octets are in_[value_offset, +value.size())
    };

    bool at_end() const noexcept { return pos_ >= in_.size(); }
    got get_an_attribute(attribute& a);
    got meta_element();  // `attribute` when a usable declaration ended the prescan
    bool skip_to(std::string_view any_of);

    std::string_view in_;
    std::size_t pos_ = 0;
    label_hit found_;
};

// Moves to the next octet that is one of `any_of`; false if there is none.
bool prescanner::skip_to(std::string_view any_of) {
    std::size_t p = in_.find_first_of(any_of, pos_);
    if (p == std::string_view::npos) return false;
    pos_ = p;
    return true;
}

// HTML §13.2.3.2 prescan, "get an attribute". `end_of_input` when the octets run out first.
prescanner::got prescanner::get_an_attribute(attribute& a) {
    a.name.clear();
    a.value.clear();
    a.value_offset = 0;
    // Step 1: skip white space and '/'.
    while (!at_end() && (is_ascii_ws(in_[pos_]) || in_[pos_] == '/')) ++pos_;
    if (at_end()) return got::end_of_input;
    if (in_[pos_] == '>') return got::none;
    // Name: a '=' only ends it once the name is not empty, so "<meta ==x>" names "=".
    for (;; ++pos_) {
        if (at_end()) return got::end_of_input;
        char c = in_[pos_];
        if (c == '=' && !a.name.empty()) break;
        if (is_ascii_ws(c)) {
            while (!at_end() && is_ascii_ws(in_[pos_])) ++pos_;  // "spaces"
            if (at_end()) return got::end_of_input;
            if (in_[pos_] != '=') return got::attribute;  // a name without a value
            break;
        }
        if (c == '/' || c == '>') return got::attribute;
        a.name += ascii_lower(c);
    }
    ++pos_;  // past '='
    // "value"
    while (!at_end() && is_ascii_ws(in_[pos_])) ++pos_;
    if (at_end()) return got::end_of_input;
    char c = in_[pos_];
    if (c == '"' || c == '\'') {
        a.value_offset = ++pos_;
        for (; !at_end(); ++pos_) {
            if (in_[pos_] == c) {
                ++pos_;
                return got::attribute;
            }
            a.value += ascii_lower(in_[pos_]);
        }
        return got::end_of_input;
    }
    if (c == '>') return got::attribute;  // "name=>": empty value
    a.value_offset = pos_;
    for (; !at_end(); ++pos_) {
        c = in_[pos_];
        if (is_ascii_ws(c) || c == '>') return got::attribute;
        a.value += ascii_lower(c);
    }
    return got::end_of_input;
}

// The `<meta` branch of the prescan, entered with pos_ after "<meta" and its white space or
// '/'. Returns `attribute` if the element declares a known encoding (in found_), `none` if
// the prescan goes on, `end_of_input` if the octets ran out inside the element.
prescanner::got prescanner::meta_element() {
    std::vector<std::string> attribute_list;
    bool got_pragma = false;
    enum class need { unset, yes, no } need_pragma = need::unset;
    enum class state { unset, failure, found } charset = state::unset;
    attribute a;
    for (;;) {
        got g = get_an_attribute(a);
        if (g == got::end_of_input) return g;
        if (g == got::none) break;
        // Only the first attribute of a name counts.
        if (std::find(attribute_list.begin(), attribute_list.end(), a.name) != attribute_list.end())
            continue;
        attribute_list.push_back(a.name);
        if (a.name == "http-equiv") {
            if (a.value == "content-type") got_pragma = true;
        } else if (a.name == "content") {
            // A `content` charset fills only an empty slot; `charset=` overrides it below.
            if (charset == state::unset) {
                if (auto hit = charset_in_content(a.value)) {
                    found_ = {hit->name, a.value_offset + hit->offset, hit->length};
                    charset = state::found;
                    need_pragma = need::yes;
                }
            }
        } else if (a.name == "charset") {
            auto hit = lookup(a.value, a.value_offset);
            charset = hit ? state::found : state::failure;
            if (hit) found_ = *hit;
            need_pragma = need::no;
        }
    }
    // "processing"
    if (need_pragma == need::unset) return got::none;
    if (need_pragma == need::yes && !got_pragma) return got::none;  // content= without http-equiv
    if (charset != state::found) return got::none;
    // The meta was read as ASCII, so the document cannot be UTF-16 (the prescan's rule).
    if (found_.name == "UTF-16LE" || found_.name == "UTF-16BE") found_.name = "UTF-8";
    if (found_.name == "x-user-defined") found_.name = "windows-1252";
    return got::attribute;
}

prescanner::outcome prescanner::run() {
    // "Prescan for UTF-16 XML declarations": `<?x` in UTF-16 without a BOM.
    if (in_.starts_with(std::string_view("<\0?\0x\0", 6))) {
        found_.name = "UTF-16LE";
        return outcome::xml_declaration;
    }
    if (in_.starts_with(std::string_view("\0<\0?\0x", 6))) {
        found_.name = "UTF-16BE";
        return outcome::xml_declaration;
    }
    attribute scratch;
    for (; pos_ < in_.size(); ++pos_) {  // "next byte"
        std::string_view rest = in_.substr(pos_);
        if (rest.starts_with("<!--")) {
            // To a '>' preceded by "--" after the '<': the dashes of "<!--" count, so "<!-->"
            // and "<!--->" are whole comments.
            std::size_t close = in_.find("-->", pos_ + 2);
            if (close == std::string_view::npos) return outcome::none;
            pos_ = close + 2;
        } else if (rest.size() > 5 && starts_with_ascii_ci(rest, "<meta") &&
                   (is_ascii_ws(rest[5]) || rest[5] == '/')) {
            pos_ += 6;
            got g = meta_element();
            if (g == got::end_of_input) return outcome::none;
            if (g == got::attribute) return outcome::meta;
        } else if (rest.size() > 1 && rest[0] == '<' &&
                   (is_ascii_alpha(rest[1]) ||
                    (rest.size() > 2 && rest[1] == '/' && is_ascii_alpha(rest[2])))) {
            // Any other start or end tag: skip its name, then its attributes (so that a '>'
            // inside a quoted value does not end it).
            if (!skip_to("\t\n\f\r >")) return outcome::none;
            got g;
            while ((g = get_an_attribute(scratch)) == got::attribute) {
            }
            if (g == got::end_of_input) return outcome::none;
        } else if (rest.starts_with("<!") || rest.starts_with("</") || rest.starts_with("<?")) {
            ++pos_;
            if (!skip_to(">")) return outcome::none;
        }
    }
    return outcome::none;
}

}  // namespace

std::string_view encoding_for_label(std::string_view label) noexcept {
    label = trim_ascii_ws(label);
    if (label.empty() || label.size() > longest_label) return {};
    std::array<char, longest_label> buf{};
    for (std::size_t i = 0; i < label.size(); ++i) buf[i] = ascii_lower(label[i]);
    std::string_view key(buf.data(), label.size());
    auto it =
        std::lower_bound(sorted_labels.begin(), sorted_labels.end(), key,
                         [](const label_entry& e, std::string_view k) { return e.label < k; });
    if (it == sorted_labels.end() || it->label != key) return {};
    return it->name;
}

detected_charset detect_charset(std::string_view content_type_charset, std::string_view bytes) {
    detected_charset r;
    // HTML §13.2.3.2 step 1, Encoding Standard "BOM sniff": before the transport charset.
    struct bom_entry {
        std::string_view octets;
        std::string_view name;
    };
    for (const bom_entry& b :
         {bom_entry{"\xEF\xBB\xBF", "UTF-8"}, bom_entry{"\xFE\xFF", "UTF-16BE"},
          bom_entry{"\xFF\xFE", "UTF-16LE"}}) {
        if (bytes.starts_with(b.octets)) {
            r.name = b.name;
            r.source = charset_source::bom;
            r.bom_length = b.octets.size();
            return r;
        }
    }
    // Step 3: the transport layer's charset, when it is a label; an unknown one is ignored.
    if (std::string_view name = encoding_for_label(content_type_charset); !name.empty()) {
        r.name = name;
        r.source = charset_source::content_type;
        r.label = content_type_charset;
        return r;
    }
    // Step 5: the prescan.
    prescanner p(bytes);
    switch (p.run()) {
        case prescanner::outcome::meta:
            r.name = p.found().name;
            r.source = charset_source::meta;
            r.label = bytes.substr(p.found().offset, p.found().length);
            r.label_offset = p.found().offset;
            return r;
        case prescanner::outcome::xml_declaration:
            r.name = p.found().name;
            r.source = charset_source::xml_declaration;
            return r;
        case prescanner::outcome::none:
            break;
    }
    // Step 8: the implementation-defined default; see the header.
    r.name = "windows-1252";
    r.source = charset_source::fallback;
    return r;
}

}  // namespace mhtml::html
