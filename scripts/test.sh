#!/usr/bin/env bash
# Runs every test of the project: formatting, lints, the rules engine, the server against the
# real PostgreSQL, and the browser tests. Starts what the tests need first.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# The pure crates (the rules engine and the game core) must stay pure: their dependency trees
# hold no async runtime, database, web framework, HTTP or random-number crate (their code
# cannot name what it does not depend on; chrono is built without its clock in `play`).
for crate in oddboard-rules oddboard-play; do
  if cargo tree -p "$crate" -e normal --prefix none | grep -E '^(tokio|sqlx|axum|tower|hyper|mio|rand|getrandom)[ -]'; then
    echo "$crate must stay pure" >&2
    exit 1
  fi
done
if cargo tree -p oddboard-play -e features -i chrono | grep -q 'chrono feature "clock"'; then
  echo "oddboard-play must not read the clock (chrono's clock feature)" >&2
  exit 1
fi
# Nor do they read the clock, which std always offers (the lobby's state takes `Instant`s
# as arguments; its tests make their own).
if grep -rnE 'std::time::(Instant|SystemTime)' crates/rules/src \
  || grep -rnE '(Instant|SystemTime)::now' crates/play/src --include='*.rs' | grep -v '/tests'; then
  echo "crates/rules and crates/play must not read the clock" >&2
  exit 1
fi

# The server tests need PostgreSQL (`#[sqlx::test]` creates a fresh database per test from
# DATABASE_URL). Start the local cluster if it is down, then wait until it accepts connections.
if ! pg_isready -h 127.0.0.1 -q; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
fi
for _ in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -q && break
  sleep 1
done
pg_isready -h 127.0.0.1 || { echo "PostgreSQL did not come up on 127.0.0.1:5432" >&2; exit 1; }
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@localhost:5432/oddboard_test}"
# `#[sqlx::test]` connects to DATABASE_URL itself to create its per-test databases, so that
# database must exist (the server's own `Store::connect` would create it, the tests do not).
test_db="${DATABASE_URL##*/}"
test_db="${test_db%%\?*}"
admin_url="${DATABASE_URL%/*}/postgres"
if [ "$(psql "$admin_url" -tAc "select 1 from pg_database where datname = '$test_db'")" != 1 ]; then
  psql "$admin_url" -qc "create database \"$test_db\""
fi

# The browser tests (tests/it/browser.rs) drive Debian's Chromium through chromedriver.
if [ ! -x /usr/bin/chromedriver ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update && apt-get install -y chromium chromium-driver
fi

# The tests of several nodes (crates/server/tests/it/nats.rs) start NATS servers of their own,
# with JetStream, from Debian's package.
if ! command -v nats-server >/dev/null && [ ! -x /usr/sbin/nats-server ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update && apt-get install -y nats-server
fi

# axe-core (the browser tests inject it: crates/server/tests/it/axe.rs) and Lighthouse
# (scripts/lighthouse.sh), pinned by tests/browser/package-lock.json. Offline once installed:
# `npm ci` runs only when what is installed is not what package.json asks for.
if ! command -v npm >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update && apt-get install -y nodejs npm
fi
if ! (cd tests/browser && npm ls --depth=0 >/dev/null 2>&1); then
  (cd tests/browser && npm ci --no-audit --no-fund)
fi

# The browser client's scripts: types (tsc --checkJs) and the unit tests of their pure parts
# (node --test, tests/js/).
scripts/check-js.sh

cargo test --workspace --all-targets

# The HTTP API against its OpenAPI document (schemathesis, against the real server).
scripts/api-conformance.sh
