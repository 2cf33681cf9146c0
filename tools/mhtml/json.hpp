#pragma once
// A minimal streaming JSON writer for the CLI's --json output. Strings are written as
// UTF-8; octets that are not valid UTF-8 are written as \u00XX (their Latin-1 reading),
// so the output is always valid JSON whatever the archive contains.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/diagnostic.hpp"

namespace mhtml::pack {
struct part_report;
}

namespace mhtml::cli {

class json_writer {
public:
    explicit json_writer(std::string& out) : out_(out) {}
    void begin_object() {
        value_prefix();
        out_ += '{';
        first_ = true;
    }
    void end_object() {
        out_ += '}';
        first_ = false;
    }
    void begin_array() {
        value_prefix();
        out_ += '[';
        first_ = true;
    }
    void end_array() {
        out_ += ']';
        first_ = false;
    }
    void key(std::string_view k) {
        if (!first_) out_ += ',';
        first_ = true;
        string_raw(k);
        out_ += ':';
        after_key_ = true;
    }
    void string(std::string_view s) {
        value_prefix();
        string_raw(s);
    }
    void number(std::uint64_t n) {
        value_prefix();
        out_ += std::to_string(n);
    }
    void boolean(bool b) {
        value_prefix();
        out_ += b ? "true" : "false";
    }
    void null() {
        value_prefix();
        out_ += "null";
    }

private:
    void value_prefix() {
        if (after_key_) {
            after_key_ = false;
        } else if (!first_) {
            out_ += ',';
        }
        first_ = false;
    }
    void string_raw(std::string_view s);

    std::string& out_;
    bool first_ = true;
    bool after_key_ = false;
};

/// Writes `"diagnostics": [{severity, code, [path,] offset, message}, ...]` (the key too).
/// `with_path` adds the part path, for diagnostics that belong to a part of a document.
void write_diagnostics(json_writer& w, const std::vector<diagnostic>& diags, bool with_path);

/// One written part as `{index, ORIGIN_KEY: origin, path, label, content_id, content_type,
/// transfer_encoding, written, external, source_size, decoded_size, encoded_size, offset}`
/// (pack names where it came from `origin`, repair the input part `input_part`).
void write_part_report(json_writer& w, const pack::part_report& p, std::string_view origin_key,
                       std::string_view origin);

/// One diagnostic as `{stage, severity, code, path, offset, message}` (an array element), for
/// commands whose diagnostics come from several stages (pack: collect, write; repair: read,
/// write).
void write_staged_diagnostic(json_writer& w, const diagnostic& d, std::string_view stage);

/// Text for one line of a listing: control octets become '?'; longer than `max` octets,
/// the rest is replaced by "...".
std::string printable(std::string_view s, std::size_t max = static_cast<std::size_t>(-1));

}  // namespace mhtml::cli
