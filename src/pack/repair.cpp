// pack::repair: a damaged or odd archive read with every salvage, written canonical.

#include "mhtml/pack/repair.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "collect_support.hpp"
#include "mhtml/ascii.hpp"
#include "mhtml/detail/string_index.hpp"
#include "mhtml/html/rewrite.hpp"
#include "mhtml/mime/base64.hpp"
#include "mhtml/mime/quoted_printable.hpp"
#include "mhtml/mime/rfc2047.hpp"
#include "mhtml/uri/header_value.hpp"
#include "mhtml/uri/reference.hpp"
#include "pack/text_charset.hpp"
#include "pack/writable_id.hpp"

namespace mhtml::pack {

namespace {

using archive::document_type;

std::string hex_sha256(std::string_view s) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(s.data(), s.size(), md, &n, EVP_sha256(), nullptr);
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
        out += hex[md[i] >> 4];
        out += hex[md[i] & 15];
    }
    return out;
}

// A Content-ID the writer writes as it is (else it would generate a random one), on a line
// of its own.
bool writable_id(std::string_view id) {
    return !id.empty() && id.size() <= 900 && detail::writable_id(id);
}

std::string_view without_fragment(std::string_view u) {
    return u.substr(0, std::min(u.find('#'), u.size()));
}

std::string_view fragment_of(std::string_view u) {
    const std::size_t h = u.find('#');
    return h == std::string_view::npos ? std::string_view() : u.substr(h);
}

/// What is written for `p`: the message/external-body around it if there is one (an external
/// body stays one part: its parameters and encapsulated header say where the data is), else
/// `p`.
mime::part_view unit_of(const mime::part_view& p) {
    for (auto up = p.parent(); up; up = up->parent())
        if (up->content_type().is("message", "external-body")) return unit_of(*up);
    return p;
}

/// The leaf to show for `p`: `p` itself, or inside a multipart a text/html leaf, else its first
/// leaf. Which text/html: the last, the preferred alternative of RFC 2046 §5.1.4 (`rfc`); or
/// the first, the one Chromium shows (it flattens the tree and takes the first document).
std::optional<mime::part_view> display_leaf(const mime::part_view& p, repair_target target) {
    if (p.is_leaf()) return p;
    std::optional<mime::part_view> first, html;
    bool first_phantom = false;
    std::vector<mime::part_view> todo{p};
    while (!todo.empty()) {
        const mime::part_view q = todo.back();
        todo.pop_back();
        if (q.is_leaf()) {
            // The encapsulated header of an external body is no document to show.
            const bool phantom = !(unit_of(q) == q);
            if (!first || (first_phantom && !phantom)) {
                first = q;
                first_phantom = phantom;
            }
            if (!phantom && q.content_type().is("text", "html") &&
                (!html || target == repair_target::rfc))
                html = q;
            continue;
        }
        auto kids = q.children();
        for (auto it = kids.rbegin(); it != kids.rend(); ++it) todo.push_back(*it);
    }
    return html ? html : first;
}

// A parameter value as a quoted-string (RFC 2045 5.1).
std::string quoted_value(std::string_view v) {
    std::string q = "\"";
    for (const char c : v) {
        if (c == '"' || c == '\\') q += '\\';
        q += c;
    }
    return q + '"';
}

bool is_external_body(const mime::part_view& p) {
    return p.content_type().is("message", "external-body");
}

// The Content-Type repair writes for a part that is not the root: an external body's with all
// its parameters, each quoted; else the media type, with its charset where it is text.
std::string leaf_type(const mime::part_view& p) {
    const mime::content_type& ct = p.content_type();
    std::string t = ct.essence();
    if (is_external_body(p)) {
        for (const auto& prm : ct.params.items())
            t += "; " + prm.name + "=" + quoted_value(prm.value);
    } else if (ct.type == "text") {
        // The writer takes a charset that is a name, and chooses one for the rest.
        if (auto cs = ct.param("charset"); cs && !cs->empty())
            t += "; charset=" + quoted_value(*cs);
    }
    return t;
}

// What planning reads of each leaf that the aggregate does not give (its type to write, its
// Content-ID, whether it is a document), found on a thread of its own while the aggregate is
// built, where there are many: by part index, for each leaf's unit_of(). The parts are only
// read (a document may be read from several threads at once).
class early_leaves {
public:
    struct facts {
        std::string type;                       // leaf_type()
        std::optional<std::string> content_id;  // part_view::content_id()
        archive::document_type doc = archive::document_type::none;
        bool found = false;
    };
    explicit early_leaves(const mime::document& doc) {
        if (doc.size() < 4096 || std::thread::hardware_concurrency() < 2) return;
        try {
            facts_.resize(doc.size());
            thread_ = std::thread([this, &doc]() noexcept {
                try {
                    for (const mime::part_view& p : doc.parts()) {
                        if (!p.is_leaf()) continue;
                        const mime::part_view u = unit_of(p);
                        facts& f = facts_[u.index()];
                        if (f.found) continue;
                        f.type = leaf_type(u);
                        f.content_id = u.content_id();
                        f.doc = archive::document_type_of(u);
                        f.found = true;
                    }
                } catch (...) {
                    failed_ = true;  // out of memory: found on the planning thread
                }
            });
        } catch (const std::exception&) {
            facts_ = {};  // no thread, or no memory for the table
        }
    }
    early_leaves(const early_leaves&) = delete;
    early_leaves& operator=(const early_leaves&) = delete;
    ~early_leaves() { join(); }
    /// Part i's facts, once found (waits for the thread); null where they were not.
    [[nodiscard]] facts* of(std::uint32_t i) {
        join();
        return i < facts_.size() && facts_[i].found ? &facts_[i] : nullptr;
    }
    void release() {
        join();
        facts_ = {};
    }

private:
    void join() {
        if (thread_.joinable()) {
            thread_.join();
            if (failed_) facts_ = {};
        }
    }
    std::vector<facts> facts_;
    bool failed_ = false;  // written by the thread, read after the join
    std::thread thread_;   // last: started by the constructor
};

/// Where a part of a first pass's output came from: the input part's path and offset.
struct origin {
    std::string path;
    std::uint64_t offset = 0;
};

