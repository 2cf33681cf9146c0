// mhtml pack: every test site with every method, read back by mhtml's parser, aggregate and
// checker; exit codes, standard output, the JSON report, mail mode, external bodies; and the
// round trip `mhtml extract` then `mhtml pack` over the corpus.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/archive/check.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/uri/cid.hpp"
#include "unit/view/view_support.hpp"

namespace mhtml {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using test::read_bytes;
using test::run_cli;
using test::sandbox;
using test::write_bytes;

const fs::path sites = fs::path(MHTML_TEST_DATA) / "sites";

const std::vector<std::string> site_names = {"basic", "oddnames", "base", "frames",
                                             "svg",   "latin1",   "sjis", "hostile"};
const std::vector<std::string> methods = {"content-location", "cid", "filename"};

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

bool has_field(const mime::part_view& p, std::string_view name) {
    return p.header(name).has_value();
}

struct packed {
    int status = -1;
    json report;
    std::string archive;
};

// mhtml pack ARGS --json -o OUT, the report parsed and the archive read.
packed pack(const sandbox& box, std::vector<std::string> args, const std::string& name) {
    const fs::path out = box / name;
    args.insert(args.begin(), "pack");
    args.push_back("--json");
    args.push_back("-o");
    args.push_back(out.string());
    const auto r = run_cli(args);
    packed p;
    p.status = r.status;
    p.report = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(p.report.is_discarded()) << r.out;
    p.archive = read_bytes(out);
    return p;
}

// Every reference the JSON says was packed names, by the reader's resolution, the part the
// report says holds its file, and every leaf that is not a document holds the file's bytes.
// Returns references checked.
std::size_t expect_report_holds(const packed& p, const fs::path& site, const std::string& what) {
    SCOPED_TRACE(what);
    auto doc = mime::document::parse(p.archive);
    for (const diagnostic& d : doc.diagnostics())
        EXPECT_LT(d.sev, severity::ambiguous) << code_name(d.code) << ": " << d.message;
    auto agg = archive::aggregate::build(doc);
    EXPECT_EQ(agg.related().size(), 1u);
    // Part of each resource index, by output path.
    std::map<std::string, mime::part_view> by_path;
    for (std::size_t i = 0; i < doc.size(); ++i) by_path.emplace(doc.part(i).path(), doc.part(i));
    std::map<std::size_t, std::string> path_of_resource;
    std::map<std::string, std::string> path_of_origin;
    for (const json& part : p.report["parts"]) {
        if (!part["written"].get<bool>()) continue;
        const std::string path = part["path"];
        path_of_resource[part["index"].get<std::size_t>()] = path;
        path_of_origin[part["origin"]] = path;
        EXPECT_TRUE(by_path.count(path)) << path;
        if (!by_path.count(path) || part["external"].get<bool>()) continue;
        const mime::part_view v = by_path.at(path);
        std::string decoded;
        v.decode_to(decoded);
        EXPECT_EQ(decoded.size(), part["decoded_size"].get<std::uint64_t>()) << path;
        if (archive::document_type_of(v) == archive::document_type::none &&
            !v.content_type().essence().starts_with("text/")) {
            EXPECT_EQ(decoded, read_bytes(site / part["origin"].get<std::string>()))
                << part["origin"];
        }
    }
    std::size_t checked = 0;
    std::map<std::string, std::vector<const json*>> refs_of;
    for (const json& ref : p.report["references"])
        if (ref["srcdoc_offset"].is_null()) refs_of[ref["document"]].push_back(&ref);
    for (const auto& [origin, refs] : refs_of) {
        if (!path_of_origin.count(origin)) continue;
        const mime::part_view v = by_path.at(path_of_origin.at(origin));
        const html::scan_result scan = agg.references(v);
        EXPECT_EQ(scan.refs.size(), refs.size()) << origin;
        if (scan.refs.size() != refs.size()) continue;
        for (std::size_t k = 0; k < refs.size(); ++k) {
            const json& e = *refs[k];
            const archive::resolution res = agg.resolve(v, scan.refs[k]);
            SCOPED_TRACE(origin + ": '" + e["url"].get<std::string>() + "' now '" +
                         scan.refs[k].url + "'");
            if (!e["resource"].is_null()) {
                EXPECT_TRUE(res.target) << "resolved to " << res.resolved;
                if (!res.target) continue;
                EXPECT_EQ(res.target->path(),
                          path_of_resource.at(e["resource"].get<std::size_t>()));
                ++checked;
            } else if (e["outcome"] == "unresolved" || e["outcome"] == "external") {
                EXPECT_FALSE(res.target) << "resolved to part " << res.target->path();
            }
        }
    }
    return checked;
}

// --- every site, every method ----------------------------------------------------------------

TEST(PackCli, THTML_9_0_1_EverySiteAndMethodReadsBackChecksCleanAndResolves) {
    std::size_t checked = 0;
    for (const std::string& s : site_names) {
        for (const std::string& m : methods) {
            const std::string what = s + " --method " + m;
            SCOPED_TRACE(what);
            sandbox box;
            const packed p = pack(box, {(sites / s).string(), "--method", m}, "out.mhtml");
            ASSERT_TRUE(p.report.is_object());
            const std::size_t unresolved = p.report["counts"]["unresolved"];
            // 0 everything packed, 1 something left out (listed).
            EXPECT_EQ(p.status, unresolved == 0 ? 0 : 1);
            EXPECT_EQ(p.report["complete"].get<bool>(), unresolved == 0);
            EXPECT_EQ(s == "basic" || s == "hostile", unresolved != 0);
            checked += expect_report_holds(p, sites / s, what);
            // mhtml check: no MUST or SHOULD finding but the references the report lists as
            // unresolved (MHT-7.1: a resource missing from the archive).
            auto doc = mime::document::parse(p.archive);
            std::size_t missing = 0;
            for (const archive::finding& f : archive::check(doc)) {
                if (f.level == archive::finding_level::note) continue;
                if (f.code == "resource_not_in_archive") {
                    ++missing;
                    continue;
                }
                ADD_FAILURE() << f.requirement << ' ' << f.code << ": " << f.message;
            }
            EXPECT_EQ(missing, unresolved);
        }
    }
    EXPECT_GT(checked, 100u);
}

// --- exit codes, output ----------------------------------------------------------------------

TEST(PackCli, ExitCodes) {
    sandbox box;
    const std::string basic = (sites / "basic").string(), svg = (sites / "svg").string();
    EXPECT_EQ(run_cli({"pack", svg, "-o", (box / "a.mhtml").string()}).status, 0);
    EXPECT_EQ(run_cli({"pack", basic, "-o", (box / "b.mhtml").string()}).status, 1);
    EXPECT_TRUE(fs::exists(box / "b.mhtml"));  // written, with what was found
    // 2: usage, no such source, a URL (not yet supported), an output that cannot be written.
    EXPECT_EQ(run_cli({"pack", svg}).status, 2);
    EXPECT_EQ(run_cli({"pack", (box / "none").string(), "-o", (box / "c.mhtml").string()}).status,
              2);
    EXPECT_EQ(run_cli({"pack", "https://e.example/", "-o", (box / "d.mhtml").string()}).status, 2);
    EXPECT_EQ(run_cli({"pack", svg, "-o", (box / "no" / "e.mhtml").string()}).status, 2);
    EXPECT_EQ(run_cli({"pack", svg, "--method", "other", "-o", (box / "f").string()}).status, 2);
    EXPECT_EQ(
        run_cli({"pack", svg, "--mail", "--method", "filename", "-o", (box / "g").string()}).status,
        2);
    EXPECT_EQ(run_cli({"pack", svg, "--from", "a@b", "-o", (box / "h").string()}).status, 2);
    EXPECT_EQ(box.entries(), (std::set<std::string>{"a.mhtml", "b.mhtml"}));
    const auto help = run_cli(std::vector<std::string>{"pack", "--help"});
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.out.find("Examples:"), std::string::npos);
    EXPECT_NE(help.out.find("Exit status"), std::string::npos);
}

