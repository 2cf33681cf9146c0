#!/usr/bin/env python3
"""Headless Chromium over the DevTools protocol, for tests that look at pages as a person would.

Standard library only. Chromium is driven through ``--remote-debugging-pipe``: JSON messages,
each ended by a NUL byte, that the browser reads on its file descriptor 3 and writes on 4.

API
---
``Browser(width=1280, height=1024)``
    Context manager. Starts Chromium with a fresh temporary profile; leaving the ``with`` block
    ends it and removes the profile. Every wait has a timeout; failures raise ``BrowserError``,
    whose message ends with the tail of Chromium's stderr.

``Browser.render(url, *, scripts=False, full_page=True, timeout=30, evaluate=None,
fonts=False, capture=False) -> Rendering``
    Opens ``url`` (file:// or loopback only) in a fresh tab: page scripts disabled unless
    ``scripts`` (Chromium never runs the scripts of an MHTML archive anyway), a ``width`` x
    ``height`` viewport at device scale factor 1, hidden scrollbars, prefers-reduced-motion,
    CSS animations frozen at their start, animated images on their first frame, no text
    caret, only the fonts of ``PINNED_FONTS``. Waits for the load event, then for
    ``NETWORK_IDLE_SECONDS`` without a request in flight, then for ``document.fonts.ready``,
    and takes PNG screenshots ``width`` wide and, with ``full_page``, as high as the document
    (at least ``height``, at most ``MAX_HEIGHT``), else ``height`` high, ``SETTLE_SECONDS``
    apart until two in a row are the same (at most ``SETTLE_SHOTS``, else BrowserError:
    the page "kept changing"). With ``capture``, Chromium then saves the page as it is shown
    as an MHTML archive (``Page.captureSnapshot``, what "Save page as... single file" writes),
    in ``Rendering.mhtml``; pass ``scripts=True`` for the page to be what its scripts made.

``Rendering``
    ``png``: the screenshot (bytes).
    ``requests``: every URL the page and its frames asked for (Network.requestWillBeSent), in
    order, the document itself included, redirect targets too; data: URLs are only counted,
    in ``data_urls``.
    ``from_cache``: those Chromium answered from its memory cache, which is where the parts of
    an MHTML archive come from (Network.requestServedFromCache).
    ``network``: those that were neither served from the cache nor file:, blob: or about: URLs,
    i.e. that needed a server: an "offline" page has none.
    ``failed``: URLs of Network.loadingFailed.
    ``console``: console calls and browser log entries, as "level: text".
    ``evaluated``: with ``evaluate`` (a JavaScript expression), its value (returnByValue),
    computed by DevTools just before the screenshot (it works with page scripts disabled).
    ``shots``: how many screenshots it took to get two the same (2 for a still page).
    ``fonts``: with ``fonts=True``, the family names of the system fonts that drew the
    text of the page's own document (CSS.getPlatformFontsForNode).
    ``mhtml``: with ``capture=True``, the archive Chromium wrote (bytes), else b"".

``decode_png(data) -> (width, height, rows)``
    8-bit greyscale, grey+alpha, RGB or RGBA, non-interlaced, all five filter types; ``rows``
    is a list of ``height`` bytes objects of ``4 * width`` bytes each, RGBA.

``encode_png(width, height, rows) -> bytes``
    The reverse, for RGBA rows.

``compare_png(a, b) -> Difference``
    ``a`` and ``b`` are PNG bytes or decode_png results. ``same_size``; ``differing_pixels``
    (pixels whose RGBA differ, over the common area if the sizes differ); ``bbox``, the box
    (x0, y0, x1, y1), ends exclusive, around them, or None; ``identical``.

``write_diff_png(a, b, path) -> Difference``
    compare_png, and writes a faded copy of ``a`` with every differing pixel in red.

Nothing reaches the network: ``--host-resolver-rules`` makes every host name and IP literal
but localhost and 127.0.0.1 unresolvable. A page's requests are still reported:
requestWillBeSent comes before the resolution fails (net::ERR_NAME_NOT_RESOLVED).

CLI
---
    chromium.py screenshot URL OUT.png [--scripts] [--viewport-only] [--requests OUT.json]
                                       [--width W] [--height H] [--timeout S]
    chromium.py compare A.png B.png [--diff DIFF.png]    exit 0 identical, 1 different, 2 error

The Chromium binary is $MHTML_CHROMIUM, else Debian's /usr/lib/chromium/chromium (the binary
that /usr/bin/chromium starts after adding flags of its own from /etc/chromium.d), else
``chromium`` on PATH.
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import functools
import itertools
import json
import math
import os
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field

MAX_HEIGHT = 16384  # tallest full-page screenshot (pixels)
NETWORK_IDLE_SECONDS = 0.5
NO_CARET = "*, *::before, *::after { caret-color: transparent !important; }"
# A screenshot counts once the next one, SETTLE_SECONDS later, has the same pixels; at most
# SETTLE_SHOTS screenshots are taken before render() gives up on a page that keeps changing.
SETTLE_SECONDS = 0.3
SETTLE_SHOTS = 6

# The only fonts Chromium sees: those of the two packages that scripts/setup-deps.sh
# installs, whatever else a machine has (fonts-dejavu-extra, Noto, a user's ~/.fonts), and
# the rendering rules of Debian's fontconfig-config and fonts-dejavu-core, without the
# per-user and per-machine files (50-user.conf, 51-local.conf).
PINNED_FONTS = {
    "/usr/share/fonts/truetype/dejavu": [  # fonts-dejavu-core
        f"DejaVu{family}{style}.ttf" for family in ("Sans", "SansMono", "Serif")
        for style in ("", "-Bold")],
    "/usr/share/fonts/truetype/liberation": [  # fonts-liberation
        f"Liberation{family}-{style}.ttf" for family in ("Mono", "Sans", "SansNarrow", "Serif")
        for style in ("Regular", "Bold", "Italic", "BoldItalic")],
}
FONT_RULES = [
    "/usr/share/fontconfig/conf.avail/" + name for name in (
        "10-hinting-slight.conf", "10-scale-bitmap-fonts.conf", "10-yes-antialias.conf",
        "11-lcdfilter-default.conf", "20-unhint-small-vera.conf", "30-metric-aliases.conf",
        "40-nonlatin.conf", "45-generic.conf", "45-latin.conf", "48-spacing.conf",
        "49-sansserif.conf", "60-generic.conf", "60-latin.conf", "65-nonlatin.conf",
        "69-unifont.conf", "70-no-bitmaps.conf", "80-delicious.conf", "90-synthetic.conf")
] + [
    f"/etc/fonts/conf.avail/{n}-dejavu-{f}.conf" for n, fs in (
        ("20-unhint-small", ("sans", "sans-mono", "serif", "lgc-sans", "lgc-sans-mono",
                             "lgc-serif")),
        ("57", ("sans", "sans-mono", "serif")),
        ("58", ("lgc-sans", "lgc-sans-mono", "lgc-serif"))) for f in fs
]


class BrowserError(RuntimeError):
    """Chromium failed, answered with an error, or did not answer in time."""


@dataclass
class Rendering:
    png: bytes
    requests: list[str] = field(default_factory=list)
    from_cache: list[str] = field(default_factory=list)
    network: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    data_urls: int = 0
    evaluated: object = None  # the value of render(evaluate=...), taken before the screenshot
    shots: int = 0  # screenshots taken until two in a row were the same
    fonts: list[str] = field(default_factory=list)  # with render(fonts=True)
    mhtml: bytes = b""  # with render(capture=True)


def keep_artifacts(group: str, label: str, files: dict[str, bytes],
                   diff: tuple[bytes, bytes] | None = None) -> None:
    """Saves a failure's files under $MHTML_BROWSER_ARTIFACTS/GROUP/LABEL/ (nothing when the
    variable is unset), and with `diff` = (expected PNG, got PNG) a diff.png of the two."""
    root = os.environ.get("MHTML_BROWSER_ARTIFACTS")
    if not root:
        return
    folder = os.path.join(root, group, label)
    os.makedirs(folder, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    if diff is not None:
        write_diff_png(diff[0], diff[1], os.path.join(folder, "diff.png"))


def find_chromium() -> str:
    for candidate in (os.environ.get("MHTML_CHROMIUM"), "/usr/lib/chromium/chromium",
                      shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise BrowserError("no Chromium: install Debian's chromium package or set MHTML_CHROMIUM")


def pinned_fontconfig(folder: str) -> str:
    """Writes a fontconfig configuration that offers Chromium only PINNED_FONTS (symbolic
    links in folder/fonts) under FONT_RULES, with its own cache; returns its path."""
    fonts = os.path.join(folder, "fonts")
    os.makedirs(fonts)
    missing = []
    for directory, names in PINNED_FONTS.items():
        for name in names:
            path = os.path.join(directory, name)
            if os.path.exists(path):
                os.symlink(path, os.path.join(fonts, name))
            else:
                missing.append(path)
    missing += [rule for rule in FONT_RULES if not os.path.exists(rule)]
    if missing:
        raise BrowserError(f"missing {', '.join(missing)}: install fonts-liberation, "
                           "fonts-dejavu-core and fontconfig (scripts/setup-deps.sh)")
    config = os.path.join(folder, "fonts.conf")
    with open(config, "w") as f:
        f.write('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
                f"<fontconfig>\n  <dir>{fonts}</dir>\n"
                f"  <cachedir>{os.path.join(folder, 'fontcache')}</cachedir>\n")
        f.writelines(f"  <include>{rule}</include>\n" for rule in FONT_RULES)
        f.write("</fontconfig>\n")
    return config


class Browser:
    def __init__(self, width: int = 1280, height: int = 1024, *, startup_timeout: float = 30):
        self.width, self.height = width, height
        self._ids = itertools.count(1)
        self._waiting: set[int] = set()  # ids of the commands whose answers call() awaits
        self._answers: dict[int, dict] = {}
        self._listeners = []  # functions called with every event
        self._chunks: list[bytes] = []  # the start of a message whose NUL has not come yet
        self._pid = None  # Chromium's, also the id of its process group
        self._to_browser = self._from_browser = None
        self._profile = tempfile.mkdtemp(prefix="mhtml-chromium-")
        self._stderr = open(os.path.join(self._profile, "stderr.log"), "w+b")
        try:
            self._launch(startup_timeout)
        except BaseException:
            self.close()
            raise

    def _launch(self, timeout: float) -> None:
        flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--user-data-dir=" + os.path.join(self._profile, "profile"),
            "--remote-debugging-pipe",
            f"--window-size={self.width},{self.height}",
            # Animated GIF, WebP and APNG images stay on their first frame (ImageAnimationPolicy
            # kNoAnimation), as CSS animations do (Animation.setPlaybackRate in render()).
            "--blink-settings=imageAnimationPolicy=2",
            # Safety net: no host name or IP literal resolves but localhost and 127.0.0.1.
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
            "about:blank",
        ]
        binary = find_chromium()
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # posix_spawn (no Python code between fork and exec, so safe with threads) puts the
        # child's ends at 3 and 4; copies at 10 or above cannot be overwritten on the way.
        # The other descriptors Python opened are not inheritable (PEP 446).
        child_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser_r)
        os.close(from_browser_w)
        actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_DUP2, self._stderr.fileno(), 1),
                   (os.POSIX_SPAWN_DUP2, self._stderr.fileno(), 2),
                   (os.POSIX_SPAWN_DUP2, child_r, 3),
                   (os.POSIX_SPAWN_DUP2, child_w, 4)]
        try:  # setsid: Chromium and its helpers get a process group of their own
            environment = dict(os.environ, FONTCONFIG_FILE=pinned_fontconfig(self._profile))
            self._pid = os.posix_spawn(binary, [binary, *flags], environment,
                                       file_actions=actions, setsid=True)
        finally:
            os.close(child_r)
            os.close(child_w)
        self.version = self.call("Browser.getVersion", timeout=timeout).get("product", "?")

    # -- protocol -----------------------------------------------------------------------------

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        """Sends a command without waiting for its answer (which is dropped); returns its id."""
        message = {"id": next(self._ids), "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._to_browser, data):]
        except OSError as e:
            raise self._error(f"cannot write to Chromium ({e})") from None
        return message["id"]

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 10) -> dict:
        """Sends a command and returns its result; BrowserError if it failed or timed out."""
        id_ = self.send(method, params, session)
        self._waiting.add(id_)
        try:
            self.wait_until(lambda: id_ in self._answers, timeout, f"an answer to {method}")
        finally:
            self._waiting.discard(id_)
        answer = self._answers.pop(id_)
        if "error" in answer:
            raise self._error(f"{method} failed: {answer['error'].get('message')}")
        return answer.get("result", {})

    def wait_until(self, condition, timeout: float, what) -> None:
        """Reads messages until condition() holds; BrowserError after timeout seconds. `what`
        (a string, or a function giving one) says what was awaited."""
        deadline = time.monotonic() + timeout
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                what = what() if callable(what) else what
                raise self._error(f"timed out ({timeout:.1f} s) waiting for {what}")
            self._read(min(left, 0.1))

    def _read(self, timeout: float) -> None:
        if not select.select([self._from_browser], [], [], timeout)[0]:
            return
        chunk = os.read(self._from_browser, 1 << 20)
        if not chunk:
            raise self._error("Chromium closed the pipe")
        if b"\0" not in chunk:
            self._chunks.append(chunk)
            return
        first, *messages, rest = chunk.split(b"\0")
        messages.insert(0, b"".join(self._chunks) + first)
        self._chunks = [rest]
        for raw in messages:
            message = json.loads(raw)
            if "id" not in message:
                for listener in list(self._listeners):
                    listener(message)
            elif message["id"] in self._waiting:
                self._answers[message["id"]] = message

    def stderr_tail(self, lines: int = 20) -> str:
        """The last lines Chromium wrote, less its complaints about the missing D-Bus."""
        self._stderr.seek(0)
        text = self._stderr.read().decode(errors="replace")
        return "\n".join([line for line in text.splitlines() if "dbus" not in line][-lines:])

    def _error(self, what: str) -> BrowserError:
        status = _exit_status(self._pid) if self._pid else None
        if status:
            what += f" (Chromium exited with {status})"
        return BrowserError(f"{what}\n--- Chromium's stderr, tail ---\n{self.stderr_tail()}")

    # -- rendering ----------------------------------------------------------------------------

    def render(self, url: str, *, scripts: bool = False, full_page: bool = True,
               timeout: float = 30, evaluate: str | None = None,
               fonts: bool = False, capture: bool = False) -> Rendering:
        deadline = time.monotonic() + timeout

        def left() -> float:
            return max(0.0, deadline - time.monotonic())

        result = Rendering(png=b"")
        sessions: set[str] = set()  # the page's, and those of frames in other processes
        requests: dict[str, list] = {}  # requestId -> [URLs (redirects), finished, from cache]
        loads: set[str] = set()  # loaderIds of the load events seen
        last_network_event = [time.monotonic()]

        def on_event(message: dict) -> None:
            if message.get("sessionId") not in sessions:
                return
            method, params = message["method"], message.get("params", {})
            if method.startswith("Network."):
                last_network_event[0] = time.monotonic()
            if method == "Target.attachedToTarget":  # a frame in a renderer process of its own
                child = params["sessionId"]
                sessions.add(child)
                for m, p in self._session_setup(scripts, top_level=False):
                    self.send(m, p, child)
                self.send("Runtime.runIfWaitingForDebugger", None, child)
            elif method == "Network.requestWillBeSent":
                url_ = params["request"]["url"]
                if url_.startswith("data:"):
                    result.data_urls += 1
                else:  # a redirect comes with the same requestId and the new URL
                    result.requests.append(url_)
                    requests.setdefault(params["requestId"], [[], False, False])[0].append(url_)
            elif method == "Network.requestServedFromCache" and params["requestId"] in requests:
                requests[params["requestId"]][2] = True
            elif method in ("Network.loadingFinished", "Network.loadingFailed"):
                request = requests.get(params["requestId"])
                if request:
                    request[1] = True
                    if method == "Network.loadingFailed":
                        result.failed.append(request[0][-1])
            elif method == "Page.lifecycleEvent" and params["name"] == "load":
                loads.add(params["loaderId"])  # this can come before Page.navigate's answer
            elif method == "Runtime.consoleAPICalled":
                args = params["args"]
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in args)
                result.console.append(f"{params['type']}: {text}")
            elif method == "Log.entryAdded":
                result.console.append(f"{params['entry']['level']}: {params['entry']['text']}")

        def network_idle() -> bool:
            return (all(finished for _, finished, _ in requests.values())
                    and time.monotonic() - last_network_event[0] >= NETWORK_IDLE_SECONDS)

        def in_flight() -> str:
            return str([urls[-1] for urls, finished, _ in requests.values() if not finished])

        target = self.call("Target.createTarget", {"url": "about:blank"},
                           timeout=left())["targetId"]
        self._listeners.append(on_event)
        try:
            session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                timeout=left())["sessionId"]
            sessions.add(session)
            for method, params in self._session_setup(scripts, top_level=True):
                self.call(method, params, session, timeout=left())

            navigation = self.call("Page.navigate", {"url": url}, session, timeout=left())
            if navigation.get("errorText"):
                raise self._error(f"cannot open {url}: {navigation['errorText']}")
            loader = navigation.get("loaderId")
            if not loader:
                raise self._error(f"{url}: no new document (a same-document navigation?)")
            self.wait_until(lambda: loader in loads, left(), f"the load event of {url}")
            self.wait_until(network_idle, left(), lambda: f"{NETWORK_IDLE_SECONDS} s without "
                            f"a request in flight; in flight: {in_flight()}")
            # DevTools' own evaluation still runs with page scripts disabled.
            fonts = self.call("Runtime.evaluate", {
                "expression": "document.fonts.ready.then(fonts => fonts.status)",
                "awaitPromise": True, "returnByValue": True}, session, timeout=left())
            if fonts.get("result", {}).get("value") != "loaded":
                raise self._error(f"document.fonts.ready: {fonts}")
            self._hide_caret(session, left())
            # Screenshots until two in a row, SETTLE_SECONDS apart, are the same: whatever
            # still changes the page (a late decode, a font, a frame) shows up as a difference.
            previous = None
            while True:
                if evaluate:  # a JSON-able value the test wants from the page as it is shown
                    value = self.call("Runtime.evaluate", {
                        "expression": evaluate, "returnByValue": True}, session, timeout=left())
                    if "exceptionDetails" in value:
                        raise self._error(f"evaluate: {value['exceptionDetails']}")
                    result.evaluated = value.get("result", {}).get("value")
                result.png = self._screenshot(session, full_page, left())
                result.shots += 1
                if result.png == previous:
                    break
                if result.shots >= SETTLE_SHOTS:
                    change = compare_png(previous, result.png)
                    raise self._error(f"{url} kept changing: {result.shots} screenshots "
                                      f"{SETTLE_SECONDS} s apart, the last two differ in "
                                      f"{change.differing_pixels} pixels in {change.bbox}")
                previous = result.png
                end = time.monotonic() + min(SETTLE_SECONDS, left())
                self.wait_until(lambda: time.monotonic() >= end, left() + 1, "a pause")
            if fonts:
                result.fonts = self._platform_fonts(session, left())
            if capture:  # the page as it was just shown; the archive is ASCII (QP, base64)
                data = self.call("Page.captureSnapshot", {"format": "mhtml"}, session,
                                 timeout=left())["data"]
                result.mhtml = data.encode("utf-8")
            for urls, _, cached in requests.values():
                for url_ in urls:
                    if cached:
                        result.from_cache.append(url_)
                    elif url_.split(":", 1)[0] not in ("file", "blob", "about"):
                        result.network.append(url_)
            return result
        except BrowserError as e:
            if left() > 0:
                raise
            raise BrowserError(f"render({url!r}) took over timeout={timeout:g} s: {e}") from None
        finally:
            self._listeners.remove(on_event)
            try:
                self.call("Target.closeTarget", {"targetId": target}, timeout=5)
            except BrowserError:
                pass

    def _platform_fonts(self, session: str, timeout: float) -> list[str]:
        """The family names of the system fonts that drew the text of the page's own
        document (CSS.getPlatformFontsForNode over every element)."""
        root = self.call("DOM.getDocument", {"depth": 0}, session, timeout=timeout)["root"]
        nodes = self.call("DOM.querySelectorAll", {"nodeId": root["nodeId"], "selector": "*"},
                          session, timeout=timeout)["nodeIds"]
        families = set()
        for node in nodes:
            used = self.call("CSS.getPlatformFontsForNode", {"nodeId": node}, session,
                             timeout=timeout)["fonts"]
            families.update(f["familyName"] for f in used if not f.get("isCustomFont"))
        return sorted(families)

    def _screenshot(self, session: str, full_page: bool, timeout: float) -> bytes:
        height = self.height
        if full_page:
            content = self.call("Page.getLayoutMetrics", None, session,
                                timeout=timeout)["cssContentSize"]["height"]
            height = min(MAX_HEIGHT, max(self.height, math.ceil(content)))
        shot = self.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": full_page,
            "clip": {"x": 0, "y": 0, "width": self.width, "height": height, "scale": 1}},
            session, timeout=timeout)
        return base64.b64decode(shot["data"])

    def _session_setup(self, scripts: bool, top_level: bool) -> list[tuple[str, dict | None]]:
        """Commands that make a page's session, or a frame's in another process, observable
        and its rendering stable."""
        commands = [
            ("Network.enable", None),
            ("Page.enable", None),
            ("Page.setLifecycleEventsEnabled", {"enabled": True}),
            ("Runtime.enable", None),
            ("Log.enable", None),
            ("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                      "flatten": True}),
            ("Emulation.setScriptExecutionDisabled", {"value": not scripts}),
            ("Emulation.setScrollbarsHidden", {"hidden": True}),
            ("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion",
                                                          "value": "reduce"}]}),
            ("Animation.enable", None),
            ("Animation.setPlaybackRate", {"playbackRate": 0}),  # animations stay at their start
        ]
        if top_level:  # frames refuse this one: "can only be executed on top-level targets"
            commands.append(("Emulation.setDeviceMetricsOverride", {
                "width": self.width, "height": self.height, "deviceScaleFactor": 1,
                "mobile": False}))
        return commands

    def _hide_caret(self, session: str, timeout: float) -> None:
        """A caret blinks in a focused field (autofocus); an inspector style sheet hides it
        without touching the document."""
        self.call("DOM.enable", None, session, timeout=timeout)
        self.call("CSS.enable", None, session, timeout=timeout)
        frame = self.call("Page.getFrameTree", None, session, timeout=timeout)["frameTree"]["frame"]
        sheet = self.call("CSS.createStyleSheet", {"frameId": frame["id"]}, session,
                          timeout=timeout)["styleSheetId"]
        self.call("CSS.setStyleSheetText", {"styleSheetId": sheet, "text": NO_CARET}, session,
                  timeout=timeout)

    # -- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        """Ends Chromium (Browser.close, then SIGKILL to its process group) and removes the
        profile. Safe to call more than once."""
        pid, self._pid = self._pid, None
        if pid:
            try:
                self.send("Browser.close")
            except BrowserError:
                pass
            deadline = time.monotonic() + 5
            while _exit_status(pid) is None and time.monotonic() < deadline:
                time.sleep(0.05)
            try:  # not reaped yet, so the group is still Chromium's: end any helper left
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
        for fd in (self._to_browser, self._from_browser):
            if fd is not None:
                os.close(fd)
        self._to_browser = self._from_browser = None
        self._stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _exit_status(pid: int) -> str | None:
    """How the child ended, or None while it runs; without reaping it, so that its id stays
    ours until waitpid."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    if info is None:
        return None
    killed = info.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
    return f"{'signal' if killed else 'status'} {info.si_status}"


