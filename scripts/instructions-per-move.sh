#!/usr/bin/env bash
# Counts the server's user-space instructions per committed move, under valgrind's callgrind,
# for a light paced load of one variant (default suicide). Wall-clock figures on a shared
# 2-core machine drift by a quarter from one minute to the next; instruction counts much
# less, so this is how two builds are compared (docs/performance.md). They still move by a
# few percent between runs, with how the moves fall into the writer's batches: compare
# builds in alternated pairs, and trust only differences larger than that.
#
#   scripts/instructions-per-move.sh [variant] [server binary]
#
# Needs valgrind and the local PostgreSQL; uses its own database (oddboard_callgrind) and
# port (8097). The load tool's games are seeded, so two runs play the same moves.
set -euo pipefail
cd "$(dirname "$0")/.."
variant=${1:-suicide}
bin=${2:-target/release/oddboard}
[ -x "$bin" ] || cargo build --release --bin oddboard
db=oddboard_callgrind
addr=127.0.0.1:8097
out=$(mktemp -d)
psql -h 127.0.0.1 -U postgres -qc "drop database if exists $db" >/dev/null
count() { psql -h 127.0.0.1 -U postgres -d $db -Atc "select count(*) from $1"; }

DATABASE_URL=postgres://postgres@localhost:5432/$db RUST_LOG=warn \
  valgrind --tool=callgrind --cache-sim=no --callgrind-out-file="$out/callgrind.out" \
  "$bin" serve --bind $addr >"$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; [ -n "${KEEP_CALLGRIND:-}" ] && cp "$out"/callgrind.out.1 "$KEEP_CALLGRIND"; rm -rf "$out"' EXIT
for _ in $(seq 300); do curl -sf "http://$addr/healthz" >/dev/null && break; sleep 0.5; done

# Warm up (first connections, statement caches), then count from zero.
"$bin" loadtest --addr $addr --variant "$variant" --games 10 --seconds 5 --rate 200 >/dev/null
moves_before=$(count game_action)
games_before=$(count game)
callgrind_control -z $server >/dev/null 2>&1
"$bin" loadtest --addr $addr --variant "$variant" --games 20 --seconds 20 --rate 300 >/dev/null
callgrind_control -d $server >/dev/null 2>&1
moves=$(( $(count game_action) - moves_before ))
games=$(( $(count game) - games_before ))
instructions=$(awk '/^summary:/ {print $2}' "$out"/callgrind.out.1)
echo "variant: $variant"
echo "moves: $moves"
echo "games: $games"
echo "server_instructions: $instructions"
echo "server_instructions_per_move: $(( instructions / moves ))"
