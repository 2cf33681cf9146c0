#include "mhtml/pack/collect.hpp"

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/mime/node.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/header_value.hpp"
#include "mhtml/uri/virtual_filename.hpp"
#include "mhtml/view/extract.hpp"

#include "unit/view/view_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace mhtml {
namespace {

namespace fs = std::filesystem;
using test::read_bytes;
using test::sandbox;
using test::write_bytes;

const fs::path sites = fs::path(MHTML_TEST_DATA) / "sites";

std::string bytes_of(const pack::resource& r) {
    return r.in_memory ? r.data : read_bytes(r.file);
}

// MHT-11.4: the writer puts text in canonical form (CRLF line ends).
std::string crlf_text(std::string_view type, std::string text) {
    if (!type.starts_with("text/")) return text;
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) out += '\r';
        out += text[i];
    }
    return out;
}

// A stand-in for the streaming writer (pack/writer.hpp comes from the writer's branch): one
// multipart/related, the resources in order.
std::string write_archive(const pack::collection& c) {
    std::vector<mime::node> parts;
    for (const pack::resource& r : c.resources) {
        mime::node n = mime::node::leaf(r.content_type, bytes_of(r));
        if (!r.label.empty()) n.set("Content-Location", uri::write_header_uri(r.label).value);
        if (!r.content_id.empty()) n.set("Content-ID", "<" + r.content_id + ">");
        parts.push_back(std::move(n));
    }
    std::string root_type = c.resources.at(0).content_type;
    root_type = root_type.substr(0, root_type.find(';'));
    mime::node top =
        mime::node::multipart("related", std::move(parts), "type=\"" + root_type + "\"");
    top.set("MIME-Version", "1.0");
    auto written = mime::write(top);
    EXPECT_FALSE(written.bytes.empty());
    return written.bytes;
}

std::vector<pack::method> all_methods() {
    return {pack::method::content_location, pack::method::cid, pack::method::filename};
}

std::string method_name(pack::method m) {
    return m == pack::method::cid        ? "cid"
           : m == pack::method::filename ? "filename"
                                         : "content_location";
}

// Writes `c`, reads it back and checks that every reference the scanner finds in every
// packed document resolves, by the reader's resolution, to the part holding the file the
// collector meant, and that the unresolved ones find no part. Returns references checked.
std::size_t expect_every_reference_resolves(const pack::collection& c, const std::string& what) {
    SCOPED_TRACE(what);
    const std::string bytes = write_archive(c);
    auto doc = mime::document::parse(bytes);
    auto agg = archive::aggregate::build(doc);
    EXPECT_EQ(agg.related().size(), 1u);
    if (agg.related().empty()) return 0;
    const auto& members = agg.related()[0].members;
    EXPECT_EQ(members.size(), c.resources.size());
    if (members.size() != c.resources.size()) return 0;
    EXPECT_EQ(agg.main_root().index(), members[0].index());
    std::map<std::uint32_t, std::size_t> resource_of;
    for (std::size_t i = 0; i < members.size(); ++i) resource_of[members[i].index()] = i;
    std::size_t checked = 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
        const mime::part_view p = members[i];
        std::string decoded;
        p.decode_to(decoded);
        EXPECT_EQ(decoded, crlf_text(c.resources[i].content_type, bytes_of(c.resources[i])))
            << c.resources[i].origin;
        if (archive::document_type_of(p) == archive::document_type::none) continue;
        const html::scan_result scan = agg.references(p);
        std::vector<const pack::reference_report*> expected;
        for (const auto& r : c.references)
            if (r.document == c.resources[i].origin && !r.srcdoc_offset) expected.push_back(&r);
        EXPECT_EQ(scan.refs.size(), expected.size()) << c.resources[i].origin;
        if (scan.refs.size() != expected.size()) continue;
        for (std::size_t k = 0; k < scan.refs.size(); ++k) {
            const pack::reference_report& e = *expected[k];
            const archive::resolution res = agg.resolve(p, scan.refs[k]);
            SCOPED_TRACE(e.document + ": '" + e.url + "' (" +
                         std::string(pack::outcome_name(e.outcome)) + ", now '" + scan.refs[k].url +
                         "')");
            if (e.resource) {
                EXPECT_TRUE(res.target) << "resolved to " << res.resolved;
                if (!res.target) continue;
                EXPECT_EQ(resource_of.at(res.target->index()), *e.resource);
                ++checked;
            } else if (e.outcome == pack::ref_outcome::unresolved ||
                       e.outcome == pack::ref_outcome::external) {
                EXPECT_FALSE(res.target) << "resolved to part " << res.target->path();
            }
        }
    }
    return checked;
}

