#!/usr/bin/env python3
"""run_readers.py: checks and times end-to-end MIME readers on the bench workloads.

    run_readers.py --data DIR --reader mhtml=CMD --reader gmime=CMD ... [options]

A reader is a command that reads the files it is given (a folder: its files), parses the
whole MIME tree, decodes every leaf and prints "parts=N bytes=M" (N leaves, M decoded
octets). The input is appended to COMMAND (split like a shell would). A reader whose name
starts with "limit:" is a floor, not a reader: it must print bytes= the input's size.

For each workload:
  1. the check: every reader runs once (this also fills the page cache); its last
     parts=/bytes= line is compared with DIR/manifest.json (bench/workloads.py's, or the
     shared kit's gen_corpus.py's: both are understood). A mismatch is reported as DIFF,
     and the reader is still timed.
  2. ROUNDS timed rounds: in each round every reader runs once, in an order rotated by one
     from round to round, so that whatever else the machine does falls on all alike. Each
     run is timed whole (process start to exit) under GNU time (/usr/bin/time, Debian's
     package "time"), which gives the peak resident set; wall seconds are measured around
     it with a monotonic clock and user+sys CPU seconds taken from wait4(2) (GNU time's
     own figures have 10 ms resolution, too coarse for a 30 ms run; they are kept in
     --json as gnu_time_cpu).

Reported per reader and workload: MB/s = input octets / median wall seconds (MB = 10^6
octets), the ratio = median over rounds of (reader's wall / REF's wall in the same round)
(REF defaults to the first reader), the median peak RSS (the mapped input counts in it
for readers that map it), median wall and CPU seconds and the CPU ratio, formed like the
wall one. On a loaded machine the wall times include waiting for a CPU; the CPU ratio
does not. The load average is sampled before every round and printed with the tables.

Round trips (--roundtrip VERIFY): the commands are writers that read a file and write it back
(`mhtml repair IN -o OUT`, bench/peers/gmime_roundtrip.c, a limit:cat floor); each is called
with the input and an output path appended, and the check is VERIFY (a reader, e.g.
mhtml_read) run on the output: its parts=/bytes= must match the manifest, for limit: rows too.
The output is removed before every run (outside the timing), so each run writes a new file.

options:
  -n ROUNDS        timed rounds (default 3)
  -w LIST          workloads, comma separated (default small,large,many,lf)
  --ref NAME       the reader the ratios are against (default: the first --reader)
  --check-only     the check, no timing
  --timeout S      a run taking longer is killed and counted as failed (default 300)
  --json FILE      every sample, the load and the checks, as JSON
  --label TEXT     a line printed above the tables (e.g. the commit)
  --roundtrip VERIFY  the commands are round trips checked by the reader VERIFY (above)
  --out DIR        where round trips write (default: a new folder in the temporary folder)
"""
import argparse
import json
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TIME = "/usr/bin/time"
RESULT = re.compile(rb"parts=(\d+) bytes=(\d+)")


def load_manifest(data):
    with open(os.path.join(data, "manifest.json")) as f:
        m = json.load(f)
    if "workloads" in m:                               # bench/workloads.py
        return m["workloads"], m.get("generator", "?")
    return {k: v for k, v in m.items() if isinstance(v, dict)}, "shared kit gen_corpus.py"


def input_of(data, entry):
    return os.path.join(data, entry.get("dir") or entry["file"])


def input_size(path):
    if not os.path.isdir(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(path, n)) for n in os.listdir(path)
               if not n.startswith(".") and os.path.isfile(os.path.join(path, n)))


def warm(path):
    """Reads the input once so every reader finds it in the page cache."""
    paths = ([os.path.join(path, n) for n in sorted(os.listdir(path))] if os.path.isdir(path) else [path])
    for p in paths:
        with open(p, "rb", buffering=0) as f:
            while f.read(1 << 22):
                pass


