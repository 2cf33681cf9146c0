#pragma once
/// The conformance checker behind `mhtml check` (MHTML draft §2.1; REQUIREMENTS section 0.5
/// and MHT-2.1.1): every MUST and SHOULD of ../shared/spec/REQUIREMENTS.md that can be
/// judged from a message, each finding naming the requirement row it applies.
///
/// Levels: a violated MUST is an `error` (the message is not compliant), a violated SHOULD a
/// `warning` (it is at best conditionally compliant), and what is worth knowing without
/// breaking a rule (an implied row, a legacy form the reader recovers from, E-32, E-34, L-1)
/// a `note`. Every check, its code, row and level is listed in docs/check.md.
///
/// The checks reuse what the layers below already find: the aggregate's root selection,
/// Content-Base and duplicate-label diagnostics (archive/aggregate.hpp) and the parser's
/// `multipart_with_encoding`, mapped to their rows; the rest (repeated Content-Location,
/// characters that needed encoding, Content-ID form and uniqueness, charset, canonical line
/// ends, references that reach no part, parts nothing references) is judged here. Every
/// check is linear in the size of the message.

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/export.hpp"
#include "mhtml/mime/document.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::archive {

enum class finding_level : std::uint8_t {
    error,    ///< a MUST violated
    warning,  ///< a SHOULD violated
    note,     ///< worth knowing: an implied row, a legacy form, a recovery
};
/// "error", "warning", "note".
MHTML_EXPORT std::string_view level_name(finding_level l) noexcept;

/// One thing the checker found.
struct finding {
    std::string requirement;  ///< the REQUIREMENTS row, e.g. "MHT-4.2.5" (or "E-34", "L-1")
    finding_level level = finding_level::note;
    std::string code;          ///< stable snake_case name, e.g. "multiple_content_location"
    std::string part_path;     ///< IMAP-style path of the entity; "" = the message
    std::uint64_t offset = 0;  ///< byte offset in the input (a field, a part, a reference)
    std::string message;       ///< what is wrong, where, and what a reader does about it
};

struct check_options {
    /// Judge the aggregate as RFC 2557 reads it, with no retries and no compatibility
    /// matches (aggregate_options::strict, the CLI's `--strict`): references that only a
    /// lenient reader finds count as reaching no part.
    bool strict = false;
    /// aggregate_options::blink_style_imports (the CLI's `--blink-style-imports`).
    aggregate_options::style_imports blink_style_imports =
        aggregate_options::style_imports::chromium;
    /// Where `mid:` URLs naming other messages are looked up (aggregate_options::store, the
    /// CLI's `--store`). Without one they are not judged; with one, a `mid:` URL it does not
    /// resolve is reported (`mid_not_found`).
    const message_store* store = nullptr;
};

/// Checks `doc`. Findings are sorted by part path (document order), then offset.
MHTML_EXPORT std::vector<finding> check(const mime::document& doc,
                                        const check_options& options = {});

/// How many findings of each level.
struct finding_counts {
    std::size_t errors = 0, warnings = 0, notes = 0;
};
MHTML_EXPORT finding_counts count_levels(const std::vector<finding>& findings) noexcept;

}  // namespace mhtml::archive
