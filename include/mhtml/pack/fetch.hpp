#pragma once
/// pack::fetch_collect: what a page on the web needs, downloaded with libcurl: the other
/// source of `pack` beside pack::collect (a local page). It returns the same `collection`, so
/// the streaming writer (pack/writer.hpp) and the CLI take either.
///
/// What is fetched: the page at `url` (http or https), then every `resource` reference the
/// scanner (html/scan.hpp) finds in it and, recursively, in every HTML, SVG and CSS resource
/// so fetched (frames, iframes, `object`/`embed` documents, SVG images, CSS `@import`s and
/// `url()`s, `srcset` candidates), and in `<iframe srcdoc>` content (scanned in place, with
/// its parent's base): the reference rules of pack::collect, with one difference: an HTML
/// response is scanned only where a browser shows it as a page (the page, a frame, an
/// iframe, an `object` or `embed`), so that an `<img>` or style sheet answered with an HTML
/// page (a soft 404, a hotlink refusal) is packed as it came without pulling in that page's
/// resources. Navigation links are not
/// followed (but one naming a fetched URL is rewritten with it). References resolve against
/// the document's final URL (after redirects), or its `<base href>`. `data:` URIs stay; other
/// schemes than http and https (`mailto:`, `ftp:`, `file:`, ...) are `external` and never
/// fetched. Each URL (fragment dropped) is fetched once, however many references name it.
///
/// Transfers: a curl multi handle runs up to `max_connections` transfers at once, at most
/// `max_host_connections` to one host, reusing connections (HTTP/1.1 keep-alive, HTTP/2
/// multiplexing where TLS offers it). Proxies come from the usual environment variables
/// (`http_proxy`, `https_proxy`, `no_proxy`: libcurl's defaults, not disabled). Only http and
/// https are spoken (CURLOPT_PROTOCOLS_STR). Redirects are followed here, not by libcurl, so
/// that each hop is checked (requests carry a `Referer`, the referencing document's URL, as
/// a browser's do; certificates and host names are verified): at most `max_redirects`, no loop,
/// only to http or https (never `file:`), never from https to http; a refused redirect is a
/// `fetch_redirect_refused`.
///
/// Content-Encoding: the fetcher asks for `gzip, deflate, br` (and what else this libcurl
/// decodes) and libcurl undoes it while the body arrives, so every resource holds its decoded
/// octets and `resource::content_encoding` is empty. The byte accounting is therefore that of
/// the decoded octets: `max_resource_size`, `max_total_bytes` and `collect_counts::bytes` count
/// what goes into the archive (a compression bomb stops at `max_resource_size`), while
/// `fetch_report::wire_bytes` counts what came over the network.
///
/// Types and charsets: the Content-Type header decides the media type (without one, the URL's
/// extension, as content_type_for_path). An HTML document's charset is the browser's (a BOM,
/// the header's charset, then the page's own `<meta>`: html/charset.hpp); an SVG or XHTML
/// document's is detect_xml_charset's; a style sheet's is a BOM, the header's charset, its
/// `@charset`, the referring document's, else UTF-8. A charset the Encoding Standard does
/// not know is ignored (`fetch_unknown_charset`). The part is labelled with the charset found.
/// UTF-16 and ISO-2022-JP documents are transcoded to UTF-8 (the scanner reads ASCII-based
/// text), as collect does.
///
/// Labels (content_location method): a resource's label is the absolute URL it was
/// referenced by (fragment dropped; THTML-9.1.4), so references need no change, except for a
/// redirected HTML, SVG or CSS document, labelled with its final URL, since its own relative
/// references resolve against that: the references naming it are rewritten to that URL
/// (`reference_respelled`). The root is labelled with its final URL. With method::cid every
/// packed reference becomes `cid:` + a generated Content-ID (labels kept); with
/// method::filename references become uri::make_virtual_filenames names (also the labels),
/// a `<base href>` is emptied, and relative references to what is not packed (navigation
/// links, other origins) are written absolute, since a document's label is then no longer
/// its URL (those to what failed stay as written).
///
/// Failures: nothing is dropped silently. A resource that cannot be fetched (DNS, refused
/// connection, an HTTP status other than 2xx, a timeout, a truncated body, a refused
/// redirect, a limit, a hostile name) gives one diagnostic per reference naming it (part_path:
/// the referencing document's URL; offset: the reference's raw value in it; the message names
/// the URL and the cause), the reference stays as written and the report says why
/// (`reference_report::reason`: "network", "timeout", "truncated", "bad_encoding",
/// "http_404" (any status), "redirect", "too_large", "limit", "bad_name", "other_origin" is
/// not a failure but an `external` outcome with `same_origin`). The page itself failing is
/// an error result (`error_code` "bad_url", "fetch_failed", "not_html"), without resources.
///
/// Memory: every response is held in memory (`resource::in_memory`) until the collection is
/// written; `max_total_bytes` bounds them together, `max_resource_size` each.
///
/// `reference_report::document` and `resource::origin` are the URL the document was
/// referenced by (for the root, `url` as given).
///
/// Thread-safety: curl_global_init runs once (std::call_once); calls share no other state
/// and may run in parallel.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mhtml/export.hpp"
#include "mhtml/pack/collect.hpp"

