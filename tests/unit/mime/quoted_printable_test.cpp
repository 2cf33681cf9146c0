#include "mhtml/mime/quoted_printable.hpp"

#include <gtest/gtest.h>

#include "codec_test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/mime/base64.hpp"  // simd_level

namespace {

using mhtml::mime::codec_status;
using mhtml::mime::qp_decode;
using mhtml::mime::qp_decoder;
using mhtml::mime::qp_encode;
using mhtml::mime::qp_encoder;
using mhtml::mime::qp_mode;
using mhtml::mime::simd_level;

using namespace mhtml::mime::test;

decoded decode_whole(std::string_view in) {
    decoded r;
    r.st = qp_decode(in, r.out);
    return r;
}

decoded decode_random_chunks(std::string_view in, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::size_t> sizes;
    for (int i = 0; i < 64; ++i) sizes.push_back(1 + rng() % (i % 3 == 0 ? 100 : 5));
    return decode_in_pieces<qp_decoder>(in, sizes);
}

constexpr bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}
constexpr int hex(char c) {
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}
constexpr bool is_space(char c) {
    return c == ' ' || c == '\t';
}
constexpr bool is_line_end(char c) {
    return c == '\r' || c == '\n';
}

/// An independent model of the documented decoding rules (for white space runs shorter than
/// the decoder's 80-octet hold-back).
decoded reference_decode(std::string_view in) {
    decoded r;
    auto problem = [&](bool codec_status::*flag, std::uint64_t at) {
        r.st.*flag = true;
        r.st.first_problem = std::min(r.st.first_problem, at);
    };
    std::size_t line_start = 0;
    auto line_end = [&](std::size_t at) {
        if (at - line_start > 76) problem(&codec_status::long_line, line_start + 76);
        line_start = at + 1;
    };
    const std::size_t n = in.size();
    std::size_t i = 0;
    while (i < n) {
        const char c = in[i];
        if (c == '=') {
            if (i + 2 < n && is_hex(in[i + 1]) && is_hex(in[i + 2])) {
                r.out += static_cast<char>(hex(in[i + 1]) * 16 + hex(in[i + 2]));
                i += 3;
                continue;
            }
            std::size_t j = i + 1;
            while (j < n && is_space(in[j])) ++j;
            if (j == n) {
                problem(&codec_status::soft_break_at_end, i);
                i = n;
                break;
            }
            if (is_line_end(in[j])) {
                line_end(j);
                i = j + 1;
                if (in[j] == '\r' && i < n && in[i] == '\n') line_end(i++);
                continue;
            }
            problem(&codec_status::invalid_escape, i);
            r.out += '=';
            ++i;
            continue;
        }
        if (is_space(c)) {
            std::size_t j = i;
            while (j < n && is_space(in[j])) ++j;
            if (j < n && !is_line_end(in[j])) r.out.append(in.substr(i, j - i));
            i = j;
            continue;
        }
        if (is_line_end(c)) line_end(i);
        if (static_cast<unsigned char>(c) >= 0x80) problem(&codec_status::eight_bit, i);
        r.out += c;
        ++i;
    }
    if (n - line_start > 76) problem(&codec_status::long_line, line_start + 76);
    return r;
}

/// Decodes whole, octet by octet and in random chunks, with and without the SSE2 scan; all
/// must agree (and with the model when `model` is set).
decoded decode_all_ways(std::string_view in, bool model = true) {
    const decoded whole = decode_whole(in);
    if (model) {
        const decoded ref = reference_decode(in);
        EXPECT_EQ(whole.out, ref.out);
        expect_same_status(whole.st, ref.st);
    }
    const decoded bytewise = decode_in_pieces<qp_decoder>(in, {1});
    EXPECT_EQ(bytewise.out, whole.out);
    expect_same_status(bytewise.st, whole.st);
    const decoded chunks = decode_random_chunks(in, static_cast<std::uint32_t>(in.size()));
    EXPECT_EQ(chunks.out, whole.out);
    expect_same_status(chunks.st, whole.st);
    mhtml::mime::set_simd_level(simd_level::scalar);
    const decoded scalar = decode_whole(in);
    mhtml::mime::set_simd_level(simd_level::automatic);
    EXPECT_EQ(scalar.out, whole.out);
    expect_same_status(scalar.st, whole.st);
    return whole;
}