class repairer {
public:
    /// `from`: when `doc` is a first pass's output, the input part each of its parts (by
    /// index) was written from; the report then speaks of those.
    repairer(const mime::document& doc, const repair_options& o, repair_report& rep,
             const std::map<std::uint32_t, origin>* from = nullptr)
        : doc_(doc),
          opt_(o),
          rep_(rep),
          early_(doc),
          ar_(archive::aggregate::build(doc, o.read)),
          from_(from) {}

    bool plan() { return plan(nullptr); }
    void write(sink& out);
    enum class outcome {
        no_parts,   // nothing to write
        written,    // planned and written to `out`
        planned,    // planned, nothing written: widens() (the caller writes a first pass)
        abandoned,  // written in part, then widens(): `out` started over, this repairer spent
    };
    /// plan(), and the leaves written to `out` as planning gets past them (on another
    /// thread), so that writing the first overlaps reading the later. With `may_widen`, an
    /// output that widens() is not written (`planned`; `abandoned` once writing began, which
    /// needs a sink that can start over). Without it the output goes to `out` in any case.
    outcome plan_and_write(sink& out, bool may_widen);
    /// Whether plan() wrote a label otherwise than the input had it (resolved, a root's
    /// thismessage:/, a file: label mapped), or a document's references resolve against
    /// another base in the output: references that named nothing, or another part by a
    /// lenient reading, may then resolve otherwise in the output.
    [[nodiscard]] bool widens() const noexcept { return widens_; }

private:
    struct leaf {
        explicit leaf(mime::part_view p) : part(p) {}
        mime::part_view part;
        std::string label;                        // as written in the output ("" = none)
        std::string content_id;                   // without brackets
        std::string type;                         // the Content-Type to write
        std::optional<std::string> text;          // a document rewritten (its new octets)
        document_type doc = document_type::none;  // archive::document_type_of(part)
        bool referenced = false;
        bool cut = false;   // the last part of a multipart without its close delimiter
        bool copy = false;  // its body copied as it is (copies(), by check())
        resource::encoded_check checked;  // its body's form, where it is copied (check())
    };
    /// Whether leaf `i`'s body is copied as it is: base64 or quoted-printable in the writer's
    /// own form is not decoded and encoded again (the writer checks the form).
    [[nodiscard]] bool copies(std::size_t i) const;
    /// Settles whether leaf `i`'s body is copied (leaf::copy, once its text is settled) and
    /// checks the form of a small one that is, on the thread that plans, so that the thread
    /// that writes does not (the writer's costliest step on small parts).
    void check(std::size_t i);

    void change(std::string what, const mime::part_view& p, std::uint64_t offset, std::string why,
                std::string requirement) {
        change(rep_, std::move(what), p, offset, std::move(why), std::move(requirement));
    }
    void change(repair_report& to, std::string what, const mime::part_view& p, std::uint64_t offset,
                std::string why, std::string requirement) const {
        to.changes.push_back({std::move(what), in_path(p), from_ ? in_offset(p) : offset,
                              std::move(why), std::move(requirement)});
    }
    /// The input's path and offset of `p` (itself, or the part a first pass wrote it from).
    [[nodiscard]] std::string in_path(const mime::part_view& p) const {
        if (from_)
            if (auto it = from_->find(p.index()); it != from_->end()) return it->second.path;
        return p.path();
    }
    [[nodiscard]] std::uint64_t in_offset(const mime::part_view& p) const {
        if (from_)
            if (auto it = from_->find(p.index()); it != from_->end()) return it->second.offset;
        return p.input_offset();
    }
    std::string label_of(const mime::part_view& p);
    std::string type_of(const mime::part_view& p, bool is_root);
    void rewrite_references(leaf& d, std::optional<archive::document_text> read);
    void read_documents(std::size_t from, std::size_t to,
                        std::vector<std::optional<archive::document_text>>& docs) const;
    [[nodiscard]] std::string output_base(const leaf& d, const html::scan_result& scan) const;

    const mime::document& doc_;
    const repair_options& opt_;
    repair_report& rep_;
    early_leaves early_;  // before ar_: found while it is built
    archive::aggregate ar_;
    std::vector<leaf> leaves_;           // root first
    std::vector<std::size_t> by_index_;  // a part's index -> its leaf in leaves_, or npos
    [[nodiscard]] leaf* leaf_of(std::uint32_t index) {
        if (index >= by_index_.size() || by_index_[index] == std::string::npos) return nullptr;
        return &leaves_[by_index_[index]];
    }
    // display_leaf() of each part a reference named, found once: every reference to a
    // multipart of many leaves walked it again (20,000 of them to one of 20,000: 11 s).
    std::vector<std::uint32_t> shown_;  // by part index: unknown, none, or the leaf's index
    static constexpr std::uint32_t shown_unknown = 0xfffffffeu;
    [[nodiscard]] std::optional<mime::part_view> shown_leaf_of(const mime::part_view& p) {
        if (shown_.empty()) shown_.assign(doc_.size(), shown_unknown);
        std::uint32_t& s = shown_[p.index()];
        if (s == shown_unknown) {
            const auto leaf = display_leaf(p, opt_.target);
            s = leaf ? leaf->index() : mime::detail::entity_record::none;
        }
        if (s == mime::detail::entity_record::none) return std::nullopt;
        return doc_.part(s);
    }
    std::set<std::string> cut_;  // multiparts without their close delimiter
    const std::map<std::uint32_t, origin>* from_;
    bool widens_ = false;
    void incomplete(repair_report& to, const leaf& l, bool lost_octets) const;
    class writing;
    class stream;
    struct stream_to {  // where plan() streams the leaves it has planned
        sink& out;
        bool may_widen;
        std::unique_ptr<stream> s;  // while streaming
        bool abandoned = false;     // streamed in part, then widened
    };
    bool plan(stream_to* st);
    void take(repair_report&& written);
};

void repairer::incomplete(repair_report& to, const leaf& l, bool lost_octets) const {
    if (!lost_octets && !l.cut) return;
    to.incomplete.push_back(in_path(l.part));
    change(to, "incomplete", l.part, l.part.input_offset(),
           lost_octets ? "the body lost octets in decoding (a cut base64 quantum or "
                         "quoted-printable soft break); written with what was recovered"
                       : "the part ends where the file does (no close delimiter): it may be "
                         "cut; written as it was found",
           "");
}

