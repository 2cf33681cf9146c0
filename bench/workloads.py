#!/usr/bin/env python3
"""mhtml's end-to-end reader workloads: deterministic MHTML archives and their ground truth.

Each workload is one archive written the way Chromium saves a page (a multipart/related
with a quoted-printable HTML root, CSS as quoted-printable, images and fonts as base64 in
76-character lines), made from a fixed seed with the Python 3 standard library only, so
the same Python writes the same bytes (manifest.json carries the SHA-256 of every file).

  small   a saved page: 60 KB HTML root, 3 style sheets (6-30 KB), 25 images (2-50 KB,
          about 560 KB in all); about 0.8 MB, CRLF
  large   2,000 leaves, about 305 MB: 1,800 base64 images and fonts (0.5 KB to 8 MB) and
          200 quoted-printable HTML (70%) and CSS (30%) parts, about 8% of the file; CRLF
  many    100,000 leaves, about 65 MB: a 2 KB root, then 70% base64 images of 100-600
          octets and 30% one-line quoted-printable CSS; the cost per part
  lf      the shape of large at about 100 MB (667 leaves), every line ending a bare LF
  batch   a folder of 2,000 saved pages like small (0.35-0.7 MB of images each), about
          1.5 GB, read by one process: the cost per file

The shapes (sizes, part counts, encodings, line endings, header fields) are those of the
workloads of the shared bench kit (../shared/bench, gen_corpus.py), so numbers measured
on the two are comparable; the bytes differ.

Ground truth, per workload, in OUT/manifest.json:
  parts          leaf parts
  decoded_bytes  decoded octets over all leaves. A quoted-printable body decodes to its
                 text including the text's last line break: the generator leaves a blank
                 line between each body and the next delimiter, and the line break before
                 the delimiter belongs to the delimiter (RFC 2046 5.1.1)
  leaves_sha256  SHA-256 over (decoded length as 8 octets, big-endian, then SHA-256 of the
                 decoded body) of every leaf in order: `--verify` recomputes it with
                 Python's email package, which checks the ground truth itself
  sha256, size   of the file (batch: of the folder's files' SHA-256s in name order, and the
                 sum of their sizes)

usage:
  workloads.py [--out DIR] [--only small,large,many,lf] [--missing] [--batch-files N]
  workloads.py --out DIR --verify small,many     check files against the manifest
"""
import argparse
import base64
import binascii
import email.parser
import email.policy
import hashlib
import json
import os
import random
import sys
import time

SEED = 0x6D68746D6C  # "mhtml"
VERSION = 1          # bumped whenever the bytes written change
ALL = ["small", "large", "many", "lf", "batch"]
DEFAULT = "small,large,many,lf"


# ------------------------------------------------------------------------ text material

class Vocabulary:
    """Pronounceable words plus a few non-ASCII ones, so QP bodies carry =XX escapes."""

    ONSETS = ["b", "br", "c", "ch", "d", "f", "g", "gr", "h", "k", "l", "m", "n", "p", "pl",
              "r", "s", "st", "t", "tr", "v", "w", "z"]
    NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "y"]
    CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "x"]
    FOREIGN = ["Ελληνικά", "größer", "crème", "señal", "Москва", "東京", "한국어", "ça",
               "fjörður", "–", "…", "«guillemets»", "™", "°C", "µs", "🙂", "✓", "½", "ß", "ñ"]

    def __init__(self, rng, count=700):
        words = set()
        while len(words) < count:
            syllables = rng.randint(1, 3)
            words.add("".join(rng.choice(self.ONSETS) + rng.choice(self.NUCLEI) +
                              rng.choice(self.CODAS) for _ in range(syllables)))
        self.words = sorted(words)
        self.rng = rng

    def word(self):
        # about 1 word in 35 is non-ASCII, as on a real page with a few names and symbols
        if self.rng.random() < 0.028:
            return self.rng.choice(self.FOREIGN)
        return self.rng.choice(self.words)

    def sentence(self, lo, hi):
        return " ".join(self.word() for _ in range(self.rng.randint(lo, hi)))


