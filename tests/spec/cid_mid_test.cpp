// Levinson, "Content-ID and Message-ID URLs" (seed 002 first half, RFC 2392; REQUIREMENTS
// §1.3, CID-*): every vector of tests/data/spec/cid_mid.json, the rows the vectors do not
// spell out, and the round-trip properties of CID-10 for cid: and mid:.
#include "mhtml/uri/cid.hpp"

#include "spec/vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace mhtml::uri {
namespace {

using test::load_vectors;
using test::octets;

/// The codes of `ds` that belong to this file's `diagnostic_codes`, sorted.
std::vector<std::string> cid_codes(const std::vector<diagnostic>& ds) {
    static const std::set<std::string> mine = {"content_id_without_brackets",
                                               "content_id_not_addr_spec", "cid_url_with_brackets"};
    std::vector<std::string> out;
    for (const diagnostic& d : ds) {
        std::string name(code_name(d.code));
        if (mine.count(name)) out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
}
std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

// --- every vector ---------------------------------------------------------------------------

TEST(CidMid, AllVectors) {
    auto file = load_vectors("cid_mid.json");
    std::set<std::string> ids;
    std::size_t n = 0;
    for (auto& v : file["vectors"]) {
        std::string id = v["id"].get<std::string>();
        SCOPED_TRACE(id);
        EXPECT_TRUE(ids.insert(id).second) << "duplicate id";
        ++n;
        std::string kind = v["kind"].get<std::string>();
        std::string dir = v["direction"].get<std::string>();
        ASSERT_TRUE(kind == "cid" || kind == "mid");
        ASSERT_TRUE(dir == "both" || dir == "url_to_header" || dir == "header_to_url");
        auto want_codes = sorted(test::codes(v));
        bool to_header = dir != "header_to_url";
        bool to_url = dir != "url_to_header";
        std::string url = v.contains("url") ? octets(v["url"]) : std::string();
        std::string cid = v.contains("content_id") ? octets(v["content_id"]) : std::string();
        std::string mid = v.contains("message_id") ? octets(v["message_id"]) : std::string();

        if (v.contains("expected_error")) {
            std::string err = v["expected_error"].get<std::string>();
            ASSERT_NE(to_header, to_url) << "an error vector has one direction";
            std::vector<diagnostic> diags;
            if (to_header && kind == "cid") {
                auto r = cid_to_content_id(url, &diags);
                EXPECT_FALSE(r.ok()) << "got " << r.value;
                EXPECT_EQ(r.error, err) << r.message;
                EXPECT_FALSE(r.message.empty());
            } else if (to_header) {
                auto r = mid_to_ids(url, &diags);
                EXPECT_FALSE(r.ok()) << "got " << r.value.message_id << r.value.content_id;
                EXPECT_EQ(r.error, err) << r.message;
                EXPECT_FALSE(r.message.empty());
            } else if (kind == "cid") {
                auto r = content_id_to_cid(cid, &diags);
                EXPECT_FALSE(r.ok()) << "got " << r.value;
                EXPECT_EQ(r.error, err) << r.message;
            } else {
                auto r = ids_to_mid(mid, cid, &diags);
                EXPECT_FALSE(r.ok()) << "got " << r.value;
                EXPECT_EQ(r.error, err) << r.message;
            }
            EXPECT_TRUE(diags.empty()) << "diagnostics are only reported on success";
            continue;
        }

        // url -> header
        if (to_header) {
            std::vector<diagnostic> diags;
            if (kind == "cid") {
                auto r = cid_to_content_id(url, &diags);
                ASSERT_TRUE(r.ok()) << r.error << ": " << r.message;
                EXPECT_EQ(r.value, cid);
            } else {
                auto r = mid_to_ids(url, &diags);
                ASSERT_TRUE(r.ok()) << r.error << ": " << r.message;
                EXPECT_EQ(r.value.message_id, mid);
                EXPECT_EQ(r.value.content_id, cid);
            }
            EXPECT_EQ(cid_codes(diags), want_codes) << "url -> header";
            for (const diagnostic& d : diags) {
                EXPECT_TRUE(d.part_path.empty());
                EXPECT_LT(d.offset, url.size());
                EXPECT_FALSE(d.message.empty());
            }
        }
        // header -> url
        if (to_url) {
            std::vector<diagnostic> diags;
            result<std::string> r =
                kind == "cid" ? content_id_to_cid(cid, &diags) : ids_to_mid(mid, cid, &diags);
            ASSERT_TRUE(r.ok()) << r.error << ": " << r.message;
            EXPECT_EQ(r.value, url);
            EXPECT_EQ(cid_codes(diags), want_codes) << "header -> url";
            for (const diagnostic& d : diags) {
                EXPECT_TRUE(d.part_path.empty());
                EXPECT_FALSE(d.message.empty());
            }
        }
        // The scheme predicates agree with the kind of every URL that converts.
        if (!url.empty() && !v.contains("expected_error")) {
            EXPECT_EQ(is_cid_url(url), kind == "cid");
            EXPECT_EQ(is_mid_url(url), kind == "mid");
        }
    }
    EXPECT_EQ(n, 42u) << "cid_mid.json should hold 42 vectors";
}

// --- rows ---------------------------------------------------------------------------------

TEST(CidMid, CID_1_CidNamesPartMidNamesMessageOrPart) {
    EXPECT_EQ(cid_to_content_id("cid:c@d").value, "<c@d>");
    auto shortf = mid_to_ids("mid:a@b");
    ASSERT_TRUE(shortf.ok());
    EXPECT_EQ(shortf.value.message_id, "<a@b>");
    EXPECT_TRUE(shortf.value.content_id.empty());
    auto longf = mid_to_ids("mid:a@b/c@d");
    ASSERT_TRUE(longf.ok());
    EXPECT_EQ(longf.value.message_id, "<a@b>");
    EXPECT_EQ(longf.value.content_id, "<c@d>");
}

TEST(CidMid, CID_2_SchemeIsCaseInsensitive) {
    for (std::string_view u : {"cid:x@y", "CID:x@y", "Cid:x@y", "cId:x@y"}) {
        SCOPED_TRACE(u);
        EXPECT_TRUE(is_cid_url(u));
        EXPECT_FALSE(is_mid_url(u));
        EXPECT_EQ(cid_to_content_id(u).value, "<x@y>");
    }
    for (std::string_view u : {"mid:x@y", "MID:x@y", "mId:x@y"}) {
        SCOPED_TRACE(u);
        EXPECT_TRUE(is_mid_url(u));
        EXPECT_FALSE(is_cid_url(u));
        EXPECT_EQ(mid_to_ids(u).value.message_id, "<x@y>");
    }
    for (std::string_view u : {"", "cid", "ci:x", "xcid:x@y", "http://x/", "mid"}) {
        SCOPED_TRACE(u);
        EXPECT_FALSE(is_cid_url(u));
        EXPECT_FALSE(is_mid_url(u));
    }
    EXPECT_EQ(cid_to_content_id("mid:x@y").error, "wrong_scheme");
    EXPECT_EQ(mid_to_ids("cid:x@y").error, "wrong_scheme");
}

TEST(CidMid, CID_2_FragmentIsNotPartOfTheId) {
    // RFC 3986 §3.5: '#' starts a fragment; a '#' inside an id is written %23
    // (vector cid-hash-and-question).
    EXPECT_EQ(cid_to_content_id("cid:a@b#top").value, "<a@b>");
    EXPECT_EQ(cid_to_content_id("cid:a@b#").value, "<a@b>");
    EXPECT_EQ(cid_to_content_id("cid:a%23b@x#c#d").value, "<a#b@x>");
    EXPECT_EQ(cid_to_content_id("cid:a?b#c[d]@x").value, "<a?b>");
    // The fragment is dropped before anything is decoded or checked.
    EXPECT_EQ(cid_to_content_id("cid:a@b#%0D%0A").value, "<a@b>");
    EXPECT_EQ(cid_to_content_id("cid:a@b#%zz").value, "<a@b>");
    std::vector<diagnostic> diags;
    auto br = cid_to_content_id("cid:<a@b>#f", &diags);
    ASSERT_TRUE(br.ok()) << br.message;
    EXPECT_EQ(br.value, "<a@b>");
    EXPECT_EQ(cid_codes(diags), std::vector<std::string>{"cid_url_with_brackets"});
    EXPECT_EQ(cid_to_content_id("cid:#f").error, "empty_id");
    EXPECT_EQ(cid_to_content_id("cid:<>#f").error, "empty_id");

    auto m = mid_to_ids("mid:m@x/c@y#f");
    ASSERT_TRUE(m.ok()) << m.message;
    EXPECT_EQ(m.value.message_id, "<m@x>");
    EXPECT_EQ(m.value.content_id, "<c@y>");
    m = mid_to_ids("mid:m@x#f");
    ASSERT_TRUE(m.ok()) << m.message;
    EXPECT_EQ(m.value.message_id, "<m@x>");
    EXPECT_TRUE(m.value.content_id.empty());
    // A '/' in the fragment separates nothing.
    m = mid_to_ids("mid:m@x#a/b");
    ASSERT_TRUE(m.ok()) << m.message;
    EXPECT_EQ(m.value.message_id, "<m@x>");
    EXPECT_TRUE(m.value.content_id.empty());
    m = mid_to_ids("mid:m@x/c@y#a/b");
    ASSERT_TRUE(m.ok()) << m.message;
    EXPECT_EQ(m.value.content_id, "<c@y>");
    EXPECT_EQ(mid_to_ids("mid:m@x/#f").error, "empty_id");
    EXPECT_EQ(mid_to_ids("mid:#f").error, "empty_id");
    // The writer escapes '#', so ids holding one come back whole.
    auto url = content_id_to_cid("<a#b@x>");
    ASSERT_TRUE(url.ok());
    EXPECT_EQ(url.value, "cid:a%23b@x");
    EXPECT_EQ(cid_to_content_id(url.value).value, "<a#b@x>");
}

TEST(CidMid, CID_2_BracketsInsideUrlAcceptedWithDiagnostic) {
    std::vector<diagnostic> diags;
    auto r = cid_to_content_id("cid:<x@y>", &diags);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value, "<x@y>");
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::cid_url_with_brackets);
    EXPECT_EQ(diags[0].sev, severity::warning);
    EXPECT_EQ(diags[0].offset, 4u);
    EXPECT_TRUE(diags[0].part_path.empty());