def run(argv, timeout, timed, scratch):
    """One run. Returns (stdout, wall, cpu, rss_kib, gnu_cpu) or raises RuntimeError.

    Timed runs: GNU time gives the peak RSS (and user+sys to 10 ms, kept as gnu_cpu);
    the CPU seconds reported come from wait4(2) on GNU time, whose usage includes the
    reader's to the microsecond (plus GNU time's own, well under a millisecond)."""
    if not timed:
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               timeout=timeout, start_new_session=True)
        except subprocess.TimeoutExpired:
            raise RuntimeError("timed out after %g s" % timeout)
        if p.returncode != 0:
            raise RuntimeError("exit status %d" % p.returncode)
        return p.stdout, None, None, None, None
    argv = [TIME, "-f", "%U %S %M", "-o", scratch] + argv
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    killer = threading.Timer(timeout, os.killpg, (p.pid, signal.SIGKILL))
    killer.start()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    killer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)  # so Popen does not wait again
    if p.returncode != 0:
        raise RuntimeError("exit status %d" % p.returncode if p.returncode > 0 else
                           "killed (timeout %g s)" % timeout)
    with open(scratch) as f:
        user, system, rss = f.read().split()[-3:]
    return None, wall, usage.ru_utime + usage.ru_stime, int(rss), float(user) + float(system)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--reader", action="append", default=[], metavar="NAME=COMMAND")
    ap.add_argument("-n", type=int, default=3, dest="rounds")
    ap.add_argument("-w", default="small,large,many,lf", dest="workloads")
    ap.add_argument("--ref")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--json")
    ap.add_argument("--label")
    ap.add_argument("--roundtrip", metavar="VERIFY")
    ap.add_argument("--out")
    a = ap.parse_args()
    if not a.reader:
        ap.error("no --reader")
    if not a.check_only and not os.access(TIME, os.X_OK):
        sys.exit("needs GNU time at %s (Debian: apt-get install time)" % TIME)
    readers = []
    for spec in a.reader:
        name, _, cmd = spec.partition("=")
        readers.append((name, shlex.split(cmd)))
    names = [r[0] for r in readers]
    ref = a.ref or names[0]
    if ref not in names:
        sys.exit("--ref %s is not a reader" % ref)
    manifest, generator = load_manifest(a.data)
    workloads = a.workloads.split(",")
    for w in workloads:
        if w not in manifest or not os.path.exists(input_of(a.data, manifest[w])):
            sys.exit("workload %s is not in %s (generate it first)" % (w, a.data))

    record = {"data": a.data, "generator": generator, "rounds": a.rounds, "ref": ref,
              "readers": {n: c for n, c in readers}, "label": a.label,
              "started": time.strftime("%Y-%m-%d %H:%M:%S"), "workloads": {}}
    scratch = tempfile.NamedTemporaryFile(prefix="run_readers.", delete=False).name
    out_dir = a.out or tempfile.mkdtemp(prefix="run_readers.out.")
    verify = shlex.split(a.roundtrip) if a.roundtrip else None

    def args_for(name, path):
        """The arguments after a command: the input, and for a round trip its output."""
        if not verify:
            return [path]
        out = os.path.join(out_dir, "%s.out" % re.sub(r"[^A-Za-z0-9_.-]", "_", name))
        if os.path.exists(out):
            os.unlink(out)
        return [path, out]

    try:
        for w in workloads:
            entry = manifest[w]
            path = input_of(a.data, entry)
            size = input_size(path)
            want = (entry["parts"], entry["decoded_bytes"])
            wr = {"input": path, "size": size, "parts": want[0], "decoded_bytes": want[1],
                  "check": {}, "samples": [], "load": []}
            record["workloads"][w] = wr
            print("== %s: %s, %d octets, expected parts=%d bytes=%d" % (w, path, size, *want),
                  file=sys.stderr, flush=True)
            warm(path)
            for name, cmd in readers:
                expect = (0, size) if name.startswith("limit:") and not verify else want
                try:
                    args = args_for(name, path)
                    out = run(cmd + args, a.timeout, False, scratch)[0]
                    if verify:  # what the reader finds in the output
                        out = run(verify + [args[1]], a.timeout, False, scratch)[0]
                    found = RESULT.findall(out)
                    got = tuple(int(x) for x in found[-1]) if found else None
                    verdict = "ok" if got == expect else "DIFF (parts=%s bytes=%s)" % (
                        got if got is None else got[0], "-" if got is None else got[1])
                except RuntimeError as e:
                    verdict = "FAIL (%s)" % e
                wr["check"][name] = verdict
                wr.setdefault("found", {})[name] = got if verdict != "ok" and "DIFF" in verdict else None
                print("   %-16s %s" % (name, verdict), file=sys.stderr, flush=True)
            if verify:
                # A round trip may change decoded octets on purpose (text line ends made CRLF,
                # as on lf): then the leaves must be the manifest's and every writer (not the
                # limit: rows) must find the same.
                writers = [n for n, _ in readers if not n.startswith("limit:")]
                found = {wr["found"].get(n) for n in writers}
                if len(found) == 1 and None not in found:
                    g = found.pop()
                    if g[0] == want[0]:
                        for n in writers:
                            wr["check"][n] = ("ok (parts=%d, bytes=%d for every writer, the "
                                              "input's %d: text made canonical)" % (g[0], g[1], want[1]))
            if a.check_only:
                continue
            for r in range(a.rounds):
                wr["load"].append(os.getloadavg()[0])
                k = r % len(readers)
                for name, cmd in readers[k:] + readers[:k]:
                    try:
                        args = args_for(name, path)
                        _, wall, cpu, rss, gnu_cpu = run(cmd + args, a.timeout, True, scratch)
                        wr["samples"].append({"round": r, "reader": name, "wall": wall, "cpu": cpu,
                                              "rss_kib": rss, "gnu_time_cpu": gnu_cpu})
                    except RuntimeError as e:
                        print("   %s, round %d: %s" % (name, r + 1, e), file=sys.stderr)
                print("   round %d/%d (load %.2f)" % (r + 1, a.rounds, wr["load"][-1]),
                      file=sys.stderr, flush=True)
            wr["load"].append(os.getloadavg()[0])
    finally:
        os.unlink(scratch)
        if verify:
            for name, _ in readers:
                out = os.path.join(out_dir, "%s.out" % re.sub(r"[^A-Za-z0-9_.-]", "_", name))
                if os.path.exists(out):
                    os.unlink(out)
            if not a.out:
                os.rmdir(out_dir)
    record["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(record, f, indent=1)
    report(record, names, workloads)


def report(record, names, workloads):
    ref = record["ref"]
    wls = record["workloads"]

    def cell(w, name):
        samples = [s for s in wls[w]["samples"] if s["reader"] == name]
        if not samples:
            return None
        ref_wall = {s["round"]: s["wall"] for s in wls[w]["samples"] if s["reader"] == ref}
        ref_cpu = {s["round"]: s["cpu"] for s in wls[w]["samples"] if s["reader"] == ref}
        ratios = [s["wall"] / ref_wall[s["round"]] for s in samples if s["round"] in ref_wall]
        cpu_ratios = [s["cpu"] / ref_cpu[s["round"]] for s in samples if ref_cpu.get(s["round"])]
        return {"wall": statistics.median(s["wall"] for s in samples),
                "cpu": statistics.median(s["cpu"] for s in samples),
                "rss": statistics.median(s["rss_kib"] for s in samples) / 1024,
                "ratio": statistics.median(ratios) if ratios else None,
                "cpu_ratio": statistics.median(cpu_ratios) if cpu_ratios else None, "n": len(samples)}

    def table(fmt):
        print("| reader | " + " | ".join("%s (%.1f MB)" % (w, wls[w]["size"] / 1e6) for w in workloads) + " |")
        print("|---|" + "---|" * len(workloads))
        for name in names:
            cells = []
            for w in workloads:
                c = cell(w, name)
                cells.append(fmt(w, c) if c else "-")
            print("| %s | %s |" % (name, " | ".join(cells)))

    print()
    if record["label"]:
        print(record["label"])
    loads = [x for w in workloads for x in wls[w]["load"]]
    print("Workloads: %s (%s); %s; %s to %s; load average (1 min) %s" % (
        record["data"], record["generator"],
        "%d rounds" % record["rounds"] if loads else "check only", record["started"],
        record["finished"], "%.2f-%.2f" % (min(loads), max(loads)) if loads else "not sampled"))
    if any(wls[w]["samples"] for w in workloads):
        print("\nThroughput (MB/s = input octets / median wall seconds, whole process), x = median "
              "over rounds of wall / %s's wall in the same round, median peak RSS:\n" % ref)
        table(lambda w, c: "%.0f MB/s x%.2f, %.0f MiB" % (wls[w]["size"] / 1e6 / c["wall"], c["ratio"], c["rss"])
              if c["ratio"] is not None else "%.0f MB/s, %.0f MiB" % (wls[w]["size"] / 1e6 / c["wall"], c["rss"]))
        print("\nMedian wall seconds (median user+sys CPU seconds; x = median over rounds of CPU / "
              "%s's CPU in the same round):\n" % ref)
        table(lambda w, c: "%.3f (%.3f%s)" % (c["wall"], c["cpu"], " x%.2f" % c["cpu_ratio"]
                                              if c["cpu_ratio"] is not None else ""))
    print("\nCheck of parts=/bytes= against the manifest (limit: rows: bytes= the input size):\n")
    bad = [(w, n, wls[w]["check"][n]) for w in workloads for n in names
           if not wls[w]["check"].get(n, "").startswith("ok")]
    for w in workloads:
        notes = {v for n, v in wls[w]["check"].items() if v.startswith("ok (")}
        for v in sorted(notes):
            print("- %s: %s" % (w, v))
    for w, n, v in bad:
        print("- %s on %s: %s" % (n, w, v))
    if not bad:
        print("- every reader ok on every workload")


if __name__ == "__main__":
    main()
