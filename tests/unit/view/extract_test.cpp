// mhtml extract (view/extract.hpp): the folder, the rewritten references, the bytes kept,
// and safety against hostile archives and hostile output folders.
#include "mhtml/view/extract.hpp"

#include "mhtml/html/scan.hpp"
#include "mhtml/mime/document.hpp"
#include "unit/view/view_support.hpp"

#include "support/policy_check.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

namespace mhtml::view {
namespace {

namespace fs = std::filesystem;
using test::crlf;
using test::read_bytes;
using test::sandbox;

const char* const page_archive = R"(MIME-Version: 1.0
Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8
Content-Location: http://x.example/dir/page.html

<!DOCTYPE html><html><head><base href="http://x.example/dir/"><link rel=stylesheet href="style.css"></head>
<body><img src="img/a.png#frag"><img src="http://other.example/x.png"><a href="other.html">o</a><a href="#top">t</a></body></html>
--b
Content-Type: text/css
Content-Location: http://x.example/dir/style.css

@import "b.css"; body { background: url(../bg.gif) }
--b
Content-Type: text/css
Content-Location: http://x.example/dir/b.css

p { color: red }
--b
Content-Type: image/png
Content-Transfer-Encoding: base64
Content-Location: http://x.example/dir/img/a.png

iVBORw0KGgo=
--b
Content-Type: image/gif
Content-Location: http://x.example/bg.gif

GIF89a
--b--
)";

struct extracted {
    mime::document doc;
    extract_report report;
};

extracted run(const std::string& message, const fs::path& dir, const extract_options& o = {}) {
    auto doc = mime::document::parse(crlf(message));
    auto agg = archive::aggregate::build(doc);
    auto report = extract(agg, dir, o);
    return {std::move(doc), std::move(report)};
}

TEST(Extract, WritesTheRootAsIndexAndRewritesReferences) {
    sandbox box;
    auto [doc, r] = run(page_archive, box / "out");
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(box.entries(), (std::set<std::string>{
                                 "out", "out/index.html", "out/manifest.json", "out/x.example",
                                 "out/x.example/bg.gif", "out/x.example/dir",
                                 "out/x.example/dir/b.css", "out/x.example/dir/img",
                                 "out/x.example/dir/img/a.png", "out/x.example/dir/style.css"}));
    std::string index = read_bytes(box / "out/index.html");
    EXPECT_NE(index.find("<base href=\"\">"), std::string::npos) << index;
    EXPECT_NE(index.find("href=\"x.example/dir/style.css\""), std::string::npos);
    EXPECT_NE(index.find("src=\"x.example/dir/img/a.png#frag\""), std::string::npos);
    EXPECT_NE(index.find("src=\"http://other.example/x.png\""), std::string::npos);
    EXPECT_NE(index.find("href=\"http://x.example/dir/other.html\""), std::string::npos);
    EXPECT_NE(index.find("href=\"#top\""), std::string::npos);
    EXPECT_EQ(read_bytes(box / "out/x.example/dir/style.css"),
              "@import \"b.css\"; body { background: url(../bg.gif) }");
    EXPECT_EQ(read_bytes(box / "out/x.example/dir/img/a.png"), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(r.references_rewritten, 4u);  // style.css, a.png, b.css, bg.gif
    EXPECT_EQ(r.external_left, 2u);         // x.png, other.html
    auto manifest = nlohmann::json::parse(read_bytes(box / "out/manifest.json"));
    EXPECT_EQ(manifest["root"], "index.html");
    ASSERT_EQ(manifest["files"].size(), 5u);
    EXPECT_EQ(manifest["files"][3]["part"], "4");
    EXPECT_EQ(manifest["files"][3]["file"], "x.example/dir/img/a.png");
    EXPECT_EQ(manifest["files"][3]["content_location"], "http://x.example/dir/img/a.png");
    EXPECT_EQ(manifest["files"][3]["size"], 8);
}

TEST(Extract, KeepNamesWritesTheRootAtItsUrl) {
    sandbox box;
    extract_options o;
    o.keep_names = true;
    auto [doc, r] = run(page_archive, box / "out", o);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_TRUE(fs::is_regular_file(box / "out/x.example/dir/page.html"));
    EXPECT_FALSE(fs::exists(box / "out/index.html"));
    std::string page = read_bytes(box / "out/x.example/dir/page.html");
    EXPECT_NE(page.find("href=\"style.css\""), std::string::npos);  // relative to its own folder
}

TEST(Extract, OfflinePointsExternalResourcesAtNothing) {
    sandbox box;
    extract_options o;
    o.offline = true;
    auto [doc, r] = run(page_archive, box / "out", o);
    ASSERT_TRUE(r.ok()) << r.error;
    std::string index = read_bytes(box / "out/index.html");
    EXPECT_NE(index.find("src=\"data:,\""), std::string::npos);
    EXPECT_EQ(index.find("other.example"), std::string::npos);
    EXPECT_NE(index.find("href=\"http://x.example/dir/other.html\""), std::string::npos)
        << "a link the reader clicks fetches nothing by itself";
    EXPECT_NE(index.find("Content-Security-Policy"), std::string::npos);
    EXPECT_EQ(index.find("<!DOCTYPE html><meta charset=\"UTF-8\"><meta "
                         "http-equiv=\"Content-Security-Policy\""),
              0u);
    EXPECT_EQ(r.external_removed, 1u);
}

TEST(Extract, ACharsetFromTheContentTypeOnlyIsDeclared) {
    const std::string body = "<p>\xcf\xf0\xe8\xe2\xe5\xf2</p>";  // "Привет" in windows-1251
    sandbox box;
    auto [doc, r] =
        run("Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n"
            "--b\nContent-Type: text/html; charset=windows-1251\n\n<!doctype html>" +
                body + "\n--b--\n",
            box / "a");
    ASSERT_TRUE(r.ok()) << r.error;
    const std::string policy =
        "<meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'none'; "
        "object-src file: data:\">";
    EXPECT_EQ(read_bytes(box / "a/index.html"),
              "<!doctype html><meta charset=\"windows-1251\">" + policy + body);
    // A document that declares its charset itself is written as it is.
    auto [doc2, r2] =
        run("Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n"
            "--b\nContent-Type: text/html; charset=windows-1251\n\n<meta charset=windows-1251>" +
                body + "\n--b--\n",
            box / "b");
    ASSERT_TRUE(r2.ok());
    EXPECT_EQ(read_bytes(box / "b/index.html"), policy + "<meta charset=windows-1251>" + body);
}

TEST(Extract, MHT_12_5_EveryDocumentCarriesThePolicyFirstUnlessScriptsAreAllowed) {
    const std::string message =
        R"msg(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html
Content-Location: http://x.example/

<!--><script>x()</script><!-- --><meta http-equiv=refresh content=0;url=http://y.example/>
<iframe src="f.xhtml"></iframe><iframe src="p.svg"></iframe><iframe src="d.xml"></iframe>
<iframe src="evil.html"></iframe><object data="doc.pdf">fallback</object>
--b
Content-Type: application/xhtml+xml
Content-Location: http://x.example/f.xhtml

<html xmlns="http://www.w3.org/1999/xhtml"><body><script>y()</script></body></html>
--b
Content-Type: image/svg+xml
Content-Location: http://x.example/p.svg

<svg xmlns="http://www.w3.org/2000/svg" onload="z()"/>
--b
Content-Type: text/xml
Content-Location: http://x.example/d.xml

<d><s:script xmlns:s="http://www.w3.org/1999/xhtml">w()</s:script></d>
--b
Content-Type: application/octet-stream
Content-Location: http://x.example/evil.html

<script>v()</script>
--b
Content-Type: application/pdf
Content-Location: http://x.example/doc.pdf

%PDF
--b--
)msg";
    sandbox box;
    auto [doc, r] = run(message, box / "out");
    ASSERT_TRUE(r.ok()) << r.error;
    std::map<std::string, std::string> files;
    for (const auto& f : r.files) files[f.part] = f.file;
    EXPECT_EQ(files["2"], "x.example/f.xhtml");
    EXPECT_EQ(files["5"], "x.example/evil.html.bin");  // never a page without a policy
    const std::string index = read_bytes(box / "out/index.html");
    EXPECT_EQ(test::policy_first_violation(index, false), "") << index;
    EXPECT_NE(index.find("<meta data-equiv=refresh"), std::string::npos);
    EXPECT_NE(index.find("<object data=\"mhtml-blocked:plugin\">fallback"), std::string::npos);
    EXPECT_EQ(r.refreshes_disabled, 1u);
    EXPECT_EQ(r.plugins_blocked, 1u);
    for (const char* xml : {"2", "3", "4"}) {
        const std::string text = read_bytes(box / "out" / files[xml]);
        EXPECT_EQ(test::policy_first_violation(text, true), "") << files[xml] << ": " << text;
    }
    bool renamed = false;
    for (const auto& n : r.notices)
        renamed |= n.part == "5" && n.code == "renamed" &&
                   n.message.find("a browser opens as a document") != std::string::npos;
    EXPECT_TRUE(renamed);

    extract_options allow;
    allow.allow_scripts = true;
    auto [doc2, r2] = run(message, box / "open", allow);
    ASSERT_TRUE(r2.ok()) << r2.error;
    const std::string open = read_bytes(box / "open/index.html");
    EXPECT_EQ(open.find("Content-Security-Policy"), std::string::npos);
    EXPECT_NE(open.find("<meta http-equiv=refresh"), std::string::npos);
    EXPECT_NE(open.find("<object data=\"x.example/doc.pdf\">"), std::string::npos) << open;
    EXPECT_EQ(read_bytes(box / "open/x.example/p.svg"),
              "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"z()\"/>");
}

TEST(Extract, TheVirtualFileNameMethodNeedsNoRewriting) {
    // text/html draft 9.2: Content-Base: FILE: and relative names.
    sandbox box;
    auto [doc, r] = run(R"(Content-Type: multipart/related; boundary="b"; type="text/html"
Content-Base: "FILE:"

--b
Content-Type: text/html
Content-Location: index.htm

<img src="logo.gif"><img src="pics/a.gif">
--b
Content-Type: image/gif
Content-Location: logo.gif

GIF1
--b
Content-Type: image/gif
Content-Location: pics/a.gif

GIF2
--b--
)",
                        box / "out");
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_TRUE(r.file_name_method);
    EXPECT_EQ(r.references_rewritten, 0u);
    // Only the policy is added: every reference stays as the archive wrote it.
    EXPECT_EQ(read_bytes(box / "out/index.html"),
              "<meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'none'; "
              "object-src file: data:\"><img src=\"logo.gif\"><img src=\"pics/a.gif\">");
    EXPECT_EQ(read_bytes(box / "out/logo.gif"), "GIF1");
    EXPECT_EQ(read_bytes(box / "out/pics/a.gif"), "GIF2");
}