    diags.clear();
    auto m = mid_to_ids("mid:<m@x>/<c@x>", &diags);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m.value.message_id, "<m@x>");
    EXPECT_EQ(m.value.content_id, "<c@x>");
    ASSERT_EQ(diags.size(), 2u);
    EXPECT_EQ(diags[0].offset, 4u);
    EXPECT_EQ(diags[1].offset, 10u);

    // A lone bracket is not the RFC 2111 form; it is an octet no URL may contain.
    EXPECT_EQ(cid_to_content_id("cid:<x@y").error, "invalid_url_char");
    EXPECT_EQ(cid_to_content_id("cid:<>").error, "empty_id");
}

TEST(CidMid, CID_3_WriterEncodesEverythingOutsidePchar) {
    EXPECT_EQ(content_id_to_cid("<foo4%foo1@bar.net>").value, "cid:foo4%25foo1@bar.net");
    EXPECT_EQ(content_id_to_cid("<a/b@c>").value, "cid:a%2Fb@c");
    EXPECT_EQ(content_id_to_cid("<foo4*foo1@bar.net>").value, "cid:foo4*foo1@bar.net");
    // Every octet: kept exactly when it is unreserved, a sub-delim, ':' or '@'.
    const std::string keep =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@";
    for (int o = 0; o < 256; ++o) {
        char c = static_cast<char>(o);
        std::string enc = url_encode_id(std::string(1, c));
        SCOPED_TRACE(o);
        if (keep.find(c) != std::string::npos) {
            EXPECT_EQ(enc, std::string(1, c));
        } else {
            static constexpr char hex[] = "0123456789ABCDEF";
            std::string want{'%', hex[o >> 4], hex[o & 15]};
            EXPECT_EQ(enc, want);
        }
    }
}

