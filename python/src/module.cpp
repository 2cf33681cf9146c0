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

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/archive/check.hpp"
#include "mhtml/diagnostic.hpp"
#include "mhtml/input.hpp"
#include "mhtml/limits.hpp"
#include "mhtml/mime/document.hpp"
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
    py::object source;  // the bytes object the document borrows, if any (kept alive)
    std::optional<mime::document> doc;
    std::once_flag agg_once;
    std::optional<archive::aggregate> agg;

    ~doc_state() {
        // `source` is a Python object: drop it with the GIL held (the last owner may be a
        // thread that released it).
        if (source) {
            py::gil_scoped_acquire gil;
            source = py::object();
        }
    }
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

py::memoryview view_of(const state_ptr& s, std::string_view bytes) {
    py::object o = py::cast(octets{s, bytes.data(), bytes.size()});
    return py::memoryview(o);
}

struct part {
    state_ptr s;
    std::uint32_t index;
    [[nodiscard]] mime::part_view view() const { return s->doc->part(index); }
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

document parse_buffer(py::buffer b, const parse_limits& limits) {
    py::buffer_info info = b.request();
    // A buffer may change under the document (a bytearray): its octets are copied.
    std::string copy(static_cast<const char*>(info.ptr),
                     static_cast<std::size_t>(info.size * info.itemsize));
    auto s = std::make_shared<doc_state>();
    mime::parse_options po;
    po.limits = limits;
    {
        py::gil_scoped_release nogil;
        s->doc.emplace(mime::document::parse(std::move(copy), po));
    }
    return document{std::move(s)};
}

document parse_path(const std::filesystem::path& path, const parse_limits& limits) {
    auto s = std::make_shared<doc_state>();
    mime::parse_options po;
    po.limits = limits;
    std::error_code ec;
    {
        py::gil_scoped_release nogil;
        input_buffer in = input_buffer::open(path.string(), ec);
        if (!ec) s->doc.emplace(mime::document::parse(std::move(in), po));
    }
    if (ec) {
        errno = ec.value();
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.string().c_str());
        throw py::error_already_set();
    }
    return document{std::move(s)};
}

parse_limits limits_from(std::optional<std::size_t> max_parts,
                         std::optional<std::size_t> max_depth) {
    parse_limits l;
    if (max_parts) l.max_parts = *max_parts;
    if (max_depth) l.max_depth = std::min(*max_depth, parse_limits::hard_max_depth);
    return l;
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
    if (!r.ok()) throw std::runtime_error(r.error_code + ": " + r.error);
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
    if (!r.ok()) throw std::runtime_error(r.error_code + ": " + r.error);
    return py::bytes(page);
}

template <class T>
T value_or_raise(uri::result<T> r) {
    if (!r) throw py::value_error(std::string(r.error) + ": " + r.message);
    return std::move(r.value);
}

}  // namespace

