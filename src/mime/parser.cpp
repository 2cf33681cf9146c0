// The MIME parser: one pass over the input, building entity_records that point into it.
//
// Boundary scanning (RFC 2046 §5.1.1): a delimiter is "--" + boundary at the start of a
// line, optionally followed by "--" (close delimiter), transport padding (SP/HTAB) and a
// line end or the end of the input. Every active boundary of the enclosing multiparts is
// checked, innermost first, so a part ends at the first delimiter of any of them (as in
// Python's email package); bytes are found with memchr for '-', so base64 bodies (which
// contain no '-') are skipped at memory speed and no byte is examined twice.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <unordered_map>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "field_name.hpp"
#include "mhtml/detail/keyed_hash.hpp"
#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/mime/quoted_printable.hpp"

namespace mhtml::mime {

namespace {

constexpr bool is_wsp(char c) noexcept {
    return c == ' ' || c == '\t';
}

// A field body of one line, without the white space around it.
std::string_view trimmed(std::string_view raw) {
    while (!raw.empty() && is_wsp(raw.front())) raw.remove_prefix(1);
    while (!raw.empty() && is_wsp(raw.back())) raw.remove_suffix(1);
    return raw;
}

// The unfolded, trimmed field body; a view into the input unless it was folded.
std::string_view unfolded_view(std::string_view raw, std::string& storage) {
    if (std::any_of(raw.begin(), raw.end(), [](char c) { return c == '\r' || c == '\n'; })) {
        storage = unfold(raw);
        return storage;
    }
    return trimmed(raw);
}
// RFC 2046 §5.1.1: bchars := bcharsnospace / " "; 1 to 70 characters, not ending in space.
bool boundary_is_valid(std::string_view b) noexcept {
    if (b.empty() || b.size() > 70 || b.back() == ' ') return false;
    for (char c : b) {
        bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  std::strchr("'()+_,-./:=? ", c) != nullptr;
        if (!ok || c == '\0') return false;
    }
    return true;
}

// Whether the n octets at a and b are equal. Inline and 16 at a time: every delimiter line
// is compared with the boundary, and boundaries are typically 30 to 70 octets.
inline bool same_octets(const char* a, const char* b, std::size_t n) noexcept {
#if defined(__SSE2__)
    if (n >= 16) {
        auto equal16 = [](const char* x, const char* y) {
            const __m128i u = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x));
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(y));
            return _mm_movemask_epi8(_mm_cmpeq_epi8(u, v)) == 0xffff;
        };
        std::size_t i = 0;
        for (; i + 16 <= n; i += 16)
            if (!equal16(a + i, b + i)) return false;
        return i == n || equal16(a + n - 16, b + n - 16);  // the last, overlapping block
    }
#endif
    return std::memcmp(a, b, n) == 0;
}

struct delim_match {
    bool found = false;
    bool close = false;
    std::size_t level = 0;    // index into the boundary stack
    std::uint64_t begin = 0;  // the line end before "--" (it belongs to the delimiter)
    std::uint64_t line_end = 0;
};

}  // namespace

static_assert(sizeof(void*) != 8 || sizeof(detail::entity_record) == 64,
              "entity records stay 64 bytes (docs/design.md)");
static_assert(sizeof(detail::field_record) == 8);

class parser {
public:
    parser(detail::document_state& doc, const parse_options& opts) : doc_(doc) {
        limits_ = opts.limits;
        limits_.max_depth = std::min(limits_.max_depth, parse_limits::hard_max_depth);
        max_decoded_nesting_ = opts.max_decoded_nesting;
        data_ = doc.bytes_.data();
        size_ = doc.bytes_.size();
        add_type(content_type::default_text());    // default_text_type
        add_type(content_type::default_digest());  // default_digest_type
    }

    void run();

private:
    void parse_document();
    // An active multipart. The boundary is looked up through the entity each time: a view
    // kept here would dangle when the entity vector grows.
    struct frame {
        std::uint32_t entity;
    };

    void diag(severity s, diag_code c, std::uint32_t entity, std::uint64_t off, std::string msg);
    std::string path_of(std::uint32_t entity) const;
    std::uint32_t new_entity(std::uint32_t parent, std::uint64_t begin);
    // Parses the entity starting at `begin`; returns the delimiter that ended it (or EOF).
    // depth: e's nesting (0 for the outermost entity).
    delim_match parse_entity(std::uint32_t e, std::uint32_t depth, bool in_digest);
    std::uint64_t parse_headers(std::uint32_t e);
    void interpret_headers(std::uint32_t e, bool in_digest);
    delim_match parse_multipart(std::uint32_t e, std::uint32_t depth);
    delim_match parse_parts(std::uint32_t e, std::uint32_t depth, std::uint64_t body, delim_match m,
                            bool digest);
    bool parse_decoded_body(std::uint32_t e, std::uint32_t depth, std::uint64_t body,
                            const delim_match& outer);
    void parse_decoded_message(std::uint32_t e, std::uint32_t depth, std::uint64_t body,
                               std::uint64_t end);
    std::optional<std::string> decode_refusal(std::uint64_t body, std::uint64_t end,
                                              const std::string& what) const;
    bool may_decode(std::uint32_t e, std::uint64_t body, std::uint64_t end,
                    const std::string& what);
    // What enter_decoded replaced, for leave_decoded to put back.
    struct decoded_context {
        const char* data = nullptr;
        std::uint64_t size = 0;
        std::vector<frame> stack;
        std::uint64_t input_offset = 0;
        std::string note;
        std::uint64_t crlf = 0, lf = 0, cr = 0;
        std::size_t segment = 0;  // index of the decoded body in doc_.decoded_
    };
    decoded_context enter_decoded(std::unique_ptr<detail::decoded_body> seg, std::uint32_t e,
                                  std::uint64_t body);
    void leave_decoded(decoded_context& saved, std::uint32_t e, std::uint64_t body,
                       std::uint64_t end);
    std::uint64_t leaf_body_end(std::uint64_t body, const delim_match& m) const;
    delim_match parse_message(std::uint32_t e, std::uint32_t depth);
    delim_match parse_encoded_message(std::uint32_t e, std::uint32_t depth, std::uint64_t body);
    delim_match find_delimiter(std::uint64_t from, std::size_t nframes) const;
    bool match_at(const char* q, std::size_t nframes, std::uint64_t lower, delim_match& m) const;
    bool delimiter_line(std::uint64_t line) const;
    std::string guess_boundary(std::uint64_t from, std::uint64_t to);
    bool looks_like_header_line(std::uint64_t pos, std::uint64_t to) const;
    void near_miss(std::uint32_t e, std::uint64_t from, std::uint64_t to);
    std::uint32_t add_type(content_type ct);
    std::vector<entity_kind> type_kind_;  // per distinct type: multipart, message or leaf
    static constexpr std::uint32_t default_text_type = 0, default_digest_type = 1;
    struct cached_type {
        std::uint32_t index;
        value_issues issues;
    };
    std::unordered_map<std::string_view, cached_type, mhtml::detail::keyed_hash> type_cache_;
    // Multipart e's table entry. Not to be held across the parsing of a child: the table
    // grows with every nested multipart.
    detail::multipart_record& mp(std::uint32_t e) {
        return doc_.multiparts_[doc_.entities_[e].multipart];
    }
    void set_boundary(std::uint32_t e, const std::string& b) { mp(e).boundary = b; }
    std::uint64_t line_end(std::uint64_t pos, std::uint64_t* next, unsigned* odd = nullptr) const;
    // The fields of the header block just read: what parse_headers found of each, so that
    // interpret_headers need not find it again.
    struct field_shape {
        std::uint32_t name_size, value_offset;
        bool folded = false;  // continued on further lines
    };
    std::vector<field_shape> shapes_;