pack::collection collect_site(std::string_view site, pack::method m, pack::collect_options o = {}) {
    o.method = m;
    auto c = pack::collect(sites / site, o);
    EXPECT_TRUE(c.ok()) << c.error_code << ": " << c.error;
    return c;
}

const pack::reference_report* find_ref(const pack::collection& c, std::string_view url) {
    for (const auto& r : c.references)
        if (r.url == url) return &r;
    return nullptr;
}

std::set<std::string> origins(const pack::collection& c) {
    std::set<std::string> out;
    for (const auto& r : c.resources) out.insert(r.origin);
    return out;
}

bool has_code(const pack::collection& c, diag_code code) {
    return std::any_of(c.diagnostics.begin(), c.diagnostics.end(),
                       [&](const diagnostic& d) { return d.code == code; });
}

// --- every site, every method ----------------------------------------------------------------

TEST(Collect, THTML_9_0_1_EverySiteResolvesCompletelyWithEveryMethod) {
    for (std::string_view site : {"basic", "oddnames", "base", "frames", "svg", "latin1", "sjis"}) {
        for (pack::method m : all_methods()) {
            auto c = collect_site(site, m);
            ASSERT_TRUE(c.ok());
            const std::size_t checked =
                expect_every_reference_resolves(c, std::string(site) + " / " + method_name(m));
            EXPECT_GT(checked, 0u) << site;
        }
    }
}

TEST(Collect, BasicSiteCollectsEveryResourceKindAndNothingElse) {
    auto c = collect_site("basic", pack::method::content_location);
    EXPECT_EQ(c.resources[0].origin, "index.html");
    EXPECT_EQ(c.resources[0].content_type, "text/html; charset=UTF-8");
    const std::set<std::string> want = {
        "index.html",      "css/style.css", "css/print.css", "css/more.css",   "css/h1.png",
        "img/favicon.ico", "fonts/f.woff2", "img/bg.png",    "img/inline.png", "img/a.png",
        "img/a2x.png",     "img/p.webp",    "img/p.jpg",     "media/v.webm",   "img/poster.png",
        "media/sub.vtt",   "media/a.ogg",   "media/doc.pdf", "media/anim.swf", "img/bullet.png"};
    EXPECT_EQ(origins(c), want);
    // Not followed, not packed: the navigation link and the missing image.
    EXPECT_EQ(find_ref(c, "other.html")->outcome, pack::ref_outcome::not_followed);
    EXPECT_EQ(find_ref(c, "img/missing.png")->outcome, pack::ref_outcome::unresolved);
    EXPECT_EQ(find_ref(c, "img/missing.png")->reason, "missing");
    EXPECT_TRUE(has_code(c, diag_code::resource_missing));
    EXPECT_EQ(find_ref(c, "data:image/gif;base64,R0lGODlhAQABAAAAACw=")->outcome,
              pack::ref_outcome::data);
    // A file is one resource however often it is named; on-disk files are not loaded.
    for (const auto& r : c.resources) {
        if (r.origin != "index.html" && r.origin.find(".css") == std::string::npos) {
            EXPECT_FALSE(r.in_memory) << r.origin;
            EXPECT_FALSE(r.file.empty());
        }
        EXPECT_TRUE(r.content_id.empty());
    }
    EXPECT_EQ(c.counts.resources, want.size());
}

