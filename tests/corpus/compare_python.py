#!/usr/bin/env python3
"""Compare mhtml's reading of every corpus file with Python's email package.

For each file: Python's leaves are the non-multipart parts of
BytesParser(policy=policy.default).parsebytes(data).walk(), each with
get_content_type() and the SHA-256 of get_payload(decode=True). Ours come from
`mhtml ls --json --hash FILE` (leaf parts in depth-first order). The two lists must be
equal, or differ only by one of the documented rules below, where the RFCs (and GMime, as
the tie-breaker) say mhtml is right; a rule recomputes what Python would give under the
RFC reading and must then match exactly, so any other change in either reader is noticed.

usage: compare_python.py MHTML_BINARY CORPUS_DIR
A RULES.tsv in CORPUS_DIR names files that must differ by exactly the rules it gives.
Prints one line per file and a closing line "N passed, M failed".
"""
import binascii
import hashlib
import json
import re
import os
import subprocess
import sys
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser

# Where the two readers differ by rule. Each rule is applied to Python's answer only where
# the plain comparison fails, and is reported by name, so every difference is explained.
#
# qp_trailing_whitespace: RFC 2045 6.7 rule (3): "when decoding a Quoted-Printable body,
#   any trailing white space on a line must be deleted". Python's binascii.a2b_qp keeps it,
#   and so does GMime 3.2 (its decoded sizes, from the bench kit's gmime_read with
#   MHTBENCH_VERBOSE=1: 31 octets where mhtml has 30 for mailparser__nested.eml part 1.1.1);
#   mhtml follows the RFC, as Dovecot does. The rule recomputes Python's answer with a2b_qp
#   after deleting trailing white space before each line end.
# multipart_without_delimiters: RFC 2046 5.1 has no fallback for a multipart whose
#   boundary never occurs. Python degrades it to a single non-multipart part
#   (StartBoundaryNotFoundDefect) with the raw body as content; GMime keeps an empty
#   multipart, and so does mhtml (diagnostic boundary_not_found), except where the body
#   is itself one entity (headers first): mhtml then reads it as that one body part
#   (diagnostic multipart_no_parts, severity ambiguous). The rule drops Python's multipart
#   leaves and, for the files listed in SALVAGED_ONE_PART, mhtml's salvaged part.
#
# Three more rules are readings where mhtml follows the RFCs (or what the producer meant)
# and Python does not. Each is applied by parsing again with Python itself, told to read
# that construct as mhtml does (RfcReading below), so the octets are still Python's:
# message_with_encoding: RFC 2046 5.2.1 forbids base64 and quoted-printable on
#   message/rfc822, but Outlook attaches mail that way. Python (3.11) parses the encoded
#   text itself as the message: a header-less text/plain leaf holding the base64 text
#   (MissingHeaderBodySeparatorDefect). mhtml decodes the body and parses the message in it
#   (diagnostic message_with_encoding; message/global, news and external-body likewise, and
#   message/global without a diagnostic, RFC 6532 3.5 allows it). The rule reads such a
#   part as a leaf, decodes it with Python and takes the leaves Python finds in the
#   decoded message.
# delivery_status_leaf: RFC 3464 2.1 message/delivery-status is a body of header-style
#   field groups, not a message. Python splits it into one header-only text/plain part per
#   group (empty payloads); mhtml keeps it as one leaf whose decoded body is those groups as
#   written. The rule makes Python read it as a leaf.
# unquoted_boundary_with_equals: RFC 2045 5.1 says a parameter value with tspecials such
#   as "=" must be quoted, but Outlook Express and Internet Explorer wrote
#   boundary=----=_NextPart_... unquoted. Python reads that boundary as "----" and finds no
#   delimiter (the multipart becomes one leaf, StartBoundaryNotFoundDefect); mhtml reads
#   the value up to ";" or white space (diagnostic parameter_needs_quoting), as those
#   producers meant. The rule gives Python that boundary.
SALVAGED_ONE_PART = {"mhtml2html__missing_boundary.mhtml"}

TRAILING_WS = re.compile(rb"[ \t]+(?=\r?\n|\r|$)")


# message/* types mhtml parses as an encapsulated message (src/mime/parser.cpp add_type).
ENCAPSULATING = {"message/rfc822", "message/global", "message/news", "message/external-body"}
UNQUOTED_BOUNDARY = re.compile(r'(?:^|;)\s*boundary\s*=\s*([^"\s;][^\s;]*)', re.I)
FIRED = set()  # the rules RfcReading applied during the last parse