    detail::document_state& doc_;
    parse_limits limits_;
    const char* data_;
    std::uint64_t size_;
    std::vector<frame> stack_;
    std::uint64_t crlf_ = 0, lf_ = 0, cr_ = 0;  // line ends seen in header blocks
    bool part_limit_hit_ = false;
    // Octets that boundary guessing may still search, over the whole document: nested
    // multiparts whose boundaries all fail must not make salvage quadratic.
    std::uint64_t guess_budget_ = 0;
    // REL-2.2 salvage. While a decoded body is parsed, data_/size_/stack_ are that body's,
    // offsets are local to it (shifted into the document's offset space afterwards), and
    // diagnostics report where its encoded body starts in the input.
    std::uint32_t max_decoded_nesting_ = 0;
    std::uint32_t decoded_nesting_ = 0;  // decoded bodies being parsed (0: the input)
    std::uint64_t decode_budget_ = 0;    // encoded octets that may still be decoded
    std::uint64_t decoded_input_offset_ = 0;
    std::string decoded_note_;  // appended to diagnostics inside a decoded body
    // Diagnostics past limits_.max_diagnostics: how many, the worst, where the first was.
    std::uint64_t dropped_ = 0;
    severity worst_dropped_ = severity::note;
    std::uint64_t first_dropped_offset_ = 0;
};

document document::parse(input_buffer input, const parse_options& opts) {
    document d;
    d.s_->input_ = std::move(input);
    d.s_->bytes_ = d.s_->input_.bytes();
    parser(*d.s_, opts).run();
    return d;
}

document document::parse(std::string&& bytes, const parse_options& opts) {
    return parse(input_buffer::from_string(std::move(bytes)), opts);
}

document document::parse(std::string_view bytes, const parse_options& opts) {
    document d;
    d.s_->bytes_ = bytes;
    parser(*d.s_, opts).run();
    return d;
}

void parser::diag(severity s, diag_code c, std::uint32_t e, std::uint64_t off, std::string msg) {
    // The user cannot seek into decoded octets: report where they come from.
    if (decoded_nesting_ > 0) off = decoded_input_offset_;
    if (doc_.diagnostics_.size() >= limits_.max_diagnostics) {
        // Past the cap only a count is kept; run() adds it as one last diagnostic.
        if (dropped_ == 0) first_dropped_offset_ = off;
        ++dropped_;
        worst_dropped_ = std::max(worst_dropped_, s);
        return;
    }
    if (decoded_nesting_ > 0) msg += decoded_note_;
    doc_.diagnostics_.push_back({s, c, path_of(e), off, std::move(msg)});
}

std::string parser::path_of(std::uint32_t e) const {
    return part_view(&doc_, e).path();
}

std::uint32_t parser::new_entity(std::uint32_t parent, std::uint64_t begin) {
    auto idx = static_cast<std::uint32_t>(doc_.entities_.size());
    if (idx == 256 && begin > 0 && decoded_nesting_ == 0) {
        // Extrapolate from the first 256 entities how many the whole input holds, so the
        // vectors are allocated once instead of doubling (each doubling copies and faults
        // in fresh pages). Transparent huge pages for these tables were tried: fewer faults
        // on a quiet machine, but up to 3x slower right after another process freed a lot
        // of memory, so they are not used.
        std::uint64_t estimate = size_ / begin * 256 + size_ / begin * 32 + 256;
        std::size_t want =
            static_cast<std::size_t>(std::min<std::uint64_t>(estimate, limits_.max_parts));
        if (want > doc_.entities_.capacity()) {
            doc_.entities_.reserve(want);
            doc_.fields_.reserve(doc_.fields_.size() * want / 256 + 16);
        }
    }
    detail::entity_record r;
    r.begin = r.body_begin = r.body_end = r.delim_begin = begin;
    r.parent = parent;
    r.first_header = static_cast<std::uint32_t>(doc_.fields_.size());
    r.type = default_text_type;
    if (parent != detail::entity_record::none) {
        auto& p = doc_.entities_[parent];
        if (p.multipart != detail::entity_record::none) {
            auto& m = doc_.multiparts_[p.multipart];
            r.number = ++m.child_count;
            if (m.last_child == detail::entity_record::none) {
                p.first_child = idx;
            } else {
                doc_.entities_[m.last_child].next_sibling = idx;
            }
            m.last_child = idx;
        } else {  // the one entity of a message
            r.number = 1;
            p.first_child = idx;
        }
    }
    doc_.entities_.push_back(r);
    return idx;
}

void parser::run() {
    parse_document();
    if (dropped_ > 0)
        doc_.diagnostics_.push_back(dropped_diagnostics(
            dropped_, worst_dropped_, first_dropped_offset_, limits_.max_diagnostics));
}

void parser::parse_document() {
    if (size_ == 0) {
        new_entity(detail::entity_record::none, 0);
        diag(severity::warning, diag_code::empty_input, 0, 0, "the input is empty");
        return;
    }
    guess_budget_ = 8 * size_ + (1u << 20);
    // Each level of decoded bodies is at most as large as the input, so this lets two
    // levels decode everything and keeps the work and memory linear in the input.
    decode_budget_ = 2 * size_ + (1u << 20);
    // A first guess at the number of entities avoids most regrowth of the vectors.
    std::size_t guess = std::min<std::uint64_t>(size_ / 4096 + 8, limits_.max_parts);
    doc_.entities_.reserve(guess);
    doc_.fields_.reserve(guess * 4);
    std::uint32_t root = new_entity(detail::entity_record::none, 0);
    delim_match m = parse_entity(root, 0, false);
    (void)m;
    auto& r = doc_.entities_[root];
    r.body_end = std::max(r.body_end, size_);
    if (!doc_.decoded_.empty()) {
        auto& order = doc_.by_address_;
        order.resize(doc_.decoded_.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return std::less<const char*>()(doc_.decoded_[a]->bytes.data(),
                                            doc_.decoded_[b]->bytes.data());
        });
    }
    if (crlf_ == 0 && lf_ > 0 && cr_ == 0) {
        diag(severity::note, diag_code::line_ending_lf, 0, 0,
             "line ends are bare LF, not CRLF (RFC 5322 §2.3); read as line ends");
    } else if (crlf_ == 0 && cr_ > 0 && lf_ == 0) {
        diag(severity::warning, diag_code::line_ending_cr, 0, 0,
             "line ends are bare CR, not CRLF; read as line ends");
    } else if ((crlf_ > 0) + (lf_ > 0) + (cr_ > 0) > 1) {
        diag(severity::warning, diag_code::line_ending_mixed, 0, 0,
             "header blocks mix CRLF, bare LF and bare CR line ends; each is read as a line end");
    }
}

