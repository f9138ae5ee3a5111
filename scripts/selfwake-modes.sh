#!/usr/bin/env bash
# scripts/selfwake-modes.sh: whether lot's self-wake pair runs at more than
# one speed on this machine, and whether its own work or the locked
# instructions slow down (docs/findings.md, "The port's fast paths",
# "Fourth pass"). One test binary of internal/lot, pinned to one CPU, runs
# ROUNDS rounds; each round times, back to back in one process:
#   pair      BenchmarkSelfwakePair (UnparkOne on an empty key, then Park
#             whose validate fails: parkbench selfwake --impl=lot's pair)
#   park      BenchmarkCallbackPaths/ParkInvalid (Park alone)
#   unpark    BenchmarkCallbackPaths/UnparkOneNobody (UnparkOne alone)
#   locked    BenchmarkSelfwakeLockedOps (the pair's four locked
#             instructions alone: a WordLock locked and unlocked twice)
#   rust      parking_lot_core's own pair, as scripts/selfwake-vs-rust.sh
#             builds and times it (when cargo and Debian's crate are here)
# (two processes a round: the pair and the locked instructions, then Park
# and UnparkOne alone) and prints ns/op. The summary gives each column's min, median and max
# and max/min: a pair that moves by much more than the locked instructions
# moves is slowed by its other work (calls, hash, table and stack traffic).
#
#   scripts/selfwake-modes.sh [ROUNDS]     (default 20; about 1 s a round)
#
# Run it on a quiet machine; it measures nanoseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
case $rounds in '' | *[!0-9]* | 0) echo "selfwake-modes: ROUNDS must be a whole number above 0, not '$rounds'" >&2; exit 2 ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/lot.test" ./internal/lot
rust=
if SELFWAKE_RUST_BIN="$work/rust" bash scripts/selfwake-vs-rust.sh >/dev/null 2>"$work/rust.err"; then
	rust=$work/rust
else
	echo "selfwake-modes: no Rust column: $(tail -1 "$work/rust.err")" >&2
fi
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //') (family $(grep -m1 'cpu family' /proc/cpuinfo | sed 's/.*: //') model $(grep -m1 '^model\s' /proc/cpuinfo | sed 's/.*: //')), pinned to CPU $cpu"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
bench() { taskset -c "$cpu" "$work/lot.test" -test.run='^$' -test.benchtime=2000000x -test.bench="$1"; }
for i in $(seq 1 "$rounds"); do
	{
		bench '^(BenchmarkSelfwakePair|BenchmarkSelfwakeLockedOps)$'
		bench '^BenchmarkCallbackPaths$/^(ParkInvalid|UnparkOneNobody)$'
		if [ -n "$rust" ]; then echo "BenchmarkRust 1 $(taskset -c "$cpu" "$rust") ns/op"; fi
	} | awk -v r="$i" '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); v[n] = $3 }
			END { printf "%s %s %s %s %s %s\n", r, v["BenchmarkSelfwakePair"], v["BenchmarkCallbackPaths/ParkInvalid"], v["BenchmarkCallbackPaths/UnparkOneNobody"], v["BenchmarkSelfwakeLockedOps"], ("BenchmarkRust" in v) ? v["BenchmarkRust"] : "-" }'
done >"$work/rows"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/rows" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
if not rows or any(len(r) != 6 for r in rows):
    sys.exit("selfwake-modes: the benchmarks did not all report: %r" % rows)
rust = rows[0][5] != "-"
cols = ["pair", "park", "unpark", "locked"] + (["rust"] if rust else [])
print("%-5s" % "round" + "".join("%8s" % c for c in cols) + " pair/locked" + (" pair/rust" if rust else ""))
for r in rows:
    v = [float(x) for x in r[1:1 + len(cols)]]
    line = "%-5s" % r[0] + "".join("%8.2f" % x for x in v) + "%12.2f" % (v[0] / v[3])
    print(line + ("%10.2f" % (v[0] / v[4]) if rust else ""))
print("%-7s %8s %8s %8s %8s" % ("ns/op", "min", "median", "max", "max/min"))
for i, c in enumerate(cols):
    v = [float(r[i + 1]) for r in rows]
    print("%-7s %8.2f %8.2f %8.2f %8.2f" % (c, min(v), statistics.median(v), max(v), max(v) / min(v)))
if rust:
    ratio = [float(r[1]) / float(r[5]) for r in rows]
    print("pair/rust, median of the rounds: %.2f (min %.2f, max %.2f)" % (statistics.median(ratio), min(ratio), max(ratio)))
EOF