// Lines of 76 characters and CRLF, and a shorter last one: the shape of the writer's base64,
// so probably copied as it is. Only the first and the last line ends are looked at here:
// every line and octet is checked once (mime::canonical_base64_size, by repairer::check as
// planning passes, for the writer), and the writer decodes the body when that fails (then
// writing decodes it too, to see whether octets were lost).
bool base64_lines(std::string_view b) {
    if (b.ends_with("\r\n")) b.remove_suffix(2);
    const std::size_t last = b.size() % 78;
    if (last == 0 || last > 76 || last % 4 != 0) return false;
    if (b.size() < 78) return true;
    const std::size_t final_end = b.size() - last - 2;  // the last full line's CRLF
    return b[76] == '\r' && b[77] == '\n' && b[final_end] == '\r' && b[final_end + 1] == '\n';
}

std::string repairer::label_of(const mime::part_view& p) {
    const archive::entity_info& info = ar_.info(p);
    // The URI the field carries (RFC 2017 quoted words and RFC 2047 words undone), as the
    // reader extracted it: what the writer writes again in the form it chooses.
    if (!info.location_text || info.location_text->empty()) return {};
    const std::string& written = *info.location_text;
    if (opt_.keep_labels || !info.location) return written;
    if (*info.location != written) {
        // The reader found the part by its resolved label; a browser reading of the label as
        // written may have differed from that of the resolved one (it strips what the
        // header reading kept, for one).
        widens_ = true;
        change("label_resolved", p, p.input_offset(),
               "Content-Location '" + written + "' written resolved against its base as '" +
                   *info.location + "', so that every reader finds the part by it",
               "MHT-4.2.3");
    }
    std::string label = *info.location;
    if (opt_.target == repair_target::chromium && label.size() > 5 &&
        ascii::iequals(std::string_view(label).substr(0, 5), "file:")) {
        // Chromium serves no file: URL from an archive. The same path under the fictitious
        // base's scheme keeps every relative reference resolving as it did (and Chromium
        // resolves against it); absolute file: references are then rewritten.
        std::string_view rest = std::string_view(label).substr(5);
        if (rest.starts_with("//")) {
            rest.remove_prefix(2);
            rest.remove_prefix(std::min(rest.find('/'), rest.size()));  // the host, if any
        }
        std::string mapped = "thismessage:" + std::string(rest.starts_with('/') ? "" : "/");
        mapped += rest;
        widens_ = true;
        change("label_file_mapped", p, p.input_offset(),
               "Content-Location '" + label +
                   "' is a file: URL, which Chromium does not serve "
                   "from an archive; written '" +
                   mapped + "'",
               "");
        label = std::move(mapped);
    }
    return label;
}

std::string repairer::type_of(const mime::part_view& p, bool is_root) {
    if (!is_root || opt_.target != repair_target::chromium || is_external_body(p))
        return leaf_type(p);
    const mime::content_type& ct = p.content_type();
    std::string type = ct.essence();
    if (type == "text/plain" || type == "application/xhtml+xml" ||
        type == "application/octet-stream") {
        std::string body;
        p.decode_to(body);
        if (type == "application/xhtml+xml" || detail::looks_like_html(body)) {
            change("root_type", p, p.input_offset(),
                   "the root is HTML typed " + type +
                       ", which Chromium does not show as a page; written text/html",
                   "MHT-7.6");
            type = "text/html";
        }
    }
    if (ct.type == "text" || type == "text/html") {
        // The writer takes a charset that is a name, and chooses one for the rest.
        if (auto cs = ct.param("charset"); cs && !cs->empty())
            type += "; charset=" + quoted_value(*cs);
    }
    return type;
}

// The base a reference in document `d` resolves against in the output: its <base href>
// (resolved against its label), else its label, else thismessage:/ (there is no Content-Base
// in the output). Chromium gives a document without a label none that reaches a part (its
// cid: URL, or the file's): "" then, and every relative reference needs rewriting.
std::string repairer::output_base(const leaf& d, const html::scan_result& scan) const {
    std::string base = d.label;
    if (base.empty() && opt_.target == repair_target::rfc) base = "thismessage:/";
    if (scan.base) {
        const std::string& href = scan.refs[*scan.base].url;
        if (auto b = uri::resolve(base.empty() ? std::string("thismessage:/") : base, href);
            b && (!base.empty() || uri::is_absolute(href)))
            base = std::move(*b);
    }
    return base;
}

// Reads (decodes and scans) the documents among leaves_[from, to) into docs[i - from] on this
// thread and a second one, when there is enough to share: the aggregate's const members may
// be called from several threads at once. A document left unread (none was read, or the
// helper ran out of memory) is read by rewrite_references.
void repairer::read_documents(std::size_t from, std::size_t to,
                              std::vector<std::optional<archive::document_text>>& docs) const {
    docs.clear();
    std::vector<std::size_t> todo;
    std::uint64_t bytes = 0;
    for (std::size_t i = from; i < to; ++i)
        if (leaves_[i].doc != document_type::none) {
            todo.push_back(i);
            bytes += leaves_[i].part.raw_body().size();
        }
    // Shared only when the documents are few and large enough to be worth a thread (not
    // thousands of small style sheets, whose decoded forms would pile up for nothing):
    // otherwise each is read by rewrite_references when it gets there.
    if (todo.size() < 2 || bytes < (std::uint64_t{256} << 10) ||
        bytes / todo.size() < (std::uint64_t{16} << 10) || std::thread::hardware_concurrency() < 2)
        return;
    docs.resize(to - from);
    std::atomic<std::size_t> next{0};
    const auto work = [&]() noexcept {
        for (std::size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < todo.size();) {
            try {
                docs[todo[k] - from] = ar_.read_document(leaves_[todo[k]].part);
            } catch (const std::exception&) {
                // read again, on this thread, by rewrite_references
            }
        }
    };
    std::optional<std::thread> helper;
    try {
        helper.emplace(work);
    } catch (const std::exception&) {
        docs.clear();  // no thread (or no memory for one): each read by rewrite_references
        return;
    }
    work();
    if (helper) helper->join();
}

