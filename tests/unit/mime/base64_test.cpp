#include "mhtml/mime/base64.hpp"

#include <gtest/gtest.h>

#include "codec_test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using mhtml::mime::base64_decode;
using mhtml::mime::base64_decoder;
using mhtml::mime::base64_encode;
using mhtml::mime::base64_encoder;
using mhtml::mime::codec_status;
using mhtml::mime::simd_level;

using namespace mhtml::mime::test;

decoded decode_whole(std::string_view in) {
    decoded r;
    r.st = base64_decode(in, r.out);
    return r;
}

decoded decode_bytewise(std::string_view in) {
    return decode_in_pieces<base64_decoder>(in, {1});
}

decoded decode_random_chunks(std::string_view in, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::size_t> sizes;
    for (int i = 0; i < 64; ++i) sizes.push_back(1 + rng() % (i % 3 == 0 ? 200 : 9));
    return decode_in_pieces<base64_decoder>(in, sizes);
}

/// An independent model of the decoder's documented rules, one octet at a time.
decoded reference_decode(std::string_view in) {
    static const std::string alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    decoded r;
    auto problem = [&](bool codec_status::*flag, std::uint64_t at) {
        r.st.*flag = true;
        r.st.first_problem = std::min(r.st.first_problem, at);
    };
    std::vector<int> quantum;  // sextets
    int pads = 0;
    std::uint64_t pad_at = 0;
    bool after_end = false;
    auto flush = [&] {
        std::uint32_t v = 0;
        for (int s : quantum) v = (v << 6) | static_cast<std::uint32_t>(s);
        v <<= 6 * (4 - quantum.size());
        for (std::size_t i = 0; i + 1 < quantum.size(); ++i) {
            r.out += static_cast<char>((v >> (16 - 8 * i)) & 0xff);
        }
        quantum.clear();
    };
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        const auto pos = alphabet.find(c);
        if (pos != std::string::npos) {
            if (pads != 0) problem(&codec_status::bad_padding, pad_at);
            pads = 0;
            if (after_end) problem(&codec_status::data_after_padding, i);
            after_end = false;
            quantum.push_back(static_cast<int>(pos));
            if (quantum.size() == 4) flush();
        } else if (c == '=') {
            if (quantum.size() < 2) {
                problem(&codec_status::bad_padding, i);
                continue;
            }
            if (pads++ == 0) pad_at = i;
            if (quantum.size() + pads == 4) {
                flush();
                pads = 0;
                after_end = true;
            }
        } else if (c != '\r' && c != '\n' && c != ' ' && c != '\t') {
            problem(&codec_status::invalid_char, i);
        }
    }
    if (quantum.size() == 1) problem(&codec_status::truncated, in.size());
    if (quantum.size() >= 2) {
        problem(&codec_status::bad_padding, in.size());
        flush();
    }
    return r;
}

std::string random_octets(std::mt19937& rng, std::size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
}

/// Mostly alphabet characters, with line breaks, padding and stray octets mixed in.
std::string random_base64ish(std::mt19937& rng, std::size_t n) {
    static const std::string alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const std::string odd("=\r\n \t!*-_.\x80\xff\0", 13);
    std::string s;
    const unsigned rare = 2 + rng() % 200;  // how often an odd octet shows up
    for (std::size_t i = 0; i < n; ++i) {
        if (rng() % rare == 0) {
            s += odd[rng() % odd.size()];
        } else {
            s += alphabet[rng() % 64];
        }
    }
    return s;
}

/// Inserts a line end after every `every` characters (the last line may be shorter).
std::string with_breaks(std::string_view flat, std::size_t every, std::string_view eol) {
    std::string s;
    for (std::size_t i = 0; i < flat.size(); i += every) {
        s += flat.substr(i, every);
        s += eol;
    }
    return s;
}

std::vector<simd_level> available_levels() {
    std::vector<simd_level> v;
    for (simd_level l : {simd_level::scalar, simd_level::avx2, simd_level::avx512}) {
        mhtml::mime::set_simd_level(l);
        if (mhtml::mime::active_simd_level() == l) v.push_back(l);
    }
    mhtml::mime::set_simd_level(simd_level::automatic);
    return v;
}

std::string level_name(const testing::TestParamInfo<simd_level>& info) {
    switch (info.param) {
        case simd_level::scalar:
            return "Scalar";
        case simd_level::avx2:
            return "Avx2";
        case simd_level::avx512:
            return "Avx512";
        default:
            return "Automatic";
    }
}

