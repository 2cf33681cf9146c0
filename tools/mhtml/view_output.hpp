#pragma once
// What `mhtml extract` and `mhtml inline` print alike: their notices and their errors.

#include <string>
#include <vector>

#include "json.hpp"
#include "mhtml/view/extract.hpp"

namespace mhtml::cli {

/// "notices": [{part, code, message}, ...] into an open JSON object.
inline void write_notices(json_writer& w, const std::vector<view::notice>& notices) {
    w.key("notices");
    w.begin_array();
    for (const auto& n : notices) {
        w.begin_object();
        w.key("part");
        w.string(n.part);
        w.key("code");
        w.string(n.code);
        w.key("message");
        w.string(n.message);
        w.end_object();
    }
    w.end_array();
}

/// One line per notice: "  note part PATH CODE: MESSAGE".
inline void append_notices(std::string& out, const std::vector<view::notice>& notices) {
    for (const auto& n : notices) {
        out += "  note part ";
        out += n.part.empty() ? "." : n.part;
        out += ' ';
        out += n.code;
        out += ": ";
        out += printable(n.message, 400);
        out += '\n';
    }
}

/// {"error": CODE, "message": MESSAGE} and a line break.
inline std::string error_json(const std::string& code, const std::string& message) {
    std::string out;
    json_writer w(out);
    w.begin_object();
    w.key("error");
    w.string(code);
    w.key("message");
    w.string(message);
    w.end_object();
    out += '\n';
    return out;
}

}  // namespace mhtml::cli
