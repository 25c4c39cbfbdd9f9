#!/usr/bin/env bash
# Lighthouse on the phone game page (docs/performance.md, "The pages: Lighthouse"): npm's
# Lighthouse (pinned in tests/browser/package.json) against Debian's Chromium, with its
# default mobile emulation (a Moto G Power-sized screen, simulated slow 4G and a 4x slower
# CPU). Starts a server of its own on a fresh database, makes two guests start a game in
# progress (one challenges, the other accepts) and audits that game's page as its White
# player sees it (their session cookie is sent). Prints the performance and accessibility
# scores, the layout shift (CLS) and the other timings, and the compression and cache audits;
# the full reports go to target/lighthouse/.
#
#   scripts/lighthouse.sh [PAGE]
#
# PAGE: `game` (the default), `lobby`, `replay` (the same game's replay), `player`,
# `variants` (the list of games), `variant` (VARIANT's rules page) or `leaderboard`.
# SIGNED_OUT=1 audits the page as a visitor with no session instead of as White.
# VARIANT (default suicide), PORT (default 8098), LIGHTHOUSE_DB (the scratch database,
# default oddboard_lighthouse: give each concurrent run its own) and ODDBOARD_BIN (default
# the release binary, else the debug one, else a release build) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."

page="${1:-game}"
variant="${VARIANT:-suicide}"
port="${PORT:-8098}"
target="${CARGO_TARGET_DIR:-target}"
db="${LIGHTHOUSE_DB:-oddboard_lighthouse}"
base="http://127.0.0.1:$port"
out=target/lighthouse
mkdir -p "$out"

bin="${ODDBOARD_BIN:-}"
if [ -z "$bin" ]; then
  if [ -x "$target/release/oddboard" ]; then bin="$target/release/oddboard"
  elif [ -x "$target/debug/oddboard" ]; then bin="$target/debug/oddboard"
  else cargo build --release --bin oddboard; bin="$target/release/oddboard"; fi
fi
[ -x /usr/bin/chromium ] || { echo "needs Debian's chromium: apt-get install chromium" >&2; exit 1; }
# Offline once installed: `npm ci` only when the pinned tools are missing.
[ -x tests/browser/node_modules/.bin/lighthouse ] || (cd tests/browser && npm ci --no-audit --no-fund)

psql -h 127.0.0.1 -U postgres -qc "drop database if exists $db" >/dev/null
DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" RUST_LOG=warn \
  "$bin" serve --bind "127.0.0.1:$port" &
server=$!
jars=$(mktemp -d)
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$jars"; psql -h 127.0.0.1 -U postgres -qc "drop database if exists $db" >/dev/null' EXIT
for _ in $(seq 1 150); do curl -so /dev/null "$base/healthz" && break; sleep 0.2; done
curl -sfo /dev/null "$base/healthz" || { echo "the server did not start" >&2; exit 1; }

# Two guests, each with a cookie jar; White challenges, Black accepts.
field() { node -e 'let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => console.log(JSON.parse(s)[process.argv[1]] ?? ""))' "$1"; }
for who in white black; do
  curl -sf -c "$jars/$who" -X POST "$base/api/auth/guest" -H 'content-type: application/json' -d '{}' | field username >"$jars/$who.name"
done
post() { curl -sf -b "$jars/$1" -X POST "$base$2" -H 'content-type: application/json' -d "$3"; }
game_id=$(post white /api/games "{\"variant\":\"$variant\",\"clock\":{\"minutes\":5,\"increment\":3},\"color\":\"white\"}" | field game_id)
post black "/api/games/$game_id/accept" 'null' >/dev/null
white_name=$(cat "$jars/white.name")
case "$page" in
  game) url="$base/game/$game_id" ;;
  lobby) url="$base/" ;;
  replay) url="$base/replay/$game_id" ;;
  player) url="$base/player/${white_name:-nobody}" ;;
  variants) url="$base/variants" ;;
  variant) url="$base/variant/$variant" ;;
  leaderboard) url="$base/leaderboard" ;;
  *) echo "unknown page $page (game, lobby, replay, player, variants, variant, leaderboard)" >&2; exit 2 ;;
esac
# The session cookie as a header (a netscape jar line: domain … name value; curl writes an
# HttpOnly cookie, as the session is, on a line of its own starting `#HttpOnly_`).
cookie=$(awk '(!/^#/ || /^#HttpOnly_/) && NF >= 7 { print $6 "=" $7 }' "$jars/white" | paste -sd ';' -)
[ -n "$cookie" ] || { echo "no session cookie from the guest sign-in" >&2; exit 1; }
[ -z "${SIGNED_OUT:-}" ] || cookie=

CHROME_PATH=/usr/bin/chromium tests/browser/node_modules/.bin/lighthouse "$url" \
  --quiet --only-categories=performance,accessibility,best-practices \
  --chrome-flags="--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --no-first-run" \
  --extra-headers="{\"Cookie\": \"$cookie\"}" \
  --output=json --output=html --output-path="$out/$page" >/dev/null

node - "$out/$page.report.json" "$url" <<'EOF'
const report = require(require('path').resolve(process.argv[2]));
const score = (c) => (report.categories[c] ? Math.round(report.categories[c].score * 100) : 'n/a');
const audit = (id) => report.audits[id] || {};
console.log(`page: ${process.argv[3]} (${report.configSettings.formFactor}, Lighthouse ${report.lighthouseVersion}, ${report.environment.hostUserAgent.match(/Chrome\/[\d.]+/)})`);
console.log(`performance ${score('performance')}, accessibility ${score('accessibility')}, best practices ${score('best-practices')}`);
console.log(`CLS ${audit('cumulative-layout-shift').displayValue}, FCP ${audit('first-contentful-paint').displayValue}, LCP ${audit('largest-contentful-paint').displayValue}, TBT ${audit('total-blocking-time').displayValue}, SI ${audit('speed-index').displayValue}`);
for (const id of ['uses-text-compression', 'uses-long-cache-ttl', 'render-blocking-resources']) {
  const a = audit(id);
  console.log(`${id}: ${a.score === null || a.score === undefined ? a.scoreDisplayMode : a.score >= 0.9 ? 'pass' : 'FAIL'} ${a.displayValue || ''}`);
}
const failing = Object.values(report.categories.accessibility.auditRefs)
  .map((r) => report.audits[r.id]).filter((a) => a.score === 0 && a.scoreDisplayMode === 'binary');
for (const a of failing) console.log(`accessibility FAIL: ${a.id}: ${a.title}`);
EOF
echo "reports: $out/$page.report.html, $out/$page.report.json"
