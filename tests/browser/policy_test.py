#!/usr/bin/env python3
"""Script blocking in what `mhtml inline` and `mhtml extract` write (MHT-12.5), in Chromium.

Each case is an archive whose documents try to run something: a script, an event handler, a
`javascript:` URL, a refresh, an object, in every place a page can put one (before or after
comments that end early, a BOM, a DOCTYPE, a `<base>`, attributes on `<html>` and `<head>`,
no `<head>` at all, a page that is only text, an SVG or XHTML document, frames). What runs
would send a request to a loopback server that the test starts (127.0.0.1, a free port),
and a script would also set `document.title`. Both outputs of each archive are opened in
headless Chromium with scripts enabled:
- as written (scripts blocked by default): the server receives nothing and the title is
  unchanged;
- made with `--allow-scripts`: the server does receive the request, which proves that the
  case would catch a page that runs (a control for every case).

Environment: MHTML_BIN (the mhtml executable).
"""

from __future__ import annotations

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


class Beacons(http.server.BaseHTTPRequestHandler):
    """Records the path of every request; answers 204 (or a small script for .js)."""
    seen: list[str] = []
    lock = threading.Lock()

    def do_GET(self):  # noqa: N802 (the standard library's name)
        with self.lock:
            self.seen.append(self.path)
        body = b"document.title='RAN';" if self.path.endswith(".js") else b""
        self.send_response(200 if body else 204)
        if body:
            self.send_header("Content-Type", "text/javascript")
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def archive(root_type: str, root: str, parts: list[tuple[str, str, str]] = ()) -> bytes:
    """A multipart/related archive: the root (its type and text) at http://x.example/, then
    parts (location relative to it, type, text)."""
    lines = ["From: <Saved by policy_test.py>", "MIME-Version: 1.0",
             'Content-Type: multipart/related; type="text/html"; boundary="B"', "",
             "--B", f"Content-Type: {root_type}", "Content-Transfer-Encoding: binary",
             "Content-Location: http://x.example/", "", root]
    for location, content_type, text in parts:
        lines += ["--B", f"Content-Type: {content_type}", "Content-Transfer-Encoding: binary",
                  f"Content-Location: http://x.example/{location}", "", text]
    lines += ["--B--", ""]
    return "\r\n".join(lines).encode()


class ScriptsDoNotRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Beacons)
        cls.port = cls.server.server_address[1]
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()
        cls.work = tempfile.mkdtemp(prefix="mhtml-policy-")
        cls.browser = chromium.Browser()

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.server.shutdown()
        cls.server.server_close()
        shutil.rmtree(cls.work, ignore_errors=True)

    def run_js(self, name: str) -> str:
        """A script that marks the page and calls the server."""
        return (f"document.title='RAN';new Image().src='http://127.0.0.1:{self.port}/ran-{name}';"
                "void 0")

    def beacon(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/ran-{name}"

    def outputs(self, name: str, data: bytes, *options: str) -> list[str]:
        folder = os.path.join(self.work, name + "".join(options))
        os.makedirs(folder)
        path = os.path.join(folder, "archive.mhtml")
        with open(path, "wb") as f:
            f.write(data)
        for args in (["extract", *options, path, "-o", os.path.join(folder, "extracted")],
                     ["inline", *options, path, "-o", os.path.join(folder, "inlined.html")]):
            done = subprocess.run([MHTML, *args], capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 0, f"mhtml {args[0]}: {done.stderr}")
        with open(os.path.join(folder, "extracted", "manifest.json")) as f:
            root = json.load(f)["root"]
        return [os.path.join(folder, "extracted", root), os.path.join(folder, "inlined.html")]

    def check(self, name: str, data: bytes, control: bool = True) -> None:
        """Nothing runs in either output; with --allow-scripts the beacon comes (control)."""
        for allow in ((False, True) if control else (False,)):
            options = ("--allow-scripts",) if allow else ()
            for path in self.outputs(name, data, *options):
                label = f"{name} {os.path.basename(path)}{' --allow-scripts' if allow else ''}"
                with Beacons.lock:
                    Beacons.seen.clear()
                r = self.browser.render("file://" + path, scripts=True, timeout=60,
                                        evaluate="document.title")
                with Beacons.lock:
                    ran = [p for p in Beacons.seen if p.startswith(f"/ran-{name}")]
                if allow:
                    self.assertTrue(ran, f"{label}: the control did not run, so the case "
                                         f"proves nothing (requests: {r.requests})")
                else:
                    self.assertEqual(ran, [], f"{label}: something ran")
                    self.assertNotEqual(r.evaluated, "RAN", f"{label}: a script set the title")

    def page(self, name: str, html: str, parts=()) -> None:
        self.check(name, archive("text/html; charset=utf-8", html, list(parts)))

    # -- the page's own markup, in every position ------------------------------------------

    # The bug of issue 12: "<!-->" ends a comment at once, so a policy put after the next
    # "-->" came after the script.
    def test_comment_that_ends_at_once(self):
        self.page("cmt1", f"<!--><script>{self.run_js('cmt1')}</script><p>page<!-- end -->")

    def test_comment_with_three_dashes(self):
        self.page("cmt2", f"<!---><script>{self.run_js('cmt2')}</script><p>page<!-- end -->")

    def test_comment_ended_by_bang(self):
        self.page("cmt3", f"<!-- x --!><script>{self.run_js('cmt3')}</script><p>page<!-- -->")

    def test_script_first(self):
        self.page("first", f"<script>{self.run_js('first')}</script><p>page")

    def test_event_handlers(self):
        self.page("handler", f'<body onload="{self.run_js("handler")}"><img src="nowhere.png" '
                             f'onerror="{self.run_js("handler")}"><p>page')

    def test_javascript_url(self):
        self.page("jsurl", f'<iframe src="javascript:{self.run_js("jsurl")}"></iframe>'
                           f'<a id=a href="javascript:{self.run_js("jsurl")}">x</a>')

    def test_meta_refresh_first(self):
        self.page("refresh", f'<meta http-equiv="refresh" content="0; url={self.beacon("refresh")}">'
                             "<p>page")

    # Review findings: the attribute's value as the browser reads it, and its repeats.
    def test_meta_refresh_written_with_a_character_reference(self):
        self.page("refref", f'<meta http-equiv="&#114;efresh" content="0; url={self.beacon("refref")}">'
                            "<p>page")

    def test_meta_refresh_with_a_repeated_attribute(self):
        self.page("refrep", '<meta http-equiv="refresh" http-equiv="refresh" '
                            f'content="0; url={self.beacon("refrep")}"><p>page')

    def test_base_first(self):
        # A <base> before the policy would make "x.js" a loopback script.
        self.page("base", f'<base href="http://127.0.0.1:{self.port}/ran-base/">'
                          '<script src="x.js"></script><p>page')

    def test_bom_and_doctype_first(self):
        self.page("bom", f"\ufeff<!DOCTYPE html><script>{self.run_js('bom')}</script><p>page")

    def test_attributes_on_html_and_head(self):
        self.page("attrs", f'<!DOCTYPE html><html lang=en onpageshow="{self.run_js("attrs")}">'
                           f'<head profile=x><script>{self.run_js("attrs")}</script></head>'
                           f'<body onpageshow="{self.run_js("attrs")}"><p>page')

    def test_no_head(self):
        self.page("nohead", f"<!DOCTYPE html><title>t</title><script>{self.run_js('nohead')}"
                            "</script><p>page")

    def test_only_text(self):
        self.page("text", f"just text, then <script>{self.run_js('text')}</script>")

    def test_srcdoc_frame(self):
        script = self.run_js("srcdoc").replace("'", "&#39;")
        self.page("srcdoc", f'<iframe srcdoc="<script>{script}</script>"></iframe>')

    # -- documents of other types, and documents in frames ---------------------------------

    def test_svg_root(self):
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" '
               f'onload="{self.run_js("svgroot")}"><script>{self.run_js("svgroot")}</script>'
               '<rect width="100" height="100" fill="red"/></svg>')
        self.check("svgroot", archive("image/svg+xml", svg))

    def test_svg_frame(self):
        svg = (f'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload='
               f'"{self.run_js("svgframe")}"><script>{self.run_js("svgframe")}</script></svg>')
        self.page("svgframe", '<iframe src="pic.svg"></iframe><object data="pic.svg"></object>',
                  [("pic.svg", "image/svg+xml", svg)])

    def test_self_closing_svg_frame(self):
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" onload="{self.run_js("svgclosed")}"/>')
        self.page("svgclosed", '<iframe src="pic.svg"></iframe>',
                  [("pic.svg", "image/svg+xml", svg)])

    def test_xhtml_frame(self):
        xhtml = ('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head/>'
                 f"<body><script>{self.run_js('xhtml')}</script></body></html>")
        self.page("xhtml", '<iframe src="x.xhtml"></iframe>',
                  [("x.xhtml", "application/xhtml+xml", xhtml)])

    def test_xml_frame_with_xhtml_elements(self):
        xml = ('<?xml version="1.0"?><data><s:script xmlns:s="http://www.w3.org/1999/xhtml">'
               f"{self.run_js('xml')}</s:script></data>")
        self.page("xml", '<iframe src="data.xml"></iframe>', [("data.xml", "text/xml", xml)])

    # Review findings: a DOCTYPE's internal subset may hold a comment with "]>" and a tag,
    # or a lone quote; the XML parser sees through both, and so must the policy's placement.
    def test_svg_frame_with_a_tag_in_a_doctype_comment(self):
        svg = ('<!DOCTYPE svg [ <!-- ]><g> --> ]><svg xmlns="http://www.w3.org/2000/svg">'
               f"<script>{self.run_js('dtdtag')}</script></svg>")
        self.page("dtdtag", '<iframe src="pic.svg"></iframe>', [("pic.svg", "image/svg+xml", svg)])

    def test_svg_frame_with_a_quote_in_a_doctype_comment(self):
        svg = ("<!DOCTYPE svg [<!-- ' -->]><svg xmlns=\"http://www.w3.org/2000/svg\">"
               f"<script>{self.run_js('dtdquote')}</script></svg>")
        self.page("dtdquote", '<iframe src="pic.svg"></iframe>',
                  [("pic.svg", "image/svg+xml", svg)])

    # An SVG decoded by its XML declaration: ISO-2022-JP octets hide a fake root from a
    # reader that takes them for windows-1252.
    def test_svg_frame_in_iso_2022_jp(self):
        svg = ('<?xml version="1.0" encoding="ISO-2022-JP"?>\n<!-- \x1b$B-->x<ggg\x1b(B> -->\n'
               '<svg xmlns="http://www.w3.org/2000/svg">'
               f"<script>{self.run_js('jis')}</script></svg>")
        self.page("jis", '<iframe src="pic.svg"></iframe>', [("pic.svg", "image/svg+xml", svg)])

    def test_frames_and_objects_of_html(self):
        frame = f"<!--><script>{self.run_js('frames')}</script><p>frame<!-- end -->"
        self.page("frames", '<iframe src="f.html"></iframe><object data="f.html"></object>'
                            '<embed src="f.html">', [("f.html", "text/html", frame)])

    def test_part_of_another_type_named_like_a_page(self):
        # extract must not write it as a page (it would be one without a policy).
        evil = f"<script>{self.run_js('named')}</script>"
        self.check("named", archive("text/html", '<iframe src="evil.html"></iframe>',
                                    [("evil.html", "application/octet-stream", evil)]),
                   control=False)

    def test_plugin_object_points_at_nothing(self):
        # A PDF in an <object> would start a plugin; its fallback shows instead. Its own
        # request is the beacon when it is external and scripts are allowed.
        self.page("plugin", f'<object data="doc.pdf" type="application/pdf">fallback</object>'
                            f'<object data="{self.beacon("plugin")}.pdf">x</object>',
                  [("doc.pdf", "application/pdf", "%PDF-1.4")])


if __name__ == "__main__":
    unittest.main()
