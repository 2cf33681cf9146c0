#!/usr/bin/env python3
"""Generate docs/conformance.md: for every requirement ID (docs/requirements.tsv), where the
sources implement it, which tests cover it and which documents mention it.

usage: conformance.py [--root DIR] [--check]

Without --check, (re)writes DIR/docs/conformance.md. With --check, writes nothing and exits 1,
saying what is wrong, when a cited ID has no row in docs/requirements.tsv (or a range or
section cited names no row), when the data file is malformed, or when docs/conformance.md
differs from what this script would write now. Python 3 standard library only; the output
depends only on the files read (sorted, no dates), so a re-run on unchanged sources gives the
same bytes. The citation rule is in CITATION_RULE below and in the generated file.
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field

DATA = "docs/requirements.tsv"
OUTPUT = "docs/conformance.md"
SCRIPT = "scripts/conformance.py"

# What is scanned: these files and folders of the repository (scripts/ is not: it holds
# tooling, and this script names IDs in its own examples).
ROOTS = ["README.md", "src", "include", "tools", "tests", "fuzz", "bench", "docs"]
# Inputs rather than citations (real archives, fuzzer seeds), the table and its data file,
# and the checker's own test, whose fake trees name IDs on purpose.
SKIP = ["tests/data/corpus", "fuzz/seeds", OUTPUT, DATA, "tests/conformance_test.py"]
CODE_EXT = {".cpp", ".hpp", ".h", ".cc", ".c"}
# .inc files are fragments (generated tables), scanned as plain text.
SCANNED_EXT = CODE_EXT | {".inc", ".py", ".sh", ".md", ".json", ".golden", ".txt", ".cmake"}
# Library and CLI code is "implemented in", tests/ and fuzz/ "tested by"; Markdown anywhere,
# and bench/, "also cited in".
IMPL_DIRS = ("src/", "include/", "tools/")
TEST_DIRS = ("tests/", "fuzz/")
# Test data whose citations count for the test that reads it. A spec vector file is read by
# the tests whose body names it ("base_uri.json"); these folders are read by a named test.
DATA_READERS = {
    "tests/data/check/": "CheckGolden.EveryCorpusFileMatchesItsGoldenFindings",
}

PREFIXES = ["URL", "MHT", "CID", "REL", "CTURI", "THTML", "L", "E"]
DOCUMENTS = {  # document column of the data file -> what it is
    "RFC 2017": "RFC 2017, the URL access-type of message/external-body (Freed, Moore, 1996)",
    "MHTML draft-04": "draft-ietf-mhtml-rev-04, MIME encapsulation of aggregate HTML documents "
                      "(Palme, Hopmann, 1997), which became RFC 2557",
    "cid/mid draft": "Levinson, Content-ID and Message-ID Uniform Resource Locators (1997 draft), "
                     "which became RFC 2392",
    "related draft": "Levinson, The MIME Multipart/Related Content-type (1997 draft), which "
                     "became RFC 2387",
    "cturi draft-02": "draft-eastlake-cturi-02, mapping between MIME types, Content-Types and "
                      "URIs (2001; never an RFC)",
    "text/html draft-01": "draft-palme-text-html-01, the text/html media type and "
                          "Content-Location in mail (1996), an ancestor of RFC 2110 and RFC 2557",
    "later RFCs": "where a later RFC (RFC 2557, RFC 2392, RFC 2387, RFC 3986) changed a draft, "
                  "and what this project does about it",
    "seed errata": "typos and contradictions in the drafts, with the decision this project "
                   "takes",
}
PREFIX_TITLES = {
    "URL": "`URL-`: RFC 2017", "MHT": "`MHT-`: MHTML draft-04 (RFC 2557)",
    "CID": "`CID-`: cid/mid draft (RFC 2392)", "REL": "`REL-`: related draft (RFC 2387)",
    "CTURI": "`CTURI-`: cturi draft-02", "THTML": "`THTML-`: text/html draft-01",
    "L": "`L-`: changes made by later RFCs", "E": "`E-`: errata in the drafts",
}
LEVELS = {"MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "implied", "change", "erratum"}
BINDS = {"writer", "reader", "both", "viewer", "-"}

CITATION_RULE = """\
- `MHT-8.3.1` (a prefix, a hyphen, the numbers) names the row of that ID. A test name
  spells it with underscores, `MHT_8_3_1_CidOnlyMatchesContentId`, the ID ending where a
  capital letter starts; `MHT_8_2_And_8_3_AllVectors` names two.
- `URL-3.1.2 to URL-3.1.4`, `MHT-4.4.1.7 to 4.4.1.11`, `MHT-4.4.1.7-9` and `E-24 to E-30` name
  every row from the first to the last, in the order of the table.
- A prefix and numbers that are not an ID but the start of some (`MHT-8.2`, `MHT-5`,
  `REL-3.x`, `MHT-7.*`) cite a section: listed under "Section citations", not counted for
  the rows in it. The `section` field of the spec vectors (`tests/data/spec/*.json`) names
  sections by its own convention, so there `CID-2` is section 2 of the cid/mid draft, not the
  row CID-2 (the other row IDs in it, such as `MHT-7.2`, are rows).
