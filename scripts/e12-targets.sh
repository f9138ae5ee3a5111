#!/usr/bin/env bash
# E12 targets: on a 2-core machine, cross-core, the Go futex parker's median
# one-way wake latency within 10% of the C reference's (c-futex), and the Go
# spin parker's within 10% of c-spin, measured side by side in ONE run
# (never as a timed unit test: the ratio, not the absolute figure, is what
# carries across a noisy machine). go-futex / go-spin are the Go twins of
# the C loops (same protocol, no parker) and futex-raw the RawSyscall wait:
# they split the gap into what the parker protocol and what the Go
# scheduler add.
#
# The rounds are interleaved (--interleave, 9 rounds of 2000 round trips):
# on a VM the vCPUs move between physical cores and the cross-core floor
# itself changes (seen here: c-spin 57 ns in one run, 145 ns in the next),
# so implementations measured one after the other are not comparable;
# round-robin rounds give each the same mix of host states.
#
# Usage: scripts/e12-targets.sh [RUNS] [extra parkbench latency flags...]
#   RUNS (default 3) separate runs; each prints its ratios, then the median
#   over runs.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
shift || true
bin=$(mktemp -d)/parkbench
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/parkbench
for i in $(seq 1 "$runs"); do
	echo "== run $i/$runs"
	"$bin" latency --impl=futex,c-futex,spin,c-spin,futex-raw,go-futex,go-spin \
		--placement=cross-core --interleave --rounds=9 --iterations=2000 \
		--format=json --quiet "$@" >"$(dirname "$bin")/run$i.json"
	go run ./scripts/cmd/e12ratios "$(dirname "$bin")/run$i.json"
done
if [ "$runs" -gt 1 ]; then
	go run ./scripts/cmd/e12ratios "$(dirname "$bin")"/run*.json | sed -n '/^median over/,$p'
fi
