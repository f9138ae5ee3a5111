#!/usr/bin/env bash
# bench-lot-misuse.sh: the lot's uncontended lock paths before and after the
# RwLock misuse checks, side by side. Builds the lot's test binary at BASE
# (default 123a423, main just before the checks; the new benchmark file is
# copied in) and at the working tree, runs them interleaved COUNT times
# (default 10) and prints benchstat's comparison.
#
# Usage: [TAGS=lotdeadlock] scripts/bench-lot-misuse.sh [BASE [COUNT]]
# TAGS builds both with those tags (lotdeadlock: the deadlock detector's
# cost, thread-keyed records before, goroutine-keyed after; the old detector
# crashes in BenchmarkRwLockReadParallel, whose goroutines are not locked to
# threads, so leave it out with BENCH='^(BenchmarkLockHooks|BenchmarkRwLockUncontended)$').
# Take `flock /tmp/pb-measure.lock` around it on a shared machine.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-123a423}
count=${2:-10}
benchstat_mod="golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"
bench=${BENCH:-'^(BenchmarkLockHooks|BenchmarkRwLockUncontended|BenchmarkRwLockReadParallel|BenchmarkMutexUncontended)$'}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/base"
git -C "$repo" archive "$base" | tar -x -C "$tmp/base"
cp "$repo/internal/lot/rwlock_bench_test.go" "$tmp/base/internal/lot/"
tags=${TAGS:-}
(cd "$tmp/base" && GOTOOLCHAIN=local go test -c -tags "$tags" -o "$tmp/old.test" ./internal/lot/)
(cd "$repo" && GOTOOLCHAIN=local go test -c -tags "$tags" -o "$tmp/new.test" ./internal/lot/)

cd "$repo/internal/lot"
for i in $(seq "$count"); do
	"$tmp/old.test" -test.run '^$' -test.bench "$bench" -test.benchtime 200ms -test.count 1 >>"$tmp/old.txt"
	"$tmp/new.test" -test.run '^$' -test.bench "$bench" -test.benchtime 200ms -test.count 1 >>"$tmp/new.txt"
done
grep -m1 '^cpu:' "$tmp/new.txt" || true
cd "$repo" && go run "$benchstat_mod" old="$tmp/old.txt" new="$tmp/new.txt"