TEST(Collect, MHT_7_9_ContentLocationKeepsDocumentsUnchanged) {
    auto c = collect_site("basic", pack::method::content_location);
    // `img/a.png?token=abc` is the one other spelling of img/a.png: the root is rewritten
    // for it alone (reported); every other document is byte for byte the file.
    for (const auto& r : c.resources) {
        if (r.origin == "index.html") continue;
        EXPECT_FALSE(r.in_memory) << r.origin;
    }
    const auto* odd = find_ref(c, "img/a.png?token=abc");
    ASSERT_TRUE(odd);
    ASSERT_TRUE(odd->rewritten);
    EXPECT_EQ(*odd->rewritten, "img/a.png");
    EXPECT_TRUE(has_code(c, diag_code::reference_respelled));
    // Labels: relative for root-folder files, absolute thismessage:/ for sub-folder documents.
    std::map<std::string, std::string> label;
    for (const auto& r : c.resources) label[r.origin] = r.label;
    EXPECT_EQ(label["index.html"], "index.html");
    EXPECT_EQ(label["img/a.png"], "img/a.png");
    EXPECT_EQ(label["css/style.css"], "thismessage:/css/style.css");
}

TEST(Collect, THTML_9_1_3_OneFileIsOnePartWithOneLabel) {
    auto c = collect_site("oddnames", pack::method::content_location);
    EXPECT_EQ(origins(c).size(), c.resources.size());
    std::set<std::string> labels;
    for (const auto& r : c.resources) EXPECT_TRUE(labels.insert(r.label).second) << r.label;
    EXPECT_EQ(c.resources.size(), 9u);  // the page and its 8 files
    // THTML-9.1.4: the label is the first spelling, as written.
    std::map<std::string, std::string> label;
    for (const auto& r : c.resources) label[r.origin] = r.label;
    EXPECT_EQ(label["a b.png"], "a b.png");
    EXPECT_EQ(label["x.png"], "x.png");
    EXPECT_EQ(label["hash#1.png"], "hash%231.png");
    // The other spellings are rewritten to the label's (MHT-4.4.1 method (a)).
    EXPECT_EQ(*find_ref(c, "a%20b.png")->rewritten, "a b.png");
    EXPECT_EQ(*find_ref(c, "x.png?v=1")->rewritten, "x.png");
    // A fragment is set aside in resolution (MHT-8.2.4), but Chromium looks an archived
    // image up with it: it is dropped from references to anything but HTML and SVG.
    EXPECT_EQ(*find_ref(c, "x.png#frag")->rewritten, "x.png");
    EXPECT_FALSE(find_ref(c, "./x.png")->rewritten);  // dot segments go in resolution
}

TEST(Collect, THTML_9_3_1_CidRewritesEveryPackedReference) {
    auto c = collect_site("basic", pack::method::cid);
    for (const auto& r : c.resources) {
        EXPECT_THAT(r.content_id, testing::MatchesRegex("^[0-9a-z]{26}@mhtml\\.invalid$"));
        EXPECT_FALSE(r.label.empty());  // kept: Chromium keys resources by URL; extract names files
    }
    for (const auto& r : c.references) {
        if (r.outcome != pack::ref_outcome::packed) continue;
        ASSERT_TRUE(r.rewritten) << r.url;
        EXPECT_TRUE(r.rewritten->starts_with("cid:")) << *r.rewritten;
    }
    EXPECT_GE(c.counts.rewritten_documents, 3u);  // index.html and the style sheets
}

TEST(Collect, THTML_9_2_4_FilenameLabelsAreTheVirtualNamesUsed) {
    auto c = collect_site("basic", pack::method::filename);
    for (const auto& r : c.resources) EXPECT_TRUE(uri::is_virtual_filename(r.label)) << r.label;
    for (const auto& r : c.references) {
        if (r.outcome != pack::ref_outcome::packed) continue;
        std::string v = r.rewritten.value_or(r.url);  // already the name: left as it is
        v = v.substr(0, v.find('#'));
        EXPECT_EQ(v, c.resources[*r.resource].label);
    }
}

TEST(Collect, BaseHrefIsHonoured) {
    auto c = collect_site("base", pack::method::content_location);
    EXPECT_EQ(origins(c), (std::set<std::string>{"index.html", "sub/pic.png", "top.png",
                                                 "sub/s.css", "sub/bg.png"}));
}