/// Every decoding test runs once per implementation the CPU supports.
class Base64 : public testing::TestWithParam<simd_level> {
protected:
    void SetUp() override { mhtml::mime::set_simd_level(GetParam()); }
    void TearDown() override { mhtml::mime::set_simd_level(simd_level::automatic); }

    /// Decodes whole, one octet at a time and in random chunks; all must agree with the model.
    static decoded decode_all_ways(std::string_view in) {
        const decoded whole = decode_whole(in);
        const decoded model = reference_decode(in);
        EXPECT_EQ(whole.out, model.out);
        expect_same_status(whole.st, model.st);
        const decoded bytewise = decode_bytewise(in);
        EXPECT_EQ(bytewise.out, whole.out);
        expect_same_status(bytewise.st, whole.st);
        const decoded chunks = decode_random_chunks(in, static_cast<std::uint32_t>(in.size()));
        EXPECT_EQ(chunks.out, whole.out);
        expect_same_status(chunks.st, whole.st);
        return whole;
    }
};

INSTANTIATE_TEST_SUITE_P(Levels, Base64, testing::ValuesIn(available_levels()), level_name);

TEST_P(Base64, ActiveLevelIsTheRequestedOne) {
    EXPECT_EQ(mhtml::mime::active_simd_level(), GetParam());
}

TEST_P(Base64, DecodesRfc4648Section10Vectors) {
    const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                           {"Zg==", "f"},
                                                           {"Zm8=", "fo"},
                                                           {"Zm9v", "foo"},
                                                           {"Zm9vYg==", "foob"},
                                                           {"Zm9vYmE=", "fooba"},
                                                           {"Zm9vYmFy", "foobar"}};
    for (const auto& [encoded, plain] : vectors) {
        const decoded r = decode_all_ways(encoded);
        EXPECT_EQ(r.out, plain) << encoded;
        EXPECT_TRUE(r.st.clean()) << encoded;
    }
}

TEST_P(Base64, SkipsLineBreaksAndSpacesSilently) {
    const decoded r = decode_all_ways("Zm9v\r\nYmFy\n Zm9v\tYg==\r\n");
    EXPECT_EQ(r.out, "foobarfoob");
    EXPECT_TRUE(r.st.clean());
    // White space inside a quantum is skipped as well.
    const decoded inside = decode_all_ways("Zm\r\n9v Ym\tFy");
    EXPECT_EQ(inside.out, "foobar");
    EXPECT_TRUE(inside.st.clean());
}

TEST_P(Base64, SkipsStrayCharactersPerRfc2045_6_8) {
    const decoded r = decode_all_ways("Zm9v!YmFy*Zm9v");
    EXPECT_EQ(r.out, "foobarfoo");
    EXPECT_TRUE(r.st.invalid_char);
    EXPECT_EQ(r.st.first_problem, 4u);
    EXPECT_FALSE(r.st.bad_padding);
}

TEST_P(Base64, StrayCharacterInsideAQuantumIsSkipped) {
    const decoded r = decode_all_ways("Zm-9v");
    EXPECT_EQ(r.out, "foo");
    EXPECT_TRUE(r.st.invalid_char);
    EXPECT_EQ(r.st.first_problem, 2u);
}

TEST_P(Base64, EightBitAndNulOctetsAreInvalidCharacters) {
    const decoded high = decode_all_ways("Zm9v\xffYmFy");
    EXPECT_EQ(high.out, "foobar");
    EXPECT_TRUE(high.st.invalid_char);
    EXPECT_EQ(high.st.first_problem, 4u);
    const decoded nul = decode_all_ways(std::string_view("Zm9\0v", 5));
    EXPECT_EQ(nul.out, "foo");
    EXPECT_TRUE(nul.st.invalid_char);
    EXPECT_EQ(nul.st.first_problem, 3u);
}

