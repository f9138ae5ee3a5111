#!/usr/bin/env bash
# scripts/vs-rust.sh: lot, the port, against the real parking_lot_core and
# parking_lot on their never-sleeping paths, side by side (docs/findings.md,
# "The port's fast paths"; docs/lock.md). The Rust side is rust/bench, built
# offline, release mode, from Debian's crate sources (apt-get install
# librust-parking-lot-core-dev librust-parking-lot-dev put them under
# /usr/share/cargo/registry; scripts/debian-cargo.sh points cargo there).
#
#   scripts/vs-rust.sh selfwake [RUNS] [BASE_REV]   (default 3, no base)
#   scripts/vs-rust.sh lock [RUNS] [BASE_REV]       (default 3, no base)
#   scripts/vs-rust.sh modes [ROUNDS]               (default 20; about 2 s a round)
#   scripts/vs-rust.sh instructions [BASE_REV]
#   scripts/vs-rust.sh fastpath [RUNS] [BASE_REV]   instructions, then selfwake, then lock
#   scripts/vs-rust.sh native [RUNS] [PLUGIN]       the original in parkbench against itself standalone
#   scripts/vs-rust.sh --smoke                      each one's smallest case, seconds (.ci/run)
#
# selfwake: the self-wake pair is E12's reverse check for impl lot:
#   UnparkOne on a key nobody is parked on, then Park whose validate
#   returns false (both lock and unlock the key's bucket). The Rust side
#   (rust/bench selfwake) runs exactly that pair on parking_lot_core's
#   unpark_one / park, timed as `parkbench selfwake` times it: 100 pairs per
#   sample, 1000 samples per round, 3 rounds, ns per pair = the median
#   sample / 100, the figure = the median of the rounds; the thread pinned
#   to the CPU parkbench pins selfwake to (the first allowed). The runs
#   alternate Rust, Go, Rust, Go, ... and each prints its ratio.
# lock: `parkbench lock --impl=lot` against parking_lot's Mutex under
#   parking_lot's own benchmark method (benchmark/src/bin/mutex.rs,
#   run_benchmark; rust/bench lockbench): N threads meet at a Barrier, each
#   loops { lock; work-in; unlock; work-between; count } while keep_going
#   (a relaxed load) holds, main sleeps the duration and clears it.
#   `parkbench lock` follows the same method (docs/lock.md). Both: total
#   acquisitions per µs of all threads (Mops), the median of 3 repeats of
#   1 s each. Rows: 1 and 2 threads, zero work; 4 and 8 threads, one work
#   unit inside the lock and none between: parking_lot's README benchmark
#   (`mutex 2:9 1 0 1 2`); parkbench gets --work-in=1ns, which its
#   calibration rounds up to one iteration (checked against the
#   work_in_iters it reports). Each row prints lot/rust (>= 1: the port is
#   as fast); harness-ns is this tree's harness floor (ns per iteration of
#   the same loop with an empty lock, one thread).
# modes: whether lot's self-wake pair runs at more than one speed on this
#   machine, and where its time goes beside parking_lot_core's
#   (docs/findings.md, "Fourth pass" and "Fifth pass"). One test binary of
#   internal/lot, pinned to one CPU, runs ROUNDS rounds; each round times,
#   back to back:
#     pair       BenchmarkSelfwakePair (UnparkOne on an empty key, then Park
#                whose validate fails: parkbench selfwake --impl=lot's pair)
#     park       BenchmarkCallbackPaths/ParkInvalid (Park alone)
#     unpark     BenchmarkCallbackPaths/UnparkOneNobody (UnparkOne alone)
#     locked     BenchmarkSelfwakeLockedOps (the pair's four locked
#                instructions alone: a WordLock locked and unlocked twice)
#     inline     BenchmarkSelfwakeInline (the pair's code with no call and
#                validate inlined: what rustc makes of upstream's pair)
#     unguarded  BenchmarkSelfwakeUnguarded (the pair's calls, Park without
#                its validate guard, the defer)
#     rust       parking_lot_core's own pair, as selfwake times it (when
#                cargo and Debian's crate are here)
#     rust-dyn   the same, validate called through a &dyn Fn (an indirect
#                call, as Go's Park makes)
#     rust-guard rust-dyn inside a drop guard (as Park's defer guards it)
#   and prints ns/op. The summary gives each column's min, median and max
#   and max/min: a pair that moves by much more than the locked
#   instructions moves is slowed by its other work (calls, hash, table and
#   stack traffic); pair against unguarded against inline against rust
#   says what Go's calls and the guard's defer cost over the port's own code.
# instructions: instructions per operation. They do not depend on the load,
#   so this runs on a busy machine; its guest has no hardware counters
#   (perf stat says <not supported>), so it counts with valgrind's
#   callgrind, which executes every instruction itself. Rows (Go: this
#   tree, and BASE_REV's when given; Rust: rust/bench count):
#     selfwake pair   UnparkOne on an empty key + Park whose validate fails
#                     (Go: BenchmarkSelfwakePair in internal/lot, the
#                     instructions of package lot's functions, the benchmark
#                     loop included, per pair; Rust: the same loop, the
#                     difference of two runs of N and 2N pairs, per pair)
#     ... inline      the pair's code with no call, validate inlined
#                     (Go: BenchmarkSelfwakeInline; this tree only), and
#                     Rust's pair as above
#     ... unguarded   the pair's calls, Park without its validate guard
#                     (Go: BenchmarkSelfwakeUnguarded; this tree only);
#                     Rust: validate called through a &dyn Fn
#     lock+unlock     uncontended, called directly (Go:
#                     BenchmarkMutexUncontended/lot; Rust: a loop of
#                     lock(); unlock())
#     lock loop       one iteration of `parkbench lock --threads=1
#                     --work-in=0 --work-between=0` (its measured loop with
#                     everything it calls, per acquisition) and of
#                     mutex.rs's loop (run_benchmark's thread body)
# fastpath: the whole before/after table of "The port's fast paths":
#   instructions, then the self-wake pair and the lock rows timed (the
#   targets read the median of 3 runs).
# native: the originals at their native speed inside parkbench
#   (docs/plugins.md, "Measuring at native speed"): c-rust-parking_lot (its
#   own loops, ABI version 2: parking_lot's lock and parking_lot_core's
#   park inlined, on parkbench's C threads) against the standalone Rust
#   programs above (lockbench, selfwake), interleaved RUNS times (default
#   3): per run, Rust's lock at 1 and 2 threads, `parkbench lock`
#   (c-rust-parking_lot, c-rust-parking_lot.fp, lot; zero work, the same
#   1 s x 3 repeats), Rust's self-wake pair, `parkbench selfwake` (the
#   same three). Prints each figure, native/rust (target: within 10 %),
#   the function pointers' row (fp) and lot beside, and each parkbench
#   run's lock-fidelity and E12-fidelity-selfwake verdicts. PLUGIN is
#   rust/originals' library (default: scripts/rust-originals.sh builds it).
#
# With BASE_REV (a git revision, e.g. 5229c46) that revision's parkbench
# (and lot test binary), built from `git archive` in a temporary directory,
# runs in each run too, so before and after are measured side by side.
# Run the timed ones on a quiet machine: they measure nanoseconds. Needs
# cargo, go and python3; instructions also valgrind. --smoke runs every
# subcommand on its smallest case (1 run, 100 ms, small counts): the figures
# mean nothing, the script and the Rust side are shown to work.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian-cargo.sh
registry=/usr/share/cargo/registry
crate=rust/bench
die() { echo "vs-rust: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# The sizes of each measurement; --smoke makes them small.
lock_ms=1000 lock_repeats=3
lock_configs=("1 0 0 t=1,work=0" "2 0 0 t=2,work=0" "4 1ns 1 t=4,work=1+0" "8 1ns 1 t=8,work=1+0")
modes_benchtime=2000000x
ins_go=200000 ins_rust=100000 ins_loop_ms=1000
native_selfwake=

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpuline() { echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //') (family $(grep -m1 'cpu family' /proc/cpuinfo | sed 's/.*: //') model $(grep -m1 '^model\s' /proc/cpuinfo | sed 's/.*: //'))$1"; }
load() { echo "load $1: $(cut -d' ' -f1-3 /proc/loadavg)"; }
# The CPU parkbench pins selfwake to: the first one this process may use.
firstcpu() { taskset -pc $$ | sed 's/.*: *//; s/[-,].*//'; }

# rust_build: rust/bench's binaries in $rustbin (cargo, offline, once).
rustbin=
rust_build() {
	[ -z "$rustbin" ] || return 0
	if ! command -v cargo >/dev/null 2>&1 && [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]; then
		PATH=${CARGO_HOME:-$HOME/.cargo}/bin:$PATH
	fi
	command -v cargo >/dev/null || die "cargo not found"
	local c
	for c in parking_lot_core-0.9.3 parking_lot-0.12.1; do
		[ -d "$registry/$c" ] || die "no $c under $registry (apt-get install librust-parking-lot-core-dev librust-parking-lot-dev)"
	done
	debian_cargo_config "$crate" "$registry"
	echo "building $crate against $registry (offline)..." >&2
	(cd "$crate" && cargo build --release --offline --locked --quiet) >&2 || die "cargo build failed in $crate"
	rustbin=$crate/target/release
}

# base_tree REV: REV's tree under $work/base (git archive, once).
base_tree() {
	if [ ! -d "$work/base" ]; then
		mkdir "$work/base"
		git archive "$1" | tar -x -C "$work/base"
	fi
}

# pb_build [BASE_REV]: $work/parkbench, and $work/parkbench-base of BASE_REV.
pb_build() {
	[ -x "$work/parkbench" ] || go build -o "$work/parkbench" ./cmd/parkbench
	if [ -n "${1:-}" ] && [ ! -x "$work/parkbench-base" ]; then
		base_tree "$1"
		(cd "$work/base" && go build -o "$work/parkbench-base" ./cmd/parkbench)
	fi
}

selfwake() { # [RUNS] [BASE_REV]
	local runs=${1:-3} base=${2:-} cpu i rust lot old
	rust_build
	pb_build "$base"
	lotns() { # BINARY: lot's ns per pair
		"$1" selfwake --impl=lot --quiet --format=json |
			python3 -c 'import json,sys; d=json.load(sys.stdin); print([c for e in d["experiments"] for c in e["configs"] if c["impl"]=="lot"][0]["summary"]["ns_per_pair"])'
	}
	cpu=$(firstcpu)
	cpuline ", pinned to CPU $cpu"
	load before
	if [ -n "$base" ]; then
		printf '%-4s %14s %12s %8s %14s %10s\n' run rust-ns/pair lot-ns/pair lot/rust base-ns/pair base/rust
	else
		printf '%-4s %14s %12s %8s\n' run rust-ns/pair lot-ns/pair lot/rust
	fi
	for i in $(seq 1 "$runs"); do
		rust=$(taskset -c "$cpu" "$rustbin/selfwake")
		lot=$(lotns "$work/parkbench")
		if [ -n "$base" ]; then
			old=$(lotns "$work/parkbench-base")
			python3 -c "import sys; r,l,o=map(float,sys.argv[1:4]); print('%-4d %14.2f %12.2f %8.2f %14.2f %10.2f' % (int(sys.argv[4]), r, l, l/r, o, o/r))" "$rust" "$lot" "$old" "$i"
		else
			python3 -c "import sys; r,l=float(sys.argv[1]),float(sys.argv[2]); print('%-4d %14.2f %12.2f %8.2f' % (int(sys.argv[3]), r, l, l/r))" "$rust" "$lot" "$i"
		fi
	done
	load after
}

lock() { # [RUNS] [BASE_REV]
	local runs=${1:-3} base=${2:-} i cfg th win rin label rust lot floor old line hdr
	rust_build
	pb_build "$base"
	# gomops BINARY THREADS WORKIN WANT_ITERS: lot's total Mops (and the floor, if any).
	gomops() {
		"$1" lock --impl=lot --threads="$2" --work-in="$3" --work-between=0 \
			--duration="${lock_ms}ms" --repeats="$lock_repeats" --quiet --format=json |
			python3 -c '
import json, sys
want = int(sys.argv[1])
d = json.load(sys.stdin)
c = [c for e in d["experiments"] for c in e["configs"] if c["impl"] == "lot"][0]
it = int(c["params"].get("work_in_iters", "0"))
if it != want:
    sys.exit("vs-rust lock: parkbench ran %d work iterations inside the lock, not %d" % (it, want))
s = c["summary"]
print("%.2f %s" % (s["total_mops"], "%.2f" % s["harness_ns"] if "harness_ns" in s else "-"))' "$4"
	}
	cpuline ", $(nproc) CPUs"
	load before
	hdr='%-4s %-18s %10s %10s %8s %10s'
	# shellcheck disable=SC2059 # the format is the header's
	printf "$hdr" run config rust-Mops lot-Mops lot/rust "harness-ns"
	[ -n "$base" ] && printf ' %10s %10s' base-Mops base/rust
	echo
	# config: threads work-in(go) work-in(rust iterations) label
	for i in $(seq 1 "$runs"); do
		for cfg in "${lock_configs[@]}"; do
			read -r th win rin label <<<"$cfg"
			rust=$("$rustbin/lockbench" "$th" "$rin" 0 "$lock_ms" "$lock_repeats")
			read -r lot floor < <(gomops "$work/parkbench" "$th" "$win" "$rin")
			line=$(python3 -c "import sys; r,l=float(sys.argv[1]),float(sys.argv[2]); print('%-4s %-18s %10.2f %10.2f %8.2f %10s' % (sys.argv[3], sys.argv[4], r, l, l/r, sys.argv[5]))" "$rust" "$lot" "$i" "$label" "$floor")
			if [ -n "$base" ]; then
				read -r old _ < <(gomops "$work/parkbench-base" "$th" "$win" "$rin")
				line+=$(python3 -c "import sys; r,o=float(sys.argv[1]),float(sys.argv[2]); print(' %10.2f %10.2f' % (o, o/r))" "$rust" "$old")
			fi
			echo "$line"
		done
	done
	load after
}

modes() { # [ROUNDS]
	local rounds=${1:-20} rust="" cpu cols i
	case $rounds in '' | *[!0-9]* | 0) echo "vs-rust modes: ROUNDS must be a whole number above 0, not '$rounds'" >&2; exit 2 ;; esac
	go test -c -o "$work/lot.test" ./internal/lot
	if (rust_build) 2>"$work/rust.err"; then
		rust_build 2>/dev/null
		rust=$rustbin/selfwake
	else
		echo "vs-rust modes: no Rust column: $(tail -1 "$work/rust.err")" >&2
	fi
	cpu=$(firstcpu)
	cpuline ", pinned to CPU $cpu"
	load before
	bench() { taskset -c "$cpu" "$work/lot.test" -test.run='^$' -test.benchtime="$modes_benchtime" -test.bench="$1"; }
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
	load after
	# shellcheck disable=SC2086 # one column name a word
	python3 - "$work/rows" $cols <<'EOF'
import statistics, sys
cols = sys.argv[2:]
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
if not rows or any(len(r) != len(cols) + 1 or "-" in r for r in rows):
    sys.exit("vs-rust modes: the benchmarks did not all report: %r" % rows)
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
}

instructions() { # [BASE_REV]
	local base=${1:-} c rs t n rpair
	for c in valgrind callgrind_annotate python3; do command -v "$c" >/dev/null || die "$c not found"; done
	rust_build
	rs=$rustbin/count
	# total IR: the instructions callgrind counted in the whole run.
	ir_total() { valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : //p'; }
	# ir_sum FILE REGEX [INCLUSIVE]: Ir of the functions whose name matches.
	ir_sum() {
		callgrind_annotate --threshold=100 ${3:+--inclusive=yes} "$1" 2>/dev/null | python3 -c '
import re, sys
pat, inclusive = re.compile(sys.argv[1]), len(sys.argv) > 2
tot = 0
for line in sys.stdin:
    if line.startswith("-- Auto-annotated"):
        break
    m = re.match(r"\s*([0-9,]+) \(\s*[0-9.]+%\)  (.+?)( \[[^]]*\])?$", line.rstrip("\n"))
    if m and pat.search(m.group(2).split(":", 1)[-1]):
        tot += int(m.group(1).replace(",", ""))
        if inclusive:
            break
print(tot)' "$2" ${3:+inclusive}
	}
	rust_per() { # MODE: Ir per operation, from N and 2N
		local a b
		a=$(ir_total "$rs" "$1" "$ins_rust")
		b=$(ir_total "$rs" "$1" $((2 * ins_rust)))
		python3 -c "import sys; print('%.1f' % ((int(sys.argv[2]) - int(sys.argv[1])) / int(sys.argv[3])))" "$a" "$b" "$ins_rust"
	}
	rust_loop() {
		local it
		it=$(valgrind --tool=callgrind --callgrind-out-file="$work/cgr" "$rs" loop "$ins_loop_ms" 2>/dev/null)
		python3 -c "import sys; print('%.1f' % (int(sys.argv[1]) / int(sys.argv[2])))" "$(ir_sum "$work/cgr" 'count::mutexrs')" "$it"
	}
	# cpu.rdtscp=off: valgrind 3.19 cannot decode RDTSCP, which Go's
	# runtime.cputicks executes where the CPU has it (seen on AMD EPYC:
	# SIGILL as soon as a runtime lock sleeps).
	go_bench() { # TESTBIN BENCH: Ir of package lot's functions per op
		GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file="$work/cgg" "$1" \
			-test.run='^$' -test.bench="$2" -test.benchtime="${ins_go}x" >"$work/cgg.out" 2>&1 ||
			die "instructions: $1 -test.bench=$2 failed under valgrind: $(grep -m1 -E 'SIGILL|panic|FAIL' "$work/cgg.out")"
		python3 -c "import sys; print('%.1f' % (int(sys.argv[1]) / int(sys.argv[2])))" \
			"$(ir_sum "$work/cgg" '^github.com/parkbench/parkbench/internal/lot\.')" "$ins_go"
	}
	go_loop() { # PARKBENCH: Ir of the lock loop (inclusive) per acquisition
		GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file="$work/cgl" "$1" lock --impl=lot \
			--threads=1 --work-in=0 --work-between=0 --duration="${ins_loop_ms}ms" --repeats=1 --quiet --format=json \
			2>"$work/cgl.err" >"$work/l.json" ||
			die "instructions: parkbench lock failed under valgrind: $(grep -m1 -E 'SIGILL|panic|rror' "$work/cgl.err")"
		local acq
		acq=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([c for e in d["experiments"] for c in e["configs"] if c["impl"]=="lot"][0]["rounds"][0]["metrics"]["acquisitions"])' "$work/l.json")
		python3 -c "import sys; print('%.1f' % (int(sys.argv[1]) / float(sys.argv[2])))" \
			"$(ir_sum "$work/cgl" 'experiments/lock\.loop(OneLotMutex|BareLotMutex|One\[.*lot\.Mutex\]|\[.*lot\.Mutex\])' inclusive)" "$acq"
	}
	local trees=(".")
	if [ -n "$base" ]; then
		base_tree "$base"
		trees+=("$work/base")
	fi
	declare -A pair unc loop inline unguarded
	mkdir -p "$work/ins"
	n=0
	for t in "${trees[@]}"; do
		n=$((n + 1))
		(cd "$t" && go test -c -o "$work/ins/lot.test-$n" ./internal/lot && go build -o "$work/ins/parkbench-$n" ./cmd/parkbench)
		pair[$t]=$(go_bench "$work/ins/lot.test-$n" SelfwakePair)
		unc[$t]=$(go_bench "$work/ins/lot.test-$n" 'MutexUncontended/lot')
		loop[$t]=$(go_loop "$work/ins/parkbench-$n")
		# The anatomy benchmarks are this tree's (a base may not have them).
		inline[$t]=-
		unguarded[$t]=-
		if [ "$t" = . ]; then
			inline[$t]=$(go_bench "$work/ins/lot.test-$n" 'SelfwakeInline$')
			unguarded[$t]=$(go_bench "$work/ins/lot.test-$n" 'SelfwakeUnguarded$')
		fi
	done
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load $(cut -d' ' -f1-3 /proc/loadavg) (instruction counts do not depend on it)"
	printf '%-44s %8s %8s' "instructions per operation" rust lot
	[ -n "$base" ] && printf ' %8s' "lot@base"
	echo
	row() { # LABEL RUST ARRAY
		local -n a=$3
		printf '%-44s %8s %8s' "$1" "$2" "${a[.]}"
		[ -n "$base" ] && printf ' %8s' "${a[$work/base]}"
		echo
	}
	rpair=$(rust_per pair)
	row "selfwake pair (unpark_one + invalid park)" "$rpair" pair
	row "  the pair inline (no call), Rust's as above" "$rpair" inline
	row "  unguarded (Go's calls; Rust: dyn validate)" "$(rust_per pairdyn)" unguarded
	row "lock+unlock, uncontended, direct call" "$(rust_per lock)" unc
	row "lock loop iteration, 1 thread, no work" "$(rust_loop)" loop
}

native() { # [RUNS] [PLUGIN]
	local runs=${1:-3} lib=${2:-} i th
	rust_build
	pb_build
	if [ -z "$lib" ]; then
		lib=$(bash scripts/rust-originals.sh | tail -1) || die "native: scripts/rust-originals.sh failed"
	fi
	[ -f "$lib" ] || die "native: no plugin $lib"
	cpuline ", $(nproc) CPUs, selfwake pinned to CPU $(firstcpu)"
	load before
	: >"$work/native"
	for i in $(seq 1 "$runs"); do
		for th in 1 2; do
			echo "$i lock-t=$th rust $("$rustbin/lockbench" "$th" 0 0 "$lock_ms" "$lock_repeats")" >>"$work/native"
		done
		"$work/parkbench" lock --plugin "$lib" --impl=c-rust-parking_lot,c-rust-parking_lot.fp,lot --threads=1,2 \
			--work-in=0 --work-between=0 --duration="${lock_ms}ms" --repeats="$lock_repeats" --quiet --format=json >"$work/lock-$i.json"
		echo "$i selfwake rust $(taskset -c "$(firstcpu)" "$rustbin/selfwake")" >>"$work/native"
		"$work/parkbench" selfwake --plugin "$lib" --impl=c-rust-parking_lot,c-rust-parking_lot.fp,lot \
			${native_selfwake:+"$native_selfwake"} --quiet --format=json >"$work/self-$i.json"
		echo "run $i done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	done
	load after
	python3 - "$work" "$runs" <<'EOF'
import json, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
rust = {}
for l in open(work + "/native"):
    r, fig, _, v = l.split()
    rust[(int(r), fig)] = float(v)
def rows(path):
    d = json.load(open(path))
    out, claims = {}, []
    for e in d["experiments"]:
        for c in e["configs"]:
            out[(c["impl"], c["params"].get("threads", ""))] = c["summary"]
        claims += [(c["id"], c["verdict"], c.get("why", "")) for c in e.get("claims") or [] if "fidelity" in c["id"]]
    return out, claims
print("%-4s %-9s %9s %9s %8s %9s %8s %9s   (lock: Mops; selfwake: ns per pair)" % (
    "run", "figure", "rust", "native", "nat/rust", "fp", "fp/rust", "lot"))
ratios, verdicts = {}, []
for i in range(1, runs + 1):
    lk, lc = rows("%s/lock-%d.json" % (work, i))
    sw, sc = rows("%s/self-%d.json" % (work, i))
    verdicts.append((i, lc + sc))
    for fig, src, key, metric in [("lock-t=1", lk, "1", "total_mops"), ("lock-t=2", lk, "2", "total_mops"),
                                  ("selfwake", sw, "", "ns_per_pair")]:
        r = rust[(i, fig)]
        n = src[("c-rust-parking_lot", key)][metric]
        f = src[("c-rust-parking_lot.fp", key)][metric]
        l = src[("lot", key)][metric]
        ratios.setdefault(fig, []).append(n / r)
        print("%-4d %-9s %9.2f %9.2f %8.2f %9.2f %8.2f %9.2f" % (i, fig, r, n, n / r, f, f / r, l))
print("native/rust, median of the runs (min .. max); target within 10 %:")
for fig, x in ratios.items():
    print("  %-9s %5.2f (%.2f .. %.2f)" % (fig, statistics.median(x), min(x), max(x)))
print("fidelity verdicts (lot against the native-loop row), per run:")
for i, cs in verdicts:
    for cid, v, why in cs:
        print("  run %d %-22s %s%s" % (i, cid, v, (": " + why[:150]) if why else ""))
EOF
}

fastpath() { # [RUNS] [BASE_REV]
	local runs=${1:-3} base=${2:-}
	echo "== instructions per operation"
	instructions "$base"
	echo "== self-wake pair, ns (target: lot/rust <= 1.3)"
	selfwake "$runs" "$base"
	echo "== lock, total Mops (target: lot/rust >= 0.9)"
	lock "$runs" "$base"
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
cmd=$1
shift
case $cmd in
selfwake | lock | modes | instructions | fastpath | native) "$cmd" "$@" ;;
--smoke)
	[ $# = 0 ] || die "--smoke takes no arguments"
	lock_ms=100 lock_repeats=1 lock_configs=("1 0 0 t=1,work=0" "2 1ns 1 t=2,work=1+0")
	modes_benchtime=100000x ins_go=20000 ins_rust=10000 ins_loop_ms=100 native_selfwake=--quick
	for c in selfwake lock modes instructions native; do
		t0=$SECONDS
		echo "== vs-rust.sh $c, smallest case"
		if [ "$c" = modes ]; then modes 1; elif [ "$c" = instructions ]; then instructions; else "$c" 1; fi
		echo "vs-rust.sh $c: ok ($((SECONDS - t0))s)"
	done
	;;
-h | --help) usage ;;
*) echo "vs-rust: unknown subcommand '$cmd' (selfwake, lock, modes, instructions, fastpath, native, --smoke)" >&2; exit 2 ;;
esac
