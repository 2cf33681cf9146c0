// mhtml._mhtml: the Python binding of libmhtml (pybind11). python/mhtml/__init__.py re-exports
// it and python/mhtml/__init__.pyi documents it.
//
// Ownership: a Document owns its parsed state (and the mapped file or the bytes object it was
// parsed from, kept referenced, not copied); Parts, References and the memoryviews of raw
// octets hold the Document alive. The GIL is released while parsing, decoding, building the
// aggregate, checking, extracting and inlining, so Python threads parse in parallel.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <sys/stat.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/archive/check.hpp"
#include "mhtml/diagnostic.hpp"
#include "mhtml/input.hpp"
#include "mhtml/limits.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/pack/collect.hpp"
#include "mhtml/pack/repair.hpp"
#include "mhtml/pack/writer.hpp"
#include "mhtml/uri/cid.hpp"
#include "mhtml/uri/reference.hpp"
#include "mhtml/version.hpp"
#include "mhtml/view/extract.hpp"
#include "mhtml/view/inline.hpp"

namespace py = pybind11;
using namespace mhtml;

namespace {

// The parsed document with what it was parsed from, and its aggregate once asked for.
struct doc_state {
    // Members are destroyed in reverse order: the aggregate and the document, which borrow
    // `source`, before it. The last owner is always a Python object, destroyed with the GIL.
    py::object source;  // the bytes object the document borrows, if any (kept alive)
    std::optional<mime::document> doc;
    std::once_flag agg_once;
    std::optional<archive::aggregate> agg;

    // Called with the GIL held; it is released before waiting on the once_flag, so that a
    // thread building the aggregate never waits for the GIL a waiting thread holds.
    const archive::aggregate& aggregate() {
        py::gil_scoped_release nogil;
        std::call_once(agg_once, [this] { agg.emplace(archive::aggregate::build(*doc)); });
        return *agg;
    }
};
using state_ptr = std::shared_ptr<doc_state>;

// Read-only octets of a document, exported through the buffer protocol: a memoryview of it
// reads the document's own memory (the mapped file) and keeps the document alive.
struct octets {
    state_ptr owner;
    const char* data;
    std::size_t size;
};

// Text out: octets that are not UTF-8 (a header in windows-1252, an 8-bit URL) come back as
// lone surrogates (Python's "surrogateescape"), so nothing fails, and
// `s.encode("utf-8", "surrogateescape")` gives the octets back.
py::str text(std::string_view s) {
    PyObject* o =
        PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
    if (!o) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}
py::str text(const std::string& s) {
    return text(std::string_view(s));
}
py::object text(const std::optional<std::string>& s) {
    if (!s) return py::none();
    return text(std::string_view(*s));
}

// Text in: a str (encoded back with "surrogateescape", so what text() gave round-trips) or
// bytes.
std::string arg_text(py::handle h, const char* what) {
    if (py::isinstance<py::bytes>(h)) return std::string(py::reinterpret_borrow<py::bytes>(h));
    if (!py::isinstance<py::str>(h)) throw py::type_error(std::string(what) + ": str or bytes");
    PyObject* b = PyUnicode_AsEncodedString(h.ptr(), "utf-8", "surrogateescape");
    if (!b) throw py::error_already_set();
    return std::string(py::reinterpret_steal<py::bytes>(b));
}

// Raises `type` with a message that may hold any octets.
[[noreturn]] void raise(PyObject* type, std::string_view message) {
    PyErr_SetObject(type, text(message).ptr());
    throw py::error_already_set();
}

py::memoryview view_of(const state_ptr& s, std::string_view bytes) {
    py::object o = py::cast(octets{s, bytes.data(), bytes.size()});
    return py::memoryview(o);
}

struct part {
    state_ptr s;
    std::uint32_t index;
    [[nodiscard]] mime::part_view view() const { return s->doc->part(index); }
};

// Document.iter_decoded: the decoded leaves a chunk at a time, into one buffer that is used
// again while nothing holds the last chunk's views (then no page of it is touched for the
// first time: the reuse that makes a reader fast), else into a new one, so that a view never
// sees its octets change.
struct decoded_chunk {
    std::string data;
    std::vector<std::uint64_t> ends;  // of each leaf's body in `data`
};
struct chunk_octets {
    std::shared_ptr<const decoded_chunk> c;
};
struct chunk_ends {
    std::shared_ptr<const decoded_chunk> c;
};

struct decoded_iterator {
    state_ptr s;
    std::size_t chunk_size = 0;
    std::size_t next = 0;  // the next part to look at
    std::shared_ptr<decoded_chunk> last;
    std::mutex m;  // one step at a time (the GIL is released while it decodes)

