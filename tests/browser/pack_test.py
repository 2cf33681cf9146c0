"""Chromium renders what `mhtml pack` writes as it renders the live page (issue 13).

The test writes small sites of its own into a temporary folder, with real images (PNGs made
here), a real web font (a pinned DejaVu file) and every kind of reference `pack` collects:

- refs: `img`, every `srcset` candidate, `picture`/`source`, a linked style sheet with
  `@import` (recursive) and `url()` backgrounds, `@font-face`, a `<style>` with `url()`,
  `style=""`, `video poster`, an SVG `<img>`, a missing image;
- names: file names with a space, non-ASCII, `%`, `#`, quotes and parentheses, the same file
  spelled two ways, a query and a fragment;
- base: `<base href="sub/">` with `../` back to the root;
- frames: an `iframe` with its own style sheet, a nested frame, `srcdoc`;
- svg: inline SVG `image`, an SVG `<object>` holding an `image` (an external `<use
  href="sprite.svg#id">` is packed, but Chromium shows it neither from an archive nor from
  a file:// page: it needs a same-origin http(s) document; tests/unit/pack covers packing
  it);
- latin1 / sjis: ISO-8859-1 and Shift_JIS pages naming non-ASCII files;
- many: 500 images.

Each site is served from a loopback server (127.0.0.1, a free port) that the test starts and
stops, rendered live (scripts off: Chromium's MHTML view runs none) and packed from the
server (`mhtml pack URL`). It is then packed from disk with `--base` set to its live URL,
with the content-location and the CID method,
and each archive is opened in Chromium as an `.mhtml` file after the server is stopped.
Expected: pixel-identical to the live page, and nothing asked of any server. The file-name
method is checked through `mhtml extract`'s folder of its archive (THTML §9.2: a reader
that unpacks to a folder), which must render the same too. `mhtml check` must report no
MUST or SHOULD finding on any archive.
"""

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium  # noqa: E402

