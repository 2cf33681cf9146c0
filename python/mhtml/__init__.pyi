"""Type stubs of mhtml (the module is python/src/module.cpp)."""
import os
from typing import Optional, Union

__version__: str

class Diagnostic:
    """Something the reader found in the input, and what it did about it."""
    severity: str  # "note", "warning", "ambiguous", "error"
    code: str      # stable snake_case name (docs/diagnostics.md)
    path: str      # IMAP-style path of the part ("" = the message)
    offset: int    # byte offset in the input
    message: str

class Finding:
    """A conformance finding of Document.check() (docs/check.md)."""
    requirement: str  # e.g. "MHT-4.2.5"
    level: str        # "must", "should", "note", ...
    code: str
    path: str
    offset: int
    message: str

class Reference:
    """A URI reference found in an HTML, CSS or SVG part, and what it resolves to."""
    part: str                # path of the part it is in
    kind: str                # "resource", "navigation", "base", ...
    element: str
    attribute: str
    offset: int              # in the decoded text of the part
    length: int
    raw: str                 # the value as written
    url: str                 # the value with references / escapes decoded
    resolved: str            # the absolute URI
    target: Optional[str]    # path of the part it names, or None (external)
    same_document: bool

class Part:
    """One entity: a leaf, a multipart or an encapsulated message."""
    path: str                       # "" for the message, "1", "1.2", ...
    index: int                      # depth-first position
    content_type: str               # "type/subtype", lower case
    parameters: dict[str, str]
    headers: list[tuple[str, str]]  # every field, in order, values unfolded
    encoding: str                   # Content-Transfer-Encoding
    content_id: Optional[str]       # without angle brackets
    content_location: Optional[str]
    resolved_location: Optional[str]  # Content-Location resolved as MHTML does
    base: str                       # the base URI of its body
    disposition: Optional[str]
    is_leaf: bool
    kind: str                       # "leaf", "multipart", "message"
    offset: int                     # of its header block in the input
    in_decoded_body: bool
    encoded_size: int               # octets of its body as written
    raw: memoryview                 # header and body as written (no copy)
    raw_body: memoryview            # the body as written (no copy)
    children: list["Part"]
    parent: Optional["Part"]
    def header(self, name: str) -> Optional[str]: ...
    def decode(self) -> bytes:
        """The body with its transfer encoding removed (the GIL is released)."""

class Document:
    """A parsed MIME document."""
    size: int
    bytes: memoryview          # the input (the mapped file for a path)
    parts: list[Part]          # depth first, the message first
    diagnostics: list[Diagnostic]
    root: Part                 # the page
    snapshot_location: Optional[str]
    related: list[dict]        # {"path": ..., "root": ...} per multipart/related
    def find(self, path: str) -> Optional[Part]: ...
    def resolve(self, url: str, base: Optional[str] = None) -> Optional[Part]:
        """The part `url` names, resolved from the root (or the part with path `base`)."""
    def decode_leaves(self) -> list[bytes]:
        """The decoded body of every leaf, depth first, in one call."""
    def references(self) -> list[Reference]: ...
    def check(self, strict: bool = False) -> list[Finding]: ...
    def extract(self, dir: Union[str, os.PathLike], *, force: bool = False,
                offline: bool = False, allow_scripts: bool = False,
                part: Optional[str] = None) -> dict:
        """Writes the page as a folder a browser opens (dir/index.html)."""
    def inline(self, *, offline: bool = False, allow_scripts: bool = False) -> bytes:
        """The page as one self-contained HTML file."""
    def __len__(self) -> int: ...

def parse(source: Union[bytes, bytearray, memoryview, str, os.PathLike], *,
          max_parts: Optional[int] = None, max_depth: Optional[int] = None) -> Document:
    """Parses a MIME document: bytes (borrowed), a path (memory-mapped), a buffer (copied)."""

class url:
    @staticmethod
    def resolve(base: str, ref: str) -> Optional[str]: ...
    @staticmethod
    def cid_to_content_id(url: str) -> str: ...
    @staticmethod
    def content_id_to_cid(content_id: str) -> str: ...
    @staticmethod
    def mid_to_ids(url: str) -> tuple[str, str]: ...
    @staticmethod
    def ids_to_mid(message_id: str, content_id: str = "") -> str: ...
    @staticmethod
    def id_key(field: str) -> str: ...
    @staticmethod
    def normalize(ref: str) -> str: ...
