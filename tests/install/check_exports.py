#!/usr/bin/env python3
"""A shared libmhtml exports the public API of include/mhtml/ and nothing else.

Reads the dynamic symbol table (nm -D --defined-only) of LIBRARY and checks every defined
symbol:
  - it is C++ in namespace mhtml (vtables, typeinfo, guard variables and thunks of such
    entities included);
  - its namespace is one the public headers open, and the first name after that namespace
    (a class, a function, a variable) is declared in a public header.
So a helper of src/ (mhtml::uri::text::..., a class private to a .cpp) or a symbol of a
dependency (Boost.URL, libstdc++ template instantiations) that leaks out fails the check.
It also checks that the soname is libmhtml.so.SOVERSION when --soname is given.

usage: check_exports.py LIBRARY INCLUDE_DIR... [--soname libmhtml.so.X.Y]
"""
import pathlib
import re
import subprocess
import sys

PREFIXES = ("vtable for ", "typeinfo for ", "typeinfo name for ", "VTT for ",
            "construction vtable for ", "guard variable for ", "non-virtual thunk to ",
            "virtual thunk to ", "covariant return thunk to ")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def public_names(include_dirs):
    """Namespaces the public headers open (fully qualified) and the names they declare."""
    namespaces, names = set(), set()
    for d in include_dirs:
        for path in pathlib.Path(d).rglob("*.hpp"):
            text = strip_comments(path.read_text())
            stack = []  # (namespace, brace depth at which it closes)
            depth = 0
            for tok in re.finditer(r"namespace\s+([A-Za-z_][\w:]*)\s*\{|[{}]", text):
                if tok.group(1):
                    stack.append((tok.group(1), depth))
                    depth += 1
                    namespaces.add("::".join(n for n, _ in stack))
                elif tok.group(0) == "{":
                    depth += 1
                else:
                    depth -= 1
                    if stack and stack[-1][1] == depth:
                        stack.pop()
            names.update(re.findall(r"\b(?:class|struct|enum class|enum)\s+(?:MHTML_EXPORT\s+)?(\w+)", text))
            names.update(re.findall(r"\b(\w+)\s*\(", text))
            names.update(re.findall(r"\b(\w+)\s*(?:=[^=]|;|\{)", text))  # variables
    return namespaces, names


def qualified_parts(symbol):
    """'mhtml::a::b::f(int) const' -> ['mhtml', 'a', 'b', 'f'] (template arguments dropped)."""
    out, depth, cur, i = [], 0, "", 0
    while i < len(symbol):
        c = symbol[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0 and c == "(":
            break
        elif depth == 0 and symbol.startswith("::", i):
            out.append(cur)
            cur = ""
            i += 2
            continue
        elif depth == 0:
            cur += c
        i += 1
    out.append(cur)
    return [p.strip() for p in out]


def main(argv):
    soname = None
    if "--soname" in argv:
        k = argv.index("--soname")
        soname = argv[k + 1]
        argv = argv[:k] + argv[k + 2:]
    if len(argv) < 2:
        sys.exit(__doc__)
    library, include_dirs = argv[0], argv[1:]
    namespaces, names = public_names(include_dirs)
    listing = subprocess.run(["nm", "-D", "--defined-only", "-C", library], check=True,
                             capture_output=True, text=True).stdout
    bad, good = [], 0
    for line in listing.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3:
            continue
        symbol = parts[2]
        name = symbol
        for p in PREFIXES:
            if name.startswith(p):
                name = name[len(p):]
        q = qualified_parts(re.sub(r"\[abi:\w+\]", "", name))
        if q[0] != "mhtml":
            bad.append(f"{symbol}: not in namespace mhtml")
            continue
        k = max(n for n in range(1, len(q)) if "::".join(q[:n]) in namespaces) \
            if "::".join(q[:1]) in namespaces else 0
        if k == 0 or k >= len(q) or q[k] not in names:
            bad.append(f"{symbol}: '{'::'.join(q[:k + 1])}' is not declared in the public headers")
            continue
        good += 1
    if soname:
        dyn = subprocess.run(["readelf", "-d", library], check=True, capture_output=True,
                             text=True).stdout
        m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", dyn)
        if not m or m.group(1) != soname:
            bad.append(f"soname is {m.group(1) if m else 'missing'}, expected {soname}")
    for b in bad:
        print("exported but not public API:", b)
    print(f"exports check: {good} public symbols, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
