// RFC 3986 §5.4 resolution examples and the project's extra cases (tests/data/spec/rfc3986.json),
// plus the MHTML rules that sit on resolution: no %-decoding, no case folding, the fictitious
// base and its seed spelling (REQUIREMENTS L-2, L-6, L-7, L-8, MHT-8.2).
#include "mhtml/uri/reference.hpp"

#include "spec/vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mhtml::uri {
namespace {

using test::load_vectors;
using test::octets;

TEST(Rfc3986, AllVectorsResolve) {
    auto file = load_vectors("rfc3986.json");
    std::size_t n = 0;
    for (auto& v : file["vectors"]) {
        SCOPED_TRACE(v["id"].get<std::string>());
        auto got = resolve(octets(v["base"]), octets(v["reference"]));
        ASSERT_TRUE(got.has_value());
        EXPECT_EQ(*got, octets(v["expected"]));
        ++n;
    }
    EXPECT_EQ(n, 62u);  // 23 normal + 19 abnormal + 20 extra
}

TEST(Rfc3986, SeedSpellingOfFictitiousBaseIsTheSameBase) {
    // L-2: resolve with the seed's this_message:/ exactly as with thismessage:/ (vectors
    // README: replace the prefix in inputs and expectations alike).
    auto file = load_vectors("rfc3986.json");
    for (auto& v : file["vectors"]) {
        std::string base = octets(v["base"]);
        if (!base.starts_with("thismessage:")) continue;
        SCOPED_TRACE(v["id"].get<std::string>());
        auto got = resolve("this_message:" + base.substr(12), octets(v["reference"]));
        ASSERT_TRUE(got.has_value());
        std::string expected = octets(v["expected"]);
        if (expected.starts_with("thismessage:")) expected = "this_message:" + expected.substr(12);
        EXPECT_EQ(*got, expected);
    }
    EXPECT_EQ(resolve("THIS_MESSAGE:/", "a.gif").value(), "THIS_MESSAGE:/a.gif");
    EXPECT_EQ(resolve("http://h.example/", "this_message:/x.gif").value(), "this_message:/x.gif");
    EXPECT_TRUE(same_resource(resolve("this_message:/", "a.gif").value(), "thismessage:/a.gif"));
}

TEST(Rfc3986, BaseMustBeAbsolute) {
    EXPECT_FALSE(resolve("images/", "a.gif").has_value());
    EXPECT_FALSE(resolve("", "a.gif").has_value());
    EXPECT_FALSE(base_uri::make("/abs/path").has_value());
    EXPECT_TRUE(base_uri::make("FILE:").has_value());  // L-9: nothing after scheme: is allowed
}

TEST(Rfc3986, BaseFragmentIsDropped) {
    // RFC 3986 §5.1 and L-7: an empty reference gives the base without its fragment.
    EXPECT_EQ(resolve("http://a/b/c/d;p?q#f", "").value(), "http://a/b/c/d;p?q");
    EXPECT_EQ(resolve("http://a/b#f", "#s").value(), "http://a/b#s");
}

TEST(Rfc3986, MHT_8_2_1_NoPercentDecodingNoCaseFolding) {
    EXPECT_EQ(resolve("thismessage:/", "a%2eb/c%20d").value(), "thismessage:/a%2eb/c%20d");
    EXPECT_EQ(resolve("thismessage:/", "%2e%2e/x").value(), "thismessage:/%2e%2e/x");
    EXPECT_EQ(resolve("HTTP://E.Example/A/", "B%7e").value(), "HTTP://E.Example/A/B%7e");
}

TEST(Rfc3986, MHT_8_2_3_AbsoluteReferencesLoseDotSegmentsToo) {
    // L-6: the same §5.2.2 transform on both sides, so RFC 1808-style labels still match.
    EXPECT_EQ(resolve("thismessage:/", "http://a.example/x/../g.gif").value(),
              "http://a.example/g.gif");
    EXPECT_EQ(resolve("thismessage:/", "http://a/../g").value(), "http://a/g");
}

TEST(Rfc3986, APathOfTwoSlashesNeverBecomesAnAuthority) {
    // "/a/..//x" loses its dot segments as "//x"; without an authority that would read back
    // as the authority "x" (found by fuzz_uri through normalize). It is written "/.//x".
    EXPECT_EQ(resolve("thismessage:/", "a/..//x").value(), "thismessage:/.//x");
    EXPECT_EQ(resolve("thismessage:/d/", "/a/..//x").value(), "thismessage:/.//x");
    EXPECT_EQ(resolve("thismessage:/", "thismessage:/a/..//x").value(), "thismessage:/.//x");
    EXPECT_EQ(split_reference("thismessage:/.//x").has_authority, false);
    // With an authority there is no ambiguity, and nothing is added.
    EXPECT_EQ(resolve("http://h/b/", "a/..//x").value(), "http://h/b//x");
    // Normalisation decodes %2E and then removes the dots: the same care, and idempotent.
    const std::string n = normalize("thismessage:/a/%2e%2e//X.PNG");
    EXPECT_EQ(n, "thismessage:/.//X.PNG");
    EXPECT_EQ(normalize(n), n);
}

TEST(Rfc3986, MHT_4_4_1_6_InvalidOctetsAreResolvedAsWritten) {
    // A raw space, 8-bit octets and other octets no URI may contain stay as they are, so the
    // reference can still equal an RFC 2047-decoded Content-Location octet for octet.
    std::vector<diagnostic> diags;
    EXPECT_EQ(resolve("http://x.example/d/", "a b.gif", &diags).value(),
              "http://x.example/d/a b.gif");
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::uri_invalid_chars);
    EXPECT_EQ(diags[0].offset, 1u);
    EXPECT_EQ(resolve("thismessage:/", "caf\xE9/../x|y{z}.gif").value(), "thismessage:/x|y{z}.gif");
    EXPECT_EQ(resolve("thismessage:/", "a\\b.gif").value(), "thismessage:/a\\b.gif");
    // A colon after something that is not a scheme is part of a relative path, as browsers read it.
    EXPECT_EQ(resolve("thismessage:/d/", "a b:c").value(), "thismessage:/d/a b:c");
    EXPECT_EQ(resolve("thismessage:/d/", "1a:b").value(), "thismessage:/d/1a:b");
}

