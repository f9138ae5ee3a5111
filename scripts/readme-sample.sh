#!/usr/bin/env bash
# readme-sample.sh: take the sample run README.md shows, the way a new user
# runs it (parkbench run --quick), under the measuring lock other
# measurements on a shared machine take, with the load and the CPU before
# and after.
#
#   scripts/readme-sample.sh [OUTDIR]
#
# OUTDIR (default: a temporary directory) keeps run.txt (what the run
# printed on stdout), run.err (stderr: the progress lines and the last line,
# which says the result was not saved, as a new user sees it) and
# conditions.txt (CPU, load).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
go build -o "$out/parkbench" ./cmd/parkbench
flock /tmp/pb-measure.lock bash -c '
	out=$1
	{
		echo "cpu: $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed "s/^ //"), $(nproc) CPUs"
		echo "before: $(uptime)"
	} > "$out/conditions.txt"
	"$out/parkbench" run --quick > "$out/run.txt" 2> "$out/run.err"
	echo "after: $(uptime)" >> "$out/conditions.txt"
' _ "$out"
cat "$out/conditions.txt"
echo "output: $out/run.txt, $out/run.err"
