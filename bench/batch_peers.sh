#!/usr/bin/env bash
# Times `mhtml batch --ls` over the batch workload (2,000 saved pages, bench/workloads.py) with
# --jobs 1 and --jobs 2, in interleaved rounds, and the mhtml Python module reading the same
# folder with 1 and 2 threads (bench/peers/py_mhtml_read.py); prints medians and the speed-ups
# (issue 18's targets: batch on 2 cores at least 1.8x one core; threads in Python scale).
#
#   bench/batch_peers.sh [-n ROUNDS] [--data DIR]
#
# Builds (Release, build/bench): the CLI and the Python module.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=5
data=/tmp/mhtml-bench
while [ $# -gt 0 ]; do
  case $1 in
    -n) rounds=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    -h|--help) sed -n 's/^# \{0,1\}//; 2,9p' "$0"; exit 0 ;;
    *) echo "batch_peers.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
build=$root/build/bench
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMHTML_BUILD_BENCH=ON \
      -DMHTML_BUILD_TOOLS=ON -DMHTML_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target mhtml_cli _mhtml >/dev/null
/usr/bin/python3 "$root/bench/workloads.py" --out "$data" --only batch --missing
mhtml=$build/tools/mhtml/mhtml
py="env PYTHONPATH=$build/python /usr/bin/python3 $root/bench/peers/py_mhtml_read.py"
names=(batch-j1 batch-j2 python-1t python-2t)
cmds=("$mhtml batch $data/batch --ls --jobs 1 -o /dev/null"
      "$mhtml batch $data/batch --ls --jobs 2 -o /dev/null"
      "$py $data/batch"
      "$py --threads 2 $data/batch")
declare -A samples
timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
for r in $(seq "$rounds"); do
  for i in "${!names[@]}"; do
    k=$(( (i + r) % ${#names[@]} ))  # rotate the order from round to round
    /usr/bin/time -o "$timing" -f '%e' ${cmds[$k]} >/dev/null 2>&1
    s=$(tail -1 "$timing")
    samples[${names[$k]}]+="$s "
  done
done
size=$(du -sb "$data/batch" | cut -f1)
python3 - "$size" "${samples[batch-j1]}" "${samples[batch-j2]}" "${samples[python-1t]}" "${samples[python-2t]}" <<'PY'
import statistics, sys
size = int(sys.argv[1]) / 1e6
med = [statistics.median(float(x) for x in a.split()) for a in sys.argv[2:]]
print(f"batch workload: {size:.0f} MB, {len(sys.argv[2].split())} rounds (median wall seconds)\n")
print("| run | median s | MB/s | speed-up |")
print("|---|---:|---:|---:|")
for (name, m, base) in [("mhtml batch --ls --jobs 1", med[0], med[0]), ("mhtml batch --ls --jobs 2", med[1], med[0]),
                        ("Python module, 1 thread", med[2], med[2]), ("Python module, 2 threads", med[3], med[2])]:
    print(f"| {name} | {m:.2f} | {size / m:.0f} | {base / m:.2f}x |")
PY
