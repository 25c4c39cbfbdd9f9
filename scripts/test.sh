#!/usr/bin/env bash
# Runs every test of the project: formatting, lints, the rules engine, the server against the
# real PostgreSQL, and the browser tests. Starts what the tests need first.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
# The rules engine must stay pure: no async runtime, database, web framework or clock.
if grep -rnE '\b(tokio|sqlx|axum|tower|std::time::(Instant|SystemTime)|thread_rng)\b|crate::(game|store|web)' src/rules; then
  echo "src/rules must stay pure" >&2
  exit 1
fi
cargo test --all-targets
