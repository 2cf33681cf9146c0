// The keyed hash of every hash table keyed by strings from the input
// (include/mhtml/detail/keyed_hash.hpp; tests/check_keyed_hash.py checks that they use it).
#include "mhtml/detail/keyed_hash.hpp"

#include "mhtml/archive/aggregate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace mhtml::detail {
namespace {

// Public types that hold tables keyed by input strings use the keyed hasher.
static_assert(
    std::is_same_v<decltype(archive::related_structure::alternative_ids)::hasher, keyed_hash>);
static_assert(std::is_same_v<keyed_string_set::hasher, keyed_hash>);

std::string octets_0_to(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(i));
    return s;
}

// SipHash-1-3 with key 00 01 .. 0f over the messages 00 01 .. (n-1): the layout of the
// reference implementation's test vectors (github.com/veorq/SipHash), whose published
// vectors are for SipHash-2-4. These were computed with a SipHash-c-d written from the paper
// that reproduces those SipHash-2-4 vectors, run with c = 1, d = 3.
TEST(KeyedHash, SipHash13KnownAnswers) {
    const sip_key key{0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
    const std::pair<std::size_t, std::uint64_t> vectors[] = {
        {0, 0xabac0158050fc4dcull},  {1, 0xc9f49bf37d57ca93ull},  {7, 0xd3927d989bb11140ull},
        {8, 0x369095118d299a8eull},  {9, 0x25a48eb36c063de4ull},  {15, 0xd320d86d2a519956ull},
        {16, 0xcc4fdd1a7d908b66ull}, {17, 0x9cf2689063dbd80cull}, {63, 0x9d199062b7bbb3a8ull},
    };
    for (const auto& [n, expected] : vectors) {
        SCOPED_TRACE(n);
        EXPECT_EQ(siphash13(octets_0_to(n), key), expected);
    }
}

// The point of a key: the same strings hash differently under another one, so an archive
// cannot carry strings chosen to collide without knowing the key.
TEST(KeyedHash, SameStringHashesDifferentlyUnderAnotherKey) {
    const sip_key a{1, 2}, b{3, 4};
    for (int i = 0; i < 1000; ++i) {
        std::string s = "cid:part" + std::to_string(i) + "@example.com";
        EXPECT_NE(siphash13(s, a), siphash13(s, b)) << s;
    }
}

// The process key is neither zero nor the test key: it was drawn (a chance of 2^-64 per
// string of a false failure).
TEST(KeyedHash, ProcessKeyIsDrawnAndStable) {
    const sip_key zero{0, 0}, test_key{0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
    for (std::string s : {"", "a", "http://example.com/a.css", "1.2.3"}) {
        EXPECT_EQ(keyed_hash64(s), keyed_hash64(s)) << s;
        EXPECT_NE(keyed_hash64(s), siphash13(s, zero)) << s;
        EXPECT_NE(keyed_hash64(s), siphash13(s, test_key)) << s;
        EXPECT_EQ(keyed_hash{}(s), static_cast<std::size_t>(keyed_hash64(s)));
    }
}

// Keys an archive can produce in bulk (counters in a Content-ID, part paths, one long prefix
// with a short varying tail) spread evenly over buckets taken from the low bits (a
// power-of-two table, as label_index uses), a prime modulus (std::unordered_map) and the
// high bits.
TEST(KeyedHash, SpreadsStructuredKeysEvenly) {
    const std::string long_prefix(200, 'x');
    const std::vector<std::function<std::string(int)>> families = {
        [](int i) { return "cid:part" + std::to_string(i) + "@example.com"; },
        [](int i) { return std::to_string(i / 256) + "." + std::to_string(i % 256); },
        [&](int i) { return long_prefix + std::to_string(i); },
        [](int i) { return std::string(reinterpret_cast<const char*>(&i), sizeof i); },
    };
    constexpr int n = 1 << 16;
    constexpr std::uint64_t buckets = 4096, prime = 4099;
    for (std::size_t f = 0; f < families.size(); ++f) {
        SCOPED_TRACE("family " + std::to_string(f));
        std::vector<int> low(buckets), mod(prime), high(buckets);
        std::set<std::uint64_t> distinct;
        for (int i = 0; i < n; ++i) {
            std::uint64_t h = keyed_hash64(families[f](i));
            distinct.insert(h);
            ++low[h % buckets];
            ++mod[h % prime];
            ++high[h >> 52];
        }
        EXPECT_EQ(distinct.size(), std::size_t(n));  // no 64-bit collision among 65,536 keys
        // 16 keys per bucket on average: a Poisson(16) count reaches 50 with probability
        // 1e-11 (for all 12 x 4096 buckets of this test, 4e-7), and a chi-square statistic
        // over 4095 degrees of freedom stays within 6 standard deviations (sqrt(2 * 4095)).
        for (const auto* counts : {&low, &mod, &high}) {
            const double expected = double(n) / double(counts->size());
            double chi2 = 0;
            for (int c : *counts) chi2 += (c - expected) * (c - expected) / expected;
            const double dof = double(counts->size() - 1);
            EXPECT_LT(*std::max_element(counts->begin(), counts->end()), 50);
            EXPECT_LT(std::abs(chi2 - dof), 6 * std::sqrt(2 * dof)) << chi2;
        }
    }
}

TEST(KeyedHash, MapsLookUpByStringViewWithoutAKeyString) {
    keyed_string_map<int> m;
    m.emplace("http://example.com/a.css", 1);
    std::string_view key = "http://example.com/a.css";
    ASSERT_NE(m.find(key), m.end());
    EXPECT_EQ(m.find(key)->second, 1);
    EXPECT_EQ(m.find(std::string_view("http://example.com/b.css")), m.end());
    keyed_string_set s{"a", "b"};
    EXPECT_EQ(s.count(std::string_view("a")), 1u);
    EXPECT_EQ(s.count(std::string_view("c")), 0u);
}

}  // namespace
}  // namespace mhtml::detail