// Finds the end of the line starting at pos: returns the offset of its line end and
// stores the offset after the line end in *next. CRLF, bare LF and bare CR all end lines.
std::uint64_t parser::line_end(std::uint64_t pos, std::uint64_t* next, unsigned* odd) const {
    const char* p = data_ + pos;
    const char* e = data_ + size_;
    unsigned acc = 0;
#if defined(__SSE2__)
    // 16 octets at a time: the line end is the first '\n' or '\r' of a block; NUL and 8-bit
    // octets before it are noted. The last few octets of the input go octet by octet.
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();
    bool found = false;
    while (e - p >= 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        auto ends = static_cast<unsigned>(
            _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr))));
        auto nuls = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)));
        auto high = static_cast<unsigned>(_mm_movemask_epi8(v));
        unsigned before = ends ? (1u << __builtin_ctz(ends)) - 1 : 0xffffu;
        acc |= static_cast<unsigned>((nuls & before) != 0) |
               (static_cast<unsigned>((high & before) != 0) << 1);
        if (ends) {
            p += __builtin_ctz(ends);
            found = true;
            break;
        }
        p += 16;
    }
#else
    bool found = false;
#endif
    for (; !found && p < e; ++p) {
        auto u = static_cast<unsigned char>(*p);
        // Only '\n', '\r', NUL and 8-bit octets need a closer look.
        if (u <= '\r' || u >= 0x80) {
            if (u == '\n' || u == '\r') {
                found = true;
                break;
            }
            acc |= u == 0 ? 1u : (u >= 0x80 ? 2u : 0u);
        }
    }
    if (odd) *odd |= acc;
    std::uint64_t le = static_cast<std::uint64_t>(p - data_);
    if (p == e) {
        *next = le;
    } else if (*p == '\r' && p + 1 < e && p[1] == '\n') {
        *next = le + 2;
    } else {
        *next = le + 1;
    }
    return le;
}

bool parser::delimiter_line(std::uint64_t line) const {
    if (stack_.empty() || line + 1 >= size_ || data_[line] != '-' || data_[line + 1] != '-')
        return false;
    delim_match m;
    return match_at(data_ + line, stack_.size(), line, m);
}

std::uint64_t parser::parse_headers(std::uint32_t e) {
    auto& hdrs = doc_.fields_;
    const std::uint64_t begin = doc_.entities_[e].begin;
    const auto first = static_cast<std::uint32_t>(hdrs.size());
    shapes_.clear();
    // Field records count from `begin` in 32 bits.
    const std::uint64_t block_limit =
        std::min<std::uint64_t>(limits_.max_header_block, header_field_view::max_size);
    std::uint64_t pos = begin;
    bool interpreting = true, saw_8bit = false, saw_nul = false;
    std::uint64_t body = size_;
    bool blank = false;
    auto finish = [&] {
        if (saw_8bit)
            diag(
                severity::note, diag_code::header_8bit, e, begin,
                "8-bit octets in the header block (not US-ASCII, RFC 5322 §2.2); kept as they are");
        if (saw_nul)
            diag(severity::warning, diag_code::header_nul, e, begin,
                 "NUL octet in the header block; kept as it is");
        return body;
    };
    while (pos < size_) {
        std::uint64_t next;
        unsigned odd = 0;  // 1: NUL seen, 2: 8-bit octet seen
        std::uint64_t le = line_end(pos, &next, &odd);
        if (le == pos) {  // the empty line that ends the header block
            body = next;
            blank = true;
            if (next - le == 2)
                ++crlf_;
            else if (data_[le] == '\n')
                ++lf_;
            else
                ++cr_;
            break;
        }
        if (next - le == 2)
            ++crlf_;
        else if (next > le && data_[le] == '\n')
            ++lf_;
        else if (next > le)
            ++cr_;
        if (le - pos > limits_.max_line_length) {
            diag(severity::warning, diag_code::line_length_limit, e, pos,
                 "header line of " + std::to_string(le - pos) + " octets exceeds the limit of " +
                     std::to_string(limits_.max_line_length) + "; read anyway");
        }
        if (interpreting && pos - begin > block_limit) {
            interpreting = false;
            diag(severity::error, diag_code::header_block_limit, e, pos,
                 "header block exceeds " + std::to_string(block_limit) +
                     " octets; the remaining fields are kept as raw bytes but not interpreted");
        }
        std::string_view line(data_ + pos, le - pos);
        if (is_wsp(line[0])) {
            saw_nul |= (odd & 1) != 0;
            saw_8bit |= (odd & 2) != 0;
            // RFC 5322 §2.2.3: a continuation line of the previous field.
            if (hdrs.size() > first && interpreting) {
                auto& f = hdrs.back();
                const std::uint64_t start = begin + f.offset;
                if (next - start <= header_field_view::max_size) {
                    f.size = static_cast<std::uint32_t>(next - start);
                    shapes_.back().folded = true;
                } else {
                    interpreting = false;
                    diag(severity::error, diag_code::header_block_limit, e, pos,
                         "a header field longer than 4 GiB; the rest of the block is kept as raw "
                         "bytes but not interpreted");
                }
            } else if (hdrs.size() == first) {
                diag(severity::warning, diag_code::header_continuation_first, e, pos,
                     "the header block starts with a continuation line; it is kept but belongs "
                     "to no field");
            }
            pos = next;
            continue;
        }
        // A delimiter of an enclosing multipart ends the block: the part was truncated.
        if (line.size() >= 2 && line[0] == '-' && line[1] == '-' && delimiter_line(pos)) {
            body = pos;
            diag(severity::warning, diag_code::truncated_header, e, pos,
                 pos == begin ? "the part is empty: another delimiter follows its delimiter line"
                              : "a boundary delimiter follows the header block without an empty "
                                "line; the part has an empty body");
            return finish();
        }
        std::size_t n = detail::ftext_run(line);
        std::size_t colon = n;
        while (colon < line.size() && is_wsp(line[colon])) ++colon;  // RFC 5322 §4.5 obs-optional
        if (colon >= line.size() || line[colon] != ':' ||
            (n == 0 && colon == 0 && line.size() > 0 && line[0] != ':')) {
            if (pos == begin && line.substr(0, 5) == "From ") {
                // An mbox "From " separator line before the header (Python keeps it as the
                // unix-from of that entity); not a field.
                diag(severity::note, diag_code::header_without_colon, e, pos,
                     "mbox \"From \" line before the header block; kept, not a field");
                pos = next;
                continue;
            }
            // Not a header field: the header block ends here without an empty line, and this
            // line starts the body (Python: MissingHeaderBodySeparatorDefect).
            body = pos;
            if (pos != begin || e != 0) {
                diag(severity::warning, diag_code::header_missing_blank_line, e, pos,
                     pos != begin
                         ? "line without a colon inside the header block; the header "
                           "block ends here and the body starts with this line"
                         : "the part starts with a line that is not a header field and "
                           "no empty line; it has no header and that line starts its body");
            }
            return finish();
        }
        saw_nul |= (odd & 1) != 0;
        saw_8bit |= (odd & 2) != 0;
        if (n == 0) {
            diag(severity::warning, diag_code::header_empty_name, e, pos,
                 "header field with an empty name; kept");
        } else if (colon != n) {
            diag(severity::note, diag_code::header_name_whitespace, e, pos,
                 "white space between field name and colon (obsolete syntax, RFC 5322 §4.5.1)");
        }
        if (interpreting) {
            if (hdrs.size() - first >= limits_.max_header_fields) {
                interpreting = false;
                diag(severity::error, diag_code::header_count_limit, e, pos,
                     "more than " + std::to_string(limits_.max_header_fields) +
                         " header fields; the rest are kept as raw bytes but not interpreted");
            } else if (next - pos > header_field_view::max_size) {
                interpreting = false;
                diag(severity::error, diag_code::header_block_limit, e, pos,
                     "a header field longer than 4 GiB; the rest of the block is kept as raw "
                     "bytes but not interpreted");
            } else {
                // header_field_view(raw) finds the name and value again as done here.
                hdrs.push_back({static_cast<std::uint32_t>(pos - begin),
                                static_cast<std::uint32_t>(next - pos)});
                shapes_.push_back(
                    {static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(colon + 1)});
            }
        }
        pos = next;
    }
    if (!blank) {
        body = size_;
        if (hdrs.size() > first && e != 0)
            diag(severity::warning, diag_code::header_missing_blank_line, e, size_,
                 "the input ends inside the header block; the part has an empty body");
    }
    return finish();
}

