#pragma once
// Turns an entity tree of the spec vectors (base_uri.json `message`, related_root.json
// `related`) into a MIME message, so the archive layer is tested on parsed input exactly as
// it reads real files. Field bodies are written as the vectors give them (folding included);
// a leaf with `html_base` or `refs` gets an HTML body with <base href> and one <a href> per
// reference; multiparts take their boundary from their content_type.

#include "mhtml/mime/content_type.hpp"
#include "spec/vectors.hpp"

#include <string>

namespace mhtml::test {

inline std::string html_attribute(const std::string& v) {
    std::string out;
    for (char c : v) {
        if (c == '&') {
            out += "&amp;";
        } else if (c == '"') {
            out += "&quot;";
        } else {
            out += c;
        }
    }
    return out;
}

inline void append_field(std::string& out, const char* name, const std::string& body) {
    out += name;
    out += ':';
    if (!body.empty() && body[0] != '\r' && body[0] != '\n' && body[0] != ' ' && body[0] != '\t')
        out += ' ';
    out += body;
    out += "\r\n";
}

/// The MIME text of `e` (headers, empty line, body), without a trailing line end.
inline std::string entity_text(const nlohmann::json& e) {
    std::string out;
    std::string ct =
        e.contains("content_type") && !e["content_type"].is_null() ? octets(e["content_type"]) : "";
    if (!ct.empty()) append_field(out, "Content-Type", ct);
    for (auto [key, name] :
         {std::pair{"content_id", "Content-ID"}, std::pair{"content_location", "Content-Location"},
          std::pair{"content_base", "Content-Base"}}) {
        if (e.contains(key) && !e[key].is_null()) append_field(out, name, octets(e[key]));
    }
    out += "\r\n";
    if (e.contains("parts") && !e["parts"].empty()) {
        mime::value_issues issues;
        auto parsed = mime::parse_content_type(ct, issues);
        std::string boundary(parsed.param("boundary").value_or("boundary"));
        for (auto& p : e["parts"]) {
            out += "--" + boundary + "\r\n";
            out += entity_text(p);
            out += "\r\n";
        }
        out += "--" + boundary + "--";
        return out;
    }
    if (e.contains("html_base") && !e["html_base"].is_null())
        out += "<base href=\"" + html_attribute(octets(e["html_base"])) + "\">\r\n";
    if (e.contains("refs"))
        for (auto& r : e["refs"])
            out += "<a href=\"" + html_attribute(octets(r["uri"])) + "\">x</a>\r\n";
    if (!e.contains("refs") && !e.contains("html_base")) out += "body";
    return out;
}

/// A whole message: MIME-Version and the entity.
inline std::string message_text(const nlohmann::json& e) {
    return "MIME-Version: 1.0\r\n" + entity_text(e) + "\r\n";
}

}  // namespace mhtml::test