    py::tuple step() {
        std::shared_ptr<decoded_chunk> c;
        {
            py::gil_scoped_release nogil;
            const std::lock_guard lock(m);
            // The iterator is the only owner of `last` unless a view of it is alive (each
            // view's exporter holds a reference; they are dropped with the GIL held, and the
            // GIL is taken again before the count could rise).
            if (last && last.use_count() == 1) {
                // The last view's reads happen before this rewrite (use_count is a relaxed
                // load).
                std::atomic_thread_fence(std::memory_order_acquire);
                c = last;
                // After one huge leaf, the memory is not kept for the chunks that follow.
                if (c->data.capacity() > 2 * chunk_size + (std::size_t{1} << 20))
                    std::string().swap(c->data);
            } else {
                c = std::make_shared<decoded_chunk>();
            }
            c->data.clear();
            c->ends.clear();
            const mime::document& doc = *s->doc;
            const std::size_t first = next;
            struct undo {  // a step that throws (no memory) gives its leaves again next time
                std::size_t& next;
                std::size_t first;
                bool done = false;
                ~undo() {
                    if (!done) next = first;
                }
            } rollback{next, first};
            for (; next < doc.size(); ++next) {
                const mime::part_view p = doc.part(next);
                if (!p.is_leaf()) continue;
                // A leaf's decoded size is at most its raw size (base64, quoted-printable or
                // none): a chunk stops before it would pass chunk_size, unless it is empty.
                if (!c->ends.empty() && c->data.size() + p.raw_body().size() > chunk_size) break;
                p.decode_to(c->data);
                c->ends.push_back(c->data.size());
            }
            rollback.done = true;
            last = c;
        }
        if (c->ends.empty()) throw py::stop_iteration();
        return py::make_tuple(py::memoryview(py::cast(chunk_octets{c})),
                              py::memoryview(py::cast(chunk_ends{c})));
    }
};

std::optional<part> wrap(const state_ptr& s, const std::optional<mime::part_view>& p) {
    if (!p) return std::nullopt;
    if (&p->doc() != &*s->doc) return std::nullopt;  // another message's (a store): not here
    return part{s, p->index()};
}

struct document {
    state_ptr s;
};

struct reference {
    std::string part;  // path of the part it was found in
    std::string kind, element, attribute, raw, url, resolved;
    std::size_t offset = 0, length = 0;
    std::optional<std::string> target;  // path of the part it names
    bool same_document = false;
};

document parse_bytes(py::bytes b, const parse_limits& limits) {
    auto s = std::make_shared<doc_state>();
    char* data = nullptr;
    Py_ssize_t size = 0;
    PyBytes_AsStringAndSize(b.ptr(), &data, &size);
    s->source = b;  // immutable: the document borrows its octets
    mime::parse_options po;
    po.limits = limits;
    {
        py::gil_scoped_release nogil;
        s->doc.emplace(
            mime::document::parse(std::string_view(data, static_cast<std::size_t>(size)), po));
    }
    return document{std::move(s)};
}

// Any other buffer may change under the document (a bytearray) and may be strided (a
// memoryview slice): its octets are copied into a bytes object in C order, then borrowed.
document parse_buffer(py::handle b, const parse_limits& limits) {
    PyObject* copy = PyBytes_FromObject(b.ptr());
    if (!copy) throw py::error_already_set();
    return parse_bytes(py::reinterpret_steal<py::bytes>(copy), limits);
}

[[noreturn]] void raise_os_error(int err, const std::string& path) {
    errno = err;
    PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
    throw py::error_already_set();
}

// A path: a regular file only ("-" is a file named "-", not standard input; a device or a pipe
// could be read forever). Mapped (`mapped`), or read into memory: a mapped file that another
// program cuts while the document lives makes reading it fault (SIGBUS), as with any mapping.
document parse_path(std::string path, const parse_limits& limits, bool mapped) {
    if (path.find('\0') != std::string::npos)
        throw py::value_error("mhtml.parse: a path with a NUL character");
    if (path == "-") path = "./-";
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) raise_os_error(errno, path);
    if (S_ISDIR(st.st_mode)) raise_os_error(EISDIR, path);
    if (!S_ISREG(st.st_mode)) raise_os_error(EINVAL, path);
    auto s = std::make_shared<doc_state>();
    mime::parse_options po;
    po.limits = limits;
    std::error_code ec;
    {
        py::gil_scoped_release nogil;
        if (mapped) {
            input_buffer in = input_buffer::open(path, ec);
            if (!ec) s->doc.emplace(mime::document::parse(std::move(in), po));
        } else if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
            std::string all;
            char buf[1 << 16];
            std::size_t n;
            while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) all.append(buf, n);
            if (std::ferror(f)) ec = std::error_code(EIO, std::generic_category());
            std::fclose(f);
            if (!ec) s->doc.emplace(mime::document::parse(std::move(all), po));
        } else {
            ec = std::error_code(errno, std::generic_category());
        }
    }
    if (ec) raise_os_error(ec.value(), path);
    return document{std::move(s)};
}

