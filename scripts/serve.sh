#!/usr/bin/env bash
# Runs the Oddboard server on http://localhost:8080 (BIND_ADDR / --bind to change), starting
# the local PostgreSQL first if it is installed but stopped. The server creates its database
# and runs the migrations itself. Arguments go to `oddboard serve` (`--help` lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v pg_isready >/dev/null && ! pg_isready -h 127.0.0.1 -q; then
  if command -v pg_ctlcluster >/dev/null; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
fi
# The browser client's files live with the server's crate.
export STATIC_DIR="${STATIC_DIR:-crates/server/static}"
exec cargo run --release --bin oddboard -- serve "$@"