TEST_P(Base64, MissingPaddingDecodesWhatItCanAndIsBadPadding) {
    const decoded two = decode_all_ways("QQ");
    EXPECT_EQ(two.out, "A");
    EXPECT_TRUE(two.st.bad_padding);
    EXPECT_EQ(two.st.first_problem, 2u);  // the end of the input, where '=' is missing
    const decoded three = decode_all_ways("QUI");
    EXPECT_EQ(three.out, "AB");
    EXPECT_TRUE(three.st.bad_padding);
    EXPECT_EQ(three.st.first_problem, 3u);
    const decoded with_break = decode_all_ways("Zm9vQUI\r\n");
    EXPECT_EQ(with_break.out, "fooAB");
    EXPECT_TRUE(with_break.st.bad_padding);
    EXPECT_EQ(with_break.st.first_problem, 9u);
}

TEST_P(Base64, HalfPaddingIsBadPadding) {
    const decoded r = decode_all_ways("QQ=");
    EXPECT_EQ(r.out, "A");
    EXPECT_TRUE(r.st.bad_padding);
    EXPECT_FALSE(r.st.data_after_padding);
    EXPECT_EQ(r.st.first_problem, 3u);
}

TEST_P(Base64, PaddingSplitByWhiteSpaceIsFine) {
    const decoded r = decode_all_ways("QQ=\r\n=");
    EXPECT_EQ(r.out, "A");
    EXPECT_TRUE(r.st.clean());
}

TEST_P(Base64, PaddingInTheMiddleOfAQuantumIsIgnored) {
    const decoded r = decode_all_ways("Zm=9vYmFy");
    EXPECT_EQ(r.out, "foobar");
    EXPECT_TRUE(r.st.bad_padding);
    EXPECT_EQ(r.st.first_problem, 2u);
}

TEST_P(Base64, PaddingAtTheStartOfAQuantumIsIgnored) {
    const decoded r = decode_all_ways("Zm9v=YmFy");
    EXPECT_EQ(r.out, "foobar");
    EXPECT_TRUE(r.st.bad_padding);
    EXPECT_EQ(r.st.first_problem, 4u);
    const decoded after_one = decode_all_ways("Zm9vY=mFy");
    EXPECT_EQ(after_one.out, "foobar");
    EXPECT_TRUE(after_one.st.bad_padding);
    EXPECT_EQ(after_one.st.first_problem, 5u);
}

TEST_P(Base64, ExtraPaddingIsBadPadding) {
    const decoded r = decode_all_ways("Zg===");
    EXPECT_EQ(r.out, "f");
    EXPECT_TRUE(r.st.bad_padding);
    EXPECT_EQ(r.st.first_problem, 4u);
}

TEST_P(Base64, LoneFinalSextetIsTruncated) {
    const decoded r = decode_all_ways("Zm9vY");
    EXPECT_EQ(r.out, "foo");
    EXPECT_TRUE(r.st.truncated);
    EXPECT_FALSE(r.st.bad_padding);
    EXPECT_EQ(r.st.first_problem, 5u);
    const decoded spaced = decode_all_ways("Zm9vY\r\n");
    EXPECT_TRUE(spaced.st.truncated);
    EXPECT_EQ(spaced.st.first_problem, 7u);
}

TEST_P(Base64, DataAfterPaddingIsFlaggedAndStillDecoded) {
    const decoded r = decode_all_ways("Zg==Zm9v");
    EXPECT_EQ(r.out, "ffoo");
    EXPECT_TRUE(r.st.data_after_padding);
    EXPECT_EQ(r.st.first_problem, 4u);
    const decoded concatenated = decode_all_ways("Zm8=\r\nYmFy\r\n");
    EXPECT_EQ(concatenated.out, "fobar");
    EXPECT_TRUE(concatenated.st.data_after_padding);
    EXPECT_EQ(concatenated.st.first_problem, 6u);
}

TEST_P(Base64, FirstProblemIsTheEarliestOffset) {
    // The misplaced '=' (offset 2) is only known to be misplaced at offset 4.
    const decoded r = decode_all_ways("Zm=!9v");
    EXPECT_TRUE(r.st.bad_padding);
    EXPECT_TRUE(r.st.invalid_char);
    EXPECT_EQ(r.st.first_problem, 2u);
    EXPECT_EQ(r.out, "foo");
}

TEST_P(Base64, OffsetsCountAllInputGivenSoFar) {
    base64_decoder d;
    char buf[16];
    EXPECT_EQ(d.step("Zm9v", buf), 3u);
    EXPECT_TRUE(d.status().clean());
    EXPECT_EQ(d.step("Ym!Fy", buf), 3u);
    EXPECT_TRUE(d.status().invalid_char);
    EXPECT_EQ(d.status().first_problem, 6u);
    EXPECT_EQ(d.finish(buf), 0u);
}

