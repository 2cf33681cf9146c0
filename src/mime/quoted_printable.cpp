/// Quoted-printable transfer encoding, RFC 2045 §6.7: the resumable decoder (with a fast path
/// that copies runs of ordinary octets) and the encoder.

#include "mhtml/mime/quoted_printable.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "mhtml/mime/base64.hpp"  // simd_level

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mhtml::mime {

namespace {

/// §6.7 rule 5: encoded lines are at most 76 characters long, a soft break's '=' included.
constexpr std::size_t max_line = 76;

constexpr bool is_space(std::uint8_t c) noexcept {
    return c == ' ' || c == '\t';
}
constexpr bool is_line_end(std::uint8_t c) noexcept {
    return c == '\r' || c == '\n';
}

constexpr std::array<std::uint8_t, 256> make_hex_value() {
    std::array<std::uint8_t, 256> t{};
    for (auto& v : t) v = 0xff;
    for (std::uint8_t i = 0; i < 10; ++i) t['0' + i] = i;
    for (std::uint8_t i = 0; i < 6; ++i) {
        t['A' + i] = static_cast<std::uint8_t>(10 + i);
        t['a' + i] = static_cast<std::uint8_t>(10 + i);  // lower case is accepted when decoding
    }
    return t;
}

/// Hex digit -> value, or 0xff.
constexpr std::array<std::uint8_t, 256> hex_value = make_hex_value();

void note(codec_status& st, bool codec_status::*flag, std::uint64_t offset) noexcept {
    st.*flag = true;
    st.first_problem = std::min(st.first_problem, offset);
}

/// Copies octets other than '=', CR, LF and 8-bit ones; returns with p at the first of those
/// (or at end). Output room: the caller guarantees o may run 16 octets ahead of p's progress.
/// `vector` is false when set_simd_level(simd_level::scalar) asks for portable code only.
inline void copy_plain(const std::uint8_t*& pp, const std::uint8_t* end, std::uint8_t*& oo,
                       [[maybe_unused]] bool vector) noexcept {
    const std::uint8_t* p = pp;
    std::uint8_t* o = oo;
#if defined(__SSE2__)
    const __m128i eq = _mm_set1_epi8('=');
    const __m128i cr = _mm_set1_epi8('\r');
    const __m128i lf = _mm_set1_epi8('\n');
    while (vector && end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o), v);
        const __m128i special = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, eq), _mm_cmpeq_epi8(v, cr)),
            _mm_or_si128(_mm_cmpeq_epi8(v, lf), v));  // v: its sign bits mark 8-bit octets
        const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(special));
        if (mask != 0) {
            const unsigned k = static_cast<unsigned>(__builtin_ctz(mask));
            pp = p + k;
            oo = o + k;
            return;
        }
        p += 16;
        o += 16;
    }
#endif
    while (p < end && *p != '=' && !is_line_end(*p) && *p < 0x80) *o++ = *p++;
    pp = p;
    oo = o;
}

