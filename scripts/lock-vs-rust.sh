#!/usr/bin/env bash
# scripts/lock-vs-rust.sh: `parkbench lock --impl=lot` against the real
# parking_lot Mutex, side by side in one run (docs/findings.md, "The
# port's fast paths").
#
#   scripts/lock-vs-rust.sh [RUNS] [BASE_REV]     (default 3, no base)
#
# The Rust side is parking_lot's own benchmark method
# (benchmark/src/bin/mutex.rs, run_benchmark): N threads meet at a
# Barrier, each loops { lock; work-in; unlock; work-between; count } while
# keep_going (a relaxed load) holds, main sleeps the duration and clears
# it. The Go side is `parkbench lock`, which follows the same method
# (docs/lock.md). Both: total acquisitions per µs of all threads (Mops),
# the median of 3 repeats of 1 s each. Rows:
#   1 and 2 threads, zero work (--work-in=0 --work-between=0);
#   4 and 8 threads, one work unit inside the lock and none between:
#   parking_lot's README benchmark (`mutex 2:9 1 0 1 2`); parkbench gets
#   --work-in=1ns, which its calibration rounds up to one iteration (the
#   script checks the work_in_iters it reports).
# The runs alternate Rust, Go[, base] per run, and each row prints the
# ratio go/rust (>= 1 means the port is as fast). With BASE_REV (a git
# revision) that revision's parkbench, built from `git archive`, runs in
# each run too. harness-ns is this tree's harness floor (ns per iteration
# of the same loop with an empty lock, one thread) for reading the rows.
#
# The crates come from Debian (apt-get install librust-parking-lot-dev,
# which puts parking_lot 0.12.x and its dependencies under
# /usr/share/cargo/registry); the benchmark is built offline against that
# directory in a temporary directory, release mode, and nothing is kept.
# Needs cargo, go and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian-cargo.sh
runs=${1:-3}
base=${2:-}
registry=/usr/share/cargo/registry
die() { echo "lock-vs-rust: $*" >&2; exit 1; }
command -v cargo >/dev/null || die "cargo not found"
crate=$(ls -d "$registry"/parking_lot-0.12.* 2>/dev/null | sort -V | tail -1) || true
[ -n "$crate" ] || die "no parking_lot under $registry (apt-get install librust-parking-lot-dev)"
version=${crate##*-}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bench/src"
debian_cargo_config "$work/bench" "$registry"
cat >"$work/bench/Cargo.toml" <<EOF
[package]
name = "lockbench"
version = "0.0.0"
edition = "2021"
[dependencies]
parking_lot = "=$version"
[profile.release]
opt-level = 3
EOF
cat >"$work/bench/src/main.rs" <<'EOF'
// parking_lot's benchmark/src/bin/mutex.rs run_benchmark for
// parking_lot::Mutex<f64>, written out: lockbench THREADS WORK_IN
// WORK_BETWEEN MILLIS REPEATS prints the median over the repeats of the
// total acquisitions per microsecond (all threads).
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

fn run(threads: usize, work_in: usize, work_between: usize, millis: u64) -> f64 {
    let lock = Arc::new(([0u8; 300], Mutex::new(0.0f64), [0u8; 300]));
    let keep_going = Arc::new(AtomicBool::new(true));
    let barrier = Arc::new(Barrier::new(threads + 1));
    let mut hs = vec![];
    for _ in 0..threads {
        let (barrier, lock, keep_going) = (barrier.clone(), lock.clone(), keep_going.clone());
        hs.push(thread::spawn(move || {
            let mut local_value = 0.0;
            let mut value = 0.0;
            let mut iterations = 0usize;
            barrier.wait();
            while keep_going.load(Ordering::Relaxed) {
                {
                    let mut shared_value = lock.1.lock();
                    for _ in 0..work_in {
                        *shared_value += value;
                        *shared_value *= 1.01;
                        value = *shared_value;
                    }
                }
                for _ in 0..work_between {
                    local_value += value;
                    local_value *= 1.01;
                    value = local_value;
                }
                iterations += 1;
            }
            (iterations, value)
        }));
    }
    barrier.wait();
    let t0 = Instant::now();
    thread::sleep(Duration::from_millis(millis));
    keep_going.store(false, Ordering::Relaxed);
    let secs = t0.elapsed().as_secs_f64();
    let total: usize = hs.into_iter().map(|h| h.join().unwrap().0).sum();
    total as f64 / secs / 1e6
}

fn main() {
    let a: Vec<usize> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    let mut r: Vec<f64> = (0..a[4]).map(|_| run(a[0], a[1], a[2], a[3] as u64)).collect();
    r.sort_by(|x, y| x.partial_cmp(y).unwrap());
    println!("{:.2}", r[r.len() / 2]);
}
EOF
echo "building the Rust mutex benchmark against $crate (offline)..." >&2
(cd "$work/bench" && cargo build --release --quiet) || die "cargo build failed"
go build -o "$work/parkbench" ./cmd/parkbench
if [ -n "$base" ]; then
	mkdir "$work/base"
	git archive "$base" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/parkbench-base" ./cmd/parkbench)
fi

# gomops BINARY THREADS WORKIN: lot's total Mops (and the floor, if any).
gomops() {
	"$1" lock --impl=lot --threads="$2" --work-in="$3" --work-between=0 \
		--duration=1s --repeats=3 --quiet --format=json |
		python3 -c '
import json, sys
want = int(sys.argv[1])
d = json.load(sys.stdin)
c = [c for e in d["experiments"] for c in e["configs"] if c["impl"] == "lot"][0]
it = int(c["params"].get("work_in_iters", "0"))
if it != want:
    sys.exit("lock-vs-rust: parkbench ran %d work iterations inside the lock, not %d" % (it, want))
s = c["summary"]
print("%.2f %s" % (s["total_mops"], "%.2f" % s["harness_ns"] if "harness_ns" in s else "-"))' "$4"
}

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //') (family $(grep -m1 'cpu family' /proc/cpuinfo | sed 's/.*: //') model $(grep -m1 '^model\s' /proc/cpuinfo | sed 's/.*: //')), $(nproc) CPUs"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
hdr='%-4s %-18s %10s %10s %8s %10s'
printf "$hdr" run config rust-Mops lot-Mops lot/rust "harness-ns"
[ -n "$base" ] && printf ' %10s %10s' base-Mops base/rust
echo
# config: threads work-in(go) work-in(rust iterations) label
configs=("1 0 0 t=1,work=0" "2 0 0 t=2,work=0" "4 1ns 1 t=4,work=1+0" "8 1ns 1 t=8,work=1+0")
for i in $(seq 1 "$runs"); do
	for cfg in "${configs[@]}"; do
		read -r th win rin label <<<"$cfg"
		rust=$("$work/bench/target/release/lockbench" "$th" "$rin" 0 1000 3)
		read -r lot floor < <(gomops "$work/parkbench" "$th" "$win" "$rin")
		line=$(python3 -c "import sys; r,l=float(sys.argv[1]),float(sys.argv[2]); print('%-4s %-18s %10.2f %10.2f %8.2f %10s' % (sys.argv[3], sys.argv[4], r, l, l/r, sys.argv[5]))" "$rust" "$lot" "$i" "$label" "$floor")
		if [ -n "$base" ]; then
			read -r old _ < <(gomops "$work/parkbench-base" "$th" "$win" "$rin")
			line+=$(python3 -c "import sys; r,o=float(sys.argv[1]),float(sys.argv[2]); print(' %10.2f %10.2f' % (o, o/r))" "$rust" "$old")
		fi
		echo "$line"
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