ELEMENTS = ["p", "div", "span", "li", "td", "h2", "h3", "blockquote", "figcaption", "a"]
CLASSES = ["main", "article__body", "sidebar", "teaser teaser--wide", "nav-item", "grid-cell",
           "btn", "caption", "promo", "footer-links", "comment", "author"]


def make_html(rng, vocab, size, eol, host):
    """About `size` octets of page-like HTML: attributes (each '=' becomes =3D in QP), lines
    of 40 to 500 octets (so QP folds the long ones), indentation and a few trailing blanks."""
    r = rng
    lines = ['<!DOCTYPE html>',
             '<html lang="en"><head><meta charset="utf-8"><title>%s</title>' % vocab.sentence(3, 8),
             '<link rel="stylesheet" href="https://%s/static/main.css">' % host,
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             '</head><body>']
    total = sum(len(x) + len(eol) for x in lines)
    while total < size:
        el = r.choice(ELEMENTS)
        text = vocab.sentence(4, 70)
        if el == "a":
            line = '<a class="%s" href="https://%s/%s/%d?page=%d&amp;lang=en">%s</a>' % (
                r.choice(CLASSES), host, vocab.word(), r.randint(1, 10**6), r.randint(1, 50), text)
        else:
            line = '<%s class="%s" id="n%d">%s</%s>' % (el, r.choice(CLASSES), r.randint(1, 10**6),
                                                      text, el)
        if r.random() < 0.2:
            line = "\t" * r.randint(1, 3) + line
        if r.random() < 0.04:
            line += "  "
        lines.append(line)
        total += len(line.encode()) + len(eol)
    lines.append("</body></html>")
    return (eol.join(lines) + eol).encode()


def make_css(rng, vocab, size, eol):
    r = rng
    lines = ['@charset "utf-8";']
    total = len(lines[0]) + len(eol)
    while total < size:
        props = ["display:%s" % r.choice(["block", "flex", "grid", "none"]),
                 "padding:%dpx %dpx" % (r.randint(0, 32), r.randint(0, 32)),
                 "color:#%06x" % r.getrandbits(24),
                 "background:url(https://static.example.com/img/%s.svg) no-repeat" % vocab.word(),
                 "font:%dpx/%.1f \"%s\",serif" % (r.randint(10, 30), r.uniform(1, 2), vocab.word())]
        r.shuffle(props)
        rule = ".%s-%s %s{%s}" % (vocab.word(), vocab.word(), r.choice(ELEMENTS),
                                  ";".join(props[:r.randint(1, 5)]))
        if r.random() < 0.25:
            rule = "/* %s */ %s" % (vocab.sentence(2, 10), rule)
        lines.append(rule)
        total += len(rule.encode()) + len(eol)
    return (eol.join(lines) + eol).encode()


SIGNATURES = {  # the first octets of each format, then random octets (incompressible)
    "image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF",
    "image/gif": b"GIF89a", "image/webp": b"RIFF\x24\x00\x00\x00WEBPVP8 ",
    "font/woff2": b"wOF2", "application/font-woff": b"wOFF",
}
SUFFIX = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
          "font/woff2": "woff2", "application/font-woff": "woff"}


def make_binary(rng, ctype, size):
    head = SIGNATURES[ctype]
    return head + rng.randbytes(max(0, size - len(head)))


def spread(rng, count, total, lo, hi, sigma):
    """`count` sizes from a log-normal law, scaled to about `total`, clamped to [lo, hi]."""
    weights = [rng.lognormvariate(0.0, sigma) for _ in range(count)]
    scale = total / sum(weights)
    return [max(lo, min(hi, round(w * scale))) for w in weights]


# ------------------------------------------------------------------------ the archive

