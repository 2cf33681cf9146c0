/// libFuzzer target for pack::repair_bytes: any input is read with every salvage and written
/// canonical.
///
/// Checks, on arbitrary input: nothing crashes or hangs; the output is strictly CRLF and
/// parses with no parser finding of warning level or above; it has one part per leaf written;
/// and repair(repair(x)) == repair(x).

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/pack/repair.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace mhtml;
    if (size > (1u << 16)) return 0;
    const std::string in(reinterpret_cast<const char*>(data), size);
    pack::repair_options o;
    o.write.date_field = "Tue, 24 Nov 2026 10:00:00 +0000";  // when the input has none
    std::string out;
    pack::string_sink sink(out);
    const pack::repair_report r = pack::repair_bytes(in, sink, o);
    if (!r.ok()) return 0;  // nothing to write (no leaf)
    for (std::size_t i = 0; i < out.size(); ++i)
        if (out[i] == '\n') MHTML_CHECK(i > 0 && out[i - 1] == '\r');
    const auto doc = mime::document::parse(out);
    for (const auto& d : doc.diagnostics()) MHTML_CHECK(d.sev < severity::warning);
    std::size_t leaves = 0;
    for (const auto& p : doc.parts()) leaves += p.is_leaf() ? 1 : 0;
    std::size_t written = 0;
    for (const auto& p : r.written.parts) written += p.written ? 1 : 0;
    MHTML_CHECK(leaves == written);
    // Idempotent: repairing the output gives it back, octet for octet (the Date is pinned).
    std::string second;
    pack::string_sink sink2(second);
    MHTML_CHECK(pack::repair_bytes(out, sink2, o).ok());
    MHTML_CHECK(second == out);
    return 0;
}
