#!/usr/bin/env bash
# scripts/anatomy-check.sh: an independent check of latency --anatomy's
# idle_exit (docs/anatomy.md, "Independent check").
#
#   scripts/anatomy-check.sh [ITERATIONS] [ROUNDS]     (default 10000, 3; root)
#   scripts/anatomy-check.sh figures [REPS]            (default 3; root)
#
# figures: the anatomy's two targets (docs/anatomy.md, "Memory" and "Probe
# effect"). Peak resident size (/usr/bin/time's maximum RSS) of
# `parkbench latency --anatomy` for 1 configuration (futex cross-core), 4
# (futex,c-futex,lot,std cross-core) and all (the defaults); then REPS
# times `parkbench latency --impl=futex,c-futex,lot --placement=cross-core
# --anatomy` with the eBPF recorder and, alternated with it, the perf one
# (PARKBENCH_ANATOMY_RECORDER=perf): per configuration the probe effect
# (traced rounds' median against the untraced rounds', interleaved in each
# run), and per recorder the median over the repetitions. About 8 minutes
# on the 2-vCPU guest (the default run is 5 of them).
#
# 1. Runs `parkbench latency --impl=c-futex --placement=cross-core` (no
#    --anatomy) under `perf record -e sched:sched_waking,sched:sched_switch,
#    power:cpu_idle,ipi:ipi_send_cpu -a` and reads `perf script --ns` with
#    awk: for every sched_waking of a parkbench thread by a parkbench thread
#    whose target CPU sat in an idle state (its last power:cpu_idle entered
#    a state and has not left it), the time to that CPU's next cpu_idle exit
#    (state 4294967295). That is --anatomy's idle_exit, measured by perf's
#    own recording and a reading that shares no code with parkbench.
# 2. Runs the same configuration with --anatomy and reads its pooled
#    anatomy_idle_exit_median_ns.
# Prints both medians, with the number of wakes whose target CPU was idle /
# busy, the CPU and the load. On a loaded machine (both CPUs busy) few or
# no wakes find their CPU idle and both medians say so.
#
# Mounts tracefs on /sys/kernel/tracing if it is not mounted (perf reads
# the events' ids there) and unmounts it on exit; perf record's events are
# file descriptors, gone when perf exits; nothing is written to tracefs.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "anatomy-check: jq is not installed (apt-get install jq)" >&2; exit 2; }
if [ "${1:-}" = figures ]; then
	reps=${2:-3}
	[[ "$reps" =~ ^[1-9][0-9]?$ ]] || { echo "anatomy-check figures: REPS must be 1 to 99, not '$reps'" >&2; exit 2; }
	[ -x /usr/bin/time ] || { echo "anatomy-check figures: /usr/bin/time is not installed (apt-get install time)" >&2; exit 2; }
	# shellcheck source=scripts/perf-work.sh
	. scripts/perf-work.sh
	perf_work anatomy-check
	echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') (family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')), $(nproc) CPUs, $(uname -r)"
	echo "peak resident size of parkbench latency --anatomy (/usr/bin/time, maximum RSS):"
	for spec in "1|--impl=futex --placement=cross-core" "4|--impl=futex,c-futex,lot,std --placement=cross-core" "all|"; do
		name=${spec%%|*}
		# shellcheck disable=SC2086 # the spec is words
		/usr/bin/time -f '%M %e' -o "$work/time.txt" "$work/parkbench" latency ${spec#*|} --anatomy -q -o "$work/mem.json" >/dev/null
		read -r kb secs <"$work/time.txt"
		n=$(jq '.experiments[0].configs | length' "$work/mem.json")
		echo "  $name: $n configurations, peak $((kb / 1024)) MB, ${secs} s (load $(cut -d' ' -f1 /proc/loadavg))"
	done
	echo "probe effect of --anatomy, cross-core (traced rounds' median / untraced rounds' median - 1, each run's rounds interleaved):"
	for i in $(seq "$reps"); do
		for rec in ebpf perf; do
			PARKBENCH_ANATOMY_RECORDER=$rec "$work/parkbench" latency --impl=futex,c-futex,lot --placement=cross-core --anatomy -q \
				-o "$work/probe-$rec-$i.json" >/dev/null
			jq -r --arg rec "$rec" --arg i "$i" --arg load "$(cut -d' ' -f1 /proc/loadavg)" '"  run \($i) \($rec):" +
				([.experiments[0].configs[] | .summary as $s | " \(.impl) " +
					(if $s.anatomy_probe_effect then ($s.anatomy_probe_effect | (if . >= 0 then "+" else "" end) + ((. * 1000 | round) / 10 | tostring) + "%") else "-" end) +
					" (\(($s.anatomy_traced_median_ns // 0) / 10 | round / 100)/\(($s.median_slept_ns // 0) / 10 | round / 100) µs)"] | join(",")) +
				" load \($load)"' "$work/probe-$rec-$i.json"
		done
	done
	for rec in ebpf perf; do
		jq -rs --arg rec "$rec" 'def pct: (if . >= 0 then "+" else "" end) + ((. * 1000 | round) / 10 | tostring) + "%";
			[.[].experiments[0].configs[] | {impl, p: .summary.anatomy_probe_effect}] | group_by(.impl) |
			map(([.[].p | select(. != null)] | sort) as $s | .[0].impl + " " +
				(if ($s | length) > 0 then ($s[(($s | length) - 1) / 2 | floor] | pct) + " (max " + ($s[-1] | pct) + ")" else "-" end)) |
			"  median over the runs, \($rec): " + join(", ")' "$work"/probe-"$rec"-*.json
	done
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi
iters=${1:-10000}
rounds=${2:-3}
# shellcheck source=scripts/perf-work.sh
. scripts/perf-work.sh
perf_work anatomy-check
cfg=(latency --impl=c-futex --placement=cross-core --iterations="$iters" --rounds="$rounds" --quiet)

echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
perf record -q -e sched:sched_waking,sched:sched_switch,power:cpu_idle,ipi:ipi_send_cpu -a -o "$work/perf.data" -- \
	"$work/parkbench" "${cfg[@]}" -o "$work/plain.json" >/dev/null
perf script --ns -i "$work/perf.data" -F comm,tid,cpu,time,event,trace 2>/dev/null | awk -v out="$work/idle_exit.txt" '
	function field(name,   i, kv) {
		for (i = ev + 1; i <= NF; i++) if (index($i, name "=") == 1) { kv = substr($i, length(name) + 2); return kv }
		return ""
	}
	{
		for (c = 1; c <= NF; c++) if ($c ~ /^\[[0-9]+\]$/) break
		if (c > NF) next
		cpu = substr($c, 2, length($c) - 2) + 0
		t = $(c + 1); sub(/:$/, "", t)
		ev = c + 2
		comm = $1
		if ($ev == "power:cpu_idle:") {
			st = field("state"); id = field("cpu_id") + 0
			if (st == "4294967295") {
				if (id in pend) { printf "%.0f\n", (t - pend[id]) * 1e9 > out; delete pend[id] }
				idle[id] = 0
			} else idle[id] = 1
		} else if ($ev == "sched:sched_waking:") {
			if (comm != "parkbench" || field("comm") != "parkbench") next
			tc = field("target_cpu") + 0
			if (idle[tc]) { pend[tc] = t; nidle++ } else nbusy++
		}
	}
	END { printf "%d %d\n", nidle, nbusy }' >"$work/counts.txt"
read -r pidle pbusy <"$work/counts.txt"
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR == 0) print "none"; else printf "%.1f µs", v[int((NR + 1) / 2)] / 1000 }'; }
touch "$work/idle_exit.txt"
echo "perf record + perf script (sched_waking -> cpu_idle exit of the target CPU; median over the wakes whose CPU was idle), c-futex cross-core:"
echo "  idle_exit median $(median "$work/idle_exit.txt") over $(wc -l <"$work/idle_exit.txt") wakes (target CPU idle at $pidle wakes, busy at $pbusy)"

"$work/parkbench" "${cfg[@]}" --anatomy -o "$work/anat.json" >/dev/null
jq -r '.experiments[0].configs[] | select(.impl == "c-futex") | .summary |
	"parkbench latency --anatomy (median over decomposed wakes: a busy CPU counts 0), c-futex cross-core:\n  idle_exit median " +
	(if .anatomy_idle_exit_median_ns then ((.anatomy_idle_exit_median_ns / 100 | round) / 10 | tostring) + " µs" else "none" end) +
	" (idle wakes \(.anatomy_idle_wakes // 0), busy \(.anatomy_busy_wakes // 0), flagged \(.anatomy_flagged_wakes // 0)); probe effect " +
	(if .anatomy_probe_effect then ((.anatomy_probe_effect * 1000 | round) / 10 | tostring) + "%" else "-" end)' "$work/anat.json"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