void repairer::rewrite_references(leaf& d, std::optional<archive::document_text> read) {
    // No document (d.doc is what read_document would find) and none to scan as one.
    if (d.doc == document_type::none && !d.type.starts_with("text/html")) return;
    archive::document_text doc = read ? std::move(*read) : ar_.read_document(d.part);
    if (doc.type == document_type::none) {
        // A root written text/html that its type hid from the reader (root_type): scanned as
        // the HTML it is, as Chromium will read it.
        if (!d.type.starts_with("text/html")) return;
        doc.text.clear();
        d.part.decode_to(doc.text);
        doc.scan = html::scan_html(doc.text);
        doc.type = document_type::html;
    }
    const std::string base = output_base(d, doc.scan);
    // A document whose references resolve against another base in the output than in the
    // input (an unlabelled one, a top-level Content-Location that set its base) may find
    // parts there that its references did not name here.
    if (!doc.scan.refs.empty() && base != ar_.info(d.part).base) widens_ = true;
    bool changed = false;
    std::vector<std::optional<std::string>> values(doc.scan.refs.size());
    for (std::size_t i = 0; i < doc.scan.refs.size(); ++i) {
        const html::reference& r = doc.scan.refs[i];
        if (doc.scan.base && *doc.scan.base == i) continue;
        const archive::resolution res = d.doc == doc.type
                                            ? ar_.resolve(d.part, r)
                                            : ar_.resolve(d.part, std::string_view(r.url));
        if (!res.target || res.same_document || res.from_store) continue;
        leaf* found = leaf_of(res.target->index());
        if (!found) {
            // A multipart named by cid: its displayed leaf.
            if (auto shown = shown_leaf_of(*res.target)) found = leaf_of(shown->index());
            if (!found) continue;
        }
        leaf& t = *found;
        t.referenced = true;
        if (opt_.keep_labels) continue;
        const std::string_view url = r.url;
        const bool cid = url.size() > 4 && ascii::iequals(url.substr(0, 4), "cid:");
        std::string want;
        // A cid: URL that finds its part's Content-ID stays; one that names a multipart or
        // message (flattened away) is rewritten to the leaf shown for it.
        if (cid && !res.lenient && !t.content_id.empty() && res.target->index() == t.part.index())
            continue;
        if (!t.label.empty()) {
            want = t.label;
        } else if (!t.content_id.empty()) {
            want = "cid:" + t.content_id;
        } else {
            continue;  // nothing names it
        }
        const std::string_view frag = fragment_of(url);
        const document_type target_type = t.doc;
        // Chromium looks a resource up with its fragment: only a document keeps one.
        const bool keep_fragment =
            target_type == document_type::html || target_type == document_type::svg;
        // A label with a fragment (Blink labels a resource fetched as `x.png#f` so) is
        // looked up whole; otherwise the label, and the fragment only into a document.
        const bool label_fragment = !fragment_of(want).empty();
        if (!cid) {
            const auto now =
                base.empty() ? (uri::is_absolute(url) ? std::optional<std::string>(std::string(url))
                                                      : std::nullopt)
                             : uri::resolve(base, url);
            if (now && (label_fragment
                            ? *now == want
                            : without_fragment(*now) == want && (keep_fragment || frag.empty())))
                continue;  // resolves exactly in the output as it is
        }
        std::string value =
            want + std::string(keep_fragment && !label_fragment ? frag : std::string_view());
        if (value == url) continue;  // already so (a cid: URL that is a label, as Blink writes)
        // Where in IN: the reference itself when the body is there as it is (7bit, 8bit,
        // binary, not transcoded), else the part; the octet in the decoded document is said.
        const auto cte = d.part.encoding();
        const bool as_is =
            !from_ && !doc.transcoded && !d.part.in_decoded_body() &&
            (cte == mime::transfer_encoding::seven_bit ||
             cte == mime::transfer_encoding::eight_bit || cte == mime::transfer_encoding::binary);
        change("reference_rewritten", d.part,
               as_is ? d.part.body_offset() + r.offset : d.part.input_offset(),
               "'" + r.url + "' names part " + in_path(t.part) + " only by a lenient match (" +
                   (res.lenient ? "another spelling, base or form" : "a fragment or base") +
                   "); written '" + value + "' (no header alone makes it match)" +
                   (as_is ? std::string()
                          : "; at octet " + std::to_string(r.offset) + " of the decoded document"),
               "MHT-4.4.1");
        values[i] = std::move(value);
        changed = true;
    }
    if (!changed) {
        // Written as it is: named with the charset the writer would choose from these very
        // octets, so that it need not decode a quoted-printable body to copy it as it is.
        if (&d != &leaves_.front() && !doc.transcoded &&
            d.part.encoding() == mime::transfer_encoding::quoted_printable &&
            d.type.starts_with("text/") && d.type.find("; charset=") == std::string::npos) {
            const std::string cs = detail::chosen_charset(doc.text, d.type == "text/html");
            if (!cs.empty()) d.type += "; charset=" + cs;
        }
        return;
    }
    d.text = html::rewrite(doc.text, doc.scan.refs,
                           [&](const html::reference& r) -> std::optional<std::string> {
                               return values[static_cast<std::size_t>(&r - doc.scan.refs.data())];
                           });
    if (doc.transcoded) {
        // The scanner's text is UTF-8 made from the part's charset; so is what is written.
        const std::size_t semi = d.type.find(';');
        d.type = d.type.substr(0, semi) + "; charset=UTF-8";
        change("charset_changed", d.part, d.part.input_offset(),
               "the document was rewritten as UTF-8 (it was " + doc.charset + ")", "MHT-11.9");
    }
}

