#!/usr/bin/env python3
"""py_email_read: Python's email package reading MIME files end to end, the peer of
bench/mhtml_read.

    py_email_read.py FILE|DIR...          prints parts=N bytes=M

Each file is read whole and given to BytesParser(policy=email.policy.default).parsebytes;
then every leaf of the tree (attached messages included: message/rfc822 parts are
containers for email) is decoded with get_payload(decode=True), which undoes base64 and
quoted-printable. N counts the leaves, M their decoded octets. A folder stands for its
files not starting with '.', in name order. Run it with Debian's /usr/bin/python3.
"""
import email.parser
import email.policy
import os
import sys


def files(args):
    for arg in args:
        if not os.path.isdir(arg):
            yield arg
            continue
        for name in sorted(os.listdir(arg)):
            path = os.path.join(arg, name)
            if name[0] != "." and os.path.isfile(path):
                yield path


def leaves(entity):
    """Depth first, as the parts appear in the file."""
    if entity.is_multipart():
        for child in entity.get_payload():
            yield from leaves(child)
    else:
        yield entity


def main(args):
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    parser = email.parser.BytesParser(policy=email.policy.default)
    count = octets = 0
    for path in files(args):
        with open(path, "rb") as f:
            message = parser.parsebytes(f.read())
        for leaf in leaves(message):
            body = leaf.get_payload(decode=True)
            count += 1
            octets += len(body) if body is not None else 0
    print("parts=%d bytes=%d" % (count, octets))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