TEST_P(Base64, ResetStartsOver) {
    base64_decoder d;
    char buf[16];
    d.step("Zm9!", buf);
    d.reset();
    EXPECT_EQ(d.step("Zm9v", buf), 3u);
    EXPECT_TRUE(d.status().clean());
}

TEST_P(Base64, AppendsToTheOutputString) {
    std::string out = "x";
    EXPECT_TRUE(base64_decode("Zm9v", out).clean());
    EXPECT_EQ(out, "xfoo");
}

TEST_P(Base64, DecodesMimeLinesOfManyLengths) {
    std::mt19937 rng(11);
    for (std::size_t line : {4u, 8u, 16u, 28u, 32u, 60u, 64u, 68u, 72u, 76u, 80u, 128u, 1000u}) {
        for (std::string_view eol : {"\r\n", "\n", " \r\n", "\r\r\n"}) {
            const std::string plain = random_octets(rng, 3000 + rng() % 100);
            const std::string flat = base64_encode(plain, 0);
            const std::string text = with_breaks(flat, line, eol);
            const decoded r = decode_all_ways(text);
            EXPECT_EQ(r.out, plain) << "line " << line;
            EXPECT_TRUE(r.st.clean()) << "line " << line;
        }
    }
}

TEST_P(Base64, DecodesLinesWhoseLengthIsNotAMultipleOfFour) {
    std::mt19937 rng(12);
    for (std::size_t line : {1u, 3u, 5u, 37u, 65u, 75u, 77u, 99u}) {
        const std::string plain = random_octets(rng, 2000);
        const std::string text = with_breaks(base64_encode(plain, 0), line, "\r\n");
        const decoded r = decode_all_ways(text);
        EXPECT_EQ(r.out, plain) << "line " << line;
        EXPECT_TRUE(r.st.clean());
    }
}

TEST_P(Base64, ChangesInLineShapeAreNoticed) {
    // Runs of equal lines (which the bulk paths take whole), then lines that differ.
    std::mt19937 rng(13);
    const std::string plain = random_octets(rng, 57 * 40);
    const std::string lines = base64_encode(plain, 76);
    const std::size_t stride = 78;
    for (std::size_t line = 2; line < 38; line += 5) {
        const std::size_t at = line * stride;
        {  // a shorter line
            std::string t = lines;
            t.erase(at + 40, 4);
            const decoded r = decode_all_ways(t);
            EXPECT_TRUE(r.st.clean());
            EXPECT_EQ(r.out.size(), plain.size() - 3);
        }
        {  // a bare LF instead of CRLF
            std::string t = lines;
            t.erase(at + 76, 1);
            const decoded r = decode_all_ways(t);
            EXPECT_EQ(r.out, plain);
            EXPECT_TRUE(r.st.clean());
        }
        {  // a stray character somewhere in the line
            std::string t = lines;
            const std::size_t where = at + rng() % 76;
            t.insert(where, 1, '#');
            const decoded r = decode_all_ways(t);
            EXPECT_EQ(r.out, plain);
            EXPECT_TRUE(r.st.invalid_char);
            EXPECT_EQ(r.st.first_problem, where);
        }
        {  // a stray character replacing the line end
            std::string t = lines;
            t[at + 76] = '#';
            const decoded r = decode_all_ways(t);
            EXPECT_EQ(r.out, plain);
            EXPECT_EQ(r.st.first_problem, at + 76);
        }
        {  // a line end whose second octet is an alphabet character
            std::string t = lines;
            t[at + 77] = 'A';
            const decoded r = decode_all_ways(t);
            EXPECT_NE(r.out, plain);
        }
        {  // a line end whose first octet is an alphabet character
            std::string t = lines;
            t[at + 76] = 'A';
            const decoded r = decode_all_ways(t);
            EXPECT_NE(r.out, plain);
        }
        {  // padding inside
            std::string t = lines;
            t[at + 30] = '=';
            const decoded r = decode_all_ways(t);
            EXPECT_TRUE(r.st.bad_padding);
        }
    }
}

