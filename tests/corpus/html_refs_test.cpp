// The HTML and CSS scanner on the real archives of the corpus:
//  * every part of a page saved by Chromium ("Saved by Blink") is there because the page
//    referenced it, so every part but the root must be found by a reference from the root
//    or from a part found before it (CSS url(), frames), resolved and matched as MHTML does.
//    One exception, seen in the corpus: Blink saves the document of every frame of the page,
//    also frames whose element has no src (a script wrote them), so nothing references
//    those; each frame document (Content-ID <frame-...@mhtml.blink>) is therefore scanned
//    as a document of its own, and only the other parts must be found. A style sheet Blink
//    made from a <style> (labelled cid:css-...) is read with the base of the document that
//    links it, as the live page read the <style> (its @imports too, which Chromium's view
//    of the archive does not follow: the parts are there because the page used them);
//  * on every HTML and CSS part of every corpus file, a rewrite that changes nothing is the
//    identity, and a rewrite of every reference to X scans back as X.
#include "mhtml/html/rewrite.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/uri/label_index.hpp"

#include <gtest/gtest.h>

#include "corpus/corpus_support.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace mhtml {
namespace {

namespace fs = std::filesystem;
using mhtml::test::corpus_files;
using mhtml::test::read_file;

enum class doc_type { none, html, css, svg };

doc_type type_of(const mime::part_view& p) {
    auto essence = p.content_type().essence();
    if (essence == "text/html" || essence == "application/xhtml+xml") return doc_type::html;
    if (essence == "text/css") return doc_type::css;
    if (essence == "image/svg+xml") return doc_type::svg;
    return doc_type::none;
}

html::scan_result scan(doc_type t, std::string_view body) {
    return t == doc_type::css ? html::scan_style_sheet(body)
                              : html::scan_html(body, t == doc_type::svg);
}

TEST(CorpusHtmlRefs, EveryPartOfAChromiumPageIsReferenced) {
    std::size_t archives = 0, parts_checked = 0;
    for (const auto& path : corpus_files()) {
        std::string bytes = read_file(path);
        if (bytes.find("Saved by Blink") == std::string::npos) continue;
        SCOPED_TRACE(path.filename().string());
        auto doc = mime::document::parse(std::move(bytes));
        auto top = doc.root();
        // mhtml2html__portfolio.mhtml has a raw line break inside X-Snapshot-Title, so its
        // header block ends there (for Python's email as for us) and it is no archive.
        if (top.content_type().essence() != "multipart/related") continue;
        auto children = top.children();
        ASSERT_FALSE(children.empty());
        ++archives;

        std::vector<std::optional<std::string>> ids(children.size()), locations(children.size());
        std::vector<uri::part_labels> labels(children.size());
        for (std::size_t i = 0; i < children.size(); ++i) {
            if (auto h = children[i].header("Content-ID")) ids[i] = std::string(h->value());
            if (auto h = children[i].header("Content-Location"))
                locations[i] = std::string(h->value());
            if (ids[i]) labels[i].content_id = *ids[i];
            if (locations[i]) labels[i].content_location = *locations[i];
        }
        uri::label_index index(labels, uri::base_uri::fictitious());

        // From the root and every frame document: every document part found is scanned.
        // A <style> sheet (a cid: label) takes the base of the document that found it.
        std::map<std::size_t, uri::base_uri> style_base;
        std::set<std::size_t> found = {0};
        std::vector<std::size_t> queue = {0};
        std::set<std::size_t> frames;
        for (std::size_t i = 1; i < children.size(); ++i) {
            if (ids[i] && ids[i]->starts_with("<frame-") && ids[i]->ends_with("@mhtml.blink>")) {
                frames.insert(i);
                found.insert(i);
                queue.push_back(i);
            }
        }
        while (!queue.empty()) {
            std::size_t i = queue.back();
            queue.pop_back();
            doc_type t = type_of(children[i]);
            if (t == doc_type::none) continue;
            std::string body;
            children[i].decode_to(body);
            auto result = scan(t, body);
            auto own = index.location(i) ? uri::base_uri::make(*index.location(i)) : std::nullopt;
            uri::base_uri base = own ? *own : uri::base_uri::fictitious();
            if (auto s = style_base.find(i); s != style_base.end()) base = s->second;
            if (result.base)
                if (auto b = uri::base_uri::make(base.resolve(result.refs[*result.base].url)))
                    base = *b;
            for (const auto& r : result.refs) {
                auto m =
                    index.find(r.url, base, {.cid_content_location = true});  // Blink's cid: labels
                if (!m.part || !found.insert(*m.part).second) continue;
                queue.push_back(*m.part);
                if (r.stylesheet_link && locations[*m.part] &&
                    locations[*m.part]->starts_with("cid:"))
                    style_base.emplace(*m.part, base);
            }
        }
        for (std::size_t i = 1; i < children.size(); ++i) {
            if (frames.count(i)) continue;
            ++parts_checked;
            EXPECT_TRUE(found.count(i))
                << "part " << i + 1 << " (" << children[i].content_type().essence() << ", "
                << locations[i].value_or("no Content-Location")
                << ") is referenced by nothing the scanner found";
        }
    }
    RecordProperty("archives", static_cast<int>(archives));
    RecordProperty("parts_checked", static_cast<int>(parts_checked));
    std::printf("%zu Chromium archives, %zu parts each found by a reference\n", archives,
                parts_checked);
    EXPECT_GE(archives, 5u);
    EXPECT_GT(parts_checked, 20u);
}

TEST(CorpusHtmlRefs, RewritesAreExactOnEveryDocumentPart) {
    std::size_t documents = 0, references = 0;
    for (const auto& path : corpus_files()) {
        auto doc = mime::document::parse(read_file(path));
        for (auto p : doc.parts()) {
            if (!p.is_leaf()) continue;
            doc_type t = type_of(p);
            if (t == doc_type::none) continue;
            SCOPED_TRACE(path.filename().string() + " part " + std::string(p.path()));
            std::string body;
            p.decode_to(body);
            auto refs = scan(t, body).refs;
            ++documents;
            references += refs.size();
            EXPECT_EQ(
                html::rewrite(body, refs, [](const html::reference&) { return std::nullopt; }),
                body);
            const std::string x = "cid:x-1@mhtml.test";
            std::string out = html::rewrite(body, refs, [&](const html::reference&) { return x; });
            auto again = scan(t, out).refs;
            ASSERT_EQ(again.size(), refs.size());
            for (const auto& r : again) EXPECT_EQ(r.url, x);
        }
    }
    std::printf("%zu HTML/CSS/SVG parts, %zu references\n", documents, references);
    EXPECT_GT(documents, 40u);
    EXPECT_GT(references, 1000u);
}

}  // namespace
}  // namespace mhtml
