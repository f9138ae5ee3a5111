#!/usr/bin/env bash
# xmachine-eval.sh: does a normalisation say "no change" for unchanged code?
#
# Builds the commit a recorded baseline was made with (--commit), runs the
# default suite with it --runs times on this machine (each under
# flock --lock, the load logged), and compares every run with the baseline
# three ways:
#
#   probe  the commit's own compare: figures divided by each configuration's
#          spin (or syscall) probe (what compare did across machine classes
#          before the floor ratios);
#   raw    this tree's compare, raw figures;
#   floor  this tree's compare --floors: each figure as a ratio to its C
#          floor in the same run (futex / c-futex).
#
# It prints, per way and over all runs, the verdict counts and, for the
# latency medians (all rows, and the pinned cross-core ones), the median and
# 90th percentile of |new/base - 1| and the share within ±5% and ±10%.
#
# Usage: scripts/xmachine-eval.sh --baseline FILE --commit REV [--runs N]
#        [--dir DIR] [--lock FILE]
#        scripts/xmachine-eval.sh --smoke
# --smoke (.ci/run): this tree's build stands for the commit's and a
# recorded suite of another machine for the run (nothing measured, seconds):
# the three comparisons and their statistics.
set -eu
set -o pipefail

baseline="" commit="" runs=3 dir=/tmp/pb-xmachine lock=/tmp/pb-measure.lock smoke=0
die() { echo "xmachine-eval: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--baseline) baseline="$2"; shift ;;
	--commit) commit="$2"; shift ;;
	--runs) runs="$2"; shift ;;
	--dir) dir="$2"; shift ;;
	--lock) lock="$2"; shift ;;
	--smoke) smoke=1 ;;
	-h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1" ;;
	esac
	shift
done
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "$smoke" = 1 ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	(cd "$repo" && go build -o "$dir/parkbench" ./cmd/parkbench)
	cp "$dir/parkbench" "$dir/parkbench-old"
	baseline=$(ls "$repo"/results/*amd-epyc*/suite-*.json | tail -1)
	cp "$(ls "$repo"/results/*intel-xeon*/suite-*.json | tail -1)" "$dir/run-1.json"
	commit=HEAD runs=1
fi
[ -f "$baseline" ] || die "--baseline FILE: a recorded result"
[ -n "$commit" ] || die "--commit REV: the commit the baseline was made with"
command -v jq >/dev/null || die "needs jq"
mkdir -p "$dir/src"
if [ ! -x "$dir/parkbench-old" ]; then
	(cd "$repo" && git archive "$commit") | tar -x -C "$dir/src"
	(cd "$dir/src" && go build -o "$dir/parkbench-old" ./cmd/parkbench)
	(cd "$repo" && go build -o "$dir/parkbench" ./cmd/parkbench)
fi
for i in $(seq 1 "$runs"); do
	[ -f "$dir/run-$i.json" ] && continue
	flock "$lock" sh -c 'uptime >"$1.load"; "$2" run --quiet --out "$1.json" >/dev/null; uptime >>"$1.load"' _ "$dir/run-$i" "$dir/parkbench-old"
done
for i in $(seq 1 "$runs"); do
	"$dir/parkbench-old" compare --format=json "$baseline" "$dir/run-$i.json" >"$dir/probe-$i.json" 2>/dev/null || true
	"$dir/parkbench" compare --format=json "$baseline" "$dir/run-$i.json" >"$dir/raw-$i.json" 2>/dev/null || true
	"$dir/parkbench" compare --floors --format=json "$baseline" "$dir/run-$i.json" >"$dir/floor-$i.json" 2>/dev/null || true
done
echo "baseline $baseline (load $(jq -r '.machine.load_avg | map(tostring) | join(" ")' "$baseline")); runs of $commit today:"
for i in $(seq 1 "$runs"); do echo "  run $i: load $(jq -r '.machine.load_avg | map(tostring) | join(" ")' "$dir/run-$i.json")"; done
for way in probe raw floor; do
	# The judged ratio: norm_ratio where the way normalises, else ratio.
	jq -s --arg way "$way" '
	  [ .[][0].rows[] ] as $rows
	  | def r: if $way == "raw" then .ratio else (.norm_ratio // null) end;
	  def stats(v): (v | map(select(. != null and . > 0) | (. - 1) | fabs) | sort) as $d
	    | if ($d | length) == 0 then "none" else
	      "n=\($d|length) median |change| \((100*$d[($d|length)/2|floor])|floor)% p90 \((100*$d[(($d|length)*0.9)|floor])|floor)% within 5% \((100*([$d[]|select(.<=0.05)]|length)/($d|length))|floor)% within 10% \((100*([$d[]|select(.<=0.10)]|length)/($d|length))|floor)%" end;
	  "\($way): verdicts " + ([$rows[].verdict] | group_by(.) | map("\(.[0]) \(length)") | join(", "))
	  + "\n  latency medians: " + stats([$rows[] | select(.experiment == "latency" and .metric == "median_ns") | r])
	  + "\n  latency medians, cross-core: " + stats([$rows[] | select(.experiment == "latency" and .metric == "median_ns" and (.config | test("/cross-core"))) | r])
	' "$dir"/"$way"-*.json | sed 's/^"//; s/"$//; s/\\n/\n/g'
done
