#pragma once
// What `extract` and `inline` share: choosing the related structure, collecting the parts a
// view needs, and rewriting one document part's references (internal to src/view).

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/view/extract.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mhtml::view::detail {

/// The related structure `part` names (its path or a part inside it), or the first one;
/// -1 when the message has none. Sets `error` when `part` names nothing.
int select_structure(const archive::aggregate& agg, const std::optional<std::string>& part,
                     std::string& error);

/// The part a view starts from: the root of structure `rs`, or the message's root entity
/// (its displayed alternative for a multipart/alternative) when `rs` is -1.
mime::part_view start_part(const archive::aggregate& agg, int rs);

/// Every leaf under structure `rs` (or `start` alone), then every part the document parts
/// among them reach by resolved references, transitively; `start` first, then document order.
std::vector<mime::part_view> parts_to_write(const archive::aggregate& agg, int rs,
                                            const mime::part_view& start);

struct rewrite_counts {
    std::size_t to_parts = 0, external_left = 0, external_removed = 0;
};

/// What becomes of a reference that resolved to `target`: the new URL (without the
/// reference's fragment, which is added back), or nullopt to treat it as external.
using local_url = std::function<std::optional<std::string>(const mime::part_view& target,
                                                           const html::reference& r)>;

/// `d.text` with its references rewritten: to `local(target)` when it gives a URL; else a
/// relative one made absolute when the part's base is a real URL; else, when `offline` and a
/// browser would fetch it on its own (a resource), `data:,`. A `<base href>` is emptied.
std::string rewrite_references(const archive::aggregate& agg, const mime::part_view& p,
                               const archive::document_text& d, const local_url& local,
                               bool offline, rewrite_counts& counts);
/// As rewrite_references(), streaming the result to `sink`.
void rewrite_references_to(const archive::aggregate& agg, const mime::part_view& p,
                           const archive::document_text& d, const local_url& local, bool offline,
                           rewrite_counts& counts,
                           const std::function<void(std::string_view)>& sink);

/// Where declarations go in an HTML text: after a byte order mark, white space, comments
/// and a doctype, so that the document's mode does not change.
std::size_t head_insertion_point(std::string_view html) noexcept;

/// `<meta charset="...">` when a browser reading `html` (already rewritten) from a file
/// would not find `charset` on its own (no BOM or <meta> gives it), else "".
std::string charset_declaration(std::string_view html, std::string_view charset, bool transcoded);

/// True for text/html parts (declarations are inserted in HTML only, not in XHTML or SVG).
bool is_text_html(const mime::part_view& p) noexcept;

}  // namespace mhtml::view::detail
