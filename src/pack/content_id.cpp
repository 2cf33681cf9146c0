#include "mhtml/pack/content_id.hpp"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <random>
#include <stdexcept>

namespace mhtml::pack {

namespace {

// 16 octets from getrandom(2); std::random_device only where that fails (never on Linux
// 3.17+ unless seccomp forbids it).
std::array<std::uint8_t, 16> random_bits() {
    std::array<std::uint8_t, 16> b{};
    std::size_t got = 0;
    while (got < b.size()) {
        ssize_t n = ::getrandom(b.data() + got, b.size() - got, 0);
        if (n > 0) {
            got += static_cast<std::size_t>(n);
        } else if (n < 0 && errno != EINTR) {
            std::random_device rd;
            for (auto& x : b) x = static_cast<std::uint8_t>(rd());
            return b;
        }
    }
    return b;
}

}  // namespace

std::string make_content_id(std::string_view domain) {
    static constexpr char alphabet[] = "0123456789abcdefghijklmnopqrstuv";  // base32hex, lower
    auto b = random_bits();
    std::string id;
    id.reserve(27 + domain.size());
    // 128 bits = 25 groups of 5 bits + 3 bits: 26 characters.
    unsigned acc = 0;
    int bits = 0;
    for (auto octet : b) {
        acc = (acc << 8) | octet;
        bits += 8;
        while (bits >= 5) {
            id += alphabet[(acc >> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    id += alphabet[(acc << (5 - bits)) & 31];
    id += '@';
    id += domain.empty() ? std::string_view("mhtml.invalid") : domain;
    return id;
}

}  // namespace mhtml::pack
