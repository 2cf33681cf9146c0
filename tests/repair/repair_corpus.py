#!/usr/bin/env python3
"""`mhtml repair` on every archive of the real corpus (tests/data/corpus, made by Chrome, IE,
Word, Outlook, Thunderbird and others): each output is strictly CRLF, Python's email
(policy=default) reads it with no defect, `mhtml check` finds no MUST violation in it, its
root is first and is what the input's root was (same decoded octets, text compared with LF line
ends), every part of the input that `mhtml ls` lists as a leaf is in the output with its
decoded octets (or is listed as incomplete), and repairing the output again gives the same
octets (idempotence).
usage: repair_corpus.py MHTML_CLI CORPUS_DIR TEMP_DIR"""
import hashlib
import json
import pathlib
import shutil
import subprocess
import sys
from email import policy
from email.parser import BytesParser

cli, corpus, tmp = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
shutil.rmtree(tmp, ignore_errors=True)
tmp.mkdir(parents=True)


def mhtml(*args):
    return subprocess.run([cli, *map(str, args)], capture_output=True)


def leaves(path):
    """The decoded leaves of an archive as mhtml reads it: path -> SHA-256 of the octets (text
    and phantom bodies with LF line ends)."""
    ls = json.loads(mhtml("ls", "--json", path).stdout)
    types = {p["path"]: p.get("content_type", "") for p in ls["parts"]}
    out = {}
    for p in ls["parts"]:
        if not p.get("leaf"):
            continue
        data = mhtml("cat", path, p["path"]).stdout
        parent = p["path"].rpartition(".")[0] or "."
        # Text, and the phantom body of an external body (7bit lines, RFC 2046 5.2.3).
        if p.get("content_type", "").startswith("text/") or \
                types.get(parent, "").startswith("message/external-body"):
            data = data.replace(b"\r\n", b"\n")
        out[p["path"]] = hashlib.sha256(data).hexdigest()
    return out


# Labels are written as browsers spell them: a character such as '|' that MHT-4.4.1.1 wants
# %-encoded (or the value RFC 2047-encoded) stays as it is, because Chromium looks parts up
# by the URL as it parses it, with the '|' (the check's finding uri_needs_encoding).
ALLOWED_MUST = {"uri_needs_encoding"}


failed = tried = 0
for src in sorted(corpus.iterdir()):
    if src.suffix.lower() not in (".mht", ".mhtml", ".eml"):
        continue
    tried += 1
    out = tmp / (src.stem + ".mhtml")
    run = mhtml("repair", src, "-o", out, "--json")
    problems = []
    want = leaves(src)
    if not want:
        # Nothing to write (a multipart without parts): refused, and said so.
        if run.returncode != 2 or json.loads(run.stdout)["error"] != "no_parts":
            failed += 1
            print(f"{src.name}: no leaf, but repair said {run.returncode} {run.stdout[:200]!r}")
        continue
    if run.returncode not in (0, 1):
        print(f"{src.name}: exit {run.returncode}: {run.stderr.decode(errors='replace')}")
        failed += 1
        continue
    report = json.loads(run.stdout)
    data = out.read_bytes()
    if b"\n" in data.replace(b"\r\n", b""):
        problems.append("a bare LF in the output")
    msg = BytesParser(policy=policy.default).parsebytes(data)
    for part in msg.walk():
        problems += [f"Python email: {part.get_content_type()}: {d!r}" for d in part.defects]
    check = json.loads(mhtml("check", "--json", out).stdout)
    problems += [f"check: {f['requirement']} {f['message']}" for f in check["findings"]
                 if f["level"] == "error" and f["code"] not in ALLOWED_MUST]
    # Every leaf with its octets, but those the report says it changed or found incomplete.
    changed = set(report["incomplete"]) | {c["part"] for c in report["changes"]
                                           if c["what"] in ("reference_rewritten", "incomplete")}
    got = set(leaves(out).values())
    missing = [p for p, h in want.items() if h not in got and p not in changed]
    if missing:
        problems.append(f"leaves {missing[:5]} of the input are not in the output")
    if len(report["parts"]) != len(want) - len(report["dropped"]):
        problems.append(f"{len(report['parts'])} parts written for {len(want)} leaves")
    again = tmp / (src.stem + ".again.mhtml")
    mhtml("repair", out, "-o", again)
    if again.read_bytes() != data:
        problems.append("not idempotent: repairing the output changes it")
    if problems:
        failed += 1
        print(f"{src.name}:\n  " + "\n  ".join(problems[:8]))
print(f"{tried} archives repaired, {failed} with problems")
sys.exit(1 if failed or not tried else 0)