- Anything else with a known prefix (`MHT-13.1`, `E-40`) is an error of the check.
- Where a citation counts: in `src/`, `include/` and `tools/` it is *implemented in* the file
  (and the function or declaration it sits in, or the one a comment directly above
  introduces); in `tests/` and `fuzz/` it is *tested by* the enclosing test (`Suite.Name`
  for GoogleTest, `file::Class::test` for Python), or by the tests that read the data file
  it is in (a spec vector file, `tests/data/check/*.golden`); Markdown files and `bench/`
  are *also cited in*. Scanned: README.md, src, include, tools, tests, fuzz, bench, docs;
  not scanned: tests/data/corpus and fuzz/seeds (inputs), this table, its data file and the
  checker's own test (tests/conformance_test.py)."""

HYPHEN_RE = re.compile(
    r"(?<![\w-])(?:(THTML)-(A)((?:\.\d+)*)|(URL|MHT|CID|REL|CTURI|THTML|L|E)-(\d+)((?:\.\d+)*))"
    r"(?:\.([x*])(?![\w]))?(?![\w])")
UNDERSCORE_RE = re.compile(
    r"(?<![A-Za-z0-9])(URL|MHT|CID|REL|CTURI|THTML|L|E)_(\d+|A)((?:_\d+)*)(?=_[A-Z])")
AND_RE = re.compile(r"_And_(\d+(?:_\d+)*)(?=_[A-Z])")
# After an ID: "-9", "\u2013 9" (the last numbers changed), " to MHT-8.2.7" or " to 4.4.1.11"
# (with the prefix, or as many numbers as the first ID: "MHT-8.2.7 to 100 parts" is no range).
RANGE_TAIL_RE = re.compile(
    r"(?:(?:-|\s*\u2013\s*)|(?P<to>\s+(?:to|\u2013)\s+))"
    r"(?:(URL|MHT|CID|REL|CTURI|THTML|L|E)-)?(\d+(?:\.\d+)*)(?![\w]|\.\d)")


def natural_key(ident: str):
    prefix, _, rest = ident.partition("-")
    parts = []
    for p in rest.split("."):
        parts.append((0, int(p)) if p.isdigit() else (1, 0))
    return (PREFIXES.index(prefix) if prefix in PREFIXES else len(PREFIXES), parts)


@dataclass
class Row:
    id: str
    document: str
    section: str
    level: str
    binds: str
    summary: str


@dataclass
class Citation:
    path: str
    line: int
    token: str           # as written
    kind: str            # "id", "section", "range"
    ids: list            # IDs named (for "range", every ID in it)
    where: str           # "impl", "test", "doc"
    entry: str           # what to show: a test name, a function, or "" (file level)
    is_test: bool = False  # entry names a test
    via: str = ""        # for test data: the data file or folder read by the test `entry`


@dataclass
class Model:
    rows: dict
    order: list
    errors: list = field(default_factory=list)
    citations: list = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# The data file

