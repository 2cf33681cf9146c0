#pragma once
/// detail::string_index: a set of strings that are kept elsewhere, each under a number (the
/// writer's labels and Content-IDs, kept in its report's parts; repair's labels, kept in its
/// leaves; the label index's keys, kept in its entries). Open addressing over 8-byte slots: no
/// node and no copy per string, which a std::unordered_set<std::string> of 100,000 labels
/// spends most of its time on. Keyed hash (the strings come from the input: keyed_hash.hpp).
///
/// Internal to mhtml (namespace detail): public only because public types hold one.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "mhtml/detail/keyed_hash.hpp"

namespace mhtml::detail {

class string_index {
public:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    /// The number of the string equal to `key` if there is one; else `key` is added under
    /// `number` and npos is returned. `key_of(n)` gives the string added under number n, which
    /// must stay equal to what was added.
    template <class KeyOf>
    std::size_t find_or_insert(std::string_view key, std::uint32_t number, KeyOf&& key_of) {
        if ((used_ + 1) * 2 > slots_.size()) grow();
        const auto h = static_cast<std::uint32_t>(keyed_hash64(key));
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            slot& s = slots_[i];
            if (s.entry == 0) {
                s = {h, number + 1};
                ++used_;
                return npos;
            }
            if (s.hash == h && key_of(s.entry - 1) == key) return s.entry - 1;
        }
    }

    /// As find_or_insert, without adding.
    template <class KeyOf>
    [[nodiscard]] std::size_t find(std::string_view key, KeyOf&& key_of) const {
        if (slots_.empty()) return npos;
        const auto h = static_cast<std::uint32_t>(keyed_hash64(key));
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const slot& s = slots_[i];
            if (s.entry == 0) return npos;
            if (s.hash == h && key_of(s.entry - 1) == key) return s.entry - 1;
        }
    }

    /// Room for `n` strings without growing.
    void reserve(std::size_t n) {
        while (slots_.size() < 2 * n + 2) grow();
    }

private:
    struct slot {
        std::uint32_t hash = 0;
        std::uint32_t entry = 0;  // number + 1; 0 = empty
    };
    void grow() {
        std::vector<slot> bigger(slots_.empty() ? 16 : slots_.size() * 2);
        const std::size_t mask = bigger.size() - 1;
        for (const slot& s : slots_) {
            if (s.entry == 0) continue;
            std::size_t i = s.hash & mask;
            while (bigger[i].entry != 0) i = (i + 1) & mask;
            bigger[i] = s;
        }
        slots_ = std::move(bigger);
    }
    std::vector<slot> slots_;
    std::size_t used_ = 0;
};

}  // namespace mhtml::detail
