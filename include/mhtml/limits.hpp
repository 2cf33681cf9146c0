#pragma once
/// Resource limits for the parser. Hitting one yields a diagnostic, never a crash or hang:
/// the parser stops descending or interpreting, and keeps every byte (the tree still
/// serialises back to the input exactly). max_diagnostics bounds the list of diagnostics
/// itself.

#include <cstddef>

namespace mhtml {

struct parse_limits {
    /// Nesting of multiparts and messages. Beyond it a multipart or message is kept as
    /// an opaque leaf (`depth_limit`). The parser recurses, so this is capped at 1000.
    std::size_t max_depth = 100;
    /// Bytes of one header block that are interpreted; the rest of an over-long block is
    /// kept as raw bytes of the block but not parsed into fields (`header_block_limit`).
    /// Values above 4 GiB - 1 act as 4 GiB - 1: fields are recorded by 32-bit offsets.
    std::size_t max_header_block = 1u << 20;
    /// Fields interpreted per header block (`header_count_limit`).
    std::size_t max_header_fields = 10'000;
    /// Entities in one document; further body parts are kept inside the last multipart's
    /// epilogue as raw bytes (`part_count_limit`).
    std::size_t max_parts = 1'000'000;
    /// A header line longer than this is reported (`line_length_limit`); it is still read.
    std::size_t max_line_length = 1u << 20;
    /// Diagnostics kept per document. Past it they are counted in one final
    /// `diagnostics_dropped` diagnostic (its severity the worst dropped), so an input of a
    /// million broken lines yields at most this many plus one. 10,000 is far more than any
    /// real archive of the corpus needs; 0 keeps only that final count.
    std::size_t max_diagnostics = 10'000;

    static constexpr std::size_t hard_max_depth = 1000;
};

}  // namespace mhtml
