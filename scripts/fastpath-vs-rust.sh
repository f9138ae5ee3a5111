#!/usr/bin/env bash
# scripts/fastpath-vs-rust.sh: the whole before/after table of the port's
# never-sleeping paths against the originals (docs/findings.md, "The
# port's fast paths"): instruction counts (load-independent), then the
# self-wake pair and the lock rows timed, interleaved Rust / this tree /
# BASE_REV's tree, RUNS runs each (the targets read the median of 3).
#
#   scripts/fastpath-vs-rust.sh [RUNS] [BASE_REV]     (default 3, no base)
#
# Run it on a quiet machine: the timed parts measure nanoseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
base=${2:-}
echo "== instructions per operation"
bash scripts/fastpath-instructions.sh $base
echo "== self-wake pair, ns (target: lot/rust <= 1.3)"
bash scripts/selfwake-vs-rust.sh "$runs" $base
echo "== lock, total Mops (target: lot/rust >= 0.9)"
bash scripts/lock-vs-rust.sh "$runs" $base