// Every label below tries to get out of the folder, or to make a name some system cannot
// hold. Nothing may appear outside the folder, every file must be a plain file inside it,
// and each renaming must be explained.
TEST(Extract, HostileLabelsNeverLeaveTheFolder) {
    const char* labels[] = {
        "../../../../outside.txt",
        "/etc/passwd-copy",
        "C:\\Windows\\evil.dll",
        "file:///tmp/evil.txt",
        "http://x.example/%2e%2e/%2e%2e/%2e%2e/evil.txt",
        "http://x.example/a%2Fb%5C..%5Cc.txt",
        "http://x.example/%00nul%01ctl%7f.txt",
        "http://x.example/CON",
        "http://x.example/aux.txt",
        "http://x.example/Same.txt",
        "http://x.example/same.TXT",
        "thismessage:/../../up.txt",
        "http://x.example/.bashrc",
    };
    std::string message =
        "Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\n\n"
        "--b\nContent-Type: text/html\n\n<p>page\n";
    int n = 0;
    for (const char* label : labels) {
        message += "--b\nContent-Type: text/plain\nContent-Location: " + std::string(label) +
                   "\n\nfile " + std::to_string(++n) + "\n";
    }
    // A name far too long, and a path far too deep.
    message += "--b\nContent-Type: text/plain\nContent-Location: http://x.example/" +
               std::string(500, 'L') + "\n\nlong\n";
    std::string deep = "http://x.example";
    for (int i = 0; i < 40; ++i) deep += "/d";
    message += "--b\nContent-Type: text/plain\nContent-Location: " + deep + "\n\ndeep\n--b--\n";

    sandbox box;
    auto [doc, r] = run(message, box / "inside" / "out");
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.files.size(), 16u);
    for (const std::string& e : box.entries()) {
        EXPECT_TRUE(e == "inside" || e == "inside/out" || e.starts_with("inside/out/")) << e;
        EXPECT_FALSE(fs::is_symlink(box / e)) << e;
    }
    std::set<std::string> lower;
    for (const auto& f : r.files) {
        SCOPED_TRACE(f.file);
        EXPECT_TRUE(fs::is_regular_file(box / "inside/out" / f.file));
        for (const auto& seg : fs::path(f.file)) EXPECT_NE(seg, "..");
        EXPECT_EQ(f.file.find('\\'), std::string::npos);
        EXPECT_EQ(f.file.find(':'), std::string::npos);
        EXPECT_LE(f.file.size(), 240u);
        std::string l = f.file;
        for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        EXPECT_TRUE(lower.insert(l).second) << "two names differ only in case";
    }
    // Each file holds what its part held.
    for (const auto& f : r.files) {
        auto p = doc.find(f.part);
        ASSERT_TRUE(p.has_value());
        std::string decoded;
        p->decode_to(decoded);
        if (!f.root) {
            EXPECT_EQ(read_bytes(box / "inside/out" / f.file), decoded) << f.file;
        }
    }
    // The reasons are told.
    std::string told;
    for (const auto& notice : r.notices) told += notice.part + " " + notice.message + "\n";
    EXPECT_NE(told.find("'..' segments dropped"), std::string::npos) << told;
    EXPECT_NE(told.find("device name"), std::string::npos) << told;
    EXPECT_NE(told.find("unsafe in file names"), std::string::npos) << told;
    EXPECT_NE(told.find("ignoring case"), std::string::npos) << told;
    EXPECT_NE(told.find("longer than 80"), std::string::npos) << told;
    EXPECT_NE(told.find("12 folders deep"), std::string::npos) << told;
}