std::uint32_t parser::add_type(content_type ct) {
    // What the parser does with an entity of this type, decided once per distinct type.
    // message/external-body (RFC 2046 §5.2.3) carries the phantom body's header block and
    // is parsed like an encapsulated message, as Python's email does.
    type_kind_.push_back(ct.is_multipart() ? entity_kind::multipart
                         : ct.is_encapsulated_message() || ct.is("message", "external-body")
                             ? entity_kind::message
                             : entity_kind::leaf);
    doc_.types_.push_back(std::move(ct));
    return static_cast<std::uint32_t>(doc_.types_.size() - 1);
}

void parser::interpret_headers(std::uint32_t e, bool in_digest) {
    auto& r = doc_.entities_[e];
    // e's fields are the last ones; offsets are local to the buffer being parsed.
    const detail::field_record* records = doc_.fields_.data() + r.first_header;
    bool have_ct = false, have_cte = false;
    // The known fields (entity_record::known): absent unless found below, where the header
    // block is at hand.
    const bool record_known = shapes_.size() <= detail::entity_record::known_absent;
    for (int known = 0; known < 3 && record_known; ++known)
        r.set_known(known, detail::entity_record::known_absent);
    for (std::size_t k = 0; k < shapes_.size(); ++k) {
        // Only a few fields matter here; their lengths filter the rest cheaply.
        const field_shape shape = shapes_[k];
        if (shape.name_size != 12 && shape.name_size != 25 && shape.name_size != 10 &&
            shape.name_size != 16)
            continue;
        const header_field_view f(
            std::string_view(data_ + r.begin + records[k].offset, records[k].size), shape.name_size,
            shape.value_offset);
        if (const int known = detail::known_field(f.name()); known >= 0) {
            if (r.known(known) == detail::entity_record::known_absent)
                r.set_known(known, static_cast<std::uint8_t>(k));
            continue;
        }
        if (f.is("Content-Type")) {
            if (have_ct) {
                diag(severity::warning, diag_code::duplicate_field, e,
                     std::uint64_t(f.raw().data() - data_),
                     "second Content-Type field; the first one is used");
                continue;
            }
            have_ct = true;
            value_issues is;
            std::string folded;
            std::string_view v =
                shape.folded ? unfolded_view(f.raw_value(), folded) : trimmed(f.raw_value());
            // Archives repeat a handful of Content-Type values thousands of times: each
            // distinct value is parsed once (the cache keys are views into the input, so
            // only unfolded values are cached); its issues are reported for every part.
            if (auto hit = folded.empty() ? type_cache_.find(v) : type_cache_.end();
                hit != type_cache_.end()) {
                r.type = hit->second.index;
                is = hit->second.issues;
            } else {
                content_type ct;
                parse_content_type(v, is, ct);
                r.type = add_type(std::move(ct));
                if (folded.empty()) type_cache_.emplace(v, cached_type{r.type, is});
            }
            auto off = static_cast<std::uint64_t>(f.raw().data() - data_);
            if (is.invalid) {
                diag(severity::warning, diag_code::content_type_invalid, e, off,
                     "Content-Type \"" + f.value() +
                         "\" is not type/subtype; using text/plain "
                         "(RFC 2045 §5.2)");
            } else {
                r.has_content_type = true;
            }
            // Only when there is something to say: the std::function costs an allocation.
            if (is.any()) {
                each_parameter_issue(is, [&](severity sev, diag_code code, std::string_view what) {
                    std::string message = "Content-Type ";
                    message += what;
                    diag(sev, code, e, off, std::move(message));
                });
            }
        } else if (f.is("Content-Transfer-Encoding")) {
            if (have_cte) continue;
            have_cte = true;
            r.encoding = parse_transfer_encoding(f.raw_value());
            if (r.encoding == transfer_encoding::unknown) {
                diag(severity::warning, diag_code::unknown_transfer_encoding, e,
                     std::uint64_t(f.raw().data() - data_),
                     "unknown Content-Transfer-Encoding \"" + f.value() +
                         "\"; the body is taken as it is (RFC 2045 §6.4)");
            }
        }
    }
    if (!have_ct) r.type = in_digest ? default_digest_type : default_text_type;
}

delim_match parser::parse_entity(std::uint32_t e, std::uint32_t depth, bool in_digest) {
    std::uint64_t body = parse_headers(e);
    auto& r0 = doc_.entities_[e];
    r0.body_begin = body;
    interpret_headers(e, in_digest);
    auto& r = doc_.entities_[e];

    if (e == 0 && doc_.fields_.empty()) {
        // No MIME structure at all. Word and others save plain HTML under a .mht name.
        std::uint64_t p = 0;
        if (size_ >= 3 && std::memcmp(data_, "\xEF\xBB\xBF", 3) == 0) p = 3;  // UTF-8 BOM
        while (p < size_ &&
               (data_[p] == ' ' || data_[p] == '\t' || data_[p] == '\r' || data_[p] == '\n'))
            ++p;
        bool html = p < size_ && data_[p] == '<';
        if (html) {
            content_type h;
            h.type = "text";
            h.subtype = "html";
            r.type = add_type(std::move(h));
        }
        diag(severity::warning, diag_code::no_mime_structure, e, 0,
             html ? "no MIME header: the input is read as one text/html document"
                  : "no MIME header: the input is read as one text/plain body");
    }

    const entity_kind kind = type_kind_[r.type];
    bool over_depth = depth >= limits_.max_depth;
    if (kind == entity_kind::multipart) {
        if (over_depth) {
            diag(severity::error, diag_code::depth_limit, e, r.begin,
                 "nesting deeper than " + std::to_string(limits_.max_depth) +
                     " levels; this multipart is kept as an opaque body");
        } else if (r.encoding == transfer_encoding::base64 ||
                   r.encoding == transfer_encoding::quoted_printable) {
            // RFC 2045 §6.4 / REL-2.2: multiparts cannot have an encoding. Parse the body as
            // it is; parse_multipart decodes it if it has no delimiter.
            diag(severity::error, diag_code::multipart_with_encoding, e, r.begin,
                 "multipart with Content-Transfer-Encoding " +
                     std::string(transfer_encoding_name(r.encoding)) +
                     " (RFC 2045 §6.4 forbids it); the body is parsed as it is, or decoded if it "
                     "has no delimiter");
            return parse_multipart(e, depth);
        } else {
            return parse_multipart(e, depth);
        }
    } else if (kind == entity_kind::message) {
        if (over_depth) {
            diag(severity::error, diag_code::depth_limit, e, r.begin,
                 "nesting deeper than " + std::to_string(limits_.max_depth) +
                     " levels; this message is kept as an opaque body");
        } else if (r.encoding == transfer_encoding::base64 ||
                   r.encoding == transfer_encoding::quoted_printable) {
            return parse_encoded_message(e, depth, body);
        } else {
            return parse_message(e, depth);
        }
    }
    // A leaf (or an opaque entity): the body runs to the next delimiter of any enclosing
    // multipart, or to the end of the input.
    delim_match m = find_delimiter(body, stack_.size());
    doc_.entities_[e].body_end = leaf_body_end(body, m);
    return m;
}

