#!/usr/bin/env bash
# flipcheck.sh: do back-to-back default runs give the same claim verdicts?
#
# Runs `parkbench run` (the default suite, or ARGS) N times back to back
# with each binary, under /usr/bin/time -v, and prints per binary:
#   - every claim's verdict run by run ("holds", "fails", "n/e"; "~" after
#     a verdict decided near its limit: its rounds straddle the limit);
#   - the flips: claims whose verdict differs between runs, and how many of
#     those were marked near their limit in a run where they flipped;
#   - lines printed (stdout, the report; stderr, the progress), wall time,
#     max RSS, and the load average before and after each run.
# A binary is --bin PATH, or --rev REV (built from this repository at REV
# in a temporary worktree); --base-rev REV adds a second binary built at REV,
# run first, for a before/after.
#
# Usage: scripts/flipcheck.sh [--runs N] [--bin PATH | --rev REV]
#        [--base-rev REV] [--dir DIR] [--args "ARGS"] [--table]
#   --runs N   runs per binary (default 2)
#   --dir DIR  where the runs are kept (default /tmp/pb-flipcheck): DIR/<label>-<n>.{json,out,err,time,load}
#   --args     options for every run (default none: the default suite)
#   --table    print the tables from DIR and exit
#   --smoke    the smallest case (.ci/run): this tree's build, one run of
#              `run --quick --rounds=1 --iterations=100`, in a temporary DIR
# Each run holds /tmp/pb-measure.lock (flock), as gate-eval.sh's do.
# For the acceptance measurement run it on a quiet machine, e.g.
#   scripts/flipcheck.sh --runs 2 --base-rev 6eaf268 --rev main
set -eu
set -o pipefail

runs=2
bin=""
rev=""
base_rev=""
dir=/tmp/pb-flipcheck
args=""
table_only=0
smoke=0
lock=/tmp/pb-measure.lock

die() { echo "flipcheck: $*" >&2; exit 2; }
need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--runs=*) runs="${1#--runs=}" ;;
	--runs) need_arg "$@"; runs="$2"; shift ;;
	--bin=*) bin="${1#--bin=}" ;;
	--bin) need_arg "$@"; bin="$2"; shift ;;
	--rev=*) rev="${1#--rev=}" ;;
	--rev) need_arg "$@"; rev="$2"; shift ;;
	--base-rev=*) base_rev="${1#--base-rev=}" ;;
	--base-rev) need_arg "$@"; base_rev="$2"; shift ;;
	--dir=*) dir="${1#--dir=}" ;;
	--dir) need_arg "$@"; dir="$2"; shift ;;
	--args=*) args="${1#--args=}" ;;
	--args) need_arg "$@"; args="$2"; shift ;;
	--table) table_only=1 ;;
	--smoke) smoke=1 ;;
	-h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d'; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
case "$runs" in '' | *[!0-9]*) die "--runs wants a count, got '$runs'" ;; esac
[ "$runs" -ge 1 ] || die "--runs wants at least 1"
command -v jq >/dev/null || die "needs jq"
[ -x /usr/bin/time ] || die "needs /usr/bin/time (GNU time, for -v)"
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "$smoke" = 1 ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	(cd "$repo" && go build -o "$dir/smoke-parkbench" ./cmd/parkbench)
	runs=1 bin=$dir/smoke-parkbench args="--quick --rounds=1 --iterations=100" base_rev="" rev=""
fi
mkdir -p "$dir"

# build REV LABEL: DIR/parkbench-LABEL built from the repository at REV.
build() {
	local wt
	wt=$(mktemp -d)
	git -C "$repo" worktree add --detach -q "$wt" "$1" || die "no revision $1"
	(cd "$wt" && go build -o "$dir/parkbench-$2" ./cmd/parkbench) || { git -C "$repo" worktree remove --force "$wt"; die "build of $1 failed"; }
	git -C "$repo" worktree remove --force "$wt"
	git -C "$repo" rev-parse --short "$1" >"$dir/parkbench-$2.rev"
}

