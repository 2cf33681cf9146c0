#pragma once
/// external::body: the model of a message/external-body part (RFC 2046 §5.2.3; RFC 2017 for
/// access-type=URL). Reading only: no network, no file. Retrieval is external/retrieve.hpp.
///
/// The parser reads an external-body part like an encapsulated message: its one child is the
/// encapsulated header (the referenced object's Content-Type, Content-Transfer-Encoding,
/// Content-ID, Content-MD5) over the "phantom body", which for mail-server access is the
/// command to send and is otherwise unused. read() gathers the outer parameters and that
/// header, and reports what a reader can judge from them (the URL-... rows of REQUIREMENTS.md
/// and RFC 2046's mandatory parameters) as diagnostics.
///
/// Layering: this model looks at mime/ and uri/ only, so that archive::check can use it;
/// retrieval (libcurl) sits above.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/mime/content_type.hpp"
#include "mhtml/mime/document.hpp"

namespace mhtml::external {

/// RFC 2046 §5.2.3.1 to 5.2.3.7, RFC 2017 (URL), RFC 1873 (content-id).
enum class access : std::uint8_t {
    url,
    anon_ftp,
    ftp,
    tftp,
    local_file,
    afs,
    mail_server,
    content_id,
    other,    ///< an access-type this toolkit does not know (x-token or IANA-registered)
    missing,  ///< no access-type parameter
};
/// "url", "anon-ftp", ..., "other", "missing".
MHTML_EXPORT std::string_view access_name(access a) noexcept;

/// Whether `url`'s scheme is http, https or ftp (URL-2.2's allow-list), in any case.
MHTML_EXPORT bool retrieving_scheme(std::string_view url) noexcept;

struct body {
    std::string access_type;  ///< as written, lower-cased ("" when missing)
    access kind = access::missing;

    /// access-type=URL: the URL parameter with quotes and linear white space removed
    /// (URL-3.1.5), never %-decoded. Absent when the parameter is.
    std::optional<std::string> url;
    /// The other parameters of RFC 2046 §5.2.3, as written (quoted-pairs removed).
    std::optional<std::string> name, site, directory, mode, server, subject, permission;
    std::optional<std::string> expiration;  ///< as written
    /// `expiration` in seconds since 1970-01-01T00:00:00Z, when it is an RFC 5322 date-time.
    std::optional<std::int64_t> expires_at;
    std::optional<std::uint64_t> size;  ///< `size` in octets, when it is a decimal number

    /// The encapsulated header: the referenced object's type ("text/plain", the RFC 2045
    /// default, when it has none), its parameters, its transfer encoding (applied to the data
    /// retrieved: URL-3.0.4), Content-ID and Content-MD5 values.
    mime::content_type type;
    bool type_given = false;
    mime::transfer_encoding encoding = mime::transfer_encoding::seven_bit;
    std::optional<std::string> content_id, content_md5;
    /// The text after the encapsulated header: the command of mail-server access, else unused.
    std::string_view phantom_body;

    /// Input offset of the external-body part's Content-Type field.
    std::uint64_t offset = 0;

    /// Whether `url` has a scheme that retrieves (URL-2.2: http, https, ftp).
    bool retrievable_url() const noexcept { return url && retrieving_scheme(*url); }
};

/// The model of `p` when it is a message/external-body part, else nullopt. Every problem goes
/// to `diags` (codes access_type_missing, external_parameter_missing, url_parameter_missing,
/// url_not_retrievable, url_parameter_unquoted, url_parameter_continued, url_word_too_long,
/// url_unescaped_char, external_body_without_content_id, external_phantom_body,
/// external_size_invalid, external_expiration_invalid), with `p`'s path and input offsets.
MHTML_EXPORT std::optional<body> read(const mime::document& doc, const mime::part_view& p,
                                      std::vector<diagnostic>* diags = nullptr);

/// An RFC 5322 date-time (obsolete forms included: two-digit years, zone names such as EST
/// and GMT, comments) in seconds since the epoch, or nullopt.
MHTML_EXPORT std::optional<std::int64_t> parse_date_time(std::string_view s);

/// RFC 1864 for a leaf: nullopt when `p` has no Content-MD5 field; else whether the MD5 of its
/// decoded body (CRLF line breaks for text/*) is the field's. A field that is not the base64
/// of 16 octets is reported as `content_md5_malformed` and gives nullopt; a mismatch is
/// reported as `content_md5_mismatch`.
MHTML_EXPORT std::optional<bool> check_content_md5(const mime::document& doc,
                                                   const mime::part_view& p,
                                                   std::vector<diagnostic>* diags = nullptr);

}  // namespace mhtml::external
