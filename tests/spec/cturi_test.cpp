// draft-eastlake-cturi-02, Content-Type <-> URI mapping (REQUIREMENTS §1.5, CTURI-*):
// every vector of tests/data/spec/cturi.json, the closure properties of §1.3 / §2.4, and the
// rows the vectors do not cover (controlled mapping off, precedence, §4, reserved form).
#include "mhtml/uri/content_type_uri.hpp"

#include "mhtml/uri/reference.hpp"

#include "spec/vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace mhtml::uri {
namespace {

using test::load_vectors;
using test::octets;

std::vector<diag_code> codes_of(const std::vector<diagnostic>& ds) {
    std::vector<diag_code> out;
    for (const diagnostic& d : ds) out.push_back(d.code);
    return out;
}

std::string ct2uri(std::string_view ct, mapping_options o = {}) {
    auto r = ct_to_uri(ct, o);
    EXPECT_TRUE(r.ok()) << ct << ": " << r.error << ": " << r.message;
    return r.value.text;
}
std::string uri2ct(std::string_view uri, mapping_options o = {}) {
    auto r = uri_to_ct(uri, o);
    EXPECT_TRUE(r.ok()) << uri << ": " << r.error << ": " << r.message;
    return r.value.text;
}

TEST(Cturi, AllVectors) {
    auto file = load_vectors("cturi.json");
    std::size_t n = 0;
    std::set<std::string> ids;
    for (auto& v : file["vectors"]) {
        std::string id = v["id"].get<std::string>();
        SCOPED_TRACE(id);
        EXPECT_TRUE(ids.insert(id).second) << "duplicate id";
        std::string dir = v["direction"].get<std::string>();
        std::string in = octets(v["input"]);
        std::vector<diagnostic> diags;
        result<mapping> got;
        if (dir == "ct2uri") {
            got = ct_to_uri(in, {}, &diags);
        } else {
            ASSERT_EQ(dir, "uri2ct");
            got = uri_to_ct(in, {}, &diags);
        }
        if (v.contains("expected_error")) {
            EXPECT_FALSE(got.ok()) << "got " << got.value.text;
            EXPECT_EQ(got.error, v["expected_error"].get<std::string>());
            EXPECT_FALSE(got.message.empty());
        } else {
            ASSERT_TRUE(got.ok()) << got.error << ": " << got.message;
            EXPECT_EQ(got.value.text, octets(v["expected"]));
            if (v.contains("rule")) {
                EXPECT_EQ(rule_name(got.value.rule), v["rule"].get<std::string>());
            }
        }
        ++n;
    }
    EXPECT_EQ(n, 77u);
}

TEST(Cturi, RuleNames_CTURI_6_2) {
    EXPECT_EQ(rule_name(mapping_rule::basic), "basic");
    EXPECT_EQ(rule_name(mapping_rule::closure), "closure");
    EXPECT_EQ(rule_name(mapping_rule::controlled), "controlled");
}

TEST(Cturi, CTURI_1_2_1_OnlyAbsoluteUrisAreMappable) {
    for (std::string_view u : {"tag42", "/a", "", "//host/x", "1http://x", ":x", "a b:c", "?q=1"}) {
        SCOPED_TRACE(u);
        auto r = uri_to_ct(u);
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.error, "not_absolute");
    }
    EXPECT_EQ(uri2ct("a+b.c-d:x"), "application/uri.a+b.c-d%3Ax");
}

TEST(Cturi, CTURI_1_2_1_FictitiousSchemeIsAbsolute) {
    // `this_message:` (and RFC 2557's `thismessage:`) is absolute for uri::is_absolute, so
    // it is mappable like any absolute URI, both ways.
    for (std::string_view u :
         {"this_message:/a.gif", "THIS_MESSAGE:/dir/a.gif?x=\"1\"#f", "thismessage:/a.gif"}) {
        SCOPED_TRACE(u);
        EXPECT_TRUE(is_absolute(u));
        auto ct = uri_to_ct(u);
        ASSERT_TRUE(ct.ok()) << ct.error << ": " << ct.message;
        EXPECT_EQ(ct.value.rule, mapping_rule::basic);
        EXPECT_EQ(ct2uri(ct.value.text), u);
    }
    EXPECT_EQ(uri2ct("this_message:/a.gif"), "application/uri.this_message%3A%2Fa.gif");
    EXPECT_EQ(ct2uri("application/uri.this_message%3A%2Fa.gif"), "this_message:/a.gif");
    // With controlled mapping: a URI-Body in the alias form is absolute too.
    EXPECT_EQ(ct2uri("image/gif; URI-Body=\"this_message:/a.gif\""),
              "this_message:/a.gif?MIME-Type=\"image/gif\"");
    EXPECT_EQ(uri_to_ct("this_message:/a.gif?MIME-Type=\"image/gif\"").value.rule,
              mapping_rule::controlled);
    // uri_to_ct accepts exactly what uri::is_absolute calls absolute.
    for (std::string_view u :
         {"this_message:/a", "thismessage:/a", "x:", "a+b.c-d:x", "tag42", "/a", "", "//h/x",
          "1http://x", ":x", "a b:c", "?q=1", "_x:y", "this_message", "this-message:/a", "a/b:c"}) {
        SCOPED_TRACE(u);
        EXPECT_EQ(uri_to_ct(u).ok(), is_absolute(u));
    }
}

