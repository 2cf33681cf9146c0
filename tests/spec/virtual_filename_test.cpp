// text/html draft §9.2, the virtual file-name method (seed 004; REQUIREMENTS THTML-9.2.1,
// THTML-9.2.2, E-31): every vector of tests/data/spec/virtual_filename.json, the generator
// examples of THTML-9.2.2, and the generator's properties over random resource sets.
#include "mhtml/uri/virtual_filename.hpp"

#include "spec/vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace mhtml::uri {
namespace {

using test::load_vectors;
using test::octets;

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// --- every vector ---------------------------------------------------------------------------

TEST(VirtualFileName, AllVectors) {
    auto file = load_vectors("virtual_filename.json");
    // THTML-9.2.1's validator, as a regular expression, cross-checks the hand-written one.
    const std::regex grammar("^[A-Za-z][A-Za-z0-9]{0,7}(\\.[A-Za-z0-9]{1,3})?$");
    std::set<std::string> ids;
    std::size_t n = 0;
    for (auto& v : file["vectors"]) {
        std::string id = v["id"].get<std::string>();
        SCOPED_TRACE(id);
        EXPECT_TRUE(ids.insert(id).second) << "duplicate id";
        ++n;
        std::string name = octets(v["name"]);
        bool valid = v["valid"].get<bool>();
        EXPECT_EQ(is_virtual_filename(name), valid) << "'" << name << "'";
        EXPECT_EQ(std::regex_match(name, grammar), valid) << "'" << name << "'";
        if (!valid) {
            EXPECT_TRUE(v.contains("reason"));
        }
        bool reserved = v.value("windows_reserved", false);
        if (v.contains("windows_reserved") || valid) {
            EXPECT_EQ(is_windows_reserved_name(name), reserved) << "'" << name << "'";
        }
    }
    EXPECT_EQ(n, 35u) << "virtual_filename.json should hold 35 vectors";
}

// --- THTML-9.2.1 ------------------------------------------------------------------------------

TEST(VirtualFileName, THTML_9_2_1_RequirementsExamples) {
    for (std::string_view ok : {"logo.gif", "a", "abcdefgh.txt", "LOGO.GIF", "a1"}) {
        SCOPED_TRACE(ok);
        EXPECT_TRUE(is_virtual_filename(ok));
    }
    for (std::string_view bad :
         {"abcdefghi.txt", "1logo.gif", "logo.jpeg", "logo.", "lo-go.gif", ".gif", "logo.g.f"}) {
        SCOPED_TRACE(bad);
        EXPECT_FALSE(is_virtual_filename(bad));
    }
}

TEST(VirtualFileName, THTML_9_2_1_EveryOctetInEveryPosition) {
    // Only ASCII letters (first) and letters/digits (later) are allowed, '.' once.
    for (int o = 0; o < 256; ++o) {
        char c = static_cast<char>(o);
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool alnum = alpha || (c >= '0' && c <= '9');
        SCOPED_TRACE(o);
        std::string one(1, c), two = "a", ext = "a.", mid = "ab";
        two.push_back(c);
        ext.push_back(c);
        mid.push_back(c);
        mid += ".x";
        EXPECT_EQ(is_virtual_filename(one), alpha);
        EXPECT_EQ(is_virtual_filename(two), alnum);
        EXPECT_EQ(is_virtual_filename(ext), alnum);
        EXPECT_EQ(is_virtual_filename(mid), alnum);
    }
}

TEST(VirtualFileName, THTML_9_2_1_WindowsDeviceNames) {
    for (std::string_view r :
         {"CON", "con", "Prn.txt", "aux.gif", "nul.a.b", "COM1", "com9.x", "LPT1", "lpt9.htm"}) {
        SCOPED_TRACE(r);
        EXPECT_TRUE(is_windows_reserved_name(r));
    }
    for (std::string_view r : {"", "co", "conx", "con1", "com", "com0", "com10", "lpt0", "xnul",
                               "nu", "comx", "a.con"}) {
        SCOPED_TRACE(r);
        EXPECT_FALSE(is_windows_reserved_name(r));
    }
}

// --- THTML-9.2.2 ------------------------------------------------------------------------------

TEST(VirtualFileName, THTML_9_2_2_RequirementsExamples) {
    auto names = make_virtual_filenames({
        {"https://e.example/Logo.PNG", "image/png"},
        {"https://f.example/logo.png", "image/png"},
        {"https://e.example/con", "text/html"},
        {"https://e.example/2019-report.pdf", "application/pdf"},
    });
    ASSERT_EQ(names.size(), 4u);
    EXPECT_EQ(names[0], "logo.png");
    EXPECT_EQ(names[1], "logo1.png");
    EXPECT_EQ(names[2], "con1.htm");
    EXPECT_EQ(names[3], "f2019rep.pdf");
}

TEST(VirtualFileName, THTML_9_2_2_ExtensionFromTypeThenUrlThenBin) {
    EXPECT_EQ(make_virtual_filenames({{"http://x/a.gif", "image/jpeg"}})[0], "a.jpg");
    EXPECT_EQ(make_virtual_filenames({{"http://x/a.GIF", ""}})[0], "a.gif");
    EXPECT_EQ(make_virtual_filenames({{"http://x/a.jpeg", ""}})[0], "a.bin");
    EXPECT_EQ(make_virtual_filenames({{"http://x/a", "application/x-unknown"}})[0], "a.bin");
    EXPECT_EQ(make_virtual_filenames({{"http://x/setup.exe", "application/octet-stream"}})[0],
              "setup.exe");
    EXPECT_EQ(make_virtual_filenames({{"http://x/a.b-c", ""}})[0], "a.bin");
}

TEST(VirtualFileName, THTML_9_2_2_ExtensionTable) {
    struct row {
        std::string_view type, ext;
    };
    for (row r : {row{"image/png", "png"},
                  {"image/jpeg", "jpg"},
                  {"image/gif", "gif"},
                  {"text/css", "css"},
                  {"text/html", "htm"},
                  {"application/javascript", "js"},
                  {"image/svg+xml", "svg"},
                  {"image/x-icon", "ico"},
                  {"image/bmp", "bmp"},
                  {"image/tiff", "tif"},
                  {"text/plain", "txt"},
                  {"text/javascript", "js"},
                  {"application/pdf", "pdf"},
                  {"audio/mpeg", "mp3"},
                  {"video/mp4", "mp4"},
                  {"image/webp", "wbp"},
                  {"application/json", "jsn"},
                  {"font/woff", "wof"},
                  {"Text/HTML; charset=utf-8", "htm"},
                  {"  IMAGE/PNG ; x=y", "png"},
                  {"text/html(comment)", "htm"},
                  {"application/octet-stream", ""},
                  {"", ""},
                  {"image", ""},
                  {"image/png2", ""}}) {
        SCOPED_TRACE(r.type);
        EXPECT_EQ(extension_for_type(r.type), r.ext);
        if (!r.ext.empty()) {
            EXPECT_LE(r.ext.size(), 3u);
            EXPECT_TRUE(is_virtual_filename("a." + std::string(r.ext)));
        }
    }
}

TEST(VirtualFileName, THTML_9_2_2_BaseFromUrl) {
    struct row {
        std::string_view url, type, name;
    };
    for (row r : {
             row{"http://x/dir/Photo_01.JPG?size=2#top", "image/jpeg", "photo01.jpg"},
             {"images/my%20logo.gif", "image/gif", "mylogo.gif"},
             {"../a/b/c.d.e.png", "image/png", "cde.png"},  // stem up to the last '.'
             {"https://x.example", "text/html", "index.htm"},
             {"https://x.example/", "text/html", "index.htm"},
             {"https://x.example/dir/", "text/html", "index.htm"},
             {"", "text/html", "file.htm"},
             {"?q=1", "", "file.bin"},
             {"#frag", "text/css", "file.css"},
             {"//h", "text/html", "index.htm"},
             {"cid:image001.png@01D2A3B4.C5D6E7F0", "image/png", "image001.png"},
             {"CID:foo4%25foo1@bar.net", "image/gif", "foo4foo1.gif"},
             {"mid:m@x/p@x", "text/html", "m.htm"},
             {"data:image/png;base64,iVBORw0KGgo=", "image/png", "file.png"},
             {"https://x/.htaccess", "", "file.bin"},
             {"https://x/%E9t%E9.css", "text/css", "t.css"},
             {"https://x/caf\xC3\xA9.js", "text/javascript", "caf.js"},
             {"https://x/123", "text/html", "f123.htm"},
             {"https://x/verylongfilename.html", "text/html", "verylong.htm"},
             {"C:\\pages\\Index.HTM", "", "index.htm"},
             {"https://x/a%2", "", "a2.bin"},
         }) {
        SCOPED_TRACE(r.url);
        auto names = make_virtual_filenames({{std::string(r.url), std::string(r.type)}});
        ASSERT_EQ(names.size(), 1u);
        EXPECT_EQ(names[0], r.name);
    }
}

TEST(VirtualFileName, THTML_9_2_2_CountersReplaceTheEnd) {
    std::vector<filename_request> reqs;
    for (int i = 0; i < 12; ++i) reqs.push_back({"https://x/verylongname.png", "image/png"});
    auto names = make_virtual_filenames(reqs);
    ASSERT_EQ(names.size(), 12u);
    EXPECT_EQ(names[0], "verylong.png");
    EXPECT_EQ(names[1], "verylon1.png");
    EXPECT_EQ(names[9], "verylon9.png");
    EXPECT_EQ(names[10], "verylo10.png");
    EXPECT_EQ(names[11], "verylo11.png");
    // Device names, and counters that would make one (com + 1 ... com + 9), are skipped.
    auto dev = make_virtual_filenames({{"https://x/com.htm", "text/html"},
                                       {"https://x/com.htm", "text/html"},
                                       {"https://x/COM1.htm", "text/html"},
                                       {"https://x/aux", "text/html"},
                                       {"https://x/lpt9", "text/plain"}});
    EXPECT_EQ(dev, (std::vector<std::string>{"com.htm", "com10.htm", "com11.htm", "aux1.htm",
                                             "lpt91.txt"}));
    // Different extensions do not collide.
    auto ext = make_virtual_filenames({{"a.png", "image/png"}, {"a.png", "image/gif"}});
    EXPECT_EQ(ext, (std::vector<std::string>{"a.png", "a.gif"}));
    // A natural name already holding the counter's spelling is skipped too.
    auto nat = make_virtual_filenames(
        {{"logo1.png", "image/png"}, {"logo.png", "image/png"}, {"Logo.png", "image/png"}});
    EXPECT_EQ(nat, (std::vector<std::string>{"logo1.png", "logo.png", "logo2.png"}));
    EXPECT_TRUE(make_virtual_filenames({}).empty());
}

// Random URLs built to collide: few distinct stems, case variants, reserved names, long
// names, digits first, escapes, query and fragment, cid:, empty.
filename_request random_request(std::mt19937& rng) {
    static const std::vector<std::string> stems = {"logo",
                                                   "LOGO",
                                                   "Logo",
                                                   "con",
                                                   "CON",
                                                   "nul",
                                                   "aux",
                                                   "prn",
                                                   "com1",
                                                   "lpt9",
                                                   "com",
                                                   "index",
                                                   "a",
                                                   "verylongname",
                                                   "2019-report",
                                                   "_",
                                                   "",
                                                   "%20",
                                                   "caf\xE9",
                                                   "x.y.z",
                                                   "image001",
                                                   "abcdefgh",
                                                   "abcdefghi",
                                                   "a-b-c-d-e-f-g-h-i",
                                                   ".hidden",
                                                   "9"};
    static const std::vector<std::string> exts = {"",      ".png", ".PNG", ".gif", ".jpeg", ".htm",
                                                  ".html", ".js",  ".x-y", ".",    ".1"};
    static const std::vector<std::string> prefixes = {
        "https://e.example/", "http://f.example/dir/", "", "../", "/abs/", "cid:", "//h/"};
    static const std::vector<std::string> suffixes = {"", "?q=1", "#f", "?a/b.c#d", "/"};
    static const std::vector<std::string> types = {"image/png",
                                                   "IMAGE/PNG; x=1",
                                                   "image/gif",
                                                   "text/html; charset=utf-8",
                                                   "",
                                                   "application/octet-stream",
                                                   "application/x-whatever",
                                                   "text/css",
                                                   "image/webp"};
    auto pick = [&rng](const std::vector<std::string>& v) -> const std::string& {
        return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
    };
    std::string url = pick(prefixes) + pick(stems) + pick(exts);
    if (url.rfind("cid:", 0) == 0) url += "@x.example";
    url += pick(suffixes);
    return {url, pick(types)};
}

TEST(VirtualFileName, THTML_9_2_2_PropertyValidUniqueDeterministic) {
    std::mt19937 rng(9221996);
    std::uniform_int_distribution<int> size(0, 300);
    for (int round = 0; round < 200; ++round) {
        std::vector<filename_request> reqs;
        int n = size(rng);
        for (int i = 0; i < n; ++i) reqs.push_back(random_request(rng));
        auto names = make_virtual_filenames(reqs);
        ASSERT_EQ(names.size(), reqs.size());
        std::set<std::string> seen;
        for (std::size_t i = 0; i < names.size(); ++i) {
            SCOPED_TRACE(reqs[i].url + " | " + reqs[i].content_type + " -> " + names[i]);
            EXPECT_TRUE(is_virtual_filename(names[i]));
            EXPECT_FALSE(is_windows_reserved_name(names[i]));
            EXPECT_TRUE(seen.insert(lower(names[i])).second) << "duplicate";
        }
        EXPECT_EQ(make_virtual_filenames(reqs), names) << "same input, same output";
    }
}

TEST(VirtualFileName, THTML_9_2_2_PropertyManyIdenticalRequests) {
    // 2000 copies of one URL: counters run into 4 digits and keep names within 8.
    std::vector<filename_request> reqs(2000, {"https://x/abcdefgh.png", "image/png"});
    auto names = make_virtual_filenames(reqs);
    std::set<std::string> seen(names.begin(), names.end());
    EXPECT_EQ(seen.size(), reqs.size());
    for (const std::string& s : names) EXPECT_TRUE(is_virtual_filename(s)) << s;
    EXPECT_EQ(names[1999], "abcd1999.png");
}

TEST(VirtualFileName, THTML_9_2_2_ManyIdenticalRequestsAreLinear) {
    // 50,000 copies of one URL. The counter of a base and extension continues where the
    // last copy stopped, instead of trying 1, 2, ... again for each copy (quadratic: 20,000
    // copies used to take 24 s). No timing assertion: it must just finish.
    std::vector<filename_request> reqs(50000, {"https://e.example/img/image.png", "image/png"});
    auto names = make_virtual_filenames(reqs);
    ASSERT_EQ(names.size(), reqs.size());
    std::set<std::string> seen;
    for (const std::string& s : names) {
        ASSERT_TRUE(is_virtual_filename(s)) << s;
        ASSERT_FALSE(is_windows_reserved_name(s)) << s;
        ASSERT_TRUE(seen.insert(lower(s)).second) << "duplicate " << s;
    }
    EXPECT_EQ(names[0], "image.png");
    EXPECT_EQ(names[1], "image1.png");
    EXPECT_EQ(names[999], "image999.png");
    EXPECT_EQ(names[1000], "imag1000.png");
    EXPECT_EQ(names[10000], "ima10000.png");
    EXPECT_EQ(names[49999], "ima49999.png");
}

TEST(VirtualFileName, THTML_9_2_2_CounterContinuesButSkipsNamesTakenByOthers) {
    // Bases that share counter spellings: a remembered counter still skips names other
    // bases took meanwhile, so the names are those of counting from 1 each time.
    auto names = make_virtual_filenames({{"https://x/verylong.png", "image/png"},
                                         {"https://x/verylong.png", "image/png"},
                                         {"https://x/verylong.png", "image/png"},
                                         {"https://x/verylonx.png", "image/png"},
                                         {"https://x/verylonx.png", "image/png"},
                                         {"https://x/verylong.png", "image/png"},
                                         {"https://x/verylon5.png", "image/png"},
                                         {"https://x/verylong.png", "image/png"},
                                         {"https://x/verylonx.png", "image/png"},
                                         {"https://x/com.txt", "text/plain"},
                                         {"https://x/com.txt", "text/plain"},
                                         {"https://x/com.txt", "text/plain"}});
    EXPECT_EQ(names, (std::vector<std::string>{"verylong.png", "verylon1.png", "verylon2.png",
                                               "verylonx.png", "verylon3.png", "verylon4.png",
                                               "verylon5.png", "verylon6.png", "verylon7.png",
                                               "com.txt", "com10.txt", "com11.txt"}));
}

}  // namespace
}  // namespace mhtml::uri
