#pragma once
// Which Content-IDs the writer writes as they are, internal to pack/: the writer replaces any
// other with a generated one, and repair, which must give the same octets every time, with a
// stable one of its own first.

#include <string_view>

namespace mhtml::pack::detail {

/// A Content-ID that can be written between angle brackets and in a quoted `start`
/// parameter: printable ASCII without white space, `<`, `>`, `"` or `\\`.
constexpr bool writable_id(std::string_view id) noexcept {
    for (const char ch : id) {
        const auto c = static_cast<unsigned char>(ch);
        if (c <= 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '"' || c == '\\') return false;
    }
    return true;
}

}  // namespace mhtml::pack::detail
