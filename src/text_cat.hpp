#pragma once
// String building by appending, for every layer (internal). GCC 12 warns falsely
// (-Wrestrict) about `"literal" + std::string`, so messages are built with cat().

#include <initializer_list>
#include <string>
#include <string_view>

namespace mhtml::detail {

inline std::string cat(std::initializer_list<std::string_view> pieces) {
    std::size_t n = 0;
    for (auto piece : pieces) n += piece.size();
    std::string out;
    out.reserve(n);
    for (auto piece : pieces) out += piece;
    return out;
}

template <class... Pieces>
std::string cat(const Pieces&... pieces) {
    return cat({std::string_view(pieces)...});
}

}  // namespace mhtml::detail