TEST_P(Base64, StrayCharacterAtEveryPositionOfALongRun) {
    std::mt19937 rng(14);
    const std::string plain = random_octets(rng, 240);
    const std::string flat = base64_encode(plain, 0);
    for (std::size_t where = 0; where <= flat.size(); ++where) {
        for (char odd : {'!', '\n', '=', '\x80'}) {
            std::string t = flat;
            t.insert(where, 1, odd);
            const decoded r = decode_all_ways(t);
            if (odd != '=') {
                EXPECT_EQ(r.out, plain) << where;
            }
            if (odd == '!' || odd == '\x80') {
                EXPECT_EQ(r.st.first_problem, where);
            }
            if (odd == '\n') {
                EXPECT_TRUE(r.st.clean());
            }
        }
    }
}

TEST_P(Base64, RandomMalformedInputMatchesTheModelHoweverSplit) {
    std::mt19937 rng(15);
    for (int i = 0; i < 400; ++i) {
        const std::string in = random_base64ish(rng, rng() % (i < 300 ? 300 : 5000));
        decode_all_ways(in);
    }
}

// base64_decode finishes a body that ends in one padded quantum and white space itself, and
// hands anything else to the resumable decoder at the point the bulk kernels stopped.
TEST_P(Base64, EveryEndingAfterALongBodyMatchesTheModel) {
    std::mt19937 rng(19);
    const char* const endings[] = {
        "",          "Zg==",  "Zm8=", "Zg==\r\n", "Zm8= \t\r\n\r\n", "Zg=", "Z===",    "Zg==Zm9v",
        "Zg==\r\n!", "Zm9",   "Z",    "Zg\r\n==", "Zm8=\r\n=",       "=",   "Zg=\x80", "\r\nZm9v",
        "Zm8=\r\nZ", "!Zg==", "Zg!=", "Zm8=="};
    for (std::size_t plain_size : {0u, 3u, 45u, 57u, 300u, 1000u}) {
        const std::string body = base64_encode(random_octets(rng, plain_size), 76);
        for (const char* ending : endings) {
            for (std::string_view join : {"", "\r\n"}) {
                std::string in = body;
                if (!in.empty()) in.resize(in.size() - 2);  // the encoder's final CRLF
                in += join;
                in += ending;
                decode_all_ways(in);
            }
        }
    }
}

TEST_P(Base64, AgreesWithTheScalarPath) {
    std::mt19937 rng(16);
    for (int i = 0; i < 100; ++i) {
        std::string in = random_base64ish(rng, 1000 + rng() % 3000);
        if (i % 2 == 0) in = base64_encode(random_octets(rng, 2000 + rng() % 999), 76);
        const decoded here = decode_whole(in);
        mhtml::mime::set_simd_level(simd_level::scalar);
        const decoded scalar = decode_whole(in);
        mhtml::mime::set_simd_level(GetParam());
        EXPECT_EQ(here.out, scalar.out);
        expect_same_status(here.st, scalar.st);
    }
}

TEST_P(Base64, RoundTripsRandomBinary) {
    std::mt19937 rng(17);
    for (int i = 0; i < 300; ++i) {
        const std::string plain = random_octets(rng, rng() % (i < 200 ? 200 : 20000));
        const std::size_t line = (rng() % 20) * 4;
        const std::string encoded = base64_encode(plain, line);
        const decoded r = decode_whole(encoded);
        EXPECT_EQ(r.out, plain);
        EXPECT_TRUE(r.st.clean());
        const decoded chunks = decode_random_chunks(encoded, static_cast<std::uint32_t>(i));
        EXPECT_EQ(chunks.out, plain);
        EXPECT_TRUE(chunks.st.clean());
    }
}

TEST_P(Base64, StepNeverWritesPastMaxOutput) {
    std::mt19937 rng(18);
    for (int i = 0; i < 200; ++i) {
        const std::string in = i % 2 ? random_base64ish(rng, rng() % 400)
                                     : base64_encode(random_octets(rng, rng() % 300), 76);
        base64_decoder d;
        std::size_t at = 0;
        while (at < in.size()) {
            const std::size_t n = std::min<std::size_t>(1 + rng() % 150, in.size() - at);
            const std::size_t room = base64_decoder::max_output(n);
            std::vector<char> buf(room + 64, '\x5a');
            const std::size_t got = d.step(std::string_view(in).substr(at, n), buf.data());
            EXPECT_LE(got, room);
            for (std::size_t j = room; j < buf.size(); ++j) ASSERT_EQ(buf[j], '\x5a');
            at += n;
        }
    }
}

// --- encoding -------------------------------------------------------------------------------

