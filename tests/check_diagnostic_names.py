#!/usr/bin/env python3
"""The diag_code enum, the names in src/diagnostic.cpp and docs/diagnostics.md agree:
same codes, same order, every code documented. usage: check_diagnostic_names.py SOURCE_DIR"""
import re
import sys

root = sys.argv[1]
header = open(f"{root}/include/mhtml/diagnostic.hpp").read()
enum = header[header.index("enum class diag_code"):]
enum = enum[: enum.index("};")]
codes = re.findall(r"^\s+([a-z0-9_]+),", enum, re.M)
source = open(f"{root}/src/diagnostic.cpp").read()
names = re.findall(r'"([a-z0-9_]+)"', source[source.index("code_names{"):source.index("};")])
docs = open(f"{root}/docs/diagnostics.md").read()
documented = set(re.findall(r"`([a-z0-9_]+)`", docs))
failed = 0
if codes != names:
    print("enum and names differ:", [(a, b) for a, b in zip(codes, names) if a != b], len(codes), len(names))
    failed += 1
missing = [c for c in codes if c not in documented]
if missing:
    print("not in docs/diagnostics.md:", missing)
    failed += 1
print(f"{2 - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
