/// RFC 2047 encoded-words ("=?charset?B?...?=", "=?charset*lang?Q?...?=", RFC 2231 §5).
///
/// Recognition follows what Python's email package and GMime accept in practice rather
/// than the letter of RFC 2047 §5, and every decision below is local and linear:
///
/// * An encoded-word is recognised anywhere in the value, also when it is not separated
///   from the surrounding text by white space (`foo=?utf-8?q?bar?=`, GMime's lenient mode,
///   Python's unstructured parser). Such a word is decoded and not reported as malformed.
/// * The charset is one or more characters other than white space, CTLs, 8-bit octets and
///   the RFC 2047 §2 especials `?=()<>@,;"/[]\`; `.`, `:` and `*` are allowed so that
///   "ANSI_X3.4-1968", "ISO_8859-1:1987" and RFC 2231 §5 "charset*language" read.
/// * The encoded text runs to the first `?`, which must be followed by `=`. A `?` inside
///   the text is not allowed (neither RFC 2047 §4.2 nor Python accepts it), so a word with
///   a missing `?=` never swallows the next word.
/// * Q text containing white space is not an encoded-word per RFC 2047 §5, but Python's
///   email (which unfolds the header first and only records a defect) and most mail readers
///   decode it, and so do we: SP and HTAB are kept as they are, CR and LF (folding inside
///   a word) are dropped. B text ignores all white space. Such a word is not malformed.
/// * B text is decoded leniently like Python: characters outside the base64 alphabet are
///   skipped, missing padding is accepted, and `=` ends a quantum (so concatenated padded
///   pieces "QQ==QQ==" decode). Only a quantum with a single leftover sextet cannot be
///   decoded at all; the word is then malformed and kept literally.
/// * "Looked like an encoded-word" (the `malformed` flag) means `=?`, a charset and a `?`
///   (or `=??X?` with an empty charset): stray "=?" in ordinary text ("x=?y") is not
///   reported.
///
/// Hostile input stays linear: each attempt at a "=?" scans at most to the fourth `?`
/// after it, so every octet is visited a bounded number of times.

#include "mhtml/mime/rfc2047.hpp"

#include "mhtml/ascii.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "mhtml/mime/charset.hpp"

