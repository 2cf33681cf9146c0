#!/usr/bin/env python3
"""A deterministic mailbox for bench/index_peers.sh: N messages (default 100,000, about 2 GB),
written as an mboxrd file and, with --maildir, the same messages as a Maildir (for notmuch).

The mix, by message (sizes are of the stored message):
  60 %   text/plain, 1-8 KB, quoted-printable or 8bit;
  25 %   multipart/alternative text + HTML, 4-35 KB;
   8 %   multipart/mixed with a base64 attachment of 30-150 KB (PDF, ZIP, images);
   6.6 % multipart/related HTML with 1-4 inline images (cid:), 10-130 KB;
   0.4 % multipart/mixed with an attachment of 0.5-2 MB.
Threads: a third of the messages answer an earlier one (In-Reply-To, References), and a tenth of
the HTML messages link an image of the message they answer with mid:MESSAGE/CONTENT. Some bodies
have lines that start with "From " (quoted in the mbox). Python 3 standard library only.

  python3 bench/gen_mailbox.py OUT.mbox [--messages N] [--maildir DIR] [--seed S]
"""
import argparse
import base64
import os
import random
import sys

WORDS = ("the of and to in is was for on that with as by at from this be are or an it "
         "archive message page image reply thread mail store index from header body part "
         "café naïve résumé über straße").split()


def text(rng, size):
    out, n = [], 0
    while n < size:
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
        if rng.random() < 0.01:
            line = "From " + line  # an mbox quotes it
        out.append(line)
        n += len(line) + 1
    return "\n".join(out) + "\n"


def qp(s):
    b = s.encode("utf-8")
    out, line = [], ""
    for c in b:
        ch = chr(c)
        piece = ch if (32 < c < 127 and ch != "=") or ch == " " else "=%02X" % c
        if ch == "\n":
            out.append(line.rstrip(" ") + ("=20" if line.endswith(" ") else ""))
            line = ""
            continue
        if len(line) + len(piece) > 75:
            out.append(line + "=")
            line = ""
        line += piece
    out.append(line)
    return "\n".join(out) + "\n"


def b64(data):
    s = base64.b64encode(data).decode("ascii")
    return "\n".join(s[i:i + 76] for i in range(0, len(s), 76)) + "\n"


class Blobs:
    """Random octets, cut from one pool (generation speed, not entropy, matters)."""

    def __init__(self, rng):
        self.pool = rng.randbytes(8 << 20)
        self.rng = rng

    def take(self, n):
        at = self.rng.randrange(0, len(self.pool) - n) if n < len(self.pool) else 0
        return self.pool[at:at + n]


def headers(rng, i, mid, parent):
    day = 1 + i % 28
    h = [
        f"From: User {i % 997} <user{i % 997}@mail.example>",
        f"To: Someone <someone{i % 31}@mail.example>",
        f"Subject: {'Re: ' if parent else ''}{' '.join(rng.choice(WORDS) for _ in range(5))}",
        f"Date: Mon, {day} Mar 2025 {i % 24:02d}:{i % 60:02d}:00 +0000",
        f"Message-ID: <{mid}>",
    ]
    if parent:
        h.append(f"In-Reply-To: <{parent}>")
        h.append(f"References: <{parent}>")
    h.append("MIME-Version: 1.0")
    return h


