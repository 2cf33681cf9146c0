#pragma once
/// The hash for every hash table whose keys come from the input (labels, Content-IDs,
/// Message-IDs, parameter and attribute names, file names). An archive chooses those
/// strings, and with an unkeyed hash (std::hash) it can choose them to collide, so that
/// each insertion walks one long chain: quadratic time for a linear-size input. SipHash-1-3
/// under a key drawn once per process from std::random_device makes the hash values
/// unpredictable from outside, so collisions cannot be planned.
///
/// Internal to mhtml (namespace detail): public only because public types hold such tables.
/// tests/check_keyed_hash.py fails the build's tests when a string-keyed std::unordered_map
/// or std::unordered_set in src/, include/ or tools/ is declared without it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "mhtml/export.hpp"

namespace mhtml::detail {

struct sip_key {
    std::uint64_t k0 = 0, k1 = 0;
};

/// SipHash-1-3 (Aumasson and Bernstein's SipHash with 1 compression and 3 finalization
/// rounds, the variant Rust and CPython use for their hash tables) of `s` under `key`.
MHTML_EXPORT std::uint64_t siphash13(std::string_view s, const sip_key& key) noexcept;

/// siphash13 under this process's key (random, drawn on first use).
MHTML_EXPORT std::uint64_t keyed_hash64(std::string_view s) noexcept;

/// A hasher for std::unordered_map/set keyed by strings. Transparent: with
/// std::equal_to<> as the key-equal, find() takes a string_view without allocating.
struct keyed_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
        return static_cast<std::size_t>(keyed_hash64(s));
    }
};

template <class Value>
using keyed_string_map = std::unordered_map<std::string, Value, keyed_hash, std::equal_to<>>;
using keyed_string_set = std::unordered_set<std::string, keyed_hash, std::equal_to<>>;

}  // namespace mhtml::detail