def load_rows(root: str, errors: list) -> dict:
    rows = {}
    path = os.path.join(root, DATA)
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        errors.append(f"{DATA}: cannot read ({e.strerror})")
        return rows
    header_seen = False
    for n, line in enumerate(text.split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if not header_seen:
            header_seen = True
            if cols != ["id", "document", "section", "level", "binds", "summary"]:
                errors.append(f"{DATA}:{n}: the first row must be the column names "
                              "id, document, section, level, binds, summary")
            continue
        if len(cols) != 6:
            errors.append(f"{DATA}:{n}: {len(cols)} tab-separated columns, expected 6")
            continue
        row = Row(*[c.strip() for c in cols])
        m = HYPHEN_RE.fullmatch(row.id)
        if not m or m.group(7):
            errors.append(f"{DATA}:{n}: '{row.id}' is not a requirement ID")
            continue
        if row.id in rows:
            errors.append(f"{DATA}:{n}: {row.id} appears twice")
        if row.document not in DOCUMENTS:
            errors.append(f"{DATA}:{n}: {row.id}: unknown document '{row.document}' "
                          f"(known: {', '.join(DOCUMENTS)})")
        if row.level not in LEVELS:
            errors.append(f"{DATA}:{n}: {row.id}: unknown level '{row.level}'")
        if row.binds not in BINDS:
            errors.append(f"{DATA}:{n}: {row.id}: unknown binds '{row.binds}'")
        if not row.summary or not row.section:
            errors.append(f"{DATA}:{n}: {row.id}: empty section or summary")
        if re.search(r"<[A-Za-z]", re.sub(r"`[^`]*`", "", row.summary)):
            errors.append(f"{DATA}:{n}: {row.id}: put markup such as <x> in backticks, or "
                          "Markdown takes it for HTML")
        rows[row.id] = row
    if not header_seen:
        errors.append(f"{DATA}: no rows")
    return rows


def numeric_section(row: Row) -> str:
    """The section a row belongs to: from its ID (MHT-4.4.1.7 -> 4.4.1, URL-3.0.2 -> 3), or for
    the section-less CID IDs from the section column (CID-5 '§2' -> 2)."""
    prefix, _, rest = row.id.partition("-")
    if prefix == "CID":
        m = re.search(r"(?:§|ch\. )([0-9]+(?:\.[0-9]+)*)", row.section)
        return m.group(1) if m else ""
    parts = rest.split(".")[:-1]
    while parts and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def section_rows(model: Model, prefix: str, section: str) -> list:
    out = []
    for rid in model.order:
        p, _, rest = rid.partition("-")
        if p != prefix or p in ("L", "E"):
            continue
        ns = numeric_section(model.rows[rid])
        if (rest.startswith(section + ".") or ns == section or ns.startswith(section + ".")):
            out.append(rid)
    return out


# ---------------------------------------------------------------------------------------------
# Finding citations in one line

def tokens_in_line(model: Model, text: str, code: bool, section_field: bool):
    """Yields (token, kind, ids, error): kind "id", "section" or "range"; error is a message
    when the token names nothing."""
    consumed = 0  # the end of the last range: its second ID is not cited again
    for m in HYPHEN_RE.finditer(text):
        if m.start() < consumed:
            continue
        if m.group(1):
            prefix, nums = "THTML", "A" + m.group(3)
        else:
            prefix, nums = m.group(4), m.group(5) + m.group(6)
        ident = f"{prefix}-{nums}"
        wildcard = m.group(7)
        token = m.group(0)
        if not wildcard and not section_field:
            tail = RANGE_TAIL_RE.match(text, m.end())
            if tail and tail.group("to") and not tail.group(2) and \
                    tail.group(3).count(".") != nums.count("."):
                tail = None
            if tail and ident in model.rows:
                consumed = tail.end()
                yield from range_token(model, ident, prefix, nums, tail, text[m.start():tail.end()])
                continue
        # In a vector's `section` field, CID-n is section n of the cid/mid draft (CID IDs have
        # no section); other row IDs there are the rows themselves (MHT-7.2, THTML-10.1).
        if ident in model.rows and not wildcard and not (section_field and prefix == "CID"):
            yield token, "id", [ident], None
            continue
        if prefix in ("L", "E"):
            yield token, "id", [], f"{token}: no row {ident} in {DATA}"
            continue
        spanned = section_rows(model, prefix, nums)
        if spanned:
            yield f"{prefix}-{nums}", "section", spanned, None
        else:
            yield token, "section" if (wildcard or section_field) else "id", [], \
                f"{token}: neither a row of {DATA} nor a section holding one"
    if not code:
        return
    for m in UNDERSCORE_RE.finditer(text):
        prefix = m.group(1)
        first = m.group(2) + m.group(3).replace("_", ".")
        specs = [first]
        pos = m.end()
        while True:
            a = AND_RE.match(text, pos)
            if not a:
                break
            specs.append(a.group(1).replace("_", "."))
            pos = a.end()
        for nums in specs:
            ident = f"{prefix}-{nums}"
            token = ident.replace("-", "_").replace(".", "_")
            if ident in model.rows:
                yield token, "id", [ident], None
            elif prefix not in ("L", "E") and section_rows(model, prefix, nums):
                yield ident, "section", section_rows(model, prefix, nums), None
            else:
                yield token, "id", [], f"{token}: no row {ident} in {DATA}"


def range_token(model: Model, ident: str, prefix: str, nums: str, tail, written: str):
    end_prefix, end_nums = tail.group(2), tail.group(3)
    if end_prefix and end_prefix != prefix:
        yield written, "range", [], f"{written}: a range must stay within one prefix"
        return
    start_parts = nums.split(".")
    end_parts = end_nums.split(".")
    if not end_prefix and len(end_parts) < len(start_parts):
        end_parts = start_parts[: len(start_parts) - len(end_parts)] + end_parts
    end = f"{prefix}-{'.'.join(end_parts)}"
    if end not in model.rows:
        yield written, "range", [], f"{written}: the range ends at {end}, which has no row in {DATA}"
        return
    same = [r for r in model.order if r.partition("-")[0] == prefix]
    i, j = same.index(ident), same.index(end)
    if j <= i:
        yield written, "range", [], f"{written}: the range does not go forward"
        return
    yield written, "range", same[i: j + 1], None


# ---------------------------------------------------------------------------------------------
# C and C++: which function, declaration or test a line belongs to

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "decltype", "alignof", "catch",
            "noexcept", "alignas", "requires", "co_return", "throw", "new", "delete"}