namespace mhtml::mime {
namespace {

constexpr std::size_t max_word_length = 75;  // RFC 2047 §2
constexpr std::size_t max_line_length = 76;  // RFC 2047 §2, lines holding encoded-words
constexpr std::string_view fold = "\r\n ";
constexpr std::string_view unknown_8bit = "UNKNOWN-8BIT";  // RFC 1428

bool is_wsp(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/// A character of the charset (and language) part of an encoded-word, RFC 2047 §2 `token`
/// minus the especials, but with `.` and `:` allowed (see the file comment) and `*`.
bool is_charset_char(char ch) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7F) return false;
    switch (c) {
        case '?':
        case '=':
        case '(':
        case ')':
        case '<':
        case '>':
        case '@':
        case ',':
        case ';':
        case '"':
        case '/':
        case '[':
        case ']':
        case '\\':
            return false;
        default:
            return true;
    }
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/// RFC 2047 §4.2 Q decoding: "_" is 0x20, "=XX" (either case of hex) is an octet. A "="
/// not followed by two hex digits is kept as it is (Python does the same); CR and LF are
/// folding inside the word and are dropped.
std::string decode_q(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '_') {
            out.push_back(' ');
        } else if (c == '=' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
                   hex_value(text[i + 2]) >= 0) {
            out.push_back(static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
            i += 2;
        } else if (c != '\r' && c != '\n') {
            out.push_back(c);
        }
    }
    return out;
}

/// RFC 2047 §4.1 B decoding (RFC 2045 §6.8 alphabet), lenient as described in the file
/// comment. nullopt if a quantum is left with a single sextet (not decodable).
std::optional<std::string> decode_b(std::string_view text) {
    std::string out;
    out.reserve(text.size() / 4 * 3 + 3);
    std::uint32_t bits = 0;
    int count = 0;
    const auto flush = [&]() {
        if (count == 1) return false;
        if (count == 2) out.push_back(static_cast<char>((bits >> 4) & 0xFF));
        if (count == 3) {
            out.push_back(static_cast<char>((bits >> 10) & 0xFF));
            out.push_back(static_cast<char>((bits >> 2) & 0xFF));
        }
        bits = 0;
        count = 0;
        return true;
    };
    for (const char c : text) {
        const int v = base64_value(c);
        if (v >= 0) {
            bits = (bits << 6) | static_cast<std::uint32_t>(v);
            if (++count == 4) {
                out.push_back(static_cast<char>((bits >> 16) & 0xFF));
                out.push_back(static_cast<char>((bits >> 8) & 0xFF));
                out.push_back(static_cast<char>(bits & 0xFF));
                bits = 0;
                count = 0;
            }
        } else if (c == '=') {
            if (!flush()) return std::nullopt;
        }
        // Anything else (white space, characters outside the alphabet) is skipped.
    }
    if (!flush()) return std::nullopt;
    return out;
}

enum class parse_status { ok, not_a_word, malformed };

struct parsed_word {
    std::string_view charset;
    std::string_view language;
    char encoding = 0;
    std::string_view text;
    std::size_t end = 0;  // offset just past "?="
};

/// Parses the encoded-word syntax (RFC 2047 §2, RFC 2231 §5) at `p`, where value[p..] is
/// "=?". Scans at most to the fourth "?" after `p`.
parse_status parse_word(std::string_view v, std::size_t p, parsed_word& w) {
    std::size_t i = p + 2;
    while (i < v.size() && is_charset_char(v[i])) ++i;
    if (i >= v.size() || v[i] != '?') return parse_status::not_a_word;
    const std::string_view spec = v.substr(p + 2, i - (p + 2));
    const std::size_t q1 = i;
    const bool has_encoding_shape = q1 + 2 < v.size() && v[q1 + 1] != '?' && v[q1 + 2] == '?';
    // "=??" is only taken for an (empty-charset) encoded-word when "=??X?" follows.
    if (spec.empty() && !has_encoding_shape) return parse_status::not_a_word;
    if (!has_encoding_shape) return parse_status::malformed;
    const char enc = v[q1 + 1];
    if (enc != 'Q' && enc != 'q' && enc != 'B' && enc != 'b') return parse_status::malformed;
    const std::size_t text_begin = q1 + 3;
    std::size_t j = text_begin;
    while (j < v.size() && v[j] != '?') ++j;
    if (j + 1 >= v.size() || v[j + 1] != '=') return parse_status::malformed;
    const std::size_t star = spec.find('*');
    w.charset = spec.substr(0, star);
    w.language = star == std::string_view::npos ? std::string_view{} : spec.substr(star + 1);
    if (w.charset.empty()) return parse_status::malformed;
    w.encoding = enc;
    w.text = v.substr(text_begin, j - text_begin);
    w.end = j + 2;
    return parse_status::ok;
}

bool all_wsp(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return is_wsp(c); });
}

using ascii::iequals;

/// Whether two words' charsets name the same charset ("utf-8" and "UTF8" do).
bool same_charset(std::string_view a, std::string_view b) {
    if (iequals(a, b)) return true;
    const auto ca = canonical_charset(a);
    const auto cb = canonical_charset(b);
    return ca && cb && *ca == *cb;
}

/// Display form of literal header text: kept if it is UTF-8 (RFC 6532), otherwise read as
/// windows-1252, what mail readers fall back to for raw 8-bit header octets.
void append_literal_utf8(std::string& out, std::string_view text) {
    const auto as_utf8 = to_utf8(text, "UTF-8");
    if (as_utf8 && *as_utf8 == text) {
        out.append(text);
    } else {
        out.append(to_utf8(text, "WINDOWS-1252").value_or(std::string{}));
    }
}

// ---------------------------------------------------------------------------------------
// Encoding.

/// How a word is encoded: B, Q safe in a `phrase`, or Q for a URI in Content-Location.
enum class coding { b, q_phrase, q_uri };

/// Octets that stand for themselves in Q text. In a `phrase` (RFC 2047 §5 (3)): letters,
/// digits, "!", "*", "+", "-", "/". For a URI (MHTML draft §4.4.1 b, REQUIREMENTS
/// MHT-4.4.1.12): every printable ASCII octet except "=", "?", "_", '"' and "\\", so that
/// the URI stays readable; SPACE is written =20, never "_".
bool q_literal(unsigned char c, coding k) {
    if (k == coding::q_uri)
        return c > 0x20 && c < 0x7F && c != '=' && c != '?' && c != '_' && c != '"' && c != '\\';
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '!' ||
           c == '*' || c == '+' || c == '-' || c == '/';
}

