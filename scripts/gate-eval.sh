#!/usr/bin/env bash
# gate-eval.sh: measure the regression gate's error rates on this machine.
#
#   false alarms: A/A gate runs, the same binary as base and new;
#   detection:    A/B gate runs of a -tags parkinject build against itself,
#                 the new side with a busy wait on the wake path
#                 (PARKBENCH_INJECT) calibrated to slow the headline rows
#                 by +5%, +10%, +25% of their median (the figure the gate
#                 judges: median wake latency as a ratio to c-futex).
#
# Calibration (once): one gate run of the parkinject build with a probe
# delay (--probe, 4us) at the chosen sites; the realized change of each
# row's judged figure gives the delay for each effect, linearly
# (delay = probe x effect / realized). Sites: lot and std by default; futex
# (--sites futex) since latency rows are judged on the waits that slept
# (results.MetricSpec.Slept): a delay in the futex parker's own Unpark
# raises the row's share of waits that never sleep, which splits its
# overall median instead of shifting it, but every slept wait is later by
# the delay (docs/gate.md). The lot row runs on the futex parker, so a
# futex delay moves it too; the realized effect is read on the site's row.
# Futex's own row, the latency part alone:
#   scripts/gate-eval.sh --dir /tmp/pb-gate-eval-futex --sites futex \
#       --ab-args "--profile=latency" --probe 2us --effects "5 10 25" --runs 10 --aa-runs 10
#
# Every gate run is logged and kept (DIR/runs/<kind>-<n>.{txt,json}) and
# the log is DIR/log.tsv: rerunning the script resumes where it stopped.
# Kinds are interleaved (aa-1 e5-1 e10-1 e25-1 aa-2 ...) so that the
# machine's load falls on all alike. Each gate run holds LOCK (flock), so
# other measurements on the machine wait for it and it for them; the 1-min
# load average before and after each run is logged.
#
# Usage: scripts/gate-eval.sh [--dir DIR] [--runs N] [--aa-runs N]
#        [--effects "5 10 25"] [--sites lot,std] [--probe 4us]
#        [--lock FILE] [--ab-args "ARGS"] [--table]
#   --runs N      gate runs per effect (default 20); --aa-runs N A/A runs
#                 (default: --runs)
#   --ab-args     options for every ab run, the calibration's too (e.g.
#                 "--profile=wake": the wake part's rows; docs/gate.md)
#   --table       print the table from DIR/log.tsv and exit
#   --smoke       the smallest case (.ci/run): in a temporary DIR, one A/A
#                 and one +25% run of the wake part with 4 trials a side,
#                 lot the only site (std's wake row did not move at a 50us
#                 std probe here), calibrated at a 50us probe (the rates
#                 mean nothing)
# Output: the table effect x false alarms x detections x gate time x load,
# for all runs and for the runs whose load stayed at most 3; then each
# site's own row (e.g. futex's for --sites futex): how often the gate
# called that row slower, same or unknown, and how often it was multimodal.
set -eu
set -o pipefail

dir=/tmp/pb-gate-eval
runs=20
aa_runs=""
effects="5 10 25"
sites="lot,std"
probe=4us
lock=/tmp/pb-measure.lock
ab_args=""
table_only=0
smoke=0

die() { echo "gate-eval: $*" >&2; exit 2; }
need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--dir=*) dir="${1#--dir=}" ;;
	--dir) need_arg "$@"; dir="$2"; shift ;;
	--runs=*) runs="${1#--runs=}" ;;
	--runs) need_arg "$@"; runs="$2"; shift ;;
	--aa-runs=*) aa_runs="${1#--aa-runs=}" ;;
	--aa-runs) need_arg "$@"; aa_runs="$2"; shift ;;
	--effects=*) effects="${1#--effects=}" ;;
	--effects) need_arg "$@"; effects="$2"; shift ;;
	--sites=*) sites="${1#--sites=}" ;;
	--sites) need_arg "$@"; sites="$2"; shift ;;
	--probe=*) probe="${1#--probe=}" ;;
	--probe) need_arg "$@"; probe="$2"; shift ;;
	--lock=*) lock="${1#--lock=}" ;;
	--lock) need_arg "$@"; lock="$2"; shift ;;
	--ab-args=*) ab_args="${1#--ab-args=}" ;;
	--ab-args) need_arg "$@"; ab_args="$2"; shift ;;
	--table) table_only=1 ;;
	--smoke) smoke=1 ;;
	-h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
if [ "$smoke" = 1 ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	runs=1 aa_runs=1 effects=25 probe=50us sites=lot ab_args="--profile=wake --trials=4 --max-trials=4"
fi
[ -n "$aa_runs" ] || aa_runs=$runs
case "$runs$aa_runs" in *[!0-9]*) die "--runs and --aa-runs take a number" ;; esac
command -v jq >/dev/null || die "needs jq"
command -v flock >/dev/null || die "needs flock (util-linux)"

repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir/runs"
log="$dir/log.tsv"
[ -f "$log" ] || printf 'kind\trun\texit\tseconds\tload_before\tload_after\ttrials\tverdicts\trealized\tstarted\n' >"$log"
load1() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -1; }

table() {
	# effect x false alarms x detections x gate time x load, from the log.
	awk -F'\t' -v max_load=3 '
	NR == 1 { next }
	{
		k = $1; hi = ($5 > $6 ? $5 : $6)
		for (pass = 0; pass < 2; pass++) {
			if (pass == 1 && hi > max_load) continue
			key = k SUBSEP pass
			n[key]++; if ($3 == 1) alarm[key]++; if ($3 >= 2) bad[key]++
			t[key] = t[key] " " $4
			if (!(key in lo) || hi < lo[key]) lo[key] = hi
			if (!(key in hmax) || hi > hmax[key]) hmax[key] = hi
			if ($9 != "") { real[key] = real[key] " " $9 }
		}
		if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	}
	function median(s,   a, m, i, j, x) {
		m = split(s, a, " ")
		for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		if (m == 0) return "-"
		return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	function maxof(s,   a, m, i, x) { m = split(s, a, " "); x = 0; for (i = 1; i <= m; i++) if (a[i] + 0 > x) x = a[i] + 0; return x }
	END {
		for (pass = 0; pass < 2; pass++) {
			print (pass == 0 ? "all runs" : "runs with load <= 3 before and after")
			printf "  %-8s %-16s %5s %-22s %-13s %-14s %s\n", "effect", "realized (med)", "runs", "false alarms / detect.", "gate s (med)", "gate s (max)", "load (1-min)"
			for (i = 1; i <= nk; i++) {
				k = order[i]; key = k SUBSEP pass
				eff = (k == "aa") ? "A/A" : "+" substr(k, 2) "%"
				if (!(key in n)) { printf "  %-8s no runs\n", eff; continue }
				what = (k == "aa") ? "false alarms" : "detections"
				r = (key in real) ? sprintf("%+.1f%%", 100 * median(real[key])) : "-"
				printf "  %-8s %-16s %5d %-22s %-13s %-14s %s-%s%s\n", eff, r, n[key], sprintf("%d %s", alarm[key] + 0, what),
					median(t[key]), maxof(t[key]), lo[key], hmax[key], (bad[key] ? sprintf(" (%d runs exit 2)", bad[key]) : "")
			}
		}
	}' "$log"
}
# site_rows: each injected site's own row (the row whose implementation
# is the site), run by run from the kept JSON: how often the gate called it
# slower (a detection on that row; in A/A runs a false alarm), same or
# unknown, and how often it judged a multimodal side.
site_rows() {
	echo "the sites' own rows (--sites $sites), from $dir/runs/*.json"
	printf '  %-8s %-8s %5s %7s %5s %8s %6s %11s\n' "effect" "row" "runs" "slower" "same" "unknown" "other" "multimodal"
	for f in "$dir"/runs/*.json; do
		[ -f "$f" ] || continue
		k=$(basename "$f" .json)
		jq -r --arg k "${k%-*}" --arg sites "$sites" '.rows[] | select(.impl as $i | ($sites | split(",") | index($i))) |
			[$k, .impl, .verdict, ((.multimodal_base // false) or (.multimodal_new // false))] | @tsv' "$f"
	done | awk -F'\t' '
		{ key = $1 SUBSEP $2; if (!(key in n)) order[++k] = key; n[key]++
		  if ($3 == "slower") sl[key]++; else if ($3 == "same") sa[key]++; else if ($3 == "unknown") un[key]++; else ot[key]++
		  if ($4 == "true") mm[key]++ }
		END {
			for (i = 1; i <= k; i++) {
				split(order[i], a, SUBSEP); eff = (a[1] == "aa") ? "A/A" : "+" substr(a[1], 2) "%"
				printf "  %-8s %-8s %5d %7d %5d %8d %6d %11d\n", eff, a[2], n[order[i]], sl[order[i]], sa[order[i]], un[order[i]], ot[order[i]], mm[order[i]]
			}
		}'
}
if [ "$table_only" = 1 ]; then
	table
	site_rows
	exit 0
fi

# Binaries, once.
pb="$dir/parkbench"
inj="$dir/parkbench-inject"
if [ ! -x "$pb" ] || [ ! -x "$inj" ]; then
	echo "gate-eval: building $pb and $inj (-tags parkinject) from $repo" >&2
	(cd "$repo" && go build -o "$pb" ./cmd/parkbench && go build -tags parkinject -o "$inj" ./cmd/parkbench)
	(cd "$repo" && git rev-parse HEAD 2>/dev/null; git status --short | head -5) >"$dir/built-from.txt" || true
fi
wrapper() { # wrapper NAME INJECT: a "binary" that runs the inject build with PARKBENCH_INJECT
	printf '#!/bin/sh\nPARKBENCH_INJECT=%s exec %s "$@"\n' "$2" "$inj" >"$dir/$1"
	chmod +x "$dir/$1"
}
wrapper base-inject ""

# gate KIND N BASE NEW: one logged gate run (skipped when logged already).
gate() {
	kind=$1 n=$2 base=$3 new=$4
	if awk -F'\t' -v k="$kind" -v n="$n" '$1 == k && $2 == n { found = 1 } END { exit !found }' "$log"; then
		return 0
	fi
	out="$dir/runs/$kind-$n"
	code=0
	started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	# shellcheck disable=SC2086 # ab_args are separate words
	flock "$lock" sh -c 'echo "$(cut -d" " -f1 /proc/loadavg)" >"$1.load0"; t0=$(date +%s); "$2" ab --quiet --format=text --out "$1.json" '"$ab_args"' "$3" "$4" >"$1.txt" 2>"$1.err"; c=$?; echo $(( $(date +%s) - t0 )) >"$1.secs"; exit $c' \
		_ "$out" "$pb" "$base" "$new" || code=$?
	l0=$(cat "$out.load0" 2>/dev/null || echo -1)
	secs=$(cat "$out.secs" 2>/dev/null || echo -1)
	l1=$(load1)
	trials=-1 verdicts="" realized=""
	if [ -f "$out.json" ]; then
		trials=$(jq '.trials | length' "$out.json")
		verdicts=$(jq -r '[.rows[] | .verdict] + [.geomean.verdict] | join(",")' "$out.json")
		# The realized effect: the median over the injected rows of new/base.
		realized=$(jq -r --arg sites "$sites" '[.rows[] | select(.impl as $i | ($sites | split(",") | index($i))) | .ratio - 1] | sort | if length == 0 then "" elif length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end' "$out.json")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$n" "$code" "$secs" "$l0" "$l1" "$trials" "$verdicts" "$realized" "$started" >>"$log"
	echo "gate-eval: $kind run $n: exit $code in ${secs}s, load $l0 -> $l1, verdicts $verdicts, realized $realized" >&2
}

# Calibration, once: the realized change of each row at the probe delay.
cal="$dir/calibration.tsv"
if [ ! -f "$cal" ]; then
	inject=""
	for s in $(echo "$sites" | tr ',' ' '); do inject="$inject${inject:+,}$s=$probe"; done
	wrapper probe "$inject"
	echo "gate-eval: calibrating: $inject" >&2
	# shellcheck disable=SC2086 # ab_args are separate words (the profile)
	flock "$lock" "$pb" ab --quiet --format=text --out "$dir/calibration.json" --min-effect=0% $ab_args "$dir/base-inject" "$dir/probe" >"$dir/calibration.txt" 2>&1 || true
	[ -f "$dir/calibration.json" ] || die "calibration failed: $(tail -n 3 "$dir/calibration.txt")"
	jq -r '.rows[] | [.impl, .ratio - 1, .base_median, .new_median] | @tsv' "$dir/calibration.json" >"$cal"
	cat "$cal" >&2
fi
probe_ns=$(awk -v p="$probe" 'BEGIN { v = p + 0; if (p ~ /ms$/) v *= 1e6; else if (p ~ /us$|µs$/) v *= 1e3; print v }')
for e in $effects; do
	inject=""
	for s in $(echo "$sites" | tr ',' ' '); do
		# The row whose implementation is the site (lot, std), the first
		# part's when the profile has several (--profile=all); delay =
		# probe x effect / realized change at the probe.
		d=$(awk -F'\t' -v s="$s" -v e="$e" -v p="$probe_ns" '$1 == s && $2 > 0 { printf "%dns", p * e / 100 / $2; exit }' "$cal")
		[ -n "$d" ] || die "calibration has no positive change for the $s row: see $dir/calibration.txt"
		inject="$inject${inject:+,}$s=$d"
	done
	wrapper "new-e$e" "$inject"
	echo "gate-eval: +$e%: PARKBENCH_INJECT=$inject" >&2
done

most=$runs
[ "$aa_runs" -gt "$most" ] && most=$aa_runs
i=1
while [ "$i" -le "$most" ]; do
	[ "$i" -le "$aa_runs" ] && gate aa "$i" "$pb" "$pb"
	if [ "$i" -le "$runs" ]; then
		for e in $effects; do
			gate "e$e" "$i" "$dir/base-inject" "$dir/new-e$e"
		done
	fi
	i=$((i + 1))
done
table
site_rows