// max_parts and max_depth: None, or an int of at least 1 (checked here, so that a wrong one
// is named in a short message rather than in an overload error that prints the input).
parse_limits limits_from(py::handle max_parts, py::handle max_depth) {
    const auto positive = [](py::handle h, const char* name) -> std::optional<std::size_t> {
        if (h.is_none()) return std::nullopt;
        if (!py::isinstance<py::int_>(h) || py::isinstance<py::bool_>(h))
            throw py::type_error(std::string("mhtml.parse: ") + name + " must be an int");
        const long long v = h.cast<long long>();
        if (v < 1)
            throw py::value_error(std::string("mhtml.parse: ") + name + " must be at least 1");
        return static_cast<std::size_t>(v);
    };
    parse_limits l;
    if (auto v = positive(max_parts, "max_parts")) l.max_parts = *v;
    if (auto v = positive(max_depth, "max_depth"))
        l.max_depth = std::min(*v, parse_limits::hard_max_depth);
    return l;
}

// A viewer's failure: an OSError for what the file system refused, else a RuntimeError.
[[noreturn]] void raise_view_error(const std::string& code, const std::string& message) {
    const bool os = code == "io_error" || code == "not_a_directory" || code == "dir_not_empty" ||
                    code == "dir_is_link" || code == "bad_dir";
    raise(os ? PyExc_OSError : PyExc_RuntimeError, code + ": " + message);
}

std::string decode(const part& p) {
    std::string out;
    py::gil_scoped_release nogil;
    p.view().decode_to(out);
    return out;
}

std::vector<reference> references_of(const document& d) {
    const archive::aggregate& agg = d.s->aggregate();
    std::vector<reference> out;
    py::gil_scoped_release nogil;
    for (const mime::part_view& p : d.s->doc->parts()) {
        const auto type = archive::document_type_of(p);
        if (type == archive::document_type::none) continue;
        std::string body;
        p.decode_to(body);
        const html::scan_result scan =
            type == archive::document_type::css
                ? html::scan_style_sheet(body)
                : html::scan_html(body, type == archive::document_type::svg);
        for (std::size_t i = 0; i < scan.refs.size(); ++i) {
            const html::reference& r = scan.refs[i];
            reference x;
            x.part = p.path();
            x.kind = std::string(html::kind_name(r.kind));
            x.element = r.element;
            x.attribute = std::string(r.attribute);
            x.offset = r.offset;
            x.length = r.length;
            x.raw = body.substr(r.offset, r.length);
            x.url = r.url;
            if (r.kind == html::ref_kind::base) {
                x.resolved = agg.info(p).has_html_base && scan.base == i ? agg.info(p).base : r.url;
            } else {
                const archive::resolution res = agg.resolve(p, r);
                x.resolved = res.resolved;
                if (res.target && !res.from_store) x.target = res.target->path();
                x.same_document = res.same_document;
            }
            out.push_back(std::move(x));
        }
    }
    return out;
}

py::dict extract_to(const document& d, const std::filesystem::path& dir, bool force, bool offline,
                    bool allow_scripts, std::optional<std::string> part_path) {
    const archive::aggregate& agg = d.s->aggregate();
    view::extract_options o;
    o.force = force;
    o.offline = offline;
    o.allow_scripts = allow_scripts;
    o.part = std::move(part_path);
    view::extract_report r;
    {
        py::gil_scoped_release nogil;
        r = view::extract(agg, dir, o);
    }
    if (!r.ok()) raise_view_error(r.error_code, r.error);
    py::list files;
    for (const view::extracted_file& f : r.files) {
        py::dict x;
        x["part"] = f.part;
        x["file"] = f.file;
        x["content_type"] = f.content_type;
        x["content_id"] = f.content_id;
        x["content_location"] = f.content_location;
        x["size"] = f.size;
        x["rewritten"] = f.rewritten;
        x["root"] = f.root;
        files.append(x);
    }
    py::dict out;
    out["files"] = files;
    out["references_rewritten"] = r.references_rewritten;
    out["external_left"] = r.external_left;
    out["external_removed"] = r.external_removed;
    return out;
}

py::bytes inline_of(const document& d, bool offline, bool allow_scripts) {
    const archive::aggregate& agg = d.s->aggregate();
    view::inline_options o;
    o.offline = offline;
    o.allow_scripts = allow_scripts;
    std::string page;
    view::inline_report r;
    {
        py::gil_scoped_release nogil;
        r = view::inline_page(
            agg, [&](std::string_view piece) { page.append(piece); }, o);
    }
    if (!r.ok()) raise_view_error(r.error_code, r.error);
    return py::bytes(page);
}