TEST(Extract, AnExistingFolderIsRefusedUnlessForced) {
    sandbox box;
    fs::create_directories(box / "out");
    test::write_bytes(box / "out/mine.txt", "keep me");
    auto [doc, r] = run(page_archive, box / "out");
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error_code, "dir_not_empty");
    EXPECT_NE(r.error.find("not empty"), std::string::npos);
    EXPECT_EQ(box.entries(), (std::set<std::string>{"out", "out/mine.txt"}));
    // An empty folder is used.
    fs::create_directories(box / "empty");
    auto [doc2, r2] = run(page_archive, box / "empty");
    EXPECT_TRUE(r2.ok()) << r2.error;
    EXPECT_TRUE(fs::exists(box / "empty/index.html"));
    // --force replaces the folder as a whole.
    extract_options o;
    o.force = true;
    auto [doc3, r3] = run(page_archive, box / "out", o);
    ASSERT_TRUE(r3.ok()) << r3.error;
    EXPECT_FALSE(fs::exists(box / "out/mine.txt"));
    EXPECT_TRUE(fs::exists(box / "out/index.html"));
    for (const std::string& e : box.entries())
        EXPECT_TRUE(e.starts_with("out") || e.starts_with("empty")) << "left behind: " << e;
}

TEST(Extract, LinksAreNeverFollowed) {
    sandbox box;
    test::write_bytes(box / "precious.txt", "precious");
    fs::create_directories(box / "elsewhere");
    // The folder itself is a link: refused.
    fs::create_directory_symlink(box / "elsewhere", box / "linked");
    auto [doc, r] = run(page_archive, box / "linked");
    EXPECT_EQ(r.error_code, "dir_is_link");
    EXPECT_NE(r.error.find("symbolic link"), std::string::npos);
    EXPECT_TRUE(fs::is_empty(box / "elsewhere"));
    // A folder holding links to what the archive would write: replaced, never written through.
    fs::create_directories(box / "out/x.example");
    fs::create_symlink(box / "precious.txt", box / "out/index.html");
    fs::create_directory_symlink(box / "elsewhere", box / "out/x.example/dir");
    extract_options o;
    o.force = true;
    auto [doc2, r2] = run(page_archive, box / "out", o);
    ASSERT_TRUE(r2.ok()) << r2.error;
    EXPECT_EQ(read_bytes(box / "precious.txt"), "precious");
    EXPECT_TRUE(fs::is_empty(box / "elsewhere"));
    EXPECT_FALSE(fs::is_symlink(box / "out/index.html"));
    EXPECT_FALSE(fs::is_symlink(box / "out/x.example/dir"));
    // A file where the folder should be.
    test::write_bytes(box / "file", "x");
    auto [doc3, r3] = run(page_archive, box / "file");
    EXPECT_EQ(r3.error_code, "not_a_directory");
}

