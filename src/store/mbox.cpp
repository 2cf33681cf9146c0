// The messages of an mbox file (include/mhtml/store/mbox.hpp).

#include "mhtml/store/mbox.hpp"

#include <algorithm>
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

// The message that starts with the From_ line at `at`, by its Content-Length: where its body
// ends, when the length lands on an empty line followed by a From_ line or on the end of the
// file; nullopt when it has none; `bad` when it has one that does not land.
struct length_end {
    std::uint64_t body_end = 0;  // where the Content-Length says the body ends
    std::uint64_t next = 0;      // the next From_ line (or the end of the file)
};
std::optional<length_end> by_length(std::string_view s, std::uint64_t at, bool& bad) {
    bad = false;
    const line from = line_at(s, at);
    const auto cl = content_length(s, from.next);
    if (!cl) return std::nullopt;
    if (cl->first > s.size() - cl->second) {
        bad = true;
        return std::nullopt;
    }
    const std::uint64_t end = cl->second + cl->first;
    if (end == s.size()) return length_end{end, end};
    const line sep = line_at(s, end);  // the empty line after the body
    if (sep.text_end != sep.begin ||
        (sep.next < s.size() && !is_from_line(s, line_at(s, sep.next)))) {
        bad = true;
        return std::nullopt;
    }
    return length_end{end, sep.next};
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
            // "From " SENDER SP DATE, the date as ctime writes it: a time HH:MM and a year of
            // four digits. "From :" is the obsolete header form, not a From_ line.
            if (!text.starts_with("From ") || text.substr(5).starts_with(":") ||
                text.substr(5).starts_with(" "))
                return false;
            bool time = false, year = false;
            const auto digit = [](char c) { return c >= '0' && c <= '9'; };
            for (std::size_t i = 5; i + 4 < text.size() + 1; ++i) {
                if (i + 5 <= text.size() && digit(text[i]) && digit(text[i + 1]) &&
                    text[i + 2] == ':' && digit(text[i + 3]) && digit(text[i + 4]))
                    time = true;
                if (i + 4 <= text.size() && text[i - 1] == ' ' && digit(text[i]) &&
                    digit(text[i + 1]) && digit(text[i + 2]) && digit(text[i + 3]) &&
                    (i + 4 == text.size() || !digit(text[i + 4])))
                    year = true;
            }
            return time && year;
        }
        at = l.next;
    }
    return false;
}

