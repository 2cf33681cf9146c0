#pragma once
/// Header fields, RFC 5322 §2.2 / §3.6 and RFC 2045 §3 (with the obsolete syntax of
/// RFC 5322 §4.5: white space before the colon, empty field bodies).
///
/// A header_field_view is a set of views into the input: nothing is copied or decoded
/// until asked. Repeated fields are kept in the order they appear.

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include "mhtml/ascii.hpp"

#include "mhtml/export.hpp"

namespace mhtml::mime {

/// One field of a header block, exactly as it appears in the input. Borrowed and cheap to
/// make: the document stores each field as 8 bytes (archives with 100,000 parts have half a
/// million fields) and makes these views when asked.
class MHTML_EXPORT header_field_view {
public:
    header_field_view() = default;
    /// `raw`: one whole field as the parser delimits it (name, optional white space, colon,
    /// value, folded lines, the final line end if any).
    explicit header_field_view(std::string_view raw) noexcept;
    /// The same, for a caller that has found the name's length and where the value starts
    /// (one past the colon) already.
    header_field_view(std::string_view raw, std::size_t name_size,
                      std::size_t value_offset) noexcept
        : data_(raw.data()),
          raw_size_(static_cast<std::uint32_t>(raw.size())),
          name_size_(static_cast<std::uint32_t>(name_size)),
          value_offset_(static_cast<std::uint32_t>(value_offset)) {
        std::size_t end = raw.size();
        if (end >= value_offset + 2 && raw[end - 2] == '\r' && raw[end - 1] == '\n') {
            end -= 2;
        } else if (end > value_offset && (raw[end - 1] == '\n' || raw[end - 1] == '\r')) {
            end -= 1;
        }
        value_size_ = static_cast<std::uint32_t>(end - value_offset);
    }

    /// The whole field: name, colon, value, folding, final line end.
    std::string_view raw() const noexcept { return {data_, raw_size_}; }
    /// The field name as written (obsolete trailing WSP removed).
    std::string_view name() const noexcept { return {data_, name_size_}; }
    /// After the colon, up to the final line end; folding kept.
    std::string_view raw_value() const noexcept { return {data_ + value_offset_, value_size_}; }

    /// The field body unfolded (RFC 5322 §2.2.3: each line end before WSP removed) with
    /// leading and trailing white space trimmed. CRLF, bare LF and bare CR are all line ends.
    std::string value() const;
    /// True if the name equals `n` ignoring ASCII case.
    bool is(std::string_view n) const noexcept;  // defined below, inline

    /// Longest field the 32-bit sizes hold; the parser does not store longer ones.
    static constexpr std::uint64_t max_size = 0xffffffffu;

private:
    const char* data_ = "";
    std::uint32_t raw_size_ = 0, name_size_ = 0, value_offset_ = 0, value_size_ = 0;
};

namespace detail {
/// How a document stores one field: where it starts, counted from the first octet of its
/// entity's header block, and its raw size.
struct field_record {
    std::uint32_t offset = 0, size = 0;
};
}  // namespace detail

/// The fields of one header block, in order: a random-access range of header_field_view
/// made on the fly from the document's field records. Borrowed, like the document.
class MHTML_EXPORT header_list {
public:
    using value_type = header_field_view;
    using size_type = std::size_t;

    class iterator {
    public:
        // Views are made on the fly (so do not keep the address of one past its step): a
        // random-access range for C++20, an input iterator for the older requirements.
        using iterator_concept = std::random_access_iterator_tag;
        using iterator_category = std::input_iterator_tag;
        using value_type = header_field_view;
        using difference_type = std::ptrdiff_t;
        using reference = header_field_view;
        struct pointer {
            header_field_view view;
            const header_field_view* operator->() const noexcept { return &view; }
        };

        iterator() = default;
        iterator(const char* base, const detail::field_record* at) noexcept
            : base_(base), at_(at) {}
        header_field_view operator*() const noexcept { return make(base_, *at_); }
        pointer operator->() const noexcept { return {**this}; }
        header_field_view operator[](difference_type n) const noexcept {
            return make(base_, at_[n]);
        }
        iterator& operator++() noexcept { return ++at_, *this; }
        iterator operator++(int) noexcept {
            auto t = *this;
            ++at_;
            return t;
        }
        iterator& operator--() noexcept { return --at_, *this; }
        iterator operator--(int) noexcept {
            auto t = *this;
            --at_;
            return t;
        }
        iterator& operator+=(difference_type n) noexcept { return at_ += n, *this; }
        iterator& operator-=(difference_type n) noexcept { return at_ -= n, *this; }
        friend iterator operator+(iterator i, difference_type n) noexcept { return i += n; }
        friend iterator operator+(difference_type n, iterator i) noexcept { return i += n; }
        friend iterator operator-(iterator i, difference_type n) noexcept { return i -= n; }
        friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
            return a.at_ - b.at_;
        }
        friend bool operator==(const iterator& a, const iterator& b) noexcept {
            return a.at_ == b.at_;
        }
        friend auto operator<=>(const iterator& a, const iterator& b) noexcept {
            return a.at_ <=> b.at_;
        }

    private:
        const char* base_ = nullptr;
        const detail::field_record* at_ = nullptr;
    };
    using const_iterator = iterator;

    header_list() = default;
    /// `base`: the first octet of the header block the records count from.
    header_list(const char* base, const detail::field_record* first, std::size_t count) noexcept
        : base_(base), first_(first), count_(count) {}

    std::size_t size() const noexcept { return count_; }
    bool empty() const noexcept { return count_ == 0; }
    header_field_view operator[](std::size_t i) const noexcept { return make(base_, first_[i]); }
    header_field_view front() const noexcept { return (*this)[0]; }
    header_field_view back() const noexcept { return (*this)[count_ - 1]; }
    iterator begin() const noexcept { return {base_, first_}; }
    iterator end() const noexcept { return {base_, first_ + count_}; }
    /// The first field named `name` (ASCII case-insensitive), if any. A field's raw octets
    /// start with its name, so the others are passed over without making their views.
    std::optional<header_field_view> find(std::string_view name) const noexcept;

private:
    static header_field_view make(const char* base, detail::field_record r) noexcept {
        return header_field_view(std::string_view(base + r.offset, r.size));
    }
    const char* base_ = nullptr;
    const detail::field_record* first_ = nullptr;
    std::size_t count_ = 0;
};

/// Unfolds a raw field body: removes every line end (CRLF, LF or CR) that is followed by
/// SP or HTAB, and trims leading and trailing white space.
MHTML_EXPORT std::string unfold(std::string_view raw_value);

/// ASCII case-insensitive equality (mhtml/ascii.hpp).
using ascii::iequals;

inline bool header_field_view::is(std::string_view n) const noexcept {
    return iequals(name(), n);
}
/// ASCII lower-case copy.
MHTML_EXPORT std::string to_lower(std::string_view s);

/// RFC 5322 §3.2.2: skips white space, line ends and (nested) comments from `pos`.
/// Returns the position of the first other character (or s.size()).
MHTML_EXPORT std::size_t skip_cfws(std::string_view s, std::size_t pos) noexcept;

}  // namespace mhtml::mime
