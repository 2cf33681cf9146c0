#include "json.hpp"

#include "commands.hpp"

#include "mhtml/json.hpp"
#include "mhtml/pack/writer.hpp"

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
        w.number(file_offset(d.offset));
        w.key("message");
        w.string(d.message);
        w.end_object();
    }
    w.end_array();
}

void write_part_report(json_writer& w, const pack::part_report& p, std::string_view origin_key,
                       std::string_view origin) {
    w.begin_object();
    w.key("index");
    w.number(p.index);
    w.key(origin_key);
    w.string(origin);
    w.key("path");
    w.string(p.path);
    w.key("label");
    w.string(p.label);
    w.key("content_id");
    w.string(p.content_id);
    w.key("content_type");
    w.string(p.content_type);
    w.key("transfer_encoding");
    w.string(p.transfer_encoding);
    w.key("written");
    w.boolean(p.written);
    w.key("external");
    w.boolean(p.external);
    w.key("source_size");
    w.number(p.source_size);
    w.key("decoded_size");
    w.number(p.decoded_size);
    w.key("encoded_size");
    w.number(p.encoded_size);
    w.key("offset");
    w.number(p.offset);
    w.end_object();
}

void write_staged_diagnostic(json_writer& w, const diagnostic& d, std::string_view stage) {
    w.begin_object();
    w.key("stage");
    w.string(stage);
    w.key("severity");
    w.string(severity_name(d.sev));
    w.key("code");
    w.string(code_name(d.code));
    w.key("path");
    w.string(d.part_path);
    w.key("offset");
    w.number(file_offset(d.offset));
    w.key("message");
    w.string(d.message);
    w.end_object();
}

std::string printable(std::string_view s, std::size_t max) {
    std::string out;
    for (char c : s.substr(0, max))
        out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    if (s.size() > max) out += "...";
    return out;
}

}  // namespace mhtml::cli