// Writes the leaves in order into `out`, as write() and a stream do. What writing finds is
// kept in its own report (`found`), taken into the repairer's when the writing is over, so
// that planning may go on beside it. `shared`: planning still reads the leaves (their labels
// and Content-IDs are copied, not moved out).
class repairer::writing {
public:
    writing(repairer& r, sink& out, bool shared) : r_(r), shared_(shared), w_(out, options(r)) {
        w_.reserve(r.leaves_.size());
        found.inputs.reserve(r.leaves_.size());
    }
    /// Writes leaf `i` (or leaves it out); false once the writer failed.
    bool put(std::size_t i);
    void finish() { found.written = w_.finish(); }
    repair_report found;

private:
    static writer_options options(const repairer& r) {
        writer_options wo = r.opt_.write;
        wo.method = method::content_location;
        wo.root_position = 0;
        wo.mail = false;
        // Chromium reads a Content-Location only from one line (no RFC 2017 quoted words).
        if (r.opt_.target == repair_target::chromium) wo.fold_uris = false;
        // RFC 2557 alone: no octet RFC 1738 calls unsafe in a header URI (MHT-4.4.1.1).
        if (r.opt_.target == repair_target::rfc) wo.encode_unsafe_uris = true;
        const mime::part_view top = r.doc_.parts().front();
        // Deterministic (repair(repair(x)) == repair(x)): one fixed boundary, and the input's
        // Date and Subject. A fixed boundary is safe: it holds "=_", which no base64 or
        // quoted-printable body can, and the writer proves it absent from any 7bit one.
        if (wo.boundary.empty()) wo.boundary = "----=_mhtml-repair";
        if (!wo.date && wo.date_field.empty())
            if (auto h = top.header("Date")) wo.date_field = h->value();
        if (!wo.subject)
            if (auto h = top.header("Subject")) wo.subject = mime::decode_to_utf8(h->value());
        return wo;
    }
    repairer& r_;
    const bool shared_;
    writer w_;
    std::string body_;  // a decoded body's buffer, reused
};

bool repairer::copies(std::size_t i) const {
    const leaf& l = leaves_[i];
    const bool text = l.type.starts_with("text/");
    return i > 0 && !l.text && !is_external_body(l.part) &&
           ((!text && l.part.encoding() == mime::transfer_encoding::base64 &&
             base64_lines(l.part.raw_body())) ||
            (text && l.part.encoding() == mime::transfer_encoding::quoted_printable));
}

void repairer::check(std::size_t i) {
    leaf& l = leaves_[i];
    l.copy = copies(i);
    // Where the writer would check it: not when it needs the octets anyway.
    if (!l.copy || opt_.write.content_md5 || opt_.write.external_over != 0) return;
    const std::string_view body = l.part.raw_body();
    // A large body is left to the writer, which checks it just before it copies it, while it
    // is in the cache (on large, checking here took 3% longer).
    if (body.size() >= (std::size_t{64} << 10)) return;
    l.checked.size = l.part.encoding() == mime::transfer_encoding::base64
                         ? mime::canonical_base64_size(body)
                         : mime::canonical_qp(body);
    l.checked.done = true;
}

bool repairer::writing::put(std::size_t i) {
    leaf& l = r_.leaves_[i];  // written once: its strings move into the resource
    if (i > 0 && r_.opt_.drop_unreferenced && !l.referenced) {  // not read when streaming
        found.dropped.push_back(r_.in_path(l.part));
        return true;
    }
    const bool text = l.type.starts_with("text/");
    const bool copy = l.copy;  // check(i) settled it as planning passed
    resource r;
    // Planning reads other leaves' labels and Content-IDs (never their types or texts).
    r.label = shared_ ? l.label : std::move(l.label);
    r.content_id = shared_ ? l.content_id : std::move(l.content_id);
    r.content_type = std::move(l.type);
    r.origin = r_.in_path(l.part);
    found.inputs.push_back(r.origin);
    bool lost = false;
    if (l.text) {
        r.data = std::move(*l.text);
        // Rewritten from its decoded octets: did decoding lose any?
        std::string check;
        const mime::codec_status st = l.part.decode_to(check);
        lost = st.truncated || st.soft_break_at_end;
    } else if (is_external_body(l.part)) {
        // The encapsulated header and the phantom body, as they are; the header ends with an
        // empty line even when it is empty (RFC 2046 5.2.3).
        r.data = l.part.raw_body();
        if (!r.data.starts_with('\n') && !r.data.starts_with("\r\n") &&
            r.data.find("\n\n") == std::string::npos &&
            r.data.find("\n\r\n") == std::string::npos) {
            if (!r.data.empty() && !r.data.ends_with('\n')) r.data += "\r\n";
            r.data += "\r\n";
            r_.change(found, "external_header_ended", l.part, l.part.input_offset(),
                      "the external body's encapsulated header had no empty line after it; one "
                      "was added",
                      "URL-3.0.4");
        }
    } else if (copy && text) {
        r.qp_body = l.part.raw_body();
        r.checked = l.checked;
    } else if (copy) {
        r.base64_body = l.part.raw_body();
        r.checked = l.checked;
    } else {
        body_.clear();
        // What decoding recovered (an octet outside the alphabet, a cut quantum) is a finding
        // on reading.
        const mime::codec_status st = l.part.decode_to(body_, found.read);
        lost = st.truncated || st.soft_break_at_end;
        r.data = std::move(body_);
    }
    const std::size_t before = w_.report().parts.size();
    const bool ok = i == 0 ? w_.root(r) : w_.add(r);
    body_ = std::move(r.data);  // the buffer is reused
    if (copy && w_.report().parts.size() > before && !w_.report().parts.back().copied_encoded) {
        // Decoded by the writer after all (an octet outside the alphabet): did it lose any?
        std::string check;
        const mime::codec_status st = l.part.decode_to(check, found.read);
        lost = st.truncated || st.soft_break_at_end;
    }
    r_.incomplete(found, l, lost);
    return ok;
}

// What writing found, after what planning did: the report as if one came after the other.
void repairer::take(repair_report&& written) {
    std::move(written.changes.begin(), written.changes.end(), std::back_inserter(rep_.changes));
    std::move(written.read.begin(), written.read.end(), std::back_inserter(rep_.read));
    std::move(written.incomplete.begin(), written.incomplete.end(),
              std::back_inserter(rep_.incomplete));
    rep_.dropped = std::move(written.dropped);
    rep_.inputs = std::move(written.inputs);
    rep_.written = std::move(written.written);
}

void repairer::write(sink& out) {
    writing wr(*this, out, false);
    for (std::size_t i = 0; i < leaves_.size(); ++i)
        if (!wr.put(i)) break;
    wr.finish();
    take(std::move(wr.found));
}

