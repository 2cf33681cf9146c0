#pragma once
/// Retrieving external bodies (RFC 2017, RFC 2046 §5.2.3) and writing them into the archive.
/// Opt-in: nothing here runs when a message is opened (URL-4.3, MHT-8.2.8).
///
/// What is retrieved, and how (libcurl, every transfer of one call in one multi handle,
/// connections reused, the proxy environment variables honoured):
///  * access-type=URL with an http, https or ftp URL; anon-ftp and ftp as
///    ftp://SITE/DIRECTORY/NAME (anonymous login; `mode` image or ascii as `;type=i` or
///    `;type=a`). Every other scheme or access-type is refused with its reason (URL-2.2).
///  * local-file, and file: URLs, only with `allow_local`: the file must lie inside that folder
///    (after following links), and the `site`, if any, must name this machine.
///  * HTTP asks with `Accept: <inner type>`; a response of another type/subtype (compared
///    case-insensitively, parameters ignored), or one that declares none, is rejected
///    (URL-3.1.8). FTP and files declare no type: they are taken as the inner type.
///  * Redirects are followed one hop at a time, at most `max_redirects`, each checked: never
///    from https to http, never to a scheme other than http, https or ftp, never in a loop.
///  * `size` is honoured: reading stops past size + size/10 + 1 KiB (RFC 2046 calls it
///    approximate), and the part fails `too_large`; `max_size` bounds every body.
///  * `expiration` is honoured: an expired part is refused unless `ignore_expiration`.
///  * The inner Content-Transfer-Encoding is undone on the data (URL-3.0.4); then, when the
///    encapsulated header has a Content-MD5, the digest of the canonical form (text with CRLF
///    line breaks) must match (URL-4.1), else the data is discarded. `md5_matches` says what
///    was compared; it is not a signature (URL-4.2).

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mhtml/diagnostic.hpp"
#include "mhtml/export.hpp"
#include "mhtml/external/body.hpp"
#include "mhtml/mime/document.hpp"

namespace mhtml::external {

struct retrieve_options {
    /// local-file parts and file: URLs are read only inside this folder; none: refused.
    std::optional<std::filesystem::path> allow_local;
    std::chrono::milliseconds timeout{60'000};          ///< per transfer, redirects included
    std::chrono::milliseconds connect_timeout{15'000};  ///< per connection
    std::uint64_t max_size = 1ull << 30;                ///< octets of one body
    std::size_t parallel = 8;                           ///< transfers at once
    std::size_t max_redirects = 5;
    std::size_t max_parts = 10'000;  ///< bodies retrieved at most; later ones are refused
    /// materialize: octets of retrieved bodies held while they wait for an earlier part to be
    /// written; beyond it no new transfer starts until one is written (so memory stays within
    /// it plus `parallel` bodies in flight).
    std::uint64_t max_held = 1ull << 30;
    bool ignore_expiration = false;
    /// "Now" for `expiration`, in seconds since the epoch (none: the clock's).
    std::optional<std::int64_t> now;
    std::string user_agent;  ///< default mhtml/VERSION
    std::string ca_file;     ///< extra trust anchors for https (PEM), e.g. a test server's
};

/// What became of one external body.
struct retrieval {
    enum class status : std::uint8_t {
        fetched,        ///< retrieved, of the declared type, digest matching if given
        refused,        ///< not tried: access-type, scheme, allow_local, expiration, redirect
        failed,         ///< tried: network, timeout, truncated, HTTP status
        type_mismatch,  ///< URL-3.1.8: another type than the encapsulated Content-Type
        md5_mismatch,   ///< URL-4.1: discarded
        too_large,      ///< past `size` (with its tolerance) or `max_size`
    };
    status st = status::refused;
    std::string reason;        ///< stable: "scheme", "access_type", "not_allowed", "expired",
                               ///< "redirect", "network", "timeout", "truncated", "http_404", ...
    std::string message;       ///< what happened, naming the URL
    std::string url;           ///< what was asked for (after redirects, the last)
    std::string content_type;  ///< the response's, as sent ("" for FTP and files)
    std::string data;          ///< the object, transfer encoding undone (fetched only)
    std::optional<bool> md5_matches;  ///< compared only when the header gives a Content-MD5
    std::size_t redirects = 0;
};
/// "fetched", "refused", "failed", "type_mismatch", "md5_mismatch", "too_large".
MHTML_EXPORT std::string_view status_name(retrieval::status s) noexcept;

/// Retrieves every body, in parallel; one result per body, in order.
MHTML_EXPORT std::vector<retrieval> retrieve(const std::vector<body>& bodies,
                                             const retrieve_options& options = {});

/// One external-body part of a materialized archive.
struct materialized_part {
    std::string path;          ///< the part's path in the input
    std::uint64_t offset = 0;  ///< its Content-Type field's input offset
    body model;
    retrieval result;
    bool replaced = false;     ///< written as an ordinary part (then result.data is let go)
    std::uint64_t octets = 0;  ///< the data's size, when replaced
};

struct materialize_report {
    std::vector<materialized_part> parts;
    std::size_t fetched = 0, failed = 0;  ///< failed: every part not replaced
};

/// The document with every external-body part that retrieves and checks out replaced by an
/// ordinary body part: the encapsulated header's fields (Content-MD5 kept, as it matched), the
/// outer header's other fields (a top-level message keeps From, Subject...; a Content-Location
/// or Content-Description there is kept unless the encapsulated header has its own), a
/// Content-Transfer-Encoding chosen anew (7bit for short-lined ASCII text, quoted-printable for
/// other text, base64 otherwise, and never a body with a line that starts with "--"), and the
/// data. The file's line ends (CRLF or LF) are kept. Everything else is copied octet for
/// octet. Parts inside a decoded body (an encoded message) are not replaced.
MHTML_EXPORT std::string materialize(const mime::document& doc, const retrieve_options& options,
                                     materialize_report& report);

/// materialize, written through `write` piece by piece (the archive is never held whole);
/// false when `write` refused a piece (then writing stopped there).
MHTML_EXPORT bool materialize_to(const mime::document& doc, const retrieve_options& options,
                                 materialize_report& report,
                                 const std::function<bool(std::string_view)>& write);

}  // namespace mhtml::external