TEST(Rfc3986, CheckReferenceReportsSyntax) {
    std::vector<diagnostic> diags;
    EXPECT_TRUE(check_reference("http://a.example/x?y#z", &diags));
    EXPECT_TRUE(check_reference("this_message:/a.gif", &diags));
    EXPECT_TRUE(check_reference("", &diags));
    EXPECT_TRUE(diags.empty());
    EXPECT_FALSE(check_reference("a%zzb", &diags));
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::uri_invalid_syntax);
    diags.clear();
    EXPECT_FALSE(check_reference("a#b#c", &diags, 100));
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::uri_invalid_chars);
    EXPECT_EQ(diags[0].offset, 103u);
    diags.clear();
    EXPECT_FALSE(check_reference("http://[::1/x", &diags));
    EXPECT_EQ(diags.size(), 1u);
}

TEST(Rfc3986, SplitReference) {
    auto p = split_reference("http://u@h:1/p/q?x=1#f");
    EXPECT_EQ(p.scheme, "http");
    EXPECT_EQ(p.authority, "u@h:1");
    EXPECT_EQ(p.path, "/p/q");
    EXPECT_EQ(p.query, "x=1");
    EXPECT_EQ(p.fragment, "f");
    auto q = split_reference("a?#");
    EXPECT_FALSE(q.has_scheme);
    EXPECT_FALSE(q.has_authority);
    EXPECT_TRUE(q.has_query);
    EXPECT_TRUE(q.has_fragment);
    EXPECT_TRUE(q.query.empty());
    EXPECT_TRUE(split_reference("this_message:/x").has_scheme);
    EXPECT_FALSE(split_reference("th_is:/x").has_scheme);
}