TEST(CidMid, CID_4_MidSplitsAtFirstLiteralSlash) {
    auto r = mid_to_ids("mid:a%2Fb@c/d@e");
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.value.message_id, "<a/b@c>");
    EXPECT_EQ(r.value.content_id, "<d@e>");
    auto both = mid_to_ids("mid:a%2Fb@c/d%2fe@f");
    ASSERT_TRUE(both.ok());
    EXPECT_EQ(both.value.message_id, "<a/b@c>");
    EXPECT_EQ(both.value.content_id, "<d/e@f>");
    EXPECT_EQ(mid_to_ids("mid:a@b/c@d/e@f").error, "extra_slash");
    EXPECT_EQ(mid_to_ids("mid://").error, "extra_slash");
    EXPECT_EQ(mid_to_ids("mid:/").error, "empty_id");
    // cid: has no separator: a raw '/' is part of the id.
    EXPECT_EQ(cid_to_content_id("cid:a/b/c@d").value, "<a/b/c@d>");
}

TEST(CidMid, CID_9_PercentDecoded) {
    EXPECT_EQ(cid_to_content_id("cid:foo4%25foo1@bar.net").value, "<foo4%foo1@bar.net>");
    EXPECT_EQ(cid_to_content_id("cid:foo4*foo1@bar.net").value, "<foo4*foo1@bar.net>");
    EXPECT_EQ(cid_to_content_id("cid:%41%62%2e%2E@x").value, "<Ab..@x>");
    EXPECT_EQ(cid_to_content_id("cid:%FF%80@x").value, "<\xFF\x80@x>");
    // Decoding is one level only.
    EXPECT_EQ(cid_to_content_id("cid:%2541@x").value, "<%41@x>");
}

