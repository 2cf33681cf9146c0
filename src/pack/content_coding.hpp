#pragma once
// HTTP Content-Encoding decoding for the writer (MHT-11.6), internal to pack/.

#include <cstdint>
#include <string>
#include <string_view>

namespace mhtml::pack::detail {

enum class decode_status : std::uint8_t { ok, unknown_coding, corrupt, limit };

/// Undoes `coding` (`gzip`, `x-gzip`, `deflate`, `br`, `identity`; any case) on `in` into
/// `out` (replaced), stopping with `limit` once more than `max_out` octets would be produced.
/// `deflate` is the zlib format as RFC 9110 says, or raw deflate as some servers send it.
decode_status decode_content(std::string_view coding, std::string_view in, std::string& out,
                             std::uint64_t max_out);

}  // namespace mhtml::pack::detail
