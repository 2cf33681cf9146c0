#!/usr/bin/env bash
# Measures `mhtml serve` with wrk on loopback against nginx serving the same archive extracted
# to a folder, and Python's http.server on that folder, in one run (issue 15's targets), and
# prints a Markdown table: requests per second for a small part (a 2 KiB style sheet) and for a
# 1 MiB image, and latency percentiles at 1,000 concurrent connections.
#
#   bench/serve_peers.sh [-d SECONDS] [-c CONNECTIONS] [--soak SECONDS] [--keep DIR]
#
#   -d SECONDS      length of each wrk run (default 10)
#   -c CONNECTIONS  connections of the throughput runs (default 64)
#   --soak SECONDS  afterwards, load mhtml serve for SECONDS (wrk, the small part and the image
#                   in turn) and print its resident memory every 30 s
#   --keep DIR      write the site, the archive and the logs into DIR (default: a temporary
#                   folder, removed at the end)
#
# Every server listens on 127.0.0.1 on a free port and has the machine's cores: mhtml serve
# --threads $(nproc), nginx worker_processes $(nproc); Python's http.server is what it is
# (ThreadingHTTPServer). Access logs are off for all three (mhtml serve -q, nginx access_log
# off). wrk runs with one thread (-t1). Needs: wrk, nginx (scripts/setup-deps.sh --bench).
# Builds (Release, build/bench): the CLI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/nginx.sh"
dur=10
conns=64
soak=0
keep=""
while [ $# -gt 0 ]; do
  case $1 in
    -d) dur=$2; shift 2 ;;
    -c) conns=$2; shift 2 ;;
    --soak) soak=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n 's/^# \{0,1\}//; 2,19p' "$0"; exit 0 ;;
    *) echo "serve_peers.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for t in wrk nginx python3 curl; do
  command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] ||
    { echo "serve_peers.sh: $t is missing (scripts/setup-deps.sh --bench)" >&2; exit 2; }
done
build=$root/build/bench
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMHTML_BUILD_BENCH=ON \
      -DMHTML_BUILD_TOOLS=ON -DMHTML_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target mhtml_cli >/dev/null
mhtml=$build/tools/mhtml/mhtml

if [ -n "$keep" ]; then work=$keep; mkdir -p "$work"; else work=$(mktemp -d); fi
chmod 755 "$work"  # nginx's workers (www-data) read the files
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

# The site: a page, a 2 KiB style sheet and a 1 MiB image (random octets behind a JPEG
# header), packed with the Content-Location method and extracted again for the peers.
rm -rf "$work/site" "$work/extracted"
mkdir -p "$work/site"
python3 - "$work/site" <<'EOF'
import os, random, sys
d = sys.argv[1]
rnd = random.Random(15)
with open(os.path.join(d, "style.css"), "w") as f:
    rules = "".join(f".c{i} {{ margin: {i}px; color: #{i:06x}; }}\n" for i in range(64))
    f.write(rules[:2048])
with open(os.path.join(d, "photo.jpg"), "wb") as f:
    f.write(b"\xff\xd8\xff\xe0" + bytes(rnd.getrandbits(8) for _ in range(1024 * 1024 - 4)))
with open(os.path.join(d, "index.html"), "w") as f:
    f.write('<!doctype html><html><head><title>serve bench</title>'
            '<link rel="stylesheet" href="style.css"></head>'
            '<body><h1>serve bench</h1><img src="photo.jpg"></body></html>\n')
