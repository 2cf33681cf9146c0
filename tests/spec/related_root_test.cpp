// Root of a multipart/related (tests/data/spec/related_root.json; multipart/related draft
// 3.1-3.4 = REQUIREMENTS REL-3.*, MHTML draft 7 = MHT-7.*, THTML-8.2, CID-8): every vector
// parsed from MIME text, by default and with `strict`, then the rows the vectors do not
// spell out.
#include "mhtml/archive/root.hpp"

#include "mhtml/mime/document.hpp"
#include "mhtml/uri/cid.hpp"
#include "spec/vector_message.hpp"
#include "spec/vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace mhtml::archive {
namespace {

using test::codes;
using test::load_vectors;
using test::octets;

// A part's path relative to `related` ("1" = its first body part); "" for none.
std::string relative_path(const std::optional<mime::part_view>& p, const mime::part_view& related) {
    if (!p) return {};
    std::string path = p->path();
    std::string prefix = related.path();
    if (prefix.empty()) return path;
    prefix += '.';
    EXPECT_TRUE(path.starts_with(prefix)) << path << " is not inside " << related.path();
    return path.substr(prefix.size());
}

std::string expected_path(const nlohmann::json& j) {
    return j.is_null() ? std::string() : j.get<std::string>();
}

// The codes in `diags` that the vector file lists, sorted (repeats kept).
std::vector<std::string> file_codes(const std::vector<diagnostic>& diags,
                                    const nlohmann::json& file) {
    std::vector<std::string> out;
    for (const auto& d : diags) {
        std::string name(code_name(d.code));
        if (file["diagnostic_codes"].contains(name)) out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

std::vector<std::string> all_codes(const std::vector<diagnostic>& diags) {
    std::vector<std::string> out;
    for (const auto& d : diags) out.emplace_back(code_name(d.code));
    return sorted(std::move(out));
}

bool has_code(const std::vector<diagnostic>& diags, diag_code c) {
    return std::any_of(diags.begin(), diags.end(),
                       [&](const diagnostic& d) { return d.code == c; });
}

// Every diagnostic names the related, points into the input and says something.
void expect_well_formed(const std::vector<diagnostic>& diags, const mime::part_view& related) {
    for (const auto& d : diags) {
        EXPECT_EQ(d.part_path, related.path()) << code_name(d.code);
        EXPECT_LT(d.offset, related.doc().bytes().size()) << code_name(d.code);
        EXPECT_FALSE(d.message.empty()) << code_name(d.code);
    }
}

TEST(RelatedRoot, REL_3_And_MHT_7_AllVectors) {
    auto file = load_vectors("related_root.json");
    std::size_t n = 0;
    for (const auto& v : file["vectors"]) {
        const std::string id = v["id"].get<std::string>();
        SCOPED_TRACE(id);
        ++n;
        for (const auto& c : codes(v, "expected_diagnostics"))
            EXPECT_TRUE(file["diagnostic_codes"].contains(c)) << c;
        auto doc = mime::document::parse(test::message_text(v["related"]));
        const mime::part_view related = doc.root();
        ASSERT_TRUE(related.content_type().is("multipart", "related"));
        const auto parser_codes = all_codes(doc.diagnostics());
        for (const auto& c : codes(v, "parser_diagnostics"))
            EXPECT_NE(std::find(parser_codes.begin(), parser_codes.end(), c), parser_codes.end())
                << "the parser did not report " << c;

        // Default: the toolkit's answer, recoveries included.
        std::vector<diagnostic> diags;
        root_selection sel = select_root(related, {}, &diags);
        EXPECT_EQ(relative_path(sel.start, related), expected_path(v["expected_start"]));
        EXPECT_EQ(relative_path(sel.root, related), expected_path(v["expected_root"]));
        EXPECT_EQ(file_codes(diags, file), sorted(codes(v, "expected_diagnostics")));
        expect_well_formed(diags, related);

        // The parameters as the Content-Type parser gave them.
        const auto& params = v["params"];
        EXPECT_EQ(sel.type.value_or("(none)"),
                  params["type"].is_null() ? "(none)" : octets(params["type"]));
        EXPECT_EQ(sel.start_info.value_or("(none)"),
                  params["start_info"].is_null() ? "(none)" : octets(params["start_info"]));
        if (v.contains("expected_start_info")) {
            const auto& si = v["expected_start_info"];
            if (si["kind"] == "value") {
                EXPECT_FALSE(sel.start_info_is_cid_list);
                EXPECT_EQ(sel.start_info.value_or(""), octets(si["value"]));
                EXPECT_TRUE(sel.start_info_ids.empty());
            } else {
                ASSERT_EQ(si["kind"], "references");
                EXPECT_TRUE(sel.start_info_is_cid_list);
                std::vector<std::string> ids;
                for (const auto& r : si["refs"]) ids.push_back(uri::id_key(octets(r)));
                EXPECT_EQ(sel.start_info_ids, ids);
            }
        } else if (!sel.start_info) {
            EXPECT_FALSE(sel.start_info_is_cid_list);
            EXPECT_TRUE(sel.start_info_ids.empty());
        }

        // --strict: literal RFC 2387, where the vector gives it; otherwise the same answer.
        std::vector<diagnostic> strict_diags;
        root_selection strict = select_root(related, {.strict = true}, &strict_diags);
        if (!v.contains("strict_root")) {
            EXPECT_EQ(relative_path(strict.start, related), expected_path(v["expected_start"]));
        }
        EXPECT_EQ(relative_path(strict.root, related),
                  expected_path(v.contains("strict_root") ? v["strict_root"] : v["expected_root"]));
        EXPECT_EQ(file_codes(strict_diags, file),
                  sorted(codes(v, v.contains("strict_diagnostics") ? "strict_diagnostics"
                                                                   : "expected_diagnostics")));
        expect_well_formed(strict_diags, related);

        // Without a diagnostics sink the answer is the same.
        root_selection quiet = select_root(related);
        EXPECT_EQ(quiet.start, sel.start);
        EXPECT_EQ(quiet.root, sel.root);
    }
    EXPECT_EQ(n, 25u);
}

// --- message builders for the rows the vectors do not spell out -------------------------

struct part_spec {
    std::string content_type;
    std::string content_id;  // field body; empty = no field
    std::vector<part_spec> parts;
};

std::string entity(const part_spec& p, int depth = 0) {
    std::string out = "Content-Type: ";
    out += p.content_type;
    out += "\r\n";
    if (!p.content_id.empty()) {
        out += "Content-ID: ";
        out += p.content_id;
        out += "\r\n";
    }
    out += "\r\n";
    if (p.parts.empty() && p.content_type.starts_with("multipart/")) {
        out += "--b";
        out += std::to_string(depth);
        out += "--";
        return out;
    }
    if (p.parts.empty()) {
        out += "body";
        return out;
    }
    for (const part_spec& c : p.parts) {
        out += "--b";
        out += std::to_string(depth);
        out += "\r\n";
        out += entity(c, depth + 1);
        out += "\r\n";
    }
    out += "--b";
    out += std::to_string(depth);
    out += "--";
    return out;
}

// A multipart/related (boundary b0, parameters `params`) holding `parts`.
mime::document related_doc(const std::string& params, std::vector<part_spec> parts) {
    std::string type = "multipart/related; boundary=b0";
    type += params;
    part_spec top{std::move(type), "", std::move(parts)};
    std::string text = "MIME-Version: 1.0\r\n";
    text += entity(top);
    text += "\r\n";
    return mime::document::parse(std::move(text));
}

std::string alternative_type(int depth) {
    std::string t = "multipart/alternative; boundary=b";
    t += std::to_string(depth);
    return t;
}

TEST(RelatedRoot, REL_3_2_2_StartFormsAllMatch) {
    struct form {
        const char* param;
        bool unbracketed;
    };
    for (form f :
         {form{"; start=\"<a@b>\"", false}, form{"; start=<a@b>", false}, form{"; start=a@b", true},
          form{"; start=\"a@b\"", true}, form{"; start=\" <a@b> \"", false}}) {
        SCOPED_TRACE(f.param);
        auto doc = related_doc(std::string("; type=\"text/html\"") + f.param,
                               {{"image/png", "<i@b>", {}}, {"text/html", "<a@b>", {}}});
        std::vector<diagnostic> diags;
        auto sel = select_root(doc.root(), {}, &diags);
        ASSERT_TRUE(sel.root);
        EXPECT_EQ(sel.root->path(), "2");
        EXPECT_EQ(has_code(diags, diag_code::start_unbracketed), f.unbracketed);
        EXPECT_FALSE(has_code(diags, diag_code::start_not_found));
    }
    // A Content-ID written without brackets matches a bracketed start as well.
    auto doc = related_doc("; type=\"text/html\"; start=\"<a@b>\"",
                           {{"image/png", "", {}}, {"text/html", " a@b ", {}}});
    auto sel = select_root(doc.root());
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), "2");
}

TEST(RelatedRoot, REL_3_2_2_StartNotFound) {
    auto doc = related_doc("; type=\"text/html\"; start=\"<zz@b>\"",
                           {{"text/html", "<a@b>", {}}, {"image/gif", "<g@b>", {}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.start && sel.root);
    EXPECT_EQ(sel.start->path(), "1");
    EXPECT_EQ(sel.root->path(), "1");
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, diag_code::start_not_found);
    EXPECT_EQ(diags[0].sev, severity::warning);
    EXPECT_EQ(diags[0].part_path, "");
    // The offset is that of the Content-Type field carrying start.
    EXPECT_EQ(diags[0].offset, doc.bytes().find("Content-Type: multipart/related"));
    EXPECT_NE(diags[0].message.find("zz@b"), std::string::npos);
}

TEST(RelatedRoot, REL_3_2_2_EmptyStartNamesNothing) {
    auto doc = related_doc("; type=\"text/html\"; start=\"\"", {{"text/html", "", {}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), "1");
    EXPECT_EQ(all_codes(diags), std::vector<std::string>{"start_not_found"});
}

TEST(RelatedRoot, THTML_8_2_BracketedStartInsideAlternative) {
    auto doc = related_doc(
        "; type=\"text/html\"; start=\"<page@x>\"",
        {{alternative_type(1), "", {{"text/plain", "", {}}, {"text/html", "<page@x>", {}}}},
         {"image/gif", "<img@x>", {}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.start && sel.root);
    EXPECT_EQ(sel.start->path(), "1.2");
    EXPECT_EQ(sel.root->path(), "1.2");
    EXPECT_EQ(all_codes(diags), std::vector<std::string>{"start_inside_alternative"});
    EXPECT_EQ(diags[0].offset, doc.bytes().find("Content-ID: <page@x>"));

    std::vector<diagnostic> strict_diags;
    auto strict = select_root(doc.root(), {.strict = true}, &strict_diags);
    ASSERT_TRUE(strict.start && strict.root);
    EXPECT_EQ(strict.start->path(), "1");
    EXPECT_EQ(strict.root->path(), "1.2");
    EXPECT_EQ(all_codes(strict_diags),
              (std::vector<std::string>{"related_type_mismatch", "start_not_found"}));
}

TEST(RelatedRoot, REL_3_2_2_OnlyOneLevelIntoAlternatives) {
    // start names a part inside a multipart/mixed child, or two levels down: not searched.
    auto doc = related_doc(
        "; type=\"text/html\"; start=\"<deep@x>\"",
        {{"text/html", "", {}},
         {"multipart/mixed; boundary=b1", "", {{"text/html", "<deep@x>", {}}}},
         {alternative_type(1), "", {{alternative_type(2), "", {{"text/html", "<deep@x>", {}}}}}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), "1");
    EXPECT_EQ(all_codes(diags), std::vector<std::string>{"start_not_found"});
}

TEST(RelatedRoot, REL_3_2_3_NoDocumentPartKeepsFirst) {
    auto doc = related_doc("", {{"image/png", "", {}}, {"image/gif", "", {}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), "1");
    EXPECT_EQ(all_codes(diags), std::vector<std::string>{"related_type_missing"});
}

TEST(RelatedRoot, REL_3_2_3_TypeAbsentFromPartsFallsBackToDocument) {
    auto doc =
        related_doc("; type=\"application/x-foo\"", {{"image/png", "", {}}, {"text/html", "", {}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), "2");
    EXPECT_EQ(all_codes(diags),
              (std::vector<std::string>{"related_type_mismatch", "root_not_first_part"}));
    auto it = std::find_if(diags.begin(), diags.end(), [](const diagnostic& d) {
        return d.code == diag_code::root_not_first_part;
    });
    EXPECT_EQ(it->sev, severity::ambiguous);
    EXPECT_EQ(it->offset, sel.root->offset());
}

TEST(RelatedRoot, REL_3_2_3_AlternativeFirstOffersType) {
    // No start, type=text/html (the text/html draft's style), an alternative first that holds
    // the HTML: the first part is kept, its HTML is the root, type is reported.
    auto doc =
        related_doc("; type=\"text/html\"",
                    {{alternative_type(1), "", {{"text/plain", "", {}}, {"text/html", "", {}}}},
                     {"text/html", "", {}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.start && sel.root);
    EXPECT_EQ(sel.start->path(), "1");
    EXPECT_EQ(sel.root->path(), "1.2");
    EXPECT_EQ(all_codes(diags), std::vector<std::string>{"related_type_mismatch"});
}

TEST(RelatedRoot, REL_3_1_3_TypeComparedWithoutParameters) {
    auto doc = related_doc("; type=\"TEXT/Html\"", {{"text/html; charset=utf-8", "", {}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    EXPECT_TRUE(diags.empty());
    EXPECT_EQ(sel.type, "TEXT/Html");
}

TEST(RelatedRoot, MHT_7_4_PreferredTypesConfigurable) {
    auto doc = related_doc(
        "; type=\"multipart/alternative\"",
        {{alternative_type(1),
          "",
          {{"text/plain", "", {}}, {"application/xhtml+xml", "", {}}, {"text/html", "", {}}}}});
    auto html = select_root(doc.root());
    ASSERT_TRUE(html.root);
    EXPECT_EQ(html.root->path(), "1.3");
    std::vector<diagnostic> diags;
    auto xhtml = select_root(doc.root(),
                             {.preferred_types = {"Application/XHTML+XML", "text/html"}}, &diags);
    ASSERT_TRUE(xhtml.root);
    EXPECT_EQ(xhtml.root->path(), "1.2");
    EXPECT_TRUE(diags.empty());
    auto plain = select_root(doc.root(), {.preferred_types = {"text/plain"}});
    ASSERT_TRUE(plain.root);
    EXPECT_EQ(plain.root->path(), "1.1");
}

TEST(RelatedRoot, MHT_7_4_AlternativeHoldingNestedRelated) {
    // alternative(text/plain, related(type=text/html)): the nested aggregate is the HTML
    // alternative (REL-6.3.1: it renders through its own root).
    auto doc = related_doc("; type=\"multipart/alternative\"",
                           {{alternative_type(1),
                             "",
                             {{"text/plain", "", {}},
                              {"multipart/related; boundary=b2; type=\"text/html\"",
                               "",
                               {{"text/html", "", {}}, {"image/png", "", {}}}},
                              {"application/pdf", "", {}}}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), "1.2");
    EXPECT_TRUE(diags.empty());
}

TEST(RelatedRoot, MHT_7_4_EmptyAlternativeHasNoRoot) {
    auto doc = related_doc("; type=\"multipart/alternative\"",
                           {{alternative_type(1), "", {}}, {"image/png", "", {}}});
    ASSERT_EQ(doc.root().children().at(0).child_count(), 0u);
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.start);
    EXPECT_EQ(sel.start->path(), "1");
    EXPECT_FALSE(sel.root);
    EXPECT_EQ(all_codes(diags), std::vector<std::string>{"no_html_alternative"});
}

TEST(RelatedRoot, CID_8_AlternativesSharingAnIdAreNotDuplicates) {
    // related(html with cid:img@x, alternative(image/gif <img@x>, image/png <img@x>)).
    auto doc = related_doc("; type=\"text/html\"",
                           {{"text/html", "<page@x>", {}},
                            {alternative_type(1),
                             "<img@x>",
                             {{"image/gif", "<img@x>", {}}, {"image/png", "<img@x>", {}}}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), "1");
    EXPECT_TRUE(diags.empty());

    // start naming the shared id inside the alternative: the alternative a reader would show.
    auto inner = related_doc("; type=\"text/html\"; start=\"<page@x>\"",
                             {{"image/png", "", {}},
                              {alternative_type(1),
                               "",
                               {{"text/plain", "<page@x>", {}},
                                {"text/html", "<page@x>", {}},
                                {"text/enriched", "<page@x>", {}}}}});
    std::vector<diagnostic> inner_diags;
    auto picked = select_root(inner.root(), {}, &inner_diags);
    ASSERT_TRUE(picked.root);
    EXPECT_EQ(picked.root->path(), "2.2");
    EXPECT_EQ(all_codes(inner_diags), std::vector<std::string>{"start_inside_alternative"});
}

TEST(RelatedRoot, MHT_7_12_DuplicateContentIdsInDocumentOrder) {
    auto doc = related_doc("; type=\"text/html\"; start=\"<a@x>\"", {{"text/html", "<a@x>", {}},
                                                                     {"image/png", "<b@x>", {}},
                                                                     {"image/png", "<a@x>", {}},
                                                                     {"image/png", "(c) <b@x>", {}},
                                                                     {"image/png", "<a@x>", {}}});
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), "1");
    ASSERT_EQ(diags.size(), 3u);
    const auto& bytes = doc.bytes();
    std::size_t third = bytes.find("Content-ID: <a@x>", bytes.find("Content-ID: <a@x>") + 1);
    EXPECT_EQ(diags[0].offset, third);
    EXPECT_EQ(diags[1].offset, bytes.find("Content-ID: (c) <b@x>"));
    EXPECT_EQ(diags[2].offset, bytes.find("Content-ID: <a@x>", third + 1));
    for (const auto& d : diags) {
        EXPECT_EQ(d.code, diag_code::duplicate_content_id);
        EXPECT_EQ(d.sev, severity::warning);
    }
    std::vector<diagnostic> quiet;
    select_root(doc.root(), {.report_duplicate_ids = false}, &quiet);
    EXPECT_TRUE(quiet.empty());
}

TEST(RelatedRoot, REL_3_3_1_StartInfoForms) {
    struct form {
        const char* param;
        bool cid_list;
        std::vector<std::string> ids;
    };
    for (const form& f :
         {form{"; start-info=\"-o ps\"", false, {}},
          form{"; start-info=\"<a@b><c@d>\"", true, {"a@b", "c@d"}},
          form{"; start-info=\"  <a@b>\r\n <c@d> \"", true, {"a@b", "c@d"}},
          form{"; start-info=\"x <a@b>\"", false, {}}, form{"; start-info=<a@b>", true, {"a@b"}},
          form{"; start-info=\"<a@b>, c@d <e@f\"", true, {"a@b", "c@d", "e@f"}}}) {
        SCOPED_TRACE(f.param);
        auto doc =
            related_doc(std::string("; type=\"text/html\"") + f.param, {{"text/html", "", {}}});
        auto sel = select_root(doc.root());
        EXPECT_TRUE(sel.start_info.has_value());
        EXPECT_EQ(sel.start_info_is_cid_list, f.cid_list);
        EXPECT_EQ(sel.start_info_ids, f.ids);
    }
}

TEST(RelatedRoot, REL_3_3_3_StartInfoDoesNotChangeTheRoot) {
    std::vector<part_spec> parts{{"image/png", "<a@x>", {}}, {"text/html", "<h@x>", {}}};
    auto with = related_doc("; type=\"text/html\"; start-info=\"<a@x>\"", parts);
    auto without = related_doc("; type=\"text/html\"", parts);
    std::vector<diagnostic> d1, d2;
    auto a = select_root(with.root(), {}, &d1);
    auto b = select_root(without.root(), {}, &d2);
    ASSERT_TRUE(a.root && b.root);
    EXPECT_EQ(a.root->path(), b.root->path());
    EXPECT_EQ(all_codes(d1), all_codes(d2));
}

TEST(RelatedRoot, REL_6_3_1_NestedRelatedPathsAndDiagnostics) {
    // The related is body part 2 of a multipart/mixed: paths and part_path are absolute.
    std::string text =
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=m\r\n\r\n"
        "--m\r\nContent-Type: text/plain\r\n\r\nhello\r\n"
        "--m\r\nContent-Type: multipart/related; boundary=r; start=\"<nope@x>\"\r\n\r\n"
        "--r\r\nContent-Type: image/png\r\n\r\nPNG\r\n"
        "--r\r\nContent-Type: text/html\r\n\r\n<p>\r\n"
        "--r--\r\n--m--\r\n";
    auto doc = mime::document::parse(std::move(text));
    auto related = doc.find("2");
    ASSERT_TRUE(related);
    std::vector<diagnostic> diags;
    auto sel = select_root(*related, {}, &diags);
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), "2.1");
    EXPECT_EQ(relative_path(sel.root, *related), "1");
    EXPECT_EQ(all_codes(diags),
              (std::vector<std::string>{"related_type_missing", "start_not_found"}));
    expect_well_formed(diags, *related);
    for (const auto& d : diags) EXPECT_EQ(d.part_path, "2");
}

TEST(RelatedRoot, REL_3_2_1_HundredThousandPartsLinear) {
    // start names the last of 100,000 parts: one pass over the ids (a scan per part, or
    // a quadratic duplicate check, would take minutes here).
    constexpr int n = 100'000;
    std::string text =
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=b; type=\"text/html\"; "
        "start=\"<p99999@x>\"\r\n\r\n";
    text.reserve(std::size_t(n) * 70);
    for (int i = 0; i < n; ++i) {
        text += "--b\r\nContent-Type: ";
        text += i == n - 1 ? "text/html" : "image/png";
        text += "\r\nContent-ID: <p";
        text += std::to_string(i);
        text += "@x>\r\n\r\nx\r\n";
    }
    text += "--b--\r\n";
    auto doc = mime::document::parse(std::move(text));
    ASSERT_EQ(doc.root().child_count(), std::size_t(n));
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), std::to_string(n));
    EXPECT_TRUE(diags.empty());
}

TEST(RelatedRoot, REL_3_2_3_HundredThousandImagesThenHtml) {
    constexpr int n = 100'000;
    std::string text =
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=b; "
        "type=\"text/html\"\r\n\r\n";
    for (int i = 0; i < n; ++i) {
        text += "--b\r\nContent-Type: ";
        text += i == n - 1 ? "text/html" : "image/png";
        text += "\r\n\r\nx\r\n";
    }
    text += "--b--\r\n";
    auto doc = mime::document::parse(std::move(text));
    std::vector<diagnostic> diags;
    auto sel = select_root(doc.root(), {}, &diags);
    ASSERT_TRUE(sel.root);
    EXPECT_EQ(sel.root->path(), std::to_string(n));
    EXPECT_EQ(all_codes(diags), std::vector<std::string>{"root_not_first_part"});
}

}  // namespace
}  // namespace mhtml::archive
