#!/usr/bin/env bash
# scripts/rust-originals.sh: builds the originals parkbench ports
# (parking_lot_core 0.9.3, parking_lot 0.12.1, crossbeam-utils 0.8.12 and
# Rust std) as a parkbench plugin, offline, from Debian's crate sources, and
# prints the library's absolute path as its last line (docs/originals.md):
#
#   parkbench run --plugin "$(bash scripts/rust-originals.sh | tail -1)"
#
#   scripts/rust-originals.sh [--check]
#   scripts/rust-originals.sh --ci --parkbench BIN
#
# --check also builds rust/originals/test/check.c and runs it on the
# library: every operation from C threads, against include/parkbench.h.
#
# --ci is .ci/run's step: --check, then lot beside the originals in
# latency, selfwake, herd and lock on their quick settings with BIN (each
# run's table and claims), then the Go test that loads the library
# (internal/cli TestRustOriginals, without -race: the race detector does
# not see the synchronisation inside Rust). About a minute and a half on a
# 2-vCPU guest. Without cargo on the machine it says so and passes; a
# build or a run that fails fails the step.
#
# Needs cargo and rustc (rustup's or Debian's, whichever is on PATH) and the
# sources from the Debian packages librust-parking-lot-core-dev,
# librust-parking-lot-dev and librust-crossbeam-utils-dev (under
# /usr/share/cargo/registry). When they are missing and this runs as root
# with apt-get, it says so and installs them; otherwise it stops and prints
# the command. The crate builds with `cargo build --release --offline
# --locked` against that directory, so nothing is fetched; the lock file
# pins every version. Nothing built is committed (rust/originals/.gitignore).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian-cargo.sh
root=$(pwd)
crate=$root/rust/originals
registry=/usr/share/cargo/registry
check=0 ci=0 pb=
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1 ;;
	--ci) ci=1 check=1 ;;
	--parkbench) [ $# -ge 2 ] || { echo "rust-originals: --parkbench needs BIN" >&2; exit 2; }; pb=$2; shift ;;
	--parkbench=*) pb=${1#*=} ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "rust-originals: unknown argument $1 (usage: scripts/rust-originals.sh [--check] | --ci --parkbench BIN)" >&2
		exit 2
		;;
	esac
	shift
done
if [ "$ci" = 1 ]; then
	[ -n "$pb" ] || { echo "rust-originals: --ci needs --parkbench BIN" >&2; exit 2; }
	if ! command -v cargo >/dev/null 2>&1 && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]; then
		echo "cargo is not on this machine: the Rust originals are not built or run (docs/originals.md)"
		exit 0
	fi
elif [ -n "$pb" ]; then
	echo "rust-originals: --parkbench goes with --ci" >&2
	exit 2
fi
say() { echo "rust-originals: $*" >&2; }
die() {
	say "$*"
	exit 1
}

# cargo: PATH first, then rustup's usual place (a non-login shell may not
# have it on PATH).
if ! command -v cargo >/dev/null 2>&1 && [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]; then
	PATH=${CARGO_HOME:-$HOME/.cargo}/bin:$PATH
fi
command -v cargo >/dev/null 2>&1 ||
	die "cargo not found on PATH (install rustup's toolchain, or Debian's: apt-get install cargo rustc)"
command -v rustc >/dev/null 2>&1 || die "rustc not found on PATH (cargo is $(command -v cargo))"

# The sources, one directory per crate version the lock file pins.
need=(parking_lot_core-0.9.3 parking_lot-0.12.1 lock_api-0.4.9 crossbeam-utils-0.8.12
	libc-0.2.139 cfg-if-1.0.0 smallvec-1.9.0 scopeguard-1.1.0 autocfg-1.1.0)
pkgs="librust-parking-lot-core-dev librust-parking-lot-dev librust-crossbeam-utils-dev"
missing() {
	local m=()
	for c in "${need[@]}"; do [ -d "$registry/$c" ] || m+=("$c"); done
	echo "${m[*]:-}"
}
m=$(missing)
if [ -n "$m" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		say "missing under $registry: $m; installing $pkgs with apt-get"
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs >/dev/null) >&2 ||
			die "apt-get install $pkgs failed"
		m=$(missing)
	fi
	[ -z "$m" ] || die "missing under $registry: $m (apt-get install $pkgs; Debian bookworm has exactly these versions)"
fi

# Cargo reads crates-io from the Debian directory, offline.
debian_cargo_config "$crate" "$registry"

say "building with $(cargo -V), $(rustc -V) (offline, from $registry)"
(cd "$crate" && cargo build --release --offline --locked --quiet) >&2 ||
	die "cargo build failed in $crate"
lib=$crate/target/release/libparkbench_originals.so
[ -f "$lib" ] || die "the build did not produce $lib"

if [ "$check" = 1 ]; then
	command -v cc >/dev/null 2>&1 || die "--check needs a C compiler (cc)"
	bin=$crate/target/check
	cc -O2 -Wall -pthread -I"$root/include" "$crate/test/check.c" -o "$bin" -ldl >&2 ||
		die "could not build $crate/test/check.c"
	"$bin" "$lib" >&2 || die "the C check of $lib failed"
fi
if [ "$ci" = 0 ]; then
	echo "$lib"
	exit 0
fi

# --ci: the quick runs with the originals, their tables and claims, then
# the Go test that loads the library.
echo "library: $lib"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # EXPERIMENT ARGS...
	local e=$1
	shift
	"$pb" "$e" --plugin "$lib" --quick --quiet --out "$out/$e.json" "$@" >/dev/null
	"$pb" report --format=table "$out/$e.json"
}
run latency --impl=lot,rust-parking_lot,c-rust-parking_lot,rust-crossbeam,rust-std
run selfwake --impl=lot,rust-parking_lot,c-rust-parking_lot,rust-crossbeam,rust-std
run herd --impl=lot,rust-parking_lot,rust-std --waiters=16,64
run lock --impl=lot,rust-parking_lot,c-rust-parking_lot,rust-std --threads=1,2

PARKBENCH_RUST_ORIGINALS=$lib go test -count=1 -run 'TestRustOriginals' ./internal/cli/
