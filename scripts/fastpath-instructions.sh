#!/usr/bin/env bash
# scripts/fastpath-instructions.sh: instructions per operation of the
# port's never-sleeping paths against the originals (docs/findings.md,
# "The port's fast paths"). Instruction counts do not depend on the load,
# so this runs on a busy machine; its guest has no hardware counters
# (perf stat says <not supported>), so it counts with valgrind's
# callgrind, which executes every instruction itself.
#
#   scripts/fastpath-instructions.sh [BASE_REV]
#
# Rows (Go: this tree, and BASE_REV's when given; Rust: parking_lot_core
# 0.9.3 / parking_lot 0.12.1 from Debian, built offline, release):
#   selfwake pair   UnparkOne on an empty key + Park whose validate fails
#                   (Go: BenchmarkSelfwakePair in internal/lot, the
#                   instructions of package lot's functions, the benchmark
#                   loop included, per pair; Rust: the same loop, the
#                   difference of two runs of N and 2N pairs, per pair)
#   ... inline      the pair's code with no call, validate inlined
#                   (Go: BenchmarkSelfwakeInline; this tree only), and
#                   Rust's pair as above
#   ... unguarded   the pair's calls, Park without its validate guard
#                   (Go: BenchmarkSelfwakeUnguarded; this tree only);
#                   Rust: validate called through a &dyn Fn
#   lock+unlock     uncontended, called directly (Go:
#                   BenchmarkMutexUncontended/lot; Rust: a loop of
#                   lock(); unlock())
#   lock loop       one iteration of `parkbench lock --threads=1
#                   --work-in=0 --work-between=0` (its measured loop with
#                   everything it calls, per acquisition) and of
#                   mutex.rs's loop (run_benchmark's thread body)
# Needs cargo, go, valgrind and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian-cargo.sh
base=${1:-}
registry=/usr/share/cargo/registry
die() { echo "fastpath-instructions: $*" >&2; exit 1; }
for c in cargo valgrind callgrind_annotate python3; do command -v "$c" >/dev/null || die "$c not found"; done
core=$(ls -d "$registry"/parking_lot_core-0.9.* 2>/dev/null | sort -V | tail -1) || true
pl=$(ls -d "$registry"/parking_lot-0.12.* 2>/dev/null | sort -V | tail -1) || true
[ -n "$core" ] && [ -n "$pl" ] || die "apt-get install librust-parking-lot-core-dev librust-parking-lot-dev"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/rs/src"
debian_cargo_config "$work/rs" "$registry"
cat >"$work/rs/Cargo.toml" <<EOF
[package]
name = "count"
version = "0.0.0"
edition = "2021"
[dependencies]
parking_lot_core = "=${core##*-}"
parking_lot = "=${pl##*-}"
[profile.release]
opt-level = 3
EOF
cat >"$work/rs/src/main.rs" <<'EOF'
// count pair N | pairdyn N | lock N | loop MILLIS: the operations counted, N times,
// or mutex.rs's thread loop on one thread for MILLIS (prints iterations).
use parking_lot_core::{park, unpark_one, DEFAULT_PARK_TOKEN, DEFAULT_UNPARK_TOKEN};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[inline(never)]
fn pairs(key: usize, n: usize) {
    for _ in 0..n {
        unsafe {
            unpark_one(black_box(key), |_| DEFAULT_UNPARK_TOKEN);
            park(black_box(key), || false, || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }
    }
}

// pairs with validate called through a &dyn Fn: an indirect call, as Go's
// Park makes to its func value.
#[inline(never)]
fn pairs_dyn(key: usize, n: usize) {
    let refuse = || false;
    let validate: &dyn Fn() -> bool = black_box(&refuse);
    for _ in 0..n {
        unsafe {
            unpark_one(black_box(key), |_| DEFAULT_UNPARK_TOKEN);
            park(black_box(key), || validate(), || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }
    }
}

#[inline(never)]
fn locks(m: &parking_lot::Mutex<f64>, n: usize) {
    for _ in 0..n {
        drop(black_box(m.lock()));
    }
}

// mutex.rs's run_benchmark thread body with no work. (With its two work
// loops over counts of 0 known only at run time, as mutex.rs and
// lock-vs-rust.sh have them, it counts the same: rustc moves the empty
// loops' tests out of the loop.)
#[inline(never)]
fn mutexrs(lock: &([u8; 300], parking_lot::Mutex<f64>, [u8; 300]), keep_going: &AtomicBool) -> usize {
    let mut iterations = 0usize;
    while keep_going.load(Ordering::Relaxed) {
        drop(lock.1.lock()); // the guard drops at once: lock; unlock
        iterations += 1;
    }
    iterations
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a[2].parse().unwrap();
    match a[1].as_str() {
        "pair" => {
            let word = Box::new(0u32);
            pairs(&*word as *const u32 as usize, n)
        }
        "pairdyn" => {
            let word = Box::new(0u32);
            pairs_dyn(&*word as *const u32 as usize, n)
        }
        "lock" => locks(&parking_lot::Mutex::new(0.0), n),
        _ => {
            let lock = Arc::new(([0u8; 300], parking_lot::Mutex::new(0.0), [0u8; 300]));
            let keep_going = Arc::new(AtomicBool::new(true));
            let (l, k) = (lock.clone(), keep_going.clone());
            let h = std::thread::spawn(move || mutexrs(&l, &k));
            std::thread::sleep(std::time::Duration::from_millis(n as u64));
            keep_going.store(false, Ordering::Relaxed);
            println!("{}", h.join().unwrap());
        }
    }
}
EOF
echo "building the Rust counters against $core and $pl (offline)..." >&2
(cd "$work/rs" && cargo build --release --quiet) || die "cargo build failed"
rs=$work/rs/target/release/count

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
	a=$(ir_total "$rs" "$1" 100000)
	b=$(ir_total "$rs" "$1" 200000)
	python3 -c "import sys; print('%.1f' % ((int(sys.argv[2]) - int(sys.argv[1])) / 100000))" "$a" "$b"
}
rust_loop() {
	local it
	it=$(valgrind --tool=callgrind --callgrind-out-file="$work/cgr" "$rs" loop 1000 2>/dev/null)
	python3 -c "import sys; print('%.1f' % (int(sys.argv[1]) / int(sys.argv[2])))" "$(ir_sum "$work/cgr" 'count::mutexrs')" "$it"
}
go_bench() { # TESTBIN BENCH: Ir of package lot's functions per op
	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$work/cgg" "$1" \
		-test.run='^$' -test.bench="$2" -test.benchtime=200000x >/dev/null 2>&1
	python3 -c "import sys; print('%.1f' % (int(sys.argv[1]) / 200000))" \
		"$(ir_sum "$work/cgg" '^github.com/parkbench/parkbench/internal/lot\.')"
}
go_loop() { # PARKBENCH: Ir of the lock loop (inclusive) per acquisition
	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$work/cgl" "$1" lock --impl=lot \
		--threads=1 --work-in=0 --work-between=0 --duration=1s --repeats=1 --quiet --format=json 2>/dev/null >"$work/l.json"
	local acq
	acq=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([c for e in d["experiments"] for c in e["configs"] if c["impl"]=="lot"][0]["rounds"][0]["metrics"]["acquisitions"])' "$work/l.json")
	python3 -c "import sys; print('%.1f' % (int(sys.argv[1]) / float(sys.argv[2])))" \
		"$(ir_sum "$work/cgl" 'experiments/lock\.loop(OneLotMutex|BareLotMutex|One\[.*lot\.Mutex\]|\[.*lot\.Mutex\])' inclusive)" "$acq"
}

trees=(".")
if [ -n "$base" ]; then
	mkdir "$work/base"
	git archive "$base" | tar -x -C "$work/base"
	trees+=("$work/base")
fi
declare -A pair unc loop inline unguarded
for t in "${trees[@]}"; do
	(cd "$t" && go test -c -o "$work/lot.test" ./internal/lot && go build -o "$work/parkbench" ./cmd/parkbench)
	pair[$t]=$(go_bench "$work/lot.test" SelfwakePair)
	unc[$t]=$(go_bench "$work/lot.test" 'MutexUncontended/lot')
	loop[$t]=$(go_loop "$work/parkbench")
	# The anatomy benchmarks are this tree's (a base may not have them).
	inline[$t]=-
	unguarded[$t]=-
	if [ "$t" = . ]; then
		inline[$t]=$(go_bench "$work/lot.test" 'SelfwakeInline$')
		unguarded[$t]=$(go_bench "$work/lot.test" 'SelfwakeUnguarded$')
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