mbox_split split_mbox(std::string_view s, std::optional<mbox_format> forced) {
    mbox_split out;
    std::vector<std::uint64_t> unquoted;
    const std::vector<std::uint64_t> line_starts = line_rule(s, unquoted);
    // Octets before the first From_ line (other than empty lines) are a message of their own.
    const std::uint64_t first = line_starts.empty() ? s.size() : line_starts.front();
    bool headless = false;
    for (std::uint64_t i = 0; i < first; ++i)
        if (s[i] != '\r' && s[i] != '\n') {
            headless = true;
            break;
        }

    // The messages: by Content-Length where a message has one that ends it well (unless
    // mboxo or mboxrd is forced), else to the next From_ line after an empty line.
    struct span {
        std::uint64_t from, body_end;  // body_end: exact (by length), or 0: by the line rule
        bool by_length;
    };
    std::vector<span> spans;
    std::size_t lengths = 0, bad_lengths = 0;
    const bool lines_only = forced && *forced != mbox_format::mboxcl2;
    for (std::uint64_t at = first; at < s.size();) {
        bool bad = false;
        const auto le = lines_only ? std::nullopt : by_length(s, at, bad);
        if (bad) {
            ++bad_lengths;
            out.diagnostics.push_back(
                {severity::warning, diag_code::mbox_bad_content_length,
                 cat("#", std::to_string(spans.size() + 1 + (headless ? 1 : 0))), at,
                 "the message's Content-Length points past the file or not at the empty line "
                 "before a From_ line; it is ignored, and the message ends at the next From_ "
                 "line"});
        }
        if (le) {
            ++lengths;
            spans.push_back({at, le->body_end, true});
            at = le->next;
            continue;
        }
        spans.push_back({at, 0, false});
        const auto next = std::upper_bound(line_starts.begin(), line_starts.end(), at);
        at = next == line_starts.end() ? s.size() : *next;
    }
    out.ended_by_length = lengths;
    if (forced && *forced == mbox_format::mboxcl2 && lengths == 0 && !spans.empty() &&
        bad_lengths == 0)
        out.diagnostics.push_back(
            {severity::warning, diag_code::mbox_bad_content_length, "", first,
             "mboxcl2 was asked for, but no message has a Content-Length; the mailbox is split "
             "by its From_ lines"});

    // Quoting: ">>From " means mboxrd; with lengths, quoted lines and no unquoted "From "
    // line at a line start of a body mean the writer quoted too (mboxcl), so it is undone.
    bool deep = false, shallow = false;
    for (std::uint64_t at = 0; at < s.size();) {
        const line l = line_at(s, at);
        const std::string_view text = s.substr(l.begin, l.text_end - l.begin);
        deep |= is_quoted_from(text, true);
        shallow |= is_quoted_from(text, false);
        at = l.next;
    }
    if (forced) {
        out.format = *forced;
    } else if (lengths > 0) {
        bool bare_from_in_body = false;  // "From " at a line start inside a length-split body
        for (const span& sp : spans)
            if (sp.by_length) {
                const line from = line_at(s, sp.from);
                for (std::uint64_t at = from.next; at < sp.body_end && !bare_from_in_body;) {
                    const line l = line_at(s, at);
                    bare_from_in_body = is_from_line(s, l);
                    at = l.next;
                }
            }
        out.format = shallow && !bare_from_in_body
                         ? (deep ? mbox_format::mboxrd : mbox_format::mboxo)
                         : mbox_format::mboxcl2;
    } else {
        out.format = deep ? mbox_format::mboxrd : mbox_format::mboxo;
    }
    if (!spans.empty()) {
        const line l = line_at(s, spans.front().from);
        out.crlf = l.next > l.text_end + 1;
    }

    const auto add = [&](std::uint64_t from, std::uint64_t begin, std::uint64_t end,
                         std::optional<std::uint64_t> exact, std::string envelope) {
        mbox_message m;
        m.from_line = from;
        m.offset = begin;
        m.envelope = std::move(envelope);
        std::uint64_t size = end - begin;
        if (exact) {
            size = *exact - begin;
        } else if (end < s.size() || (size > 0 && s[end - 1] == '\n')) {
            // The empty line that separates it from the next From_ line is not the message's.
            const std::string_view body = s.substr(begin, size);
            if (body == "\n" || body == "\r\n")
                size = 0;
            else if (body.ends_with("\r\n\r\n") || body.ends_with("\n\r\n"))
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
        out.diagnostics.insert(
            out.diagnostics.begin(),
            {severity::warning, diag_code::mbox_missing_from_line, "#1", 0,
             "the mailbox does not start with a From_ line; the octets before the first one are "
             "read as a message of their own"});
        add(0, 0, first, std::nullopt, "");
    }
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const line from = line_at(s, spans[i].from);
        const std::uint64_t end = i + 1 < spans.size() ? spans[i + 1].from : s.size();
        add(spans[i].from, from.next, end,
            spans[i].by_length ? std::optional<std::uint64_t>(spans[i].body_end) : std::nullopt,
            std::string(s.substr(from.begin + 5, from.text_end - from.begin - 5)));
    }
    // Unquoted "From " lines inside a body split by the line rule: said once per message.
    std::size_t m = 0;
    std::uint64_t said = UINT64_MAX;
    const auto split_by_length = [&](std::uint64_t at) {  // a From_ line or a body of mboxcl2
        // spans are in file order: the last that starts at or before `at`.
        auto it = std::upper_bound(spans.begin(), spans.end(), at,
                                   [](std::uint64_t x, const span& sp) { return x < sp.from; });
        if (it == spans.begin()) return false;
        const span& sp = *std::prev(it);
        return sp.by_length && (sp.from == at || at < sp.body_end);
    };
    for (std::uint64_t at : unquoted) {
        while (m + 1 < out.messages.size() && out.messages[m + 1].from_line <= at) ++m;
        if (out.messages.empty() || said == m || (lengths > 0 && split_by_length(at))) continue;
        said = m;
        out.diagnostics.push_back(
            {severity::note, diag_code::mbox_unquoted_from, cat("#", std::to_string(m + 1)), at,
             "a line of the body starts with \"From \" without the '>' an mbox writer adds, "
             "and no empty line comes before it: read as body text, not as a new message"});
    }
    if (!out.messages.empty()) {
        const std::string_view tail = s.substr(out.messages.back().from_line);
        // A message ended by its length (at the end of the file, or at the empty line that
        // ends it) is whole.
        const bool by_length_to_end = !spans.empty() && spans.back().by_length;
        if (!tail.empty() && !by_length_to_end && !tail.ends_with("\n\n") &&
            !tail.ends_with("\r\n\r\n") && !tail.ends_with("\n\r\n"))
            out.diagnostics.push_back(
                {severity::warning, diag_code::mbox_truncated,
                 cat("#", std::to_string(out.messages.size())), s.size(),
                 "the mailbox ends without the empty line after its last message (cut, or "
                 "still being written); the last message is read to the end of the file"});
    }
    return out;
}

std::string unquote(std::string_view stored, mbox_format format) {
    return unquote(stored, format, nullptr);
}

std::uint64_t message_origin::file_offset(std::uint64_t at) const noexcept {
    // A '>' removed before a line is counted for every octet after the line's start; the
    // line's first octet itself is given as where its line starts in the file (the '>'), as
    // a diagnostic about the line means.
    const auto removed_before = static_cast<std::uint64_t>(
        std::lower_bound(unquoted_lines.begin(), unquoted_lines.end(), at) -
        unquoted_lines.begin());
    return offset + at + removed_before;
}

std::string unquote(std::string_view stored, mbox_format format, message_origin* origin) {
    if (origin) origin->unquoted_lines.clear();
    if (format == mbox_format::mboxcl2) return std::string(stored);
    std::string out;
    out.reserve(stored.size());
    for (std::uint64_t at = 0; at < stored.size();) {
        const line l = line_at(stored, at);
        const std::string_view text = stored.substr(l.begin, l.text_end - l.begin);
        const bool strip = format == mbox_format::mboxrd ? is_quoted_from(text, false)
                                                         : text.starts_with(">From ");
        if (strip && origin) origin->unquoted_lines.push_back(out.size());
        out.append(stored.substr(l.begin + (strip ? 1 : 0), l.next - l.begin - (strip ? 1 : 0)));
        at = l.next;
    }
    return out;
}

std::string_view message_text(std::string_view mailbox, const mbox_message& m, mbox_format format,
                              std::string& storage) {
    const std::string_view stored = mailbox.substr(m.offset, m.size);
    if (!m.quoted || format == mbox_format::mboxcl2) return stored;
    storage = unquote(stored, format);
    return storage;
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