def strip_cpp(text: str):
    """Returns (code lines with comments and literal contents removed, comment flags per line).
    Line structure is kept."""
    out = []
    has_comment = []
    i, n = 0, len(text)
    cur = []
    comment = False
    state = "code"
    raw_end = ""

    def newline():
        nonlocal cur, comment
        out.append("".join(cur))
        has_comment.append(comment)
        cur = []
        comment = False

    while i < n:
        c = text[i]
        if c == "\n":
            if state == "line":
                state = "code"
            newline()
            i += 1
            continue
        if state == "code":
            if text.startswith("//", i):
                state, comment = "line", True
                i += 2
                continue
            if text.startswith("/*", i):
                state, comment = "block", True
                i += 2
                continue
            if c == '"':
                j = i - 1
                while j >= 0 and (text[j].isalnum() or text[j] == "_"):
                    j -= 1
                word = text[j + 1:i]
                if word in ("R", "u8R", "uR", "UR", "LR"):
                    k = text.find("(", i)
                    raw_end = ")" + text[i + 1:k] + '"'
                    state = "raw"
                    cur.append('""')
                    i = k + 1
                    continue
                state = "string"
                cur.append('""')
                i += 1
                continue
            if c == "'":
                prev = text[i - 1] if i else ""
                j = i - 1
                while j >= 0 and (text[j].isalnum() or text[j] == "_"):
                    j -= 1
                word = text[j + 1:i]
                if (prev.isalnum() or prev == "_") and word not in ("u8", "u", "U", "L"):
                    i += 1  # digit separator: 100'000
                    continue
                state = "char"
                cur.append("''")
                i += 1
                continue
            cur.append(c)
            i += 1
            continue
        if state == "line":
            i += 1
            continue
        if state == "block":
            if text.startswith("*/", i):
                state = "code"
                i += 2
            else:
                i += 1
            comment = True
            continue
        if state in ("string", "char"):
            if c == "\\":
                i += 2
                continue
            if (state == "string" and c == '"') or (state == "char" and c == "'"):
                state = "code"
            i += 1
            continue
        if state == "raw":
            if text.startswith(raw_end, i):
                state = "code"
                i += len(raw_end)
            else:
                i += 1
            continue
    newline()
    # Preprocessor lines (and their continuations) carry no structure.
    cont = False
    for k, line in enumerate(out):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            out[k] = ""
    return out, has_comment


@dataclass
class Span:
    kind: str      # "function", "class", "namespace", "block", "init", "decl"
    name: str
    start: int     # first line (1-based)
    end: int       # last line
    test: bool = False
    enum: bool = False


def top_level_index(s: str, ch: str) -> int:
    depth = 0
    for k, c in enumerate(s):
        if c in "([":
            if depth == 0 and c == ch:
                return k
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ch and depth == 0:
            return k
    return -1


def strip_angles(s: str) -> str:
    """s without its template argument lists (balanced <...>)."""
    out, depth = [], 0
    for c in s:
        if c == "<":
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out) if depth == 0 else s


def strip_template(s: str) -> str:
    s = s.strip()
    while True:
        s = re.sub(r"^\[\[.*?\]\]\s*", "", s)
        m = re.match(r"template\s*<", s)
        if not m:
            return s
        depth, k = 0, m.end() - 1
        while k < len(s):
            if s[k] == "<":
                depth += 1
            elif s[k] == ">":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        s = s[k + 1:].strip()


TEST_RE = re.compile(r"^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\s*\(\s*(\w+)\s*,\s*(\w+)")
CLASS_RE = re.compile(r"(?:^|[\s;])(class|struct|union|enum(?:\s+class|\s+struct)?|namespace)"
                      r"\s+(?:\[\[[^\]]*\]\]\s*)?([A-Za-z_]\w*)")
NAME_BEFORE_PAREN_RE = re.compile(
    r"((?:~?[A-Za-z_]\w*|operator\s*[^\s(]+)(?:\s*::\s*(?:~?[A-Za-z_]\w*|operator\s*[^\s(]+))*)"
    r"\s*(?:<[^()]*>)?\s*$")


def statement_name(stmt: str):
    """(kind, name, is_test) of a declaration or definition statement, or None."""
    s = strip_template(" ".join(stmt.split()))
    if not s:
        return None
    m = TEST_RE.match(s)
    if m:
        return "function", f"{m.group(2)}.{m.group(3)}", True
    paren = top_level_index(s, "(")
    head = s if paren < 0 else s[:paren]
    m = CLASS_RE.search(head)
    if m and "=" not in head[:m.start()]:
        kind = "namespace" if m.group(1) == "namespace" else "class"
        return kind, m.group(2), False
    m = re.match(r"using\s+([A-Za-z_]\w*)\s*=", s)
    if m:
        return "decl", m.group(1), False
    eq = top_level_index(s, "=")
    if paren >= 0 and (eq < 0 or eq > paren):
        m = NAME_BEFORE_PAREN_RE.search(s[:paren])
        if not m:
            return None
        name = re.sub(r"\s+", "", m.group(1))
        if name in KEYWORDS:
            return None
        if name == "static_assert":
            return "decl", name, False
        if re.fullmatch(r"[A-Z][A-Z0-9_]+", name):  # a macro: name it with its first argument
            arg = re.match(r"\(\s*([^,()]*)", s[paren:])
            return "decl", f"{name}({arg.group(1).strip() if arg else ''})", False
        return "function", name, False
    s = strip_angles(s)
    cut = len(s)
    for ch in "={;,[":
        k = top_level_index(s, ch)
        if k >= 0:
            cut = min(cut, k)
    names = re.findall(r"[A-Za-z_]\w*", s[:cut])
    names = [x for x in names if x not in ("const", "constexpr", "static", "inline", "extern",
                                           "mutable", "volatile", "thread_local")]
    return ("decl", names[-1], False) if names else None