// What Chromium needs (tests/browser/pack_test.py found each): a relative <base href> is
// written absolute when labels are (Chromium resolves it against the archive file), and
// cid: references carry no fragment but into an SVG document (Chromium looks them up with
// it).
TEST(Collect, RelativeBaseIsWrittenAbsoluteWithAbsoluteLabels) {
    pack::collect_options o;
    o.base = "http://site.example/b/";
    auto c = collect_site("base", pack::method::content_location, o);
    ASSERT_TRUE(c.resources[0].in_memory);
    EXPECT_NE(c.resources[0].data.find("<base href=\"http://site.example/b/sub/\">"),
              std::string::npos)
        << c.resources[0].data;
    expect_every_reference_resolves(c, "base with --base");
    auto plain = collect_site("base", pack::method::content_location);  // fictitious labels
    EXPECT_FALSE(plain.resources[0].in_memory);
}

TEST(Collect, CidReferencesLoseTheirFragmentButIntoSvg) {
    auto c = collect_site("oddnames", pack::method::cid);
    const std::string& page = c.resources[0].data;
    EXPECT_EQ(page.find("#frag"), std::string::npos) << page;
    auto svg = collect_site("svg", pack::method::cid);
    EXPECT_NE(svg.resources[0].data.find("#"), std::string::npos) << svg.resources[0].data;
}

TEST(Collect, FramesAreOwnPartsCyclesEndAndSrcdocIsScannedInPlace) {
    auto c = collect_site("frames", pack::method::cid);
    EXPECT_EQ(origins(c), (std::set<std::string>{"index.html", "frame1.html", "sub/frame2.html",
                                                 "sub/local.png", "img/top.png", "img/f1.png",
                                                 "css/f.css", "img/s.png", "img/deep.png"}));
    const auto* s = find_ref(c, "img/s.png");
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->srcdoc_offset);
    const auto* deep = find_ref(c, "img/deep.png");
    ASSERT_TRUE(deep);
    EXPECT_EQ(deep->outcome, pack::ref_outcome::packed);
    // The rewritten srcdoc names the parts by cid:, escaped for its attribute.
    const std::string& root = c.resources[0].data;
    EXPECT_THAT(root, testing::HasSubstr("<img src=&quot;cid:"));
    EXPECT_THAT(root, testing::HasSubstr("srcdoc='<img src=cid:"));
}

TEST(Collect, SvgUseImageFeImageAndSvgDocuments) {
    auto c = collect_site("svg", pack::method::content_location);
    EXPECT_EQ(origins(c),
              (std::set<std::string>{"index.html", "sprite.svg", "photo.png", "tex.png",
                                     "drawing.svg", "inner.png", "diagram.svg", "img/d.png"}));
    EXPECT_EQ(
        c.resources[std::distance(c.resources.begin(),
                                  std::find_if(c.resources.begin(), c.resources.end(),
                                               [](auto& r) { return r.origin == "sprite.svg"; }))]
            .content_type,
        "image/svg+xml");
}

TEST(Collect, EightBitNamesFollowTheDocumentCharset) {
    auto latin = collect_site("latin1", pack::method::content_location);
    EXPECT_EQ(origins(latin),
              (std::set<std::string>{"index.html", "caf\xC3\xA9.png", "na\xC3\xAFve.png"}));
    EXPECT_EQ(latin.resources[0].content_type, "text/html; charset=windows-1252");
    auto sjis = collect_site("sjis", pack::method::content_location);
    EXPECT_EQ(sjis.resources.size(), 3u);
    EXPECT_EQ(sjis.resources[0].content_type, "text/html; charset=Shift_JIS");
    EXPECT_FALSE(has_code(sjis, diag_code::resource_missing));
    // Labels are spelled as a browser asks for them: the path in UTF-8, percent-encoded
    // (a raw 8-bit label would need RFC 2047, which Chromium does not read).
    std::set<std::string> labels;
    for (const auto& r : sjis.resources) labels.insert(r.label);
    EXPECT_TRUE(labels.count("%E8%A1%A8.png")) << *labels.begin();
    for (const auto& r : latin.resources)
        for (char ch : r.label) EXPECT_LT(static_cast<unsigned char>(ch), 0x80) << r.label;
}