PYBIND11_MODULE(_mhtml, m) {
    m.doc() = "mhtml: read MIME aggregate documents (.mhtml, .mht, .eml) at C++ speed";
    m.attr("__version__") = std::string(mhtml::version());

    py::class_<octets>(m, "_Octets", py::buffer_protocol()).def_buffer([](octets& o) {
        return py::buffer_info(const_cast<char*>(o.data), 1, "B", 1,
                               {static_cast<py::ssize_t>(o.size)}, {1}, true);
    });

    py::class_<diagnostic>(m, "Diagnostic", "Something the reader found and what it did about it.")
        .def_property_readonly(
            "severity", [](const diagnostic& d) { return std::string(severity_name(d.sev)); })
        .def_property_readonly("code",
                               [](const diagnostic& d) { return std::string(code_name(d.code)); })
        .def_readonly("path", &diagnostic::part_path,
                      "IMAP-style path of the part ('' = the message)")
        .def_readonly("offset", &diagnostic::offset, "byte offset in the input")
        .def_readonly("message", &diagnostic::message)
        .def("__repr__", [](const diagnostic& d) {
            return "<Diagnostic " + std::string(severity_name(d.sev)) + " " +
                   std::string(code_name(d.code)) + " part '" + d.part_path + "' @" +
                   std::to_string(d.offset) + ">";
        });

    py::class_<archive::finding>(m, "Finding", "A conformance finding of Document.check().")
        .def_readonly("requirement", &archive::finding::requirement)
        .def_property_readonly(
            "level",
            [](const archive::finding& f) { return std::string(archive::level_name(f.level)); })
        .def_readonly("code", &archive::finding::code)
        .def_readonly("path", &archive::finding::part_path)
        .def_readonly("offset", &archive::finding::offset)
        .def_readonly("message", &archive::finding::message)
        .def("__repr__", [](const archive::finding& f) {
            return "<Finding " + f.requirement + " " + f.code + " part '" + f.part_path + "'>";
        });

    py::class_<reference>(m, "Reference", "A URI reference in an HTML, CSS or SVG part, resolved.")
        .def_readonly("part", &reference::part)
        .def_readonly("kind", &reference::kind)
        .def_readonly("element", &reference::element)
        .def_readonly("attribute", &reference::attribute)
        .def_readonly("offset", &reference::offset)
        .def_readonly("length", &reference::length)
        .def_readonly("raw", &reference::raw)
        .def_readonly("url", &reference::url)
        .def_readonly("resolved", &reference::resolved)
        .def_readonly("target", &reference::target)
        .def_readonly("same_document", &reference::same_document)
        .def("__repr__", [](const reference& r) {
            return "<Reference " + r.url + " -> " +
                   (r.target ? "part " + *r.target : std::string("external")) + ">";
        });

    py::class_<part>(m, "Part", "One entity of a Document: a leaf, a multipart or a message.")
        .def_property_readonly("path", [](const part& p) { return p.view().path(); })
        .def_property_readonly("index", [](const part& p) { return p.index; })
        .def_property_readonly("content_type",
                               [](const part& p) { return p.view().content_type().essence(); })
        .def_property_readonly("parameters",
                               [](const part& p) {
                                   py::dict d;
                                   for (const auto& prm : p.view().content_type().params.items())
                                       d[py::str(prm.name)] = prm.value;
                                   return d;
                               })
        .def_property_readonly("headers",
                               [](const part& p) {
                                   std::vector<std::pair<std::string, std::string>> out;
                                   for (const auto& f : p.view().headers())
                                       out.emplace_back(std::string(f.name()),
                                                        std::string(f.value()));
                                   return out;
                               })
        .def(
            "header",
            [](const part& p, std::string_view name) -> std::optional<std::string> {
                auto f = p.view().header(name);
                if (!f) return std::nullopt;
                return std::string(f->value());
            },
            py::arg("name"), "The first field of that name (case-insensitive), unfolded, or None.")
        .def_property_readonly(
            "encoding",
            [](const part& p) {
                return std::string(mime::transfer_encoding_name(p.view().encoding()));
            })
        .def_property_readonly("content_id", [](const part& p) { return p.view().content_id(); })
        .def_property_readonly("content_location",
                               [](const part& p) { return p.view().content_location(); })
        .def_property_readonly("resolved_location",
                               [](const part& p) { return p.s->aggregate().location(p.view()); })
        .def_property_readonly("base",
                               [](const part& p) { return p.s->aggregate().info(p.view()).base; })
        .def_property_readonly("disposition",
                               [](const part& p) -> std::optional<std::string> {
                                   auto d = p.view().disposition();
                                   if (!d) return std::nullopt;
                                   return d->type;
                               })
        .def_property_readonly("is_leaf", [](const part& p) { return p.view().is_leaf(); })
        .def_property_readonly("kind",
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
                               })
        .def_property_readonly("offset", [](const part& p) { return p.view().input_offset(); })
        .def_property_readonly("in_decoded_body",
                               [](const part& p) { return p.view().in_decoded_body(); })
        .def_property_readonly("encoded_size",
                               [](const part& p) { return p.view().raw_body().size(); })
        .def_property_readonly(
            "raw", [](const part& p) { return view_of(p.s, p.view().raw()); },
            "The whole entity as written (header and body): a read-only memoryview, no copy.")
        .def_property_readonly(
            "raw_body", [](const part& p) { return view_of(p.s, p.view().raw_body()); },
            "The body, still transfer-encoded: a read-only memoryview, no copy.")
        .def(
            "decode", [](const part& p) { return py::bytes(decode(p)); },
            "The body with its Content-Transfer-Encoding removed (bytes).")
        .def_property_readonly("children",
                               [](const part& p) {
                                   std::vector<part> out;
                                   for (const auto& k : p.view().children())
                                       out.push_back(part{p.s, k.index()});
                                   return out;
                               })
        .def_property_readonly("parent",
                               [](const part& p) -> std::optional<part> {
                                   auto q = p.view().parent();
                                   if (!q) return std::nullopt;
                                   return part{p.s, q->index()};
                               })
        .def("__repr__", [](const part& p) {
            const auto v = p.view();
            return "<Part '" + v.path() + "' " + v.content_type().essence() + ">";
        });

    py::class_<document>(
        m, "Document",
        "A parsed MIME document (mhtml.parse). Its parts, the aggregate (root, bases,\n"
        "references and what they name), conformance findings, and the viewers.")
        .def_property_readonly("size", [](const document& d) { return d.s->doc->bytes().size(); })
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
            [](const document& d, std::string_view path) {
                return wrap(d.s, d.s->doc->find(path == "." ? std::string_view() : path));
            },
            py::arg("path"),
            "The part with this IMAP-style path ('' or '.' = the message), or None.")
        .def_property_readonly("diagnostics",
                               [](const document& d) { return d.s->doc->diagnostics(); })
        .def_property_readonly(
            "root",
            [](const document& d) {
                return part{d.s, d.s->aggregate().main_root().index()};
            },
            "The page: the root of the first multipart/related, or the message's own root.")
        .def_property_readonly(
            "snapshot_location",
            [](const document& d) { return d.s->aggregate().snapshot_location(); })
        .def_property_readonly(
            "related",
            [](const document& d) {
                py::list out;
                for (const auto& rs : d.s->aggregate().related()) {
                    py::dict x;
                    x["path"] = rs.part.path();
                    x["root"] =
                        rs.root.root ? py::object(py::str(rs.root.root->path())) : py::none();
                    out.append(x);
                }
                return out;
            },
            "Each multipart/related: its path and the path of its root.")
        .def(
            "resolve",
            [](const document& d, std::string_view url, std::optional<std::string_view> base) {
                const auto& agg = d.s->aggregate();
                mime::part_view from = agg.main_root();
                if (base) {
                    auto b = d.s->doc->find(*base == "." ? std::string_view() : *base);
                    if (!b) throw py::key_error("no part " + std::string(*base));
                    from = *b;
                }
                return wrap(d.s, agg.resolve(from, url).target);
            },
            py::arg("url"), py::arg("base") = py::none(),
            "The part that `url` names, resolved as the root (or the part with path `base`) would "
            "resolve it; None if none.")
        .def(
            "decode_leaves",
            [](const document& d) {
                // Decoded with the GIL released, each into its own string; then made bytes.
                std::vector<std::string> bodies;
                {
                    py::gil_scoped_release nogil;
                    for (std::size_t i = 0; i < d.s->doc->size(); ++i) {
                        const mime::part_view p = d.s->doc->part(i);
                        if (!p.is_leaf()) continue;
                        p.decode_to(bodies.emplace_back());
                    }
                }
                py::list out(bodies.size());
                for (std::size_t i = 0; i < bodies.size(); ++i)
                    out[i] = py::bytes(bodies[i]);
                return out;
            },
            "The decoded body of every leaf, depth first (one call: cheaper than Part.decode() "
            "on each of many small parts).")
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
             "Writes the page as a folder a browser opens (dir/index.html); returns the report.")
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
        [](py::object source, std::optional<std::size_t> max_parts,
           std::optional<std::size_t> max_depth) {
            const parse_limits limits = limits_from(max_parts, max_depth);
            if (py::isinstance<py::bytes>(source))
                return parse_bytes(source.cast<py::bytes>(), limits);
            if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__"))
                return parse_path(
                    py::module_::import("os").attr("fspath")(source).cast<std::filesystem::path>(),
                    limits);
            if (PyObject_CheckBuffer(source.ptr()))
                return parse_buffer(source.cast<py::buffer>(), limits);
            throw py::type_error("mhtml.parse: bytes, a buffer, or a path (str or os.PathLike)");
        },
        py::arg("source"), py::kw_only(), py::arg("max_parts") = py::none(),
        py::arg("max_depth") = py::none(),
        "Parses a MIME document. `source`: bytes (borrowed, not copied), a path (memory-mapped),\n"
        "or another buffer (copied). Never fails on bad MIME: see Document.diagnostics.");

    py::module_ url =
        m.def_submodule("url", "URL functions (RFC 3986 as MHTML uses it, cid:/mid:).");
    url.def(
        "resolve",
        [](std::string_view base, std::string_view ref) { return uri::resolve(base, ref); },
        py::arg("base"), py::arg("ref"),
        "RFC 3986 resolution, octet-exact; None when base is not absolute.");
    url.def(
        "cid_to_content_id",
        [](std::string_view u) { return value_or_raise(uri::cid_to_content_id(u)); },
        py::arg("url"), "cid: URL -> Content-ID field value (<...>).");
    url.def(
        "content_id_to_cid",
        [](std::string_view v) { return value_or_raise(uri::content_id_to_cid(v)); },
        py::arg("content_id"), "Content-ID field value -> cid: URL.");
    url.def(
        "mid_to_ids",
        [](std::string_view u) {
            auto ids = value_or_raise(uri::mid_to_ids(u));
            return std::make_pair(ids.message_id, ids.content_id);
        },
        py::arg("url"), "mid: URL -> (Message-ID, Content-ID or '').");
    url.def(
        "ids_to_mid",
        [](std::string_view mid, std::string_view cid) {
            return value_or_raise(uri::ids_to_mid(mid, cid));
        },
        py::arg("message_id"), py::arg("content_id") = "",
        "Message-ID (and Content-ID) -> mid: URL.");
    url.def("id_key", &uri::id_key, py::arg("field"),
            "An id as mhtml compares it: brackets and comments dropped.");
    url.def("normalize", &uri::normalize, py::arg("ref"), "RFC 3986 syntax-based normalisation.");
}