def cpp_structure(lines: list):
    """Spans of functions, classes and declarations in C++ code lines (comments removed)."""
    spans = []
    stack = []  # open braces: Span objects of kind function, class, namespace, block or init
    stmt = []
    stmt_start = None

    def inside(kind):
        return any(s.kind == kind for s in stack)

    def qualify(name):
        classes = [s.name for s in stack if s.kind == "class"]
        return "::".join(classes + [name]) if classes else name

    def end_statement(line_no):
        nonlocal stmt, stmt_start
        text = "".join(stmt)
        if stmt_start is not None and text.strip() and not inside("function"):
            got = statement_name(text)
            if got and got[0] in ("decl", "function"):
                spans.append(Span("decl", got[1] if got[2] else qualify(got[1]), stmt_start,
                                  line_no, got[2]))
        stmt, stmt_start = [], None

    for ln, line in enumerate(lines, 1):
        for c in line:
            if c == "{":
                if inside("function"):
                    stack.append(Span("block", "", ln, ln))
                    continue
                if inside("init"):  # a brace inside an initializer or a lambda
                    stack.append(Span("init", "", ln, ln))
                    stmt.append(c)
                    continue
                if len(stmt) > 20000:  # a long initializer list: no name to find in it
                    stack.append(Span("init", "", ln, ln))
                    stmt.append(c)
                    continue
                text = "".join(stmt)
                start = stmt_start if stmt_start is not None else ln
                m = re.match(r"\s*(?:inline\s+)?namespace\b\s*([\w:]*)", text)
                if m or re.fullmatch(r'\s*extern\s*""\s*', text):
                    stack.append(Span("namespace", m.group(1) if m else "", start, ln))
                    stmt, stmt_start = [], None
                    continue
                got = statement_name(text) if text.strip() else None
                if got and got[0] == "class":
                    span = Span("class", qualify(got[1]), start, ln)
                    span.enum = bool(re.search(r"\benum\b", text))
                    stack.append(span)
                    stmt, stmt_start = [], None
                    continue
                if (got and got[0] == "function" and text.count("(") == text.count(")")
                        and looks_like_head(text)):
                    stack.append(Span("function", got[1] if got[2] else qualify(got[1]), start,
                                      ln, got[2]))
                    stmt, stmt_start = [], None
                    continue
                if not text.strip():
                    stack.append(Span("block", "", ln, ln))
                    continue
                stack.append(Span("init", "", ln, ln))  # `x{...}`, `= {...}`, `= [] {...}`
                stmt.append(c)
                continue
            if c == "}":
                if not stack:
                    continue
                span = stack.pop()
                span.end = ln
                if span.kind == "init":
                    stmt.append(c)
                    continue
                if "".join(stmt).strip():
                    end_statement(ln)
                stmt, stmt_start = [], None
                if span.kind in ("function", "class", "namespace"):
                    spans.append(span)
                continue
            if inside("function"):
                continue
            in_enum = stack and stack[-1].kind == "class" and stack[-1].enum
            if c == ";" or (c == "," and in_enum):
                if inside("init"):
                    stmt.append(c)
                    continue
                end_statement(ln)
                continue
            if stmt_start is None and not c.isspace():
                stmt_start = ln
            stmt.append(c)
        stmt.append("\n")
    return spans


def looks_like_head(text: str) -> bool:
    """A function head ends with its parameter list, perhaps followed by qualifiers, a
    trailing return type or a constructor's initializer list."""
    s = " ".join(text.split())
    close = s.rfind(")")
    if close < 0:
        return False
    tail = s[close + 1:].strip()
    return bool(re.fullmatch(r"((const|noexcept|override|final|mutable|&|&&|volatile)\s*)*"
                             r"(->.*)?", tail)) or tail.startswith(":") or ":" in tail


def cpp_locator(text: str):
    """A function from a line number to (name, is_test), name "" at file level."""
    code, has_comment = strip_cpp(text)
    spans = cpp_structure(code)
    nlines = len(code)

    def locate(ln: int):
        best = None
        for s in spans:
            if s.start <= ln <= s.end and s.kind in ("function", "decl"):
                if best is None or s.start > best.start or (s.start == best.start and s.end < best.end):
                    best = s
        if best is None or best.kind != "function":
            # A comment directly above a declaration (no blank line in between) introduces it.
            if has_comment[ln - 1] and not code[ln - 1].strip():
                k = ln
                while k < nlines and has_comment[k] and not code[k].strip():
                    k += 1
                if k < nlines and code[k].strip():
                    for s in spans:
                        if s.start == k + 1 and s.kind in ("function", "decl", "class"):
                            return s.name, s.test
        if best is not None:
            return best.name, best.test
        for s in spans:
            if s.kind == "class" and s.start <= ln <= s.end:
                best = s if best is None or s.start > best.start else best
        return (best.name, False) if best else ("", False)

    tests = [s for s in spans if s.test]
    return locate, tests


