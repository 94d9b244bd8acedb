#!/usr/bin/env bash
# Runs the coverage-guided fuzz targets of fuzz/ (libFuzzer through cargo-fuzz, on the stable
# toolchain: `--sanitizer none`, so no nightly is needed), one after another.
#
#   scripts/fuzz.sh                      every target for 20 s (the test command's short run)
#   scripts/fuzz.sh --seconds 60 arxiv   one target for a minute
#   scripts/fuzz.sh --long               every target to 10 million executions (bench/README.md)
#   scripts/fuzz.sh --runs N [--seconds N] [TARGET…]
#
# Each target starts from its seeds (the recorded source answers in engine/fixtures/, small
# hand-written ones in fuzz/seeds/) plus what earlier runs kept in fuzz/corpus/<target>/. An
# input running longer than 10 s counts as a timeout. A crash or timeout leaves its input in
# fuzz/artifacts/<target>/ and fails the run. One line per target gives its executions, and the
# last line counts targets in cargo's words ("test result: … N passed; N failed"), which the test
# command's closing summary adds up.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=20
runs=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --long) runs=10000000; seconds=0; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done

cargo_fuzz_version=0.13.2
if ! cargo fuzz --version 2>/dev/null | grep -q "$cargo_fuzz_version"; then
  echo "==> installing cargo-fuzz $cargo_fuzz_version"
  cargo install --locked cargo-fuzz --version "$cargo_fuzz_version"
fi

all_targets=(pubmed arxiv biorxiv search_term stripe_webhook config)
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

# Where each target's seeds are, and the dictionary of tokens its format is made of.
seeds_of() {
  case "$1" in
    pubmed) echo engine/fixtures/pubmed ;;
    arxiv) echo engine/fixtures/arxiv ;;
    biorxiv) echo engine/fixtures/biorxiv engine/fixtures/medrxiv ;;
    *) echo "fuzz/seeds/$1" ;;
  esac
}
dictionary_of() {
  case "$1" in
    pubmed|arxiv) echo "fuzz/dictionaries/$1.dict" ;;
    biorxiv|stripe_webhook) echo fuzz/dictionaries/json.dict ;;
    config) echo fuzz/dictionaries/toml.dict ;;
    *) echo "" ;;
  esac
}
# The largest input tried: big enough for a few records of each format, small enough to keep
# thousands of executions a second.
max_len_of() {
  case "$1" in
    search_term) echo 1024 ;;
    stripe_webhook|config) echo 8192 ;;
    *) echo 32768 ;;
  esac
}

echo "==> fuzz: building ${targets[*]}"
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
cargo fuzz build --sanitizer none >"$build_log" 2>&1 || { cat "$build_log"; exit 1; }

passed=0
failed=0
for target in "${targets[@]}"; do
  corpus="fuzz/corpus/$target"
  mkdir -p "$corpus" "fuzz/artifacts/$target"
  options=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -max_len="$(max_len_of "$target")"
    -artifact_prefix="fuzz/artifacts/$target/")
  [ "$seconds" != 0 ] && options+=(-max_total_time="$seconds")
  [ -n "$runs" ] && options+=(-runs="$runs")
  dictionary=$(dictionary_of "$target")
  [ -n "$dictionary" ] && options+=(-dict="$dictionary")
  log="fuzz/artifacts/$target/last-run.log"
  # shellcheck disable=SC2046 # the seed directories are words
  if cargo fuzz run --sanitizer none "$target" "$corpus" $(seeds_of "$target") -- "${options[@]}" >"$log" 2>&1; then
    outcome=ok
    passed=$((passed + 1))
  else
    outcome=FAILED
    failed=$((failed + 1))
    grep -E "^(==[0-9]+== ERROR|thread .* panicked|SUMMARY|Test unit written|ALARM)" -A3 "$log" | head -30 || tail -30 "$log"
  fi
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  peak_rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  elapsed=$(awk -v executions="${executions:-0}" -v rate="${per_second:-0}" 'BEGIN { if (rate > 0) printf "%d", executions / rate; else print "?" }')
  corpus_size=$(find "$corpus" -type f | wc -l)
  echo "fuzz $target: $outcome, ${executions:-?} executions in ${elapsed} s (${per_second:-?}/s), peak RSS ${peak_rss:-?} MB, corpus $corpus_size inputs"
done

echo "test result: $([ "$failed" = 0 ] && echo ok || echo FAILED). $passed passed; $failed failed; (fuzz targets)"
[ "$failed" = 0 ]
