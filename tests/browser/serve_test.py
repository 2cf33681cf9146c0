"""`mhtml serve` seen by headless Chromium (issue 15).

The real corpus (tests/data/corpus; PROVENANCE.md) is served by one `mhtml serve` on
127.0.0.1 and a free port, started and stopped here. For every archive Blink wrote ("Saved by
Blink"), Chromium renders the archive file itself and the server's page view of it
(`/TICKET/`, which is the root itself); they must be pixel-identical, or, for the
archives views_test.py lists as shown otherwise by `mhtml extract` than by Chromium (form
controls, frames' base, archives Chromium refuses), identical to `extract`'s folder; those with
frames that Chromium paints otherwise when cross-origin (CROSS_ORIGIN_FRAMES) are compared with
a viewport as tall as the page, and may differ only inside their frames, by a few edge pixels. For every archive of the corpus, the page view asks nothing of
any server but this one (every request is under the server's URL, data: or about:), and nothing
outside the archive's own ticket. The index page lists every archive.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium  # noqa: E402
import views_test  # noqa: E402  (its EXPLAINED differences between extract and Chromium)

MHTML = os.environ.get("MHTML_BIN", "mhtml")
CORPUS = os.path.join(os.environ.get("MHTML_TEST_DATA", "tests/data"), "corpus")

# Archives with frames that Chromium paints otherwise when they are cross-origin. Served, every
# frame is same-origin with its page (all under the server's origin); in Chromium's view of the
# archive (cid: documents, opaque origins) and in extract's folder (file: URLs, opaque origins)
# each frame is cross-origin, and Chromium (156) does not paint a cross-origin frame outside
# the viewport (render throttling: in a full-page screenshot, the ad frames below the fold are
# blank) and composites one in view as a layer of its own (a few edge pixels are antialiased
# otherwise). Found by asking DevTools for the frames' DOM and styles in Chromium's view: the
# ad frames were loaded and styled as served, only not painted; with a viewport as tall as the
# page they show. So these are compared with such a viewport, and every pixel that still
# differs must lie inside a frame: at most FRAME_EDGE_SHARE of the frames' area.
CROSS_ORIGIN_FRAMES = {
    "mhtml2html__iframes.mhtml": "ad frames below the fold; edges of the frames in view",
    "testim__marketwatch.mhtml": "the broker-button ad frames below the fold",
}
FRAME_EDGE_SHARE = 0.01
FRAME_BOXES = """
Array.from(document.querySelectorAll('iframe, frame')).map(e => {
  const r = e.getBoundingClientRect();
  return [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY];
}).filter(b => b[2] > b[0] && b[3] > b[1])
"""


def blink(path: str) -> bool:
    with open(path, "rb") as f:
        return b"Saved by Blink" in f.read(4096)


class ServedArchivesInChromium(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="mhtml-serve-")
        cls.folder = os.path.join(cls.work, "archives")
        os.makedirs(cls.folder)
        cls.names = []
        cls.original = {}  # served name -> the corpus's
        for name in sorted(os.listdir(CORPUS)):
            if not name.endswith((".mht", ".mhtml", ".eml")):
                continue
            # Chromium opens a file as an archive by its name: .mhtml for all.
            stem = name.rsplit(".", 1)[0]
            shutil.copyfile(os.path.join(CORPUS, name), os.path.join(cls.folder, stem + ".mhtml"))
            cls.names.append(stem + ".mhtml")
            cls.original[stem + ".mhtml"] = name
        cls.server = subprocess.Popen([MHTML, "serve", cls.folder, "--port", "0", "-q"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = cls.server.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        if not match:
            cls.server.kill()
            raise AssertionError(f"no URL from mhtml serve: {line!r} {cls.server.stderr.read()}")
        cls.url = match.group(1)
        cls.browser = chromium.Browser()
        index = cls.fetch("")
        cls.tickets = {}
        for ticket, name in re.findall(r'<a href="/([0-9a-f]{32})/">.*?<small>([^<]*)</small>',
                                       index):
            cls.tickets[name] = ticket

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.server.terminate()
        try:
            cls.server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            cls.server.kill()
        shutil.rmtree(cls.work, ignore_errors=True)

    @classmethod
    def fetch(cls, path: str) -> str:
        import urllib.request
        with urllib.request.urlopen(cls.url + path, timeout=30) as r:
            return r.read().decode("utf-8", errors="replace")

    def test_index_lists_every_archive(self):
        self.assertEqual(sorted(self.tickets), self.names)

    def test_served_pages_ask_nothing_outside_their_ticket(self):
        for name in self.names:
            with self.subTest(archive=name):
                own = self.url + self.tickets[name] + "/"
                r = self.browser.render(own, timeout=60, full_page=False)
                for u in r.requests:
                    if u.startswith(("data:", "about:", "blob:")):
                        continue
                    self.assertTrue(u.startswith(own), f"{name}: asked for {u}")

    def compare_as_tall_page(self, name: str, expected_url: str, served_url: str) -> None:
        """CROSS_ORIGIN_FRAMES: both rendered with a viewport as tall as the page."""
        height = self.browser.render(expected_url, timeout=60, full_page=False,
                                     evaluate="document.scrollingElement.scrollHeight").evaluated
        with chromium.Browser(height=int(height)) as tall:
            expected = tall.render(expected_url, timeout=120)
            served = tall.render(served_url, timeout=120, evaluate=FRAME_BOXES)
        diff = chromium.compare_png(expected.png, served.png)
        if diff.identical:
            return
        boxes = served.evaluated
        self.assertTrue(boxes, f"{name}: differs, and has no frame")
        outside = [(x, y) for x, y in views_test.differing_pixels(expected.png, served.png)
                   if not any(b[0] <= x < b[2] and b[1] <= y < b[3] for b in boxes)]
        area = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes)
        if outside or diff.differing_pixels > FRAME_EDGE_SHARE * area:
            chromium.keep_artifacts("serve", name, {"expected.png": expected.png,
                                                    "served.png": served.png},
                                    (expected.png, served.png))
        self.assertEqual(outside[:10], [], f"{name}: pixels differ outside its frames")
        self.assertLessEqual(diff.differing_pixels, FRAME_EDGE_SHARE * area,
                             f"{name}: {diff.differing_pixels} pixels of its frames differ")

    def test_blink_archives_render_as_chromium_shows_the_file(self):
        compared = 0
        for name in self.names:
            path = os.path.join(self.folder, name)
            if not blink(path):
                continue
            with self.subTest(archive=name):
                own = self.url + self.tickets[name] + "/"
                explained = views_test.EXPLAINED.get(self.original[name], ("", ""))[0]
                if explained == "chromium_blank":
                    # Chromium shows nothing of it; the server shows what mhtml reads.
                    served = self.browser.render(own, timeout=60)
                    self.assertFalse(views_test.is_uniform(served.png), f"{name}: blank")
                    continue
                if explained:
                    # As `mhtml extract` shows it (its differences from Chromium's view are
                    # views_test.py's to explain).
                    folder = os.path.join(self.work, "extract", name)
                    done = subprocess.run([MHTML, "extract", path, "-o", folder],
                                          capture_output=True, timeout=120)
                    self.assertEqual(done.returncode, 0, done.stderr)
                    expected_url = "file://" + os.path.join(folder, "index.html")
                else:
                    expected_url = "file://" + path
                compared += 1
                if name in CROSS_ORIGIN_FRAMES:
                    self.compare_as_tall_page(name, expected_url, own)
                    continue
                served = self.browser.render(own, timeout=60)
                expected = self.browser.render(expected_url, timeout=60)
                diff = chromium.compare_png(expected.png, served.png)
                if not diff.identical:
                    chromium.keep_artifacts("serve", name, {"expected.png": expected.png,
                                                            "served.png": served.png},
                                            (expected.png, served.png))
                self.assertTrue(diff.identical, f"{name}: {diff.differing_pixels} pixels differ "
                                                f"in {diff.bbox}")
        self.assertGreaterEqual(compared, 5)


def crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


class ServedMailboxInChromium(unittest.TestCase):
    """Issue 17: `mhtml serve` of an mbox, one page per message. A reply shows an image of the
    message it answers by `mid:` (served under the reply's own ticket, so its policy lets it
    load) and links to that message's page; nothing is asked outside the reply's ticket."""

    def test_mid_image_shows_and_link_leads_to_the_other_message(self):
        import base64
        work = tempfile.mkdtemp(prefix="mhtml-serve-mbox-")
        server = None
        try:
            red = chromium.encode_png(20, 20, [bytes([220, 0, 0, 255]) * 20] * 20)
            mbox = (b"From a@x Mon Jan  1 00:00:00 2024\n" + crlf(
                "Message-ID: <one@x>\nSubject: first\nMIME-Version: 1.0\n"
                "Content-Type: multipart/related; boundary=r; type=text/html\n\n"
                "--r\nContent-Type: text/html\n\n<p>first</p><img src=cid:pic@x>\n"
                "--r\nContent-Type: image/png\nContent-ID: <pic@x>\n"
                "Content-Transfer-Encoding: base64\n\n" + base64.encodebytes(red).decode() +
                "--r--\n") + b"\nFrom b@x Mon Jan  1 00:00:01 2024\n" + crlf(
                "Message-ID: <two@x>\nSubject: second\nMIME-Version: 1.0\n"
                "Content-Type: text/html\n\n<body style=margin:0>"
                "<img id=i src=\"mid:one@x/pic@x\" width=20 height=20>"
                "<a id=a href=\"mid:one@x\">the first message</a></body>\n") + b"\n")
            path = os.path.join(work, "thread.mbox")
            with open(path, "wb") as f:
                f.write(mbox)
            server = subprocess.Popen([MHTML, "serve", path, "--port", "0", "-q"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            line = server.stdout.readline()
            match = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            self.assertTrue(match, f"no URL from mhtml serve: {line!r}")
            url = match.group(1)
            import urllib.request
            with urllib.request.urlopen(url, timeout=30) as r:
                index = r.read().decode()
            tickets = dict((name, t) for t, name in re.findall(
                r'<a href="/([0-9a-f]{32})/">.*?<small>([^<]*)</small>', index))
            self.assertEqual(sorted(tickets), ["thread.mbox #1", "thread.mbox #2"])
            own = url + tickets["thread.mbox #2"] + "/"
            with chromium.Browser() as browser:
                r = browser.render(own, timeout=60, full_page=False, evaluate=(
                    "[document.getElementById('i').naturalWidth,"
                    " document.getElementById('a').href]"))
            self.assertEqual(r.evaluated, [20, url + tickets["thread.mbox #1"] + "/"])
            for u in r.requests:
                if not u.startswith(("data:", "about:", "blob:")):
                    self.assertTrue(u.startswith(own), f"asked for {u}")
            width, height, rows = chromium.decode_png(r.png)
            self.assertEqual(bytes(rows[10][40:43]), bytes([220, 0, 0]))  # pixel (10, 10)
        finally:
            if server:
                server.terminate()
                try:
                    server.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    server.kill()
                server.stdout.close()
                server.stderr.close()
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
