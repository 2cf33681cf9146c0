// store::split_mbox, unquote and quote: the mbox formats, damaged mailboxes, and the round trip
// of the corpus's messages through an mboxrd file.
#include "mhtml/store/mbox.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mhtml::store {
namespace {

bool has(const mbox_split& s, diag_code c) {
    for (const diagnostic& d : s.diagnostics)
        if (d.code == c) return true;
    return false;
}

std::string_view text_of(std::string_view file, const mbox_message& m) {
    return file.substr(m.offset, m.size);
}

TEST(Mbox, MessagesAreRangesOfTheFileWithoutTheSeparator) {
    const std::string file =
        "From a@b.example Mon Jan  1 00:00:00 2024\n"
        "Subject: one\n\nbody one\n>From here, quoted\n\n"
        "From c@d.example Tue Jan  2 00:00:00 2024\n"
        "Subject: two\n\nbody two\n\n";
    const mbox_split s = split_mbox(file);
    EXPECT_EQ(s.format, mbox_format::mboxo);
    EXPECT_FALSE(s.crlf);
    ASSERT_EQ(s.messages.size(), 2u);
    EXPECT_EQ(s.messages[0].envelope, "a@b.example Mon Jan  1 00:00:00 2024");
    EXPECT_EQ(s.messages[0].from_line, 0u);
    EXPECT_EQ(text_of(file, s.messages[0]), "Subject: one\n\nbody one\n>From here, quoted\n");
    EXPECT_TRUE(s.messages[0].quoted);
    EXPECT_EQ(unquote(text_of(file, s.messages[0]), s.format),
              "Subject: one\n\nbody one\nFrom here, quoted\n");
    EXPECT_EQ(text_of(file, s.messages[1]), "Subject: two\n\nbody two\n");
    EXPECT_FALSE(s.messages[1].quoted);
    EXPECT_EQ(s.messages[1].from_line, file.find("From c@d"));
    EXPECT_TRUE(s.diagnostics.empty());
    EXPECT_TRUE(looks_like_mbox(file));
    EXPECT_FALSE(looks_like_mbox("From: a@b.example\n\nhi\n"));
    EXPECT_FALSE(looks_like_mbox("MIME-Version: 1.0\n"));
}

TEST(Mbox, MboxrdIsDetectedAndUnquotesOneLevel) {
    const std::string file =
        "From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\n>From one\n>>From two\n\n";
    const mbox_split s = split_mbox(file);
    EXPECT_EQ(s.format, mbox_format::mboxrd);
    ASSERT_EQ(s.messages.size(), 1u);
    EXPECT_EQ(unquote(text_of(file, s.messages[0]), s.format),
              "Subject: x\n\nFrom one\n>From two\n");
    EXPECT_EQ(quote("Subject: x\n\nFrom one\n>From two\n", mbox_format::mboxrd),
              "Subject: x\n\n>From one\n>>From two\n");
}

TEST(Mbox, CrlfMailboxes) {
    const std::string file =
        "From a@b Mon Jan  1 00:00:00 2024\r\nSubject: x\r\n\r\nbody\r\n\r\n"
        "From a@b Mon Jan  1 00:00:01 2024\r\nSubject: y\r\n\r\nbody\r\n\r\n";
    const mbox_split s = split_mbox(file);
    EXPECT_TRUE(s.crlf);
    ASSERT_EQ(s.messages.size(), 2u);
    EXPECT_EQ(text_of(file, s.messages[0]), "Subject: x\r\n\r\nbody\r\n");
    EXPECT_EQ(s.messages[1].envelope, "a@b Mon Jan  1 00:00:01 2024");
    EXPECT_TRUE(s.diagnostics.empty());
}

TEST(Mbox, DamagedMailboxesLoseNothing) {
    // No From_ line at the start: what comes first is a message of its own.
    const std::string headless =
        "Subject: lost\n\nfirst\n\nFrom a@b Mon Jan  1 00:00:00 2024\n"
        "Subject: x\n\nsecond\n\n";
    const mbox_split h = split_mbox(headless);
    ASSERT_EQ(h.messages.size(), 2u);
    EXPECT_EQ(text_of(headless, h.messages[0]), "Subject: lost\n\nfirst\n");
    EXPECT_TRUE(has(h, diag_code::mbox_missing_from_line));
    // A "From " line inside a body, not after an empty line: body text.
    const std::string inner =
        "From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\nline\n"
        "From the start it was clear\n\n";
    const mbox_split i = split_mbox(inner);
    ASSERT_EQ(i.messages.size(), 1u);
    EXPECT_NE(text_of(inner, i.messages[0]).find("From the start"), std::string_view::npos);
    EXPECT_TRUE(has(i, diag_code::mbox_unquoted_from));
    EXPECT_EQ(i.diagnostics[0].part_path, "#1");
    EXPECT_EQ(i.diagnostics[0].offset, inner.find("From the start"));
    // Cut in the middle of the last message.
    const std::string cut = "From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\nbody that was cu";
    const mbox_split c = split_mbox(cut);
    ASSERT_EQ(c.messages.size(), 1u);
    EXPECT_EQ(text_of(cut, c.messages[0]), "Subject: x\n\nbody that was cu");
    EXPECT_TRUE(has(c, diag_code::mbox_truncated));
    // Empty.
    EXPECT_TRUE(split_mbox("").messages.empty());
}

TEST(Mbox, ContentLengthMailboxesSplitByLength) {
    // A body line "From " after an empty line: the line rule would split there; mboxcl2 does
    // not quote it and its Content-Length says where the message ends.
    const std::string body1 = "first\n\nFrom the body, not a new message\n";
    const std::string file = "From a@b Mon Jan  1 00:00:00 2024\nSubject: x\nContent-Length: " +
                             std::to_string(body1.size()) + "\n\n" + body1 +
                             "\nFrom c@d Mon Jan  1 00:00:01 2024\nSubject: y\n"
                             "Content-Length: 7\n\nsecond\n\n";
    const mbox_split s = split_mbox(file);
    EXPECT_EQ(s.format, mbox_format::mboxcl2);
    ASSERT_EQ(s.messages.size(), 2u);
    EXPECT_NE(text_of(file, s.messages[0]).find("From the body"), std::string_view::npos);
    EXPECT_EQ(s.messages[1].envelope, "c@d Mon Jan  1 00:00:01 2024");
    // Forced mboxo: the line rule, three messages.
    EXPECT_EQ(split_mbox(file, mbox_format::mboxo).messages.size(), 3u);
    // A wrong length: not mboxcl2; forced, it says so and splits by lines.
    std::string wrong = file;
    wrong.replace(wrong.find("Content-Length: 7"), 17, "Content-Length: 9");
    // A wrong length in the second message: ignored for it (it ends at the next From_ line,
    // here the end of the file), and said; the first is still split by its length.
    const mbox_split w = split_mbox(wrong);
    EXPECT_EQ(w.format, mbox_format::mboxcl2);
    ASSERT_EQ(w.messages.size(), 2u);
    EXPECT_TRUE(has(w, diag_code::mbox_bad_content_length));
    EXPECT_EQ(text_of(wrong, w.messages[1]), "Subject: y\nContent-Length: 9\n\nsecond\n");
}

TEST(Mbox, LengthsArePerMessageAndQuotingWritersAreUnquoted) {
    // One message with a length that protects a "From " line of its body, one without a
    // length: the first is split by its length, the second by the line rule, and the body's
    // "From " line of the first is no split.
    const std::string body1 = "first\n\nFrom the body x\n";
    const std::string mixed =
        "From a@b Mon Jan  1 00:00:00 2024\nContent-Length: " + std::to_string(body1.size()) +
        "\n\n" + body1 + "\nFrom c@d Mon Jan  1 00:00:01 2024\nSubject: y\n\nsecond\n\n";
    const mbox_split m = split_mbox(mixed);
    EXPECT_EQ(m.format, mbox_format::mboxcl2);
    ASSERT_EQ(m.messages.size(), 2u);
    EXPECT_EQ(text_of(mixed, m.messages[0]),
              "Content-Length: " + std::to_string(body1.size()) + "\n\n" + body1);
    EXPECT_EQ(text_of(mixed, m.messages[1]), "Subject: y\n\nsecond\n");
    EXPECT_TRUE(m.diagnostics.empty()) << m.diagnostics.front().message;
    // Lengths and ">From " quoting (mboxcl): unquoted like mboxo.
    const std::string cl =
        "From a@b Mon Jan  1 00:00:00 2024\nContent-Length: 20\n\n"
        ">From the start\nbye\n\n";
    const mbox_split q = split_mbox(cl);
    EXPECT_EQ(q.format, mbox_format::mboxo);
    ASSERT_EQ(q.messages.size(), 1u);
    EXPECT_EQ(unquote(text_of(cl, q.messages[0]), q.format),
              "Content-Length: 20\n\nFrom the start\nbye\n");
    // A body that does not end with a line end: the size is the length's, exactly.
    const std::string exact =
        "From a 1 00:00 2024\nContent-Length: 3\n\nabc\n"
        "From b 1 00:00 2024\nContent-Length: 2\n\nde\n";
    const mbox_split e = split_mbox(exact);
    ASSERT_EQ(e.messages.size(), 2u);
    EXPECT_EQ(text_of(exact, e.messages[0]), "Content-Length: 3\n\nabc");
    EXPECT_EQ(text_of(exact, e.messages[1]), "Content-Length: 2\n\nde");
    EXPECT_TRUE(e.diagnostics.empty());
}

TEST(Mbox, EmptyMessagesAndTheEndOfTheFile) {
    const std::string two_empty = "From a 1\n\nFrom a 1\n\n";
    const mbox_split e = split_mbox(two_empty);
    ASSERT_EQ(e.messages.size(), 2u);
    EXPECT_EQ(e.messages[0].size, 0u);
    EXPECT_EQ(e.messages[1].size, 0u);
    EXPECT_TRUE(e.diagnostics.empty());
    const mbox_split cut = split_mbox("From a 1\n");
    ASSERT_EQ(cut.messages.size(), 1u);
    EXPECT_TRUE(has(cut, diag_code::mbox_truncated));
    // The obsolete header form "From :" is no From_ line; a real one has a ctime date.
    EXPECT_FALSE(looks_like_mbox("From : Ann <a@b.example>\nSubject: obs\n\nx\n"));
    EXPECT_FALSE(looks_like_mbox("From the desk of Ann\n\nletter\n"));
    EXPECT_TRUE(looks_like_mbox("\nFrom MAILER-DAEMON Fri Jul  8 12:08:34 2011\n"));
}

TEST(Mbox, TheCorpusMessagesRoundTripThroughAnMboxrdFile) {
    // Every e-mail of the corpus that ends with a line end, quoted into one mboxrd file and
    // read back: each message octet for octet.
    std::vector<std::string> messages;
    for (const auto& e :
         std::filesystem::directory_iterator(std::filesystem::path(MHTML_TEST_DATA) / "corpus")) {
        if (e.path().extension() != ".eml") continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        std::string m = ss.str();
        if (m.empty() || m.back() != '\n') continue;
        messages.push_back(std::move(m));
    }
    ASSERT_GE(messages.size(), 10u);
    std::string file;
    for (const std::string& m : messages)
        file += "From sender@example.invalid Mon Jan  1 00:00:00 2024\n" +
                quote(m, mbox_format::mboxrd) + "\n";
    const mbox_split s = split_mbox(file, mbox_format::mboxrd);
    ASSERT_EQ(s.messages.size(), messages.size());
    for (std::size_t i = 0; i < messages.size(); ++i)
        EXPECT_EQ(unquote(text_of(file, s.messages[i]), s.format), messages[i]) << i;
}

}  // namespace
}  // namespace mhtml::store