# -- PNG ------------------------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows), rows as RGBA bytes; 8-bit non-interlaced images only."""
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError("not a PNG")
    pos, header, idat = len(PNG_SIGNATURE), None, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"unsupported PNG: bit depth {depth}, colour type {colour}, "
                         f"interlace {interlace}")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise ValueError("PNG image data of the wrong size")
    rows, previous = [], bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        row = _unfilter(raw[start], raw[start + 1:start + 1 + stride], previous, channels)
        rows.append(_to_rgba(row, channels))
        previous = row
    return width, height, rows


def _unfilter(kind: int, row: bytes, up: bytes, bpp: int) -> bytes:
    n = len(row)
    if kind == 0:  # None
        return row
    if kind == 1:  # Sub: a running sum per channel, as log2(n) shifted byte-wise additions
        total, shift = int.from_bytes(row, "big"), bpp
        while shift < n:
            total = _add_bytes(total, total >> (8 * shift), n)
            shift *= 2
        return total.to_bytes(n, "big")
    if kind == 2:  # Up
        total = _add_bytes(int.from_bytes(row, "big"), int.from_bytes(up, "big"), n)
        return total.to_bytes(n, "big")
    out = bytearray(row)
    if kind == 3:  # Average
        for i in range(n):
            left = out[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + ((left + up[i]) >> 1)) & 0xFF
        return bytes(out)
    if kind == 4:  # Paeth
        for i in range(n):
            a, b, c = (out[i - bpp], up[i], up[i - bpp]) if i >= bpp else (0, up[i], 0)
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        return bytes(out)
    raise ValueError(f"bad PNG filter type {kind}")


