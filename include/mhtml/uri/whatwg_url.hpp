#pragma once
/// URLs as browsers read them: the URL Standard's basic URL parser and serializer
/// (https://url.spec.whatwg.org/, "URL parsing" and "URL serializing").
///
/// MHTML compares references octet for octet (MHT-8.2.4, uri/reference.hpp). A browser does
/// not: Chromium parses a reference with this parser before it looks the URL up in an
/// archive, and it parses every Content-Location the same way when it reads the archive, so
/// `img/with space.png` finds the part labelled `img/with%20space.png`, `HTTP://Host:80/a`
/// the part labelled `http://host/a`, and `caf\xC3\xA9.png` the part labelled
/// `caf%C3%A9.png`. The label index uses this parser for one of its lenient retries
/// (MHT-8.2.5, reported `ambiguous`); the strict comparison never does.
///
/// What the parser does, per the standard: leading and trailing C0 controls and spaces are
/// removed and ASCII tab and newline anywhere; the scheme is lower-cased; for the special
/// schemes (http, https, ws, wss, ftp, file) `\` is a `/`, the host is percent-decoded,
/// lower-cased and checked for forbidden code points, IPv4 addresses in any of their forms
/// (`0x7f.1`) are written dotted-decimal and IPv6 addresses compressed, and the default port
/// is dropped; `.` and `..` segments (also written `%2e`) are removed; then each component is
/// percent-encoded with its own set (path, query or special-query, fragment, userinfo, C0
/// control for opaque paths and hosts). A relative reference is parsed against a base URL,
/// which is how a browser resolves it; against a base with an opaque path (`cid:x@y`,
/// `mailto:a`) only a fragment-only reference parses.
///
/// Octets are taken as they are: an octet above 0x7F is percent-encoded as itself, which is
/// the standard's UTF-8 percent-encoding when the text is UTF-8 (a browser decodes a page
/// first, so a reference in a page in another charset gives other octets). Not implemented:
/// "domain to ASCII" for hosts that are not ASCII (UTS #46 mapping and Punycode need Unicode
/// tables): such a host fails to parse, as do the inputs the standard calls failures
/// (parse() returns nullopt); and query encodings other than UTF-8.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "mhtml/export.hpp"

namespace mhtml::uri {

class MHTML_EXPORT whatwg_url {
public:
    /// The basic URL parser on `input` with `base` (nullptr: no base). nullopt where the
    /// standard returns failure, and for non-ASCII hosts (see above).
    static std::optional<whatwg_url> parse(std::string_view input,
                                           const whatwg_url* base = nullptr);

    /// The URL serializer; without the fragment when `with_fragment` is false.
    [[nodiscard]] std::string href(bool with_fragment = true) const;

    [[nodiscard]] const std::string& scheme() const noexcept { return scheme_; }
    /// http, https, ws, wss, ftp or file.
    [[nodiscard]] bool special() const noexcept { return special_; }
    [[nodiscard]] bool has_opaque_path() const noexcept { return opaque_path_; }
    [[nodiscard]] const std::optional<std::string>& host() const noexcept { return host_; }
    /// The path as the serializer writes it (the URL API's `pathname`).
    [[nodiscard]] std::string pathname() const;
    [[nodiscard]] const std::optional<std::string>& query() const noexcept { return query_; }
    [[nodiscard]] const std::optional<std::string>& fragment() const noexcept { return fragment_; }

private:
    friend class whatwg_parser;
    std::string scheme_;
    std::string username_, password_;
    std::optional<std::string> host_;  // serialized (IPv6 in brackets); "" is the empty host
    std::optional<std::uint16_t> port_;
    std::vector<std::string> path_;  // segments; for an opaque path, its one string
    bool opaque_path_ = false;
    bool special_ = false;
    std::optional<std::string> query_, fragment_;
};

}  // namespace mhtml::uri
