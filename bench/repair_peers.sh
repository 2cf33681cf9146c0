#!/usr/bin/env bash
# Times `mhtml repair` against GMime's parse-and-write-back round trip (bench/peers/
# gmime_roundtrip.c) and the floor limit:cat (cat IN > OUT: read and write the same octets)
# on the shared kit's reader workloads, and prints Markdown tables (bench/run_readers.py
# --roundtrip: every output is read back by mhtml_read and must hold the manifest's leaves).
#
#   bench/repair_peers.sh [-n ROUNDS] [-w WORKLOADS] [--data DIR] [--out DIR] [--json FILE]
#
#   -n ROUNDS      timed rounds per workload (default 5)
#   -w WORKLOADS   comma list out of the kit's small,large,many,lf (default large,many,lf)
#   --data DIR     the kit's workloads (default $MHTBENCH_DIR or /tmp/mhtbench; made with the
#                  kit's gen_corpus.py, ../shared/bench or $MHTBENCH_KIT, when missing)
#   --out DIR      where the outputs go (default: a new temporary folder; one file per writer,
#                  replaced at every run)
#   --json FILE    every sample (run_readers.py --json)
#
# Builds (Release, build/bench, -DMHTML_BUILD_BENCH=ON): the CLI, mhtml_read, gmime_roundtrip.
# Each of the three runs through `sh -c 'exec ...'` (the same start-up cost for all).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=5
workloads=large,many,lf
data=${MHTBENCH_DIR:-/tmp/mhtbench}
out=""
json=""
while [ $# -gt 0 ]; do
  case $1 in
    -n) rounds=$2; shift 2 ;;
    -w) workloads=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    -h|--help) sed -n 's/^# \{0,1\}//; 2,17p' "$0"; exit 0 ;;
    *) echo "repair_peers.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
build=$root/build/bench
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMHTML_BUILD_BENCH=ON \
      -DMHTML_BUILD_TOOLS=ON -DMHTML_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target mhtml_cli mhtml_read gmime_roundtrip >/dev/null
if [ ! -f "$data/manifest.json" ]; then
  kit=${MHTBENCH_KIT:-$root/../shared/bench}
  [ -f "$kit/gen_corpus.py" ] || { echo "repair_peers.sh: no workloads in $data and no kit at $kit" >&2; exit 2; }
  (cd "$kit" && python3 gen_corpus.py --out "$data")
fi
args=(--data "$data" -n "$rounds" -w "$workloads" --roundtrip "$build/bench/mhtml_read"
      --label "mhtml $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), repair round trips")
[ -n "$out" ] && args+=(--out "$out")
[ -n "$json" ] && args+=(--json "$json")
python3 "$root/bench/run_readers.py" "${args[@]}" \
  --reader "mhtml=sh -c 'exec \"\$0\" repair \"\$1\" -o \"\$2\"' $build/tools/mhtml/mhtml" \
  --reader "gmime=sh -c 'exec \"\$0\" \"\$1\" \"\$2\"' $build/bench/gmime_roundtrip" \
  --reader "limit:cat=sh -c 'exec cat \"\$1\" > \"\$2\"' cat"