MHTML = os.environ.get("MHTML_BIN", "mhtml")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"  # fonts-dejavu-core (pinned)


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A solid PNG with a 1-pixel dark frame, so that scaling and position show."""
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            edge = x in (0, width - 1) or y in (0, height - 1)
            row += bytes((20, 20, 20, 255)) if edge else bytes((*rgb, 255))
        rows.append(bytes(row))
    return chromium.encode_png(width, height, rows)


def sites() -> dict[str, dict[str, bytes]]:
    """site name -> {relative path: octets}."""
    red, green, blue = (220, 40, 40), (40, 170, 60), (40, 80, 220)
    with open(FONT, "rb") as f:
        font = f.read()
    s: dict[str, dict[str, bytes]] = {}
    s["refs"] = {
        "index.html": b"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>refs</title>
<link rel="stylesheet" href="css/main.css">
<style>.st { width: 60px; height: 30px; background: url(img/green.png) }</style></head>
<body style="margin: 8px; background: url('img/tile.png') repeat-x 0 400px">
<p class="font">Font from @font-face</p>
<img src="img/red.png" width="40" height="40">
<img src="img/red.png" srcset="img/red.png 1x, img/blue.png 2x" width="40" height="40">
<picture><source srcset="img/green.png" type="image/png"><img src="img/blue.png"></picture>
<div class="st"></div><div class="bg"></div><div class="imported"></div>
<video poster="img/blue.png" width="50" height="30"></video>
<img src="img/pic.svg" width="50" height="50">
<img src="img/missing.png" width="20" height="20" alt="">
</body></html>""",
        "css/main.css": b"""@import url("more/imported.css");
@font-face { font-family: Packed; src: url(../fonts/f.ttf) format("truetype") }
.font { font-family: Packed; font-size: 20px }
.bg { width: 80px; height: 20px; background: url(../img/blue.png) }""",
        "css/more/imported.css": b""".imported { width: 30px; height: 30px;
  background: url("../../img/green.png") }""",
        "img/red.png": png(20, 20, red),
        "img/blue.png": png(20, 20, blue),
        "img/green.png": png(16, 16, green),
        "img/tile.png": png(8, 8, (200, 200, 80)),
        "img/pic.svg": b"""<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50">
<circle cx="25" cy="25" r="20" fill="purple"/></svg>""",
        "fonts/f.ttf": font,
    }
    s["names"] = {
        "index.html": """<!DOCTYPE html><meta charset="utf-8"><title>names</title>
<img src="a%20b.png"><img src="a b.png"><img src="caf%C3%A9.png"><img src="café.png">
<img src="100%25.png"><img src="hash%231.png"><img src="quote's.png">
<img src="dq%22.png"><img src="paren(1).png"><img src="x.png?v=1"><img src="./x.png#f">
""".encode(),
        "a b.png": png(10, 10, red),
        "café.png": png(10, 10, green),
        "100%.png": png(10, 10, blue),
        "hash#1.png": png(12, 12, red),
        "quote's.png": png(12, 12, green),
        'dq".png': png(12, 12, blue),
        "paren(1).png": png(14, 14, red),
        "x.png": png(14, 14, green),
    }
    s["base"] = {
        "index.html": b"""<!DOCTYPE html><title>base</title><base href="sub/">
<link rel="stylesheet" href="s.css"><img src="in-sub.png"><img src="../top.png">
<div class="b"></div>""",
        "sub/s.css": b".b { width: 30px; height: 30px; background: url(in-sub.png) }",
        "sub/in-sub.png": png(20, 20, blue),
        "top.png": png(20, 20, red),
    }
    s["frames"] = {
        "index.html": b"""<!DOCTYPE html><title>frames</title>
<iframe src="f/one.html" width="200" height="120"></iframe>
<iframe srcdoc="&lt;img src=&quot;img/r.png&quot;&gt;&lt;p&gt;srcdoc" width="120" height="80">
</iframe>""",
        "f/one.html": b"""<!DOCTYPE html><link rel="stylesheet" href="one.css">
<div class="x"></div><iframe src="../f/two.html" width="80" height="50"></iframe>""",
        "f/one.css": b".x { width: 40px; height: 20px; background: url(../img/g.png) }",
        "f/two.html": b"<!DOCTYPE html><body style='margin:0'><img src='../img/b.png'>",
        "img/r.png": png(20, 20, red),
        "img/g.png": png(20, 20, green),
        "img/b.png": png(20, 20, blue),
    }
    s["svg"] = {
        "index.html": b"""<!DOCTYPE html><title>svg</title>
<svg width="120" height="60" xmlns="http://www.w3.org/2000/svg"
     xmlns:xlink="http://www.w3.org/1999/xlink">
<circle cx="15" cy="15" r="15" fill="teal"/>
<image href="img/p.png" x="60" y="0" width="30" height="30"/></svg>
<object data="drawing.svg" type="image/svg+xml" width="60" height="60"></object>""",
        "drawing.svg": b"""<svg xmlns="http://www.w3.org/2000/svg"
xmlns:xlink="http://www.w3.org/1999/xlink" width="60" height="60">
<image xlink:href="img/p.png" width="40" height="40"/></svg>""",
        "img/p.png": png(20, 20, (240, 140, 0)),
    }
    s["latin1"] = {
        "index.html": "<!DOCTYPE html><meta charset=iso-8859-1><title>latin1</title>"
                      "<p>café<img src='café.png'><img src='naïve.png'>".encode("latin-1"),
        "café.png": png(16, 16, red),
        "naïve.png": png(16, 16, blue),
    }
    s["sjis"] = {
        "index.html": "<!DOCTYPE html><meta charset=shift_jis><title>sjis</title>"
                      "<p>表<img src='表.png'><img src='画像.png'>".encode("shift_jis"),
        "表.png": png(16, 16, green),
        "画像.png": png(16, 16, red),
    }
    many = {"index.html": b"<!DOCTYPE html><title>many</title><body style='margin:0'>" +
            b"".join(b"<img src='i/%d.png'>" % i for i in range(500))}
    for i in range(500):
        many[f"i/{i}.png"] = png(8, 8, ((i * 7) % 256, (i * 13) % 256, (i * 29) % 256))
    s["many"] = many
    return s


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def run_mhtml(*args: str, ok=(0,)) -> subprocess.CompletedProcess:
    done = subprocess.run([MHTML, *args], capture_output=True, timeout=300)
    if done.returncode not in ok:
        raise AssertionError(f"mhtml {' '.join(args)} exited {done.returncode}: "
                             f"{done.stderr.decode(errors='replace')}")
    return done


