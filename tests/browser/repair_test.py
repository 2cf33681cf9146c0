"""Chromium shows what `mhtml repair` makes of a damaged archive as it shows the clean one
(issue 14).

A clean archive is packed from the `refs` site of pack_test.py (every kind of reference:
images, srcset, picture, style sheets with @import and url(), a web font, an SVG image) with
`--base` set to an http URL, and rendered in headless Chromium as an .mhtml file. Damaged
variants of it are made here, one per kind of damage (and one with several at once); each is
repaired with `mhtml repair`, and the repaired archive must render pixel-identical to the
clean one, ask nothing of any server, have no MUST finding in `mhtml check`, and be read by
Python's email (policy default) with no defect. An archive
cut in its last part is repaired too: the cut part is listed as incomplete, and every image
that survived shows as in the clean archive.
"""

import json
import os
import re
import shutil
import sys
import tempfile
import unittest
from email import policy
from email.parser import BytesParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium  # noqa: E402
import pack_test  # noqa: E402

BASE = "http://127.0.0.1:9/refs/"  # a label only: nothing is fetched from it


def boundary_of(archive: bytes) -> bytes:
    return re.search(rb'boundary="([^"]+)"', archive).group(1)


def parts_of(archive: bytes) -> tuple[bytes, list[bytes], bytes]:
    """Header block, body parts (without their delimiter lines), epilogue."""
    b = boundary_of(archive)
    head, _, rest = archive.partition(b"\r\n--" + b + b"\r\n")
    body, _, tail = rest.partition(b"\r\n--" + b + b"--")
    return head, body.split(b"\r\n--" + b + b"\r\n"), tail


def join_parts(head: bytes, parts: list[bytes], tail: bytes, b: bytes) -> bytes:
    return head + b"\r\n--" + b + b"\r\n" + (b"\r\n--" + b + b"\r\n").join(parts) + \
        b"\r\n--" + b + b"--" + tail


def lf_only(a: bytes) -> bytes:
    return a.replace(b"\r\n", b"\n")


def qp_soft_breaks_lf(a: bytes) -> bytes:
    return a.replace(b"=\r\n", b"=\n")


def base64_lf_and_blanks(a: bytes) -> bytes:
    head, parts, tail = parts_of(a)
    out = []
    for p in parts:
        h, _, body = p.partition(b"\r\n\r\n")
        if b"Content-Transfer-Encoding: base64" in h:
            body = body.replace(b"\r\n", b"  \n")
        out.append(h + b"\r\n\r\n" + body)
    return join_parts(head, out, tail, boundary_of(a))


def no_close_delimiter(a: bytes) -> bytes:
    return a[:a.rindex(b"\r\n--" + boundary_of(a) + b"--")] + b"\r\n"


def bom_and_blank_line(a: bytes) -> bytes:
    return b"\xef\xbb\xbf\r\n" + a


def root_typed_text_plain(a: bytes) -> bytes:
    head, parts, tail = parts_of(a)
    parts[0] = parts[0].replace(b"Content-Type: text/html", b"Content-Type: text/plain", 1)
    head = head.replace(b'type="text/html"', b'type="text/plain"', 1)
    return join_parts(head, parts, tail, boundary_of(a))


def root_not_first(a: bytes) -> bytes:
    head, parts, tail = parts_of(a)
    parts = parts[1:2] + parts[:1] + parts[2:]
    head = head.replace(b'type="text/html"', b'type="text/css"', 1)
    return join_parts(head, parts, tail, boundary_of(a))


def wrapped_in_message(a: bytes) -> bytes:
    return b"MIME-Version: 1.0\r\nSubject: Fwd\r\nContent-Type: message/rfc822\r\n\r\n" + a


def base64_bad_character(a: bytes) -> bytes:
    """A character outside the alphabet in the middle of every base64 body (skipped)."""
    head, parts, tail = parts_of(a)
    out = []
    for p in parts:
        h, _, body = p.partition(b"\r\n\r\n")
        if b"Content-Transfer-Encoding: base64" in h and len(body) > 8:
            body = body[:4] + b"*" + body[4:]
        out.append(h + b"\r\n\r\n" + body)
    return join_parts(head, out, tail, boundary_of(a))


def transport_padding(a: bytes) -> bytes:
    """White space after every delimiter line (RFC 2046 allows it; strict readers do not)."""
    b = boundary_of(a)
    return a.replace(b"\r\n--" + b + b"\r\n", b"\r\n--" + b + b" \t \r\n")


def top_type_text_plain(a: bytes) -> bytes:
    """The message typed text/plain over its multipart body."""
    return re.sub(rb"Content-Type: multipart/related;\r\n type=\"text/html\";\r\n "
                  rb"boundary=\"[^\"]+\"", b"Content-Type: text/plain", a, count=1)


def relative_labels(a: bytes) -> bytes:
    """Every label relative, resolved by a Content-Base on the multipart."""
    head, _, rest = a.partition(b"\r\n\r\n")
    head = head.replace(b"Content-Type: multipart/related;",
                        b"Content-Base: " + BASE.encode() + b"\r\nContent-Type: multipart/related;", 1)
    return head + b"\r\n\r\n" + rest.replace(b"Content-Location: " + BASE.encode(),
                                             b"Content-Location: ")


def file_labels(a: bytes) -> bytes:
    """Labels (and so the base of every reference) file: URLs."""
    return a.replace(BASE.encode(), b"file:///srv/saved/refs/")


def label_fragments(a: bytes) -> bytes:
    """Every image labelled with a fragment the references do not have."""
    return re.sub(rb"(Content-Location: [^\r]*\.(?:png|svg))\r\n", rb"\1#top\r\n", a)