namespace mhtml::store {
namespace {

// A mailbox over 4 GiB: offsets past 2^32 are kept exactly. The mailbox is an anonymous
// mapping: its zero pages cost no memory, and only the pages written to hold the messages'
// headers and the From_ lines.
TEST(Mbox, OffsetsPastFourGibibytesAreExact) {
    constexpr std::uint64_t size = (std::uint64_t{1} << 32) + (std::uint64_t{1} << 20);
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    char* bytes = static_cast<char*>(p);
    const std::string first = "From a@b.example Mon Jan  1 00:00:00 2024\nSubject: big\n\n";
    std::memcpy(bytes, first.data(), first.size());
    // The body: zeros (4 GiB of them, one long line), then a line end and the separator.
    const std::uint64_t second_at = (std::uint64_t{1} << 32) + 4096;
    const std::string second =
        "\n\nFrom c@d.example Tue Jan  2 00:00:00 2024\nSubject: after\n\n>From the far end\n\n";
    std::memcpy(bytes + second_at - 2, second.data(), second.size());
    const std::string_view file(bytes, second_at - 2 + second.size());
    ASSERT_GT(file.size(), std::uint64_t{1} << 32);

    const mbox_split s = split_mbox(file);
    ASSERT_EQ(s.messages.size(), 2u);
    EXPECT_EQ(s.messages[0].offset, first.find("Subject"));
    EXPECT_EQ(s.messages[0].size, second_at - 1 - s.messages[0].offset);  // up to its line end
    EXPECT_EQ(s.messages[1].from_line, second_at);
    EXPECT_EQ(s.messages[1].offset, second_at + second.find("Subject") - 2);
    EXPECT_TRUE(s.messages[1].quoted);
    std::string storage;
    EXPECT_EQ(message_text(file, s.messages[1], s.format, storage),
              "Subject: after\n\nFrom the far end\n");
    EXPECT_TRUE(s.diagnostics.empty());
    ::munmap(p, size);
}

}  // namespace
}  // namespace mhtml::store