class ArchiveWriter:
    """Writes one archive as Chromium does and keeps the ground truth of what it wrote."""

    def __init__(self, path, rng, eol, url, subject):
        self.path, self.eol = path, eol
        self.out = open(path, "wb", buffering=1 << 20)
        alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        self.boundary = "----MultipartBoundary--%s----" % "".join(rng.choice(alphabet) for _ in range(42))
        self.leaves = self.decoded = 0
        self.per_encoding = {"base64": [0, 0], "quoted-printable": [0, 0]}
        self.digest = hashlib.sha256()
        head = ["From: <Saved by Blink>",
                "Snapshot-Content-Location: " + url,
                "Subject: " + subject,
                "Date: Mon, 24 Nov 2025 09:30:00 -0000",
                "MIME-Version: 1.0",
                "Content-Type: multipart/related;",
                '\ttype="text/html";',
                '\tboundary="%s"' % self.boundary, "", ""]
        self.out.write((eol.join(head) + eol).encode())

    def add(self, ctype, content, location, content_id=None):
        eol = self.eol
        text = ctype.startswith("text/")
        encoding = "quoted-printable" if text else "base64"
        fields = ["--" + self.boundary, "Content-Type: " + ctype]
        if content_id:
            fields.append("Content-ID: " + content_id)
        fields += ["Content-Transfer-Encoding: " + encoding, "Content-Location: " + location, ""]
        if text:
            # binascii's QP keeps the text's own line breaks (CRLF or LF) as hard breaks,
            # folds at 76 with "=" and escapes trailing blanks: the text ends with `eol`
            body = binascii.b2a_qp(content, quotetabs=False, istext=True, header=False)
        else:
            body = base64.encodebytes(content)  # 76-character lines ending in LF
            if eol != "\n":
                body = body.replace(b"\n", eol.encode())
        self.out.write((eol.join(fields) + eol).encode())
        self.out.write(body)
        self.out.write(eol.encode())  # the blank line Chromium leaves before each delimiter
        self.leaves += 1
        self.decoded += len(content)
        self.per_encoding[encoding][0] += 1
        self.per_encoding[encoding][1] += len(content)
        self.digest.update(len(content).to_bytes(8, "big") + hashlib.sha256(content).digest())

    def close(self):
        self.out.write(("--%s--%s" % (self.boundary, self.eol)).encode())
        self.out.close()
        return {"file": os.path.basename(self.path), "size": os.path.getsize(self.path),
                "parts": self.leaves, "decoded_bytes": self.decoded,
                "base64_parts": self.per_encoding["base64"][0],
                "base64_bytes": self.per_encoding["base64"][1],
                "qp_parts": self.per_encoding["quoted-printable"][0],
                "qp_bytes": self.per_encoding["quoted-printable"][1],
                "leaves_sha256": self.digest.hexdigest(), "sha256": file_sha256(self.path)}


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            block = f.read(1 << 22)
            if not block:
                return h.hexdigest()
            h.update(block)


# ------------------------------------------------------------------------ the workloads

def saved_page(path, seed, html_size=60_000, style_sheets=3, images=25, image_bytes=560_000):
    rng = random.Random(seed)
    vocab = Vocabulary(rng)
    host = "www.%s.example" % vocab.words[rng.randrange(len(vocab.words))]
    url = "https://%s/%s/%d.html" % (host, vocab.words[rng.randrange(len(vocab.words))], rng.randint(1, 99999))
    ar = ArchiveWriter(path, rng, "\r\n", url, vocab.sentence(3, 7))
    ar.add("text/html", make_html(rng, vocab, html_size, "\r\n", host), url,
           "<frame-%032X@mhtml.blink>" % rng.getrandbits(128))
    for i in range(style_sheets):
        ar.add("text/css", make_css(rng, vocab, rng.randint(6_000, 30_000), "\r\n"),
               "https://%s/static/%s-%d.css" % (host, vocab.words[i], i))
    kinds = ["image/png", "image/jpeg", "image/gif", "image/webp"]
    for i, n in enumerate(spread(rng, images, image_bytes, 2_000, 50_000, 0.9)):
        ct = rng.choice(kinds)
        ar.add(ct, make_binary(rng, ct, n), "https://img.%s/%d.%s" % (host, i, SUFFIX[ct]))
    return ar.close()