def decoy_html_first(a: bytes) -> bytes:
    """An HTML part before the root, which `start` names (Chromium takes the first)."""
    head, parts, tail = parts_of(a)
    h, _, body = parts[0].partition(b"\r\n\r\n")
    root = h + b"\r\nContent-ID: <root@repair.test>\r\n\r\n" + body
    decoy = (b"Content-Type: text/html\r\nContent-Location: " + BASE.encode() +
             b"decoy.html\r\n\r\n<p>a decoy page</p>")
    head = head.replace(b'type="text/html";', b'type="text/html";\r\n start="<root@repair.test>";', 1)
    return join_parts(head, [decoy, root] + parts[1:], tail, boundary_of(a))


def named_txt(a: bytes) -> bytes:
    """The archive as it is, in a file named .txt (Chromium shows it as text)."""
    return a


named_txt.suffix = ".txt"


def named_html(a: bytes) -> bytes:
    """The archive as it is, in a file named .html (Chromium shows its source as a page)."""
    return a


named_html.suffix = ".html"


def combined(a: bytes) -> bytes:
    return lf_only(bom_and_blank_line(no_close_delimiter(root_typed_text_plain(a))))


DAMAGES = [lf_only, qp_soft_breaks_lf, base64_lf_and_blanks, no_close_delimiter,
           bom_and_blank_line, root_typed_text_plain, root_not_first, wrapped_in_message,
           decoy_html_first, named_txt, named_html, base64_bad_character, transport_padding,
           top_type_text_plain, relative_labels, file_labels, label_fragments, combined]


class RepairRendersAsClean(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="mhtml-repair-")
        site = os.path.join(cls.work, "refs")
        for path, data in pack_test.sites()["refs"].items():
            full = os.path.join(site, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(data)
        cls.clean = os.path.join(cls.work, "clean.mhtml")
        # 1: the site names a missing image on purpose.
        pack_test.run_mhtml("pack", site, "--base", BASE, "-o", cls.clean, ok=(0, 1))
        with open(cls.clean, "rb") as f:
            cls.clean_bytes = f.read()
        cls.browser = chromium.Browser()
        cls.reference = cls.browser.render("file://" + cls.clean, timeout=90)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_clean_archive_shows_its_images(self):
        # The reference is a real page: its images loaded from the archive.
        self.assertEqual(self.reference.network, [])
        self.assertGreater(len(self.reference.from_cache) + len(self.reference.requests), 5)

    def test_truncated_archive_shows_what_survived(self):
        # Cut in the middle of the last part (the web font): every image survived, and the
        # repaired archive shows each as the clean one does; the cut part is listed.
        last = self.clean_bytes.rindex(b"Content-Location: ")
        cut = self.clean_bytes[:last + (len(self.clean_bytes) - last) // 2]
        bad = os.path.join(self.work, "truncated.mht")
        out = os.path.join(self.work, "truncated.repaired.mhtml")
        with open(bad, "wb") as f:
            f.write(cut)
        done = pack_test.run_mhtml("repair", bad, "-o", out, "--json", ok=(1,))
        report = json.loads(done.stdout)
        self.assertEqual(len(report["incomplete"]), 1, report["incomplete"])
        shown = "[...document.images].map(i => [i.getAttribute('src'), i.naturalWidth])"
        clean = self.browser.render("file://" + self.clean, timeout=90, evaluate=shown)
        r = self.browser.render("file://" + out, timeout=90, evaluate=shown)
        self.assertEqual(r.network, [])
        self.assertEqual(r.evaluated, clean.evaluated)
        self.assertGreaterEqual(sum(1 for _, w in clean.evaluated if w > 0), 4)

    def test_repaired_variants_render_as_the_clean_archive(self):
        for damage in DAMAGES:
            with self.subTest(damage=damage.__name__):
                bad = os.path.join(self.work, damage.__name__ + getattr(damage, "suffix", ".mht"))
                out = os.path.join(self.work, damage.__name__ + ".repaired.mhtml")
                with open(bad, "wb") as f:
                    f.write(damage(self.clean_bytes))
                report = json.loads(pack_test.run_mhtml("repair", bad, "-o", out, "--json",
                                              ok=(0, 1)).stdout)
                check = json.loads(pack_test.run_mhtml("check", "--json", out, ok=(0, 1)).stdout)
                must = [f for f in check["findings"] if f["level"] == "error"]
                self.assertEqual(must, [], f"{damage.__name__}: MUST findings")
                with open(out, "rb") as f:
                    message = BytesParser(policy=policy.default).parse(f)
                defects = [(p.get_content_type(), d) for p in message.walk() for d in p.defects]
                self.assertEqual(defects, [], f"{damage.__name__}: Python's email")
                r = self.browser.render("file://" + out, timeout=90)
                self.assertEqual(r.network, [], f"{damage.__name__}: asked a server")
                diff = chromium.compare_png(self.reference.png, r.png)
                if not diff.identical:
                    with open(bad, "rb") as f:
                        damaged = f.read()
                    with open(out, "rb") as f:
                        repaired = f.read()
                    chromium.keep_artifacts(
                        "repair", damage.__name__,
                        {"clean.png": self.reference.png, "repaired.png": r.png,
                         "damaged.mht": damaged, "repaired.mhtml": repaired,
                         "report.json": json.dumps(report).encode()},
                        diff=(self.reference.png, r.png))
                self.assertTrue(diff.identical,
                                f"{damage.__name__}: {diff.differing_pixels} pixels differ from "
                                f"the clean archive in {diff.bbox}")


if __name__ == "__main__":
    unittest.main()
