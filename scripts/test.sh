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
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --locked --workspace --all-targets 2>&1 | tee "$log"

# One closing line for the whole run, summed over every test binary.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) passed += $(i-1); if ($i ~ /^failed/) failed += $(i-1) } }
     END { printf "%d passed, %d failed\n", passed, failed }' "$log"
