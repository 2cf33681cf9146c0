// mhtml fetch-external on the command line, against a loopback server started here: the round
// trip with `pack --external-over`, the report, exit codes, standard output.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "cli/cli_support.hpp"
#include "mhtml/mime/document.hpp"
#include "support/loopback_http.hpp"
#include "unit/view/view_support.hpp"

namespace {

using mhtml::test::run_cli;
using mhtml::test::sandbox;
using mhtml::test::shell_quote;

// Each leaf's decoded octets by its Content-Location (the root under "").
std::map<std::string, std::string> leaves_by_label(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto doc = mhtml::mime::document::parse(std::move(bytes));
    std::map<std::string, std::string> out;
    for (const auto& p : doc.parts()) {
        if (!p.is_leaf()) continue;
        std::string d;
        p.decode_to(d);
        out[std::string(p.content_location().value_or(""))] = d;
    }
    return out;
}

std::string binary(std::size_t n, unsigned seed) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed * 7) % 251);
    return s;
}

TEST(CliFetchExternal, PackExternalOverThenFetchExternalGivesThePlainPackBack) {
    sandbox box;
    mhtml::test::test_server server;
    const std::string base = server.url("/site/");
    const std::string css =
        "body { background: url(bg.png) }\n.a { color: red }\n" + std::string(3000, ' ') + "\n";
    const std::map<std::string, std::pair<std::string, std::string>> files = {
        {"index.html",
         {"text/html",
          "<!DOCTYPE html><title>t</title><link rel=stylesheet href=\"s.css\">"
          "<img src=\"a.png\"><img src=\"small.png\">\n"}},
        {"s.css", {"text/css", css}},
        {"a.png", {"image/png", binary(5000, 1)}},
        {"bg.png", {"image/png", binary(4000, 2)}},
        {"small.png", {"image/png", binary(100, 3)}},
    };
    std::filesystem::create_directories(box / "site");
    for (const auto& [name, tf] : files) {
        mhtml::test::write_bytes(box / "site" / name, tf.second);
        server.add("/site/" + name, tf.first, tf.second);
    }
    const std::string plain = (box / "plain.mhtml").string();
    const std::string ext = (box / "external.mhtml").string();
    const std::string back = (box / "back.mhtml").string();
    const std::string site = shell_quote((box / "site").string());
    ASSERT_EQ(run_cli("pack " + site + " --base " + base + " -o " + shell_quote(plain)).status, 0);
    ASSERT_EQ(
        run_cli("pack " + site + " --base " + base + " --external-over 1k -o " + shell_quote(ext))
            .status,
        0);
    // Three resources went external (a.png, bg.png, s.css); small.png and the page did not.
    const auto external = run_cli("ls --json " + shell_quote(ext));
    EXPECT_EQ(nlohmann::json::parse(external.out)["parts"].size(), 3u + 2u * 3u);

    const auto r =
        run_cli("fetch-external " + shell_quote(ext) + " -o " + shell_quote(back) + " --json");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto report = nlohmann::json::parse(r.out);
    EXPECT_EQ(report["fetched"], 3);
    EXPECT_EQ(report["failed"], 0);
    for (const auto& p : report["parts"]) {
        EXPECT_EQ(p["status"], "fetched") << p.dump();
        EXPECT_EQ(p["md5_matches"], true) << p.dump();  // pack writes a Content-MD5
        EXPECT_FALSE(p.contains("verified"));
    }
    EXPECT_EQ(leaves_by_label(back), leaves_by_label(plain));
    EXPECT_EQ(run_cli("check " + shell_quote(back)).status, 0);
}

