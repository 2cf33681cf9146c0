#!/usr/bin/env python3
"""Python's email package (policy=default) reads what `mhtml pack` writes for every test site
(tests/data/sites) with every method, and in mail mode: no defect in any part, and the leaves
are the parts the --json report lists, in order: same content type, same Content-Location and
Content-ID; the decoded octets are the ones mhtml cat gives (text compared with LF line ends)
and, for a leaf that is not a document, the file's exact octets.
usage: python_email_pack.py MHTML_CLI SITES_DIR TEMP_DIR"""
import hashlib
import pathlib
import subprocess
import sys
from email import policy
from email.parser import BytesParser
from urllib.parse import unquote

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import pack_outputs  # noqa: E402

cli, sites, tmp = sys.argv[1:4]


def json_reading(b):
    """The CLI's JSON writes octets that are not UTF-8 as U+00XX: the same reading of `b`."""
    s = b.decode("utf-8", "surrogateescape")
    return "".join(chr(ord(c) - 0xDC00) if 0xDC80 <= ord(c) <= 0xDCFF else c for c in s)


def same_label(got, want):
    """A Content-Location as Python reads it against the label the report gives: folded URLs
    (RFC 2017) lose their white space; RFC 2047 words in the page's charset (a Shift_JIS
    page's file names) are compared as the octets they stand for."""
    if "".join(unquote(got).split()) == "".join(unquote(want).split()):
        return True
    for charset in ("cp932", "cp1252"):
        try:
            if json_reading(got.encode(charset)) == want:
                return True
        except (LookupError, UnicodeError):
            pass
    return False


failed = checked = 0
for site, name, out, report in pack_outputs.pack_all(cli, sites, tmp):
    if report is None:
        failed += 1
        continue
    msg = BytesParser(policy=policy.default).parse(out.open("rb"))
    problems = []
    leaves = []
    for part in msg.walk():
        problems += [f"{part.get_content_type()}: defect {d!r}" for d in part.defects]
        if not part.is_multipart():
            leaves.append(part)
    pairs, more = pack_outputs.pair_leaves(name, leaves, report, lambda p: p.get_content_type())
    problems += more
    for part, want in pairs:
        ctype = want["content_type"].split(";")[0].strip().lower()
        if part.get_content_type() != ctype:
            problems.append(f"{want['origin']}: {part.get_content_type()} != {ctype}")
        loc = part.get("Content-Location")
        if want["label"] and (loc is None or not same_label(str(loc), want["label"])):
            problems.append(f"{want['origin']}: Content-Location {loc!r} != {want['label']!r}")
        cid = part.get("Content-ID")
        if want["content_id"] and (cid is None or str(cid).strip("<> ") != want["content_id"]):
            problems.append(f"{want['origin']}: Content-ID {cid!r} != {want['content_id']!r}")
        data = part.get_payload(decode=True)
        ours = subprocess.run([cli, "cat", str(out), want["path"]], capture_output=True).stdout
        if ctype.startswith("text/"):
            # Python gives text with LF line ends; the writer wrote canonical CRLF.
            data, ours = data.replace(b"\r\n", b"\n"), ours.replace(b"\r\n", b"\n")
        elif ctype in ("image/svg+xml", "application/xhtml+xml"):
            pass  # documents: rewritten with the method
        elif len(data) != want["decoded_size"] or data != (site / want["origin"]).read_bytes():
            problems.append(f"{want['origin']}: decoded octets differ from the file")
        if data != ours:
            problems.append(f"{want['origin']}: Python and mhtml decode different octets")
        checked += 1
    if problems:
        failed += 1
        print(f"{out.name}:\n  " + "\n  ".join(problems))
print(f"{checked} parts checked, {failed} archives failed")
sys.exit(1 if failed or not checked else 0)