std::size_t q_cost(unsigned char c, coding k) {
    return q_literal(c, k) || (c == ' ' && k == coding::q_phrase) ? 1 : 3;
}

std::size_t q_cost(std::string_view s, coding k) {
    std::size_t n = 0;
    for (const char c : s) n += q_cost(static_cast<unsigned char>(c), k);
    return n;
}

std::size_t b_cost(std::size_t octets) {
    return (octets + 2) / 3 * 4;
}

std::size_t cost(std::string_view s, coding k) {
    return k != coding::b ? q_cost(s, k) : b_cost(s.size());
}

void append_q(std::string& out, std::string_view s, coding k) {
    static constexpr char hex[] = "0123456789ABCDEF";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == ' ' && k == coding::q_phrase) {
            out.push_back('_');
        } else if (q_literal(c, k)) {
            out.push_back(ch);
        } else {
            out.push_back('=');
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 0xF]);
        }
    }
}

void append_b(std::string& out, std::string_view s) {
    static constexpr char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const auto octet = [&](std::size_t i) -> std::uint32_t {
        return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
    };
    for (std::size_t i = 0; i < s.size(); i += 3) {
        const std::uint32_t v = octet(i) << 16 | octet(i + 1) << 8 | octet(i + 2);
        out.push_back(alphabet[(v >> 18) & 63]);
        out.push_back(alphabet[(v >> 12) & 63]);
        out.push_back(i + 1 < s.size() ? alphabet[(v >> 6) & 63] : '=');
        out.push_back(i + 2 < s.size() ? alphabet[v & 63] : '=');
    }
}

/// Room, in encoded-text characters, for each word: the first shares its line with the
/// field name (`first_line_used` columns), the others follow CRLF SP.
struct word_room {
    std::size_t first = 0;
    std::size_t other = 0;
};

/// Charsets whose octets depend on a shift state (ISO-2022-JP and friends, UTF-7, HZ).
/// RFC 1468 and RFC 2047 §5 want each encoded-word to be self-contained, so these are
/// split by re-encoding each word's characters, not by cutting the octets.
bool is_stateful(const std::string& canon) {
    return canon.rfind("ISO-2022-", 0) == 0 || canon.rfind("CSISO2022", 0) == 0 ||
           canon == "UTF-7" || canon == "UTF7" || canon.rfind("HZ", 0) == 0;
}

/// Result of packing: the octets of each word, and whether the first word had to go on a
/// line of its own (the value then starts with CRLF SP).
struct packing {
    std::vector<std::string> words;
    bool leading_fold = false;
};

/// Greedy packing of characters (lengths in `units`) into words of at most the room,
/// never splitting a character. A character too big for any word gets a word of its own.
packing pack_octets(std::string_view octets, const std::vector<std::size_t>& units, coding k,
                    word_room room) {
    const bool q = k != coding::b;
    packing p;
    std::size_t pos = 0;
    std::size_t u = 0;
    while (u < units.size()) {
        const bool first = p.words.empty() && !p.leading_fold;
        std::size_t limit = first ? room.first : room.other;
        if (first && room.first < room.other &&
            cost(octets.substr(pos, units[u]), k) > room.first &&
            cost(octets.substr(pos, units[u]), k) <= room.other) {
            p.leading_fold = true;
            limit = room.other;
        }
        const std::size_t start = pos;
        std::size_t used = 0;  // Q cost so far
        while (u < units.size()) {
            const std::string_view unit = octets.substr(pos, units[u]);
            const std::size_t next = q ? used + q_cost(unit, k) : b_cost(pos - start + unit.size());
            if (next > limit && pos != start) break;
            used = q ? next : 0;
            pos += unit.size();
            ++u;
            if (next > limit) break;  // an oversized character alone
        }
        p.words.emplace_back(octets.substr(start, pos - start));
    }
    return p;
}

