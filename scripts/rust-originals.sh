#!/usr/bin/env bash
# scripts/rust-originals.sh: builds the originals parkbench ports
# (parking_lot_core 0.9.3, parking_lot 0.12.1, crossbeam-utils 0.8.12 and
# Rust std) as a parkbench plugin, offline, from Debian's crate sources, and
# prints the library's absolute path as its last line (docs/originals.md):
#
#   parkbench run --plugin "$(bash scripts/rust-originals.sh | tail -1)"
#
#   scripts/rust-originals.sh [--check]
#
# --check also builds rust/originals/test/check.c and runs it on the
# library: every operation from C threads, against include/parkbench.h.
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
check=0
for a in "$@"; do
	case $a in
	--check) check=1 ;;
	-h | --help)
		sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "rust-originals: unknown argument $a (usage: scripts/rust-originals.sh [--check])" >&2
		exit 2
		;;
	esac
done
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
echo "$lib"