// The leaves written on a thread of their own as planning gets past them (ready()): the
// leaves before `ready` are no longer changed by planning, except for `referenced`, which
// writing does not read here (no drop_unreferenced). Destroyed before finish(), it stops after
// the leaf being written, and the sink then holds a part of an archive.
class repairer::stream {
public:
    stream(repairer& r, sink& out) : wr_(r, out, true), total_(r.leaves_.size()) {
        thread_ = std::thread([this] { run(); });  // last: may throw std::system_error
    }
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    /// Stops the thread after the leaf being written (when finish() has not), then the writer
    /// and its write-behind thread: nothing is written to the sink after.
    ~stream() {
        {
            std::lock_guard lock(m_);
            stop_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
    }
    /// Leaves [0, n) are planned.
    void ready(std::size_t n) {
        {
            std::lock_guard lock(m_);
            ready_ = n;
        }
        cv_.notify_all();
    }
    /// Waits until every leaf is written (or the writer failed), then finishes the output;
    /// what writing found. Rethrows what the thread threw.
    repair_report finish() {
        ready(total_);
        thread_.join();
        if (error_) std::rethrow_exception(error_);
        wr_.finish();
        return std::move(wr_.found);
    }

private:
    void run() noexcept {
        try {
            for (std::size_t i = 0; i < total_; ++i) {
                {
                    std::unique_lock lock(m_);
                    cv_.wait(lock, [&] { return stop_ || i < ready_; });
                    if (stop_) return;
                }
                if (!wr_.put(i)) return;  // the sink failed: finish() reports it
            }
        } catch (...) {
            error_ = std::current_exception();
        }
    }
    writing wr_;
    const std::size_t total_;
    std::mutex m_;
    std::condition_variable cv_;
    std::size_t ready_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
    std::thread thread_;  // last: started by the constructor
};

bool repairer::plan(stream_to* st) {
    for (const diagnostic& d : doc_.diagnostics()) rep_.read.push_back(d);
    for (const diagnostic& d : ar_.diagnostics()) rep_.read.push_back(d);
    // The root as the reader chose it; an alternative of a multipart/alternative stands for
    // that multipart, whose shown leaf depends on the target (display_leaf).
    mime::part_view chosen = ar_.main_root();
    for (auto up = chosen.parent(); up && up->content_type().is("multipart", "alternative");
         up = up->parent())
        chosen = *up;
    const auto shown = display_leaf(chosen, opt_.target);
    if (!shown) return false;
    const std::optional<mime::part_view> root = unit_of(*shown);
    // The leaves: root first, then in document order (an encapsulated message's too: nested
    // structures are flattened into one multipart/related; an external body is one part).
    std::vector<mime::part_view> order{*root};
    std::vector<bool> taken(doc_.size());
    taken[root->index()] = true;
    for (const mime::part_view& p : doc_.parts()) {
        if (!p.is_leaf()) continue;
        const mime::part_view u = unit_of(p);
        if (!taken[u.index()]) {
            taken[u.index()] = true;
            order.push_back(u);
        }
    }
    for (const mime::part_view& p : doc_.parts()) {
        if (!p.is_leaf()) continue;
        if (!(unit_of(p) == *root))
            change("root_moved", *root, root->input_offset(),
                   "the root (part " + in_path(*root) + ") is written first, and named by `type`",
                   "MHT-7.6");
        break;
    }
    // Which leaves end without their close delimiter (the file may have been cut there).
    for (const diagnostic& d : doc_.diagnostics())
        if (d.code == diag_code::missing_close_delimiter || d.code == diag_code::truncated_header)
            cut_.insert(d.part_path);
    // The labels written so far (fragments set aside): those of leaves_, by index.
    mhtml::detail::string_index labels;
    labels.reserve(order.size());
    const auto label_of_leaf = [this](std::size_t k) { return without_fragment(leaves_[k].label); };
    by_index_.assign(doc_.size(), std::string::npos);
    leaves_.reserve(order.size());
    for (const mime::part_view& p : order) {
        leaf l(p);
        early_leaves::facts* const early = early_.of(p.index());
        l.doc = early ? early->doc : archive::document_type_of(p);
        const std::optional<std::string> id = early ? std::move(early->content_id) : p.content_id();
        l.label = label_of(p);
        // One label per part, and two labels are the same resource when they differ only in
        // their fragment (MHT-8.2.4).
        if (!l.label.empty() &&
            labels.find_or_insert(without_fragment(l.label),
                                  static_cast<std::uint32_t>(leaves_.size()),
                                  label_of_leaf) != mhtml::detail::string_index::npos) {
            change("label_dropped", p, p.input_offset(),
                   "Content-Location '" + l.label +
                       "' is an earlier part's too (fragments set aside); no two parts share "
                       "a label, so this one is written without, and references to it use its "
                       "Content-ID",
                   "MHT-7.13");
            // A stable Content-ID, so that references can still name it (and a second
            // repair finds the same).
            if (!id)
                l.content_id = "repair-" + hex_sha256(l.label + '\n' + p.path()).substr(0, 24) +
                               "@mhtml.invalid";
            l.label.clear();
        }
        if (l.content_id.empty()) l.content_id = id.value_or("");
        if (!l.content_id.empty() && !writable_id(l.content_id)) {
            // The writer would replace it with a random one: a stable one instead.
            const std::string fresh = "repair-" +
                                      hex_sha256(l.content_id + '\n' + p.path()).substr(0, 24) +
                                      "@mhtml.invalid";
            change("content_id_replaced", p, p.input_offset(),
                   "Content-ID '" + l.content_id + "' cannot be written as a msg-id; written as '" +
                       fresh + "'",
                   "CID-2");
            l.content_id = fresh;
        }
        const bool is_root = leaves_.empty();
        l.type = early && !is_root ? std::move(early->type) : type_of(p, is_root);
        by_index_[p.index()] = leaves_.size();
        if (is_external_body(p))
            for (const mime::part_view& c : p.children()) by_index_[c.index()] = leaves_.size();
        leaves_.push_back(std::move(l));
    }
    early_.release();
    leaves_.front().referenced = true;
    // Chromium resolves a root's relative references against its label, and with none against
    // the file's URL: a root without one is labelled with the fictitious base the reader used
    // (MHT-5.6), which Chromium takes as a base, so "a.png" finds thismessage:/a.png.
    if (opt_.target == repair_target::chromium && leaves_.front().label.empty() &&
        labels.find("thismessage:/", label_of_leaf) == mhtml::detail::string_index::npos &&
        !opt_.keep_labels) {
        leaves_.front().label = "thismessage:/";
        widens_ = true;
        change("root_labelled", leaves_.front().part, leaves_.front().part.input_offset(),
               "the root has no Content-Location; written with thismessage:/, the base its "
               "relative references had, so that Chromium resolves them as mhtml did",
               "MHT-5.6");
    }
    // The last part of a multipart whose close delimiter is missing: its end may be gone with
    // the rest of the file. (Octets lost in decoding are found in write().) Each such
    // multipart's children are listed once: per leaf, that was quadratic in a cut archive of
    // many parts (100000 took 29 s).
    std::vector<bool> last_of_cut(doc_.size());
    for (const std::string& path : cut_)
        if (const auto m = doc_.find(path))
            if (const std::vector<mime::part_view> kids = m->children(); !kids.empty())
                last_of_cut[kids.back().index()] = true;
    for (leaf& l : leaves_) l.cut = last_of_cut[l.part.index()];
    // The documents are read a window at a time (up to 16 MiB of their bodies, then held
    // decoded until they are rewritten), by two threads; rewritten in order here. With a
    // stream, the leaves of a window are written while the next is read, and the window is
    // 2 MiB, so that writing starts early (on large, 2 MiB did better than 1 and 4, and than
    // 16 MiB without streaming).
    if (st && !(st->may_widen && widens_)) {
        try {
            st->s = std::make_unique<stream>(*this, st->out);
        } catch (const std::exception&) {
            // no thread (or no memory for one): written after planning
        }
    }
    const bool streaming = st && st->s;
    const std::uint64_t window = (streaming ? std::uint64_t{2} : std::uint64_t{16}) << 20;
    // A streamed window also ends after so many leaves, documents or not: else an archive of
    // many small images and few documents (`many`) is one window, and writing waits for all
    // of planning.
    const std::size_t window_leaves = streaming ? 1024 : leaves_.size();
    std::vector<std::optional<archive::document_text>> docs;
    for (std::size_t from = 0; from < leaves_.size();) {
        std::size_t to = from;
        for (std::uint64_t bytes = 0;
             to < leaves_.size() && bytes < window && to - from < window_leaves; ++to)
            if (leaves_[to].doc != document_type::none) bytes += leaves_[to].part.raw_body().size();
        read_documents(from, to, docs);
        for (std::size_t i = from; i < to; ++i) {
            rewrite_references(leaves_[i], docs.empty() ? std::nullopt : std::move(docs[i - from]));
            check(i);
        }
        from = to;
        if (streaming) {
            if (st->may_widen && widens_) {
                // What was written is not the output after all: a first pass is.
                st->s.reset();  // stops the thread, then the writer
                st->abandoned = true;
                return true;
            }
            st->s->ready(to);
        }
    }
    for (const leaf& l : leaves_)
        if (!l.referenced) rep_.unreferenced.push_back(in_path(l.part));
    return true;
}

repairer::outcome repairer::plan_and_write(sink& out, bool may_widen) {
    // Streamed where that is safe: into a sink that may be written from another thread (a
    // string_sink may: the caller waits here while it is written), unless the writer is to
    // use one thread (write_behind off); not when the last document may still leave a part
    // out (drop_unreferenced), nor into a sink that cannot start over when the output may
    // yet turn out to need a first pass.
    stream_to st{out, may_widen, nullptr};
    const bool streams = !opt_.drop_unreferenced && opt_.write.write_behind &&
                         std::thread::hardware_concurrency() > 1 &&
                         (out.writes_from_any_thread() || dynamic_cast<string_sink*>(&out)) &&
                         (!may_widen || out.restartable());
    try {
        if (!plan(streams ? &st : nullptr)) return outcome::no_parts;
        if (st.s) {  // streamed (not abandoned): what the writing thread threw is thrown here
            take(st.s->finish());
            return outcome::written;
        }
    } catch (...) {
        if (st.s) {  // no part of an archive left behind where the sink can drop it
            st.s.reset();
            (void)out.restart();
        }
        throw;
    }
    if (st.abandoned) {
        if (!out.restart()) {
            rep_.written.error =
                diagnostic{severity::error, diag_code::sink_write_failed, "", 0,
                           "the output could not start over (" + out.error() + ")"};
            return outcome::written;  // failed: the caller reports it
        }
        return outcome::abandoned;
    }
    if (may_widen && widens_) return outcome::planned;
    write(out);
    return outcome::written;
}

}  // namespace

