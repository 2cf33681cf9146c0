#pragma once
/// Content-MD5 (RFC 1864): the base64 of the MD5 of a body's canonical form, that is its
/// octets with the Content-Transfer-Encoding removed and, for text, every line break CRLF.
/// An integrity check against accidental change, not a signature (URL-4.2): a match says only
/// that the octets are those the header describes, not who wrote either.

#include "mhtml/export.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace mhtml::mime {

/// MD5 fed in pieces (libcrypto's EVP interface).
class MHTML_EXPORT md5_digest {
public:
    md5_digest();
    ~md5_digest();
    md5_digest(const md5_digest&) = delete;
    md5_digest& operator=(const md5_digest&) = delete;
    void update(std::string_view octets);
    /// Feeds `text` with every line break made CRLF (a bare LF or a bare CR becomes CRLF), as
    /// RFC 1864 digests text. A CR at the end of one piece and an LF at the start of the next
    /// are one CRLF.
    void update_text(std::string_view text);
    /// The Content-MD5 value: the base64 of the 16-octet digest (24 characters). Once only.
    std::string base64();

private:
    void* ctx_;
    bool pending_cr_ = false;
};

/// The Content-MD5 value of a decoded body; `text` gives CRLF line breaks first.
MHTML_EXPORT std::string content_md5(std::string_view decoded, bool text);

/// Whether `field_value` (a Content-MD5 field body: the base64 of 16 octets, white space and
/// comments around it allowed) is the MD5 of `decoded`; nullopt when it is not such a value.
MHTML_EXPORT std::optional<bool> content_md5_matches(std::string_view field_value,
                                                     std::string_view decoded, bool text);

}  // namespace mhtml::mime
