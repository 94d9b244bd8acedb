#!/usr/bin/env bash
# Runs every test of the project. Installs what the tests need first: maildev (a real SMTP
# server on loopback, from npm) into tools/node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> installing the test peers (tools/)"
(cd tools && npm ci --no-audit --no-fund --loglevel=error)

echo "==> lints"
cargo clippy --locked --workspace --all-targets -- -D warnings

echo "==> Rust tests"
cargo test --locked --workspace
