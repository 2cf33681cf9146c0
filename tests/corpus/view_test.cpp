// extract and inline over every archive of the corpus.
//
// Extract, round trip of content: every written file holds its part's decoded bytes, except
// that in HTML, CSS and SVG the references may differ (and a `<meta charset>` may be added
// after the doctype). Between the references, every byte is the part's. And each reference
// that resolved to a part in the archive now names that part's file, resolved from the file
// that holds it.
//
// Inline: the page is written for every archive, carries the script-blocking policy, and
// every reference of it that resolved to a part in the archive is now a data: URI.
#include "mhtml/view/extract.hpp"
#include "mhtml/view/inline.hpp"

#include "corpus/corpus_support.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/uri/reference.hpp"
#include "unit/view/view_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>

namespace mhtml::view {
namespace {

namespace fs = std::filesystem;

html::scan_result scan(archive::document_type t, std::string_view text) {
    return t == archive::document_type::css
               ? html::scan_style_sheet(text)
               : html::scan_html(text, t == archive::document_type::svg);
}

// The text between references (and before the first, after the last).
std::vector<std::string> between(std::string_view text, const html::scan_result& s) {
    std::vector<std::string> out;
    std::size_t at = 0;
    for (const auto& r : s.refs) {
        out.emplace_back(text.substr(at, r.offset - at));
        at = r.offset + r.length;
    }
    out.emplace_back(text.substr(at));
    return out;
}

TEST(CorpusView, ExtractKeepsEveryByteButTheReferences) {
    std::size_t archives = 0, files = 0, documents = 0, checked_refs = 0;
    for (const auto& path : test::corpus_files()) {
        SCOPED_TRACE(path.filename().string());
        auto doc = mime::document::parse(test::read_file(path));
        auto agg = archive::aggregate::build(doc);
        test::sandbox box;
        auto r = extract(agg, box / "out");
        ASSERT_TRUE(r.ok()) << r.error;
        ++archives;
        std::map<std::uint32_t, std::string> file_of;
        for (const auto& f : r.files) file_of[doc.find(f.part)->index()] = f.file;
        for (const auto& f : r.files) {
            SCOPED_TRACE(f.part + " -> " + f.file);
            ++files;
            const mime::part_view p = *doc.find(f.part);
            const std::string written = test::read_bytes(box / "out" / f.file);
            const auto type = archive::document_type_of(p);
            if (type == archive::document_type::none || r.file_name_method) {
                std::string decoded;
                p.decode_to(decoded);
                EXPECT_EQ(written, decoded);
                continue;
            }
            ++documents;
            archive::document_text d = agg.read_document(p);
            html::scan_result after = scan(type, written);
            ASSERT_EQ(after.refs.size(), d.scan.refs.size());
            auto a = between(d.text, d.scan), b = between(written, after);
            if (b[0] != a[0]) {  // an added <meta charset> after the doctype
                b[0] = std::regex_replace(b[0], std::regex("<meta charset=\"[^\"]*\">"), "",
                                          std::regex_constants::format_first_only);
            }
            EXPECT_EQ(a, b);
            // Where the references now lead, read from the written file's own location.
            const auto file_base = uri::base_uri::make("file:///out/" + f.file);
            for (std::size_t i = 0; i < d.scan.refs.size(); ++i) {
                const auto& was = d.scan.refs[i];
                const auto& now = after.refs[i];
                if (was.kind == html::ref_kind::base) {
                    EXPECT_EQ(now.url, "");
                    continue;
                }
                auto res = agg.resolve(p, was.url);
                if (!res.target || res.same_document) continue;
                auto target = file_of.find(res.target->index());
                if (target == file_of.end()) continue;  // a non-leaf target (none in the corpus)
                ++checked_refs;
                std::string lands = file_base->resolve(now.url);
                std::string expected = "file:///out/" + target->second;
                EXPECT_EQ(uri::without_fragment(lands), expected)
                    << "'" << was.url << "' became '" << now.url << "'";
            }
        }
    }
    std::printf("%zu archives extracted: %zu files, %zu documents, %zu references checked\n",
                archives, files, documents, checked_refs);
    EXPECT_GT(checked_refs, 250u);  // 299 when written
}

TEST(CorpusView, InlineTurnsEveryResolvedResourceIntoData) {
    std::size_t archives = 0, inlined = 0;
    for (const auto& path : test::corpus_files()) {
        SCOPED_TRACE(path.filename().string());
        auto doc = mime::document::parse(test::read_file(path));
        auto agg = archive::aggregate::build(doc);
        test::sandbox box;
        auto r = inline_page(agg, box / "page.html");
        ASSERT_TRUE(r.ok()) << r.error;
        ++archives;
        inlined += r.references_inlined;
        const std::string page = test::read_bytes(box / "page.html");
        EXPECT_NE(page.find("script-src 'none'"), std::string::npos);
        // No reference in the page still names a part of the archive by its label.
        auto root = doc.find(r.root);
        ASSERT_TRUE(root.has_value());
        if (archive::document_type_of(*root) != archive::document_type::html) continue;
        for (const auto& ref : html::scan_html(page).refs) {
            if (ref.kind != html::ref_kind::resource) continue;
            EXPECT_FALSE(agg.resolve(*root, ref.url).target.has_value() &&
                         !ref.url.starts_with("data:"))
                << "'" << ref.url << "' still names a part";
        }
    }
    std::printf("%zu archives inlined, %zu references turned into data: URIs\n", archives, inlined);
    EXPECT_GT(inlined, 200u);  // 268 when written
}

}  // namespace
}  // namespace mhtml::view