TEST(Extract, AnUnknownPartIsAClearError) {
    sandbox box;
    extract_options o;
    o.part = "7.3";
    auto [doc, r] = run(page_archive, box / "out", o);
    EXPECT_EQ(r.error_code, "no_such_part");
    EXPECT_NE(r.error.find("7.3"), std::string::npos);
    EXPECT_TRUE(box.entries().empty());
}

TEST(Extract, BlinkShadowRootsBecomeDeclarativeShadowRoots) {
    // In HTML documents only: an XHTML document is read by an XML parser, which no
    // declarative shadow root concerns.
    const std::string message = R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html
Content-Location: http://x.example/

<div><template shadowmode="open"><img src="a.png"></template></div><iframe src="x.xhtml"></iframe>
--b
Content-Type: application/xhtml+xml
Content-Location: http://x.example/x.xhtml

<html xmlns="http://www.w3.org/1999/xhtml"><body><template shadowmode="open"/></body></html>
--b
Content-Type: image/png
Content-Location: http://x.example/a.png

PNG
--b--
)";
    sandbox box;
    auto [doc, r] = run(message, box / "out");
    ASSERT_TRUE(r.ok()) << r.error;
    const std::string index = read_bytes(box / "out/index.html");
    EXPECT_NE(index.find("<template shadowrootmode=\"open\"><img src=\"x.example/a.png\">"),
              std::string::npos)
        << index;
    EXPECT_NE(read_bytes(box / "out/x.example/x.xhtml").find("<template shadowmode=\"open\"/>"),
              std::string::npos);
    EXPECT_EQ(r.shadow_roots, 1u);
    ASSERT_EQ(r.notices.size(), 1u);
    EXPECT_EQ(r.notices[0].code, "shadow_roots");
    EXPECT_EQ(r.notices[0].part, "1");
}

}  // namespace
}  // namespace mhtml::view