TEST(Base64Encoder, EncodesRfc4648Section10Vectors) {
    const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                           {"f", "Zg=="},
                                                           {"fo", "Zm8="},
                                                           {"foo", "Zm9v"},
                                                           {"foob", "Zm9vYg=="},
                                                           {"fooba", "Zm9vYmE="},
                                                           {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, encoded] : vectors) {
        EXPECT_EQ(base64_encode(plain, 0), encoded);
        const std::string mime = base64_encode(plain);
        EXPECT_EQ(mime, *encoded ? std::string(encoded) + "\r\n" : "");
    }
}

TEST(Base64Encoder, BreaksLinesAt76WithCrlf) {
    const std::string plain(57, 'a');  // exactly one line
    const std::string one = base64_encode(plain);
    ASSERT_EQ(one.size(), 78u);
    EXPECT_EQ(one.substr(76), "\r\n");
    const std::string two = base64_encode(plain + "b");
    ASSERT_EQ(two.size(), 78u + 6u);
    EXPECT_EQ(two.substr(76, 2), "\r\n");
    EXPECT_EQ(two.substr(78), "Yg==\r\n");
}

TEST(Base64Encoder, HonoursOtherLineLengths) {
    std::mt19937 rng(21);
    const std::string plain = random_octets(rng, 1000);
    for (std::size_t asked : {4u, 8u, 64u, 72u, 76u, 70u, 100u, 1u}) {
        const std::size_t expect = asked > 76 ? 76 : std::max<std::size_t>(asked & ~3u, 4);
        const std::string text = base64_encode(plain, asked);
        std::size_t start = 0;
        while (start < text.size()) {
            const std::size_t crlf = text.find("\r\n", start);
            ASSERT_NE(crlf, std::string::npos);
            EXPECT_LE(crlf - start, expect);
            if (crlf + 2 < text.size()) {
                EXPECT_EQ(crlf - start, expect);
            }
            start = crlf + 2;
        }
        std::string back;
        EXPECT_TRUE(base64_decode(text, back).clean());
        EXPECT_EQ(back, plain);
    }
}

TEST(Base64Encoder, ChunkedEqualsWhole) {
    std::mt19937 rng(22);
    for (int i = 0; i < 200; ++i) {
        const std::string plain = random_octets(rng, rng() % 1000);
        const std::size_t line = (rng() % 20) * 4;
        base64_encoder e(line);
        std::string out;
        std::size_t at = 0;
        while (at < plain.size()) {
            const std::size_t n = std::min<std::size_t>(rng() % 70, plain.size() - at);
            std::vector<char> buf(base64_encoder::max_output(n, line));
            out.append(buf.data(), e.step(std::string_view(plain).substr(at, n), buf.data()));
            at += n;
        }
        std::vector<char> buf(base64_encoder::max_output(0, line));
        const std::size_t tail = e.finish(buf.data());
        EXPECT_LE(tail, buf.size());
        out.append(buf.data(), tail);
        EXPECT_EQ(out, base64_encode(plain, line));
    }
}

TEST(Base64Encoder, OutputFitsMaxOutput) {
    for (std::size_t n = 0; n < 300; ++n) {
        for (std::size_t line : {0u, 4u, 76u}) {
            EXPECT_LE(base64_encode(std::string(n, 'x'), line).size(),
                      base64_encoder::max_output(n, line));
        }
    }
}

// The vector encoders (AVX2, AVX-512 VBMI) give the scalar encoder's octets exactly, for
// every length 0..300, large inputs, line lengths 0, 76 and others, and any chunking.
std::string encode_chunked(const std::string& plain, std::size_t line, std::mt19937& rng,
                           int mode) {
    base64_encoder e(line);
    std::string out;
    std::size_t at = 0;
    while (at < plain.size()) {
        const std::size_t want = mode == 0 ? plain.size() : mode == 1 ? 1 : rng() % 300 + 1;
        const std::size_t n = std::min(want, plain.size() - at);
        std::vector<char> buf(base64_encoder::max_output(n, line));
        out.append(buf.data(), e.step(std::string_view(plain).substr(at, n), buf.data()));
        at += n;
    }
    std::vector<char> buf(base64_encoder::max_output(0, line));
    out.append(buf.data(), e.finish(buf.data()));
    return out;
}

