#pragma once
// Helpers for the malformed-input tests: line-end variants of one input, diagnostic codes as
// strings, a compact description of the recovered tree and the decoded body of a leaf.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "mhtml/diagnostic.hpp"
#include "mhtml/mime/document.hpp"

namespace mhtml::mime::test {

/// Every "\n" of `lf` becomes "\r\n".
inline std::string to_crlf(std::string_view lf) {
    std::string out;
    out.reserve(lf.size() + lf.size() / 16);
    for (char c : lf) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

/// One input written with one kind of line end.
struct line_end_variant {
    std::string name;  // "LF" or "CRLF"
    std::string text;  // the input
    bool crlf = false;

    /// `lf` (a body, a fragment) written with this variant's line ends.
    std::string adapt(std::string_view lf) const { return crlf ? to_crlf(lf) : std::string(lf); }
    std::string_view eol() const { return crlf ? "\r\n" : "\n"; }
    /// Offset of `lf_needle` (adapted) in the input; fails the test if it is not there.
    std::uint64_t at(std::string_view lf_needle, std::size_t from = 0) const {
        std::size_t p = text.find(adapt(lf_needle), from);
        EXPECT_NE(p, std::string::npos)
            << "\"" << lf_needle << "\" not in the " << name << " input";
        return p;
    }
    /// Expected diagnostic codes: `codes`, plus the note every all-LF input gets
    /// (line_ending_lf) when `header_line_ends` says a header block contains line ends.
    std::vector<std::string> expect(std::vector<std::string> codes,
                                    bool header_line_ends = true) const {
        if (!crlf && header_line_ends) codes.push_back("line_ending_lf");
        return codes;
    }
};

/// The input as written (LF line ends) and converted to CRLF.
inline std::vector<line_end_variant> both_line_ends(std::string_view lf) {
    return {{"LF", std::string(lf), false}, {"CRLF", to_crlf(lf), true}};
}

inline std::vector<std::string> codes(const std::vector<diagnostic>& ds) {
    std::vector<std::string> out;
    for (const diagnostic& d : ds) out.emplace_back(code_name(d.code));
    return out;
}

inline std::vector<std::string> codes(const document& doc) {
    return codes(doc.diagnostics());
}

inline std::string describe(const std::vector<diagnostic>& ds) {
    std::ostringstream os;
    for (const diagnostic& d : ds)
        os << "\n  " << code_name(d.code) << " path=\"" << d.part_path << "\" offset=" << d.offset
           << " (" << d.message << ")";
    return os.str();
}

/// True if the document has a diagnostic with this code, part path and (unless nullopt)
/// offset; otherwise the failure message lists every diagnostic.
inline ::testing::AssertionResult has_diag(const document& doc, std::string_view code,
                                           std::string_view path,
                                           std::optional<std::uint64_t> offset = std::nullopt) {
    for (const diagnostic& d : doc.diagnostics()) {
        if (code_name(d.code) == code && d.part_path == path && (!offset || d.offset == *offset))
            return ::testing::AssertionSuccess();
    }
    auto r = ::testing::AssertionFailure();
    r << "no diagnostic " << code << " at path \"" << path << "\"";
    if (offset) r << " offset " << *offset;
    r << "; the document has:" << describe(doc.diagnostics());
    return r;
}

inline std::string_view kind_name(entity_kind k) {
    switch (k) {
        case entity_kind::leaf:
            return "leaf";
        case entity_kind::multipart:
            return "multipart";
        case entity_kind::message:
            return "message";
    }
    return "?";
}

/// Every entity in depth-first order as "path: kind type/subtype".
inline std::vector<std::string> tree(const document& doc) {
    std::vector<std::string> out;
    for (const part_view& p : doc.parts())
        out.push_back(p.path() + ": " + std::string(kind_name(p.kind())) + " " +
                      p.content_type().essence());
    return out;
}

/// The decoded body of the entity at `path` ("" if there is none; the test then fails).
/// Codes of the decoder's diagnostics go to `decode_codes` if given; otherwise any decoder
/// diagnostic fails the test.
inline std::string body(const document& doc, std::string_view path,
                        std::vector<std::string>* decode_codes = nullptr,
                        std::vector<diagnostic>* decode_diags = nullptr) {
    std::optional<part_view> p = doc.find(path);
    if (!p) {
        ADD_FAILURE() << "no entity at path \"" << path << "\"";
        return {};
    }
    std::string out;
    std::vector<diagnostic> ds;
    p->decode_to(out, ds);
    if (decode_codes) {
        *decode_codes = codes(ds);
    } else {
        EXPECT_TRUE(ds.empty()) << "decoding \"" << path << "\":" << describe(ds);
    }
    if (decode_diags) *decode_diags = ds;
    return out;
}

inline parse_options with_limits(std::size_t max_depth, std::size_t max_header_block,
                                 std::size_t max_parts) {
    parse_options o;
    o.limits.max_depth = max_depth;
    o.limits.max_header_block = max_header_block;
    o.limits.max_parts = max_parts;
    return o;
}

}  // namespace mhtml::mime::test
