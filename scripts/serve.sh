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
# The binary carries the browser client, but for development its files are served from the
# work tree, so an edited script shows on a Shift-reload without a rebuild. `STATIC_DIR=`
# (set but empty) serves the built-in copy instead.
export STATIC_DIR="${STATIC_DIR-crates/server/static}"
exec cargo run --release --bin oddboard -- serve "$@"
