#pragma once
// The charset the writer gives a text whose type names none (MHT-11.9), internal to pack/:
// repair names it in the type beforehand when it knows the decoded text already, so that the
// writer can copy a quoted-printable body as it is instead of decoding it again.

#include <string>
#include <string_view>

namespace mhtml::pack::detail {

/// For decoded text `body` (an HTML document when `is_html`) of a type without a charset: a
/// UTF-8 byte order mark, else (HTML) a <meta> charset, else UTF-8 for an HTML document in
/// ASCII and us-ascii for other ASCII text, else UTF-8 when it is valid UTF-8. "" when none of
/// these holds: the writer then labels it windows-1252, and says so.
std::string chosen_charset(std::string_view body, bool is_html);

}  // namespace mhtml::pack::detail
