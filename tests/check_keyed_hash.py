#!/usr/bin/env python3
"""Every hash table keyed by strings uses the keyed hash (include/mhtml/detail/keyed_hash.hpp).

An archive chooses its labels, ids, names and paths; with std::hash it could choose them to
collide and make each table quadratic. So in the C++ sources under the folders given, a
std::unordered_map / unordered_set / unordered_multimap / unordered_multiset whose key type
is a string (std::string, std::string_view, a char pointer) must name keyed_hash among its
template arguments (mhtml::detail::keyed_string_map / keyed_string_set do), and
std::hash<std::string...> must not be used at all. Comments and string literals are ignored.

usage: check_keyed_hash.py DIR...   (exit 1 and one line per violation when there are any)
"""
import pathlib
import re
import sys

TABLE = re.compile(r"\bunordered_(?:multi)?(?:map|set)\s*<")
STD_HASH = re.compile(r"\bhash\s*<\s*(?:const\s+)?(?:std\s*::\s*)?(?:basic_)?(?:string|string_view|u8string)\b")
STRING_KEY = re.compile(r"\b(?:string|string_view|u8string|u8string_view)\b|\bchar\s*\*")


def strip(text):
    """Comments and string/char literals blanked out, line breaks kept (so lines still count)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def template_args(text, open_at):
    """The top-level arguments of the template argument list whose '<' is at open_at."""
    depth, args, start = 0, [], open_at + 1
    for k in range(open_at, len(text)):
        c = text[k]
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:k])
                return args
        elif c == "," and depth == 1:
            args.append(text[start:k])
            start = k + 1
    return args


def check(path):
    text = strip(path.read_text(encoding="utf-8", errors="replace"))
    found, tables = [], 0
    for m in TABLE.finditer(text):
        args = template_args(text, m.end() - 1)
        if not args or not STRING_KEY.search(args[0]):
            continue
        tables += 1
        if not any("keyed_hash" in a for a in args[1:]):
            line = text.count("\n", 0, m.start()) + 1
            key = " ".join(args[0].split())
            found.append(f"{path}:{line}: a table keyed by {key} without mhtml::detail::keyed_hash")
    for m in STD_HASH.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        found.append(f"{path}:{line}: std::hash of a string; use mhtml::detail::keyed_hash")
    return found, tables


def main(dirs):
    violations, tables, files = [], 0, 0
    for d in dirs:
        for path in sorted(pathlib.Path(d).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".cc", ".inc") or not path.is_file():
                continue
            files += 1
            found, n = check(path)
            violations += found
            tables += n
    for v in violations:
        print(v)
    print(f"keyed-hash check: {files} files, {tables} string-keyed tables, "
          f"{len(violations)} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