std::string random_qpish(std::mt19937& rng, std::size_t n) {
    static const std::string pieces[] = {
        "=",    "3", "D",    "d", "a",     "F",   "g",   " ",      "\t",     "\r",  "\n",
        "\r\n", "x", "\xe9", ".", "=\r\n", "=3D", "=0a", "  \r\n", "= \r\n", "=\n", "From "};
    std::string s;
    while (s.size() < n) {
        if (rng() % 8 == 0) {
            s.append(rng() % 90, static_cast<char>('a' + rng() % 26));  // a long plain run
        } else {
            s += pieces[rng() % (sizeof pieces / sizeof pieces[0])];
        }
    }
    return s;
}

std::string random_octets(std::mt19937& rng, std::size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
}

/// Text with CRLF line breaks only: words, spaces and tabs (also at line ends), "From " and
/// "." at line starts, '=', 8-bit octets and control characters.
std::string random_crlf_text(std::mt19937& rng, std::size_t n) {
    static const std::string pieces[] = {"word", " ",         "\t",   "\r\n", "From ",  ".",
                                         "=",    "\xc3\xa9",  "\x01", "x",    "  \r\n", "F",
                                         "From", "\r\n.\r\n", "\x7f", "\0"};
    std::string s;
    while (s.size() < n) {
        if (rng() % 10 == 0) {
            s.append(rng() % 200, static_cast<char>('A' + rng() % 26));
        } else {
            const std::string& p = pieces[rng() % (sizeof pieces / sizeof pieces[0])];
            s += p.empty() ? std::string(1, '\0') : p;
        }
    }
    return s;
}

/// Splits on CRLF and checks every encoded line is at most 76 characters.
void expect_short_lines(std::string_view encoded) {
    std::size_t start = 0;
    while (start <= encoded.size()) {
        std::size_t crlf = encoded.find("\r\n", start);
        if (crlf == std::string_view::npos) crlf = encoded.size();
        EXPECT_LE(crlf - start, 76u) << encoded.substr(start, crlf - start);
        start = crlf + 2;
    }
}

std::string encode_in_pieces(std::string_view in, qp_mode mode, std::mt19937& rng) {
    qp_encoder e(mode);
    std::string out;
    std::size_t at = 0;
    while (at < in.size()) {
        const std::size_t n = std::min<std::size_t>(rng() % 12, in.size() - at);
        std::vector<char> buf(qp_encoder::max_output(n));
        const std::size_t got = e.step(in.substr(at, n), buf.data());
        EXPECT_LE(got, buf.size());
        out.append(buf.data(), got);
        at += n;
    }
    std::vector<char> buf(qp_encoder::max_output(0));
    const std::size_t got = e.finish(buf.data());
    EXPECT_LE(got, buf.size());
    out.append(buf.data(), got);
    return out;
}

// --- decoding -------------------------------------------------------------------------------

TEST(QuotedPrintable, DecodesEscapesInEitherCase) {
    const decoded r = decode_all_ways("a=3Db=3dc=C3=A9");
    EXPECT_EQ(r.out, "a=b=c\xc3\xa9");
    EXPECT_TRUE(r.st.clean());
}

TEST(QuotedPrintable, RemovesSoftLineBreaks) {
    EXPECT_EQ(decode_all_ways("abc=\r\ndef").out, "abcdef");
    EXPECT_EQ(decode_all_ways("abc=\ndef").out, "abcdef");
    EXPECT_EQ(decode_all_ways("abc=\rdef").out, "abcdef");
    const decoded spaced = decode_all_ways("abc= \t \r\ndef");
    EXPECT_EQ(spaced.out, "abcdef");
    EXPECT_TRUE(spaced.st.clean());
}

TEST(QuotedPrintable, KeepsSpaceBeforeASoftBreak) {
    EXPECT_EQ(decode_all_ways("two words =\r\nhere").out, "two words here");
}

TEST(QuotedPrintable, DeletesTrailingWhiteSpacePerRule3) {
    const decoded r = decode_all_ways("abc  \r\ndef\t\nghi \t\rjkl");
    EXPECT_EQ(r.out, "abc\r\ndef\nghi\rjkl");
    EXPECT_TRUE(r.st.clean());
    EXPECT_EQ(decode_all_ways("end   ").out, "end");
}