TEST(Collect, HostileReferencesAreRefusedAndReported) {
    sandbox box;
    fs::copy(sites / "hostile", box / "site", fs::copy_options::recursive);
    write_bytes(box / "outside.png", "SECRET");
    fs::create_symlink("../outside.png", box / "site" / "link-out.png");
    for (pack::method m : all_methods()) {
        pack::collect_options o;
        o.method = m;
        auto c = pack::collect(box / "site", o);
        ASSERT_TRUE(c.ok()) << c.error;
        EXPECT_EQ(origins(c), (std::set<std::string>{"index.html", "ok.png", "root-relative.png"}));
        for (const auto& r : c.resources) EXPECT_NE(bytes_of(r), "SECRET");
        std::map<std::string, std::string> reason;
        for (const auto& r : c.references) reason[r.url] = r.reason;
        EXPECT_EQ(reason["../outside.png"], "outside_root");
        EXPECT_EQ(reason["%2E%2E/outside.png"], "outside_root");
        EXPECT_EQ(reason["a%2Fb.png"], "bad_name");
        EXPECT_EQ(reason["nul%00.png"], "bad_name");
        EXPECT_EQ(reason[std::string(300, 'n') + ".png"], "bad_name");
        EXPECT_EQ(reason["img/"], "not_a_file");
        EXPECT_EQ(reason["file:///etc/hostname"], "outside_root");
        EXPECT_EQ(reason["gone.png"], "missing");
        EXPECT_EQ(reason["link-out.png"], "link_outside_root");
        // Each is a diagnostic with the document and the offset of the value.
        const std::string page = read_bytes(box / "site" / "index.html");
        std::size_t reported = 0;
        for (const auto& d : c.diagnostics) {
            if (d.code != diag_code::resource_outside_root &&
                d.code != diag_code::resource_bad_name && d.code != diag_code::resource_not_file &&
                d.code != diag_code::resource_missing)
                continue;
            ++reported;
            EXPECT_EQ(d.part_path, "index.html");
            EXPECT_EQ(page[d.offset - 1], '"');
        }
        EXPECT_EQ(reported, 9u);
        // The references stay as written, and none resolves to a part.
        expect_every_reference_resolves(c, "hostile / " + method_name(m));
    }
}

TEST(Collect, AllPacksUnreferencedFilesSortedAfterTheOthers) {
    pack::collect_options o;
    o.all = true;
    auto c = pack::collect(sites / "basic", o);
    ASSERT_TRUE(c.ok());
    std::vector<std::string> tail;
    for (std::size_t i = 20; i < c.resources.size(); ++i) tail.push_back(c.resources[i].origin);
    EXPECT_EQ(tail, (std::vector<std::string>{"other.html", "unused.txt"}));
    expect_every_reference_resolves(c, "basic --all");
}

TEST(Collect, BaseGivesAbsoluteLabelsAndFileBasesAreWarnedOrAnonymized) {
    pack::collect_options o;
    o.base = "https://example.com/site";
    auto c = pack::collect(sites / "basic", o);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources[0].label, "https://example.com/site/index.html");
    EXPECT_EQ(c.resources[1].label.rfind("https://example.com/site/", 0), 0u);
    expect_every_reference_resolves(c, "basic with base");

    o.base = "file:///home/alice/site/";
    c = pack::collect(sites / "basic", o);
    EXPECT_TRUE(has_code(c, diag_code::label_leaks_local_path));
    EXPECT_EQ(c.resources[0].label, "file:///home/alice/site/index.html");
    o.anonymize_labels = true;
    c = pack::collect(sites / "basic", o);
    EXPECT_FALSE(has_code(c, diag_code::label_leaks_local_path));
    EXPECT_EQ(c.resources[0].label, "index.html");
    expect_every_reference_resolves(c, "basic anonymized");
}

TEST(Collect, MHT_12_6_HiddenFieldsAndCredentialParametersAreWarned) {
    auto c = collect_site("basic", pack::method::content_location);
    EXPECT_TRUE(has_code(c, diag_code::hidden_field_may_leak));
    EXPECT_TRUE(has_code(c, diag_code::credential_in_url));
}