namespace {

// The length of a UTF-8 BOM and blank lines at the start of `in` (0 when none).
std::size_t leading_junk(std::string_view in) {
    std::size_t at = in.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    for (;;) {
        std::size_t e = at;
        while (e < in.size() && (in[e] == ' ' || in[e] == '\t')) ++e;
        if (e < in.size() && in[e] == '\r') ++e;
        if (e < in.size() && in[e] == '\n') {
            at = e + 1;
            continue;
        }
        return at;
    }
}

// The boundary of a body that is a multipart without saying so: its first non-blank line is
// `--X` (X a legal boundary) and `--X--` comes later at a line start; else "".
std::string hidden_boundary(std::string_view body) {
    body.remove_prefix(leading_junk(body));
    if (!body.starts_with("--")) return {};
    std::size_t eol = body.find('\n');
    if (eol == std::string_view::npos) return {};
    std::string_view b = body.substr(2, eol - 2);
    if (b.ends_with('\r')) b.remove_suffix(1);
    while (!b.empty() && (b.back() == ' ' || b.back() == '\t')) b.remove_suffix(1);
    if (b.empty() || b.size() > 70 || b.ends_with("--")) return {};
    for (char c : b)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e ||
            c == '"')
            return {};
    const std::string close = "\n--" + std::string(b) + "--";
    if (body.find(close, eol) == std::string_view::npos) return {};
    return std::string(b);
}

}  // namespace