TEST(Cturi, CTURI_1_2_2_FragmentsAreMappable) {
    EXPECT_EQ(uri2ct("xyz://abc.test/def#lmn"),
              "application/uri.xyz%3A%2F%2Fabc.test%2Fdef; URI-Fragment=\"lmn\"");
}

TEST(Cturi, CTURI_1_2_4_FoldingIsPresentation) {
    const std::string want = "ContentType:text/plain?charset=\"us-ascii\"&x-a=\"1\"";
    EXPECT_EQ(ct2uri("text/plain; charset=\"us-ascii\"; x-a=\"1\""), want);
    EXPECT_EQ(ct2uri("text/plain; charset=\"us-ascii\";\r\n x-a=\"1\""), want);
    EXPECT_EQ(ct2uri("text/plain; charset=\"us-ascii\";\n\tx-a=\"1\""), want);
    EXPECT_EQ(ct2uri("text/plain (comment); charset=(c) \"us-ascii\"; x-a=1 (end)"), want);
}

TEST(Cturi, CTURI_1_3_1_ConversionIsReversed) {
    const std::string u = "http://example.com/tag42";
    EXPECT_EQ(ct2uri(uri2ct(u)), u);
    EXPECT_EQ(uri2ct(ct2uri("image/jpeg")), "image/jpeg");
    // Repeated conversion never grows the label.
    std::string a = "mailto:U@example.net?subject=\"misc\"&body=\"line1%0D%0Aline2\"";
    for (int i = 0; i < 3; ++i) a = ct2uri(uri2ct(a));
    EXPECT_EQ(a, "mailto:U@example.net?subject=\"misc\"&body=\"line1%0D%0Aline2\"");
}

TEST(Cturi, CTURI_2_1_1_5_ContentTypeSlashSlashIsReserved) {
    for (std::string_view u : {"ContentType://text/plain", "contenttype://x", "CONTENTTYPE://"}) {
        SCOPED_TRACE(u);
        auto r = uri_to_ct(u);
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.error, "reserved_form");
    }
    // The writer never emits the form: a type is a non-empty token.
    for (std::string_view ct : {"text/plain", "a/b; x=\"//\"", "%2F/x"}) {
        SCOPED_TRACE(ct);
        EXPECT_FALSE(ct2uri(ct).starts_with("ContentType://"));
    }
    // Only the scheme ContentType is reserved.
    EXPECT_EQ(uri2ct("Content-Type://x"), "application/uri.Content-Type%3A%2F%2Fx");
}

TEST(Cturi, CTURI_2_1_1_3_SchemeAnyCaseOnRead) {
    auto r = uri_to_ct("cOnTeNtTyPe:text/plain");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value.text, "text/plain");
    EXPECT_EQ(r.value.rule, mapping_rule::closure);
    EXPECT_TRUE(ct2uri("TEXT/PLAIN").starts_with("ContentType:"));
}

TEST(Cturi, InvalidContentType) {
    for (std::string_view ct :
         {"text", "", "/plain", "text/", "(only a comment)", "\"text/plain\""}) {
        SCOPED_TRACE(ct);
        auto r = ct_to_uri(ct);
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.error, "invalid_content_type");
    }
    // §2.4 must give a Content-Type: no type/subtype, or a query pair that is no parameter.
    for (std::string_view u : {"ContentType:text", "ContentType:", "ContentType:a/b/c",
                               "ContentType:a%20b/c", "ContentType:text/plain?flag",
                               "ContentType:text/plain?=x", "ContentType:text/plain?a%3Bb=1"}) {
        SCOPED_TRACE(u);
        auto r = uri_to_ct(u);
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.error, "invalid_content_type");
    }
}

TEST(Cturi, CTURI_2_4_1_StructuralSplitAndQuotes) {
    // E-27: `"` and `%22` are alike; an unquoted value is quoted; empty pairs give nothing.
    EXPECT_EQ(uri2ct("ContentType:text/plain?a=%22x%22&b=y&&c=\"\""),
              "text/plain; a=\"x\"; b=\"y\"; c=\"\"");
    EXPECT_EQ(uri2ct("ContentType:text/plain?"), "text/plain");
    // Values are re-quoted with `\` escapes where the textual rule would break the field.
    EXPECT_EQ(uri2ct("ContentType:text/plain?a=\"%22%5C;%3B\""), "text/plain; a=\"\\\"\\\\;;\"");
    // The type is decoded one level and keeps its case.
    EXPECT_EQ(uri2ct("ContentType:Text/x%25y"), "Text/x%y");
}

TEST(Cturi, CTURI_2_4_3_FragmentOnContentTypeUriIsNoted) {
    std::vector<diagnostic> diags;
    auto r = uri_to_ct("ContentType:text/plain#x", {}, &diags);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value.text, "text/plain; URI-Fragment=\"x\"");
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::contenttype_uri_fragment);
    EXPECT_EQ(diags[0].sev, severity::note);
    EXPECT_EQ(diags[0].offset, 22u);
    EXPECT_TRUE(diags[0].part_path.empty());
    EXPECT_FALSE(diags[0].message.empty());
    // Basic mapping never makes one, so its output gives no diagnostic.
    diags.clear();
    ASSERT_TRUE(uri_to_ct(ct2uri("text/plain; a=\"#\""), {}, &diags).ok());
    EXPECT_TRUE(diags.empty());
}

// Builds random Content-Types whose canonical form is known, in the textual forms real
// producers use (case, white space, comments, folding, tokens or quoted strings).
class ct_generator {
public:
    explicit ct_generator(std::uint32_t seed) : rng_(seed) {}