/// Packing for stateful charsets: the text is decoded, split into characters, and each
/// word's characters are encoded again on their own so that every word starts and ends in
/// the initial shift state. nullopt if the octets do not convert cleanly both ways (the
/// caller then falls back to cutting the octets on character boundaries).
std::optional<packing> pack_reencoded(std::string_view octets, const std::string& canon, coding how,
                                      word_room room) {
    const auto text = to_utf8(octets, canon);
    if (!text || text->find("\xEF\xBF\xBD") != std::string::npos) return std::nullopt;
    const auto chars = character_lengths(*text, "UTF-8");
    if (!chars) return std::nullopt;
    packing p;
    std::size_t pos = 0;
    std::size_t c = 0;
    // A word rarely holds more than 75 characters; the bound keeps the re-encoding of
    // ever longer candidates (quadratic in the word) cheap even for odd charsets.
    constexpr std::size_t max_chars_per_word = 128;
    while (c < chars->size()) {
        const bool first = p.words.empty() && !p.leading_fold;
        std::size_t limit = first ? room.first : room.other;
        std::optional<std::string> best;
        std::size_t best_end = pos;
        std::size_t k = c;
        std::size_t end = pos;
        while (k < chars->size() && k - c < max_chars_per_word) {
            end += (*chars)[k];
            auto candidate = from_utf8(std::string_view(*text).substr(pos, end - pos), canon);
            if (!candidate) return std::nullopt;
            const std::size_t n = cost(*candidate, how);
            if (n > limit) {
                if (!best && first && limit < room.other && n <= room.other) {
                    // The first character does not fit after the field name: start the
                    // value on a fresh line and try again with the full room.
                    p.leading_fold = true;
                    limit = room.other;
                } else {
                    if (!best) {  // an oversized character alone
                        best = std::move(candidate);
                        best_end = end;
                        ++k;
                    }
                    break;
                }
            }
            best = std::move(candidate);
            best_end = end;
            ++k;
        }
        p.words.push_back(std::move(*best));
        pos = best_end;
        c = k;
    }
    return p;
}

/// The charset label as it will be written: trimmed of white space and quotes; a label
/// that could not be read back as an encoded-word's charset becomes UNKNOWN-8BIT.
std::string word_label(std::string_view charset) {
    std::string_view s = charset;
    const auto trim = [&]() {
        while (!s.empty() && is_wsp(s.front())) s.remove_prefix(1);
        while (!s.empty() && is_wsp(s.back())) s.remove_suffix(1);
    };
    trim();
    while (s.size() >= 2 &&
           ((s.front() == '"' && s.back() == '"') || (s.front() == '\'' && s.back() == '\''))) {
        s = s.substr(1, s.size() - 2);
        trim();
    }
    const bool ok = !s.empty() && s.front() != '*' &&
                    std::all_of(s.begin(), s.end(), [](char c) { return is_charset_char(c); });
    return std::string(ok ? s : unknown_8bit);
}

}  // namespace

rfc2047_result decode_words(std::string_view value) {
    rfc2047_result result;
    std::size_t literal_begin = 0;
    std::size_t i = 0;
    for (;;) {
        const std::size_t p = value.find("=?", i);
        if (p == std::string_view::npos) break;
        parsed_word w;
        const parse_status st = parse_word(value, p, w);
        std::optional<std::string> octets;
        if (st == parse_status::ok) {
            if (w.encoding == 'Q' || w.encoding == 'q') {
                octets = decode_q(w.text);
            } else {
                octets = decode_b(w.text);
            }
        }
        if (!octets) {
            if (st != parse_status::not_a_word) result.malformed = true;
            i = p + 1;  // value[p + 1] is '?', so the next "=?" starts later
            continue;
        }
        const std::string_view literal = value.substr(literal_begin, p - literal_begin);
        const bool after_word = !result.segments.empty() && result.segments.back().encoded;
        // §6.2: white space between adjacent encoded-words is not displayed.
        if (!literal.empty() && !(after_word && all_wsp(literal))) {
            rfc2047_segment seg;
            seg.octets = std::string(literal);
            seg.offset = literal_begin;
            result.segments.push_back(std::move(seg));
        }
        rfc2047_segment seg;
        seg.encoded = true;
        seg.charset = std::string(w.charset);
        seg.language = std::string(w.language);
        seg.octets = std::move(*octets);
        seg.offset = p;
        if (!charset_known(w.charset)) result.unknown_charset = true;
        result.segments.push_back(std::move(seg));
        i = literal_begin = w.end;
    }
    if (literal_begin < value.size()) {
        rfc2047_segment seg;
        seg.octets = std::string(value.substr(literal_begin));
        seg.offset = literal_begin;
        result.segments.push_back(std::move(seg));
    }
    return result;
}

