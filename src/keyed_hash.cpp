#include "mhtml/detail/keyed_hash.hpp"

#include <bit>
#include <cstring>
#include <random>

namespace mhtml::detail {

namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int b) noexcept {
    return (x << b) | (x >> (64 - b));
}

const sip_key& process_key() {
    static const sip_key key = [] {
        std::random_device rd;
        auto word = [&] { return (std::uint64_t(rd()) << 32) ^ rd(); };
        return sip_key{word(), word()};
    }();
    return key;
}

}  // namespace

std::uint64_t siphash13(std::string_view s, const sip_key& key) noexcept {
    std::uint64_t v0 = 0x736f6d6570736575ull ^ key.k0, v1 = 0x646f72616e646f6dull ^ key.k1;
    std::uint64_t v2 = 0x6c7967656e657261ull ^ key.k0, v3 = 0x7465646279746573ull ^ key.k1;
    auto round = [&] {
        v0 += v1;
        v1 = rotl(v1, 13);
        v1 ^= v0;
        v0 = rotl(v0, 32);
        v2 += v3;
        v3 = rotl(v3, 16);
        v3 ^= v2;
        v0 += v3;
        v3 = rotl(v3, 21);
        v3 ^= v0;
        v2 += v1;
        v1 = rotl(v1, 17);
        v1 ^= v2;
        v2 = rotl(v2, 32);
    };
    const std::size_t n = s.size();
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t m;
        std::memcpy(&m, s.data() + i, 8);
        if constexpr (std::endian::native == std::endian::big) m = __builtin_bswap64(m);
        v3 ^= m;
        round();
        v0 ^= m;
    }
    std::uint64_t last = std::uint64_t(n) << 56;
    for (std::size_t k = 0; i + k < n; ++k)
        last |= std::uint64_t(static_cast<unsigned char>(s[i + k])) << (8 * k);
    v3 ^= last;
    round();
    v0 ^= last;
    v2 ^= 0xff;
    round();
    round();
    round();
    return v0 ^ v1 ^ v2 ^ v3;
}

std::uint64_t keyed_hash64(std::string_view s) noexcept {
    return siphash13(s, process_key());
}

}  // namespace mhtml::detail