// A message/* entity e with base64 or quoted-printable encoding, whose body starts at `body`.
// Outlook attaches mail as base64 message/rfc822: decoded and parsed with REL-2.2's
// machinery and budgets. RFC 6532 §3.5 allows any encoding on message/global, so only the
// other types are reported. Out of line, so that parse_entity's frame (one per nesting
// level, up to hard_max_depth) stays small.
[[gnu::noinline]] delim_match parser::parse_encoded_message(std::uint32_t e, std::uint32_t depth,
                                                            std::uint64_t body) {
    const auto& r = doc_.entities_[e];
    const content_type& ct = doc_.type_of(e);
    const std::string what = "message/" + ct.subtype + " with Content-Transfer-Encoding " +
                             std::string(transfer_encoding_name(r.encoding));
    const bool allowed = ct.is("message", "global");
    const std::uint64_t begin = r.begin;
    const delim_match m = find_delimiter(body, stack_.size());
    const std::uint64_t end = leaf_body_end(body, m);
    const bool parts_left = doc_.entities_.size() < limits_.max_parts;
    const bool decode = parts_left && !decode_refusal(body, end, "the " + what);
    if (!allowed || !decode) {
        diag(severity::warning, diag_code::message_with_encoding, e, begin,
             what + (allowed ? "" : " (RFC 2046 §5.2.1 forbids it)") +
                 (decode ? "; its body is decoded and the message in it parsed (their "
                           "offsets lie beyond the input; diagnostics inside give the "
                           "encoded body's offset)"
                         : "; kept as a leaf (decode_to gives the message)"));
    }
    if (!parts_left) {
        if (!part_limit_hit_) {
            part_limit_hit_ = true;
            diag(severity::error, diag_code::part_count_limit, e, body,
                 "more than " + std::to_string(limits_.max_parts) +
                     " entities; the encapsulated message is kept as an opaque body");
        }
    } else if (may_decode(e, body, end, "the " + what)) {
        parse_decoded_message(e, depth, body, end);
        return m;
    }
    doc_.entities_[e].body_end = end;
    return m;
}

// Where a leaf body starting at `body` ends, given the delimiter that follows it (if any).
std::uint64_t parser::leaf_body_end(std::uint64_t body, const delim_match& m) const {
    if (m.found) return std::max(m.begin, body);
    std::uint64_t end = size_;
    // Inside a multipart, the end of the input stands where the missing delimiter would
    // be, and the line end before it belongs to that delimiter (as in Python).
    if (!stack_.empty() && end > body) {
        if (end - body >= 2 && data_[end - 2] == '\r' && data_[end - 1] == '\n') {
            end -= 2;
        } else if (data_[end - 1] == '\n' || data_[end - 1] == '\r') {
            end -= 1;
        }
    }
    return end;
}

delim_match parser::parse_message(std::uint32_t e, std::uint32_t depth) {
    auto& r = doc_.entities_[e];
    std::uint64_t body = r.body_begin;
    if (doc_.entities_.size() >= limits_.max_parts) {
        if (!part_limit_hit_) {
            part_limit_hit_ = true;
            diag(severity::error, diag_code::part_count_limit, e, body,
                 "more than " + std::to_string(limits_.max_parts) +
                     " entities; the encapsulated message is kept as an opaque body");
        }
        delim_match m = find_delimiter(body, stack_.size());
        doc_.entities_[e].body_end = m.found ? std::max(m.begin, body) : size_;
        return m;
    }
    r.kind = entity_kind::message;
    std::uint32_t child = new_entity(e, body);
    delim_match m = parse_entity(child, depth + 1, false);
    auto& c = doc_.entities_[child];
    doc_.entities_[e].body_end = m.found ? c.body_end : size_;
    return m;
}

delim_match parser::parse_multipart(std::uint32_t e, std::uint32_t depth) {
    std::uint64_t body = doc_.entities_[e].body_begin;
    doc_.entities_[e].kind = entity_kind::multipart;
    doc_.entities_[e].multipart = static_cast<std::uint32_t>(doc_.multiparts_.size());
    doc_.multiparts_.emplace_back();
    const bool digest = doc_.type_of(e).subtype == "digest";
    std::string boundary;
    if (auto b = doc_.type_of(e).param("boundary")) boundary = std::string(*b);
    if (boundary.empty()) {
        diag(severity::warning, diag_code::multipart_without_boundary, e, doc_.entities_[e].begin,
             "multipart without a boundary parameter");
    } else if (!boundary_is_valid(boundary)) {
        diag(severity::note, diag_code::boundary_invalid, e, doc_.entities_[e].begin,
             "boundary \"" + boundary + "\" is not valid per RFC 2046 §5.1.1; used as it is");
    }

    delim_match m;
    if (!boundary.empty()) {
        set_boundary(e, boundary);
        stack_.push_back({e});
        m = find_delimiter(body, stack_.size());
    }
    const std::size_t level = stack_.size() - (boundary.empty() ? 0 : 1);
    if (boundary.empty() || !m.found || m.level != level) {
        // The declared boundary never occurs before the enclosing one (or the end).
        std::uint64_t region_end = m.found ? m.begin : size_;
        if (boundary.empty()) region_end = find_delimiter(body, stack_.size()).begin;
        if (!boundary.empty()) stack_.pop_back();
        // REL-2.2 salvage: a base64 or quoted-printable body without a delimiter may be an
        // encoded multipart body. m is now the enclosing delimiter that ends it, if any.
        if (!boundary.empty() &&
            (doc_.entities_[e].encoding == transfer_encoding::base64 ||
             doc_.entities_[e].encoding == transfer_encoding::quoted_printable)) {
            if (parse_decoded_body(e, depth, body, m)) return m;
        }
        std::string guess = guess_boundary(body, region_end);
        if (!guess.empty() && guess != boundary) {
            diag(severity::ambiguous, diag_code::boundary_guessed, e, body,
                 (boundary.empty() ? std::string("no boundary declared")
                                   : "declared boundary \"" + boundary + "\" never occurs") +
                     "; using \"" + guess + "\", which delimits the body");
            set_boundary(e, guess);
            stack_.push_back({e});
            m = find_delimiter(body, stack_.size());
        } else {
            if (!boundary.empty())
                diag(severity::error, diag_code::boundary_not_found, e, body,
                     "boundary \"" + boundary + "\" never occurs in the body");
            mp(e).boundary.clear();
            // Salvage: a body that is itself one entity (headers first) becomes one part.
            std::uint64_t p = body;
            while (p < region_end && (data_[p] == '\r' || data_[p] == '\n')) ++p;
            delim_match outer = find_delimiter(body, stack_.size());
            if (p < region_end && looks_like_header_line(p, region_end) &&
                doc_.entities_.size() < limits_.max_parts) {
                diag(severity::ambiguous, diag_code::multipart_no_parts, e, p,
                     "multipart without any delimiter; its body is read as one body part");
                std::uint32_t child = new_entity(e, p);
                doc_.entities_[child].delim_begin = p;
                delim_match cm = parse_entity(child, depth + 1, digest);
                std::uint64_t cend = doc_.entities_[child].body_end;
                mp(e).close_begin = mp(e).close_end = cend;
                doc_.entities_[e].body_end = cm.found ? std::max(cm.begin, cend) : size_;
                return cm;
            }
            diag(severity::warning, diag_code::multipart_no_parts, e, body,
                 "multipart without body parts; the whole body is kept as its preamble");
            auto& rr = doc_.entities_[e];
            rr.body_end = outer.found ? std::max(outer.begin, body) : size_;
            mp(e).close_begin = mp(e).close_end = rr.body_end;
            return outer;
        }
    }

    return parse_parts(e, depth, body, m, digest);
}