// mhtml.repair: the repaired archive and what was changed (as `mhtml repair --json`).
py::dict repair_of(py::object source, const std::string& target, bool keep_labels,
                   bool drop_unreferenced) {
    if (target != "chromium" && target != "rfc")
        throw py::value_error("mhtml.repair: target is 'chromium' or 'rfc'");
    // The input's octets: those of a parsed document (bytes borrowed, a path mapped, a buffer
    // copied), kept while repair reads them.
    py::object doc_obj = py::module_::import("mhtml").attr("parse")(source);
    const document& d = doc_obj.cast<const document&>();
    pack::repair_options o;
    o.target = target == "rfc" ? pack::repair_target::rfc : pack::repair_target::chromium;
    o.keep_labels = keep_labels;
    o.drop_unreferenced = drop_unreferenced;
    std::string out;
    pack::repair_report r;
    {
        py::gil_scoped_release nogil;
        pack::string_sink sink(out);
        r = pack::repair_bytes(d.s->doc->bytes(), sink, o);
    }
    if (!r.ok()) raise(PyExc_RuntimeError, "mhtml.repair: the archive could not be written");
    py::list changes;
    for (const pack::repair_change& c : r.changes) {
        py::dict x;
        x["what"] = text(c.what);
        x["part"] = text(c.part);
        x["offset"] = c.offset;
        x["why"] = text(c.why);
        x["requirement"] = text(c.requirement);
        changes.append(x);
    }
    const auto texts = [](const std::vector<std::string>& v) {
        py::list l;
        for (const std::string& x : v) l.append(text(x));
        return l;
    };
    py::dict result;
    result["output"] = py::bytes(out);
    result["changes"] = changes;
    result["incomplete"] = texts(r.incomplete);
    result["unreferenced"] = texts(r.unreferenced);
    result["dropped"] = texts(r.dropped);
    return result;
}

// mhtml.pack: a local page (a file, a folder, an extract folder) as one archive (as `mhtml
// pack`, without its network sources).
py::dict pack_of(const std::filesystem::path& source, const std::string& method,
                 const std::string& base, bool all) {
    pack::collect_options co;
    if (method == "content-location")
        co.method = pack::method::content_location;
    else if (method == "cid")
        co.method = pack::method::cid;
    else if (method == "filename")
        co.method = pack::method::filename;
    else
        throw py::value_error("mhtml.pack: method is 'content-location', 'cid' or 'filename'");
    co.base = base;
    co.all = all;
    std::string out;
    pack::collection c;
    pack::write_report r;
    {
        py::gil_scoped_release nogil;
        c = pack::collect(source, co);
        if (c.ok() && !c.resources.empty()) {
            pack::writer_options wo;
            wo.method = co.method;
            pack::string_sink sink(out);
            pack::writer w(sink, wo);
            w.expect(std::span(c.resources).subspan(1));
            bool ok = w.root(c.resources.front());
            for (std::size_t i = 1; ok && i < c.resources.size(); ++i) ok = w.add(c.resources[i]);
            r = w.finish();
        }
    }
    if (!c.ok()) {
        const bool os = c.error_code == "not_found" || c.error_code == "io_error";
        raise(os ? PyExc_OSError : PyExc_ValueError, c.error_code + ": " + c.error);
    }
    if (c.resources.empty()) raise(PyExc_ValueError, "no_root: nothing to pack");
    if (!r.ok()) raise(PyExc_RuntimeError, "mhtml.pack: the archive could not be written");
    py::dict result;
    result["output"] = py::bytes(out);
    result["parts"] = c.resources.size();
    py::list diags;
    for (const diagnostic& d : c.diagnostics) diags.append(py::cast(d));
    result["diagnostics"] = diags;
    return result;
}

template <class T>
T value_or_raise(uri::result<T> r) {
    if (!r) raise(PyExc_ValueError, std::string(r.error) + ": " + r.message);
    return std::move(r.value);
}

}  // namespace

// A read-only property whose value is text (see text()).
#define MHTML_TEXT(cls, name, expr, doc) \
    def_property_readonly(               \
        name, [](const cls& self) { return text(expr); }, doc)

