#include "mhtml/uri/whatwg_url.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

// Vectors written from the URL Standard's rules (https://url.spec.whatwg.org/): the basic URL
// parser's states, the host parser, the percent-encode sets and the serializer. Each case
// names the rule it exercises. A browser resolves a reference this way before it looks it up
// in an archive (the label index's lenient retry, MHT-8.2.5).

namespace mhtml::uri {
namespace {

struct vector {
    const char* base;  // nullptr: no base
    const char* input;
    const char* expected;  // nullptr: failure
};

std::optional<std::string> parse(const char* base, std::string_view input) {
    std::optional<whatwg_url> b;
    if (base) {
        b = whatwg_url::parse(base);
        if (!b) return std::string("(base failed)");
    }
    auto u = whatwg_url::parse(input, b ? &*b : nullptr);
    if (!u) return std::nullopt;
    return u->href();
}

void check(const std::vector<vector>& cases) {
    for (const auto& v : cases) {
        SCOPED_TRACE(std::string("base ") + (v.base ? v.base : "(none)") + ", input '" + v.input +
                     "'");
        auto got = parse(v.base, v.input);
        if (v.expected) {
            ASSERT_TRUE(got.has_value()) << "failed, expected " << v.expected;
            EXPECT_EQ(*got, v.expected);
        } else {
            EXPECT_FALSE(got.has_value()) << "expected failure, got " << *got;
        }
    }
}

constexpr const char* page = "http://h.example/dir/page.html";

TEST(WhatwgUrl, ControlsAndSpacesAtTheEndsAndTabsAndNewlinesAnywhereAreRemoved) {
    check({
        {nullptr, "  http://example.com/  ", "http://example.com/"},
        {nullptr, "\x01http://example.com/\x1f", "http://example.com/"},
        {nullptr, "http://exa\tmple\n.c\rom/a\tb", "http://example.com/ab"},
        {page, "img/\twith\nspace.png", "http://h.example/dir/img/withspace.png"},
        {page, " img.png ", "http://h.example/dir/img.png"},
    });
}

TEST(WhatwgUrl, SchemeAndHostAreLowerCasedAndTheDefaultPortDropped) {
    check({
        {nullptr, "HTTP://EXAMPLE.COM/A", "http://example.com/A"},
        {nullptr, "http://example.com:80/", "http://example.com/"},
        {nullptr, "https://example.com:443/", "https://example.com/"},
        {nullptr, "ws://example.com:80/", "ws://example.com/"},
        {nullptr, "wss://example.com:443/", "wss://example.com/"},
        {nullptr, "ftp://example.com:21/", "ftp://example.com/"},
        {nullptr, "http://example.com:443/", "http://example.com:443/"},
        {nullptr, "http://example.com:0080/", "http://example.com/"},
        {nullptr, "http://example.com:8080/", "http://example.com:8080/"},
        {nullptr, "http://example.com:/", "http://example.com/"},
        {nullptr, "http://example.com", "http://example.com/"},
        {nullptr, "http://example.com:65535/", "http://example.com:65535/"},
        {nullptr, "http://example.com:65536/", nullptr},
        {nullptr, "http://example.com:8a/", nullptr},
        {nullptr, "Foo+Bar.1-x://Host/P", "foo+bar.1-x://Host/P"},  // opaque host: case kept
    });
}

TEST(WhatwgUrl, PathPercentEncodeSet) {
    // The path percent-encode set: C0 controls, space, '"', '#' (never reached: it starts the
    // fragment), '<', '>', '?' (never reached), '^', '`', '{', '}', and octets above 0x7E.
    check({
        {page, "img/with space.png", "http://h.example/dir/img/with%20space.png"},
        {page, "caf\xC3\xA9.png", "http://h.example/dir/caf%C3%A9.png"},
        {page, "a\"b<c>d^e`f{g}h", "http://h.example/dir/a%22b%3Cc%3Ed%5Ee%60f%7Bg%7Dh"},
        {page,
         "a\x01"
         "b\x7f"
         "c",
         "http://h.example/dir/a%01b%7Fc"},
        // Not in the set: kept as they are, '%' and escapes included (never decoded).
        {page, "a|b[c]d'e;f=g@h:i!$&()*+,~", "http://h.example/dir/a|b[c]d'e;f=g@h:i!$&()*+,~"},
        {page, "a%20b%zz%", "http://h.example/dir/a%20b%zz%"},
    });
}

TEST(WhatwgUrl, QueryAndSpecialQueryPercentEncodeSets) {
    check({
        {page, "q.png?a b|c", "http://h.example/dir/q.png?a%20b|c"},
        {page, "q.png?x=\xC3\xA9", "http://h.example/dir/q.png?x=%C3%A9"},
        {page, "q.png?\"<>'`{}^", "http://h.example/dir/q.png?%22%3C%3E%27`{}^"},
        // Not special: the query set has no '\''.
        {"thismessage:/", "q.png?a b'c", "thismessage:/q.png?a%20b'c"},
        {page, "?", "http://h.example/dir/page.html?"},
        {page, "?x", "http://h.example/dir/page.html?x"},
    });
}

TEST(WhatwgUrl, FragmentPercentEncodeSet) {
    check({
        {page, "x.png#a b", "http://h.example/dir/x.png#a%20b"},
        {page, "x.png#\"<>`#'{}", "http://h.example/dir/x.png#%22%3C%3E%60#'{}"},
        {page, "#top", "http://h.example/dir/page.html#top"},
        {page, "x.png#", "http://h.example/dir/x.png#"},
    });
}

TEST(WhatwgUrl, DotSegmentsIncludingEscapedDotsAreRemoved) {
    check({
        {page, "a/./b/../c", "http://h.example/dir/a/c"},
        {page, "a/%2e/b/%2E%2e/c", "http://h.example/dir/a/c"},
        {page, "a/.%2E/c", "http://h.example/dir/c"},
        {page, "../../../../x", "http://h.example/x"},
        {page, "a/..", "http://h.example/dir/"},
        {page, ".", "http://h.example/dir/"},
        {page, "..", "http://h.example/"},
        {page, "a/...", "http://h.example/dir/a/..."},
        {nullptr, "http://h/a/b/../../../c", "http://h/c"},
    });
}

TEST(WhatwgUrl, BackslashIsASlashInSpecialUrlsOnly) {
    check({
        {page, "..\\x", "http://h.example/x"},
        {page, "img\\a.png", "http://h.example/dir/img/a.png"},
        {page, "\\\\other.example\\y", "http://other.example/y"},
        {page, "/\\other.example/y", "http://other.example/y"},
        {nullptr, "http:\\\\h\\a", "http://h/a"},
        {nullptr, "sc://h/a\\b", "sc://h/a\\b"},
    });
}

TEST(WhatwgUrl, RelativeReferencesAgainstABase) {
    check({
        {page, "//Other.Example:80/p", "http://other.example/p"},
        {page, "/abs", "http://h.example/abs"},
        {page, "", "http://h.example/dir/page.html"},
        {page, "http:g", "http://h.example/dir/g"},  // same special scheme: relative
        {page, "https:g", "https://g/"},             // another special scheme: the host
        {page, "HTTP://x.example/", "http://x.example/"},
        {"http://h.example/dir/page.html?q#f", "?y", "http://h.example/dir/page.html?y"},
        {"http://h.example/dir/page.html?q#f", "#s", "http://h.example/dir/page.html?q#s"},
        {"http://u:p@h.example:81/d/p", "x", "http://u:p@h.example:81/d/x"},
        {"thismessage:/", "x y.gif", "thismessage:/x%20y.gif"},
        {"thismessage:/dir/", "../a", "thismessage:/a"},
        {nullptr, "img.png", nullptr},  // no base
    });
}

TEST(WhatwgUrl, OpaquePaths) {
    check({
        {nullptr, "cid:foo@bar.example", "cid:foo@bar.example"},
        {nullptr, "cid:css-1@mhtml.blink", "cid:css-1@mhtml.blink"},
        {nullptr, "mailto:a b", "mailto:a b"},
        {nullptr, "sc:a ?q", "sc:a%20?q"},
        {nullptr,
         "sc:a\x01"
         "b\xC3\xA9",
         "sc:a%01b%C3%A9"},
        {nullptr, "data:,x y", "data:,x y"},
        // A base with an opaque path takes nothing but a fragment (why Chromium loads no
        // relative @import from a style sheet it labelled cid:css-...@mhtml.blink).
        {"cid:css-1@mhtml.blink", "img/a.png", nullptr},
        {"cid:css-1@mhtml.blink", "#f", "cid:css-1@mhtml.blink#f"},
        {"cid:css-1@mhtml.blink", "http://h/a", "http://h/a"},
    });
}

TEST(WhatwgUrl, HostParserForSpecialSchemes) {
    check({
        {nullptr, "http://ex%41mple.com/", "http://example.com/"},
        {nullptr, "http://EX%41MPLE.com/", "http://example.com/"},
        {nullptr, "http://exa mple/", nullptr},  // forbidden host code point
        {nullptr, "http://a<b/", nullptr},
        {nullptr, "http://a%2Fb/", nullptr},  // decodes to a forbidden one
        {nullptr, "http://a%zz/", nullptr},   // '%' is a forbidden domain code point
        {nullptr, "http://a\x7f/", nullptr},
        {nullptr, "http:///x", "http://x/"},           // special authority ignores slashes
        {nullptr, "http://", nullptr},                 // special with an empty host
        {nullptr, "http://ex\xC3\xA9.com/", nullptr},  // not ASCII: UTS #46 not implemented
    });
}

TEST(WhatwgUrl, Ipv4AddressesInEveryForm) {
    check({
        {nullptr, "http://0x7f.1/", "http://127.0.0.1/"},
        {nullptr, "http://127.1/", "http://127.0.0.1/"},
        {nullptr, "http://0300.0250.0.1/", "http://192.168.0.1/"},
        {nullptr, "http://4294967295/", "http://255.255.255.255/"},
        {nullptr, "http://4294967296/", nullptr},
        {nullptr, "http://1.2.3.4./", "http://1.2.3.4/"},
        {nullptr, "http://1.2.3.4.5/", nullptr},
        {nullptr, "http://256.0.0.1/", nullptr},
        {nullptr, "http://1.2.3.256/", nullptr},
        {nullptr, "http://1.2.65535/", "http://1.2.255.255/"},
        {nullptr, "http://foo.09/", nullptr},  // ends in a number that is not one
        {nullptr, "http://foo.0x/", nullptr},  // ends in a number, but foo is not one
        {nullptr, "http://0x/", "http://0.0.0.0/"},
        {nullptr, "http://foo.1a/", "http://foo.1a/"},  // does not end in a number
        {nullptr, "http://1.2.3.09a/", "http://1.2.3.09a/"},
    });
}

TEST(WhatwgUrl, Ipv6AddressesAreCompressed) {
    check({
        {nullptr, "http://[::1]/", "http://[::1]/"},
        {nullptr, "http://[0:0:0:0:0:0:0:1]:80/", "http://[::1]/"},
        {nullptr, "http://[1:0:0:2:0:0:0:3]/", "http://[1:0:0:2::3]/"},
        {nullptr, "http://[1:0:0:2:0:0:3:4]/", "http://[1::2:0:0:3:4]/"},
        {nullptr, "http://[1:2:3:4:5:6:7:8]/", "http://[1:2:3:4:5:6:7:8]/"},
        {nullptr, "http://[1:0:3:4:5:6:7:8]/", "http://[1:0:3:4:5:6:7:8]/"},  // one zero stays
        {nullptr, "http://[::]/", "http://[::]/"},
        {nullptr, "http://[ABCD::EF01]/", "http://[abcd::ef01]/"},
        {nullptr, "http://[::ffff:192.168.0.1]/", "http://[::ffff:c0a8:1]/"},
        {nullptr, "http://[1::2::3]/", nullptr},
        {nullptr, "http://[1:2:3:4:5:6:7:8:9]/", nullptr},
        {nullptr, "http://[1:2:3]/", nullptr},
        {nullptr, "http://[::1/", nullptr},
        {nullptr, "http://[::1.2.3]/", nullptr},
        {nullptr, "http://[::01.2.3.4]/", nullptr},
    });
}

TEST(WhatwgUrl, UserinfoPercentEncodeSet) {
    check({
        {nullptr, "http://us er:p@ss@h/", "http://us%20er:p%40ss@h/"},
        {nullptr, "http://@h/", "http://h/"},
        {nullptr, "http://:@h/", "http://h/"},
        {nullptr, "http://h@/", nullptr},
        {nullptr, "http://a;b=c:d[e]@h/", "http://a%3Bb%3Dc:d%5Be%5D@h/"},
    });
}

TEST(WhatwgUrl, OpaqueHostsOfOtherSchemes) {
    check({
        {nullptr, "sc://H%41st/x", "sc://H%41st/x"},
        {nullptr, "sc://h\xC3\xA9/", "sc://h%C3%A9/"},
        {nullptr, "sc://a b/", nullptr},
        {nullptr, "sc:///x", "sc:///x"},
        {nullptr, "sc://[::1]/", "sc://[::1]/"},
        {nullptr, "sc:/a/../b", "sc:/b"},
        {nullptr, "sc:/.//p", "sc:/.//p"},  // serialized so that it reads back the same
    });
}

TEST(WhatwgUrl, FileUrls) {
    check({
        {nullptr, "file:///C|/x", "file:///C:/x"},
        {nullptr, "file://localhost/x", "file:///x"},
        {nullptr, "file://LOCALHOST/x", "file:///x"},
        {nullptr, "file://HOST/x", "file://host/x"},
        {nullptr, "file:x", "file:///x"},
        {nullptr, "FILE:/a b", "file:///a%20b"},
        {"file:///a/b", "y", "file:///a/y"},
        {"file:///C:/a/b", "/y", "file:///C:/y"},
        {"file:///C:/a/b", "../../..", "file:///C:/"},
        {"file:///a/b", "?q", "file:///a/b?q"},
        {"file://h/a/b", "//other/y", "file://other/y"},
    });
}

TEST(WhatwgUrl, HrefWithoutFragment) {
    auto u = whatwg_url::parse("HTTP://H/a b#f g");
    ASSERT_TRUE(u);
    EXPECT_EQ(u->href(false), "http://h/a%20b");
    EXPECT_EQ(u->href(), "http://h/a%20b#f%20g");
    EXPECT_EQ(u->fragment(), "f%20g");
    EXPECT_TRUE(u->special());
    EXPECT_EQ(u->scheme(), "http");
}

TEST(WhatwgUrl, ParsingTheSerializationGivesItBack) {
    // The serializer's output is a fixed point of the parser, so normalising both sides of a
    // comparison is safe however many times either was normalised before.
    for (const char* s :
         {"http://h.example/dir/img/with%20space.png", "http://[1:0:0:2::3]/a?b#c",
          "https://u:p@h:81/a%2e/b?x=%27#%60", "thismessage:/x%20y.gif", "file:///C:/x",
          "sc:a%20?q", "sc:/.//p", "http://127.0.0.1/q.png?a%20b|c"}) {
        auto u = whatwg_url::parse(s);
        ASSERT_TRUE(u) << s;
        auto again = whatwg_url::parse(u->href());
        ASSERT_TRUE(again) << s;
        EXPECT_EQ(again->href(), u->href()) << s;
    }
}

TEST(WhatwgUrl, HostileInputsEndInLinearTime) {
    // Long runs of what each state loops over: no state may go back more than its buffer.
    std::string a = "http://h/" + std::string(200000, '.') + "/" + std::string(100000, 'a');
    EXPECT_TRUE(whatwg_url::parse(a));
    std::string dots;
    for (int i = 0; i < 50000; ++i) dots += "../";
    EXPECT_EQ(parse(page, dots), "http://h.example/");
    std::string at(100000, '@');
    EXPECT_FALSE(whatwg_url::parse("http://" + at + "h/").value().href().empty());
    EXPECT_FALSE(whatwg_url::parse("http://[" + std::string(100000, ':') + "]/"));
}

}  // namespace
}  // namespace mhtml::uri
