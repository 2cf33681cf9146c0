#pragma once
/// The outcome of a URI-layer conversion that can fail (cid:/mid: <-> header ids,
/// Content-Type <-> URI mapping, URL parameters): the value, or a stable error code.

#include <string>
#include <string_view>
#include <utility>

namespace mhtml::uri {

template <class T>
struct result {
    T value{};
    std::string_view error;  ///< empty on success; otherwise a stable code, e.g. "empty_id"
    std::string message;     ///< on failure: what was wrong, for people

    [[nodiscard]] bool ok() const noexcept { return error.empty(); }
    explicit operator bool() const noexcept { return ok(); }

    static result success(T v) { return result{std::move(v), {}, {}}; }
    static result failure(std::string_view code, std::string why) {
        return result{T{}, code, std::move(why)};
    }
};

}  // namespace mhtml::uri
