#!/usr/bin/env python3
"""Makes a bench workload whose page references every part it holds.

The bench's workloads (bench/workloads.py, like ../shared/bench's gen_corpus.py) label
their parts but their page links only to external URLs, so `mhtml inline` and `mhtml
extract` would rewrite nothing. This copies one and adds to its root (the first part,
quoted-printable HTML) an <img>, <link> or <iframe> for every other part's
Content-Location, by type, so every part is inlined or rewritten:

    python3 bench/linked_workload.py /tmp/mhtml-bench/large.mhtml /tmp/mhtml-bench/large-linked.mhtml
"""
import re
import sys


def main(src: str, dst: str) -> None:
    data = open(src, "rb").read()
    m = re.search(rb'boundary="([^"]+)"', data)
    delimiter = b"\r\n--" + m.group(1)
    first = data.index(delimiter)
    second = data.index(delimiter, first + len(delimiter))  # the end of the root part
    tags = []
    for part in re.finditer(rb"Content-Type: ([^\r\n;]+)[^\0]*?Content-Location: ([^\r\n]+)",
                            data[second:]):
        ctype, url = part.group(1).lower(), part.group(2).strip()
        if ctype == b"text/css":
            tags.append(b'<link rel=3D"stylesheet" href=3D"' + url + b'">')
        elif ctype == b"text/html":
            tags.append(b'<iframe src=3D"' + url + b'"></iframe>')
        else:
            tags.append(b'<img src=3D"' + url + b'">')
    # One tag per line; a URL longer than a QP line is tolerated by readers (and reported).
    addition = b"\r\n" + b"\r\n".join(tags)
    with open(dst, "wb") as f:
        f.write(data[:second] + addition + data[second:])
    print(f"{dst}: {len(tags)} references added to the page")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