def py_locator(text: str):
    lines = text.split("\n")
    defs = []  # (line, indent, kind, name)
    for ln, line in enumerate(lines, 1):
        m = re.match(r"^(\s*)(def|class|async def)\s+([A-Za-z_]\w*)", line)
        if m:
            defs.append((ln, len(m.group(1).expandtabs()), m.group(2), m.group(3)))

    def chain(ln: int, indent: int):
        names = []
        for dl, di, kind, name in reversed([d for d in defs if d[0] <= ln]):
            if di < indent or dl == ln:
                names.insert(0, (kind, name))
                indent = di
                if di == 0:
                    break
        return names

    def locate(ln: int):
        line = lines[ln - 1]
        indent = len(line) - len(line.lstrip())
        if line.lstrip().startswith("#"):
            k = ln
            while k < len(lines) and lines[k].lstrip().startswith("#"):
                k += 1
            if k < len(lines) and re.match(r"^\s*(def|class|async def)\s", lines[k]):
                ln, indent = k + 1, len(lines[k]) - len(lines[k].lstrip())
        names = chain(ln, indent)
        if not names:
            return "", False
        funcs = [n for k, n in names if k != "class"]
        is_test = bool(funcs) and funcs[-1].startswith("test")
        return "::".join(n for _, n in names), is_test

    return locate


# ---------------------------------------------------------------------------------------------
# Scanning the tree

def scanned_files(root: str) -> list:
    files = []
    for top in ROOTS:
        path = os.path.join(root, top)
        if os.path.isfile(path):
            files.append(top)
            continue
        for d, dirs, names in os.walk(path):
            rel_dir = os.path.relpath(d, root).replace(os.sep, "/")
            # Hidden folders, Python caches and CMake build trees are not sources.
            dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "__pycache__"
                             and f"{rel_dir}/{x}" not in SKIP
                             and not os.path.exists(os.path.join(d, x, "CMakeCache.txt")))
            for name in sorted(names):
                rel = f"{rel_dir}/{name}"
                ext = os.path.splitext(name)[1]
                if rel in SKIP or (ext not in SCANNED_EXT and name != "CMakeLists.txt"):
                    continue
                files.append(rel)
    return sorted(files)


def json_vector_ids(text: str) -> dict:
    """Line number -> the `id` of the JSON object that line is in (the innermost object with
    an "id" member), for lines inside such an object."""
    out = {}
    depth = 0
    active = []  # (depth of the object, id)
    in_string = escaped = False
    for ln, line in enumerate(text.split("\n"), 1):
        m = re.match(r'\s*"id"\s*:\s*"((?:[^"\\]|\\.)*)"', line)
        if m and not in_string:
            active.append((depth, m.group(1)))
        if active:
            out[ln] = active[-1][1]
        for c in line:
            if in_string:
                if escaped:
                    escaped = False
                elif c == "\\":
                    escaped = True
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                while active and depth < active[-1][0]:
                    active.pop()
    return out


def where_of(rel: str) -> str:
    if rel.endswith(".md"):
        return "doc"
    if rel.startswith(IMPL_DIRS):
        return "impl"
    if rel.startswith(TEST_DIRS):
        return "test"
    return "doc"


def scan(root: str, model: Model):
    files = scanned_files(root)
    texts = {}
    for rel in files:
        try:
            with open(os.path.join(root, rel), "rb") as f:
                data = f.read()
        except OSError as e:
            model.errors.append(f"{rel}: cannot read ({e.strerror})")
            continue
        if b"\0" in data:
            continue
        texts[rel] = data.decode("utf-8", errors="replace")

    # Tests, and the data files they read.
    locators = {}
    test_bodies = []  # (name, raw text of the test)
    for rel, text in texts.items():
        ext = os.path.splitext(rel)[1]
        if ext in CODE_EXT:
            locate, tests = cpp_locator(text)
            locators[rel] = locate
            raw = text.split("\n")
            for t in tests:
                test_bodies.append((t.name, "\n".join(raw[t.start - 1:t.end])))
        elif ext == ".py":
            locators[rel] = py_locator(text)
    known_tests = {name for name, _ in test_bodies}
    for folder, test in sorted(DATA_READERS.items()):
        if os.path.isdir(os.path.join(root, folder)) and test not in known_tests:
            model.errors.append(f"{SCRIPT}: DATA_READERS names {test} for {folder}, but no "
                                "such test was found")

    def data_readers(rel: str, text: str):
        """A function from a line of the data file `rel` to the tests that read that line. A
        test that names some of a vector file's vector ids reads those vectors only; one that
        names none reads the whole file."""
        for folder, test in DATA_READERS.items():
            if rel.startswith(folder):
                return lambda ln: [test]
        base = os.path.basename(rel)
        loaders = [(name, body) for name, body in test_bodies if f'"{base}"' in body]
        vector_of = json_vector_ids(text) if rel.endswith(".json") else {}
        ids = set(vector_of.values())
        picks = {name: {i for i in ids if f'"{i}"' in body} for name, body in loaders}

        def readers(ln):
            vid = vector_of.get(ln)
            return sorted(name for name, _ in loaders
                          if not picks[name] or (vid is not None and vid in picks[name]))
        return readers

    for rel, text in texts.items():
        ext = os.path.splitext(rel)[1]
        where = where_of(rel)
        is_data = rel.startswith("tests/data/")
        code = ext in CODE_EXT or ext == ".py"
        locate = locators.get(rel)
        readers = data_readers(rel, text) if is_data else None
        for ln, line in enumerate(text.split("\n"), 1):
            section_field = is_data and ext == ".json" and re.match(r'\s*"section"\s*:', line)
            found = list(tokens_in_line(model, line, code, bool(section_field)))
            if not found:
                continue
            entries = [("", False, "")]
            if where == "test" and is_data:
                folder = next((f for f in DATA_READERS if rel.startswith(f)), None)
                via = folder.rstrip("/") if folder else rel
                entries = [(r, True, via) for r in readers(ln)] or entries
            elif locate is not None:
                name, is_test = locate(ln)
                if is_test and ext == ".py":
                    name = f"{rel}::{name}"
                entries = [(name, is_test and where == "test", "")]
            for token, kind, ids, error in found:
                if error:
                    model.errors.append(f"{rel}:{ln}: {error}")
                    continue
                for entry, is_test, via in entries:
                    model.citations.append(
                        Citation(rel, ln, token, kind, ids, where, entry, is_test, via))