TEST(QuotedPrintable, KeepsEncodedTrailingWhiteSpace) {
    EXPECT_EQ(decode_all_ways("abc=20\r\ndef =09\r\n").out, "abc \r\ndef \t\r\n");
}

TEST(QuotedPrintable, KeepsWhiteSpaceInsideALine) {
    EXPECT_EQ(decode_all_ways("a b\t\tc   d").out, "a b\t\tc   d");
}

TEST(QuotedPrintable, KeepsLineEndsAsTheyAre) {
    const decoded r = decode_all_ways("crlf\r\nlf\ncr\rend\r\n");
    EXPECT_EQ(r.out, "crlf\r\nlf\ncr\rend\r\n");
    EXPECT_TRUE(r.st.clean());
}

TEST(QuotedPrintable, PassesInvalidEscapesThroughLiterally) {
    const decoded r = decode_all_ways("a=ZZb");
    EXPECT_EQ(r.out, "a=ZZb");
    EXPECT_TRUE(r.st.invalid_escape);
    EXPECT_EQ(r.st.first_problem, 1u);
    const decoded half = decode_all_ways("ab=4G");
    EXPECT_EQ(half.out, "ab=4G");
    EXPECT_EQ(half.st.first_problem, 2u);
    const decoded doubled = decode_all_ways("==41");
    EXPECT_EQ(doubled.out, "=A");
    EXPECT_EQ(doubled.st.first_problem, 0u);
    const decoded spaced = decode_all_ways("x= y");
    EXPECT_EQ(spaced.out, "x= y");
    EXPECT_EQ(spaced.st.first_problem, 1u);
    const decoded before_break = decode_all_ways("x=4  \r\ny");
    EXPECT_EQ(before_break.out, "x=4\r\ny");
    EXPECT_EQ(before_break.st.first_problem, 1u);
}

TEST(QuotedPrintable, HalfEscapeAtTheEndIsKept) {
    const decoded r = decode_all_ways("abc=4");
    EXPECT_EQ(r.out, "abc=4");
    EXPECT_TRUE(r.st.invalid_escape);
    EXPECT_EQ(r.st.first_problem, 3u);
}

TEST(QuotedPrintable, EqualsAtTheVeryEndIsDropped) {
    const decoded r = decode_all_ways("abc=");
    EXPECT_EQ(r.out, "abc");
    EXPECT_TRUE(r.st.soft_break_at_end);
    EXPECT_FALSE(r.st.invalid_escape);
    EXPECT_EQ(r.st.first_problem, 3u);
    const decoded spaced = decode_all_ways("abc=  ");
    EXPECT_EQ(spaced.out, "abc");
    EXPECT_TRUE(spaced.st.soft_break_at_end);
    EXPECT_EQ(spaced.st.first_problem, 3u);
    const decoded proper = decode_all_ways("abc=\r\n");
    EXPECT_EQ(proper.out, "abc");
    EXPECT_TRUE(proper.st.clean());
}

TEST(QuotedPrintable, KeepsAndFlagsEightBitOctets) {
    const decoded r = decode_all_ways("caf\xe9 ol\xe9");
    EXPECT_EQ(r.out, "caf\xe9 ol\xe9");
    EXPECT_TRUE(r.st.eight_bit);
    EXPECT_EQ(r.st.first_problem, 3u);
}

TEST(QuotedPrintable, FlagsLinesOver76Characters) {
    const std::string ok = std::string(76, 'a') + "\r\n" + std::string(75, 'b') + "=\r\nc";
    EXPECT_TRUE(decode_all_ways(ok).st.clean());
    const std::string longer = std::string("x\r\n").append(77, 'a').append("\r\n");
    const decoded r = decode_all_ways(longer);
    EXPECT_EQ(r.out, longer);
    EXPECT_TRUE(r.st.long_line);
    EXPECT_EQ(r.st.first_problem, 3u + 76u);
    const decoded last = decode_all_ways(std::string(80, 'z'));
    EXPECT_TRUE(last.st.long_line);
    EXPECT_EQ(last.st.first_problem, 76u);
    const decoded soft = decode_all_ways(std::string(76, 'a') + "=\r\nb");
    EXPECT_TRUE(soft.st.long_line);
    EXPECT_EQ(soft.st.first_problem, 76u);
}

