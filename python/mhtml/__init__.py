"""mhtml: read MIME aggregate documents (.mhtml, .mht, .eml) at the C++ library's speed.

    >>> import mhtml
    >>> doc = mhtml.parse("page.mhtml")          # memory-mapped; bytes and buffers work too
    >>> doc.root.path, doc.root.content_type
    ('1', 'text/html')
    >>> [p.path for p in doc.parts if p.is_leaf]
    >>> doc.resolve("https://example.com/a.css").decode()
    >>> [f.code for f in doc.check()]

A Part's `raw` and `raw_body` are read-only memoryviews of the input (no copy); `decode()`
gives bytes. The GIL is released while parsing, decoding, checking, extracting and inlining.
Text that is not UTF-8 in the input (an 8-bit header, a windows-1252 URL) comes back with lone
surrogates ("surrogateescape"): `s.encode("utf-8", "surrogateescape")` gives the octets.
A thread still inside the module when the interpreter exits (a daemon thread) can abort the
process (pybind11's GIL release at finalization): join such threads before exiting.
"""
import sys as _sys

from ._mhtml import (Diagnostic, Document, Finding, Part, Reference, __version__, parse,
                     pack, repair, url)

_sys.modules[__name__ + ".url"] = url  # `import mhtml.url`, `from mhtml.url import resolve`

__all__ = ["parse", "pack", "repair", "Document", "Part", "Reference", "Diagnostic", "Finding", "url",
           "__version__"]