// The split scans an authority sixteen octets at a time and a scheme by a table: the same
// answers as RFC 3986 appendix B read octet by octet, at every length around the steps.
TEST(Rfc3986, SplitReferenceAtEveryAuthorityLengthAndSchemeEdge) {
    const auto appendix_b = [](std::string_view ref) {
        reference_parts r;
        const std::size_t colon = ref.find_first_of(":/?#");
        if (colon != std::string_view::npos && ref[colon] == ':' && colon > 0) {
            const std::string_view scheme = ref.substr(0, colon);
            bool ok = std::isalpha(static_cast<unsigned char>(scheme[0])) != 0;
            for (const char c : scheme)
                ok = ok && (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' ||
                            c == '-' || c == '.');
            ok = ok || is_fictitious_scheme(scheme);
            if (ok) {
                r.scheme = scheme;
                r.has_scheme = true;
                ref.remove_prefix(colon + 1);
            }
        }
        if (ref.starts_with("//")) {
            const std::size_t end = std::min(ref.find_first_of("/?#", 2), ref.size());
            r.authority = ref.substr(2, end - 2);
            r.has_authority = true;
            ref.remove_prefix(end);
        }
        return std::pair{r, ref};
    };
    std::vector<std::string> refs = {"",
                                     ":",
                                     ":x",
                                     "a:",
                                     "1a:b",
                                     "_a:b",
                                     "a_b:c",
                                     "a b:c",
                                     "a%:b",
                                     "+a:b",
                                     "a+-.9:b",
                                     "THIS_MESSAGE:/x",
                                     "this_messagex:/",
                                     "a/b:c",
                                     "a?b:c",
                                     "a#b:c",
                                     "//",
                                     "x://"};
    for (std::size_t n = 0; n < 40; ++n)
        for (const char* end : {"", "/p", "?q", "#f", "/p?q#f"}) {
            refs.push_back("http://" + std::string(n, 'h') + end);
            refs.push_back("//" + std::string(n, 'a') + end);
        }
    for (const std::string& ref : refs) {
        SCOPED_TRACE(ref);
        const auto [want, rest] = appendix_b(ref);
        const reference_parts got = split_reference(ref);
        EXPECT_EQ(got.has_scheme, want.has_scheme);
        EXPECT_EQ(got.scheme, want.scheme);
        EXPECT_EQ(is_absolute(ref), want.has_scheme);
        EXPECT_EQ(got.has_authority, want.has_authority);
        EXPECT_EQ(got.authority, want.authority);
        EXPECT_EQ(std::string(got.path) + (got.has_query ? "?" + std::string(got.query) : "") +
                      (got.has_fragment ? "#" + std::string(got.fragment) : ""),
                  rest);
    }
}

TEST(Rfc3986, RemoveDotSegmentsIsLiteral) {
    EXPECT_EQ(remove_dot_segments("/a/b/c/./../../g"), "/a/g");  // RFC 3986 §5.2.4 example
    EXPECT_EQ(remove_dot_segments("mid/content=5/../6"), "mid/6");
    EXPECT_EQ(remove_dot_segments("/%2E%2E/a"), "/%2E%2E/a");
    EXPECT_EQ(remove_dot_segments("/a/.."), "/");
    EXPECT_EQ(remove_dot_segments(".."), "");
}

TEST(Rfc3986, DotSegmentsAfterALongAuthorityAreLinear) {
    // "//" + a long authority + many "/..": each removal looks only at the path's own output.
    std::string ref = "//" + std::string(100000, 'a');
    for (int i = 0; i < 100000; ++i) ref += "/..";
    auto out = resolve("http://x/", ref);
    ASSERT_TRUE(out.has_value());
    EXPECT_EQ(*out, "http://" + std::string(100000, 'a') + "/");
    EXPECT_EQ(normalize(ref).size(), 2u + 100000u + 1u);
}