    struct sample {
        std::string text;
        std::string canonical;
    };

    sample next() {
        sample s;
        std::string type = token(tchars_, 1, 10);
        std::string subtype;
        do subtype = token(tchars_, 1, 16);
        while (lower(subtype).starts_with("uri."));  // §2.3 would apply instead
        s.text = cfws() + random_case(type) + maybe(" ") + "/" + maybe(" ") + random_case(subtype);
        s.canonical = lower(type) + "/" + lower(subtype);
        std::set<std::string> names;
        int count = pick(0, 4);
        for (int k = 0; k < count; ++k) {
            std::string name;
            do name = token(name_chars_, 1, 12);
            while (!names.insert(lower(name)).second || lower(name) == "uri-body");
            std::string value = random_value();
            s.text += maybe(" ") + ";" + cfws() + random_case(name) + maybe(" ") + "=" + maybe(" ");
            bool is_token = !value.empty() && value.find_first_not_of(tchars_) == std::string::npos;
            s.text += is_token && pick(0, 1) ? value : quoted(value);
            s.canonical += "; " + lower(name) + "=" + quoted(value);
        }
        if (pick(0, 5) == 0) s.text += ";";
        s.text += cfws();
        return s;
    }

private:
    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    std::string maybe(const char* s) { return pick(0, 2) == 0 ? s : ""; }
    std::string cfws() {
        switch (pick(0, 6)) {
            case 0:
                return " ";
            case 1:
                return "\r\n ";
            case 2:
                return "\n\t";
            case 3:
                return " (a comment; with \\) \"quotes\") ";
            default:
                return "";
        }
    }
    std::string token(std::string_view chars, int lo, int hi) {
        std::string t;
        for (int n = pick(lo, hi); n > 0; --n)
            t += chars[std::size_t(pick(0, int(chars.size()) - 1))];
        return t;
    }
    std::string random_case(std::string s) {
        for (char& c : s)
            if (pick(0, 1)) c = char(std::toupper(static_cast<unsigned char>(c)));
        return s;
    }
    static std::string lower(std::string s) {
        for (char& c : s)
            if (c >= 'A' && c <= 'Z') c = char(c + 32);
        return s;
    }
    std::string random_value() {
        static constexpr std::string_view specials = "\"\\&%#=;? /()<>@,:[]'*\t{}|~";
        std::string v;
        for (int n = pick(0, 12); n > 0; --n) {
            switch (pick(0, 5)) {
                case 0:
                    v += specials[std::size_t(pick(0, int(specials.size()) - 1))];
                    break;
                case 1:
                    v += char(pick(0x80, 0xFF));
                    break;
                case 2:
                    v += "%4" + std::string(1, "1aF"[pick(0, 2)]);  // looks %-encoded already
                    break;
                default:
                    v += tchars_[std::size_t(pick(0, int(tchars_.size()) - 1))];
            }
        }
        return v;
    }
    static std::string quoted(std::string_view v) {
        std::string q = "\"";
        for (char c : v) {
            if (c == '"' || c == '\\') q += '\\';
            q += c;
        }
        return q + '"';
    }

    std::mt19937 rng_;
    // RFC 2045 token characters (`*` left out of names: it would mean RFC 2231).
    std::string tchars_ =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`{|}~";
    std::string name_chars_ =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'+-.^_`{|}~";
};

TEST(Cturi, CTURI_2_4_2_RoundTripProperty) {
    ct_generator gen(20010201);
    for (int i = 0; i < 5000; ++i) {
        auto s = gen.next();
        SCOPED_TRACE(testing::Message() << "sample " << i << ": " << s.text);
        std::vector<diagnostic> diags;
        auto uri = ct_to_uri(s.text, {}, &diags);
        ASSERT_TRUE(uri.ok()) << uri.error << ": " << uri.message;
        EXPECT_EQ(uri.value.rule, mapping_rule::basic);
        EXPECT_TRUE(uri.value.text.starts_with("ContentType:"));
        // The URI has no raw space, CTL, 8-bit octet or backslash, and one '#' at most (none).
        for (char c : uri.value.text) {
            auto u = static_cast<unsigned char>(c);
            ASSERT_TRUE(u > 0x20 && u < 0x7f && c != '\\' && c != '#') << uri.value.text;
        }
        auto back = uri_to_ct(uri.value.text, {}, &diags);
        ASSERT_TRUE(back.ok()) << uri.value.text << ": " << back.error << ": " << back.message;
        EXPECT_EQ(back.value.rule, mapping_rule::closure);
        ASSERT_EQ(back.value.text, s.canonical) << "via " << uri.value.text;
        EXPECT_TRUE(diags.empty());
        // The canonical form is a fixed point.
        auto again = ct_to_uri(back.value.text);
        ASSERT_TRUE(again.ok());
        EXPECT_EQ(again.value.text, uri.value.text);
    }
}

