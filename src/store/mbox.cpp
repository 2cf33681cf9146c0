// The messages of an mbox file (include/mhtml/store/mbox.hpp).

#include "mhtml/store/mbox.hpp"

#include <charconv>

#include "mhtml/ascii.hpp"
#include "text_cat.hpp"

namespace mhtml::store {

using mhtml::detail::cat;

namespace {

// The line at `at`: [at, end of its text) and the offset after its line end.
struct line {
    std::uint64_t begin = 0, text_end = 0, next = 0;
};

line line_at(std::string_view s, std::uint64_t at) {
    line l{at, at, at};
    const std::size_t nl = s.find('\n', at);
    if (nl == std::string_view::npos) {
        l.text_end = l.next = s.size();
        return l;
    }
    l.next = nl + 1;
    l.text_end = nl > at && s[nl - 1] == '\r' ? nl - 1 : nl;
    return l;
}

bool is_from_line(std::string_view s, const line& l) {
    return s.substr(l.begin, l.text_end - l.begin).starts_with("From ");
}

bool is_quoted_from(std::string_view text, bool deep_only) {
    std::size_t n = 0;
    while (n < text.size() && text[n] == '>') ++n;
    return n >= (deep_only ? 2u : 1u) && text.substr(n).starts_with("From ");
}

// From_ line offsets by the line rule: "From " at the start of the file or after an empty line.
std::vector<std::uint64_t> line_rule(std::string_view s, std::vector<std::uint64_t>& unquoted) {
    std::vector<std::uint64_t> starts;
    bool after_blank = true;
    for (std::uint64_t at = 0; at < s.size();) {
        const line l = line_at(s, at);
        if (is_from_line(s, l)) {
            if (after_blank)
                starts.push_back(l.begin);
            else
                unquoted.push_back(l.begin);
        }
        after_blank = l.text_end == l.begin;
        at = l.next;
    }
    return starts;
}

// The Content-Length of the header block starting at `at`, and where its body starts.
std::optional<std::pair<std::uint64_t, std::uint64_t>> content_length(std::string_view s,
                                                                      std::uint64_t at) {
    std::optional<std::uint64_t> length;
    while (at < s.size()) {
        const line l = line_at(s, at);
        if (l.text_end == l.begin) {
            if (!length) return std::nullopt;
            return std::pair{*length, l.next};
        }
        const std::string_view text = s.substr(l.begin, l.text_end - l.begin);
        if (ascii::istarts_with(text, "content-length:")) {
            std::string_view v = text.substr(15);
            while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
            while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
            std::uint64_t n = 0;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
            length = n;
        }
        at = l.next;
    }
    return std::nullopt;
}

// From_ line offsets by Content-Length, when every message has one that ends it at an empty
// line before the next From_ line (or at the end of the file).
std::optional<std::vector<std::uint64_t>> length_rule(std::string_view s, std::uint64_t first) {
    std::vector<std::uint64_t> starts;
    std::uint64_t at = first;
    while (at < s.size()) {
        const line from = line_at(s, at);
        if (!is_from_line(s, from)) return std::nullopt;
        starts.push_back(at);
        const auto cl = content_length(s, from.next);
        if (!cl || cl->first > s.size() - cl->second) return std::nullopt;
        std::uint64_t end = cl->second + cl->first;
        if (end == s.size()) break;
        const line sep = line_at(s, end);  // the empty line after the body
        if (sep.text_end != sep.begin) return std::nullopt;
        if (sep.next >= s.size()) break;
        at = sep.next;
    }
    return starts;
}

}  // namespace

std::string_view mbox_format_name(mbox_format f) noexcept {
    switch (f) {
        case mbox_format::mboxo:
            return "mboxo";
        case mbox_format::mboxrd:
            return "mboxrd";
        case mbox_format::mboxcl2:
            return "mboxcl2";
    }
    return "mboxo";
}

bool looks_like_mbox(std::string_view s) noexcept {
    std::uint64_t at = 0;
    for (int blank = 0; blank < 4 && at < s.size(); ++blank) {
        const line l = line_at(s, at);
        if (l.text_end != l.begin) {
            const std::string_view text = s.substr(l.begin, l.text_end - l.begin);
            // "From " SENDER SP DATE: at least two more words, and a digit (the date).
            return text.starts_with("From ") && text.find(' ', 5) != std::string_view::npos &&
                   text.find_first_of("0123456789") != std::string_view::npos;
        }
        at = l.next;
    }
    return false;
}

mbox_split split_mbox(std::string_view s, std::optional<mbox_format> forced) {
    mbox_split out;
    std::vector<std::uint64_t> unquoted;
    std::vector<std::uint64_t> starts = line_rule(s, unquoted);
    // Octets before the first From_ line (other than empty lines) are a message of their own.
    std::uint64_t first = starts.empty() ? s.size() : starts.front();
    bool headless = false;
    for (std::uint64_t i = 0; i < first; ++i)
        if (s[i] != '\r' && s[i] != '\n') {
            headless = true;
            break;
        }

    bool deep = false;
    for (std::uint64_t at = 0; at < s.size() && !deep;) {
        const line l = line_at(s, at);
        deep = is_quoted_from(s.substr(l.begin, l.text_end - l.begin), true);
        at = l.next;
    }
    const auto by_length = !starts.empty() ? length_rule(s, first) : std::nullopt;
    if (forced) {
        out.format = *forced;
    } else if (by_length && !headless) {
        out.format = mbox_format::mboxcl2;
    } else {
        out.format = deep ? mbox_format::mboxrd : mbox_format::mboxo;
    }
    if (out.format == mbox_format::mboxcl2) {
        if (by_length) {
            starts = *by_length;
            unquoted.clear();  // "From " in a body is no split under mboxcl2
        } else {
            out.diagnostics.push_back(
                {severity::warning, diag_code::mbox_bad_content_length, "", first,
                 "mboxcl2: a message has no Content-Length, or one that does not end it before "
                 "the next From_ line; the mailbox is split by its From_ lines instead"});
        }
    }
    if (!starts.empty()) {
        const line l = line_at(s, starts.front());
        out.crlf = l.next > l.text_end + 1;
    }

    const auto add = [&](std::uint64_t from, std::uint64_t begin, std::uint64_t end,
                         std::string envelope) {
        mbox_message m;
        m.from_line = from;
        m.offset = begin;
        m.envelope = std::move(envelope);
        // The empty line that separates it from the next From_ line is not the message's.
        std::uint64_t size = end - begin;
        if (end < s.size() || (size > 0 && s[end - 1] == '\n')) {
            const std::string_view body = s.substr(begin, size);
            if (body.ends_with("\r\n\r\n") || body.ends_with("\n\r\n"))
                size -= 2;
            else if (body.ends_with("\n\n"))
                size -= 1;
        }
        m.size = size;
        const std::string_view stored = s.substr(begin, size);
        for (std::uint64_t at = 0; at < stored.size() && !m.quoted;) {
            const line l = line_at(stored, at);
            m.quoted = is_quoted_from(stored.substr(l.begin, l.text_end - l.begin), false);
            at = l.next;
        }
        out.messages.push_back(std::move(m));
    };
    if (headless) {
        out.diagnostics.push_back(
            {severity::warning, diag_code::mbox_missing_from_line, "#1", 0,
             "the mailbox does not start with a From_ line; the octets before the first one are "
             "read as a message of their own"});
        add(0, 0, first, "");
    }
    for (std::size_t i = 0; i < starts.size(); ++i) {
        const line from = line_at(s, starts[i]);
        const std::uint64_t end = i + 1 < starts.size() ? starts[i + 1] : s.size();
        add(starts[i], from.next, end,
            std::string(s.substr(from.begin + 5, from.text_end - from.begin - 5)));
    }
    // Unquoted "From " lines inside a body: said once per message.
    std::size_t m = 0;
    std::uint64_t said = UINT64_MAX;
    for (std::uint64_t at : unquoted) {
        while (m + 1 < out.messages.size() && out.messages[m + 1].from_line <= at) ++m;
        if (out.messages.empty() || said == m) continue;
        said = m;
        out.diagnostics.push_back(
            {severity::note, diag_code::mbox_unquoted_from, cat("#", std::to_string(m + 1)), at,
             "a line of the body starts with \"From \" without the '>' an mbox writer adds, "
             "and no empty line comes before it: read as body text, not as a new message"});
    }
    if (!out.messages.empty()) {
        const mbox_message& last = out.messages.back();
        const std::string_view tail = s.substr(last.offset);
        if (!tail.empty() && !tail.ends_with("\n\n") && !tail.ends_with("\r\n\r\n") &&
            !tail.ends_with("\n\r\n"))
            out.diagnostics.push_back(
                {severity::warning, diag_code::mbox_truncated,
                 cat("#", std::to_string(out.messages.size())), s.size(),
                 "the mailbox ends without the empty line after its last message (cut, or "
                 "still being written); the last message is read to the end of the file"});
    }
    return out;
}

std::string unquote(std::string_view stored, mbox_format format) {
    if (format == mbox_format::mboxcl2) return std::string(stored);
    std::string out;
    out.reserve(stored.size());
    for (std::uint64_t at = 0; at < stored.size();) {
        const line l = line_at(stored, at);
        const std::string_view text = stored.substr(l.begin, l.text_end - l.begin);
        const bool strip = format == mbox_format::mboxrd ? is_quoted_from(text, false)
                                                         : text.starts_with(">From ");
        out.append(stored.substr(l.begin + (strip ? 1 : 0), l.next - l.begin - (strip ? 1 : 0)));
        at = l.next;
    }
    return out;
}

std::string quote(std::string_view message, mbox_format format) {
    if (format == mbox_format::mboxcl2) return std::string(message);
    std::string out;
    out.reserve(message.size() + 16);
    for (std::uint64_t at = 0; at < message.size();) {
        const line l = line_at(message, at);
        const std::string_view text = message.substr(l.begin, l.text_end - l.begin);
        const bool add = format == mbox_format::mboxrd
                             ? text.starts_with("From ") || is_quoted_from(text, false)
                             : text.starts_with("From ");
        if (add) out += '>';
        out.append(message.substr(l.begin, l.next - l.begin));
        at = l.next;
    }
    return out;
}

}  // namespace mhtml::store