TEST(Collect, FiveHundredImagesAndTheLimits) {
    sandbox box;
    std::string page = "<!DOCTYPE html><meta charset=utf-8>\n";
    for (int i = 0; i < 500; ++i) {
        std::string name = std::to_string(i);  // (GCC 12 warns, wrongly, on "i" + to_string)
        name.insert(0, 1, 'i');
        name += ".png";
        page += "<img src=\"img/";
        page += name;
        page += "\">\n";
        fs::create_directories(box / "img");
        write_bytes(box / "img" / name, std::string("PNG").append(std::to_string(i)));
    }
    write_bytes(box / "index.html", page);
    for (pack::method m : all_methods()) {
        pack::collect_options o;
        o.method = m;
        auto c = pack::collect(box.path(), o);
        ASSERT_TRUE(c.ok());
        EXPECT_EQ(c.resources.size(), 501u);
        expect_every_reference_resolves(c, "500 images / " + method_name(m));
    }
    pack::collect_options o;
    o.limits.max_resources = 101;
    auto c = pack::collect(box.path(), o);
    EXPECT_EQ(c.resources.size(), 101u);
    EXPECT_EQ(c.counts.unresolved, 400u);
    EXPECT_TRUE(has_code(c, diag_code::resource_limit));
    o = {};
    o.limits.max_total_bytes = page.size() + 50;
    c = pack::collect(box.path(), o);
    EXPECT_LT(c.resources.size(), 20u);
    sandbox small;
    write_bytes(small / "index.html", "<img src=big.png><img src=small.png>");
    write_bytes(small / "big.png", std::string(100, 'b'));
    write_bytes(small / "small.png", "s");
    o = {};
    o.limits.max_resource_size = 64;
    c = pack::collect(small.path(), o);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources.size(), 2u);
    EXPECT_EQ(find_ref(c, "big.png")->reason, "too_large");
}

TEST(Collect, FolderRootIsIndexElseTheOnlyHtmlElseAnError) {
    sandbox box;
    write_bytes(box / "page.html", "<img src=a.png>");
    write_bytes(box / "a.png", "A");
    auto c = pack::collect(box.path());
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources[0].origin, "page.html");
    write_bytes(box / "other.htm", "x");
    c = pack::collect(box.path());
    EXPECT_EQ(c.error_code, "ambiguous_root");
    EXPECT_THAT(c.error, testing::HasSubstr("other.htm page.html"));
    write_bytes(box / "index.htm", "<img src=a.png>");
    c = pack::collect(box.path());
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources[0].origin, "index.htm");
    EXPECT_EQ(pack::collect(box / "nothing").error_code, "not_found");
    c = pack::collect(box / "a.png");
    EXPECT_EQ(c.error_code, "not_html");
    // A single file: its folder is the root.
    c = pack::collect(box / "page.html");
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.resources.size(), 2u);
}

TEST(Collect, ContentTypesFromExtensions) {
    EXPECT_EQ(pack::content_type_for_path("a/B.PNG"), "image/png");
    EXPECT_EQ(pack::content_type_for_path("x.woff2"), "font/woff2");
    EXPECT_EQ(pack::content_type_for_path("x.svg"), "image/svg+xml");
    EXPECT_EQ(pack::content_type_for_path("x"), "application/octet-stream");
    EXPECT_EQ(pack::content_type_for_path("x.tar.unknown"), "application/octet-stream");
}

// --- extract folder round trip ----------------------------------------------------------------

