#!/usr/bin/env python3
"""Blink's archives of pages we control, opened the way Chromium opens them.

The test writes a small site into its temporary folder and serves it from a loopback server
(127.0.0.1, a free port) that it starts and stops. Each page covers what Chromium's own view
of its archives shows and `extract` / `inline` used to lose:

- urls.html: references that Chromium's URL parser normalises (spaces, non-ASCII octets,
  query variants, backslashes) in style attributes, a style sheet, `<picture><source srcset>`
  and SVG, and `<img>`s that differ only by fragment;
- styles.html: a `<style>` with relative `url()`s, a relative and an absolute `@import`;
- shadow.html: declarative shadow roots (open, closed, delegating focus, nested, slotted);
- frames.html: a frame with its own `<style>`, a nested frame, frames without src (none,
  about:blank, srcdoc, made and filled by a script);
- base.html: a `<style>` under a relative `<base href>`;
- fonts.html: web fonts from a linked style sheet and from a `<style>`.

For each page, headless Chromium (chromium.py) renders the live page with scripts on (so that
script-made frames exist) and saves it as MHTML right then (`Page.captureSnapshot`, what
"Save page as... single file" writes). The server is then stopped, so nothing below can come
from it, and four more renderings are made: the archive (.mhtml) as Chromium shows it,
`mhtml extract`'s folder, `mhtml inline`'s page, and both again with `--offline`. Expected:

- the archive's rendering is pixel-identical to the live page's, except inside the elements
  marked `data-differs="key"` (in the page or in its frames), where Chromium's view of the
  archive is itself different from the live page; every differing pixel must lie in such an
  element (3 px margin), and each such element must differ (a reason that no longer holds
  fails the test). `DIFFERS` gives each key's reason and what extract and inline show there:
  Chromium's view ("archive": the archive lacks what the live page had, or Chromium's reading
  is the default) or the live page ("live": Chromium's reading is wrong and mhtml's is not);
- extract, inline and their `--offline` forms are pixel-identical to Chromium's rendering of
  the archive outside the "live" elements and to the live page outside the "archive"
  elements; extract and inline ask no server for anything but what Blink did not save
  (`EXPECTED_NETWORK`), and their `--offline` forms for nothing at all;
- styles.html with `--blink-style-imports=live`: the same, with the relative @import that
  Chromium drops shown as on the live page.

Two checks of the capture itself pin down what Chromium 156 writes (BLINK_WRITES), and the URL
parser (`mhtml url resolve --whatwg`) is compared with Chromium's own `new URL()` on the
vectors of tests/unit/uri/whatwg_url_test.cpp, Chromium's known departures from the URL
Standard listed in CHROMIUM_URL_DEPARTURES.

Environment: MHTML_BIN (the mhtml executable); optionally MHTML_BROWSER_ARTIFACTS (screenshots
and diff images of failures) and MHTML_BLINK_CAPTURES (a folder to copy the captured archives
into, which is how the tests/data/corpus/blink__*.mhtml files were made).
"""

from __future__ import annotations

import base64
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium  # noqa: E402

MHTML = os.environ.get("MHTML_BIN", "mhtml")
ARTIFACTS = os.environ.get("MHTML_BROWSER_ARTIFACTS")
CAPTURES = os.environ.get("MHTML_BLINK_CAPTURES")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"  # pinned by chromium.py

