#!/usr/bin/env bash
# The plugin call's cost: the example plugin's futex parker and TTAS spin
# lock (examples/cplugin/mine.c) from Go threads through cgo (mine-futex,
# mine-spin), from C threads calling its functions (c-mine-*), beside the
# built-in rows (futex, std, c-futex; spin, c-spin), interleaved in one run
# of each experiment. Prints the tables and the load; the difference
# mine-X minus c-mine-X is what the Go harness and the cgo crossings add to
# the same library code.
#   bash scripts/plugin-overhead.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
q=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/parkbench" ./cmd/parkbench
gcc -O2 -shared -fPIC -Iinclude -o "$tmp/libmine.so" examples/cplugin/mine.c
grep -m1 'model name' /proc/cpuinfo || true
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
pb() { "$tmp/parkbench" "$@" --plugin "$tmp/libmine.so" $q 2>/dev/null | sed -n "/┌/,/└/p"; }
pb selfwake --impl=mine-futex,c-mine-futex,std,futex,c-futex
pb latency --impl=mine-futex,c-mine-futex,std,futex,c-futex --placement=cross-core
pb lock --impl=mine-spin,c-mine-spin,spin,c-spin --threads=1,2
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
