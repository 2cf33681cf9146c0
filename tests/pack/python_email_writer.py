#!/usr/bin/env python3
"""Python's email package (policy=default) reads what pack::writer wrote: no defects in any
part, and the leaves (type, SHA-256 of the decoded content) are the ones written.
usage: python_email_writer.py WRITE_SAMPLES_PROGRAM TEMP_DIR"""
import hashlib
import pathlib
import shutil
import subprocess
import sys
from email import policy
from email.parser import BytesParser

program, tmp = sys.argv[1], pathlib.Path(sys.argv[2])
shutil.rmtree(tmp, ignore_errors=True)
subprocess.run([program, str(tmp)], check=True)
failed = 0
samples = sorted(tmp.glob("*.mhtml"))
for path in samples:
    msg = BytesParser(policy=policy.default).parse(path.open("rb"))
    got, defects = [], []
    for part in msg.walk():
        defects += [f"{part.get_content_type()}: {d!r}" for d in part.defects]
        if part.get_content_type() == "message/external-body":
            got.append(("message/external-body", "-"))
            continue
        if part.is_multipart() or (part.get_content_maintype() == "message"):
            continue
        data = part.get_payload(decode=True)
        if part.get_content_maintype() == "text":
            data = data.replace(b"\r\n", b"\n")
        got.append((part.get_content_type(), hashlib.sha256(data).hexdigest()))
    # The phantom header inside an external body is a part of its own for Python: skip it.
    cleaned, skip = [], False
    for t in got:
        if skip:
            skip = False
            continue
        cleaned.append(t)
        skip = t[0] == "message/external-body"
    want = [tuple(l.split()) for l in path.with_suffix(".expect").read_text().splitlines()]
    if defects or cleaned != want:
        failed += 1
        print(f"{path.name}: defects={defects}\n  got ={cleaned}\n  want={want}")
print(f"{len(samples) - failed} passed, {failed} failed")
sys.exit(1 if failed or not samples else 0)
