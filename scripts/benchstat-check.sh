#!/usr/bin/env bash
# benchstat-check.sh: show that the real benchstat reads parkbench's
# --format=benchstat output: render two result files (default: the v1
# fixtures) and run benchstat on them. Exits non-zero if benchstat rejects
# the input or finds no benchmarks.
#
# Usage: scripts/benchstat-check.sh [BASE.json NEW.json]
set -eu
set -o pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-$repo/internal/results/testdata/v1-latency.json}
new=${2:-$repo/internal/results/testdata/v1-suite.json}
benchstat_mod="golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t benchstat)
trap 'rm -rf "$tmp"' EXIT
exe=$(cd "$repo" && go env GOEXE)
(cd "$repo" && go build -o "$tmp/parkbench$exe" ./cmd/parkbench)
"$tmp/parkbench$exe" report --format=benchstat "$base" >"$tmp/base.txt"
"$tmp/parkbench$exe" report --format=benchstat "$new" >"$tmp/new.txt"
(cd "$repo" && go run "$benchstat_mod" -table .config -row .fullname "$tmp/base.txt" "$tmp/new.txt") >"$tmp/out.txt" 2>&1 || {
	cat "$tmp/out.txt" >&2
	echo "benchstat-check: benchstat failed" >&2
	exit 1
}
cat "$tmp/out.txt"
if grep -q 'parsing\|syntax error' "$tmp/out.txt" || ! grep -q 'Latency/' "$tmp/out.txt"; then
	echo "benchstat-check: benchstat did not read the benchmarks" >&2
	exit 1
fi