@functools.lru_cache(maxsize=8)
def _byte_masks(n: int) -> tuple[int, int]:
    return int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big")


def _add_bytes(x: int, y: int, n: int) -> int:
    """Byte-wise sum modulo 256 of two n-byte big-endian numbers: no carry crosses a byte."""
    low, high = _byte_masks(n)
    return ((x & low) + (y & low)) ^ ((x ^ y) & high)


def _to_rgba(row: bytes, channels: int) -> bytes:
    if channels == 4:
        return row
    pixels = len(row) // channels
    out = bytearray(b"\xff" * (4 * pixels))
    for c in range(3):
        out[c::4] = row[c::3] if channels == 3 else row[0::channels]
    if channels == 2:
        out[3::4] = row[1::2]
    return bytes(out)


def encode_png(width: int, height: int, rows: list[bytes]) -> bytes:
    """An RGBA PNG of rows of 4 * width bytes (filter type None on every row)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    raw = b"".join(b"\0" + bytes(row) for row in rows)
    return (PNG_SIGNATURE + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", zlib.compress(raw, 6))
            + png_chunk(b"IEND", b""))


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


@dataclass
class Difference:
    same_size: bool
    differing_pixels: int  # over the area both images cover
    bbox: tuple[int, int, int, int] | None  # x0, y0, x1, y1; x1 and y1 exclusive

    @property
    def identical(self) -> bool:
        return self.same_size and self.differing_pixels == 0


def _decoded(image):
    return decode_png(image) if isinstance(image, (bytes, bytearray)) else image


def _differences(a, b):
    """(same size, common width, height, rows of a, rows of b, {y: [differing x, ...]})."""
    (wa, ha, ra), (wb, hb, rb) = _decoded(a), _decoded(b)
    width, height = min(wa, wb), min(ha, hb)
    ra = [row[:4 * width] for row in ra[:height]]
    rb = [row[:4 * width] for row in rb[:height]]
    diff = {y: [x for x in range(width) if ra[y][4 * x:4 * x + 4] != rb[y][4 * x:4 * x + 4]]
            for y in range(height) if ra[y] != rb[y]}
    return (wa, ha) == (wb, hb), width, height, ra, rb, diff


def _summary(same_size: bool, diff: dict) -> Difference:
    if not diff:
        return Difference(same_size, 0, None)
    box = (min(xs[0] for xs in diff.values()), min(diff),
           max(xs[-1] for xs in diff.values()) + 1, max(diff) + 1)
    return Difference(same_size, sum(len(xs) for xs in diff.values()), box)


def compare_png(a, b) -> Difference:
    """Compares two images (PNG bytes or decode_png results) pixel by pixel."""
    same_size, _, _, _, _, diff = _differences(a, b)
    return _summary(same_size, diff)


_FADE = bytes(191 + v // 4 for v in range(256))


def write_diff_png(a, b, path: str) -> Difference:
    """compare_png, and writes to `path` a faded copy of `a` (over the area both images cover)
    with every pixel that differs in `b` in red."""
    same_size, width, height, ra, _, diff = _differences(a, b)
    rows = []
    for y in range(height):
        row = bytearray(ra[y].translate(_FADE))
        row[3::4] = b"\xff" * width
        for x in diff.get(y, ()):
            row[4 * x:4 * x + 4] = b"\xff\x00\x00\xff"
        rows.append(bytes(row))
    with open(path, "wb") as f:
        f.write(encode_png(width, height, rows))
    return _summary(same_size, diff)


# -- command line ---------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Headless Chromium screenshots and PNG comparison for mhtml's browser tests.")
    commands = parser.add_subparsers(dest="command", required=True)
    shot = commands.add_parser(
        "screenshot", help="render a file:// or loopback URL to a PNG",
        description="Render a file:// or loopback URL to a PNG, the whole document height "
        "unless --viewport-only. Page scripts stay off unless --scripts; no host but localhost "
        "and 127.0.0.1 resolves.")
    shot.add_argument("url")
    shot.add_argument("out", metavar="OUT.png")
    shot.add_argument("--scripts", action="store_true", help="let page scripts run")
    shot.add_argument("--viewport-only", action="store_true",
                      help="capture the viewport, not the whole document height")
    shot.add_argument("--requests", metavar="OUT.json", help="write the requests made, the "
                      "failed ones, those that needed a server and console messages as JSON")
    shot.add_argument("--width", type=int, default=1280, help="viewport width (1280)")
    shot.add_argument("--height", type=int, default=1024, help="viewport height (1024)")
    shot.add_argument("--timeout", type=float, default=30, help="seconds (30)")
    compare = commands.add_parser(
        "compare", help="compare two PNGs pixel by pixel",
        description="Compare two PNGs pixel by pixel. Exit status 0 identical, 1 different "
        "(in size or pixels), 2 error.")
    compare.add_argument("a", metavar="A.png")
    compare.add_argument("b", metavar="B.png")
    compare.add_argument("--diff", metavar="DIFF.png",
                         help="write a faded copy of A.png with the differing pixels in red")
    args = parser.parse_args(argv)
    try:
        if args.command == "screenshot":
            with Browser(args.width, args.height) as browser:
                r = browser.render(args.url, scripts=args.scripts,
                                   full_page=not args.viewport_only, timeout=args.timeout)
            with open(args.out, "wb") as f:
                f.write(r.png)
            if args.requests:
                with open(args.requests, "w") as f:
                    json.dump({"requests": r.requests, "from_cache": r.from_cache,
                               "network": r.network, "failed": r.failed,
                               "data_urls": r.data_urls, "console": r.console}, f, indent=2)
            width, height, _ = decode_png(r.png)
            print(f"{args.out}: {width}x{height}; {len(r.requests)} requests, "
                  f"{len(r.network)} needing a server, {len(r.failed)} failed")
            return 0
        with open(args.a, "rb") as fa, open(args.b, "rb") as fb:
            a, b = decode_png(fa.read()), decode_png(fb.read())
        d = write_diff_png(a, b, args.diff) if args.diff else compare_png(a, b)
        sizes = "" if d.same_size else f"sizes differ: {a[:2]} and {b[:2]}; "
        print(f"{sizes}{d.differing_pixels} differing pixels"
              + (f" in {d.bbox}" if d.bbox else "") + (" (common area)" if sizes else ""))
        return 0 if d.identical else 1
    except (BrowserError, OSError, ValueError, zlib.error) as e:
        print(f"chromium.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
