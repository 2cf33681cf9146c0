// aggregate: what it promises to callers beyond the spec vectors (tests/spec/): several threads
// may use one aggregate at once. The only thing its const functions change is an HTML part's
// <base href>, found on first use; built with -fsanitize=thread, this test shows any data race
// there (it was run so by hand: docs/design.md, "Aggregate documents").
#include "mhtml/archive/aggregate.hpp"

#include <gtest/gtest.h>

#include <latch>
#include <string>
#include <thread>
#include <vector>

namespace mhtml::archive {
namespace {

// A related structure of `pages` HTML parts, each with its own <base href> and an image
// named relative to it, and the images (labelled by absolute Content-Location).
std::string many_pages(int pages) {
    std::string m =
        "MIME-Version: 1.0\r\n"
        "Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\r\n\r\n";
    for (int i = 0; i < pages; ++i) {
        const std::string n = std::to_string(i);
        m += "--b\r\nContent-Type: text/html\r\nContent-Location: http://site.example/page" + n +
             ".html\r\n\r\n<html><head><base href=\"http://cdn" + n +
             ".example/dir/\"></head><body><img src=\"img" + n +
             ".png\"><a href=\"page0.html\">home</a></body></html>\r\n";
    }
    for (int i = 0; i < pages; ++i) {
        const std::string n = std::to_string(i);
        m += "--b\r\nContent-Type: image/png\r\nContent-Location: http://cdn" + n +
             ".example/dir/img" + n + ".png\r\n\r\nPNG" + n + "\r\n";
    }
    m += "--b--\r\n";
    return m;
}

// What one caller learns about part p through info(), resolve() and references().
std::string observe(const aggregate& agg, const mime::part_view& p, int pages) {
    const entity_info& e = agg.info(p);
    std::string seen = p.path() + " base=" + std::string(e.base) + (e.has_html_base ? " (html)" : "");
    if (p.index() >= 1 && p.index() <= static_cast<std::uint32_t>(pages)) {
        const std::string n = std::to_string(p.index() - 1);
        resolution r = agg.resolve(p, "img" + n + ".png");
        seen += " img->" + r.resolved + "=" + (r.target ? r.target->path() : "none");
        seen += " refs=" + std::to_string(agg.references(p).refs.size());
    }
    return seen;
}

TEST(Aggregate, InfoAndResolveFromManyThreadsAgreeWithOneThread) {
    constexpr int pages = 48, threads = 8, rounds = 10;
    const auto doc = mime::document::parse(many_pages(pages));
    const auto parts = doc.parts();
    ASSERT_EQ(parts.size(), std::size_t(1 + 2 * pages));

    std::vector<std::string> expected;
    {
        const auto alone = aggregate::build(doc);
        for (const auto& p : parts) expected.push_back(observe(alone, p, pages));
    }
    // The <base href> counts: each page's image resolves against its own CDN folder.
    EXPECT_EQ(expected[1],
              "1 base=http://cdn0.example/dir/ (html) img->"
              "http://cdn0.example/dir/img0.png=" +
                  std::to_string(pages + 1) + " refs=3");

    for (int round = 0; round < rounds; ++round) {
        const auto shared = aggregate::build(doc);  // nothing asked yet: every base is lazy
        std::vector<std::vector<std::string>> seen(threads, std::vector<std::string>(parts.size()));
        std::latch start(threads);
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t) {
            pool.emplace_back([&, t] {
                start.arrive_and_wait();
                // Half the threads walk forwards, half backwards, each from its own place,
                // so that first uses of one part meet in different threads.
                for (std::size_t k = 0; k < parts.size(); ++k) {
                    std::size_t i = (k + std::size_t(t) * 7) % parts.size();
                    if (t % 2) i = parts.size() - 1 - i;
                    seen[t][i] = observe(shared, parts[i], pages);
                }
            });
        }
        for (auto& th : pool) th.join();
        for (int t = 0; t < threads; ++t) {
            SCOPED_TRACE("round " + std::to_string(round) + ", thread " + std::to_string(t));
            EXPECT_EQ(seen[t], expected);
        }
    }
}

}  // namespace
}  // namespace mhtml::archive
