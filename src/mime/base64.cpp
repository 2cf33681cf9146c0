/// Base64 transfer encoding, RFC 2045 §6.8: the resumable decoder and its scalar bulk path,
/// run-time selection of the SIMD bulk paths, and the encoder.

#include "mhtml/mime/base64.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>

#include "base64_tables.hpp"

namespace mhtml::mime {

namespace {

// ---------------------------------------------------------------------------------------------
// Run-time selection of the implementation

simd_level detect_cpu_level() noexcept {
#if defined(MHTML_BASE64_X86)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vbmi")) {
        return simd_level::avx512;
    }
    if (__builtin_cpu_supports("avx2")) return simd_level::avx2;
#endif
    return simd_level::scalar;
}

simd_level cpu_level() noexcept {
    static const simd_level level = detect_cpu_level();
    return level;
}

std::atomic<simd_level> requested_level{simd_level::automatic};

detail::base64_kernel pick_kernel() noexcept {
#if defined(MHTML_BASE64_X86)
    switch (active_simd_level()) {
        case simd_level::avx512:
            return &detail::base64_decode_avx512;
        case simd_level::avx2:
            return &detail::base64_decode_avx2;
        default:
            break;
    }
#endif
    return &detail::base64_decode_scalar;
}

/// The vector encoder allowed now, or nullptr for the scalar code.
detail::base64_encode_kernel pick_encode_kernel() noexcept {
#if defined(MHTML_BASE64_X86)
    switch (active_simd_level()) {
        case simd_level::avx512:
            return &detail::base64_encode_avx512;
        case simd_level::avx2:
            return &detail::base64_encode_avx2;
        default:
            break;
    }
#endif
    return nullptr;
}

void note(codec_status& st, bool codec_status::*flag, std::uint64_t offset) noexcept {
    st.*flag = true;
    st.first_problem = std::min(st.first_problem, offset);
}

void store_quad(std::uint8_t* o, std::uint32_t v) noexcept {
    std::memcpy(o, &v, 4);
}

// Writes the octets held by a quantum of `count` (2 or 3) sextets closed early.
std::size_t flush_partial(std::uint32_t bits, std::uint8_t count, std::uint8_t* o) noexcept {
    if (count == 2) {
        o[0] = static_cast<std::uint8_t>(bits >> 4);  // 12 bits: one octet, 4 bits dropped
        return 1;
    }
    o[0] = static_cast<std::uint8_t>(bits >> 10);  // 18 bits: two octets, 2 bits dropped
    o[1] = static_cast<std::uint8_t>(bits >> 2);
    return 2;
}

}  // namespace

void set_simd_level(simd_level level) noexcept {
    requested_level.store(level, std::memory_order_relaxed);
}

simd_level active_simd_level() noexcept {
    const simd_level want = requested_level.load(std::memory_order_relaxed);
    return std::min(want, cpu_level());  // the enum is ordered scalar < avx2 < avx512 < automatic
}

// ---------------------------------------------------------------------------------------------
// Decoding

