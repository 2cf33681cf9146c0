#!/usr/bin/env python3
"""GMime 3 reads what `mhtml pack` writes for every test site (tests/data/sites) with every
method, and in mail mode (tests/pack/gmime_parts.c prints how GMime reads a file): GMime's
parser reports no warning at all, and its leaves are the parts the --json report lists, in
order, with the same content type, Content-Location and Content-ID, and decoded octets equal
to what `mhtml cat` gives for that part (SHA-256 of the exact octets, line ends included).
usage: gmime_pack.py MHTML_CLI GMIME_PARTS SITES_DIR TEMP_DIR"""
import hashlib
import pathlib
import subprocess
import sys
from email.header import decode_header
from urllib.parse import unquote

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import pack_outputs  # noqa: E402

cli, gmime, sites, tmp = sys.argv[1:5]


def same_label(got, want):
    """GMime's Content-Location against the report's label: white space of a folded URL
    (RFC 2017) is not part of it; RFC 2047 words (a name in a page's legacy charset) are
    compared as the octets they stand for, which the report's JSON gives as U+00XX."""
    def norm(s):
        return "".join(unquote(s).split())
    if norm(got) == norm(want):
        return True
    try:
        raw = b"".join(p if isinstance(p, bytes) else p.encode("latin-1")
                       for p, _ in decode_header(got))
    except (ValueError, UnicodeError):
        return False
    return norm(raw.decode("utf-8", "replace")) == norm(want) or \
        raw.decode("latin-1") == want


failed = checked = 0
for site, name, out, report in pack_outputs.pack_all(cli, sites, tmp):
    if report is None:
        failed += 1
        continue
    g = subprocess.run([gmime, str(out)], capture_output=True)
    problems = []
    if g.returncode != 0:
        problems.append(f"gmime_parts exit {g.returncode}: {g.stderr.decode(errors='replace')}")
    lines = [l.split("\t") for l in g.stdout.decode("utf-8", "surrogateescape").splitlines()]
    problems += [f"GMime warning {w[1]} at {w[2]}: {w[3]}" for w in lines if w[0] == "warning"]
    pairs, more = pack_outputs.pair_leaves(name, [l for l in lines if l[0] == "leaf"], report,
                                           lambda leaf: leaf[1])
    problems += more
    for (_, ctype, loc, cid, size, digest), want in pairs:
        wtype = want["content_type"].split(";")[0].strip().lower()
        if ctype.lower() != wtype:
            problems.append(f"{want['origin']}: {ctype} != {wtype}")
        if want["label"] and (loc == "-" or not same_label(loc, want["label"])):
            problems.append(f"{want['origin']}: Content-Location {loc!r} != {want['label']!r}")
        if want["content_id"] and cid.strip("<> ") != want["content_id"]:
            problems.append(f"{want['origin']}: Content-ID {cid!r} != {want['content_id']!r}")
        ours = subprocess.run([cli, "cat", str(out), want["path"]], capture_output=True).stdout
        if int(size) != len(ours) or digest != hashlib.sha256(ours).hexdigest():
            problems.append(f"{want['origin']}: GMime decodes {size} octets, mhtml cat "
                            f"{len(ours)}, or they differ")
        if int(size) != want["decoded_size"]:
            problems.append(f"{want['origin']}: GMime decodes {size} octets, the report "
                            f"says {want['decoded_size']}")
        checked += 1
    if problems:
        failed += 1
        print(f"{out.name}:\n  " + "\n  ".join(problems))
print(f"{checked} parts checked, {failed} archives failed")
sys.exit(1 if failed or not checked else 0)
