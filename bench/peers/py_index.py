#!/usr/bin/python3
"""The Python peer of `mhtml index` (bench/index_peers.sh): Python's mailbox + email + sqlite3
doing what mhtml index does for an mbox: split it (mailbox.mboxrd / mailbox.mbox), parse every
message (email.policy.default), write one row per message (offset, size, Message-ID, Date,
From, Subject, In-Reply-To, References, leaves) and one per part (path, Content-ID, the
Message-ID of an attached message, Content-Location, type, decoded size) into the same tables,
in WAL mode, with the same indexes, in one transaction. Prints `messages=N parts=M`.

  /usr/bin/python3 bench/peers/py_index.py MBOX DB
"""
import email
import email.policy
import mailbox
import os
import sqlite3
import sys

SCHEMA = """
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, format TEXT,
  size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL, head BLOB, tail BLOB,
  messages INTEGER NOT NULL DEFAULT 0, complete INTEGER NOT NULL DEFAULT 1);
CREATE TABLE messages(id INTEGER PRIMARY KEY, file INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  number INTEGER NOT NULL, offset INTEGER NOT NULL, size INTEGER NOT NULL, quoted INTEGER NOT NULL,
  message_id TEXT, date TEXT, from_ TEXT, subject TEXT, in_reply_to TEXT, refs TEXT, flags TEXT,
  parts INTEGER NOT NULL, diagnostics INTEGER NOT NULL);
CREATE TABLE parts(message INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE, path TEXT NOT NULL,
  content_id TEXT, message_id TEXT, location TEXT, type TEXT NOT NULL, decoded_size INTEGER);
CREATE INDEX messages_by_file ON messages(file, number);
CREATE INDEX messages_by_id ON messages(message_id) WHERE message_id IS NOT NULL;
CREATE INDEX parts_by_message ON parts(message);
CREATE INDEX parts_by_cid ON parts(content_id) WHERE content_id IS NOT NULL;
CREATE INDEX parts_by_mid ON parts(message_id) WHERE message_id IS NOT NULL;
"""


def key(v):
    if v is None:
        return None
    v = str(v).strip()
    return v[1:-1] if v.startswith("<") and v.endswith(">") else v


def walk(part, path, out):
    """IMAP-style paths, as mhtml's parts table has them."""
    out.append((path, part))
    if part.is_multipart():
        payload = part.get_payload()
        if part.get_content_type() == "message/rfc822" or not isinstance(payload, list):
            payload = payload if isinstance(payload, list) else [payload]
            for p in payload:
                walk(p, (path + "." if path else "") + "1", out)
            return
        for n, p in enumerate(payload, 1):
            walk(p, (path + "." if path else "") + str(n), out)


def main():
    mbox_path, db_path = sys.argv[1], sys.argv[2]
    if os.path.exists(db_path):
        os.remove(db_path)
    db = sqlite3.connect(db_path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(SCHEMA)
    st = os.stat(mbox_path)
    cur = db.cursor()
    cur.execute("BEGIN")
    cur.execute("INSERT INTO files(path, kind, format, size, mtime_ns, inode) VALUES(?,?,?,?,?,?)",
                (os.path.abspath(mbox_path), "mbox", "mboxrd", st.st_size, st.st_mtime_ns, st.st_ino))
    file_id = cur.lastrowid
    box = mailbox.mbox(mbox_path, factory=None, create=False)
    box.lock = lambda: None
    toc = None
    box._generate_toc()
    toc = box._toc  # offsets: what mhtml records
    n_messages = n_parts = 0
    with open(mbox_path, "rb") as f:
        for number, k in enumerate(sorted(toc), 1):
            start, stop = toc[k]
            f.seek(start)
            raw = f.read(stop - start)
            nl = raw.find(b"\n")
            body = raw[nl + 1:]
            # mboxrd: undo the quoting of ^>+From
            lines = body.split(b"\n")
            quoted = False
            for i, line in enumerate(lines):
                s = line.lstrip(b">")
                if s.startswith(b"From ") and len(s) < len(line):
                    lines[i] = line[1:]
                    quoted = True
            data = b"\n".join(lines)
            msg = email.message_from_bytes(data, policy=email.policy.default)
            parts = []
            walk(msg, "", parts)
            leaves = sum(1 for _, p in parts if not p.is_multipart())
            cur.execute("INSERT INTO messages(file, number, offset, size, quoted, message_id, date, from_, subject, "
                        "in_reply_to, refs, flags, parts, diagnostics) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        (file_id, number, start + nl + 1, len(body), int(quoted), key(msg["Message-ID"]),
                         str(msg["Date"] or ""), str(msg["From"] or ""), str(msg["Subject"] or ""),
                         str(msg["In-Reply-To"] or ""), str(msg["References"] or ""), "", leaves,
                         len(msg.defects)))
            message_row = cur.lastrowid
            rows = []
            for path, p in parts:
                size = None
                if not p.is_multipart():
                    payload = p.get_payload(decode=True)
                    size = len(payload) if payload is not None else 0
                mid = key(p["Message-ID"]) if path and p is not msg else None
                rows.append((message_row, path, key(p["Content-ID"]), mid, p["Content-Location"],
                             p.get_content_type(), size))
            cur.executemany("INSERT INTO parts(message, path, content_id, message_id, location, type, "
                            "decoded_size) VALUES(?,?,?,?,?,?,?)", rows)
            n_messages += 1
            n_parts += len(rows)
    cur.execute("UPDATE files SET messages=? WHERE id=?", (n_messages, file_id))
    db.commit()
    db.close()
    print(f"messages={n_messages} parts={n_parts}")


if __name__ == "__main__":
    main()
