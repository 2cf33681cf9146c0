#!/usr/bin/env python3
"""Self-test of chromium.py: python3 tests/browser/harness_test.py [-v]

Uses only pages it writes into a temporary directory, opened from file:// URLs.
"""

import base64
import os
import struct
import sys
import tempfile
import unittest
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium  # noqa: E402

WHITE, RED, GREEN = b"\xff\xff\xff\xff", b"\xff\x00\x00\xff", b"\x00\x80\x00\xff"


def pixel(png_or_decoded, x, y):
    _, _, rows = chromium._decoded(png_or_decoded)
    return rows[y][4 * x:4 * x + 4]


def solid(width, height, rgba):
    return [rgba * width for _ in range(height)]


def gif(width, height, frames):
    """A GIF89a of frames [(RGB colour, delay in 1/100 s), ...] filling the image, played
    once (no NETSCAPE loop): it stays on its last frame. Pixel codes are written 3 bits wide
    with a clear code after every two, so no LZW table entry is ever used."""
    palette = b"".join(colour for colour, _ in frames).ljust(12, b"\0")  # 4 entries
    out = b"GIF89a" + struct.pack("<HHBBB", width, height, 0xF1, 0, 0) + palette
    for index, (_, delay) in enumerate(frames):
        codes = []
        for n in range(width * height):
            if n % 2 == 0:
                codes.append(4)  # clear
            codes.append(index)
        codes.append(5)  # end of information
        bits = sum(code << (3 * i) for i, code in enumerate(codes))
        data = bits.to_bytes((3 * len(codes) + 7) // 8, "little")
        blocks = b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255]
                          for i in range(0, len(data), 255))
        out += (b"\x21\xf9\x04\x04" + struct.pack("<H", delay) + b"\0\0"  # graphic control
                + b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0)
                + b"\x02" + blocks + b"\0")
    return out + b"\x3b"


def mhtml(html, parts):
    """A multipart/related archive as Chromium saves them: CRLF, quoted-printable root."""
    lines = ["From: <Saved by harness_test.py>", "Subject: test", "MIME-Version: 1.0",
             'Content-Type: multipart/related;', '\ttype="text/html";', '\tboundary="----B"', "",
             "------B", "Content-Type: text/html", "Content-Transfer-Encoding: quoted-printable",
             "Content-Location: http://archive.example/page.html", "", html.replace("=", "=3D")]
    for location, content_type, data in parts:
        lines += ["------B", f"Content-Type: {content_type}", "Content-Transfer-Encoding: base64",
                  f"Content-Location: {location}", "", *base64.encodebytes(data).decode().split()]
    lines += ["------B--", ""]
    return "\r\n".join(lines).encode()


class BrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="harness-test-")
        cls.browser = chromium.Browser()

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.dir.cleanup()

    def write(self, name, content):
        path = os.path.join(self.dir.name, name)
        with open(path, "wb") as f:
            f.write(content.encode() if isinstance(content, str) else content)
        return "file://" + path

    def test_red_box_renders_the_same_every_time(self):
        url = self.write("box.html", """<!DOCTYPE html>
            <body style="margin:0; background:#fff">
            <div style="position:absolute; left:100px; top:50px; width:200px; height:100px;
                        background:#f00"></div>
            <p style="margin:200px 8px; font:20px serif">Text, to rasterise glyphs too.</p>""")
        first = self.browser.render(url)
        width, height, rows = chromium.decode_png(first.png)
        self.assertEqual((width, height), (1280, 1024))  # the page is shorter than the viewport
        self.assertEqual(pixel(first.png, 150, 100), RED)
        self.assertEqual(pixel(first.png, 99, 100), WHITE)
        self.assertEqual(pixel(first.png, 300, 100), WHITE)
        self.assertEqual(first.requests, [url])
        self.assertEqual(first.network, [])
        self.assertTrue(any(set(row[4 * 8:4 * 300]) - {255} for row in rows[200:240]), "no text")
        again = self.browser.render(url)
        self.assertTrue(chromium.compare_png(first.png, again.png).identical)
        with chromium.Browser() as other:  # another browser process
            self.assertTrue(chromium.compare_png(first.png, other.render(url).png).identical)

    def test_full_page_height_and_viewport_only(self):
        url = self.write("tall.html", '<body style="margin:0"><div style="height:3000px; '
                         'background:linear-gradient(#f00, #00f)"></div>')
        self.assertEqual(chromium.decode_png(self.browser.render(url).png)[:2], (1280, 3000))
        self.assertEqual(chromium.decode_png(self.browser.render(url, full_page=False).png)[:2],
                         (1280, 1024))

    def test_animations_and_caret_are_frozen(self):
        # Rendered 0.5 s and 1.1 s after the network went idle: without Animation.setPlaybackRate
        # the box moves, and without the caret style sheet the caret blinks in between.
        url = self.write("moving.html", """<!DOCTYPE html><style>
            @keyframes move { to { transform: translateX(800px) } }
            div { width: 50px; height: 50px; background: #00f; animation: move 2s linear infinite }
            </style><div></div><input autofocus value="caret" style="font-size:30px">""")
        saved = chromium.NETWORK_IDLE_SECONDS
        try:
            shots = []
            for idle in (0.5, 1.1):
                chromium.NETWORK_IDLE_SECONDS = idle
                shots.append(self.browser.render(url).png)
        finally:
            chromium.NETWORK_IDLE_SECONDS = saved
        self.assertEqual(chromium.compare_png(*shots).differing_pixels, 0)
        self.assertEqual(pixel(shots[0], 10, 10), b"\x00\x00\xff\xff")  # at its start

    def test_animated_images_stay_on_their_first_frame(self):
        # Red for 0.05 s, then green for good: without imageAnimationPolicy the screenshot,
        # taken after 0.5 s without network activity, shows green.
        self.write("anim.gif", gif(40, 30, [(b"\xff\x00\x00", 5), (b"\x00\x80\x00", 0)]))
        url = self.write("anim.html", '<body style="margin:0"><img src="anim.gif">')
        r = self.browser.render(url)
        self.assertEqual(r.failed, [])
        self.assertEqual(pixel(r.png, 20, 15), RED)

    def test_only_pinned_fonts_are_used(self):
        # Families that other font packages provide (fonts-dejavu-extra: DejaVu Sans
        # Condensed; fonts-noto) and characters that only other fonts have: every glyph
        # comes from PINNED_FONTS, else from nothing.
        pinned = {"DejaVu Sans", "DejaVu Sans Mono", "DejaVu Serif", "Liberation Mono",
                  "Liberation Sans", "Liberation Sans Narrow", "Liberation Serif"}
        url = self.write("fonts.html", """<!DOCTYPE html><meta charset=utf-8>
            <p style="font-family: 'DejaVu Sans Condensed'">Condensed</p>
            <p style="font-family: 'DejaVu Serif Condensed'">Condensed</p>
            <p style="font-family: 'DejaVu Sans', 'Noto Sans'">Sans \u0986 \u4e2d \u2135</p>
            <p style="font-family: 'Noto Sans CJK SC', serif">\u4e2d\u6587 \U0001F600</p>
            <p style="font-family: monospace">mono</p><p style="font-family: sans-serif">sans</p>
            """)
        used = self.browser.render(url, fonts=True).fonts
        self.assertTrue(used, "no platform font reported")
        self.assertLessEqual(set(used), pinned)

    def test_a_page_that_keeps_changing_is_an_error(self):
        # Wider every 20 ms: no two screenshots agree, so render() must not pick one.
        url = self.write("growing.html", """<!DOCTYPE html><div id=d style="height:20px;
            background:#00f; width:1px"></div><script>let n = 1;
            setInterval(() => { d.style.width = (++n % 1200) + 'px'; }, 20);</script>""")
        with self.assertRaisesRegex(chromium.BrowserError, "kept changing"):
            self.browser.render(url, scripts=True)
        # The same page without scripts is still: two screenshots, the same.
        self.assertEqual(self.browser.render(url).shots, 2)

    def test_web_font_is_awaited_with_scripts_off(self):
        font = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"  # fonts-dejavu-core
        with open(font, "rb") as f:
            self.write("mono.ttf", f.read())
        page = ("<!DOCTYPE html><style>@font-face { font-family: W; src: url(%s) }"
                "p { font: 40px W, serif }</style><p>Web font iiii WWWW</p>")
        with_font = self.browser.render(self.write("font.html", page % "mono.ttf"))
        fallback = self.browser.render(self.write("nofont.html", page % "missing.ttf"))
        font_url = "file://" + os.path.join(self.dir.name, "mono.ttf")
        self.assertEqual(with_font.requests[1:], [font_url])
        self.assertEqual((with_font.failed, with_font.network), ([], []))  # file:// needs no server
        self.assertGreater(chromium.compare_png(with_font.png, fallback.png).differing_pixels, 0)

    def test_remote_requests_are_recorded_and_fail(self):
        url = self.write("remote.html", """<!DOCTYPE html>
            <img src="http://example.invalid/x.png">
            <link rel=stylesheet href="https://example.com/a.css">""")
        r = self.browser.render(url)
        remote = ["http://example.invalid/x.png", "https://example.com/a.css"]
        self.assertEqual(r.requests[0], url)
        self.assertEqual(sorted(r.requests[1:]), sorted(remote))
        self.assertEqual(sorted(r.network), sorted(remote))
        self.assertEqual(sorted(r.failed), sorted(remote))
        self.assertEqual(sum("net::ERR_NAME_NOT_RESOLVED" in line for line in r.console), 2,
                         r.console)

    def test_scripts_are_off_unless_asked_for(self):
        url = self.write("script.html", '<!DOCTYPE html><body style="background:#fff">'
                         "<script>document.body.style.background = 'rgb(0, 128, 0)'</script>")
        # render() also awaited document.fonts.ready through Runtime.evaluate: DevTools' own
        # evaluation works while the page's scripts are disabled.
        self.assertEqual(pixel(self.browser.render(url).png, 640, 500), WHITE)
        self.assertEqual(pixel(self.browser.render(url, scripts=True).png, 640, 500), GREEN)

    def mhtml_page(self, name, extra_html=""):
        red = chromium.encode_png(40, 30, solid(40, 30, RED))
        html = ('<!DOCTYPE html><html><body style="margin:0; background:#fff">'
                '<img src="http://archive.example/red.png" '
                'style="position:absolute; left:10px; top:20px">' + extra_html + "</body></html>")
        return self.write(name, mhtml(html, [("http://archive.example/red.png", "image/png", red)]))

    def test_mhtml_archive_opens_from_file_url(self):
        url = self.mhtml_page("page.mhtml")
        r = self.browser.render(url)
        self.assertEqual(pixel(r.png, 30, 35), RED)  # the image came out of the archive
        self.assertEqual(pixel(r.png, 60, 35), WHITE)
        # Chromium reports the part as a request, answered from its memory cache: no server.
        self.assertEqual(r.requests, [url, "http://archive.example/red.png"])
        self.assertEqual(r.from_cache, ["http://archive.example/red.png"])
        self.assertEqual(r.network, [])
        self.assertEqual(r.failed, [])

    def test_capture_saves_the_page_as_chromium_does(self):
        red = chromium.encode_png(40, 30, solid(40, 30, RED))
        self.write("cap-red.png", red)
        page = self.write("capture.html", '<!DOCTYPE html><body style="margin:0"><img '
                          'src="cap-red.png"><p id=p></p><script>document.getElementById("p")'
                          '.textContent = "by script"</script>')
        r = self.browser.render(page, scripts=True, capture=True)
        self.assertEqual(pixel(r.png, 20, 15), RED)
        archive = r.mhtml.decode()
        self.assertIn("From: <Saved by Blink>", archive)
        self.assertIn("Snapshot-Content-Location: " + page, archive)
        self.assertIn("Content-Location: " + page.replace("capture.html", "cap-red.png"), archive)
        self.assertIn(base64.b64encode(red).decode()[:40], archive.replace("\r\n", ""))
        self.assertIn("by script", archive)  # the page as its script left it...
        self.assertNotIn("<script", archive)  # ...without the script
        self.assertEqual(self.browser.render(page).mhtml, b"")

    def test_mhtml_needs_its_file_name_extension(self):
        r = self.browser.render(self.mhtml_page("page.txt"))
        self.assertNotEqual(pixel(r.png, 30, 35), RED)  # shown as text, not as an archive
        self.assertEqual(r.requests, [r.requests[0]])

    def test_mhtml_scripts_never_run(self):
        script = "<script>document.body.style.background = 'rgb(0, 128, 0)'</script>"
        r = self.browser.render(self.mhtml_page("script.mhtml", script), scripts=True)
        self.assertEqual(pixel(r.png, 640, 500), WHITE)
        self.assertTrue(any("Blocked script execution" in line for line in r.console), r.console)


