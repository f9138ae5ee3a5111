#!/usr/bin/env bash
# scripts/selfwake-vs-rust.sh: lot's self-wake against the real
# parking_lot_core, side by side in one run (docs/findings.md).
#
#   scripts/selfwake-vs-rust.sh [RUNS] [BASE_REV]     (default 3, no base)
#
# The self-wake pair is E12's reverse check for impl lot: UnparkOne on a key
# nobody is parked on, then Park whose validate returns false (both lock
# and unlock the key's bucket). The Rust side runs exactly that pair on
# parking_lot_core's unpark_one / park, timed as `parkbench selfwake` times
# it: 100 pairs per sample, 1000 samples per round, 3 rounds, ns per pair =
# the median sample / 100, the figure = the median of the rounds; the
# thread pinned to the CPU parkbench pins selfwake to (the first allowed).
# The runs alternate Rust, Go, Rust, Go, ... and each prints its ratio.
# With BASE_REV (a git revision, e.g. d3ef1aa) that revision's parkbench,
# built from `git archive` in the temporary directory, runs in each round
# too, so before and after are measured side by side.
#
# With SELFWAKE_RUST_BIN=PATH in the environment it only builds the Rust
# side, copies the binary to PATH and exits (scripts/selfwake-modes.sh
# times it beside lot's benchmarks).
#
# The crate comes from Debian (apt-get install librust-parking-lot-core-dev,
# which puts its source under /usr/share/cargo/registry); the benchmark is
# built offline against that directory in a temporary directory, release
# mode, and nothing is kept. Needs cargo and go.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian-cargo.sh
runs=${1:-3}
base=${2:-}
registry=/usr/share/cargo/registry
die() { echo "selfwake-vs-rust: $*" >&2; exit 1; }
command -v cargo >/dev/null || die "cargo not found"
crate=$(ls -d "$registry"/parking_lot_core-0.9.* 2>/dev/null | sort -V | tail -1) ||
	true
[ -n "$crate" ] || die "no parking_lot_core under $registry (apt-get install librust-parking-lot-core-dev)"
version=${crate##*-}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bench/src"
debian_cargo_config "$work/bench" "$registry"
cat >"$work/bench/Cargo.toml" <<EOF
[package]
name = "selfwake"
version = "0.0.0"
edition = "2021"
[dependencies]
parking_lot_core = "=$version"
[profile.release]
opt-level = 3
EOF
cat >"$work/bench/src/main.rs" <<'EOF'
// The self-wake pair of `parkbench selfwake --impl=lot`, on the real
// parking_lot_core: unpark_one on a key nobody waits on, then park whose
// validate fails. Prints ns per pair (median sample / pairs, median of
// rounds).
//
// An optional argument picks how validate is called (docs/findings.md,
// "Fifth pass"; scripts/selfwake-modes.sh):
//   (none)   a closure rustc sees and inlines, as a Rust user writes it;
//   opaque   through a `&dyn Fn() -> bool` it cannot see into: an indirect
//            call, as Go's Park makes to its func value;
//   guarded  opaque, inside a drop guard that would run if validate
//            unwound, as lot's Park guards validate with a defer.
use parking_lot_core::{park, unpark_one, DEFAULT_PARK_TOKEN, DEFAULT_UNPARK_TOKEN};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

static UNWOUND: AtomicBool = AtomicBool::new(false);

struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        UNWOUND.store(true, Ordering::Relaxed);
    }
}

fn samples<F: Fn()>(pair: &F, pairs: usize, n: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = Instant::now();
        for _ in 0..pairs {
            pair();
        }
        out.push(t0.elapsed().as_nanos() as u64);
    }
    out
}