# Why Chromium's view of an archive differs from the live page, for each data-differs key used
# in the pages, and which of the two extract and inline show there.
DIFFERS = {
    "srcset": ("archive", "Blink drops srcset and sizes from <img> (FrameSerializer: only the "
                          "value of src is pulled into the archive); an <img> with only a srcset "
                          "is saved with no image"),
    "image-set": ("archive", "Blink saves no image named by image-set() (FrameSerializer "
                             "retrieves the images of url() values only)"),
    "shadow-style": ("archive", "Blink (without its MHTMLImprovements feature) drops <style> "
                                "elements and saves only the document's style sheets, not "
                                "those of shadow roots"),
    "import": ("archive", "a relative @import in a <style>: Blink saves the rules as a "
                          "cid:css-... part, and Chromium resolves the @import against that "
                          "cid: URL, where it names nothing (the imported sheet is saved but "
                          "not used); --blink-style-imports=live follows it as the live page did"),
    "script-frame": ("archive", "a frame a script filled, or made: Blink writes its element "
                                "without a src and its document in a part nothing names, so "
                                "Chromium's view shows the frame empty"),
    "base-href": ("archive", "Blink writes <base href> resolved against itself (sub/ becomes "
                             "sub/sub/), so what the page's style sheet names relatively is "
                             "looked for where it is not"),
    "cid-frame": ("live", "Chromium loads a frame of an archive from its cid:frame-... URL, "
                          "which is then the frame's base: every relative reference left in it "
                          "(style attributes, its <style> sheets) names nothing; mhtml resolves "
                          "them against the frame's Content-Location (chapter 5), as the live "
                          "page did"),
    "font": ("archive", "Chromium 156 saved no web font (neither from a style sheet nor from a "
                        "<style>), so the archive's text falls back to the default font"),
}
# Server requests that extract and inline may still make (they fail: the server is stopped):
# what Blink did not save but the pages and style sheets still name.
EXPECTED_NETWORK = {
    "fonts.html": {"/fonts/my%20font.ttf", "/fonts/plain.ttf"},
    "styles.html": {"/img/caf%C3%A9.png"},
    "base.html": {"/sub/sub/bg2.png"},
}
# What Chromium 156 writes that this test relies on (checked on each capture).
BLINK_WRITES = {
    "shadow.html": ["<template shadowmode=\"open\"", "shadowdelegatesfocus=\"\""],
    "styles.html": ["Content-Location: cid:css-", "@import url(\"css/imp.css\");"],
}


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    return chromium.encode_png(width, height, [(bytes(rgb) + b"\xff") * width] * height)