TEST(Base64Encoder, EveryLevelGivesTheScalarOctets) {
    std::mt19937 rng(7);
    std::vector<std::string> inputs;
    for (std::size_t n = 0; n <= 300; ++n) inputs.push_back(random_octets(rng, n));
    inputs.push_back(random_octets(rng, 100000));
    inputs.push_back(random_octets(rng, 57 * 1000));
    for (std::size_t line : {std::size_t{76}, std::size_t{0}, std::size_t{72}, std::size_t{4}}) {
        std::vector<std::string> expected;
        mhtml::mime::set_simd_level(simd_level::scalar);
        for (const auto& in : inputs) expected.push_back(base64_encode(in, line));
        for (simd_level level : available_levels()) {
            mhtml::mime::set_simd_level(level);
            for (std::size_t i = 0; i < inputs.size(); ++i) {
                ASSERT_EQ(base64_encode(inputs[i], line), expected[i])
                    << "level " << static_cast<int>(level) << " line " << line << " n "
                    << inputs[i].size();
                for (int mode = 1; mode <= 2; ++mode) {
                    if (inputs[i].size() > 5000 && mode == 1) continue;
                    ASSERT_EQ(encode_chunked(inputs[i], line, rng, mode), expected[i])
                        << "level " << static_cast<int>(level) << " line " << line << " n "
                        << inputs[i].size() << " chunking " << mode;
                }
            }
        }
    }
    mhtml::mime::set_simd_level(simd_level::automatic);
}

}  // namespace

// The writer copies base64 that is already in its encoder's form (pack::resource::base64_body):
// canonical_base64_size says which is.
TEST(Base64Canonical, AcceptsExactlyTheEncodersForm) {
    using mhtml::mime::base64_encode;
    using mhtml::mime::canonical_base64_size;
    for (const std::size_t n : {1u, 2u, 3u, 56u, 57u, 58u, 114u, 1000u, 100000u}) {
        std::string data(n, '\0');
        for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<char>(i * 131 + n);
        const std::string enc = base64_encode(data);
        EXPECT_EQ(canonical_base64_size(enc), n) << n;
        // The CRLF after the last line is optional (the delimiter's own may follow).
        EXPECT_EQ(canonical_base64_size(std::string_view(enc).substr(0, enc.size() - 2)), n);
    }
    EXPECT_FALSE(canonical_base64_size(""));
    const std::string two_lines = base64_encode(std::string(100, 'x'));  // 76 + 60 characters
    auto broken = [&](std::size_t at, std::string_view with) {
        std::string s = two_lines;
        s.replace(at, 1, with);
        return canonical_base64_size(s).has_value();
    };
    EXPECT_FALSE(broken(10, "*"));   // outside the alphabet
    EXPECT_FALSE(broken(10, " "));   // white space inside a line
    EXPECT_FALSE(broken(10, "="));   // padding in the middle
    EXPECT_FALSE(broken(76, "\n"));  // LF line end
    EXPECT_FALSE(broken(10, "AB"));  // a line of 77
    EXPECT_FALSE(canonical_base64_size(base64_encode(std::string(100, 'x'), 64)));  // 64 a line
    EXPECT_FALSE(canonical_base64_size("QUJD\r\n\r\n"));  // a blank line after it
    EXPECT_FALSE(canonical_base64_size("QUI"));           // no padding
    EXPECT_EQ(canonical_base64_size("QUI="), 2u);
    EXPECT_FALSE(canonical_base64_size("QUJ="));  // pad bits not zero (decodes as "AB" too)
    EXPECT_EQ(canonical_base64_size("QQ=="), 1u);
    EXPECT_FALSE(canonical_base64_size("QR=="));
    // Line ends are checked a block of 512 lines at a time, with the decoding: a damaged one
    // in any block, the last line's included, is found.
    const std::string long_body = base64_encode(std::string(57 * 1500 + 30, 'y'));  // 1501 lines
    ASSERT_EQ(canonical_base64_size(long_body), 57u * 1500 + 30);
    for (const std::size_t line : {0u, 511u, 512u, 1023u, 1024u, 1499u}) {
        std::string s = long_body;
        s[line * 78 + 77] = 'A';  // CR then a letter instead of LF
        EXPECT_FALSE(canonical_base64_size(s)) << line;
        s = long_body;
        s[line * 78 + 76] = '\n';  // LF LF
        EXPECT_FALSE(canonical_base64_size(s)) << line;
    }
}