/// How many octets just before p are SP/HTAB, counting back no further than `from` and no more
/// than `limit`.
inline std::size_t trailing_space(const std::uint8_t* from, const std::uint8_t* p,
                                  std::size_t limit) noexcept {
    std::size_t t = 0;
    while (t < limit && p - t > from && is_space(p[-1 - static_cast<std::ptrdiff_t>(t)])) ++t;
    return t;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Decoding
//
// Held-back octets live in pending_: either a run of SP/HTAB (deleted if a line end follows,
// rule 3), or '=' followed by one hex digit or by SP/HTAB (a soft break if a line end follows,
// rule 5). A white space run longer than pending_ holds has its oldest octets kept: so at
// most sizeof pending_ trailing octets are ever deleted, the same whichever way the input is
// split (the fast path applies the same limit).

void qp_decoder::line_end(std::uint64_t offset) noexcept {
    if (offset - line_start_ > max_line) {
        note(status_, &codec_status::long_line, line_start_ + max_line);
    }
    line_start_ = offset + 1;
}

void qp_decoder::octet(std::uint8_t c, std::uint64_t offset, std::uint8_t*& o) noexcept {
    if (skip_lf_) {
        skip_lf_ = false;
        if (c == '\n') {  // the LF of a soft break "=" CR LF
            line_end(offset);
            return;
        }
    }
    if (npending_ != 0 && pending_[0] == '=') {
        const auto second = static_cast<std::uint8_t>(pending_[1]);
        if (npending_ == 1 || is_space(second)) {
            if (is_line_end(c)) {
                // Soft line break: '=', optional trailing white space, line end (rule 5).
                npending_ = 0;
                line_end(offset);
                skip_lf_ = c == '\r';
                return;
            }
            if (npending_ == 1 && hex_value[c] != 0xff) {
                pending_[npending_++] = static_cast<char>(c);
                return;
            }
            if (is_space(c) && npending_ < sizeof pending_) {
                pending_[npending_++] = static_cast<char>(c);
                return;
            }
            // Not an escape: '=' is kept literally (as GMime and Python do) and the octets
            // after it are read again as ordinary text.
            note(status_, &codec_status::invalid_escape, offset - npending_);
            *o++ = '=';
            std::memmove(pending_, pending_ + 1, npending_ - 1);
            --npending_;
        } else {
            // "=X" with X a hex digit.
            if (hex_value[c] != 0xff) {
                *o++ = static_cast<std::uint8_t>((hex_value[second] << 4) | hex_value[c]);
                npending_ = 0;
                return;
            }
            note(status_, &codec_status::invalid_escape, offset - 2);
            *o++ = '=';
            *o++ = second;
            npending_ = 0;
        }
    }
    // Here pending_ holds white space only, if anything.
    if (is_space(c)) {
        if (npending_ == sizeof pending_) {
            *o++ = static_cast<std::uint8_t>(pending_[0]);
            std::memmove(pending_, pending_ + 1, npending_ - 1);
            --npending_;
        }
        pending_[npending_++] = static_cast<char>(c);
        return;
    }
    if (is_line_end(c)) {
        npending_ = 0;  // rule 3: trailing white space is deleted
        *o++ = c;
        line_end(offset);
        return;
    }
    if (npending_ != 0) {
        std::memcpy(o, pending_, npending_);
        o += npending_;
        npending_ = 0;
    }
    if (c == '=') {
        pending_[0] = '=';
        npending_ = 1;
        return;
    }
    if (c >= 0x80) note(status_, &codec_status::eight_bit, offset);
    *o++ = c;
}

void qp_decoder::run(const std::uint8_t*& pp, const std::uint8_t* end, std::uint8_t*& oo,
                     std::uint64_t offset, bool vector) noexcept {
    // White space before `from` was seen by octet(), which left nothing pending: it was kept.
    const std::uint8_t* const from = pp;
    const std::uint8_t* p = pp;
    std::uint8_t* o = oo;
    for (;;) {
        copy_plain(p, end, o, vector);
        if (p == end) {
            // Hold trailing white space back: a line end may follow in the next chunk.
            const std::size_t t = trailing_space(from, p, sizeof pending_);
            o -= t;
            std::memcpy(pending_, p - t, t);
            npending_ = t;
            break;
        }
        const std::uint8_t c = *p;
        const std::uint64_t at = offset + static_cast<std::uint64_t>(p - from);
        if (is_line_end(c)) {
            o -= trailing_space(from, p, sizeof pending_);  // rule 3
            *o++ = c;
            line_end(at);
            ++p;
            continue;
        }
        if (c == '=') {
            if (end - p >= 3) {
                const unsigned hi = hex_value[p[1]];
                const unsigned lo = hex_value[p[2]];
                if ((hi | lo) < 16) {
                    *o++ = static_cast<std::uint8_t>((hi << 4) | lo);
                    p += 3;
                    continue;
                }
                if (p[1] == '\n') {
                    line_end(at + 1);
                    p += 2;
                    continue;
                }
                if (p[1] == '\r' && p[2] == '\n') {
                    line_end(at + 1);
                    line_end(at + 2);
                    p += 3;
                    continue;
                }
            }
            break;  // the octet-wise path sorts out the rest
        }
        note(status_, &codec_status::eight_bit, at);  // octets >= 0x80 are kept as they are
        *o++ = c;
        ++p;
    }
    pp = p;
    oo = o;
}

std::size_t qp_decoder::step(std::string_view in, char* out) noexcept {
    if (in.empty()) return 0;
    const auto* const begin = reinterpret_cast<const std::uint8_t*>(in.data());
    const auto* const end = begin + in.size();
    auto* const o_begin = reinterpret_cast<std::uint8_t*>(out);
    const std::uint64_t base = consumed_;
    const bool vector = active_simd_level() != simd_level::scalar;
    const std::uint8_t* p = begin;
    std::uint8_t* o = o_begin;
    while (p < end) {
        if (npending_ == 0 && !skip_lf_) {
            run(p, end, o, base + static_cast<std::uint64_t>(p - begin), vector);
            if (p == end) break;
        }
        do {
            if (npending_ != 0 && pending_[0] != '=' && is_space(*p)) {
                // A long white space run: all but the newest sizeof pending_ octets are kept.
                const std::uint8_t* q = p;
                while (q < end && is_space(*q)) ++q;
                const std::size_t total = npending_ + static_cast<std::size_t>(q - p);
                if (total > sizeof pending_) {
                    const std::size_t emit = total - sizeof pending_;
                    const std::size_t from_pending = std::min(emit, npending_);
                    std::memcpy(o, pending_, from_pending);
                    o += from_pending;
                    std::memmove(pending_, pending_ + from_pending, npending_ - from_pending);
                    npending_ -= from_pending;
                    const std::size_t from_input = emit - from_pending;
                    std::memcpy(o, p, from_input);
                    o += from_input;
                    p += from_input;
                }
                std::memcpy(pending_ + npending_, p, static_cast<std::size_t>(q - p));
                npending_ += static_cast<std::size_t>(q - p);
                p = q;
                continue;
            }
            octet(*p, base + static_cast<std::uint64_t>(p - begin), o);
            ++p;
        } while (p < end && (npending_ != 0 || skip_lf_));
    }
    consumed_ = base + in.size();
    return static_cast<std::size_t>(o - o_begin);
}

std::size_t qp_decoder::finish(char* out) noexcept {
    char* o = out;
    if (npending_ != 0 && pending_[0] == '=') {
        if (npending_ == 2 && !is_space(static_cast<std::uint8_t>(pending_[1]))) {
            // "=X" cut short by the end: kept literally.
            note(status_, &codec_status::invalid_escape, consumed_ - 2);
            *o++ = '=';
            *o++ = pending_[1];
        } else {
            // '=' (perhaps with trailing white space) at the very end: a soft break to nowhere.
            note(status_, &codec_status::soft_break_at_end, consumed_ - npending_);
        }
    }
    npending_ = 0;  // trailing white space at the very end is deleted as at a line end (rule 3)
    skip_lf_ = false;
    if (consumed_ - line_start_ > max_line) {
        note(status_, &codec_status::long_line, line_start_ + max_line);
    }
    line_start_ = consumed_;
    return static_cast<std::size_t>(o - out);
}

codec_status qp_decode(std::string_view in, std::string& out) {
    const std::size_t old = out.size();
    out.resize(old + qp_decoder::max_output(in.size()) + 2);
    qp_decoder d;
    std::size_t n = d.step(in, out.data() + old);
    n += d.finish(out.data() + old + n);
    out.resize(old + n);
    return d.status();
}

// ---------------------------------------------------------------------------------------------
// Encoding

namespace {

constexpr std::array<bool, 256> make_literal() {
    std::array<bool, 256> t{};
    for (int c = 33; c <= 126; ++c) t[static_cast<std::size_t>(c)] = c != '=';  // rule 2
    return t;
}

/// Octets that may stand for themselves (rule 2), not counting white space.
constexpr std::array<bool, 256> literal = make_literal();

constexpr char hex_digits[] = "0123456789ABCDEF";

/// How an octet is written in the middle of a line: itself or "=XX" (length 1 or 3). Length 0
/// marks a text-mode line break; `space` marks SP/HTAB, which may not end a line (rule 3).
struct token {
    char chars[3];
    std::uint8_t length;
    bool space;
};

constexpr std::array<token, 256> make_tokens(bool text) {
    std::array<token, 256> t{};
    for (std::size_t c = 0; c < 256; ++c) {
        token& k = t[c];
        k.space = c == ' ' || c == '\t';
        if (literal[c] || k.space) {
            k.chars[0] = static_cast<char>(c);
            k.length = 1;
        } else if (text && (c == '\r' || c == '\n')) {
            k.length = 0;
        } else {
            k.chars[0] = '=';
            k.chars[1] = hex_digits[c >> 4];
            k.chars[2] = hex_digits[c & 15];
            k.length = 3;
        }
    }
    return t;
}

constexpr std::array<token, 256> text_tokens = make_tokens(true);
constexpr std::array<token, 256> binary_tokens = make_tokens(false);

#if defined(__SSE2__)
/// How many of the 16 octets at `d` (with d[16] readable) stand for themselves in the
/// middle of a line: rule 2 literals, and SP/HTAB not followed by a line break (text mode).
inline unsigned literal_run(const std::uint8_t* d, bool text) noexcept {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d));
    const __m128i printable =
        _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(32)), _mm_cmplt_epi8(x, _mm_set1_epi8(127)));
    const __m128i lit = _mm_andnot_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('=')), printable);
    __m128i space =
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\t')));
    if (text) {
        const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + 1));
        const __m128i line_end = _mm_or_si128(_mm_cmpeq_epi8(next, _mm_set1_epi8('\r')),
                                              _mm_cmpeq_epi8(next, _mm_set1_epi8('\n')));
        space = _mm_andnot_si128(line_end, space);
    }
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(lit, space)));
    return static_cast<unsigned>(__builtin_ctz(~mask | 0x10000u));
}
#endif

