#!/usr/bin/env bash
# Times mhtml's reader (bench/mhtml_read) against GMime 3 and Python's email on the bench's
# own workloads, from a clone of this repository alone, and prints a Markdown table.
# What each part does: bench/README.md.
#
#   bench/compare_peers.sh [-n ROUNDS] [-w WORKLOADS] [-p READERS] [--data DIR]
#                          [--no-limits] [--check-only] [--json FILE] [--no-setup] [--kit]
#
#   -n ROUNDS      timed rounds per workload (default 3)
#   -w WORKLOADS   comma list out of small,large,many,lf,batch (default small,large,many,lf)
#   -p READERS     comma list out of gmime, gmime-fresh, python-email, python-module (the
#                  mhtml Python module, bench/peers/py_mhtml_read.py), python-module-2t (the
#                  same, two threads) (default
#                  gmime,python-email); mhtml is always run and is the reference of the ratios
#   --data DIR     where the workloads are written and read (default /tmp/mhtml-bench);
#                  missing or outdated ones are generated (bench/workloads.py)
#   --no-limits    leave out the memory-copy floors (limit: rows)
#   --check-only   only check every reader's parts=/bytes= against the manifest
#   --json FILE    also write every sample (bench/run_readers.py --json)
#   --no-setup     do not run scripts/setup-deps.sh --bench first
#   --kit          cross-check with the shared bench kit (../shared/bench, or $MHTBENCH_KIT),
#                  when it is there: after the run above, (1) our runner and readers on the
#                  kit's workloads ($MHTBENCH_DIR, default /tmp/mhtbench; made with the
#                  kit's gen_corpus.py when missing) and (2) the kit's own run_peers.sh on
#                  them with mhtml_read as "ours". The kit is run from a copy in
#                  build/bench/kit, so nothing is written into the shared folder.
#
# Builds (Release, build/bench): mhtml_read, gmime_read and copy_floor, with CMake
# (-DMHTML_BUILD_BENCH=ON). Python: $PYTHON, default Debian's /usr/bin/python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=3
workloads=small,large,many,lf
peers=gmime,python-email
data=/tmp/mhtml-bench
limits=1
check_only=0
json=""
setup=1
kit_mode=0
while [ $# -gt 0 ]; do
  case $1 in
    -n) rounds=$2; shift 2 ;;
    -w) workloads=$2; shift 2 ;;
    -p) peers=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --no-limits) limits=0; shift ;;
    --check-only) check_only=1; shift ;;
    --json) json=$2; shift 2 ;;
    --no-setup) setup=0; shift ;;
    --kit) kit_mode=1; shift ;;
    -h|--help) sed -n 's/^# \{0,1\}//; 2,29p' "$0"; exit 0 ;;
    *) echo "compare_peers.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
py=${PYTHON:-/usr/bin/python3}
build=$root/build/bench
jobs=$(nproc)

if [ "$setup" = 1 ]; then bash "$root/scripts/setup-deps.sh" --bench; fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMHTML_BUILD_BENCH=ON \
      -DMHTML_BUILD_TESTS=OFF -DMHTML_BUILD_TOOLS=OFF >/dev/null
targets=(mhtml_read gmime_read copy_floor)
case ",$peers," in *,python-module*) targets+=(_mhtml) ;; esac
cmake --build "$build" -j"$jobs" --target "${targets[@]}"

"$py" "$root/bench/workloads.py" --out "$data" --only "$workloads" --missing

readers=(--reader "mhtml=$build/bench/mhtml_read")
IFS=',' read -ra want <<< "$peers"
for p in "${want[@]}"; do
  case $p in
    gmime) readers+=(--reader "gmime=$build/bench/gmime_read") ;;
    gmime-fresh) readers+=(--reader "gmime-fresh=$build/bench/gmime_read --fresh") ;;
    python-email) readers+=(--reader "python-email=$py $root/bench/peers/py_email_read.py") ;;
    python-module) readers+=(--reader "python-module=env PYTHONPATH=$build/python $py $root/bench/peers/py_mhtml_read.py") ;;
    python-module-2t) readers+=(--reader "python-module-2t=env PYTHONPATH=$build/python $py $root/bench/peers/py_mhtml_read.py --threads 2") ;;
    *) echo "compare_peers.sh: unknown reader $p (gmime, gmime-fresh, python-email, python-module, python-module-2t)" >&2; exit 2 ;;
  esac
done
if [ "$limits" = 1 ]; then
  readers+=(--reader "limit:read=$build/bench/copy_floor read"
            --reader "limit:copy-fresh=$build/bench/copy_floor fresh"
            --reader "limit:copy-reused=$build/bench/copy_floor reused")
fi
opts=(-n "$rounds" -w "$workloads")
if [ "$check_only" = 1 ]; then opts+=(--check-only); fi
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
label="mhtml commit $commit; $(uname -m), $(nproc) CPUs"

echo "## bench/compare_peers.sh: the bench's workloads ($data)"
"$py" "$root/bench/run_readers.py" --data "$data" "${readers[@]}" "${opts[@]}" \
      --label "$label" ${json:+--json "$json"}

[ "$kit_mode" = 1 ] || exit 0
kit=${MHTBENCH_KIT:-$root/../shared/bench}
kit_data=${MHTBENCH_DIR:-/tmp/mhtbench}
if [ ! -f "$kit/run_peers.sh" ]; then
  echo "compare_peers.sh: no shared kit at $kit, cross-check skipped" >&2
  exit 0
fi
kit_copy=$build/kit
mkdir -p "$kit_copy"
# A copy, refreshed: the kit builds into its own folder and the shared one stays untouched.
(cd "$kit" && tar --exclude=./build --exclude=./node/node_modules -cf - .) | (cd "$kit_copy" && tar -xf -)
missing=$("$py" - "$kit_data" "$workloads" <<'PY'
import json, os, sys
data, wanted = sys.argv[1], sys.argv[2].split(",")
try:
    m = json.load(open(os.path.join(data, "manifest.json")))
except OSError:
    m = {}
out = []
for w in wanted:
    e = m.get(w)
    p = os.path.join(data, (e or {}).get("dir") or (e or {}).get("file", "-"))
    if not e or not os.path.exists(p) or (os.path.isfile(p) and os.path.getsize(p) != e["size"]):
        out.append(w)
print(",".join(out))
PY
)
if [ -n "$missing" ]; then "$py" "$kit_copy/gen_corpus.py" --out "$kit_data" --only "$missing"; fi

echo
echo "## cross-check 1: our runner and readers on the kit's workloads ($kit_data)"
"$py" "$root/bench/run_readers.py" --data "$kit_data" "${readers[@]}" "${opts[@]}" \
      --label "$label" ${json:+--json "${json%.json}-kit-data.json"}

kit_peers=""
for p in "${want[@]}"; do
  case $p in gmime|gmime-fresh) k=gmime ;; *) k=$p ;; esac
  [[ ",$kit_peers," == *",$k,"* ]] || kit_peers=${kit_peers:+$kit_peers,}$k
done
kit_opts=(-n "$rounds" -w "$workloads" -p "$kit_peers")
if [ "$limits" = 0 ]; then kit_opts+=(--no-limits); fi
if [ "$check_only" = 1 ]; then kit_opts+=(--no-time); fi
echo
echo "## cross-check 2: the kit's run_peers.sh on its workloads (ours = mhtml_read; x = wall / GMime's)"
MHTBENCH_DIR=$kit_data OURS_CMD="$build/bench/mhtml_read" bash "$kit_copy/run_peers.sh" "${kit_opts[@]}"
