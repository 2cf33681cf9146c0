// Which part a reference names (tests/data/spec/resolve_match.json; MHTML draft 8.2, 8.3):
// octet-exact after resolution, cid: only against Content-ID, fictitious only against
// fictitious, fragments ignored; the lenient retry and its ambiguous diagnostic.
#include "mhtml/uri/label_index.hpp"

#include "spec/vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace mhtml::uri {
namespace {

using test::codes;
using test::load_vectors;
using test::octets;

struct built {
    std::vector<std::string> storage;  // the field bodies the views point into
    std::vector<part_labels> parts;
};

built parts_of(const nlohmann::json& v) {
    built b;
    b.storage.reserve(v["parts"].size() * 3);
    for (auto& p : v["parts"]) {
        part_labels l;
        auto field = [&](const char* name) -> std::optional<std::string_view> {
            if (!p.contains(name)) return std::nullopt;
            b.storage.push_back(octets(p[name]));
            return std::string_view(b.storage.back());
        };
        l.content_id = field("content_id");
        l.content_location = field("content_location");
        l.content_base = field("content_base");
        b.parts.push_back(l);
    }
    return b;
}

std::set<std::string> file_codes_in(const std::vector<diagnostic>& diags,
                                    const nlohmann::json& file) {
    std::set<std::string> out;
    for (auto& d : diags) {
        std::string name(code_name(d.code));
        if (file["diagnostic_codes"].contains(name)) out.insert(name);
    }
    return out;
}

TEST(ResolveMatch, MHT_8_2_And_8_3_AllVectors) {
    auto file = load_vectors("resolve_match.json");
    std::size_t n = 0;
    for (auto& v : file["vectors"]) {
        SCOPED_TRACE(v["id"].get<std::string>());
        ++n;
        auto b = parts_of(v);
        auto parts_base =
            base_uri::make(v.contains("parts_base") ? octets(v["parts_base"]) : "thismessage:/");
        auto base = base_uri::make(octets(v["base"]));
        ASSERT_TRUE(parts_base && base);
        std::vector<diagnostic> diags;
        label_index index(b.parts, *parts_base, &diags);
        const std::string reference = octets(v["reference"]);

        // Strict (--strict): expected_part_index.
        auto strict = index.find(reference, *base, {.strict = true}, &diags);
        EXPECT_EQ(strict.resolved, octets(v["expected_resolved"]));
        if (v["expected_part_index"].is_null()) {
            EXPECT_FALSE(strict.part.has_value());
        } else {
            ASSERT_TRUE(strict.part.has_value());
            EXPECT_EQ(*strict.part, v["expected_part_index"].get<std::size_t>());
        }
        EXPECT_EQ(strict.same_document, v.value("same_document", false));
        auto expected = codes(v);
        EXPECT_EQ(file_codes_in(diags, file),
                  std::set<std::string>(expected.begin(), expected.end()));

        // Default: the lenient retry finds lenient_part_index, reported as ambiguous. (The
        // Chromium compatibility match is a separate option, off by default, tested below.)
        std::vector<diagnostic> lenient_diags;
        auto lenient = index.find(reference, *base, {}, &lenient_diags);
        if (v.contains("lenient_part_index")) {
            ASSERT_TRUE(lenient.part.has_value());
            EXPECT_EQ(*lenient.part, v["lenient_part_index"].get<std::size_t>());
            EXPECT_TRUE(lenient.lenient);
            ASSERT_EQ(lenient_diags.size(), 1u);
            EXPECT_EQ(code_name(lenient_diags[0].code), v["lenient_diagnostic"].get<std::string>());
            EXPECT_EQ(lenient_diags[0].sev, severity::ambiguous);
        } else {
            EXPECT_EQ(lenient.part, strict.part);
            EXPECT_FALSE(lenient.lenient);
        }
    }
    EXPECT_EQ(n, 42u);
}

TEST(ResolveMatch, MHT_8_2_7_LookupsScaleToManyParts) {
    // 100,000 parts indexed once; every one found by its own reference.
    std::vector<std::string> storage;
    storage.reserve(100000);
    std::vector<part_labels> parts;
    for (int i = 0; i < 100000; ++i) {
        storage.push_back("img/" + std::to_string(i) + ".png");
        part_labels l;
        l.content_location = storage.back();
        parts.push_back(l);
    }
    label_index index(parts, base_uri::fictitious());
    auto base = base_uri::fictitious();
    for (int i = 0; i < 100000; i += 997) {
        auto m = index.find("img/" + std::to_string(i) + ".png#f", base, {.strict = true});
        ASSERT_TRUE(m.part.has_value());
        EXPECT_EQ(*m.part, static_cast<std::size_t>(i));
    }
    EXPECT_EQ(*index.location(5), "thismessage:/img/5.png");
}

TEST(ResolveMatch, MHT_8_3_1_CidContentLocationLabelsNothing) {
    std::string loc = "cid:a@b", id = "<a@b>";
    std::vector<part_labels> parts(2);
    parts[0].content_location = loc;
    parts[1].content_id = id;
    label_index index(parts, base_uri::fictitious());
    auto m = index.find("cid:a@b", base_uri::fictitious());
    ASSERT_TRUE(m.part.has_value());
    EXPECT_EQ(*m.part, 1u);
    EXPECT_EQ(index.location(0), nullptr);
}

TEST(ResolveMatch, ChromiumCidContentLocationCompatibility) {
    // Blink: <link href="cid:css-1@mhtml.blink"> and a part with only
    // Content-Location: cid:css-1@mhtml.blink. Strict RFC 2557: nothing; default: that part,
    // reported ambiguous; a Content-ID still wins.
    std::string loc = "cid:css-1@mhtml.blink", other_loc = "cid:css-2@mhtml.blink",
                id = "<css-2@mhtml.blink>";
    std::vector<part_labels> parts(3);
    parts[0].content_location = loc;
    parts[1].content_location = other_loc;
    parts[2].content_id = id;
    label_index index(parts, base_uri::fictitious());
    auto base = base_uri::fictitious();
    EXPECT_FALSE(
        index.find(loc, base, {.strict = true, .cid_content_location = true}).part.has_value());
    EXPECT_FALSE(index.find(loc, base).part.has_value());  // MHT-8.3.1 by default
    std::vector<diagnostic> diags;
    const match_options blink{.cid_content_location = true};
    auto m = index.find(loc, base, blink, &diags);
    ASSERT_TRUE(m.part.has_value());
    EXPECT_EQ(*m.part, 0u);
    EXPECT_TRUE(m.lenient);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::cid_matched_content_location);
    EXPECT_EQ(diags[0].sev, severity::ambiguous);
    EXPECT_EQ(*index.find(other_loc, base, blink).part, 2u);
    EXPECT_FALSE(index.find("CID:css-1@mhtml.blink", base, blink).part.has_value());
}

