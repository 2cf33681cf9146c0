#include "mhtml/html/charset.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace mhtml::html {
namespace {

using namespace std::string_literals;

// What the prescan found in `html` (no Content-Type charset).
std::string meta(std::string_view html) {
    auto r = detect_charset("", html);
    if (r.source == charset_source::meta) return r.name;
    std::string s = "(";
    s += r.name;
    s += " fallback)";
    return s;
}

constexpr std::string_view fallback = "(windows-1252 fallback)";

// ---------------------------------------------------------------- Encoding Standard labels

TEST(HtmlCharset, LabelsOfTheEncodingStandard) {
    struct row {
        std::string_view label, name;
    };
    const row rows[] = {
        {"utf-8", "UTF-8"},
        {"utf8", "UTF-8"},
        {"unicode-1-1-utf-8", "UTF-8"},
        {"unicode11utf8", "UTF-8"},
        {"unicode20utf8", "UTF-8"},
        {"x-unicode20utf8", "UTF-8"},
        // windows-1252 stands for ISO-8859-1 and ASCII, as in browsers.
        {"windows-1252", "windows-1252"},
        {"iso-8859-1", "windows-1252"},
        {"ISO_8859-1:1987", "windows-1252"},
        {"latin1", "windows-1252"},
        {"l1", "windows-1252"},
        {"us-ascii", "windows-1252"},
        {"ascii", "windows-1252"},
        {"ansi_x3.4-1968", "windows-1252"},
        {"cp1252", "windows-1252"},
        {"cp819", "windows-1252"},
        {"iso-8859-2", "ISO-8859-2"},
        {"latin2", "ISO-8859-2"},
        {"iso-8859-3", "ISO-8859-3"},
        {"iso-8859-4", "ISO-8859-4"},
        {"iso-8859-5", "ISO-8859-5"},
        {"cyrillic", "ISO-8859-5"},
        {"iso-8859-6", "ISO-8859-6"},
        {"arabic", "ISO-8859-6"},
        {"iso-8859-7", "ISO-8859-7"},
        {"greek", "ISO-8859-7"},
        {"iso-8859-8", "ISO-8859-8"},
        {"visual", "ISO-8859-8"},
        {"iso-8859-8-i", "ISO-8859-8-I"},
        {"logical", "ISO-8859-8-I"},
        {"iso-8859-9", "windows-1254"},  // no ISO-8859-9 encoding: windows-1254 is a superset
        {"latin5", "windows-1254"},
        {"iso-8859-10", "ISO-8859-10"},
        {"iso-8859-11", "windows-874"},
        {"tis-620", "windows-874"},
        {"iso-8859-13", "ISO-8859-13"},
        {"iso-8859-14", "ISO-8859-14"},
        {"iso-8859-15", "ISO-8859-15"},
        {"l9", "ISO-8859-15"},
        {"iso-8859-16", "ISO-8859-16"},
        {"windows-1250", "windows-1250"},
        {"x-cp1250", "windows-1250"},
        {"windows-1251", "windows-1251"},
        {"cp1251", "windows-1251"},
        {"windows-1253", "windows-1253"},
        {"windows-1254", "windows-1254"},
        {"windows-1255", "windows-1255"},
        {"windows-1256", "windows-1256"},
        {"windows-1257", "windows-1257"},
        {"windows-1258", "windows-1258"},
        {"windows-874", "windows-874"},
        {"koi8-r", "KOI8-R"},
        {"koi8", "KOI8-R"},
        {"koi", "KOI8-R"},
        {"koi8-u", "KOI8-U"},
        {"koi8-ru", "KOI8-U"},
        {"ibm866", "IBM866"},
        {"mac", "macintosh"},
        {"x-mac-cyrillic", "x-mac-cyrillic"},
        {"shift_jis", "Shift_JIS"},
        {"shift-jis", "Shift_JIS"},
        {"sjis", "Shift_JIS"},
        {"x-sjis", "Shift_JIS"},
        {"ms_kanji", "Shift_JIS"},
        {"ms932", "Shift_JIS"},
        {"windows-31j", "Shift_JIS"},
        {"csshiftjis", "Shift_JIS"},
        {"euc-jp", "EUC-JP"},
        {"x-euc-jp", "EUC-JP"},
        {"iso-2022-jp", "ISO-2022-JP"},
        {"euc-kr", "EUC-KR"},
        {"ks_c_5601-1987", "EUC-KR"},
        {"windows-949", "EUC-KR"},
        {"korean", "EUC-KR"},
        {"gbk", "GBK"},
        {"gb2312", "GBK"},
        {"chinese", "GBK"},
        {"x-gbk", "GBK"},
        {"gb_2312-80", "GBK"},
        {"gb18030", "gb18030"},
        {"big5", "Big5"},
        {"big5-hkscs", "Big5"},
        {"x-x-big5", "Big5"},
        {"utf-16", "UTF-16LE"},
        {"utf-16le", "UTF-16LE"},
        {"unicode", "UTF-16LE"},
        {"ucs-2", "UTF-16LE"},
        {"utf-16be", "UTF-16BE"},
        {"unicodefffe", "UTF-16BE"},
        {"x-user-defined", "x-user-defined"},
        {"replacement", "replacement"},
        {"iso-2022-kr", "replacement"},
        {"iso-2022-cn", "replacement"},
        {"hz-gb-2312", "replacement"},
        {"cseucpkdfmtjapanese", "EUC-JP"},  // the longest label
    };
    for (const row& r : rows) EXPECT_EQ(encoding_for_label(r.label), r.name) << r.label;
}

TEST(HtmlCharset, LabelsIgnoreCaseAndSurroundingAsciiWhitespace) {
    EXPECT_EQ(encoding_for_label("UTF-8"), "UTF-8");
    EXPECT_EQ(encoding_for_label("Shift_JIS"), "Shift_JIS");
    EXPECT_EQ(encoding_for_label("  Latin1\t\r\n\f"), "windows-1252");
    EXPECT_EQ(encoding_for_label("X-SJIS"), "Shift_JIS");
}

TEST(HtmlCharset, UnknownLabelsGiveNothing) {
    for (std::string_view l :
         {"", "   ", "utf-7", "utf-32", "utf_8", "x-unknown", "latin-1", "utf-8//IGNORE", "\vutf-8",
          "utf-8;", "\"utf-8\"", "cseucpkdfmtjapanesex", "iso-8859-1 x"})
        EXPECT_EQ(encoding_for_label(l), "") << l;
    EXPECT_EQ(encoding_for_label("utf-8\0"s), "");  // a NUL is not white space
    EXPECT_EQ(encoding_for_label(std::string(500, 'a')), "");
}

// ---------------------------------------------------------------- step 1: byte order mark

TEST(HtmlCharset, BomUtf8) {
    auto r = detect_charset("", "\xEF\xBB\xBF<p>x");
    EXPECT_EQ(r.name, "UTF-8");
    EXPECT_EQ(r.source, charset_source::bom);
    EXPECT_EQ(r.bom_length, 3u);
    EXPECT_EQ(r.label, "");
}

TEST(HtmlCharset, BomUtf16) {
    auto be = detect_charset("", "\xFE\xFF\0<"s);
    EXPECT_EQ(be.name, "UTF-16BE");
    EXPECT_EQ(be.bom_length, 2u);
    auto le = detect_charset("", "\xFF\xFE<\0"s);
    EXPECT_EQ(le.name, "UTF-16LE");
    EXPECT_EQ(le.source, charset_source::bom);
    EXPECT_EQ(le.bom_length, 2u);
}

TEST(HtmlCharset, BomBeatsContentTypeAndMetaAsInBrowsers) {
    auto r = detect_charset("windows-1252", "\xEF\xBB\xBF<meta charset=koi8-r>");
    EXPECT_EQ(r.name, "UTF-8");
    EXPECT_EQ(r.source, charset_source::bom);
    EXPECT_EQ(detect_charset("utf-8", "\xFF\xFE<\0"s).name, "UTF-16LE");
}

TEST(HtmlCharset, IncompleteBomIsNoBom) {
    auto r = detect_charset("", "\xEF\xBB");
    EXPECT_EQ(r.source, charset_source::fallback);
    EXPECT_EQ(r.bom_length, 0u);
    EXPECT_EQ(detect_charset("", "\xFE").source, charset_source::fallback);
}

// ---------------------------------------------------------------- step 3: Content-Type

TEST(HtmlCharset, ContentTypeBeatsMeta) {
    auto r = detect_charset("Shift_JIS", "<meta charset=euc-jp>");
    EXPECT_EQ(r.name, "Shift_JIS");
    EXPECT_EQ(r.source, charset_source::content_type);
    EXPECT_EQ(r.label, "Shift_JIS");
    EXPECT_EQ(r.bom_length, 0u);
}

TEST(HtmlCharset, ContentTypeLabelIsKeptAsGiven) {
    auto r = detect_charset(" ISO-8859-1 ", "");
    EXPECT_EQ(r.name, "windows-1252");
    EXPECT_EQ(r.label, " ISO-8859-1 ");
    EXPECT_EQ(detect_charset("us-ascii", "").name, "windows-1252");
    EXPECT_EQ(detect_charset("ks_c_5601-1987", "").name, "EUC-KR");
}

TEST(HtmlCharset, ContentTypeUtf16AndReplacementAreTakenAsTheyAre) {
    // Only a meta's UTF-16 becomes UTF-8; the transport layer is believed.
    EXPECT_EQ(detect_charset("utf-16", "<\0p\0"s).name, "UTF-16LE");
    EXPECT_EQ(detect_charset("x-user-defined", "").name, "x-user-defined");
    EXPECT_EQ(detect_charset("iso-2022-kr", "").name, "replacement");
}

TEST(HtmlCharset, UnknownContentTypeLabelIsIgnored) {
    auto r = detect_charset("x-no-such-charset", "<meta charset=gbk>");
    EXPECT_EQ(r.name, "GBK");
    EXPECT_EQ(r.source, charset_source::meta);
    auto f = detect_charset("utf-7", "<p>");
    EXPECT_EQ(f.name, "windows-1252");
    EXPECT_EQ(f.source, charset_source::fallback);
    EXPECT_EQ(f.label, "");
}

// ---------------------------------------------------------------- step 5: prescan, <meta charset>

TEST(HtmlCharset, MetaCharsetGbk) {  // as in saved Chinese pages
    const std::string_view html =
        "<!DOCTYPE html>\r\n<html>\r\n<head>\r\n<meta "
        "charset=\"gbk\">\r\n<title>\xD6\xD0\xCE\xC4</title>";
    auto r = detect_charset("", html);
    EXPECT_EQ(r.name, "GBK");
    EXPECT_EQ(r.source, charset_source::meta);
    EXPECT_EQ(r.label, "gbk");
    EXPECT_EQ(r.label_offset, html.find("gbk"));
    EXPECT_EQ(r.bom_length, 0u);
}

TEST(HtmlCharset, MetaCharsetForms) {
    EXPECT_EQ(meta("<meta charset=utf-8>"), "UTF-8");
    EXPECT_EQ(meta("<META CHARSET=EUC-JP>"), "EUC-JP");
    EXPECT_EQ(meta("<meta charset='koi8-u'>"), "KOI8-U");
    EXPECT_EQ(meta("<meta\tcharset = \"  Shift_JIS \"  >"), "Shift_JIS");
    EXPECT_EQ(meta("<meta\ncharset\n=\nwindows-1251\n>"), "windows-1251");
    EXPECT_EQ(meta("<meta/charset=big5>"), "Big5");
    EXPECT_EQ(meta("<meta charset=\"utf-8\"/>"), "UTF-8");
    EXPECT_EQ(meta("<meta name=viewport content=\"width=device-width\" charset=sjis>"),
              "Shift_JIS");
    // Unquoted, the value runs to white space or '>', so a '/' belongs to it.
    EXPECT_EQ(meta("<meta charset=utf-8/>"), fallback);
    EXPECT_EQ(meta("<meta charset=utf-8 />"), "UTF-8");
    // A quote inside an unquoted value is an ordinary octet.
    EXPECT_EQ(meta("<meta charset=utf-8\">"), fallback);
}

TEST(HtmlCharset, MetaLabelKeepsItsCaseAndOffset) {
    const std::string_view html = "<meta charset = ' Windows-1251 '>";
    auto r = detect_charset("", html);
    EXPECT_EQ(r.name, "windows-1251");
    EXPECT_EQ(r.label, "Windows-1251");
    EXPECT_EQ(html.substr(r.label_offset, r.label.size()), "Windows-1251");
}

TEST(HtmlCharset, MetaUtf16MeansUtf8AndUserDefinedMeansWindows1252) {
    auto r = detect_charset("", "<meta charset=utf-16>");
    EXPECT_EQ(r.name, "UTF-8");
    EXPECT_EQ(r.label, "utf-16");
    EXPECT_EQ(meta("<meta charset=UTF-16BE>"), "UTF-8");
    EXPECT_EQ(meta("<meta http-equiv=content-type content='text/html;charset=unicode'>"), "UTF-8");
    EXPECT_EQ(meta("<meta charset=x-user-defined>"), "windows-1252");
    EXPECT_EQ(meta("<meta charset=iso-2022-cn>"), "replacement");
}

TEST(HtmlCharset, MetaWithUnknownLabelIsSkipped) {
    EXPECT_EQ(meta("<meta charset=bogus><meta charset=koi8-r>"), "KOI8-R");
    EXPECT_EQ(meta("<meta charset=\"\"><meta charset=gb18030>"), "gb18030");
    EXPECT_EQ(meta("<meta charset=bogus>"), fallback);
}

// ---------------------------------------------------------------- http-equiv and the need pragma

TEST(HtmlCharset, WordStyleHttpEquiv) {  // what Microsoft Word's "Save as Web Page" writes
    const std::string_view html =
        "<html xmlns:v=\"urn:schemas-microsoft-com:vml\"\r\n"
        "xmlns:o=\"urn:schemas-microsoft-com:office:office\"\r\n"
        "xmlns:w=\"urn:schemas-microsoft-com:office:word\"\r\n"
        "xmlns=\"http://www.w3.org/TR/REC-html40\">\r\n\r\n"
        "<head>\r\n"
        "<meta http-equiv=Content-Type content=\"text/html; charset=windows-1252\">\r\n"
        "<meta name=ProgId content=Word.Document>\r\n"
        "<meta name=Generator content=\"Microsoft Word 15\">\r\n"
        "<!--[if gte mso 9]><xml>\r\n <o:DocumentProperties>\r\n"
        "  <o:Author>\x93Smart\x94 quotes</o:Author>\r\n </o:DocumentProperties>\r\n"
        "</xml><![endif]-->\r\n";
    auto r = detect_charset("", html);
    EXPECT_EQ(r.name, "windows-1252");
    EXPECT_EQ(r.source, charset_source::meta);
    EXPECT_EQ(r.label, "windows-1252");
    EXPECT_EQ(r.label_offset, html.find("windows-1252"));
}

TEST(HtmlCharset, HttpEquivAttributeOrderDoesNotMatter) {
    EXPECT_EQ(meta("<meta content=\"text/html; charset=euc-kr\" http-equiv=\"Content-Type\">"),
              "EUC-KR");
    EXPECT_EQ(meta("<meta http-equiv='CONTENT-TYPE' content='text/html; CHARSET=KOI8-R'>"),
              "KOI8-R");
}

TEST(HtmlCharset, ContentWithoutPragmaIsIgnored) {
    EXPECT_EQ(meta("<meta content=\"text/html; charset=koi8-r\">"), fallback);
    EXPECT_EQ(meta("<meta http-equiv=refresh content=\"0; charset=koi8-r\">"), fallback);
    // An attribute without a value has the empty value.
    EXPECT_EQ(meta("<meta http-equiv content=\"charset=koi8-r\">"), fallback);
    // Only the first attribute of a name counts.
    EXPECT_EQ(meta("<meta http-equiv=refresh http-equiv=content-type content=\"charset=koi8-r\">"),
              fallback);
    EXPECT_EQ(meta("<meta content=\"charset=koi8-r\"><meta http-equiv=content-type>"), fallback);
}

TEST(HtmlCharset, CharsetAttributeNeedsNoPragmaAndWinsOverContent) {
    EXPECT_EQ(meta("<meta http-equiv=content-type content=\"charset=koi8-r\" charset=utf-8>"),
              "UTF-8");
    EXPECT_EQ(meta("<meta charset=utf-8 http-equiv=content-type content=\"charset=koi8-r\">"),
              "UTF-8");
    EXPECT_EQ(meta("<meta content=\"charset=koi8-r\" charset=utf-8>"), "UTF-8");
    // A charset attribute with an unknown label spoils the element even with a good content.
    EXPECT_EQ(meta("<meta http-equiv=content-type content=\"charset=koi8-r\" charset=bogus>"),
              fallback);
    // Duplicates: the first charset is the one read.
    EXPECT_EQ(meta("<meta charset=bogus charset=utf-8>"), fallback);
    EXPECT_EQ(meta("<meta charset=big5 charset=utf-8>"), "Big5");
}

TEST(HtmlCharset, ContentCharsetExtraction) {
    auto pragma = [](std::string_view content) {
        std::string html = "<meta http-equiv=content-type content='";
        html += content;
        html += "'>";
        return meta(html);
    };
    EXPECT_EQ(pragma("text/html; charset=iso-8859-2"), "ISO-8859-2");
    EXPECT_EQ(pragma("text/html;charset=utf-8;foo=bar"), "UTF-8");
    EXPECT_EQ(pragma("text/html; charset = utf-8"), "UTF-8");
    EXPECT_EQ(pragma("text/html; charset=\"big5\" x"), "Big5");
    EXPECT_EQ(pragma("charset=utf-8 text/html"), "UTF-8");
    EXPECT_EQ(pragma("xcharsetx; charset=koi8-r"), "KOI8-R");  // "charset" without '=': go on
    EXPECT_EQ(pragma("charset charset=koi8-r"), "KOI8-R");
    EXPECT_EQ(pragma("charset=\"utf-8"), fallback);  // unmatched quote: nothing
    EXPECT_EQ(pragma("text/html; charset="), fallback);
    EXPECT_EQ(pragma("text/html; charset=;utf-8"), fallback);
    EXPECT_EQ(pragma("text/html"), fallback);
    EXPECT_EQ(pragma("text/html; charset=bogus"), fallback);
    EXPECT_EQ(pragma("text/html; charset=bogus; charset=utf-8"), fallback);  // first only
}

TEST(HtmlCharset, ContentLabelOffsetPointsIntoTheBody) {
    const std::string_view html =
        "<meta http-equiv=\"Content-Type\" content=\"text/html; charset = 'Big5' \">";
    auto r = detect_charset("", html);
    EXPECT_EQ(r.name, "Big5");
    EXPECT_EQ(r.label, "Big5");
    EXPECT_EQ(r.label_offset, html.find("Big5"));
}

// ---------------------------------------------------------------- comments and other markup

TEST(HtmlCharset, CommentsAreSkipped) {
    EXPECT_EQ(meta("<!-- <meta charset=koi8-r> --><meta charset=utf-8>"), "UTF-8");
    EXPECT_EQ(meta("<!-- a -- b -> <meta charset=koi8-r> --><meta charset=utf-8>"), "UTF-8");
    // The dashes of "<!--" can end it: "<!-->" and "<!--->" are whole comments.
    EXPECT_EQ(meta("<!--><meta charset=utf-8>"), "UTF-8");
    EXPECT_EQ(meta("<!---><meta charset=utf-8>"), "UTF-8");
    EXPECT_EQ(meta("<!-- unterminated <meta charset=utf-8>"), fallback);
    EXPECT_EQ(meta("<!--<meta charset=koi8-r>-- ><meta charset=utf-8>"), fallback);
}

// Where Chromium (HTMLMetaCharsetParser, which runs its HTML tokenizer) and the standard's
// byte-level prescan disagree, mhtml reads as Chromium does: each case below was opened in
// Chromium 156 as a file and its document.characterSet read (tests/browser/ checks them
// against the running browser).
TEST(HtmlCharset, ATokenizerDecidesWhatIsAComment_AsChromium) {
    // "--!>" ends a comment for the tokenizer (the prescan looks for "-->").
    EXPECT_EQ(meta("<!-- x --!> <meta charset=koi8-r> -->"), "KOI8-R");
}

TEST(HtmlCharset, RawTextHidesAMeta_AsChromium) {
    // The prescan does not know <script>; the tokenizer does.
    EXPECT_EQ(meta("<script>var s = '<meta charset=koi8-r>'</script><meta charset=utf-8>"),
              "UTF-8");
    EXPECT_EQ(meta("<title><meta charset=koi8-r></title>"), fallback);
    EXPECT_EQ(meta("<textarea><meta charset=koi8-r></textarea>"), fallback);
    EXPECT_EQ(meta("<xmp><meta charset=koi8-r></xmp>"), fallback);
    // <noscript> is markup (scripting is off while the encoding is sought).
    EXPECT_EQ(meta("<noscript><meta charset=koi8-r></noscript>"), "KOI8-R");
}

TEST(HtmlCharset, OtherMarkupIsSkipped) {
    EXPECT_EQ(meta("<!DOCTYPE html><?xml version=\"1.0\"?><html lang=en><meta charset=utf-8>"),
              "UTF-8");
    // A tag's attributes are read, so a '>' or "<meta" in a quoted value hides nothing.
    EXPECT_EQ(meta("<div title=\"a > <meta charset=koi8-r>\"><meta charset=utf-8>"), "UTF-8");
    EXPECT_EQ(meta("</p title='<meta charset=koi8-r>'><meta charset=utf-8>"), "UTF-8");
    // "<!" and "<?" end at the first '>'.
    EXPECT_EQ(meta("<!x <meta charset=koi8-r>"), fallback);
    EXPECT_EQ(meta("<? '>' ?><meta charset=utf-8>"), "UTF-8");
    EXPECT_EQ(meta("</ <meta charset=utf-8>"), fallback);  // "</" not followed by a letter
    // Not a meta element.
    EXPECT_EQ(meta("<metal charset=utf-8>"), fallback);
    EXPECT_EQ(meta("<meta>"), fallback);
    EXPECT_EQ(meta("< meta charset=utf-8>"), fallback);  // "< " is text, so is "meta"
    // A character reference in the value is decoded; the label's offset is the value's.
    auto r = detect_charset("", "<meta charset=\"koi8&#45;r\">");
    EXPECT_EQ(r.name, "KOI8-R");
    EXPECT_EQ(r.label_offset, 15u);
}

TEST(HtmlCharset, NonAsciiOctetsBeforeTheMeta) {
    EXPECT_EQ(meta("<title>\x82\xA0\x82\xA2</title><meta charset=shift_jis>"), "Shift_JIS");
    EXPECT_EQ(meta("\xFF\x00\x80<meta charset=euc-jp>"s), "EUC-JP");
}

// ---------------------------------------------------------------- the end of the prescan

TEST(HtmlCharset, TheSearchGoesOnThroughTheHead_AsChromium) {
    const std::string padding(1500, 'x');
    // Past 1024 octets, still in the head (only head elements seen): found.
    EXPECT_EQ(meta("<html><head><title>" + padding + "</title><meta charset=koi8-r></head>"),
              "KOI8-R");
    EXPECT_EQ(meta("<html><head><!--" + padding + "--><meta charset=koi8-r></head>"), "KOI8-R");
    EXPECT_EQ(meta(std::string(2000, ' ') + "<meta charset=utf-8>"), "UTF-8");
    // Past 1024 octets after an element that does not belong in a head: not found.
    EXPECT_EQ(meta("<html><body><p>" + padding + "</p><meta charset=koi8-r>"), fallback);
    EXPECT_EQ(meta("<div>" + std::string(2000, 'y') + "</div><meta charset=koi8-r>"), fallback);
    EXPECT_EQ(meta("<html></head>" + padding + "<meta charset=koi8-r>"), fallback);
    // Within 1024 octets, even in the body: found.
    EXPECT_EQ(meta("<body><meta charset=koi8-r>"), "KOI8-R");
    // The search ends at the first token that ends at or after 1024 octets once the head is
    // over; a meta that is that token is still read.
    const std::string_view tag = "<meta charset=utf-8>";
    auto after_body = [&](std::size_t end) {
        std::string html = "<body>";
        html += std::string(end - html.size() - tag.size(), 'z');
        html += tag;
        return meta(html);
    };
    EXPECT_EQ(after_body(prescan_length + 10), "UTF-8");   // the text before it ends at 1014
    EXPECT_EQ(after_body(prescan_length + 30), fallback);  // the text ends at 1034: the end
}

TEST(HtmlCharset, ElementCutByTheEndIsNotRead) {
    EXPECT_EQ(meta("<meta charset=utf-8"), fallback);
    EXPECT_EQ(meta("<meta charset=\"utf-8"), fallback);
    EXPECT_EQ(meta("<meta charset="), fallback);
    EXPECT_EQ(meta("<meta charset"), fallback);
    EXPECT_EQ(meta("<meta "), fallback);
    EXPECT_EQ(meta("<p class='x"), fallback);
    EXPECT_EQ(meta("<p"), fallback);
    EXPECT_EQ(meta("<"), fallback);
    EXPECT_EQ(meta(""), fallback);
}

TEST(HtmlCharset, Utf16XmlDeclarationWithoutBom) {
    auto le = detect_charset("", "<\0?\0x\0m\0l\0"s);
    EXPECT_EQ(le.name, "UTF-16LE");
    EXPECT_EQ(le.source, charset_source::xml_declaration);
    EXPECT_EQ(le.label, "");
    auto be = detect_charset("", "\0<\0?\0x\0m\0l"s);
    EXPECT_EQ(be.name, "UTF-16BE");
    EXPECT_EQ(be.source, charset_source::xml_declaration);
    EXPECT_EQ(meta("<?xml version='1.0'?>"), fallback);
}

// ---------------------------------------------------------------- step 8: fallback

TEST(HtmlCharset, FallbackIsWindows1252) {
    auto r = detect_charset("", "<html><head><title>x</title></head><body>caf\xE9</body></html>");
    EXPECT_EQ(r.name, "windows-1252");
    EXPECT_EQ(r.source, charset_source::fallback);
    EXPECT_EQ(r.label, "");
    EXPECT_EQ(r.label_offset, 0u);
    EXPECT_EQ(r.bom_length, 0u);
}

// ---------------------------------------------------------------- XML documents

// Review finding: an XML document is decoded by its declaration, not by HTML's rules.
TEST(XmlCharset, BomThenTransportThenDeclarationThenUtf8) {
    auto name = [](std::string_view ct, std::string_view bytes) {
        return detect_xml_charset(ct, bytes).name;
    };
    EXPECT_EQ(name("", "<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?><svg/>"), "ISO-2022-JP");
    EXPECT_EQ(name("", "<?xml version='1.0' encoding = 'latin1' ?><svg/>"), "windows-1252");
    EXPECT_EQ(name("utf-8", "<?xml version='1.0' encoding='ISO-2022-JP'?><svg/>"), "UTF-8");
    EXPECT_EQ(name("bogus", "<?xml version='1.0' encoding='Shift_JIS'?><svg/>"), "Shift_JIS");
    EXPECT_EQ(name("iso-8859-1", "\xEF\xBB\xBF<svg/>"), "UTF-8");
    EXPECT_EQ(name("", "<svg><meta charset=windows-1252/></svg>"), "UTF-8");  // no <meta>
    EXPECT_EQ(name("", std::string_view("<\0?\0x\0m\0l\0", 10)), "UTF-16LE");
    EXPECT_EQ(name("", "<?xml version='1.0' encoding='utf-16'?><svg/>"), "UTF-8");
    EXPECT_EQ(name("", "<?xml version='1.0' encoding='nonsense'?><svg/>"), "UTF-8");
    EXPECT_EQ(name("", "<?xml-stylesheet href='a' encoding='latin1'?><svg/>"), "UTF-8");
    auto d = detect_xml_charset("", "<?xml version='1.0' encoding='EUC-JP'?>");
    EXPECT_EQ(d.source, charset_source::xml_declaration);
    EXPECT_EQ(d.label, "EUC-JP");
    EXPECT_EQ(d.label_offset, 30u);
}

TEST(XmlCharset, DeclarationMadeUtf8) {
    std::string x = "<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?>\n<svg/>";
    EXPECT_TRUE(declare_xml_utf8(x));
    EXPECT_EQ(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg/>");
    EXPECT_FALSE(declare_xml_utf8(x));
    std::string none = "<svg/>";
    EXPECT_FALSE(declare_xml_utf8(none));
    std::string bom = "\xEF\xBB\xBF<?xml version='1.0' encoding='latin1'?><svg/>";
    EXPECT_TRUE(declare_xml_utf8(bom));
    EXPECT_EQ(bom, "\xEF\xBB\xBF<?xml version='1.0' encoding='UTF-8'?><svg/>");
}

}  // namespace
}  // namespace mhtml::html
