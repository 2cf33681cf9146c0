#include "json.hpp"

namespace mhtml::cli {

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    std::size_t n;
    std::uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else
        return 0;
    if (i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return n;
}

void json_writer::string_raw(std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    out_ += '"';
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            out_ += '\\';
            out_ += char(c);
        } else if (c == '\n') {
            out_ += "\\n";
        } else if (c == '\r') {
            out_ += "\\r";
        } else if (c == '\t') {
            out_ += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            out_ += "\\u00";
            out_ += hex[c >> 4];
            out_ += hex[c & 15];
        } else if (c >= 0x80) {
            std::size_t n = utf8_sequence_length(s, i);
            if (n == 0) {
                out_ += "\\u00";
                out_ += hex[c >> 4];
                out_ += hex[c & 15];
                ++i;
                continue;
            }
            out_.append(s.substr(i, n));
            i += n;
            continue;
        } else {
            out_ += char(c);
        }
        ++i;
    }
    out_ += '"';
}

void write_diagnostics(json_writer& w, const std::vector<diagnostic>& diags, bool with_path) {
    w.key("diagnostics");
    w.begin_array();
    for (const diagnostic& d : diags) {
        w.begin_object();
        w.key("severity");
        w.string(severity_name(d.sev));
        w.key("code");
        w.string(code_name(d.code));
        if (with_path) {
            w.key("path");
            w.string(d.part_path);
        }
        w.key("offset");
        w.number(d.offset);
        w.key("message");
        w.string(d.message);
        w.end_object();
    }
    w.end_array();
}

std::string printable(std::string_view s, std::size_t max) {
    std::string out;
    for (char c : s.substr(0, max))
        out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    if (s.size() > max) out += "...";
    return out;
}

}  // namespace mhtml::cli
