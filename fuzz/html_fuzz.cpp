/// libFuzzer target for the html/ layer: the tokenizer, the HTML scanner, the style sheet
/// scanner, the rewriter and where a policy goes.
///
/// Checks, on arbitrary input: nothing crashes; tokens are in order, non-empty and inside the
/// input; references are in order, inside the input and non-overlapping; a rewrite that
/// changes nothing returns the input byte for byte; a rewrite of every reference to a fixed
/// tricky value scans back to the same number of references, each with exactly that value;
/// with a policy inserted (html/policy.hpp), nothing but white space, comments and a DOCTYPE
/// precedes it in token order, so no script, handler, URL or refresh does (for an XML
/// document: it is the root element's first child); disabling refreshes keeps the length.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mhtml/html/policy.hpp"
#include "mhtml/html/rewrite.hpp"
#include "mhtml/html/scan.hpp"
#include "mhtml/html/tokenizer.hpp"

#include "fuzz_check.hpp"
#include "support/policy_check.hpp"

namespace {

using namespace mhtml::html;

void check_tokens_and_policy(std::string_view in, bool xml) {
    tokenizer tokens(in, xml);
    token t;
    std::size_t end = 0;
    while (tokens.next(t)) {
        MHTML_CHECK(t.begin >= end && t.end > t.begin && t.end <= in.size());
        end = t.end;
    }
    static const std::string policy = "script-src 'none'; object-src data:";
    if (!xml) {
        MHTML_CHECK(mhtml::test::policy_first_violation(
                        with_html_declarations(in, policy_meta(policy, false)), false)
                        .empty());
        std::string copy(in);
        disable_meta_refresh(copy);
        MHTML_CHECK(copy.size() == in.size());
        return;
    }
    if (find_xml_root(in).found)
        MHTML_CHECK(mhtml::test::policy_first_violation(
                        with_xml_declarations(in, policy_meta(policy, true)), true)
                        .empty());
}

void check(std::string_view in, bool css, bool svg) {
    if (!css) check_tokens_and_policy(in, svg);
    scan_result r = css ? scan_style_sheet(in) : scan_html(in, svg);
    std::size_t end = 0;
    for (const auto& ref : r.refs) {
        MHTML_CHECK(ref.offset >= end);
        MHTML_CHECK(ref.offset + ref.length <= in.size());
        end = ref.offset + ref.length;
    }
    if (r.base) MHTML_CHECK(*r.base < r.refs.size());
    MHTML_CHECK(rewrite(in, r.refs, [](const reference&) { return std::nullopt; }) == in);
    MHTML_CHECK(rewrite(in, r.refs, [](const reference& x) { return x.url; }) == in);
    static const std::string x = "x y\"'<>&()\\,=`</style>\xC3\xA9";
    std::string out = rewrite(in, r.refs, [](const reference&) { return x; });
    scan_result again = css ? scan_style_sheet(out) : scan_html(out, svg);
    MHTML_CHECK(again.refs.size() == r.refs.size());
    for (std::size_t i = 0; i < again.refs.size(); ++i) {
        const auto& a = again.refs[i];
        // srcset, lists and refresh URLs cannot hold white space or their separators as they
        // are: those are %-escaped, so only the other syntaxes must give x back exactly.
        if (a.syntax == value_syntax::srcset || a.syntax == value_syntax::list_item ||
            a.syntax == value_syntax::meta_refresh)
            continue;
        MHTML_CHECK(a.url == x);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
    switch (data[0] % 3) {
        case 0:
            check(in, false, false);
            break;
        case 1:
            check(in, true, false);
            break;
        default:
            check(in, false, true);
            break;
    }
    return 0;
}