namespace detail {

namespace {

/// Decodes the quantum at p into o (storing 4 octets); returns base64_quad_invalid if one of
/// its characters is outside the alphabet (the output is then garbage).
inline std::uint32_t decode_quad(const std::uint8_t* p, std::uint8_t* o) noexcept {
    const std::uint32_t v =
        base64_quad[0][p[0]] | base64_quad[1][p[1]] | base64_quad[2][p[2]] | base64_quad[3][p[3]];
    store_quad(o, v);
    return v & base64_quad_invalid;
}

/// Four quanta, 16 characters -> 12 octets (storing 13).
inline std::uint32_t decode_group(const std::uint8_t* p, std::uint8_t* o) noexcept {
    return decode_quad(p, o) | decode_quad(p + 4, o + 3) | decode_quad(p + 8, o + 6) |
           decode_quad(p + 12, o + 9);
}

/// Whole lines shaped like the last two (`len` characters, a multiple of 4, then the 1- or
/// 2-octet line end `eol`): the next line's position is known without waiting for this one's
/// validity. Stops, without consuming it, at the first line that differs.
void decode_lines(const std::uint8_t*& pp, const std::uint8_t* end, std::uint8_t*& oo,
                  std::uint8_t* o_end, std::size_t len, const std::uint8_t* eol,
                  std::size_t eol_len) noexcept {
    const std::uint8_t* p = pp;
    std::uint8_t* o = oo;
    const std::size_t stride = len + eol_len;
    const std::size_t out_len = len / 4 * 3;
    const std::uint8_t eol0 = eol[0];
    const std::uint8_t eol1 = eol[eol_len - 1];
    while (static_cast<std::size_t>(end - p) >= stride &&
           static_cast<std::size_t>(o_end - o) >= out_len + 1) {
        if (p[len] != eol0 || p[stride - 1] != eol1) break;
        std::uint32_t bad = 0;
        std::size_t at = 0;
        for (; at + 16 <= len; at += 16) bad |= decode_group(p + at, o + at / 4 * 3);
        for (; at < len; at += 4) bad |= decode_quad(p + at, o + at / 4 * 3);
        if (bad != 0) break;
        p += stride;
        o += out_len;
    }
    pp = p;
    oo = o;
}

}  // namespace

void base64_decode_scalar(const std::uint8_t*& pp, const std::uint8_t* end, std::uint8_t*& oo,
                          std::uint8_t* o_end) noexcept {
    const std::uint8_t* p = pp;
    std::uint8_t* o = oo;
    const std::uint8_t* line = p;  // start of the current line (as far as this call knows)
    std::size_t previous = 0;      // length of the previous line
    for (;;) {
        // Four quanta at a time while they are all alphabet characters.
        while (end - p >= 16 && o_end - o >= 16 && decode_group(p, o) == 0) {
            p += 16;
            o += 12;
        }
        if (end - p < 4 || o_end - o < 4) break;
        if (decode_quad(p, o) == 0) {
            p += 4;
            o += 3;
            continue;
        }
        // White space between two quanta (a line break) changes nothing; anything else,
        // or white space inside a quantum, is left to the caller's octet-wise path.
        if (!is_base64_space(*p)) break;
        const std::uint8_t* const eol = p;
        do ++p;
        while (p < end && is_base64_space(*p));
        const auto length = static_cast<std::size_t>(eol - line);
        if (length == previous && length >= 16 && p - eol <= 2) {
            decode_lines(p, end, o, o_end, length, eol, static_cast<std::size_t>(p - eol));
        }
        previous = length;
        line = p;
    }
    pp = p;
    oo = o;
}

}  // namespace detail

// Recovery (RFC 2045 §6.8 says only that non-alphabet characters are ignored; the rest is
// what GMime and Python's binascii do, made precise):
//  - octets outside the alphabet are skipped; other than CR, LF, SP and HTAB: invalid_char at
//    the octet;
//  - '=' after fewer than two sextets of a quantum is skipped: bad_padding at the '=';
//  - '=' that does not complete its quantum before more data ("QQ=Q") is ignored: bad_padding
//    at the first such '=';
//  - alphabet characters after a completed padded quantum start a new quantum:
//    data_after_padding at the first of them;
//  - at the end, two or three pending sextets give one or two octets (bad_padding), a single
//    one is dropped (truncated); both at the offset of the end of the input.
void base64_decoder::octet(std::uint8_t c, std::uint64_t offset, std::uint8_t*& o) noexcept {
    const std::uint8_t s = detail::base64_rank[c];
    if (s != detail::base64_not_alphabet) {
        if (pad_ != 0) {
            // "QQ=Q": the '=' did not end the quantum; ignore it (as Python does) and go on.
            note(status_, &codec_status::bad_padding, pad_offset_);
            pad_ = 0;
        }
        if (ended_) {
            // Decoding goes on after the padded quantum, as GMime does.
            note(status_, &codec_status::data_after_padding, offset);
            ended_ = false;
        }
        bits_ = (bits_ << 6) | s;
        if (++count_ == 4) {
            o[0] = static_cast<std::uint8_t>(bits_ >> 16);
            o[1] = static_cast<std::uint8_t>(bits_ >> 8);
            o[2] = static_cast<std::uint8_t>(bits_);
            o += 3;
            bits_ = 0;
            count_ = 0;
        }
    } else if (c == '=') {
        if (count_ < 2) {
            // Padding can only follow two or three sextets (§6.8): this '=' is skipped.
            note(status_, &codec_status::bad_padding, offset);
            return;
        }
        if (pad_ == 0) pad_offset_ = offset;
        if (count_ + ++pad_ == 4) {
            o += flush_partial(bits_, count_, o);
            bits_ = 0;
            count_ = 0;
            pad_ = 0;
            ended_ = true;
        }
    } else if (!detail::is_base64_space(c)) {
        // §6.8: "Any characters outside of the base64 alphabet are to be ignored".
        note(status_, &codec_status::invalid_char, offset);
    }
}

