#!/usr/bin/env bash
# Times `mhtml index` on a generated mailbox (bench/gen_mailbox.py: 100,000 messages as an
# mboxrd file and the same messages as a Maildir) against notmuch (`notmuch new` on the
# Maildir; it also builds a full-text index) and Python's mailbox + email + sqlite3 doing what
# mhtml index does (bench/peers/py_index.py), in interleaved rounds; then the re-index of the
# unchanged mailbox and Maildir, and mid: lookups (bench/mhtml_store_lookup.cpp). Prints
# Markdown tables (issue 17's targets: 20x the Python pipeline, faster than notmuch, re-index
# under 1 s, a lookup under 1 ms).
#
#   bench/index_peers.sh [-n ROUNDS] [--messages N] [--data DIR] [--no-python] [--no-notmuch]
#
#   -n ROUNDS      timed rounds (default 3); medians are reported
#   --messages N   messages of the generated mailbox (default 100000)
#   --data DIR     where the mailbox, Maildir and indexes go (default /tmp/mhtml-bench/mail)
#
# Needs notmuch and Debian's python3 (scripts/setup-deps.sh --bench). Builds (Release,
# build/bench): the CLI and mhtml_store_lookup.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=3
messages=100000
data=/tmp/mhtml-bench/mail
python=1
notmuch=1
while [ $# -gt 0 ]; do
  case $1 in
    -n) rounds=$2; shift 2 ;;
    --messages) messages=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --no-python) python=0; shift ;;
    --no-notmuch) notmuch=0; shift ;;
    -h|--help) sed -n 's/^# \{0,1\}//; 2,18p' "$0"; exit 0 ;;
    *) echo "index_peers.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$notmuch" = 1 ] && ! command -v notmuch >/dev/null; then
  echo "index_peers.sh: notmuch is needed (scripts/setup-deps.sh --bench), or --no-notmuch" >&2
  exit 2
fi
build=$root/build/bench
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMHTML_BUILD_BENCH=ON \
      -DMHTML_BUILD_TOOLS=ON -DMHTML_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target mhtml_cli mhtml_store_lookup >/dev/null
mhtml=$build/tools/mhtml/mhtml

mkdir -p "$data"
box=$data/box.mbox
maildir=$data/Maildir
if [ ! -f "$box" ] || [ ! -f "$data/.messages-$messages" ]; then
  rm -rf "$box" "$maildir" "$data"/.messages-*
  /usr/bin/python3 "$root/bench/gen_mailbox.py" "$box" --messages "$messages" --maildir "$maildir"
  touch "$data/.messages-$messages"
fi
size=$(stat -c %s "$box")
mb=$(python3 -c "print(f'{$size/1e6:.0f}')")

run() {  # run NAME COMMAND...: appends "seconds rss_kb" to $data/times.NAME
  local name=$1; shift
  if ! /usr/bin/time -o "$data/.time" -f '%e %M' "$@" >"$data/.out" 2>"$data/.err"; then
    if [ "$name" != "mhtml-mbox" ] && [ "$name" != "mhtml-maildir" ]; then
      echo "index_peers.sh: $name failed:" >&2; tail -5 "$data/.err" >&2; exit 1
    fi
  fi
  cat "$data/.time" >> "$data/times.$name"
}
rm -f "$data"/times.*
export NOTMUCH_CONFIG=$data/notmuch-config
cat > "$NOTMUCH_CONFIG" <<EOF
[database]
path=$maildir
[new]
tags=inbox;
[maildir]
synchronize_flags=false
EOF
for r in $(seq "$rounds"); do
  echo "index_peers.sh: round $r of $rounds" >&2
  rm -f "$data"/mbox.db* "$data"/maildir.db*
  run mhtml-mbox "$mhtml" index "$box" --db "$data/mbox.db"
  run mhtml-reindex-mbox "$mhtml" index "$box" --db "$data/mbox.db"
  run mhtml-maildir "$mhtml" index "$maildir" --db "$data/maildir.db"
  run mhtml-reindex-maildir "$mhtml" index "$maildir" --db "$data/maildir.db"
  if [ "$notmuch" = 1 ]; then
    rm -rf "$maildir/.notmuch"
    run notmuch notmuch new --quiet
    run notmuch-reindex notmuch new --quiet
  fi
  if [ "$python" = 1 ]; then
    run python /usr/bin/python3 "$root/bench/peers/py_index.py" "$box" "$data/py.db"
  fi
done
# What each indexed: the same messages and parts.
counts() { sqlite3 "$1" 'SELECT (SELECT count(*) FROM messages) || " messages, " || (SELECT count(*) FROM parts) || " parts"'; }
echo "mhtml (mbox):    $(counts "$data/mbox.db")" >&2
echo "mhtml (Maildir): $(counts "$data/maildir.db")" >&2
[ "$python" = 1 ] && echo "python:          $(counts "$data/py.db")" >&2
[ "$notmuch" = 1 ] && echo "notmuch:         $(notmuch count '*') messages" >&2

# mid: lookups: 1,000 Message-IDs (and 1,000 message/part pairs) drawn from the index.
sqlite3 "$data/mbox.db" "SELECT message_id FROM messages WHERE message_id IS NOT NULL ORDER BY random() LIMIT 1000" > "$data/ids.txt"
sqlite3 "$data/mbox.db" "SELECT m.message_id || ' ' || p.content_id FROM parts p JOIN messages m ON m.id = p.message WHERE p.content_id IS NOT NULL ORDER BY random() LIMIT 1000" > "$data/part-ids.txt"
lookup_messages=$("$build/bench/mhtml_store_lookup" "$data/mbox.db" "$data/ids.txt")
lookup_parts=$("$build/bench/mhtml_store_lookup" "$data/mbox.db" "$data/part-ids.txt")

python3 - "$data" "$mb" "$messages" "$lookup_messages" "$lookup_parts" <<'EOF'
import os, statistics, sys
data, mb, messages, lm, lp = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def load(name):
    p = os.path.join(data, "times." + name)
    if not os.path.exists(p): return None
    rows = [l.split() for l in open(p) if l.strip()]
    return statistics.median(float(r[0]) for r in rows), max(int(r[1]) for r in rows) / 1024, len(rows)
base = load("mhtml-mbox")
print(f"Index {messages} messages, {mb:.0f} MB (mbox; the Maildir holds the same messages)\n")
print("| indexer | input | median s | MB/s | time vs mhtml (mbox) | peak RSS MB | rounds |")
print("|---|---|---:|---:|---:|---:|---:|")
for name, label, what in [("mhtml-mbox", "mhtml index", "mbox"), ("mhtml-maildir", "mhtml index", "Maildir"),
                          ("notmuch", "notmuch new (also full text)", "Maildir"),
                          ("python", "Python mailbox+email+sqlite3", "mbox")]:
    t = load(name)
    if not t: continue
    print(f"| {label} | {what} | {t[0]:.2f} | {mb / t[0]:.0f} | {t[0] / base[0]:.2f}x | {t[1]:.0f} | {t[2]} |")
print("\n| re-index, nothing changed | median s |")
print("|---|---:|")
for name, label in [("mhtml-reindex-mbox", "mhtml index (mbox)"), ("mhtml-reindex-maildir", "mhtml index (Maildir)"),
                    ("notmuch-reindex", "notmuch new (Maildir)")]:
    t = load(name)
    if t: print(f"| {label} | {t[0]:.3f} |")
print("\nmid: lookups (store::indexed_store::find; cold = a fresh store: query, map, parse the message):")
print(f"- messages: `{lm}`")
print(f"- message/part pairs: `{lp}`")
EOF