def png_with_filters(width, height, rows, channels):
    """A PNG whose row y uses filter type y % 5, filtered by a plain reference implementation."""
    bpp, out, up = channels, bytearray(), bytes(width * channels)
    for y, row in enumerate(rows):
        kind = y % 5
        line = bytearray([kind])
        for i, value in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = up[i]
            c = up[i - bpp] if i >= bpp else 0
            p = a + b - c
            paeth = min((abs(p - a), 0, a), (abs(p - b), 1, b), (abs(p - c), 2, c))[2]
            line.append((value - (0, a, b, (a + b) // 2, paeth)[kind]) & 0xFF)
        out += line
        up = row
    header = struct.pack(">IIBBBBB", width, height, 8, {3: 2, 4: 6}[channels], 0, 0, 0)
    chunk = chromium.png_chunk
    return (chromium.PNG_SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(out))
            + chunk(b"IEND", b""))


class PngTest(unittest.TestCase):
    def test_decoder_handles_all_five_filters(self):
        width, height = 13, 10
        rgba = [bytes((x * 37 + y * 11) % 256 if c < 3 else 255 - x
                      for x in range(width) for c in range(4)) for y in range(height)]
        rgb = [bytes(v for i, v in enumerate(row) if i % 4 != 3) for row in rgba]
        self.assertEqual(chromium.decode_png(png_with_filters(width, height, rgba, 4)),
                         (width, height, rgba))
        opaque = [bytes(v if i % 4 != 3 else 255 for i, v in enumerate(row)) for row in rgba]
        self.assertEqual(chromium.decode_png(png_with_filters(width, height, rgb, 3)),
                         (width, height, opaque))

    def test_encoder_round_trip(self):
        rows = [bytes(range(y, y + 16)) for y in range(5)]
        self.assertEqual(chromium.decode_png(chromium.encode_png(4, 5, rows)), (4, 5, rows))

    def test_compare_and_diff(self):
        a = chromium.encode_png(20, 10, solid(20, 10, WHITE))
        changed = solid(20, 10, WHITE)
        changed[7] = WHITE * 3 + b"\x00\x00\x00\xff" + WHITE * 16
        b = chromium.encode_png(20, 10, changed)
        same = chromium.compare_png(a, a)
        self.assertEqual((same.same_size, same.differing_pixels, same.bbox), (True, 0, None))
        d = chromium.compare_png(a, b)
        self.assertEqual((d.same_size, d.differing_pixels, d.bbox), (True, 1, (3, 7, 4, 8)))
        self.assertFalse(chromium.compare_png(a, chromium.encode_png(20, 11, solid(20, 11, WHITE)))
                         .same_size)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "diff.png")
            self.assertEqual(chromium.write_diff_png(a, b, path), d)
            with open(path, "rb") as f:
                diff = chromium.decode_png(f.read())
        self.assertEqual(pixel(diff, 3, 7), RED)
        self.assertNotEqual(pixel(diff, 4, 7), RED)


if __name__ == "__main__":
    unittest.main()