std::size_t base64_decoder::step(std::string_view in, char* out) noexcept {
    if (in.empty()) return 0;
    const auto* const begin = reinterpret_cast<const std::uint8_t*>(in.data());
    const auto* const end = begin + in.size();
    auto* const o_begin = reinterpret_cast<std::uint8_t*>(out);
    auto* const o_end = o_begin + max_output(in.size());
    const detail::base64_kernel bulk = pick_kernel();
    const std::uint64_t base = consumed_;
    const std::uint8_t* p = begin;
    std::uint8_t* o = o_begin;
    while (p < end) {
        if (count_ == 0 && pad_ == 0 && !ended_) {
            bulk(p, end, o, o_end);
            // The SIMD kernels stop short of the end (they need a full block); finish there.
            if (bulk != &detail::base64_decode_scalar)
                detail::base64_decode_scalar(p, end, o, o_end);
            if (p == end) break;
        }
        // One octet at a time until the decoder is between quanta again.
        do {
            octet(*p, base + static_cast<std::uint64_t>(p - begin), o);
            ++p;
        } while (p < end && (count_ != 0 || pad_ != 0 || ended_));
    }
    consumed_ = base + in.size();
    return static_cast<std::size_t>(o - o_begin);
}

std::size_t base64_decoder::finish(char* out) noexcept {
    std::size_t n = 0;
    if (count_ == 1) {
        // A lone sextet holds no whole octet: dropped.
        note(status_, &codec_status::truncated, consumed_);
    } else if (count_ >= 2) {
        // Padding missing (or incomplete) at the end: decode what the sextets hold.
        note(status_, &codec_status::bad_padding, consumed_);
        n = flush_partial(bits_, count_, reinterpret_cast<std::uint8_t*>(out));
    }
    bits_ = 0;
    count_ = 0;
    pad_ = 0;
    return n;
}

codec_status base64_decode(std::string_view in, std::string& out) {
    const std::size_t old = out.size();
    const std::size_t room = base64_decoder::max_output(in.size());
    out.resize(old + room + 2);
    // The common body (whole quanta in lines, at most one padded quantum, then perhaps white
    // space) is decoded by the bulk kernels and the end checked here: archives have many
    // small bodies, and the resumable decoder's octet-wise path costs more than their lines.
    const auto* const begin = reinterpret_cast<const std::uint8_t*>(in.data());
    const auto* const end = begin + in.size();
    auto* const o_begin = reinterpret_cast<std::uint8_t*>(out.data() + old);
    const std::uint8_t* p = begin;
    std::uint8_t* o = o_begin;
    const detail::base64_kernel bulk = pick_kernel();
    bulk(p, end, o, o_begin + room);
    if (bulk != &detail::base64_decode_scalar)
        detail::base64_decode_scalar(p, end, o, o_begin + room);
    const std::uint8_t* const stop = p;  // between quanta, nothing to report so far
    auto rank = [](std::uint8_t c) { return detail::base64_rank[c]; };
    std::size_t tail = 0;  // octets of a final padded quantum
    if (end - p >= 4 && rank(p[0]) != detail::base64_not_alphabet &&
        rank(p[1]) != detail::base64_not_alphabet && p[3] == '=') {
        if (p[2] == '=') {
            tail = 1;
        } else if (rank(p[2]) != detail::base64_not_alphabet) {
            tail = 2;
        }
        if (tail != 0) p += 4;
    }
    while (p < end && detail::is_base64_space(*p)) ++p;
    if (p == end) {
        if (tail != 0) {
            const std::uint32_t bits = (std::uint32_t{rank(stop[0])} << 12) |
                                       (std::uint32_t{rank(stop[1])} << 6) |
                                       (tail == 2 ? rank(stop[2]) : 0u);
            o +=
                flush_partial(tail == 2 ? bits : bits >> 6, static_cast<std::uint8_t>(tail + 1), o);
        }
        out.resize(old + static_cast<std::size_t>(o - o_begin));
        return {};
    }
    // Anything else: the resumable decoder goes on from `stop`, where it would have been
    // after the same bulk step.
    base64_decoder d;
    d.consumed_ = static_cast<std::uint64_t>(stop - begin);
    const auto done = static_cast<std::size_t>(o - o_begin);
    std::size_t n = d.step(in.substr(d.consumed_), out.data() + old + done);
    n += d.finish(out.data() + old + done + n);
    out.resize(old + done + n);
    return d.status();
}

