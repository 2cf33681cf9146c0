// extract and inline over every archive of the corpus.
//
// Extract, round trip of content: every written file holds its part's decoded bytes, except
// that in HTML, CSS and SVG the references may differ, and HTML, XHTML and SVG files get
// their declarations (a `<meta charset>`, the script-blocking policy before anything else,
// MHT-12.5). Between the references, every byte is the part's. And each reference that
// resolved to a part in the archive now names that part's file, resolved from the file that
// holds it.
//
// Inline: the page is written for every archive, its policy and every frame's comes first,
// and every reference of it that resolved to a part in the archive is now a data: URI.
#include "mhtml/view/extract.hpp"
#include "mhtml/view/inline.hpp"

#include "corpus/corpus_support.hpp"
#include "mhtml/html/rewrite.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/uri/reference.hpp"
#include "support/policy_check.hpp"
#include "unit/view/view_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

namespace mhtml::view {
namespace {

namespace fs = std::filesystem;

html::scan_result scan(archive::document_type t, std::string_view text) {
    return t == archive::document_type::css
               ? html::scan_style_sheet(text)
               : html::scan_html(text, t == archive::document_type::svg);
}

// The text between references (and before the first, after the last), with `edits` (which
// never touch a reference) applied.
std::vector<std::string> between(std::string_view text, const html::scan_result& s,
                                 const std::vector<html::edit>& edits = {}) {
    std::vector<std::string> out;
    std::size_t at = 0;
    auto segment = [&](std::size_t end) {
        std::vector<html::edit> inside;
        for (const auto& e : edits)
            if (e.offset >= at && e.offset + e.length <= end)
                inside.push_back({e.offset - at, e.length, e.replacement});
        out.push_back(html::apply_edits(text.substr(at, end - at), inside));
    };
    for (const auto& r : s.refs) {
        segment(r.offset);
        at = r.offset + r.length;
    }
    segment(text.size());
    return out;
}

// What extract adds to a document at one point (html/policy.hpp).
const std::regex policy_declarations(
    "(<meta charset=\"[^\"]*\">)?<meta http-equiv=\"Content-Security-Policy\" content=\"[^\"]*\">"
    "|<html:head xmlns:html=\"http://www.w3.org/1999/xhtml\"><html:meta [^>]*/></html:head>");

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
            if (type == archive::document_type::none) {
                std::string decoded;
                p.decode_to(decoded);
                if (p.content_type().is("text", "xml") ||
                    p.content_type().is("application", "xml")) {
                    // A generic XML document gets the policy too (XHTML elements in it run).
                    EXPECT_EQ(test::policy_first_violation(written, true), "");
                    EXPECT_EQ(std::regex_replace(written, policy_declarations, ""), decoded);
                    continue;
                }
                EXPECT_EQ(written, decoded);
                continue;
            }
            ++documents;
            if (type != archive::document_type::css) {
                const bool xml = !p.content_type().is("text", "html");
                EXPECT_EQ(test::policy_first_violation(written, xml), "");
            }
            archive::document_text d = agg.read_document(p);
            html::scan_result after = scan(type, written);
            ASSERT_EQ(after.refs.size(), d.scan.refs.size());
            // Blink's shadow-root templates made standard, refreshes disabled (text/html).
            const std::vector<html::edit> edits =
                p.content_type().is("text", "html")
                    ? html::find_markup_edits(d.text,
                                              {.shadow_roots = true, .disable_refresh = true})
                          .edits
                    : std::vector<html::edit>{};
            auto a = between(d.text, d.scan, edits), b = between(written, after);
            // The declarations, added at one point before the first reference.
            b[0] = std::regex_replace(b[0], policy_declarations, "",
                                      std::regex_constants::format_first_only);
            EXPECT_EQ(a, b);
            if (r.file_name_method) continue;
            // Where the references now lead, read from the written file's own location.
            const auto file_base = uri::base_uri::make("file:///out/" + f.file);
            for (std::size_t i = 0; i < d.scan.refs.size(); ++i) {
                const auto& was = d.scan.refs[i];
                const auto& now = after.refs[i];
                if (was.kind == html::ref_kind::base) {
                    EXPECT_EQ(now.url, "");
                    continue;
                }
                auto res = agg.resolve(p, was);
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
    std::size_t archives = 0, inlined = 0, frames = 0;
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
        EXPECT_EQ(test::policy_first_violation(page, false), "");
        // So does every frame's and SVG document's (their data: URIs, nested too), but for
        // data: URIs that the archive's own documents hold (images, and as frames they
        // inherit the policy of the document that loads them).
        std::set<std::string> own;
        for (const auto& part : doc.parts())
            if (archive::document_type_of(part) != archive::document_type::none)
                for (const auto& ref : agg.references(part).refs)
                    if (ref.url.starts_with("data:")) own.insert(ref.url);
        std::vector<std::string> documents = {page};
        for (std::size_t i = 0; i < documents.size() && i < 500; ++i) {
            for (const auto& ref : html::scan_html(documents[i]).refs) {
                for (std::string_view type :
                     {"data:text/html;", "data:image/svg+xml;", "data:application/xhtml+xml;"}) {
                    if (!ref.url.starts_with(type) || own.count(ref.url)) continue;
                    std::string text;
                    mime::base64_decode(ref.url.substr(ref.url.find(";base64,") + 8), text);
                    EXPECT_EQ(test::policy_first_violation(text, type != "data:text/html;"), "")
                        << "in " << ref.url.substr(0, 60);
                    ++frames;
                    documents.push_back(std::move(text));
                }
            }
        }
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
    std::printf(
        "%zu archives inlined, %zu references turned into data: URIs, %zu documents "
        "checked for their policy\n",
        archives, inlined, frames);
    EXPECT_GT(inlined, 200u);  // 268 when written
}

}  // namespace
}  // namespace mhtml::view