// The body parts of multipart e, whose body starts at `body` and whose first delimiter is
// m (its boundary is on top of the stack); pops the stack and returns the delimiter of an
// enclosing multipart that ends e, if any.
delim_match parser::parse_parts(std::uint32_t e, std::uint32_t depth, std::uint64_t body,
                                delim_match m, bool digest) {
    // m is the first delimiter of this multipart; everything before it is the preamble.
    if (m.begin > body) near_miss(e, body, m.begin);
    const std::size_t mine = stack_.size() - 1;
    for (;;) {
        if (m.close) {
            auto& r = mp(e);
            r.close_begin = m.begin;
            r.close_end = m.line_end;
            if (r.child_count == 0)
                diag(severity::warning, diag_code::multipart_no_parts, e, m.begin,
                     "multipart whose first delimiter is the close delimiter: no body parts");
            stack_.pop_back();
            // The epilogue runs to the next delimiter of an enclosing multipart.
            delim_match outer = find_delimiter(m.line_end, stack_.size());
            auto& rr = doc_.entities_[e];
            rr.body_end = outer.found ? std::max(outer.begin, m.line_end) : size_;
            return outer;
        }
        if (doc_.entities_.size() >= limits_.max_parts) {
            if (!part_limit_hit_) {
                part_limit_hit_ = true;
                diag(severity::error, diag_code::part_count_limit, e, m.begin,
                     "more than " + std::to_string(limits_.max_parts) +
                         " entities; the rest of this multipart is kept as raw bytes");
            }
            stack_.pop_back();
            delim_match outer = find_delimiter(m.begin, stack_.size());
            mp(e).close_begin = mp(e).close_end = m.begin;
            doc_.entities_[e].body_end = outer.found ? std::max(outer.begin, m.begin) : size_;
            return outer;
        }
        // A delimiter line right after a delimiter line: RFC 2046's grammar derives no body
        // part there (each delimiter needs the line end before it), and Python skips it.
        std::uint64_t child_begin = m.line_end;
        for (delim_match again; child_begin + 1 < size_ && data_[child_begin] == '-' &&
                                data_[child_begin + 1] == '-' &&
                                match_at(data_ + child_begin, stack_.size(), child_begin, again) &&
                                again.level == mine && !again.close;) {
            diag(severity::warning, diag_code::repeated_delimiter, e, child_begin,
                 "a delimiter line follows a delimiter line; skipped (no body part between them)");
            child_begin = again.line_end;
            again = delim_match{};
        }
        std::uint32_t child = new_entity(e, child_begin);
        doc_.entities_[child].delim_begin = m.begin;
        delim_match next = parse_entity(child, depth + 1, digest);
        if (next.found && next.level == mine) {
            m = next;
            continue;
        }
        // Ended by an enclosing boundary or by the end of the input: no close delimiter.
        auto& r = doc_.entities_[e];
        std::uint64_t end = doc_.entities_[child].body_end;
        mp(e).close_begin = end;
        mp(e).close_end = r.body_end = next.found ? end : size_;
        if (next.found) {
            diag(severity::warning, diag_code::implicit_close_by_outer, e, next.begin,
                 "multipart ends at a delimiter of an enclosing multipart without its own close "
                 "delimiter \"--" +
                     std::string(doc_.boundary_of(e)) + "--\"");
        } else {
            diag(severity::warning, diag_code::missing_close_delimiter, e, size_,
                 "the input ends before the close delimiter \"--" +
                     std::string(doc_.boundary_of(e)) + "--\"; the last part runs to the end");
        }
        stack_.pop_back();
        return next;
    }
}

// The REL-2.2 budgets for decoding the encoded body [body, end) of `what` (e.g. "a base64
// multipart without delimiters"): nullopt if it may be decoded, "" if decoding is off, else
// what the decode_limit diagnostic says. Changes nothing.
std::optional<std::string> parser::decode_refusal(std::uint64_t body, std::uint64_t end,
                                                  const std::string& what) const {
    if (max_decoded_nesting_ == 0) return std::string();
    if (decoded_nesting_ >= max_decoded_nesting_)
        return what + " inside " + std::to_string(decoded_nesting_) +
               " decoded bodies (the limit); its body is not decoded and is kept as it is";
    if (end - body > decode_budget_)
        return "decoding the body of " + what +
               " would exceed the limit of decoded octets for the document (twice its size); "
               "the body is kept as it is";
    return std::nullopt;
}

// Whether the encoded body [body, end) of entity e may be decoded: if so the budget is
// charged; otherwise a decode_limit diagnostic (unless decoding is off) says why.
bool parser::may_decode(std::uint32_t e, std::uint64_t body, std::uint64_t end,
                        const std::string& what) {
    std::optional<std::string> refused = decode_refusal(body, end, what);
    if (!refused) {
        decode_budget_ -= end - body;
        return true;
    }
    if (!refused->empty()) {
        diag(severity::error, diag_code::decode_limit, e, body, std::move(*refused));
        if (end - body > decode_budget_) decode_budget_ = 0;
    }
    return false;
}

