#!/usr/bin/python3
"""The mhtml Python module against bench/mhtml_read without Python's own start-up.

compare_peers.sh times whole processes, so the module's figures there include starting the
interpreter and importing mhtml (about 11 ms here), which is not the module's work. This
times, in one process, what py_mhtml_read.py does per workload (parse, then every leaf
decoded with Document.iter_decoded), and mhtml_read as a process (its start-up is about
1 ms), each the median of ROUNDS runs, and prints the ratio.

  PYTHONPATH=build/bench/python /usr/bin/python3 bench/py_module_inprocess.py \\
      [--rounds N] [--reader build/bench/bench/mhtml_read] [--data /tmp/mhtml-bench] [WORKLOAD...]
"""
import argparse
import os
import statistics
import subprocess
import time

import mhtml


def module_once(files):
    parts = size = 0
    for f in files:
        doc = mhtml.parse(f, mmap=os.path.getsize(f) > (8 << 20))
        for data, ends in doc.iter_decoded():
            parts += len(ends)
            size += len(data)
            del data, ends
    return parts, size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--reader", default="build/bench/bench/mhtml_read")
    ap.add_argument("--data", default="/tmp/mhtml-bench")
    ap.add_argument("workloads", nargs="*", default=["large", "many", "batch"])
    a = ap.parse_args()
    print("| workload | mhtml_read (process) | module (in process) | ratio |")
    print("|---|---|---|---|")
    for w in a.workloads:
        path = os.path.join(a.data, w if w == "batch" else w + ".mhtml")
        files = ([os.path.join(path, f) for f in sorted(os.listdir(path))]
                 if os.path.isdir(path) else [path])
        reader, module = [], []
        for _ in range(a.rounds):
            t = time.perf_counter()
            out = subprocess.run([a.reader, path], capture_output=True, text=True, check=True)
            reader.append(time.perf_counter() - t)
            t = time.perf_counter()
            parts, size = module_once(files)
            module.append(time.perf_counter() - t)
            if out.stdout.strip() != f"parts={parts} bytes={size}":
                raise SystemExit(f"{w}: {out.stdout.strip()} != parts={parts} bytes={size}")
        r, m = statistics.median(reader), statistics.median(module)
        print(f"| {w} | {r:.4f} s | {m:.4f} s | x{m / r:.2f} |")


if __name__ == "__main__":
    main()