TEST(Collect, ExtractFolderRoundTripKeepsBytesAndLabels) {
    const fs::path corpus = fs::path(MHTML_TEST_DATA) / "corpus";
    std::vector<fs::path> archives;
    for (const auto& e : fs::directory_iterator(corpus)) {
        const std::string ext = e.path().extension().string();
        if (ext == ".mht" || ext == ".mhtml" || ext == ".eml") archives.push_back(e.path());
    }
    std::sort(archives.begin(), archives.end());
    std::size_t tried = 0, parts = 0, leaves_exact = 0, documents = 0, documents_exact = 0,
                refs_checked = 0;
    for (const fs::path& a : archives) {
        SCOPED_TRACE(a.filename().string());
        const std::string bytes = read_bytes(a);
        auto doc = mime::document::parse(bytes);
        auto agg = archive::aggregate::build(doc);
        if (agg.related().empty()) continue;
        const mime::part_view root = agg.main_root();
        if (agg.info(root).related != 0) continue;  // the root is not in the first related
        sandbox box;
        auto rep = view::extract(agg, box / "x");
        if (!rep.ok()) continue;
        ++tried;
        auto c = pack::collect(box / "x");
        ASSERT_TRUE(c.ok()) << c.error;
        EXPECT_TRUE(c.from_extract);
        ASSERT_EQ(c.resources.size(), rep.files.size());
        const std::string out = write_archive(c);
        auto doc2 = mime::document::parse(out);
        auto agg2 = archive::aggregate::build(doc2);
        ASSERT_EQ(agg2.related().size(), 1u);
        const auto& members = agg2.related()[0].members;
        ASSERT_EQ(members.size(), rep.files.size());
        std::map<std::string, std::size_t> index_of_file;
        for (std::size_t i = 0; i < c.resources.size(); ++i)
            index_of_file[c.resources[i].origin] = i;
        std::map<std::uint32_t, std::string> part_path_of_new;
        for (std::size_t i = 0; i < members.size(); ++i)
            part_path_of_new[members[i].index()] = c.resources[i].origin;
        std::map<std::string, std::string> file_of_part;
        for (const auto& f : rep.files) file_of_part[f.part] = f.file;
        for (const auto& f : rep.files) {
            ++parts;
            const std::size_t i = index_of_file.at(f.file);
            const mime::part_view p2 = members[i];
            std::optional<mime::part_view> p1;
            for (std::size_t k = 0; k < doc.size(); ++k)
                if (doc.part(k).path() == f.part) p1 = doc.part(k);
            ASSERT_TRUE(p1);
            // Labels and Content-IDs survive.
            EXPECT_EQ(agg2.info(p2).location, agg.info(*p1).location) << f.file;
            if (auto id = p1->content_id()) {
                ASSERT_TRUE(p2.content_id());
                EXPECT_EQ(uri::id_key(*p2.content_id()), uri::id_key(*id));
            }
            std::string d1, d2;
            p1->decode_to(d1);
            p2.decode_to(d2);
            // MHT-11.4: the writer makes text canonical (CRLF), whatever the original had.
            d1 = crlf_text(p1->content_type().essence(), d1);
            if (archive::document_type_of(*p1) == archive::document_type::none) {
                EXPECT_EQ(d1, d2) << f.file;
                leaves_exact += d1 == d2;
                continue;
            }
            ++documents;
            documents_exact += d1 == d2;
            // Every reference that named an extracted part names the same part again.
            const auto s1 = agg.references(*p1);
            const auto s2 = agg2.references(p2);
            if (s1.refs.size() != s2.refs.size()) {
                ADD_FAILURE() << f.file << ": " << s1.refs.size() << " references, now "
                              << s2.refs.size();
                continue;
            }
            for (std::size_t k = 0; k < s1.refs.size(); ++k) {
                const auto r1 = agg.resolve(*p1, s1.refs[k]);
                if (!r1.target || r1.same_document) continue;
                auto it = file_of_part.find(std::string(r1.target->path()));
                if (it == file_of_part.end()) continue;
                const auto r2 = agg2.resolve(p2, s2.refs[k]);
                ASSERT_TRUE(r2.target)
                    << f.file << ": " << s1.refs[k].url << " -> " << s2.refs[k].url;
                EXPECT_EQ(part_path_of_new.at(r2.target->index()), it->second)
                    << f.file << ": " << s1.refs[k].url;
                ++refs_checked;
            }
        }
    }
    EXPECT_GT(tried, 10u);
    EXPECT_EQ(leaves_exact + documents, parts);
    std::cout << "[extract round trip] " << tried << " archives, " << parts
              << " parts: " << leaves_exact << " non-document parts byte-exact, " << documents_exact
              << " of " << documents << " documents byte-exact, " << refs_checked
              << " references resolve to the same part\n";
}

}  // namespace
}  // namespace mhtml