// Makes `seg` (the decoded body of entity e, whose encoded body starts at `body`) the
// buffer being parsed: data_, size_ and an empty stack_ are its own, offsets are local to
// it, and diagnostics report the encoded body's offset in the input. The caller parses,
// then calls leave_decoded.
parser::decoded_context parser::enter_decoded(std::unique_ptr<detail::decoded_body> seg,
                                              std::uint32_t e, std::uint64_t body) {
    decoded_context saved;
    saved.data = data_;
    saved.size = size_;
    saved.stack.swap(stack_);
    saved.input_offset = decoded_input_offset_;
    saved.note = std::move(decoded_note_);
    saved.crlf = crlf_;
    saved.lf = lf_;
    saved.cr = cr_;
    // Place it in the offset space: after the input and every earlier decoded body.
    const std::uint64_t input_size = doc_.bytes_.size();
    seg->base = doc_.decoded_.empty()
                    ? input_size + 1
                    : doc_.decoded_.back()->base + doc_.decoded_.back()->bytes.size() + 1;
    seg->entity = e;
    // Inside a decoded body the input offset is already the outermost one.
    seg->input_offset = decoded_nesting_ > 0 ? decoded_input_offset_ : body;
    saved.segment = doc_.decoded_.size();
    data_ = seg->bytes.data();
    size_ = seg->bytes.size();
    decoded_input_offset_ = seg->input_offset;
    doc_.decoded_.push_back(std::move(seg));
    const std::string path = path_of(e);
    decoded_note_ = " [in the " + std::string(transfer_encoding_name(doc_.entities_[e].encoding)) +
                    "-decoded body of " +
                    (path.empty() ? std::string("the message") : "part " + path) +
                    "; the offset is where that encoded body starts in the input]";
    ++decoded_nesting_;
    return saved;
}

// Back to the buffer enter_decoded left, and e's descendants moved from offsets local to
// the decoded body into the document's offset space. A nested decoded entity's own range
// is in this body; its close delimiter and its descendants are in its own decoded body,
// already placed. e's body stays [body, end), the encoded one.
void parser::leave_decoded(decoded_context& saved, std::uint32_t e, std::uint64_t body,
                           std::uint64_t end) {
    --decoded_nesting_;
    decoded_note_ = std::move(saved.note);
    decoded_input_offset_ = saved.input_offset;
    crlf_ = saved.crlf;  // line ends of decoded octets say nothing about the file
    lf_ = saved.lf;
    cr_ = saved.cr;
    data_ = saved.data;
    size_ = saved.size;
    stack_.swap(saved.stack);

    const std::uint64_t base = doc_.decoded_[saved.segment]->base;
    const auto end_entity = static_cast<std::uint32_t>(doc_.entities_.size());
    doc_.decoded_[saved.segment]->end_entity = end_entity;
    std::size_t k = saved.segment + 1;  // decoded bodies nested in this one, in entity order
    for (std::uint32_t i = e + 1; i < end_entity;) {
        auto& c = doc_.entities_[i];
        c.begin += base;
        c.body_begin += base;
        c.body_end += base;
        c.delim_begin += base;
        if (c.decoded_body) {
            while (k < doc_.decoded_.size() && doc_.decoded_[k]->entity < i) ++k;
            std::uint32_t skip_to = i + 1;
            if (k < doc_.decoded_.size() && doc_.decoded_[k]->entity == i)
                skip_to = doc_.decoded_[k]->end_entity;
            i = std::max(skip_to, i + 1);
            continue;
        }
        if (c.multipart != detail::entity_record::none) {
            mp(i).close_begin += base;
            mp(i).close_end += base;
        }
        ++i;
    }
    auto& r = doc_.entities_[e];
    if (r.multipart != detail::entity_record::none) {
        mp(e).close_begin += base;
        mp(e).close_end += base;
    }
    r.body_begin = body;
    r.body_end = end;
    r.decoded_body = true;
}

// REL-2.2 salvage. Multipart e (base64 or quoted-printable) has no delimiter of its
// boundary in its body as written [body, end of a leaf body before `outer`). Decode that
// body; if the decoded octets have a delimiter, parse them as e's body: e's parts become
// ordinary entities whose offsets address the decoded body (document::view), and e stays
// an entity whose body (what serialize writes) is the encoded one. Returns false, with
// nothing changed but the budget and perhaps a decode_limit diagnostic, otherwise. Out of
// line, so that parse_multipart's frame (one per nesting level) stays small.
[[gnu::noinline]] bool parser::parse_decoded_body(std::uint32_t e, std::uint32_t depth,
                                                  std::uint64_t body, const delim_match& outer) {
    const std::uint64_t end = leaf_body_end(body, outer);
    const transfer_encoding enc = doc_.entities_[e].encoding;
    const std::string enc_name(transfer_encoding_name(enc));
    if (!may_decode(e, body, end, "a " + enc_name + " multipart without delimiters")) return false;

    auto seg = std::make_unique<detail::decoded_body>();
    const std::string_view encoded(data_ + body, end - body);
    codec_status st = enc == transfer_encoding::base64 ? base64_decode(encoded, seg->bytes)
                                                       : qp_decode(encoded, seg->bytes);
    delim_match first;
    {
        // Only e's boundary is active in the decoded body: is there a delimiter of it?
        const char* const saved_data = data_;
        const std::uint64_t saved_size = size_;
        std::vector<frame> saved_stack;
        saved_stack.swap(stack_);
        data_ = seg->bytes.data();
        size_ = seg->bytes.size();
        stack_.push_back({e});
        first = find_delimiter(0, 1);
        data_ = saved_data;
        size_ = saved_size;
        stack_.swap(saved_stack);
        if (!first.found) return false;
    }
    const std::uint64_t seg_size = seg->bytes.size();
    decoded_context saved = enter_decoded(std::move(seg), e, body);
    stack_.push_back({e});
    const bool digest = doc_.type_of(e).subtype == "digest";
    parse_parts(e, depth, 0, first, digest);  // pops e's frame
    leave_decoded(saved, e, body, end);

    std::string msg = "no delimiter of boundary \"" + std::string(doc_.boundary_of(e)) +
                      "\" in the body as written; decoded the " + enc_name + " body (" +
                      std::to_string(seg_size) + " octets) and read " +
                      std::to_string(mp(e).child_count) +
                      (mp(e).child_count == 1 ? " part" : " parts") +
                      " from it (diagnostics inside the decoded body give this offset)";
    if (!st.clean()) msg += "; the encoding has errors (decode_to reports them)";
    diag(severity::warning, diag_code::multipart_body_decoded, e, body, std::move(msg));
    return true;
}

// A message/* entity e with base64 or quoted-printable encoding (Outlook attaches mail as
// base64 message/rfc822): its body [body, end) is decoded and the message in it parsed as
// e's one entity (path P.1), as for an unencoded message. The entities found are ordinary
// ones whose offsets address the decoded body; e's body (what serialize writes) stays the
// encoded one. The caller has checked the budgets (may_decode).
void parser::parse_decoded_message(std::uint32_t e, std::uint32_t depth, std::uint64_t body,
                                   std::uint64_t end) {
    auto seg = std::make_unique<detail::decoded_body>();
    const std::string_view encoded(data_ + body, end - body);
    if (doc_.entities_[e].encoding == transfer_encoding::base64) {
        base64_decode(encoded, seg->bytes);
    } else {
        qp_decode(encoded, seg->bytes);
    }
    decoded_context saved = enter_decoded(std::move(seg), e, body);
    doc_.entities_[e].kind = entity_kind::message;
    std::uint32_t child = new_entity(e, 0);
    parse_entity(child, depth + 1, false);  // no boundary is active: it runs to the end
    leave_decoded(saved, e, body, end);
}

