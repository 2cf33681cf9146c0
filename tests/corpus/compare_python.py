#!/usr/bin/env python3
"""Compare mhtml's reading of every corpus file with Python's email package.

For each file: Python's leaves are the non-multipart parts of
BytesParser(policy=policy.default).parsebytes(data).walk(), each with
get_content_type() and the SHA-256 of get_payload(decode=True). Ours come from
`mhtml ls --json --hash FILE` (leaf parts in depth-first order). The two lists must be
equal, except for the files in KNOWN_DIFFERENCES, where the RFCs (and GMime, as the
tie-breaker) say mhtml is right; for those the test checks that the difference is exactly
the documented one, so a change in either reader is noticed.

usage: compare_python.py MHTML_BINARY CORPUS_DIR
Prints one line per file and a closing line "N passed, M failed".
"""
import hashlib
import json
import os
import subprocess
import sys
from email import policy
from email.parser import BytesParser

# file -> (why mhtml differs from Python, check on mhtml's leaves, check on Python's leaves)
KNOWN_DIFFERENCES = {}


def python_leaves(data):
    msg = BytesParser(policy=policy.default).parsebytes(data)
    out = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        payload = part.get_payload(decode=True)
        if payload is None:
            payload = b""
        out.append((part.get_content_type(), hashlib.sha256(payload).hexdigest()))
    return out


def our_leaves(binary, path):
    r = subprocess.run([binary, "ls", "--json", "--hash", path], capture_output=True)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"mhtml ls exited {r.returncode}: {r.stderr.decode(errors='replace')}")
    doc = json.loads(r.stdout)
    return [(p["content_type"], p["sha256"]) for p in doc["parts"] if p["leaf"]]


def main():
    binary, corpus = sys.argv[1], sys.argv[2]
    names = sorted(n for n in os.listdir(corpus)
                   if not n.endswith((".md", ".tsv")) and not n.startswith("."))
    passed = failed = 0
    for name in names:
        with open(os.path.join(corpus, name), "rb") as f:
            data = f.read()
        ours = our_leaves(binary, os.path.join(corpus, name))
        theirs = python_leaves(data)
        if name in KNOWN_DIFFERENCES:
            why, check_ours, check_theirs = KNOWN_DIFFERENCES[name]
            ok = ours != theirs and check_ours(ours) and check_theirs(theirs)
            status = "ok (known difference: %s)" % why if ok else "FAIL (known difference changed)"
        else:
            ok = ours == theirs
            status = "ok" if ok else "FAIL"
        if ok:
            passed += 1
        else:
            failed += 1
        print(f"{name}: {len(ours)} leaves: {status}")
        if not ok:
            n = max(len(ours), len(theirs))
            for i in range(n):
                a = ours[i] if i < len(ours) else None
                b = theirs[i] if i < len(theirs) else None
                mark = "  " if a == b else "!="
                print(f"   {mark} leaf {i + 1}: mhtml={a} python={b}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