class PackRendersAsLive(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="mhtml-pack-")
        cls.root = os.path.join(cls.work, "www")
        cls.sites = sites()
        for name, files in cls.sites.items():
            for path, data in files.items():
                full = os.path.join(cls.root, name, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "wb") as f:
                    f.write(data)
        cls.browser = chromium.Browser()
        handler = lambda *a, **k: Handler(*a, directory=cls.root, **k)  # noqa: E731
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        cls.port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        cls.live: dict[str, chromium.Rendering] = {}
        try:
            for name in cls.sites:
                cls.live[name] = cls.browser.render(cls.url(name), timeout=90)
            # The same sites packed from the server (pack::fetch_collect), while it is up.
            for name in cls.sites:
                run_mhtml("pack", cls.url(name), "-o", os.path.join(cls.work, f"{name}-url.mhtml"),
                          ok=(0, 1))
        finally:
            server.shutdown()  # nothing below may come from the live site
            server.server_close()
            thread.join(timeout=10)

    @classmethod
    def url(cls, name: str) -> str:
        return f"http://127.0.0.1:{cls.port}/{name}/"

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        shutil.rmtree(cls.work, ignore_errors=True)

    def pack(self, name: str, method: str) -> str:
        out = os.path.join(self.work, f"{name}-{method}.mhtml")
        run_mhtml("pack", os.path.join(self.root, name), "--base", self.url(name),
                  "--method", method, "-o", out, ok=(0, 1))  # 1: the missing image is listed
        check = json.loads(run_mhtml("check", "--json", out, ok=(0, 1)).stdout)
        # refs names one missing image on purpose (the live page lacks it too).
        bad = [f for f in check["findings"] if f["level"] in ("error", "warning")
               and not (f["code"] == "resource_not_in_archive" and "missing.png" in f["message"])]
        self.assertEqual(bad, [], f"{name} {method}: MUST/SHOULD findings")
        return out

    def same_as_live(self, name: str, label: str, rendering: chromium.Rendering) -> None:
        self.assertEqual(rendering.network, [], f"{label}: asked a server")
        diff = chromium.compare_png(self.live[name].png, rendering.png)
        if not diff.identical:
            chromium.keep_artifacts("pack", label,
                                    {"live.png": self.live[name].png, "packed.png": rendering.png},
                                    diff=(self.live[name].png, rendering.png))
        self.assertTrue(diff.identical, f"{label}: {diff.differing_pixels} pixels differ "
                                        f"from the live page in {diff.bbox}")

    def test_content_location_and_cid_archives_render_as_live(self):
        for method in ("content-location", "cid"):
            for name in self.sites:
                with self.subTest(site=name, method=method):
                    out = self.pack(name, method)
                    r = self.browser.render("file://" + out, timeout=90)
                    self.same_as_live(name, f"{name}-{method}", r)

    def test_archives_packed_from_the_server_render_as_live(self):
        for name in self.sites:
            with self.subTest(site=name):
                out = os.path.join(self.work, f"{name}-url.mhtml")
                check = json.loads(run_mhtml("check", "--json", out, ok=(0, 1)).stdout)
                bad = [f for f in check["findings"] if f["level"] in ("error", "warning")
                       and not (f["code"] == "resource_not_in_archive"
                                and "missing.png" in f["message"])]
                self.assertEqual(bad, [], f"{name} from the server: MUST/SHOULD findings")
                r = self.browser.render("file://" + out, timeout=90)
                self.same_as_live(name, f"{name}-url", r)

    def test_filename_method_through_extract(self):
        for name in self.sites:
            with self.subTest(site=name):
                out = self.pack(name, "filename")
                folder = os.path.join(self.work, f"{name}-filename")
                run_mhtml("extract", out, "-o", folder)
                with open(os.path.join(folder, "manifest.json")) as f:
                    root = json.load(f)["root"]
                r = self.browser.render("file://" + os.path.join(folder, root), timeout=90)
                self.same_as_live(name, f"{name}-filename", r)


if __name__ == "__main__":
    unittest.main()