TEST(Cturi, CTURI_1_3_1_UriRoundTripProperty) {
    // The other direction: a URI in the draft's form (query values quoted) comes back from
    // ct_to_uri(uri_to_ct(u)) octet for octet, whatever its path holds, whatever names its
    // query repeats (in any case), and whichever of the mapping's own names (URI-Fragment,
    // URI-Body, MIME-Type) it uses; with controlled mapping on and off. A URI holding a
    // control character is no URI: the way back fails with "control_char" instead.
    std::mt19937 rng(3986);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const std::string path_chars = "abcXYZ019-._~!$&'()*+,;=:@/%[]\"\\<> {}|^`\t\x7f\x01\xe9\xff";
    const std::string name_chars = "abcXYZ019-._~!$'()*+,;:@/%[]\\<> {}|^`\xe9";
    const std::string value_chars = "abcXYZ019-._~!$'()*+,;=:@/%?[]\\<> {}|^`\t\xe9\xff";
    const std::string no_slash_chars = "abcXYZ019-._~!$'()*+,;=:@%?[]\\<> {}|^`\t\xe9\xff";
    const std::string flag_chars = "abcXYZ019-._~!$'()*+,;:@/%?[]\\<> {}|^`\t\xe9";
    const std::vector<std::string> special_names = {"URI-Fragment",
                                                    "uri-fragment",
                                                    "Uri-FRAGMENT",
                                                    "URI-Body",
                                                    "uri-body",
                                                    "URI-BODY",
                                                    "MIME-Type",
                                                    "mime-type",
                                                    "Mime-TYPE",
                                                    "a",
                                                    "A",
                                                    "b",
                                                    "%41",
                                                    "a*"};
    auto draw = [&](const std::string& from, int lo, int hi) {
        std::string s;
        for (int n = pick(lo, hi); n > 0; --n)
            s += from[std::size_t(pick(0, int(from.size()) - 1))];
        return s;
    };
    auto has_ctl = [](std::string_view s, bool htab_ok = false) {
        return std::any_of(s.begin(), s.end(), [htab_ok](char c) {
            auto u = static_cast<unsigned char>(c);
            return (u < 0x20 || u == 0x7f) && !(htab_ok && c == '\t');
        });
    };
    auto lower = [](std::string s) {
        for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    std::size_t kept_in_subtype = 0, controlled = 0, refused = 0;
    for (int i = 0; i < 6000; ++i) {
        std::string u = draw("abcxyz", 1, 6) + (pick(0, 1) ? "://" : ":") + draw(path_chars, 0, 20);
        if (u.starts_with("contenttype:")) continue;
        if (pick(0, 3) == 0) {
            u += '?';
            u += draw(flag_chars, 0, 8);  // no '=': not name=value pairs
        } else {
            char sep = '?';
            if (pick(0, 3) == 0) {
                // Controlled mapping's form: MIME-Type first, lower-case type/subtype, quoted.
                u += "?MIME-Type=\"" + draw("abcxyz", 1, 4) + "/" + draw("abcxyz", 1, 4) + "\"";
                sep = '&';
            }
            for (int n = pick(0, 4); n > 0; --n) {
                // Names repeat (any case) and include the mapping's own; values of other
                // MIME-Types hold no '/', so they never read as a media type.
                std::string name =
                    pick(0, 1) ? special_names[std::size_t(pick(0, int(special_names.size()) - 1))]
                               : draw(name_chars, 1, 6);
                bool mime = lower(name) == "mime-type";
                u += sep + name + "=\"" + draw(mime ? no_slash_chars : value_chars, 0, 8) + "\"";
                sep = '&';
            }
        }
        if (pick(0, 2) == 0) {
            u += '#';
            u += draw(value_chars, 0, 6);
        }
        for (bool ctl : {true, false}) {
            SCOPED_TRACE(testing::Message()
                         << "sample " << i << " controlled " << ctl << ": " << u);
            const mapping_options opts{.controlled = ctl};
            auto ct = uri_to_ct(u, opts);
            if (!ct.ok()) {
                // Only controlled mapping copies the URI's body verbatim.
                EXPECT_EQ(ct.error, "control_char");
                EXPECT_TRUE(ctl && has_ctl(u));
                ++refused;
                continue;
            }
            EXPECT_FALSE(has_ctl(ct.value.text, true)) << ct.value.text;
            auto back = ct_to_uri(ct.value.text, opts);
            if (has_ctl(u)) {
                EXPECT_FALSE(back.ok()) << back.value.text;
                EXPECT_EQ(back.error, "control_char") << ct.value.text;
                ++refused;
                continue;
            }
            ASSERT_TRUE(back.ok()) << ct.value.text << ": " << back.error << ": " << back.message;
            if (ct.value.rule == mapping_rule::controlled) {
                EXPECT_TRUE(ctl);
                EXPECT_EQ(back.value.rule, mapping_rule::controlled);
                ++controlled;
            } else {
                EXPECT_EQ(ct.value.rule, mapping_rule::basic);
                EXPECT_EQ(back.value.rule, mapping_rule::closure);
                std::size_t q = u.find('?');
                std::string query = q == std::string::npos ? "" : u.substr(q, u.find('#') - q);
                std::string subtype = ct.value.text.substr(0, ct.value.text.find(';'));
                if (query.find('=') != std::string::npos &&
                    subtype.find("%3F") != std::string::npos)
                    ++kept_in_subtype;
            }
            ASSERT_EQ(back.value.text, u) << "via " << ct.value.text;
        }
    }
    // The generator reaches every path.
    EXPECT_GT(kept_in_subtype, 100u);
    EXPECT_GT(controlled, 100u);
    EXPECT_GT(refused, 100u);
}

TEST(Cturi, CTURI_2_3_2_ClosureKeepsNamesAsWritten) {
    // Query names are case-sensitive in URIs; only the parser's lookups fold case.
    EXPECT_EQ(ct2uri("application/uri.http%3A%2F%2Fx.test; Foo=\"1\"; uri-fragment=\"Z\""),
              "http://x.test?Foo=\"1\"#Z");
    EXPECT_EQ(ct2uri(uri2ct("http://x.test/?A=\"1\"&bC=\"2\"")), "http://x.test/?A=\"1\"&bC=\"2\"");
}

TEST(Cturi, CTURI_2_3_ClosureNeedsAnAbsoluteUri) {
    for (std::string_view ct : {"application/uri.", "application/uri.tag42", "text/uri.%2Fa"}) {
        SCOPED_TRACE(ct);
        auto r = ct_to_uri(ct);
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.error, "not_absolute");
    }
}

