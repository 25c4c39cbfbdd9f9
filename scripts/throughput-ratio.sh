#!/usr/bin/env bash
# Compares server builds' saturation throughput as ratios to the bare WebSocket echo, all in
# one run (docs/performance.md, "How to reproduce"): ROUNDS interleaved rounds, each an echo,
# then for every server binary (the order reversed every other round) the two Suicide
# saturation runs, a socket per game and multiplexed, each against a fresh server on a fresh
# database, then the next round's echo. A run's ratio is its moves/s over the mean of the two
# echoes around it. Prints, per binary and figure, the median ratio and its spread over the
# rounds, and each later binary's median over the first's (and the median of the same rounds'
# ratios); the issue-47 bar is that neither figure drops by more than 5%.
#
#   scripts/throughput-ratio.sh ECHO_BIN LABEL=SERVER_BIN [LABEL=SERVER_BIN ...]
#   ROUNDS=5 scripts/throughput-ratio.sh target/release/examples/ws_echo \
#     before=/work/target-before/release/oddboard after=target/release/oddboard
#
# Each binary's own `loadtest` drives it. Environment: ROUNDS (5), SECONDS_PER_RUN (10),
# ECHO_PORT (8099), PORT (8091, the servers' port), OUT (target/throughput-ratio: the raw
# per-run figures and every run's output go in a directory of this run under it). Needs curl,
# psql and the local PostgreSQL (postgres@127.0.0.1:5432, trust). A round takes about 10 s plus
# 25 s a binary: five rounds of two binaries, about five minutes.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
[ $# -ge 2 ] || usage

abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
echo_bin=$(abs "$1")
shift
labels=()
bins=()
for spec in "$@"; do
  [[ $spec =~ ^[A-Za-z0-9_]+= ]] || { echo "not LABEL=SERVER_BIN (a label of letters, digits, _): $spec" >&2; usage; }
  for l in "${labels[@]}"; do [ "$l" != "${spec%%=*}" ] || { echo "label given twice: $l" >&2; exit 2; }; done
  labels+=("${spec%%=*}")
  bins+=("$(abs "${spec#*=}")")
done
for b in "$echo_bin" "${bins[@]}"; do
  [ -x "$b" ] || { echo "not an executable: $b" >&2; exit 2; }
done
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-5}
seconds=${SECONDS_PER_RUN:-10}
echo_port=${ECHO_PORT:-8099}
port=${PORT:-8091}
stamp=$(date +%Y%m%d-%H%M%S)
out="${OUT:-target/throughput-ratio}/$stamp"
mkdir -p "$out"
raw="$out/runs.tsv"
pg=(env PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -U postgres -qAt -v ON_ERROR_STOP=1)

# 400 games at a socket each are 800 client sockets, and as many on the server's side.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# Only what this script started is stopped, by its PID; the database of a run cut short is
# dropped. pid: the echo or game server; client: the echo client or load tool, run in the
# background and waited for so that a signal's trap runs at once.
pid=""
client=""
db=""
foreground() {
  "$@" &
  client=$!
  local rc=0
  wait "$client" || rc=$?
  client=""
  return "$rc"
}
stop() {
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=""
}
drop() {
  [ -n "$db" ] || return 0
  "${pg[@]}" -c "drop database if exists $db with (force)" >/dev/null || true
  db=""
}
trap '[ -z "$client" ] || kill "$client" 2>/dev/null || true; stop; drop' EXIT
trap 'exit 130' INT TERM

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
  if listening "$1"; then
    echo "port $1 is already in use; set ECHO_PORT or PORT" >&2
    exit 1
  fi
}
value() { awk -v k="$1:" '$1 == k { print $2; exit }'; }

# The bare echo; sets rate (round trips a second). These run in the script's own shell, not
# a subshell, so that a failure's exit goes through the trap.
echo_run() {
  local log="$out/echo-$1.txt"
  free_port "$echo_port"
  "$echo_bin" server "127.0.0.1:$echo_port" >"$out/echo-server-$1.log" 2>&1 &
  pid=$!
  until listening "$echo_port"; do
    kill -0 "$pid" 2>/dev/null || { echo "the echo server stopped: $out/echo-server-$1.log" >&2; exit 1; }
    sleep 0.1
  done
  foreground "$echo_bin" client "127.0.0.1:$echo_port" 16 "$seconds" >"$log" 2>&1 \
    || { echo "the echo client failed: $log" >&2; exit 1; }
  stop
  rate=$(value round_trips_per_second <"$log")
  [ -n "$rate" ] || { echo "no round_trips_per_second in $log" >&2; exit 1; }
}

# One load run against a fresh server of binary $2 on a fresh database; $1 names the run's
# files. Sets moves (a second), p99 (ms) and errors.
load_run() {
  local name=$1 bin=$2
  shift 2
  free_port "$port"
  db="oddboard_ratio_$$_${name//-/_}"
  "${pg[@]}" -c "drop database if exists $db" >/dev/null
  DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" RUST_LOG=warn \
    "$bin" serve --bind "127.0.0.1:$port" >"$out/$name-server.log" 2>&1 &
  pid=$!
  until curl -sfo /dev/null "http://127.0.0.1:$port/healthz"; do
    kill -0 "$pid" 2>/dev/null || { echo "the server stopped: $out/$name-server.log" >&2; exit 1; }
    sleep 0.2
  done
  foreground "$bin" loadtest --addr "127.0.0.1:$port" "$@" --seconds "$seconds" >"$out/$name.txt" 2>"$out/$name.err" \
    || { echo "loadtest failed: $out/$name.err" >&2; exit 1; }
  stop
  drop
  moves=$(value moves_per_second <"$out/$name.txt")
  p99=$(value latency_p99_ms <"$out/$name.txt")
  errors=$(value errors <"$out/$name.txt")
  [ -n "$moves" ] || { echo "no moves_per_second in $out/$name.txt" >&2; exit 1; }
}

figures=(socket mux)
flags_socket=(--variant suicide --games 400)
flags_mux=(--variant suicide --games 800 --games-per-socket 50)

echo "$rounds rounds, ${seconds}s runs; echo $echo_bin; $(for i in "${!labels[@]}"; do printf '%s=%s ' "${labels[$i]}" "${bins[$i]}"; done)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'round\tlabel\tfigure\tmoves_per_second\techo_before\techo_after\tratio\tp99_ms\terrors\n' >"$raw"

echoes=()
echo_run 1
echoes[1]=$rate
echo "round 1: echo ${echoes[1]} round trips/s"
for round in $(seq 1 "$rounds"); do
  order=("${!labels[@]}")
  if (( round % 2 == 0 )); then
    order=()
    for (( i = ${#labels[@]} - 1; i >= 0; i-- )); do order+=("$i"); done
  fi
  pending=()   # the round's runs, waiting for the echo after them
  for i in "${order[@]}"; do
    for figure in "${figures[@]}"; do
      flags_name="flags_$figure[@]"
      load_run "r$round-${labels[$i]}-$figure" "${bins[$i]}" "${!flags_name}"
      [ "${errors:-0}" = 0 ] || echo "round $round ${labels[$i]} $figure: $errors errors ($out/r$round-${labels[$i]}-$figure.err)" >&2
      pending+=("${labels[$i]} $figure $moves $p99 $errors")
      echo "round $round: ${labels[$i]} $figure $moves moves/s (p99 $p99 ms)"
    done
  done
  echo_run $((round + 1))
  echoes[round + 1]=$rate
  echo "round $round: echo after ${echoes[round + 1]} round trips/s"
  for run in "${pending[@]}"; do
    read -r label figure moves p99 errors <<<"$run"
    awk -v r="$round" -v l="$label" -v f="$figure" -v m="$moves" -v a="${echoes[round]}" \
      -v b="${echoes[round + 1]}" -v p="$p99" -v e="$errors" \
      'BEGIN { printf "%s\t%s\t%s\t%s\t%s\t%s\t%.4f\t%s\t%s\n", r, l, f, m, a, b, m / ((a + b) / 2), p, e }' >>"$raw"
  done
done

echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "raw figures: $raw"
# Per label and figure: the median ratio, its spread, the median moves/s; then each later
# label's median ratio over the first label's, and the median of the same rounds' ratios.
awk -F'\t' -v first="${labels[0]}" -v labels="${labels[*]}" '
  function median(list,   v, n, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  function lo(list,   v, n, i, m) { n = split(list, v, " "); m = v[1]; for (i = 2; i <= n; i++) if (v[i] + 0 < m + 0) m = v[i]; return m }
  function hi(list,   v, n, i, m) { n = split(list, v, " "); m = v[1]; for (i = 2; i <= n; i++) if (v[i] + 0 > m + 0) m = v[i]; return m }
  NR == 1 { next }
  { k = $2 SUBSEP $3; ratios[k] = ratios[k] " " $7; moves[k] = moves[k] " " $4; by_round[$1, $2, $3] = $7; echo[$1] = $5; echo[$1 + 1] = $6; if ($1 > rounds) rounds = $1 }
  END {
    for (r = 1; r <= rounds + 1; r++) echoes = echoes " " echo[r]
    printf "echo: median %.0f round trips/s (%.0f–%.0f, %d runs)\n", median(echoes), lo(echoes), hi(echoes), rounds + 1
    n = split(labels, label, " ")
    split("socket mux", figure, " ")
    name["socket"] = "a socket per game, 400 games"; name["mux"] = "multiplexed, 800 games at 50 a socket"
    for (f = 1; f <= 2; f++) {
      printf "%s:\n", name[figure[f]]
      for (i = 1; i <= n; i++) {
        k = label[i] SUBSEP figure[f]
        printf "  %-10s ratio %.3f (%.3f–%.3f)   %.0f moves/s (%.0f–%.0f)\n", label[i], median(ratios[k]), lo(ratios[k]), hi(ratios[k]), median(moves[k]), lo(moves[k]), hi(moves[k])
      }
      for (i = 2; i <= n; i++) {
        paired = ""
        for (r = 1; r <= rounds; r++) paired = paired " " by_round[r, label[i], figure[f]] / by_round[r, first, figure[f]]
        m = median(ratios[label[i] SUBSEP figure[f]]) / median(ratios[first SUBSEP figure[f]])
        printf "  %s/%s: %.3f (%+.1f%%) of medians; same rounds: median %.3f (%.3f–%.3f)\n", label[i], first, m, (m - 1) * 100, median(paired), lo(paired), hi(paired)
      }
    }
  }' "$raw" | tee "$out/summary.txt"
