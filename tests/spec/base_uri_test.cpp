// Base URIs of every part and what each reference names (tests/data/spec/base_uri.json; MHTML
// draft chapter 5, 4.1, 4.3, examples 4.2, 4.3, 9.2-9.6; text/html draft 9.1, 9.2; nested
// related structures). Each vector's message is written as MIME text and parsed, so the
// archive layer reads it as it reads a real file.
#include "mhtml/archive/aggregate.hpp"

#include "spec/vector_message.hpp"
#include "spec/vectors.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace mhtml::archive {
namespace {

using test::load_vectors;
using test::octets;

std::set<std::string> file_codes(const std::vector<diagnostic>& diags, const nlohmann::json& file,
                                 const std::string& path) {
    std::set<std::string> out;
    for (const auto& d : diags) {
        std::string name(code_name(d.code));
        if (d.part_path == path && file["diagnostic_codes"].contains(name)) out.insert(name);
    }
    return out;
}

void check_entity(const nlohmann::json& e, const aggregate& agg,
                  const std::map<std::string, mime::part_view>& by_path, const nlohmann::json& file,
                  std::size_t& refs_checked) {
    const std::string path = e["path"].get<std::string>();
    SCOPED_TRACE("part \"" + path + "\"");
    ASSERT_TRUE(by_path.count(path)) << "no such part in the parsed message";
    const mime::part_view p = by_path.at(path);
    const entity_info& info = agg.info(p);
    if (e.contains("expect")) {
        const auto& x = e["expect"];
        if (x.contains("location")) {
            ASSERT_TRUE(info.location.has_value());
            EXPECT_EQ(*info.location, octets(x["location"]));
        }
        if (x.contains("base")) {
            EXPECT_EQ(info.base, octets(x["base"]));
        }
    }
    std::set<std::string> expected;
    for (auto& c : test::codes(e)) expected.insert(c);
    std::set<std::string> ref_expected;
    std::vector<diagnostic> ref_diags;
    if (e.contains("refs")) {
        for (auto& r : e["refs"]) {
            SCOPED_TRACE("ref " + r["uri"].get<std::string>());
            resolution res = agg.resolve(p, octets(r["uri"]), &ref_diags);
            EXPECT_EQ(res.resolved, octets(r["resolved"]));
            if (r["part"].is_null()) {
                EXPECT_FALSE(res.target.has_value()) << res.target->path();
            } else {
                ASSERT_TRUE(res.target.has_value());
                EXPECT_EQ(res.target->path(), r["part"].get<std::string>());
            }
            if (r.contains("diagnostic")) ref_expected.insert(r["diagnostic"].get<std::string>());
            ++refs_checked;
        }
    }
    std::set<std::string> got = file_codes(agg.diagnostics(), file, path);
    for (auto& c : file_codes(ref_diags, file, path)) got.insert(c);
    expected.insert(ref_expected.begin(), ref_expected.end());
    EXPECT_EQ(got, expected);
    if (e.contains("parts"))
        for (auto& c : e["parts"]) check_entity(c, agg, by_path, file, refs_checked);
}

TEST(BaseUri, MHT_5_AllVectors) {
    auto file = load_vectors("base_uri.json");
    std::size_t vectors = 0, refs = 0;
    for (auto& v : file["vectors"]) {
        SCOPED_TRACE(v["id"].get<std::string>());
        auto doc = mime::document::parse(test::message_text(v["message"]));
        // The vectors' `part` is the strict result (no retries); see the README.
        auto agg = aggregate::build(doc, {.strict = true});
        std::map<std::string, mime::part_view> by_path;
        for (auto p : doc.parts()) by_path.emplace(p.path(), p);
        check_entity(v["message"], agg, by_path, file, refs);
        ++vectors;
    }
    EXPECT_EQ(vectors, 26u);
    EXPECT_GT(refs, 30u);
}

TEST(BaseUri, E_13_RelativeLocationRetryIsAmbiguous) {
    // base-relative-location-in-subdirectory: strictly, img.gif in a part labelled
    // dir/page.html names nothing; the default retry finds dir/img.gif.
    auto file = load_vectors("base_uri.json");
    for (auto& v : file["vectors"]) {
        if (v["id"] != "base-relative-location-in-subdirectory") continue;
        auto doc = mime::document::parse(test::message_text(v["message"]));
        auto agg = aggregate::build(doc);
        auto root = doc.root().children().at(0);
        std::vector<diagnostic> diags;
        auto r = agg.resolve(root, "img.gif", &diags);
        ASSERT_TRUE(r.target.has_value());
        EXPECT_EQ(r.target->path(), "2");
        EXPECT_TRUE(r.lenient);
        ASSERT_FALSE(diags.empty());
        EXPECT_EQ(diags.back().sev, severity::ambiguous);
        return;
    }
    FAIL() << "vector not found";
}

TEST(Aggregate, Iso2022JpPartsAreScannedAfterTranscoding) {
    // JIS octets include '<': the kanji "\x1B$B<a\x1B(B" read as bytes starts a bogus tag
    // "<a\x1B(B" whose attributes swallow the <img> after the space. Transcoded first, the
    // image reference is found.
    std::string text =
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"text/html\"; "
        "boundary=\"b\"\r\n\r\n"
        "--b\r\nContent-Type: text/html; charset=iso-2022-jp\r\n\r\n"
        "<p>\x1B$B<a\x1B(B <img src=\"cid:i@x\"></p>\r\n"
        "--b\r\nContent-Type: image/gif\r\nContent-ID: <i@x>\r\n\r\nGIF\r\n--b--\r\n";
    auto doc = mime::document::parse(std::move(text));
    auto agg = aggregate::build(doc);
    auto html = doc.root().children().at(0);
    auto refs = agg.references(html).refs;
    ASSERT_EQ(refs.size(), 1u);
    EXPECT_EQ(refs[0].url, "cid:i@x");
    EXPECT_EQ(agg.resolve(html, refs[0].url).target->path(), "2");
}

TEST(Aggregate, CID_6_MidUrlsNameMessagesOfTheDocument) {
    // A message with Message-ID <m@x> holding part <p@x>, and an attached message <a@x>
    // holding <q@x>: mid: finds each message and parts inside the right one only.
    std::string text =
        "MIME-Version: 1.0\r\nMessage-ID: <m@x>\r\nContent-Type: multipart/mixed; "
        "boundary=\"b\"\r\n\r\n"
        "--b\r\nContent-Type: text/html\r\nContent-ID: <p@x>\r\n\r\n<a "
        "href=\"mid:a@x/q@x\">x</a>\r\n"
        "--b\r\nContent-Type: message/rfc822\r\n\r\n"
        "Message-ID: <a@x>\r\nContent-Type: multipart/mixed; boundary=\"c\"\r\n\r\n"
        "--c\r\nContent-Type: text/plain\r\nContent-ID: <q@x>\r\n\r\nq\r\n--c--\r\n"
        "\r\n--b--\r\n";
    auto doc = mime::document::parse(std::move(text));
    auto agg = aggregate::build(doc);
    auto from = doc.root().children().at(0);
    auto whole = agg.resolve(from, "mid:m@x");
    ASSERT_TRUE(whole.target.has_value());
    EXPECT_EQ(whole.target->path(), "");
    EXPECT_EQ(agg.resolve(from, "mid:m@x/p@x").target->path(), "1");
    EXPECT_EQ(agg.resolve(from, "mid:a@x").target->path(), "2.1");
    EXPECT_EQ(agg.resolve(from, "MID:a@x/q@x").target->path(), "2.1.1");
    EXPECT_FALSE(
        agg.resolve(from, "mid:a@x/p@x").target.has_value());  // p@x is in the other message
    EXPECT_FALSE(agg.resolve(from, "mid:other@x").target.has_value());  // the message store's job
    EXPECT_EQ(agg.resolve(from, "mid:other@x").resolved, "mid:other@x");
}

}  // namespace
}  // namespace mhtml::archive
