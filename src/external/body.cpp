// The model of a message/external-body part (include/mhtml/external/body.hpp).

#include "mhtml/external/body.hpp"

#include <array>
#include <charconv>
#include <cstring>

#include "mhtml/ascii.hpp"
#include "mhtml/mime/content_md5.hpp"
#include "mhtml/uri/header_value.hpp"
#include "text_cat.hpp"

namespace mhtml::external {

using mhtml::detail::cat;

namespace {

bool is_wsp(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string_view trimmed(std::string_view s) noexcept {
    while (!s.empty() && is_wsp(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_wsp(s.back())) s.remove_suffix(1);
    return s;
}

std::optional<std::string> param(const mime::content_type& ct, std::string_view name) {
    if (auto v = ct.param(name)) return std::string(*v);
    return std::nullopt;
}

constexpr std::array<std::pair<std::string_view, access>, 8> access_types{{
    {"url", access::url},
    {"anon-ftp", access::anon_ftp},
    {"ftp", access::ftp},
    {"tftp", access::tftp},
    {"local-file", access::local_file},
    {"afs", access::afs},
    {"mail-server", access::mail_server},
    {"content-id", access::content_id},
}};

// Days from 1970-01-01 to year-month-day (proleptic Gregorian; H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool all_digits(std::string_view s) noexcept {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

int number(std::string_view s) noexcept {
    int v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

}  // namespace

std::string_view access_name(access a) noexcept {
    for (const auto& [name, kind] : access_types)
        if (kind == a) return name;
    return a == access::other ? "other" : "missing";
}

bool retrieving_scheme(std::string_view url) noexcept {
    const std::size_t colon = url.find(':');
    if (colon == std::string_view::npos) return false;
    const std::string_view scheme = url.substr(0, colon);
    return ascii::iequals(scheme, "http") || ascii::iequals(scheme, "https") ||
           ascii::iequals(scheme, "ftp");
}

std::optional<std::int64_t> parse_date_time(std::string_view s) {
    // Comments out, commas as spaces; then the tokens.
    std::string text;
    int depth = 0;
    for (char c : s) {
        if (c == '(') {
            ++depth;
        } else if (c == ')' && depth > 0) {
            --depth;
        } else if (depth == 0) {
            text += c == ',' ? ' ' : c;
        }
    }
    std::vector<std::string_view> tokens;
    std::string_view rest = text;
    while (true) {
        while (!rest.empty() && is_wsp(rest.front())) rest.remove_prefix(1);
        if (rest.empty()) break;
        std::size_t n = 0;
        while (n < rest.size() && !is_wsp(rest[n])) ++n;
        tokens.push_back(rest.substr(0, n));
        rest.remove_prefix(n);
    }
    std::size_t k = 0;
    static constexpr std::array<std::string_view, 7> weekdays = {"mon", "tue", "wed", "thu",
                                                                 "fri", "sat", "sun"};
    if (k < tokens.size() && !tokens[k].empty() && !all_digits(tokens[k]))
        for (std::string_view d : weekdays)
            if (ascii::iequals(tokens[k], d)) {
                ++k;
                break;
            }
    if (tokens.size() < k + 4) return std::nullopt;
    const std::string_view day = tokens[k], month = tokens[k + 1], year = tokens[k + 2],
                           time = tokens[k + 3];
    if (!all_digits(day) || day.size() > 2 || !all_digits(year) || year.size() < 2 ||
        year.size() > 4)
        return std::nullopt;
    static constexpr std::array<std::string_view, 12> months = {
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
    unsigned m = 0;
    for (unsigned i = 0; i < months.size(); ++i)
        if (ascii::iequals(month, months[i])) m = i + 1;
    if (m == 0) return std::nullopt;
    int y = number(year);
    if (year.size() == 2) y += y < 50 ? 2000 : 1900;  // RFC 5322 §4.3
    if (year.size() == 3) y += 1900;
    const int d = number(day);
    // hh:mm[:ss]
    int hh = 0, mm = 0, ss = 0;
    {
        const std::size_t c1 = time.find(':');
        if (c1 == std::string_view::npos) return std::nullopt;
        const std::size_t c2 = time.find(':', c1 + 1);
        const std::string_view h = time.substr(0, c1);
        const std::string_view mi = time.substr(
            c1 + 1, c2 == std::string_view::npos ? std::string_view::npos : c2 - c1 - 1);
        const std::string_view se =
            c2 == std::string_view::npos ? std::string_view("0") : time.substr(c2 + 1);
        if (!all_digits(h) || !all_digits(mi) || !all_digits(se) || h.size() > 2 ||
            mi.size() != 2 || se.size() > 2)
            return std::nullopt;
        hh = number(h);
        mm = number(mi);
        ss = number(se);
    }
    static constexpr std::array<unsigned, 12> month_days = {31, 29, 31, 30, 31, 30,
                                                            31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d < 1 || static_cast<unsigned>(d) > month_days[m - 1] || (m == 2 && d == 29 && !leap) ||
        hh > 23 || mm > 59 || ss > 60)
        return std::nullopt;
    // The zone: +hhmm / -hhmm, or an obsolete name (RFC 5322 §4.3); none is read as UT.
    int offset_minutes = 0;
    if (tokens.size() > k + 4) {
        const std::string_view z = tokens[k + 4];
        if ((z[0] == '+' || z[0] == '-') && z.size() == 5 && all_digits(z.substr(1))) {
            const int v = number(z.substr(1));
            if (v % 100 > 59) return std::nullopt;
            offset_minutes = (v / 100) * 60 + v % 100;
            if (z[0] == '-') offset_minutes = -offset_minutes;
        } else {
            static constexpr std::array<std::pair<std::string_view, int>, 10> names{{
                {"ut", 0},
                {"gmt", 0},
                {"est", -5},
                {"edt", -4},
                {"cst", -6},
                {"cdt", -5},
                {"mst", -7},
                {"mdt", -6},
                {"pst", -8},
                {"pdt", -7},
            }};
            bool known =
                z.size() == 1 && std::isalpha(static_cast<unsigned char>(z[0]));  // military: 0
            for (const auto& [name, hours] : names)
                if (ascii::iequals(z, name)) {
                    offset_minutes = hours * 60;
                    known = true;
                }
            if (!known) return std::nullopt;
        }
    }
    const std::int64_t days = days_from_civil(y, m, static_cast<unsigned>(d));
    return days * 86400 + hh * 3600 + mm * 60 + std::min(ss, 59) -
           static_cast<std::int64_t>(offset_minutes) * 60;
}

std::optional<body> read(const mime::document& doc, const mime::part_view& p,
                         std::vector<diagnostic>* diags) {
    const mime::content_type& ct = p.content_type();
    if (!ct.is("message", "external-body")) return std::nullopt;
    body b;
    const auto field = p.header("Content-Type");
    b.offset = field ? doc.input_offset(doc.offset_of(field->raw().data())) : p.input_offset();
    const auto report = [&](severity s, diag_code c, std::string message) {
        if (diags) diags->push_back({s, c, p.path(), b.offset, std::move(message)});
    };

    if (auto a = ct.param("access-type")) {
        b.access_type = ascii::lowered(trimmed(*a));
        b.kind = access::other;
        for (const auto& [name, kind] : access_types)
            if (b.access_type == name) b.kind = kind;
    } else {
        report(severity::error, diag_code::access_type_missing,
               "message/external-body without an access-type parameter (RFC 2046 5.2.3 makes it "
               "mandatory); nothing can be retrieved");
    }
    b.name = param(ct, "name");
    b.site = param(ct, "site");
    b.directory = param(ct, "directory");
    b.mode = param(ct, "mode");
    b.server = param(ct, "server");
    b.subject = param(ct, "subject");
    b.permission = param(ct, "permission");
    b.expiration = param(ct, "expiration");

    const auto require = [&](const std::optional<std::string>& v, std::string_view what) {
        if (v && !trimmed(*v).empty()) return;
        report(severity::error, diag_code::external_parameter_missing,
               cat("access-type=", b.access_type, " without the ", what,
                   " parameter it requires (RFC 2046 5.2.3); nothing can be retrieved"));
    };
    switch (b.kind) {
        case access::ftp:
        case access::anon_ftp:
        case access::tftp:
            require(b.name, "name");
            require(b.site, "site");
            break;
        case access::local_file:
            require(b.name, "name");
            break;
        case access::mail_server:
            require(b.server, "server");
            break;
        default:
            break;
    }

    if (const mime::parameter* u = ct.params.find("url")) {
        if (u->extended) {
            report(severity::note, diag_code::url_parameter_continued,
                   "the URL parameter is written in RFC 2231 pieces (URL*0=, URL*1=...); they are "
                   "joined, then read as one quoted value (URL-3.1.7)");
        } else if (!u->quoted) {
            report(severity::warning, diag_code::url_parameter_unquoted,
                   "the URL parameter is not quoted, though a URL holds tspecials such as ':' "
                   "(URL-3.1.1); read as the quoted form would be (URL-3.1.7)");
        }
        std::vector<diagnostic> found;
        std::string url = uri::extract_url_parameter(u->value, &found);
        for (diagnostic& d : found) {
            d.part_path = p.path();
            d.offset = b.offset;
            if (diags) diags->push_back(std::move(d));
        }
        if (!url.empty()) b.url = std::move(url);
    }
    if (b.kind == access::url) {
        if (!b.url) {
            report(severity::error, diag_code::url_parameter_missing,
                   "access-type=URL without a URL parameter (URL-3.0.2); the part is kept, "
                   "nothing is retrieved");
        } else if (!retrieving_scheme(*b.url)) {
            report(severity::warning, diag_code::url_not_retrievable,
                   cat("the URL ", *b.url,
                       " has no scheme that retrieves (http, https, ftp: URL-2.1, URL-2.2); it is "
                       "never acted on"));
        }
    }

    if (auto s = ct.param("size")) {
        const std::string_view v = trimmed(*s);
        std::uint64_t n = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (all_digits(v) && ec == std::errc() && end == v.data() + v.size())
            b.size = n;
        else
            report(severity::warning, diag_code::external_size_invalid,
                   cat("size=", *s, " is not a number of octets (RFC 2046 5.2.3); ignored"));
    }
    if (b.expiration) {
        b.expires_at = parse_date_time(*b.expiration);
        if (!b.expires_at)
            report(severity::warning, diag_code::external_expiration_invalid,
                   cat("expiration=", *b.expiration,
                       " is not an RFC 5322 date-time (RFC 2046 5.2.3); the part is treated as "
                       "not expiring"));
    }

    // The encapsulated header and the phantom body.
    const std::vector<mime::part_view> children = p.children();
    if (!children.empty()) {
        const mime::part_view& c = children.front();
        if (c.has_content_type()) {
            b.type = c.content_type();
            b.type_given = true;
        }
        b.encoding = c.encoding();
        if (auto id = c.header("Content-ID")) b.content_id = std::string(trimmed(id->value()));
        if (auto md5 = c.header("Content-MD5")) b.content_md5 = std::string(trimmed(md5->value()));
        b.phantom_body = c.raw_body();
    }
    if (!b.content_id)
        report(severity::note, diag_code::external_body_without_content_id,
               "the encapsulated header has no Content-ID (RFC 2046 5.2.3 asks for one; RFC "
               "2017's own example has none, URL-3.0.4); tolerated");
    if (b.kind == access::url && !trimmed(b.phantom_body).empty())
        report(severity::note, diag_code::external_phantom_body,
               "text after the encapsulated header of an access-type=URL part: the phantom body "
               "should be blank (URL-3.0.3); it is ignored, never shown as content");
    return b;
}

std::optional<bool> check_content_md5(const mime::document& doc, const mime::part_view& p,
                                      std::vector<diagnostic>* diags) {
    const auto field = p.header("Content-MD5");
    if (!field || !p.is_leaf()) return std::nullopt;
    const std::uint64_t offset = doc.input_offset(doc.offset_of(field->raw().data()));
    std::string decoded;
    p.decode_to(decoded);
    const std::string value = field->value();
    const bool text = p.content_type().type == "text";
    const std::optional<bool> matches = mime::content_md5_matches(value, decoded, text);
    if (!matches) {
        if (diags)
            diags->push_back(
                {severity::warning, diag_code::content_md5_malformed, p.path(), offset,
                 cat("Content-MD5: ", value,
                     " is not the base64 of a 16-octet MD5 (RFC 1864); not compared")});
    } else if (!*matches && diags) {
        diags->push_back(
            {severity::warning, diag_code::content_md5_mismatch, p.path(), offset,
             cat("the decoded body's MD5", text ? " (text, with CRLF line breaks)" : "", " is ",
                 mime::content_md5(decoded, text), ", not the Content-MD5 ", value,
                 " (RFC 1864); the part is kept as it is (an integrity check, not a signature)")});
    }
    return matches;
}

}  // namespace mhtml::external
