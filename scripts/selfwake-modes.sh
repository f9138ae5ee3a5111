#!/usr/bin/env bash
# scripts/selfwake-modes.sh: whether lot's self-wake pair runs at more than
# one speed on this machine, and where its time goes beside
# parking_lot_core's (docs/findings.md, "The port's fast paths", "Fourth
# pass" and "Fifth pass"). One test binary of internal/lot, pinned to one
# CPU, runs ROUNDS rounds; each round times, back to back:
#   pair       BenchmarkSelfwakePair (UnparkOne on an empty key, then Park
#              whose validate fails: parkbench selfwake --impl=lot's pair)
#   park       BenchmarkCallbackPaths/ParkInvalid (Park alone)
#   unpark     BenchmarkCallbackPaths/UnparkOneNobody (UnparkOne alone)
#   locked     BenchmarkSelfwakeLockedOps (the pair's four locked
#              instructions alone: a WordLock locked and unlocked twice)
#   inline     BenchmarkSelfwakeInline (the pair's code with no call and
#              validate inlined: what rustc makes of upstream's pair)
#   unguarded  BenchmarkSelfwakeUnguarded (the pair's calls, Park without
#              its validate guard, the defer)
#   rust       parking_lot_core's own pair, as scripts/selfwake-vs-rust.sh
#              builds and times it (when cargo and Debian's crate are here)
#   rust-dyn   the same, validate called through a &dyn Fn (an indirect
#              call, as Go's Park makes)
#   rust-guard rust-dyn inside a drop guard (as Park's defer guards it)
# and prints ns/op. The summary gives each column's min, median and max
# and max/min: a pair that moves by much more than the locked instructions
# moves is slowed by its other work (calls, hash, table and stack
# traffic); pair against unguarded against inline against rust says what
# Go's calls and the guard's defer cost over the port's own code.
#
#   scripts/selfwake-modes.sh [ROUNDS]     (default 20; about 2 s a round)
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
cols="pair park unpark locked inline unguarded"
if [ -n "$rust" ]; then cols="$cols rust rust-dyn rust-guard"; fi
for i in $(seq 1 "$rounds"); do
	{
		bench '^(BenchmarkSelfwakePair|BenchmarkSelfwakeLockedOps|BenchmarkSelfwakeInline|BenchmarkSelfwakeUnguarded)$'
		bench '^BenchmarkCallbackPaths$/^(ParkInvalid|UnparkOneNobody)$'
		if [ -n "$rust" ]; then
			echo "BenchmarkRust 1 $(taskset -c "$cpu" "$rust") ns/op"
			echo "BenchmarkRustDyn 1 $(taskset -c "$cpu" "$rust" opaque) ns/op"
			echo "BenchmarkRustGuard 1 $(taskset -c "$cpu" "$rust" guarded) ns/op"
		fi
	} | awk -v r="$i" -v cols="$cols" '
		BEGIN { split("pair park unpark locked inline unguarded rust rust-dyn rust-guard", c, " ")
			split("SelfwakePair CallbackPaths/ParkInvalid CallbackPaths/UnparkOneNobody SelfwakeLockedOps SelfwakeInline SelfwakeUnguarded Rust RustDyn RustGuard", b, " ")
			for (k in c) name["Benchmark" b[k]] = c[k] }
		/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); if (n in name) v[name[n]] = $3 }
		END { printf "%s", r; m = split(cols, want, " "); for (k = 1; k <= m; k++) printf " %s", (want[k] in v) ? v[want[k]] : "-"; printf "\n" }'
done >"$work/rows"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/rows" $cols <<'EOF'
import statistics, sys
cols = sys.argv[2:]
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
if not rows or any(len(r) != len(cols) + 1 or "-" in r for r in rows):
    sys.exit("selfwake-modes: the benchmarks did not all report: %r" % rows)
val = [dict(zip(cols, map(float, r[1:]))) for r in rows]
rust = "rust" in cols
print("%-5s" % "round" + "".join("%11s" % c for c in cols) + " pair/locked" + (" pair/rust" if rust else ""))
for r, v in zip(rows, val):
    line = "%-5s" % r[0] + "".join("%11.2f" % v[c] for c in cols) + "%12.2f" % (v["pair"] / v["locked"])
    print(line + ("%10.2f" % (v["pair"] / v["rust"]) if rust else ""))
print("%-10s %8s %8s %8s %8s" % ("ns/op", "min", "median", "max", "max/min"))
for c in cols:
    x = [v[c] for v in val]
    print("%-10s %8.2f %8.2f %8.2f %8.2f" % (c, min(x), statistics.median(x), max(x), max(x) / min(x)))
if rust:
    print("against rust, median of the rounds' ratios (min, max):")
    for c in cols:
        if c == "rust":
            continue
        x = [v[c] / v["rust"] for v in val]
        print("  %-10s %5.2f (%.2f, %.2f)" % (c, statistics.median(x), min(x), max(x)))
EOF
