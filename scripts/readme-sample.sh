#!/usr/bin/env bash
# readme-sample.sh: take the samples README.md and docs/samples.md show, the
# way a new user runs them, under the measuring lock other measurements on a
# shared machine take, each under /usr/bin/time -v, with the CPU and the
# load before and after each:
#
#   run      parkbench run                        (the main job: the full suite)
#   latency  parkbench latency --impl=futex --out a.json, then again --out b.json
#   herd     parkbench herd --waiters=64
#   compare  parkbench compare a.json b.json      (the two latency files)
#
#   scripts/readme-sample.sh [--only "run latency herd compare"] [--quick] [OUTDIR]
#   scripts/readme-sample.sh --smoke
#
# --quick takes 'parkbench run --quick' instead of the full suite. --smoke
# (.ci/run) takes latency, herd and compare with --quick, in a temporary
# OUTDIR (seconds; the figures mean nothing). OUTDIR
# (default: a temporary directory) keeps, per sample NAME, NAME.txt (stdout),
# NAME.err (stderr: the progress lines), NAME.time (/usr/bin/time -v) and
# conditions.txt: per sample the command, the load before and after, the
# wall time and the max RSS: the figures the README quotes.
set -euo pipefail
cd "$(dirname "$0")/.."
only="run latency herd compare"
quick=0
out=""
smoke=0
while [ $# -gt 0 ]; do
	case "$1" in
	--only) [ $# -ge 2 ] || { echo "readme-sample: --only needs a list" >&2; exit 2; }; only="$2"; shift ;;
	--only=*) only="${1#--only=}" ;;
	--quick) quick=1 ;;
	--smoke) smoke=1 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	-*) echo "readme-sample: unknown option $1" >&2; exit 2 ;;
	*) out="$1" ;;
	esac
	shift
done
[ -x /usr/bin/time ] || { echo "readme-sample: needs /usr/bin/time (GNU time, for -v)" >&2; exit 2; }
q=()
if [ "$smoke" = 1 ]; then
	only="latency herd compare" q=(--quick)
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
out=${out:-$(mktemp -d)}
mkdir -p "$out"
go build -o "$out/parkbench" ./cmd/parkbench
echo "cpu: $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed "s/^ //"), family $(grep -m1 "cpu family" /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 "^model[[:space:]]*:" /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) CPUs" >"$out/conditions.txt"

# sample NAME ARGS...: one command, run in OUTDIR as "parkbench ARGS".
sample() {
	local name=$1
	shift
	flock /tmp/pb-measure.lock bash -c '
		out=$1 name=$2; shift 2
		before=$(cut -d" " -f1-3 /proc/loadavg)
		(cd "$out" && /usr/bin/time -v -o "$name.time" ./parkbench "$@" >"$name.txt" 2>"$name.err") || echo "$name: exit $?" >>"$out/conditions.txt"
		after=$(cut -d" " -f1-3 /proc/loadavg)
		wall=$(sed -n "s/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p" "$out/$name.time")
		rss=$(sed -n "s/.*Maximum resident set size (kbytes): //p" "$out/$name.time")
		echo "$name: parkbench $*: wall $wall, max RSS $((rss / 1024)) MB, $(wc -l <"$out/$name.txt") lines; load $before -> $after" >>"$out/conditions.txt"
	' _ "$out" "$name" "$@"
}

for s in $only; do
	case "$s" in
	run) if [ "$quick" = 1 ]; then sample run run --quick; else sample run run; fi ;;
	latency)
		sample latency latency --impl=futex --out a.json "${q[@]}"
		sample latency-b latency --impl=futex --out b.json "${q[@]}" ;;
	herd) sample herd herd --waiters=64 "${q[@]}" ;;
	compare) sample compare compare a.json b.json ;;
	*) echo "readme-sample: unknown sample $s (run, latency, herd, compare)" >&2; exit 2 ;;
	esac
done
cat "$out/conditions.txt"
[ "$smoke" = 1 ] || echo "output: $out/{run,latency,herd,compare}.txt"
# A sample that failed fails the script.
! grep -q ': exit [0-9]' "$out/conditions.txt"
