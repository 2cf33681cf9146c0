// A document is a handle: its parsed state lives on the heap, so the part_views, header
// views and aggregates made from it stay valid when the document is moved (into a
// container, out of a function, by assignment). Run under ASan (scripts/test.sh), a view
// into a moved-from document would show as a use after free.
#include "mhtml/mime/document.hpp"

#include "mhtml/archive/aggregate.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace mhtml::mime {
namespace {

static_assert(std::is_nothrow_move_constructible_v<document>);
static_assert(std::is_nothrow_move_assignable_v<document>);
static_assert(!std::is_copy_constructible_v<document>);

const std::string page =
    "MIME-Version: 1.0\r\n"
    "Content-Type: multipart/related; boundary=\"b1\"; type=\"text/html\"\r\n"
    "\r\n"
    "--b1\r\n"
    "Content-Type: text/html; charset=utf-8\r\n"
    "Content-Transfer-Encoding: quoted-printable\r\n"
    "Content-Location: http://x.example/\r\n"
    "\r\n"
    "<img src=3D\"a.gif\"><img src=3D\"cid:b@x\">\r\n"
    "--b1\r\n"
    "Content-Type: image/gif\r\n"
    "Content-Transfer-Encoding: base64\r\n"
    "Content-Location: http://x.example/a.gif\r\n"
    "\r\n"
    "R0lGODlh\r\n"
    "--b1\r\n"
    "Content-Type: image/png\r\n"
    "Content-ID: <b@x>\r\n"
    "\r\n"
    "png\r\n"
    "--b1--\r\n";

std::string decoded(part_view p) {
    std::string s;
    p.decode_to(s);
    return s;
}

// What a reader of `doc` sees through views and an aggregate made before a move.
void expect_page(const part_view& html, const part_view& gif, const archive::aggregate& agg) {
    EXPECT_EQ(html.path(), "1");
    EXPECT_EQ(decoded(html), "<img src=\"a.gif\"><img src=\"cid:b@x\">");
    EXPECT_EQ(html.content_type().essence(), "text/html");
    ASSERT_TRUE(html.header("Content-Location").has_value());
    EXPECT_EQ(html.header("Content-Location")->value(), "http://x.example/");
    EXPECT_EQ(gif.path(), "2");
    EXPECT_EQ(decoded(gif), "GIF89a");
    ASSERT_TRUE(gif.parent().has_value());
    EXPECT_EQ(gif.parent()->child_count(), 3u);

    EXPECT_EQ(agg.main_root(), html);
    EXPECT_EQ(agg.info(html).base, "http://x.example/");
    auto a = agg.resolve(html, "a.gif");
    ASSERT_TRUE(a.target.has_value());
    EXPECT_EQ(*a.target, gif);
    auto b = agg.resolve(html, "cid:b@x");
    ASSERT_TRUE(b.target.has_value());
    EXPECT_EQ(b.target->path(), "3");
    EXPECT_EQ(agg.references(html).refs.size(), 2u);
}

TEST(DocumentMove, ViewsAndAggregateMadeBeforeAMoveReadTheMovedDocument) {
    // The first handle lives on the heap and is freed after the move, so anything still
    // pointing into it would read freed memory.
    auto first = std::make_unique<document>(document::parse(std::string(page)));
    const part_view html = first->find("1").value();
    const part_view gif = first->find("2").value();
    const auto agg = archive::aggregate::build(*first);
    const header_field_view location = html.header("Content-Location").value();

    document moved = std::move(*first);
    first.reset();

    expect_page(html, gif, agg);
    EXPECT_EQ(&html.doc(), &moved);
    EXPECT_EQ(&agg.document(), &moved);
    EXPECT_EQ(location.value(), "http://x.example/");
    EXPECT_EQ(moved.find("2").value(), gif);  // the same entity of the same document
    EXPECT_EQ(serialize(moved), page);
}

TEST(DocumentMove, ViewsSurviveTheGrowthOfAVectorOfDocuments) {
    std::vector<document> docs;
    docs.push_back(document::parse(std::string(page)));
    const part_view html = docs[0].find("1").value();
    const part_view gif = docs[0].find("2").value();
    const auto agg = archive::aggregate::build(docs[0]);
    for (int i = 0; i < 20; ++i) docs.push_back(document::parse(std::string(page)));  // regrows
    expect_page(html, gif, agg);
    EXPECT_EQ(&html.doc(), &docs[0]);
    EXPECT_NE(docs[1].find("1").value(), html);  // another document's entity
}

TEST(DocumentMove, AssignmentHandsTheStateOver) {
    document target = document::parse("Content-Type: text/plain\r\n\r\nold\r\n");
    std::optional<document> source = document::parse(std::string(page));
    const part_view html = source->find("1").value();
    const part_view gif = source->find("2").value();
    const auto agg = archive::aggregate::build(*source);
    target = std::move(*source);
    source.reset();
    expect_page(html, gif, agg);
    EXPECT_EQ(&agg.document(), &target);
    EXPECT_EQ(target.size(), 4u);
}

TEST(DocumentMove, AMoveOutOfAFunctionKeepsAShortOwnedInput) {
    // A short std::string could keep its octets inside the string object (small-string
    // optimisation); the document must still own them where views can reach them.
    struct held {
        document doc;
        part_view body;
    };
    auto make = [] {
        document d = document::parse(std::string("Subject: x\r\n\r\nhi"));
        part_view root = d.root();
        return held{std::move(d), root};
    };
    held h = make();
    EXPECT_EQ(h.body.raw_body(), "hi");
    EXPECT_EQ(h.body.header("Subject")->value(), "x");
    EXPECT_EQ(&h.body.doc(), &h.doc);
}

TEST(DocumentMove, AnAggregateMovesWithItsDocument) {
    struct opened {
        document doc;
        archive::aggregate agg;
    };
    auto open = [] {
        document d = document::parse(std::string(page));
        auto a = archive::aggregate::build(d);
        return std::make_unique<opened>(opened{std::move(d), std::move(a)});
    };
    auto o = open();
    const part_view html = o->doc.find("1").value();
    expect_page(html, o->doc.find("2").value(), o->agg);
    EXPECT_EQ(&o->agg.document(), &o->doc);
}

}  // namespace
}  // namespace mhtml::mime
