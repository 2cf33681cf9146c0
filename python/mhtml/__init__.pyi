"""Type stubs of mhtml (the module is python/src/module.cpp). Text that is not UTF-8 in the
input comes back with lone surrogates ("surrogateescape"); arguments take str or bytes."""
import builtins
import os
from typing import Iterator, Optional, Union

from . import url as url

__version__: str

_Text = Union[str, builtins.bytes]

class Diagnostic:
    """Something the reader found in the input, and what it did about it."""
    @property
    def severity(self) -> str: ...  # "note", "warning", "ambiguous", "error"
    @property
    def code(self) -> str: ...      # stable snake_case name (docs/diagnostics.md)
    @property
    def path(self) -> str: ...      # IMAP-style path of the part ("" = the message)
    @property
    def offset(self) -> int: ...    # byte offset in the input
    @property
    def message(self) -> str: ...

class Finding:
    """A conformance finding of Document.check() (docs/check.md)."""
    @property
    def requirement(self) -> str: ...  # e.g. "MHT-4.2.5"
    @property
    def level(self) -> str: ...        # "error" (a MUST), "warning" (a SHOULD), "note"
    @property
    def code(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def offset(self) -> int: ...
    @property
    def message(self) -> str: ...

class Reference:
    """A URI reference found in an HTML, CSS or SVG part, and what it resolves to."""
    @property
    def part(self) -> str: ...           # path of the part it is in
    @property
    def kind(self) -> str: ...           # "resource", "navigation", "form_action", "base", ...
    @property
    def element(self) -> str: ...
    @property
    def attribute(self) -> str: ...
    @property
    def offset(self) -> int: ...         # in the decoded text of the part
    @property
    def length(self) -> int: ...
    @property
    def raw(self) -> str: ...            # the value as written
    @property
    def url(self) -> str: ...            # the value with references / escapes decoded
    @property
    def resolved(self) -> str: ...       # the absolute URI
    @property
    def target(self) -> Optional[str]: ...  # path of the part it names, or None (external)
    @property
    def same_document(self) -> bool: ...

class Part:
    """One entity: a leaf, a multipart or an encapsulated message."""
    @property
    def path(self) -> str: ...              # "" for the message, "1", "1.2", ...
    @property
    def index(self) -> int: ...             # depth-first position
    @property
    def content_type(self) -> str: ...      # "type/subtype", lower case
    @property
    def parameters(self) -> dict[str, str]: ...
    @property
    def headers(self) -> list[tuple[str, str]]: ...  # every field, in order, values unfolded
    @property
    def encoding(self) -> str: ...          # Content-Transfer-Encoding
    @property
    def content_id(self) -> Optional[str]: ...  # without angle brackets
    @property
    def content_location(self) -> Optional[str]: ...
    @property
    def resolved_location(self) -> Optional[str]: ...  # Content-Location resolved as MHTML does
    @property
    def base(self) -> str: ...              # the base URI of its body
    @property
    def disposition(self) -> Optional[str]: ...
    @property
    def is_leaf(self) -> bool: ...
    @property
    def kind(self) -> str: ...              # "leaf", "multipart", "message"
    @property
    def offset(self) -> int: ...            # of its header block in the input
    @property
    def in_decoded_body(self) -> bool: ...
    @property
    def encoded_size(self) -> int: ...      # octets of its body as written
    @property
    def raw(self) -> memoryview: ...        # header and body as written (no copy)
    @property
    def raw_body(self) -> memoryview: ...   # the body as written (no copy)
    @property
    def children(self) -> list["Part"]: ...
    @property
    def parent(self) -> Optional["Part"]: ...
    def header(self, name: _Text) -> Optional[str]: ...
    def decode(self) -> builtins.bytes:
        """The body with its transfer encoding removed (the GIL is released)."""

class Document:
    """A parsed MIME document."""
    @property
    def size(self) -> int: ...
    @property
    def bytes(self) -> memoryview: ...      # the input (the mapped file for a path)
    @property
    def parts(self) -> list[Part]: ...      # depth first, the message first
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def root(self) -> Part: ...             # the page
    @property
    def snapshot_location(self) -> Optional[str]: ...
    @property
    def related(self) -> list[dict[str, Optional[str]]]: ...  # {"path", "root"} per multipart/related
    def find(self, path: _Text) -> Optional[Part]: ...
    def resolve(self, url: _Text, base: Optional[_Text] = None) -> Optional[Part]:
        """The part `url` names, resolved from the root (or the part with path `base`)."""
    def decode_leaves(self) -> list[builtins.bytes]:
        """The decoded body of every leaf, depth first, in one call."""
    def iter_decoded(self, chunk_size: int = 4 << 20) -> Iterator[tuple[memoryview, memoryview]]:
        """The decoded leaves a chunk at a time: (data, ends), read-only memoryviews; leaf k of
        a chunk is data[ends[k-1]:ends[k]] (from 0 for k = 0), ends of format 'Q'. The buffer
        is reused for the next chunk when no view of the last one is alive: drop them (del)
        before asking for the next to read at C++ speed. A view kept keeps its octets."""
    def references(self) -> list[Reference]: ...
    def check(self, strict: bool = False) -> list[Finding]: ...
    def extract(self, dir: Union[str, "os.PathLike[str]"], *, force: bool = False,
                offline: bool = False, allow_scripts: bool = False,
                part: Optional[str] = None) -> dict[str, object]:
        """Writes the page as a folder a browser opens (dir/index.html)."""
    def inline(self, *, offline: bool = False, allow_scripts: bool = False) -> builtins.bytes:
        """The page as one self-contained HTML file."""
    def __len__(self) -> int: ...

def pack(source: Union[str, "os.PathLike[str]"], *, method: str = "content-location",
         base: str = "", all: bool = False) -> dict[str, object]:
    """Packs a local page into one archive, as `mhtml pack`: {"output": bytes, "parts": n, ...}."""

def repair(source: Union[builtins.bytes, bytearray, memoryview, str, "os.PathLike[str]"], *,
           target: str = "chromium", keep_labels: bool = False,
           drop_unreferenced: bool = False) -> dict[str, object]:
    """Repairs an archive as `mhtml repair`: {"output": bytes, "changes": [...], ...}."""

def parse(source: Union[builtins.bytes, bytearray, memoryview, str, "os.PathLike[str]"], *,
          max_parts: Optional[int] = None, max_depth: Optional[int] = None,
          mmap: bool = True) -> Document:
    """Parses a MIME document: bytes (borrowed), a path (memory-mapped, or read with
    mmap=False), another buffer (copied)."""