PYBIND11_MODULE(_mhtml, m) {
    m.doc() = "mhtml: read MIME aggregate documents (.mhtml, .mht, .eml) at C++ speed";
    m.attr("__version__") = std::string(mhtml::version());

    py::class_<octets>(m, "_Octets", py::buffer_protocol()).def_buffer([](octets& o) {
        return py::buffer_info(const_cast<char*>(o.data), 1, "B", 1,
                               {static_cast<py::ssize_t>(o.size)}, {1}, true);
    });
    py::class_<chunk_octets>(m, "_ChunkOctets", py::buffer_protocol())
        .def_buffer([](chunk_octets& o) {
            return py::buffer_info(const_cast<char*>(o.c->data.data()), 1, "B", 1,
                                   {static_cast<py::ssize_t>(o.c->data.size())}, {1}, true);
        });
    py::class_<chunk_ends>(m, "_ChunkEnds", py::buffer_protocol()).def_buffer([](chunk_ends& o) {
        return py::buffer_info(const_cast<std::uint64_t*>(o.c->ends.data()), sizeof(std::uint64_t),
                               "Q", 1, {static_cast<py::ssize_t>(o.c->ends.size())},
                               {static_cast<py::ssize_t>(sizeof(std::uint64_t))}, true);
    });
    py::class_<decoded_iterator>(m, "_DecodedChunks")
        .def("__iter__", [](py::object self) { return self; })
        .def("__next__", [](decoded_iterator& it) { return it.step(); });

    py::class_<diagnostic>(m, "Diagnostic",
                           "Something the reader found in the input and what it did about it.")
        .MHTML_TEXT(diagnostic, "severity", severity_name(self.sev),
                    "'note', 'warning', 'ambiguous' or 'error'")
        .MHTML_TEXT(diagnostic, "code", code_name(self.code), "stable snake_case name")
        .MHTML_TEXT(diagnostic, "path", self.part_path,
                    "IMAP-style path of the part ('' = the message)")
        .def_readonly("offset", &diagnostic::offset, "byte offset in the input")
        .MHTML_TEXT(diagnostic, "message", self.message, "what was wrong and what was done")
        .def("__repr__", [](const diagnostic& d) {
            return text("<Diagnostic " + std::string(severity_name(d.sev)) + " " +
                        std::string(code_name(d.code)) + " part '" + d.part_path + "' @" +
                        std::to_string(d.offset) + ">");
        });

    py::class_<archive::finding>(m, "Finding", "A conformance finding of Document.check().")
        .MHTML_TEXT(archive::finding, "requirement", self.requirement, "e.g. 'MHT-4.2.5'")
        .MHTML_TEXT(archive::finding, "level", archive::level_name(self.level),
                    "'error' (a MUST), 'warning' (a SHOULD) or 'note'")
        .MHTML_TEXT(archive::finding, "code", self.code, "stable snake_case name")
        .MHTML_TEXT(archive::finding, "path", self.part_path, "the part ('' = the message)")
        .def_readonly("offset", &archive::finding::offset, "byte offset in the input")
        .MHTML_TEXT(archive::finding, "message", self.message, "what is wrong and where")
        .def("__repr__", [](const archive::finding& f) {
            return text("<Finding " + f.requirement + " " + f.code + " part '" + f.part_path +
                        "'>");
        });

    py::class_<reference>(m, "Reference", "A URI reference in an HTML, CSS or SVG part, resolved.")
        .MHTML_TEXT(reference, "part", self.part, "path of the part it is in")
        .MHTML_TEXT(reference, "kind", self.kind,
                    "'resource', 'navigation', 'form_action', 'citation', 'base', ...")
        .MHTML_TEXT(reference, "element", self.element, "lower-case tag name ('' in CSS)")
        .MHTML_TEXT(reference, "attribute", self.attribute, "lower-case attribute name")
        .def_readonly("offset", &reference::offset, "in the decoded text of the part")
        .def_readonly("length", &reference::length)
        .MHTML_TEXT(reference, "raw", self.raw, "the value as written")
        .MHTML_TEXT(reference, "url", self.url, "the value, references and escapes decoded")
        .MHTML_TEXT(reference, "resolved", self.resolved, "the absolute URI")
        .MHTML_TEXT(reference, "target", self.target,
                    "path of the part it names, or None (external)")
        .def_readonly("same_document", &reference::same_document)
        .def("__repr__", [](const reference& r) {
            return text("<Reference " + r.url + " -> " +
                        (r.target ? "part " + *r.target : std::string("external")) + ">");
        });

    py::class_<part>(m, "Part", "One entity of a Document: a leaf, a multipart or a message.")
        .MHTML_TEXT(part, "path", self.view().path(),
                    "IMAP-style path: '' for the message, '1', '1.2', ...")
        .def_property_readonly(
            "index", [](const part& p) { return p.index; }, "depth-first position")
        .MHTML_TEXT(part, "content_type", self.view().content_type().essence(),
                    "'type/subtype', lower case (the default when there is no field)")
        .def_property_readonly(
            "parameters",
            [](const part& p) {
                py::dict d;
                for (const auto& prm : p.view().content_type().params.items())
                    d[text(prm.name)] = text(prm.value);
                return d;
            },
            "the Content-Type parameters (RFC 2231 values joined and decoded)")
        .def_property_readonly(
            "headers",
            [](const part& p) {
                py::list out;
                for (const auto& f : p.view().headers())
                    out.append(py::make_tuple(text(f.name()), text(f.value())));
                return out;
            },
            "every header field in order, as (name, unfolded value)")
        .def(
            "header",
            [](const part& p, py::handle name) -> py::object {
                auto f = p.view().header(arg_text(name, "Part.header"));
                if (!f) return py::none();
                return text(f->value());
            },
            py::arg("name"), "The first field of that name (case-insensitive), unfolded, or None.")
        .MHTML_TEXT(part, "encoding", mime::transfer_encoding_name(self.view().encoding()),
                    "the Content-Transfer-Encoding")
        .MHTML_TEXT(part, "content_id", self.view().content_id(), "without angle brackets, or None")
        .MHTML_TEXT(part, "content_location", self.view().content_location(),
                    "as written (unfolded), or None")
        .def_property_readonly(
            "resolved_location",
            [](const part& p) {
                const archive::aggregate& agg = p.s->aggregate();
                return text(agg.location(p.view()));
            },
            "the Content-Location resolved as MHTML does, or None")
        .def_property_readonly(
            "base",
            [](const part& p) {
                const archive::aggregate& agg = p.s->aggregate();
                std::string b;
                {
                    py::gil_scoped_release nogil;  // an HTML part is scanned for <base href>
                    b = agg.info(p.view()).base;
                }
                return text(b);
            },
            "the base URI of its body (chapter 5 of the MHTML draft)")
        .def_property_readonly(
            "disposition",
            [](const part& p) -> py::object {
                auto d = p.view().disposition();
                if (!d) return py::none();
                return text(d->type);
            },
            "the Content-Disposition type, or None")
        .def_property_readonly(
            "is_leaf", [](const part& p) { return p.view().is_leaf(); },
            "neither a multipart nor a message")
        .def_property_readonly(
            "kind",
            [](const part& p) {
                switch (p.view().kind()) {
                    case mime::entity_kind::leaf:
                        return "leaf";
                    case mime::entity_kind::multipart:
                        return "multipart";
                    case mime::entity_kind::message:
                        return "message";
                }
                return "leaf";
            },
            "'leaf', 'multipart' or 'message'")
        .def_property_readonly(
            "offset", [](const part& p) { return p.view().input_offset(); },
            "offset of its header block in the input")
        .def_property_readonly(
            "in_decoded_body", [](const part& p) { return p.view().in_decoded_body(); },
            "found inside a decoded body (an encoded multipart read anyway)")
        .def_property_readonly(
            "encoded_size", [](const part& p) { return p.view().raw_body().size(); },
            "octets of its body as written")
        .def_property_readonly(
            "raw", [](const part& p) { return view_of(p.s, p.view().raw()); },
            "The whole entity as written (header and body): a read-only memoryview, no copy.")
        .def_property_readonly(
            "raw_body", [](const part& p) { return view_of(p.s, p.view().raw_body()); },
            "The body, still transfer-encoded: a read-only memoryview, no copy.")
        .def(
            "decode", [](const part& p) { return py::bytes(decode(p)); },
            "The body with its Content-Transfer-Encoding removed (bytes).")
        .def_property_readonly(
            "children",
            [](const part& p) {
                std::vector<part> out;
                for (const auto& k : p.view().children()) out.push_back(part{p.s, k.index()});
                return out;
            },
            "its body parts (a multipart) or its message (a message)")
        .def_property_readonly(
            "parent",
            [](const part& p) -> std::optional<part> {
                auto q = p.view().parent();
                if (!q) return std::nullopt;
                return part{p.s, q->index()};
            },
            "the entity it is in, or None")
        .def("__eq__",
             [](const part& a, const part& b) { return a.s == b.s && a.index == b.index; })
        .def("__hash__",
             [](const part& p) {
                 return std::hash<const void*>()(p.s.get()) ^ std::hash<std::uint32_t>()(p.index);
             })
        .def("__repr__", [](const part& p) {
            const auto v = p.view();
            return text("<Part '" + v.path() + "' " + v.content_type().essence() + ">");
        });

    py::class_<document>(
        m, "Document",
        "A parsed MIME document (mhtml.parse). Its parts, the aggregate (root, bases,\n"
        "references and what they name), conformance findings, and the viewers.")
        .def_property_readonly(
            "size", [](const document& d) { return d.s->doc->bytes().size(); }, "input octets")
        .def_property_readonly(
            "bytes", [](const document& d) { return view_of(d.s, d.s->doc->bytes()); },
            "The input: a read-only memoryview (of the mapped file for a path).")
        .def_property_readonly(
            "parts",
            [](const document& d) {
                std::vector<part> out;
                out.reserve(d.s->doc->size());
                for (std::size_t i = 0; i < d.s->doc->size(); ++i)
                    out.push_back(part{d.s, static_cast<std::uint32_t>(i)});
                return out;
            },
            "Every entity, depth first (the message itself first).")
        .def(
            "find",
            [](const document& d, py::handle path) {
                const std::string p = arg_text(path, "Document.find");
                return wrap(d.s, d.s->doc->find(p == "." ? std::string_view() : p));
            },
            py::arg("path"),
            "The part with this IMAP-style path ('' or '.' = the message), or None.")
        .def_property_readonly(
            "diagnostics", [](const document& d) { return d.s->doc->diagnostics(); },
            "What the parser found, in input order.")
        .def_property_readonly(
            "root",
            [](const document& d) {
                return part{d.s, d.s->aggregate().main_root().index()};
            },
            "The page: the root of the first multipart/related, or the message's own root.")
        .def_property_readonly(
            "snapshot_location",
            [](const document& d) { return text(d.s->aggregate().snapshot_location()); },
            "Chromium's Snapshot-Content-Location (the page's URL), or None")
        .def_property_readonly(
            "related",
            [](const document& d) {
                py::list out;
                for (const auto& rs : d.s->aggregate().related()) {
                    py::dict x;
                    x["path"] = text(rs.part.path());
                    x["root"] = rs.root.root ? py::object(text(rs.root.root->path())) : py::none();
                    out.append(x);
                }
                return out;
            },
            "Each multipart/related: its path and the path of its root.")
        .def(
            "resolve",
            [](const document& d, py::handle url, py::handle base) {
                const std::string u = arg_text(url, "Document.resolve");
                const auto& agg = d.s->aggregate();
                mime::part_view from = agg.main_root();
                if (!base.is_none()) {
                    const std::string b = arg_text(base, "Document.resolve");
                    auto found = d.s->doc->find(b == "." ? std::string_view() : b);
                    if (!found) raise(PyExc_KeyError, "no part " + b);
                    from = *found;
                }
                std::optional<mime::part_view> target;
                {
                    py::gil_scoped_release nogil;
                    target = agg.resolve(from, u).target;
                }
                return wrap(d.s, target);
            },
            py::arg("url"), py::arg("base") = py::none(),
            "The part that `url` names, resolved as the root (or the part with path `base`)\n"
            "would resolve it; None if none.")
        .def(
            "decode_leaves",
            [](const document& d) {
                // Leaves are decoded into one reused buffer (its pages stay mapped), up to
                // 64 MiB at a time with the GIL released; then each is copied into its bytes
                // object with the GIL held. One fresh allocation per body, not two.
                py::list out;
                std::string buf;
                std::vector<std::size_t> ends;
                const std::size_t n = d.s->doc->size();
                for (std::size_t i = 0; i < n;) {
                    buf.clear();
                    ends.clear();
                    {
                        py::gil_scoped_release nogil;
                        for (; i < n && buf.size() < (std::size_t{64} << 20); ++i) {
                            const mime::part_view p = d.s->doc->part(i);
                            if (!p.is_leaf()) continue;
                            p.decode_to(buf);
                            ends.push_back(buf.size());
                        }
                    }
                    std::size_t begin = 0;
                    for (const std::size_t end : ends) {
                        out.append(py::bytes(buf.data() + begin, end - begin));
                        begin = end;
                    }
                }
                return out;
            },
            "The decoded body of every leaf, depth first (one call: cheaper than Part.decode() "
            "on each of many small parts).")
        .def(
            "iter_decoded",
            [](const document& d, std::size_t chunk_size) {
                auto it = std::make_unique<decoded_iterator>();
                it->s = d.s;
                it->chunk_size = std::max<std::size_t>(chunk_size, 1);
                return it;
            },
            py::arg("chunk_size") = std::size_t{4} << 20,
            "The decoded bodies of the leaves, depth first, a chunk at a time: (data, ends), "
            "two read-only memoryviews; leaf k of the chunk is data[ends[k-1]:ends[k]] (from "
            "0 for k = 0), ends of format 'Q'. A chunk holds whole leaves, up to chunk_size "
            "octets (or one larger leaf). The buffer is used again for the next chunk when no "
            "view of the last one is alive, so drop them (or copy what you keep) to read at "
            "C++ speed; a view kept alive keeps its own octets, unchanged.")
        .def("references", &references_of,
             "Every URI reference of every HTML, CSS and SVG part, resolved.")
        .def(
            "check",
            [](const document& d, bool strict) {
                archive::check_options o;
                o.strict = strict;
                py::gil_scoped_release nogil;
                return archive::check(*d.s->doc, o);
            },
            py::arg("strict") = false,
            "Conformance findings with requirement IDs (as `mhtml check`).")
        .def("extract", &extract_to, py::arg("dir"), py::kw_only(), py::arg("force") = false,
             py::arg("offline") = false, py::arg("allow_scripts") = false,
             py::arg("part") = py::none(),
             "Writes the page as a folder a browser opens (dir/index.html); returns the report.\n"
             "OSError when the folder cannot be written (or exists, without force).")
        .def("inline", &inline_of, py::kw_only(), py::arg("offline") = false,
             py::arg("allow_scripts") = false,
             "The page as one self-contained HTML file (bytes), parts as data: URIs.")
        .def("__len__", [](const document& d) { return d.s->doc->size(); })
        .def("__repr__", [](const document& d) {
            return "<Document " + std::to_string(d.s->doc->bytes().size()) + " octets, " +
                   std::to_string(d.s->doc->size()) + " parts>";
        });

    m.def(
        "parse",
        [](py::object source, py::handle max_parts, py::handle max_depth, bool mmap) {
            const parse_limits limits = limits_from(max_parts, max_depth);
            if (py::isinstance<py::bytes>(source))
                return parse_bytes(source.cast<py::bytes>(), limits);
            if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__")) {
                py::object p = py::module_::import("os").attr("fsencode")(source);
                return parse_path(std::string(p.cast<py::bytes>()), limits, mmap);
            }
            if (PyObject_CheckBuffer(source.ptr())) return parse_buffer(source, limits);
            throw py::type_error("mhtml.parse: bytes, a buffer, or a path (str or os.PathLike)");
        },
        py::arg("source"), py::kw_only(), py::arg("max_parts") = py::none(),
        py::arg("max_depth") = py::none(), py::arg("mmap") = true,
        "Parses a MIME document. `source`: bytes (borrowed, not copied), a path (a regular file:\n"
        "memory-mapped; read into memory with mmap=False: a mapped file that another program\n"
        "cuts while the document lives makes reading it fault), or another buffer (copied).\n"
        "Never fails on bad MIME: see Document.diagnostics. Text that is not UTF-8 comes back\n"
        "with lone surrogates ('surrogateescape').");

    m.def("pack", &pack_of, py::arg("source"), py::kw_only(),
          py::arg("method") = "content-location", py::arg("base") = "", py::arg("all") = false,
          "Packs a local page (an HTML file, a folder with index.html, or a folder `mhtml\n"
          "extract` wrote) into one archive, as `mhtml pack` does: returns {'output': bytes,\n"
          "'parts': n, 'diagnostics': [...]}. method: 'content-location', 'cid' or 'filename';\n"
          "base: an absolute URL standing for the page's folder; all: also unreferenced files.");
    m.def("repair", &repair_of, py::arg("source"), py::kw_only(), py::arg("target") = "chromium",
          py::arg("keep_labels") = false, py::arg("drop_unreferenced") = false,
          "Repairs an archive as `mhtml repair` does: returns {'output': bytes, 'changes': [...],\n"
          "'incomplete': [...], 'unreferenced': [...], 'dropped': [...]}. `source` as for parse.");

    py::module_ url =
        m.def_submodule("url", "URL functions (RFC 3986 as MHTML uses it, cid:/mid:).");
    url.def(
        "resolve",
        [](py::handle base, py::handle ref) {
            return text(uri::resolve(arg_text(base, "url.resolve"), arg_text(ref, "url.resolve")));
        },
        py::arg("base"), py::arg("ref"),
        "RFC 3986 resolution, octet-exact; None when base is not absolute.");
    url.def(
        "cid_to_content_id",
        [](py::handle u) {
            return text(value_or_raise(uri::cid_to_content_id(arg_text(u, "url"))));
        },
        py::arg("url"), "cid: URL -> Content-ID field value (<...>).");
    url.def(
        "content_id_to_cid",
        [](py::handle v) {
            return text(value_or_raise(uri::content_id_to_cid(arg_text(v, "content_id"))));
        },
        py::arg("content_id"), "Content-ID field value -> cid: URL.");
    url.def(
        "mid_to_ids",
        [](py::handle u) {
            auto ids = value_or_raise(uri::mid_to_ids(arg_text(u, "url")));
            return py::make_tuple(text(ids.message_id), text(ids.content_id));
        },
        py::arg("url"), "mid: URL -> (Message-ID, Content-ID or '').");
    url.def(
        "ids_to_mid",
        [](py::handle mid, py::handle cid) {
            return text(value_or_raise(
                uri::ids_to_mid(arg_text(mid, "message_id"), arg_text(cid, "content_id"))));
        },
        py::arg("message_id"), py::arg("content_id") = "",
        "Message-ID (and Content-ID) -> mid: URL.");
    url.def(
        "id_key", [](py::handle f) { return text(uri::id_key(arg_text(f, "field"))); },
        py::arg("field"), "An id as mhtml compares it: brackets and comments dropped.");
    url.def(
        "normalize", [](py::handle r) { return text(uri::normalize(arg_text(r, "ref"))); },
        py::arg("ref"), "RFC 3986 syntax-based normalisation.");
}