TEST(CidMid, CID_9_MalformedEscapesAndOctets) {
    for (std::string_view u :
         {"cid:%", "cid:a%", "cid:a%4", "cid:a%4g@x", "cid:a%g4@x", "cid:a% 4@x", "cid:%%41"}) {
        SCOPED_TRACE(u);
        EXPECT_EQ(cid_to_content_id(u).error, "bad_percent_escape");
    }
    for (std::string_view u :
         {"cid:a b", "cid: a@b", "cid:a@b ", "cid:a\"b@c", "cid:a\\b@c", "cid:a^b", "cid:a`b",
          "cid:a{b}", "cid:a|b", "cid:a>b", "cid:caf\xE9@x", "cid:a\tb", "cid:a\r\nb"}) {
        SCOPED_TRACE(u);
        EXPECT_EQ(cid_to_content_id(u).error, "invalid_url_char");
    }
    for (int o = 0; o < 0x20; ++o) {
        static constexpr char hex[] = "0123456789ABCDEF";
        std::string u = std::string("cid:a%") + hex[o >> 4] + hex[o & 15] + "@x";
        SCOPED_TRACE(u);
        EXPECT_EQ(cid_to_content_id(u).error, "control_char_in_id");
    }
    EXPECT_EQ(cid_to_content_id("cid:a%7F@x").error, "control_char_in_id");
    EXPECT_EQ(mid_to_ids("mid:a@x/b%0A@x").error, "control_char_in_id");
    EXPECT_EQ(mid_to_ids("mid:a b@x/b@x").error, "invalid_url_char");
    // Valid URL octets that the writer would have escaped are taken literally ('#' starts
    // a fragment: CID_2_FragmentIsNotPartOfTheId).
    EXPECT_EQ(cid_to_content_id("cid:a?b[c]/d@x").value, "<a?b[c]/d@x>");
}

TEST(CidMid, CID_10_HeaderSideToleratesCfwsAndMissingBrackets) {
    std::vector<diagnostic> diags;
    EXPECT_EQ(content_id_to_cid(" <foo@bar.net> (comment)", &diags).value, "cid:foo@bar.net");
    EXPECT_TRUE(diags.empty());
    EXPECT_EQ(
        content_id_to_cid("(a (nested) comment)\r\n\t<foo@bar.net>\r\n (x\\)y)", &diags).value,
        "cid:foo@bar.net");
    EXPECT_TRUE(diags.empty());

    auto r = content_id_to_cid("  sign-eng*jpalme@dsv.su.se (THTML 9.3)", &diags);
    EXPECT_EQ(r.value, "cid:sign-eng*jpalme@dsv.su.se");
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::content_id_without_brackets);
    EXPECT_EQ(diags[0].sev, severity::note);
    EXPECT_EQ(diags[0].offset, 2u);

    diags.clear();
    EXPECT_EQ(content_id_to_cid("<97116092811xyz*foo.bar.net>", &diags).value,
              "cid:97116092811xyz*foo.bar.net");
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::content_id_not_addr_spec);
    EXPECT_EQ(diags[0].offset, 1u);

    EXPECT_EQ(content_id_to_cid("").error, "empty_id");
    EXPECT_EQ(content_id_to_cid("   ").error, "empty_id");
    EXPECT_EQ(content_id_to_cid(" <> ").error, "empty_id");
    EXPECT_EQ(content_id_to_cid("(only a comment)").error, "empty_id");
    // Inside the brackets nothing is trimmed: the octets are the id.
    EXPECT_EQ(content_id_to_cid("< a@b >").value, "cid:%20a@b%20");
    // A header id may hold octets that become escapes (CID-3), CTLs included.
    EXPECT_EQ(content_id_to_cid("<a\tb@c>").value, "cid:a%09b@c");
}