def real_type(part):
    return Message.get_content_type(part)


def encoded_message(part):
    cte = str(part.get("content-transfer-encoding", "")).strip().lower()
    return real_type(part) in ENCAPSULATING and cte in ("base64", "quoted-printable")


class RfcReading(EmailMessage):
    """Python's email, reading the three constructs of the rules above as mhtml does."""

    def get_content_type(self):
        real = super().get_content_type()
        if real == "message/delivery-status":
            FIRED.add("delivery_status_leaf")
            return "application/x-delivery-status"  # anything that is not message/*
        if encoded_message(self):
            FIRED.add("message_with_encoding")
            return "application/x-encoded-message"
        return real

    def get_boundary(self, failobj=None):
        found = super().get_boundary(failobj)
        raw = next((v for k, v in self.raw_items() if k.lower() == "content-type"), "")
        m = UNQUOTED_BOUNDARY.search(str(raw))
        if m and "=" in m.group(1) and m.group(1) != found:
            FIRED.add("unquoted_boundary_with_equals")
            return m.group(1)
        return found


def python_leaves(data, rfc=False):
    """(content type, SHA-256, SHA-256 under the qp rule or None) of each leaf. With `rfc`,
    parsed with RfcReading; the rules it applied are added to FIRED."""
    pol = policy.default.clone(message_factory=RfcReading) if rfc else policy.default
    msg = BytesParser(policy=pol).parsebytes(data)
    out = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        payload = part.get_payload(decode=True)
        if payload is None:
            payload = b""
        if rfc and encoded_message(part):
            out.extend(python_leaves(payload, rfc=True))  # the leaves of the decoded message
            continue
        alt = None
        if str(part.get("content-transfer-encoding", "")).strip().lower() == "quoted-printable":
            text = part.get_payload(decode=False)
            try:
                raw = text.encode("ascii", "surrogateescape")
            except UnicodeEncodeError:  # payload already decoded from 8-bit text
                raw = text.encode("utf-8", "surrogateescape")
            alt = hashlib.sha256(binascii.a2b_qp(TRAILING_WS.sub(b"", raw))).hexdigest()
        out.append((real_type(part), hashlib.sha256(payload).hexdigest(), alt))
    return out


def explain(name, ours, data):
    """Applies the documented rules; returns (ok, [rule names used])."""
    FIRED.clear()
    theirs = python_leaves(data, rfc=True)
    rules = sorted(FIRED)
    if any(t[0].startswith("multipart/") for t in theirs):
        theirs = [t for t in theirs if not t[0].startswith("multipart/")]
        if name in SALVAGED_ONE_PART:
            ours = ours[1:]
        rules.append("multipart_without_delimiters")
    if len(ours) != len(theirs):
        return False, rules
    for a, t in zip(ours, theirs):
        if a == t[:2]:
            continue
        if t[2] is not None and a == (t[0], t[2]):
            if "qp_trailing_whitespace" not in rules:
                rules.append("qp_trailing_whitespace")
            continue
        return False, rules
    return True, rules


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
    # RULES.tsv, where present: "file<TAB>rule, rule" for files that must differ by exactly
    # those rules (so that each rule is seen to apply, not only to be harmless).
    expected = {}
    rules_file = os.path.join(corpus, "RULES.tsv")
    if os.path.exists(rules_file):
        with open(rules_file, encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    file, want = line.rstrip("\n").split("\t")
                    expected[file] = want
    passed = failed = 0
    for name in names:
        with open(os.path.join(corpus, name), "rb") as f:
            data = f.read()
        ours = our_leaves(binary, os.path.join(corpus, name))
        theirs = python_leaves(data)
        rules = []
        if ours == [t[:2] for t in theirs]:
            ok, status = True, "ok"
        else:
            ok, rules = explain(name, ours, data)
            status = ("ok, differs by rule: " + ", ".join(rules)) if ok else "FAIL"
        if ok and name in expected and ", ".join(rules) != expected[name]:
            ok, status = False, f"FAIL: expected to differ by rule: {expected[name]}; {status}"
        if ok:
            passed += 1
        else:
            failed += 1
        print(f"{name}: {len(ours)} leaves: {status}")
        if not ok:
            n = max(len(ours), len(theirs))
            for i in range(n):
                a = ours[i] if i < len(ours) else None
                b = theirs[i][:2] if i < len(theirs) else None
                mark = "  " if a == b else "!="
                print(f"   {mark} leaf {i + 1}: mhtml={a} python={b}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