TEST(Cturi, CTURI_2_3_2_ParserIssuesAreReported) {
    std::vector<diagnostic> diags;
    auto r = ct_to_uri("text/plain; a=b c=d; e=<x@y>", {}, &diags);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value.text, "ContentType:text/plain?a=\"b\"&c=\"d\"&e=\"<x@y>\"");
    auto cs = codes_of(diags);
    EXPECT_NE(std::find(cs.begin(), cs.end(), diag_code::missing_parameter_separator), cs.end());
    EXPECT_NE(std::find(cs.begin(), cs.end(), diag_code::parameter_needs_quoting), cs.end());
}

TEST(Cturi, CTURI_3_1_ControlledMappingCanBeTurnedOff) {
    const mapping_options off{.controlled = false};
    auto r = uri_to_ct("http://xml.example?MIME-Type=\"application/xml\"", off);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value.text,
              "application/uri.http%3A%2F%2Fxml.example; MIME-Type=\"application%2Fxml\"");
    EXPECT_EQ(r.value.rule, mapping_rule::basic);

    auto u = ct_to_uri("application/xml; URI-Body=\"http://xml.example\"", off);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(u.value.text, "ContentType:application/xml?uri-body=\"http://xml.example\"");
    EXPECT_EQ(u.value.rule, mapping_rule::basic);

    // With it off the basic mappings still reverse each other.
    EXPECT_EQ(uri2ct(u.value.text, off), "application/xml; uri-body=\"http://xml.example\"");
    EXPECT_EQ(ct2uri(r.value.text, off), "http://xml.example?MIME-Type=\"application/xml\"");
    // Closure does not depend on the flag.
    EXPECT_EQ(ct_to_uri("text/uri.a%3Ab", off).value.rule, mapping_rule::closure);
    EXPECT_EQ(uri_to_ct("ContentType:a/b", off).value.rule, mapping_rule::closure);
}

TEST(Cturi, CTURI_3_2_MimeTypeParameter) {
    auto r = uri_to_ct("mailto:joe@blow.test?MIME-Type=\"message/rfc822\"#123");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value.rule, mapping_rule::controlled);
    EXPECT_EQ(r.value.text,
              "message/rfc822; URI-Body=\"mailto:joe@blow.test\"; URI-Fragment=\"123\"");
    // Any case of the name; unquoted value; other parameters encoded as in §2.2.
    EXPECT_EQ(uri2ct("x:y?a=\"1@2\"&mime-type=text/plain"),
              "text/plain; URI-Body=\"x:y\"; a=\"1%402\"");
    // A MIME-Type that is not type/subtype is ignored, and said so.
    std::vector<diagnostic> diags;
    r = uri_to_ct("x:y?MIME-Type=\"nonsense\"", {}, &diags);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value.rule, mapping_rule::basic);
    EXPECT_EQ(r.value.text, "application/uri.x%3Ay; MIME-Type=\"nonsense\"");
    EXPECT_EQ(codes_of(diags), std::vector{diag_code::parameter_invalid});
    EXPECT_EQ(diags[0].offset, 4u);
    // A query that is not all pairs has no MIME-Type parameter.
    EXPECT_EQ(uri_to_ct("x:y?MIME-Type=\"a/b\"&flag").value.rule, mapping_rule::basic);
}

TEST(Cturi, CTURI_3_3_UriBodyParameter) {
    auto r = ct_to_uri(
        "Application/XML; charset=utf-8; URI-Body=\"http://xml.example\"; "
        "uri-fragment=\"f%20g\"");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value.rule, mapping_rule::controlled);
    EXPECT_EQ(r.value.text,
              "http://xml.example?MIME-Type=\"application/xml\"&charset=\"utf-8\"#f g");
    // A URI-Body that is not an absolute URI without a fragment is ignored, and said so.
    for (std::string_view body : {"relative/x", "http://a.test/#f", ""}) {
        SCOPED_TRACE(body);
        std::vector<diagnostic> diags;
        r = ct_to_uri("text/plain; URI-Body=\"" + std::string(body) + "\"", {}, &diags);
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r.value.rule, mapping_rule::basic);
        EXPECT_EQ(codes_of(diags), std::vector{diag_code::parameter_invalid});
    }
}

TEST(Cturi, CTURI_3_4_ClosureBeatsControlledMapping) {
    auto a = ct_to_uri("application/uri.http%3A%2F%2Fa.test; URI-Body=\"http://b.test\"");
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a.value.text, "http://a.test?URI-Body=\"http://b.test\"");
    EXPECT_EQ(a.value.rule, mapping_rule::closure);
    auto b = uri_to_ct("ContentType:text/plain?MIME-Type=\"x/y\"");
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b.value.text, "text/plain; MIME-Type=\"x/y\"");
    EXPECT_EQ(b.value.rule, mapping_rule::closure);
    // Upper-case `URI.` and `CONTENTTYPE` still beat them.
    EXPECT_EQ(ct_to_uri("text/URI.a%3Ab; uri-body=\"c:d\"").value.rule, mapping_rule::closure);
    EXPECT_EQ(uri_to_ct("CONTENTTYPE:a/b?mime-type=\"c/d\"").value.rule, mapping_rule::closure);
}

