#pragma once
// Loading the spec vectors (tests/data/spec/*.json, copied from ../shared/spec/vectors; see
// tests/data/spec/PROVENANCE.md). Vector strings are octet strings: each code point
// U+0000-U+00FF stands for one octet (vectors/README.md), so octets() maps code points to
// bytes instead of UTF-8-encoding them.

#include <nlohmann/json.hpp>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace mhtml::test {

inline nlohmann::json load_vectors(const std::string& file) {
    std::ifstream in(std::string(MHTML_TEST_DATA) + "/spec/" + file);
    if (!in) throw std::runtime_error("cannot open spec vector file " + file);
    return nlohmann::json::parse(in);
}

/// The octets a vector string stands for (nlohmann gives UTF-8; every code point <= 0xFF).
inline std::string octets(const std::string& utf8) {
    std::string out;
    out.reserve(utf8.size());
    for (std::size_t i = 0; i < utf8.size(); ++i) {
        auto c = static_cast<unsigned char>(utf8[i]);
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else if ((c & 0xE0) == 0xC0 && i + 1 < utf8.size()) {
            unsigned cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(utf8[++i]) & 0x3Fu);
            if (cp > 0xFF) throw std::runtime_error("vector string has a code point above U+00FF");
            out.push_back(static_cast<char>(cp));
        } else {
            throw std::runtime_error("vector string has a code point above U+00FF");
        }
    }
    return out;
}
inline std::string octets(const nlohmann::json& j) {
    return octets(j.get<std::string>());
}

/// Diagnostic codes a vector lists under `key` (absent -> none).
inline std::vector<std::string> codes(const nlohmann::json& v, const char* key = "diagnostics") {
    std::vector<std::string> out;
    if (v.contains(key) && v[key].is_array())
        for (auto& c : v[key]) out.push_back(c.get<std::string>());
    return out;
}

}  // namespace mhtml::test
