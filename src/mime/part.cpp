#include "mhtml/mime/part.hpp"

#include <algorithm>
#include <functional>

#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/mime/quoted_printable.hpp"

namespace mhtml::mime {

namespace {
const detail::entity_record& rec(const detail::document_state* d, std::uint32_t i) {
    return d->record(i);
}
}  // namespace

const document& part_view::doc() const noexcept {
    return doc_->owner();
}

std::string part_view::path() const {
    // Collect the 1-based numbers from this entity up to the outermost one.
    std::uint32_t nums[64];
    std::size_t n = 0;
    std::string out;
    std::vector<std::uint32_t> more;
    for (std::uint32_t i = index_; rec(doc_, i).parent != detail::entity_record::none;
         i = rec(doc_, i).parent) {
        if (n < 64) {
            nums[n++] = rec(doc_, i).number;
        } else {
            more.push_back(rec(doc_, i).number);
        }
    }
    for (auto it = more.rbegin(); it != more.rend(); ++it) {
        if (!out.empty()) out += '.';
        out += std::to_string(*it);
    }
    while (n > 0) {
        if (!out.empty()) out += '.';
        out += std::to_string(nums[--n]);
    }
    return out;
}

std::uint32_t part_view::depth() const noexcept {
    std::uint32_t d = 0;
    for (auto i = rec(doc_, index_).parent; i != detail::entity_record::none;
         i = rec(doc_, i).parent)
        ++d;
    return d;
}
entity_kind part_view::kind() const noexcept {
    return rec(doc_, index_).kind;
}

const content_type& part_view::content_type() const noexcept {
    return doc_->type_of(index_);
}
bool part_view::has_content_type() const noexcept {
    return rec(doc_, index_).has_content_type;
}
transfer_encoding part_view::encoding() const noexcept {
    return rec(doc_, index_).encoding;
}

header_list detail::document_state::headers_of(std::uint32_t i) const noexcept {
    const auto& r = entities_[i];
    std::uint32_t end = i + 1 < entities_.size() ? entities_[i + 1].first_header
                                                 : static_cast<std::uint32_t>(fields_.size());
    return {view(r.begin, r.body_begin).data(), fields_.data() + r.first_header,
            end - r.first_header};
}

header_list part_view::headers() const noexcept {
    return doc_->headers_of(index_);
}

std::optional<header_field_view> part_view::header(std::string_view name) const noexcept {
    // The fields every part is asked for were found while the parser read the block.
    if (const int known = detail::known_field(name); known >= 0) {
        const std::uint8_t k = rec(doc_, index_).known(known);
        if (k == detail::entity_record::known_absent) return std::nullopt;
        if (k != detail::entity_record::known_unknown) return headers()[k];
    }
    return headers().find(name);
}

std::optional<std::string> part_view::content_id() const {
    if (auto f = header("Content-ID")) return parse_msg_id(f->value());
    return std::nullopt;
}

std::optional<std::string> part_view::content_location() const {
    if (auto f = header("Content-Location")) return f->value();
    return std::nullopt;
}

std::optional<std::string> part_view::content_base() const {
    if (auto f = header("Content-Base")) return f->value();
    return std::nullopt;
}

std::optional<content_disposition> part_view::disposition() const {
    if (auto f = header("Content-Disposition")) {
        value_issues is;
        return parse_content_disposition(f->value(), is);
    }
    return std::nullopt;
}

std::uint64_t part_view::offset() const noexcept {
    return rec(doc_, index_).begin;
}
std::uint64_t part_view::body_offset() const noexcept {
    return rec(doc_, index_).body_begin;
}
std::uint64_t part_view::input_offset() const noexcept {
    return doc_->input_offset(rec(doc_, index_).begin);
}
bool part_view::body_was_decoded() const noexcept {
    return rec(doc_, index_).decoded_body;
}
bool part_view::in_decoded_body() const noexcept {
    return rec(doc_, index_).begin > doc_->bytes().size();
}

std::string_view part_view::raw() const noexcept {
    const auto& r = rec(doc_, index_);
    return doc_->view(r.begin, r.body_end);
}
std::string_view part_view::raw_headers() const noexcept {
    const auto& r = rec(doc_, index_);
    return doc_->view(r.begin, r.body_begin);
}
std::string_view part_view::raw_body() const noexcept {
    const auto& r = rec(doc_, index_);
    return doc_->view(r.body_begin, r.body_end);
}
std::string_view part_view::preamble() const noexcept {
    const auto& r = rec(doc_, index_);
    if (r.kind != entity_kind::multipart) return {};
    std::uint64_t begin = r.body_begin;
    if (r.decoded_body) {
        const detail::decoded_body* b = doc_->decoded_body_of(index_);
        if (b == nullptr) return {};
        begin = b->base;
    }
    std::uint64_t end = r.first_child != detail::entity_record::none
                            ? rec(doc_, r.first_child).delim_begin
                            : doc_->multipart_of(index_).close_begin;
    return doc_->view(begin, end);
}
std::string_view part_view::epilogue() const noexcept {
    const auto& r = rec(doc_, index_);
    if (r.kind != entity_kind::multipart) return {};
    std::uint64_t end = r.body_end;
    if (r.decoded_body) {
        const detail::decoded_body* b = doc_->decoded_body_of(index_);
        if (b == nullptr) return {};
        end = b->base + b->bytes.size();
    }
    return doc_->view(doc_->multipart_of(index_).close_end, end);
}
std::string_view part_view::boundary() const noexcept {
    return doc_->boundary_of(index_);
}

std::optional<part_view> part_view::parent() const noexcept {
    auto p = rec(doc_, index_).parent;
    if (p == detail::entity_record::none) return std::nullopt;
    return part_view(doc_, p);
}

std::vector<part_view> part_view::children() const {
    std::vector<part_view> out;
    for (auto c = rec(doc_, index_).first_child; c != detail::entity_record::none;
         c = rec(doc_, c).next_sibling)
        out.emplace_back(doc_, c);
    return out;
}

std::size_t part_view::child_count() const noexcept {
    const auto& r = rec(doc_, index_);
    if (r.multipart != detail::entity_record::none) return doc_->multipart_of(index_).child_count;
    return r.first_child != detail::entity_record::none ? 1 : 0;  // a message's one entity
}

codec_status part_view::decode_to(std::string& out) const {
    std::string_view body = raw_body();
    switch (encoding()) {
        case transfer_encoding::base64:
            return base64_decode(body, out);
        case transfer_encoding::quoted_printable:
            return qp_decode(body, out);
        default:
            out.append(body);
            return {};
    }
}

codec_status part_view::decode_to(std::string& out, std::vector<diagnostic>& diags) const {
    codec_status st = decode_to(out);
    if (st.clean()) return st;
    std::uint64_t at = body_offset() + st.first_problem;
    std::string_view where;
    if (in_decoded_body()) {
        // Decoded octets have no place in the input: report the encoded body they came from.
        at = input_offset();
        where =
            " [in a part recovered from the decoded body of an encoded multipart or message; "
            "the offset is where that encoded body starts in the input]";
    }
    auto add = [&](severity s, diag_code c, std::string msg) {
        msg += where;
        diags.push_back({s, c, path(), at, std::move(msg)});
    };
    if (st.invalid_char)
        add(severity::warning, diag_code::base64_invalid_char,
            "octets outside the base64 alphabet were skipped (RFC 2045 §6.8)");
    if (st.bad_padding)
        add(severity::warning, diag_code::base64_bad_padding,
            "base64 padding is missing or misplaced; decoded what the quanta give");
    if (st.truncated)
        add(severity::error, diag_code::base64_truncated,
            "base64 ends with an incomplete quantum of one character; its bits were dropped");
    if (st.data_after_padding)
        add(severity::warning, diag_code::base64_data_after_padding,
            "base64 data continues after the final padding; it was decoded as well");
    if (st.invalid_escape)
        add(severity::warning, diag_code::qp_invalid_escape,
            "'=' not followed by two hex digits or a line end; kept literally (RFC 2045 §6.7)");
    if (st.soft_break_at_end)
        add(severity::note, diag_code::qp_soft_break_at_end,
            "quoted-printable body ends with a soft line break; dropped");
    if (st.eight_bit)
        add(severity::note, diag_code::qp_8bit,
            "unencoded 8-bit octets in a quoted-printable body; kept as they are");
    if (st.long_line)
        add(severity::note, diag_code::qp_long_line,
            "quoted-printable line longer than 76 characters; decoded anyway");
    return st;
}

const detail::decoded_body* detail::document_state::segment_at(
    std::uint64_t offset) const noexcept {
    // The last decoded body that starts at or before `offset`.
    auto it =
        std::upper_bound(decoded_.begin(), decoded_.end(), offset,
                         [](std::uint64_t off, const std::unique_ptr<detail::decoded_body>& b) {
                             return off < b->base;
                         });
    if (it == decoded_.begin()) return nullptr;
    const detail::decoded_body* b = std::prev(it)->get();
    return offset - b->base <= b->bytes.size() ? b : nullptr;
}

std::string_view detail::document_state::decoded_view(std::uint64_t begin,
                                                      std::uint64_t end) const noexcept {
    const detail::decoded_body* b = begin > bytes_.size() ? segment_at(begin) : nullptr;
    if (b == nullptr || end < begin || end - b->base > b->bytes.size()) return {};
    return std::string_view(b->bytes).substr(begin - b->base, end - begin);
}

std::uint64_t detail::document_state::offset_of(const char* p) const noexcept {
    // Pointers into different objects compare with std::less, which is a total order. The
    // input's end may be where a decoded body starts in memory: the decoded body wins.
    const std::less<const char*> lt;
    const std::less_equal<const char*> le;
    const char* const in = bytes_.data();
    if (le(in, p) && lt(p, in + bytes_.size())) return static_cast<std::uint64_t>(p - in);
    // The last decoded body that starts at or before p in memory.
    auto it = std::upper_bound(
        by_address_.begin(), by_address_.end(), p,
        [&](const char* q, std::uint32_t i) { return lt(q, decoded_[i]->bytes.data()); });
    if (it != by_address_.begin()) {
        const detail::decoded_body& b = *decoded_[*std::prev(it)];
        if (le(p, b.bytes.data() + b.bytes.size()))
            return b.base + static_cast<std::uint64_t>(p - b.bytes.data());
    }
    if (p == in + bytes_.size()) return bytes_.size();
    return 0;
}

std::uint64_t detail::document_state::input_offset(std::uint64_t offset) const noexcept {
    if (offset <= bytes_.size()) return offset;
    const detail::decoded_body* b = segment_at(offset);
    return b ? b->input_offset : 0;
}

const detail::decoded_body* detail::document_state::decoded_body_of(
    std::uint32_t i) const noexcept {
    if (i >= entities_.size() || !entities_[i].decoded_body) return nullptr;
    auto it = std::lower_bound(decoded_.begin(), decoded_.end(), i,
                               [](const std::unique_ptr<detail::decoded_body>& b, std::uint32_t e) {
                                   return b->entity < e;
                               });
    return it != decoded_.end() && (*it)->entity == i ? it->get() : nullptr;
}

std::vector<part_view> document::parts() const {
    std::vector<part_view> out;
    out.reserve(s_->entities_.size());
    for (std::size_t i = 0; i < s_->entities_.size(); ++i)
        out.emplace_back(s_.get(), std::uint32_t(i));
    return out;
}

namespace {

// The child of entity `parent` numbered `want`, or none. Its children come in the order of
// their numbers, and each one's subtree is contiguous in the table (depth-first), so every
// entity in [first child, last child] lies under a child whose number grows with its index:
// found by bisection, each probe climbing to the child it lies under (a walk along the
// siblings made finding every part of a multipart of 100,000 quadratic). A number in range
// that the bisection does not find is looked for along the siblings too.
std::uint32_t child_numbered(const detail::document_state& d, std::uint32_t parent,
                             std::uint32_t want) noexcept {
    const detail::entity_record& r = d.record(parent);
    constexpr std::uint32_t none = detail::entity_record::none;
    if (r.first_child == none) return none;
    const std::uint32_t last = r.multipart != none ? d.multipart_of(parent).last_child : none;
    // A number no child has (numbered 1 to the count) is answered at once.
    const std::uint32_t count = r.multipart != none ? d.multipart_of(parent).child_count : 1;
    if (want == 0 || want > count) return none;
    // The child of `parent` that entity j lies under (none: j is not under it).
    const auto under = [&](std::uint32_t j) {
        while (j != none && d.record(j).parent != parent) j = d.record(j).parent;
        return j;
    };
    // The answer's child is under [lo, hi] (a message's one entity: first_child).
    std::uint32_t lo = r.first_child, hi = last == none ? r.first_child : last;
    while (lo < hi) {
        const std::uint32_t c = under(lo + (hi - lo) / 2);
        if (c == none || c < lo) break;
        if (d.record(c).number >= want) {
            hi = c;
        } else if (const std::uint32_t next = d.record(c).next_sibling; next != none && next > c) {
            lo = next;  // past c's subtree: its next sibling starts there
        } else {
            break;
        }
    }
    if (const std::uint32_t c = under(lo); c != none && d.record(c).number == want) return c;
    // Not there: along the siblings, in case the table is not as above after all (what is
    // found either way is a child numbered `want`).
    for (std::uint32_t c = r.first_child; c != none; c = d.record(c).next_sibling)
        if (d.record(c).number == want) return c;
    return none;
}

}  // namespace

std::optional<part_view> document::find(std::string_view path) const {
    std::uint32_t cur = 0;
    while (!path.empty()) {
        std::size_t dot = path.find('.');
        std::string_view head = path.substr(0, dot);
        std::uint32_t want = 0;
        for (char c : head) {
            if (c < '0' || c > '9' || want > 100'000'000) return std::nullopt;
            want = want * 10 + std::uint32_t(c - '0');
        }
        if (head.empty()) return std::nullopt;
        const std::uint32_t c = child_numbered(*s_, cur, want);
        if (c == detail::entity_record::none) return std::nullopt;
        cur = c;
        path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    }
    return part_view(s_.get(), cur);
}

}  // namespace mhtml::mime
