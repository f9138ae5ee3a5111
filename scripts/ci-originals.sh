#!/usr/bin/env bash
# scripts/ci-originals.sh: .ci/run's step for the Rust originals
# (docs/originals.md). Builds rust/originals offline from Debian's sources
# (installing librust-parking-lot-core-dev, librust-parking-lot-dev and
# librust-crossbeam-utils-dev when missing and root), checks every
# operation from C threads (--check), runs lot beside them in latency,
# selfwake, herd and lock on their quick settings, and runs the Go test
# that loads the library (without -race: the race detector does not see
# the synchronisation inside Rust). About a minute and a half on a 2-vCPU
# guest.
#
#   scripts/ci-originals.sh --parkbench BIN
#
# Without cargo on the machine it says so and passes; a build or a run that
# fails fails the step.
set -euo pipefail
cd "$(dirname "$0")/.."
pb=
while [ $# -gt 0 ]; do
	case $1 in
	--parkbench) pb=$2; shift 2 ;;
	--parkbench=*) pb=${1#*=}; shift ;;
	*) echo "ci-originals: unknown argument $1 (usage: scripts/ci-originals.sh --parkbench BIN)" >&2; exit 2 ;;
	esac
done
[ -n "$pb" ] || { echo "ci-originals: --parkbench BIN is required" >&2; exit 2; }

if ! command -v cargo >/dev/null 2>&1 && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]; then
	echo "cargo is not on this machine: the Rust originals are not built or run (docs/originals.md)"
	exit 0
fi
lib=$(bash scripts/rust-originals.sh --check | tail -1)
echo "library: $lib"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # EXPERIMENT ARGS...: the quick run with the originals, its table and claims
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