TEST(Cturi, CTURI_3_5_RepeatedMimeTypeFirstWins) {
    std::vector<diagnostic> diags;
    auto r = uri_to_ct("http://h.test/?MIME-Type=\"a/b\"&mime-type=\"c/d\"", {}, &diags);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value.rule, mapping_rule::controlled);
    EXPECT_EQ(r.value.text, "a/b; URI-Body=\"http://h.test/\"; mime-type=\"c%2Fd\"");
    ASSERT_EQ(codes_of(diags), std::vector{diag_code::mime_type_repeated});
    EXPECT_EQ(diags[0].offset, 31u);
    EXPECT_EQ(diags[0].sev, severity::warning);
    // Names are matched in any case and written in the draft's spelling.
    EXPECT_EQ(ct2uri("text/html; uri-BODY=\"http://a.test/\""),
              "http://a.test/?MIME-Type=\"text/html\"");
}

TEST(Cturi, CTURI_4_1_TroublesomeCharacters) {
    // §4: codes 0-32, 127 and ( ) < > @ , ; : \ / [ ] ? % = ; not '"' (but E-28 encodes it in
    // the subtype, and octets above 0x7F with it). Every octet, one at a time, in the path.
    const std::string_view listed = "()<>@,;:\\/[]?%=";
    for (int c = 0; c < 256; ++c) {
        if (c == '#' || c == '?') continue;  // these end the path
        SCOPED_TRACE(c);
        std::string ch(1, char(c));
        bool troublesome = c <= 32 || c >= 127 || listed.find(char(c)) != std::string_view::npos;
        static constexpr char hex[] = "0123456789ABCDEF";
        std::string enc = {'%', hex[c >> 4], hex[c & 15]};
        auto got = uri2ct("x:a" + ch + "b");
        EXPECT_EQ(got, "application/uri.x%3Aa" + (troublesome || c == '"' ? enc : ch) + "b");
        // In a query value '"' is not troublesome: it stays, as a quoted-pair.
        if (c != '&') {
            got = uri2ct("x:p?v=a" + ch + "b");
            std::string v = troublesome ? enc : c == '"' ? "\\\"" : ch;
            EXPECT_EQ(got, "application/uri.x%3Ap; v=\"a" + v + "b\"");
        }
    }
    EXPECT_EQ(uri2ct("http://a.test/x y"), "application/uri.http%3A%2F%2Fa.test%2Fx%20y");
    EXPECT_EQ(uri2ct("http://a.test/a.b-c_d~e*f'g!h"),
              "application/uri.http%3A%2F%2Fa.test%2Fa.b-c_d~e*f'g!h");
    // `*` in a query name is escaped so the Content-Type parser does not read RFC 2231.
    EXPECT_EQ(uri2ct("x:p?a*=\"1\""), "application/uri.x%3Ap; a%2A=\"1\"");
    EXPECT_EQ(ct2uri(uri2ct("x:p?a*=\"1\"&b*0=\"2\"")), "x:p?a*=\"1\"&b*0=\"2\"");
}

TEST(Cturi, CTURI_5_2_ControlledParametersDoNotBreakTheParser) {
    // The mapped Content-Types read back as what they say.
    auto r = ct_to_uri("text/html; URI-Body=\"x\"; charset=utf-8");
    ASSERT_TRUE(r.ok());  // "x" is no absolute URI: basic mapping, the parameters kept
    EXPECT_EQ(r.value.text, "ContentType:text/html?uri-body=\"x\"&charset=\"utf-8\"");
}

// --- control characters: header injection through one level of %-decoding ------------------

TEST(Cturi, BasicMappingRefusesValuesItCouldNotMapBack) {
    // A NUL (or another CTL but HTAB) in a parameter value: basic mapping would %-encode it,
    // and the closure would refuse to decode it into a Content-Type; refused up front
    // (found by fuzz_uri).
    auto r = ct_to_uri(std::string("text/plain; charset=\"u\0x\"", 25));
    EXPECT_FALSE(r.ok()) << r.value.text;
    EXPECT_EQ(r.error, "control_char");
    auto tab = ct_to_uri("text/plain; a=\"x\ty\"");
    ASSERT_TRUE(tab.ok()) << tab.message;
    EXPECT_TRUE(uri_to_ct(tab.value.text).ok());
}