labels=""
if [ "$table_only" = 0 ]; then
	if [ -n "$base_rev" ]; then
		build "$base_rev" base
		labels="base"
	fi
	if [ -n "$bin" ]; then
		[ -x "$bin" ] || die "--bin $bin is not an executable"
		cp "$bin" "$dir/parkbench-new"
		echo "$bin" >"$dir/parkbench-new.rev"
	else
		build "${rev:-HEAD}" new
	fi
	labels="$labels new"
	for l in $labels; do
		i=1
		while [ "$i" -le "$runs" ]; do
			out="$dir/$l-$i"
			echo "flipcheck: $l run $i of $runs ($(cat "$dir/parkbench-$l.rev"))" >&2
			# shellcheck disable=SC2086 # args are separate words
			flock "$lock" sh -c 'cut -d" " -f1-3 /proc/loadavg >"$1.load"; /usr/bin/time -v -o "$1.time" "$2" run --out "$1.json" '"$args"' >"$1.out" 2>"$1.err"; c=$?; cut -d" " -f1-3 /proc/loadavg >>"$1.load"; exit $c' \
				_ "$out" "$dir/parkbench-$l" || echo "flipcheck: $l run $i failed: $(tail -n 2 "$out.err")" >&2
			i=$((i + 1))
		done
	done
else
	for l in base new; do [ -f "$dir/$l-1.json" ] && labels="$labels $l"; done
fi

# verdicts FILE: "id<TAB>verdict" per claim, "~" marking near its limit.
verdicts() {
	jq -r '.experiments[] | .claims[]? | [.id, ((if .verdict == "holds" then "holds" elif .verdict == "does not hold" then "fails" else "n/e" end) + (if .near_limit then "~" else "" end))] | @tsv' "$1"
}

for l in $labels; do
	echo
	echo "== $l: $(cat "$dir/parkbench-$l.rev" 2>/dev/null) =="
	files=""
	i=1
	while [ -f "$dir/$l-$i.json" ]; do files="$files $dir/$l-$i.json"; i=$((i + 1)); done
	[ -n "$files" ] || { echo "no completed run"; continue; }
	tmp=$(mktemp -d)
	n=0
	for f in $files; do n=$((n + 1)); verdicts "$f" >"$tmp/$n"; done
	# One row per claim: its verdict in each run; flips counted.
	# shellcheck disable=SC2086
	awk -F'\t' -v n="$n" '
		{ run = FILENAME; sub(".*/", "", run); v[$1, run] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
		END {
			printf "%-44s", "claim"; for (r = 1; r <= n; r++) printf " %-8s", "run " r; printf "\n"
			flips = 0; marked = 0
			for (i = 1; i <= k; i++) {
				id = order[i]; printf "%-44s", id; first = ""; flip = 0; near = 0
				for (r = 1; r <= n; r++) {
					x = v[id, r]; if (x == "") x = "-"; printf " %-8s", x
					b = x; if (sub(/~$/, "", b)) near = 1
					if (r == 1) first = b; else if (b != first) flip = 1
				}
				if (flip) { flips++; if (near) { marked++; printf "  FLIP (marked near its limit)" } else printf "  FLIP" }
				printf "\n"
			}
			printf "flips: %d of %d claims (%d marked near their limit, %d unmarked)\n", flips, k, marked, flips - marked
		}' $(i=1; while [ "$i" -le "$n" ]; do printf '%s ' "$tmp/$i"; i=$((i + 1)); done)
	rm -rf "$tmp"
	i=1
	while [ -f "$dir/$l-$i.out" ]; do
		wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/$l-$i.time" 2>/dev/null)
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/$l-$i.time" 2>/dev/null)
		printf 'run %d: %s lines of report (stdout), %s of progress (stderr); wall %s, max RSS %s MB; load %s -> %s\n' \
			"$i" "$(wc -l <"$dir/$l-$i.out")" "$(wc -l <"$dir/$l-$i.err")" "${wall:-?}" "$(( ${rss:-0} / 1024 ))" \
			"$(head -n 1 "$dir/$l-$i.load" 2>/dev/null)" "$(sed -n 2p "$dir/$l-$i.load" 2>/dev/null)"
		i=$((i + 1))
	done
done
