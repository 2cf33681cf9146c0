#pragma once
// The corpus files (tests/data/corpus/, provenance in PROVENANCE.md) for the corpus tests.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mhtml::test {

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Every archive of the corpus (not its MANIFEST.tsv and PROVENANCE.md), in name order.
inline std::vector<std::filesystem::path> corpus_files() {
    std::vector<std::filesystem::path> out;
    for (auto& e : std::filesystem::directory_iterator(std::string(MHTML_TEST_DATA) + "/corpus")) {
        auto name = e.path().filename().string();
        if (name == "MANIFEST.tsv" || name == "PROVENANCE.md") continue;
        out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace mhtml::test