std::string decode_to_utf8(std::string_view value, bool* malformed) {
    const rfc2047_result r = decode_words(value);
    if (malformed != nullptr) *malformed = r.malformed;
    std::string out;
    out.reserve(value.size());
    const auto& segs = r.segments;
    for (std::size_t i = 0; i < segs.size();) {
        if (!segs[i].encoded) {
            append_literal_utf8(out, segs[i].octets);
            ++i;
            continue;
        }
        // Consecutive words in one charset are converted together, so that a multi-octet
        // character split between two words (which §5 forbids, but encoders do) survives.
        std::string joined = segs[i].octets;
        std::size_t j = i + 1;
        while (j < segs.size() && segs[j].encoded &&
               same_charset(segs[j].charset, segs[i].charset)) {
            joined += segs[j].octets;
            ++j;
        }
        auto text = to_utf8(joined, segs[i].charset);
        if (!text) text = to_utf8(joined, "WINDOWS-1252");  // unknown charset
        out += text.value_or(std::string{});
        i = j;
    }
    return out;
}

std::string decode_to_octets(std::string_view value) {
    const rfc2047_result r = decode_words(value);
    std::string out;
    out.reserve(value.size());
    for (const auto& seg : r.segments) out += seg.octets;
    return out;
}

std::string encode_words(std::string_view octets, std::string_view charset, rfc2047_encoding enc,
                         std::size_t first_line_used) {
    if (octets.empty()) return {};
    const std::string label = word_label(charset);
    const std::string_view charset_part = std::string_view(label).substr(0, label.find('*'));
    const auto canon = canonical_charset(charset_part);

    coding k = enc == rfc2047_encoding::q       ? coding::q_phrase
               : enc == rfc2047_encoding::q_uri ? coding::q_uri
                                                : coding::b;
    if (enc == rfc2047_encoding::shortest)
        k = q_cost(octets, coding::q_phrase) <= b_cost(octets.size()) ? coding::q_phrase
                                                                      : coding::b;
    const bool q = k != coding::b;

    std::string prefix = "=?" + label + (q ? "?Q?" : "?B?");
    const std::size_t overhead = prefix.size() + 2;  // and the closing "?="
    const auto room_for = [&](std::size_t line_width) {
        return line_width > overhead ? line_width - overhead : 0;
    };
    word_room room;
    room.other = room_for(max_word_length);
    room.first = first_line_used >= max_line_length
                     ? 0
                     : room_for(std::min(max_word_length, max_line_length - first_line_used));

    // Where the words may be cut (RFC 2047 §5: only between characters):
    //  * UTF-8: between UTF-8 sequences (an ill-formed octet is a character of its own);
    //  * stateful charsets (ISO-2022-*, UTF-7): each word re-encoded on its own;
    //  * other charsets iconv knows, single- or multi-byte (Shift_JIS, GB18030, Big5,
    //    EUC-*): between the characters iconv reads, so the octets are kept exactly;
    //  * charsets iconv does not know: between any two octets, the only thing possible
    //    without knowing the charset (UNKNOWN-8BIT maps to windows-1252, one octet per
    //    character, so it is cut between any two octets too).
    std::optional<packing> packed;
    if (canon && *canon != "UTF-8" && is_stateful(*canon) && charset_known(*canon)) {
        packed = pack_reencoded(octets, *canon, k, room);
    }
    if (!packed) {
        std::optional<std::vector<std::size_t>> units;
        if (canon) units = character_lengths(octets, *canon);
        if (!units) units.emplace(octets.size(), 1);
        packed = pack_octets(octets, *units, k, room);
    }

    std::string out;
    if (packed->leading_fold) out += fold;
    for (std::size_t w = 0; w < packed->words.size(); ++w) {
        if (w != 0) out += fold;
        out += prefix;
        if (q) {
            append_q(out, packed->words[w], k);
        } else {
            append_b(out, packed->words[w]);
        }
        out += "?=";
    }
    return out;
}

}  // namespace mhtml::mime