def big_archive(path, seed, target, leaves, eol):
    """large and lf: mostly base64 binaries; 10% of the leaves are QP HTML or CSS."""
    rng = random.Random(seed)
    vocab = Vocabulary(rng)
    host = "archive.%s.example" % vocab.words[rng.randrange(len(vocab.words))]
    url = "https://%s/index.html" % host
    ar = ArchiveWriter(path, rng, eol, url, "Synthetic archive of %d parts" % leaves)
    text_leaves = leaves // 10
    text_total = round(target * 0.08 / 1.06)          # QP grows text by about 6% here
    binary_total = round(target * 0.92 / 1.37)        # base64: 4/3, plus line breaks
    text_sizes = spread(rng, text_leaves, text_total, 2_000, 2_000_000, 0.8)
    binary_sizes = spread(rng, leaves - text_leaves, binary_total, 512, 8_000_000, 1.1)
    order = [True] * text_leaves + [False] * (leaves - text_leaves)
    rng.shuffle(order)
    order[order.index(True)], order[0] = order[0], True  # the root is HTML
    kinds = list(SUFFIX)
    for i, is_text in enumerate(order):
        if is_text:
            n = text_sizes.pop()
            if i == 0 or rng.random() < 0.7:
                ar.add("text/html", make_html(rng, vocab, n, eol, host),
                       url if i == 0 else "https://%s/frames/%d.html" % (host, i),
                       "<frame-%032X@mhtml.blink>" % rng.getrandbits(128))
            else:
                ar.add("text/css", make_css(rng, vocab, n, eol), "https://%s/css/%d.css" % (host, i))
        else:
            ct = rng.choice(kinds)
            ar.add(ct, make_binary(rng, ct, binary_sizes.pop()),
                   "https://cdn%d.%s/%d.%s" % (rng.randint(1, 4), host, i, SUFFIX[ct]))
    return ar.close()


def many_parts(path, seed, leaves):
    rng = random.Random(seed)
    vocab = Vocabulary(rng)
    host = "www.%s.example" % vocab.words[rng.randrange(len(vocab.words))]
    url = "https://%s/gallery.html" % host
    ar = ArchiveWriter(path, rng, "\r\n", url, "Many small parts")
    ar.add("text/html", make_html(rng, vocab, 2_000, "\r\n", host), url,
           "<frame-%032X@mhtml.blink>" % rng.getrandbits(128))
    kinds = ["image/png", "image/gif", "image/webp"]
    for i in range(1, leaves):
        if rng.random() < 0.7:
            ct = rng.choice(kinds)
            ar.add(ct, make_binary(rng, ct, rng.randint(100, 600)),
                   "https://%s/t/%d.%s" % (host, i, SUFFIX[ct]))
        else:
            ar.add("text/css", (vocab.sentence(10, 70) + "\r\n").encode(),
                   "https://%s/s/%d.css" % (host, i))
    return ar.close()


def batch_of_pages(folder, seed, files):
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    pages = []
    for i in range(files):
        shape = random.Random(seed * 10_007 + i)
        pages.append(saved_page(os.path.join(folder, "page-%04d.mhtml" % i), seed * 7 + i + 1,
                                html_size=shape.randint(30_000, 90_000),
                                style_sheets=shape.randint(1, 5), images=shape.randint(15, 35),
                                image_bytes=shape.randint(350_000, 700_000)))
    summary = hashlib.sha256()
    leaves = hashlib.sha256()
    for p in pages:
        summary.update(p["sha256"].encode())
        leaves.update(p["leaves_sha256"].encode())
    return {"dir": os.path.basename(folder), "files": files, "size": sum(p["size"] for p in pages),
            "parts": sum(p["parts"] for p in pages),
            "decoded_bytes": sum(p["decoded_bytes"] for p in pages),
            "base64_parts": sum(p["base64_parts"] for p in pages),
            "base64_bytes": sum(p["base64_bytes"] for p in pages),
            "qp_parts": sum(p["qp_parts"] for p in pages),
            "qp_bytes": sum(p["qp_bytes"] for p in pages),
            "sha256": summary.hexdigest(), "leaves_sha256": leaves.hexdigest()}


def generate(name, out, batch_files):
    path = os.path.join(out, name + ".mhtml")
    if name == "small":
        return saved_page(path, SEED)
    if name == "large":
        return big_archive(path, SEED + 1, 305_000_000, 2_000, "\r\n")
    if name == "many":
        return many_parts(path, SEED + 2, 100_000)
    if name == "lf":
        return big_archive(path, SEED + 3, 101_700_000, 667, "\n")
    if name == "batch":
        return batch_of_pages(os.path.join(out, "batch"), SEED + 4, batch_files)
    raise ValueError(name)


