// Resolution rules beyond the base-URI vectors: alternatives sharing a Content-ID (CID-8),
// mid: URLs of other messages through a message store (CID-6), start-info (REL-3.3), the
// Content-Base / Content-Location retry (L-1) and RFC 3986's non-strict "same scheme" reading
// (L-3, L-8).
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/archive/check.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/reference.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace mhtml::archive {
namespace {

std::string crlf(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

bool has_code(const std::vector<diagnostic>& diags, diag_code code, severity sev) {
    for (const auto& d : diags)
        if (d.code == code && d.sev == sev) return true;
    return false;
}

TEST(Resolution, CID_8_AlternativesSharingAnIdNameTheOneDisplayed) {
    // The requirement's example: related(html with cid:img@x, alternative(gif <img@x>,
    // png <img@x>)) -> the png, the last and preferred alternative, with no error.
    auto doc = mime::document::parse(
        crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html; charset=utf-8

<img src="cid:img@x"><img src="cid:only@x#f">
--b
Content-Type: multipart/alternative; boundary="c"

--c
Content-Type: image/gif
Content-ID: <img@x>

GIF
--c
Content-Type: multipart/alternative; boundary="d"

--d
Content-Type: image/jpeg
Content-ID: <only@x>

JPEG
--d
Content-Type: image/png
Content-ID: <img@x>

PNG
--d--
--c--
--b--
)"));
    auto agg = aggregate::build(doc);
    auto html = doc.root().children().at(0);
    std::vector<diagnostic> diags;
    auto r = agg.resolve(html, "cid:img@x", &diags);
    ASSERT_TRUE(r.target.has_value());
    EXPECT_EQ(r.target->path(), "2.2.2");
    EXPECT_FALSE(r.lenient);
    EXPECT_TRUE(diags.empty());
    auto only = agg.resolve(html, "cid:only@x#f");
    ASSERT_TRUE(only.target.has_value());
    EXPECT_EQ(only.target->path(), "2.2.1");
    // Not a duplicate, and the alternative body part counts as referenced.
    auto findings = check(doc);
    EXPECT_TRUE(findings.empty()) << findings.front().code << " " << findings.front().message;
    // Strict or not, an id inside a body part that is not an alternative is not a label.
    auto mixed = mime::document::parse(
        crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html

<img src="cid:in@x">
--b
Content-Type: multipart/mixed; boundary="c"

--c
Content-Type: image/gif
Content-ID: <in@x>

GIF
--c--
--b--
)"));
    auto magg = aggregate::build(mixed);
    EXPECT_FALSE(magg.resolve(mixed.root().children().at(0), "cid:in@x").target.has_value());
}

// A store of whole messages, indexed by Message-ID and, per message, by Content-ID.
class test_store : public message_store {
public:
    void add(const mime::document& doc) {
        for (std::size_t i = 0; i < doc.size(); ++i) {
            mime::part_view p = doc.part(i);
            if (i == 0) {
                if (auto f = p.header("Message-ID")) message_ = uri::id_key(f->raw_value());
                parts_.insert_or_assign({message_, ""}, p);
            } else if (auto f = p.header("Content-ID")) {
                parts_.try_emplace({message_, uri::id_key(f->raw_value())}, p);
            }
        }
    }
    std::optional<mime::part_view> find(std::string_view message_id,
                                        std::string_view content_id) const override {
        ++asked;
        auto it = parts_.find({std::string(message_id), std::string(content_id)});
        if (it == parts_.end()) return std::nullopt;
        return it->second;
    }
    mutable int asked = 0;

private:
    std::string message_;
    std::map<std::pair<std::string, std::string>, mime::part_view> parts_;
};

TEST(Resolution, CID_6_OtherMessagesAreFoundThroughTheMessageStore) {
    auto other = mime::document::parse(crlf(R"(Message-ID: <earlier@x>
Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html

<p>earlier
--b
Content-Type: image/png
Content-ID: <logo@x>

PNG
--b--
)"));
    auto doc = mime::document::parse(crlf(R"(Message-ID: <this@x>
Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html
Content-ID: <page@x>

<a href="mid:earlier@x">see</a><img src="mid:earlier@x/logo@x">
--b--
)"));
    test_store store;
    store.add(other);
    auto html = doc.root().children().at(0);
    {  // no store: external
        auto agg = aggregate::build(doc);
        EXPECT_FALSE(agg.resolve(html, "mid:earlier@x").target.has_value());
    }
    aggregate_options o;
    o.store = &store;
    auto agg = aggregate::build(doc, o);
    auto whole = agg.resolve(html, "mid:earlier@x");
    ASSERT_TRUE(whole.target.has_value());
    EXPECT_TRUE(whole.from_store);
    EXPECT_EQ(whole.target->path(), "");
    auto logo = agg.resolve(html, "MID:earlier%40x/logo@x");
    ASSERT_TRUE(logo.target.has_value());
    EXPECT_EQ(logo.target->content_type().essence(), "image/png");
    EXPECT_FALSE(agg.resolve(html, "mid:earlier@x/nothing@x").target.has_value());
    // This message is found in the document itself; the store is not asked.
    const int asked = store.asked;
    auto self = agg.resolve(html, "mid:this@x/page@x");
    ASSERT_TRUE(self.target.has_value());
    EXPECT_FALSE(self.from_store);
    EXPECT_EQ(self.target->path(), "1");
    EXPECT_EQ(store.asked, asked);
}

TEST(Resolution, REL_3_3_2_StartInfoIdsNameBodyParts) {
    auto doc = mime::document::parse(crlf(R"(Content-Type: multipart/related; boundary="b";
 type="application/x-app"; start="<a@x>"; start-info="<b@x> <none@x><c@x>"

--b
Content-Type: application/x-app
Content-ID: <a@x>

root
--b
Content-Type: text/plain
Content-ID: <c@x>

c
--b
Content-Type: text/plain
Content-ID: <b@x>

b
--b--
)"));
    auto agg = aggregate::build(doc);
    const root_selection& r = agg.related().at(0).root;
    ASSERT_TRUE(r.start_info_is_cid_list);
    EXPECT_EQ(r.start_info_ids, (std::vector<std::string>{"b@x", "none@x", "c@x"}));
    ASSERT_EQ(r.start_info_parts.size(), 3u);
    EXPECT_EQ(r.start_info_parts[0]->path(), "3");
    EXPECT_FALSE(r.start_info_parts[1].has_value());
    EXPECT_EQ(r.start_info_parts[2]->path(), "2");
    // The parts start-info names are the application's: not unreferenced.
    for (const auto& f : check(doc)) EXPECT_NE(f.code, "part_not_referenced") << f.part_path;
}

TEST(Resolution, REL_3_3_3_StartInfoDoesNotChangeAnHtmlAggregate) {
    const std::string body = R"(

--b
Content-Type: text/html
Content-Location: http://x.example/page.html

<img src="a.gif">
--b
Content-Type: image/gif
Content-Location: http://x.example/a.gif

GIF
--b--
)";
    for (std::string info : {"", "; start-info=\"x\"", "; start-info=\"<zz@x>\""}) {
        SCOPED_TRACE(info);
        auto doc = mime::document::parse(crlf(
            "Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"" + info + body));
        auto agg = aggregate::build(doc);
        ASSERT_EQ(agg.related().size(), 1u);
        EXPECT_EQ(agg.related()[0].root.root->path(), "1");
        auto r = agg.resolve(doc.root().children().at(0), "a.gif");
        ASSERT_TRUE(r.target.has_value());
        EXPECT_EQ(r.target->path(), "2");
        EXPECT_EQ(r.resolved, "http://x.example/a.gif");
    }
}

TEST(Resolution, L_1_ContentBaseMissIsRetriedWithTheContentLocation) {
    // A heading with both: the draft's order makes Content-Base the base; a reference that
    // only the Content-Location's directory explains is found by the retry, ambiguous.
    auto doc = mime::document::parse(
        crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"

--b
Content-Type: text/html
Content-Base: http://mirror.example/copy/
Content-Location: http://origin.example/site/page.html

<img src="logo.gif"><img src="other.gif">
--b
Content-Type: image/gif
Content-Location: http://origin.example/site/logo.gif

GIF1
--b
Content-Type: image/gif
Content-Location: http://mirror.example/copy/other.gif

GIF2
--b--
)"));
    auto html = doc.root().children().at(0);
    auto agg = aggregate::build(doc);
    EXPECT_EQ(agg.info(html).base, "http://mirror.example/copy/");
    auto direct = agg.resolve(html, "other.gif");
    ASSERT_TRUE(direct.target.has_value());
    EXPECT_EQ(direct.target->path(), "3");
    EXPECT_FALSE(direct.lenient);
    std::vector<diagnostic> diags;
    auto retried = agg.resolve(html, "logo.gif", &diags);
    ASSERT_TRUE(retried.target.has_value());
    EXPECT_EQ(retried.target->path(), "2");
    EXPECT_TRUE(retried.lenient);
    EXPECT_EQ(retried.resolved, "http://mirror.example/copy/logo.gif");
    EXPECT_TRUE(has_code(diags, diag_code::matched_after_normalisation, severity::ambiguous));
    aggregate_options strict;
    strict.strict = true;
    auto sagg = aggregate::build(doc, strict);
    EXPECT_FALSE(sagg.resolve(html, "logo.gif").target.has_value());
}

TEST(Resolution, L_8_SameSchemeReadingIsNonStrictOnly) {
    // RFC 3986 §5.4.2: "http:g" is "http:g" for strict parsers, "http://a/b/c/g" for
    // backward compatibility.
    auto base = uri::base_uri::make("http://a/b/c/d;p?q");
    ASSERT_TRUE(base.has_value());
    EXPECT_EQ(base->resolve("http:g"), "http:g");
    EXPECT_EQ(base->resolve_same_scheme("http:g"), "http://a/b/c/g");
    EXPECT_EQ(base->resolve_same_scheme("HTTP:g"), "http://a/b/c/g");
    EXPECT_EQ(base->resolve_same_scheme("http:g:h"), "http://a/b/c/g:h");
    EXPECT_EQ(base->resolve_same_scheme("http:../g"), "http://a/b/g");
    EXPECT_FALSE(base->resolve_same_scheme("https:g").has_value());
    EXPECT_FALSE(base->resolve_same_scheme("http://x/g").has_value());
    EXPECT_FALSE(base->resolve_same_scheme("g").has_value());

    // L-3: RFC 2557's nested example labels a part "http:images/ietflogo2.gif" (a label only
    // the non-strict reading relates to the page's base), and a reference may be written the
    // same way.
    auto doc = mime::document::parse(
        crlf(R"(Content-Type: multipart/related; boundary="b"; type="text/html"
Content-Location: http://www.ietf.cnri.reston.va.us/

--b
Content-Type: text/html

<img src="images/ietflogo2.gif"><img src="http:images/ietflogo3.gif">
--b
Content-Type: image/gif
Content-Location: http:images/ietflogo2.gif

GIF2
--b
Content-Type: image/gif
Content-Location: images/ietflogo3.gif

GIF3
--b--
)"));
    auto html = doc.root().children().at(0);
    auto agg = aggregate::build(doc);
    for (auto [ref, target] :
         {std::pair{"images/ietflogo2.gif", "2"}, std::pair{"http:images/ietflogo3.gif", "3"}}) {
        SCOPED_TRACE(ref);
        std::vector<diagnostic> diags;
        auto r = agg.resolve(html, ref, &diags);
        ASSERT_TRUE(r.target.has_value());
        EXPECT_EQ(r.target->path(), target);
        EXPECT_TRUE(r.lenient);
        EXPECT_TRUE(has_code(diags, diag_code::matched_after_normalisation, severity::ambiguous));
    }
    aggregate_options strict;
    strict.strict = true;
    auto sagg = aggregate::build(doc, strict);
    EXPECT_FALSE(sagg.resolve(html, "images/ietflogo2.gif").target.has_value());
    EXPECT_FALSE(sagg.resolve(html, "http:images/ietflogo3.gif").target.has_value());
}

}  // namespace
}  // namespace mhtml::archive
