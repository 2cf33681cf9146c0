#!/usr/bin/python3
"""The mhtml Python module as a reader of bench/run_readers.py: parse each file (a folder: its
files in name order; files up to 8 MiB read into memory, larger ones mapped), decode every leaf
(Document.iter_decoded: a chunk at a time into a reused buffer), print "parts=N bytes=M".
With --threads T, the files are shared among T Python threads (the GIL is released while the
module works). PYTHONPATH must reach the built module (bench/python_peers.sh sets it).

  py_mhtml_read.py [--threads T] FILE|DIR
"""
import os
import sys
import threading

import mhtml


def main():
    args = sys.argv[1:]
    threads = 1
    if args[:1] == ["--threads"]:
        threads, args = int(args[1]), args[2:]
    path = args[0]
    files = [os.path.join(path, f) for f in sorted(os.listdir(path))] if os.path.isdir(path) else [path]
    totals = [[0, 0] for _ in range(threads)]
    lock = threading.Lock()
    queue = list(reversed(files))

    def work(t):
        while True:
            with lock:
                if not queue:
                    return
                f = queue.pop()
            # Small files are read, large ones mapped: with threads, mapping and unmapping a
            # file per archive makes them wait on the process's memory map.
            doc = mhtml.parse(f, mmap=os.path.getsize(f) > (8 << 20))
            # A chunk at a time into one reused buffer, as bench/mhtml_read does (each chunk's
            # views are dropped before the next is asked for).
            for data, ends in doc.iter_decoded():
                totals[t][0] += len(ends)
                totals[t][1] += len(data)
                del data, ends  # before the loop asks for the next chunk

    if threads == 1:
        work(0)
    else:
        ts = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    print(f"parts={sum(t[0] for t in totals)} bytes={sum(t[1] for t in totals)}")


if __name__ == "__main__":
    main()
