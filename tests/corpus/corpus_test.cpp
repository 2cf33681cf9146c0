// Every real archive in tests/data/corpus: its bytes are what MANIFEST.tsv says (the files
// are never edited), it parses without a crash, and it serialises back byte for byte.
// What the leaves contain is compared with Python's email package by compare_python.py.
#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mhtml/mime/document.hpp"
#include "mhtml/mime/node.hpp"

namespace mhtml::mime {
namespace {

const std::filesystem::path corpus_dir = std::filesystem::path(MHTML_TEST_DATA) / "corpus";

std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

std::string sha256_hex(std::string_view d) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_Digest(d.data(), d.size(), md, &len, EVP_sha256(), nullptr);
    std::string out;
    static const char hex[] = "0123456789abcdef";
    for (unsigned i = 0; i < len; ++i) {
        out += hex[md[i] >> 4];
        out += hex[md[i] & 15];
    }
    return out;
}

struct entry {
    std::string name, sha256;
};

std::vector<entry> manifest() {
    std::vector<entry> out;
    std::istringstream in(slurp(corpus_dir / "MANIFEST.tsv"));
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::vector<std::string> cols;
        std::stringstream ls(line);
        std::string c;
        while (std::getline(ls, c, '\t')) cols.push_back(c);
        if (cols.size() >= 6) out.push_back({cols[0], cols[5]});
    }
    return out;
}

class Corpus : public ::testing::TestWithParam<entry> {};

TEST_P(Corpus, UnchangedAndRoundTripsByteForByte) {
    std::string data = slurp(corpus_dir / GetParam().name);
    ASSERT_EQ(sha256_hex(data), GetParam().sha256) << "corpus file was modified";
    auto doc = document::parse(data);
    EXPECT_EQ(serialize(doc), data);
    EXPECT_EQ(write(node::from(doc.root())).bytes, data);
    std::string out;
    std::vector<diagnostic> diags;
    for (auto p : doc.parts())
        if (p.is_leaf()) p.decode_to(out, diags);
}

INSTANTIATE_TEST_SUITE_P(Real, Corpus, ::testing::ValuesIn(manifest()), [](const auto& info) {
    std::string n = info.param.name;
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
});

TEST(CorpusManifest, ListsEveryFile) {
    std::size_t files = 0;
    for (auto& e : std::filesystem::directory_iterator(corpus_dir)) {
        auto ext = e.path().extension();
        if (ext != ".md" && ext != ".tsv") ++files;
    }
    EXPECT_EQ(files, manifest().size());
    EXPECT_GE(files, 70u);
}

std::vector<std::string> codes(const document& d) {
    std::vector<std::string> out;
    for (const auto& x : d.diagnostics()) out.emplace_back(code_name(x.code));
    return out;
}

TEST(CorpusSalvage, MissingBoundaryBodyReadAsOnePart) {
    // Blink wrote a boundary parameter but no delimiter: the body is one part's headers
    // and content.
    std::string data = slurp(corpus_dir / "mhtml2html__missing_boundary.mhtml");
    auto doc = document::parse(data);
    EXPECT_THAT(codes(doc), ::testing::Contains("multipart_no_parts"));
    auto p = doc.find("1");
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->content_type().essence(), "text/html");
    EXPECT_EQ(*p->content_location(), "http://msindwan.bitbucket.org/");
    EXPECT_EQ(serialize(doc), data);
}

TEST(CorpusSalvage, MalformedNoFooterIsMissingCloseDelimiter) {
    auto doc = document::parse(slurp(corpus_dir / "chromium__malformed_mhtml_no_footer.mht"));
    EXPECT_THAT(codes(doc), ::testing::Contains("missing_close_delimiter"));
    EXPECT_EQ(doc.find("1")->content_type().essence(), "image/png");
}

TEST(CorpusSalvage, BadBoundaryFirstPartFallsIntoPreamble) {
    // The first delimiter has one dash too few: by RFC 2046 it is preamble text, as Python
    // and GMime read it; the image part is part 1.
    auto doc = document::parse(slurp(corpus_dir / "chromium__invalid-bad-boundary2.mht"));
    EXPECT_THAT(codes(doc), ::testing::ElementsAre("near_miss_delimiter"));
    EXPECT_EQ(doc.diagnostics()[0].offset, 282u);  // the "-----=_Part..." line
    ASSERT_EQ(doc.root().child_count(), 1u);
    EXPECT_EQ(doc.find("1")->content_type().essence(), "image/png");
    EXPECT_NE(doc.root().preamble().find("-----=_Part_ADD9911"), std::string_view::npos);
}

}  // namespace
}  // namespace mhtml::mime