TEST(QuotedPrintable, SameResultForEverySplitOfTrickyInput) {
    const std::string tricky =
        "a=3D=\r\nb \t=\r\nc=  \r\nd=4\r\ne=4x=\rf  \r\n\t=20 \r\n==\n=41=\r=0a= x \xff=";
    const decoded whole = decode_all_ways(tricky);
    for (std::size_t i = 0; i <= tricky.size(); ++i) {
        for (std::size_t j = i; j <= tricky.size(); ++j) {
            qp_decoder d;
            std::string out;
            std::vector<char> buf(qp_decoder::max_output(tricky.size()));
            for (auto [from, to] : {std::pair{std::size_t{0}, i}, {i, j}, {j, tricky.size()}}) {
                const std::size_t got =
                    d.step(std::string_view(tricky).substr(from, to - from), buf.data());
                out.append(buf.data(), got);
            }
            char tail[2];
            out.append(tail, d.finish(tail));
            ASSERT_EQ(out, whole.out) << i << " " << j;
            EXPECT_EQ(d.status().first_problem, whole.st.first_problem);
        }
    }
}

TEST(QuotedPrintable, OffsetsCountAllInputGivenSoFar) {
    qp_decoder d;
    char buf[200];
    EXPECT_EQ(d.step("abc", buf), 3u);
    EXPECT_EQ(d.step("d=Q1", buf), 4u);  // "=Q" is known to be invalid: kept literally
    EXPECT_TRUE(d.status().invalid_escape);
    EXPECT_EQ(d.status().first_problem, 4u);
}

TEST(QuotedPrintable, RandomInputMatchesTheModelHoweverSplit) {
    std::mt19937 rng(31);
    for (int i = 0; i < 600; ++i)
        decode_all_ways(random_qpish(rng, rng() % (i < 500 ? 200 : 4000)));
}

TEST(QuotedPrintable, LongWhiteSpaceRunsAreHandledTheSameWhateverTheSplit) {
    // Runs longer than the 80 octets the decoder holds back: only the newest 80 are deleted.
    for (std::size_t run : {79u, 80u, 81u, 200u}) {
        for (const char* tail : {"\r\n", "x", ""}) {
            const std::string in = std::string(1, 'a').append(run, ' ').append(tail);
            const decoded r = decode_all_ways(in, false);
            if (std::string_view(tail) == "x") {
                EXPECT_EQ(r.out, in);
            } else {
                const std::size_t kept = run > 80 ? run - 80 : 0;
                EXPECT_EQ(r.out, std::string(1, 'a').append(kept, ' ').append(tail));
            }
            decode_all_ways(std::string("a=").append(run, '\t').append(tail), false);
        }
    }
}

TEST(QuotedPrintable, StepNeverWritesPastMaxOutput) {
    std::mt19937 rng(32);
    for (int i = 0; i < 300; ++i) {
        const std::string in = random_qpish(rng, rng() % 600) + std::string(rng() % 200, ' ');
        qp_decoder d;
        std::size_t at = 0;
        while (at < in.size()) {
            const std::size_t n = std::min<std::size_t>(1 + rng() % 120, in.size() - at);
            const std::size_t room = qp_decoder::max_output(n);
            std::vector<char> buf(room + 64, '\x5a');
            const std::size_t got = d.step(std::string_view(in).substr(at, n), buf.data());
            EXPECT_LE(got, room);
            for (std::size_t j = room; j < buf.size(); ++j) ASSERT_EQ(buf[j], '\x5a');
            at += n;
        }
    }
}

// --- encoding -------------------------------------------------------------------------------

TEST(QuotedPrintableEncoder, EncodesEqualsControlsAndEightBit) {
    EXPECT_EQ(qp_encode("a=b"), "a=3Db");
    EXPECT_EQ(qp_encode(std::string_view("\x01\x7f\0x", 4)), "=01=7F=00x");
    EXPECT_EQ(qp_encode("caf\xc3\xa9"), "caf=C3=A9");
    EXPECT_EQ(qp_encode("plain text, ~ and !"), "plain text, ~ and !");
}