inline char* put_escape(std::uint8_t c, char* o) noexcept {
    o[0] = '=';
    o[1] = hex_digits[c >> 4];
    o[2] = hex_digits[c & 15];
    return o + 3;
}

inline char* put_crlf(char* o) noexcept {
    o[0] = '\r';
    o[1] = '\n';
    return o + 2;
}

}  // namespace

std::size_t qp_encoder::max_output(std::size_t n) noexcept {
    const std::size_t tokens = 3 * (n + 4);  // every octet (and up to 4 held back) as "=XX"
    // A soft break comes after at least 73 characters of a line.
    return tokens + (tokens / 73 + 2) * 3 + 8;
}

std::size_t qp_encoder::encode(const std::uint8_t* d, std::size_t n, bool final,
                               char*& oo) noexcept {
    const bool text = mode_ == qp_mode::text;
#if defined(__SSE2__)
    const bool vector = active_simd_level() != simd_level::scalar;
#endif
    char* o = oo;
    std::size_t column = column_;  // a local: stores through `o` could alias the member
    std::size_t i = 0;
    while (i < n) {
        if (column > 0) {
            // Fast path: up to column 72 any token fits ("=XX" plus a soft break's '='), and
            // the line-start rules do not apply. Branch-free but for the rare exits.
            const auto& table = text ? text_tokens : binary_tokens;
            while (i < n && column <= max_line - 4) {
#if defined(__SSE2__)
                // Runs that need no escaping are copied 16 octets at a time (each one of
                // them would pass the test below: column <= 72 before it).
                if (vector && n - i > 16 && column + 15 <= max_line - 4) {
                    const unsigned k = literal_run(d + i, text);
                    if (k != 0) {
                        std::memcpy(o, d + i, 16);  // the octets past k are overwritten later
                        o += k;
                        column += k;
                        i += k;
                        continue;
                    }
                }
#endif
                const token& t = table[d[i]];
                const std::uint8_t next = d[i + 1 < n ? i + 1 : i];
                const bool line_break_next = (i + 1 == n) | (text & is_line_end(next));
                if ((t.length == 0) | (t.space & line_break_next)) break;  // decided below
                std::memcpy(o, t.chars, 4);  // the 4th octet is scratch, overwritten later
                o += t.length;
                column += t.length;
                ++i;
            }
            if (i == n) break;
        }
        const std::uint8_t c = d[i];
        const std::size_t after = n - i - 1;  // octets known after c
        if (text && c == '\n') {
            o = put_crlf(o);  // a bare LF is a line break in text mode
            column = 0;
            ++i;
            continue;
        }
        if (text && c == '\r') {
            if (after == 0 && !final) break;
            if (after != 0 && d[i + 1] == '\n') {
                o = put_crlf(o);
                column = 0;
                i += 2;
                continue;
            }
            // A bare CR is not a line break: it is encoded below.
        }
        if (c == 'F' && after < 4 && !final) break;  // "From " needs four more octets

        bool plain = literal[c];
        if (is_space(c)) {
            // Rule 3: white space may not end a line (nor the data), so it is encoded there.
            if (after == 0) {
                if (!final) break;
            } else if (!text || !is_line_end(d[i + 1])) {
                plain = true;
            }
        }
        // Does a hard line break (or the end) follow c? Then c may take column 76.
        bool last_on_line = false;
        if (after == 0) {
            if (!final) break;
            last_on_line = true;
        } else if (text) {
            if (d[i + 1] == '\n') {
                last_on_line = true;
            } else if (d[i + 1] == '\r') {
                if (after == 1 && !final) break;
                last_on_line = after >= 2 && d[i + 2] == '\n';
            }
        }
        // A line starting with "From " (mbox) or "." (SMTP) has that octet encoded.
        const auto escaped_at_start = [&] {
            return c == '.' || (c == 'F' && after >= 4 && std::memcmp(d + i + 1, "rom ", 4) == 0);
        };
        bool escape = !plain || (column == 0 && escaped_at_start());
        std::size_t len = escape ? 3 : 1;
        if (column + len > max_line - 1 && !(column + len <= max_line && last_on_line)) {
            // Soft line break first; an escape is never split across it.
            *o++ = '=';
            o = put_crlf(o);
            column = 0;
            escape = !plain || escaped_at_start();
            len = escape ? 3 : 1;
        }
        if (escape) {
            o = put_escape(c, o);
        } else {
            *o++ = static_cast<char>(c);
        }
        column += len;
        ++i;
    }
    oo = o;
    column_ = column;
    return i;
}