EOF
"$mhtml" pack "$work/site" --base http://bench.example/ -o "$work/site.mhtml" >/dev/null
"$mhtml" extract "$work/site.mhtml" -o "$work/extracted" >/dev/null
small_file=$(cd "$work/extracted" && find . -name 'style*.css' | head -1 | sed 's|^\./||')
image_file=$(cd "$work/extracted" && find . -name 'photo*.jpg' | head -1 | sed 's|^\./||')
[ -n "$small_file" ] && [ -n "$image_file" ] ||
  { echo "serve_peers.sh: extract did not write the style sheet and the image" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() {  # URL
  for _ in $(seq 100); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "serve_peers.sh: nothing answers at $1" >&2; exit 1
}
cores=$(nproc)

# mhtml serve
mport=$(free_port)
"$mhtml" serve "$work/site.mhtml" --port "$mport" --threads "$cores" -q >"$work/mhtml.out" 2>"$work/mhtml.err" &
mpid=$!; pids+=("$mpid")
wait_up "http://127.0.0.1:$mport/"
ticket=$(curl -s "http://127.0.0.1:$mport/" | grep -o 'href="/[0-9a-f]\{32\}/"' | head -1 | cut -d/ -f2)
[ -n "$ticket" ] || { echo "serve_peers.sh: no ticket on the index page" >&2; exit 1; }
m_small="http://127.0.0.1:$mport/$ticket/r/http/bench.example/style.css"
m_image="http://127.0.0.1:$mport/$ticket/r/http/bench.example/photo.jpg"

# nginx
nport=$(free_port)
start_nginx "$work" "$work/extracted" "$nport" "text/css css; image/jpeg jpg; text/html html;"
pids+=("$nginx_pid")
wait_up "http://127.0.0.1:$nport/$small_file"

# Python's http.server
pport=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$work/extracted" "$pport" \
  >"$work/python.log" 2>&1 &
pids+=("$!")
wait_up "http://127.0.0.1:$pport/$small_file"

# The three serve the same octets.
for what in small image; do
  if [ $what = small ]; then f=$small_file; m=$m_small; else f=$image_file; m=$m_image; fi
  a=$(curl -s "$m" | sha256sum); b=$(curl -s "http://127.0.0.1:$nport/$f" | sha256sum)
  c=$(curl -s "http://127.0.0.1:$pport/$f" | sha256sum)
  [ "$a" = "$b" ] && [ "$a" = "$c" ] ||
    { echo "serve_peers.sh: the servers disagree on the $what part" >&2; exit 1; }
done

run_wrk() {  # CONNECTIONS URL -> "rps p50 p99" (latency in ms)
  wrk -t1 -c"$1" -d"${dur}s" --latency --timeout 30s "$2" 2>&1 | python3 -c '
import re, sys
t = sys.stdin.read()
def ms(v):
    m = re.match(r"([\d.]+)(us|ms|s)", v)
    return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]
rps = re.search(r"Requests/sec:\s+([\d.]+)", t).group(1)
p50 = re.search(r"\s50%\s+(\S+)", t).group(1)
p99 = re.search(r"\s99%\s+(\S+)", t).group(1)
errs = re.search(r"Socket errors: (.*)", t)
non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
print(rps, f"{ms(p50):.2f}", f"{ms(p99):.2f}",
      (errs.group(1).replace(" ", "") if errs else "-") + ("/non2xx=" + non2xx.group(1) if non2xx else ""))
'
}

echo "## mhtml serve against nginx and Python's http.server"
echo
echo "mhtml $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, wrk -t1 -d${dur}s; $(date -u +%Y-%m-%d)"
echo
echo "| part | connections | server | requests/s | p50 ms | p99 ms | errors | mhtml / server |"
echo "|---|---:|---|---:|---:|---:|---|---:|"
for what in small image; do
  if [ $what = small ]; then f=$small_file; m=$m_small; label="2 KiB style sheet"; else f=$image_file; m=$m_image; label="1 MiB image"; fi
  for c in "$conns" 1000; do
    read -r mr m50 m99 merr < <(run_wrk "$c" "$m")
    read -r nr n50 n99 nerr < <(run_wrk "$c" "http://127.0.0.1:$nport/$f")
    read -r pr p50 p99 perr < <(run_wrk "$c" "http://127.0.0.1:$pport/$f")
    echo "| $label | $c | mhtml serve | $mr | $m50 | $m99 | $merr | |"
    echo "| $label | $c | nginx | $nr | $n50 | $n99 | $nerr | $(python3 -c "print(f'{$mr/$nr:.2f}')") |"
    echo "| $label | $c | python http.server | $pr | $p50 | $p99 | $perr | $(python3 -c "print(f'{$mr/max($pr,0.01):.1f}')") |"
  done
done
echo
echo "mhtml serve's resident memory after the runs: $(ps -o rss= -p "$mpid" | tr -d ' ') KiB"

if [ "$soak" -gt 0 ]; then
  echo
  echo "## Soak: mhtml serve under wrk for $soak s (64 connections, the small part and the image in turn, 30 s each)"
  echo
  echo "| elapsed s | resident KiB |"
  echo "|---:|---:|"
  echo "| 0 | $(ps -o rss= -p "$mpid" | tr -d ' ') |"
  start=$(date +%s)
  n=0
  while [ $(( $(date +%s) - start )) -lt "$soak" ]; do
    if [ $((n % 2)) -eq 0 ]; then u=$m_small; else u=$m_image; fi
    wrk -t1 -c64 -d30s "$u" >/dev/null 2>&1
    n=$((n + 1))
    echo "| $(( $(date +%s) - start )) | $(ps -o rss= -p "$mpid" | tr -d ' ') |"
  done
fi
