#!/usr/bin/env bash
# Checks the HTTP API against its own OpenAPI document with schemathesis: the debug server on
# a free port with a fresh database, a bounded number of generated requests per operation,
# and no answer may be a 5xx or break the document (status, content type, headers, body).
# `scripts/test.sh` runs it; alone it needs PostgreSQL up and DATABASE_URL set as there.
#
# Rate limits are lifted for loopback clients (RATE_LIMIT_EXEMPT): schemathesis sends far
# more requests than a person would, and a 429 would stop it exploring.
set -euo pipefail
cd "$(dirname "$0")/.."

# Bounded: generated requests per operation and phase, and one fixed seed so that a failure
# can be replayed.
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-25}"
SEED="${SCHEMATHESIS_SEED:-20261125}"

if ! command -v schemathesis >/dev/null; then
  python3 -m pip install --quiet schemathesis
fi
cargo build --quiet --bin oddboard
server_bin="${CARGO_TARGET_DIR:-target}/debug/oddboard"

base_url="${DATABASE_URL:-postgres://postgres@localhost:5432/oddboard_test}"
base_url="${base_url%%\?*}"
admin_url="${base_url%/*}/postgres"
database="oddboard_api_conformance_$$"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
origin="http://127.0.0.1:$port"
work="$(mktemp -d)"
server_pid=""

cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  psql "$admin_url" -qc "drop database if exists \"$database\"" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# The server creates its database and runs the migrations.
RATE_LIMIT_EXEMPT=127.0.0.0/8 BIND_ADDR="127.0.0.1:$port" DATABASE_URL="${base_url%/*}/$database" \
  RUST_LOG=warn "$server_bin" serve >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 60); do
  curl -fsS "$origin/healthz" >/dev/null 2>&1 && break
  sleep 1
done
curl -fsS "$origin/healthz" >/dev/null || { cat "$work/server.log" >&2; exit 1; }

# Players and games for the generated requests to find: without them every `{id}` and
# `{name}` would be unknown and only the 404s tested. `conformance` signs in for the run (so
# that the operations that need a player get past the sign-in and have their bodies
# checked); one of its challenges waits, another was accepted and is being played.
post() { # cookie jar, path, JSON body: prints the answer
  curl -fsS -b "$work/$1" -c "$work/$1" -H 'Content-Type: application/json' -d "$3" "$origin$2"
}
json_field() { python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"; }
post player /api/auth/register '{"username":"conformance","password":"conformance-password"}' >/dev/null
post opponent /api/auth/register '{"username":"opponent","password":"opponent-password"}' >/dev/null
waiting="$(post player /api/games '{"variant":"suicide","clock":{"minutes":5,"increment":0}}' | json_field game_id)"
active="$(post player /api/games '{"variant":"chazz","clock":null}' | json_field game_id)"
post opponent "/api/games/$active/accept" '' >/dev/null
session="$(awk '$6 == "oddboard_session" { print $7 }' "$work/player")"
# Half the generated `{id}`s and `{name}`s are these, half are made up.
cat >"$work/schemathesis.toml" <<TOML
[dictionaries.games]
values = ["$waiting", "$active"]
[dictionaries.users]
values = ["conformance", "OPPONENT"]
[parameters]
"path.id" = { dictionary = "games", probability = 0.5 }
"path.name" = { dictionary = "users", probability = 0.5 }
TOML

checks=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance
run() {
  # From the scratch folder: schemathesis keeps a cache in the folder it runs in.
  (cd "$work" && schemathesis --config-file schemathesis.toml run "$origin/api/openapi.json" --checks "$checks" \
    --max-examples "$MAX_EXAMPLES" --seed "$SEED" --workers 1 --request-timeout 30 --no-color "$@")
}
status=0
# Logging out would end the session the rest runs with: it runs on its own, signed out.
run -H "Cookie: oddboard_session=$session" --exclude-path /api/auth/logout || status=$?
run --include-path /api/auth/logout || status=$?
if [ "$status" != 0 ]; then
  echo "schemathesis found answers that break the API document (server log: below)" >&2
  tail -n 50 "$work/server.log" >&2
fi
exit "$status"
