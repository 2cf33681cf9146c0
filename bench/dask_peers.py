#!/usr/bin/python3
"""Times mhtml.dask over the batch workload (2,000 saved pages, bench/workloads.py) on a
LocalCluster of one worker process and of two (one thread each, loopback only), cluster start
not counted, in interleaved rounds; prints the medians and the speed-up (issue 18's target: two
workers at least 1.6x one). PYTHONPATH must reach the built module:

  PYTHONPATH=build/bench/python /usr/bin/python3 bench/dask_peers.py [-n ROUNDS] [--data DIR] [--job ls]
"""
import argparse
import os
import statistics
import time

import distributed

import mhtml.dask


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=3)
    ap.add_argument("--data", default="/tmp/mhtml-bench")
    ap.add_argument("--job", default="ls")
    a = ap.parse_args()
    folder = os.path.join(a.data, "batch")
    files = mhtml.dask._expand(os.path.join(folder, "*"))
    size = sum(os.path.getsize(f) for f in files)
    clusters = {}
    for workers in (1, 2):
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           host="127.0.0.1", dashboard_address="127.0.0.1:0")
        clusters[workers] = (cluster, distributed.Client(cluster, set_as_default=False))
    samples = {1: [], 2: []}
    for r in range(a.n):
        for workers in ((1, 2) if r % 2 == 0 else (2, 1)):
            client = clusters[workers][1]
            t = time.perf_counter()
            rows = client.compute(mhtml.dask.bag(files, job=a.job, npartitions=64)).result()
            samples[workers].append(time.perf_counter() - t)
            assert len(rows) == len(files) and all(r["ok"] for r in rows)
    for cluster, client in clusters.values():
        client.close()
        cluster.close()
    one, two = statistics.median(samples[1]), statistics.median(samples[2])
    print(f"mhtml.dask, {len(files)} archives, {size / 1e6:.0f} MB, job {a.job}, {a.n} rounds\n")
    print("| LocalCluster | median s | MB/s | speed-up |")
    print("|---|---:|---:|---:|")
    print(f"| 1 worker | {one:.2f} | {size / 1e6 / one:.0f} | 1.00x |")
    print(f"| 2 workers | {two:.2f} | {size / 1e6 / two:.0f} | {one / two:.2f}x |")


if __name__ == "__main__":
    main()