fn measure<F: Fn()>(pair: F) -> f64 {
    let pairs = 100usize;
    let n = 1000usize;
    let rounds = 3usize;
    samples(&pair, pairs, n / 10); // warm-up, as parkbench's
    let mut per_round = Vec::new();
    for _ in 0..rounds {
        let mut s = samples(&pair, pairs, n);
        s.sort_unstable();
        // Nearest rank, as the HDR histogram's quantile.
        let med = s[(s.len() + 1) / 2 - 1];
        per_round.push(med as f64 / pairs as f64);
    }
    per_round.sort_by(|a, b| a.partial_cmp(b).unwrap());
    per_round[per_round.len() / 2]
}

fn main() {
    let word = Box::new(0u32);
    let key = &*word as *const u32 as usize;
    let refuse = || false;
    let opaque: &dyn Fn() -> bool = black_box(&refuse);
    let mode = std::env::args().nth(1).unwrap_or_default();
    let ns = match mode.as_str() {
        "" => measure(|| unsafe {
            unpark_one(black_box(key), |_| DEFAULT_UNPARK_TOKEN);
            park(black_box(key), || false, || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }),
        "opaque" => measure(|| unsafe {
            unpark_one(black_box(key), |_| DEFAULT_UNPARK_TOKEN);
            park(black_box(key), || opaque(), || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }),
        "guarded" => measure(|| unsafe {
            unpark_one(black_box(key), |_| DEFAULT_UNPARK_TOKEN);
            let validate = || {
                let g = Guard;
                let ok = opaque();
                std::mem::forget(g);
                ok
            };
            park(black_box(key), validate, || {}, |_, _| {}, DEFAULT_PARK_TOKEN, None);
        }),
        other => {
            eprintln!("selfwake: unknown mode {:?}; valid: opaque, guarded (or none)", other);
            std::process::exit(2);
        }
    };
    assert!(!UNWOUND.load(Ordering::Relaxed));
    println!("{:.2}", ns);
}
EOF
echo "building the Rust self-wake against $crate (offline)..." >&2
(cd "$work/bench" && cargo build --release --quiet) || die "cargo build failed"
if [ -n "${SELFWAKE_RUST_BIN:-}" ]; then
	cp "$work/bench/target/release/selfwake" "$SELFWAKE_RUST_BIN"
	exit 0
fi
go build -o "$work/parkbench" ./cmd/parkbench
if [ -n "$base" ]; then
	mkdir "$work/base"
	git archive "$base" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/parkbench-base" ./cmd/parkbench)
fi
lotns() { # BINARY: lot's ns per pair
	"$1" selfwake --impl=lot --quiet --format=json |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print([c for e in d["experiments"] for c in e["configs"] if c["impl"]=="lot"][0]["summary"]["ns_per_pair"])'
}

# The CPU parkbench pins selfwake to: the first one this process may use.
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //') (family $(grep -m1 'cpu family' /proc/cpuinfo | sed 's/.*: //') model $(grep -m1 '^model\s' /proc/cpuinfo | sed 's/.*: //')), pinned to CPU $cpu"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$base" ]; then
	printf '%-4s %14s %12s %8s %14s %10s\n' run rust-ns/pair lot-ns/pair lot/rust base-ns/pair base/rust
else
	printf '%-4s %14s %12s %8s\n' run rust-ns/pair lot-ns/pair lot/rust
fi
for i in $(seq 1 "$runs"); do
	rust=$(taskset -c "$cpu" "$work/bench/target/release/selfwake")
	lot=$(lotns "$work/parkbench")
	if [ -n "$base" ]; then
		old=$(lotns "$work/parkbench-base")
		python3 -c "import sys; r,l,o=map(float,sys.argv[1:4]); print('%-4d %14.2f %12.2f %8.2f %14.2f %10.2f' % (int(sys.argv[4]), r, l, l/r, o, o/r))" "$rust" "$lot" "$old" "$i"
	else
		python3 -c "import sys; r,l=float(sys.argv[1]),float(sys.argv[2]); print('%-4d %14.2f %12.2f %8.2f' % (int(sys.argv[3]), r, l, l/r))" "$rust" "$lot" "$i"
	fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