# ---------------------------------------------------------------------------------------------
# The table

def md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def cell_impl(cits: list) -> str:
    by_file = defaultdict(set)
    for c in cits:
        by_file[c.path].add(c.entry)
    parts = []
    for path in sorted(by_file):
        names = sorted(n for n in by_file[path] if n)
        parts.append(f"`{path}`" + (f" ({', '.join(f'`{x}`' for x in names)})" if names else ""))
    return "; ".join(parts)


def cell_tests(cits: list) -> str:
    tests = defaultdict(lambda: defaultdict(set))  # test -> data source -> data files
    files = defaultdict(set)   # file -> helper names (citations outside any test)
    for c in cits:
        if c.is_test:
            tests[c.entry][c.via].add(c.path)
        else:
            files[c.path].add(c.entry)
    parts = []
    for name in sorted(tests):
        shown = []
        for via in sorted(v for v in tests[name] if v):
            n = len(tests[name][via])
            if via.endswith(".json") or via in tests[name][via]:
                shown.append(os.path.basename(via))
            else:
                shown.append(f"{n} file{'s' if n != 1 else ''} in {via}")
        parts.append(f"`{name}`" + (f" (via {', '.join(shown)})" if shown else ""))
    for path in sorted(files):
        names = sorted(n for n in files[path] if n)
        parts.append(f"`{path}`" + (f" ({', '.join(f'`{x}`' for x in names)})" if names else ""))
    return "; ".join(parts)


def cell_docs(cits: list) -> str:
    return ", ".join(f"`{p}`" for p in sorted({c.path for c in cits}))