// ---------------------------------------------------------------------------------------------
// Encoding

namespace {

constexpr std::array<std::array<char, 2>, 4096> make_pair_table() {
    std::array<std::array<char, 2>, 4096> t{};
    for (std::size_t i = 0; i < 4096; ++i) {
        t[i][0] = detail::base64_alphabet[i >> 6];
        t[i][1] = detail::base64_alphabet[i & 63];
    }
    return t;
}

/// Twelve bits -> two characters: a quantum is two lookups.
constexpr std::array<std::array<char, 2>, 4096> pair_table = make_pair_table();

inline char* put_triple(const std::uint8_t* p, char* o) noexcept {
    const std::uint32_t v = (std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2];
    std::memcpy(o, pair_table[v >> 12].data(), 2);
    std::memcpy(o + 2, pair_table[v & 0xfff].data(), 2);
    return o + 4;
}

}  // namespace

namespace {

// A line length the encoder can honour: a multiple of 4 in [4, 76], or 0 for no breaks.
std::size_t usable_line_length(std::size_t n) noexcept {
    return n == 0 ? 0 : std::clamp<std::size_t>(n & ~std::size_t{3}, 4, 76);
}

}  // namespace

base64_encoder::base64_encoder(std::size_t line_length) noexcept
    : line_length_(usable_line_length(line_length)) {}

std::size_t base64_encoder::max_output(std::size_t n, std::size_t line_length) noexcept {
    const std::size_t chars = (n + 4) / 3 * 4;  // two octets may be carried from before
    const std::size_t per_line = usable_line_length(line_length);
    return chars + (per_line == 0 ? 0 : (chars / per_line + 2) * 2) + 4;
}

std::size_t base64_encoder::step(std::string_view in, char* out) noexcept {
    if (in.empty()) return 0;
    const auto* p = reinterpret_cast<const std::uint8_t*>(in.data());
    const auto* const end = p + in.size();
    char* o = out;
    if (carried_ != 0) {
        if (carried_ + in.size() < 3) {
            while (p < end) carry_[carried_++] = *p++;
            return 0;
        }
        std::uint8_t q[3] = {carry_[0], carry_[1], 0};
        for (std::size_t i = carried_; i < 3; ++i) q[i] = *p++;
        carried_ = 0;
        o = put_triple(q, o);
        column_ += 4;
        if (column_ == line_length_) {
            *o++ = '\r';
            *o++ = '\n';
            column_ = 0;
        }
    }
    // Vector kernels for the common shapes: 76-character lines, or no breaks. A step that
    // starts inside a line (the previous one ended mid-line) first completes that line.
    if (const auto kernel = pick_encode_kernel();
        kernel != nullptr && (line_length_ == 0 || line_length_ == 76)) {
        while (line_length_ != 0 && column_ != 0 && end - p >= 3) {
            o = put_triple(p, o);
            p += 3;
            column_ += 4;
            if (column_ == line_length_) {
                *o++ = '\r';
                *o++ = '\n';
                column_ = 0;
            }
        }
        if (line_length_ == 0 || column_ == 0) kernel(p, end, o, line_length_ == 0 ? 0 : 57);
    }
    if (line_length_ == 0) {
        while (end - p >= 3) {
            o = put_triple(p, o);
            p += 3;
        }
    } else {
        const std::size_t line_octets = line_length_ / 4 * 3;
        for (;;) {
            if (column_ == 0 && static_cast<std::size_t>(end - p) >= line_octets) {
                // A whole line at once.
                for (const auto* const stop = p + line_octets; p < stop; p += 3)
                    o = put_triple(p, o);
                *o++ = '\r';
                *o++ = '\n';
                continue;
            }
            if (end - p < 3) break;
            o = put_triple(p, o);
            p += 3;
            column_ += 4;
            if (column_ == line_length_) {
                *o++ = '\r';
                *o++ = '\n';
                column_ = 0;
            }
        }
    }
    while (p < end) carry_[carried_++] = *p++;
    return static_cast<std::size_t>(o - out);
}