std::size_t qp_encoder::step(std::string_view in, char* out) noexcept {
    if (in.empty()) return 0;
    const auto* const data = reinterpret_cast<const std::uint8_t*>(in.data());
    char* o = out;
    std::size_t start = 0;
    if (npending_ != 0) {
        // Resolve the held-back octets with enough of the new input to decide them.
        std::uint8_t joined[sizeof pending_ + 8];
        const std::size_t take = std::min<std::size_t>(in.size(), 8);
        std::memcpy(joined, pending_, npending_);
        std::memcpy(joined + npending_, data, take);
        const std::size_t m = npending_ + take;
        const std::size_t used = encode(joined, m, false, o);
        if (used < npending_) {
            // Still undecided (the input was short): hold the rest back again.
            npending_ = m - used;
            std::memcpy(pending_, joined + used, npending_);
            return static_cast<std::size_t>(o - out);
        }
        start = used - npending_;
        npending_ = 0;
    }
    const std::size_t used = start + encode(data + start, in.size() - start, false, o);
    npending_ = in.size() - used;
    std::memcpy(pending_, data + used, npending_);
    return static_cast<std::size_t>(o - out);
}

std::size_t qp_encoder::finish(char* out) noexcept {
    char* o = out;
    encode(reinterpret_cast<const std::uint8_t*>(pending_), npending_, true, o);
    npending_ = 0;
    column_ = 0;
    return static_cast<std::size_t>(o - out);
}

