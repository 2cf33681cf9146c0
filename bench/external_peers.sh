#!/usr/bin/env bash
# Times `mhtml fetch-external` materializing N external parts of SIZE octets each from a
# loopback nginx, against `curl --parallel` fetching the same URLs (issue 16's target: at most
# 1.5x curl's time), in interleaved rounds, and prints a Markdown table.
#
#   bench/external_peers.sh [-n ROUNDS] [--parts N] [--size BYTES] [--parallel P] [--keep DIR]
#
#   -n ROUNDS     timed rounds (default 5); the median is reported
#   --parts N     external parts (default 1000)
#   --size BYTES  octets of each (default 102400)
#   --parallel P  transfers at once, for both (default 8)
#   --keep DIR    keep the files, the archive and the outputs in DIR
#
# nginx (worker_processes = cores, access_log off) serves the files on 127.0.0.1; the archive
# is a multipart/mixed of N message/external-body parts, access-type=URL, each declaring
# application/octet-stream. curl writes every body to a file in one folder (curl -K with
# N url/output pairs, --parallel --parallel-max P); mhtml writes the materialized archive
# (each body base64-encoded into it). Needs wrk's sibling packages: nginx, curl
# (scripts/setup-deps.sh --bench). Builds (Release, build/bench): the CLI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/nginx.sh"
rounds=5
parts=1000
size=102400
parallel=8
keep=""
while [ $# -gt 0 ]; do
  case $1 in
    -n) rounds=$2; shift 2 ;;
    --parts) parts=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n 's/^# \{0,1\}//; 2,19p' "$0"; exit 0 ;;
    *) echo "external_peers.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx_bin" ] && command -v curl >/dev/null ||
  { echo "external_peers.sh: nginx and curl are needed (scripts/setup-deps.sh --bench)" >&2; exit 2; }
build=$root/build/bench
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMHTML_BUILD_BENCH=ON \
      -DMHTML_BUILD_TOOLS=ON -DMHTML_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target mhtml_cli >/dev/null
mhtml=$build/tools/mhtml/mhtml

if [ -n "$keep" ]; then work=$keep; mkdir -p "$work"; else work=$(mktemp -d); fi
chmod 755 "$work"  # nginx's workers (www-data) read the files
nginx_pid=""
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
rm -rf "$work/files" && mkdir -p "$work/files" "$work/curl-out"
python3 - "$work" "$parts" "$size" "$port" <<'EOF'
import os, random, sys
work, parts, size, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rnd = random.Random(16)
with open(os.path.join(work, "archive.eml"), "w", newline="") as a, \
     open(os.path.join(work, "urls.txt"), "w") as u:
    a.write("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n")
    for i in range(parts):
        name = f"f{i:05d}.bin"
        with open(os.path.join(work, "files", name), "wb") as f:
            f.write(rnd.randbytes(size))
        url = f"http://127.0.0.1:{port}/{name}"
        a.write(f'--b\r\nContent-Type: message/external-body; access-type=URL; URL="{url}"\r\n\r\n'
                f"Content-Type: application/octet-stream\r\nContent-ID: <{i}@bench>\r\n\r\n")
        u.write(f'url = "{url}"\noutput = "{work}/curl-out/{name}"\n')
    a.write("--b--\r\n")
EOF
start_nginx "$work" "$work/files" "$port" "application/octet-stream bin;"
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/f00000.bin" && break; sleep 0.1; done

# Correctness first: every part fetched, and its octets those of the file.
NO_PROXY=127.0.0.1 "$mhtml" fetch-external "$work/archive.eml" -o "$work/out.eml" --json \
  --parallel "$parallel" >"$work/report.json"
python3 - "$work" "$parts" <<'EOF'
import email, email.policy, json, os, sys
work, parts = sys.argv[1], int(sys.argv[2])
report = json.load(open(os.path.join(work, "report.json")))
assert report["fetched"] == parts and report["failed"] == 0, report["failed"]
msg = email.message_from_binary_file(open(os.path.join(work, "out.eml"), "rb"),
                                     policy=email.policy.default)
n = 0
for i, part in enumerate(p for p in msg.iter_parts()):
    want = open(os.path.join(work, "files", f"f{i:05d}.bin"), "rb").read()
    assert part.get_payload(decode=True) == want, i
    n += 1
assert n == parts, n
EOF

time_of() {  # command... -> seconds (wall)
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.3f}')"
}
ours=()
theirs=()
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    ours+=("$(time_of env NO_PROXY=127.0.0.1 "$mhtml" fetch-external "$work/archive.eml" -o "$work/out.eml" --parallel "$parallel")")
    theirs+=("$(time_of env NO_PROXY=127.0.0.1 curl -s --parallel --parallel-max "$parallel" -K "$work/urls.txt")")
  else
    theirs+=("$(time_of env NO_PROXY=127.0.0.1 curl -s --parallel --parallel-max "$parallel" -K "$work/urls.txt")")
    ours+=("$(time_of env NO_PROXY=127.0.0.1 "$mhtml" fetch-external "$work/archive.eml" -o "$work/out.eml" --parallel "$parallel")")
  fi
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m=$(median "${ours[@]}")
c=$(median "${theirs[@]}")
echo "## fetch-external against curl --parallel"
echo
echo "mhtml $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores; $parts parts of $size octets from nginx on 127.0.0.1, $parallel transfers at once, $rounds rounds; $(date -u +%Y-%m-%d)"
echo
echo "| program | median s | rounds (s) | MB/s |"
echo "|---|---:|---|---:|"
mb=$(python3 -c "print($parts * $size / 1e6)")
echo "| mhtml fetch-external | $m | ${ours[*]} | $(python3 -c "print(f'{$mb / $m:.0f}')") |"
echo "| curl --parallel | $c | ${theirs[*]} | $(python3 -c "print(f'{$mb / $c:.0f}')") |"
echo
echo "mhtml / curl: $(python3 -c "print(f'{$m / $c:.2f}')")x the time (target: at most 1.5x)"
