"""`mhtml serve` seen by headless Chromium (issue 15).

The real corpus (tests/data/corpus; PROVENANCE.md) is served by one `mhtml serve` on
127.0.0.1 and a free port, started and stopped here. For every archive Blink wrote ("Saved by
Blink"), Chromium renders the archive file itself and the server's page view of it
(`/TICKET/`, redirected to the root's URL); they must be pixel-identical, or, for the
archives views_test.py lists as shown otherwise by `mhtml extract` than by Chromium (form
controls, frames' base, archives Chromium refuses), identical to `extract`'s folder. For every archive of the corpus, the page view asks nothing of
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

# Archives whose served page differs from the expected rendering for a reason not yet found
# (issue 15 stays open for them): the ad frames whose label is the page's own URL
# (https://www.marketwatch.com/) show their images when served, and are blank in Chromium's
# view of the archive and in extract's folder, though extract's frame file alone shows them.
UNEXPLAINED = {
    "mhtml2html__iframes.mhtml": "frames blank in Chromium's view and extract's, shown served",
    "testim__marketwatch.mhtml": "the broker-button ad frames, shown served only",
}


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

    def test_blink_archives_render_as_chromium_shows_the_file(self):
        compared = 0
        for name in self.names:
            path = os.path.join(self.folder, name)
            if not blink(path):
                continue
            with self.subTest(archive=name):
                served = self.browser.render(self.url + self.tickets[name] + "/", timeout=60)
                explained = views_test.EXPLAINED.get(self.original[name], ("", ""))[0]
                if explained == "chromium_blank":
                    # Chromium shows nothing of it; the server shows what mhtml reads.
                    self.assertFalse(views_test.is_uniform(served.png), f"{name}: blank")
                    continue
                if explained:
                    # As `mhtml extract` shows it (its differences from Chromium's view are
                    # views_test.py's to explain).
                    folder = os.path.join(self.work, "extract", name)
                    done = subprocess.run([MHTML, "extract", path, "-o", folder],
                                          capture_output=True, timeout=120)
                    self.assertEqual(done.returncode, 0, done.stderr)
                    expected = self.browser.render(
                        "file://" + os.path.join(folder, "index.html"), timeout=60)
                else:
                    expected = self.browser.render("file://" + path, timeout=60)
                diff = chromium.compare_png(expected.png, served.png)
                if name in UNEXPLAINED:
                    self.assertFalse(diff.identical, f"{name} no longer differs: update "
                                                     "UNEXPLAINED")
                    continue
                if not diff.identical:
                    chromium.keep_artifacts("serve", name, {"expected.png": expected.png,
                                                            "served.png": served.png},
                                            (expected.png, served.png))
                self.assertTrue(diff.identical, f"{name}: {diff.differing_pixels} pixels differ "
                                                f"in {diff.bbox}")
                compared += 1
        self.assertGreaterEqual(compared, 5)


if __name__ == "__main__":
    unittest.main()