// Random ids over an alphabet rich in the octets CID-3 must escape (no CTLs: they cannot
// come back from a URL, CID-9).
std::string random_id(std::mt19937& rng) {
    static const std::string specials = "%/ \"#?<>[]{}|\\^`()@,;:.*!$&'+=~_-";
    std::uniform_int_distribution<int> len(1, 24), kind(0, 9), any(0, 255);
    std::string id;
    int n = len(rng);
    for (int i = 0; i < n; ++i) {
        int k = kind(rng);
        if (k < 4) {
            id += static_cast<char>('a' + any(rng) % 26);
        } else if (k < 7) {
            id += specials[static_cast<std::size_t>(any(rng)) % specials.size()];
        } else if (k < 8) {
            id += static_cast<char>(0x80 + any(rng) % 128);  // 8-bit
        } else {
            int o = any(rng) % 95 + 0x20;  // any printable ASCII
            id += static_cast<char>(o);
        }
    }
    return id;
}

// "<" + id + ">" (appended: GCC 12's -Wrestrict misfires on `"<" + std::string&&`).
std::string bracketed(const std::string& id) {
    std::string h;
    h.reserve(id.size() + 2);
    h.push_back('<');
    h.append(id);
    h.push_back('>');
    return h;
}

TEST(CidMid, CID_10_PropertyHeaderOfCidIsIdentity) {
    std::mt19937 rng(2392);
    for (int i = 0; i < 5000; ++i) {
        std::string h = bracketed(random_id(rng));
        SCOPED_TRACE(h);
        auto u = content_id_to_cid(h);
        ASSERT_TRUE(u.ok()) << u.error;
        EXPECT_TRUE(is_cid_url(u.value));
        auto back = cid_to_content_id(u.value);
        ASSERT_TRUE(back.ok()) << back.error << ": " << back.message;
        EXPECT_EQ(back.value, h);
        EXPECT_EQ(id_key(h), h.substr(1, h.size() - 2));
        // ... and the URL is in canonical form, which converts back to itself.
        EXPECT_EQ(content_id_to_cid(back.value).value, u.value);
    }
}

TEST(CidMid, CID_10_PropertyCidOfHeaderIsIdentityForCanonicalUrls) {
    std::mt19937 rng(2111);
    for (int i = 0; i < 3000; ++i) {
        std::string u = "cid:" + url_encode_id(random_id(rng));
        SCOPED_TRACE(u);
        auto h = cid_to_content_id(u);
        ASSERT_TRUE(h.ok()) << h.error;
        EXPECT_EQ(content_id_to_cid(h.value).value, u);
    }
}

TEST(CidMid, CID_11_MidLongFormBothWays) {
    auto r = mid_to_ids("mid:960830.1639@XIson.com/partA.960830.1639@XIson.com");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value.message_id, "<960830.1639@XIson.com>");
    EXPECT_EQ(r.value.content_id, "<partA.960830.1639@XIson.com>");
    EXPECT_EQ(ids_to_mid("<960830.1639@XIson.com>", "<partA.960830.1639@XIson.com>").value,
              "mid:960830.1639@XIson.com/partA.960830.1639@XIson.com");
    EXPECT_EQ(ids_to_mid(" <m@x> (msg)", "").value, "mid:m@x");
    EXPECT_EQ(ids_to_mid("", "<c@x>").error, "empty_id");
    EXPECT_EQ(ids_to_mid("<m@x>", "<>").error, "empty_id");
    EXPECT_EQ(ids_to_mid("<m@x>", " (nothing) ").error, "empty_id");

    // Diagnostic offsets are into the field they concern.
    std::vector<diagnostic> diags;
    ASSERT_TRUE(ids_to_mid("<m@x>", "  c", &diags).ok());
    ASSERT_EQ(diags.size(), 2u);
    EXPECT_EQ(diags[0].code, diag_code::content_id_without_brackets);
    EXPECT_EQ(diags[0].offset, 2u);
    EXPECT_EQ(diags[1].code, diag_code::content_id_not_addr_spec);
}

