// Diagnostics are capped per document (parse_limits::max_diagnostics): past the cap one
// final `diagnostics_dropped` diagnostic counts the rest, with the worst severity dropped,
// so memory stays bounded on an input of a million broken lines.
#include "mhtml/diagnostic.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/mime/document.hpp"

namespace mhtml {
namespace {

using ::testing::HasSubstr;

diagnostic make(severity s, std::uint64_t offset) {
    return {s, diag_code::header_8bit, "1", offset, "x"};
}

std::size_t count(const std::vector<diagnostic>& ds, diag_code c) {
    std::size_t n = 0;
    for (const auto& d : ds) n += d.code == c;
    return n;
}

// A header block of a million fields written "Name : value" (RFC 5322 §4.5.1 obsolete
// syntax: one header_name_whitespace note each), with CRLF line ends.
std::string million_broken_header_lines() {
    std::string in;
    in.reserve(8'000'100);
    for (int i = 0; i < 1'000'000; ++i) in += "X : y\r\n";
    in += "\r\nbody";
    return in;
}

TEST(DiagnosticCap, MillionBrokenHeaderLinesKeepCapPlusOne) {
    const std::string in = million_broken_header_lines();
    const mime::document doc = mime::document::parse(in);
    const auto& ds = doc.diagnostics();
    const std::size_t cap = parse_limits{}.max_diagnostics;
    ASSERT_EQ(cap, 10'000u);
    ASSERT_EQ(ds.size(), cap + 1);
    // The list never grew past what the cap needs.
    EXPECT_LE(ds.capacity(), 2 * (cap + 1));
    EXPECT_EQ(count(ds, diag_code::header_name_whitespace), cap);
    const diagnostic& last = ds.back();
    EXPECT_EQ(last.code, diag_code::diagnostics_dropped);
    EXPECT_EQ(last.part_path, "");
    // Dropped: the other 990,000 notes and header_count_limit (field 10,001, an error; the
    // fields after it are not interpreted), so the count is an error.
    EXPECT_EQ(dropped_count(last), 1'000'000u - cap + 1);
    EXPECT_EQ(last.sev, severity::error);
    EXPECT_EQ(last.offset, 10'000u * 7);  // the first dropped: the 10,001st line
    EXPECT_THAT(last.message, HasSubstr("990001 more diagnostics were dropped"));
    EXPECT_THAT(last.message, HasSubstr("at most 10000"));
    EXPECT_EQ(mime::serialize(doc), in);
}

// A million delimiter lines in a row (repeated_delimiter each), with a smaller cap.
TEST(DiagnosticCap, MillionRepeatedDelimitersWithAConfiguredCap) {
    std::string in = "Content-Type: multipart/mixed; boundary=b\r\n\r\n";
    in.reserve(6'100'000);
    for (int i = 0; i < 1'000'001; ++i) in += "--b\r\n";
    in += "\r\nx\r\n--b--\r\n";
    mime::parse_options opts;
    opts.limits.max_diagnostics = 100;
    const mime::document doc = mime::document::parse(in, opts);
    const auto& ds = doc.diagnostics();
    ASSERT_EQ(ds.size(), 101u);
    EXPECT_EQ(count(ds, diag_code::repeated_delimiter), 100u);
    EXPECT_EQ(ds.back().code, diag_code::diagnostics_dropped);
    EXPECT_EQ(dropped_count(ds.back()), 1'000'000u - 100u);
    EXPECT_EQ(ds.back().sev, severity::warning);  // only warnings were dropped
    ASSERT_EQ(doc.root().child_count(), 1u);
    EXPECT_EQ(mime::serialize(doc), in);
}

TEST(DiagnosticCap, UnderTheCapNothingIsAdded) {
    const std::string in = "Content-Type: multipart/mixed; boundary=b\n\n--b\n\nx\n";
    const mime::document doc = mime::document::parse(in);
    EXPECT_EQ(count(doc.diagnostics(), diag_code::diagnostics_dropped), 0u);
    EXPECT_EQ(doc.diagnostics().size(), 2u);  // missing_close_delimiter, line_ending_lf

    mime::parse_options exact;
    exact.limits.max_diagnostics = 2;
    EXPECT_EQ(mime::document::parse(in, exact).diagnostics().size(), 2u);

    mime::parse_options one;
    one.limits.max_diagnostics = 1;
    const std::vector<diagnostic> ds = mime::document::parse(in, one).diagnostics();
    ASSERT_EQ(ds.size(), 2u);
    EXPECT_EQ(ds[0].code, diag_code::missing_close_delimiter);
    EXPECT_EQ(ds[1].code, diag_code::diagnostics_dropped);
    EXPECT_EQ(dropped_count(ds[1]), 1u);
    EXPECT_EQ(ds[1].sev, severity::note);
    EXPECT_THAT(ds[1].message, HasSubstr("1 more diagnostic was dropped"));
}

TEST(DiagnosticCap, CapZeroKeepsOnlyTheCount) {
    mime::parse_options none;
    none.limits.max_diagnostics = 0;
    // The empty input's one diagnostic (empty_input) is over the cap.
    const std::vector<diagnostic> ds = mime::document::parse("", none).diagnostics();
    ASSERT_EQ(ds.size(), 1u);
    EXPECT_EQ(ds[0].code, diag_code::diagnostics_dropped);
    EXPECT_EQ(dropped_count(ds[0]), 1u);
    EXPECT_EQ(ds[0].sev, severity::warning);
}

TEST(DiagnosticCap, AppendCappedCountsPastTheCap) {
    std::vector<diagnostic> list;
    for (int i = 0; i < 3; ++i) append_capped(list, make(severity::note, i), 3);
    EXPECT_EQ(list.size(), 3u);
    append_capped(list, make(severity::warning, 10), 3);
    append_capped(list, make(severity::error, 11), 3);
    append_capped(list, make(severity::note, 12), 3);
    ASSERT_EQ(list.size(), 4u);
    EXPECT_EQ(list.back().code, diag_code::diagnostics_dropped);
    EXPECT_EQ(dropped_count(list.back()), 3u);
    EXPECT_EQ(list.back().sev, severity::error);
    EXPECT_EQ(list.back().offset, 10u);
    // Another list's count merges into this one's.
    append_capped(list, dropped_diagnostics(5, severity::ambiguous, 99, 3), 3);
    ASSERT_EQ(list.size(), 4u);
    EXPECT_EQ(dropped_count(list.back()), 8u);
    EXPECT_EQ(list.back().sev, severity::error);
    EXPECT_EQ(dropped_count(list.front()), 0u);  // not a count
}

TEST(DiagnosticCap, CapDiagnosticsFoldsTheTailAndEarlierCounts) {
    std::vector<diagnostic> list;
    for (int i = 0; i < 5; ++i) list.push_back(make(severity::note, i));
    cap_diagnostics(list, 5);  // within the cap: untouched
    EXPECT_EQ(list.size(), 5u);
    list.push_back(dropped_diagnostics(4, severity::note, 50, 5));  // as the parser leaves it
    list.push_back(make(severity::ambiguous, 60));                  // appended afterwards
    cap_diagnostics(list, 5);
    ASSERT_EQ(list.size(), 6u);
    EXPECT_EQ(dropped_count(list.back()), 5u);
    EXPECT_EQ(list.back().sev, severity::ambiguous);
    EXPECT_EQ(list.back().offset, 50u);
    cap_diagnostics(list, 2);
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[1].offset, 1u);
    EXPECT_EQ(dropped_count(list.back()), 8u);
    EXPECT_EQ(list.back().offset, 2u);
}

// The aggregate's own diagnostics (one per part here: a Content-Base that is not absolute)
// are capped the same way.
TEST(DiagnosticCap, AggregateDiagnosticsAreCapped) {
    std::string in = "Content-Type: multipart/related; boundary=b; type=\"text/html\"\r\n\r\n";
    for (int i = 0; i < 50; ++i)
        in += "--b\r\nContent-Type: text/html\r\nContent-Base: relative/" + std::to_string(i) +
              "/\r\n\r\n<p>" + std::to_string(i) + "</p>\r\n";
    in += "--b--\r\n";
    const mime::document doc = mime::document::parse(in);
    EXPECT_EQ(archive::aggregate::build(doc).diagnostics().size(), 50u);
    archive::aggregate_options opts;
    opts.max_diagnostics = 10;
    const auto agg = archive::aggregate::build(doc, opts);
    const auto& ds = agg.diagnostics();
    ASSERT_EQ(ds.size(), 11u);
    EXPECT_EQ(count(ds, diag_code::content_base_not_absolute), 10u);
    EXPECT_EQ(ds.back().code, diag_code::diagnostics_dropped);
    EXPECT_EQ(dropped_count(ds.back()), 40u);
    EXPECT_EQ(ds.back().sev, severity::error);
}

}  // namespace
}  // namespace mhtml