TEST(QuotedPrintableEncoder, EncodesTrailingWhiteSpace) {
    EXPECT_EQ(qp_encode("abc \r\ndef\t\r\n"), "abc=20\r\ndef=09\r\n");
    EXPECT_EQ(qp_encode("abc \ndef"), "abc=20\r\ndef");
    EXPECT_EQ(qp_encode("end "), "end=20");
    EXPECT_EQ(qp_encode("a  b"), "a  b");
    EXPECT_EQ(qp_encode("end ", qp_mode::binary), "end=20");
}

TEST(QuotedPrintableEncoder, ProtectsFromAndDotAtLineStart) {
    EXPECT_EQ(qp_encode("From here"), "=46rom here");
    EXPECT_EQ(qp_encode("x\r\nFrom here"), "x\r\n=46rom here");
    EXPECT_EQ(qp_encode("From"), "From");
    EXPECT_EQ(qp_encode("Fromage"), "Fromage");
    EXPECT_EQ(qp_encode("x From y"), "x From y");
    EXPECT_EQ(qp_encode(".\r\n"), "=2E\r\n");
    EXPECT_EQ(qp_encode("a.b\r\n.c"), "a.b\r\n=2Ec");
}

TEST(QuotedPrintableEncoder, ProtectsFromAfterASoftBreak) {
    const std::string in = std::string(75, 'x') + "From here";
    const std::string out = qp_encode(in);
    EXPECT_EQ(out, std::string(75, 'x') + "=\r\n=46rom here");
}

TEST(QuotedPrintableEncoder, TextModeWritesCrlfLineBreaks) {
    EXPECT_EQ(qp_encode("a\nb\r\nc"), "a\r\nb\r\nc");
    EXPECT_EQ(qp_encode("a\rb"), "a=0Db");
    EXPECT_EQ(qp_encode("a\r"), "a=0D");
    EXPECT_EQ(qp_encode("a\r\r\n"), "a=0D\r\n");
}

TEST(QuotedPrintableEncoder, BinaryModeEncodesLineBreaks) {
    EXPECT_EQ(qp_encode("a\r\nb\n", qp_mode::binary), "a=0D=0Ab=0A");
    EXPECT_EQ(qp_encode("a \r\n", qp_mode::binary), "a =0D=0A");
}

TEST(QuotedPrintableEncoder, BreaksLongLinesAt76) {
    const std::string out = qp_encode(std::string(200, 'x'));
    EXPECT_EQ(out, std::string(75, 'x') + "=\r\n" + std::string(75, 'x') + "=\r\n" +
                       std::string(50, 'x'));
    // A line may use all 76 columns when a hard break or the end follows.
    EXPECT_EQ(qp_encode(std::string(76, 'y') + "\r\n"), std::string(76, 'y') + "\r\n");
    EXPECT_EQ(qp_encode(std::string(76, 'y')), std::string(76, 'y'));
    EXPECT_EQ(qp_encode(std::string(77, 'y')), std::string(75, 'y') + "=\r\nyy");
}

TEST(QuotedPrintableEncoder, NeverSplitsAnEscape) {
    EXPECT_EQ(qp_encode(std::string(74, 'x') + "="), std::string(74, 'x') + "=\r\n=3D");
    EXPECT_EQ(qp_encode(std::string(73, 'x') + "=\r\n"), std::string(73, 'x') + "=3D\r\n");
    EXPECT_EQ(qp_encode(std::string(72, 'x') + "=="), std::string(72, 'x') + "=3D=\r\n=3D");
    const std::string ws = qp_encode(std::string(74, 'x') + " \r\n");
    EXPECT_EQ(ws, std::string(74, 'x') + "=\r\n=20\r\n");
}

TEST(QuotedPrintableEncoder, ChunkedEqualsWhole) {
    std::mt19937 rng(41);
    for (int i = 0; i < 300; ++i) {
        const std::string in =
            i % 2 ? random_crlf_text(rng, rng() % 600) : random_octets(rng, rng() % 400);
        for (qp_mode mode : {qp_mode::text, qp_mode::binary}) {
            EXPECT_EQ(encode_in_pieces(in, mode, rng), qp_encode(in, mode));
        }
    }
}

