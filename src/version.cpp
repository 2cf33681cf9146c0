#include "mhtml/version.hpp"

namespace mhtml {

std::string_view version() noexcept {
    return MHTML_VERSION_STRING;
}

}  // namespace mhtml
