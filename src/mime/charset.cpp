/// Charset conversion through glibc iconv (RFC 2047 §3 and RFC 2231 §4 charset names).
///
/// Every conversion is total: it never throws on bad input and never loops. Names are
/// normalised and mapped through the MIME aliases that iconv lacks or reads differently
/// from mail readers (WHATWG Encoding Standard labels), and the iconv_t descriptors are
/// cached per thread because a message converts a charset once per header field.

#include "mhtml/mime/charset.hpp"

#include "mhtml/utf8.hpp"

#include <iconv.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <utility>

namespace mhtml::mime {
namespace {

constexpr std::size_t max_name_length = 64;

/// MIME charset labels that iconv does not know, or knows differently from what mail
/// readers do. Keys are lower case.
struct charset_alias {
    std::string_view label;
    std::string_view iconv_name;
};

constexpr charset_alias aliases[] = {
    // RFC 1428 "unknown-8bit" and its x- form: read as windows-1252 like mail readers do.
    {"unknown-8bit", "WINDOWS-1252"},
    {"x-unknown", "WINDOWS-1252"},
    // US-ASCII with 8-bit octets in it is really windows-1252 (WHATWG maps every ASCII
    // label to windows-1252); the 7-bit octets read the same either way.
    {"us-ascii", "WINDOWS-1252"},
    {"ascii", "WINDOWS-1252"},
    {"ansi_x3.4-1968", "WINDOWS-1252"},
    {"ansi_x3.4-1986", "WINDOWS-1252"},
    {"iso646-us", "WINDOWS-1252"},
    {"iso-ir-6", "WINDOWS-1252"},
    {"cp367", "WINDOWS-1252"},
    {"ibm367", "WINDOWS-1252"},
    {"csascii", "WINDOWS-1252"},
    {"us", "WINDOWS-1252"},
    // RFC 1556 logical/explicit-order Hebrew and Arabic: same octets as the base charset.
    {"iso-8859-8-i", "ISO-8859-8"},
    {"iso-8859-8-e", "ISO-8859-8"},
    {"csiso88598i", "ISO-8859-8"},
    {"csiso88598e", "ISO-8859-8"},
    {"logical", "ISO-8859-8"},
    {"iso-8859-6-i", "ISO-8859-6"},
    {"iso-8859-6-e", "ISO-8859-6"},
    {"csiso88596i", "ISO-8859-6"},
    {"csiso88596e", "ISO-8859-6"},
    // Korean: Microsoft's label, read as its superset CP949 (Unified Hangul Code).
    {"ks_c_5601-1987", "CP949"},
    {"ks_c_5601-1989", "CP949"},
    {"ksc_5601", "CP949"},
    {"ksc5601", "CP949"},
    {"csksc56011987", "CP949"},
    {"iso-ir-149", "CP949"},
    {"korean", "CP949"},
    {"euc-kr", "CP949"},
    {"cseuckr", "CP949"},
    {"windows-949", "CP949"},
    {"x-windows-949", "CP949"},
    // Simplified Chinese: GB2312 and GBK are read as their superset GB18030 (browsers do).
    {"gb2312", "GB18030"},
    {"gb_2312", "GB18030"},
    {"gb_2312-80", "GB18030"},
    {"csgb2312", "GB18030"},
    {"euc-cn", "GB18030"},
    {"x-euc-cn", "GB18030"},
    {"chinese", "GB18030"},
    {"iso-ir-58", "GB18030"},
    {"gbk", "GB18030"},
    {"x-gbk", "GB18030"},
    {"cp936", "GB18030"},
    {"ms936", "GB18030"},
    {"windows-936", "GB18030"},
    // Japanese: Shift_JIS labels are read as CP932 (windows-31j), which maps 0x5C and 0x7E
    // to ASCII and has the NEC/IBM extensions real mail uses.
    {"shift_jis", "CP932"},
    {"shift-jis", "CP932"},
    {"x-sjis", "CP932"},
    {"sjis", "CP932"},
    {"ms_kanji", "CP932"},
    {"csshiftjis", "CP932"},
    {"windows-31j", "CP932"},
    {"x-ms-cp932", "CP932"},
    {"x-euc-jp", "EUC-JP"},
    // Unicode and Latin-1 spellings.
    {"utf8", "UTF-8"},
    {"utf-8", "UTF-8"},
    {"unicode-1-1-utf-8", "UTF-8"},
    {"x-utf8", "UTF-8"},
    {"latin1", "ISO-8859-1"},
    {"l1", "ISO-8859-1"},
    {"x-mac-roman", "MACINTOSH"},
    {"x-mac", "MACINTOSH"},
};

bool is_name_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == ':' || c == '+';
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string_view trim_space(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

using utf8::replacement;
using utf8::valid;

// ---------------------------------------------------------------------------------------
// Per-thread cache of iconv descriptors.

enum class direction : std::uint8_t { to_utf8, from_utf8, to_utf32 };

const iconv_t invalid_cd = reinterpret_cast<iconv_t>(static_cast<std::intptr_t>(-1));

class descriptor_cache {
public:
    descriptor_cache() = default;
    descriptor_cache(const descriptor_cache&) = delete;
    descriptor_cache& operator=(const descriptor_cache&) = delete;
    ~descriptor_cache() {
        for (auto& e : entries_) close(e);
    }

    /// A descriptor reset to its initial state, or invalid_cd if iconv does not know the
    /// charset (cached too, so that a hostile stream of one unknown name stays cheap).
    iconv_t get(const std::string& name, direction dir) {
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            if (entries_[i].dir == dir && entries_[i].name == name) {
                // Move to the front: most recently used first, evicted last.
                std::rotate(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(i),
                            entries_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
                return reset(entries_.front().cd);
            }
        }
        entry e{name, dir, open(name, dir)};
        if (entries_.size() >= capacity) {
            close(entries_.back());
            entries_.pop_back();
        }
        entries_.insert(entries_.begin(), std::move(e));
        return reset(entries_.front().cd);
    }

    static iconv_t open(const std::string& name, direction dir) {
        switch (dir) {
            case direction::to_utf8:
                return iconv_open("UTF-8", name.c_str());
            case direction::from_utf8:
                return iconv_open(name.c_str(), "UTF-8");
            case direction::to_utf32:
                return iconv_open("UTF-32LE", name.c_str());
        }
        return invalid_cd;
    }

private:
    struct entry {
        std::string name;
        direction dir;
        iconv_t cd;
    };
    static constexpr std::size_t capacity = 24;

    static iconv_t reset(iconv_t cd) {
        if (cd != invalid_cd) iconv(cd, nullptr, nullptr, nullptr, nullptr);
        return cd;
    }
    static void close(entry& e) {
        if (e.cd != invalid_cd) iconv_close(e.cd);
        e.cd = invalid_cd;
    }

    std::vector<entry> entries_;
};

/// glibc reads and writes a byte order mark only in the first call on a descriptor of the
/// BOM-aware Unicode charsets ("UTF-16", "UTF-32", "UNICODE"; it counts invocations, and
/// resetting the shift state does not clear that), so a cached descriptor would keep the
/// byte order of the first value it saw. These are rare in mail: open them afresh.
bool needs_fresh_descriptor(const std::string& name) {
    for (const std::string_view key : {"UTF-16", "UTF16", "UTF-32", "UTF32", "UNICODE", "UCS-2",
                                       "UCS2", "UCS-4", "UCS4", "10646"}) {
        if (name.find(key) != std::string::npos) return true;
    }
    return false;
}

/// A descriptor in its initial state, or invalid_cd: borrowed from the per-thread cache, or
/// owned (closed on destruction) for the charsets above.
class descriptor {
public:
    descriptor(const std::string& name, direction dir) {
        if (needs_fresh_descriptor(name)) {
            cd_ = descriptor_cache::open(name, dir);
            owned_ = true;
        } else {
            thread_local descriptor_cache cache;
            cd_ = cache.get(name, dir);
        }
    }
    descriptor(const descriptor&) = delete;
    descriptor& operator=(const descriptor&) = delete;
    ~descriptor() {
        if (owned_ && cd_ != invalid_cd) iconv_close(cd_);
    }
    operator iconv_t() const { return cd_; }

private:
    iconv_t cd_ = invalid_cd;
    bool owned_ = false;
};

/// The octet 0x81, 0x8D, 0x8F, 0x90 or 0x9D that windows-1252 leaves undefined and glibc
/// rejects; the WHATWG Encoding Standard maps each to the C1 control of the same value.
bool cp1252_hole(unsigned char c) {
    return c == 0x81 || c == 0x8D || c == 0x8F || c == 0x90 || c == 0x9D;
}

/// Makes room for at least `need` more octets after `used`.
void reserve_tail(std::string& out, std::size_t used, std::size_t need) {
    if (out.size() - used < need) out.resize(std::max(out.size() * 2, used + need));
}

/// Runs the converter `cd` over `input` into `out` (from its start), growing the buffer as
/// needed, and ends with the call without input that writes what a stateful converter still
/// holds and returns it to its initial state (RFC 1468's final shift for ISO-2022-JP).
/// Where iconv stops on octets it cannot convert, `on_error(in, in_left, out, used)` must
/// consume input and return true, or return false to give up. A failed final flush ends
/// the conversion, successfully unless `flush_must_succeed`.
template <class Converter, class OnError>
bool run_iconv(const Converter& cd, std::string_view input, std::string& out,
               bool flush_must_succeed, OnError on_error) {
    std::size_t used = 0;
    char* in = const_cast<char*>(input.data());  // iconv's prototype is not const-correct
    std::size_t in_left = input.size();
    for (;;) {
        reserve_tail(out, used, 16);
        char* op = out.data() + used;
        std::size_t out_left = out.size() - used;
        const bool flushing = in_left == 0;
        const std::size_t r = !flushing ? iconv(cd, &in, &in_left, &op, &out_left)
                                        : iconv(cd, nullptr, nullptr, &op, &out_left);
        used = static_cast<std::size_t>(op - out.data());
        if (r != static_cast<std::size_t>(-1)) {
            if (flushing) break;
            continue;
        }
        if (errno == E2BIG) {
            out.resize(out.size() * 2);
            continue;
        }
        if (flushing) {
            if (flush_must_succeed) return false;
            break;
        }
        if (!on_error(in, in_left, out, used)) return false;
    }
    out.resize(used);
    return true;
}

}  // namespace

std::optional<std::string> canonical_charset(std::string_view charset) {
    std::string_view s = trim_space(charset);
    while (s.size() >= 2 &&
           ((s.front() == '"' && s.back() == '"') || (s.front() == '\'' && s.back() == '\''))) {
        s = trim_space(s.substr(1, s.size() - 2));
    }
    if (s.empty() || s.size() > max_name_length) return std::nullopt;
    std::string lower(s);
    for (char& c : lower) {
        if (!is_name_char(static_cast<unsigned char>(c))) return std::nullopt;
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    for (const auto& a : aliases) {
        if (a.label == lower) return std::string(a.iconv_name);
    }
    for (char& c : lower) {
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return lower;
}

namespace {

// Octets per code unit of an upper-cased iconv name: 2 for UTF-16 and UCS-2, 4 for UTF-32
// and UCS-4, else 1.
std::size_t code_unit(std::string_view name) {
    for (std::string_view p : {"UTF-16", "UTF16", "UCS-2", "UCS2", "UNICODE"})
        if (name.substr(0, p.size()) == p) return 2;
    for (std::string_view p : {"UTF-32", "UTF32", "UCS-4", "UCS4"})
        if (name.substr(0, p.size()) == p) return 4;
    return 1;
}

}  // namespace

bool charset_known(std::string_view charset) {
    const auto name = canonical_charset(charset);
    if (!name) return false;
    if (*name == "UTF-8") return true;
    const descriptor cd(*name, direction::to_utf8);
    return cd != invalid_cd;
}

std::optional<std::string> to_utf8(std::string_view bytes, std::string_view charset) {
    const auto name = canonical_charset(charset);
    if (!name) return std::nullopt;
    // glibc's UTF-8 decoder lets code points above U+10FFFF through; validate ourselves.
    if (*name == "UTF-8") return utf8::sanitized(bytes);
    const descriptor cd(*name, direction::to_utf8);
    if (cd == invalid_cd) return std::nullopt;
    const bool cp1252 = *name == "WINDOWS-1252";
    // The code unit of the charset: an error skips a whole one, so that a lone surrogate in
    // UTF-16 costs one U+FFFD and not the alignment of everything after it.
    const std::size_t unit = code_unit(*name);

    std::string out(bytes.size() * 2 + 16, '\0');
    run_iconv(cd, bytes, out, false,
              [&](char*& in, std::size_t& in_left, std::string& o, std::size_t& used) {
                  // EILSEQ, EINVAL (truncated sequence at the end) or anything else: one code
                  // unit (one octet but in UTF-16/32) is replaced and skipped, so every error
                  // makes progress.
                  const auto c = static_cast<unsigned char>(*in);
                  reserve_tail(o, used, 4);
                  if (cp1252 && cp1252_hole(c)) {
                      o[used++] = '\xC2';
                      o[used++] = static_cast<char>(c);
                  } else {
                      for (char r8 : replacement) o[used++] = r8;
                  }
                  const std::size_t skip = std::min(unit, in_left);
                  in += skip;
                  in_left -= skip;
                  return true;
              });
    // Defensive: whatever iconv produced, the result is well-formed UTF-8.
    if (!valid(out)) return utf8::sanitized(out);
    return out;
}

std::optional<std::string> from_utf8(std::string_view text, std::string_view charset) {
    const auto name = canonical_charset(charset);
    if (!name) return std::nullopt;
    if (!valid(text)) return std::nullopt;
    if (*name == "UTF-8") return std::string(text);
    const descriptor cd(*name, direction::from_utf8);
    if (cd == invalid_cd) return std::nullopt;
    const bool cp1252 = *name == "WINDOWS-1252";

    std::string out(text.size() + text.size() / 2 + 16, '\0');
    const bool ok =
        run_iconv(cd, text, out, true,
                  [&](char*& in, std::size_t& in_left, std::string& o, std::size_t& used) {
                      // U+0081 etc. are the windows-1252 octets glibc leaves undefined (see
                      // to_utf8).
                      if (cp1252 && in_left >= 2 && static_cast<unsigned char>(in[0]) == 0xC2 &&
                          cp1252_hole(static_cast<unsigned char>(in[1]))) {
                          reserve_tail(o, used, 1);
                          o[used++] = in[1];
                          in += 2;
                          in_left -= 2;
                          return true;
                      }
                      return false;  // the charset cannot represent a character
                  });
    if (!ok) return std::nullopt;
    return out;
}

std::optional<std::vector<std::size_t>> character_lengths(std::string_view bytes,
                                                          std::string_view charset) {
    const auto name = canonical_charset(charset);
    if (!name) return std::nullopt;
    std::vector<std::size_t> lengths;
    if (*name == "UTF-8") {
        for (std::size_t i = 0; i < bytes.size();) {
            std::size_t bad = 0;
            std::size_t n = utf8::sequence_length(bytes, i, &bad);
            if (n == 0) n = 1;  // ill-formed: one octet at a time
            lengths.push_back(n);
            i += n;
        }
        return lengths;
    }
    const descriptor cd(*name, direction::to_utf32);
    if (cd == invalid_cd) return std::nullopt;
    // Converting into room for exactly one UTF-32 code unit makes iconv stop after one
    // character, with the input pointer on the next character boundary. The input window
    // is bounded (no charset has characters or shift sequences longer than 16 octets) so
    // that each call costs O(1) even when iconv converts through an intermediate buffer.
    constexpr std::size_t window = 16;
    for (std::size_t i = 0; i < bytes.size();) {
        std::size_t step = 0;
        for (const std::size_t room : {std::size_t{4}, std::size_t{64}}) {
            char buffer[64];
            char* in = const_cast<char*>(bytes.data() + i);
            std::size_t in_left = std::min(window, bytes.size() - i);
            const std::size_t before = in_left;
            char* op = buffer;
            std::size_t out_left = room;
            const std::size_t r = iconv(cd, &in, &in_left, &op, &out_left);
            step = before - in_left;
            // No progress with room for one code point: a character that maps to several
            // (JIS X 0213, HKSCS); retry with more room.
            if (step != 0 || r != static_cast<std::size_t>(-1) || errno != E2BIG) break;
        }
        if (step == 0) step = 1;  // invalid or truncated: one octet
        lengths.push_back(step);
        i += step;
    }
    return lengths;
}

}  // namespace mhtml::mime