std::size_t base64_encoder::finish(char* out) noexcept {
    char* o = out;
    if (carried_ != 0) {
        const std::uint32_t v =
            (std::uint32_t{carry_[0]} << 16) | (carried_ == 2 ? std::uint32_t{carry_[1]} << 8 : 0);
        *o++ = detail::base64_alphabet[v >> 18];
        *o++ = detail::base64_alphabet[(v >> 12) & 63];
        *o++ = carried_ == 2 ? detail::base64_alphabet[(v >> 6) & 63] : '=';
        *o++ = '=';
        column_ += 4;
        carried_ = 0;
    }
    if (line_length_ != 0 && column_ != 0) {
        *o++ = '\r';
        *o++ = '\n';
    }
    column_ = 0;
    return static_cast<std::size_t>(o - out);
}

std::string base64_encode(std::string_view in, std::size_t line_length) {
    std::string out(base64_encoder::max_output(in.size(), line_length), '\0');
    base64_encoder e(line_length);
    std::size_t n = e.step(in, out.data());
    n += e.finish(out.data() + n);
    out.resize(n);
    return out;
}

std::optional<std::uint64_t> canonical_base64_size(std::string_view in) noexcept {
    if (in.ends_with("\r\n")) in.remove_suffix(2);
    constexpr std::size_t line = 78;  // 76 characters and CRLF
    const std::size_t lines = in.size() / line, last = in.size() % line;
    if (last == 0 || last > 76 || last % 4 != 0) return std::nullopt;
    // Padding: only in the last quantum, with the bits it leaves out zero (a decoder keeps
    // none of them; the encoder writes them zero).
    const std::string_view q = in.substr(in.size() - 4);
    const auto rank = [](char c) { return detail::base64_rank[static_cast<unsigned char>(c)]; };
    std::size_t pads = 0;
    if (q[3] == '=') {
        pads = q[2] == '=' ? 2 : 1;
        const std::uint8_t s = rank(q[3 - pads]);
        if (s == detail::base64_not_alphabet || (s & (pads == 2 ? 0x0f : 0x03)) != 0)
            return std::nullopt;
    }
    // The alphabet: every other octet decodes (a skipped one shows in the count). Line ends
    // are checked a block at a time, just before the block is decoded: one pass over a body
    // larger than the caches, not two.
    const std::uint64_t expected = lines * 57 + last / 4 * 3 - pads;
    base64_decoder dec;
    constexpr std::size_t block_lines = 512;
    char scratch[base64_decoder::max_output(block_lines * line) + 8];
    std::uint64_t got = 0;
    for (std::size_t first = 0; first * line < in.size(); first += block_lines) {
        for (std::size_t i = first; i < std::min(lines, first + block_lines); ++i)
            if (in[i * line + 76] != '\r' || in[i * line + 77] != '\n') return std::nullopt;
        got += dec.step(in.substr(first * line, block_lines * line), scratch);
        if (!dec.status().clean()) return std::nullopt;
    }
    got += dec.finish(scratch);
    if (!dec.status().clean() || got != expected) return std::nullopt;
    return expected;
}

}  // namespace mhtml::mime
