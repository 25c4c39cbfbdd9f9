#!/usr/bin/env bash
# Human move latency with and without the computer searching (docs/performance.md, "Human
# games while the computer thinks"): one release server on a fresh database; paced load runs
# alternate between plain ones and ones with games against the computer at level 8 beside
# them (each keeps an engine search going), ROUNDS pairs. Prints each run's p99 and, per pair,
# the ratio with / without; the median ratio is the figure.
#
#   scripts/engine-latency.sh [ROUNDS] [extra loadtest flags...]
#
# Defaults: 5 rounds of `--variant suicide --games 100 --rate 1000 --seconds 10`, the computer
# in 4 games (two per engine thread on two cores: both threads search all the time).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${1:-5}"
shift || true
bin=${ODDBOARD_BIN:-target/release/oddboard}
port=${PORT:-8097}
db=oddboard_engine_latency
computer_games=${COMPUTER_GAMES:-4}
flags=(--variant suicide --games 100 --rate 1000 --seconds 10 "$@")

echo "kernel.sched_autogroup_enabled = $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo unknown) (1: each engine worker lowers its own session's autogroup to nice 19; 0: its threads run at SCHED_IDLE)"
psql -h 127.0.0.1 -U postgres -qc "drop database if exists $db" >/dev/null
DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" RUST_LOG=warn \
  "$bin" serve --bind "127.0.0.1:$port" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; psql -h 127.0.0.1 -U postgres -qc "drop database if exists $db" >/dev/null' EXIT
until curl -so /dev/null "http://127.0.0.1:$port/healthz"; do sleep 0.2; done

p99() { grep '^latency_p99_ms' | awk '{print $2}'; }
ratios=()
for round in $(seq 1 "$rounds"); do
  plain=$("$bin" loadtest --addr "127.0.0.1:$port" "${flags[@]}")
  busy=$("$bin" loadtest --addr "127.0.0.1:$port" "${flags[@]}" \
    --computer-games "$computer_games" --computer-level 8)
  a=$(echo "$plain" | p99)
  b=$(echo "$busy" | p99)
  # The searches still under way when the run stopped end within the level's time (6 s):
  # the next plain run starts after them.
  sleep 8
  actions=$(echo "$busy" | grep '^computer_actions' | awk '{print $2}')
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')
  ratios+=("$ratio")
  echo "round $round: p99 without ${a} ms, with the computer ${b} ms (${actions} computer actions): ratio $ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "median ratio (with / without): $median over $rounds rounds"
