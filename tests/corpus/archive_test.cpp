// The aggregate layer on the real archives: for every archive Blink saved, every part but
// the root is reached from the root by resolved references (directly, through frames, or
// through CSS), and no reference resolves as external while a part is labelled with its URL.
// Frames whose element has no src (a script made them) are documents Blink saves but nothing
// references; they are scanned as roots of their own (see tests/corpus/html_refs_test.cpp).
#include "mhtml/archive/aggregate.hpp"

#include <gtest/gtest.h>

#include "corpus/corpus_support.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace mhtml::archive {
namespace {

namespace fs = std::filesystem;
using mhtml::test::corpus_files;
using mhtml::test::read_file;

TEST(CorpusArchive, EveryPartOfABlinkArchiveIsReachedFromItsRoot) {
    std::size_t archives = 0, reached = 0, references = 0;
    for (const auto& path : corpus_files()) {
        std::string bytes = read_file(path);
        if (bytes.find("Saved by Blink") == std::string::npos) continue;
        SCOPED_TRACE(path.filename().string());
        auto doc = mime::document::parse(std::move(bytes));
        auto agg = aggregate::build(doc);
        if (agg.related().empty())
            continue;  // mhtml2html__portfolio.mhtml: its header block ends early
        ++archives;
        EXPECT_TRUE(agg.blink());
        const related_structure& rs = agg.related().front();
        ASSERT_TRUE(rs.root.root.has_value());
        std::set<std::string> labels;
        for (const auto& m : rs.members)
            if (const auto& loc = agg.info(m).location) labels.insert(*loc);

        std::set<std::uint32_t> found = {rs.root.root->index()};
        std::vector<mime::part_view> queue = {*rs.root.root};
        for (const auto& m : rs.members) {
            auto id = m.content_id();
            if (id && id->starts_with("frame-") && id->ends_with("@mhtml.blink") &&
                found.insert(m.index()).second)
                queue.push_back(m);
        }
        while (!queue.empty()) {
            mime::part_view p = queue.back();
            queue.pop_back();
            for (const auto& r : agg.references(p).refs) {
                if (r.kind == html::ref_kind::base) continue;
                ++references;
                auto res = agg.resolve(p, r.url);
                if (res.target) {
                    if (found.insert(res.target->index()).second) queue.push_back(*res.target);
                } else if (!res.same_document) {
                    std::string_view resolved = uri::without_fragment(res.resolved);
                    EXPECT_FALSE(labels.count(std::string(resolved)))
                        << "'" << r.url << "' in part " << p.path() << " resolves to "
                        << res.resolved << " as external, but a part is labelled with it";
                }
            }
        }
        for (const auto& m : rs.members) {
            if (m == *rs.root.root) continue;
            ++reached;
            EXPECT_TRUE(found.count(m.index()))
                << "part " << m.path() << " (" << m.content_type().essence()
                << ") is not reached from the root";
        }
    }
    std::printf("%zu Blink archives, %zu parts reached, %zu references resolved\n", archives,
                reached, references);
    EXPECT_GE(archives, 5u);
    EXPECT_GT(reached, 90u);
}

}  // namespace
}  // namespace mhtml::archive
