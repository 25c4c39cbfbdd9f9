#!/usr/bin/env bash
# The engine's speed in an engine worker process (`oddboard engine-worker`, at its lowest
# priority, as the server runs it) against the same search in-process (`oddboard uci`), in
# alternated pairs on an otherwise idle machine: nodes per second of a fixed-node search of
# Suicide's start position, and their ratio (docs/performance.md, "Human games while the
# computer thinks"). With nothing else running, the priority costs nothing; the figure shows
# that the pipe and the process do not either.
#
#   scripts/worker-nps.sh [PAIRS] [NODES]     (defaults: 5 pairs of 2,000,000 nodes)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-5}
nodes=${2:-2000000}
bin=${ODDBOARD_BIN:-target/release/oddboard}
[ -x "$bin" ] || cargo build --release --bin oddboard
start='rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1'

# One measurement: "worker" or "uci"; prints nodes per second.
measure() {
  python3 - "$bin" "$1" "$nodes" "$start" <<'PY'
import json, subprocess, sys, time
binary, kind, nodes, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if kind == "worker":
    job = {"t": "search", "job": 1,
           "search": {"search": "evaluate", "variant": "suicide", "position": start, "nodes": nodes}}
    t0 = time.monotonic()
    out = subprocess.run([binary, "engine-worker"], input=json.dumps(job) + "\n",
                         capture_output=True, text=True, check=True).stdout
    elapsed = time.monotonic() - t0
    print(int(json.loads(out)["answer"]["evaluation"]["nodes"] / elapsed))
else:
    uci = subprocess.Popen([binary, "uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    uci.stdin.write(f"uci\nsetoption name UCI_Variant value suicide\nposition startpos\ngo nodes {nodes}\n")
    uci.stdin.flush()
    nps = 0
    for line in uci.stdout:
        words = line.split()
        if "nps" in words:
            nps = int(words[words.index("nps") + 1])
        if line.startswith("bestmove"):
            break
    uci.stdin.write("quit\n")
    uci.stdin.flush()
    uci.wait()
    print(nps)
PY
}
ratios=()
for pair in $(seq 1 "$pairs"); do
  w=$(measure worker)
  p=$(measure uci)
  r=$(awk -v w="$w" -v p="$p" 'BEGIN { printf "%.3f", w / p }')
  ratios+=("$r")
  echo "pair $pair: worker $w nodes/s, in-process $p nodes/s: ratio $r"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "median ratio (worker / in-process): $median over $pairs pairs"