# ------------------------------------------------------------------------ checks

def present(out, name, entry):
    """True when the workload on disk is the one the manifest describes, from this version."""
    if not entry or entry.get("version") != VERSION:
        return False
    path = os.path.join(out, entry.get("dir") or entry.get("file", ""))
    if name == "batch":
        if not os.path.isdir(path):
            return False
        names = [n for n in os.listdir(path) if not n.startswith(".")]
        return (len(names) == entry["files"] and
                sum(os.path.getsize(os.path.join(path, n)) for n in names) == entry["size"])
    return os.path.isfile(path) and os.path.getsize(path) == entry["size"]


def verify(out, name, entry):
    """Parses the workload with Python's email package and compares every leaf with the
    manifest: leaf count, decoded octets and leaves_sha256. Returns a list of problems."""
    path = os.path.join(out, entry.get("dir") or entry["file"])
    files = ([os.path.join(path, n) for n in sorted(os.listdir(path)) if not n.startswith(".")]
             if os.path.isdir(path) else [path])
    parser = email.parser.BytesParser(policy=email.policy.default)
    leaves = decoded = 0
    per_file = []
    for f in files:
        digest = hashlib.sha256()
        with open(f, "rb") as fh:
            message = parser.parsebytes(fh.read())
        for part in message.walk():
            if part.is_multipart():
                continue
            body = part.get_payload(decode=True) or b""
            leaves += 1
            decoded += len(body)
            digest.update(len(body).to_bytes(8, "big") + hashlib.sha256(body).digest())
        per_file.append(digest.hexdigest())
    if len(files) == 1 and not os.path.isdir(path):
        leaves_sha = per_file[0]
    else:
        h = hashlib.sha256()
        for d in per_file:
            h.update(d.encode())
        leaves_sha = h.hexdigest()
    problems = []
    for what, got, want in (("parts", leaves, entry["parts"]),
                            ("decoded_bytes", decoded, entry["decoded_bytes"]),
                            ("leaves_sha256", leaves_sha, entry["leaves_sha256"])):
        if got != want:
            problems.append("%s: %s, manifest %s" % (what, got, want))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/mhtml-bench", help="folder (default /tmp/mhtml-bench)")
    ap.add_argument("--only", default=DEFAULT, help="comma list out of " + ",".join(ALL))
    ap.add_argument("--missing", action="store_true",
                    help="generate only the workloads that are absent or from another version")
    ap.add_argument("--batch-files", type=int, default=2000)
    ap.add_argument("--verify", metavar="LIST", help="check these workloads with Python's email")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    manifest_path = os.path.join(a.out, "manifest.json")
    manifest = {"workloads": {}}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
        if manifest.get("generator") != "mhtml bench/workloads.py":
            sys.exit("%s was not written by bench/workloads.py; choose another --out" % manifest_path)
    if a.verify:
        bad = 0
        for name in a.verify.split(","):
            entry = manifest["workloads"].get(name)
            if not present(a.out, name, entry):
                print("%-6s missing or stale" % name)
                bad += 1
                continue
            t = time.time()
            problems = verify(a.out, name, entry)
            print("%-6s %s (%.1f s)" % (name, "; ".join(problems) if problems else
                                        "ok: parts, decoded bytes and every leaf's SHA-256", time.time() - t))
            bad += bool(problems)
        return 1 if bad else 0
    manifest.update({"generator": "mhtml bench/workloads.py", "seed": SEED})
    for name in a.only.split(","):
        if name not in ALL:
            sys.exit("unknown workload %r (known: %s)" % (name, ",".join(ALL)))
        if a.missing and present(a.out, name, manifest["workloads"].get(name)):
            continue
        t = time.time()
        entry = generate(name, a.out, a.batch_files)
        entry["version"] = VERSION
        manifest["workloads"][name] = entry
        print("%-6s %11d octets, parts=%d bytes=%d (%.1f s)" % (
            name, entry["size"], entry["parts"], entry["decoded_bytes"], time.time() - t), flush=True)
        with open(manifest_path + ".tmp", "w") as f:  # after each one: an interrupted run keeps the rest
            json.dump(manifest, f, indent=1, sort_keys=True)
        os.replace(manifest_path + ".tmp", manifest_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