TEST(QuotedPrintableEncoder, RoundTripsBinaryInBinaryMode) {
    std::mt19937 rng(42);
    for (int i = 0; i < 300; ++i) {
        const std::string in = random_octets(rng, rng() % (i < 250 ? 300 : 5000));
        const std::string encoded = qp_encode(in, qp_mode::binary);
        expect_short_lines(encoded);
        const decoded r = decode_whole(encoded);
        EXPECT_EQ(r.out, in);
        EXPECT_TRUE(r.st.clean());
    }
}

TEST(QuotedPrintableEncoder, RoundTripsCrlfTextInTextMode) {
    std::mt19937 rng(43);
    for (int i = 0; i < 300; ++i) {
        const std::string in = random_crlf_text(rng, rng() % 2000);
        const std::string encoded = qp_encode(in, qp_mode::text);
        expect_short_lines(encoded);
        const decoded r = decode_whole(encoded);
        EXPECT_EQ(r.out, in);
        EXPECT_TRUE(r.st.clean());
    }
}

TEST(QuotedPrintableEncoder, OutputFitsMaxOutput) {
    std::mt19937 rng(44);
    for (std::size_t n = 0; n < 400; ++n) {
        const std::string worst(n, '\xff');
        EXPECT_LE(qp_encode(worst, qp_mode::binary).size(), qp_encoder::max_output(n));
        EXPECT_LE(qp_encode(std::string(n, '\n')).size(), qp_encoder::max_output(n));
    }
}

// The SSE2 run copy in the encoder gives the scalar octets exactly: text-like inputs (runs of
// letters, spaces before line ends, '=', 8-bit, "From " and "." at line starts) of every
// length 0..300 and larger, in both modes, whole and in random chunks.
std::string qp_chunked(const std::string& in, qp_mode mode, std::mt19937& rng, bool whole) {
    qp_encoder e(mode);
    std::string out;
    std::size_t at = 0;
    while (at < in.size()) {
        const std::size_t n =
            whole ? in.size() : std::min<std::size_t>(rng() % 200 + 1, in.size() - at);
        std::vector<char> buf(qp_encoder::max_output(n));
        out.append(buf.data(), e.step(std::string_view(in).substr(at, n), buf.data()));
        at += n;
    }
    std::vector<char> buf(qp_encoder::max_output(0));
    out.append(buf.data(), e.finish(buf.data()));
    return out;
}

TEST(QpEncoder, VectorRunsGiveTheScalarOctets) {
    std::mt19937 rng(11);
    static constexpr std::string_view pieces[] = {"abcdefghijklmnopqrstuvwxyz",
                                                  " ",
                                                  "  ",
                                                  "\t",
                                                  "\r\n",
                                                  "\n",
                                                  "\r",
                                                  "=",
                                                  "\xE9",
                                                  "From ",
                                                  ".",
                                                  "0123456789ABCDEF",
                                                  "\x00",
                                                  "<p class=\"x\">",
                                                  " \r\n"};
    std::vector<std::string> inputs;
    for (std::size_t n = 0; n <= 300; ++n) {
        std::string s;
        while (s.size() < n) s += pieces[rng() % std::size(pieces)];
        s.resize(n);
        inputs.push_back(s);
    }
    std::string big;
    while (big.size() < 200000) big += pieces[rng() % 3 == 0 ? rng() % std::size(pieces) : 0];
    inputs.push_back(big);
    for (qp_mode mode : {qp_mode::text, qp_mode::binary}) {
        for (const auto& in : inputs) {
            mhtml::mime::set_simd_level(simd_level::scalar);
            const std::string expected = qp_encode(in, mode);
            mhtml::mime::set_simd_level(simd_level::automatic);
            ASSERT_EQ(qp_encode(in, mode), expected) << in.size();
            ASSERT_EQ(qp_chunked(in, mode, rng, false), expected) << in.size();
        }
    }
}

}  // namespace