repair_report repair_bytes(std::string_view input, sink& out, const repair_options& options,
                           const mime::parse_options& parse) {
    std::vector<repair_change> before;
    const std::size_t junk = leading_junk(input);
    if (junk > 0) {
        before.push_back({"leading_junk", "", 0,
                          "left out " + std::to_string(junk) +
                              " octets before the first header field (a byte order mark or "
                              "blank lines): no reader finds the headers after them",
                          "RFC 5322 2.1"});
        input.remove_prefix(junk);
    }
    mime::document doc = mime::document::parse(input, parse);  // borrowed: `input` outlives it
    const mime::part_view top = doc.parts().front();
    if (top.is_leaf() && !top.content_type().is_multipart()) {
        const std::string b = hidden_boundary(top.raw_body());
        if (!b.empty()) {
            // The same header block without its Content-Type, then the multipart's.
            std::string fixed;
            for (const auto& f : top.headers()) {
                if (f.is("Content-Type")) continue;
                fixed.append(f.raw());
                if (!f.raw().ends_with('\n')) fixed += "\r\n";
            }
            fixed += "Content-Type: multipart/related; boundary=\"" + b + "\"\r\n\r\n";
            fixed.append(top.raw_body());
            before.push_back({"top_type", "", top.offset(),
                              "the message is typed " + top.content_type().essence() +
                                  " but its body is a multipart (delimiters --" + b +
                                  "); read as multipart/related",
                              "REL-2.1"});
            doc = mime::document::parse(std::move(fixed), parse);
        }
    }
    repair_report rep = repair(doc, out, options);
    rep.changes.insert(rep.changes.begin(), before.begin(), before.end());
    return rep;
}

namespace {

// One multipart/related of leaves (an external body counts as one): references resolve in it
// as they will in the output, which has the same shape.
bool flat_related(const mime::document& doc) {
    const mime::part_view top = doc.root();
    if (!top.content_type().is("multipart", "related")) return false;
    for (const mime::part_view& c : top.children())
        if (!c.is_leaf() && !is_external_body(c)) return false;
    return true;
}

bool no_parts(repair_report& rep) {
    rep.written.error =
        diagnostic{severity::error, diag_code::no_mime_structure, "", 0,
                   "the input has no body part to write (a multipart without parts)"};
    return false;
}

}  // namespace

repair_report repair(const mime::document& doc, sink& out, const repair_options& options) {
    // The output is one multipart/related of leaves, labelled as plan() says. Where that
    // changes what references can reach (the input is of another shape: a top-level
    // multipart/mixed, a nested related, an encapsulated message; or plan() writes a label
    // otherwise than the input had it, or a document's base changes: repairer::widens), a
    // reference may resolve otherwise in the output. Such an output is planned against itself: a
    // first pass writes it to memory, and the second repairs that, as a second repair would
    // (repair(repair(x)) == repair(x)). The report speaks of the input's parts throughout.
    // Where the input is of the output's shape, the output is written as it is planned (the
    // first leaves while the later documents are read), and started over as a first pass
    // when planning finds that it widens.
    repair_report first;
    repair_options o = options;  // r1 reads it
    std::optional<repairer> r1(std::in_place, doc, o, first);
    if (flat_related(doc)) {
        switch (r1->plan_and_write(out, /*may_widen=*/true)) {
            case repairer::outcome::no_parts:
                no_parts(first);
                return first;
            case repairer::outcome::written:
                return first;
            case repairer::outcome::planned:
                break;
            case repairer::outcome::abandoned:
                first = repair_report{};
                r1.emplace(doc, o, first);
                if (!r1->plan()) {
                    no_parts(first);
                    return first;
                }
                break;
        }
    } else if (!r1->plan()) {
        no_parts(first);
        return first;
    }
    std::string flat_bytes;
    {
        o.drop_unreferenced = false;  // what is referenced is known in the second pass
        string_sink mem(flat_bytes);
        r1->write(mem);
        if (!first.ok()) return first;
    }
    // Read with room for every part the first pass wrote (its output has no more than the
    // input had).
    mime::parse_options po;
    po.limits.max_parts = std::max(po.limits.max_parts, doc.size() + 2);
    const mime::document again = mime::document::parse(std::string_view(flat_bytes), po);
    std::map<std::uint32_t, origin> from;
    for (const part_report& pr : first.written.parts) {
        if (!pr.written || pr.index >= first.inputs.size()) continue;
        const auto in = doc.find(first.inputs[pr.index]);
        const auto out_part = again.find(pr.path);
        if (in && out_part) from[out_part->index()] = {first.inputs[pr.index], in->input_offset()};
    }
    repair_report rep;
    repairer r(again, options, rep, &from);
    if (r.plan_and_write(out, /*may_widen=*/false) == repairer::outcome::no_parts) {
        no_parts(rep);
        return rep;
    }
    // The first pass's findings, of the parts the second wrote: what it found incomplete and
    // what its writer did (diagnostics of an output path, moved to the final output's).
    std::map<std::string, std::string> final_path;  // input path -> output path
    for (const part_report& pr : rep.written.parts)
        if (pr.written && pr.index < rep.inputs.size()) final_path[rep.inputs[pr.index]] = pr.path;
    std::map<std::string, std::string> first_input;  // first output path -> input path
    for (const part_report& pr : first.written.parts)
        if (pr.index < first.inputs.size()) first_input[pr.path] = first.inputs[pr.index];
    std::vector<repair_change> changes;
    for (repair_change& c : first.changes)
        if (c.what != "incomplete" || final_path.count(c.part)) changes.push_back(std::move(c));
    rep.changes.insert(rep.changes.begin(), std::make_move_iterator(changes.begin()),
                       std::make_move_iterator(changes.end()));
    for (std::string& path : first.incomplete)
        if (final_path.count(path)) rep.incomplete.push_back(std::move(path));
    std::vector<diagnostic> written;
    for (diagnostic& d : first.written.diagnostics) {
        if (d.part_path.starts_with('#')) {
            // A resource the first pass left out: said of the input part it came from.
            const std::size_t index = std::strtoul(d.part_path.c_str() + 1, nullptr, 10);
            if (index < first.inputs.size())
                d.message = "(input part " + first.inputs[index] + ") " + d.message;
            d.part_path.clear();
            written.push_back(std::move(d));
            continue;
        }
        auto in = first_input.find(d.part_path);
        if (in == first_input.end()) {
            if (d.part_path.empty()) written.push_back(std::move(d));
            continue;
        }
        auto now = final_path.find(in->second);
        if (now == final_path.end()) continue;  // a part the second pass left out
        d.part_path = now->second;
        written.push_back(std::move(d));
    }
    rep.written.diagnostics.insert(rep.written.diagnostics.begin(),
                                   std::make_move_iterator(written.begin()),
                                   std::make_move_iterator(written.end()));
    rep.read = std::move(first.read);
    return rep;
}

}  // namespace mhtml::pack