TEST(CidMid, CID_11_PropertyMidRoundTrip) {
    std::mt19937 rng(1997);
    std::uniform_int_distribution<int> coin(0, 3);
    for (int i = 0; i < 5000; ++i) {
        std::string m = bracketed(random_id(rng));
        std::string c = coin(rng) == 0 ? std::string() : bracketed(random_id(rng));
        SCOPED_TRACE(m + " / " + c);
        auto u = ids_to_mid(m, c);
        ASSERT_TRUE(u.ok()) << u.error;
        EXPECT_TRUE(is_mid_url(u.value));
        // At most the one separator is a literal '/' (CID-3 escapes '/' in ids).
        EXPECT_EQ(std::count(u.value.begin(), u.value.end(), '/'), c.empty() ? 0 : 1);
        auto back = mid_to_ids(u.value);
        ASSERT_TRUE(back.ok()) << back.error << ": " << back.message;
        EXPECT_EQ(back.value.message_id, m);
        EXPECT_EQ(back.value.content_id, c);
        EXPECT_EQ(ids_to_mid(back.value.message_id, back.value.content_id).value, u.value);
    }
}

TEST(CidMid, CID_13_ExampleOneReferenceMatchesImageId) {
    // RFC 2392 example 1 (restored, E-16): IMG SRC="cid:foo4*foo1@bar.net" and the image's
    // Content-ID: <foo4*foo1@bar.net>.
    auto h = cid_to_content_id("cid:foo4*foo1@bar.net");
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(id_key(h.value), id_key("<foo4*foo1@bar.net>"));
}

TEST(CidMid, CID_14_ExampleTwoLinkIsLongForm) {
    auto r = mid_to_ids("mid:960830.1639@XIson.com/partA.960830.1639@XIson.com");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(id_key(r.value.message_id), "960830.1639@XIson.com");
    EXPECT_EQ(id_key(r.value.content_id), "partA.960830.1639@XIson.com");
    EXPECT_NE(id_key(r.value.message_id), id_key("<970701.32784@VIers.none.com>"));
}

TEST(CidMid, CID_16_IdKeyTrimsCfwsAndOneBracketPair) {
    EXPECT_EQ(id_key("<a@b>"), "a@b");
    EXPECT_EQ(id_key(" a@b (c)"), "a@b");
    EXPECT_EQ(id_key("\r\n\t<a@b>\r\n "), "a@b");
    EXPECT_EQ(id_key("(x) <a@b> (y (z)) "), "a@b");
    EXPECT_EQ(id_key("<<a@b>>"), "<a@b>");  // one pair only
    EXPECT_EQ(id_key("<a@b"), "<a@b");      // no enclosing pair: nothing removed
    EXPECT_EQ(id_key("a@b>"), "a@b>");
    EXPECT_EQ(id_key("<ABC@x>"), "ABC@x");  // no case folding
    EXPECT_NE(id_key("<ABC@x>"), id_key("<abc@x>"));
    EXPECT_EQ(id_key("<a(b)@x>"), "a(b)@x");  // nothing inside the brackets is a comment
    EXPECT_EQ(id_key("<\"a b\"@x> "), "\"a b\"@x");
    EXPECT_EQ(id_key("a@b)"), "a@b)");  // a ')' without '(' is not a comment
    EXPECT_EQ(id_key("a@b \\)"), "a@b \\)");
    EXPECT_EQ(id_key(""), "");
    EXPECT_EQ(id_key("(unterminated"), "");
    // cid:ABC@x vs Content-ID <abc@x>: no strict match.
    EXPECT_NE(id_key(cid_to_content_id("cid:ABC@x").value), id_key("<abc@x>"));
    // The key of what cid_to_content_id gives is the decoded id.
    EXPECT_EQ(id_key(cid_to_content_id("cid:foo4%25foo1@bar.net").value), "foo4%foo1@bar.net");
}

TEST(CidMid, CID_16_IdKeyIsLinearOnHostileInput) {
    std::string s(200000, '(');
    EXPECT_EQ(id_key(s), "");
    std::string t = "<a@b>" + std::string(100000, ')');
    EXPECT_EQ(id_key(t), t);
    std::string u = "x" + std::string(100000, '\\') + ")";
    EXPECT_EQ(id_key(u), u);
}

}  // namespace
}  // namespace mhtml::uri
