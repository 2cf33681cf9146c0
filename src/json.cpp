#include "mhtml/json.hpp"

#include "mhtml/utf8.hpp"

namespace mhtml::json {

void append_string(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    auto escape = [&](unsigned char c) {
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 15];
    };
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const std::size_t n = utf8::sequence_length(s, i);
            if (n == 0) {
                escape(c);
                ++i;
            } else {
                out.append(s.substr(i, n));
                i += n;
            }
            continue;
        }
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7F) {
            escape(c);
        } else {
            out += static_cast<char>(c);
        }
        ++i;
    }
    out += '"';
}

std::string quoted(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    append_string(out, s);
    return out;
}

}  // namespace mhtml::json
