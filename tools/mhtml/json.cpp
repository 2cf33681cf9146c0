#include "json.hpp"

#include "mhtml/json.hpp"

namespace mhtml::cli {

void json_writer::string_raw(std::string_view s) {
    json::append_string(out_, s);
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
