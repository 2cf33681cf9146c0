/// libFuzzer target for mailboxes: split arbitrary input as an mbox (the format detected, and
/// each format forced), read every message as the indexer does (store::message_text), and
/// quote and unquote.
///
/// Checks, on arbitrary input: nothing crashes or hangs; messages are in order, inside the
/// input, and do not overlap; a message starts after its From_ line; every diagnostic names a
/// message that exists (or the whole mailbox) at an offset inside the input; message_text is
/// the stored octets when nothing is quoted, else unquote's; unquote(quote(x)) == x for
/// mboxrd (the format that can always be undone); a message quoted in mboxrd and wrapped in a
/// From_ line splits back into one message with the same octets.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz_check.hpp"
#include "mhtml/store/mbox.hpp"

namespace {

void check_split(std::string_view input, std::optional<mhtml::store::mbox_format> forced) {
    using namespace mhtml::store;
    const mbox_split s = split_mbox(input, forced);
    if (forced) MHTML_CHECK(s.format == *forced);
    std::uint64_t end = 0;
    std::string storage;
    for (const mbox_message& m : s.messages) {
        MHTML_CHECK(m.from_line >= end);
        MHTML_CHECK(m.offset >= m.from_line);
        MHTML_CHECK(m.offset <= input.size() && m.size <= input.size() - m.offset);
        end = m.offset + m.size;
        const std::string_view stored = input.substr(m.offset, m.size);
        const std::string_view text = message_text(input, m, s.format, storage);
        if (!m.quoted || s.format == mbox_format::mboxcl2)
            MHTML_CHECK(text.data() == stored.data() && text.size() == stored.size());
        else
            MHTML_CHECK(text == unquote(stored, s.format));
    }
    for (const mhtml::diagnostic& d : s.diagnostics) {
        MHTML_CHECK(d.offset <= input.size());
        if (!d.part_path.empty()) {
            MHTML_CHECK(d.part_path.front() == '#');
            std::uint64_t n = 0;
            for (char c : std::string_view(d.part_path).substr(1)) {
                MHTML_CHECK(c >= '0' && c <= '9');
                n = n * 10 + static_cast<std::uint64_t>(c - '0');
            }
            MHTML_CHECK(n >= 1 && n <= s.messages.size());
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace mhtml::store;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    check_split(input, std::nullopt);
    for (mbox_format f : {mbox_format::mboxo, mbox_format::mboxrd, mbox_format::mboxcl2})
        check_split(input, f);
    (void)looks_like_mbox(input);
    const std::string quoted = quote(input, mbox_format::mboxrd);
    MHTML_CHECK(unquote(quoted, mbox_format::mboxrd) == input);
    // One message, stored as a writer stores it: it comes back whole (when it ends with a line
    // break and does not itself look like a From_ line at its start).
    if (!input.empty() && input.back() == '\n' && input.find('\r') == std::string_view::npos) {
        const std::string box = "From a@b.example Mon Jan  1 00:00:00 2024\n" + quoted + "\n";
        const mbox_split s = split_mbox(box, mbox_format::mboxrd);
        MHTML_CHECK(s.messages.size() == 1);
        std::string storage;
        MHTML_CHECK(message_text(box, s.messages[0], s.format, storage) == input);
    }
    return 0;
}
