// `mhtml check` on the real archives: the findings for every file in tests/data/corpus/ are
// compared with tests/data/check/<file>.golden, one finding per line,
// `level requirement code part offset` (part "." = the message). Messages are left out so
// their wording can improve. Each golden line was read against its archive; a finding that
// turns out wrong is fixed in the checker, not in the golden file.
//
// To regenerate after a deliberate change: MHTML_UPDATE_GOLDEN=1 build/tests/mhtml_tests
// --gtest_filter='CheckGolden*', then read the diff of tests/data/check/ line by line.
#include "mhtml/archive/check.hpp"

#include <gtest/gtest.h>

#include "corpus/corpus_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mhtml::archive {
namespace {

namespace fs = std::filesystem;
using mhtml::test::corpus_files;
using mhtml::test::read_file;

std::string golden_text(const std::vector<finding>& findings) {
    std::string out;
    for (const finding& f : findings) {
        out += level_name(f.level);
        out += ' ';
        out += f.requirement;
        out += ' ';
        out += f.code;
        out += ' ';
        out += f.part_path.empty() ? std::string(".") : f.part_path;
        out += ' ';
        out += std::to_string(f.offset);
        out += '\n';
    }
    return out;
}

TEST(CheckGolden, EveryCorpusFileMatchesItsGoldenFindings) {
    const fs::path golden_dir = fs::path(MHTML_TEST_DATA) / "check";
    const bool update = std::getenv("MHTML_UPDATE_GOLDEN") != nullptr;
    const std::vector<fs::path> files = corpus_files();
    ASSERT_GE(files.size(), 50u);
    std::size_t findings = 0;
    for (const fs::path& path : files) {
        SCOPED_TRACE(path.filename().string());
        auto doc = mime::document::parse(read_file(path));
        const std::string actual = golden_text(check(doc));
        findings += static_cast<std::size_t>(std::count(actual.begin(), actual.end(), '\n'));
        const fs::path golden = golden_dir / (path.filename().string() + ".golden");
        if (update) {
            fs::create_directories(golden_dir);
            std::ofstream(golden, std::ios::binary) << actual;
            continue;
        }
        ASSERT_TRUE(fs::exists(golden))
            << golden << " is missing (MHTML_UPDATE_GOLDEN=1 writes it)";
        EXPECT_EQ(actual, read_file(golden));
    }
    std::printf("%zu corpus files, %zu findings\n", files.size(), findings);
}

// Every golden file belongs to a corpus file (a renamed or removed archive leaves none behind).
TEST(CheckGolden, NoGoldenFileWithoutItsArchive) {
    const fs::path golden_dir = fs::path(MHTML_TEST_DATA) / "check";
    for (auto& e : fs::directory_iterator(golden_dir)) {
        std::string name = e.path().filename().string();
        ASSERT_TRUE(name.ends_with(".golden")) << name;
        name.resize(name.size() - 7);
        EXPECT_TRUE(fs::exists(fs::path(MHTML_TEST_DATA) / "corpus" / name)) << name;
    }
}

// The checker gives the same findings however often it runs, and sorts them by part path
// (numerically) then offset.
TEST(CheckGolden, FindingsAreSortedByPartThenOffset) {
    auto key = [](const std::string& path) {
        std::vector<unsigned long> k;
        std::stringstream s(path);
        for (std::string seg; std::getline(s, seg, '.');) k.push_back(std::stoul(seg));
        return k;
    };
    for (const fs::path& path : corpus_files()) {
        SCOPED_TRACE(path.filename().string());
        auto doc = mime::document::parse(read_file(path));
        const std::vector<finding> a = check(doc);
        EXPECT_EQ(golden_text(a), golden_text(check(doc)));
        for (std::size_t i = 1; i < a.size(); ++i) {
            auto ka = key(a[i - 1].part_path), kb = key(a[i].part_path);
            EXPECT_TRUE(ka < kb || (ka == kb && a[i - 1].offset <= a[i].offset))
                << a[i - 1].part_path << " @" << a[i - 1].offset << " before " << a[i].part_path
                << " @" << a[i].offset;
        }
    }
}

}  // namespace
}  // namespace mhtml::archive
