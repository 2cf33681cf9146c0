#!/usr/bin/env python3
"""`mhtml extract` and `mhtml inline` checked in a real browser (issue: reading outputs).

Every archive of the corpus that Chromium wrote ("From: <Saved by Blink>") is rendered three
ways in headless Chromium (chromium.py): the archive itself, `index.html` (the manifest's
root) of its extracted folder, and its inlined HTML file. Scripts are off in all three, as
Chromium never runs an archive's scripts. The three screenshots must be pixel-identical, or
differ only as EXPLAINED below says, and that is checked too:

- "form_controls": Chromium draws the form controls of an archive disabled (greyed), because
  it never lets an archive's forms be used; extracted and inlined pages are ordinary pages
  whose controls are enabled. Every differing pixel must lie in the box of a form control
  (input, button, select, textarea) of the archive's rendering, or within 3 px of one.
- "chromium_blank": Chromium shows an empty white page where mhtml recovers the content (a
  missing close delimiter, a header block that ends early, a text/plain-only archive). The
  archive's rendering must be plain white, the other two must show something, and they must
  be identical to each other.
- "frame_base": Chromium loads a frame of an archive from its cid:frame-... URL, which becomes
  the frame's base, so the relative references Blink left in the frame (its <style> sheets)
  name nothing; mhtml resolves them against the frame's Content-Location, which is what the
  live page showed (tests/browser/blink_test.py compares with the live page). Every differing
  pixel must lie in the listed boxes, each box must differ, and extracted and inlined must be
  identical to each other.

Also: opening an `--offline` extraction or inlining makes no request that needs a server
(Rendering.network is empty), for every Blink archive.

Every render comparison is made REPEAT times (default 1), each time in a new Chromium: any
difference between two runs of the same render fails the test, so that a page whose rendering
depends on timing is found here rather than as a rare failure elsewhere (REPEAT=5 before a
change to the harness or to what extract and inline write).

Environment: MHTML_BIN (the mhtml executable), MHTML_TEST_DATA (tests/data), REPEAT, and
optionally MHTML_BROWSER_ARTIFACTS, a folder where screenshots and diff images of failures
are kept.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium  # noqa: E402

MHTML = os.environ.get("MHTML_BIN", "mhtml")
CORPUS = os.path.join(os.environ.get("MHTML_TEST_DATA", "tests/data"), "corpus")
ARTIFACTS = os.environ.get("MHTML_BROWSER_ARTIFACTS")
REPEAT = int(os.environ.get("REPEAT", "1"))

EXPLAINED = {
    "chromium__chromeos_file_manager_page.mhtml": (
        "chromium_blank", "its only part is text/plain; Chromium takes no main resource and "
        "shows nothing, mhtml shows the text"),
    "chromium__malformed_mhtml_no_footer.mht": (
        "chromium_blank", "no close delimiter: Chromium refuses the archive, mhtml reads the "
        "image up to the end of the input (a diagnostic says so)"),
    "mhtml2html__portfolio.mhtml": (
        "chromium_blank", "a header line without a colon ends the header block early (as "
        "Python's email reads it), so the message is text/plain; Chromium shows nothing"),
    "mhtml2html__iframes.mhtml": ("form_controls", "a search field and a button"),
    "testim__hn.mhtml": ("form_controls", "the search field"),
    "testim__marketwatch.mhtml": ("form_controls", "buttons in the header"),
    "blink__frames.mhtml": ("frame_base", "the <style> backgrounds of the frame and of the "
                            "frame inside it"),
}
# For "frame_base": the boxes (x0, y0, x1, y1, ends exclusive) where mhtml shows the live page.
FRAME_BASE_BOXES = {"blink__frames.mhtml": [(8, 8, 28, 28), (52, 8, 72, 28)]}

# The boxes of the form controls of the page (its own; frames keep theirs, and the pages
# here have none that differ), in page coordinates.
CONTROL_BOXES = """
Array.from(document.querySelectorAll('input, button, select, textarea')).map(e => {
  const r = e.getBoundingClientRect();
  return [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY];
}).filter(b => b[2] > b[0] && b[3] > b[1])
"""


def blink_archives() -> list[str]:
    out = []
    for name in sorted(os.listdir(CORPUS)):
        path = os.path.join(CORPUS, name)
        if name.endswith((".tsv", ".md")):
            continue
        with open(path, "rb") as f:
            if b"Saved by Blink" in f.read(4096):
                out.append(name)
    return out


def run_mhtml(*args: str) -> None:
    done = subprocess.run([MHTML, *args], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise AssertionError(f"mhtml {' '.join(args)} failed ({done.returncode}): {done.stderr}")


def differing_pixels(a: bytes, b: bytes) -> list[tuple[int, int]]:
    wa, ha, ra = chromium.decode_png(a)
    wb, hb, rb = chromium.decode_png(b)
    assert (wa, ha) == (wb, hb), f"sizes differ: {wa}x{ha} and {wb}x{hb}"
    out = []
    for y in range(ha):
        if ra[y] == rb[y]:
            continue
        row_a, row_b = ra[y], rb[y]
        for x in range(wa):
            if row_a[4 * x:4 * x + 4] != row_b[4 * x:4 * x + 4]:
                out.append((x, y))
    return out


def is_uniform(png: bytes) -> bool:
    _, _, rows = chromium.decode_png(png)
    first = rows[0][:4]
    return all(row == first * (len(row) // 4) for row in rows)


class ViewsInChromium(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.archives = blink_archives()
        cls.work = tempfile.mkdtemp(prefix="mhtml-views-")
        cls.browser = chromium.Browser()
        cls.browser.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.browser.__exit__(None, None, None)
        shutil.rmtree(cls.work, ignore_errors=True)

    def keep(self, name: str, files: dict[str, bytes]) -> None:
        if not ARTIFACTS:
            return
        folder = os.path.join(ARTIFACTS, name)
        os.makedirs(folder, exist_ok=True)
        for file, data in files.items():
            with open(os.path.join(folder, file), "wb") as f:
                f.write(data)

    def prepare(self, name: str, *options: str) -> tuple[str, str, str]:
        """The archive (as .mhtml, whose extension Chromium needs), its extracted root and its
        inlined page, made with `options`."""
        folder = os.path.join(self.work, name + "".join(options))
        os.makedirs(folder)
        archive = os.path.join(folder, "archive.mhtml")
        shutil.copyfile(os.path.join(CORPUS, name), archive)
        run_mhtml("extract", *options, archive, "-o", os.path.join(folder, "extracted"))
        with open(os.path.join(folder, "extracted", "manifest.json")) as f:
            root = json.load(f)["root"]
        run_mhtml("inline", *options, archive, "-o", os.path.join(folder, "inlined.html"))
        return (archive, os.path.join(folder, "extracted", root),
                os.path.join(folder, "inlined.html"))

    def render_three_ways(self, name: str, paths: dict[str, str]) -> tuple[dict, list]:
        """The screenshots of the archive, extracted and inlined forms, and the form control
        boxes of the archive's rendering; rendered REPEAT times, each run after the first in
        a new Chromium, and failing on any difference between runs."""
        first: dict[str, bytes] = {}
        controls = []
        for run in range(REPEAT):
            browser = self.browser if run == 0 else chromium.Browser()
            try:
                for label, path in paths.items():
                    r = browser.render("file://" + path, timeout=90,
                                       evaluate=CONTROL_BOXES if label == "archive" else None)
                    if run == 0:
                        first[label] = r.png
                        if label == "archive":
                            controls = r.evaluated or []
                        continue
                    change = chromium.compare_png(first[label], r.png)
                    if not change.identical:
                        self.keep(name, {f"{label}-run0.png": first[label],
                                         f"{label}-run{run}.png": r.png})
                    self.assertTrue(change.identical, f"{label}: run {run} differs from run 0 "
                                    f"in {change.differing_pixels} pixels in {change.bbox}")
            finally:
                if run:
                    browser.close()
        return first, controls

    def test_blink_archives_render_the_same_three_ways(self):
        self.assertGreaterEqual(len(self.archives), 8)
        for name in self.archives:
            with self.subTest(archive=name):
                archive, extracted, inlined = self.prepare(name)
                kind, why = EXPLAINED.get(name, ("identical", ""))
                shots, controls = self.render_three_ways(
                    name, {"archive": archive, "extracted": extracted, "inlined": inlined})
                for label in ("extracted", "inlined"):
                    diff = chromium.compare_png(shots["archive"], shots[label])
                    if not diff.identical:
                        self.keep(name, {"archive.png": shots["archive"], f"{label}.png": shots[label]})
                        if ARTIFACTS:
                            chromium.write_diff_png(shots["archive"], shots[label],
                                                    os.path.join(ARTIFACTS, name, f"diff-{label}.png"))
                    if kind == "identical":
                        self.assertTrue(diff.identical, f"{label}: {diff.differing_pixels} pixels "
                                        f"differ in {diff.bbox}")
                    elif kind == "form_controls":
                        self.assertTrue(diff.same_size, f"{label}: sizes differ")
                        self.assertGreater(diff.differing_pixels, 0, "no longer differs: update "
                                           "EXPLAINED")
                        boxes = [(b[0] - 3, b[1] - 3, b[2] + 3, b[3] + 3) for b in controls]
                        outside = [(x, y) for x, y in differing_pixels(shots["archive"], shots[label])
                                   if not any(x0 <= x < x1 and y0 <= y < y1
                                              for x0, y0, x1, y1 in boxes)]
                        self.assertEqual(outside[:10], [], f"{label}: {len(outside)} differing "
                                         f"pixels lie outside every form control ({why})")
                    elif kind == "frame_base":
                        pixels = differing_pixels(shots["archive"], shots[label])
                        boxes = FRAME_BASE_BOXES[name]
                        outside = [(x, y) for x, y in pixels
                                   if not any(x0 <= x < x1 and y0 <= y < y1
                                              for x0, y0, x1, y1 in boxes)]
                        self.assertEqual(outside[:10], [], f"{label}: {len(outside)} differing "
                                         f"pixels lie outside the listed boxes ({why})")
                        for x0, y0, x1, y1 in boxes:
                            self.assertTrue(any(x0 <= x < x1 and y0 <= y < y1 for x, y in pixels),
                                            f"{label}: box {(x0, y0, x1, y1)} no longer differs: "
                                            "update EXPLAINED")
                    elif kind == "chromium_blank":
                        self.assertTrue(is_uniform(shots["archive"]), "Chromium shows the "
                                        "archive now: update EXPLAINED")
                        self.assertFalse(is_uniform(shots[label]), f"{label} shows nothing")
                if kind != "identical":
                    both = chromium.compare_png(shots["extracted"], shots["inlined"])
                    self.assertTrue(both.identical, f"extracted and inlined differ: "
                                    f"{both.differing_pixels} pixels in {both.bbox}")

    def test_offline_results_make_no_request(self):
        for name in self.archives:
            with self.subTest(archive=name):
                _, extracted, inlined = self.prepare(name, "--offline")
                for label, path in (("extracted", extracted), ("inlined", inlined)):
                    r = self.browser.render("file://" + path, timeout=90)
                    self.assertEqual(r.network, [], f"{label} --offline asked the network")
                    self.assertEqual([u for u in r.requests if not u.startswith("file:")], [],
                                     f"{label} --offline requested something not local")

    def test_objects_show_as_in_chromium(self):
        # Chromium's view of an archive shows an <object> or <embed> of an image, an SVG or an
        # HTML document of the archive, and the fallback of one that needs a plugin (a PDF):
        # so do the outputs, whose policy allows the archive's own parts as objects.
        red = chromium.encode_png(40, 30, [b"\xff\x00\x00\xff" * 40] * 30)
        parts = [
            ("img.png", "image/png", "base64", base64.encodebytes(red).decode()),
            ("pic.svg", "image/svg+xml", "8bit",
             '<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50">'
             '<rect width="50" height="50" fill="blue"/></svg>'),
            ("frame.html", "text/html", "8bit",
             '<body style="margin:0;background:rgb(0,128,0)">frame</body>'),
            ("doc.pdf", "application/pdf", "base64", base64.encodebytes(b"%PDF-1.4\n").decode()),
        ]
        lines = ["From: <Saved by Blink>", "MIME-Version: 1.0",
                 'Content-Type: multipart/related; type="text/html"; boundary="b"', "",
                 "--b", "Content-Type: text/html", "Content-Location: http://x.example/", "",
                 '<!DOCTYPE html><body style="margin:0">'
                 '<object data="img.png" width="40" height="30"></object>'
                 '<object data="pic.svg" type="image/svg+xml" width="50" height="50"></object>'
                 '<embed src="pic.svg" width="50" height="50">'
                 '<object data="frame.html" width="80" height="40"></object>'
                 '<object data="doc.pdf" type="application/pdf" width="80" height="40">'
                 '<span style="background:rgb(255,255,0)">fallback</span></object>']
        for location, content_type, encoding, text in parts:
            lines += ["--b", f"Content-Type: {content_type}",
                      f"Content-Transfer-Encoding: {encoding}",
                      f"Content-Location: http://x.example/{location}", "",
                      *(text.split() if encoding == "base64" else [text])]
        lines += ["--b--", ""]
        folder = os.path.join(self.work, "objects")
        os.makedirs(folder)
        path = os.path.join(folder, "objects.mhtml")
        with open(path, "wb") as f:
            f.write("\r\n".join(lines).encode())
        run_mhtml("extract", path, "-o", os.path.join(folder, "extracted"))
        run_mhtml("inline", path, "-o", os.path.join(folder, "inlined.html"))
        shots = self.render_three_ways("objects", {
            "archive": path, "extracted": os.path.join(folder, "extracted", "index.html"),
            "inlined": os.path.join(folder, "inlined.html")})[0]
        _, _, rows = chromium.decode_png(shots["archive"])
        self.assertEqual(rows[40][4 * 10:4 * 10 + 3], b"\xff\x00\x00", "no image object")
        yellow = [x for y in range(60) for x in range(400)
                  if rows[y][4 * x:4 * x + 3] == b"\xff\xff\x00"]
        self.assertTrue(yellow, "the PDF object's fallback is not shown")
        for label in ("extracted", "inlined"):
            diff = chromium.compare_png(shots["archive"], shots[label])
            if not diff.identical:
                self.keep("objects", {"archive.png": shots["archive"],
                                      f"{label}.png": shots[label]})
            self.assertTrue(diff.identical, f"{label}: {diff.differing_pixels} pixels differ "
                            f"in {diff.bbox}")

    def test_scripts_run_only_when_allowed(self):
        # A page whose script would mark it; inline blocks it unless --allow-scripts.
        folder = os.path.join(self.work, "scripts")
        os.makedirs(folder)
        archive = os.path.join(folder, "s.mhtml")
        with open(archive, "wb") as f:
            f.write(b"\r\n".join([
                b"From: <Saved by test>", b"MIME-Version: 1.0",
                b'Content-Type: multipart/related; type="text/html"; boundary="b"', b"",
                b"--b", b"Content-Type: text/html; charset=utf-8",
                b"Content-Location: http://x.example/", b"",
                b"<!DOCTYPE html><body style='background:white'>"
                b"<script>document.body.style.background='rgb(0,128,0)'</script>",
                b"--b--", b""]))
        for allow, green in ((False, False), (True, True)):
            out = os.path.join(folder, f"page-{allow}.html")
            run_mhtml("inline", *(["--allow-scripts"] if allow else []), archive, "-o", out)
            r = self.browser.render("file://" + out, scripts=True, timeout=60)
            _, _, rows = chromium.decode_png(r.png)
            pixel = rows[10][40:44]
            self.assertEqual(pixel[:3] == bytes([0, 128, 0]), green,
                             f"allow_scripts={allow}: pixel {list(pixel)}")


if __name__ == "__main__":
    unittest.main()