std::optional<std::uint64_t> canonical_qp(std::string_view in) noexcept {
    const auto* const d = reinterpret_cast<const std::uint8_t*>(in.data());
    const std::size_t n = in.size();
    if (n == 0) return std::nullopt;
#if defined(__SSE2__)
    const bool vector = active_simd_level() != simd_level::scalar;
#endif
    std::size_t i = 0;
    std::size_t column = 0;  // characters of the current line so far
    std::uint64_t size = 0;
    const auto upper_hex = [](std::uint8_t c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
    };
    while (i < n) {
#if defined(__SSE2__)
        // Runs that stand for themselves, 16 at a time (literal_run reads d[16]: i + 16 < n,
        // so none of them ends the data), within the line's 76 characters.
        if (vector && column > 0 && n - i > 16 && column + 16 <= max_line) {
            const unsigned k = literal_run(d + i, true);
            i += k;
            column += k;
            size += k;
            if (k == 16) continue;
        }
#endif
        const std::uint8_t c = d[i];
        if (c == '\r') {
            if (i + 1 >= n || d[i + 1] != '\n') return std::nullopt;  // a bare CR
            i += 2;
            size += 2;
            column = 0;
            continue;
        }
        if (c == '=') {
            if (i + 2 >= n) return std::nullopt;  // cut short, or a soft break at the end
            if (d[i + 1] == '\r') {
                // A soft break ends a line that has something (the encoder writes no empty
                // one), and is not the last thing.
                if (d[i + 2] != '\n' || i + 3 >= n || column == 0 || column + 1 > max_line)
                    return std::nullopt;
                i += 3;
                column = 0;
                continue;
            }
            if (!upper_hex(d[i + 1]) || !upper_hex(d[i + 2])) return std::nullopt;
            // An escaped CR or LF: text's line breaks are its hard ones.
            if (d[i + 1] == '0' && (d[i + 2] == 'D' || d[i + 2] == 'A')) return std::nullopt;
            column += 3;
            if (column > max_line) return std::nullopt;
            i += 3;
            ++size;
            continue;
        }
        if (is_space(c)) {
            if (i + 1 >= n || is_line_end(d[i + 1])) return std::nullopt;  // rule 3
        } else if (c <= 32 || c >= 127) {
            return std::nullopt;  // a control, a bare LF, an 8-bit octet
        } else if (column == 0 && c == 'F' && n - i >= 5 && std::memcmp(d + i, "From ", 5) == 0) {
            return std::nullopt;  // a mailbox would mangle it (the encoder escapes the F)
        }
        if (++column > max_line) return std::nullopt;
        ++i;
        ++size;
    }
    return size;
}

std::string qp_encode(std::string_view in, qp_mode mode) {
    std::string out(qp_encoder::max_output(in.size()), '\0');
    qp_encoder e(mode);
    std::size_t n = e.step(in, out.data());
    n += e.finish(out.data() + n);
    out.resize(n);
    return out;
}

}  // namespace mhtml::mime
