#!/usr/bin/env bash
# Checks the browser client (crates/server/static/, plain ES modules): its JSDoc types with
# TypeScript (`tsc -p tsconfig.json`, nothing emitted) and its pure parts with node's own
# test runner (tests/js/). TypeScript is pinned with the other browser tools in
# tests/browser/package-lock.json and installed from there when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v npm >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update && apt-get install -y nodejs npm
fi
# `npm ci` runs only when what is installed is not what package.json asks for.
if ! (cd tests/browser && npm ls --depth=0 >/dev/null 2>&1); then
  (cd tests/browser && npm ci --no-audit --no-fund)
fi

tests/browser/node_modules/.bin/tsc -p tsconfig.json
# The client's .js files have no package.json saying they are ES modules: node (20.19 or
# later) finds that from their syntax.
node --test tests/js/