TEST(Rfc3986, MHT_8_2_4_SameResourceIsOctetExact) {
    EXPECT_TRUE(same_resource("thismessage:/a.gif#top", "thismessage:/a.gif"));
    EXPECT_TRUE(same_resource("this_message:/a.gif", "ThisMessage:/a.gif"));
    EXPECT_FALSE(same_resource("HTTP://www.x.example/a.gif", "http://www.x.example/a.gif"));
    EXPECT_FALSE(same_resource("http://x.example/a%7e", "http://x.example/a~"));
    EXPECT_FALSE(same_resource("thismessage:/a.gif", "http://a.gif"));
    EXPECT_FALSE(same_resource("thismessage:/A.gif", "thismessage:/a.gif"));
}

TEST(Rfc3986, MHT_8_2_5_NormalisationForTheAmbiguousRetry) {
    EXPECT_EQ(normalize("HTTP://www.X.example/a%7e/../b%2a?%7a#F"),
              "http://www.x.example/b%2A?z#F");
    EXPECT_EQ(normalize("http://User@Host.Example:80/%2E%2E/g"), "http://User@host.example:80/g");
    EXPECT_EQ(normalize("This_Message:/a/./b"), "thismessage:/a/b");
    EXPECT_EQ(normalize("../a%41"), "../aA");
    // A '%' that starts no escape is written %25, so normalising is idempotent.
    EXPECT_EQ(normalize("http://a/%4%44"), "http://a/%254D");
    EXPECT_EQ(normalize(normalize("http://a/%4%44")), normalize("http://a/%4%44"));
}

// is_normal_form lets the label index skip normalize() for labels already in normal form: it
// may say true only of references that normalize() leaves as they are.
TEST(Rfc3986, MHT_8_2_5_IsNormalFormOnlyOfWhatNormalizeLeavesAsItIs) {
    EXPECT_TRUE(is_normal_form("https://www.x.example/i/1.png"));
    EXPECT_TRUE(is_normal_form("thismessage:/a/b.css?q#F"));
    EXPECT_TRUE(is_normal_form("../a/B.png"));  // a relative path keeps its dot segments
    EXPECT_FALSE(is_normal_form("HTTP://x.example/a"));
    EXPECT_FALSE(is_normal_form("http://X.example/a"));
    EXPECT_FALSE(is_normal_form("this_message:/a"));
    EXPECT_FALSE(is_normal_form("http://x.example/a/../b"));
    EXPECT_FALSE(is_normal_form("/a/./b"));
    EXPECT_FALSE(is_normal_form("http://x.example/a%7e"));
    // Random references over an alphabet of what normalisation looks at.
    static constexpr std::string_view alphabet = "aAzZ09:/?#.%@_-e2E7~";
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    int normal = 0;
    for (int round = 0; round < 200000; ++round) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        std::string ref;
        const std::size_t n = (state >> 59) + 1;
        std::uint64_t bits = state;
        for (std::size_t k = 0; k < n; ++k) {
            if (k % 12 == 11) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                bits = state;
            }
            ref += alphabet[(bits >> 33) % alphabet.size()];
            bits = bits * 31 + 7;
        }
        if (round % 4 == 0) ref = "http://" + ref;
        if (!is_normal_form(ref)) continue;
        ++normal;
        ASSERT_EQ(normalize(ref), ref) << "is_normal_form said true of '" << ref << "'";
    }
    EXPECT_GT(normal, 10000);
}

TEST(Rfc3986, BaseUriCopiesStayValid) {
    auto b = base_uri::make("http://a/b/c/d;p?q#frag");
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(b->str(), "http://a/b/c/d;p?q");
    base_uri copy = *b;
    base_uri moved = std::move(*b);
    EXPECT_EQ(copy.resolve("../g"), "http://a/b/g");
    EXPECT_EQ(moved.resolve("?y"), "http://a/b/c/d;p?y");
    std::string out = "stale";
    moved.resolve_into(out, "g#s");
    EXPECT_EQ(out, "http://a/b/c/g#s");
    EXPECT_TRUE(base_uri::fictitious().is_fictitious());
    EXPECT_FALSE(moved.is_fictitious());
}

}  // namespace
}  // namespace mhtml::uri