def render(model: Model) -> str:
    by_id = defaultdict(list)
    by_section = defaultdict(list)
    for c in model.citations:
        if c.kind == "section":
            by_section[c.token].append(c)
        else:
            for i in c.ids:
                by_id[i].append(c)

    out = []
    w = out.append
    w("# Conformance: the requirement IDs and where they are met")
    w("")
    w(f"<!-- Generated by {SCRIPT} from {DATA} and the sources. Do not edit by hand: run")
    w(f"     `python3 {SCRIPT}` and commit the result. -->")
    w("")
    w("The code, tests and documents of this project cite requirements by ID (`MHT-8.3.1`,")
    w("`REL-3.2.1`, `E-34`, ...). This file says what each ID means and where it is met: one row")
    w(f"per ID of `{DATA}`, with the files and functions that implement it, the tests that")
    w("cover it, and the documents that mention it. The IDs are those of the project's")
    w("requirements digest, which lives outside this repository; the data file is the")
    w("repository's own account of them, summaries in our words. A row with nothing in the last")
    w("three columns is cited nowhere yet (many are writer and viewer rules for code that does")
    w("not exist yet).")
    w("")
    w("Regenerate after adding or moving a citation, and run the check that CTest runs as")
    w("`conformance.table_current`:")
    w("")
    w("```sh")
    w(f"python3 {SCRIPT}            # rewrite {OUTPUT}")
    w(f"python3 {SCRIPT} --check    # exit 1 if an ID is cited without a row, or this file is stale")
    w("```")
    w("")
    w(f"A new ID gets a row in `{DATA}` (id, document, section, level, binds, one-line")
    w("summary) before it is cited.")
    w("")
    w("## Documents and ID prefixes")
    w("")
    w("| prefix | document | rows | cited | implemented in | tested by |")
    w("|---|---|---|---|---|---|")
    doc_of_prefix = {}
    for rid in model.order:
        doc_of_prefix.setdefault(rid.partition("-")[0], model.rows[rid].document)
    totals = [0, 0, 0, 0]
    for prefix in PREFIXES:
        ids = [r for r in model.order if r.partition("-")[0] == prefix]
        if not ids:
            continue
        cited = [r for r in ids if by_id[r]]
        impl = [r for r in ids if any(c.where == "impl" for c in by_id[r])]
        tested = [r for r in ids if any(c.where == "test" for c in by_id[r])]
        for k, v in enumerate((ids, cited, impl, tested)):
            totals[k] += len(v)
        w(f"| `{prefix}-` | {md_escape(DOCUMENTS[doc_of_prefix[prefix]])} | {len(ids)} | "
          f"{len(cited)} | {len(impl)} | {len(tested)} |")
    w(f"| all | | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} |")
    w("")
    w("Requirement IDs end in a running number inside the section before it (`MHT-4.4.1.7` is")
    w("item 7 of section 4.4.1; a `.0.` is a section's unnumbered opening text, as in")
    w("`URL-3.0.2`); `CID-` IDs have no section. Levels: MUST (with MUST NOT, SHALL), SHOULD,")
    w("SHOULD NOT, MAY, *implied* (no keyword in the document: it follows from an algorithm, an")
    w("example or a decision of this project); `L-` rows are *changes* made by later RFCs, `E-`")
    w("rows *errata*. Binds: what the rule constrains (writer, reader, both, viewer).")
    w("")
    w("## What counts as a citation")
    w("")
    w(CITATION_RULE)
    w("")
    for prefix in PREFIXES:
        ids = [r for r in model.order if r.partition("-")[0] == prefix]
        if not ids:
            continue
        w(f"## {PREFIX_TITLES[prefix]}")
        w("")
        w("| ID | source | level | summary | implemented in | tested by | also cited in |")
        w("|---|---|---|---|---|---|---|")
        for rid in ids:
            r = model.rows[rid]
            cits = by_id[rid]
            impl = cell_impl([c for c in cits if c.where == "impl"]) or "-"
            tests = cell_tests([c for c in cits if c.where == "test"]) or "-"
            docs = cell_docs([c for c in cits if c.where == "doc"]) or "-"
            level = r.level if r.binds == "-" else f"{r.level}, {r.binds}"
            source = r.section if prefix in ("L", "E") else f"{r.document} {r.section}"
            w(f"| {rid} | {md_escape(source)} | {level} | {md_escape(r.summary)} | "
              f"{md_escape(impl)} | {md_escape(tests)} | {md_escape(docs)} |")
        w("")
    w("## Section citations")
    w("")
    w("Citations of a whole section rather than one row (see above); they do not count for")
    w("the rows in the section.")
    w("")
    w("| section | rows in it | implemented in | tested by | also cited in |")
    w("|---|---|---|---|---|")
    for sec in sorted(by_section, key=natural_key):
        cits = by_section[sec]
        ids = cits[0].ids
        span = ids[0] if len(ids) == 1 else f"{len(ids)} rows, {ids[0]} to {ids[-1]}"
        impl = cell_impl([c for c in cits if c.where == "impl"]) or "-"
        tests = cell_tests([c for c in cits if c.where == "test"]) or "-"
        docs = cell_docs([c for c in cits if c.where == "doc"]) or "-"
        w(f"| {sec} | {span} | {md_escape(impl)} | {md_escape(tests)} | {md_escape(docs)} |")
    w("")
    return "\n".join(out)


def build(root: str) -> tuple:
    errors = []
    rows = load_rows(root, errors)
    order = sorted(rows, key=natural_key)
    model = Model(rows, order, errors)
    for r in order:
        p = r.partition("-")[0]
        if p in ("L", "E") and rows[r].binds != "-":
            errors.append(f"{DATA}: {r}: binds must be '-' for L- and E- rows")
    scan(root, model)
    return model, render(model)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="repository root (default: the folder above scripts/)")
    ap.add_argument("--check", action="store_true",
                    help=f"write nothing; exit 1 if an ID lacks a row or {OUTPUT} is stale")
    args = ap.parse_args(argv)
    model, text = build(args.root)
    out_path = os.path.join(args.root, OUTPUT)
    if args.check:
        problems = list(model.errors)
        try:
            current = open(out_path, encoding="utf-8", newline="").read()
        except OSError:
            current = None
        if current is None:
            problems.append(f"{OUTPUT} is missing: run python3 {SCRIPT}")
        elif current != text:
            diff = list(difflib.unified_diff(current.split("\n"), text.split("\n"),
                                             f"{OUTPUT} (on disk)", f"{OUTPUT} (generated now)",
                                             n=0, lineterm=""))
            shown = diff[:40]
            problems.append(f"{OUTPUT} is stale: run python3 {SCRIPT} and commit the result. "
                            f"Difference ({len(diff)} diff lines, first {len(shown)}):\n  "
                            + "\n  ".join(shown))
        for p in problems:
            print(p)
        print(f"{len(problems)} problem(s); {len(model.rows)} rows, "
              f"{len({i for c in model.citations for i in c.ids if c.kind != 'section'})} IDs cited")
        return 1 if problems else 0
    for e in model.errors:
        print(e, file=sys.stderr)
    with open(out_path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"wrote {OUTPUT}: {len(model.rows)} rows, "
          f"{len({i for c in model.citations for i in c.ids if c.kind != 'section'})} IDs cited"
          + (f"; {len(model.errors)} problem(s) above" if model.errors else ""))
    return 1 if model.errors else 0


if __name__ == "__main__":
    sys.exit(main())