def site(port: int) -> dict[str, tuple[str, bytes]]:
    """Every resource of the test site, by request target as it comes on the wire."""
    origin = f"http://127.0.0.1:{port}"
    box = "width:20px;height:20px;display:inline-block;vertical-align:top"
    r = {}

    def page(name: str, html: str) -> None:
        r["/" + name] = ("text/html; charset=utf-8", html.encode())

    colours = {
        "/img/with%20space.png": (220, 0, 0), "/img/caf%C3%A9.png": (0, 170, 0),
        "/img/q.png?a%20b|c": (0, 0, 220), "/img/q.png?x=%C3%A9": (220, 220, 0),
        "/img/q.png": (120, 120, 120), "/img/bg.png": (0, 200, 200),
        "/img/frag.png": (200, 0, 200), "/img/fallback.png": (90, 40, 0),
        "/sub/bg2.png": (255, 128, 0), "/sub/pic.png": (128, 0, 255),
    }
    for target, rgb in colours.items():
        r[target] = ("image/png", png(20, 20, rgb))
    with open(FONT, "rb") as f:
        font = f.read()
    r["/fonts/my%20font.ttf"] = ("font/ttf", font)
    r["/fonts/plain.ttf"] = ("font/ttf", font)

    r["/css/sheet.css"] = ("text/css; charset=utf-8", (
        ".s1{background:url(\"../img/with space.png\")}\n"
        ".s2{background:url(../img/café.png)}\n"
        ".s3{background:url(\"../img/q.png?a b|c\")}\n"
        ".s4{background:url(\"../img/q.png?x=é\")}\n"
        ".s5{background:url(\"..\\\\img\\\\bg.png\")}\n").encode())
    page("urls.html", f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>urls</title>
<link rel="stylesheet" href="css/sheet.css"></head><body style="margin:8px">
<p style="margin:0 0 4px">References a URL parser normalises</p>
<div style="{box};background:url('img/with space.png')"></div>
<div style="{box};background:url(img/café.png)"></div>
<div class="s1" style="{box}"></div><div class="s2" style="{box}"></div>
<div class="s3" style="{box}"></div><div class="s4" style="{box}"></div>
<div class="s5" style="{box}"></div>
<img src="img/q.png?a b|c"><img src="img/with space.png"><img src="img/q.png?x=é">
<img src="img/frag.png#one"><img src="img/frag.png#two">
<picture><source srcset="img/café.png"><img src="img/fallback.png"></picture>
<svg width="20" height="20"><image href="img/with space.png" width="20" height="20"/></svg>
<div data-differs="srcset" style="{box}"><img srcset="img/q.png 1x" style="width:20px;height:20px"></div>
</body></html>""")

    r["/css/imp.css"] = ("text/css", b".imp{background:url(\"../img/bg.png\")}\n")
    r["/css/abs.css"] = ("text/css", b".abs{background:url(../img/q.png)}\n")
    page("styles.html", f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>styles</title>
<style>
@import "css/imp.css";
@import url("{origin}/css/abs.css");
.u1 {{ background: url("img/with space.png"); }}
.u2 {{ background: url(img/bg.png); }}
.u3 {{ background-image: image-set("img/café.png" 1x); }}
</style></head><body style="margin:8px">
<p style="margin:0 0 4px">A style element</p>
<div class="u1" style="{box}"></div><div class="u2" style="{box}"></div>
<div class="u3" data-differs="image-set" style="{box}"></div><div class="abs" style="{box}"></div>
<div class="imp" data-differs="import" style="{box}"></div>
</body></html>""")

    page("shadow.html", f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>shadow</title>
</head><body style="margin:8px">
<div id="h1"><template shadowrootmode="open"><div style="{box};background:rgb(200,0,0)"></div><slot></slot></template><span>light</span></div>
<div id="h2"><template shadowrootmode="closed" shadowrootdelegatesfocus><p style="margin:0;color:rgb(0,0,200)">closed</p></template></div>
<div id="h3"><template shadowrootmode="open"><div><template shadowrootmode="open"><b>nested</b></template></div><img src="img/with space.png"></template></div>
<div id="h4" data-differs="shadow-style" style="width:200px;height:24px"><template shadowrootmode="open"><style>p {{ color: rgb(0,160,0) }}</style><p style="margin:0">styled in a shadow root</p></template></div>
</body></html>""")

    frame = "width:{}px;height:{}px;border:0;display:block"
    page("frames.html", f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>frames</title>
</head><body style="margin:8px">
<iframe src="frame.html" style="{frame.format(300, 60)}"></iframe>
<iframe style="{frame.format(60, 30)};border:1px solid rgb(0,0,0)"></iframe>
<iframe src="about:blank" style="{frame.format(60, 30)};border:1px solid rgb(0,0,0)"></iframe>
<iframe srcdoc="<p style='margin:0;color:rgb(0,0,200)'>srcdoc</p>" style="{frame.format(100, 30)}"></iframe>
<div data-differs="script-frame" style="width:100px;height:30px"><iframe id="s" style="{frame.format(100, 30)}"></iframe></div>
<div id="dyn" data-differs="script-frame" style="width:100px;height:30px"></div>
<script>
document.getElementById("s").contentDocument.body.innerHTML =
  '<p style="margin:0;background:rgb(0,200,0)">filled</p>';
const made = document.createElement("iframe");
made.style.cssText = "{frame.format(100, 30)}";
document.getElementById("dyn").appendChild(made);
made.contentDocument.body.innerHTML = '<p style="margin:0;background:rgb(200,200,0)">made</p>';
</script>
</body></html>""")
    page("frame.html", f"""<!DOCTYPE html><html><head><meta charset="utf-8">
<style>.f {{ background: url(sub/bg2.png); }}</style></head><body style="margin:0">
<div class="f" data-differs="cid-frame" style="{box}"></div><img src="sub/pic.png">
<iframe src="inner.html" style="{frame.format(60, 24)};display:inline-block"></iframe>
</body></html>""")
    page("inner.html", f"""<!DOCTYPE html><html><head><meta charset="utf-8">
<style>.i {{ background: url("img/with space.png"); }}</style></head><body style="margin:0">
<div class="i" data-differs="cid-frame" style="{box}"></div></body></html>""")

    page("base.html", f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>base</title>
<base href="sub/"><style>.b {{ background: url(bg2.png); }}</style></head><body style="margin:8px">
<div class="b" data-differs="base-href" style="{box}"></div><img src="pic.png">
</body></html>""")

    r["/css/font.css"] = ("text/css", (
        "@font-face{font-family:Linked;src:url(\"../fonts/my font.ttf\")}\n"
        ".l{font-family:Linked}\n").encode())
    page("fonts.html", """<!DOCTYPE html><html><head><meta charset="utf-8"><title>fonts</title>
<link rel="stylesheet" href="css/font.css">
<style>@font-face { font-family: Inline; src: url(fonts/plain.ttf); } .s { font-family: Inline; }</style>
</head><body style="margin:8px">
<p class="l" data-differs="font" style="margin:0;height:24px;width:300px">A linked web font</p>
<p class="s" data-differs="font" style="margin:0;height:24px;width:300px">A web font in a style element</p>
</body></html>""")
    return r


PAGES = ["urls.html", "styles.html", "shadow.html", "frames.html", "base.html", "fonts.html"]

# Boxes (page coordinates) of the elements whose rendering may differ, with their keys, in the
# page and in its frames (same origin on the live site).
DIFFER_BOXES = """
(() => {
  const out = [];
  const walk = (doc, dx, dy) => {
    for (const e of doc.querySelectorAll('[data-differs]')) {
      const r = e.getBoundingClientRect();
      out.push([e.dataset.differs, r.left + dx, r.top + dy, r.right + dx, r.bottom + dy]);
    }
    for (const f of doc.querySelectorAll('iframe')) {
      let inner = null;
      try { inner = f.contentDocument; } catch (e) {}
      if (!inner) continue;
      const r = f.getBoundingClientRect();
      walk(inner, dx + r.left + f.clientLeft, dy + r.top + f.clientTop);
    }
  };
  walk(document, scrollX, scrollY);
  return out;
})()
"""

# The URL parser against Chromium's `new URL()`: (base or None, input). The expected values are
# the URL Standard's (tests/unit/uri/whatwg_url_test.cpp); here the reference is Chromium.
PAGE_URL = "http://h.example/dir/page.html"
URL_VECTORS = [
    (PAGE_URL, "img/with space.png"), (PAGE_URL, "caf\u00e9.png"), (PAGE_URL, "  img.png "),
    (PAGE_URL, "img/\twith\nspace.png"), (PAGE_URL, "a\"b<c>d^e`f{g}h"),
    (PAGE_URL, "a\x01b\x7fc"), (PAGE_URL, "a|b[c]d'e;f=g@h:i!$&()*+,~"),
    (PAGE_URL, "a%20b%zz%"), (PAGE_URL, "q.png?a b|c"), (PAGE_URL, "q.png?x=\u00e9"),
    (PAGE_URL, "q.png?\"<>'`{}^"), ("thismessage:/", "q.png?a b'c"), (PAGE_URL, "x.png#a b"),
    (PAGE_URL, "x.png#\"<>`#'{}"), (PAGE_URL, "#top"), (PAGE_URL, "a/./b/../c"),
    (PAGE_URL, "a/%2e/b/%2E%2e/c"), (PAGE_URL, "../../../../x"), (PAGE_URL, "..\\x"),
    (PAGE_URL, "\\\\other.example\\y"), (None, "sc://h/a\\b"), (PAGE_URL, "//Other.Example:80/p"),
    (PAGE_URL, "http:g"), (PAGE_URL, "https:g"), (None, "HTTP://EXAMPLE.COM:80/A"),
    (None, "https://example.com:443/"), (None, "http://example.com:0080/"),
    (None, "http://example.com:65536/"), (None, "http://ex%41mple.com/"),
    (None, "http://exa mple/"), (None, "http://a%2Fb/"), (None, "http://0x7f.1/"),
    (None, "http://0300.0250.0.1/"), (None, "http://4294967296/"), (None, "http://foo.09/"),
    (None, "http://[0:0:0:0:0:0:0:1]:80/"), (None, "http://[1:0:0:2:0:0:0:3]/"),
    (None, "http://[::ffff:192.168.0.1]/"), (None, "http://[::01.2.3.4]/"),
    (None, "http://us er:p@ss@h/"), (None, "cid:css-1@mhtml.blink"), (None, "sc:a ?q"),
    ("cid:css-1@mhtml.blink", "img/a.png"), ("cid:css-1@mhtml.blink", "#f"),
    ("thismessage:/", "x y.gif"), (None, "file:///C|/x"), (None, "file://localhost/x"),
    ("file:///C:/a/b", "/y"), (None, "http://ex\u00e9.com/"),
]
# Where Chromium 156's parser departs from the URL Standard on these vectors (the URL
# Standard's answer, which mhtml gives, first). Only the first matters for archives, and the
# lenient match writes '|' in a path as %7C on both sides (uri::browser_key).
CHROMIUM_URL_DEPARTURES = {
    (PAGE_URL, "a|b[c]d'e;f=g@h:i!$&()*+,~"): "Chromium writes '|' in a path as %7C",
    ("thismessage:/", "q.png?a b'c"): "Chromium %-encodes ' in the query of any scheme",
    (None, "sc:a ?q"): "Chromium keeps a space before '?' in an opaque path",
    (None, "http://exa mple/"): "Chromium %-encodes a space in a host instead of failing",
    (None, "http://[::01.2.3.4]/"): "Chromium takes leading zeros in an IPv4 part of IPv6",
    (None, "file:///C|/x"): "Chromium on Linux has no Windows drive letter quirks",
    ("file:///C:/a/b", "/y"): "Chromium on Linux has no Windows drive letter quirks",
    (None, "file://localhost/x"): "Chromium keeps the host localhost in file: URLs",
    (None, "http://ex\u00e9.com/"): "domain to ASCII (UTS #46, Punycode) is not implemented "
                                     "in mhtml: it gives failure",
}


class Handler(http.server.BaseHTTPRequestHandler):
    resources: dict[str, tuple[str, bytes]] = {}
    missing: list[str] = []

    def do_GET(self):  # noqa: N802 (the standard library's name)
        found = self.resources.get(self.path)
        if not found:
            self.missing.append(self.path)
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", found[0])
        self.send_header("Content-Length", str(len(found[1])))
        self.end_headers()
        self.wfile.write(found[1])

    def log_message(self, *args):
        pass


def run_mhtml(*args: str) -> str:
    done = subprocess.run([MHTML, *args], capture_output=True, timeout=120)
    if done.returncode not in (0, 1):  # 1: url resolve with failed inputs
        raise AssertionError(f"mhtml {' '.join(args)} failed ({done.returncode}): "
                             f"{done.stderr.decode(errors='replace')}")
    return done.stdout.decode("utf-8", errors="surrogateescape")


def differing_pixels(a: bytes, b: bytes) -> list[tuple[int, int]]:
    wa, ha, ra = chromium.decode_png(a)
    wb, hb, rb = chromium.decode_png(b)
    assert (wa, ha) == (wb, hb), f"sizes differ: {wa}x{ha} and {wb}x{hb}"
    return [(x, y) for y in range(ha) if ra[y] != rb[y]
            for x in range(wa) if ra[y][4 * x:4 * x + 4] != rb[y][4 * x:4 * x + 4]]


class BlinkArchives(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="mhtml-blink-")
        cls.browser = chromium.Browser()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        cls.port = server.server_address[1]
        Handler.resources = site(cls.port)
        Handler.missing = []
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        cls.live: dict[str, chromium.Rendering] = {}
        try:
            for name in PAGES:
                cls.live[name] = cls.browser.render(
                    f"http://127.0.0.1:{cls.port}/{name}", scripts=True, capture=True,
                    evaluate=DIFFER_BOXES, timeout=60)
        finally:
            server.shutdown()  # nothing below may come from the live site
            server.server_close()
            thread.join(timeout=10)
        cls.archives = {}
        for name in PAGES:
            folder = os.path.join(cls.work, name)
            os.makedirs(folder)
            cls.archives[name] = os.path.join(folder, "archive.mhtml")
            with open(cls.archives[name], "wb") as f:
                f.write(cls.live[name].mhtml)
            if CAPTURES:
                os.makedirs(CAPTURES, exist_ok=True)
                shutil.copyfile(cls.archives[name],
                                os.path.join(CAPTURES, "blink__" + name[:-5] + ".mhtml"))

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        shutil.rmtree(cls.work, ignore_errors=True)

    def keep(self, name: str, files: dict[str, bytes]) -> None:
        if not ARTIFACTS:
            return
        folder = os.path.join(ARTIFACTS, "blink", name)
        os.makedirs(folder, exist_ok=True)
        for file, data in files.items():
            with open(os.path.join(folder, file), "wb") as f:
                f.write(data)

    def outputs(self, name: str, *options: str) -> dict[str, str]:
        """extract's root and inline's page for the capture of `name`, made with `options`."""
        folder = os.path.join(self.work, name, "out" + "".join(options).replace("=", "-"))
        os.makedirs(folder)
        run_mhtml("extract", *options, self.archives[name], "-o", os.path.join(folder, "x"))
        with open(os.path.join(folder, "x", "manifest.json")) as f:
            root = json.load(f)["root"]
        run_mhtml("inline", *options, self.archives[name], "-o", os.path.join(folder, "i.html"))
        return {"extracted" + "".join(options): os.path.join(folder, "x", root),
                "inlined" + "".join(options): os.path.join(folder, "i.html")}

    def test_the_site_was_served_whole(self):
        # Every request of the live pages found its resource (favicon aside), so a capture
        # lacks only what Blink chose not to save.
        self.assertEqual([p for p in Handler.missing if p != "/favicon.ico"], [])

    def test_what_blink_writes(self):
        for name, needles in BLINK_WRITES.items():
            text = self.live[name].mhtml.decode()
            for needle in needles:
                self.assertIn(needle, text.replace("=\r\n", "").replace("=3D", "="),
                              f"{name}: Blink no longer writes {needle!r}; revisit docs/design.md")
        fonts = self.live["fonts.html"].mhtml.decode()
        self.assertNotIn("Content-Type: font/", fonts, "Blink now saves web fonts: update "
                         "DIFFERS['font'] and EXPECTED_NETWORK")

    def boxes(self, name: str, shows: str, overrides: dict[str, str] | None = None) -> list:
        """The data-differs boxes of the live page `name` whose key shows `shows`."""
        overrides = overrides or {}
        return [b for b in self.live[name].evaluated or []
                if overrides.get(b[0], DIFFERS[b[0]][0]) == shows]

    def assert_within(self, name: str, label: str, a: bytes, b: bytes, boxes: list,
                      what: str) -> list[tuple[int, int]]:
        """Every pixel where `a` and `b` differ lies in one of `boxes` (3 px margin); returns
        the differing pixels."""
        diff = chromium.compare_png(a, b)
        self.assertTrue(diff.same_size, f"{name}: {label}: the page has another size")
        pixels = [] if diff.identical else differing_pixels(a, b)
        outside = [(x, y) for x, y in pixels
                   if not any(x0 - 3 <= x < x1 + 3 and y0 - 3 <= y < y1 + 3
                              for _, x0, y0, x1, y1 in boxes)]
        if outside:
            self.keep(name, {"reference.png": a, f"{label}.png": b})
            if ARTIFACTS:
                chromium.write_diff_png(a, b, os.path.join(ARTIFACTS, "blink", name,
                                                           f"diff-{label}.png"))
        self.assertEqual(outside[:10], [], f"{name}: {label}: {len(outside)} pixels differ "
                         f"from {what} outside the elements {sorted({b[0] for b in boxes})} "
                         f"(box {diff.bbox})")
        return pixels

    def check_outputs(self, name: str, archive: bytes, overrides: dict[str, str],
                      *options: str) -> None:
        paths = self.outputs(name, *options)
        paths.update(self.outputs(name, "--offline", *options))
        for label, path in paths.items():
            r = self.browser.render("file://" + path, timeout=60)
            self.assert_within(name, label, archive, r.png,
                               self.boxes(name, "live", overrides), "Chromium's view")
            self.assert_within(name, label, self.live[name].png, r.png,
                               self.boxes(name, "archive", overrides), "the live page")
            # What would need a server (cid: and other URLs cannot reach one).
            asked = {u.split(str(self.port), 1)[-1] for u in r.network
                     if u.startswith(("http:", "https:"))}
            allowed = set() if "offline" in label else EXPECTED_NETWORK.get(name, set())
            self.assertLessEqual(asked, allowed, f"{name}: {label} asked a server for these")

    def test_archive_differs_from_the_live_page_only_where_explained(self):
        for name in PAGES:
            with self.subTest(page=name):
                archive = self.browser.render("file://" + self.archives[name], timeout=60)
                self.assertEqual(archive.network, [], "Chromium's archive view asked a server")
                boxes = self.live[name].evaluated or []
                for key, *_ in boxes:
                    self.assertIn(key, DIFFERS)
                pixels = self.assert_within(name, "archive", self.live[name].png, archive.png,
                                            boxes, "the live page")
                for key, x0, y0, x1, y1 in boxes:
                    self.assertTrue(any(x0 - 3 <= x < x1 + 3 and y0 - 3 <= y < y1 + 3
                                        for x, y in pixels),
                                    f"{name}: '{key}' no longer differs from the live page "
                                    f"({DIFFERS[key][1]}): update the test")

    def test_outputs_show_the_archive_as_chromium_or_as_the_live_page(self):
        for name in PAGES:
            with self.subTest(page=name):
                archive = self.browser.render("file://" + self.archives[name], timeout=60)
                self.check_outputs(name, archive.png, {})

    def test_live_page_imports_with_the_option(self):
        name = "styles.html"
        archive = self.browser.render("file://" + self.archives[name], timeout=60)
        self.check_outputs(name, archive.png, {"import": "live"}, "--blink-style-imports=live")

    def hand_written(self, name: str, root: str, parts: list[tuple[str, str, bytes]]) -> str:
        """A Blink-style archive (CRLF, base64 parts with CRLF lines) of `root` at
        http://h.example/page.html and `parts` (label, type, body); its file URL."""
        lines = ["From: <Saved by Blink>", "MIME-Version: 1.0",
                 'Content-Type: multipart/related; type="text/html"; boundary="b"', "",
                 "--b", "Content-Type: text/html", "Content-Location: http://h.example/page.html",
                 "", root]
        for label, content_type, body in parts:
            encoded = base64.b64encode(body).decode()
            lines += ["--b", f"Content-Type: {content_type}", "Content-Transfer-Encoding: base64",
                      f"Content-Location: {label}", "",
                      *[encoded[i:i + 76] for i in range(0, len(encoded), 76)]]
        lines += ["--b--", ""]
        path = os.path.join(self.work, name)
        with open(path, "wb") as f:
            f.write("\r\n".join(lines).encode())
        return "file://" + path

    def test_how_chromium_reads_what_blink_writes(self):
        # Observations docs/design.md and the label index rely on, on hand-written archives.
        blue, yellow = png(20, 20, (0, 0, 255)), png(20, 20, (255, 255, 0))
        corner = "(() => { const i = document.images[0]; return i.naturalWidth; })()"
        # Fragments are compared: x.png#a is found only by x.png#a, and x.png by x.png.
        for parts, ref, colour in (
                ([("http://h.example/x.png#a", blue), ("http://h.example/x.png#b", yellow)],
                 "x.png#b", (255, 255, 0)),
                ([("http://h.example/x.png#a", blue), ("http://h.example/x.png#b", yellow)],
                 "x.png#a", (0, 0, 255)),
                ([("http://h.example/x.png#a", blue), ("http://h.example/x.png#b", yellow)],
                 "x.png", None),
                ([("http://h.example/x.png", blue), ("http://h.example/x.png#a", yellow)],
                 "x.png#a", (255, 255, 0)),
                ([("http://h.example/x.png#a", blue)], "x.png#zz", None)):
            with self.subTest(reference=ref, labels=[p[0] for p in parts]):
                url = self.hand_written("fragments.mhtml", f'<body style="margin:0"><img src="{ref}">',
                                        [(label, "image/png", body) for label, body in parts])
                r = self.browser.render(url, evaluate=corner)
                _, _, rows = chromium.decode_png(r.png)
                if colour is None:
                    self.assertEqual(r.evaluated, 0, "the image was found")
                else:
                    self.assertEqual(tuple(rows[5][20:23]), colour)
        # Shadow roots: shadowmode, exactly "open" or "closed"; shadowrootmode wins.
        templates = {
            "a": '<template shadowmode="open" shadowdelegatesfocus=""><p>a</p></template>',
            "b": '<template shadowmode="OPEN"><p>b</p></template>',
            "c": '<template shadowmode=" open"><p>c</p></template>',
            "d": '<template shadowmode="closed" shadowrootmode="open"><p>d</p></template>',
            "e": '<template shadowmode="open" shadowrootdelegatesfocus><p>e</p></template>',
        }
        url = self.hand_written("shadow.mhtml", "".join(
            f'<div id="{k}">{t}</div>' for k, t in templates.items()), [])
        r = self.browser.render(url, evaluate="""Object.fromEntries(["a", "b", "c", "d", "e"].map(
            k => { const s = document.getElementById(k).shadowRoot;
                   return [k, s ? [s.mode, s.delegatesFocus] : null]; }))""")
        self.assertEqual(r.evaluated, {"a": ["open", True], "b": None, "c": None,
                                       "d": ["open", False], "e": ["open", False]})
        # A frame is loaded from its cid: URL, its base: relative references in it name
        # nothing, though the part's Content-Location would give them a base.
        url = self.hand_written("frame.mhtml", '<iframe src="cid:frame-2@mhtml.blink"></iframe>', [
            ("http://h.example/a.png", "image/png", blue)])
        with open(url[len("file://"):], "rb") as f:
            text = f.read().replace(b"--b--", b"--b\r\nContent-Type: text/html\r\n"
                                    b"Content-ID: <frame-2@mhtml.blink>\r\n"
                                    b"Content-Location: http://h.example/f.html\r\n\r\n"
                                    b'<img src="a.png"><img src="http://h.example/a.png">\r\n'
                                    b"--b--")
        with open(url[len("file://"):], "wb") as f:
            f.write(text)
        r = self.browser.render(url)
        self.assertEqual(r.from_cache, ["http://h.example/a.png"], "only the absolute one")

    def test_url_parser_agrees_with_chromium(self):
        ours = []
        for base, ref in URL_VECTORS:
            line = run_mhtml("url", "resolve", "--whatwg", "--json",
                             base or "http://unused.example/", ref)
            ours.append(json.loads(line)["output"] if line.strip() else None)
        expression = ("(" + json.dumps([[b, i] for b, i in URL_VECTORS]) + ").map(([b, i]) => "
                      "{ try { return (b === null ? new URL(i) : new URL(i, b)).href } "
                      "catch (e) { return null } })")
        page = os.path.join(self.work, "blank.html")
        with open(page, "w") as f:
            f.write("<!DOCTYPE html>")
        theirs = self.browser.render("file://" + page, evaluate=expression).evaluated
        departures = set()
        for (base, ref), mine, chromes in zip(URL_VECTORS, ours, theirs):
            if mine != chromes:
                departures.add((base, ref))
                self.assertIn((base, ref), CHROMIUM_URL_DEPARTURES,
                              f"{base!r} + {ref!r}: mhtml {mine!r}, Chromium {chromes!r}")
        self.assertEqual(departures, set(CHROMIUM_URL_DEPARTURES), "a listed departure is gone")


if __name__ == "__main__":
    unittest.main()
