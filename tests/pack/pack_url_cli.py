"""`mhtml pack URL`: a page fetched from a loopback server this test starts and stops.

usage: pack_url_cli.py MHTML_BIN WORK_DIR

The site: a page with an image, a style sheet with a background, an iframe, and one image
the server answers with 404. Expected: exit status 1 (something left out, listed), an
archive whose every fetched reference resolves (mhtml refs --json), the 404 reported with
its URL, and no MUST finding from mhtml check. Then --same-origin on a page naming another
origin, and a usage error for --base with a URL.
"""

import functools
import http.server
import json
import os
import subprocess
import sys
import threading

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a7a5d1"
                    "a80000000049454e44ae426082")


def main() -> int:
    mhtml, work = sys.argv[1], sys.argv[2]
    site = os.path.join(work, "site")
    os.makedirs(os.path.join(site, "css"), exist_ok=True)
    files = {
        "index.html": b'<!DOCTYPE html><title>t</title><link rel="stylesheet" href="css/s.css">'
                      b'<img src="a.png"><img src="gone.png"><iframe src="f.html"></iframe>'
                      b'<img src="http://other.invalid/x.png">',
        "css/s.css": b"body { background: url(../b.png) }",
        "f.html": b"<img src=a.png>",
        "a.png": PNG,
        "b.png": PNG,
    }
    for name, data in files.items():
        with open(os.path.join(site, name), "wb") as f:
            f.write(data)
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    failures = []
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        out = os.path.join(work, "page.mhtml")
        env = dict(os.environ, no_proxy="*")
        done = subprocess.run([mhtml, "pack", url, "--same-origin", "--timeout", "60",
                               "--json", "-o", out], capture_output=True, timeout=120, env=env)
        if done.returncode != 1:
            failures.append(f"pack exited {done.returncode}, not 1: {done.stderr.decode()}")
        report = json.loads(done.stdout)
        parts = {p["label"] for p in report["parts"]}
        for name in ("", "css/s.css", "f.html", "a.png", "b.png"):
            if url + name not in parts and url + ("index.html" if not name else name) not in parts:
                failures.append(f"no part labelled {url + name}: {sorted(parts)}")
        unresolved = [r for r in report["references"] if r["outcome"] == "unresolved"]
        if not any("gone.png" in r["url"] for r in unresolved):
            failures.append(f"the 404 is not reported: {unresolved}")
        if any("other.invalid" in r["url"] and r["outcome"] == "packed"
               for r in report["references"]):
            failures.append("--same-origin fetched another origin")
        refs = json.loads(subprocess.run([mhtml, "refs", "--json", out], capture_output=True,
                                         timeout=60).stdout)
        text = json.dumps(refs)
        if "a.png" not in text or "b.png" not in text:
            failures.append("refs does not list the fetched images")
        check = json.loads(subprocess.run([mhtml, "check", "--json", out], capture_output=True,
                                          timeout=60).stdout)
        errors = [f for f in check["findings"] if f["level"] == "error"]
        if errors:
            failures.append(f"check errors: {errors}")
        usage = subprocess.run([mhtml, "pack", url, "--base", "http://x/", "-o",
                                os.path.join(work, "u.mhtml")], capture_output=True, timeout=60)
        if usage.returncode != 2:
            failures.append(f"--base with a URL exited {usage.returncode}, not 2")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    for f in failures:
        print("FAIL:", f)
    print("pack URL:", "ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
