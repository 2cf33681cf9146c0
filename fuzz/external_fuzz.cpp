/// libFuzzer target for external bodies and Content-MD5: parse a message, read the model of
/// every message/external-body part (external::read), compare every Content-MD5, and parse
/// the input's first line as an RFC 5322 date-time.
///
/// Checks, on arbitrary input: nothing crashes or hangs; a URL never keeps linear white space
/// (URL-3.1.5); a URL called retrievable has an http, https or ftp scheme; `expires_at` is
/// there exactly when `expiration` parses; the MD5 of text fed in two pieces, split anywhere,
/// is that of the whole (a CR ending one piece and an LF starting the next are one break), and
/// equals the MD5 of the text with its line breaks made CRLF.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "mhtml/external/body.hpp"
#include "mhtml/mime/content_md5.hpp"
#include "mhtml/mime/document.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace mhtml;
    const std::string input(reinterpret_cast<const char*>(data), size);
    const auto doc = mime::document::parse(input);
    for (const mime::part_view& p : doc.parts()) {
        std::vector<diagnostic> diags;
        if (const auto b = external::read(doc, p, &diags)) {
            if (b->url) {
                MHTML_CHECK(b->url->find_first_of(" \t\r\n") == std::string::npos);
                if (b->retrievable_url()) MHTML_CHECK(external::retrieving_scheme(*b->url));
            }
            if (b->expiration)
                MHTML_CHECK(b->expires_at.has_value() ==
                            external::parse_date_time(*b->expiration).has_value());
            else
                MHTML_CHECK(!b->expires_at);
            for (const diagnostic& d : diags) MHTML_CHECK(d.offset <= input.size());
        }
        (void)external::check_content_md5(doc, p, nullptr);
    }
    (void)external::parse_date_time(input.substr(0, input.find('\n')));

    // The text digest: pieces, and canonical CRLF.
    const std::string_view text(input);
    const std::size_t split = size ? data[0] % (size + 1) : 0;
    mime::md5_digest pieces;
    pieces.update_text(text.substr(0, split));
    pieces.update_text(text.substr(split));
    const std::string whole = mime::content_md5(text, true);
    MHTML_CHECK(pieces.base64() == whole);
    std::string crlf;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\r') {
            crlf += "\r\n";
            if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
        } else if (text[i] == '\n') {
            crlf += "\r\n";
        } else {
            crlf += text[i];
        }
    }
    MHTML_CHECK(mime::content_md5(crlf, false) == whole);
    return 0;
}