TEST(PackCli, LimitsLeaveResourcesOutAndSayWhy) {
    sandbox box;
    const packed p = pack(box, {(sites / "svg").string(), "--max-resources", "2"}, "out.mhtml");
    EXPECT_EQ(p.status, 1);
    EXPECT_EQ(p.report["parts"].size(), 2u);
    std::size_t limited = 0;
    for (const json& r : p.report["references"]) limited += r["reason"] == "limit";
    EXPECT_GT(limited, 0u);
    const packed q = pack(box, {(sites / "svg").string(), "--max-resource-size", "1k"}, "q.mhtml");
    EXPECT_EQ(q.status, 0);  // every file of the svg site is under 1 KiB
    const packed t = pack(box, {(sites / "svg").string(), "--max-total", "500"}, "t.mhtml");
    EXPECT_EQ(t.status, 1);
    // A root over the limits: nothing to write.
    EXPECT_EQ(run_cli({"pack", (sites / "svg").string(), "--max-total", "100", "-o",
                       (box / "u.mhtml").string()})
                  .status,
              2);
    EXPECT_FALSE(fs::exists(box / "u.mhtml"));
}

TEST(PackCli, DashWritesTheWholeArchiveToStandardOutputOnly) {
    sandbox box;
    const std::string svg = (sites / "svg").string();
    const auto r = run_cli({"pack", svg, "-o", "-"});
    EXPECT_EQ(r.status, 0);
    auto doc = mime::document::parse(r.out);
    for (const diagnostic& d : doc.diagnostics()) EXPECT_LT(d.sev, severity::ambiguous);
    auto agg = archive::aggregate::build(doc);
    ASSERT_EQ(agg.related().size(), 1u);
    EXPECT_EQ(agg.related()[0].members.size(), 8u);
    // The JSON report goes to standard error then: standard output is the archive alone.
    const auto j = run_cli({"pack", svg, "--json", "-o", "-"});
    EXPECT_EQ(j.out.find("\"parts\""), std::string::npos);
    EXPECT_EQ(j.out.size() > 100 ? j.out.substr(0, 5) : "", r.out.substr(0, 5));
    // Nothing at all on failure.
    const auto bad = run_cli({"pack", (box / "none").string(), "-o", "-"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_EQ(bad.out, "");
}

TEST(PackCli, JsonListsEveryPartReferenceAndDiagnostic) {
    sandbox box;
    const packed p = pack(box, {(sites / "basic").string()}, "out.mhtml");
    const json& j = p.report;
    for (const char* k : {"source", "output", "method", "mail", "from_extract", "complete", "bytes",
                          "boundary", "parts", "references", "counts", "diagnostics"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_EQ(j["method"], "content-location");
    EXPECT_EQ(j["bytes"].get<std::size_t>(), p.archive.size());
    EXPECT_EQ(j["parts"].size(), j["counts"]["resources"].get<std::size_t>());
    EXPECT_EQ(j["parts"][0]["origin"], "index.html");
    EXPECT_EQ(j["parts"][0]["path"], "1");
    for (const json& part : j["parts"])
        for (const char* k :
             {"index", "origin", "path", "label", "content_id", "content_type", "transfer_encoding",
              "written", "external", "decoded_size", "encoded_size", "offset"})
            EXPECT_TRUE(part.contains(k)) << k;
    EXPECT_EQ(j["references"].size(), j["counts"]["references"].get<std::size_t>());
    bool missing = false;
    std::set<std::string> outcomes;
    for (const json& r : j["references"]) {
        outcomes.insert(r["outcome"].get<std::string>());
        if (r["url"] == "img/missing.png") {
            missing = true;
            EXPECT_EQ(r["outcome"], "unresolved");
            EXPECT_EQ(r["reason"], "missing");
            EXPECT_TRUE(r["resource"].is_null());
        }
        if (r["outcome"] == "packed") {
            EXPECT_FALSE(r["resource"].is_null());
        }
    }
    EXPECT_TRUE(missing);
    EXPECT_TRUE(outcomes.count("packed") && outcomes.count("data") &&
                outcomes.count("not_followed"));
    std::set<std::string> codes, stages;
    for (const json& d : j["diagnostics"]) {
        codes.insert(d["code"].get<std::string>());
        stages.insert(d["stage"].get<std::string>());
        for (const char* k : {"stage", "severity", "code", "path", "offset", "message"})
            EXPECT_TRUE(d.contains(k)) << k;
    }
    EXPECT_TRUE(codes.count("resource_missing"));
    EXPECT_TRUE(codes.count("credential_in_url"));
    EXPECT_EQ(stages, (std::set<std::string>{"collect", "write"}));
    // The text report lists the unresolved reference and every warning.
    const auto text = run_cli({"pack", (sites / "basic").string(), "-o", (box / "t").string()});
    EXPECT_NE(text.out.find("unresolved index.html@"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("img/missing.png: missing"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("warning credential_in_url"), std::string::npos) << text.out;
}

// --- mail, external bodies, Content-MD5, --all -----------------------------------------------

TEST(PackCli, MHT_7_6_MailIsAMessageWithAlternativesAndCidLinks) {
    sandbox box;
    const packed p = pack(box,
                          {(sites / "basic").string(), "--mail", "--from", "Ann <ann@e.example>",
                           "--to", "bob@e.example, cy@e.example", "--subject", "Caf\xC3\xA9 news"},
                          "mail.eml");
    EXPECT_EQ(p.status, 1);  // img/missing.png
    EXPECT_EQ(p.report["method"], "cid");
    auto doc = mime::document::parse(p.archive);
    for (const diagnostic& d : doc.diagnostics()) EXPECT_LT(d.sev, severity::ambiguous);
    const mime::part_view top = doc.root();
    EXPECT_EQ(top.content_type().essence(), "multipart/related");
    for (const char* f : {"From", "To", "Subject", "Message-ID", "Date", "MIME-Version"})
        EXPECT_TRUE(has_field(top, f)) << f;
    EXPECT_NE(top.raw_headers().find("=?"), std::string_view::npos);  // the subject's word
    EXPECT_NE(top.raw_headers().find("type=\"multipart/alternative\""), std::string_view::npos);
    const auto kids = top.children();
    ASSERT_GE(kids.size(), 2u);
    EXPECT_EQ(kids[0].content_type().essence(), "multipart/alternative");
    const auto alt = kids[0].children();
    ASSERT_EQ(alt.size(), 2u);
    EXPECT_EQ(alt[0].content_type().essence(), "text/plain");
    EXPECT_EQ(alt[1].content_type().essence(), "text/html");
    for (std::size_t i = 1; i < kids.size(); ++i) EXPECT_TRUE(kids[i].content_id()) << i;
    // Every packed reference became a cid: URL that finds its part.
    for (const json& r : p.report["references"]) {
        if (r["outcome"] != "packed") continue;
        ASSERT_TRUE(r["rewritten"].is_string()) << r["url"];
        EXPECT_TRUE(r["rewritten"].get<std::string>().starts_with("cid:")) << r["url"];
    }
    expect_report_holds(p, sites / "basic", "mail");
    for (const archive::finding& f : archive::check(doc)) {
        if (f.level != archive::finding_level::note) {
            EXPECT_EQ(f.code, "resource_not_in_archive") << f.message;
        }
    }
}

TEST(PackCli, ExternalOverWritesLargeHttpResourcesAsExternalBodies) {
    sandbox box;
    fs::create_directories(box / "site");
    write_bytes(box / "site" / "index.html",
                "<!doctype html><title>t</title><img src=big.png><img src=small.png>\n");
    write_bytes(box / "site" / "big.png", std::string(5000, '\x89'));
    write_bytes(box / "site" / "small.png", std::string(100, '\x89'));
    const std::string site = (box / "site").string();
    const packed p =
        pack(box, {site, "--base", "https://e.example/", "--external-over", "4k"}, "ext.mhtml");
    EXPECT_EQ(p.status, 0);
    std::map<std::string, bool> external;
    for (const json& part : p.report["parts"]) external[part["origin"]] = part["external"];
    EXPECT_EQ(external, (std::map<std::string, bool>{
                            {"index.html", false}, {"big.png", true}, {"small.png", false}}));
    EXPECT_NE(p.archive.find("message/external-body"), std::string::npos);
    EXPECT_EQ(p.archive.find(std::string(60, 'i')), std::string::npos);
    // Without an http(s) label nothing can be fetched back: everything is enclosed.
    const packed q = pack(box, {site, "--external-over", "4k"}, "local.mhtml");
    EXPECT_EQ(q.archive.find("message/external-body"), std::string::npos);
    // Suffixes: 4k = 4096 < 5000 octets, 10M is more than either.
    const packed r =
        pack(box, {site, "--base", "https://e.example/", "--external-over", "10M"}, "big.mhtml");
    EXPECT_EQ(r.archive.find("message/external-body"), std::string::npos);
}

TEST(PackCli, ContentMd5AndAll) {
    sandbox box;
    const packed p = pack(box, {(sites / "basic").string(), "--content-md5", "--all"}, "out.mhtml");
    auto doc = mime::document::parse(p.archive);
    std::size_t leaves = 0;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        if (!doc.part(i).is_leaf()) continue;
        ++leaves;
        EXPECT_TRUE(has_field(doc.part(i), "Content-MD5")) << doc.part(i).path();
    }
    EXPECT_GT(leaves, 10u);
    bool unused = false;
    for (const json& part : p.report["parts"]) unused |= part["origin"] == "unused.txt";
    EXPECT_TRUE(unused);
}

// --- round trip over the corpus --------------------------------------------------------------

// For every corpus archive whose root is in a multipart/related: `mhtml extract` then `mhtml
// pack` of the folder. Promised (pack/collect.hpp, collect_extracted): the same parts, each with
// its resolved Content-Location and Content-ID; every part that is not an HTML, SVG or CSS
// document with its decoded octets (text in canonical CRLF form, MHT-11.4); in documents, every
// reference that named an extracted part names the same part again. Documents themselves are
// not promised to be byte-exact: extract rewrote their references to file paths, and they come
// back as the resolved labels, with extract's policy <meta> removed (counted and printed). A
// label several parts shared (Blink frames, a style sheet saved twice) labels the first only.
TEST(PackCli, ExtractThenPackKeepsPartsLabelsAndReferences) {
    const fs::path corpus = fs::path(MHTML_TEST_DATA) / "corpus";
    std::vector<fs::path> archives;
    for (const auto& e : fs::directory_iterator(corpus)) {
        const std::string ext = e.path().extension().string();
        if (ext == ".mht" || ext == ".mhtml" || ext == ".eml") archives.push_back(e.path());
    }
    std::sort(archives.begin(), archives.end());
    std::size_t tried = 0, parts = 0, leaves_exact = 0, documents = 0, documents_exact = 0,
                refs_checked = 0, labels_shared = 0;
    for (const fs::path& a : archives) {
        SCOPED_TRACE(a.filename().string());
        const std::string bytes = read_bytes(a);
        auto doc = mime::document::parse(bytes);
        auto agg = archive::aggregate::build(doc);
        if (agg.related().empty()) continue;
        if (agg.info(agg.main_root()).related != 0) continue;
        sandbox box;
        const auto ex = run_cli({"extract", a.string(), "--json", "-o", (box / "x").string()});
        if (ex.status != 0) continue;
        ++tried;
        const json ej = json::parse(ex.out);
        const packed p = pack(box, {(box / "x").string()}, "again.mhtml");
        EXPECT_EQ(p.status, 0) << p.report.dump();
        EXPECT_TRUE(p.report["from_extract"].get<bool>());
        auto doc2 = mime::document::parse(p.archive);
        for (const diagnostic& d : doc2.diagnostics()) EXPECT_LT(d.sev, severity::ambiguous);
        auto agg2 = archive::aggregate::build(doc2);
        ASSERT_EQ(agg2.related().size(), 1u);
        ASSERT_EQ(agg2.related()[0].members.size(), ej["files"].size());
        // extract's file -> original part; pack's origin -> new part.
        std::map<std::string, std::string> file_of_part;
        std::map<std::string, mime::part_view> new_of_file;
        std::map<std::uint32_t, std::string> file_of_new;
        std::map<std::string, mime::part_view> by_path;
        for (std::size_t i = 0; i < doc2.size(); ++i)
            by_path.emplace(doc2.part(i).path(), doc2.part(i));
        for (const json& part : p.report["parts"]) {
            const mime::part_view v = by_path.at(part["path"]);
            new_of_file.emplace(part["origin"], v);
            file_of_new[v.index()] = part["origin"];
        }
        for (const json& f : ej["files"]) file_of_part[f["part"]] = f["file"];
        std::map<std::string, int> label_uses;
        for (const auto& m : agg.related()[0].members)
            if (agg.info(m).location) ++label_uses[*agg.info(m).location];
        std::set<std::string> shared_labels;
        for (const auto& [l, n] : label_uses)
            if (n > 1) shared_labels.insert(l);
        for (const json& f : ej["files"]) {
            ++parts;
            const std::string file = f["file"];
            ASSERT_TRUE(new_of_file.count(file)) << file;
            const mime::part_view p2 = new_of_file.at(file);
            std::optional<mime::part_view> p1;
            for (std::size_t k = 0; k < doc.size(); ++k)
                if (doc.part(k).path() == f["part"]) p1 = doc.part(k);
            ASSERT_TRUE(p1);
            // A label several parts shared goes to the first of them only (MHT-4.2.5: the
            // writer drops it from the others, `field_dropped`).
            const auto& label = agg.info(*p1).location;
            if (label && shared_labels.count(*label)) {
                EXPECT_TRUE(agg2.info(p2).location == label || !agg2.info(p2).location) << file;
                ++labels_shared;
            } else {
                EXPECT_EQ(agg2.info(p2).location, label) << file;
            }
            if (auto id = p1->content_id()) {
                ASSERT_TRUE(p2.content_id()) << file;
                EXPECT_EQ(uri::id_key(*p2.content_id()), uri::id_key(*id));
            }
            std::string d1, d2;
            p1->decode_to(d1);
            p2.decode_to(d2);
            d1 = crlf_text(p1->content_type().essence(), d1);
            if (archive::document_type_of(*p1) == archive::document_type::none) {
                EXPECT_EQ(d1, d2) << file;
                leaves_exact += d1 == d2;
                continue;
            }
            ++documents;
            documents_exact += d1 == d2;
            const auto s1 = agg.references(*p1);
            const auto s2 = agg2.references(p2);
            if (s1.refs.size() != s2.refs.size()) {
                ADD_FAILURE() << file << ": " << s1.refs.size() << " references, now "
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
                    << file << ": " << s1.refs[k].url << " -> " << s2.refs[k].url;
                EXPECT_EQ(file_of_new.at(r2.target->index()), it->second)
                    << file << ": " << s1.refs[k].url;
                ++refs_checked;
            }
        }
    }
    EXPECT_GT(tried, 10u);
    EXPECT_EQ(leaves_exact + documents, parts);
    std::cout << "[extract + pack round trip] " << tried << " archives, " << parts
              << " parts: " << leaves_exact << " non-document parts byte-exact, " << documents_exact
              << " of " << documents << " documents byte-exact, " << refs_checked
              << " references resolve to the same part, " << labels_shared
              << " parts shared a label with another\n";
    EXPECT_EQ(documents - documents_exact, 33u);  // what extract rewrote (see above)
}

}  // namespace
}  // namespace mhtml
