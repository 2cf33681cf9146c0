/// libFuzzer target for the reading outputs: file names for arbitrary labels, and the
/// inlined page of an arbitrary message.
///
/// Checks, on arbitrary input: every planned path is relative, has no empty, `.` or `..`
/// segment, uses only the safe alphabet, fits the length limits, and differs from every
/// other ignoring case; inlining never crashes or hangs, stays within its output budget (or
/// says it would not), and unless scripts are allowed the
/// page's script-blocking policy comes before everything but white space, comments, a
/// DOCTYPE and the charset declaration (tests/support/policy_check.hpp).

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "support/policy_check.hpp"
#include "mhtml/archive/aggregate.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/view/inline.hpp"
#include "mhtml/view/paths.hpp"

namespace {

bool safe(const std::string& p) {
    if (p.empty() || p.size() > 240 || p.front() == '/' || p.back() == '/') return false;
    std::size_t i = 0, segments = 0;
    while (i <= p.size()) {
        std::size_t j = std::min(p.find('/', i), p.size());
        std::string_view seg = std::string_view(p).substr(i, j - i);
        if (seg.empty() || seg == "." || seg == ".." || seg.front() == '.' || seg.size() > 80)
            return false;
        for (char c : seg) {
            const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                            (c >= '0' && c <= '9') ||
                            std::string_view("-_.~+=,@").find(c) != std::string_view::npos;
            if (!ok) return false;
        }
        ++segments;
        i = j + 1;
    }
    return segments <= 12;
}

std::string lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace mhtml;
    const std::string_view input(reinterpret_cast<const char*>(data), size);

    // File names: each line is a label, the first byte picks a content type.
    view::path_planner planner;
    MHTML_CHECK(planner.reserve("index.html"));
    std::set<std::string> seen = {"index.html"};
    static constexpr std::string_view types[] = {"text/html", "image/png", "text/css",
                                                 "application/octet-stream", ""};
    std::size_t line = 0;
    for (std::size_t i = 0; i < input.size() && line < 200; ++line) {
        std::size_t end = std::min(input.find('\n', i), input.size());
        std::string_view label = input.substr(i, end - i);
        i = end + 1;
        std::string why;
        std::string path =
            planner.add(label, types[line % 5], "part-" + std::to_string(line), &why);
        MHTML_CHECK(safe(path));
        MHTML_CHECK(seen.insert(lower(path)).second);
    }

    // The inlined page of the input read as a message.
    auto doc = mime::document::parse(std::string(input));
    auto agg = archive::aggregate::build(doc);
    for (bool allow : {false, true}) {
        std::string page;
        view::inline_options o;
        o.allow_scripts = allow;
        o.offline = size % 2 == 0;
        o.max_output = 4u << 20;  // frames that repeat each other stop here, not in memory
        auto r = view::inline_page(
            agg, [&](std::string_view piece) { page += piece; }, o);
        MHTML_CHECK(r.size == page.size() && page.size() <= o.max_output);
        if (!r.ok()) {
            MHTML_CHECK(r.error_code == "output_too_large");
            continue;
        }
        if (!allow) MHTML_CHECK(mhtml::test::policy_first_violation(page, false).empty());
    }
    return 0;
}