TEST(CliFetchExternal, FailuresAreListedAndExitOne) {
    sandbox box;
    mhtml::test::test_server server;
    server.add("/ok.txt", "text/plain", "fine\r\n");
    const std::string in = (box / "in.eml").string();
    mhtml::test::write_bytes(
        box / "in.eml",
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
        "--b\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
            server.url("/ok.txt") +
            "\"\r\n\r\nContent-Type: text/plain\r\nContent-ID: <a@x>\r\n\r\n"
            "--b\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
            server.url("/missing.txt") +
            "\"\r\n\r\nContent-Type: text/plain\r\nContent-ID: <b@x>\r\n\r\n--b--\r\n");
    // To standard output: the archive there, the report on standard error (dropped by
    // run_cli), exit 1 for the part that failed.
    const auto r = run_cli("fetch-external " + shell_quote(in) + " -o -");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("\r\nfine\r\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("/missing.txt"), std::string::npos);
    const std::string out = (box / "out.eml").string();
    const auto text = run_cli("fetch-external " + shell_quote(in) + " -o " + shell_quote(out));
    EXPECT_EQ(text.status, 1);
    EXPECT_NE(text.out.find("fetched part 1"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("kept    part 2"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("http_404"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("1 of 2 external bodies fetched"), std::string::npos) << text.out;
    // What the message or a server says is shown without terminal escapes.
    const std::string esc = (box / "esc.eml").string();
    mhtml::test::write_bytes(
        box / "esc.eml",
        "MIME-Version: 1.0\r\nContent-Type: message/external-body; access-type=URL; "
        "URL=\"http://127.0.0.1:1/\x1b[31mred\x1b]0;title\x07\"\r\n\r\n"
        "Content-Type: text/plain\r\n\r\n");
    const auto escaped = run_cli("fetch-external " + shell_quote(esc) + " -o " +
                                 shell_quote((box / "esc-out.eml").string()));
    EXPECT_EQ(escaped.status, 1);
    EXPECT_EQ(escaped.out.find('\x1b'), std::string::npos) << escaped.out;
    EXPECT_EQ(escaped.out.find('\x07'), std::string::npos);
    // Usage and I/O errors: 2, and nothing written.
    EXPECT_EQ(run_cli("fetch-external " + shell_quote((box / "none.eml").string()) + " -o " +
                      shell_quote((box / "x.eml").string()))
                  .status,
              2);
    EXPECT_FALSE(std::filesystem::exists(box / "x.eml"));
    EXPECT_EQ(
        run_cli("fetch-external " + shell_quote(in) + " -o " + shell_quote(out) + " --max-size -5")
            .status,
        2);
    EXPECT_EQ(run_cli("fetch-external " + shell_quote(in) + " -o " +
                      shell_quote((box / "no/such/dir/x.eml").string()))
                  .status,
              2);
}

}  // namespace

namespace {

TEST(CliFetchExternal, ExtractAndInlineTakeFetchExternal) {
    // A page whose image is an external body (by Content-ID): with --fetch-external the image
    // is retrieved and shown; without it, it is not there.
    sandbox box;
    mhtml::test::test_server server;
    const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(200, '\x07');
    server.add("/img.png", "image/png", png);
    const std::string in = (box / "page.mhtml").string();
    mhtml::test::write_bytes(
        box / "page.mhtml",
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=b; type=\"text/html\"\r\n"
        "\r\n--b\r\nContent-Type: text/html\r\nContent-Location: http://x.example/\r\n\r\n"
        "<!DOCTYPE html><title>t</title><img src=\"cid:img@x\">\r\n"
        "--b\r\nContent-Type: message/external-body; access-type=URL; URL=\"" +
            server.url("/img.png") +
            "\"\r\n\r\nContent-Type: image/png\r\nContent-ID: <img@x>\r\n\r\n--b--\r\n");
    const std::string with = (box / "with").string(), without = (box / "without").string();
    ASSERT_EQ(
        run_cli("extract " + shell_quote(in) + " -o " + shell_quote(with) + " --fetch-external")
            .status,
        0);
    run_cli("extract " + shell_quote(in) + " -o " + shell_quote(without));
    std::size_t found_with = 0, found_without = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(with))
        if (e.is_regular_file() && mhtml::test::read_bytes(e.path()) == png) ++found_with;
    for (const auto& e : std::filesystem::recursive_directory_iterator(without))
        if (e.is_regular_file() && mhtml::test::read_bytes(e.path()) == png) ++found_without;
    EXPECT_EQ(found_with, 1u);
    EXPECT_EQ(found_without, 0u);
    EXPECT_EQ(server.requests("/img.png"), 1);  // only when asked

    const auto inlined = run_cli("inline " + shell_quote(in) + " -o - --fetch-external");
    EXPECT_EQ(inlined.status, 0);
    EXPECT_NE(inlined.out.find("data:image/png;base64,iVBORw0KGgo"), std::string::npos)
        << inlined.out;
    const auto plain = run_cli("inline " + shell_quote(in) + " -o -");
    EXPECT_EQ(plain.out.find("data:image/png;base64,iVBORw0KGgo"), std::string::npos);
}

}  // namespace
