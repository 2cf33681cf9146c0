// external::read, the model of message/external-body parts (RFC 2046 5.2.3, RFC 2017), and
// Content-MD5 (RFC 1864). Tests named after the URL-... rows they check.
#include "mhtml/external/body.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mhtml/archive/check.hpp"
#include "mhtml/mime/content_md5.hpp"
#include "mhtml/mime/document.hpp"

namespace mhtml::external {
namespace {

std::string crlf(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

// A message whose only body part is `part` (LF line ends made CRLF).
mime::document message_with(std::string_view part) {
    return mime::document::parse(crlf(std::string("MIME-Version: 1.0\n"
                                                  "Content-Type: multipart/mixed; boundary=b\n\n"
                                                  "--b\n") +
                                      std::string(part) + "\n--b--\n"));
}

struct read_result {
    std::optional<body> b;
    std::vector<diagnostic> diags;
    bool has(diag_code c) const {
        return std::any_of(diags.begin(), diags.end(),
                           [&](const diagnostic& d) { return d.code == c; });
    }
};

read_result read_part(const mime::document& doc) {
    read_result r;
    for (const mime::part_view& p : doc.parts())
        if (p.content_type().is("message", "external-body")) {
            r.b = read(doc, p, &r.diags);
            break;
        }
    return r;
}

TEST(ExternalBody, URL_3_0_4_TheSeedExample) {
    const mime::document doc = message_with(
        "Content-type: message/external-body; access-type=URL;\n"
        "              URL=\"http://www.foo.com/file\"\n\n"
        "Content-type: text/html\nContent-Transfer-Encoding: binary\n\n"
        "THIS IS NOT REALLY THE BODY!\n");
    const read_result r = read_part(doc);
    ASSERT_TRUE(r.b);
    EXPECT_EQ(r.b->kind, access::url);
    EXPECT_EQ(r.b->access_type, "url");
    EXPECT_EQ(r.b->url, "http://www.foo.com/file");
    EXPECT_TRUE(r.b->retrievable_url());
    EXPECT_EQ(r.b->type.essence(), "text/html");
    EXPECT_TRUE(r.b->type_given);
    EXPECT_EQ(r.b->encoding, mime::transfer_encoding::binary);
    EXPECT_FALSE(r.b->content_id);
    EXPECT_TRUE(r.has(diag_code::external_body_without_content_id));  // E-2, a note
    EXPECT_TRUE(r.has(diag_code::external_phantom_body));             // URL-3.0.3
    EXPECT_EQ(r.b->offset, doc.bytes().find("Content-type: message/external-body"));
    for (const diagnostic& d : r.diags) {
        EXPECT_EQ(d.sev, severity::note) << d.message;
        EXPECT_EQ(d.part_path, "1");
    }
}

TEST(ExternalBody, URL_3_1_5_TheFoldedSeedExampleIsExtractedNotDecoded) {
    const read_result r =
        read_part(message_with("Content-type: message/external-body; access-type=URL;\n"
                               "              URL=\"ftp://ftp.deepdirs.org/1/2/3/4/5/6/7/\n"
                               "                   8/9/10/11/12/13/14/15/16/17/18/20/21/\n"
                               "                   file.html\"\n\n"
                               "Content-type: text/html\nContent-Transfer-Encoding: binary\n\n"));
    ASSERT_TRUE(r.b);
    EXPECT_EQ(
        r.b->url,
        "ftp://ftp.deepdirs.org/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/20/21/file.html");
    EXPECT_FALSE(r.has(diag_code::external_phantom_body));  // a blank phantom body
    const read_result escaped = read_part(message_with(
        "Content-Type: message/external-body; access-type=URL; URL=\"http://h/a%20b\"\n\n"
        "Content-Type: text/plain\nContent-ID: <a@b>\n\n"));
    EXPECT_EQ(escaped.b->url, "http://h/a%20b");
    EXPECT_TRUE(escaped.diags.empty());
}

TEST(ExternalBody, URL_3_0_1_AccessTypeIsCaseInsensitive) {
    for (const char* at : {"access-type=url", "ACCESS-TYPE=\"URL\"", "access-type=Url"}) {
        SCOPED_TRACE(at);
        const read_result r = read_part(message_with(
            std::string("Content-Type: message/external-body; ") + at +
            "; url=\"http://x.example/\"\n\nContent-Type: text/plain\nContent-ID: <a@b>\n\n"));
        ASSERT_TRUE(r.b);
        EXPECT_EQ(r.b->kind, access::url);
        EXPECT_EQ(r.b->url, "http://x.example/");
        EXPECT_TRUE(r.diags.empty());
    }
    const read_result none = read_part(
        message_with("Content-Type: message/external-body; url=\"http://x.example/\"\n\n"));
    ASSERT_TRUE(none.b);
    EXPECT_EQ(none.b->kind, access::missing);
    EXPECT_TRUE(none.has(diag_code::access_type_missing));
    const read_result other =
        read_part(message_with("Content-Type: message/external-body; access-type=x-custom\n\n"));
    EXPECT_EQ(other.b->kind, access::other);
    EXPECT_EQ(other.b->access_type, "x-custom");
}

TEST(ExternalBody, URL_3_0_2_AMissingUrlParameterIsReported) {
    const read_result r =
        read_part(message_with("Content-Type: message/external-body; access-type=URL\n\n"
                               "Content-Type: text/plain\nContent-ID: <a@b>\n\n"));
    ASSERT_TRUE(r.b);
    EXPECT_FALSE(r.b->url);
    EXPECT_FALSE(r.b->retrievable_url());
    ASSERT_TRUE(r.has(diag_code::url_parameter_missing));
    // RFC 2046's mandatory parameters of the other access-types.
    EXPECT_TRUE(read_part(message_with("Content-Type: message/external-body; access-type=anon-ftp; "
                                       "name=\"a.txt\"\n\n"))
                    .has(diag_code::external_parameter_missing));  // no site
    EXPECT_TRUE(
        read_part(message_with("Content-Type: message/external-body; access-type=mail-server\n\n"))
            .has(diag_code::external_parameter_missing));  // no server
    EXPECT_FALSE(
        read_part(message_with("Content-Type: message/external-body; access-type=local-file; "
                               "name=\"/a\"\n\nContent-ID: <a@b>\n\n"))
            .has(diag_code::external_parameter_missing));
}

TEST(ExternalBody, URL_2_2_ANonRetrievingSchemeIsReportedAndNotRetrievable) {
    for (const char* url : {"mailto:a@b.example", "telnet://h.example/", "news:comp.mail.mime",
                            "x-unknown:abc", "file:///etc/passwd"}) {
        SCOPED_TRACE(url);
        const read_result r = read_part(message_with(
            std::string("Content-Type: message/external-body; access-type=URL; URL=\"") + url +
            "\"\n\nContent-Type: text/plain\nContent-ID: <a@b>\n\n"));
        ASSERT_TRUE(r.b);
        EXPECT_EQ(r.b->url, url);
        EXPECT_FALSE(r.b->retrievable_url());
        EXPECT_TRUE(r.has(diag_code::url_not_retrievable));
    }
    EXPECT_TRUE(retrieving_scheme("HTTPS://x.example/"));
    EXPECT_TRUE(retrieving_scheme("ftp://x.example/f"));
    EXPECT_FALSE(retrieving_scheme("https"));
}

TEST(ExternalBody, URL_3_1_7_UnquotedAndContinuedUrlsReadAsTheQuotedForm) {
    const read_result unquoted = read_part(
        message_with("Content-Type: message/external-body; access-type=URL; URL=http://x/y\n\n"
                     "Content-Type: text/plain\nContent-ID: <a@b>\n\n"));
    EXPECT_EQ(unquoted.b->url, "http://x/y");
    EXPECT_TRUE(unquoted.has(diag_code::url_parameter_unquoted));
    const read_result continued = read_part(message_with(
        "Content-Type: message/external-body; access-type=URL; URL*0=\"http://x/\"; URL*1=\"y\"\n\n"
        "Content-Type: text/plain\nContent-ID: <a@b>\n\n"));
    EXPECT_EQ(continued.b->url, "http://x/y");
    EXPECT_TRUE(continued.has(diag_code::url_parameter_continued));
    EXPECT_FALSE(continued.has(diag_code::url_parameter_unquoted));
    // A quoted URL after a parameter whose quoted value holds "url=" is still quoted.
    const read_result tricky = read_part(
        message_with("Content-Type: message/external-body; name=\"; url=x\"; access-type=URL;\n"
                     " URL=\"http://x/z\"\n\nContent-Type: text/plain\nContent-ID: <a@b>\n\n"));
    EXPECT_EQ(tricky.b->url, "http://x/z");
    EXPECT_FALSE(tricky.has(diag_code::url_parameter_unquoted));
    // A word over 40 characters: extracted anyway, and said (URL-3.1.1).
    const read_result long_word = read_part(
        message_with("Content-Type: message/external-body; access-type=URL;\n"
                     " URL=\"http://x.example/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n\n"
                     "Content-Type: text/plain\nContent-ID: <a@b>\n\n"));
    EXPECT_EQ(long_word.b->url, "http://x.example/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    EXPECT_TRUE(long_word.has(diag_code::url_word_too_long));
}

TEST(ExternalBody, SizeExpirationAndTheEncapsulatedHeader) {
    const read_result r = read_part(message_with(
        "Content-Type: message/external-body; access-type=anon-ftp; name=\"f.ps\";\n"
        " site=\"h.example\"; directory=pub; mode=image; size=12345;\n"
        " expiration=\"Fri, 14 Jun 1991 19:13:14 -0400 (EDT)\"; permission=read\n\n"
        "Content-Type: application/postscript\nContent-ID: <id42@x>\n"
        "Content-MD5: XUFAKrxLKna5cZ2REBfFkg==\nContent-Transfer-Encoding: base64\n\n"));
    ASSERT_TRUE(r.b);
    EXPECT_EQ(r.b->kind, access::anon_ftp);
    EXPECT_EQ(r.b->name, "f.ps");
    EXPECT_EQ(r.b->site, "h.example");
    EXPECT_EQ(r.b->directory, "pub");
    EXPECT_EQ(r.b->mode, "image");
    EXPECT_EQ(r.b->permission, "read");
    EXPECT_EQ(r.b->size, 12345u);
    EXPECT_EQ(r.b->expires_at, 676941194);  // 1991-06-14T23:13:14Z
    EXPECT_EQ(r.b->type.essence(), "application/postscript");
    EXPECT_EQ(r.b->encoding, mime::transfer_encoding::base64);
    EXPECT_EQ(r.b->content_id, "<id42@x>");
    EXPECT_EQ(r.b->content_md5, "XUFAKrxLKna5cZ2REBfFkg==");
    EXPECT_TRUE(r.diags.empty());

    const read_result bad = read_part(message_with(
        "Content-Type: message/external-body; access-type=URL; URL=\"http://x/\"; size=12k;\n"
        " expiration=\"next week\"\n\n"));
    EXPECT_FALSE(bad.b->size);
    EXPECT_FALSE(bad.b->expires_at);
    EXPECT_TRUE(bad.has(diag_code::external_size_invalid));
    EXPECT_TRUE(bad.has(diag_code::external_expiration_invalid));
    // No encapsulated header at all: the RFC 2045 default type.
    EXPECT_EQ(bad.b->type.essence(), "text/plain");
    EXPECT_FALSE(bad.b->type_given);
}

TEST(ExternalBody, DatesOfRfc5322AndItsObsoleteForms) {
    EXPECT_EQ(parse_date_time("Thu, 01 Jan 1970 00:00:00 +0000"), 0);
    EXPECT_EQ(parse_date_time("1 Jan 1970 01:00 +0100"), 0);
    EXPECT_EQ(parse_date_time("Fri, 14 Jun 1991 19:13:14 EDT"), 676941194);
    EXPECT_EQ(parse_date_time("14 jun 91 23:13:14 GMT"), 676941194);  // two-digit year
    EXPECT_EQ(parse_date_time("Tue, 29 Feb 2028 12:00:00 -0000"), 1835438400);
    EXPECT_EQ(parse_date_time("Sat, 1 Jan 2000 00:00:00 (no zone)"), 946684800);
    EXPECT_FALSE(parse_date_time("31 Feb 2020 00:00:00 +0000"));
    EXPECT_FALSE(parse_date_time("29 Feb 2023 00:00:00 +0000"));  // not a leap year
    EXPECT_TRUE(parse_date_time("29 Feb 2000 00:00:00 +0000"));
    EXPECT_FALSE(parse_date_time("1 Jan 2020 00:00:00 +0160"));  // 60 minutes
    EXPECT_FALSE(parse_date_time("1 Foo 2020 00:00:00 +0000"));
    EXPECT_FALSE(parse_date_time("1 Jan 2020 25:00:00 +0000"));
    EXPECT_FALSE(parse_date_time("1 Jan 2020 00:00:00 +01"));
    EXPECT_FALSE(parse_date_time(""));
}

TEST(ExternalBody, URL_4_1_ContentMd5OfAnyPartIsCompared) {
    const mime::document doc = message_with(
        "Content-Type: application/octet-stream\nContent-MD5: XUFAKrxLKna5cZ2REBfFkg==\n\nhello");
    const mime::part_view p = doc.part(1);
    std::vector<diagnostic> diags;
    EXPECT_EQ(check_content_md5(doc, p, &diags), true);
    EXPECT_TRUE(diags.empty());
    const mime::document wrong = message_with(
        "Content-Type: application/octet-stream\nContent-MD5: XUFAKrxLKna5cZ2REBfFkg==\n\nhellp");
    EXPECT_EQ(check_content_md5(wrong, wrong.part(1), &diags), false);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::content_md5_mismatch);
    EXPECT_EQ(diags[0].offset, wrong.bytes().find("Content-MD5"));
    diags.clear();
    const mime::document malformed =
        message_with("Content-Type: text/plain\nContent-MD5: not-a-digest\n\nhello");
    EXPECT_EQ(check_content_md5(malformed, malformed.part(1), &diags), std::nullopt);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::content_md5_malformed);
    const mime::document none = message_with("Content-Type: text/plain\n\nhello");
    EXPECT_EQ(check_content_md5(none, none.part(1), nullptr), std::nullopt);
}

TEST(ExternalBody, URL_4_1_TextIsDigestedWithCrlfLineBreaks) {
    // RFC 1864: the canonical form. "a\r\nb\r\n" whichever line ends the text has.
    const std::string canonical = mime::content_md5("a\r\nb\r\n", false);
    for (const char* text : {"a\r\nb\r\n", "a\nb\n", "a\rb\r", "a\r\nb\n"}) {
        SCOPED_TRACE(text);
        EXPECT_EQ(mime::content_md5(text, true), canonical);
        EXPECT_EQ(mime::content_md5_matches(" " + canonical + " (comment)", text, true), true);
    }
    EXPECT_NE(mime::content_md5("a\nb\n", false), canonical);  // not text: octets as they are
    // The 16 octets are compared: unused low bits of the last character do not matter.
    EXPECT_EQ(mime::content_md5_matches("XUFAKrxLKna5cZ2REBfFkh==", "hello", false), true);
    EXPECT_EQ(mime::content_md5("hello", false), "XUFAKrxLKna5cZ2REBfFkg==");
    // Pieces: a CR at the end of one and an LF at the start of the next are one line break.
    mime::md5_digest h;
    h.update_text("a\r");
    h.update_text("\nb\r");
    h.update_text("\n");
    EXPECT_EQ(h.base64(), canonical);
}

TEST(ExternalBody, CheckReportsTheRowsOfEachFinding) {
    const std::string text = crlf(
        "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n"
        "--b\nContent-Type: message/external-body; access-type=URL; URL=\"mailto:a@b.example\"\n\n"
        "Content-Type: text/plain\nContent-ID: <a@b>\n\n"
        "--b\nContent-Type: message/external-body; access-type=URL\n\n"
        "Content-Type: text/plain\nContent-ID: <c@d>\n\n"
        "--b\nContent-Type: message/external-body; access-type=URL; URL=http://x/y\n\n"
        "Content-Type: text/plain\nContent-ID: <e@f>\n\nnot blank\n"
        "--b\nContent-Type: text/plain\nContent-MD5: XUFAKrxLKna5cZ2REBfFkg==\n\nhellp\n"
        "--b--\n");
    const mime::document doc = mime::document::parse(text);
    const auto findings = archive::check(doc);
    const auto find = [&](std::string_view code) -> const archive::finding* {
        for (const auto& f : findings)
            if (f.code == code) return &f;
        return nullptr;
    };
    struct want {
        const char* code;
        const char* row;
        archive::finding_level level;
        const char* path;
        const char* at;  // the field the finding's offset names
    };
    using L = archive::finding_level;
    for (const want& w :
         {want{"url_not_retrievable", "URL-2.1", L::error, "1", "; URL=\"mailto"},
          want{"url_parameter_missing", "URL-3.0.2", L::error, "2", "access-type=URL\r\n"},
          want{"url_parameter_unquoted", "URL-3.1.4", L::error, "3", "; URL=http"},
          want{"external_phantom_body", "URL-3.0.3", L::warning, "3", "; URL=http"},
          want{"content_md5_mismatch", "URL-4.1", L::warning, "4", "Content-MD5"}}) {
        SCOPED_TRACE(w.code);
        const archive::finding* f = find(w.code);
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(f->requirement, w.row);
        EXPECT_EQ(f->level, w.level);
        EXPECT_EQ(f->part_path, w.path);
        // The part's Content-Type field (the line the marker is on), or its Content-MD5.
        const std::size_t marker = text.find(w.at);
        ASSERT_NE(marker, std::string::npos);
        const std::size_t field = std::string_view(w.at) == "Content-MD5"
                                      ? marker
                                      : text.rfind("Content-Type: message/external-body", marker);
        EXPECT_EQ(f->offset, field);
    }
}

TEST(ExternalBody, TheCorpusMessagesParseIntoTheModel) {
    // The external-body parts of the real corpus (tests/data/corpus, PROVENANCE.md): Netscape's
    // and the IETF's announcements, Ishmail, Bellcore's barbershop quartet, flanker, Stalwart.
    struct want {
        const char* file;
        const char* path;
        access kind;
        const char* detail;  // url, name or server
        const char* site;
        const char* type;
    };
    const std::vector<want> wants = {
        {"jwz__036_ietf_external_body_url.eml", "2.1", access::mail_server,
         "mailserv@ds.internic.net", "", "text/plain"},
        {"jwz__036_ietf_external_body_url.eml", "2.2", access::anon_ftp,
         "draft-smith-ipatm-bcast-00.txt", "ds.internic.net", "text/plain"},
        {"jwz__036_ietf_external_body_url.eml", "2.3", access::url,
         "http://home.netscape.com/people/jwz/index.html", "", "text/html"},
        {"jwz__036_ietf_external_body_url.eml", "2.4", access::local_file,
         "/some/directory/loser.gif", "", "image/gif"},
        {"jwz__036_ietf_external_body_url.eml", "2.5", access::afs, "/afs/directory/loser.gif", "",
         "image/gif"},
        {"jwz__045_ishmail_external_body_local_file.eml", "6", access::local_file, "/etc/passwd",
         "", "text/plain"},
        {"jwz__045_ishmail_external_body_local_file.eml", "8", access::anon_ftp, "README.ftp",
         "199.35.253.5", "text/plain"},
        {"jwz__090_nsb_barbershop_external_body.eml", "2.2", access::anon_ftp, "quartet.au",
         "thumper.bellcore.com", "audio/basic"},
        {"jwz__144_fwd_mime_architecture.eml", "2.2", access::other, "", "", "text/x-html"},
        {"flanker__message-external-body.eml", "2.1", access::mail_server,
         "mailserv@ds.internic.net", "", "text/plain"},
        {"flanker__message-external-body.eml", "2.2", access::anon_ftp,
         "draft-ietf-http-authentication-00.txt", "ds.internic.net", "text/plain"},
        {"stalwart__rfc_001_external_body.eml", "1", access::anon_ftp, "BodyFormats.ps",
         "thumper.bellcore.com", "application/postscript"},
        {"stalwart__rfc_001_external_body.eml", "2", access::local_file,
         "/u/nsb/writing/rfcs/RFC-MIME.ps", "thumper.bellcore.com", "application/postscript"},
        {"stalwart__rfc_001_external_body.eml", "3", access::mail_server, "listserv@bogus.bitnet",
         "", "application/postscript"},
    };
    for (const want& w : wants) {
        SCOPED_TRACE(std::string(w.file) + " part " + w.path);
        std::ifstream in(std::filesystem::path(MHTML_TEST_DATA) / "corpus" / w.file,
                         std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        ASSERT_FALSE(ss.str().empty());
        const mime::document doc = mime::document::parse(ss.str());
        const auto p = doc.find(w.path);
        ASSERT_TRUE(p);
        std::vector<diagnostic> diags;
        const auto b = read(doc, *p, &diags);
        ASSERT_TRUE(b);
        EXPECT_EQ(b->kind, w.kind);
        const std::string detail = b->kind == access::url           ? b->url.value_or("")
                                   : b->kind == access::mail_server ? b->server.value_or("")
                                                                    : b->name.value_or("");
        EXPECT_EQ(detail, w.detail);
        EXPECT_EQ(b->site.value_or(""), w.site);
        EXPECT_EQ(b->type.essence(), w.type);
        for (const diagnostic& d : diags) EXPECT_NE(d.sev, severity::error) << d.message;
    }
}

}  // namespace
}  // namespace mhtml::external