TEST(ResolveMatch, E_14_RawSpacesInContentLocationMatchLeniently) {
    std::string loc = "http://x.example/a b.gif";
    std::vector<part_labels> parts(1);
    parts[0].content_location = loc;
    label_index index(parts, base_uri::fictitious());
    auto base = base_uri::fictitious();
    EXPECT_FALSE(index.find("http://x.example/a b.gif", base, {.strict = true}).part.has_value());
    std::vector<diagnostic> diags;
    auto m = index.find("http://x.example/a b.gif", base, {}, &diags);
    ASSERT_TRUE(m.part.has_value());
    EXPECT_TRUE(m.lenient);
    ASSERT_FALSE(diags.empty());
    EXPECT_EQ(diags.back().code, diag_code::matched_after_normalisation);
    // The spec reading (all white space removed) still matches strictly.
    EXPECT_TRUE(index.find("http://x.example/ab.gif", base, {.strict = true}).part.has_value());
}

TEST(ResolveMatch, CidFragmentIsSetAside) {
    std::string id = "<img@x>";
    std::vector<part_labels> parts(1);
    parts[0].content_id = id;
    label_index index(parts, base_uri::fictitious());
    auto m = index.find("cid:img@x#page=2", base_uri::fictitious(), {.strict = true});
    ASSERT_TRUE(m.part.has_value());
    EXPECT_EQ(m.resolved, "cid:img@x#page=2");
}

TEST(ResolveMatch, THTML_10_1_MethodIndicatorIsNotABase) {
    std::string loc = "logo.gif", cb = "\"FILE:\"";
    std::vector<part_labels> parts(1);
    parts[0].content_location = loc;
    parts[0].content_base = cb;
    label_index index(parts, base_uri::fictitious());
    EXPECT_EQ(*index.location(0), "thismessage:/logo.gif");
    EXPECT_TRUE(index.find("logo.gif", base_uri::fictitious()).part.has_value());
}

TEST(ResolveMatch, DuplicateContentIdFirstWins) {
    std::string a = "<x@y>", b = " <x@y> ";
    std::vector<part_labels> parts(2);
    parts[0].content_id = a;
    parts[1].content_id = b;
    parts[1].path = "2";
    std::vector<diagnostic> diags;
    label_index index(parts, base_uri::fictitious(), &diags);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::duplicate_content_id);
    EXPECT_EQ(diags[0].part_path, "2");
    EXPECT_EQ(*index.find("cid:x@y", base_uri::fictitious()).part, 0u);
}

}  // namespace
}  // namespace mhtml::uri