def message(rng, blobs, i, parent, parent_image):
    mid = f"m{i}.{rng.randrange(1 << 30)}@mail.example"
    h = headers(rng, i, mid, parent)
    kind = rng.random()
    b = f"b{i}x{rng.randrange(1 << 30)}"
    image = None
    if kind < 0.60:
        body = text(rng, rng.randint(1000, 8000))
        if rng.random() < 0.5:
            h += ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: quoted-printable"]
            body = qp(body)
        else:
            h += ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"]
        return mid, image, "\n".join(h) + "\n\n" + body
    if kind < 0.85:
        t = text(rng, rng.randint(2000, 15000))
        html = "<html><body><p>" + t.replace("\n", "</p>\n<p>") + "</p></body></html>\n"
        h.append(f'Content-Type: multipart/alternative; boundary="{b}"')
        parts = [f"--{b}\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n{qp(t)}",
                 f"--{b}\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n{qp(html)}",
                 f"--{b}--\n"]
        return mid, image, "\n".join(h) + "\n\n" + "".join(parts)
    if kind < 0.93 or kind >= 0.996:
        size = rng.randint(30000, 150000) if kind < 0.93 else rng.randint(500000, 2000000)
        name, ctype = rng.choice([("report.pdf", "application/pdf"), ("data.zip", "application/zip"),
                                  ("photo.jpg", "image/jpeg"), ("scan.png", "image/png")])
        h.append(f'Content-Type: multipart/mixed; boundary="{b}"')
        parts = [f"--{b}\nContent-Type: text/plain; charset=utf-8\n\n{text(rng, rng.randint(300, 2000))}",
                 f'--{b}\nContent-Type: {ctype}; name="{name}"\nContent-Disposition: attachment; filename="{name}"\n'
                 f"Content-Transfer-Encoding: base64\n\n{b64(blobs.take(size))}",
                 f"--{b}--\n"]
        return mid, image, "\n".join(h) + "\n\n" + "".join(parts)
    # multipart/related HTML with inline images, sometimes a mid: link to the parent's image.
    n = rng.randint(1, 4)
    cids = [f"img{k}.{i}@mail.example" for k in range(n)]
    image = cids[0]
    body = "".join(f'<p><img src="cid:{c}"></p>\n' for c in cids)
    if parent and parent_image and rng.random() < 0.5:
        body += f'<p><img src="mid:{parent}/{parent_image}"></p>\n'
    t = text(rng, rng.randint(1000, 6000))
    html = f"<html><body>{body}<p>{t}</p></body></html>\n"
    h.append(f'Content-Type: multipart/related; type="text/html"; boundary="{b}"')
    parts = [f"--{b}\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n{qp(html)}"]
    for c in cids:
        parts.append(f"--{b}\nContent-Type: image/png\nContent-ID: <{c}>\nContent-Transfer-Encoding: base64\n\n"
                     f"{b64(blobs.take(rng.randint(5000, 30000)))}")
    parts.append(f"--{b}--\n")
    return mid, image, "\n".join(h) + "\n\n" + "".join(parts)


def quote_mboxrd(msg):
    out = []
    for line in msg.split("\n"):
        s = line.lstrip(">")
        out.append(">" + line if s.startswith("From ") else line)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--messages", type=int, default=100000)
    ap.add_argument("--maildir")
    ap.add_argument("--seed", type=int, default=2557)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    blobs = Blobs(rng)
    if a.maildir:
        for sub in ("cur", "new", "tmp"):
            os.makedirs(os.path.join(a.maildir, sub), exist_ok=True)
    recent = []  # (message id, an image id or None) of recent messages, for replies
    total = 0
    tmp = a.out + ".tmp"
    with open(tmp, "wb") as box:
        for i in range(a.messages):
            parent, parent_image = (None, None)
            if recent and rng.random() < 1 / 3:
                parent, parent_image = rng.choice(recent)
            mid, image, msg = message(rng, blobs, i, parent, parent_image)
            recent.append((mid, image))
            if len(recent) > 200:
                recent.pop(0)
            data = msg.encode("utf-8")
            total += len(data)
            box.write(b"From user@mail.example Mon Mar  3 10:00:00 2025\n")
            box.write(quote_mboxrd(msg).encode("utf-8"))
            box.write(b"\n")
            if a.maildir:
                with open(os.path.join(a.maildir, "cur", f"{1700000000 + i}.{i}.bench:2,S"), "wb") as f:
                    f.write(data)
            if (i + 1) % 10000 == 0:
                print(f"gen_mailbox: {i + 1} messages, {total >> 20} MiB", file=sys.stderr)
    os.replace(tmp, a.out)
    print(f"gen_mailbox: {a.messages} messages, {total} octets -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