bool parser::match_at(const char* q, std::size_t nframes, std::uint64_t lower,
                      delim_match& m) const {
    const char* e = data_ + size_;
    const char* after_dashes = q + 2;
    for (std::size_t k = nframes; k-- > 0;) {  // innermost first
        std::string_view b = doc_.boundary_of(stack_[k].entity);
        if (static_cast<std::size_t>(e - after_dashes) < b.size() ||
            !same_octets(after_dashes, b.data(), b.size()))
            continue;
        const char* r = after_dashes + b.size();
        bool close = false;
        if (e - r >= 2 && r[0] == '-' && r[1] == '-') {
            close = true;
            r += 2;
        }
        while (r < e && is_wsp(*r)) ++r;  // transport padding
        if (r != e && *r != '\n' && *r != '\r') continue;
        m.found = true;
        m.close = close;
        m.level = k;
        auto dash = static_cast<std::uint64_t>(q - data_);
        // RFC 2046 §5.1.1: the line end before a delimiter belongs to the delimiter.
        std::uint64_t begin = dash;
        if (dash >= lower + 2 && q[-2] == '\r' && q[-1] == '\n') {
            begin = dash - 2;
        } else if (dash >= lower + 1 && (q[-1] == '\n' || q[-1] == '\r')) {
            begin = dash - 1;
        }
        m.begin = begin;
        if (r == e) {
            m.line_end = size_;
        } else if (*r == '\r' && r + 1 < e && r[1] == '\n') {
            m.line_end = static_cast<std::uint64_t>(r + 2 - data_);
        } else {
            m.line_end = static_cast<std::uint64_t>(r + 1 - data_);
        }
        return true;
    }
    return false;
}

delim_match parser::find_delimiter(std::uint64_t from, std::size_t nframes) const {
    delim_match m;
    m.begin = size_;
    if (nframes == 0) return m;
    const char* const start = data_ + from;
    const char* const e = data_ + size_;
    const char* p = start;
    while (p + 1 < e) {
        const char* q =
            static_cast<const char*>(std::memchr(p, '-', static_cast<std::size_t>(e - p)));
        if (q == nullptr || q + 1 >= e) break;
        if (q[1] != '-') {
            p = q + 2;  // q[1] is not '-', so no "--" starts at q or q+1
            continue;
        }
        // "--" at q; it must begin a line (bare CR counts as a line end, as in Python).
        if ((q == start || q[-1] == '\n' || q[-1] == '\r') && match_at(q, nframes, from, m))
            return m;
        p = q + 1;
    }
    m = delim_match{};
    m.begin = size_;
    return m;
}

// Salvage for a boundary that never occurs: the first "--X" line whose X also appears as
// a close delimiter "--X--" or as at least two delimiter lines.
std::string parser::guess_boundary(std::uint64_t from, std::uint64_t to) {
    std::uint64_t pos = from;
    int tried = 0;
    while (pos < to && tried < 64) {
        std::uint64_t next;
        std::uint64_t le = line_end(pos, &next);
        if (le > to) le = to;
        if (le - pos > 2 && data_[pos] == '-' && data_[pos + 1] == '-') {
            std::string_view cand(data_ + pos + 2, le - pos - 2);
            while (!cand.empty() && is_wsp(cand.back())) cand.remove_suffix(1);
            if (cand.size() >= 2 && cand.substr(cand.size() - 2) == "--") cand.remove_suffix(2);
            if (!cand.empty() && cand.size() <= 200 && cand.find(' ') == std::string_view::npos) {
                ++tried;
                std::string_view rest(data_ + next, to > next ? to - next : 0);
                std::string delim = "--" + std::string(cand);
                std::size_t hits = 0, at = 0;
                bool closed = false;
                while (guess_budget_ > 0 && at < rest.size()) {
                    std::size_t found = rest.find(delim, at);
                    std::uint64_t scanned =
                        (found == std::string_view::npos ? rest.size() : found) - at;
                    guess_budget_ -= std::min<std::uint64_t>(guess_budget_, scanned + 1);
                    if (found == std::string_view::npos) break;
                    at = found;
                    bool line_start = at == 0 || rest[at - 1] == '\n' || rest[at - 1] == '\r';
                    // Only a whole delimiter line counts: "--X", "--X--", padding, line end.
                    std::size_t after = at + delim.size();
                    bool close = rest.substr(after, 2) == "--";
                    if (close) after += 2;
                    while (after < rest.size() && is_wsp(rest[after])) ++after;
                    bool whole = after == rest.size() || rest[after] == '\n' || rest[after] == '\r';
                    if (line_start && whole) {
                        ++hits;
                        closed |= close;
                    }
                    at += delim.size();
                    if (hits >= 2 || closed) break;
                }
                if (closed || hits >= 2) return std::string(cand);
            }
        }
        if (next == pos) break;
        pos = next;
    }
    return {};
}

// A preamble line made of dashes and the boundary that is not a delimiter: "-----b" or
// "-b" instead of "--b" (Chromium's invalid-bad-boundary test archives have one).
void parser::near_miss(std::uint32_t e, std::uint64_t from, std::uint64_t to) {
    std::string_view b = doc_.boundary_of(e);
    std::uint64_t pos = from;
    while (pos < to) {
        std::uint64_t next;
        std::uint64_t le = std::min(line_end(pos, &next), to);
        std::string_view line(data_ + pos, le - pos);
        while (!line.empty() && is_wsp(line.back())) line.remove_suffix(1);
        if (line.ends_with("--") && line.size() >= 2 + b.size()) line.remove_suffix(2);
        if (!line.empty() && line[0] == '-' && line.ends_with(b)) {
            std::string_view dashes = line.substr(0, line.size() - b.size());
            if (dashes != "--" && dashes.find_first_not_of('-') == std::string_view::npos) {
                diag(severity::warning, diag_code::near_miss_delimiter, e, pos,
                     "the preamble has the line \"" + std::string(line.substr(0, 100)) +
                         "\", which is not a delimiter (RFC 2046 §5.1.1 needs exactly \"--\" "
                         "and the boundary); it and what follows it stay preamble text");
                return;
            }
        }
        if (next <= pos) break;
        pos = next;
    }
}

bool parser::looks_like_header_line(std::uint64_t pos, std::uint64_t to) const {
    std::uint64_t next;
    std::uint64_t le = std::min(line_end(pos, &next), to);
    std::string_view line(data_ + pos, le - pos);
    std::size_t n = 0;
    while (n < line.size() && detail::is_ftext(line[n])) ++n;
    if (n == 0 || n >= line.size() || line[n] != ':') return false;
    std::string_view name = line.substr(0, n);
    return name.size() > 8 && iequals(name.substr(0, 8), "Content-");
}

}  // namespace mhtml::mime