namespace mhtml::pack {

struct fetch_limits {
    std::size_t max_resources = 10'000;  ///< URLs requested (failed ones too), the page included
    std::uint64_t max_resource_size = 256ull << 20;  ///< decoded octets of one response
    std::uint64_t max_total_bytes = 2ull << 30;      ///< decoded octets of all responses
    std::size_t max_redirects = 10;                  ///< per resource
    std::size_t max_srcdoc_depth = 16;               ///< `srcdoc` inside `srcdoc`
    /// The whole fetch: transfers still running then are stopped and what was not fetched
    /// is reported (`resource_limit`). Zero: none.
    std::chrono::milliseconds total_timeout{std::chrono::minutes(10)};
    /// One transfer (one hop of a redirect chain), connection included.
    std::chrono::milliseconds transfer_timeout{std::chrono::seconds(60)};
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(15)};
};

struct fetch_options {
    pack::method method = method::content_location;
    /// Only fetch resources of the page's origin (scheme, host and port of its final URL);
    /// the others stay `external` (reason "other_origin").
    bool same_origin = false;
    std::size_t max_connections = 16;      ///< transfers at once, all hosts together
    std::size_t max_host_connections = 6;  ///< transfers at once to one host (and port)
    /// The User-Agent header; empty: "mhtml/" + the library's version.
    std::string user_agent;
    /// A PEM file of the certificate authorities to trust for https (CURLOPT_CAINFO); empty:
    /// libcurl's default bundle. Certificates and host names are always verified.
    std::string ca_file;
    fetch_limits limits;
};

/// What the transfers did (beside collection::counts, which counts decoded octets).
struct fetch_report {
    std::size_t transfers = 0;     ///< requests made, redirect hops included
    std::size_t failed = 0;        ///< resources that could not be fetched
    std::size_t redirects = 0;     ///< redirect hops followed
    std::size_t connections = 0;   ///< connections opened (the others were reused)
    std::uint64_t wire_bytes = 0;  ///< body octets received, still content-encoded
    std::chrono::milliseconds elapsed{0};
};

/// Fetches the page at `url` (an absolute http or https URL) and what it needs (see above).
/// `report`, when given, receives the transfer statistics.
MHTML_EXPORT collection fetch_collect(const std::string& url, const fetch_options& options = {},
                                      fetch_report* report = nullptr);

/// True for an absolute http or https URL (what fetch_collect takes; for the CLI to choose
/// between collect and fetch_collect).
MHTML_EXPORT bool is_fetchable_url(std::string_view url) noexcept;

}  // namespace mhtml::pack