TEST(Cturi, ControlCharNeverInContentType) {
    // Closure (§2.4) decodes values one level: %0D%0A would end the field and add one.
    std::vector<diagnostic> diags;
    auto r = uri_to_ct("ContentType:text/plain?a=\"x%0D%0ABcc:%20evil\"", {}, &diags);
    EXPECT_FALSE(r.ok()) << r.value.text;
    EXPECT_EQ(r.error, "control_char");
    EXPECT_NE(r.message.find("0x0D"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("(CR)"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("offset 1"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("\"a\""), std::string::npos) << r.message;
    EXPECT_TRUE(diags.empty());
    // Every CTL and DEL, escaped or raw, in a value or in the fragment; HTAB is white space
    // a field body may hold.
    static constexpr char hex[] = "0123456789ABCDEF";
    for (int c = 0; c < 0x80; ++c) {
        if (c >= 0x20 && c < 0x7f) continue;
        SCOPED_TRACE(c);
        std::string esc = {'%', hex[c >> 4], hex[c & 15]};
        for (const std::string& u :
             {"ContentType:text/plain?a=\"1" + esc + "2\"", "ContentType:text/plain?a=1" + esc,
              "ContentType:text/plain?a=\"1" + std::string(1, char(c)) + "\"",
              "ContentType:text/plain?b=2#x" + esc}) {
            auto got = uri_to_ct(u);
            if (c == '\t') {
                ASSERT_TRUE(got.ok()) << u << ": " << got.message;
                EXPECT_NE(got.value.text.find('\t'), std::string::npos);
            } else {
                EXPECT_FALSE(got.ok()) << u << " -> " << got.value.text;
                EXPECT_EQ(got.error, "control_char") << u;
                EXPECT_FALSE(got.message.empty());
            }
        }
    }
    // Controlled mapping (§3) copies the body verbatim.
    auto c = uri_to_ct(std::string("x:a\r\nBcc: evil?MIME-Type=\"text/plain\""));
    EXPECT_EQ(c.error, "control_char");
    EXPECT_NE(c.message.find("0x0D (CR) at offset 3"), std::string::npos) << c.message;
    diags.clear();  // no diagnostics from a mapping that fails
    EXPECT_EQ(uri_to_ct("x:a\nb?MIME-Type=\"a/b\"&mime-type=\"c\"", {}, &diags).error,
              "control_char");
    EXPECT_TRUE(diags.empty());
    EXPECT_EQ(uri_to_ct(std::string("x:a") + '\0' + "b?MIME-Type=\"text/plain\"").error,
              "control_char");
    // Basic mapping (§2.2) encodes them: nothing to refuse.
    EXPECT_EQ(uri2ct("x:a\r\nb?c=\"%0D%0A\"#%0A"),
              "application/uri.x%3Aa%0D%0Ab; c=\"%250D%250A\"; URI-Fragment=\"%250A\"");
    EXPECT_EQ(uri2ct(std::string("x:a\r\nb?MIME-Type=\"text/plain\""),
                     mapping_options{.controlled = false}),
              "application/uri.x%3Aa%0D%0Ab; MIME-Type=\"text%2Fplain\"");
}

TEST(Cturi, ControlCharNeverInUri) {
    auto r = ct_to_uri("application/uri.http%3A%2F%2Fx%2Fa%0Ab");
    EXPECT_FALSE(r.ok()) << r.value.text;
    EXPECT_EQ(r.error, "control_char");
    EXPECT_NE(r.message.find("0x0A (LF) at offset 10"), std::string::npos) << r.message;
    static constexpr char hex[] = "0123456789ABCDEF";
    for (int c = 0; c < 0x80; ++c) {
        if (c >= 0x20 && c < 0x7f) continue;
        SCOPED_TRACE(c);
        // HTAB too: no URI holds white space.
        std::string esc = {'%', hex[c >> 4], hex[c & 15]};
        for (const std::string& ct :
             {"application/uri.http%3A%2F%2Fx%2F" + esc,           // closure: the subtype
              "text/uri.x%3Ay; a=\"" + esc + "\"",                 // a parameter value
              "text/uri.x%3Ay; a" + esc + "=1",                    // a parameter name
              "text/uri.x%3Ay; URI-Fragment=" + esc,               // the fragment
              "text/plain; URI-Body=\"x:y\"; a=\"1" + esc + "\"",  // controlled
              "text/plain; URI-Body=\"x:y\"; URI-Fragment=" + esc}) {
            auto got = ct_to_uri(ct);
            EXPECT_FALSE(got.ok()) << ct << " -> " << got.value.text;
            EXPECT_EQ(got.error, "control_char") << ct;
            EXPECT_FALSE(got.message.empty());
        }
    }
    // Raw white space inside quoted values, and a URI-Body holding it.
    EXPECT_EQ(ct_to_uri("text/uri.x%3Ay; a=\"1\t2\"").error, "control_char");
    EXPECT_EQ(ct_to_uri("text/plain; URI-Body=\"x:y\tz\"").error, "control_char");
    // Basic mapping (§2.1) encodes them: nothing to refuse.
    EXPECT_EQ(ct2uri("text/plain; a=\"%0D%0A\t\""), "ContentType:text/plain?a=\"%250D%250A%09\"");
    // A control character is refused only where decoding makes one: %25 0A is "%0A".
    EXPECT_EQ(ct2uri("text/uri.x%3Ay%250A; a=\"%250D\""), "x:y%0A?a=\"%0D\"");
}

// --- closure never loses a query pair (CTURI-1.3.1) -----------------------------------------

TEST(Cturi, CTURI_1_3_1_RepeatedOrReservedQueryNamesStayInTheSubtype) {
    struct row {
        std::string_view uri, ct;
    };
    for (const row& r : std::initializer_list<row>{
             // A name twice: the Content-Type parser would keep the first one only.
             {"http://x/?a=1&a=2", "application/uri.http%3A%2F%2Fx%2F%3Fa%3D1&a%3D2"},
             {"http://x/?a=\"1\"&A=\"2\"",
              "application/uri.http%3A%2F%2Fx%2F%3Fa%3D%221%22&A%3D%222%22"},
             // URI-Fragment is the mapping's own: closure would make it the fragment.
             {"http://x/?URI-Fragment=q#f",
              "application/uri.http%3A%2F%2Fx%2F%3FURI-Fragment%3Dq; URI-Fragment=\"f\""},
             {"http://x/?uri-fragment=\"q\"",
              "application/uri.http%3A%2F%2Fx%2F%3Furi-fragment%3D%22q%22"},
             // MIME-Type twice, neither one a media type.
             {"http://x/?MIME-Type=\"a\"&mime-type=\"b\"",
              "application/uri.http%3A%2F%2Fx%2F%3FMIME-Type%3D%22a%22&mime-type%3D%22b%22"},
             // Controlled mapping: a URI-Body, a URI-Fragment or a name twice among the other
             // pairs. Basic mapping applies, and keeps them as it can.
             {"http://x/?MIME-Type=\"a/b\"&URI-Body=\"z\"",
              "application/uri.http%3A%2F%2Fx%2F; MIME-Type=\"a%2Fb\"; URI-Body=\"z\""},
             {"http://x/?MIME-Type=\"a/b\"&uri-body=\"z\"",
              "application/uri.http%3A%2F%2Fx%2F; MIME-Type=\"a%2Fb\"; uri-body=\"z\""},
             {"http://x/?MIME-Type=\"a/b\"&c=\"1\"&C=\"2\"",
              "application/"
              "uri.http%3A%2F%2Fx%2F%3FMIME-Type%3D%22a%2Fb%22&c%3D%221%22&C%3D%222%22"},
             {"http://x/?MIME-Type=\"a/b\"&URI-Fragment=\"q\"#f",
              "application/uri.http%3A%2F%2Fx%2F%3FMIME-Type%3D%22a%2Fb%22&URI-Fragment%3D%22q%22; "
              "URI-Fragment=\"f\""},
             {"http://x/?MIME-Type=\"a/b\"&mime-type=\"c\"&Mime-Type=\"d\"",
              "application/"
              "uri.http%3A%2F%2Fx%2F%3FMIME-Type%3D%22a%2Fb%22&mime-type%3D%22c%22&Mime-Type%3D%"
              "22d%22"},
         }) {
        SCOPED_TRACE(r.uri);
        std::vector<diagnostic> diags;
        auto ct = uri_to_ct(r.uri, {}, &diags);
        ASSERT_TRUE(ct.ok()) << ct.error;
        EXPECT_EQ(ct.value.text, r.ct);
        EXPECT_EQ(ct.value.rule, mapping_rule::basic);
        auto back = ct_to_uri(ct.value.text);
        ASSERT_TRUE(back.ok()) << back.error;
        EXPECT_EQ(back.value.rule, mapping_rule::closure);
        EXPECT_EQ(back.value.text, r.uri);
    }
    // Distinct names, and one repeated MIME-Type (CTURI-3.5), still make parameters.
    EXPECT_EQ(uri2ct("http://x/?a=1&b=2&URI-Body=3"),
              "application/uri.http%3A%2F%2Fx%2F; a=\"1\"; b=\"2\"; URI-Body=\"3\"");
    EXPECT_EQ(uri_to_ct("http://x/?MIME-Type=\"a/b\"&mime-type=\"c\"").value.rule,
              mapping_rule::controlled);
}

// --- linear in the number of parameters ---------------------------------------------------

TEST(Cturi, ManyParametersAreLinear) {
    // 40,000 parameters used to take seconds (each name's spelling looked up from the start).
    // No timing assertion: it must just finish.
    constexpr int n = 40000;
    std::string ct = "application/uri.http%3A%2F%2Fx";
    std::string want = "http://x";
    for (int i = 0; i < n; ++i) {
        std::string k = std::to_string(i);
        ct += "; P";
        ct += k;
        ct += "=\"";
        ct += k;
        ct += '"';
        want += i == 0 ? '?' : '&';
        want += 'P';
        want += k;
        want += "=\"";
        want += k;
        want += '"';
    }
    auto uri = ct_to_uri(ct);
    ASSERT_TRUE(uri.ok()) << uri.error;
    EXPECT_EQ(uri.value.rule, mapping_rule::closure);
    EXPECT_TRUE(uri.value.text == want);
    // And back: 40,000 query pairs, names checked for repeats once each.
    auto back = uri_to_ct(uri.value.text);
    ASSERT_TRUE(back.ok()) << back.error;
    EXPECT_TRUE(back.value.text.starts_with("application/uri.http%3A%2F%2Fx; P0=\"0\"; P1=\"1\""));
    EXPECT_TRUE(back.value.text.ends_with("; P39999=\"39999\""));
    // Controlled mapping reads the spellings the same way (fewer parameters: the
    // Content-Type parser's own duplicate check is what costs here).
    std::string few = ct.substr(ct.find(';'), ct.find("; P4000=") - ct.find(';'));
    auto ctl = ct_to_uri("text/plain; URI-Body=\"http://x\"" + few);
    ASSERT_TRUE(ctl.ok()) << ctl.error;
    EXPECT_EQ(ctl.value.rule, mapping_rule::controlled);
    EXPECT_TRUE(ctl.value.text.starts_with("http://x?MIME-Type=\"text/plain\"&P0=\"0\"&P1="));
    EXPECT_TRUE(ctl.value.text.ends_with("&P3999=\"3999\""));
}

}  // namespace
}  // namespace mhtml::uri