// The writer copies quoted-printable that is already in its encoder's form
// (pack::resource::qp_body): canonical_qp says which is, and what it decodes to.
TEST(QuotedPrintableCanonical, AcceptsTheEncodersOutputForCrlfText) {
    using mhtml::mime::canonical_qp;
    std::mt19937 rng(20261128);
    const std::string_view pieces[] = {"word ", "x=y",   "\xC3\xA9",        "\r\n", "  ",   "\t",
                                       ".",     "From ", "<p class=\"x\">", "\x7f", "\x01", "-"};
    for (const simd_level level : {simd_level::scalar, simd_level::automatic}) {
        mhtml::mime::set_simd_level(level);
        for (std::size_t n = 1; n <= 400; n += 3) {
            std::string text;
            while (text.size() < n) text += pieces[rng() % std::size(pieces)];
            const std::string enc = qp_encode(text);
            const auto form = canonical_qp(enc);
            ASSERT_TRUE(form) << n << " " << enc;
            EXPECT_EQ(*form, text.size());
            std::string back;
            qp_decode(enc, back);
            EXPECT_EQ(back, text);
        }
    }
    mhtml::mime::set_simd_level(simd_level::automatic);
}

TEST(QuotedPrintableCanonical, RefusesWhatIsNotTheEncodersForm) {
    using mhtml::mime::canonical_qp;
    const std::string line72(72, 'a');
    for (const simd_level level : {simd_level::scalar, simd_level::automatic}) {
        mhtml::mime::set_simd_level(level);
        EXPECT_FALSE(canonical_qp(""));
        EXPECT_EQ(canonical_qp("abc"), 3u);
        EXPECT_EQ(canonical_qp("a=3Db\r\n"), 5u);
        EXPECT_EQ(canonical_qp(line72 + "abc=\r\nd"), 76u);  // a soft break at column 76
        EXPECT_EQ(canonical_qp(line72 + "abcd\r\nx"), 79u);  // a line of 76
        EXPECT_EQ(canonical_qp(".a\r\n. b"), 7u);           // "." at a line start: as Chrome writes
        EXPECT_EQ(canonical_qp("a =\r\nb"), 3u);            // space before a soft break
        EXPECT_FALSE(canonical_qp(line72 + "abcde\r\nx"));  // a line of 77
        EXPECT_FALSE(canonical_qp(line72 + "abcd=\r\nx"));  // 77 with the soft break
        EXPECT_FALSE(canonical_qp("a\nb"));                 // a bare LF
        EXPECT_FALSE(canonical_qp("a\rb"));                 // a bare CR
        EXPECT_FALSE(canonical_qp("a=3db"));                // lower-case hex
        EXPECT_FALSE(canonical_qp("a=G1b"));                // not an escape
        EXPECT_FALSE(canonical_qp("a=0Ab"));                // an escaped LF
        EXPECT_FALSE(canonical_qp("a=0Db"));                // an escaped CR
        EXPECT_FALSE(canonical_qp("a \r\nb"));              // trailing white space
        EXPECT_FALSE(canonical_qp("a\t"));                  // ... at the end too
        EXPECT_FALSE(canonical_qp("ab="));                  // a cut escape
        EXPECT_FALSE(canonical_qp("ab=4"));
        EXPECT_FALSE(canonical_qp("ab=\r\n"));          // a soft break at the end
        EXPECT_FALSE(canonical_qp("=\r\n=FF=FEh=00"));  // one that ends an empty line
        EXPECT_FALSE(canonical_qp("a\r\n=\r\nb"));
        EXPECT_FALSE(canonical_qp("a\xE9"));                 // an 8-bit octet
        EXPECT_FALSE(canonical_qp(std::string("a\0b", 3)));  // a control
        EXPECT_FALSE(canonical_qp("x\r\nFrom me"));          // a mailbox's From line
        EXPECT_FALSE(canonical_qp("x=\r\nFrom me"));
        // Within a long run that the vector path takes 16 at a time.
        std::string s(61, 'b');
        s[0] = 'x';
        for (std::size_t at = 1; at < s.size(); ++at)
            for (const char* bad : {"\n", "\xE9", "=", "\x7f"}) {
                std::string t = s;
                t[at] = bad[0];
                EXPECT_FALSE(canonical_qp(t)) << at << " " << static_cast<int>(bad[0]);
            }
        std::string spaced = s;
        spaced[30] = ' ';
        EXPECT_EQ(canonical_qp(spaced), s.size());
        spaced[60] = ' ';  // the last octet
        EXPECT_FALSE(canonical_qp(spaced));
    }
    mhtml::mime::set_simd_level(simd_level::automatic);
}
