#!/usr/bin/env bash
# Times mhtml's reader against GMime, mimetic, VMime and Python's email on the workloads of
# ../shared/bench (see its README), in one run, and prints its Markdown table.
#   bench/compare_peers.sh [run_peers.sh options, e.g. -n 5 -w large,many]
# Needs the shared bench kit next to this repository (../shared/bench).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kit=${MHTBENCH_KIT:-$root/../shared/bench}
bash "$root/scripts/setup-deps.sh" --bench
cmake -S "$root" -B "$root/build/bench" -DCMAKE_BUILD_TYPE=Release -DMHTML_BUILD_BENCH=ON \
      -DMHTML_BUILD_TESTS=OFF -DMHTML_BUILD_TOOLS=OFF >/dev/null
cmake --build "$root/build/bench" -j"$(nproc)" --target mhtml_read mhtml_bench
OURS_CMD="$root/build/bench/bench/mhtml_read" "$kit/run_peers.sh" "$@"
