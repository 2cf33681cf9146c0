/// libFuzzer target for the streaming writer (pack/writer.hpp): an arbitrary HTML root and
/// up to eight resources held in memory (arbitrary octets, labels, Content-IDs and types
/// picked by the input), written with arbitrary options (method, mail mode, Content-MD5,
/// external bodies, where the root goes), then read back with mime::document::parse.
///
/// Checks: the writer never fails on a string sink; the output parses with no `ambiguous` or
/// `error` diagnostic; it is one multipart/related (inside a message in mail mode) whose
/// parts are those the report lists at the paths it gives; and every part written whole
/// decodes to exactly what was packed after the writer's documented conversions: none for a
/// type that is not text; for text (charset UTF-8, no Content-Encoding), line ends made
/// canonical CRLF (MHT-11.4: a bare CR or LF becomes CRLF, CRLF stays), except text behind a
/// UTF-16/32 byte order mark, which the writer transcodes (MHT-11.7, `text_transcoded`).

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/pack/writer.hpp"

namespace {

std::string canonical_text(std::string_view s) {
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\r') {
            out += "\r\n";
            if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
        } else if (s[i] == '\n') {
            out += "\r\n";
        } else {
            out += s[i];
        }
    }
    return out;
}

constexpr const char* types[] = {
    "application/octet-stream",
    "image/png",
    "font/woff2",
    "text/css; charset=utf-8",
    "text/plain; charset=utf-8",
    "text/javascript; charset=UTF-8",
    "image/svg+xml",
};

bool is_text(std::string_view type) {
    return type.starts_with("text/");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace mhtml;
    FuzzedDataProvider in(data, size);

    pack::writer_options o;
    o.date = std::chrono::system_clock::time_point{};
    o.method = static_cast<pack::method>(in.ConsumeIntegralInRange<int>(0, 2));
    o.mail = in.ConsumeBool();
    o.content_md5 = in.ConsumeBool();
    o.external_over = in.ConsumeBool() ? in.ConsumeIntegralInRange<std::uint64_t>(1, 64) : 0;
    o.root_position = o.mail ? 0 : in.ConsumeIntegralInRange<std::size_t>(0, 3);
    if (in.ConsumeBool()) o.subject = in.ConsumeRandomLengthString(80);
    if (o.mail) {
        o.from = "Ann <ann@e.example>";
        o.to = "bob@e.example";
    }

    std::vector<pack::resource> res;
    const std::size_t count = in.ConsumeIntegralInRange<std::size_t>(1, 9);
    for (std::size_t i = 0; i < count; ++i) {
        pack::resource r;
        if (i == 0) {
            r.content_type = "text/html; charset=utf-8";
        } else {
            r.content_type = types[in.ConsumeIntegralInRange<std::size_t>(0, std::size(types) - 1)];
        }
        switch (in.ConsumeIntegralInRange<int>(0, 3)) {
            case 0:
                r.label = "r" + std::to_string(i) + ".bin";
                break;
            case 1:
                r.label = "http://e.example/d/r" + std::to_string(i);
                break;
            case 2:
                r.label = in.ConsumeRandomLengthString(100);
                break;
            default:
                break;  // no label
        }
        if (in.ConsumeBool()) r.content_id = in.ConsumeRandomLengthString(40);
        r.data = in.ConsumeRandomLengthString(i == 0 ? 4000 : 2000);
        r.origin = "#" + std::to_string(i);
        res.push_back(std::move(r));
    }
    if (in.remaining_bytes() > 0) res.back().data += in.ConsumeRemainingBytesAsString();

    std::string out;
    pack::string_sink sink(out);
    const pack::write_report rep =
        pack::write_archive(sink, res.front(), std::span(res).subspan(1), o);
    MHTML_CHECK(rep.ok());
    MHTML_CHECK(rep.bytes == out.size());
    MHTML_CHECK(rep.parts.size() == res.size());

    const mime::document doc = mime::document::parse(out);
    for (const diagnostic& d : doc.diagnostics()) {
        if (d.sev >= severity::ambiguous) {
            std::fprintf(stderr, "%s at %s: %s\n", std::string(code_name(d.code)).c_str(),
                         d.part_path.c_str(), d.message.c_str());
        }
        MHTML_CHECK(d.sev < severity::ambiguous);
    }
    if (doc.root().content_type().essence() != "multipart/related")
        std::fprintf(stderr, "%.*s\n", static_cast<int>(std::min<std::size_t>(out.size(), 1500)),
                     out.data());
    MHTML_CHECK(doc.root().content_type().essence() == "multipart/related");

    std::map<std::string, std::size_t> by_path;
    for (std::size_t i = 0; i < doc.size(); ++i) by_path.emplace(doc.part(i).path(), i);
    for (const pack::part_report& p : rep.parts) {
        if (!p.written) continue;
        const auto it = by_path.find(p.path);
        MHTML_CHECK(it != by_path.end());
        if (p.external) continue;
        const mime::part_view v = doc.part(it->second);
        MHTML_CHECK(v.is_leaf());
        std::string decoded;
        v.decode_to(decoded);
        MHTML_CHECK(decoded.size() == p.decoded_size);
        const pack::resource& r = res.at(p.index);
        // MHT-11.7: text behind a UTF-16 or UTF-32 byte order mark is transcoded to UTF-8
        // (and says so); its octets are not compared.
        bool transcoded = false;
        for (const diagnostic& d : rep.diagnostics)
            transcoded |= d.code == diag_code::text_transcoded && d.part_path == p.path;
        if (transcoded && is_text(r.content_type)) continue;
        const std::string want = is_text(r.content_type) ? canonical_text(r.data) : r.data;
        if (decoded != want) {
            std::fprintf(stderr, "part %s (#%zu, %s, %s): %zu octets decoded, %zu packed\n",
                         p.path.c_str(), p.index, r.content_type.c_str(),
                         p.transfer_encoding.c_str(), decoded.size(), want.size());
        }
        MHTML_CHECK(decoded == want);
    }
    return 0;
}
