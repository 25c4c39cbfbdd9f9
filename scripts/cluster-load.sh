#!/usr/bin/env bash
# The cost of several nodes (docs/performance.md, "Several nodes"): in each of ROUNDS rounds,
# the load tool against one node without NATS, then two nodes on one private NATS with every
# game's players on the node that runs it (`owner`), then with every player on the other
# node (`forwarded`: each move goes through NATS to the running node and back). Each run on a
# fresh database. Prints per mode the median moves/s and p99 over the rounds, with their
# spread, and each two-node mode's median as a ratio to one node's in the same rounds.
#
#   ROUNDS=5 GAMES=100 SECONDS_PER_RUN=10 scripts/cluster-load.sh [SERVER_BIN]
#
# SERVER_BIN defaults to target/release/oddboard (built if missing); its own `loadtest` drives
# it. Needs Debian's nats-server, psql and the local PostgreSQL. Only processes it started are
# stopped, by PID. On this 2-core machine two nodes share the cores with the load tool, so
# the two-node figures are a cost, not a gain.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/release/oddboard}"
[ -x "$bin" ] || cargo build --release --bin oddboard
rounds=${ROUNDS:-5}
games=${GAMES:-100}
seconds=${SECONDS_PER_RUN:-10}
variant=${VARIANT:-suicide}
ports=(8191 8192)
nats_port=${NATS_PORT:-14223}
db=oddboard_cluster_load
out=target/cluster-load/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
pids=()
# The nodes before NATS (the last started first), so that each hands its leases back.
stop_all() {
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[$i]}" 2>/dev/null || true; wait "${pids[$i]}" 2>/dev/null || true; done
  pids=()
}
trap 'stop_all; rm -rf "$out/nats"' EXIT
fresh_db() {
  psql -h 127.0.0.1 -U postgres -qc "drop database if exists $db" >/dev/null
  psql -h 127.0.0.1 -U postgres -qc "create database $db" >/dev/null
}
healthy() { for _ in $(seq 1 200); do curl -sfo /dev/null "http://127.0.0.1:$1/healthz" && return 0; sleep 0.1; done; echo "node on $1 did not start" >&2; exit 1; }
node() { # port [nats]
  if [ -n "${2:-}" ]; then
    NATS_URL="$2" NODE_ID="node-$1" DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" RUST_LOG=warn "$bin" serve --bind "127.0.0.1:$1" &
  else
    DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" RUST_LOG=warn "$bin" serve --bind "127.0.0.1:$1" &
  fi
  pids+=($!)
  healthy "$1"
}
figure() { grep "^$2:" "$1" | awk '{print $2}'; }
for round in $(seq 1 "$rounds"); do
  for mode in one owner forwarded; do
    fresh_db
    if [ "$mode" = one ]; then
      node "${ports[0]}"
      addrs="127.0.0.1:${ports[0]}"
      extra=()
    else
      rm -rf "$out/nats"
      nats-server -js -a 127.0.0.1 -p "$nats_port" -sd "$out/nats" >/dev/null 2>&1 &
      pids+=($!)
      sleep 0.5
      node "${ports[0]}" "nats://127.0.0.1:$nats_port"
      node "${ports[1]}" "nats://127.0.0.1:$nats_port"
      addrs="127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}"
      extra=()
      [ "$mode" = forwarded ] && extra=(--play-elsewhere)
    fi
    "$bin" loadtest --addr "$addrs" "${extra[@]}" --games "$games" --seconds "$seconds" \
      --variant "$variant" >"$out/$mode-$round.txt" 2>"$out/$mode-$round.err"
    printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$mode" "$(figure "$out/$mode-$round.txt" moves_per_second)" \
      "$(figure "$out/$mode-$round.txt" latency_p99_ms)" "$(figure "$out/$mode-$round.txt" errors)" | tee -a "$out/runs.tsv"
    stop_all
  done
done
psql -h 127.0.0.1 -U postgres -qc "drop database if exists $db" >/dev/null
python3 - "$out/runs.tsv" <<'PY'
import statistics, sys, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r, mode, mps, p99, errors = line.split("\t")
    runs[mode].append((float(mps), float(p99), int(errors)))
one = statistics.median(m for m, _, _ in runs["one"])
for mode in ("one", "owner", "forwarded"):
    mps = [m for m, _, _ in runs[mode]]
    p99 = [p for _, p, _ in runs[mode]]
    errors = sum(e for _, _, e in runs[mode])
    print(f"{mode:10} moves/s median {statistics.median(mps):7.0f} (spread {min(mps):.0f}-{max(mps):.0f}), "
          f"ratio to one node {statistics.median(mps) / one:.2f}; p99 median {statistics.median(p99):.1f} ms "
          f"(spread {min(p99):.1f}-{max(p99):.1f}); errors {errors}")
PY
echo "runs: $out"
